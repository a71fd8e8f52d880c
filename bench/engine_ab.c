/*
 * One engine feature off against on, on the noisy 25-mode target (P = 16,
 * energy and gradient noise sd 2, ziggurat, SGLD), in one process: ROUNDS
 * pairs of rx_run, the order alternating (off-on, on-off, ...) because on
 * this VM the second of two back-to-back runs is slower (an A/A pair of
 * one build gave 0.957, the second faster in 1 of 10 pairs). FEATURE:
 *   balance  config balance: off against measured
 *   defer    the partner design's boundary decisions one iteration later
 *            (the default) against in their own iteration
 *            (rx__engine_no_defer)
 *   bank     the partner design's waits drawing the fused chain-step's
 *            normals ahead (the default) against plain waiting
 *            (rx__engine_bank(ctx, -1))
 *   prefetch the partner design's prefetch of the neighbours' offers at
 *            the start of an iteration (the default) against none
 *            (rx__engine_no_prefetch)
 *   threads  1 thread against THREADS threads (the 2 / 1 figure of issue
 *            6 measured in one process: no process start, the two runs
 *            of a pair a fraction of a second apart)
 * Printed: the mean chain-steps/s of each, the median and quartiles of the
 * per-pair ratio on / off, and how many pairs `on` won. With 1 thread
 * defer, bank and prefetch run the same engine twice (they act only
 * between threads), which gives the method's own spread; balance too
 * (one thread has nothing to balance).
 *
 * Usage: engine_ab FEATURE [ROUNDS] [THREADS] [deo|deo_star] [ITERATIONS]
 *   defaults 30 2 deo_star 100000
 */
#define _POSIX_C_SOURCE 200809L
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../src/engine/ctx.h"
#include "bench_util.h"
#include "replex/replex.h"

enum { MAX_ROUNDS = 400 };

enum { F_BALANCE, F_DEFER, F_BANK, F_THREADS, F_PREFETCH };

static double run(int threads, int feat, int on, rx_scheme sch, long K)
{
    rx_config c;
    rx_config_default(&c);
    c.seed = 3;
    c.iterations = K;
    c.threads = threads;
    c.balance = feat != F_BALANCE || on;
    c.rng.normal = RX_NORMAL_ZIGGURAT;
    c.target.kind = RX_TARGET_MIXTURE25;
    c.target.energy_noise_sd = 2;
    c.target.grad_noise_sd = 2;
    c.target.confine_radius2 = 20;
    c.tempering.n_chains = 16;
    c.tempering.scheme = sch;
    c.ladder.eta.min = 0.003;
    c.ladder.tau.kind = RX_LADDER_GEOMETRIC;
    c.ladder.tau.min = 1;
    c.ladder.tau.max = 25;
    c.record.thin = 100;
    c.record.index_every = 0;
    c.record.trace_every = 0;
    rx_ctx *ctx = NULL;
    rx_err err;
    rx_status st = rx_create(&ctx, &c, NULL, (rx_logger){0}, &err);
    rx_config_free(&c);
    if (st != RX_OK) {
        fprintf(stderr, "engine_ab: %s\n", err.msg);
        return -1.0;
    }
    if (feat == F_DEFER)
        rx__engine_no_defer(ctx, !on);
    if (feat == F_BANK)
        rx__engine_bank(ctx, on ? 0 : -1);
    if (feat == F_PREFETCH)
        rx__engine_no_prefetch(ctx, !on);
    double v = -1.0;
    if (rx_run(ctx) == RX_OK) {
        rx_results r;
        rx_get_results(ctx, &r);
        v = 16.0 * (double)K / r.wall_s / 1e6;
    } else {
        fprintf(stderr, "engine_ab: %s\n", rx_errmsg(ctx));
    }
    rx_destroy(&ctx);
    return v;
}

int main(int argc, char **argv)
{
    rx_blas_single_thread(); /* as the CLI: no OpenBLAS pool polling */
    const int feat = argc < 2                      ? -1
                     : !strcmp(argv[1], "balance") ? F_BALANCE
                     : !strcmp(argv[1], "defer")   ? F_DEFER
                     : !strcmp(argv[1], "bank")    ? F_BANK
                     : !strcmp(argv[1], "threads") ? F_THREADS
                     : !strcmp(argv[1], "prefetch") ? F_PREFETCH
                                                   : -1;
    const int R = argc > 2 ? atoi(argv[2]) : 30;
    const int T = argc > 3 ? atoi(argv[3]) : 2;
    const rx_scheme sch = argc > 4 && !strcmp(argv[4], "deo")
                              ? RX_SCHEME_DEO
                              : RX_SCHEME_DEO_STAR;
    const long K = argc > 5 ? atol(argv[5]) : 100000;
    if (feat < 0 || R < 4 ||
        R > MAX_ROUNDS || T < 1 || K < 1000 ||
        (argc > 4 && strcmp(argv[4], "deo") && strcmp(argv[4], "deo_star"))) {
        fprintf(stderr, "usage: engine_ab balance|defer|bank|threads|prefetch "
                        "[ROUNDS 4..%d] "
                        "[THREADS] [deo|deo_star] [ITERATIONS >= 1000]\n",
                MAX_ROUNDS);
        return 2;
    }
    const int T1 = feat == F_THREADS ? 1 : T; /* the `off` run's threads */
    double rat[MAX_ROUNDS], sa = 0.0, sb = 0.0;
    int won = 0;
    for (int r = 0; r < R; ++r) {
        double a, b;
        if (r & 1) {
            b = run(T, feat, 1, sch, K);
            a = run(T1, feat, 0, sch, K);
        } else {
            a = run(T1, feat, 0, sch, K);
            b = run(T, feat, 1, sch, K);
        }
        if (a <= 0.0 || b <= 0.0)
            return 1;
        rat[r] = b / a;
        won += b > a;
        sa += a;
        sb += b;
    }
    qsort(rat, (size_t)R, sizeof rat[0], rxb_cmpd);
    printf("%s: %s, P = 16, %d thread(s), %ld iterations: off %.2f M, "
           "on %.2f M chain-steps/s (means); on / off median %.4f "
           "(quartiles %.4f-%.4f), on faster in %d of %d pairs\n",
           argv[1], sch == RX_SCHEME_DEO ? "DEO" : "DEO*", T, K, sa / R,
           sb / R, rat[R / 2], rat[R / 4], rat[3 * R / 4], won, R);
    return 0;
}
