/*
 * `replex bench`'s grid file: read through the same YAML loader as every
 * experiment file (src/io/yaml.c: the same bounds and messages), then
 * checked against the grid keys here; names of schemes, rules and normal
 * methods come from the configuration's name tables.
 */
#define _POSIX_C_SOURCE 200809L
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../core/internal.h"
#include "bench_int.h"
#include "opts.h"

#define NELEM(a) ((int)(sizeof(a) / sizeof((a)[0])))

typedef struct named {
    const char *name;
    int value;
} named;

/* The built-in targets of a grid (a file name is the other kind). */
static const named TARGETS[] = {
    {"mixture25", BT_MIXTURE25},
    {"gmm_cheap", BT_GMM_CHEAP},
    {"gmm_expensive", BT_GMM_EXPENSIVE},
    {"none", BT_NONE},
};


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

void *rx_cli_bench_alloc(bpool *pl, size_t size)
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

void rx_cli_bench_pool_free(bpool *pl)
{
    for (int i = 0; i < pl->n; ++i)
        free(pl->p[i]);
    free(pl->p);
    pl->p = NULL;
    pl->n = pl->cap = 0;
}


static int perr(bparse *b, const ynode *n, const char *path,
                const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 4, 5)))
#endif
    ;
/* "file:line:col: path: what" into b->msg; returns -1. */
static int perr(bparse *b, const ynode *n, const char *path,
                const char *fmt, ...)
{
    int w = snprintf(b->msg, sizeof b->msg, "%s:%d:%d: %s: ", b->file,
                     n ? n->line : 1,
                     n ? n->col : 1, path);
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

/* Strict integer in [lo, hi]; 0 or -1. */
int rx_cli_bench_to_ll(const char *s, long long lo, long long hi, long long *out)
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
static int list_items(bparse *b, ynode *n, const char *path,
                      ynode ***items, int *count)
{
    if (n->type == YN_SCALAR) {
        if (!n->str[0])
            return perr(b, n, path, "empty value (expected a list)");
        *items = rx_cli_bench_alloc(b->pool, sizeof(ynode *));
        if (!*items)
            return oom(b);
        (*items)[0] = n;
        *count = 1;
        return 0;
    }
    if (n->type != YN_SEQ)
        return perr(b, n, path, "expected a list, got a mapping");
    int k = n->n;
    if (k == 0)
        return perr(b, n, path, "empty list");
    *items = rx_cli_bench_alloc(b->pool, sizeof(ynode *) * (size_t)k);
    if (!*items)
        return oom(b);
    for (int i = 0; i < k; ++i) {
        ynode *it = n->items[i];
        if (!it || it->type != YN_SCALAR) {
            char p[200];
            snprintf(p, sizeof p, "%s[%d]", path, i);
            return perr(b, it ? it : n, p, "expected a scalar, got a %s",
                        it && it->type == YN_MAP ? "mapping"
                                                             : "list");
        }
        (*items)[i] = it;
    }
    *count = k;
    return 0;
}

/* Item path: "path[i]" for a list of several, "path" for a scalar. */
static void item_path(char *p, size_t cap, const char *path,
                      const ynode *list, int i)
{
    if (list->type == YN_SEQ)
        snprintf(p, cap, "%s[%d]", path, i);
    else
        snprintf(p, cap, "%s", path);
}

/* list_items, and room for *count values of `size` bytes each from the
 * pool; NULL once an error is reported. */
static void *list_alloc(bparse *b, ynode *n, const char *path,
                        size_t size, ynode ***items, int *count)
{
    if (list_items(b, n, path, items, count))
        return NULL;
    void *v = rx_cli_bench_alloc(b->pool, size * (size_t)*count);
    if (!v)
        oom(b);
    return v;
}

/* Names of the first ntab values of the config's enum key `key` (all of
 * them for ntab < 0; index = the value). */
static int parse_names(bparse *b, ynode *n, const char *path,
                       const char *key, int ntab, const char *what,
                       int **out, int *count)
{
    const rx__keydef *kd = rx__key_at(rx__key_index(key));
    const char *tab[64];
    const int nn = rx__kd_nnames(kd);
    if (ntab < 0 || ntab > nn)
        ntab = nn;
    if (ntab > 64)
        ntab = 64;
    for (int q = 0; q < ntab; ++q)
        tab[q] = rx__kd_name(kd, q);
    ynode **it;
    int k;
    int *v = list_alloc(b, n, path, sizeof(int), &it, &k);
    if (!v)
        return -1;
    for (int i = 0; i < k; ++i) {
        int j = rx__kd_find(kd, it[i]->str);
        if (j >= 0 && j < ntab) {
            v[i] = j;
            continue;
        }
        char p[200], all[256] = "";
        item_path(p, sizeof p, path, n, i);
        for (int q = 0; q < ntab; ++q) {
            size_t l = strlen(all);
            snprintf(all + l, sizeof all - l, "%s%s", q ? ", " : "", tab[q]);
        }
        const char *sug = rx__closest_name(it[i]->str, tab, ntab);
        if (sug)
            return perr(b, it[i], p, "unknown %s '%s'; did you mean '%s'? "
                        "(one of %s)", what, it[i]->str, sug, all);
        return perr(b, it[i], p, "unknown %s '%s' (one of %s)", what,
                    it[i]->str, all);
    }
    *out = v;
    *count = k;
    return 0;
}

static int parse_ints(bparse *b, ynode *n, const char *path,
                      long long lo, long long hi, int allow_all, int **out,
                      int *count)
{
    ynode **it;
    int k;
    if (allow_all && n->type == YN_SCALAR &&
        !strcmp(n->str, "all")) {
        /* threads: all = 1, 2, ..., the CPUs */
        int *v = rx_cli_bench_alloc(b->pool, sizeof(int) * (size_t)b->ncpu);
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
        if (allow_all && !strcmp(it[i]->str, "all")) {
            v[i] = b->ncpu;
            continue;
        }
        if (rx_cli_bench_to_ll(it[i]->str, lo, hi, &x)) {
            char p[200];
            item_path(p, sizeof p, path, n, i);
            return perr(b, it[i], p, "expected an integer in [%lld, %lld]%s,"
                        " got '%s'", lo, hi, allow_all ? " or all" : "",
                        it[i]->str);
        }
        v[i] = (int)x;
    }
    *out = v;
    *count = k;
    return 0;
}

static int parse_noise(bparse *b, ynode *n, const char *path,
                       double **out, int *count)
{
    ynode **it;
    int k;
    double *v = list_alloc(b, n, path, sizeof(double), &it, &k);
    if (!v)
        return -1;
    for (int i = 0; i < k; ++i) {
        char *end;
        const char *s = it[i]->str;
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

static int scalar_int(bparse *b, ynode *n, const char *path,
                      long long lo, long long hi, long long *out)
{
    if (n->type != YN_SCALAR)
        return perr(b, n, path, "expected an integer, got a %s",
                    n->type == YN_MAP ? "mapping" : "list");
    if (rx_cli_bench_to_ll(n->str, lo, hi, out))
        return perr(b, n, path, "expected an integer in [%lld, %lld], got "
                    "'%s'", lo, hi, n->str);
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
static int parse_target(bparse *b, ynode *n, const char *where,
                        btarget *t)
{
    const char *s = n->str;
    t->line = n->line;
    t->col = n->col;
    snprintf(t->where, sizeof t->where, "%s", where);
    char *copy = rx_cli_bench_alloc(b->pool, strlen(s) + 1);
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

static int parse_targets(bparse *b, ynode *n, const char *path,
                         btarget **out, int *count)
{
    ynode **it;
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
static int parse_grid_map(bparse *b, ynode *m, const char *prefix,
                          int top, bgrid *g, ynode **grids)
{
    if (m->type != YN_MAP)
        return perr(b, m, prefix[0] ? prefix : "(top level)",
                    "expected a mapping of grid keys");
    g->line = m->line;
    g->col = m->col;
    int seen[GK_N] = {0};
    for (int i = 0; i < m->n; ++i) {
        ynode *k = m->keys[i], *v = m->items[i];
        if (!k || !v)
            return perr(b, m, prefix, "malformed mapping");
        if (k->type != YN_SCALAR)
            return perr(b, k, prefix[0] ? prefix : "(top level)",
                        "keys must be names");
        const char *ks = k->str;
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
            if (parse_names(b, v, path, "tempering.scheme", RX_SCHEME_NONE, "scheme",
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
            if (parse_names(b, v, path, "tempering.rule", -1, "rule",
                            &g->rules, &g->n_rules))
                return -1;
            break;
        case GK_NORMALS:
            if (parse_names(b, v, path, "rng.normal", -1,
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
            const char *s = v->type == YN_SCALAR ? v->str : "";
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
    g->schemes = rx_cli_bench_alloc(b->pool, sizeof d_schemes);
    g->windows = rx_cli_bench_alloc(b->pool, sizeof d_windows);
    g->chains = rx_cli_bench_alloc(b->pool, sizeof(int));
    g->threads = rx_cli_bench_alloc(b->pool, sizeof(int));
    g->rules = rx_cli_bench_alloc(b->pool, sizeof(int));
    g->normals = rx_cli_bench_alloc(b->pool, sizeof(int));
    g->noise = rx_cli_bench_alloc(b->pool, sizeof(double));
    g->targets = rx_cli_bench_alloc(b->pool, sizeof(btarget));
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
    const rx__keydef *rk = rx__key_at(rx__key_index("tempering.rule"));
    g->rules[0] = rx__kd_find(rk, rk->deflt); /* the config's default */
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
int rx_cli_bench_load_grid(bparse *b, bgrid **grids, int *ngrids)
{
    ynode *root = NULL;
    rx_err err = {""};
    rx_status st = rx__yaml_load(b->file, &root, NULL, &err);
    if (st != RX_OK) {
        snprintf(b->msg, sizeof b->msg, "%s", err.msg);
        b->oom = st == RX_ENOMEM;
        return -1;
    }
    int rc = 0;
    bgrid base;
    ynode *gl = NULL;
    if (grid_defaults(b, &base))
        rc = -1;
    else if (!(root->type == YN_SCALAR && !root->str[0]))
        rc = parse_grid_map(b, root, "", 1, &base, &gl);
    if (rc == 0 && gl) {
        int k = gl->type == YN_SEQ ? gl->n : -1;
        if (k < 0)
            rc = perr(b, gl, "grids", "expected a list of grid mappings");
        else if (k == 0)
            rc = perr(b, gl, "grids", "empty list");
        bgrid *v = rc ? NULL : rx_cli_bench_alloc(b->pool, sizeof(bgrid) * (size_t)k);
        if (rc == 0 && !v)
            rc = oom(b);
        for (int i = 0; rc == 0 && i < k; ++i) {
            char p[64];
            snprintf(p, sizeof p, "grids[%d]", i);
            v[i] = base;
            v[i].index = i + 1;
            rc = parse_grid_map(b, gl->items[i], p, 0, &v[i], NULL);
        }
        if (rc == 0) {
            *grids = v;
            *ngrids = k;
        }
    } else if (rc == 0) {
        bgrid *v = rx_cli_bench_alloc(b->pool, sizeof(bgrid));
        if (!v) {
            rc = oom(b);
        } else {
            *v = base;
            *grids = v;
            *ngrids = 1;
        }
    }
    rx__ynode_free(root);
    return rc;
}

/* --threads / --chains: "1,2,4" (threads also "all", or "all" items). */
int rx_cli_bench_cli_list(const char *opt, const char *s, int lo, int hi,
                          int allow_all, int ncpu, bpool *pl, int **out,
                          int *count)
{
    if (allow_all && !strcmp(s, "all")) {
        int *v = rx_cli_bench_alloc(pl, sizeof(int) * (size_t)ncpu);
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
    int *v = rx_cli_bench_alloc(pl, sizeof(int) * (size_t)k);
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
        } else if (l >= 63 || rx_cli_bench_to_ll(item, lo, hi, &x)) {
            rx_cli_usage_error("bench", "%s: expected a comma-separated "
                               "list of integers in [%d, %d]%s, got '%s'",
                               opt, lo, hi, allow_all ? " (or all)" : "", s);
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

/* Expands the grids into cells (order: target, noise, rule, normal,
 * scheme, W, P, threads; threads innermost). -1 past MAX_CELLS. */
int rx_cli_bench_expand(const bgrid *grids, int ng, bcell *cells, int *ncells)
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
