/*
 * The noise-aware logistic exchange test of the replica-exchange
 * Nose-Hoover paper (renhd.md 4.2-4.5) on energies whose noise variance is
 * known: injected Gaussian noise of sd s = target.energy_noise_sd on each
 * energy, so that dE~ = dbeta (U~_a - U~_b), with erratum E1's sign (the
 * difference of the energies, not of the log-likelihoods), has noise of
 * variance v = 2 dbeta^2 s^2 about dE. The test adds a Gaussian top-up of
 * variance sigma*^2 - v and a draw X_C of the correction distribution
 * q_C, and accepts iff dE~ + z_N* + X_C > 0: since the noise and the top-up
 * together are N(0, sigma*^2) and q_C * N(0, sigma*^2) is the logistic
 * density (eq. 6), the swap is accepted with Barker's g(dE) (eq. 19), to
 * the table's accuracy (about 3e-4 at the defaults), whatever the noise.
 *
 * q_C is the truncated series of eq. (7): sum over n = 0..K of a_n times
 * the 2n-th derivative of the logistic density, a_n = (-lambda)^n
 * H_n(sigma*^2 / 4 lambda) / n!, each derivative a polynomial in g (the
 * recursion P -> P'(g) g (1 - g)). It is tabulated once per run on
 * [-20, 20] with 40001 points (4.4), its negatives clamped, its trapezoid
 * CDF normalised, and self-tested before the run starts: mass 1 and mean 0
 * within 1e-6, clamped mass at most 1e-6, variance pi^2/3 - sigma*^2
 * within 1e-3, and the acceptance curve, the quadrature of q_C against
 * Phi((dE + z) / sigma*), within 2e-3 of g(dE) at dE = 0, +-1, +-2, +-4.
 * X_C is the inverse CDF of the pair's uniform (a guide table of 4096
 * buckets, then linear interpolation); the top-up is a normal of the
 * stream (seed, lower position, RX_STREAM_XTEST, k): the same bits on any
 * number of threads. The decision reports the indicator as its
 * probability (an unbiased estimate of g(dE), what the swap statistics
 * average).
 *
 * Minibatch energies (network targets, mixture_data with a batch smaller
 * than the data), whose variance must be estimated while the batch grows
 * (4.5): the engine estimates every attempted pair on one growing batch
 * before the exchange (RX__XT_PAIRED, src/estimate/pairdiff.h) and the
 * decision reads xs->pair_est instead of the energies. A configuration whose
 * noise already reaches sigma*^2 at some adjacent pair of the ladder is
 * refused at target.energy_noise_sd; should an adaptive ladder move a pair
 * there during the run, that pair's swaps are rejected (the condition is
 * symmetric under the swap, so detailed balance holds, as for 4.5's cap).
 */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include "../core/rng_inline.h"
#include "xtest.h"

/* The tests' view of a built table (tests/test_noise_aware.c declares
 * them too; nothing else calls them). */
double rx__na_logistic_deriv(int n, double z);
double rx__na_quantile(const void *st, double u);
double rx__na_series(const void *st, double z);
double rx__na_cdf(const void *st, double z);
void rx__na_figures(const void *st, double *coef, double fig[5]);

enum { NA_N = 40001, NA_GUIDE = 4096, NA_KMAX = 6 };
#define NA_PI 3.14159265358979323846
#define NA_L 20.0
#define NA_H (2.0 * NA_L / (NA_N - 1))

/* The run's table and what its self-test measured. */
typedef struct na_state {
    double s2star, lambda;
    int K;
    double noise2;            /* the variance of one energy's noise */
    double a[NA_KMAX + 1];    /* the series' coefficients a_n */
    double mass, mean, var;   /* of the table before normalising (mass),
                               * after (mean, variance) */
    double neg;               /* the mass clamped away */
    double acc_err;           /* max |acceptance - g| at the test points */
    int32_t guide[NA_GUIDE + 1];
    double F[NA_N];           /* the CDF at z_i = -L + i h */
    double q[NA_N];           /* the density, negatives clamped */
} na_state;

/* g(x) = 1 / (1 + exp(-x)), without overflow for either sign. */
static double logistic(double x)
{
    if (x >= 0.0)
        return 1.0 / (1.0 + exp(-x));
    const double e = exp(x);
    return e / (1.0 + e);
}

/* The coefficients in g^0..g^(m+1) of the m-th derivative of g, for
 * m = 1..2K+1: c[m][j]. */
static void deriv_polys(int K, double c[2 * NA_KMAX + 2][2 * NA_KMAX + 3])
{
    for (int m = 0; m < 2 * NA_KMAX + 2; ++m)
        for (int j = 0; j < 2 * NA_KMAX + 3; ++j)
            c[m][j] = 0.0;
    c[1][1] = 1.0, c[1][2] = -1.0; /* g' = g (1 - g) */
    for (int m = 1; m < 2 * K + 1; ++m)
        for (int j = 1; j <= m + 1; ++j) { /* P'(g) g (1 - g) */
            c[m + 1][j] += j * c[m][j];
            c[m + 1][j + 1] -= j * c[m][j];
        }
}

static double horner(const double *c, int deg, double g)
{
    double r = 0.0;
    for (int j = deg; j >= 0; --j)
        r = r * g + c[j];
    return r;
}

/* The 2n-th derivative of the logistic density at z (renhd.md 4.3's
 * table; n <= NA_KMAX). */
double rx__na_logistic_deriv(int n, double z)
{
    double c[2 * NA_KMAX + 2][2 * NA_KMAX + 3];
    if (n < 0 || n > NA_KMAX)
        return NAN;
    deriv_polys(n > 0 ? n : 1, c);
    return horner(c[2 * n + 1], 2 * n + 2, logistic(z));
}

/* a_n = (-1)^n h_n / n! with h_n = lambda^n H_n(sigma^2 / 4 lambda):
 * h_{n+1} = (sigma^2 / 2) h_n - 2 n lambda^2 h_{n-1}, finite as lambda
 * -> 0 (then a_n = (-sigma^2/2)^n / n!). */
static void series_coefs(double s2, double lambda, int K, double *a)
{
    double hm = 1.0, h = s2 / 2.0, fact = 1.0;
    a[0] = 1.0;
    for (int n = 1; n <= K; ++n) {
        fact *= n;
        a[n] = (n & 1 ? -h : h) / fact;
        const double hn = s2 / 2.0 * h - 2.0 * n * lambda * lambda * hm;
        hm = h, h = hn;
    }
}

/* The series q_C(z) itself (not the table). */
static double series_at(const double *a, int K,
                        double c[2 * NA_KMAX + 2][2 * NA_KMAX + 3], double z)
{
    const double g = logistic(z);
    double q = 0.0;
    for (int n = 0; n <= K; ++n)
        q += a[n] * horner(c[2 * n + 1], 2 * n + 2, g);
    return q;
}

static double Phi(double x) { return 0.5 * erfc(-x / sqrt(2.0)); }

/* The table and its self-test; RX_ECONFIG with msg on a failed test. */
static rx_status build(na_state *s, double s2star, double lambda, int K,
                       char *msg, size_t cap)
{
    double c[2 * NA_KMAX + 2][2 * NA_KMAX + 3];
    s->s2star = s2star, s->lambda = lambda, s->K = K;
    deriv_polys(K, c);
    series_coefs(s2star, lambda, K, s->a);
    const double h = NA_H;
    double neg = 0.0, sum = 0.0;
    for (int i = 0; i < NA_N; ++i) {
        double q = series_at(s->a, K, c, -NA_L + i * h);
        if (q < 0.0) {
            neg -= q * h;
            q = 0.0;
        }
        s->q[i] = q;
        sum += q;
    }
    s->neg = neg;
    s->mass = h * (sum - 0.5 * (s->q[0] + s->q[NA_N - 1]));
    s->F[0] = 0.0;
    for (int i = 1; i < NA_N; ++i)
        s->F[i] = s->F[i - 1] + 0.5 * h * (s->q[i - 1] + s->q[i]);
    const double Fn = s->F[NA_N - 1];
    double m1 = 0.0, m2 = 0.0;
    for (int i = 0; i < NA_N; ++i) {
        s->F[i] /= Fn;
        const double z = -NA_L + i * h, w = (i == 0 || i == NA_N - 1)
                                                ? 0.5 * h * s->q[i] / Fn
                                                : h * s->q[i] / Fn;
        m1 += w * z;
        m2 += w * z * z;
    }
    s->mean = m1;
    s->var = m2 - m1 * m1;
    int i = 0; /* guide[j]: the last i <= N - 2 with F[i] <= j / G */
    for (int j = 0; j <= NA_GUIDE; ++j) {
        while (i < NA_N - 2 && s->F[i + 1] <= (double)j / NA_GUIDE)
            ++i;
        s->guide[j] = i;
    }
    static const double pts[7] = {0.0, 1.0, -1.0, 2.0, -2.0, 4.0, -4.0};
    const double sd = sqrt(s2star);
    s->acc_err = 0.0;
    for (int p = 0; p < 7; ++p) {
        double A = 0.0;
        for (int j = 0; j < NA_N; ++j) {
            const double w = (j == 0 || j == NA_N - 1) ? 0.5 : 1.0;
            A += w * s->q[j] * Phi((pts[p] + (-NA_L + j * h)) / sd);
        }
        A *= h / Fn;
        const double e = fabs(A - logistic(pts[p]));
        if (e > s->acc_err)
            s->acc_err = e;
    }
    const double want = NA_PI * NA_PI / 3.0 - s2star;
    const char *what = NULL;
    double got = 0.0, tol = 0.0;
    if (!(neg <= 1e-6))
        what = "negative mass", got = neg, tol = 1e-6;
    else if (!(fabs(s->mass - 1.0) <= 1e-6))
        what = "mass", got = s->mass, tol = 1e-6;
    else if (!(fabs(s->mean) <= 1e-6))
        what = "mean", got = s->mean, tol = 1e-6;
    else if (!(fabs(s->var - want) <= 1e-3))
        what = "variance (want pi^2/3 - sigma*^2)", got = s->var, tol = 1e-3;
    else if (!(s->acc_err <= 2e-3))
        what = "acceptance-curve error", got = s->acc_err, tol = 2e-3;
    if (!what)
        return RX_OK;
    snprintf(msg, cap,
             "the noise_aware correction table for sigma*^2 = %g, lambda = "
             "%g, K = %d fails its self-test: %s %.3g (tolerance %g); "
             "lower sigma*^2 or K, or raise lambda",
             s2star, lambda, K, what, got, tol);
    return RX_ECONFIG;
}

/* X_C for the uniform u: the inverse of the table's CDF. */
static inline double quantile(const na_state *s, double u)
{
    int j = (int)(u * NA_GUIDE);
    j = j < 0 ? 0 : j >= NA_GUIDE ? NA_GUIDE - 1 : j;
    int i = s->guide[j];
    while (i < NA_N - 2 && s->F[i + 1] <= u)
        ++i;
    const double dF = s->F[i + 1] - s->F[i];
    const double t = dF > 0.0 ? (u - s->F[i]) / dF : 0.0;
    return -NA_L + ((double)i + t) * NA_H;
}

double rx__na_quantile(const void *st, double u)
{
    return quantile(st, u);
}

double rx__na_series(const void *st, double z)
{
    const na_state *s = st;
    double c[2 * NA_KMAX + 2][2 * NA_KMAX + 3];
    deriv_polys(s->K, c);
    return series_at(s->a, s->K, c, z);
}

/* CDF of the table at z (linear between grid points). */
double rx__na_cdf(const void *st, double z)
{
    const na_state *s = st;
    const double x = (z + NA_L) / NA_H;
    if (x <= 0.0)
        return 0.0;
    if (x >= NA_N - 1)
        return 1.0;
    const int i = (int)x;
    return s->F[i] + (x - i) * (s->F[i + 1] - s->F[i]);
}

/* coef[0..K], then mass, mean, variance, clamped mass, acceptance error. */
void rx__na_figures(const void *st, double *coef, double fig[5])
{
    const na_state *s = st;
    for (int n = 0; n <= s->K; ++n)
        coef[n] = s->a[n];
    fig[0] = s->mass, fig[1] = s->mean, fig[2] = s->var, fig[3] = s->neg;
    fig[4] = s->acc_err;
}

/* The top-up noise of the comparison with lower position a at k. */
static double topup_normal(const rx__xconf *xc, int a, int64_t k)
{
    rx__stream s;
    rx__stream_init_inl(&s, xc->seed, (uint32_t)a, RX_STREAM_XTEST,
                        (uint64_t)k);
    s.normal = xc->normal;
    return rx__normal(&s);
}

static int na_decide(const rx__xconf *xc, const rx__xstate *xs, int a, int b,
                     double ea, double eb, double sh, double u, int64_t k,
                     double *prob)
{
    const na_state *s = xc->rstate;
    const double dT = xs->beta[a] - xs->beta[b];
    double dU, v;
    if (xs->pair_est) {
        /* minibatch energies: the engine's paired estimate of the pair
         * (U~_a - U~_b) and the variance of dT times it */
        dU = xs->pair_est[2 * a];
        v = xs->pair_est[2 * a + 1];
    } else {
        rx__xt_fresh(xc, xs, a, k, &ea, &eb);
        dU = ea - eb;
        v = 2.0 * dT * dT * s->noise2;
    }
    /* E1: dbeta (U_a - U_b), and a bias's shift */
    const double dE = dT * dU + sh - xc->wcorr;
    const double top = s->s2star - v;
    int acc = 0;
    /* top < 0: the cap's rejection (symmetric under the swap), or a pair
     * an adaptive ladder moved past sigma*^2 */
    if (top >= 0.0 && !(xs->pair_est && v >= s->s2star)) {
        const double zN = top > 0.0 ? sqrt(top) * topup_normal(xc, a, k) : 0.0;
        acc = dE + zN + quantile(s, u) > 0.0;
    }
    *prob = acc;
    return acc;
}

static size_t na_size(const rx__rowvals *own)
{
    (void)own;
    return sizeof(na_state);
}

static rx_status na_init(void *state, const rx__rowrun *run,
                         const rx__rowvals *own, rx_err *err)
{
    na_state *s = state;
    const double sd = run->cfg->target.energy_noise_sd;
    s->noise2 = sd * sd;
    char msg[512];
    rx_status st = build(s, own->k[0].v[0], own->k[1].v[0],
                         (int)own->k[2].v[0], msg, sizeof msg);
    return st == RX_OK ? RX_OK : rx__fail(err, st, "%s", msg);
}

/* 1 / tau at position q of the configured ladder (beta on the reference
 * path), as the engine fills it. */
static double beta_at(const rx_config *c, int q, int P)
{
    if (c->ladder.path == RX_PATH_REFERENCE) {
        if (q == 0 || q == P - 1)
            return q == 0 ? 1.0 : 0.0;
        return c->ladder.betas.n == P
                   ? c->ladder.betas.v[q]
                   : pow(1.0 - (double)q / (double)(P - 1),
                         c->ladder.beta_exponent);
    }
    const rx_ladder_spec *L = &c->ladder.tau;
    double t;
    if (L->kind == RX_LADDER_LIST)
        t = L->values.n > q ? L->values.v[q] : L->min;
    else if (L->kind == RX_LADDER_CONSTANT || q == 0 || P < 2)
        t = L->min;
    else
        t = L->min * pow(L->max / L->min, (double)q / (double)(P - 1));
    return 1.0 / t;
}

static rx_status na_check(const rx__rowrun *run, const rx__rowvals *own,
                          const char **key, rx_err *err)
{
    const rx_config *c = run->cfg;
    /* what a paired row needs of the run is checked for every such row
     * (validate.c); this one's own keys here */
    if (rx__xt_minibatch(c) && (int64_t)own->k[4].v[0] == 1) {
        /* one row has no sample variance: var-hat stays infinite */
        *key = "tempering.noise_batch_max";
        snprintf(err->msg, sizeof err->msg,
                 "an exchange batch of at most 1 row has no variance "
                 "estimate, so every swap would be rejected: use 0 (up "
                 "to the whole data) or at least 2");
        return RX_ECONFIG;
    }
    const double s2star = own->k[0].v[0], sd = c->target.energy_noise_sd;
    int worst = 0;
    double vmax = 0.0;
    for (int q = 0; q + 1 < run->P; ++q) {
        const double d = beta_at(c, q, run->P) - beta_at(c, q + 1, run->P);
        if (2.0 * d * d * sd * sd > vmax)
            vmax = 2.0 * d * d * sd * sd, worst = q;
    }
    if (!(vmax < s2star)) {
        *key = "target.energy_noise_sd";
        snprintf(err->msg, sizeof err->msg,
                 "the noise_aware rule needs the noise variance of the "
                 "energy difference, 2 (1/tau_p - 1/tau_p+1)^2 sd^2, below "
                 "tempering.noise_sigma2 = %g; pair (%d, %d) has %g: lower "
                 "the noise, narrow the ladder's steps or raise noise_sigma2",
                 s2star, worst + 1, worst + 2, vmax);
        return RX_ECONFIG;
    }
    na_state *s = malloc(sizeof *s);
    if (!s) {
        snprintf(err->msg, sizeof err->msg, "out of memory");
        return RX_ENOMEM;
    }
    rx_status st = build(s, s2star, own->k[1].v[0], (int)own->k[2].v[0],
                         err->msg, sizeof err->msg);
    free(s);
    if (st != RX_OK)
        *key = "tempering.noise_sigma2";
    return st;
}

static void na_paired(const rx__rowvals *own, const void *state,
                      int64_t *inc, int64_t *cap, double *var_goal)
{
    (void)state;
    *inc = (int64_t)own->k[3].v[0];
    *cap = (int64_t)own->k[4].v[0];
    *var_goal = own->k[0].v[0];
}

static const rx__keydef na_keys[] = {
    {"tempering.noise_sigma2", K_REAL, 0, "0.5", 0, 3.2, 1, 0, NULL,
     "noise_aware: sigma*^2, the noise variance of the energy difference "
     "the correction is built for (the top-up brings the noise to it); "
     "above the noise's own (the paper's eq. 7)"},
    {"tempering.noise_lambda", K_REAL, 0, "0.05", 0, 1, 0, 0, NULL,
     "noise_aware: lambda, the low-pass regulariser of the correction "
     "series (the paper's eq. 22)"},
    {"tempering.noise_order", K_INT, 0, "4", 1, NA_KMAX, 0, 0, NULL,
     "noise_aware: K, the last term of the correction series (the "
     "paper's eq. 7; the series is asymptotic: a small K)"},
    {"tempering.noise_batch", K_INT, 0, "256", 1, 2147483647.0, 0, 0, NULL,
     "noise_aware on minibatch energies: the rows added to a pair's "
     "exchange batch per round until the variance of the estimated "
     "difference is below noise_sigma2 (the paper's |S|_ex)"},
    {"tempering.noise_batch_max", K_INT, 0, "0", 0, 2147483647.0, 0, 0,
     NULL,
     "noise_aware on minibatch energies: the most rows of an exchange "
     "batch; a pair still above noise_sigma2 there rejects (counted as "
     "n_var_fail); 0: up to the whole data, where the estimate is exact"},
};

/* With a cap the test is no longer Barker's: pairs whose variance is
 * still above sigma*^2 at the cap reject (detailed balance holds; the
 * acceptance is lower). */
static int na_warn(const rx__rowrun *run, const rx__rowvals *own,
                   const char **key, char *msg, size_t cap)
{
    const int64_t mx = (int64_t)own->k[4].v[0];
    if (!rx__xt_minibatch(run->cfg) || mx == 0 ||
        (run->cfg->target.kind == RX_TARGET_MIXTURE_DATA &&
         mx >= run->cfg->target.n_data))
        return 0;
    *key = "tempering.noise_batch_max";
    snprintf(msg, cap,
             "the exchange batch stops at %lld rows (if the training set is "
             "larger): a pair whose estimated "
             "variance is still at or above noise_sigma2 there rejects its "
             "swap (detailed balance holds, but it accepts less often than "
             "Barker's test; summary.json counts these as n_var_fail); "
             "0 grows the batch to the whole data, where the test is exact",
             (long long)mx);
    return 1;
}

static const char *const na_uses[] = {"target.energy_noise_sd", NULL};

const rx__xtest_type rx__xt_noise_aware = {
    .row = {.name = "noise_aware",
            .doc = "Barker's test on noisy energies of known variance: "
                   "accept iff dbeta (U~_a - U~_b) + top-up + X_C > 0 "
                   "(the replica-exchange Nose-Hoover paper, Alg. 1)",
            .keys = na_keys,
            .nkeys = 5,
            .uses = na_uses,
            .props = RX__XT_UNIFORM | RX__XT_ENERGY | RX__XT_LADDER |
                     RX__XT_WCORR | RX__XT_EXACT | RX__XT_NOISE |
                     RX__XT_PAIRED,
            .check = na_check,
            .warn = na_warn},
    .decide = na_decide,
    .size = na_size,
    .init = na_init,
    .paired = na_paired,
};
