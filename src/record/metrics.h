/*
 * Scores of a posterior predictive: the accumulated predictions of S
 * models (src/target/predict.c) against the test set's targets, as the
 * run's summary reports them (rx_metrics).
 */
#ifndef RX_RECORD_METRICS_H
#define RX_RECORD_METRICS_H

#include "../core/internal.h"

/* What the predictions are scored against. */
typedef struct rx__predtruth {
    const double *y;  /* n targets: regression in original units;
                         classification the labels 0..n_out-1           */
    int64_t n;        /* test rows                                      */
    int64_t n_ood;    /* OOD rows (0: none)                             */
    int n_out;        /* outputs per row: the classes, or 1             */
    int classify;     /* mean holds class probabilities                 */
} rx__predtruth;

/*
 * The metrics of S >= 1 models from their accumulated predictions
 * (rx__network_predict): mean (n x n_out: the mean prediction in original
 * units, or the mean class probabilities), for regression the per-row
 * log-sum-exp (lmax, lsum) of the models' log-likelihoods, for
 * classification the OOD rows' mean probabilities ood_mean (n_ood x n_out;
 * NULL: no OOD entropies). Regression: RMSE of the mean and the NLL of the
 * mixture; classification: accuracy, NLL, Brier score, ECE over ece_bins
 * equal-width confidence bins (<= 0: 15; at most 1000), the predictive
 * entropy of the test rows and of the OOD rows with its 10/50/90 %
 * quantiles. m is cleared first; m->valid = 1.
 */
void rx__pred_metrics(const rx__predtruth *tr, int64_t S, const double *mean,
                      const double *lmax, const double *lsum,
                      const double *ood_mean, int ece_bins, rx_metrics *m);

#endif
