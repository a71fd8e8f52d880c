/*
 * `replex bench`: a grid benchmark over schedule x P x threads x target x
 * swap rule x normal method, through the public API only (rx_create /
 * rx_run / rx_get_results). Owns the grid file (parsed here with libyaml),
 * the cells, one fork()ed child per run (isolation, and the peak RSS from
 * wait4), the statistics over repetitions and the outputs (bench.csv,
 * bench.md, gnuplot figures). It never reaches into the library's
 * internals: what it measures is what an embedding program gets. The one
 * file outside src/io/ that includes <yaml.h>: the grid format is the
 * CLI's, not part of the library's configuration schema.
 */
#define _DEFAULT_SOURCE
#define _POSIX_C_SOURCE 200809L
#include <errno.h>
#include <math.h>
#include <poll.h>
#include <signal.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/time.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>
#include <yaml.h>

#include "../core/internal.h"
#include "../io/config.h"
#include "bench.h"
#include "plots.h"
#include "progress.h"
#include "replex/replex.h"

enum { EXIT_OK = 0, EXIT_RUNFAIL = 1, EXIT_BADINPUT = 2 };
enum { MAX_CELLS = 20000, MAX_REPS = 1000 };
/* a cell during whose runs others took more of the CPUs is reported; a
 * reading needs runs of this many seconds together */
#define RX_BENCH_FOREIGN_WARN 0.05
#define RX_BENCH_FOREIGN_SPAN 1.0

/* ------------------------------------------------------------------------ */
/* Names.                                                                    */
/* ------------------------------------------------------------------------ */

typedef enum bt_kind {
    BT_FILE,
    BT_MIXTURE25,
    BT_GMM_CHEAP,
    BT_GMM_EXPENSIVE,
    BT_NONE
} bt_kind;

typedef struct named {
    const char *name;
    int value;
} named;

static const named TARGETS[] = {
    {"mixture25", BT_MIXTURE25},
    {"gmm_cheap", BT_GMM_CHEAP},
    {"gmm_expensive", BT_GMM_EXPENSIVE},
    {"none", BT_NONE},
};
static const named SCHEMES[] = {
    {"adj", RX_SCHEME_ADJ},       {"seo", RX_SCHEME_SEO},
    {"deo", RX_SCHEME_DEO},       {"deo_w", RX_SCHEME_DEO_W},
    {"deo_star", RX_SCHEME_DEO_STAR}, {"ape", RX_SCHEME_APE},
};
static const named RULES[] = {
    {"metropolis", RX_RULE_METROPOLIS},
    {"bias_corrected", RX_RULE_BIAS_CORRECTED},
    {"deterministic", RX_RULE_DETERMINISTIC},
    {"bernoulli", RX_RULE_BERNOULLI},
};
static const named NORMALS[] = {
    {"ziggurat", RX_NORMAL_ZIGGURAT},
    {"box_muller", RX_NORMAL_BOX_MULLER},
};
#define NELEM(a) ((int)(sizeof(a) / sizeof((a)[0])))

/* The keys of a grid mapping (GK_GRIDS at the top level only). */
enum {
    GK_SCHEMES, GK_WINDOWS, GK_CHAINS, GK_THREADS, GK_TARGETS, GK_RULES,
    GK_NORMALS, GK_NOISE, GK_ITERATIONS, GK_REPS, GK_SEED, GK_TIMING,
    GK_GRIDS, GK_N
};
static const char *const GRID_KEYS[GK_N] = {
    "schemes", "windows", "chains", "threads", "targets", "rules",
    "normals", "energy_noise_sd", "iterations", "reps", "seed",
    "phase_timing", "grids",
};

static const char *name_of(const named *t, int n, int value)
{
    for (int i = 0; i < n; ++i)
        if (t[i].value == value)
            return t[i].name;
    return "?";
}


/* ------------------------------------------------------------------------ */
/* The grid.                                                                 */
/* ------------------------------------------------------------------------ */

typedef struct btarget {
    bt_kind kind;
    const char *name; /* built-in name or file path */
    int line, col;   /* in the grid file; 0 for a command-line value */
    char where[96];  /* key path, e.g. "grids[2].targets[1]" */
} btarget;

/* One grid: lists are borrowed from the pool (a grids: entry starts as
 * a copy of the top level and replaces what it names). */
typedef struct bgrid {
    int index;       /* 1-based grids: entry, 0 = the top level */
    int line, col;   /* its mapping */
    int *schemes, n_schemes;
    int *windows, n_windows;
    int *chains, n_chains;
    int *threads, n_threads;
    btarget *targets;
    int n_targets;
    int *rules, n_rules;
    int *normals, n_normals; /* rx_normal_method values */
    double *noise;
    int n_noise;
    int64_t iterations;
    int reps;
    uint64_t seed;
    int timing;
} bgrid;

/* Every allocation of the parse, freed together. */
typedef struct bpool {
    void **p;
    int n, cap;
} bpool;

static void *pool_alloc(bpool *pl, size_t size)
{
    if (pl->n == pl->cap) {
        int cap = pl->cap ? 2 * pl->cap : 64;
        void **np = realloc(pl->p, sizeof(void *) * (size_t)cap);
        if (!np)
            return NULL;
        pl->p = np;
        pl->cap = cap;
    }
    void *m = calloc(1, size ? size : 1);
    if (m)
        pl->p[pl->n++] = m;
    return m;
}

static void pool_free(bpool *pl)
{
    for (int i = 0; i < pl->n; ++i)
        free(pl->p[i]);
    free(pl->p);
    pl->p = NULL;
    pl->n = pl->cap = 0;
}

typedef struct bparse {
    const char *file;
    yaml_document_t *doc;
    bpool *pool;
    int ncpu;
    char msg[1400];
    int oom;
} bparse;

static int perr(bparse *b, const yaml_node_t *n, const char *path,
                const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 4, 5)))
#endif
    ;
/* "file:line:col: path: what" into b->msg; returns -1. */
static int perr(bparse *b, const yaml_node_t *n, const char *path,
                const char *fmt, ...)
{
    int w = snprintf(b->msg, sizeof b->msg, "%s:%d:%d: %s: ", b->file,
                     n ? (int)n->start_mark.line + 1 : 1,
                     n ? (int)n->start_mark.column + 1 : 1, path);
    if (w < 0)
        w = 0;
    if ((size_t)w < sizeof b->msg) {
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(b->msg + w, sizeof b->msg - (size_t)w, fmt, ap);
        va_end(ap);
    }
    return -1;
}

static int oom(bparse *b)
{
    b->oom = 1;
    snprintf(b->msg, sizeof b->msg, "out of memory");
    return -1;
}

static yaml_node_t *node(bparse *b, int id)
{
    return yaml_document_get_node(b->doc, id);
}

static const char *sval(const yaml_node_t *n)
{
    return (const char *)n->data.scalar.value;
}

/* Strict integer in [lo, hi]; 0 or -1. */
static int to_ll(const char *s, long long lo, long long hi, long long *out)
{
    char *end;
    errno = 0;
    long long v = strtoll(s, &end, 10);
    if (end == s || *end || errno == ERANGE || v < lo || v > hi)
        return -1;
    *out = v;
    return 0;
}

/* Items of a list value: a sequence of scalars, or one scalar (a list of
 * one). Sets *items (pool) and *n >= 1; -1 with a message otherwise. */
static int list_items(bparse *b, yaml_node_t *n, const char *path,
                      yaml_node_t ***items, int *count)
{
    if (n->type == YAML_SCALAR_NODE) {
        if (n->data.scalar.length == 0)
            return perr(b, n, path, "empty value (expected a list)");
        *items = pool_alloc(b->pool, sizeof(yaml_node_t *));
        if (!*items)
            return oom(b);
        (*items)[0] = n;
        *count = 1;
        return 0;
    }
    if (n->type != YAML_SEQUENCE_NODE)
        return perr(b, n, path, "expected a list, got a mapping");
    int k = (int)(n->data.sequence.items.top - n->data.sequence.items.start);
    if (k == 0)
        return perr(b, n, path, "empty list");
    *items = pool_alloc(b->pool, sizeof(yaml_node_t *) * (size_t)k);
    if (!*items)
        return oom(b);
    for (int i = 0; i < k; ++i) {
        yaml_node_t *it = node(b, n->data.sequence.items.start[i]);
        if (!it || it->type != YAML_SCALAR_NODE) {
            char p[200];
            snprintf(p, sizeof p, "%s[%d]", path, i);
            return perr(b, it ? it : n, p, "expected a scalar, got a %s",
                        it && it->type == YAML_MAPPING_NODE ? "mapping"
                                                             : "list");
        }
        (*items)[i] = it;
    }
    *count = k;
    return 0;
}

/* Item path: "path[i]" for a list of several, "path" for a scalar. */
static void item_path(char *p, size_t cap, const char *path,
                      const yaml_node_t *list, int i)
{
    if (list->type == YAML_SEQUENCE_NODE)
        snprintf(p, cap, "%s[%d]", path, i);
    else
        snprintf(p, cap, "%s", path);
}

/* list_items, and room for *count values of `size` bytes each from the
 * pool; NULL once an error is reported. */
static void *list_alloc(bparse *b, yaml_node_t *n, const char *path,
                        size_t size, yaml_node_t ***items, int *count)
{
    if (list_items(b, n, path, items, count))
        return NULL;
    void *v = pool_alloc(b->pool, size * (size_t)*count);
    if (!v)
        oom(b);
    return v;
}

static int parse_names(bparse *b, yaml_node_t *n, const char *path,
                       const named *tab, int ntab, const char *what,
                       int **out, int *count)
{
    yaml_node_t **it;
    int k;
    int *v = list_alloc(b, n, path, sizeof(int), &it, &k);
    if (!v)
        return -1;
    for (int i = 0; i < k; ++i) {
        int j = 0;
        while (j < ntab && strcmp(sval(it[i]), tab[j].name))
            ++j;
        if (j < ntab) {
            v[i] = tab[j].value;
            continue;
        }
        char p[200], all[256] = "";
        item_path(p, sizeof p, path, n, i);
        const char *names[16];
        for (int q = 0; q < ntab && q < 16; ++q) {
            names[q] = tab[q].name;
            size_t l = strlen(all);
            snprintf(all + l, sizeof all - l, "%s%s", q ? ", " : "",
                     tab[q].name);
        }
        const char *sug = rx__closest_name(sval(it[i]), names, ntab < 16 ? ntab : 16);
        if (sug)
            return perr(b, it[i], p, "unknown %s '%s'; did you mean '%s'? "
                        "(one of %s)", what, sval(it[i]), sug, all);
        return perr(b, it[i], p, "unknown %s '%s' (one of %s)", what,
                    sval(it[i]), all);
    }
    *out = v;
    *count = k;
    return 0;
}

static int parse_ints(bparse *b, yaml_node_t *n, const char *path,
                      long long lo, long long hi, int allow_all, int **out,
                      int *count)
{
    yaml_node_t **it;
    int k;
    if (allow_all && n->type == YAML_SCALAR_NODE &&
        !strcmp(sval(n), "all")) {
        /* threads: all = 1, 2, ..., the CPUs */
        int *v = pool_alloc(b->pool, sizeof(int) * (size_t)b->ncpu);
        if (!v)
            return oom(b);
        for (int i = 0; i < b->ncpu; ++i)
            v[i] = i + 1;
        *out = v;
        *count = b->ncpu;
        return 0;
    }
    int *v = list_alloc(b, n, path, sizeof(int), &it, &k);
    if (!v)
        return -1;
    for (int i = 0; i < k; ++i) {
        long long x;
        if (allow_all && !strcmp(sval(it[i]), "all")) {
            v[i] = b->ncpu;
            continue;
        }
        if (to_ll(sval(it[i]), lo, hi, &x)) {
            char p[200];
            item_path(p, sizeof p, path, n, i);
            return perr(b, it[i], p, "expected an integer in [%lld, %lld]%s,"
                        " got '%s'", lo, hi, allow_all ? " or all" : "",
                        sval(it[i]));
        }
        v[i] = (int)x;
    }
    *out = v;
    *count = k;
    return 0;
}

static int parse_noise(bparse *b, yaml_node_t *n, const char *path,
                       double **out, int *count)
{
    yaml_node_t **it;
    int k;
    double *v = list_alloc(b, n, path, sizeof(double), &it, &k);
    if (!v)
        return -1;
    for (int i = 0; i < k; ++i) {
        char *end;
        const char *s = sval(it[i]);
        double x = strtod(s, &end);
        if (end == s || *end || !isfinite(x) || x < 0.0) {
            char p[200];
            item_path(p, sizeof p, path, n, i);
            return perr(b, it[i], p, "expected a number >= 0, got '%s'", s);
        }
        v[i] = x;
    }
    *out = v;
    *count = k;
    return 0;
}

static int scalar_int(bparse *b, yaml_node_t *n, const char *path,
                      long long lo, long long hi, long long *out)
{
    if (n->type != YAML_SCALAR_NODE)
        return perr(b, n, path, "expected an integer, got a %s",
                    n->type == YAML_MAPPING_NODE ? "mapping" : "list");
    if (to_ll(sval(n), lo, hi, out))
        return perr(b, n, path, "expected an integer in [%lld, %lld], got "
                    "'%s'", lo, hi, sval(n));
    return 0;
}

static int is_file_name(const char *s)
{
    size_t l = strlen(s);
    return strchr(s, '/') || (l > 5 && !strcmp(s + l - 5, ".yaml")) ||
           (l > 4 && !strcmp(s + l - 4, ".yml"));
}

/* A target of the list: a built-in name or the path of an experiment file
 * (loaded here, so a bad file is refused before anything runs). */
static int parse_target(bparse *b, yaml_node_t *n, const char *where,
                        btarget *t)
{
    const char *s = sval(n);
    t->line = (int)n->start_mark.line + 1;
    t->col = (int)n->start_mark.column + 1;
    snprintf(t->where, sizeof t->where, "%s", where);
    char *copy = pool_alloc(b->pool, strlen(s) + 1);
    if (!copy)
        return oom(b);
    strcpy(copy, s);
    t->name = copy;
    if (strpbrk(s, ",'\"|\n\\"))
        return perr(b, n, where, "a target name must not contain a comma, "
                    "a quote, '|', a backslash or a newline ('%s')", s);
    for (int i = 0; i < NELEM(TARGETS); ++i)
        if (!strcmp(s, TARGETS[i].name)) {
            t->kind = (bt_kind)TARGETS[i].value;
            return 0;
        }
    if (!is_file_name(s)) {
        const char *names[NELEM(TARGETS)];
        for (int i = 0; i < NELEM(TARGETS); ++i)
            names[i] = TARGETS[i].name;
        const char *sug = rx__closest_name(s, names, NELEM(TARGETS));
        return perr(b, n, where, "unknown target '%s'%s%s%s (built-in: "
                    "mixture25, gmm_cheap, gmm_expensive, none; or the path "
                    "of an experiment file, ending in .yaml)", s,
                    sug ? "; did you mean '" : "", sug ? sug : "",
                    sug ? "'?" : "");
    }
    t->kind = BT_FILE;
    rx_config c;
    rx_err err = {""};
    rx_status st = rx_config_load(s, NULL, 0, &c, &err);
    if (st == RX_OK) {
        rx_config_free(&c);
        return 0;
    }
    if (st == RX_ENOMEM)
        return oom(b);
    return perr(b, n, where, "%s", err.msg);
}

static int parse_targets(bparse *b, yaml_node_t *n, const char *path,
                         btarget **out, int *count)
{
    yaml_node_t **it;
    int k;
    btarget *v = list_alloc(b, n, path, sizeof(btarget), &it, &k);
    if (!v)
        return -1;
    for (int i = 0; i < k; ++i) {
        char p[200];
        item_path(p, sizeof p, path, n, i);
        if (parse_target(b, it[i], p, &v[i]))
            return -1;
    }
    *out = v;
    *count = k;
    return 0;
}

/* One grid mapping into *g (which holds the inherited values). top: the
 * top level, where `grids` may stand (its node is returned in *grids). */
static int parse_grid_map(bparse *b, yaml_node_t *m, const char *prefix,
                          int top, bgrid *g, yaml_node_t **grids)
{
    if (m->type != YAML_MAPPING_NODE)
        return perr(b, m, prefix[0] ? prefix : "(top level)",
                    "expected a mapping of grid keys");
    g->line = (int)m->start_mark.line + 1;
    g->col = (int)m->start_mark.column + 1;
    int seen[GK_N] = {0};
    for (yaml_node_pair_t *pr = m->data.mapping.pairs.start;
         pr < m->data.mapping.pairs.top; ++pr) {
        yaml_node_t *k = node(b, pr->key), *v = node(b, pr->value);
        if (!k || !v)
            return perr(b, m, prefix, "malformed mapping");
        if (k->type != YAML_SCALAR_NODE)
            return perr(b, k, prefix[0] ? prefix : "(top level)",
                        "keys must be names");
        const char *ks = sval(k);
        char path[160];
        snprintf(path, sizeof path, "%s%s%s", prefix, prefix[0] ? "." : "",
                 ks);
        int key = 0;
        while (key < GK_N && strcmp(ks, GRID_KEYS[key]))
            ++key;
        if (key == GK_N) {
            const char *sug = rx__closest_name(ks, GRID_KEYS, GK_N);
            if (sug)
                return perr(b, k, path, "unknown key '%s'; did you mean "
                            "'%s'?", ks, sug);
            return perr(b, k, path, "unknown key '%s' (keys: schemes, "
                        "windows, chains, threads, targets, rules, normals, "
                        "energy_noise_sd, iterations, reps, seed, "
                        "phase_timing, grids)", ks);
        }
        if (seen[key]++)
            return perr(b, k, path, "duplicate key");
        long long x = 0;
        switch (key) {
        case GK_SCHEMES:
            if (parse_names(b, v, path, SCHEMES, NELEM(SCHEMES), "scheme",
                            &g->schemes, &g->n_schemes))
                return -1;
            break;
        case GK_WINDOWS:
            if (parse_ints(b, v, path, 1, 1000000, 0, &g->windows,
                           &g->n_windows))
                return -1;
            break;
        case GK_CHAINS:
            if (parse_ints(b, v, path, 2, 65536, 0, &g->chains,
                           &g->n_chains))
                return -1;
            break;
        case GK_THREADS:
            if (parse_ints(b, v, path, 1, 4096, 1, &g->threads,
                           &g->n_threads))
                return -1;
            break;
        case GK_TARGETS:
            if (parse_targets(b, v, path, &g->targets, &g->n_targets))
                return -1;
            break;
        case GK_RULES:
            if (parse_names(b, v, path, RULES, NELEM(RULES), "rule",
                            &g->rules, &g->n_rules))
                return -1;
            break;
        case GK_NORMALS:
            if (parse_names(b, v, path, NORMALS, NELEM(NORMALS),
                            "normal method", &g->normals, &g->n_normals))
                return -1;
            break;
        case GK_NOISE:
            if (parse_noise(b, v, path, &g->noise, &g->n_noise))
                return -1;
            break;
        case GK_ITERATIONS:
            if (scalar_int(b, v, path, 1, 1000000000000LL, &x))
                return -1;
            g->iterations = x;
            break;
        case GK_REPS:
            if (scalar_int(b, v, path, 1, MAX_REPS, &x))
                return -1;
            g->reps = (int)x;
            break;
        case GK_SEED:
            if (scalar_int(b, v, path, 0, INT64_MAX, &x))
                return -1;
            g->seed = (uint64_t)x;
            break;
        case GK_TIMING: {
            const char *s = v->type == YAML_SCALAR_NODE ? sval(v) : "";
            if (!strcmp(s, "true") || !strcmp(s, "yes") || !strcmp(s, "on"))
                g->timing = 1;
            else if (!strcmp(s, "false") || !strcmp(s, "no") ||
                     !strcmp(s, "off"))
                g->timing = 0;
            else
                return perr(b, v, path, "expected true or false, got '%s'",
                            s);
            break;
        }
        case GK_GRIDS:
            if (!top)
                return perr(b, k, path, "grids may only stand at the top "
                            "level");
            *grids = v;
            break;
        }
    }
    return 0;
}

/* The defaults of a grid file's top level. */
static int grid_defaults(bparse *b, bgrid *g)
{
    static const int d_schemes[] = {RX_SCHEME_DEO, RX_SCHEME_DEO_STAR};
    static const int d_windows[] = {2, 4, 8};
    memset(g, 0, sizeof *g);
    g->schemes = pool_alloc(b->pool, sizeof d_schemes);
    g->windows = pool_alloc(b->pool, sizeof d_windows);
    g->chains = pool_alloc(b->pool, sizeof(int));
    g->threads = pool_alloc(b->pool, sizeof(int));
    g->rules = pool_alloc(b->pool, sizeof(int));
    g->normals = pool_alloc(b->pool, sizeof(int));
    g->noise = pool_alloc(b->pool, sizeof(double));
    g->targets = pool_alloc(b->pool, sizeof(btarget));
    if (!g->schemes || !g->windows || !g->chains || !g->threads ||
        !g->rules || !g->normals || !g->noise || !g->targets)
        return oom(b);
    memcpy(g->schemes, d_schemes, sizeof d_schemes);
    g->n_schemes = 2;
    memcpy(g->windows, d_windows, sizeof d_windows);
    g->n_windows = 3;
    g->chains[0] = 16;
    g->n_chains = 1;
    g->threads[0] = 1;
    g->n_threads = 1;
    g->rules[0] = RX_RULE_METROPOLIS;
    g->n_rules = 1;
    g->normals[0] = RX_NORMAL_ZIGGURAT;
    g->n_normals = 1;
    g->noise[0] = 0.0;
    g->n_noise = 1;
    g->targets[0].kind = BT_MIXTURE25;
    g->targets[0].name = "mixture25";
    snprintf(g->targets[0].where, sizeof g->targets[0].where,
             "targets (default)");
    g->n_targets = 1;
    g->iterations = 20000;
    g->reps = 3;
    g->seed = 1;
    g->timing = 1;
    return 0;
}

/* Reads the grid file into *grids (pool) / *ngrids. 0, or -1 with
 * b->msg. */
static int load_grid_file(bparse *b, bgrid **grids, int *ngrids)
{
    FILE *f = fopen(b->file, "rb");
    if (!f) {
        snprintf(b->msg, sizeof b->msg, "%s: cannot open: %s", b->file,
                 strerror(errno));
        return -1;
    }
    yaml_parser_t ps;
    yaml_document_t doc;
    if (!yaml_parser_initialize(&ps)) {
        fclose(f);
        return oom(b);
    }
    yaml_parser_set_input_file(&ps, f);
    if (!yaml_parser_load(&ps, &doc)) {
        snprintf(b->msg, sizeof b->msg, "%s:%d:%d: YAML syntax: %s%s%s",
                 b->file, (int)ps.problem_mark.line + 1,
                 (int)ps.problem_mark.column + 1,
                 ps.problem ? ps.problem : "error",
                 ps.context ? " " : "", ps.context ? ps.context : "");
        yaml_parser_delete(&ps);
        fclose(f);
        return -1;
    }
    b->doc = &doc;
    int rc = 0;
    bgrid base;
    yaml_node_t *root = yaml_document_get_root_node(&doc);
    yaml_node_t *gl = NULL;
    if (grid_defaults(b, &base))
        rc = -1;
    else if (root && !(root->type == YAML_SCALAR_NODE &&
                       root->data.scalar.length == 0))
        rc = parse_grid_map(b, root, "", 1, &base, &gl);
    if (rc == 0 && gl) {
        int k = gl->type == YAML_SEQUENCE_NODE
                    ? (int)(gl->data.sequence.items.top -
                            gl->data.sequence.items.start)
                    : -1;
        if (k < 0)
            rc = perr(b, gl, "grids", "expected a list of grid mappings");
        else if (k == 0)
            rc = perr(b, gl, "grids", "empty list");
        bgrid *v = rc ? NULL : pool_alloc(b->pool, sizeof(bgrid) * (size_t)k);
        if (rc == 0 && !v)
            rc = oom(b);
        for (int i = 0; rc == 0 && i < k; ++i) {
            char p[64];
            snprintf(p, sizeof p, "grids[%d]", i);
            yaml_node_t *m = node(b, gl->data.sequence.items.start[i]);
            v[i] = base;
            v[i].index = i + 1;
            rc = m ? parse_grid_map(b, m, p, 0, &v[i], NULL)
                   : perr(b, gl, p, "malformed list");
        }
        if (rc == 0) {
            *grids = v;
            *ngrids = k;
        }
    } else if (rc == 0) {
        bgrid *v = pool_alloc(b->pool, sizeof(bgrid));
        if (!v) {
            rc = oom(b);
        } else {
            *v = base;
            *grids = v;
            *ngrids = 1;
        }
    }
    yaml_document_delete(&doc);
    yaml_parser_delete(&ps);
    fclose(f);
    b->doc = NULL;
    return rc;
}

/* --threads / --chains: "1,2,4" (threads also "all", or "all" items). */
static int parse_cli_list(const char *opt, const char *s, int lo, int hi,
                          int allow_all, int ncpu, bpool *pl, int **out,
                          int *count)
{
    if (allow_all && !strcmp(s, "all")) {
        int *v = pool_alloc(pl, sizeof(int) * (size_t)ncpu);
        if (!v)
            return -1;
        for (int i = 0; i < ncpu; ++i)
            v[i] = i + 1;
        *out = v;
        *count = ncpu;
        return 0;
    }
    int k = 1;
    for (const char *c = s; *c; ++c)
        k += *c == ',';
    int *v = pool_alloc(pl, sizeof(int) * (size_t)k);
    if (!v)
        return -1;
    const char *c = s;
    for (int i = 0; i < k; ++i) {
        char item[64];
        size_t l = strcspn(c, ",");
        long long x;
        snprintf(item, sizeof item, "%.*s", (int)(l < 63 ? l : 63), c);
        if (allow_all && !strcmp(item, "all")) {
            v[i] = ncpu;
        } else if (l >= 63 || to_ll(item, lo, hi, &x)) {
            fprintf(stderr, "replex: bench: %s: expected a comma-separated "
                    "list of integers in [%d, %d]%s, got '%s'\n", opt, lo,
                    hi, allow_all ? " (or all)" : "", s);
            return -2;
        } else {
            v[i] = (int)x;
        }
        c += l + (c[l] == ',');
    }
    *out = v;
    *count = k;
    return 0;
}

/* ------------------------------------------------------------------------ */
/* Cells and their configurations.                                           */
/* ------------------------------------------------------------------------ */

typedef struct bcell {
    int grid;              /* bgrid.index */
    const btarget *tg;
    double noise;          /* built-in targets; NAN for files and none */
    int rule, normal, scheme, window, P, threads;
    int64_t iterations;
    int reps;
    uint64_t seed;
    int timing;
    /* measured */
    double *wall;          /* reps sampling seconds (wall_s - eval_s) */
    int nwall;
    int64_t trips, swaps, attempts;
    int64_t conds, evals; /* the pairs' swap conditions and evaluations */
    int window_used, threads_used, nondet;
    int timed;
    double timed_wall, phase[RX_NPHASES], imb;
    int has_imb;
    long rss_kib;
    double fg_cpu, fg_span; /* others' CPU seconds, wall seconds: sums */
    int fg_bad;            /* a run without a reading */
    double foreign;        /* fg_cpu / (fg_span x CPUs); -1 unknown */
    double *wsh;           /* reps: the sampling runs' mean wait shares */
    int nwsh;
    double *stl;           /* reps: the sampling runs' steal shares */
    int nstl;
    /* derived */
    double wall_best, wall_med, cps_best, cps_med, speedup, eff;
    double wsh_med;        /* median of wsh, -1 when none (1 thread) */
    double stl_med;        /* median of stl, -1 when unknown */
    int base;              /* the 1-thread cell, or -1 */
} bcell;

/* Deterministic values in [0, 1) for the built-in gmm_expensive (a fixed
 * target, whatever the grid's seed). */
static double sm_uniform(uint64_t *s)
{
    uint64_t z = (*s += 0x9e3779b97f4a7c15ULL);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    z ^= z >> 31;
    return (double)(z >> 11) * 0x1.0p-53;
}

enum { GMM_EXP_DIM = 100, GMM_EXP_COMP = 50 };

/* Fills the target and ladders of a built-in target. */
static rx_status builtin_target(bt_kind kind, double noise, rx_config *c)
{
    c->ladder.eta.kind = RX_LADDER_CONSTANT;
    c->ladder.tau.kind = RX_LADDER_GEOMETRIC;
    c->ladder.tau.min = 1.0;
    c->tempering.target_swap_rate = 0.4;
    if (kind == BT_MIXTURE25) {
        /* yaml/mixture25_deo.yaml */
        c->target.kind = RX_TARGET_MIXTURE25;
        c->target.confine_radius2 = 20.0;
        c->ladder.eta.min = 0.003;
        c->ladder.tau.max = 30.0;
    } else if (kind == BT_NONE) {
        c->target.kind = RX_TARGET_NONE;
        return RX_OK;
    } else {
        static const double w2[4] = {0.1, 0.2, 0.3, 0.4};
        static const double m2[8] = {-4, -4, -4, 4, 4, -4, 4, 4};
        static const double s2[8] = {0.6, 0.9, 0.8, 0.6, 0.7, 0.7, 0.9, 0.5};
        const int cheap = kind == BT_GMM_CHEAP;
        const int K = cheap ? 4 : GMM_EXP_COMP, d = cheap ? 2 : GMM_EXP_DIM;
        const size_t kd = (size_t)K * (size_t)d;
        c->target.kind = RX_TARGET_GMM;
        c->target.dim = d;
        c->target.weights.v = malloc(sizeof(double) * (size_t)K);
        c->target.means.v = malloc(sizeof(double) * kd);
        c->target.scales.v = malloc(sizeof(double) * kd);
        if (!c->target.weights.v || !c->target.means.v ||
            !c->target.scales.v)
            return RX_ENOMEM;
        c->target.weights.n = K;
        c->target.means.rows = c->target.scales.rows = K;
        c->target.means.cols = c->target.scales.cols = d;
        uint64_t s = 12345;
        for (int k = 0; k < K; ++k)
            c->target.weights.v[k] = cheap ? w2[k] : 1.0 + sm_uniform(&s);
        for (size_t j = 0; j < kd; ++j) {
            c->target.means.v[j] = cheap ? m2[j] : -4.0 + 8.0 * sm_uniform(&s);
            c->target.scales.v[j] = cheap ? s2[j] : 0.5 + 0.5 * sm_uniform(&s);
        }
        /* yaml/gmm_2d.yaml's ladders; smaller steps in 100 dimensions */
        c->ladder.eta.min = cheap ? 0.02 : 0.005;
        c->ladder.tau.max = 40.0;
    }
    c->target.energy_noise_sd = noise;
    c->target.grad_noise_sd = noise;
    return RX_OK;
}

/* The configuration of one cell (timing: record.phase_timing). On error
 * err says why and *cfg holds defaults. */
static rx_status cell_config(const bcell *c, int timing, rx_config *cfg,
                             rx_err *err)
{
    rx_status st;
    if (c->tg->kind == BT_FILE) {
        if ((st = rx_config_load(c->tg->name, NULL, 0, cfg, err)) != RX_OK)
            return st;
    } else {
        rx_config_default(cfg);
        cfg->seed = c->seed;
        if ((st = builtin_target(c->tg->kind, c->noise, cfg)) != RX_OK) {
            rx_config_free(cfg);
            snprintf(err->msg, sizeof err->msg, "out of memory");
            return st;
        }
    }
    cfg->iterations = c->iterations;
    cfg->threads = c->threads;
    cfg->tempering.n_chains = c->P;
    cfg->tempering.scheme = (rx_scheme)c->scheme;
    if (c->scheme == RX_SCHEME_DEO_W)
        cfg->tempering.window = c->window;
    else if (c->scheme == RX_SCHEME_DEO_STAR)
        cfg->tempering.window = RX_WINDOW_AUTO;
    cfg->tempering.rule = (rx_rule)c->rule;
    cfg->rng.normal = (rx_normal_method)c->normal; /* over a file's */
    /* minimal recording, as bench/bench_engine.c: no index process, no
     * trace, a sample every 100 iterations, no final ensemble score */
    cfg->record.burn_in = 0;
    cfg->record.thin = 100;
    cfg->record.index_every = 0;
    cfg->record.trace_every = 0;
    cfg->record.phase_timing = timing;
    cfg->evaluate.final_ensemble = 0;
    cfg->checkpoint.every = 0;
    if ((st = rx_config_validate(cfg, err)) != RX_OK)
        rx_config_free(cfg);
    return st;
}

static const char *scheme_label(int scheme)
{
    switch (scheme) {
    case RX_SCHEME_ADJ: return "ADJ";
    case RX_SCHEME_SEO: return "SEO";
    case RX_SCHEME_DEO: return "DEO";
    case RX_SCHEME_DEO_W: return "DEO_W";
    case RX_SCHEME_DEO_STAR: return "DEO*";
    case RX_SCHEME_APE: return "APE";
    default: return "?";
    }
}

/* Short description of a cell for messages. */
static void cell_desc(const bcell *c, char *buf, size_t cap)
{
    char w[32] = "", nz[48] = "";
    if (c->scheme == RX_SCHEME_DEO_W)
        snprintf(w, sizeof w, " W=%d", c->window);
    if (!isnan(c->noise) && c->noise > 0.0)
        snprintf(nz, sizeof nz, " noise=%g", c->noise);
    snprintf(buf, cap, "%s%s %s %s %s%s P=%d threads=%d", c->tg->name, nz,
             name_of(RULES, NELEM(RULES), c->rule),
             name_of(NORMALS, NELEM(NORMALS), c->normal),
             name_of(SCHEMES, NELEM(SCHEMES), c->scheme), w, c->P,
             c->threads);
}

/* ------------------------------------------------------------------------ */
/* One run in a child process.                                               */
/* ------------------------------------------------------------------------ */

/* What a child sends back through its pipe. */
typedef struct bres {
    int status;      /* rx_status of the run */
    int setup;       /* 1: rx_create failed */
    char msg[1100];
    double wall, eval;
    int64_t iterations, trips, swaps, attempts, conds, evals;
    int window, threads;
    double phase[RX_NPHASES];
    int has_threads;
    double wait_min, wait_max;
    double wshare;   /* mean over threads of rx_results.wait_share; -1 */
    double steal;    /* rx_results.steal_share (-1 unknown) */
} bres;

static int write_all(int fd, const void *p, size_t n)
{
    const char *c = p;
    while (n > 0) {
        ssize_t w = write(fd, c, n);
        if (w < 0 && errno == EINTR)
            continue;
        if (w <= 0)
            return -1;
        c += w;
        n -= (size_t)w;
    }
    return 0;
}

/* The child: create, run (unless setup_only), report, _exit. */
static void child_main(const rx_config *cfg, int setup_only, int fd)
{
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = SIG_DFL;
    sigemptyset(&sa.sa_mask);
    sigaction(SIGINT, &sa, NULL);
    sigaction(SIGTERM, &sa, NULL);
    bres *r = calloc(1, sizeof *r);
    if (!r)
        _exit(3);
    rx_err err = {""};
    rx_ctx *ctx = NULL;
    rx_status st = rx_create(&ctx, cfg, NULL, (rx_logger){NULL, NULL}, &err);
    if (st != RX_OK) {
        r->status = st;
        r->setup = 1;
        snprintf(r->msg, sizeof r->msg, "%s", err.msg);
    } else if (!setup_only && (st = rx_run(ctx)) != RX_OK) {
        r->status = st;
        snprintf(r->msg, sizeof r->msg, "%s", rx_errmsg(ctx));
    } else if (!setup_only) {
        rx_results res;
        rx_get_results(ctx, &res);
        r->wall = res.wall_s;
        r->eval = res.eval_s;
        r->iterations = res.iterations;
        r->trips = res.trips_a5;
        r->swaps = res.total_swaps;
        for (int p = 0; p + 1 < res.n_chains; ++p) {
            r->attempts += res.pairs[p].attempts;
            r->conds += res.pairs[p].conditions;
            r->evals += res.pairs[p].evaluated;
        }
        r->window = res.window;
        r->threads = res.threads;
        r->wshare = -1.0;
        r->steal = res.steal_share;
        if (res.wait_share && res.threads > 0) {
            double sum = 0.0;
            for (int t = 0; t < res.threads; ++t)
                sum += res.wait_share[t];
            r->wshare = sum / res.threads;
        }
        for (int j = 0; j < RX_NPHASES; ++j)
            r->phase[j] = res.phase_s[j];
        if (res.thread_phase_s && res.threads > 0) {
            r->has_threads = 1;
            r->wait_min = r->wait_max = res.thread_phase_s[RX_PHASE_WAIT];
            for (int t = 1; t < res.threads; ++t) {
                double w = res.thread_phase_s[t * RX_NPHASES + RX_PHASE_WAIT];
                r->wait_min = w < r->wait_min ? w : r->wait_min;
                r->wait_max = w > r->wait_max ? w : r->wait_max;
            }
        }
    }
    rx_destroy(&ctx);
    int bad = write_all(fd, r, sizeof *r) != 0;
    close(fd);
    _exit(bad ? 4 : 0);
}

/* ---- foreign load: CPU time other processes (or the host) take ------- */
/* The CPU seconds between a and b that neither this process nor its child
 * (child_cpu seconds) used, into *cpu, and the wall seconds into *span;
 * 0 when unknown. /proc/stat counts in clock ticks (10 ms on Linux), so
 * only sums over a second or more mean much (cell_foreign). */
static int foreign_cpu(const rx__load_snap *a, const rx__load_snap *b,
                       double child_cpu, double *cpu, double *span)
{
    *span = b->t - a->t;
    *cpu = (b->busy - a->busy) - (b->own - a->own) - child_cpu;
    return a->ok && b->ok && *span > 0.0;
}

/* A cell's foreign load: others' share of all CPUs over its runs; -1 when
 * a run had no reading or the runs took less than RX_BENCH_FOREIGN_SPAN s
 * together (ticks of 10 ms would dominate). */
static double cell_foreign(const bcell *c)
{
    long ncpu = sysconf(_SC_NPROCESSORS_ONLN);
    if (c->fg_bad || ncpu < 1 || c->fg_span < RX_BENCH_FOREIGN_SPAN)
        return -1.0;
    double f = c->fg_cpu / (c->fg_span * (double)ncpu);
    return f < 0.0 ? 0.0 : f > 1.0 ? 1.0 : f;
}

/* Runs cfg in a fork()ed child. 0: *r filled (r->status may be an error),
 * *rss_kib the child's peak RSS; -1: the child died (why in r->msg);
 * -2: interrupted (SIGINT / SIGTERM to this process). */
static int run_child(const rx_config *cfg, int setup_only, bres *r,
                     long *rss_kib, double fg[2])
{
    memset(r, 0, sizeof *r);
    fg[0] = fg[1] = -1.0;
    const rx__load_snap l0 = rx__load_now();
    int fds[2];
    if (pipe(fds) != 0) {
        snprintf(r->msg, sizeof r->msg, "pipe: %s", strerror(errno));
        return -1;
    }
    fflush(NULL);
    pid_t pid = fork();
    if (pid < 0) {
        snprintf(r->msg, sizeof r->msg, "fork: %s", strerror(errno));
        close(fds[0]);
        close(fds[1]);
        return -1;
    }
    if (pid == 0) {
        close(fds[0]);
        child_main(cfg, setup_only, fds[1]);
    }
    close(fds[1]);
    size_t got = 0;
    int killed = 0;
    for (;;) {
        if (rx_cli_interrupted() && !killed) {
            kill(pid, SIGTERM);
            killed = 1;
        }
        struct pollfd pfd = {fds[0], POLLIN, 0};
        int pr = poll(&pfd, 1, 200);
        if (pr < 0 && errno != EINTR)
            break;
        if (pr <= 0)
            continue;
        ssize_t n = read(fds[0], (char *)r + got, sizeof *r - got);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0)
            break;
        got += (size_t)n;
        if (got == sizeof *r)
            break;
    }
    close(fds[0]);
    int status = 0;
    struct rusage ru;
    memset(&ru, 0, sizeof ru);
    while (wait4(pid, &status, 0, &ru) < 0 && errno == EINTR)
        ;
    *rss_kib = ru.ru_maxrss; /* KiB on Linux */
    const rx__load_snap l1 = rx__load_now();
    if (!foreign_cpu(&l0, &l1,
                     (double)ru.ru_utime.tv_sec +
                         1e-6 * (double)ru.ru_utime.tv_usec +
                         (double)ru.ru_stime.tv_sec +
                         1e-6 * (double)ru.ru_stime.tv_usec,
                     &fg[0], &fg[1]))
        fg[0] = fg[1] = -1.0;
    if (killed || rx_cli_interrupted())
        return -2;
    if (got != sizeof *r || !WIFEXITED(status) || WEXITSTATUS(status)) {
        if (WIFSIGNALED(status))
            snprintf(r->msg, sizeof r->msg, "the run's process died of "
                     "signal %d (%s)", WTERMSIG(status),
                     strsignal(WTERMSIG(status)));
        else
            snprintf(r->msg, sizeof r->msg, "the run's process exited "
                     "with status %d before reporting",
                     WIFEXITED(status) ? WEXITSTATUS(status) : -1);
        return -1;
    }
    return 0;
}

/* ------------------------------------------------------------------------ */
/* Statistics.                                                               */
/* ------------------------------------------------------------------------ */

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* Median of n >= 1 values (sorts a copy). */
static double median_of(const double *v, int n)
{
    double tmp[MAX_REPS];
    memcpy(tmp, v, sizeof(double) * (size_t)n);
    qsort(tmp, (size_t)n, sizeof(double), cmp_double);
    return n % 2 ? tmp[n / 2] : 0.5 * (tmp[n / 2 - 1] + tmp[n / 2]);
}

static int same_noise(double a, double b)
{
    return (isnan(a) && isnan(b)) || a == b;
}

/* Same target, noise, rule, normal method, P and iterations: one figure's
 * cells (and the 1-thread reference of a cell is among them). */
static int same_group(const bcell *a, const bcell *b)
{
    return !strcmp(a->tg->name, b->tg->name) && same_noise(a->noise, b->noise)
           && a->rule == b->rule && a->normal == b->normal && a->P == b->P &&
           a->iterations == b->iterations;
}

static void derive(bcell *cells, int n)
{
    for (int i = 0; i < n; ++i) {
        bcell *c = &cells[i];
        double K = (double)c->iterations, P = (double)c->P;
        double cps[MAX_REPS];
        c->wall_best = c->wall[0];
        for (int r = 0; r < c->nwall; ++r) {
            c->wall_best = c->wall[r] < c->wall_best ? c->wall[r]
                                                     : c->wall_best;
            cps[r] = P * K / c->wall[r];
        }
        c->wall_med = median_of(c->wall, c->nwall);
        c->cps_best = P * K / c->wall_best;
        c->cps_med = median_of(cps, c->nwall);
        c->foreign = cell_foreign(c);
        c->wsh_med = c->nwsh > 0 ? median_of(c->wsh, c->nwsh) : -1.0;
        c->stl_med = c->nstl > 0 ? median_of(c->stl, c->nstl) : -1.0;
    }
    for (int i = 0; i < n; ++i) {
        bcell *c = &cells[i];
        c->base = -1;
        for (int j = 0; j < n && c->base < 0; ++j) {
            const bcell *o = &cells[j];
            if (o->threads == 1 && same_group(c, o) &&
                o->scheme == c->scheme && o->window == c->window)
                c->base = j;
        }
        if (c->base >= 0) {
            c->speedup = c->cps_med / cells[c->base].cps_med;
            c->eff = c->speedup / (double)(c->threads_used > 0
                                               ? c->threads_used
                                               : c->threads);
        }
    }
}

/* ------------------------------------------------------------------------ */
/* Outputs.                                                                  */
/* ------------------------------------------------------------------------ */

static const char CSV_HEADER[] =
    "cell,grid,target,energy_noise_sd,rule,normal,scheme,window,chains,"
    "threads,"
    "threads_used,iterations,reps,wall_s_best,wall_s_median,"
    "wall_us_per_iter_best,wall_us_per_iter_median,chain_steps_per_s_best,"
    "chain_steps_per_s_median,trips_a5,trips_per_1000,trips_per_s,"
    "swap_rate,speedup,efficiency,timed_wall_us_per_iter,step_us,energy_us,"
    "wait_us,exchange_us,adapt_us,record_us,imbalance,peak_rss_kib,"
    "foreign_load,wait_share,steal_share\n";

static double trips_per_1000(const bcell *c)
{
    return 1000.0 * (double)c->trips / (double)c->iterations;
}

static double swap_rate(const bcell *c)
{
    return c->attempts ? (double)c->swaps / (double)c->attempts : 0.0;
}

static int write_csv(const char *path, const bcell *cells, int n)
{
    FILE *f = fopen(path, "w");
    if (!f)
        return -1;
    fputs(CSV_HEADER, f);
    for (int i = 0; i < n; ++i) {
        const bcell *c = &cells[i];
        const double K = (double)c->iterations;
        fprintf(f, "%d,%d,%s,", i + 1, c->grid, c->tg->name);
        if (!isnan(c->noise))
            fprintf(f, "%.6g", c->noise);
        fprintf(f, ",%s,%s,%s,%d,%d,%d,%d,%lld,%d,",
                name_of(RULES, NELEM(RULES), c->rule),
                name_of(NORMALS, NELEM(NORMALS), c->normal),
                name_of(SCHEMES, NELEM(SCHEMES), c->scheme), c->window_used,
                c->P, c->threads, c->threads_used, (long long)c->iterations,
                c->nwall);
        fprintf(f, "%.6g,%.6g,%.6g,%.6g,%.6g,%.6g,", c->wall_best,
                c->wall_med, 1e6 * c->wall_best / K, 1e6 * c->wall_med / K,
                c->cps_best, c->cps_med);
        fprintf(f, "%lld,%.6g,%.6g,%.6g,", (long long)c->trips,
                trips_per_1000(c), (double)c->trips / c->wall_med,
                swap_rate(c));
        if (c->base >= 0)
            fprintf(f, "%.6g,%.6g", c->speedup, c->eff);
        else
            fputc(',', f);
        fputc(',', f);
        if (c->timed) {
            fprintf(f, "%.6g", 1e6 * c->timed_wall / K);
            for (int j = 0; j < RX_NPHASES; ++j)
                fprintf(f, ",%.6g", 1e6 * c->phase[j] / K);
        } else {
            for (int j = 0; j < RX_NPHASES; ++j)
                fputc(',', f);
        }
        fputc(',', f);
        if (c->timed && c->has_imb)
            fprintf(f, "%.6g", c->imb);
        fprintf(f, ",%ld,", c->rss_kib);
        if (c->foreign >= 0.0)
            fprintf(f, "%.4f", c->foreign);
        fputc(',', f);
        if (c->wsh_med >= 0.0)
            fprintf(f, "%.4f", c->wsh_med);
        fputc(',', f);
        if (c->stl_med >= 0.0)
            fprintf(f, "%.4f", c->stl_med);
        fputc('\n', f);
    }
    return fclose(f) == 0 ? 0 : -1;
}

/* The SI-prefixed rate, e.g. "12.3M". */
static void si(char *buf, size_t cap, double v)
{
    if (v >= 1e9)
        snprintf(buf, cap, "%.3gG", v / 1e9);
    else if (v >= 1e6)
        snprintf(buf, cap, "%.3gM", v / 1e6);
    else if (v >= 1e3)
        snprintf(buf, cap, "%.3gk", v / 1e3);
    else
        snprintf(buf, cap, "%.3g", v);
}

static void write_md(FILE *f, const bcell *cells, int n)
{
    fputs("| cell | target | noise | rule | normal | scheme | W | P "
          "| threads "
          "| chain-steps/s median | best | us/iter median "
          "| step us | energy us | wait us | exchange us | adapt us "
          "| record us | trips/1000 | trips/s | swap rate | speed-up "
          "| efficiency | imbalance | RSS MiB | foreign % | wait % "
          "| steal % |\n",
          f);
    for (int j = 0; j < 28; ++j)
        fputs("|---", f);
    fputs("|\n", f);
    for (int i = 0; i < n; ++i) {
        const bcell *c = &cells[i];
        const double K = (double)c->iterations;
        char a[32], b[32], nz[32] = "";
        si(a, sizeof a, c->cps_med);
        si(b, sizeof b, c->cps_best);
        if (!isnan(c->noise))
            snprintf(nz, sizeof nz, "%g", c->noise);
        fprintf(f, "| %d | %s | %s | %s | %s | %s | %d | %d | %d | %s | %s "
                "| %.3g ", i + 1, c->tg->name, nz,
                name_of(RULES, NELEM(RULES), c->rule),
                name_of(NORMALS, NELEM(NORMALS), c->normal),
                scheme_label(c->scheme), c->window_used, c->P,
                c->threads_used, a, b, 1e6 * c->wall_med / K);
        for (int j = 0; j < RX_NPHASES; ++j) {
            if (c->timed)
                fprintf(f, "| %.3g ", 1e6 * c->phase[j] / K);
            else
                fputs("| ", f);
        }
        double tps = (double)c->trips / c->wall_med;
        fprintf(f, tps >= 100.0 ? "| %.2f | %.0f | %.3f " : "| %.2f | %.3g "
                "| %.3f ", trips_per_1000(c), tps, swap_rate(c));
        if (c->base >= 0)
            fprintf(f, "| %.2f | %.2f ", c->speedup, c->eff);
        else
            fputs("| | ", f);
        if (c->timed && c->has_imb)
            fprintf(f, "| %.3f ", c->imb);
        else
            fputs("| ", f);
        fprintf(f, "| %.1f ", (double)c->rss_kib / 1024.0);
        if (c->foreign >= 0.0)
            fprintf(f, "| %.1f ", 100.0 * c->foreign);
        else
            fputs("| ", f);
        if (c->wsh_med >= 0.0)
            fprintf(f, "| %.1f ", 100.0 * c->wsh_med);
        else
            fputs("| ", f);
        if (c->stl_med >= 0.0)
            fprintf(f, "| %.1f |\n", 100.0 * c->stl_med);
        else
            fputs("| |\n", f);
    }
}

/* A name for files: [A-Za-z0-9_] of the target's base name. */
static void file_tag(const char *name, char *out, size_t cap)
{
    const char *base = strrchr(name, '/');
    base = base ? base + 1 : name;
    size_t l = strlen(base);
    if (l > 5 && !strcmp(base + l - 5, ".yaml"))
        l -= 5;
    size_t o = 0;
    for (size_t i = 0; i < l && o + 1 < cap && o < 40; ++i) {
        char ch = base[i];
        int ok = (ch >= 'a' && ch <= 'z') || (ch >= 'A' && ch <= 'Z') ||
                 (ch >= '0' && ch <= '9');
        out[o++] = ok ? ch : '_';
    }
    out[o] = '\0';
}

static void group_title(const bcell *c, char *buf, size_t cap)
{
    char nz[48] = "";
    if (!isnan(c->noise))
        snprintf(nz, sizeof nz, c->noise > 0.0 ? ", noise sd %g"
                                               : ", exact energies", c->noise);
    snprintf(buf, cap, "%s%s, %s, %s normals, P = %d, %lld iterations",
             c->tg->name, nz, name_of(RULES, NELEM(RULES), c->rule),
             name_of(NORMALS, NELEM(NORMALS), c->normal), c->P,
             (long long)c->iterations);
}

/* The figures: speed-up against threads, one line per schedule (one
 * figure per target / noise / rule / normal method / P); round trips per
 * second against W from the DEO (W = 1) and DEO_W cells, one line per
 * thread count, DEO* as points. 0 written, 1 skipped (why), -1 failed (why). */
static int write_plots(const char *dir, const bcell *cells, int n, char *why,
                       size_t cap)
{
    int pd = rx_cli_plots_dir(dir, why, cap);
    if (pd != 0)
        return pd;
    char path[4400];
    snprintf(path, sizeof path, "%s/plots/bench.gp", dir);
    FILE *gp = fopen(path, "w");
    if (!gp) {
        snprintf(why, cap, "%s: cannot write", path);
        return -1;
    }
    fprintf(gp, "set terminal svg size 900,500 dynamic noenhanced "
                "background rgb 'white'\nset key below\nset grid\n"
                "set offsets graph 0.03, graph 0.03, graph 0.05, 0\n");
    int *done = calloc((size_t)n, sizeof(int));
    int nfig = 0, bad = !done;
    for (int h = 0; h < n && !bad; ++h) {
        if (done[h])
            continue;
        int members = 0;
        for (int i = h; i < n; ++i)
            if (!done[i] && same_group(&cells[h], &cells[i]))
                done[i] = ++members;
        char tag[64], title[512], dat[4400];
        file_tag(cells[h].tg->name, tag, sizeof tag);
        group_title(&cells[h], title, sizeof title);
        /* speed-up: series = (scheme, window) with a multi-thread cell */
        int nser = 0, maxt = 1;
        snprintf(dat, sizeof dat, "%s/plots/speedup-%d-%s-P%d.dat", dir,
                 nfig + 1, tag, cells[h].P);
        FILE *d = NULL;
        char plot[8192] = "";
        for (int i = h; i < n; ++i) {
            const bcell *s = &cells[i];
            int first = 1, multi = 0;
            for (int j = h; j < i && first; ++j)
                if (same_group(s, &cells[j]) && cells[j].scheme == s->scheme &&
                    cells[j].window == s->window)
                    first = 0;
            for (int j = h; j < n; ++j)
                if (same_group(s, &cells[j]) && cells[j].scheme == s->scheme &&
                    cells[j].window == s->window && cells[j].base >= 0 &&
                    cells[j].threads > 1)
                    multi = 1;
            if (!first || !multi || !same_group(s, &cells[h]))
                continue;
            if (!d && !(d = fopen(dat, "w"))) {
                bad = 1;
                break;
            }
            if (nser)
                fputs("\n\n", d);
            /* threads ascending */
            int last = 0;
            for (;;) {
                int best = -1;
                for (int j = h; j < n; ++j) {
                    const bcell *o = &cells[j];
                    if (same_group(s, o) && o->scheme == s->scheme &&
                        o->window == s->window && o->base >= 0 &&
                        o->threads > last &&
                        (best < 0 || o->threads < cells[best].threads))
                        best = j;
                }
                if (best < 0)
                    break;
                last = cells[best].threads;
                maxt = last > maxt ? last : maxt;
                fprintf(d, "%d %.6g\n", cells[best].threads_used,
                        cells[best].speedup);
            }
            char lbl[64];
            if (s->scheme == RX_SCHEME_DEO_W)
                snprintf(lbl, sizeof lbl, "DEO_W W=%d", s->window);
            else
                snprintf(lbl, sizeof lbl, "%s", scheme_label(s->scheme));
            size_t l = strlen(plot);
            snprintf(plot + l, sizeof plot - l, "%s'%s' index %d using 1:2 "
                     "with linespoints title '%s'", nser ? ", " : "", dat,
                     nser, lbl);
            ++nser;
        }
        if (d && fclose(d) != 0)
            bad = 1;
        if (nser && !bad) {
            fprintf(gp, "set output '%s/plots/speedup-%d-%s-P%d.svg'\n", dir,
                    nfig + 1, tag, cells[h].P);
            fprintf(gp, "set title \"speed-up against threads\\n%s\"\n",
                    title);
            fprintf(gp, "set xlabel 'threads'\nset ylabel 'speed-up "
                        "(chain-steps/s over 1 thread, medians)'\n");
            fprintf(gp, "set xrange [0.8:%d.2]\nset xtics 1\n", maxt);
            fprintf(gp, "plot %s, x with lines dt 2 lc rgb 'gray' title "
                        "'ideal'\nunset xrange\nset xtics autofreq\n", plot);
        }
        /* round trips per second against W */
        int nw = 0;
        for (int i = h; i < n; ++i)
            nw += same_group(&cells[h], &cells[i]) &&
                  cells[i].scheme == RX_SCHEME_DEO_W;
        if (nw && !bad) {
            snprintf(dat, sizeof dat, "%s/plots/trips_vs_W-%d-%s-P%d.dat",
                     dir, nfig + 1, tag, cells[h].P);
            d = fopen(dat, "w");
            if (!d) {
                bad = 1;
                break;
            }
            plot[0] = '\0';
            int blk = 0;
            for (int star = 0; star < 2; ++star) {
                for (int i = h; i < n; ++i) {
                    const bcell *s = &cells[i];
                    if (!same_group(s, &cells[h]))
                        continue;
                    int ok = star ? s->scheme == RX_SCHEME_DEO_STAR
                                  : s->scheme == RX_SCHEME_DEO_W ||
                                        s->scheme == RX_SCHEME_DEO;
                    int first = 1;
                    for (int j = h; j < i && first; ++j)
                        if (same_group(s, &cells[j]) &&
                            cells[j].threads == s->threads &&
                            (star ? cells[j].scheme == RX_SCHEME_DEO_STAR
                                  : cells[j].scheme == RX_SCHEME_DEO_W ||
                                        cells[j].scheme == RX_SCHEME_DEO))
                            first = 0;
                    if (!ok || !first)
                        continue;
                    if (blk)
                        fputs("\n\n", d);
                    int last = 0;
                    for (;;) {
                        int best = -1;
                        for (int j = h; j < n; ++j) {
                            const bcell *o = &cells[j];
                            int okj = star ? o->scheme == RX_SCHEME_DEO_STAR
                                           : o->scheme == RX_SCHEME_DEO_W ||
                                                 o->scheme == RX_SCHEME_DEO;
                            if (okj && same_group(s, o) &&
                                o->threads == s->threads &&
                                o->window_used > last &&
                                (best < 0 || o->window_used <
                                                 cells[best].window_used))
                                best = j;
                        }
                        if (best < 0)
                            break;
                        last = cells[best].window_used;
                        fprintf(d, "%d %.6g\n", last,
                                (double)cells[best].trips /
                                    cells[best].wall_med);
                    }
                    size_t l = strlen(plot);
                    snprintf(plot + l, sizeof plot - l,
                             "%s'%s' index %d using 1:2 with %s title "
                             "'%s%d thread%s'", blk ? ", " : "", dat, blk,
                             star ? "points pt 7 ps 1.5" : "linespoints",
                             star ? "DEO* (W*), " : "DEO / DEO_W, ",
                             s->threads, s->threads > 1 ? "s" : "");
                    ++blk;
                }
            }
            if (fclose(d) != 0)
                bad = 1;
            fprintf(gp, "set output '%s/plots/trips_vs_W-%d-%s-P%d.svg'\n",
                    dir, nfig + 1, tag, cells[h].P);
            fprintf(gp, "set title \"round trips per second of wall time "
                        "against the window W\\n%s\"\n", title);
            fprintf(gp, "set xlabel 'window W'\nset ylabel 'round trips "
                        "(A.5) per second'\nset logscale x 2\n");
            fprintf(gp, "plot %s\nunset logscale x\n", plot);
        }
        if (nser || nw)
            ++nfig;
    }
    free(done);
    if (fclose(gp) != 0 || bad) {
        snprintf(why, cap, "%s/plots: cannot write the figure data", dir);
        return -1;
    }
    if (nfig == 0) {
        snprintf(path, sizeof path, "%s/plots/bench.gp", dir);
        remove(path);
        snprintf(path, sizeof path, "%s/plots", dir);
        rmdir(path);
        snprintf(why, cap, "no figure to draw (speed-up needs cells with 1 "
                 "and more threads; the W figure needs deo_w cells)");
        return 1;
    }
    return rx_cli_run_gnuplot(dir, "bench.gp", why, cap);
}

/* ------------------------------------------------------------------------ */
/* The command.                                                              */
/* ------------------------------------------------------------------------ */

typedef struct bopts {
    const char *file, *out;
    int force, quiet, no_plots;
    int reps;                  /* -1: the grid's */
    long long iterations;      /* -1: the grid's */
    const char *threads, *chains;
} bopts;


static int parse_args(int argc, char **argv, bopts *o, void (*usage)(FILE *))
{
    for (int i = 0; i < argc; ++i) {
        const char *a = argv[i];
        int has = i + 1 < argc;
        long long v;
        if ((!strcmp(a, "-o") || !strcmp(a, "--out")) && has) {
            o->out = argv[++i];
        } else if (!strcmp(a, "--reps") && has) {
            if (to_ll(argv[++i], 1, MAX_REPS, &v)) {
                fprintf(stderr, "replex: bench: --reps: expected an integer "
                        "in [1, %d], got '%s'\n", MAX_REPS, argv[i]);
                return EXIT_BADINPUT;
            }
            o->reps = (int)v;
        } else if (!strcmp(a, "--iterations") && has) {
            if (to_ll(argv[++i], 1, 1000000000000LL, &v)) {
                fprintf(stderr, "replex: bench: --iterations: expected an "
                        "integer in [1, 1000000000000], got '%s'\n", argv[i]);
                return EXIT_BADINPUT;
            }
            o->iterations = v;
        } else if (!strcmp(a, "--threads") && has) {
            o->threads = argv[++i];
        } else if (!strcmp(a, "--chains") && has) {
            o->chains = argv[++i];
        } else if (!strcmp(a, "--force")) {
            o->force = 1;
        } else if (!strcmp(a, "--no-plots")) {
            o->no_plots = 1;
        } else if (!strcmp(a, "-q") || !strcmp(a, "--quiet")) {
            o->quiet = 1;
        } else if (a[0] == '-' && a[1]) {
            fprintf(stderr, "replex bench: unknown or incomplete option "
                    "'%s'\n", a);
            usage(stderr);
            return EXIT_BADINPUT;
        } else if (!o->file) {
            o->file = a;
        } else {
            fprintf(stderr, "replex bench: one grid file only ('%s')\n", a);
            return EXIT_BADINPUT;
        }
    }
    if (!o->file) {
        fprintf(stderr, "replex bench: missing GRID.yaml\n");
        usage(stderr);
        return EXIT_BADINPUT;
    }
    return -1;
}

/* Expands the grids into cells (order: target, noise, rule, normal,
 * scheme, W, P, threads; threads innermost). -1 past MAX_CELLS. */
static int expand(const bgrid *grids, int ng, bcell *cells, int *ncells)
{
    int n = 0;
    for (int gi = 0; gi < ng; ++gi) {
        const bgrid *g = &grids[gi];
        for (int t = 0; t < g->n_targets; ++t) {
            const btarget *tg = &g->targets[t];
            int noisy = tg->kind != BT_FILE && tg->kind != BT_NONE;
            int nn = noisy ? g->n_noise : 1;
            for (int z = 0; z < nn; ++z)
                for (int r = 0; r < g->n_rules; ++r)
                    for (int m = 0; m < g->n_normals; ++m)
                        for (int s = 0; s < g->n_schemes; ++s) {
                            int dw = g->schemes[s] == RX_SCHEME_DEO_W;
                            int nwin = dw ? g->n_windows : 1;
                            for (int w = 0; w < nwin; ++w)
                                for (int p = 0; p < g->n_chains; ++p)
                                    for (int h = 0; h < g->n_threads; ++h) {
                                        if (n >= MAX_CELLS)
                                            return -1;
                                        bcell *c = &cells[n++];
                                        memset(c, 0, sizeof *c);
                                        c->grid = g->index;
                                        c->tg = tg;
                                        c->noise = noisy ? g->noise[z] : NAN;
                                        c->rule = g->rules[r];
                                        c->normal = g->normals[m];
                                        c->scheme = g->schemes[s];
                                        c->window = dw ? g->windows[w] : 0;
                                        c->P = g->chains[p];
                                        c->threads = g->threads[h];
                                        c->iterations = g->iterations;
                                        c->reps = g->reps;
                                        c->seed = g->seed;
                                        c->timing = g->timing;
                                        c->foreign = -1.0;
                                    }
                        }
        }
    }
    *ncells = n;
    return 0;
}

/* Every cell's configuration is checked before anything runs; a file
 * target is also set up once (data files, model shapes) in a child. */
static int validate_cells(const char *file, bcell *cells, int n)
{
    for (int i = 0; i < n; ++i) {
        rx_config cfg;
        rx_err err = {""};
        rx_status st = cell_config(&cells[i], 0, &cfg, &err);
        if (st == RX_ENOMEM) {
            fprintf(stderr, "replex: bench: out of memory\n");
            return EXIT_RUNFAIL;
        }
        char d[512];
        cell_desc(&cells[i], d, sizeof d);
        const btarget *t = cells[i].tg;
        if (st != RX_OK) {
            if (t->line)
                fprintf(stderr, "replex: %s:%d:%d: %s: cell %s: %s\n", file,
                        t->line, t->col, t->where, d, err.msg);
            else
                fprintf(stderr, "replex: bench: cell %s: %s\n", d, err.msg);
            return EXIT_BADINPUT;
        }
        int first = t->kind == BT_FILE;
        for (int j = 0; j < i && first; ++j)
            if (cells[j].tg->kind == BT_FILE &&
                !strcmp(cells[j].tg->name, t->name))
                first = 0;
        if (first) {
            bres r;
            long rss;
            double fg[2];
            int rc = run_child(&cfg, 1, &r, &rss, fg);
            if (rc == -2) {
                rx_config_free(&cfg);
                fprintf(stderr, "replex: bench: interrupted; nothing "
                        "written\n");
                return EXIT_RUNFAIL;
            }
            if (rc != 0 || r.status != RX_OK) {
                rx_config_free(&cfg);
                fprintf(stderr, "replex: %s:%d:%d: %s: cannot set up %s: "
                        "%s\n", file, t->line, t->col, t->where, t->name,
                        r.msg);
                return rc == 0 && r.status != RX_ENOMEM ? EXIT_BADINPUT
                                                        : EXIT_RUNFAIL;
            }
        }
        rx_config_free(&cfg);
    }
    return 0;
}

/* One run of cell c; progress line unless quiet. 0, or an exit status. */
static int run_cell(bcell *c, int timed, int k, int total, int round,
                    int rounds, int quiet)
{
    char d[512];
    cell_desc(c, d, sizeof d);
    rx_config cfg;
    rx_err err = {""};
    if (cell_config(c, timed, &cfg, &err) != RX_OK) {
        fprintf(stderr, "replex: bench: cell %s: %s\n", d, err.msg);
        return EXIT_RUNFAIL;
    }
    bres r;
    long rss = 0;
    double fg[2];
    int rc = run_child(&cfg, 0, &r, &rss, fg);
    rx_config_free(&cfg);
    if (rc == -2) {
        fprintf(stderr, "replex: bench: interrupted (%s) at run %d of %d; "
                "nothing written\n",
                rx_cli_interrupted() == SIGTERM ? "SIGTERM" : "SIGINT", k,
                total);
        return EXIT_RUNFAIL;
    }
    if (rc != 0 || r.status != RX_OK) {
        fprintf(stderr, "replex: bench: cell %s: run failed: %s\n", d,
                r.msg);
        return EXIT_RUNFAIL;
    }
    if (r.iterations != c->iterations) {
        fprintf(stderr, "replex: bench: cell %s: ran %lld of %lld "
                "iterations\n", d, (long long)r.iterations,
                (long long)c->iterations);
        return EXIT_RUNFAIL;
    }
    double wall = r.wall - r.eval;
    if (!(wall > 0.0))
        wall = 1e-9; /* a clock too coarse for the run: keep rates finite */
    c->rss_kib = rss > c->rss_kib ? rss : c->rss_kib;
    if (fg[1] > 0.0) {
        c->fg_cpu += fg[0];
        c->fg_span += fg[1];
    } else {
        c->fg_bad = 1;
    }
    if (timed) {
        if (c->nwall > 0 && (r.trips != c->trips || r.swaps != c->swaps))
            c->nondet = 1;
        c->timed = 1;
        c->timed_wall = wall;
        for (int j = 0; j < RX_NPHASES; ++j)
            c->phase[j] = r.phase[j];
        c->has_imb = r.has_threads;
        c->imb = r.has_threads ? (r.wait_max - r.wait_min) / wall : 0.0;
    } else {
        if (c->nwall > 0 && (r.trips != c->trips || r.swaps != c->swaps))
            c->nondet = 1;
        c->wall[c->nwall++] = wall;
        if (r.wshare >= 0.0 && c->nwsh < c->reps)
            c->wsh[c->nwsh++] = r.wshare;
        if (r.steal >= 0.0 && c->nstl < c->reps)
            c->stl[c->nstl++] = r.steal;
        c->trips = r.trips;
        c->swaps = r.swaps;
        c->attempts = r.attempts;
        c->conds = r.conds;
        c->evals = r.evals;
        c->window_used = r.window;
        c->threads_used = r.threads;
    }
    if (!quiet)
        fprintf(stderr, "replex: bench: [%d/%d] %s %d/%d: %s: %.3f s\n", k,
                total, timed ? "phase-timed" : "round", round, rounds, d,
                wall);
    return 0;
}

/* Warns about cells during whose runs other processes (or the host, as
 * steal time) took more than RX_BENCH_FOREIGN_WARN of the CPUs, naming
 * the host's part where the steal share reaches the same level. */
static void warn_foreign(const bcell *cells, int n)
{
    for (int i = 0; i < n; ++i) {
        if (!(cells[i].foreign > RX_BENCH_FOREIGN_WARN))
            continue;
        char d[512], st[160] = "";
        cell_desc(&cells[i], d, sizeof d);
        if (cells[i].stl_med >= RX_BENCH_FOREIGN_WARN)
            snprintf(st, sizeof st,
                     "; the host's steal alone took %.0f%% of the threads' "
                     "time (column steal_share: a virtual machine's CPUs "
                     "are shared, so a quieter host is what helps)",
                     100.0 * cells[i].stl_med);
        fprintf(stderr, "replex: bench: warning: cell %d (%s): other "
                "processes or the host took %.0f%% of the CPUs during its "
                "runs%s; its times are suspect (column foreign_load)\n",
                i + 1, d, 100.0 * cells[i].foreign, st);
    }
}

/* Warns when round trips differ between repetitions of a cell, or between
 * cells that differ only in the thread count (results must not depend on
 * either). */
static void check_determinism(const bcell *cells, int n)
{
    for (int i = 0; i < n; ++i) {
        char d[512];
        cell_desc(&cells[i], d, sizeof d);
        if (cells[i].nondet)
            fprintf(stderr, "replex: bench: warning: cell %d (%s): round "
                    "trips differ between repetitions\n", i + 1, d);
        int b = cells[i].base;
        if (b >= 0 && b != i && cells[b].reps && cells[i].nwall &&
            cells[b].nwall && cells[i].iterations == cells[b].iterations &&
            (cells[i].trips != cells[b].trips ||
             cells[i].swaps != cells[b].swaps))
            fprintf(stderr, "replex: bench: warning: cell %d (%s): round "
                    "trips differ from the 1-thread cell %d\n", i + 1, d,
                    b + 1);
    }
}

/* DEO*'s window is W*(P, S) for the configured target swap rate S (0.4
 * for the built-in targets); when the rate S stands for, the pairs'
 * condition rate (conditions / evaluations: every pair in every iteration,
 * whatever the window), gives a W* at least twice as large or as small,
 * the cell's DEO* is not the optimal DEO_W for that target (e.g. the
 * Metropolis rule on noisy energies: 0.88 on mixture25 at P = 16, W* 2
 * against the 8 used). A note, not a warning: the cell measured what it
 * was asked to. (rx_run logs the same note for a `replex run`.) */
static void note_window(const bcell *cells, int n)
{
    for (int i = 0; i < n; ++i) {
        const bcell *c = &cells[i];
        const double r = c->evals ? (double)c->conds / (double)c->evals
                                  : 0.0;
        const int w = c->scheme == RX_SCHEME_DEO_STAR
                          ? rx__window_off(c->P, c->window_used, r)
                          : 0;
        if (w < 1)
            continue;
        char d[512];
        cell_desc(c, d, sizeof d);
        fprintf(stderr, "replex: bench: note: cell %d (%s): DEO* ran with "
                "W = %d; its pairs' condition rate %.3g (the rate S stands "
                "for) gives W* = %d (set tempering.target_swap_rate in a "
                "file target, or add deo_w cells with that window)\n",
                i + 1, d, c->window_used, r, w);
    }
}

int rx_cli_bench(int argc, char **argv, void (*usage)(FILE *f))
{
    bopts o;
    memset(&o, 0, sizeof o);
    o.reps = -1;
    o.iterations = -1;
    int rc = parse_args(argc, argv, &o, usage);
    if (rc >= 0)
        return rc;
    long nc = sysconf(_SC_NPROCESSORS_ONLN);
    bpool pool = {NULL, 0, 0};
    bparse b;
    memset(&b, 0, sizeof b);
    b.file = o.file;
    b.pool = &pool;
    b.ncpu = nc >= 1 && nc <= 4096 ? (int)nc : 1;
    bgrid *grids = NULL;
    int ng = 0;
    bcell *cells = NULL;
    int n = 0;
    double *walls = NULL;
    char dflt[4200], path[4400];
    if (load_grid_file(&b, &grids, &ng) != 0) {
        fprintf(stderr, "replex: %s\n", b.msg);
        rc = b.oom ? EXIT_RUNFAIL : EXIT_BADINPUT;
        goto done;
    }
    for (int i = 0; i < ng; ++i) {
        int *v, k, e = 0;
        if (o.reps > 0)
            grids[i].reps = o.reps;
        if (o.iterations > 0)
            grids[i].iterations = o.iterations;
        if (o.threads && (e = parse_cli_list("--threads", o.threads, 1, 4096,
                                             1, b.ncpu, &pool, &v, &k)) == 0) {
            grids[i].threads = v;
            grids[i].n_threads = k;
        }
        if (!e && o.chains && (e = parse_cli_list("--chains", o.chains, 2,
                                                  65536, 0, b.ncpu, &pool, &v,
                                                  &k)) == 0) {
            grids[i].chains = v;
            grids[i].n_chains = k;
        }
        if (e) {
            if (e == -1)
                fprintf(stderr, "replex: bench: out of memory\n");
            rc = e == -1 ? EXIT_RUNFAIL : EXIT_BADINPUT;
            goto done;
        }
    }
    cells = calloc(MAX_CELLS, sizeof *cells);
    if (!cells) {
        fprintf(stderr, "replex: bench: out of memory\n");
        rc = EXIT_RUNFAIL;
        goto done;
    }
    if (expand(grids, ng, cells, &n) != 0) {
        fprintf(stderr, "replex: %s: more than %d cells\n", o.file,
                MAX_CELLS);
        rc = EXIT_BADINPUT;
        goto done;
    }
    int maxreps = 0, total = 0;
    size_t nw = 0;
    for (int i = 0; i < n; ++i) {
        maxreps = cells[i].reps > maxreps ? cells[i].reps : maxreps;
        total += cells[i].reps + cells[i].timing;
        nw += (size_t)cells[i].reps;
    }
    /* the sampling runs' walls, then their wait and steal shares */
    walls = calloc(nw ? 3 * nw : 1, sizeof(double));
    if (!walls) {
        fprintf(stderr, "replex: bench: out of memory\n");
        rc = EXIT_RUNFAIL;
        goto done;
    }
    for (int i = 0, off = 0; i < n; off += cells[i].reps, ++i) {
        cells[i].wall = walls + off;
        cells[i].wsh = walls + nw + off;
        cells[i].stl = walls + 2 * nw + off;
    }
    /* the output directory, checked before the first run */
    if (!o.out) {
        rx_cli_default_out(o.file, dflt, sizeof dflt);
        o.out = dflt;
    }
    struct stat sb;
    int existed = stat(o.out, &sb) == 0;
    if (!o.force && existed) {
        fprintf(stderr, "replex: %s: already exists; choose another -o or "
                "pass --force\n", o.out);
        rc = EXIT_BADINPUT;
        goto done;
    }
    int sig_ok = rx_cli_signals_install() == 0;
    if ((rc = validate_cells(o.file, cells, n)) != 0) {
        if (sig_ok)
            rx_cli_signals_restore();
        goto done;
    }
    if (rx_cli_mkdir_parents(o.out) != 0 ||
        (mkdir(o.out, 0777) != 0 && !(errno == EEXIST && o.force))) {
        fprintf(stderr, "replex: %s: cannot create the output directory: "
                "%s\n", o.out, strerror(errno));
        if (sig_ok)
            rx_cli_signals_restore();
        rc = EXIT_BADINPUT;
        goto done;
    }
    if (!o.quiet)
        fprintf(stderr, "replex: bench: %d cells, %d runs (%d round%s, "
                "then the phase-timed runs) into %s\n", n, total, maxreps,
                maxreps > 1 ? "s" : "", o.out);
    /* rounds, not blocks: every cell once per round, the order reversed
     * on odd rounds, so slow drifts of the machine touch all cells alike */
    int k = 0;
    for (int r = 0; r < maxreps && rc == 0; ++r)
        for (int q = 0; q < n && rc == 0; ++q) {
            int i = r % 2 ? n - 1 - q : q;
            if (r < cells[i].reps)
                rc = run_cell(&cells[i], 0, ++k, total, r + 1,
                              cells[i].reps, o.quiet);
        }
    for (int i = 0; i < n && rc == 0; ++i)
        if (cells[i].timing)
            rc = run_cell(&cells[i], 1, ++k, total, 1, 1, o.quiet);
    if (sig_ok)
        rx_cli_signals_restore();
    if (rc != 0) {
        if (!existed)
            rmdir(o.out); /* ours and still empty: nothing written */
        goto done;
    }
    derive(cells, n);
    check_determinism(cells, n);
    warn_foreign(cells, n);
    if (!o.quiet)
        note_window(cells, n);
    snprintf(path, sizeof path, "%s/bench.csv", o.out);
    if (write_csv(path, cells, n) != 0) {
        fprintf(stderr, "replex: %s: cannot write: %s\n", path,
                strerror(errno));
        rc = EXIT_RUNFAIL;
        goto done;
    }
    snprintf(path, sizeof path, "%s/bench.md", o.out);
    FILE *md = fopen(path, "w");
    if (md) {
        fprintf(md, "# replex bench %s\n\n%d cells; throughput: median and "
                "best over the repetitions; phases (us per iteration, "
                "thread 0) from a separate phase-timed run; `replex help "
                "bench` and docs/cli.md define the columns.\n\n", o.file, n);
        write_md(md, cells, n);
    }
    if (!md || fclose(md) != 0) {
        fprintf(stderr, "replex: %s: cannot write: %s\n", path,
                strerror(errno));
        rc = EXIT_RUNFAIL;
        goto done;
    }
    if (!o.quiet) {
        write_md(stdout, cells, n);
        fflush(stdout);
    }
    if (!o.no_plots) {
        char why[4800];
        if (write_plots(o.out, cells, n, why, sizeof why) != 0 && !o.quiet)
            fprintf(stderr, "replex: %s\n", why);
    }
    if (!o.quiet)
        fprintf(stderr, "replex: bench: wrote %s/bench.csv and %s/bench.md\n",
                o.out, o.out);
done:
    free(walls);
    free(cells);
    pool_free(&pool);
    return rc;
}
