/*
 * The result-affecting part of a configuration, as text and as a digest:
 * what a checkpoint records so that a resume with a changed configuration
 * is refused (src/io/checkpoint.c).
 */
#ifndef RX_IO_DIGEST_H
#define RX_IO_DIGEST_H

#include <stdint.h>

#include "replex/replex.h"

/* One "key.path: value" line per key of c that can change the results, in
 * the schema's order, as rx_config_write spells the values; the keys that
 * cannot (threads, sync, balance, balance_noise, checkpoint.every,
 * record.phase_timing) are left out. Built in memory: no file is
 * written. *text is malloc'd (the caller frees it). */
rx_status rx__config_canon(const rx_config *c, char **text, rx_err *err);

/* FNV-1a 64 of n bytes. */
uint64_t rx__digest64(const void *p, size_t n);

/* Writes into msg (cap bytes) "key: A in the checkpoint, B now" for
 * every key whose line differs between canonical texts a and b (or is in
 * one only), separated by "; ". Returns how many keys differ. */
int rx__config_canon_diff(const char *a, const char *b, char *msg,
                          size_t cap);

#endif
