/*
 * Target construction and the noisy-evaluation wrapper. Analytic energies
 * live in mixture25.c, gmm.c and optfun.c; the user callback adapter
 * is here.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "target.h"
#include "tws.h"


static rx_status eval_none(const rx__target *t, const double *theta,
                           double *energy, double *grad)
{
    RX_UNUSED(t);
    RX_UNUSED(theta);
    RX_UNUSED(grad);
    *energy = 0.0;
    return RX_OK;
}

static rx_status eval_cb(const rx__target *t, const double *theta,
                         double *energy, double *grad)
{
    rx_status st = t->u.cb.fn(t->u.cb.user, theta, t->dim, energy, grad);
    return st == RX_OK ? RX_OK : (st < 0 ? st : RX_ECALLBACK);
}

rx_status rx__target_create(rx__target **out, const rx_config *cfg,
                            const rx_callback_target *cb, rx_err *err)
{
    *out = NULL;
    rx__target *t = calloc(1, sizeof *t);
    if (!t)
        return rx__fail(err, RX_ENOMEM, "target: out of memory");
    t->energy_noise_sd = cfg->target.energy_noise_sd;
    t->noise_model_sd = cfg->target.energy_noise_sd;
    t->grad_noise_sd = cfg->target.grad_noise_sd;
    t->normal = (int)cfg->rng.normal;
    rx_status st = RX_OK;
    switch (cfg->target.kind) {
    case RX_TARGET_MIXTURE25:
        st = rx__mixture25_init(t, cfg);
        break;
    case RX_TARGET_GMM:
        st = rx__gmm_init(t, cfg, err);
        break;
    case RX_TARGET_NONE:
        t->dim = 0;
        t->eval = eval_none;
        break;
    case RX_TARGET_NETWORK:
        st = rx__network_init(t, cfg, err);
        break;
    case RX_TARGET_MIXTURE_DATA:
        st = rx__mixdata_init(t, cfg, err);
        break;
    case RX_TARGET_CALLBACK:
        if (!cb || !cb->energy || cb->dim == 0) {
            st = rx__fail(err, RX_EINVAL,
                          "target: kind callback needs an rx_callback_target "
                          "with energy != NULL and dim >= 1");
            break;
        }
        t->dim = cb->dim;
        t->eval = eval_cb;
        t->u.cb.fn = cb->energy;
        t->u.cb.user = cb->user;
        break;
    default: /* a test function (optfun.c), else an unknown kind */
        st = rx__optfun_init(t, cfg, err);
    }
    if (st == RX_OK)
        st = rx__target_ref_init(t, cfg, cb, err);
    if (st != RX_OK) {
        rx__target_destroy(&t);
        return st;
    }
    *out = t;
    return RX_OK;
}

void rx__target_destroy(rx__target **t)
{
    if (!t || !*t)
        return;
    if ((*t)->destroy)
        (*t)->destroy(*t);
    free(*t);
    *t = NULL;
}

double rx__target_noise_var(const rx__target *t, rx__tws *w,
                            const double *theta, int J, uint64_t seed,
                            uint32_t entity, uint64_t k)
{
    if (t->eval_ws && t->tws_create)
        return rx__cv_batch_var(t, w, theta, J, seed, entity, k);
    if (t->eval_ws)
        return rx__network_batch_var(t, w, theta, J, seed, entity, k);
    /* the injected noise does not depend on theta: the J estimates differ
     * only by their draws (a minibatch target would re-draw batches) */
    rx__stream s;
    rx__stream_init(&s, seed, entity, RX_STREAM_VARIANCE, k);
    s.normal = t->normal;
    double m = 0.0, q = 0.0;
    for (int j = 0; j < J; ++j) {
        double e = t->noise_model_sd * rx__normal(&s);
        double d = e - m;
        m += d / (j + 1);
        q += d * (e - m);
    }
    return J > 1 ? q / (J - 1) : 0.0;
}

rx_status rx__target_eval_noisy(const rx__target *t, rx__tws *w,
                                const double *theta,
                                double *energy, double *grad, uint64_t seed,
                                uint32_t entity, uint64_t k)
{
    return rx__target_eval_pe(t, w, theta, energy, grad, seed, entity, k,
                              NULL);
}

rx_status rx__target_eval_pe(const rx__target *t, rx__tws *w,
                             const double *theta, double *energy,
                             double *grad, uint64_t seed, uint32_t entity,
                             uint64_t k, double *per_example)
{
    rx_status st = t->eval_ws ? t->eval_ws(t, w, entity, k, theta, energy,
                                           grad, per_example)
                              : t->eval(t, theta, energy, grad);
    if (st != RX_OK)
        return st;
    if (t->energy_noise_sd > 0.0) {
        rx__stream s;
        rx__stream_init(&s, seed, entity, RX_STREAM_ENERGYNOISE, k);
        s.normal = t->normal;
        *energy += t->energy_noise_sd * rx__normal(&s);
    }
    if (grad && t->grad_noise_sd > 0.0) {
        rx__stream s;
        rx__stream_init(&s, seed, entity, RX_STREAM_GRADNOISE, k);
        s.normal = t->normal;
        if (t->dim < RX__FILL_MIN) { /* the same draws, without chunks */
            for (size_t j = 0; j < t->dim; ++j)
                grad[j] += t->grad_noise_sd * rx__normal(&s);
        } else {
            double z[256];
            for (size_t j0 = 0; j0 < t->dim; j0 += 256) {
                size_t n = t->dim - j0 < 256 ? t->dim - j0 : 256;
                rx__normal_fill(&s, z, n);
                for (size_t j = 0; j < n; ++j)
                    grad[j0 + j] += t->grad_noise_sd * z[j];
            }
        }
    }
    if (!isfinite(*energy))
        return RX_ENUMERIC;
    if (grad)
        for (size_t j = 0; j < t->dim; ++j)
            if (!isfinite(grad[j]))
                return RX_ENUMERIC;
    return RX_OK;
}

double rx__cv_batch_var(const rx__target *t, rx__tws *w, const double *theta,
                        int J, uint64_t seed, uint32_t entity, uint64_t k)
{
    const int n = t->cv.bs;
    const double scale = (double)t->cv.N / (double)n;
    const double prior = t->cv.prior(t, theta);
    rx__stream s;
    rx__stream_init(&s, seed, entity, RX_STREAM_VARIANCE, k);
    double m = 0.0, q = 0.0;
    for (int j = 0; j < J; ++j) {
        for (int r = 0; r < n; ++r)
            w->ib[r] = (int32_t)rx__uniform_int(&s, (uint64_t)t->cv.N);
        if (t->cv.losses(t, w, theta, w->ib, n, w->pe) != RX_OK)
            return NAN;
        double sum = 0.0;
        for (int r = 0; r < n; ++r)
            sum += w->pe[r];
        double e = scale * sum + prior;
        double d = e - m;
        m += d / (j + 1);
        q += d * (e - m);
    }
    return J > 1 ? q / (J - 1) : 0.0;
}
