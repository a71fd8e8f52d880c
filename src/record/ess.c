/*
 * Effective sample size, autocorrelation time and R-hat of draws, and the
 * communication barrier of a run's pairs (ess.h). The algorithms are those
 * of Vehtari, Gelman, Simpson, Carpenter and Buerkner (2021),
 * "Rank-normalization, folding, and localization: an improved R-hat for
 * assessing convergence of MCMC", Bayesian Analysis 16(2), in the form
 * ArviZ and the R package posterior give them: split every chain in two
 * halves (the middle draw of an odd chain dropped), rank-normalise with
 * the fractional offset 3/8, estimate the autocorrelations from the
 * chains' autocovariances (by FFT) and the between-chain variance, and
 * truncate their sum by Geyer's initial monotone sequence. Single-threaded;
 * the scratch and the tables of one shape of draws (rx__ess_work) serve
 * every series of that shape, so a table of many parameters computes its
 * twiddles and normal scores once and asks only for the figures it shows.
 */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "../core/sort.h"
#include "ess.h"

/* ---- scratch ------------------------------------------------------------*/

typedef struct {
    double v;
    uint64_t i;
} keyed;
_Static_assert(sizeof(keyed) == 16, "rx__sort_f64 sorts 16-byte records");

/*
 * Everything a series of w's shape (m chains of n draws, M = 2m split
 * chains of h = n / 2, S = M h, N = m n) needs besides its draws, so that
 * the tables are computed once for all the series of a table. The FFT's
 * twiddles are kept per stage (stage len at offset len / 2 - 1), for the
 * forward and the backward sign, so a stage reads them in order.
 */
struct rx__ess_work {
    int m, M;
    int64_t n, h;
    size_t S, N, L;   /* L: FFT length, a power of two >= 2h */
    double *re, *im;  /* L each */
    double *aux;      /* L: the backward transform's real part */
    uint32_t *rev;    /* L: the bit reversal of each index */
    double *acov;     /* h: autocovariance by lag, mean over the chains */
    double *rho;      /* h: autocorrelation estimates */
    double *tc;       /* L - 1: cos 2 pi k / len, per stage */
    double *ts[2];    /* L - 1 each: -sin (forward), +sin (backward) */
    double *y;        /* S: split chains */
    double *sorted;   /* N: the draws sorted */
    double *cmean;    /* M: the split chains' means */
    double *ztab;     /* S: the normal score of each whole rank */
    int have_ztab;
    keyed *keys;      /* S */
    keyed *tmp;       /* S: the sorts' scratch (16 S >= 8 N bytes) */
};

void rx__ess_work_free(rx__ess_work *w)
{
    if (!w)
        return;
    free(w->re);
    free(w->rev);
    free(w->keys);
    free(w->tmp);
    free(w);
}

rx__ess_work *rx__ess_work_new(int m, int64_t n)
{
    if (m < 1 || n < 4)
        return NULL;
    rx__ess_work *w = calloc(1, sizeof *w);
    if (!w)
        return NULL;
    w->m = m;
    w->M = 2 * m;
    w->n = n;
    w->h = n / 2;
    w->S = (size_t)w->M * (size_t)w->h;
    w->N = (size_t)m * (size_t)n;
    size_t L = 1;
    while (L < 2 * (size_t)w->h)
        L <<= 1;
    w->L = L;
    const size_t uh = (size_t)w->h;
    if ((uint64_t)L > UINT64_C(1) << 32) {
        free(w);
        return NULL;
    }
    w->re = malloc(sizeof(double) *
                   (3 * L + 2 * uh + 3 * (L - 1) + 2 * w->S + w->N +
                    (size_t)w->M));
    w->rev = malloc(sizeof(uint32_t) * L);
    w->keys = malloc(sizeof(keyed) * w->S);
    w->tmp = malloc(sizeof(keyed) * w->S);
    if (!w->re || !w->rev || !w->keys || !w->tmp) {
        rx__ess_work_free(w);
        return NULL;
    }
    w->im = w->re + L;
    w->aux = w->im + L;
    w->acov = w->aux + L;
    w->rho = w->acov + uh;
    w->tc = w->rho + uh;
    w->ts[0] = w->tc + (L - 1);
    w->ts[1] = w->ts[0] + (L - 1);
    w->y = w->ts[1] + (L - 1);
    w->ztab = w->y + w->S;
    w->sorted = w->ztab + w->S;
    w->cmean = w->sorted + w->N;
    w->rev[0] = 0;
    for (size_t i = 1, j = 0; i < L; ++i) {
        size_t bit = L >> 1;
        for (; j & bit; bit >>= 1)
            j ^= bit;
        j ^= bit;
        w->rev[i] = (uint32_t)j;
    }
    /* cos and sin of 2 pi k / L, k < L / 2, each computed directly (no
     * recurrence), so the error stays near one ulp per stage; stage len
     * takes every (L / len)-th */
    const double two_pi = 6.283185307179586476925286766559;
    for (size_t len = 2; len <= L; len <<= 1) {
        const size_t half = len >> 1, step = L / len, at = half - 1;
        for (size_t k = 0; k < half; ++k) {
            const double a = two_pi * (double)(k * step) / (double)L;
            w->tc[at + k] = cos(a);
            w->ts[0][at + k] = -1.0 * sin(a);
            w->ts[1][at + k] = 1.0 * sin(a);
        }
    }
    return w;
}

/* ---- FFT ----------------------------------------------------------------*/

/* (Built for AVX-512, AVX2 and the baseline where the compiler can choose
 * at run time: products and sums only, never contracted (C11 mode), so
 * every build gives the same bits. Not under ThreadSanitizer: the clones'
 * resolvers run before its runtime is set up.) */
#if defined(__GNUC__) && !defined(__clang__) && defined(__x86_64__) && \
    defined(__linux__) && !defined(__SANITIZE_THREAD__)
#define RX__FFT_CLONES \
    __attribute__((target_clones("avx512f", "avx2", "default")))
#else
#define RX__FFT_CLONES
#endif

/* One butterfly: (a, b) <- (a + w b, a - w b), the product as
 * (br wr - bi wi, br wi + bi wr). */
#define RX__BFLY(ar, ai, br, bi, wr, wi)                                   \
    do {                                                                   \
        const double xr_ = (br) * (wr) - (bi) * (wi);                      \
        const double xi_ = (br) * (wi) + (bi) * (wr);                      \
        (br) = (ar) - xr_;                                                 \
        (bi) = (ai) - xi_;                                                 \
        (ar) = (ar) + xr_;                                                 \
        (ai) = (ai) + xi_;                                                 \
    } while (0)

/* The butterflies of one stage (len = 2 half) over re, im of length L. */
RX__FFT_CLONES
static void fft_stage(double *restrict re, double *restrict im, size_t L,
                      size_t half, const double *restrict tc,
                      const double *restrict ts)
{
    if (half == 1) { /* one twiddle: the pairs side by side */
        const double wr = tc[0], wi = ts[0];
        for (size_t s = 0; s < L; s += 2) {
            double ar = re[s], ai = im[s], br = re[s + 1], bi = im[s + 1];
            RX__BFLY(ar, ai, br, bi, wr, wi);
            re[s] = ar;
            im[s] = ai;
            re[s + 1] = br;
            im[s + 1] = bi;
        }
        return;
    }
    if (half == 2) {
        for (size_t s = 0; s < L; s += 4)
            for (size_t k = 0; k < 2; ++k) {
                double ar = re[s + k], ai = im[s + k];
                double br = re[s + k + 2], bi = im[s + k + 2];
                RX__BFLY(ar, ai, br, bi, tc[k], ts[k]);
                re[s + k] = ar;
                im[s + k] = ai;
                re[s + k + 2] = br;
                im[s + k + 2] = bi;
            }
        return;
    }
    for (size_t b = 0; b < L; b += 2 * half) {
        double *restrict r0 = re + b, *restrict i0 = im + b;
        double *restrict r1 = r0 + half, *restrict i1 = i0 + half;
        for (size_t k = 0; k < half; ++k) {
            double ar = r0[k], ai = i0[k], br = r1[k], bi = i1[k];
            RX__BFLY(ar, ai, br, bi, tc[k], ts[k]);
            r0[k] = ar;
            i0[k] = ai;
            r1[k] = br;
            i1[k] = bi;
        }
    }
}

/* The stages of lengths lo, 2 lo, ..., hi (powers of two) over re, im of
 * length n. */
static void fft_stages(double *re, double *im, size_t n, size_t lo,
                       size_t hi, const double *tc, const double *ts)
{
    for (size_t len = lo; len <= hi; len <<= 1)
        fft_stage(re, im, n, len >> 1, tc + (len / 2 - 1), ts + (len / 2 - 1));
}

/*
 * Radix-2 complex FFT of length w->L in place, the input in bit-reversed
 * order (w->rev), forward (back 0, sign -1) or backward (back 1, sign +1,
 * unscaled). The stages up to length B run block by block, each block
 * staying in the first-level cache; the butterflies are those of the
 * stage-by-stage order, so the bits are too.
 * The backward transform's last stage computes only re[0..keep-1] (keep
 * <= L / 2): the rest is not read.
 */
static void fft(double *re, double *im, const rx__ess_work *w, int back,
                size_t keep)
{
    const size_t L = w->L, B = L < 2048 ? L : 2048;
    const size_t full = back ? L / 2 : L; /* the stages run whole */
    const double *ts = w->ts[back];
    for (size_t b = 0; b < L; b += B)
        fft_stages(re + b, im + b, B, 2, B < full ? B : full, w->tc, ts);
    if (2 * B <= full)
        fft_stages(re, im, L, 2 * B, full, w->tc, ts);
    if (back) { /* the last stage, re[0..keep-1] only */
        const size_t half = L >> 1;
        const double *tc = w->tc + (half - 1), *tb = ts + (half - 1);
        for (size_t k = 0; k < keep; ++k) {
            const double wr = tc[k], wi = tb[k];
            double xr = re[k + half] * wr - im[k + half] * wi;
            re[k] += xr;
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

/*
 * The mean over the M chains of h draws (y, chain-major) of each chain's
 * biased autocovariance (1/h) sum_i (y_i - ybar)(y_{i+t} - ybar), t < h,
 * into w->acov; the chains' means into w->cmean.
 */
static void mean_autocov(const double *y, rx__ess_work *w)
{
    const size_t L = w->L, uh = (size_t)w->h;
    const int64_t h = w->h;
    double *re = w->re, *im = w->im, *aux = w->aux;
    const uint32_t *rev = w->rev;
    memset(w->acov, 0, sizeof(double) * uh);
    for (int c = 0; c < w->M; ++c) {
        const double *yc = y + (size_t)c * uh;
        double mu = 0.0;
        for (size_t i = 0; i < uh; ++i)
            mu += yc[i];
        mu /= (double)h;
        w->cmean[c] = mu;
        /* zero-padded to L, in bit-reversed order */
        memset(re, 0, sizeof(double) * L);
        memset(im, 0, sizeof(double) * L);
        for (size_t i = 0; i < uh; ++i)
            re[rev[i]] = yc[i] - mu;
        fft(re, im, w, 0, 0);
        /* the power spectrum, back */
        for (size_t i = 0; i < L; ++i)
            aux[rev[i]] = re[i] * re[i] + im[i] * im[i];
        memset(im, 0, sizeof(double) * L);
        fft(aux, im, w, 1, uh);
        for (size_t t = 0; t < uh; ++t)
            w->acov[t] += aux[t] / ((double)L * (double)h);
    }
    for (size_t t = 0; t < uh; ++t)
        w->acov[t] /= (double)w->M;
}

/*
 * ESS of the M chains of h >= 2 draws in y: Geyer's initial positive
 * sequence of the paired autocorrelations rho_t = 1 - (W - acov_t) /
 * var_plus, made monotone, with the last positive even term as the
 * antithetic correction; tau = -1 + 2 sum rho, at least 1 / log10(M h);
 * ESS = M h / tau. NaN when the draws are constant.
 */
static double ess_split(const double *y, rx__ess_work *w)
{
    const int M = w->M;
    const int64_t h = w->h;
    mean_autocov(y, w);
    const double hd = (double)h;
    const double mean_var = w->acov[0] * hd / (hd - 1.0);
    double var_plus = mean_var * (hd - 1.0) / hd;
    if (M > 1)
        var_plus += var1(w->cmean, (size_t)M, NULL);
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

/* The normal score of the (possibly tied, so half-integer) average rank
 * r of S values: Phi^{-1}((r - 3/8) / (S + 1/4)), the upper half from
 * 1 - p = (S - r + 5/8) / (S + 1/4), so that it is exactly antisymmetric
 * in the ranks. */
static double zscore(double r, size_t S)
{
    const double den = (double)S + 0.25;
    const double lo = (r - 0.375) / den;
    return lo <= 0.5 ? probit_lower(lo)
                     : -probit_lower(((double)S - r + 0.625) / den);
}

/*
 * Rank normalisation of the S values of w->y (in place): average ranks r
 * (1-based, ties share their mean rank), then z = zscore(r). An untied
 * value's score comes from the table of whole ranks, computed on first
 * use: the same function of the same rank.
 */
static void zscale(rx__ess_work *w)
{
    const size_t S = w->S;
    double *y = w->y;
    keyed *keys = w->keys;
    if (!w->have_ztab) {
        for (size_t a = 0; a < S; ++a)
            w->ztab[a] = zscore(0.5 * ((double)(a + 1) + (double)(a + 1)), S);
        w->have_ztab = 1;
    }
    for (size_t i = 0; i < S; ++i) {
        keys[i].v = y[i];
        keys[i].i = i;
    }
    rx__sort_f64(keys, S, sizeof *keys, w->tmp); /* by v, then by i */
    for (size_t a = 0; a < S;) {
        size_t b = a + 1;
        while (b < S && keys[b].v == keys[a].v)
            ++b;
        const double z =
            b == a + 1 ? w->ztab[a]
                       : zscore(0.5 * ((double)(a + 1) + (double)b), S);
        for (size_t j = a; j < b; ++j)
            y[keys[j].i] = z;
        a = b;
    }
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

/* R-hat of the M chains of h draws in w->y: sqrt(((h-1)/h W + B/h) / W)
 * with W the mean within-chain variance and B/h the variance of the
 * chain means (into w->cmean). */
static double rhat_split(rx__ess_work *w)
{
    const int M = w->M;
    const int64_t h = w->h;
    const double hd = (double)h;
    double wsum = 0.0;
    for (int c = 0; c < M; ++c)
        wsum += var1(w->y + (size_t)c * (size_t)h, (size_t)h, &w->cmean[c]);
    const double W = wsum / M;
    const double B = hd * var1(w->cmean, (size_t)M, NULL);
    return sqrt((B / W + hd - 1.0) / hd);
}

/* ---- entry points -------------------------------------------------------*/

rx_status rx__ess_parts(rx__ess_work *w, const double *x, unsigned parts,
                        rx_ess_info *out, double *rhat)
{
    const int m = w->m;
    const int64_t n = w->n;
    const size_t S = w->S, N = w->N;
    double *y = w->y;
    *out = (rx_ess_info){NAN, NAN, NAN, NAN};
    /* the raw draws: ESS of the mean, and tau */
    split(x, m, n, y);
    if (parts & RX__ESS_MEAN) {
        out->ess_mean = ess_split(y, w);
        out->tau = (double)S / out->ess_mean;
    }
    /* bulk: rank-normalised split chains; R-hat's bulk part from the same */
    double bulk_rhat = NAN;
    if (parts & (RX__ESS_BULK | RX__ESS_RHAT)) {
        zscale(w);
        if (parts & RX__ESS_BULK)
            out->ess_bulk = ess_split(y, w);
        if (parts & RX__ESS_RHAT)
            bulk_rhat = rhat_split(w);
    }
    if (!(parts & (RX__ESS_TAIL | RX__ESS_RHAT)))
        return RX_OK;
    memcpy(w->sorted, x, sizeof(double) * N);
    rx__sort_f64(w->sorted, N, sizeof(double), w->tmp);
    /* tail: the indicators of the 5 % and 95 % quantiles of all draws */
    if (parts & RX__ESS_TAIL) {
        double tail = INFINITY;
        for (int k = 0; k < 2; ++k) {
            const double q = quantile_sorted(w->sorted, N, k ? 0.95 : 0.05);
            split(x, m, n, y);
            for (size_t i = 0; i < S; ++i)
                y[i] = y[i] <= q ? 1.0 : 0.0;
            double e = ess_split(y, w);
            tail = isnan(e) || isnan(tail) ? NAN : e < tail ? e : tail;
        }
        out->ess_tail = tail;
    }
    /* R-hat: the larger of the bulk and the folded, |x - median of all
     * draws|, split and rank-normalised */
    if (parts & RX__ESS_RHAT) {
        const double med = quantile_sorted(w->sorted, N, 0.5);
        for (int c = 0; c < m; ++c) {
            const double *xc = x + (size_t)c * (size_t)n;
            const size_t h = (size_t)w->h;
            double *y0 = y + (size_t)(2 * c) * h, *y1 = y0 + h;
            for (size_t i = 0; i < h; ++i) {
                y0[i] = fabs(xc[i] - med);
                y1[i] = fabs(xc[(size_t)n - h + i] - med);
            }
        }
        zscale(w);
        const double folded = rhat_split(w);
        *rhat = isnan(bulk_rhat) || isnan(folded) ? NAN
                : bulk_rhat > folded              ? bulk_rhat
                                                  : folded;
    }
    return RX_OK;
}

rx_status rx__ess(const double *x, int m, int64_t n, rx_ess_info *out)
{
    rx__ess_work *w = rx__ess_work_new(m, n);
    if (!w)
        return RX_ENOMEM;
    rx_status st = rx__ess_parts(
        w, x, RX__ESS_MEAN | RX__ESS_BULK | RX__ESS_TAIL, out, NULL);
    rx__ess_work_free(w);
    return st;
}

rx_status rx__rhat(const double *x, int m, int64_t n, double *rhat)
{
    rx__ess_work *w = rx__ess_work_new(m, n);
    if (!w)
        return RX_ENOMEM;
    rx_ess_info unused;
    rx_status st = rx__ess_parts(w, x, RX__ESS_RHAT, &unused, rhat);
    rx__ess_work_free(w);
    return st;
}

double rx__barrier_lambda(const rx_pair_stats *pairs, int n_pairs)
{
    double lambda = 0.0;
    int seen = 0;
    for (int p = 0; p < n_pairs; ++p) {
        if (pairs[p].evaluated <= 0)
            continue;
        double r = 1.0 - pairs[p].accept_sum / (double)pairs[p].evaluated;
        lambda += r > 0.0 ? r : 0.0;
        seen = 1;
    }
    return seen ? lambda : NAN;
}

int rx__barrier_chains(double lambda)
{
    if (!(lambda >= 0.0))
        return 0;
    if (lambda > 1e6)
        lambda = 1e6;
    int n = (int)ceil(2.0 * lambda) + 1;
    return n < 2 ? 2 : n;
}

/* ---- public wrappers ----------------------------------------------------*/

/* The arguments every draw diagnostic needs; RX_OK or RX_EINVAL with the
 * message naming the function and the argument. */
static rx_status check_draws(const char *fn, const double *x, int m,
                             int min_m, int64_t n, const void *out,
                             rx_err *err)
{
    if (!x || !out)
        return rx__fail(err, RX_EINVAL, "%s: %s is NULL", fn,
                        !x ? "x" : "out");
    if (m < min_m)
        return rx__fail(err, RX_EINVAL,
                        "%s: n_chains = %d; at least %d needed", fn, m,
                        min_m);
    if (n < 4)
        return rx__fail(err, RX_EINVAL,
                        "%s: n_draws = %lld; at least 4 needed", fn,
                        (long long)n);
    if ((double)m * (double)n > 4e9)
        return rx__fail(err, RX_EINVAL,
                        "%s: %d x %lld draws: more than 4e9", fn, m,
                        (long long)n);
    const size_t N = (size_t)m * (size_t)n;
    for (size_t i = 0; i < N; ++i)
        if (!isfinite(x[i]))
            return rx__fail(err, RX_EINVAL,
                            "%s: x[%zu] (chain %zu, draw %zu) is not finite",
                            fn, i, i / (size_t)n, i % (size_t)n);
    return RX_OK;
}

rx_status rx_ess(const double *x, int n_chains, int64_t n_draws,
                 rx_ess_info *out, rx_err *err)
{
    rx_status st = check_draws("rx_ess", x, n_chains, 1, n_draws, out, err);
    if (st != RX_OK)
        return st;
    st = rx__ess(x, n_chains, n_draws, out);
    return st == RX_OK ? st
                       : rx__fail(err, st, "rx_ess: out of memory");
}

rx_status rx_rhat(const double *x, int n_chains, int64_t n_draws,
                  double *rhat, rx_err *err)
{
    rx_status st =
        check_draws("rx_rhat", x, n_chains, 2, n_draws, rhat, err);
    if (st != RX_OK)
        return st;
    st = rx__rhat(x, n_chains, n_draws, rhat);
    return st == RX_OK ? st
                       : rx__fail(err, st, "rx_rhat: out of memory");
}

rx_status rx_comm_barrier(const rx_pair_stats *pairs, int n_pairs,
                          double *lambda, int *n_chains, rx_err *err)
{
    if (!pairs || !lambda)
        return rx__fail(err, RX_EINVAL, "rx_comm_barrier: %s is NULL",
                        !pairs ? "pairs" : "lambda");
    if (n_pairs < 1)
        return rx__fail(err, RX_EINVAL,
                        "rx_comm_barrier: n_pairs = %d; at least 1 needed",
                        n_pairs);
    *lambda = rx__barrier_lambda(pairs, n_pairs);
    if (n_chains)
        *n_chains = rx__barrier_chains(*lambda);
    return RX_OK;
}
