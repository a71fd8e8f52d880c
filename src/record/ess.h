/*
 * Convergence diagnostics of draws (ess.c): the rank-normalised bulk and
 * tail effective sample sizes, the integrated autocorrelation time and
 * the rank-normalised split R-hat of Vehtari, Gelman, Simpson, Carpenter
 * and Buerkner (2021), as ArviZ and the R package posterior compute them;
 * the communication barrier Lambda of Syed, Bouchard-Cote, Deligiannidis
 * and Doucet (2022) from per-pair acceptance. Pure functions on the
 * caller's arrays: no threads, no files. The public entry points rx_ess,
 * rx_rhat and rx_comm_barrier (replex.h) check their arguments and call
 * these.
 */
#ifndef RX_RECORD_ESS_H
#define RX_RECORD_ESS_H

#include "../core/internal.h"

/*
 * x holds m chains of n draws each, chain-major (x[c * n + t]); m >= 1,
 * n >= 4, every value finite (the caller checks). Fills out; a figure that
 * is undefined (constant draws, an indicator that never changes) is NaN.
 * RX_ENOMEM when scratch cannot be allocated.
 */
rx_status rx__ess(const double *x, int m, int64_t n, rx_ess_info *out);

/* The same x with m >= 2: the rank-normalised split R-hat, the larger of
 * the bulk and the folded (|x - median|) values; NaN when undefined. */
rx_status rx__rhat(const double *x, int m, int64_t n, double *rhat);

/*
 * The same figures for many series of one shape (m >= 1 chains of n >= 4
 * draws), bitwise those of rx__ess and rx__rhat: the work holds the
 * scratch and the tables (FFT twiddles, the normal scores of the ranks),
 * made once. rx__ess_work_new returns NULL when out of memory (or m < 1,
 * n < 4). rx__ess_parts fills the parts asked for (RX__ESS_MEAN: ess_mean
 * and tau; RX__ESS_BULK; RX__ESS_TAIL; RX__ESS_RHAT: *rhat, which must
 * then not be NULL) and leaves the others of out NaN.
 */
typedef struct rx__ess_work rx__ess_work;
enum {
    RX__ESS_MEAN = 1u,
    RX__ESS_BULK = 2u,
    RX__ESS_TAIL = 4u,
    RX__ESS_RHAT = 8u
};
rx__ess_work *rx__ess_work_new(int m, int64_t n);
void rx__ess_work_free(rx__ess_work *w);
rx_status rx__ess_parts(rx__ess_work *w, const double *x, unsigned parts,
                        rx_ess_info *out, double *rhat);

/*
 * Lambda = sum over the pairs that were evaluated at least once of
 * 1 - (mean acceptance probability); NaN when no pair was evaluated.
 */
double rx__barrier_lambda(const rx_pair_stats *pairs, int n_pairs);
/* ceil(2 Lambda) + 1, at least 2 (0 for a NaN Lambda): the smallest
 * number of chains whose pairs' equal rejection rate Lambda / (N - 1)
 * is at most 1/2. */
int rx__barrier_chains(double lambda);

#endif
