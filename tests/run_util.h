/*
 * Test helpers for runs through the public API: a config from "key=value"
 * strings, a context created and run with each step checked, a loaded
 * config run as stop_run and its results handed to the caller, copies of
 * result arrays, and bit-for-bit comparisons of two runs' results.
 */
#ifndef RX_TEST_RUN_UTIL_H
#define RX_TEST_RUN_UTIL_H

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "replex/replex.h"
#include "check.h"
#include "stop_run.h"

/* The number of entries of a static array of "key=value" strings. */
#define NSETS(a) ((int)(sizeof(a) / sizeof *(a)))

/* The five-mode mixture of T9 (renhd.md 10) with noisy energies and
 * forces, 7 replicas under deo and the noise-aware rule: the settings
 * yaml/renhd_t9.yaml and the tests that run it share. */
#define T9_TARGET_SETS                                                       \
    "iterations=1000000", "seed=1", "rng.normal=box_muller",                 \
        "target.kind=gmm", "target.weights=[0.2, 0.2, 0.2, 0.2, 0.2]",       \
        "target.means=[[4, 0], [1.2360680, 3.8042261], [-3.2360680, "        \
        "2.3511410], [-3.2360680, -2.3511410], [1.2360680, -3.8042261]]",    \
        "target.scales=[[0.5, 0.5], [0.5, 0.5], [0.5, 0.5], [0.5, 0.5], "    \
        "[0.5, 0.5]]",                                                       \
        "target.energy_noise_sd=0.5", "target.grad_noise_sd=0.5",            \
        "init.low=3.9", "init.high=4.1", "tempering.n_chains=7",             \
        "tempering.scheme=deo", "tempering.rule=noise_aware"

/* ---- configs from "key=value" ----------------------------------------- */

/* rx_config_set for "key=value" (the key: what stands before the first
 * '='). */
static inline rx_status set_kv(rx_config *c, const char *kv, rx_err *err)
{
    const char *eq = strchr(kv, '=');
    char key[64];
    snprintf(key, sizeof key, "%.*s", (int)(eq - kv), kv);
    return rx_config_set(c, key, eq + 1, err);
}

/* set_kv for sets[0..n) (n < 0: up to a NULL entry; sets NULL: none),
 * unchecked; stops at the first failure (its message in *err). 1 if all
 * were set. */
static inline int set_list(rx_config *c, const char *const *sets, int n,
                           rx_err *err)
{
    for (int i = 0; sets && (n < 0 ? sets[i] != NULL : i < n); ++i)
        if (set_kv(c, sets[i], err) != RX_OK)
            return 0;
    return 1;
}

/* set_list with each setting one check ("key=value: message"). */
static inline int set_list_checked(rx_config *c, const char *const *sets,
                                   int n)
{
    rx_err err = {{0}};
    for (int i = 0; sets && (n < 0 ? sets[i] != NULL : i < n); ++i) {
        const rx_status st = set_kv(c, sets[i], &err);
        CHECK_MSG(st == RX_OK, "%s: %s", sets[i], err.msg);
        if (st != RX_OK)
            return 0;
    }
    return 1;
}

/* `base` (n entries, as set_list) then `extra` (NULL-terminated) into
 * all[0..cap): the number of entries. */
static inline int join_sets(const char **all, int cap, const char *const *base,
                            int n, const char *const *extra, int ne)
{
    int na = 0;
    for (int i = 0; base && i < n && na < cap; ++i)
        all[na++] = base[i];
    for (int i = 0; extra && i < ne && na < cap; ++i)
        all[na++] = extra[i];
    return na;
}

/* `text` written to the file `path`, loaded (the defaults, then the file
 * without sets) and the file removed: 1 and the load's status in *st, its
 * message in err; 0 if the file could not be written. */
static inline int load_text(const char *path, const char *text,
                            rx_status *st, rx_err *err)
{
    FILE *f = fopen(path, "w");
    if (!f)
        return 0;
    fputs(text, f);
    fclose(f);
    rx_config cfg;
    rx_config_default(&cfg);
    *st = rx_config_load(path, NULL, 0, &cfg, err);
    rx_config_free(&cfg);
    unlink(path);
    return 1;
}

/* ---- create and run ---------------------------------------------------- */

/* rx_create for cfg on the callback target cb (NULL: none), the progress
 * callback fn every `every` iterations (fn NULL: none), and rx_run; each
 * of the two checked. The context, NULL when either failed. */
static inline rx_ctx *create_run(const rx_config *cfg,
                                 const rx_callback_target *cb,
                                 rx_progress_fn fn, void *user, int64_t every)
{
    rx_ctx *ctx = NULL;
    rx_err err = {{0}};
    rx_status st = rx_create(&ctx, cfg, cb, (rx_logger){0}, &err);
    CHECK_MSG(st == RX_OK, "%s", err.msg);
    if (st != RX_OK)
        return NULL;
    if (fn)
        rx_set_progress(ctx, fn, user, every);
    st = rx_run(ctx);
    CHECK_MSG(st == RX_OK, "%s", rx_errmsg(ctx));
    if (st != RX_OK)
        rx_destroy(&ctx);
    return ctx;
}

/* rx_config_load of `path` with sets[0..n) (checked), then create_run. */
static inline rx_ctx *load_run(const char *path, const char *const *sets,
                               int n, rx_progress_fn fn, void *user,
                               int64_t every)
{
    rx_config c;
    rx_err err;
    rx_status st = rx_config_load(path, sets, n, &c, &err);
    CHECK_MSG(st == RX_OK, "%s", err.msg);
    if (st != RX_OK)
        return NULL;
    rx_ctx *ctx = create_run(&c, NULL, fn, user, every);
    rx_config_free(&c);
    return ctx;
}

/* What a finished run hands to the caller (return 0: nothing usable, the
 * context's message is printed). */
typedef int (*collect_fn)(rx_ctx *c, const rx_results *r, void *out);

/* A config `cfg` loaded with status `st` (message err; one check), run
 * as stop_run (threads, from, stop_at, ck) and, when it finished,
 * collect(c, &results, out); a failed run that was not stopped prints
 * "run: message". Frees cfg and the context. Returns the run's status
 * (the load's if it failed). */
static inline rx_status run_collect(rx_config *cfg, rx_status st,
                                    const rx_err *err, int threads,
                                    const char *from, int64_t stop_at,
                                    const char *ck, collect_fn collect,
                                    void *out)
{
    CHECK_MSG(st == RX_OK, "config: %s", err->msg);
    if (st != RX_OK) {
        rx_config_free(cfg);
        return st;
    }
    stopper sp;
    rx_ctx *c = stop_run(cfg, threads, from, stop_at, ck, &sp, &st);
    rx_config_free(cfg);
    if (!c)
        return st;
    rx_results r;
    if (!(st == RX_OK && rx_get_results(c, &r) == RX_OK &&
          collect(c, &r, out)) &&
        st != RX_EABORTED)
        fprintf(stderr, "run: %s\n", rx_errmsg(c));
    rx_destroy(&c);
    return st;
}

/* A test's loader: its file with sets[0..n) into cfg. */
typedef rx_status (*load_fn)(const char *const *sets, int n, rx_config *cfg,
                             rx_err *err);

/* run_collect of load(pre[0..npre) then sets[0..n), 24 at most). */
static inline rx_status load_collect(load_fn load, const char *const *pre,
                                     int npre, const char *const *sets,
                                     int n, int threads, const char *from,
                                     int64_t stop_at, const char *ck,
                                     collect_fn collect, void *out)
{
    const char *all[24];
    const int na = join_sets(all, 24, pre, npre, sets, n);
    rx_config cfg;
    rx_err err = {{0}};
    const rx_status st = load(all, na, &cfg, &err);
    return run_collect(&cfg, st, &err, threads, from, stop_at, ck, collect,
                       out);
}

/* ---- copies and comparisons -------------------------------------------- */

/* A malloc'd copy of n floats / doubles. */
static inline float *copy_floats(const float *x, size_t n)
{
    float *y = malloc(sizeof(float) * n);
    memcpy(y, x, sizeof(float) * n);
    return y;
}

static inline double *copy_doubles(const double *x, size_t n)
{
    double *y = malloc(sizeof(double) * n);
    memcpy(y, x, sizeof(double) * n);
    return y;
}

/* The same n > 0 values x and, when a has them, the same weights lw (n
 * each), bit for bit. */
static inline int same_rows(int64_t na, const float *xa, const double *lwa,
                            int64_t nb, const float *xb, const double *lwb)
{
    return na > 0 && na == nb &&
           memcmp(xa, xb, sizeof(float) * (size_t)na) == 0 &&
           (!lwa || memcmp(lwa, lwb, sizeof(double) * (size_t)na) == 0);
}

/* Both runs' results: 0 if either context is NULL or has none. */
static inline int results2(rx_ctx *a, rx_ctx *b, rx_results *ra,
                           rx_results *rb)
{
    return a && b && rx_get_results(a, ra) == RX_OK &&
           rx_get_results(b, rb) == RX_OK;
}

/* The same samples, bit for bit (count, dimension and values). */
static inline int same_samples(const rx_results *a, const rx_results *b)
{
    return a->n_samples == b->n_samples && a->dim == b->dim &&
           memcmp(a->samples, b->samples,
                  sizeof(float) * (size_t)a->n_samples * a->dim) == 0;
}

/* The same index process (rows and values). */
static inline int same_index(const rx_results *a, const rx_results *b)
{
    return a->n_index == b->n_index &&
           memcmp(a->index, b->index,
                  sizeof(int32_t) * (size_t)a->n_index *
                      (size_t)a->n_chains) == 0;
}

/* The same counters for every pair. */
static inline int same_pairs(const rx_results *a, const rx_results *b)
{
    for (int p = 0; p < a->n_chains - 1; ++p)
        if (memcmp(&a->pairs[p], &b->pairs[p], sizeof a->pairs[p]) != 0)
            return 0;
    return 1;
}

#endif
