/*
 * CSGLD end to end through the engine (bias.kind: csgld), from the
 * example file yaml/csgld_gmm_1d.yaml: the 1-D mixture 0.4 N(-6,1) +
 * 0.6 N(4,1) of csgld.md 7.2 T6.
 *
 *  1. T6 on the example's fixed seed, its full 1e7 iterations: the
 *     weighted P(x < -1) over the kept samples and their log-weights
 *     (rx_results.log_weights, as in weights.npy) in [0.32, 0.46], the
 *     weighted mean in [-1, 1]. Plain SGLD from the same start (bias.kind:
 *     none, same seed) for contrast: it crosses the barrier over 100
 *     times less often, and on this seed meets the spec's P(x < -1) <
 *     0.25 and mean > 2 (one run's outcome, not every seed's: see
 *     tests/test_csgld.c).
 *  2. Same bits on 1, 2 and 3 threads (samples and log-weights, memcmp):
 *     4 independent chains (scheme none, every position recorded), and 4
 *     chains with DEO swaps under both synchronisation designs (barrier
 *     and partner: the bias declares no global update, so the partner
 *     design applies), and both designs the same bits. The barrier
 *     design updates the states in its step 3 after the barrier, split
 *     by position blocks over the threads; the partner design on the
 *     thread that steps the position: so also the barrier design with
 *     chains moving between threads (balance: rotate) and phase timing.
 *  3. Resume: a run stopped at iteration 8000 (of 20000) through the stop flag
 *     writes a checkpoint; a fresh context resumes it on another thread
 *     count: samples and log-weights equal an uninterrupted run's.
 */
#define _POSIX_C_SOURCE 200809L
#include <math.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "replex/replex.h"
#include "check.h"
#include "stop_run.h"

static char src[1024];

static int load(const char *const *sets, int n, rx_config *cfg)
{
    char path[1200];
    rx_err err = {0};
    snprintf(path, sizeof path, "%s/yaml/csgld_gmm_1d.yaml", src);
    rx_status st = rx_config_load(path, sets, n, cfg, &err);
    CHECK_MSG(st == RX_OK, "%s", err.msg);
    return st == RX_OK;
}

/* What a run kept: samples and log-weights (copies). */
typedef struct kept {
    int64_t n;
    float *x;
    double *lw; /* NULL without a bias */
} kept;

static void kept_free(kept *k)
{
    free(k->x);
    free(k->lw);
    memset(k, 0, sizeof *k);
}

/* One run of cfg on `threads` threads: optionally resumed from `from`,
 * stopped after `stop_at` (-1: to the end) writing checkpoint `ck`.
 * Returns the rx_run status; *out the kept rows when it completed. */
static rx_status one_run(const rx_config *base, int threads, const char *from,
                         int64_t stop_at, const char *ck, kept *out)
{
    stopper s;
    rx_status st;
    rx_ctx *c = stop_run(base, threads, from, stop_at, ck, &s, &st);
    memset(out, 0, sizeof *out);
    if (!c)
        return st;
    rx_results r;
    if (st == RX_OK && rx_get_results(c, &r) == RX_OK) {
        out->n = r.n_samples;
        out->x = malloc(sizeof(float) * (size_t)r.n_samples * r.dim);
        memcpy(out->x, r.samples, sizeof(float) * (size_t)r.n_samples * r.dim);
        if (r.log_weights) {
            out->lw = malloc(sizeof(double) * (size_t)r.n_samples);
            memcpy(out->lw, r.log_weights,
                   sizeof(double) * (size_t)r.n_samples);
        }
    } else if (st != RX_EABORTED) {
        fprintf(stderr, "run: %s\n", rx_errmsg(c));
    }
    rx_destroy(&c);
    return st;
}

static int same(const kept *a, const kept *b)
{
    return a->n == b->n && a->n > 0 &&
           memcmp(a->x, b->x, sizeof(float) * (size_t)a->n) == 0 &&
           (a->lw == NULL) == (b->lw == NULL) &&
           (!a->lw || memcmp(a->lw, b->lw, sizeof(double) * (size_t)a->n) ==
                          0);
}

/* Moves between the wells x < -3 and x > 1 in the kept rows. */
static int64_t crossings(const kept *k)
{
    int64_t n = 0;
    int right = 1;
    for (int64_t i = 0; i < k->n; ++i)
        if (right ? k->x[i] < -3.0f : k->x[i] > 1.0f) {
            right = !right;
            n++;
        }
    return n;
}

static void t6(void)
{
    rx_config cfg;
    rx_config_default(&cfg);
    if (!load(NULL, 0, &cfg))
        return;
    kept cs, sg;
    CHECK(one_run(&cfg, 1, NULL, -1, NULL, &cs) == RX_OK);
    cfg.bias.kind = RX_BIAS_NONE;
    CHECK(one_run(&cfg, 1, NULL, -1, NULL, &sg) == RX_OK);
    rx_config_free(&cfg);
    if (!cs.lw || !sg.x) {
        CHECK(0);
        return;
    }
    CHECK(sg.lw == NULL);
    double mx = -INFINITY;
    for (int64_t i = 0; i < cs.n; ++i)
        mx = fmax(mx, cs.lw[i]);
    double sw = 0.0, sl = 0.0, sx = 0.0, ul = 0.0, gl = 0.0, gx = 0.0;
    for (int64_t i = 0; i < cs.n; ++i) {
        double w = exp(cs.lw[i] - mx);
        sw += w;
        sl += cs.x[i] < -1.0f ? w : 0.0;
        sx += w * cs.x[i];
        ul += cs.x[i] < -1.0f;
    }
    for (int64_t i = 0; i < sg.n; ++i) {
        gl += sg.x[i] < -1.0f;
        gx += sg.x[i];
    }
    const double p = sl / sw, mean = sx / sw;
    const int64_t cc = crossings(&cs), cg = crossings(&sg);
    printf("T6 through the engine, %lld samples: CSGLD weighted P(x<-1) "
           "%.4f (unweighted %.4f), weighted mean %.3f, %lld crossings; "
           "SGLD P(x<-1) %.4f, mean %.3f, %lld crossings\n",
           (long long)cs.n, p, ul / (double)cs.n, mean, (long long)cc,
           gl / (double)sg.n, gx / (double)sg.n, (long long)cg);
    CHECK_MSG(p >= 0.32 && p <= 0.46, "weighted P(x<-1) = %g", p);
    CHECK_MSG(mean >= -1.0 && mean <= 1.0, "weighted mean = %g", mean);
    CHECK_MSG(cg * 100 < cc, "SGLD %lld crossings, CSGLD %lld",
              (long long)cg, (long long)cc);
    /* the spec's SGLD contrast, which holds on this seed (not on every
     * one: tests/test_csgld.c) */
    CHECK_MSG(gl / (double)sg.n < 0.25 && gx / (double)sg.n > 2.0,
              "SGLD P(x<-1) %g, mean %g", gl / (double)sg.n,
              gx / (double)sg.n);
    kept_free(&cs);
    kept_free(&sg);
}

/* The run of sets on 1, 2, 3 threads: the same bits; *first (when not
 * NULL) gets the 1-thread run's rows. */
static void threads_case(const char *const *sets, int n, const char *what,
                         kept *first)
{
    rx_config cfg;
    rx_config_default(&cfg);
    if (!load(sets, n, &cfg))
        return;
    kept k[3];
    for (int t = 0; t < 3; ++t)
        CHECK(one_run(&cfg, t + 1, NULL, -1, NULL, &k[t]) == RX_OK);
    rx_config_free(&cfg);
    CHECK(k[0].lw != NULL);
    for (int t = 1; t < 3; ++t)
        CHECK_MSG(same(&k[0], &k[t]), "%s: %d threads differ from 1", what,
                  t + 1);
    printf("%s: %lld rows, the same bits on 1, 2, 3 threads\n", what,
           (long long)k[0].n);
    for (int t = first ? 1 : 0; t < 3; ++t)
        kept_free(&k[t]);
    if (first)
        *first = k[0];
}

static void determinism(void)
{
    static const char *const indep[] = {
        "iterations=20000", "tempering.n_chains=4",
        "record.all_positions=true", "ladder.tau=[1, 1.5, 2, 3]"};
    threads_case(indep, 4, "4 independent chains", NULL);
    static const char *const deo_b[] = {
        "iterations=20000", "tempering.n_chains=4", "tempering.scheme=deo",
        "tempering.rule=metropolis", "ladder.tau={min: 1, max: 4}",
        "sync=barrier"};
    kept kb, kp;
    threads_case(deo_b, 6, "DEO, barrier design", &kb);
    static const char *const deo_p[] = {
        "iterations=20000", "tempering.n_chains=4", "tempering.scheme=deo",
        "tempering.rule=metropolis", "ladder.tau={min: 1, max: 4}",
        "sync=partner"};
    threads_case(deo_p, 6, "DEO, partner design", &kp);
    CHECK_MSG(same(&kb, &kp), "DEO: the two designs differ");
    static const char *const deo_r[] = {
        "iterations=20000", "tempering.n_chains=4", "tempering.scheme=deo",
        "tempering.rule=metropolis", "ladder.tau={min: 1, max: 4}",
        "sync=barrier", "balance=rotate", "record.phase_timing=true"};
    kept kr;
    threads_case(deo_r, 8, "DEO, barrier design, chains moving", &kr);
    CHECK_MSG(same(&kb, &kr), "DEO: moving chains changed the run");
    kept_free(&kr);
    kept_free(&kb);
    kept_free(&kp);
}

static void resume(void)
{
    static const char *const sets[] = {
        "iterations=20000", "tempering.n_chains=4", "tempering.scheme=deo",
        "tempering.rule=metropolis", "ladder.tau={min: 1, max: 4}",
        "record.all_positions=true"};
    rx_config cfg;
    rx_config_default(&cfg);
    if (!load(sets, 6, &cfg))
        return;
    char ck[256];
    snprintf(ck, sizeof ck, "/tmp/rx_csgld_ck_%ld.bin", (long)getpid());
    kept full, part, res;
    CHECK(one_run(&cfg, 2, NULL, -1, NULL, &full) == RX_OK);
    CHECK(one_run(&cfg, 1, NULL, 8000, ck, &part) == RX_EABORTED);
    CHECK(one_run(&cfg, 3, ck, -1, NULL, &res) == RX_OK);
    CHECK_MSG(same(&full, &res),
              "resumed run (3 threads) differs from the uninterrupted one");
    printf("resume at 8000 of 20000: %s\n",
           same(&full, &res) ? "the same samples and weights" : "DIFFERENT");
    unlink(ck);
    kept_free(&full);
    kept_free(&part);
    kept_free(&res);
    rx_config_free(&cfg);
}

int main(void)
{
    const char *s = getenv("RX_SRCDIR");
    snprintf(src, sizeof src, "%s", s ? s : ".");
    t6();
    determinism();
    resume();
    return check_done();
}
