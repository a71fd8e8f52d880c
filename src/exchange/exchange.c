/*
 * The communication phase: the schedule's pattern picks the pairs of k,
 * the exchange test decides each (xtest.h, inlined into the pair loops
 * below through one switch per call). Every random draw is keyed by
 * (seed, pair, SWAP, k) or (seed, 0, SCHED, k), never by thread.
 */
#include "../core/rng_inline.h"
#include "exchange.h"

/* The pair loops, instantiated once per test: `dec` is always a constant
 * (a row's decision), so after inlining the call is direct and inlined. */
#define XINL static inline __attribute__((always_inline))

/* Does xc's test draw a uniform per comparison? */
static inline int uses_u(const rx__xconf *xc)
{
    return (rx__xtest_row(xc->rule)->row.props & RX__XT_UNIFORM) != 0;
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

/* The shift of the log-acceptance of the pair (a, b) whose occupants have
 * energies ea, eb: a bias's term (xc->shift), 0 without one. */
static inline double shift_of(const rx__xconf *xc, const rx__xstate *xs,
                              int a, int b, double ea, double eb)
{
    return xc->shift ? xc->shift(xc->shift_ctx, xs, a, b, ea, eb) : 0.0;
}

static inline void clear_ev(rx__pairev *e)
{
    e->evaluated = e->cond = e->attempt = e->swapped = 0;
    e->prob = 0.0;
}

/* Evaluate pair p's condition into a fresh event record. */
XINL rx__pairev *eval_pair(const rx__xconf *xc, rx__xstate *xs,
                           const double *E, int p, int64_t k,
                           rx__xt_decide_fn dec)
{
    rx__pairev *e = &xs->ev[p];
    clear_ev(e);
    e->evaluated = 1;
    const double ea = E[xs->at[p]], eb = E[xs->at[p + 1]];
    e->cond = (uint8_t)dec(xc, xs, p, p + 1, ea, eb,
                           shift_of(xc, xs, p, p + 1, ea, eb), xs->u[p], k,
                           &e->prob);
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
    const rx__sched_type *t = rx__sched_row(xc->scheme);
    if (!rx__exchange_at(xc, k))
        return -1; /* no pair is active */
    const int64_t r = xc->every > 1 ? k / xc->every : k; /* the attempt */
    const int W = t->flags & RX__SC_WINDOW ? xc->W : 1;
    const int par = t->parity ? t->parity(xc, r) : 0;
    if (r % W == 0)
        for (int p = glo; p <= phi; ++p)
            xs->gate[p] = 1;
    return par;
}

int rx__exchange_attempts(const rx__xconf *xc, const rx__xstate *xs,
                          int64_t k, int *list)
{
    const rx__sched_type *t = rx__sched_row(xc->scheme);
    if (!t->parity || !rx__exchange_at(xc, k))
        return 0;
    const int64_t r = xc->every > 1 ? k / xc->every : k;
    const int W = t->flags & RX__SC_WINDOW ? xc->W : 1;
    const int par = t->parity(xc, r), opening = r % W == 0;
    int n = 0;
    for (int p = par ? 0 : 1; p < xc->P - 1; p += 2)
        if (opening || xs->gate[p])
            list[n++] = p;
    return n;
}

/* No swap is tried at k (tempering.every) under a pattern that evaluates
 * only what it attempts (ADJ, APE): nothing evaluated. */
static int idle_at(const rx__xconf *xc, rx__xstate *xs, int64_t k)
{
    if (rx__exchange_at(xc, k))
        return 0;
    for (int p = 0; p < xc->P - 1; ++p)
        clear_ev(&xs->ev[p]);
    return 1;
}

/* ADJ: a sequential sweep, each pair sees the current occupants (no
 * gate). */
XINL void sweep_t(const rx__xconf *xc, rx__xstate *xs, const double *E,
                  int64_t k, rx__xt_decide_fn dec)
{
    for (int p = 0; p < xc->P - 1; ++p)
        attempt(xs, eval_pair(xc, xs, E, p, k, dec), p);
}

void rx__xpattern_sweep(const rx__xconf *xc, rx__xstate *xs,
                        const double *E, int64_t k, int full)
{
    (void)full;
    if (idle_at(xc, xs, k))
        return;
    if (uses_u(xc))
        draw_uniforms(xc, xs, k, xc->P - 1);
#define CALL(dec) sweep_t(xc, xs, E, k, dec)
    RX__XTEST_DISPATCH(xc->rule, CALL)
#undef CALL
}

/* APE: one pair (i, j), i < j, drawn uniformly at k; its test reads the
 * first uniform of block 0. */
void rx__xpattern_one_pair(const rx__xconf *xc, rx__xstate *xs,
                           const double *E, int64_t k, int full)
{
    (void)full;
    if (idle_at(xc, xs, k))
        return;
    for (int p = 0; p < xc->P - 1; ++p)
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
    double prob = 0.0, u4[4];
    int acc = 0;
    rx__uniform4(xc->seed, 0, RX_STREAM_SWAP, (uint64_t)k, 0, u4);
    const double ei = E[xs->at[i]], ej = E[xs->at[j]];
    const double sh = shift_of(xc, xs, i, j, ei, ej);
#define CALL(dec) acc = dec(xc, xs, i, j, ei, ej, sh, u4[0], k, &prob)
    RX__XTEST_DISPATCH(xc->rule, CALL)
#undef CALL
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
}

/* The maps-only path of the even-odd family (full == 0): active pairs are
 * disjoint, so evaluating only those with an open gate, each from the
 * pre-swap state, gives the same swaps as the full evaluation. A pair's
 * uniform is word p % 4 of block p / 4, drawn only when needed. */
XINL void evenodd_active_t(const rx__xconf *xc, rx__xstate *xs,
                           const double *E, int64_t k, int par, int need_u,
                           rx__xt_decide_fn dec)
{
    const int np = xc->P - 1;
    int have = -1;
    for (int p = par ? 0 : 1; p < np; p += 2) {
        if (!xs->gate[p])
            continue;
        if (need_u && p / 4 != have) {
            have = p / 4;
            rx__uniform4(xc->seed, 0, RX_STREAM_SWAP, (uint64_t)k,
                         (uint32_t)have, xs->u + 4 * have);
        }
        rx__pairev *e = eval_pair(xc, xs, E, p, k, dec);
        attempt(xs, e, p);
    }
}

/* Algorithm 1 / the authors' loop (sequential_stats): pair p sees the
 * occupants left by the swap of pair p-1. */
XINL void evenodd_seq_t(const rx__xconf *xc, rx__xstate *xs,
                        const double *E, int64_t k, int par,
                        rx__xt_decide_fn dec)
{
    for (int p = 0; p < xc->P - 1; ++p) {
        rx__pairev *e = eval_pair(xc, xs, E, p, k, dec);
        if (((p + 1) & 1) == par && xs->gate[p])
            attempt(xs, e, p);
    }
}

/* The conditions of the pairs plo..phi from the pre-swap state, then the
 * swaps of the active (1-based p with p % 2 == par), open ones: they are
 * disjoint. */
XINL void evenodd_range_t(const rx__xconf *xc, rx__xstate *xs,
                          const double *E, int64_t k, int par, int plo,
                          int phi, rx__xt_decide_fn dec)
{
    for (int p = plo; p <= phi; ++p)
        eval_pair(xc, xs, E, p, k, dec);
    for (int p = plo; p <= phi; ++p)
        if (((p + 1) & 1) == par && xs->gate[p])
            attempt(xs, &xs->ev[p], p);
}

void rx__xpattern_evenodd(const rx__xconf *xc, rx__xstate *xs,
                          const double *E, int64_t k, int full)
{
    const int np = xc->P - 1;
    /* paired estimates exist for the attempted pairs only: those alone
     * are evaluated, the others' events cleared */
    const int lazy = (!full || xc->paired) && !xc->sequential;
    const int need_u = uses_u(xc);
    if (xc->paired)
        for (int p = 0; p < np; ++p)
            clear_ev(&xs->ev[p]);
    if (need_u && !lazy)
        draw_uniforms(xc, xs, k, np);
    const int par = rx__exchange_sched(xc, xs, k, 0, np - 1);
    if (lazy && par < 0)
        return; /* no swap tried at k (tempering.every): maps unchanged */
    if (lazy) {
#define CALL(dec) evenodd_active_t(xc, xs, E, k, par, need_u, dec)
        RX__XTEST_DISPATCH(xc->rule, CALL)
#undef CALL
    } else if (xc->sequential) {
#define CALL(dec) evenodd_seq_t(xc, xs, E, k, par, dec)
        RX__XTEST_DISPATCH(xc->rule, CALL)
#undef CALL
    } else {
#define CALL(dec) evenodd_range_t(xc, xs, E, k, par, 0, np - 1, dec)
        RX__XTEST_DISPATCH(xc->rule, CALL)
#undef CALL
    }
}

void rx__exchange(const rx__xconf *xc, rx__xstate *xs, const double *E,
                  int64_t k, int full)
{
    const rx__sched_type *t = rx__sched_row(xc->scheme);
    if (t->exchange)
        t->exchange(xc, xs, E, k, full);
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
    if (uses_u(xc))
        for (int b = plo / 4; plo <= ulast && b <= ulast / 4; ++b)
            rx__uniform4(xc->seed, 0, RX_STREAM_SWAP, (uint64_t)k,
                         (uint32_t)b, xs->u + 4 * b);
#define CALL(dec) evenodd_range_t(xc, xs, E, k, par, plo, phi, dec)
    RX__XTEST_DISPATCH(xc->rule, CALL)
#undef CALL
}

void rx__pair_stat(const rx__xconf *xc, const rx__xstate *xs, int p,
                   double ea, double eb, int64_t k, const double *u,
                   rx__pairev *e)
{
    double up = u ? *u : 0.0;
    if (!u && uses_u(xc)) {
        double u4[4];
        rx__uniform4(xc->seed, 0, RX_STREAM_SWAP, (uint64_t)k,
                     (uint32_t)(p / 4), u4);
        up = u4[p % 4];
    }
    clear_ev(e);
    e->evaluated = 1;
    int cond = 0;
    const double sh = shift_of(xc, xs, p, p + 1, ea, eb);
#define CALL(dec) cond = dec(xc, xs, p, p + 1, ea, eb, sh, up, k, &e->prob)
    RX__XTEST_DISPATCH(xc->rule, CALL)
#undef CALL
    e->cond = (uint8_t)cond;
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
