/*
 * The configuration below the engine: the key schema (one table gives every
 * key's path, type, default, range and documentation), the name table of
 * every enum, defaults, copy/free and validation. No libyaml here: src/io/
 * reads YAML into a tree and fills an rx_config through this schema.
 * Messages are "file:line:col: key.path: problem", located through marks.
 */
#ifndef RX_CONFIG_CONFIG_H
#define RX_CONFIG_CONFIG_H

#include <stddef.h>

#include "replex/replex.h"
#include "../core/row.h"

/* ---- the schema ------------------------------------------------------- */

typedef struct rx__keyinfo {
    const char *path;    /* dotted key path */
    const char *type;    /* human type */
    const char *deflt;   /* default as YAML text */
    const char *doc;     /* one-line description */
} rx__keyinfo;

/* rx__kkind and rx__keydef: src/core/row.h (a row declares its keys with
 * them). */

/* The configuration's own keys: rx__nkeys rows of rx__keys, in the order
 * of `replex keys` and of the resolved config.yaml; then the keys the rows
 * of the type tables declare (rowkeys.c). Every key has an index i in
 * [0, rx__key_count()): rx__keys first, then the rows' keys, table by
 * table, row by row. */
enum { RX__MAX_KEYS = 256 };
extern const rx__keydef rx__keys[];
extern const int rx__nkeys;

/* Every key (the configuration's own and the rows'), and key i of them
 * (NULL out of range). */
int rx__key_count(void);
const rx__keydef *rx__key_at(int i);
/* Index of a key path, -1 when it is not a key. */
int rx__key_index(const char *path);

/* ---- the type tables and their rows (rowkeys.c) ------------------------ */

/* The tables whose rows the configuration names (steps, exchange tests,
 * biases), NULL-terminated. */
extern const rx__table *const rx__tables[];
/* Rows always in use, picked by no key (runkeys.c): how a run is spread,
 * what it records besides. */
extern const rx__table rx__run_table;
/* Their values: hit.rho and hit.u_min; hit.stop; target.box; mpi.ranks;
 * tempering.every and step.reset_every. */
void rx__run_hit(const rx_config *c, double *rho, double *u_min);
int rx__run_hit_stop(const rx_config *c);
int rx__run_box(const rx_config *c);
int rx__run_ranks(const rx_config *c);
void rx__run_rounds(const rx_config *c, int64_t *every, int64_t *reset);
/* For a row's key i: its table and row (1), else 0. */
int rx__key_row(int i, const rx__table **t, int *row);
/* Is row r of table t in use in c (a step at position 1 or 2..P, the
 * exchange test of a run with swaps, the bias)? */
int rx__row_in_use(const rx_config *c, const rx__table *t, int r);
/* The row of t that c uses (steps: step.target), NULL when none. */
const rx__rowdecl *rx__row_of(const rx_config *c, const rx__table *t);
/* The values of row r's keys in c into out; a key c does not hold takes
 * its default (tmp: RX__ROW_MAX_KEYS scratch slots that out may point
 * into). */
typedef struct rx__slot {
    rx_vec v;  /* K_VEC */
    double d;  /* K_REAL, and every scalar as a number */
    int i;     /* K_INT, K_BOOL, K_ENUM */
} rx__slot;
void rx__row_values(const rx_config *c, const rx__table *t, int r,
                    rx__rowvals *out, rx__slot *tmp);
/* Where key i's value lives in c; for a row's key, in c's key store,
 * which this allocates (every row key at its default) when c has none:
 * NULL when that allocation fails. */
void *rx__key_base(rx_config *c, int i);
/* The same for reading: a row's key that c does not hold reads its
 * default, written into *tmp. */
const void *rx__key_cbase(const rx_config *c, int i, rx__slot *tmp);
/* After writing key i through rx__key_base: keep the store's number of an
 * integer key up to date. */
void rx__key_wrote(rx_config *c, int i);
/* Give c a key store (every row key at its default) if it has none:
 * RX_ENOMEM when that fails. */
rx_status rx__store_ensure(rx_config *c);
/* The key store's copy and release (rx_config_copy / _free). */
rx_status rx__store_copy(rx_config *dst, const rx_config *src);
void rx__store_free(rx_config *c);

/* The table whose rows an enum key picks (step.target: the steps), NULL
 * for the other keys. */
const rx__table *rx__key_table(const rx__keydef *kd);
/* The names of an enum key: count, name i ("?" out of range) and the
 * value of a name (-1 when none). */
int rx__kd_nnames(const rx__keydef *kd);
const char *rx__kd_name(const rx__keydef *kd, int i);
int rx__kd_find(const rx__keydef *kd, const char *name);
/* The human name of a kind ("integer", "list of numbers", ...). */
const char *rx__kind_name(rx__kkind k);

/* Number of schema keys, and key i (0 <= i < count): `replex keys` and the
 * test that checks docs/yaml.md documents every key. */
int rx__config_nkeys(void);
rx__keyinfo rx__config_key(int i);

/* The layer list of a model: n then RX_MAX_LAYERS layers, as laid out in
 * rx_config.model. */
typedef struct rx__layer_list {
    int n;
    rx_layer l[RX_MAX_LAYERS];
} rx__layer_list;

/* ---- one name table per enum (NULL-terminated, index = value) ---------- */

extern const char *const rx__target_names[];   /* rx_target_kind */
extern const char *const rx__format_names[];   /* rx_data_format */
extern const char *const rx__task_names[];     /* rx_task */
extern const char *const rx__header_names[];   /* data.header */
extern const char *const rx__lik_names[];      /* model.likelihood */
extern const char *const rx__scheme_names[];   /* rx_scheme */
extern const char *const rx__adapt_names[];    /* rx_ladder_adapt */
extern const char *const rx__path_names[];     /* rx_ladder_path */
extern const char *const rx__on_swap_names[];  /* rx_state_on_swap */
extern const char *const rx__policy_names[];   /* rx_fault_policy */
extern const char *const rx__balance_names[];  /* rx_balance */
extern const char *const rx__sync_names[];     /* rx_sync */
extern const char *const rx__normal_names[];   /* rx_normal_method */
extern const char *const rx__conv_names[];     /* model.conv */
extern const char *const rx__gemm_names[];     /* model.gemm */
extern const char *const rx__prior_scale_names[]; /* model.prior_scale */
extern const char *const rx__layer_names[];    /* rx_layer_kind - 1 */
extern const char *const rx__theta_init_names[]; /* rx_bias_theta_init */
extern const char *const rx__difference_names[]; /* rx_bias_difference */

/* Entries of a table. */
int rx__names_count(const char *const *tab);
/* The value whose name is `name`, -1 when none. */
int rx__names_find(const char *const *tab, const char *name);
/* The name of value v, "?" when out of range. */
const char *rx__names_of(const char *const *tab, int v);
/* The user's names of the two most printed enums. */
const char *rx__scheme_name(rx_scheme s);
const char *rx__rule_name(rx_rule r);

/* ---- where each key's value came from ---------------------------------- */

typedef struct rx__marks {
    const char *file;        /* the experiment file */
    int line[RX__MAX_KEYS], col[RX__MAX_KEYS];
    const char *src[RX__MAX_KEYS]; /* the file or "--set"; NULL = default */
} rx__marks;

/* Error at a key path, located through marks when available (mk may be
 * NULL). Returns RX_ECONFIG. */
rx_status rx__key_err(rx_err *err, const rx__marks *mk, const char *path,
                      const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 4, 5)))
#endif
    ;
/* The location "file:line:col: key.path" (or "file: key.path (not set)")
 * of a key, for warnings. */
void rx__key_where(const rx__marks *mk, const char *path, char *buf,
                   size_t cap);

/* ---- defaults, validation ---------------------------------------------- */

/* Set one key to its schema default (arrays are released first). */
void rx__key_default(rx_config *c, const rx__keydef *kd);

/* What row r of table t sees of the run c describes (src/core/row.h); dim
 * where known (0: from the target where the config gives it). */
void rx__row_run(const rx_config *c, const rx__table *t, int r, size_t dim,
                 rx__rowrun *run);
/* Every row in use: a known value for each table key, and the row's own
 * check against the run (dim as above), located at the key it names. */
rx_status rx__rows_check(const rx_config *c, size_t dim,
                         const rx__marks *mk, rx_err *err);

/* Cross-field validation with messages located through marks. */
rx_status rx__config_check(const rx_config *c, const rx__marks *mk,
                           rx_err *err);

/* The reference path's beta at position q < P = tempering.n_chains, as
 * rx_create sets it: ladder.betas[q] when listed, else (1 - q/(P-1))^a,
 * a = ladder.beta_exponent, with beta 1 at q = 0 and 0 at q = P - 1. */
double rx__config_ref_beta(const rx_config *c, int q);

/* The warnings of a valid config (combinations known to be biased, silent
 * mistakes): each is passed once to log at RX_LOG_WARN, located through
 * marks. explicit_only: warn about a biased combination only where the user
 * set one of its keys (the defaults are unbiased). Returns the count. */
int rx__config_warnings(const rx_config *c, const rx__marks *mk,
                        rx_logger log);

/* The DEO* window note's rule (rx_run's log and replex bench): W*(P, r)
 * for the pairs' condition rate r (1 for r >= 1) when it and the window W
 * that ran differ by a factor of 2 or more; 0 otherwise (and for r <= 0 or
 * W < 1). */
int rx__window_off(int P, int W, double r);

#endif
