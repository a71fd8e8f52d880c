/*
 * T11, the efficiency of interacting chains (Deng 2021, Sec. 6.3.3,
 * Cor. 1), through the engine on yaml/icsgld_efficiency.yaml (the
 * mixture 0.4 N(-6,1) + 0.6 N(4,1), 50 bins of width 1 from e_min = 1,
 * zeta 3, eta 0.02, omega_k = 1/(k^0.6 + 100)):
 *
 *  ICSGLD with P = 4 chains sharing theta for k = 1e5 iterations against
 *  one chain with the same scalable field (bias.kind icsgld, n_chains 1)
 *  for 4k iterations, seeds 1-30: the across-seed covariance matrix of
 *  theta over the bins every run visited, and the ratio of Frobenius
 *  norms ||Var(theta_{4k})||_F / ||Var(theta_k^4)||_F > 1.2 (the
 *  spec's CI assertion; the corollary's asymptotic value is 4^0.4 =
 *  1.74). Measured: 3.9 here (at k = 1e5 the chain's slow mixing between
 *  the modes still dominates theta's error, which the P independent
 *  chains average: a ratio nearer P); 2.9 over 100 seeds, 1.86 at k =
 *  3e5 and 1.51 at k = 1e6 (scripts/icsgld_efficiency.py,
 *  docs/reproduction.md), whose 90 % bootstrap intervals all hold 1.74
 *  or lie above it.
 *
 *  Negative control: the same statistic with the interaction taken away
 *  (ONE chain for k iterations, the share of one of the four chains,
 *  against one chain for 4k) stays below 1.2 (measured 0.66). With
 *  src/bias/icsgld.c updating theta from chain 0's energy only (n = 1 in
 *  ic_update) the main check fails too (0.66: theta is then that one
 *  chain's).
 *
 * About 6 s of CPU; every run on one thread.
 */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "replex/replex.h"
#include "../src/bias/bias.h"
#include "../src/engine/state.h" /* rx__ctx_bias: the run's theta */
#include "check.h"

#define SEEDS 30
#define K 100000
#define M 50 /* bias.bins of the file */

static char path[1200];

/* theta at the end of one run; lo/hi the visited bins. 0 on failure. */
static int theta_run(int seed, int chains, int64_t iters, double *theta,
                     int *lo, int *hi)
{
    char s1[64], s2[64], s3[64];
    snprintf(s1, sizeof s1, "seed=%d", seed);
    snprintf(s2, sizeof s2, "tempering.n_chains=%d", chains);
    snprintf(s3, sizeof s3, "iterations=%lld", (long long)iters);
    const char *sets[] = {s1, s2, s3, "threads=1", "record.thin=100000"};
    rx_config cfg;
    rx_err err = {0};
    rx_config_default(&cfg);
    if (rx_config_load(path, sets, 5, &cfg, &err) != RX_OK) {
        fprintf(stderr, "config: %s\n", err.msg);
        rx_config_free(&cfg);
        return 0;
    }
    rx_ctx *c = NULL;
    rx_status st = rx_create(&c, &cfg, NULL, (rx_logger){0}, &err);
    rx_config_free(&cfg);
    if (st != RX_OK) {
        fprintf(stderr, "create: %s\n", err.msg);
        return 0;
    }
    int ok = 0;
    if (rx_run(c) == RX_OK) {
        const rx__bias *b = rx__ctx_bias(c);
        const double *curve, *vis;
        int64_t upd;
        b->type->view(&b->par, rx__bias_state(b, 0), &curve, &vis, &upd);
        *lo = -1;
        for (int j = 0; j < M; ++j) {
            theta[j] = curve[j];
            if (vis[j] > 0.0) {
                *lo = *lo < 0 ? j : *lo;
                *hi = j;
            }
        }
        ok = b->par.bins == M && *lo >= 0;
    } else {
        fprintf(stderr, "run: %s\n", rx_errmsg(c));
    }
    rx_destroy(&c);
    return ok;
}

/* One arm: theta of seeds 1..SEEDS into th[SEEDS][M]; narrows [lo, hi]
 * to the bins every run visited. */
static int arm(int chains, int64_t iters, double th[SEEDS][M], int *lo,
               int *hi)
{
    for (int s = 0; s < SEEDS; ++s) {
        int l, h;
        if (!theta_run(s + 1, chains, iters, th[s], &l, &h))
            return 0;
        *lo = l > *lo ? l : *lo;
        *hi = h < *hi ? h : *hi;
    }
    return 1;
}

/* ||cov||_F over bins lo..hi of the SEEDS rows (ddof 1). */
static double frob_cov(double th[SEEDS][M], int lo, int hi)
{
    double mean[M] = {0}, f = 0.0;
    for (int j = lo; j <= hi; ++j) {
        for (int s = 0; s < SEEDS; ++s)
            mean[j] += th[s][j];
        mean[j] /= SEEDS;
    }
    for (int a = lo; a <= hi; ++a)
        for (int b = lo; b <= hi; ++b) {
            double c = 0.0;
            for (int s = 0; s < SEEDS; ++s)
                c += (th[s][a] - mean[a]) * (th[s][b] - mean[b]);
            c /= SEEDS - 1;
            f += c * c;
        }
    return sqrt(f);
}

int main(void)
{
    const char *s = getenv("RX_SRCDIR");
    snprintf(path, sizeof path, "%s/yaml/icsgld_efficiency.yaml",
             s ? s : ".");
    static double p4[SEEDS][M], one4k[SEEDS][M], onek[SEEDS][M];
    int lo = 0, hi = M - 1;
    int ok = arm(4, K, p4, &lo, &hi) && arm(1, 4 * K, one4k, &lo, &hi) &&
             arm(1, K, onek, &lo, &hi);
    CHECK_MSG(ok, "the runs of %s", path);
    if (!ok)
        return check_done();
    CHECK(hi - lo >= 10); /* the bins that carry theta's mass */
    const double fp4 = frob_cov(p4, lo, hi), f4k = frob_cov(one4k, lo, hi),
                 fk = frob_cov(onek, lo, hi);
    const double ratio = f4k / fp4, control = f4k / fk;
    printf("T11: bins %d-%d, ||Var||_F: P = 4 for k %.3e, one chain for 4k "
           "%.3e, one chain for k %.3e\n", lo, hi, fp4, f4k, fk);
    printf("T11: ratio one chain 4k / ICSGLD P = 4: %.3f (> 1.2; "
           "asymptotically 1.74); control, one chain 4k / one chain k: "
           "%.3f (< 1.2)\n", ratio, control);
    CHECK_MSG(ratio > 1.2, "ICSGLD efficiency ratio %.3f", ratio);
    CHECK_MSG(control < 1.2, "no interaction: ratio %.3f", control);
    return check_done();
}
