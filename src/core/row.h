/*
 * What every row of a type table declares about itself (steps, exchange
 * tests, biases): its name, its own configuration keys, what it reads of
 * the shared keys, its properties as data, and its check against the run.
 * The configuration collects the keys of every row (src/config/schema.c),
 * so parsing, defaults, copy and free, `replex keys`, the resolved
 * config.yaml, "applies" and the docs check follow from this declaration;
 * validation, warnings and the engine's set-up read the properties.
 * Depends on nothing above core.
 */
#ifndef RX_CORE_ROW_H
#define RX_CORE_ROW_H

#include <stddef.h>

#include "replex/replex.h"

/* ---- keys ---------------------------------------------------------------*/

/* How a key's value is written and stored. The first five are the kinds a
 * row may declare; the rest belong to the configuration's own keys. */
typedef enum rx__kkind {
    K_REAL, K_INT, K_BOOL, K_ENUM, K_VEC, K_U64, K_I64, K_MAT, K_LADDER,
    K_WINDOW, K_WCORR, K_SIGMA2, K_STR, K_LAYERS, K_COEF
} rx__kkind;

/* One key. For the configuration's own keys `off` is the offset of the
 * field in rx_config; for a row's keys it is unused (0): the value lives
 * in the config's key store (rx_config.keys). A row declares K_REAL,
 * K_INT, K_BOOL, K_ENUM (with `names`) or K_VEC (its default "[]": a
 * list key defaults to empty); [lo, hi] bounds the value (each element
 * of a list), HUGE_VAL for no upper bound, lo_open/hi_open exclusive. A
 * row reads its values in `own` (rx__rowvals): k[i].v[0] for a scalar
 * (integers and booleans as doubles), k[i].v and k[i].n for a list (n 0
 * when empty). An enum's names are the
 * NULL-terminated `names`; NULL for a key that picks a row of a table
 * (rx__table.select): its names are the rows'. */
typedef struct rx__keydef {
    const char *path;
    rx__kkind kind;
    size_t off;
    const char *deflt;        /* default, as the YAML text `replex keys` shows */
    double lo, hi;
    int lo_open, hi_open;     /* exclusive bounds */
    const char *const *names; /* enum names, NULL-terminated */
    const char *doc;
} rx__keydef;

/* The value of one of a row's keys in a run: n numbers (1 for a scalar:
 * an integer, boolean or enum as a double; a list's length for K_VEC). */
typedef struct rx__pval {
    const double *v;
    int n;
} rx__pval;

/* Most keys one row may declare. */
#define RX__ROW_MAX_KEYS 8

/* The values of a row's keys, in the order it declares them. */
typedef struct rx__rowvals {
    rx__pval k[RX__ROW_MAX_KEYS];
} rx__rowvals;

/* What a row's check sees of the run it would join. */
typedef struct rx__rowrun {
    const rx_config *cfg;
    size_t dim;          /* parameters; 0 where not known before rx_create */
    int P;               /* positions */
    int at_target;       /* a step: runs at position 1 */
    int at_others;       /* a step: runs at positions 2..P */
    double tau_cold;     /* the coldest temperature it runs at (1 on the
                          * reference path) */
    double tau_hot;      /* the hottest */
    double eta_cold;     /* the learning rate at its coldest position */
    double eta_max;      /* the largest learning rate of the ladder
                          * (its `max` for a geometric or list ladder) */
    double eta_hot;      /* the learning rate at its hottest position */
    int tau_moves;       /* the temperature ladder adapts */
} rx__rowrun;

/*
 * The declaration every row type begins with.
 *  - name: the YAML name of the row (the one source of it).
 *  - keys, nkeys: the row's own keys (full dotted paths, e.g.
 *    "step.precond"), at most RX__ROW_MAX_KEYS; they apply while the row
 *    is in use.
 *  - uses: NULL-terminated paths of the configuration's shared keys the
 *    row reads (they apply while it is in use), or NULL.
 *  - props: the kind's RX__*_ property bits (step.h, xtest.h, bias.h).
 *  - check: NULL, or its check against the run: RX_OK, or RX_ECONFIG with
 *    *key = the key path at fault and err->msg = what is wrong, with no
 *    key path in it (the caller locates it: file:line:col: key: ...).
 *  - warn: NULL, or a warning the run deserves: returns 1 with *key and
 *    msg filled (no key path in msg), 0 when it has none.
 */
typedef struct rx__rowdecl {
    const char *name;
    const char *doc;
    const rx__keydef *keys;
    int nkeys;
    const char *const *uses;
    unsigned props;
    rx_status (*check)(const rx__rowrun *run, const rx__rowvals *own,
                       const char **key, rx_err *err);
    int (*warn)(const rx__rowrun *run, const rx__rowvals *own,
                const char **key, char *msg, size_t cap);
} rx__rowdecl;

/* The rows of one table, as the generic paths walk them: count() rows,
 * row at(i) (i = the row's value in the configuration). */
typedef struct rx__table {
    const char *kind;               /* "step", "exchange test", "bias" */
    const char *select[3];          /* the keys whose value is a row */
    int (*count)(void);
    const rx__rowdecl *(*at)(int i);
} rx__table;

#endif
