/*
 * The exchange-test table: rx_rule -> row. A row's decision is a static
 * inline function of xtest.h; its needs say what the engine serves it.
 */
#include "xtest.h"

const rx__xtest_type rx__xt_metropolis = {
    .row = {.name = "metropolis",
            .doc = "accept with min(1, exp((1/tau_a - 1/tau_b)(U_a - U_b)))",
            .props = RX__XT_UNIFORM | RX__XT_ENERGY | RX__XT_LADDER |
                     RX__XT_WCORR | RX__XT_EXACT},
    .decide = rx__xt_metropolis_decide,
};

static const char *const bernoulli_uses[] = {"tempering.accept_prob", NULL};

const rx__xtest_type rx__xt_bernoulli = {
    .row = {.name = "bernoulli",
            .doc = "idealised: accept with probability accept_prob",
            .props = RX__XT_UNIFORM,
            .uses = bernoulli_uses},
    .decide = rx__xt_bernoulli_decide,
};

static const char *const det_uses[] = {"correction.", NULL};

const rx__xtest_type rx__xt_deterministic = {
    .row = {.name = "deterministic",
            .doc = "swap when U(p+1) + C < U(p), with the adaptive buffer C",
            .props = RX__XT_ENERGY | RX__XT_BUFFER_C,
            .uses = det_uses},
    .decide = rx__xt_deterministic_decide,
};

static const char *const bc_uses[] = {"tempering.sigma2",
                                      "tempering.sigma2_factor", NULL};

const rx__xtest_type rx__xt_bias_corrected = {
    .row = {.name = "bias_corrected",
            .doc = "Metropolis less the noise correction dT^2 sigma^2 / F",
            .props = RX__XT_UNIFORM | RX__XT_ENERGY | RX__XT_LADDER |
                     RX__XT_WCORR | RX__XT_SIGMA2 | RX__XT_EXACT,
            .uses = bc_uses},
    .decide = rx__xt_bias_corrected_decide,
};

/* A test binary may define this row: it then joins the table after the
 * built-in rows, known to no other file (tests/test_contract.c). */
extern const rx__xtest_type rx__xt_test_row __attribute__((weak));

/* The table: a row's index is its tempering.rule value. A new test is its
 * file and one line here (before the test row). */
extern const rx__xtest_type rx__xt_barker; /* barker.c */
extern const rx__xtest_type rx__xt_noise_aware; /* noise_aware.c */

const rx__xtest_type *const rx__xtest_types[RX__XTEST_MAX] = {
    &rx__xt_metropolis, &rx__xt_bernoulli, &rx__xt_deterministic,
    &rx__xt_bias_corrected,
    &rx__xt_barker,
    &rx__xt_noise_aware,
    &rx__xt_test_row, /* NULL unless a test defines it */
};

int rx__xtest_count(void)
{
    int n = 0;
    while (n < RX__XTEST_MAX && rx__xtest_types[n])
        ++n;
    return n;
}

static const rx__rowdecl *xtest_at(int i)
{
    return i >= 0 && i < rx__xtest_count() ? &rx__xtest_types[i]->row : NULL;
}

const rx__table rx__xtest_table = {"exchange test",
                                   {"tempering.rule", NULL, NULL},
                                   rx__xtest_count, xtest_at};
