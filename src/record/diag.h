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
/* The same with importance weights wt (n_samples, any scale; NULL: equal):
 * the answer of a weighting bias's draws (CSGLD), which unweighted read
 * as a failure. */
rx_status rx__density_grid_w(const rx__diag_in *c, const double *wt,
                             double *ptrue, double *pemp);
rx_status rx__density_tv_w(const rx__diag_in *c, const double *wt,
                           double *tv);
rx_status rx__mode_weights_w(const rx__diag_in *c, const double *wt,
                             double *est, int n);

/* Mode coverage on the 25-mode 2-D target (mixture25): each point of the
 * grid record.grid_* belongs to the nearest of the 25 centres (i, j),
 * i, j in -2..2 (each coordinate rounded and clamped to [-2, 2]), mode
 * index (i + 2) + 5 (j + 2). */
#define RX_M25_MODES 25
typedef struct rx__m25_cover {
    double w_true[RX_M25_MODES]; /* mass of exp(-U) on the grid, by mode */
    double w_est[RX_M25_MODES];  /* share of the samples inside the grid */
    double tv;                   /* 0.5 sum_m |w_est - w_true| */
    double outer_true, outer_est; /* mass of the 16 modes with
                                   * max(|i|, |j|) = 2 */
    int visited;                 /* modes holding at least one sample */
    int64_t n_inside;            /* samples inside the grid */
} rx__m25_cover;

/* RX_ENOTSUP unless the target is mixture25 with samples inside the grid;
 * the truth uses the exact energy (no injected noise) at 4 x 4 midpoints
 * per grid bin, as rx__density_grid. */
rx_status rx__m25_cover_get(const rx__diag_in *c, rx__m25_cover *out);

#endif
