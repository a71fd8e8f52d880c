/*
 * Which keys of the schema apply to a configuration: a key applies when
 * its value can change what the run does with this target, schedule,
 * swap rule, step rule and bias (`replex validate` shows only these;
 * `replex validate --all` and the run directory's config.yaml show every
 * key). The rules are by key path or by section, next to the schema.
 */
#ifndef RX_CONFIG_APPLIES_H
#define RX_CONFIG_APPLIES_H

#include "replex/replex.h"

/* 1 when key i of rx__keys applies to c, else 0 (also for i out of
 * range). */
int rx__key_applies(const rx_config *c, int i);

/* The rules' paths (a path ending in '.' is a section), for the test
 * that every rule names a key or a section of the schema: rule i, NULL
 * past the last. */
const char *rx__applies_rule(int i);

#endif
