/*
 * Swap schedules (ADJ, SEO, DEO, DEO_W, DEO*, APE) and swap rules
 * (Metropolis, Bernoulli). Pure functions of (energies, ladder, k, seed):
 * the engine runs them redundantly on every thread, each on its own copy of
 * the particle<->position maps, so no thread waits for another to swap.
 * Positions and pairs are 0-based here: pair p joins positions p and p+1,
 * which is 1-based pair p+1 of deo.md.
 */
#ifndef RX_EXCHANGE_H
#define RX_EXCHANGE_H

#include "../core/internal.h"

typedef struct rx__xconf {
    int P;
    int W;            /* window (1 for DEO) */
    int parity_phase; /* 0 = Algorithm 1 */
    rx_scheme scheme;
    rx_rule rule;
    double accept_prob; /* bernoulli rule */
    double wcorr;       /* c_W subtracted from the Metropolis exponent */
    double inv_F;       /* bias_corrected: 1 / sigma2_factor */
    double fresh_sd;    /* > 0: fresh energy noise per comparison */
    int normal;         /* rx_normal_method of those draws */
    int sequential;     /* conditions after the swaps of lower pairs */
    uint64_t seed;
} rx__xconf;

/* What happened to one adjacent pair in one iteration. */
typedef struct rx__pairev {
    uint8_t evaluated; /* condition computed this iteration */
    uint8_t cond;      /* swap condition held */
    uint8_t attempt;   /* active and gate open */
    uint8_t swapped;   /* swap executed */
    double prob;       /* acceptance probability min(1, exp(x)) */
} rx__pairev;

/* The maps one thread keeps. */
typedef struct rx__xstate {
    int32_t *at;   /* P: particle at position q */
    int32_t *pos;  /* P: position of particle i */
    uint8_t *gate; /* P-1: 1 = pair may still swap in this window */
    rx__pairev *ev; /* P-1 */
    double *u;      /* P-1 (rounded up to 4): this iteration's uniforms */
    double *eta;    /* P: learning rates by position (adaptive copy)   */
    double *tau;    /* P: temperatures by position (adaptive copy)     */
    double *beta;   /* P: 1 / tau, refreshed whenever tau changes      */
    double *tmp;    /* P: scratch of the ladder update                 */
    double C;       /* correction buffer of the deterministic rule     */
    double *s2hat;  /* P-1: sigma_p^2 of the bias-corrected rule        */
    int64_t sa_count; /* stochastic-approximation steps of s2hat so far */
    double *acc_sum;  /* P-1: acceptance probabilities this barrier round */
    int64_t round, round_end; /* barrier ladder: round index, last k */
    int64_t nonadjacent_swaps; /* APE swaps between non-neighbours */
    /* NULL, or this iteration's fresh pair noise drawn ahead (the engine's
     * barrier design, in the step phase): the two draws of the comparison
     * whose lower position is a at [2a], [2a + 1]; not owned */
    const double *fresh_z;
} rx__xstate;

/* The two normals a comparison with lower position a draws at k when
 * xc->fresh_sd > 0 (stream (seed, a, PAIRNOISE, k)): what xs->fresh_z
 * holds. */
void rx__pair_noise(const rx__xconf *xc, int a, int64_t k, double z[2]);

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
 * glo..phi at a window start. rx__exchange_range then evaluates the pairs
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

/* Is pair p (0-based) active at iteration k under DEO_W parity? */
static inline int rx__deo_active(int p, int64_t k, int W, int phase)
{
    int64_t m = k / W;
    return ((p + 1) & 1) == (int)((m + phase) & 1);
}

#endif
