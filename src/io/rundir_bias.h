/*
 * The run directory's bias outputs (rundir_bias.c): the summary's "bias"
 * block, weights.npy and samples_resampled.npy. Nothing without a bias.
 */
#ifndef RX_IO_RUNDIR_BIAS_H
#define RX_IO_RUNDIR_BIAS_H

#include <stdio.h>

#include "replex/replex.h"

/* The summary's "bias" block (a line ending in ",\n") into f. */
void rx__summary_bias(FILE *f, rx_ctx *c);
/* With importance weights (a bias): 1, the effective sample size
 * (sum w)^2 / sum w^2 of the target position's weights into *ess and
 * their number into *n; else 0. */
/* The importance weight of every row of the samples, exp(log-weight -
 * max) (malloc'd, n_samples), where a bias weights the draws (CSGLD);
 * NULL where none does (or no memory). */
double *rx__sample_weights(const rx_ctx *c);
/* The TV distance of the weighted draws to the true density (as
 * rx_density_tv), where a bias weights them: 1, else 0. */
int rx__density_tv_weighted(const rx_ctx *c, double *tv);
int rx__target_weights_ess(const rx_ctx *c, double *ess, int64_t *n);
/* weights.npy and (bias.resample) samples_resampled.npy into dir. */
rx_status rx__rundir_bias_files(rx_ctx *c, const char *dir);

#endif
