/*
 * One row of the per-parameter table (param.c): the posterior mean, sd
 * and 5/50/95 % quantiles of one quantity's draws, the Monte Carlo
 * standard error of the mean, the ESS that governs it, the bulk and tail
 * ESS and R-hat. Pure functions on the caller's arrays: no threads, no
 * files, no run.
 */
#ifndef RX_RECORD_PARAM_H
#define RX_RECORD_PARAM_H

#include "../core/internal.h"
#include "ess.h"

typedef struct rx__param_stats {
    double mean, sd;        /* sd with n in the denominator (weighted) */
    double q5, q50, q95;    /* numpy's default (linear) quantiles;
                             * weighted: of the weighted distribution */
    double ess_mean;        /* the split-chain ESS of the draws (not
                             * rank-normalised): the one a mean's error
                             * goes with; times the weights' efficiency
                             * (sum w)^2 / (n sum w^2) when weighted */
    double ess_bm;          /* batch means: n sd^2 / (the variance of
                             * means of batches of b = floor(sqrt(n))
                             * draws, times b); weighted likewise */
    double mcse_mean;       /* sd / sqrt(min(ess_mean, ess_bm)) */
    double ess_bulk, ess_tail; /* rank-normalised (rx__ess), unweighted
                                * draws, times the efficiency if weighted */
    double rhat;            /* rx__rhat over the m chains (split halves,
                             * so a single chain has one too), of the
                             * unweighted draws */
    double raw_bulk, raw_tail; /* rx__ess's bulk and tail of the draws,
                                * not scaled (NaN: a value not finite; not
                                * in summary.json) */
} rx__param_stats;

/*
 * The row of x, m >= 1 chains of n >= 4 draws, chain-major; w (may be
 * NULL) m x n log-weights in the same order (importance weights of a
 * bias: the draws stand for the target in proportion to exp(w)). Fields
 * that cannot be defined (constant draws, a non-finite value) are NaN.
 * ew: the ESS work of this shape (rx__ess_work_new(m, n)), shared by the
 * rows of a table; NULL: one is made for the call. RX_ENOMEM when scratch
 * cannot be had.
 */
rx_status rx__param_stats_get(const double *x, const double *w, int m,
                              int64_t n, rx__ess_work *ew,
                              rx__param_stats *out);

#endif
