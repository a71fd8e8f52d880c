/*
 * The communication-barrier ladder of Syed et al. (anchors.md 2.1) as a
 * second adaptive method: on the exact-energy 25-mode target with 12
 * chains, a geometric temperature ladder 1..100 leaves the per-pair
 * acceptance uneven (0.69-0.87); after the barrier rounds every pair
 * accepts at the same rate (within 0.03), ends fixed, ladder increasing.
 * Also the Fritsch-Carlson update on a known case: equal rejections keep
 * the ladder's betas equally spaced in the barrier.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "../src/ladder/ladder.h"
#include "check.h"

static double spread(rx_ladder_adapt a, double *tau_out)
{
    rx_config c;
    rx_config_default(&c);
    c.seed = 2;
    c.threads = 1;
    c.iterations = 100000;
    c.target.confine_radius2 = 20;
    c.tempering.n_chains = 12;
    c.tempering.scheme = RX_SCHEME_DEO;
    c.ladder.eta.min = 0.003;
    c.ladder.tau.kind = RX_LADDER_GEOMETRIC;
    c.ladder.tau.min = 1;
    c.ladder.tau.max = 100;
    c.ladder.adapt = a;
    c.record.trace_every = 0;
    c.record.index_every = 0;
    rx_ctx *ctx = NULL;
    rx_err err;
    double sp = -1;
    if (rx_create(&ctx, &c, NULL, (rx_logger){0}, &err) == RX_OK &&
        rx_run(ctx) == RX_OK) {
        rx_results r;
        rx_get_results(ctx, &r);
        /* the mean acceptance probability over the whole run is dominated
         * by the last (longest) rounds */
        double lo = 1, hi = 0;
        for (int p = 0; p < 11; ++p) {
            double m = r.pairs[p].accept_sum / (double)r.pairs[p].evaluated;
            lo = m < lo ? m : lo;
            hi = m > hi ? m : hi;
        }
        sp = hi - lo;
        for (int q = 0; q < 12; ++q)
            tau_out[q] = r.tau[q];
    }
    rx_destroy(&ctx);
    rx_config_free(&c);
    return sp;
}

/* T8 of the replica-exchange Nose-Hoover paper's ladder, T_j = tau^j:
 * the geometric ladder from 1 to tau^(R-1) over R positions gives
 * T_j = tau^j to 1e-12 (tau = 1.2, 13 replicas: T_12 = 8.9161; tau = 1.5,
 * 7 replicas: T_6 = 11.3906). */
static void test_t8(void)
{
    static const struct { double tau; int R; double last; } c[2] = {
        {1.2, 13, 8.9161}, {1.5, 7, 11.3906}};
    for (int i = 0; i < 2; ++i) {
        rx_ladder_spec s = {0};
        s.kind = RX_LADDER_GEOMETRIC;
        s.min = 1.0;
        s.max = pow(c[i].tau, c[i].R - 1);
        double t[13];
        rx__ladder_fill(&s, c[i].R, t);
        double worst = 0.0;
        for (int j = 0; j < c[i].R; ++j) {
            const double e = fabs(t[j] / pow(c[i].tau, j) - 1.0);
            worst = e > worst ? e : worst;
        }
        printf("T8: tau %.1f, %d replicas: T_%d = %.6f, worst relative "
               "error against tau^j %.2g\n", c[i].tau, c[i].R, c[i].R - 1,
               t[c[i].R - 1], worst);
        CHECK(worst <= 1e-12);
        CHECK(fabs(t[c[i].R - 1] - c[i].last) < 5e-5);
    }
}

int main(void)
{
    test_t8();
    double tau0[12], tau1[12];
    double s0 = spread(RX_ADAPT_NONE, tau0);
    double s1 = spread(RX_ADAPT_BARRIER, tau1);
    printf("acceptance spread over pairs: geometric %.3f, barrier %.3f\n",
           s0, s1);
    CHECK(s0 > 0.1);
    CHECK(s1 >= 0 && s1 < 0.03);
    CHECK(tau1[0] == 1.0 && tau1[11] == 100.0);
    for (int q = 1; q < 12; ++q)
        CHECK(tau1[q] > tau1[q - 1]);

    /* equal rejections: betas equally spaced, so a ladder equally spaced
     * in beta is a fixed point */
    enum { P = 6 };
    double tau[P], r[P - 1], tmp[3 * P];
    for (int q = 0; q < P; ++q)
        tau[q] = 1.0 / (1.0 - 0.15 * q);
    for (int p = 0; p < P - 1; ++p)
        r[p] = 0.3;
    rx__barrier_update(tau, r, P, tmp);
    for (int q = 0; q < P; ++q)
        CHECK_NEAR(1.0 / tau[q], 1.0 - 0.15 * q, 1e-9);
    /* a hard pair (large rejection) gets more points around it */
    for (int p = 0; p < P - 1; ++p)
        r[p] = p == 0 ? 0.9 : 0.1;
    rx__barrier_update(tau, r, P, tmp);
    CHECK(1.0 / tau[0] - 1.0 / tau[1] < 0.15);
    return check_done();
}
