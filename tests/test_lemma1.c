/*
 * The idealised index-process model (deo.md 7, T2/T7/T8): every attempt is
 * accepted independently with probability 1 - r (rule bernoulli, target
 * none), run through the real engine. Lemma 1 gives the round-trip rate
 * P / E[T], E[T] = 2WP + 2WP(P-1) r^W / (1 - r^W), per iteration.
 * Tolerance +-4 % (T2); 2e5 iterations as in the spec.
 */
#include <math.h>
#include <stdlib.h>

#include "replex/replex.h"
#include "check.h"

static int verbose;

static rx_results run(rx_scheme sch, int W, int P, double r, uint64_t seed,
                      rx_ctx **keep)
{
    rx_config c;
    rx_config_default(&c);
    c.seed = seed;
    c.iterations = 200000;
    c.threads = 2;
    c.target.kind = RX_TARGET_NONE;
    c.tempering.rule = RX_RULE_BERNOULLI;
    c.tempering.accept_prob = 1.0 - r;
    c.tempering.n_chains = P;
    c.tempering.scheme = sch;
    c.tempering.window = sch == RX_SCHEME_DEO_W ? W : RX_WINDOW_AUTO;
    c.record.index_every = 0;
    c.record.trace_every = 0;
    rx_err err;
    rx_results res = {0};
    rx_status st = rx_create(keep, &c, NULL, (rx_logger){0}, &err);
    rx_config_free(&c);
    CHECK_MSG(st == RX_OK, "%s", err.msg);
    if (st != RX_OK)
        return res;
    CHECK(rx_run(*keep) == RX_OK);
    rx_get_results(*keep, &res);
    return res;
}

static double lemma1_per_1000(int P, int W, double r)
{
    double rw = pow(r, W);
    double ET = 2.0 * W * P + 2.0 * W * P * (P - 1) * rw / (1.0 - rw);
    return 1000.0 * P / ET;
}

static double per1000(int64_t n, int64_t K)
{
    return 1000.0 * (double)n / (double)K;
}

int main(int argc, char **argv)
{
    (void)argv;
    verbose = argc > 1;
    struct { int P, W; double r, spec; } cases[] = {
        {16, 1, 0.6, 21.0}, {16, 2, 0.6, 26.6}, {16, 4, 0.6, 38.7},
        {16, 7, 0.6, 50.2}, {16, 8, 0.6, 49.8}, {16, 10, 0.6, 45.6},
        {16, 16, 0.6, 31.1}, {8, 1, 0.7, 28.95}, {8, 7, 0.7, 43.94},
        {4, 1, 0.6, 91.1}, {4, 2, 0.6, 92.6}, {4, 4, 0.6, 86.7}};
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; ++i) {
        rx_ctx *ctx = NULL;
        rx_results r = run(RX_SCHEME_DEO_W, cases[i].W, cases[i].P,
                           cases[i].r, 1000 + i, &ctx);
        double pred = lemma1_per_1000(cases[i].P, cases[i].W, cases[i].r);
        double l1 = per1000(r.trips_l1, r.iterations);
        double rs = per1000(r.restarts, r.iterations);
        double a5 = per1000(r.trips_a5, r.iterations);
        if (verbose)
            printf("P=%d W=%d r=%.1f: lemma1 %.2f  l1 %.2f  restarts %.2f  "
                   "a5 %.2f  (spec L1 %.2f)\n",
                   cases[i].P, cases[i].W, cases[i].r, pred, l1, rs, a5,
                   cases[i].spec);
        CHECK_NEAR(l1, pred, 0.04 * pred);
        CHECK_NEAR(rs, pred, 0.04 * pred);
        CHECK(r.trips_a5 >= r.trips_l1); /* T8 */
        rx_destroy(&ctx);
    }
    /* T8 values: P=16, r=0.6, A5 vs L1 per 1000 (24.9 vs 21.0 at W=1,
     * 31.09 vs 31.07 at W=16) */
    {
        rx_ctx *ctx = NULL;
        rx_results r = run(RX_SCHEME_DEO, 1, 16, 0.6, 7, &ctx);
        CHECK_NEAR(per1000(r.trips_a5, r.iterations), 24.9, 0.04 * 24.9);
        rx_destroy(&ctx);
    }
    /* T7: SEO ~ 13.2 < DEO ~ 21.3 < DEO_8 ~ 49.7; ADJ ~ 42.9 (1->P->1) */
    double v[4];
    rx_scheme sch[4] = {RX_SCHEME_SEO, RX_SCHEME_DEO, RX_SCHEME_DEO_W,
                        RX_SCHEME_ADJ};
    double spec[4] = {13.2, 21.3, 49.7, 42.9};
    for (int s = 0; s < 4; ++s) {
        rx_ctx *ctx = NULL;
        rx_results r = run(sch[s], 8, 16, 0.6, 50 + (uint64_t)s, &ctx);
        v[s] = per1000(r.restarts, r.iterations);
        if (verbose)
            printf("T7 scheme %d: %.2f (spec %.1f)\n", s, v[s], spec[s]);
        CHECK_NEAR(v[s], spec[s], 0.05 * spec[s]);
        rx_destroy(&ctx);
    }
    CHECK(v[0] < v[1] && v[1] < v[2]);
    return check_done();
}
