/*
 * Control-variate (variance-reduced) energy estimator, resgld_vr.md 3:
 *   U~_VR(theta) = (N/n) sum_{i in B} [l_i(theta) + c l_i(anchor)]
 *                  - c U_data(anchor) + prior(theta),
 * with U_data(anchor) = sum_{i=1}^N l_i(anchor) refreshed every m
 * iterations. Works on any target that sets rx__target.cv. The state of a
 * particle (anchor, U_data(anchor), c) lives in the particle and moves
 * with it on swaps; this module only computes. Gradients are untouched.
 */
#ifndef RX_ESTIMATE_VR_H
#define RX_ESTIMATE_VR_H

#include "../target/target.h"

typedef struct rx__vrconf {
    int on;
    int64_t m;            /* period */
    double c0;            /* fixed c; adaptive: the start (-1) */
    int adaptive;
    double gamma;         /* adaptive smoothing; 0 = harmonic 1/j */
    int64_t anchor_batch; /* 0 = full data; else subsample rows */
    int J;                /* paired batches at a period end */
} rx__vrconf;

/* Per-thread scratch: bs losses at theta and at the anchor, bs rows, J
 * paired batch energies. */
typedef struct rx__vrws {
    int bs, J;
    double *pe;      /* losses at theta from the gradient pass */
    double *la, *lb;
    int32_t *idx;
    double *ea, *eb;
} rx__vrws;

/* Work counters of one particle (forward rows beyond the gradient pass,
 * anchor passes, seconds). */
typedef struct rx__vrcost {
    int64_t fwd_rows;    /* extra per-example forward evaluations */
    int64_t anchor_rows; /* of which anchor-energy passes */
    int64_t anchor_passes;
    int64_t period_ends;
    double var_vr_sum;   /* sum over period ends of the raw variances */
    double var_std_sum;
    double seconds;
} rx__vrcost;

rx_status rx__vrws_create(rx__vrws **out, int bs, int J);
void rx__vrws_destroy(rx__vrws **w);

/*
 * U_data(anchor): the full sum over the N rows in chunks of bs (Neumaier
 * summation across chunks), or with anchor_batch = n_big > 0 (N/n_big)
 * times the losses of n_big rows drawn with replacement from (seed,
 * entity, ESTIMATE, k). Streams through the data: no memory beyond the
 * scratch, whatever N is.
 */
rx_status rx__vr_anchor_energy(const rx__target *t, rx__tws *tw,
                               rx__vrws *vw, const rx__vrconf *vc,
                               const double *anchor, uint64_t seed,
                               uint32_t entity, uint64_t k, double *lhat,
                               rx__vrcost *cost);

/*
 * The VR energy on a batch idx[0..bs) given the losses at theta la (from
 * the gradient pass) and at the anchor lb (NULL: computed here, one
 * forward pass of bs rows).
 */
rx_status rx__vr_energy(const rx__target *t, rx__tws *tw, rx__vrws *vw,
                        const double *theta, const double *la,
                        const int32_t *idx, const double *anchor,
                        const double *lb, double lhat, double c,
                        double *energy, rx__vrcost *cost);

/*
 * One update of the adaptive coefficient from J paired batch energies
 * (a_j at theta, b_j at the anchor): c^ = -Cov(a, b) / Var(b) (ddof 1),
 * c <- (1 - g) c + g c^ with g = gamma or 1/j at the j-th update (*nc
 * counts them), clipped to [-2, 0]. Returns c^ (NAN and no update when
 * Var(b) = 0).
 */
double rx__vr_coef_update(const double *a, const double *b, int J,
                          double gamma, double *c, int64_t *nc);

/*
 * A period end (before the anchor refresh), resgld_vr.md 3.4-3.5: J
 * paired batches with replacement from (seed, entity, VARIANCE, k) at the
 * frozen theta and its (old) anchor; updates *c if adaptive, then
 * *var_vr = sample variance (ddof 1) of the VR estimator with that c and
 * *var_std = that of the standard estimator (same batches).
 */
rx_status rx__vr_period_end(const rx__target *t, rx__tws *tw, rx__vrws *vw,
                            const rx__vrconf *vc, const double *theta,
                            const double *anchor, double lhat, double *c,
                            int64_t *nc, uint64_t seed, uint32_t entity,
                            uint64_t k, double *var_vr, double *var_std,
                            rx__vrcost *cost);

#endif
