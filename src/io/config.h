/*
 * The configuration's internal declarations live in src/config/config.h
 * (below the engine); this header re-includes them for the files that
 * still include it from here, and adds the loader's internal entry.
 */
#ifndef RX_IO_CONFIG_H
#define RX_IO_CONFIG_H

#include <stdio.h>

#include "../config/config.h"

/* The most runs a sweep block may make (its lists' lengths multiplied);
 * validate and run refuse more with the location of the list. */
#define RX_SWEEP_MAX_RUNS 100000

/* rx_config_load, and the warnings of the loaded config (located at the
 * keys; an empty file) passed once each to log (log.fn NULL: none). */
rx_status rx__config_load_log(const char *path, const char *const *sets,
                              int n_sets, rx_config *out, rx_logger log,
                              rx_err *err);

/* The resolved configuration as YAML on f, as rx_config_write writes it:
 * every key (all = 1), or only the keys that apply to c's target and
 * sampler (all = 0; src/config/applies.h) and a last comment line saying
 * how many were left out; all = 2: every key but the own keys of the
 * rows not in use (the checkpoint's canonical text, so that adding a rule
 * with keys leaves the checkpoints of runs that do not use it valid). */
void rx__config_fwrite(const rx_config *c, FILE *f, int all);
/* The order config.yaml and `replex keys` give the keys in: the schema's
 * own, each row's key right after the last own key of its section.
 * order holds nk = rx__key_count() indices (at most RX__MAX_KEYS);
 * returns how many it wrote. */
int rx__key_write_order(int *order, int nk);
/* The value of key ki of c as YAML text (the resolved config.yaml's). */
void rx__key_fput(FILE *f, const rx_config *c, int ki);

#endif
