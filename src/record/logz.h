/*
 * The evidence of a reference-path run: the stepping-stone estimator of
 * Xie, Lewis, Fan, Kuo and Chen (2011), "Improving marginal likelihood
 * estimation for Bayesian phylogenetic model selection", Syst. Biol.
 * 60(2), 150-160, with a batch-means standard error.
 */
#ifndef RX_RECORD_LOGZ_H
#define RX_RECORD_LOGZ_H

#include "../core/internal.h"

/*
 * u: n rows x P positions, u[r P + q] the exact likelihood term U_like of
 * the particle at position q in kept row r (rows in time order); beta: P
 * values, beta[0] = 1 > ... > beta[P-1] = 0. Pair p = (p, p+1) gives
 *   terms[p] = log mean_r exp(-(beta[p] - beta[p+1]) u[r P + p + 1]),
 * (log-sum-exp), and log Z = sum_p terms[p] goes to *est. Standard
 * error: the rows are cut into B = floor(sqrt n) batches of floor(n / B)
 * rows (the first n - B floor(n/B) rows left out of it); with m_pb the
 * batch means of the ratios and m_p their mean, the delta method gives
 *   Var(log Z) = s^2(z_b) / B,  z_b = sum_p m_pb / m_p
 * (sample variance over batches: autocorrelation within a batch and the
 * covariance between pairs included), and term_se[p] = s(m_pb / m_p) /
 * sqrt B. *se and term_se are NaN for n < 4. Returns RX_ENUMERIC (est
 * NaN) for a non-finite u, RX_ENOMEM, RX_EINVAL for n < 1 or P < 2.
 */
rx_status rx__logz_estimate(const double *u, int64_t n, int P,
                            const double *beta, double *terms,
                            double *term_se, double *est, double *se,
                            int *batches);

/*
 * Does the beta = 0 position sample its reference? u0: the reference
 * energy U_0 of its n kept rows (time order); mean, sd: what U_0 of a
 * draw from pi_0 has (a Gaussian reference of k coordinates: lognorm +
 * k/2 and sqrt(k/2)). Fills the rows' mean of U_0, its sd (ddof 1), the
 * split-chain ESS of the mean (at most n) and
 *   z = (mean of U_0 - mean) / (sd of U_0 / sqrt ESS),
 * the distance in Monte-Carlo standard errors. A constant series (a chain
 * that never moves) has ESS NaN and z +-inf (0 when it sits at mean).
 * RX_ENUMERIC for a non-finite u0 or n < 4 (z NaN), RX_ENOMEM.
 */
typedef struct rx__logz_ref {
    double mean, sd;         /* of the rows' U_0 */
    double want, want_sd;    /* the reference's */
    double ess, z;
} rx__logz_ref;

/* |z| beyond this many standard errors: the chain at beta = 0 does not
 * sample its reference (a false alarm on a right chain is then about 1
 * in 15,000 where the ESS is well estimated). */
#define RX__LOGZ_REF_Z 4.0
/* Fewer effective draws than this: too few to show that it does (a
 * chain that crawls across its reference can pass the mean by chance,
 * with an se as poor as its ESS; over 40 seeds of one such run 14 had
 * |z| < 4, all of them an ESS below 10). */
#define RX__LOGZ_REF_ESS 10.0

rx_status rx__logz_ref_check(const double *u0, int64_t n, double mean,
                             double sd, rx__logz_ref *out);

/*
 * Do neighbouring positions overlap? For each pair p (positions p and
 * p+1), from the n kept rows:
 *  - ess[p]: the Kish effective sample size (sum w)^2 / sum w^2 of its
 *    stepping-stone weights w_r = exp(-(beta[p] - beta[p+1]) u[r P + p
 *    + 1]) over the rows of position p+1 (1 when one row carries the
 *    whole ratio, n when all weigh the same);
 *  - acc[p]: the mean over the rows of min(1, exp((beta[p] - beta[p+1])
 *    (u[r P + p] - u[r P + p + 1]))), the probability that the pair's
 *    two states of that row would swap under the Metropolis test (what
 *    a symmetric overlap of the two pi_beta gives, whatever the run's
 *    swap rule).
 * Neighbours that do not overlap leave a term resting on a few rows,
 * with a batch-means se as poor as the term: the estimate is then off by
 * many se (and a chain whose neighbour never swaps with it cannot be
 * helped across its own barriers). RX_ENUMERIC for a non-finite u (NaN
 * out), RX_EINVAL for n < 1 or P < 2.
 */
rx_status rx__logz_overlap(const double *u, int64_t n, int P,
                           const double *beta, double *ess, double *acc);

/* log Z is not valid when some pair has acc below RX__LOGZ_OVERLAP_ACC or
 * ess below RX__LOGZ_OVERLAP_ESS (measured on right and wrong runs:
 * docs/reliability.md, "log Z from neighbours that do not overlap"). */
#define RX__LOGZ_OVERLAP_ACC 0.01
#define RX__LOGZ_OVERLAP_ESS 10.0

/* The check: NULL when every pair passes (or u is not finite: the
 * estimate says so itself); else the reason, a sentence in msg (cap
 * bytes) naming the worst pair (by acc, else by ess), its betas, its
 * figures and how many pairs fail. */
const char *rx__logz_overlap_check(const double *u, int64_t n, int P,
                                   const double *beta, char *msg,
                                   size_t cap);

#endif
