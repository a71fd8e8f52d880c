/*
 * Accuracy diagnostics on the collected target-position samples: the
 * total-variation distance to the true density on a grid (1-D, 2-D) and
 * Gaussian-mixture mode weights, the 25-mode target's mode coverage. Run
 * after the run, single-threaded.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "diag.h"

#define SUB 4 /* midpoint sub-samples per bin and axis for the true mass */

rx_status rx__density_grid(const rx__diag_in *c, double *ptrue,
                           double *pemp)
{
    return rx__density_grid_w(c, NULL, ptrue, pemp);
}

rx_status rx__density_grid_w(const rx__diag_in *c, const double *wt,
                             double *ptrue, double *pemp)
{
    if (!c || !ptrue || !pemp)
        return RX_EINVAL;
    const size_t d = c->dim;
    if ((d != 1 && d != 2) || c->n_samples == 0 ||
        !c->target->eval)
        return RX_ENOTSUP;
    const int B = c->cfg->record.grid_bins;
    const double lo = c->cfg->record.grid_low, hi = c->cfg->record.grid_high;
    const double h = (hi - lo) / B;
    const size_t ncell = d == 1 ? (size_t)B : (size_t)B * (size_t)B;
    for (size_t k = 0; k < ncell; ++k)
        ptrue[k] = pemp[k] = 0.0;
    /* log density on the sub-grid, shifted by its max for stability */
    const int nsub = B * SUB;
    const size_t npts = d == 1 ? (size_t)nsub : (size_t)nsub * (size_t)nsub;
    double *lp = malloc(npts * sizeof(double));
    if (!lp)
        return RX_ENOMEM;
    double mx = -INFINITY;
    rx_status st = RX_OK;
    for (size_t t = 0; t < npts && st == RX_OK; ++t) {
        double x[2];
        size_t ix = t % (size_t)nsub, iy = t / (size_t)nsub;
        x[0] = lo + ((double)ix + 0.5) * h / SUB;
        x[1] = lo + ((double)iy + 0.5) * h / SUB;
        double u;
        st = c->target->eval(c->target, x, &u, NULL);
        lp[t] = -u;
        if (lp[t] > mx)
            mx = lp[t];
    }
    if (st == RX_OK) {
        double z = 0.0;
        for (size_t t = 0; t < npts; ++t) {
            size_t ix = t % (size_t)nsub, iy = t / (size_t)nsub;
            size_t cell = ix / SUB + (d == 2 ? (iy / SUB) * (size_t)B : 0);
            double w = exp(lp[t] - mx);
            ptrue[cell] += w;
            z += w;
        }
        for (size_t k = 0; k < ncell; ++k)
            ptrue[k] /= z;
        double inside = 0.0;
        for (int64_t s = 0; s < c->n_samples; ++s) {
            const float *x = c->samples + (size_t)s * d;
            long bx = (long)floor(((double)x[0] - lo) / h);
            long by = d == 2 ? (long)floor(((double)x[1] - lo) / h) : 0;
            if (bx < 0 || bx >= B || by < 0 || by >= B)
                continue;
            const double ws = wt ? wt[s] : 1.0;
            pemp[(size_t)bx + (size_t)by * (size_t)B] += ws;
            inside += ws;
        }
        if (inside > 0.0)
            for (size_t k = 0; k < ncell; ++k)
                pemp[k] /= inside;
    }
    free(lp);
    return st;
}

rx_status rx__density_tv(const rx__diag_in *c, double *tv)
{
    return rx__density_tv_w(c, NULL, tv);
}

rx_status rx__density_tv_w(const rx__diag_in *c, const double *wt,
                           double *tv)
{
    if (!c || !tv)
        return RX_EINVAL;
    const size_t d = c->dim;
    if ((d != 1 && d != 2) || c->n_samples == 0 ||
        !c->target->eval)
        return RX_ENOTSUP;
    const int B = c->cfg->record.grid_bins;
    const size_t ncell = d == 1 ? (size_t)B : (size_t)B * (size_t)B;
    double *pt = malloc(ncell * sizeof(double));
    double *pe = malloc(ncell * sizeof(double));
    rx_status st = pt && pe ? rx__density_grid_w(c, wt, pt, pe) : RX_ENOMEM;
    if (st == RX_OK) {
        double acc = 0.0;
        for (size_t k = 0; k < ncell; ++k)
            acc += fabs(pt[k] - pe[k]);
        *tv = 0.5 * acc;
    }
    free(pt);
    free(pe);
    return st;
}

rx_status rx__mode_weights(const rx__diag_in *c, double *est, int n)
{
    return rx__mode_weights_w(c, NULL, est, n);
}

rx_status rx__mode_weights_w(const rx__diag_in *c, const double *wt,
                             double *est, int n)
{
    if (!c || !est)
        return RX_EINVAL;
    if (c->cfg->target.kind != RX_TARGET_GMM || c->n_samples == 0)
        return RX_ENOTSUP;
    const int K = c->cfg->target.means.rows;
    if (n != K)
        return RX_EINVAL;
    const size_t d = c->dim;
    double *l = malloc(sizeof(double) * (size_t)K);
    if (!l)
        return RX_ENOMEM;
    for (int k = 0; k < K; ++k)
        est[k] = 0.0;
    double wsum = 0.0;
    const double *w = c->cfg->target.weights.v;
    const double *mu = c->cfg->target.means.v, *sc = c->cfg->target.scales.v;
    for (int64_t s = 0; s < c->n_samples; ++s) {
        const float *x = c->samples + (size_t)s * d;
        double mx = -INFINITY;
        for (int k = 0; k < K; ++k) {
            double a = log(w[k]);
            for (size_t j = 0; j < d; ++j) {
                double sd = sc[(size_t)k * d + j];
                double z = ((double)x[j] - mu[(size_t)k * d + j]) / sd;
                a -= 0.5 * z * z + log(sd);
            }
            l[k] = a;
            if (a > mx)
                mx = a;
        }
        double tot = 0.0;
        for (int k = 0; k < K; ++k) {
            l[k] = exp(l[k] - mx);
            tot += l[k];
        }
        const double ws = wt ? wt[s] : 1.0;
        for (int k = 0; k < K; ++k)
            est[k] += ws * l[k] / tot;
        wsum += ws;
    }
    for (int k = 0; k < K; ++k)
        est[k] = wsum > 0.0 ? est[k] / wsum : NAN;
    free(l);
    return RX_OK;
}

/* The mode of the 25-mode target nearest to x (x, y): the 5 x 5 centres
 * form a lattice, so the nearest one rounds each coordinate and clamps it. */
static int m25_mode(double x, double y)
{
    double i = fmin(2.0, fmax(-2.0, nearbyint(x)));
    double j = fmin(2.0, fmax(-2.0, nearbyint(y)));
    return (int)(i + 2.0) + 5 * (int)(j + 2.0);
}

static int m25_outer(int m)
{
    int i = m % 5 - 2, j = m / 5 - 2;
    return i == -2 || i == 2 || j == -2 || j == 2;
}

rx_status rx__m25_cover_get(const rx__diag_in *c, rx__m25_cover *out)
{
    if (!c || !out)
        return RX_EINVAL;
    if (c->cfg->target.kind != RX_TARGET_MIXTURE25 || c->dim != 2 ||
        c->n_samples == 0 || !c->target->eval)
        return RX_ENOTSUP;
    memset(out, 0, sizeof *out);
    const int B = c->cfg->record.grid_bins;
    const double lo = c->cfg->record.grid_low, hi = c->cfg->record.grid_high;
    const double h = (hi - lo) / B;
    for (int64_t s = 0; s < c->n_samples; ++s) {
        const double x = c->samples[2 * s], y = c->samples[2 * s + 1];
        if (!(x >= lo && x < hi && y >= lo && y < hi))
            continue;
        out->w_est[m25_mode(x, y)] += 1.0;
        out->n_inside++;
    }
    if (out->n_inside == 0)
        return RX_ENOTSUP;
    /* exp(-U) at the sub-grid midpoints, shifted by U at the centre mode
     * (the lowest energy of the target, so no term overflows) */
    const int nsub = B * SUB;
    double u0, z = 0.0, b[2] = {0.0, 0.0};
    rx_status st = c->target->eval(c->target, b, &u0, NULL);
    for (int iy = 0; iy < nsub && st == RX_OK; ++iy)
        for (int ix = 0; ix < nsub && st == RX_OK; ++ix) {
            double u;
            b[0] = lo + ((double)ix + 0.5) * h / SUB;
            b[1] = lo + ((double)iy + 0.5) * h / SUB;
            st = c->target->eval(c->target, b, &u, NULL);
            const double w = exp(u0 - u);
            out->w_true[m25_mode(b[0], b[1])] += w;
            z += w;
        }
    if (st != RX_OK)
        return st;
    double acc = 0.0;
    for (int m = 0; m < RX_M25_MODES; ++m) {
        out->w_true[m] /= z;
        out->w_est[m] /= (double)out->n_inside;
        acc += fabs(out->w_est[m] - out->w_true[m]);
        out->visited += out->w_est[m] > 0.0;
        if (m25_outer(m)) {
            out->outer_true += out->w_true[m];
            out->outer_est += out->w_est[m];
        }
    }
    out->tv = 0.5 * acc;
    return RX_OK;
}
