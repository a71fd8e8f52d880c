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

#endif
