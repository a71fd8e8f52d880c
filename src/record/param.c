/*
 * One row of the per-parameter table (param.h). The mean's error: a
 * multi-modal coordinate's draws stay in one mode for long stretches, and
 * the rank-normalised bulk ESS (ess.c), made for the centre of the
 * distribution, overstates what its mean is worth; the ESS of the raw
 * draws (ess_mean) is the one a mean's error goes with, and Geyer's
 * truncation can still cut the long-range correlation off, which batch
 * means (batches of sqrt(n) draws) keep. The MCSE takes the smaller of the
 * two ESS, so it errs on the side of a wider error bar. Owns no state.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "../core/sort.h"
#include "ess.h"
#include "param.h"

typedef struct {
    double x, w;
} xw;
_Static_assert(sizeof(xw) == 16, "rx__sort_f64 sorts 16-byte records");

/*
 * The q-quantile of v[0..N-1] sorted by x with weights w: the linear
 * interpolation at position q between the points (P_i, x_i), P_i = (the
 * weight before i) / (the total weight less the last one's). With equal
 * weights P_i = i / (N - 1): numpy's default (Hyndman and Fan type 7).
 */
static double quantile_w(const xw *v, size_t N, double q, double total)
{
    const double span = total - v[N - 1].w;
    if (N == 1 || !(span > 0.0))
        return v[N - 1].x;
    double before = 0.0;
    for (size_t i = 0; i + 1 < N; ++i) {
        const double p0 = before / span;
        const double p1 = (before + v[i].w) / span;
        if (q <= p1 || i + 2 == N) {
            if (!(p1 > p0))
                return v[i + 1].x;
            double f = (q - p0) / (p1 - p0);
            f = f < 0.0 ? 0.0 : f > 1.0 ? 1.0 : f;
            return v[i].x + f * (v[i + 1].x - v[i].x);
        }
        before += v[i].w;
    }
    return v[N - 1].x;
}

/*
 * Batch means of z (m chains of n): batches of b = floor(sqrt(n)) draws,
 * a = floor(n / b) per chain (the first n - a b draws of each left out);
 * returns b times the variance of the batch means about zero (z is
 * centred by the caller), the estimate of z's asymptotic variance; NaN
 * with fewer than 2 batches in all.
 */
static double batch_var(const double *z, int m, int64_t n)
{
    const int64_t b = (int64_t)floor(sqrt((double)n));
    const int64_t a = b > 0 ? n / b : 0;
    if (b < 1 || (int64_t)m * a < 2)
        return NAN;
    double ss = 0.0;
    for (int c = 0; c < m; ++c) {
        const double *zc = z + (size_t)c * (size_t)n + (size_t)(n - a * b);
        for (int64_t k = 0; k < a; ++k) {
            double s = 0.0;
            for (int64_t i = 0; i < b; ++i)
                s += zc[k * b + i];
            const double mk = s / (double)b;
            ss += mk * mk;
        }
    }
    return (double)b * ss / (double)((int64_t)m * a - 1);
}

rx_status rx__param_stats_get(const double *x, const double *w, int m,
                              int64_t n, rx__ess_work *ew,
                              rx__param_stats *out)
{
    const size_t N = (size_t)m * (size_t)n;
    out->mean = out->sd = out->q5 = out->q50 = out->q95 = NAN;
    out->ess_mean = out->ess_bm = out->mcse_mean = NAN;
    out->ess_bulk = out->ess_tail = out->rhat = NAN;
    out->raw_bulk = out->raw_tail = NAN;
    for (size_t i = 0; i < N; ++i)
        if (!isfinite(x[i]))
            return RX_OK;
    xw *v = malloc(sizeof(xw) * N), *tmp = malloc(sizeof(xw) * N);
    double *z = malloc(sizeof(double) * N);
    rx__ess_work *own = ew ? NULL : rx__ess_work_new(m, n);
    if (!v || !tmp || !z || (!ew && !own)) {
        free(v);
        free(tmp);
        free(z);
        rx__ess_work_free(own);
        return RX_ENOMEM;
    }
    if (!ew)
        ew = own;
    /* the draws' rank-based figures, whatever the weights */
    rx_ess_info ez, ex;
    double rhat;
    rx__ess_parts(ew, x, RX__ESS_BULK | RX__ESS_TAIL | RX__ESS_RHAT, &ex,
                  &rhat);
    out->raw_bulk = ex.ess_bulk;
    out->raw_tail = ex.ess_tail;
    rx_status st = RX_OK;
    for (size_t i = 0; w && i < N; ++i)
        if (isnan(w[i]))
            goto out;
    /* weights exp(w - max w), so the largest is 1 */
    double wmax = -INFINITY;
    for (size_t i = 0; w && i < N; ++i)
        wmax = w[i] > wmax ? w[i] : wmax;
    double W = 0.0, W2 = 0.0, s1 = 0.0;
    for (size_t i = 0; i < N; ++i) {
        v[i].x = x[i];
        v[i].w = w ? exp(w[i] - wmax) : 1.0;
        W += v[i].w;
        W2 += v[i].w * v[i].w;
        s1 += v[i].w * x[i];
    }
    if (!(W > 0.0))
        goto out;
    const double mu = s1 / W, wbar = W / (double)N;
    double s2 = 0.0, zz = 0.0;
    for (size_t i = 0; i < N; ++i) {
        const double d = x[i] - mu;
        s2 += v[i].w * d * d;
        z[i] = v[i].w / wbar * d; /* the weighted mean's linearisation */
        zz += z[i] * z[i];
    }
    out->mean = mu;
    out->sd = sqrt(s2 / W);
    rx__sort_f64(v, N, sizeof *v, tmp); /* stable: ties keep draw order */
    out->q5 = quantile_w(v, N, 0.05, W);
    out->q50 = quantile_w(v, N, 0.50, W);
    out->q95 = quantile_w(v, N, 0.95, W);
    const double var = s2 / W, var_z = zz / (double)N;
    /* efficiency of the weights, (sum w)^2 / (N sum w^2): 1 unweighted */
    const double eff = W * W / ((double)N * W2);
    /* of z only the mean's ESS */
    rx__ess_parts(ew, z, RX__ESS_MEAN, &ez, NULL);
    out->rhat = rhat;
    /* N var / (the asymptotic variance of the mean's linearisation z):
     * var_z tau_z = var_z N / ess_z */
    if (var_z > 0.0)
        out->ess_mean = var * ez.ess_mean / var_z;
    const double bv = batch_var(z, m, n);
    if (bv > 0.0)
        out->ess_bm = (double)N * var / bv;
    out->ess_bulk = ex.ess_bulk * eff;
    out->ess_tail = ex.ess_tail * eff;
    double e = out->ess_mean;
    if (isnan(e) || (!isnan(out->ess_bm) && out->ess_bm < e))
        e = out->ess_bm;
    if (e > 0.0)
        out->mcse_mean = out->sd / sqrt(e);
out:
    rx__ess_work_free(own);
    free(v);
    free(tmp);
    free(z);
    return st;
}
