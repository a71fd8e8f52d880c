/*
 * The exchange's settings (rx__xconf, one per run) and the maps and
 * adaptive quantities one thread keeps (rx__xstate): what the exchange
 * tests and schedules read (exchange.h, xtest.h).
 */
#ifndef RX_XSTATE_H
#define RX_XSTATE_H

#include "../core/internal.h"
#include "../core/row.h"

/* Most barrier-ladder rounds a run can complete: round r is
 * barrier_round * 2^r iterations long, and a checkpoint's round is at
 * most 62. */
#define RX__MAX_ROUNDS 64

struct rx__xstate;

/* A pair's shift of the log-acceptance (rx__xconf.shift): ctx the
 * engine's, a < b the positions, ea and eb their occupants' energies. */
typedef double (*rx__xshift_fn)(const void *ctx, const struct rx__xstate *xs,
                                int a, int b, double ea, double eb);

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
    int64_t every;      /* tempering.every L >= 1: swaps tried only at k
                         * with (k + 1) % L == 0; the schedule's clock is
                         * the attempt k / L (rx__exchange_sched) */
    uint64_t seed;
    rx__rowvals own;    /* the values of the rule's own keys */
    const void *rstate; /* the rule's per-run state (its row's size and
                         * init), or NULL */
    /* NULL, or the term a bias adds to each pair's log-acceptance (the
     * engine's, from a bias row's swap_shift), with its context: the pair
     * loops hand it to the decision as s (0 without it) */
    rx__xshift_fn shift;
    const void *shift_ctx;
    /* the rule decides from paired minibatch estimates (RX__XT_PAIRED on
     * a minibatch target): the engine estimates every attempted pair's
     * energy difference before the exchange (xs->pair_est), and only the
     * attempted pairs are evaluated */
    int paired;
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
    /* barrier ladder: Lambda = sum of the pairs' rejection rates over each
     * completed round r < round (the ladder of that round) */
    double round_lambda[RX__MAX_ROUNDS];
    int64_t nonadjacent_swaps; /* APE swaps between non-neighbours */
    /* NULL, or this iteration's fresh pair noise drawn ahead (the engine's
     * barrier design, in the step phase): the two draws of the comparison
     * whose lower position is a at [2a], [2a + 1]; not owned */
    const double *fresh_z;
    /* NULL, or this iteration's paired estimates of the attempted pairs
     * (xc->paired): for the pair with lower position a, [2a] the estimate
     * of U(at[a]) - U(at[a + 1]) (not multiplied by dbeta) and [2a + 1]
     * the estimated variance of dbeta (U~_a - U~_b), i.e. dbeta^2 times
     * that of the estimate (src/estimate/pairdiff.h); not owned */
    const double *pair_est;
} rx__xstate;

/* The two normals a comparison with lower position a draws at k when
 * xc->fresh_sd > 0 (stream (seed, a, PAIRNOISE, k)): what xs->fresh_z
 * holds. */
void rx__pair_noise(const rx__xconf *xc, int a, int64_t k, double z[2]);

#endif
