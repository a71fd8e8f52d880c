/*
 * The partner design's load balance with chains of unequal cost. The
 * target is a d-dimensional Gaussian (callback) whose evaluation costs
 * about 40 ns per unit of |theta|^2 on top of the gradient: a hot position
 * of the ladder (wide spread) costs several times a cold one, so the even
 * split of positions (8 / 8 at P = 16) leaves the thread of the cold half
 * waiting for the other. Each round runs, interleaved: 1 thread, 2 threads
 * with `balance: off` and 2 threads with the measured balance (the cuts
 * move at full barriers, src/engine/partner.c, rx__partner_loop); all three
 * are checked bitwise equal (samples, index process, pair statistics).
 * Printed per round: chain-steps/s of each, the ratio on / off and the
 * number of cut changes; then the medians.
 *
 * Usage: partner_balance [-n ROUNDS] [-k ITERS] [-P CHAINS]
 *   defaults 7 rounds, 20000 iterations, P = 16 (DEO, tau 1..40).
 */
#define _POSIX_C_SOURCE 200809L
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "bench_util.h"
#include "replex/replex.h"

enum { DIM = 4, MAX_ROUNDS = 100 };

/* energy 0.5 |theta|^2; the extra work grows with |theta|^2 */
static rx_status costly_gauss(void *user, const double *th, size_t dim,
                              double *e, double *g)
{
    (void)user;
    double s = 0.0;
    for (size_t j = 0; j < dim; ++j) {
        s += th[j] * th[j];
        if (g)
            g[j] = th[j];
    }
    volatile double x = 0.0;
    const unsigned n = (unsigned)(20.0 * (s < 400.0 ? s : 400.0));
    for (unsigned r = 0; r < n; ++r)
        x += r;
    *e = 0.5 * s;
    return RX_OK;
}

static rx_ctx *run(int P, int64_t iters, int threads, int balance)
{
    rx_config c;
    rx_config_default(&c);
    c.seed = 5;
    c.iterations = iters;
    c.threads = threads;
    c.sync = threads > 1 ? 2 : 0;
    c.balance = balance;
    c.target.kind = RX_TARGET_CALLBACK;
    c.tempering.n_chains = P;
    c.tempering.scheme = RX_SCHEME_DEO;
    c.ladder.eta.min = 0.05;
    c.ladder.tau.kind = RX_LADDER_GEOMETRIC;
    c.ladder.tau.min = 1;
    c.ladder.tau.max = 40;
    c.record.thin = 100;
    c.record.index_every = 100;
    c.record.trace_every = 0;
    rx_callback_target cb = {.dim = DIM, .energy = costly_gauss};
    rx_ctx *ctx = NULL;
    rx_err err;
    rx_status st = rx_create(&ctx, &c, &cb, (rx_logger){0}, &err);
    rx_config_free(&c);
    if (st != RX_OK) {
        fprintf(stderr, "partner_balance: %s\n", err.msg);
        return NULL;
    }
    if (rx_run(ctx) != RX_OK) {
        fprintf(stderr, "partner_balance: %s\n", rx_errmsg(ctx));
        rx_destroy(&ctx);
    }
    return ctx;
}

static int same(const rx_results *a, const rx_results *b)
{
    const int P = a->n_chains;
    return a->n_samples == b->n_samples && a->n_index == b->n_index &&
           !memcmp(a->samples, b->samples,
                   sizeof(float) * (size_t)a->n_samples * a->dim) &&
           !memcmp(a->index, b->index,
                   sizeof(int32_t) * (size_t)a->n_index * (size_t)P) &&
           !memcmp(a->pairs, b->pairs, sizeof(rx_pair_stats) * (size_t)(P - 1));
}

static double med(double *v, int n)
{
    qsort(v, (size_t)n, sizeof *v, rxb_cmpd);
    return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

int main(int argc, char **argv)
{
    rx_blas_single_thread(); /* as the CLI: no OpenBLAS pool polling */
    int R = 7, P = 16;
    int64_t K = 20000;
    for (int o; (o = getopt(argc, argv, "n:k:P:")) != -1;) {
        if (o == 'n')
            R = atoi(optarg);
        else if (o == 'k')
            K = atoll(optarg);
        else if (o == 'P')
            P = atoi(optarg);
        else {
            fprintf(stderr, "usage: partner_balance [-n ROUNDS] [-k ITERS] "
                            "[-P CHAINS]\n");
            return 2;
        }
    }
    if (R < 1 || R > MAX_ROUNDS || K < 1000 || P < 4) {
        fprintf(stderr, "partner_balance: rounds 1..%d, iterations >= 1000, "
                        "P >= 4\n", MAX_ROUNDS);
        return 2;
    }
    double s1[MAX_ROUNDS], soff[MAX_ROUNDS], son[MAX_ROUNDS],
        r_on[MAX_ROUNDS], r_off[MAX_ROUNDS], g[MAX_ROUNDS];
    printf("| round | 1 thread | 2, balance off | 2, balance on | on/off | "
           "cut changes |\n|---|---|---|---|---|---|\n");
    for (int r = 0; r < R; ++r) {
        rx_ctx *a = run(P, K, 1, 1), *b = run(P, K, 2, 0), *c = run(P, K, 2, 1);
        if (!a || !b || !c)
            return 1;
        rx_results ra, rb, rc;
        rx_get_results(a, &ra);
        rx_get_results(b, &rb);
        rx_get_results(c, &rc);
        if (!same(&ra, &rb) || !same(&ra, &rc) || rb.partner != 1 ||
            rc.partner != 1) {
            fprintf(stderr, "partner_balance: runs differ (partner %d %d)\n",
                    rb.partner, rc.partner);
            return 1;
        }
        const double n = (double)P * (double)K;
        s1[r] = n / ra.wall_s;
        soff[r] = n / rb.wall_s;
        son[r] = n / rc.wall_s;
        r_on[r] = son[r] / s1[r];
        r_off[r] = soff[r] / s1[r];
        g[r] = son[r] / soff[r];
        printf("| %d | %.0f k | %.0f k | %.0f k | %.3f | %lld |\n", r + 1,
               s1[r] / 1e3, soff[r] / 1e3, son[r] / 1e3, g[r],
               (long long)rc.balance_changes);
        fflush(stdout);
        rx_destroy(&a);
        rx_destroy(&b);
        rx_destroy(&c);
    }
    int faster = 0;
    for (int r = 0; r < R; ++r)
        faster += g[r] > 1.0;
    printf("\nmedians: 1 thread %.0f k, 2 off %.0f k (%.2fx), 2 on %.0f k "
           "(%.2fx); on/off %.3f, on faster in %d of %d rounds\n",
           med(s1, R) / 1e3, med(soff, R) / 1e3, med(r_off, R),
           med(son, R) / 1e3, med(r_on, R), med(g, R), faster, R);
    return 0;
}
