/*
 * The [CH3] test problem (resgld_vr.md 4.4, T6): scalar beta, data
 *   x_i | beta ~ 0.5 N(beta, s^2) + 0.5 N(phi - beta, s^2),  i = 1..N,
 * generated with beta_true from a stream keyed by data.split (every seed
 * sees the same data), prior beta ~ N(0, prior_sd^2). Energy of the
 * evaluation with counter k: the minibatch estimate
 *   U~(beta) = (N/n) sum_{i in B_k} l_i(beta) + beta^2 / (2 prior_sd^2),
 *   l_i = -log(0.5 N(x_i; beta, s^2) + 0.5 N(x_i; phi - beta, s^2)),
 * with the network target's sampler (shared batch entity or one stream
 * per particle). Exposes per-example losses for control variates.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "target.h"
#include "tws.h"

#define RX__SHARED_BATCH 0xFFFFFFF0u
#define RX__MIXD_KEY 0x6d6978646174ULL

/* l_i(beta) and dl_i/dbeta (log-sum-exp of the two components). */
static inline double loss1(double x, double beta, double phi, double s,
                           double *dl)
{
    const double is2 = 1.0 / (s * s);
    double a = x - beta, b = x - phi + beta;
    double la = -0.5 * a * a * is2, lb = -0.5 * b * b * is2;
    double m = la > lb ? la : lb;
    double ea = exp(la - m), eb = exp(lb - m);
    double z = ea + eb;
    if (dl)
        *dl = -(ea * a - eb * b) * is2 / z;
    /* -log(0.5/(s sqrt(2 pi)) (e^la + e^lb)) */
    return -(m + log(z)) + log(2.0 * s * 2.5066282746310002);
}

static rx_status eval_mixd(const rx__target *t, rx__tws *w, uint32_t particle,
                           uint64_t k, const double *theta, double *energy,
                           double *grad, double *pe)
{
    const int n = t->u.mixd.bs;
    rx__batcher *b = t->u.mixd.shared ? &w->shared_b
                                      : &w->pb[(int)particle - w->lo];
    const int32_t *idx = rx__batcher_get(b, (int64_t)k);
    const double beta = theta[0], phi = t->u.mixd.phi, s = t->u.mixd.s;
    double sum = 0.0, g = 0.0;
    for (int r = 0; r < n; ++r) {
        double dl = 0.0;
        double l = loss1(t->u.mixd.x[idx[r]], beta, phi, s, grad ? &dl : NULL);
        if (pe)
            pe[r] = l;
        sum += l;
        g += dl;
    }
    const double scale = (double)t->u.mixd.N / (double)n;
    const double ip = 1.0 / (t->u.mixd.prior_sd * t->u.mixd.prior_sd);
    *energy = scale * sum + 0.5 * beta * beta * ip;
    if (grad)
        grad[0] = scale * g + beta * ip;
    return RX_OK;
}

static const int32_t *cv_batch_mixd(const rx__target *t, rx__tws *w,
                                    uint32_t particle, uint64_t k)
{
    rx__batcher *b = t->u.mixd.shared ? &w->shared_b
                                      : &w->pb[(int)particle - w->lo];
    return rx__batcher_get(b, (int64_t)k);
}

static rx_status cv_losses_mixd(const rx__target *t, rx__tws *w,
                                const double *theta, const int32_t *idx,
                                int n, double *out)
{
    RX_UNUSED(w);
    for (int r = 0; r < n; ++r)
        out[r] = loss1(t->u.mixd.x[idx[r]], theta[0], t->u.mixd.phi,
                       t->u.mixd.s, NULL);
    return RX_OK;
}

static double cv_prior_mixd(const rx__target *t, const double *theta)
{
    const double ip = 1.0 / (t->u.mixd.prior_sd * t->u.mixd.prior_sd);
    return 0.5 * theta[0] * theta[0] * ip;
}

static rx_status tws_create_mixd(const rx__target *t, int lo, int hi,
                                 uint64_t seed, rx__tws **out, rx_err *err)
{
    rx__tws *w = calloc(1, sizeof *w);
    if (!w)
        return rx__fail(err, RX_ENOMEM, "target: out of memory");
    w->lo = lo;
    w->hi = hi;
    const int bs = t->u.mixd.bs;
    w->ib = malloc((size_t)bs * sizeof(int32_t));
    w->pe = malloc((size_t)bs * sizeof(double));
    rx_status st = RX_OK;
    if (!w->ib || !w->pe)
        st = rx__fail(err, RX_ENOMEM, "target: out of memory");
    if (st == RX_OK && t->u.mixd.shared)
        st = rx__batcher_init(&w->shared_b, t->u.mixd.N, bs, seed,
                              RX__SHARED_BATCH, err);
    if (st == RX_OK && !t->u.mixd.shared && hi > lo) {
        w->pb = calloc((size_t)(hi - lo), sizeof *w->pb);
        if (!w->pb)
            st = rx__fail(err, RX_ENOMEM, "target: out of memory");
        for (int i = lo; st == RX_OK && i < hi; ++i)
            st = rx__batcher_init(&w->pb[i - lo], t->u.mixd.N, bs, seed,
                                  (uint32_t)i, err);
    }
    if (st != RX_OK) {
        rx__tws_destroy(&w);
        return st;
    }
    *out = w;
    return RX_OK;
}

static void destroy_mixd(rx__target *t)
{
    free(t->u.mixd.x);
    t->u.mixd.x = NULL;
}

rx_status rx__mixdata_init(rx__target *t, const rx_config *cfg, rx_err *err)
{
    const int64_t N = cfg->target.n_data;
    const int bs = cfg->data.batch_size;
    if (N < 1 || bs < 1 || bs > N)
        return rx__fail(err, RX_ECONFIG,
                        "target mixture_data: need 1 <= data.batch_size "
                        "(%d) <= target.n_data (%lld)",
                        bs, (long long)N);
    /* the data are generated and kept in memory (every full-data pass of
     * the control variate reads all of them): refuse what cannot fit
     * rather than be killed half-way through generating it */
    const double need = 8.0 * (double)N, lim = rx__mem_limit_bytes();
    if (lim > 0.0 && need > 0.8 * lim)
        return rx__fail(err, RX_ECONFIG,
                        "target.n_data: %lld data points take %.2f GiB, "
                        "more than 80 %% of the %.2f GiB this process may "
                        "use (memory or ulimit -v)",
                        (long long)N, need / 1073741824.0,
                        lim / 1073741824.0);
    t->destroy = destroy_mixd;
    t->u.mixd.x = malloc(sizeof(double) * (size_t)N);
    if (!t->u.mixd.x)
        return rx__fail(err, RX_ENOMEM, "target: out of memory for %lld "
                        "data points", (long long)N);
    t->u.mixd.N = N;
    t->u.mixd.phi = cfg->target.phi;
    t->u.mixd.s = cfg->target.data_sd;
    t->u.mixd.prior_sd = cfg->target.prior_sd;
    t->u.mixd.bs = bs;
    t->u.mixd.shared = cfg->data.shared_minibatch;
    rx__stream s;
    rx__stream_init(&s, RX__MIXD_KEY, (uint32_t)cfg->data.split,
                    RX_STREAM_DATA, 1);
    const double b0 = cfg->target.beta_true;
    for (int64_t i = 0; i < N; ++i) {
        double u = rx__uniform(&s);
        double mu = u < 0.5 ? b0 : cfg->target.phi - b0;
        t->u.mixd.x[i] = mu + cfg->target.data_sd * rx__normal(&s);
    }
    t->dim = 1;
    t->eval = NULL;
    t->eval_ws = eval_mixd;
    t->tws_create = tws_create_mixd;
    t->cv.N = N;
    t->cv.bs = bs;
    t->cv.batch = cv_batch_mixd;
    t->cv.losses = cv_losses_mixd;
    t->cv.prior = cv_prior_mixd;
    return RX_OK;
}

/* The exact energy sum_i l_i(beta) + prior (ground truth, tests, the mode
 * weights of summary.json); grad may be NULL. */
double rx__mixdata_full_energy(const rx__target *t, double beta, double *grad)
{
    double sum = 0.0, c = 0.0, g = 0.0;
    for (int64_t i = 0; i < t->u.mixd.N; ++i) {
        double dl = 0.0;
        double l = loss1(t->u.mixd.x[i], beta, t->u.mixd.phi, t->u.mixd.s,
                         grad ? &dl : NULL);
        double y = l - c; /* Kahan */
        double tt = sum + y;
        c = (tt - sum) - y;
        sum = tt;
        g += dl;
    }
    const double ip = 1.0 / (t->u.mixd.prior_sd * t->u.mixd.prior_sd);
    if (grad)
        *grad = g + beta * ip;
    return sum + 0.5 * beta * beta * ip;
}

rx_status rx__mixdata_mode_weight(const rx__target *t, double tau, double lo,
                                  double hi, const float *samples, int64_t n,
                                  double *w_true, double *w_est)
{
    enum { G = 4001 };
    if (!(hi > lo) || !(tau > 0) || n < 1 || !samples)
        return RX_EINVAL;
    double *u = malloc(sizeof(double) * G);
    if (!u)
        return RX_ENOMEM;
    const double split = 0.5 * t->u.mixd.phi, h = (hi - lo) / (G - 1);
    double mx = -INFINITY;
    for (int g = 0; g < G; ++g) {
        u[g] = -rx__mixdata_full_energy(t, lo + g * h, NULL) / tau;
        if (u[g] > mx)
            mx = u[g];
    }
    double all = 0.0, high = 0.0;
    for (int g = 0; g < G; ++g) {
        double e = exp(u[g] - mx);
        all += e;
        if (lo + g * h > split)
            high += e;
    }
    free(u);
    int64_t cnt = 0;
    for (int64_t s = 0; s < n; ++s)
        cnt += (double)samples[s] > split;
    *w_true = high / all;
    *w_est = (double)cnt / (double)n;
    return RX_OK;
}
