/*
 * The Barker (logistic) exchange test of the replica-exchange Nose-Hoover
 * paper (renhd.md 4.1, eq. 19): accept a swap of the positions a < b with
 * probability g(dE) = 1 / (1 + exp(-dE)), dE = (1/tau_a - 1/tau_b)(U_a -
 * U_b) less the window correction c_W where one is set. Detailed balance
 * holds for any acceptance a(dE) with a(dE) / a(-dE) = exp(dE), as
 * g(dE) / g(-dE) = exp(dE) does, so it leaves every tempered distribution
 * (and pi_beta on the reference path) invariant. Its acceptance is never
 * above Metropolis's, min(1, exp(dE)); it is the exact test behind the
 * paper's noise-aware test, whose smooth g is what lets minibatch noise be
 * deconvolved.
 */
#include <math.h>

#include "xtest.h"

/* g(x) = 1 / (1 + exp(-x)), without overflow for either sign. */
static double logistic(double x)
{
    if (x >= 0.0)
        return 1.0 / (1.0 + exp(-x));
    const double e = exp(x);
    return e / (1.0 + e);
}

static int barker_decide(const rx__xconf *xc, const rx__xstate *xs, int a,
                         int b, double ea, double eb, double s, double u,
                         int64_t k, double *prob)
{
    rx__xt_fresh(xc, xs, a, k, &ea, &eb);
    const double dE =
        (xs->beta[a] - xs->beta[b]) * (ea - eb) + s - xc->wcorr;
    *prob = logistic(dE);
    return u < *prob;
}

const rx__xtest_type rx__xt_barker = {
    .row = {.name = "barker",
            .doc = "Barker's logistic test: accept with 1 / (1 + "
                   "exp(-(1/tau_a - 1/tau_b)(U_a - U_b))) (Barker 1965)",
            .props = RX__XT_UNIFORM | RX__XT_ENERGY | RX__XT_LADDER |
                     RX__XT_WCORR | RX__XT_EXACT},
    .decide = barker_decide,
};
