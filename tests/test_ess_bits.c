/*
 * The ESS, tau and R-hat of rx__ess_parts (one work per shape, the parts
 * asked for; src/record/ess.c) against the straightforward form they
 * replaced: every split chain through its own FFTs, stage by stage, and
 * qsort for the ranks. The faster form must give the same bits on every
 * case: AR(1) draws, ties, signed zeros, constant draws, float-rounded
 * draws, odd and small n, 1 to 4 chains, every part alone and together.
 * (The reference below is the earlier src/record/ess.c, kept verbatim.)
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../src/record/ess.h"
#include "check.h"

/* ======== the reference ================================================ */
/* ---- FFT ----------------------------------------------------------------*/

/* In-place radix-2 complex FFT of length L (a power of two), forward
 * (sign -1) or backward (sign +1, unscaled). wc, ws: cos and sin of
 * 2 pi k / L, k < L / 2, each computed directly (no recurrence), so the
 * error stays near one ulp per stage; tc, ts: L / 2 each of scratch for
 * a stage's twiddles, contiguous. */
static void fft(double *re, double *im, size_t L, int sign, const double *wc,
                const double *ws, double *tc, double *ts)
{
    for (size_t i = 1, j = 0; i < L; ++i) {
        size_t bit = L >> 1;
        for (; j & bit; bit >>= 1)
            j ^= bit;
        j ^= bit;
        if (i < j) {
            double t = re[i];
            re[i] = re[j];
            re[j] = t;
            t = im[i];
            im[i] = im[j];
            im[j] = t;
        }
    }
    for (size_t len = 2; len <= L; len <<= 1) {
        const size_t half = len >> 1, step = L / len;
        for (size_t k = 0; k < half; ++k) {
            tc[k] = wc[k * step];
            ts[k] = (double)sign * ws[k * step];
        }
        for (size_t b = 0; b < L; b += len)
            for (size_t k = 0; k < half; ++k) {
                const double wr = tc[k], wi = ts[k];
                const size_t s = b + k, u = s + half;
                double xr = re[u] * wr - im[u] * wi;
                double xi = re[u] * wi + im[u] * wr;
                re[u] = re[s] - xr;
                im[u] = im[s] - xi;
                re[s] += xr;
                im[s] += xi;
            }
    }
}

/* ---- the ESS of split chains --------------------------------------------*/

/* The sample variance (divisor n - 1) of v[0..n-1], n >= 2; its mean into
 * *mean when not NULL. */
static double var1(const double *v, size_t n, double *mean)
{
    double mu = 0.0, ss = 0.0;
    for (size_t i = 0; i < n; ++i)
        mu += v[i];
    mu /= (double)n;
    for (size_t i = 0; i < n; ++i)
        ss += (v[i] - mu) * (v[i] - mu);
    if (mean)
        *mean = mu;
    return ss / (double)(n - 1);
}

typedef struct {
    size_t L;         /* FFT length: a power of two >= 2h */
    double *re, *im;  /* L each */
    double *acov;     /* h: autocovariance by lag, mean over the chains */
    double *rho;      /* h: autocorrelation estimates */
    double *wc, *ws;  /* L / 2 each: the FFT's twiddles */
    double *tc, *ts;  /* L / 2 each: one stage's twiddles */
} ess_work;

static void work_free(ess_work *w)
{
    free(w->re);
    w->re = w->im = w->acov = w->rho = w->wc = w->ws = w->tc = w->ts =
        NULL;
}

static int work_init(ess_work *w, int64_t h)
{
    size_t L = 1;
    while (L < 2 * (size_t)h)
        L <<= 1;
    w->L = L;
    w->re = malloc(sizeof(double) * (4 * L + 2 * (size_t)h));
    if (!w->re)
        return -1;
    w->im = w->re + L;
    w->acov = w->im + L;
    w->rho = w->acov + h;
    w->wc = w->rho + h;
    w->ws = w->wc + L / 2;
    w->tc = w->ws + L / 2;
    w->ts = w->tc + L / 2;
    const double two_pi = 6.283185307179586476925286766559;
    for (size_t k = 0; k < L / 2; ++k) {
        w->wc[k] = cos(two_pi * (double)k / (double)L);
        w->ws[k] = sin(two_pi * (double)k / (double)L);
    }
    return 0;
}

/*
 * The mean over M chains of h draws (y, chain-major) of each chain's
 * biased autocovariance (1/h) sum_i (y_i - ybar)(y_{i+t} - ybar), t < h,
 * into w->acov; the chains' means into cmean[M].
 */
static void mean_autocov(const double *y, int M, int64_t h, ess_work *w,
                         double *cmean)
{
    const size_t L = w->L, uh = (size_t)h;
    memset(w->acov, 0, sizeof(double) * uh);
    for (int c = 0; c < M; ++c) {
        const double *yc = y + (size_t)c * uh;
        double mu = 0.0;
        for (size_t i = 0; i < uh; ++i)
            mu += yc[i];
        mu /= (double)h;
        cmean[c] = mu;
        for (size_t i = 0; i < L; ++i) {
            w->re[i] = i < uh ? yc[i] - mu : 0.0;
            w->im[i] = 0.0;
        }
        fft(w->re, w->im, L, -1, w->wc, w->ws, w->tc, w->ts);
        for (size_t i = 0; i < L; ++i) {
            w->re[i] = w->re[i] * w->re[i] + w->im[i] * w->im[i];
            w->im[i] = 0.0;
        }
        fft(w->re, w->im, L, +1, w->wc, w->ws, w->tc, w->ts);
        for (size_t t = 0; t < uh; ++t)
            w->acov[t] += w->re[t] / ((double)L * (double)h);
    }
    for (size_t t = 0; t < uh; ++t)
        w->acov[t] /= (double)M;
}

/*
 * ESS of M chains of h >= 2 draws: Geyer's initial positive sequence of
 * the paired autocorrelations rho_t = 1 - (W - acov_t) / var_plus, made
 * monotone, with the last positive even term as the antithetic
 * correction; tau = -1 + 2 sum rho, at least 1 / log10(M h); ESS = M h /
 * tau. NaN when the draws are constant.
 */
static double ess_split(const double *y, int M, int64_t h, ess_work *w,
                        double *cmean)
{
    mean_autocov(y, M, h, w, cmean);
    const double hd = (double)h;
    const double mean_var = w->acov[0] * hd / (hd - 1.0);
    double var_plus = mean_var * (hd - 1.0) / hd;
    if (M > 1)
        var_plus += var1(cmean, (size_t)M, NULL);
    double *rho = w->rho;
    memset(rho, 0, sizeof(double) * (size_t)h);
    double even = 1.0;
    double odd = 1.0 - (mean_var - w->acov[1]) / var_plus;
    rho[0] = 1.0;
    rho[1] = odd;
    int64_t t = 1;
    while (t < h - 3 && even + odd > 0.0) {
        even = 1.0 - (mean_var - w->acov[t + 1]) / var_plus;
        odd = 1.0 - (mean_var - w->acov[t + 2]) / var_plus;
        if (even + odd >= 0.0) {
            rho[t + 1] = even;
            rho[t + 2] = odd;
        }
        t += 2;
    }
    const int64_t max_t = t - 2;
    if (even > 0.0)
        rho[max_t + 1] = even;
    for (t = 1; t <= max_t - 2; t += 2)
        if (rho[t + 1] + rho[t + 2] > rho[t - 1] + rho[t]) {
            rho[t + 1] = 0.5 * (rho[t - 1] + rho[t]);
            rho[t + 2] = rho[t + 1];
        }
    double sum = 0.0;
    for (int64_t s = 0; s <= max_t; ++s)
        sum += rho[s];
    const double total = (double)M * hd;
    double tau = -1.0 + 2.0 * sum + rho[max_t + 1];
    const double floor_tau = 1.0 / log10(total);
    if (tau < floor_tau)
        tau = floor_tau;
    double ess = total / tau;
    for (int64_t s = 0; s < h; ++s)
        if (isnan(rho[s]))
            return NAN;
    return isnan(var_plus) || var_plus <= 0.0 ? NAN : ess;
}

/* ---- splitting, ranks, quantiles ----------------------------------------*/

/* m chains of n draws into 2m chains of h = floor(n / 2): the first h
 * and the last h draws of each (the middle one of an odd n dropped). */
static void split(const double *x, int m, int64_t n, double *y)
{
    const size_t h = (size_t)(n / 2), un = (size_t)n;
    for (int c = 0; c < m; ++c) {
        const double *xc = x + (size_t)c * un;
        memcpy(y + (size_t)(2 * c) * h, xc, sizeof(double) * h);
        memcpy(y + (size_t)(2 * c + 1) * h, xc + un - h, sizeof(double) * h);
    }
}

typedef struct {
    double v;
    size_t i;
} keyed;

static int keyed_cmp(const void *a, const void *b)
{
    const keyed *p = a, *q = b;
    if (p->v < q->v)
        return -1;
    if (p->v > q->v)
        return 1;
    return p->i < q->i ? -1 : p->i > q->i;
}

/* Phi^{-1}(p) for p in (0, 1/2]: Abramowitz and Stegun 26.2.23 (error
 * below 4.5e-4) refined by Halley steps on erfc to full precision. */
static double probit_lower(double p)
{
    const double t = sqrt(-2.0 * log(p));
    double x = -(t - (2.515517 + t * (0.802853 + t * 0.010328)) /
                         (1.0 + t * (1.432788 + t * (0.189269 +
                                                     t * 0.001308))));
    const double s2pi = 2.506628274631000502415765284811;
    for (int it = 0; it < 4; ++it) {
        double e = 0.5 * erfc(-x / 1.414213562373095048801688724210) - p;
        double u = e * s2pi * exp(0.5 * x * x);
        x -= u / (1.0 + 0.5 * x * u);
    }
    return x;
}

/*
 * Rank normalisation of S values (in place): average ranks r (1-based,
 * ties share their mean rank), then z = Phi^{-1}((r - 3/8) / (S + 1/4)).
 * The upper half is computed from 1 - p = (S - r + 5/8) / (S + 1/4), so
 * z is exactly antisymmetric in the ranks. keys: S entries of scratch.
 */
static void zscale(double *y, size_t S, keyed *keys)
{
    for (size_t i = 0; i < S; ++i) {
        keys[i].v = y[i];
        keys[i].i = i;
    }
    qsort(keys, S, sizeof *keys, keyed_cmp);
    const double den = (double)S + 0.25;
    for (size_t a = 0; a < S;) {
        size_t b = a + 1;
        while (b < S && keys[b].v == keys[a].v)
            ++b;
        const double r = 0.5 * ((double)(a + 1) + (double)b);
        const double lo = (r - 0.375) / den;
        const double z = lo <= 0.5
                             ? probit_lower(lo)
                             : -probit_lower(((double)S - r + 0.625) / den);
        for (size_t j = a; j < b; ++j)
            y[keys[j].i] = z;
        a = b;
    }
}

static int dbl_cmp(const void *a, const void *b)
{
    double p = *(const double *)a, q = *(const double *)b;
    return (p > q) - (p < q);
}

/* The q-quantile of sorted values v[0..S-1], linear interpolation between
 * order statistics (numpy's default, Hyndman and Fan type 7). */
static double quantile_sorted(const double *v, size_t S, double q)
{
    double hpos = (double)(S - 1) * q;
    size_t lo = (size_t)floor(hpos);
    if (lo + 1 >= S)
        return v[S - 1];
    return v[lo] + (hpos - (double)lo) * (v[lo + 1] - v[lo]);
}

/* R-hat of M chains of h draws: sqrt(((h-1)/h W + B/h) / W) with W the
 * mean within-chain variance and B/h the variance of the chain means. */
static double rhat_split(const double *y, int M, int64_t h)
{
    const double hd = (double)h;
    double wsum = 0.0;
    double *means = malloc(sizeof(double) * (size_t)M);
    if (!means)
        return NAN;
    for (int c = 0; c < M; ++c)
        wsum += var1(y + (size_t)c * (size_t)h, (size_t)h, &means[c]);
    const double W = wsum / M;
    const double B = hd * var1(means, (size_t)M, NULL);
    free(means);
    return sqrt((B / W + hd - 1.0) / hd);
}

/* ---- entry points -------------------------------------------------------*/

static rx_status ref_ess(const double *x, int m, int64_t n, rx_ess_info *out)
{
    const int M = 2 * m;
    const int64_t h = n / 2;
    const size_t S = (size_t)M * (size_t)h, N = (size_t)m * (size_t)n;
    ess_work w = {0};
    double *y = malloc(sizeof(double) * (S + N + (size_t)M));
    keyed *keys = malloc(sizeof(keyed) * S);
    if (!y || !keys || work_init(&w, h) != 0) {
        free(y);
        free(keys);
        work_free(&w);
        return RX_ENOMEM;
    }
    double *sorted = y + S, *cmean = sorted + N;
    /* the raw draws: ESS of the mean, and tau */
    split(x, m, n, y);
    out->ess_mean = ess_split(y, M, h, &w, cmean);
    out->tau = (double)S / out->ess_mean;
    /* bulk: rank-normalised split chains */
    zscale(y, S, keys);
    out->ess_bulk = ess_split(y, M, h, &w, cmean);
    /* tail: the indicators of the 5 % and 95 % quantiles of all draws */
    memcpy(sorted, x, sizeof(double) * N);
    qsort(sorted, N, sizeof(double), dbl_cmp);
    double tail = INFINITY;
    for (int k = 0; k < 2; ++k) {
        const double q = quantile_sorted(sorted, N, k ? 0.95 : 0.05);
        split(x, m, n, y);
        for (size_t i = 0; i < S; ++i)
            y[i] = y[i] <= q ? 1.0 : 0.0;
        double e = ess_split(y, M, h, &w, cmean);
        tail = isnan(e) || isnan(tail) ? NAN : e < tail ? e : tail;
    }
    out->ess_tail = tail;
    free(y);
    free(keys);
    work_free(&w);
    return RX_OK;
}

static rx_status ref_rhat(const double *x, int m, int64_t n, double *rhat)
{
    const int M = 2 * m;
    const int64_t h = n / 2;
    const size_t S = (size_t)M * (size_t)h, N = (size_t)m * (size_t)n;
    double *y = malloc(sizeof(double) * (S + N));
    keyed *keys = malloc(sizeof(keyed) * S);
    if (!y || !keys) {
        free(y);
        free(keys);
        return RX_ENOMEM;
    }
    double *fold = y + S;
    split(x, m, n, y);
    zscale(y, S, keys);
    const double bulk = rhat_split(y, M, h);
    /* folded: |x - median of all draws| */
    memcpy(fold, x, sizeof(double) * N);
    qsort(fold, N, sizeof(double), dbl_cmp);
    const double med = quantile_sorted(fold, N, 0.5);
    for (size_t i = 0; i < N; ++i)
        fold[i] = fabs(x[i] - med);
    split(fold, m, n, y);
    zscale(y, S, keys);
    const double folded = rhat_split(y, M, h);
    *rhat = isnan(bulk) || isnan(folded) ? NAN
                                         : bulk > folded ? bulk : folded;
    free(y);
    free(keys);
    return RX_OK;
}


/* ======== the test ===================================================== */

static uint64_t lcg = 7;
static double uni(void)
{
    lcg = lcg * 6364136223846793005ULL + 1442695040888963407ULL;
    return ((double)(lcg >> 11) + 0.5) / 9007199254740992.0;
}

static int same(double a, double b)
{
    return memcmp(&a, &b, sizeof a) == 0 || (isnan(a) && isnan(b));
}

int main(void)
{
    static const int64_t ns[] = {4,  5,   6,    7,    8,    9,    13,
                                 16, 17,  31,   64,   100,  257,  1000,
                                 1023, 1025, 4097, 5000, 25001};
    int cases = 0, differ = 0;
    for (int m = 1; m <= 4; ++m)
        for (size_t ni = 0; ni < sizeof ns / sizeof ns[0]; ++ni)
            for (int kind = 0; kind < 6; ++kind) {
                const int64_t n = ns[ni];
                const size_t N = (size_t)m * (size_t)n;
                double *x = malloc(sizeof(double) * N), v = 0.0;
                if (!x) {
                    CHECK(0);
                    return check_done();
                }
                for (size_t i = 0; i < N; ++i) {
                    const double u = uni();
                    v = 0.8 * v + (u - 0.5);
                    x[i] = kind == 0   ? v
                           : kind == 1 ? floor(v * 3.0) /* ties */
                           : kind == 2 ? (u < 0.5 ? 0.0 : -0.0)
                           : kind == 3 ? 1.5 /* constant */
                           : kind == 4 ? (double)(float)v
                                       : (i % 7 == 0 ? -0.0
                                                     : floor(v * 2.0) * 0.5);
                }
                rx_ess_info a = {NAN, NAN, NAN, NAN}, b = a, c = a;
                double ra = NAN, rb = NAN, rc = NAN;
                CHECK(ref_ess(x, m, n, &a) == RX_OK);
                CHECK(ref_rhat(x, m, n, &ra) == RX_OK);
                rx__ess_work *w = rx__ess_work_new(m, n);
                CHECK(w != NULL);
                if (!w) {
                    free(x);
                    break;
                }
                /* all parts at once; then each alone, the work reused */
                CHECK(rx__ess_parts(w, x, RX__ESS_MEAN | RX__ESS_BULK |
                                              RX__ESS_TAIL | RX__ESS_RHAT,
                                    &b, &rb) == RX_OK);
                int bad = !same(a.ess_mean, b.ess_mean) ||
                          !same(a.tau, b.tau) ||
                          !same(a.ess_bulk, b.ess_bulk) ||
                          !same(a.ess_tail, b.ess_tail) || !same(ra, rb);
                CHECK(rx__ess_parts(w, x, RX__ESS_TAIL, &c, NULL) == RX_OK);
                bad |= !same(a.ess_tail, c.ess_tail) || !isnan(c.ess_bulk);
                CHECK(rx__ess_parts(w, x, RX__ESS_RHAT, &c, &rc) == RX_OK);
                bad |= !same(ra, rc) || !isnan(c.ess_mean);
                CHECK(rx__ess_parts(w, x, RX__ESS_BULK, &c, NULL) == RX_OK);
                bad |= !same(a.ess_bulk, c.ess_bulk);
                CHECK(rx__ess_parts(w, x, RX__ESS_MEAN, &c, NULL) == RX_OK);
                bad |= !same(a.ess_mean, c.ess_mean) || !same(a.tau, c.tau);
                rx__ess_work_free(w);
                /* and the wrappers */
                CHECK(rx__ess(x, m, n, &c) == RX_OK);
                CHECK(rx__rhat(x, m, n, &rc) == RX_OK);
                bad |= !same(a.ess_bulk, c.ess_bulk) || !same(ra, rc);
                ++cases;
                if (bad) {
                    ++differ;
                    printf("differs: m %d n %lld kind %d: mean %.17g / "
                           "%.17g, bulk %.17g / %.17g, tail %.17g / %.17g, "
                           "rhat %.17g / %.17g\n",
                           m, (long long)n, kind, a.ess_mean, b.ess_mean,
                           a.ess_bulk, b.ess_bulk, a.ess_tail, b.ess_tail,
                           ra, rb);
                }
                free(x);
            }
    printf("%d cases, %d differ from the reference\n", cases, differ);
    CHECK(differ == 0);
    return check_done();
}
