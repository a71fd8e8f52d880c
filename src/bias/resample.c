/*
 * Resampling of importance-weighted samples into an unweighted set
 * (csgld.md 2.5): residual-stochastic rounding and systematic resampling,
 * on log weights, with the effective sample size. The caller hands in a
 * seeded counter-based stream, so the set is a function of (weights,
 * seed).
 */
#include <math.h>

#include "bias.h"

/* max log weight, sum w and sum w^2 with w = exp(logw - max): RX_OK, or
 * RX_EINVAL when n < 1, a log weight is NaN or +inf or all are -inf. */
static rx_status weight_sums(const double *logw, int64_t n, double *mx,
                             double *s1, double *s2, rx_err *err)
{
    if (n < 1)
        return rx__fail(err, RX_EINVAL, "resampling: no samples");
    double m = -INFINITY;
    for (int64_t i = 0; i < n; ++i) {
        if (isnan(logw[i]) || logw[i] == INFINITY)
            return rx__fail(err, RX_EINVAL, "resampling: log weight %lld "
                            "is %g", (long long)i, logw[i]);
        if (logw[i] > m)
            m = logw[i];
    }
    if (m == -INFINITY)
        return rx__fail(err, RX_EINVAL, "resampling: every weight is 0");
    double a = 0.0, b = 0.0;
    for (int64_t i = 0; i < n; ++i) {
        double w = exp(logw[i] - m);
        a += w;
        b += w * w;
    }
    *mx = m;
    *s1 = a;
    *s2 = b;
    return RX_OK;
}

double rx__weights_ess(const double *logw, int64_t n)
{
    double m, a, b;
    if (weight_sums(logw, n, &m, &a, &b, NULL) != RX_OK)
        return 0.0;
    return a * a / b;
}

rx_status rx__resample_residual(const double *logw, int64_t n,
                                rx__stream *s, int64_t *copies, double *ess,
                                rx_err *err)
{
    double m, a, b;
    rx_status st = weight_sums(logw, n, &m, &a, &b, err);
    if (st != RX_OK)
        return st;
    const double scale = (double)n / a; /* r_i = w_i / mean(w) */
    for (int64_t i = 0; i < n; ++i) {
        double r = exp(logw[i] - m) * scale;
        double fl = floor(r);
        double u = rx__uniform(s); /* drawn for every sample */
        copies[i] = (int64_t)fl + (u < r - fl ? 1 : 0);
    }
    if (ess)
        *ess = a * a / b;
    return RX_OK;
}

/* How many of the points u0 + t, t = 0..M-1, lie below x. */
static int64_t below(double x, double u0, int64_t M)
{
    double c = ceil(x - u0);
    if (!(c > 0.0))
        return 0;
    return c >= (double)M ? M : (int64_t)c;
}

rx_status rx__resample_systematic(const double *logw, int64_t n, int64_t M,
                                  rx__stream *s, int64_t *copies,
                                  double *ess, rx_err *err)
{
    double m, a, b;
    rx_status st = weight_sums(logw, n, &m, &a, &b, err);
    if (st != RX_OK)
        return st;
    if (M < 1)
        return rx__fail(err, RX_EINVAL, "resampling: %lld draws",
                        (long long)M);
    const double u0 = rx__uniform(s), scale = (double)M / a;
    double cum = 0.0;
    int64_t prev = 0;
    for (int64_t i = 0; i < n; ++i) {
        cum += exp(logw[i] - m);
        /* the last edge is M exactly, whatever the rounding of cum */
        int64_t now = i == n - 1 ? M : below(cum * scale, u0, M);
        copies[i] = now - prev;
        prev = now;
    }
    if (ess)
        *ess = a * a / b;
    return RX_OK;
}
