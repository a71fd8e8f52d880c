/*
 * The communication phase as two type tables, in the style of GSL's
 * gsl_rng_type (like src/step/ and src/bias/):
 *
 *  - exchange tests (rx__xtest_type, the swap rules): the acceptance of a
 *    proposed swap from the pair's energies and ladder (and the fresh pair
 *    noise it reads), and what it needs or adapts: a buffer C, sigma_p^2.
 *    Rows: metropolis, bernoulli, deterministic, bias_corrected (the row
 *    type and the decisions, static inline, in xtest.h; the rows and the
 *    table in xtest.c), barker and noise_aware (each in its own file).
 *  - schedules (rx__sched_type): which pairs may swap at iteration k (a
 *    pattern: even-odd parity with a window gate, a sweep, one random
 *    pair, none). Rows: adj, seo, deo, deo_w, deo_star, ape, none
 *    (sched.c).
 *
 * Pure functions of (energies, ladder, k, seed): the engine runs them
 * redundantly on every thread, each on its own copy of the
 * particle<->position maps, so no thread waits for another to swap.
 * Positions and pairs are 0-based here: pair p joins positions p and p+1,
 * which is 1-based pair p+1 of deo.md.
 *
 * Adding an exchange test: a row in its own file, one line in xtest.c's
 * table (docs/architecture.md, "How to add a sampler"); its keys live in
 * the config's key store, never in rx_rule or rx__xconf. The rows listed
 * in RX__XTEST_ROWS (xtest.h) are inlined in the pair loops below, one
 * switch per call; any other row is called through its table entry.
 * Adding a schedule: an enum value at the end of rx_scheme and its name,
 * a row in sched.c with an existing pattern (rx__xpattern_evenodd with a
 * parity function, RX__SC_DISJOINT, RX__SC_WINDOW or not) or a new
 * pattern function beside the others in exchange.c (which then
 * instantiates the tests with RX__XTEST_DISPATCH).
 */
#ifndef RX_EXCHANGE_H
#define RX_EXCHANGE_H

#include "xstate.h"
#include "xtest.h"

/* The schedule's properties (its row's flags). */
enum {
    RX__SC_DISJOINT = 1, /* the pairs of k are those of one parity: disjoint,
                          * each decided from the pre-swap state (unless
                          * tempering.sequential_stats): only the active,
                          * open ones need evaluating, and the partner
                          * design applies                            */
    RX__SC_WINDOW = 2    /* a pair swaps at most once per window of
                          * xc->W iterations (the gate); else W = 1   */
};

/* One exchange phase at k (the schedule's pattern): see rx__exchange. */
typedef void (*rx__xpattern_fn)(const rx__xconf *xc, rx__xstate *xs,
                                const double *E, int64_t k, int full);

/* One schedule (tempering.scheme): which pairs may swap at k. */
typedef struct rx__sched_type {
    const char *name; /* the tempering.scheme name */
    unsigned flags;   /* RX__SC_* */
    /* RX__SC_DISJOINT rows: the parity of attempt k (active pairs: (p +
     * 1) % 2 == parity; k / tempering.every where that is > 1); NULL for
     * the others */
    int (*parity)(const rx__xconf *xc, int64_t k);
    /* its pattern (exchange.c); NULL: no pair ever swaps */
    rx__xpattern_fn exchange;
} rx__sched_type;

extern const rx__sched_type rx__sc_adj, rx__sc_seo, rx__sc_deo,
    rx__sc_deo_w, rx__sc_deo_star, rx__sc_ape, rx__sc_none;

/* The rows by rx_scheme (sched.c); RX__SCHED_KINDS of them. */
#define RX__SCHED_KINDS 7
extern const rx__sched_type *const rx__sched_types[RX__SCHED_KINDS];

static inline const rx__sched_type *rx__sched_row(rx_scheme s)
{
    return rx__sched_types[s];
}

/* The patterns the schedule rows use (exchange.c): the even-odd family
 * (parity and gate from the row), the sequential sweep of all adjacent
 * pairs (ADJ), one random pair at any distance (APE). */
void rx__xpattern_evenodd(const rx__xconf *xc, rx__xstate *xs,
                          const double *E, int64_t k, int full);
void rx__xpattern_sweep(const rx__xconf *xc, rx__xstate *xs,
                        const double *E, int64_t k, int full);
void rx__xpattern_one_pair(const rx__xconf *xc, rx__xstate *xs,
                           const double *E, int64_t k, int full);

/* Is k an iteration where swaps may be tried (tempering.every: the last
 * iteration of every L)? Its attempt number is k / L. */
static inline int rx__exchange_at(const rx__xconf *xc, int64_t k)
{
    return xc->every <= 1 || (k + 1) % xc->every == 0;
}

/* Does the exchange allow the partner design (disjoint pairs decided
 * from the pre-swap state)? The engine adds its own conditions
 * (adaptation of C or sigma^2: RX__XT_BUFFER_C, RX__XT_SIGMA2). */
static inline int rx__exchange_local(const rx__xconf *xc)
{
    return (rx__sched_row(xc->scheme)->flags & RX__SC_DISJOINT) &&
           !xc->sequential;
}

/*
 * One exchange phase at iteration k. E[i] is the energy of particle i
 * (exact when xc->fresh_sd > 0: the rule adds fresh noise per comparison);
 * temperatures and C come from xs. Updates xs->at/pos/gate and fills
 * xs->ev. With full == 0 a thread that needs only the maps (no recorder,
 * no adaptation) evaluates just the active pairs whose gate is open under
 * the DEO family (and draws only their uniforms); the maps come out
 * bitwise the same, xs->ev of the other pairs is left stale. Schemes whose
 * pairs interact (ADJ, APE, sequential DEO) always evaluate everything.
 */
void rx__exchange(const rx__xconf *xc, rx__xstate *xs, const double *E,
                  int64_t k, int full);

/*
 * The partner design, for SEO and the DEO family (not sequential): a
 * thread owning positions lo..hi-1 owns pairs plo = lo .. phi (hi - 1, or
 * hi - 2 for the last thread). rx__exchange_sched returns the parity of k
 * (active pairs: (p + 1) % 2 == parity) and opens the gates of pairs
 * glo..phi at a window start; where no swap is tried at k
 * (tempering.every) it returns -1, which no pair matches, and leaves the
 * gates. With L = tempering.every the parity and the window are those of
 * the attempt k / L (L = 1: of k). rx__exchange_range then evaluates the pairs
 * plo..phi (the engine passes its inner pairs; the boundary pairs go
 * through rx__exchange_boundary) from the pre-swap state into xs->ev and
 * swaps the active, open ones in xs->at / xs->pos. xs->at must hold the
 * occupants of positions plo to phi + 1 and E their energies: the same
 * swaps as rx__exchange. The uniforms of k are drawn into xs->u for the
 * pairs plo..max(phi, uhi) (uhi: the boundary pair whose statistics and
 * decisions this thread makes later with rx__pair_stat, or -1), so
 * xs->u[uhi] holds its uniform of k until the next call (under the
 * deterministic rule nothing is drawn, and the decisions read no uniform).
 */
int rx__exchange_sched(const rx__xconf *xc, rx__xstate *xs, int64_t k,
                       int glo, int phi);
void rx__exchange_range(const rx__xconf *xc, rx__xstate *xs, const double *E,
                        int64_t k, int par, int plo, int phi, int uhi);

/* The event of pair p at iteration k when it is not attempted (inactive or
 * gate closed), from the energies of its occupants: evaluated, cond and
 * prob exactly as the full exchange computes them (fixed ladder, C and
 * sigma^2). The partner design records an inactive boundary pair later,
 * once the neighbour's energy has arrived. u: the pair's uniform of k
 * (word p % 4 of block p / 4 of the swap stream), or NULL to draw it. */
void rx__pair_stat(const rx__xconf *xc, const rx__xstate *xs, int p,
                   double ea, double eb, int64_t k, const double *u,
                   rx__pairev *e);

/* The partner design's boundary pair p, attempted at k (active, gate
 * open), decided by either of its two threads from the energies ea, eb of
 * its occupants (xs->at[p], xs->at[p + 1]) at k: the same decision as
 * rx__exchange and rx__exchange_range. Swaps the maps and closes the gate
 * when it holds; fills e (attempt set); returns whether it swapped. u as
 * for rx__pair_stat. */
int rx__exchange_boundary(const rx__xconf *xc, rx__xstate *xs, int p,
                          double ea, double eb, int64_t k, const double *u,
                          rx__pairev *e);

/* The pairs the even-odd family will attempt at k (active, gate open:
 * what rx__exchange swaps from), in increasing order into list (P - 1
 * ints); returns their count, 0 where no swap is tried at k. Reads the
 * gates before rx__exchange_sched opens them at a window start. */
int rx__exchange_attempts(const rx__xconf *xc, const rx__xstate *xs,
                          int64_t k, int *list);

/* Is pair p (0-based) active at iteration k under DEO_W parity? */
static inline int rx__deo_active(int p, int64_t k, int W, int phase)
{
    int64_t m = k / W;
    return ((p + 1) & 1) == (int)((m + phase) & 1);
}

#endif
