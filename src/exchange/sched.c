/*
 * The schedule table: rx_scheme -> row. A row names its pattern (the
 * exchange function of exchange.c) and, for the even-odd family, the
 * parity of k and whether the window gate applies. With tempering.every
 * L > 1 the parity functions get the attempt number k / L in place of k
 * (rx__exchange_sched), so they count attempts, not iterations.
 */
#include "exchange.h"

/* DEO family (Algorithm 1): the parity of the window k / W, shifted by
 * parity_phase. */
static int deo_parity(const rx__xconf *xc, int64_t k)
{
    return (int)(((k / xc->W) + xc->parity_phase) & 1);
}

/* SEO: a fair coin per iteration, keyed by (seed, 0, SCHED, k). */
static int seo_parity(const rx__xconf *xc, int64_t k)
{
    rx__stream s;
    rx__stream_init(&s, xc->seed, 0, RX_STREAM_SCHED, (uint64_t)k);
    return rx__uniform(&s) < 0.5;
}

const rx__sched_type rx__sc_adj = {
    .name = "adj",
    .exchange = rx__xpattern_sweep,
};

const rx__sched_type rx__sc_seo = {
    .name = "seo",
    .flags = RX__SC_DISJOINT,
    .parity = seo_parity,
    .exchange = rx__xpattern_evenodd,
};

/* DEO is DEO_W with W = 1 (the configuration sets it). */
const rx__sched_type rx__sc_deo = {
    .name = "deo",
    .flags = RX__SC_DISJOINT | RX__SC_WINDOW,
    .parity = deo_parity,
    .exchange = rx__xpattern_evenodd,
};

const rx__sched_type rx__sc_deo_w = {
    .name = "deo_w",
    .flags = RX__SC_DISJOINT | RX__SC_WINDOW,
    .parity = deo_parity,
    .exchange = rx__xpattern_evenodd,
};

/* DEO_W with W = W*(P, S) (the configuration sets it). */
const rx__sched_type rx__sc_deo_star = {
    .name = "deo_star",
    .flags = RX__SC_DISJOINT | RX__SC_WINDOW,
    .parity = deo_parity,
    .exchange = rx__xpattern_evenodd,
};

const rx__sched_type rx__sc_ape = {
    .name = "ape",
    .exchange = rx__xpattern_one_pair,
};

/* Independent chains: nothing evaluated, nothing swapped. */
const rx__sched_type rx__sc_none = {
    .name = "none",
};

/* Indexed by rx_scheme; a new schedule is a row here and an enum value
 * of rx_scheme. */
const rx__sched_type *const rx__sched_types[RX__SCHED_KINDS] = {
    [RX_SCHEME_ADJ] = &rx__sc_adj,         [RX_SCHEME_SEO] = &rx__sc_seo,
    [RX_SCHEME_DEO] = &rx__sc_deo,         [RX_SCHEME_DEO_W] = &rx__sc_deo_w,
    [RX_SCHEME_DEO_STAR] = &rx__sc_deo_star, [RX_SCHEME_APE] = &rx__sc_ape,
    [RX_SCHEME_NONE] = &rx__sc_none,
};

_Static_assert(RX_SCHEME_NONE + 1 == RX__SCHED_KINDS,
               "a row for every rx_scheme");
