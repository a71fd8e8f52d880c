/*
 * The stepping-stone estimate of log Z and its batch-means standard error
 * (logz.h). Each ratio is averaged with its largest exponent factored
 * out, so exp never overflows whatever the scale of U_like.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "ess.h"
#include "logz.h"

/* Sample variance (ddof 1) of x[0..n-1]. */
static double var1(const double *x, int n)
{
    double m = 0.0, q = 0.0;
    for (int i = 0; i < n; ++i) {
        double d = x[i] - m;
        m += d / (i + 1);
        q += d * (x[i] - m);
    }
    return n > 1 ? q / (n - 1) : NAN;
}

rx_status rx__logz_estimate(const double *u, int64_t n, int P,
                            const double *beta, double *terms,
                            double *term_se, double *est, double *se,
                            int *batches)
{
    *est = *se = NAN;
    *batches = 0;
    if (n < 1 || P < 2)
        return RX_EINVAL;
    const int np = P - 1;
    const int B = n >= 4 ? (int)floor(sqrt((double)n)) : 0;
    const int64_t bl = B > 0 ? n / B : 0, r0 = n - (int64_t)B * bl;
    double *shift = malloc(sizeof(double) * (size_t)np);
    double *mb = malloc(sizeof(double) * (size_t)np * (size_t)(B + 1));
    double *z = malloc(sizeof(double) * (size_t)(B + 1));
    if (!shift || !mb || !z) {
        free(shift);
        free(mb);
        free(z);
        return RX_ENOMEM;
    }
    rx_status st = RX_OK;
    /* the largest exponent of each pair */
    for (int p = 0; p < np; ++p) {
        const double db = beta[p] - beta[p + 1];
        double m = -INFINITY;
        for (int64_t r = 0; r < n; ++r) {
            const double a = -db * u[r * P + p + 1];
            if (!isfinite(a))
                st = RX_ENUMERIC;
            if (a > m)
                m = a;
        }
        shift[p] = m;
    }
    double total = 0.0;
    for (int p = 0; p < np && st == RX_OK; ++p) {
        const double db = beta[p] - beta[p + 1];
        double s = 0.0, sb = 0.0; /* all rows; the batched ones */
        for (int64_t r = 0; r < n; ++r) {
            const double w = exp(-db * u[r * P + p + 1] - shift[p]);
            s += w;
            if (B > 0 && r >= r0) {
                sb += w;
                const int64_t j = r - r0;
                if ((j + 1) % bl == 0) {
                    mb[(size_t)(j / bl) * (size_t)np + (size_t)p] =
                        sb / (double)bl;
                    sb = 0.0;
                }
            }
        }
        terms[p] = shift[p] + log(s / (double)n);
        total += terms[p];
    }
    if (st == RX_OK)
        *est = total;
    for (int p = 0; p < np; ++p)
        term_se[p] = NAN;
    if (st == RX_OK && B >= 2) {
        /* m_p: the mean of the batch means; the ratios m_pb / m_p */
        for (int p = 0; p < np; ++p) {
            double m = 0.0;
            for (int b = 0; b < B; ++b)
                m += mb[(size_t)b * np + p];
            m /= B;
            for (int b = 0; b < B; ++b)
                mb[(size_t)b * np + p] /= m;
            for (int b = 0; b < B; ++b)
                z[b] = mb[(size_t)b * np + p];
            term_se[p] = sqrt(var1(z, B) / B);
        }
        for (int b = 0; b < B; ++b) {
            double zb = 0.0;
            for (int p = 0; p < np; ++p)
                zb += mb[(size_t)b * np + p];
            z[b] = zb;
        }
        *se = sqrt(var1(z, B) / B);
        *batches = B;
    }
    free(shift);
    free(mb);
    free(z);
    return st;
}

rx_status rx__logz_ref_check(const double *u0, int64_t n, double mean,
                             double sd, rx__logz_ref *out)
{
    out->want = mean;
    out->want_sd = sd;
    out->mean = out->sd = out->ess = out->z = NAN;
    if (n < 4)
        return RX_ENUMERIC;
    double m = 0.0, q = 0.0;
    for (int64_t i = 0; i < n; ++i) {
        if (!isfinite(u0[i]))
            return RX_ENUMERIC;
        const double d = u0[i] - m;
        m += d / (double)(i + 1);
        q += d * (u0[i] - m);
    }
    out->mean = m;
    out->sd = sqrt(q / (double)(n - 1));
    const double off = m - mean;
    if (!(out->sd > 0.0)) { /* never moved */
        out->z = off == 0.0 ? 0.0 : copysign(INFINITY, off);
        return RX_OK;
    }
    rx_ess_info e;
    rx_status st = rx__ess(u0, 1, n, &e);
    if (st != RX_OK)
        return st;
    out->ess = e.ess_mean < (double)n ? e.ess_mean : (double)n;
    out->z = off / (out->sd / sqrt(out->ess));
    return RX_OK;
}

/* The Kish ESS (sum w)^2 / sum w^2 of the weights exp(a u[r P + q]),
 * r < n, the largest factored out. */
static double kish(const double *u, int64_t n, int P, int q, double a)
{
    double m = -INFINITY;
    for (int64_t r = 0; r < n; ++r)
        if (a * u[r * P + q] > m)
            m = a * u[r * P + q];
    double s = 0.0, s2 = 0.0;
    for (int64_t r = 0; r < n; ++r) {
        const double w = exp(a * u[r * P + q] - m);
        s += w;
        s2 += w * w;
    }
    return s * s / s2;
}

rx_status rx__logz_overlap(const double *u, int64_t n, int P,
                           const double *beta, double *ess, double *acc)
{
    if (n < 1 || P < 2)
        return RX_EINVAL;
    for (int p = 0; p < P - 1; ++p)
        ess[p] = acc[p] = NAN;
    for (int64_t i = 0; i < n * P; ++i)
        if (!isfinite(u[i]))
            return RX_ENUMERIC;
    for (int p = 0; p < P - 1; ++p) {
        const double db = beta[p] - beta[p + 1];
        ess[p] = kish(u, n, P, p + 1, -db);
        double a = 0.0;
        for (int64_t r = 0; r < n; ++r) {
            const double x = db * (u[r * P + p] - u[r * P + p + 1]);
            a += x >= 0.0 ? 1.0 : exp(x);
        }
        acc[p] = a / (double)n;
    }
    return RX_OK;
}

const char *rx__logz_overlap_check(const double *u, int64_t n, int P,
                                   const double *beta, char *msg,
                                   size_t cap)
{
    const size_t np = (size_t)(P > 1 ? P - 1 : 1);
    double *ess = malloc(sizeof(double) * 2 * np);
    if (!ess)
        return "out of memory for the check of the neighbours' overlap";
    double *acc = ess + np;
    const char *why = NULL;
    if (rx__logz_overlap(u, n, P, beta, ess, acc) == RX_OK) {
        int wa = -1, we = -1, low = 0; /* the worst pairs; how many fail */
        for (int p = 0; p < P - 1; ++p) {
            const int a = acc[p] < RX__LOGZ_OVERLAP_ACC;
            const int e = ess[p] < RX__LOGZ_OVERLAP_ESS;
            low += a || e;
            if (a && (wa < 0 || acc[p] < acc[wa]))
                wa = p;
            if (e && (we < 0 || ess[p] < ess[we]))
                we = p;
        }
        const int w = wa >= 0 ? wa : we;
        if (w >= 0) {
            snprintf(msg, cap,
                     "neighbouring positions do not overlap: positions %d "
                     "and %d (beta %.4g and %.4g) would swap with mean "
                     "probability %.2g, and the stepping-stone weights of "
                     "their term have an ESS of %.3g in %lld rows (%d of "
                     "%d pairs below %.2g or %.0f): log Z can be off by "
                     "far more than its se shows (add positions between "
                     "those betas, or choose a reference closer to the "
                     "target)",
                     w + 1, w + 2, beta[w], beta[w + 1], acc[w], ess[w],
                     (long long)n, low, P - 1, RX__LOGZ_OVERLAP_ACC,
                     RX__LOGZ_OVERLAP_ESS);
            why = msg;
        }
    }
    free(ess);
    return why;
}
