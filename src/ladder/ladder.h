/*
 * Ladders over positions: learning rates eta(q) and temperatures tau(q),
 * fixed (constant, geometric, list) or adapted every iteration by the
 * equi-acceptance rule of deo.md 2.6 (Eq. 12), and the correction buffer C
 * of the deterministic swap rule (Eq. 13).
 */
#ifndef RX_LADDER_H
#define RX_LADDER_H

#include "../core/internal.h"
#include "../exchange/exchange.h"

/* Fill out[0..P-1] from a spec (validated beforehand). */
void rx__ladder_fill(const rx_ladder_spec *s, int P, double *out);

typedef struct rx__aconf {
    int P;
    rx_ladder_adapt adapt;
    int project;
    int adapt_c;      /* deterministic rule with correction.adapt */
    double S, c_scale;
    double a, b, alpha, cap;
    int64_t round0; /* barrier: first round length */
} rx__aconf;

/*
 * Syed et al.'s update (anchors.md 2.1) of a temperature ladder tau (P
 * values, ends fixed) from the mean rejection r_j of each pair over the
 * last round: the cumulative barrier Lambda_q = sum_{j<q} r_j (+1e-6 per
 * pair against ties) is interpolated monotonically (Fritsch-Carlson) as a
 * function giving beta = 1/tau, and the new betas are taken at equal
 * steps Lambda * i / (P-1). tmp needs 3P doubles.
 */
void rx__barrier_update(double *tau, const double *r, int P, double *tmp);

/* gamma_k = min(cap, a / (k^alpha + b)) */
double rx__gamma(const rx__aconf *ac, int64_t k);

/*
 * One Jacobi update of a ladder L (P values) from per-pair H_j = A_j - S
 * (P-1 values), with the iteration-k snapshot in tmp: for interior p,
 * L[p] = (L[p-1] + max(0, g_{p-1}) e^{gamma H_{p-1}}
 *         + L[p+1] - max(0, g_p) e^{gamma H_p}) / 2, ends fixed.
 * project: then clamp L[p] into [L_new[p-1], L_old[p+1]].
 */
void rx__ladder_update(double *L, double *tmp, const double *H, int P,
                       double gamma, int project);

/* The adapt phase after the exchange of iteration k: ladder, then C, from
 * the same condition indicators xs->ev[].cond. */
void rx__adapt(const rx__aconf *ac, rx__xstate *xs, int64_t k);

#endif
