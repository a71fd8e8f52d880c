/*
 * The exchange-test table: rx_rule -> row. A row's decision is a static
 * inline function of xtest.h; its needs say what the engine serves it.
 */
#include "xtest.h"

const rx__xtest_type rx__xt_metropolis = {
    .name = "metropolis",
    .needs = RX__XT_UNIFORM | RX__XT_ENERGY | RX__XT_LADDER | RX__XT_WCORR,
    .decide = rx__xt_metropolis_decide,
};

const rx__xtest_type rx__xt_bernoulli = {
    .name = "bernoulli",
    .needs = RX__XT_UNIFORM,
    .decide = rx__xt_bernoulli_decide,
};

const rx__xtest_type rx__xt_deterministic = {
    .name = "deterministic",
    .needs = RX__XT_ENERGY | RX__XT_BUFFER_C,
    .decide = rx__xt_deterministic_decide,
};

const rx__xtest_type rx__xt_bias_corrected = {
    .name = "bias_corrected",
    .needs = RX__XT_UNIFORM | RX__XT_ENERGY | RX__XT_LADDER | RX__XT_WCORR |
             RX__XT_SIGMA2,
    .decide = rx__xt_bias_corrected_decide,
};

#define RX__XT_ROW_(e, row, unused) [e] = &row,
const rx__xtest_type *const rx__xtest_types[RX__XTEST_KINDS] = {
    RX__XTEST_ROWS(RX__XT_ROW_, 0)};

_Static_assert(RX_RULE_BIAS_CORRECTED + 1 == RX__XTEST_KINDS,
               "a row for every rx_rule");
