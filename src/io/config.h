/*
 * Internal view of the configuration schema (used by the CLI's `keys`
 * command and by the test that checks docs/yaml.md documents every key).
 */
#ifndef RX_IO_CONFIG_H
#define RX_IO_CONFIG_H

#include "replex/replex.h"

typedef struct rx__keyinfo {
    const char *path;    /* dotted key path */
    const char *type;    /* human type */
    const char *deflt;   /* default as YAML text */
    const char *doc;     /* one-line description */
} rx__keyinfo;

/* The DEO* window note's rule (rx_run's log and replex bench): W*(P, r)
 * for the pairs' condition rate r (1 for r >= 1) when it and the window W
 * that ran differ by a factor of 2 or more; 0 otherwise (and for r <= 0 or
 * W < 1). */
RX_API int rx__window_off(int P, int W, double r);

/* Number of schema keys, and key i (0 <= i < count). */
RX_API int rx__config_nkeys(void);
RX_API rx__keyinfo rx__config_key(int i);

#endif
