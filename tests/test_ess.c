/*
 * rx_ess, rx_rhat and rx_comm_barrier on series with known answers:
 *  - AR(1) chains x_t = rho x_{t-1} + sqrt(1 - rho^2) e_t have the
 *    integrated autocorrelation time tau = (1 + rho) / (1 - rho) and, being
 *    Gaussian, a bulk ESS of about (draws) / tau. Mean over 10 fixed seeds
 *    of 4 x 5000 draws; the tolerance is 4 standard errors of that mean,
 *    from the seed-to-seed spread measured over 40 seeds (relative sd of
 *    one estimate: tau 0.054 at rho 0.5, 0.083 at 0.8, 0.10 at 0.95; bulk
 *    ESS x tau / draws 0.05-0.10), plus the estimator's bias there
 *    (+0.5 %, +2.5 %, +2.3 % for tau);
 *  - R-hat below 1.01 for four chains of the same AR(1) process (measured
 *    1.000-1.013 over 30 seeds at 4 x 2000; here 4 x 10000), above 1.1
 *    when one of two chains is shifted by 1.5 standard deviations;
 *  - Lambda = the sum of the pairs' rejection rates, from counts;
 *  - bad arguments: RX_EINVAL with the reason.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../src/record/ess.h"
#include "check.h"

/* m AR(1) chains of n draws from seed, stationary start, chain c shifted
 * by shift[c] (NULL: none). */
static void ar1(double *x, int m, int64_t n, double rho, uint64_t seed,
                const double *shift)
{
    const double s = sqrt(1.0 - rho * rho);
    for (int c = 0; c < m; ++c) {
        rx__stream st;
        rx__stream_init(&st, seed, (uint32_t)c, 99, 0);
        double *xc = x + (size_t)c * (size_t)n;
        xc[0] = rx__normal(&st);
        for (int64_t t = 1; t < n; ++t)
            xc[t] = rho * xc[t - 1] + s * rx__normal(&st);
        if (shift)
            for (int64_t t = 0; t < n; ++t)
                xc[t] += shift[c];
    }
}

static void known_tau(void)
{
    const int m = 4, seeds = 10;
    const int64_t n = 5000;
    /* rho, relative sd of one tau estimate, of one bulk ratio, tau bias */
    const double cases[][4] = {
        {0.5, 0.054, 0.051, 0.005},
        {0.8, 0.083, 0.070, 0.025},
        {0.95, 0.100, 0.100, 0.023},
    };
    double *x = malloc(sizeof(double) * (size_t)m * (size_t)n);
    if (!x) {
        CHECK(0);
        return;
    }
    for (size_t k = 0; k < sizeof cases / sizeof cases[0]; ++k) {
        const double rho = cases[k][0];
        const double tau = (1.0 + rho) / (1.0 - rho);
        double tsum = 0.0, bsum = 0.0, tail_min = INFINITY;
        for (int s = 0; s < seeds; ++s) {
            ar1(x, m, n, rho, 1000 + (uint64_t)s, NULL);
            rx_ess_info e;
            rx_err err = {""};
            CHECK(rx_ess(x, m, n, &e, &err) == RX_OK);
            tsum += e.tau;
            bsum += e.ess_bulk * tau / (double)(m * n);
            /* tau is draws / ess_mean */
            CHECK_NEAR(e.tau * e.ess_mean, (double)(m * n), 1e-6 * (double)(m * n));
            if (e.ess_tail < tail_min)
                tail_min = e.ess_tail;
        }
        const double se = 4.0 / sqrt((double)seeds);
        printf("rho %.2f: tau %.3f (theory %.3f), bulk ESS x tau / draws "
               "%.3f, smallest tail ESS %.0f\n",
               rho, tsum / seeds, tau, bsum / seeds, tail_min);
        CHECK_NEAR(tsum / seeds / tau, 1.0,
                   se * cases[k][1] + cases[k][3]);
        CHECK_NEAR(bsum / seeds, 1.0, se * cases[k][2] + 0.02);
        CHECK(tail_min > 0.0 && tail_min < (double)(m * n));
    }
    free(x);
}

static void rhat(void)
{
    const int64_t n = 10000;
    double *x = malloc(sizeof(double) * 4 * (size_t)n);
    if (!x) {
        CHECK(0);
        return;
    }
    double r = 0.0;
    ar1(x, 4, n, 0.8, 7, NULL);
    CHECK(rx_rhat(x, 4, n, &r, NULL) == RX_OK);
    printf("R-hat, 4 chains of one AR(1): %.5f\n", r);
    CHECK(r < 1.01 && r > 0.99);
    const double shift[2] = {0.0, 1.5};
    ar1(x, 2, n, 0.8, 8, shift);
    CHECK(rx_rhat(x, 2, n, &r, NULL) == RX_OK);
    printf("R-hat, one of two chains shifted by 1.5 sd: %.5f\n", r);
    CHECK(r > 1.1);
    /* a chain of another spread (same centre) is caught by the folded
     * R-hat: the bulk part alone stays near 1 */
    ar1(x, 2, n, 0.5, 9, NULL);
    for (int64_t t = 0; t < n; ++t)
        x[n + t] *= 3.0;
    CHECK(rx_rhat(x, 2, n, &r, NULL) == RX_OK);
    printf("R-hat, one of two chains 3 times wider: %.5f\n", r);
    CHECK(r > 1.1);
    free(x);
}

static void barrier(void)
{
    rx_pair_stats p[3];
    memset(p, 0, sizeof p);
    p[0].evaluated = 100;
    p[0].accept_sum = 80.0; /* r 0.2 */
    p[1].evaluated = 50;
    p[1].accept_sum = 10.0; /* r 0.8 */
    p[2].evaluated = 0;     /* never evaluated: left out */
    double lam = 0.0;
    int n = 0;
    CHECK(rx_comm_barrier(p, 3, &lam, &n, NULL) == RX_OK);
    CHECK_NEAR(lam, 1.0, 1e-12);
    CHECK(n == 3); /* ceil(2) + 1 */
    p[1].accept_sum = 5.0; /* r 0.9: Lambda 1.1 -> ceil(2.2) + 1 */
    CHECK(rx_comm_barrier(p, 3, &lam, &n, NULL) == RX_OK);
    CHECK_NEAR(lam, 1.1, 1e-12);
    CHECK(n == 4);
    p[0].accept_sum = p[1].accept_sum = 100.0;
    p[1].evaluated = 100; /* no rejection: 2 chains suffice */
    CHECK(rx_comm_barrier(p, 3, &lam, &n, NULL) == RX_OK);
    CHECK(lam == 0.0 && n == 2);
    p[0].evaluated = p[1].evaluated = 0;
    CHECK(rx_comm_barrier(p, 3, &lam, &n, NULL) == RX_OK);
    CHECK(isnan(lam) && n == 0);
}

static void bad_args(void)
{
    double x[8] = {1, 2, 3, 4, 5, 6, 7, 8}, r;
    rx_ess_info e;
    rx_err err = {""};
    CHECK(rx_ess(NULL, 1, 8, &e, &err) == RX_EINVAL);
    CHECK(strstr(err.msg, "rx_ess: x is NULL") != NULL);
    CHECK(rx_ess(x, 1, 3, &e, &err) == RX_EINVAL);
    CHECK(strstr(err.msg, "n_draws = 3") != NULL);
    CHECK(rx_rhat(x, 1, 8, &r, &err) == RX_EINVAL);
    CHECK(strstr(err.msg, "n_chains = 1; at least 2") != NULL);
    x[5] = NAN;
    CHECK(rx_rhat(x, 2, 4, &r, &err) == RX_EINVAL);
    CHECK(strstr(err.msg, "x[5] (chain 1, draw 1) is not finite") != NULL);
    x[5] = 6;
    /* constant draws: defined call, undefined figures */
    double k[8] = {2, 2, 2, 2, 2, 2, 2, 2};
    CHECK(rx_ess(k, 2, 4, &e, NULL) == RX_OK);
    CHECK(isnan(e.ess_bulk) && isnan(e.ess_mean) && isnan(e.tau));
    CHECK(rx_rhat(k, 2, 4, &r, NULL) == RX_OK && isnan(r));
    CHECK(rx_comm_barrier(NULL, 1, &r, NULL, &err) == RX_EINVAL);
}

int main(void)
{
    known_tau();
    rhat();
    barrier();
    bad_args();
    return check_done();
}
