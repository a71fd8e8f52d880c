/*
 * Accuracy diagnostics of a run's target-position samples (diag.c): what
 * they read, handed in by the engine (rx_density_tv, rx_density_grid and
 * rx_mode_weights are the public entry points, in src/engine/results.c).
 */
#ifndef RX_RECORD_DIAG_H
#define RX_RECORD_DIAG_H

#include "../core/internal.h"
#include "../target/target.h"

typedef struct rx__diag_in {
    const rx__target *target; /* exp(-U) on the grid */
    const rx_config *cfg;     /* record.grid_*, the GMM's components */
    const float *samples;     /* n_samples x dim */
    int64_t n_samples;        /* 0: no samples (or not run) */
    size_t dim;
} rx__diag_in;

/* As rx_density_grid, rx_density_tv and rx_mode_weights (replex.h). */
rx_status rx__density_grid(const rx__diag_in *c, double *ptrue,
                           double *pemp);
rx_status rx__density_tv(const rx__diag_in *c, double *tv);
rx_status rx__mode_weights(const rx__diag_in *c, double *est, int n);

#endif
