/*
 * The communication phase: which pairs may swap at k (schedule), and whether
 * each does (rule). Every random draw is keyed by (seed, pair, SWAP, k) or
 * (seed, 0, SCHED, k), never by thread.
 */
#include <math.h>

#include "../core/rng_inline.h"
#include "exchange.h"

void rx__pair_noise(const rx__xconf *xc, int a, int64_t k, double z[2])
{
    rx__stream s;
    rx__stream_init_inl(&s, xc->seed, (uint32_t)a, RX_STREAM_PAIRNOISE,
                        (uint64_t)k);
    s.normal = xc->normal;
    if (s.normal == RX_NORMAL_ZIGGURAT) { /* rx__normal, inlined */
        z[0] = rx__zig_normal_inl(&s);
        z[1] = rx__zig_normal_inl(&s);
    } else {
        z[0] = rx__normal(&s);
        z[1] = rx__normal(&s);
    }
}

/*
 * Decide one pair between positions a < b with uniform u; returns 1 if
 * accepted. Every thread evaluates this same expression (u < exp(x)), so
 * the decision is bitwise the same on all of them.
 */
static int decide_e(const rx__xconf *xc, const rx__xstate *xs, double ea,
                    double eb, int a, int b, double u, int64_t k,
                    double *prob)
{
    if (xc->rule == RX_RULE_BERNOULLI) {
        *prob = xc->accept_prob;
        return u < xc->accept_prob;
    }
    if (xc->fresh_sd > 0.0) {
        /* the notebook: both energies re-drawn for this comparison */
        double zl[2];
        const double *z = xs->fresh_z ? xs->fresh_z + 2 * a : zl;
        if (!xs->fresh_z)
            rx__pair_noise(xc, a, k, zl);
        ea += xc->fresh_sd * z[0];
        eb += xc->fresh_sd * z[1];
    }
    if (xc->rule == RX_RULE_DETERMINISTIC) {
        /* Eq. 8: the hotter chain's energy lower by more than C */
        int acc = eb + xs->C < ea;
        *prob = acc;
        return acc;
    }
    double dT = xs->beta[a] - xs->beta[b];
    double x = dT * (ea - eb) - xc->wcorr;
    if (xc->rule == RX_RULE_BIAS_CORRECTED)
        x -= dT * dT * xs->s2hat[a] * xc->inv_F; /* Eq. 16 */
    if (x >= 0.0) {
        *prob = 1.0;
        return 1;
    }
    *prob = exp(x);
    return u < *prob;
}

static int decide(const rx__xconf *xc, const rx__xstate *xs, const double *E,
                  int a, int b, double u, int64_t k, double *prob)
{
    return decide_e(xc, xs, E[xs->at[a]], E[xs->at[b]], a, b, u, k, prob);
}

/* The uniforms of all pairs at k: pair p uses word p % 4 of block p / 4 of
 * the stream (seed, 0, SWAP, k), whatever the schedule or thread. */
static void draw_uniforms(const rx__xconf *xc, rx__xstate *xs, int64_t k,
                          int np)
{
    for (int p = 0; p < np; p += 4)
        rx__uniform4(xc->seed, 0, RX_STREAM_SWAP, (uint64_t)k,
                     (uint32_t)(p / 4), xs->u + p);
}

static inline void do_swap(rx__xstate *xs, int a, int b)
{
    int32_t ia = xs->at[a], ib = xs->at[b];
    xs->at[a] = ib;
    xs->at[b] = ia;
    xs->pos[ib] = a;
    xs->pos[ia] = b;
}

static inline void clear_ev(rx__pairev *e)
{
    e->evaluated = e->cond = e->attempt = e->swapped = 0;
    e->prob = 0.0;
}

/* Evaluate pair p's condition into a fresh event record. */
static inline rx__pairev *eval_pair(const rx__xconf *xc, rx__xstate *xs,
                                    const double *E, int p, int64_t k)
{
    rx__pairev *e = &xs->ev[p];
    clear_ev(e);
    e->evaluated = 1;
    e->cond = (uint8_t)decide(xc, xs, E, p, p + 1, xs->u[p], k, &e->prob);
    return e;
}

/* Pair p is active with an open gate: swap if its condition held. */
static inline void attempt(rx__xstate *xs, rx__pairev *e, int p)
{
    e->attempt = 1;
    if (e->cond) {
        do_swap(xs, p, p + 1);
        e->swapped = 1;
        xs->gate[p] = 0;
    }
}

int rx__exchange_sched(const rx__xconf *xc, rx__xstate *xs, int64_t k,
                       int glo, int phi)
{
    int W = xc->W, par;
    if (xc->scheme == RX_SCHEME_SEO) {
        rx__stream s;
        rx__stream_init(&s, xc->seed, 0, RX_STREAM_SCHED, (uint64_t)k);
        par = rx__uniform(&s) < 0.5;
        W = 1;
    } else {
        par = (int)(((k / W) + xc->parity_phase) & 1);
    }
    if (k % W == 0)
        for (int p = glo; p <= phi; ++p)
            xs->gate[p] = 1;
    return par;
}

/* The maps-only path of the DEO family (full == 0): active pairs are
 * disjoint, so evaluating only those with an open gate, each from the
 * pre-swap state, gives the same swaps as the full evaluation. A pair's
 * uniform is word p % 4 of block p / 4, drawn only when needed. */
static void exchange_active(const rx__xconf *xc, rx__xstate *xs,
                            const double *E, int64_t k, int par)
{
    const int np = xc->P - 1;
    const int need_u = xc->rule != RX_RULE_DETERMINISTIC;
    int have = -1;
    for (int p = par ? 0 : 1; p < np; p += 2) {
        if (!xs->gate[p])
            continue;
        if (need_u && p / 4 != have) {
            have = p / 4;
            rx__uniform4(xc->seed, 0, RX_STREAM_SWAP, (uint64_t)k,
                         (uint32_t)have, xs->u + 4 * have);
        }
        rx__pairev *e = eval_pair(xc, xs, E, p, k);
        attempt(xs, e, p);
    }
}

void rx__exchange(const rx__xconf *xc, rx__xstate *xs, const double *E,
                  int64_t k, int full)
{
    const int np = xc->P - 1;
    if (xc->scheme == RX_SCHEME_NONE)
        return; /* independent chains: nothing evaluated, nothing swapped */
    const int lazy = !full && !xc->sequential &&
                     (xc->scheme == RX_SCHEME_SEO ||
                      xc->scheme == RX_SCHEME_DEO ||
                      xc->scheme == RX_SCHEME_DEO_W ||
                      xc->scheme == RX_SCHEME_DEO_STAR);
    if (xc->scheme != RX_SCHEME_APE && xc->rule != RX_RULE_DETERMINISTIC &&
        !lazy)
        draw_uniforms(xc, xs, k, np); /* the deterministic rule draws none */
    switch (xc->scheme) {
    case RX_SCHEME_NONE:
        break;
    case RX_SCHEME_ADJ:
        /* sequential sweep, each pair sees the current occupants */
        for (int p = 0; p < np; ++p)
            attempt(xs, eval_pair(xc, xs, E, p, k), p); /* gate unused */
        break;
    case RX_SCHEME_APE: {
        for (int p = 0; p < np; ++p)
            clear_ev(&xs->ev[p]);
        rx__stream s;
        rx__stream_init(&s, xc->seed, 0, RX_STREAM_SCHED, (uint64_t)k);
        uint64_t npairs = (uint64_t)xc->P * (uint64_t)(xc->P - 1) / 2;
        uint64_t r = rx__uniform_int(&s, npairs);
        /* unrank r -> (i, j), i < j, row-major over i */
        int i = 0;
        uint64_t row = (uint64_t)(xc->P - 1);
        while (r >= row) {
            r -= row;
            ++i;
            --row;
        }
        int j = i + 1 + (int)r;
        double prob, u4[4];
        rx__uniform4(xc->seed, 0, RX_STREAM_SWAP, (uint64_t)k, 0, u4);
        int acc = decide(xc, xs, E, i, j, u4[0], k, &prob);
        if (j == i + 1) {
            rx__pairev *e = &xs->ev[i];
            e->evaluated = e->attempt = 1;
            e->cond = (uint8_t)acc;
            e->prob = prob;
            e->swapped = (uint8_t)acc;
        } else if (acc) {
            xs->nonadjacent_swaps++;
        }
        if (acc)
            do_swap(xs, i, j);
        break;
    }
    case RX_SCHEME_SEO:
    case RX_SCHEME_DEO:
    case RX_SCHEME_DEO_W:
    case RX_SCHEME_DEO_STAR: {
        const int par = rx__exchange_sched(xc, xs, k, 0, np - 1);
        if (lazy) {
            exchange_active(xc, xs, E, k, par);
            break;
        }
        if (xc->sequential) {
            /* Algorithm 1 / the authors' loop: pair p sees the occupants
             * left by the swap of pair p-1 */
            for (int p = 0; p < np; ++p) {
                rx__pairev *e = eval_pair(xc, xs, E, p, k);
                if (((p + 1) & 1) == par && xs->gate[p])
                    attempt(xs, e, p);
            }
            break;
        }
        /* conditions for ALL pairs from the pre-swap state */
        for (int p = 0; p < np; ++p)
            eval_pair(xc, xs, E, p, k);
        /* active pairs (1-based p with p % 2 == par) are disjoint */
        for (int p = par ? 0 : 1; p < np; p += 2)
            if (xs->gate[p])
                attempt(xs, &xs->ev[p], p);
        break;
    }
    }
}

/*
 * The partner design (src/engine): a thread owns positions lo..hi-1 and the
 * pairs lo..phi (its inner pairs and the boundary pair to its right); the
 * boundary pair to its left (lo - 1) belongs to the thread on the left.
 * rx__exchange_range evaluates and swaps the inner pairs; a boundary pair
 * is decided by both of its threads with rx__exchange_boundary.
 */

void rx__exchange_range(const rx__xconf *xc, rx__xstate *xs, const double *E,
                        int64_t k, int par, int plo, int phi, int uhi)
{
    const int ulast = uhi > phi ? uhi : phi;
    if (xc->rule != RX_RULE_DETERMINISTIC)
        for (int b = plo / 4; plo <= ulast && b <= ulast / 4; ++b)
            rx__uniform4(xc->seed, 0, RX_STREAM_SWAP, (uint64_t)k,
                         (uint32_t)b, xs->u + 4 * b);
    /* conditions of every pair from the pre-swap state */
    for (int p = plo; p <= phi; ++p)
        eval_pair(xc, xs, E, p, k);
    for (int p = plo; p <= phi; ++p)
        if (((p + 1) & 1) == par && xs->gate[p])
            attempt(xs, &xs->ev[p], p);
}

void rx__pair_stat(const rx__xconf *xc, const rx__xstate *xs, int p,
                   double ea, double eb, int64_t k, const double *u,
                   rx__pairev *e)
{
    double up = u ? *u : 0.0;
    if (!u && xc->rule != RX_RULE_DETERMINISTIC) {
        double u4[4];
        rx__uniform4(xc->seed, 0, RX_STREAM_SWAP, (uint64_t)k,
                     (uint32_t)(p / 4), u4);
        up = u4[p % 4];
    }
    clear_ev(e);
    e->evaluated = 1;
    e->cond = (uint8_t)decide_e(xc, xs, ea, eb, p, p + 1, up, k, &e->prob);
}

int rx__exchange_boundary(const rx__xconf *xc, rx__xstate *xs, int p,
                          double ea, double eb, int64_t k, const double *u,
                          rx__pairev *e)
{
    rx__pair_stat(xc, xs, p, ea, eb, k, u, e);
    e->attempt = 1;
    if (e->cond) {
        do_swap(xs, p, p + 1);
        e->swapped = 1;
        xs->gate[p] = 0;
    }
    return e->cond;
}
