/*
 * Gaussian mixture with diagonal covariances in d dimensions:
 *   U(x) = -log sum_k w_k prod_j N(x_j; mu_kj, s_kj^2).
 * Evaluated with a one-pass (online) log-sum-exp so no scratch is needed.
 */
#include <math.h>
#include <stdlib.h>

#include "target.h"

static rx_status eval_gmm(const rx__target *t, const double *x,
                          double *energy, double *grad)
{
    const size_t d = t->dim;
    const int K = t->u.gmm.n_comp;
    double m = -INFINITY, s = 0.0;
    if (grad)
        for (size_t j = 0; j < d; ++j)
            grad[j] = 0.0;
    for (int k = 0; k < K; ++k) {
        const double *mu = t->u.gmm.means + (size_t)k * d;
        const double *is2 = t->u.gmm.inv_s2 + (size_t)k * d;
        double q = 0.0;
        for (size_t j = 0; j < d; ++j) {
            double z = x[j] - mu[j];
            q += z * z * is2[j];
        }
        double l = t->u.gmm.logw[k] + t->u.gmm.lognorm[k] - 0.5 * q;
        double w;
        if (l > m) {
            double scale = exp(m - l); /* 0 when m = -inf */
            s *= scale;
            if (grad)
                for (size_t j = 0; j < d; ++j)
                    grad[j] *= scale;
            m = l;
            w = 1.0;
        } else {
            w = exp(l - m);
        }
        s += w;
        if (grad)
            for (size_t j = 0; j < d; ++j)
                grad[j] += w * (x[j] - mu[j]) * is2[j];
    }
    if (!(s > 0.0) || !isfinite(m))
        return RX_ENUMERIC;
    *energy = -(m + log(s));
    if (grad)
        for (size_t j = 0; j < d; ++j)
            grad[j] /= s;
    return RX_OK;
}

static void destroy_gmm(rx__target *t)
{
    free(t->u.gmm.logw);
    free(t->u.gmm.means);
    free(t->u.gmm.inv_s2);
    free(t->u.gmm.lognorm);
}

rx_status rx__gmm_init(rx__target *t, const rx_config *cfg, rx_err *err)
{
    const int K = cfg->target.means.rows;
    const int d = cfg->target.means.cols;
    if (K < 1 || d < 1 || cfg->target.weights.n != K ||
        cfg->target.scales.rows != K || cfg->target.scales.cols != d)
        return rx__fail(err, RX_EINVAL,
                        "target: gmm needs weights[K], means[K][d], "
                        "scales[K][d] with K, d >= 1");
    t->dim = (size_t)d;
    t->eval = eval_gmm;
    t->destroy = destroy_gmm;
    t->u.gmm.n_comp = K;
    t->u.gmm.logw = malloc(sizeof(double) * (size_t)K);
    t->u.gmm.lognorm = malloc(sizeof(double) * (size_t)K);
    t->u.gmm.means = malloc(sizeof(double) * (size_t)K * (size_t)d);
    t->u.gmm.inv_s2 = malloc(sizeof(double) * (size_t)K * (size_t)d);
    if (!t->u.gmm.logw || !t->u.gmm.lognorm || !t->u.gmm.means ||
        !t->u.gmm.inv_s2)
        return rx__fail(err, RX_ENOMEM, "target: out of memory");
    double wsum = 0.0;
    for (int k = 0; k < K; ++k)
        wsum += cfg->target.weights.v[k];
    const double half_log_2pi = 0.91893853320467274178;
    for (int k = 0; k < K; ++k) {
        t->u.gmm.logw[k] = log(cfg->target.weights.v[k] / wsum);
        double ln = -(double)d * half_log_2pi;
        for (int j = 0; j < d; ++j) {
            size_t ix = (size_t)k * (size_t)d + (size_t)j;
            double sc = cfg->target.scales.v[ix];
            t->u.gmm.means[ix] = cfg->target.means.v[ix];
            t->u.gmm.inv_s2[ix] = 1.0 / (sc * sc);
            ln -= log(sc);
        }
        t->u.gmm.lognorm[k] = ln;
    }
    return RX_OK;
}
