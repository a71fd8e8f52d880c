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

/* ---- the schema ------------------------------------------------------- */

typedef struct rx__keyinfo {
    const char *path;    /* dotted key path */
    const char *type;    /* human type */
    const char *deflt;   /* default as YAML text */
    const char *doc;     /* one-line description */
} rx__keyinfo;

typedef enum rx__kkind {
    K_U64, K_I64, K_INT, K_REAL, K_BOOL, K_ENUM, K_VEC, K_MAT, K_LADDER,
    K_WINDOW, K_WCORR, K_SIGMA2, K_STR, K_LAYERS, K_COEF
} rx__kkind;

typedef struct rx__keydef {
    const char *path;
    rx__kkind kind;
    size_t off;               /* offset of the field in rx_config */
    const char *deflt;        /* default, as the YAML text `replex keys` shows */
    double lo, hi;
    int lo_open, hi_open;     /* exclusive bounds */
    const char *const *names; /* enum names, NULL-terminated */
    const char *doc;
} rx__keydef;

/* The key table: RX__NKEYS rows in the order of `replex keys` and of the
 * resolved config.yaml. */
enum { RX__MAX_KEYS = 192 };
extern const rx__keydef rx__keys[];
extern const int rx__nkeys;

/* Index of a key path in rx__keys, -1 when it is not a key. */
int rx__key_index(const char *path);
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
extern const char *const rx__rule_names[];     /* rx_rule */
extern const char *const rx__adapt_names[];    /* rx_ladder_adapt */
extern const char *const rx__path_names[];     /* rx_ladder_path */
extern const char *const rx__step_names[];     /* rx_step_kind */
extern const char *const rx__on_swap_names[];  /* rx_state_on_swap */
extern const char *const rx__policy_names[];   /* rx_fault_policy */
extern const char *const rx__balance_names[];  /* rx_balance */
extern const char *const rx__sync_names[];     /* rx_sync */
extern const char *const rx__normal_names[];   /* rx_normal_method */
extern const char *const rx__conv_names[];     /* model.conv */
extern const char *const rx__gemm_names[];     /* model.gemm */
extern const char *const rx__prior_scale_names[]; /* model.prior_scale */
extern const char *const rx__layer_names[];    /* rx_layer_kind - 1 */
extern const char *const rx__bias_names[];     /* rx_bias_kind */
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

/* Cross-field validation with messages located through marks. */
rx_status rx__config_check(const rx_config *c, const rx__marks *mk,
                           rx_err *err);

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
