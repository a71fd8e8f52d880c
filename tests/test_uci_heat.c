/*
 * The Boston sampler does not heat its target chain (issue 24): the
 * learned noise sd of the target chain of yaml/uci_boston.yaml (eight
 * SGLD chains, tau 1..8, DEO swaps with the bias-corrected rule on
 * variance-reduced energies) stays within the seed spread of the same
 * file run without swaps (tempering.scheme: none). The Metropolis rule on
 * minibatch energies (tempering.rule: metropolis) is biased (Deng 2021,
 * Sec. 2.3.1): its extra swaps bring hot particles to the target position
 * and raise the noise sd; `RX_HEAT_RULE=metropolis` runs the test with
 * that rule, which must make it fail (the mutant).
 *
 * A shortened run of the minibatch sampler that file had before it moved
 * to full-data energies (the corrected rule is still the one of the other
 * network files): its network and data, the fixed layer-scaled prior,
 * SGLD chains at tau 1..8, VR energies with sigma^2 estimated (the --set
 * below), 8,000 iterations (samples of the last 4,000, every 10th), with a
 * step of 5e-5 (the file: 1e-5) so that the chains settle within the run,
 * and minibatches of 4 rows (the file: 32) so that the energy noise, the
 * source of the naive rule's bias, is 8 times larger and its heating
 * stands out of the seed spread (measured, seeds 1-4: no swaps 0.495,
 * 0.510, 0.502, 0.489; the Metropolis rule 0.517, 0.532; the
 * corrected rule 0.495, 0.507).
 *
 * The tolerance is the seed spread: SEEDS runs without swaps give a mean
 * m and an sd s of the target chain's noise sd; the mean over SEEDS runs
 * with swaps must lie within K s sqrt(2 / SEEDS) of m (the standard error
 * of a difference of two means of SEEDS runs each).
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "replex/replex.h"
#include "check.h"
#include "uci_boston.h"

#define SEEDS 6
#define K 3.0

/* mean over the kept samples of exp(-rho / 2), rho the last coordinate */
static double noise_sd(const char *rule, int swaps, int seed)
{
    char sseed[32], srule[64];
    snprintf(sseed, sizeof sseed, "seed=%d", seed);
    snprintf(srule, sizeof srule, "tempering.rule=%s", rule);
    const char *sets[] = {sseed, srule, "iterations=8000",
                          "record.burn_in=4000", "record.thin=10",
                          "threads=1", "ladder.eta=5e-5",
                          "data.batch_size=4",
                          "variance_reduction.period=114", /* an epoch */
                          swaps ? "tempering.scheme=deo"
                                : "tempering.scheme=none",
                          "step.target=sgld", "step.others=sgld",
                          "tempering.sigma2=estimate",
                          "variance_reduction.enabled=true",
                          "ladder.tau.max=8", "model.precision_a=6",
                          "model.precision_b=6", "model.prior_precision=1",
                          "model.prior_scale=fan_in",
                          "model.weight_precision_a=0"};
    rx_config c;
    rx_err err;
    rx_status st = load_boston(sets, 20, &c, &err);
    CHECK_MSG(st == RX_OK, "%s", err.msg);
    if (st != RX_OK)
        return NAN;
    rx_ctx *ctx = NULL;
    st = rx_create(&ctx, &c, NULL, (rx_logger){0}, &err);
    rx_config_free(&c);
    CHECK_MSG(st == RX_OK, "%s", err.msg);
    if (st != RX_OK)
        return NAN;
    st = rx_run(ctx);
    CHECK_MSG(st == RX_OK, "%s", rx_errmsg(ctx));
    rx_results r;
    double sum = 0.0;
    int64_t n = 0;
    if (st == RX_OK && rx_get_results(ctx, &r) == RX_OK) {
        for (n = 0; n < r.n_samples; ++n)
            sum += exp(-0.5 * (double)r.samples[n * r.dim + r.dim - 1]);
        printf("  %s seed %d: %lld swaps, noise sd %.4f over %lld samples\n",
               swaps ? rule : "no swaps", seed, (long long)r.total_swaps,
               n ? sum / (double)n : NAN, (long long)n);
    }
    rx_destroy(&ctx);
    return n ? sum / (double)n : NAN;
}

int main(void)
{
    const char *rule = getenv("RX_HEAT_RULE");
    if (!rule || !*rule)
        rule = "bias_corrected";
    double x[SEEDS], m = 0.0, s = 0.0, y = 0.0;
    for (int i = 0; i < SEEDS; ++i)
        m += (x[i] = noise_sd("bias_corrected", 0, i + 1)) / SEEDS;
    for (int i = 0; i < SEEDS; ++i)
        s += (x[i] - m) * (x[i] - m) / (SEEDS - 1);
    s = sqrt(s);
    for (int i = 0; i < SEEDS; ++i)
        y += noise_sd(rule, 1, i + 1) / SEEDS;
    const double tol = K * s * sqrt(2.0 / SEEDS);
    printf("noise sd: no swaps %.4f (seed sd %.4f), %s swaps %.4f; "
           "difference %+.4f, tolerance %.4f\n", m, s, rule, y, y - m, tol);
    CHECK(s > 0.0);
    CHECK_MSG(fabs(y - m) <= tol,
              "%s: the target chain's noise sd %.4f is not within %.4f of "
              "the no-swap runs' %.4f", rule, y, tol, m);
    return check_done();
}
