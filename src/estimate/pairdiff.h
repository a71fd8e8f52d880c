/*
 * The paired minibatch estimate of a swap's energy difference for the
 * noise-aware exchange test on minibatch energies (the replica-exchange
 * Nose-Hoover paper's Algorithm 1): both parameter vectors evaluated on
 * ONE batch, drawn without replacement and enlarged by `inc` rows until
 * the estimated variance of dbeta (U~_a - U~_b) is below sigma*^2, the
 * cap is reached, or the batch is the whole data set (then the estimate
 * is exact and its variance 0).
 *
 *   d_i  = l_i(theta_a) - l_i(theta_b)          (per-example losses)
 *   dU   = prior(theta_a) - prior(theta_b) + N mean(d)
 *          (on the reference path, whose swaps compare U_like = U - U_0
 *          with the prior as U_0: N mean(d) alone)
 *   var  = dbeta^2 N^2 s_d^2 / n (1 - n / N)    (s_d^2 the unbiased sample
 *                                                variance, Welford)
 *
 * The rows come from a partial Fisher-Yates shuffle of 0..N-1 driven by
 * the stream (seed, pair | RX__PD_ENTITY, RX_STREAM_XTEST, k): a function
 * of (seed, pair, k) only, so pairs can be estimated on any thread. The
 * permutation is restored after every call (O(n) work, not O(N)).
 * Swapping theta_a and theta_b negates d exactly, so dU changes sign and
 * var is bitwise the same: the cap's rejection is symmetric under the
 * swap.
 */
#ifndef RX_ESTIMATE_PAIRDIFF_H
#define RX_ESTIMATE_PAIRDIFF_H

#include "../target/target.h"

/* The entity bit of the batch draws (the top-up normal of the same rule
 * uses the plain pair index). */
#define RX__PD_ENTITY 0x80000000u

typedef struct rx__pdconf {
    int64_t inc;   /* rows added per round (tempering.noise_batch) */
    int64_t cap;   /* most rows: N, or tempering.noise_batch_max */
    double s2star; /* sigma*^2 */
    uint64_t seed;
    int like_only; /* ladder.path reference: U_like, without the prior */
} rx__pdconf;

/* Per-thread scratch. */
typedef struct rx__pdws {
    int64_t N;
    int bs;        /* the target's losses take at most bs rows a call */
    int32_t *perm; /* N: the identity between calls */
    int32_t *swp;  /* N: the shuffle's partners, to undo it */
    double *la, *lb; /* bs */
} rx__pdws;

/* One estimate. */
typedef struct rx__pdest {
    double dU;  /* U~(theta_a) - U~(theta_b) (U~_like with like_only) */
    double var; /* its estimated variance times dbeta^2 */
    int64_t n;  /* rows used */
} rx__pdest;

rx_status rx__pdws_create(rx__pdws **out, int64_t N, int bs);
void rx__pdws_destroy(rx__pdws **w);

/* The estimate for the pair `pair` at k (tw: the calling thread's target
 * scratch). RX_ENUMERIC when a loss or the prior is not finite, or the
 * target's status. */
rx_status rx__pd_estimate(const rx__target *t, rx__tws *tw, rx__pdws *w,
                          const rx__pdconf *pc, const double *theta_a,
                          const double *theta_b, double dbeta, uint32_t pair,
                          uint64_t k, rx__pdest *out);

#endif
