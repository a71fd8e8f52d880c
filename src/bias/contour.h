/*
 * What the contour rows share (csgld.c, icsgld.c; internal to src/bias):
 * theta on the simplex with its visit counts as one state layout, and the
 * row functions that do not depend on the SA field: the gradient
 * multiplier (csgld.md 1.3: identical in CSGLD, ICSGLD and AWSGLD), the
 * log-weight zeta log theta[J], checkpoint packing and the view. Each row
 * keeps its own update (the field) and declares its own share and needs.
 */
#ifndef RX_BIAS_CONTOUR_H
#define RX_BIAS_CONTOUR_H

#include "bias.h"

/* The state: counters, then theta[m], then visits[m] (counts, exact as
 * doubles to 2^53). No pointers: its bytes are the state. */
typedef struct rx__cs_state {
    int64_t updates;  /* SA steps applied */
    int64_t overflow; /* energies in the overflow bin skipped by the guard */
    double v[];       /* theta[0..m-1], visits[0..m-1] */
} rx__cs_state;

/* Renormalise theta when its sum drifts this far from 1 (rounding of the
 * update; the update itself preserves the sum exactly in real numbers). */
#define RX__CS_RENORM_TOL 1e-13

/* Bytes of the state (2 m doubles after the counters). */
size_t rx__cs_size(const rx__bias_params *par);
/* theta uniform or linear (bias.theta_init), no visits, counters 0. */
void rx__cs_init(const rx__bias_params *par, void *state);
/* theta /= sum when the sum of theta[0..m-1] (given) drifted from 1. */
void rx__cs_renorm(const rx__bias_params *par, double *theta, double sum);
/* The shared rows' first pass over the n chains' energies (finite):
 * each bin's visit counted; under the guard an energy in the overflow bin
 * counted there and left out; for the others theta(J_p) added to acc[J_p]
 * and to *csum, every theta read before any is written. Returns how many
 * chains entered the field. */
int rx__cs_gather(const rx__bias_params *par, rx__cs_state *s, int n,
                  const double *U, double *acc, double *csum);
/* The multiplier g = 1 + zeta tau / du (difference of log theta at the
 * bin of U), clamped; 1 in the overflow bin under the guard. */
double rx__cs_grad_mult(const rx__bias_params *par, const void *state,
                        double U, double tau);
/* zeta log theta[J]; -inf in the overflow bin under the guard. */
double rx__cs_log_weight(const rx__bias_params *par, const void *state,
                         double U, double tau);
size_t rx__cs_pack_len(const rx__bias_params *par);
void rx__cs_pack(const rx__bias_params *par, const void *state, double *out);
rx_status rx__cs_unpack(const rx__bias_params *par, void *state,
                        const double *in, rx_err *err);
void rx__cs_view(const rx__bias_params *par, const void *state,
                 const double **curve, const double **visits,
                 int64_t *updates);

#endif
