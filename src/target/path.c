/*
 * The reference of the prior-to-posterior path (ladder.path reference):
 * pi_beta(theta) ~ pi_0(theta) exp(-beta U_like(theta)), U = U_0 + U_like,
 * with pi_0 = exp(-U_0) normalised, so Z(0) = 1 and Z(1) is the evidence.
 * Three sources of U_0: a Gaussian N(mean, sd^2 I) from the config
 * (analytic targets), the network's prior (network.c), the callback's
 * prior function. U_like is U - U_0 for exact targets and the full-data
 * sum of the per-example losses for the network.
 */
#include <math.h>

#include "target.h"

#define RX__LOG_2PI 1.8378770664093454836

static rx_status ref_gauss(const rx__target *t, const double *theta,
                           double *u0, double *g0)
{
    const double m = t->ref.mean, is2 = t->ref.inv_s2;
    double q = 0.0;
    for (size_t j = 0; j < t->dim; ++j) {
        double z = theta[j] - m;
        q += z * z;
        if (g0)
            g0[j] = z * is2;
    }
    *u0 = 0.5 * q * is2 + t->ref.lognorm;
    return RX_OK;
}

static rx_status ref_cb(const rx__target *t, const double *theta, double *u0,
                        double *g0)
{
    rx_status st = t->ref.fn(t->u.cb.user, theta, t->dim, u0, g0);
    return st == RX_OK ? RX_OK : (st < 0 ? st : RX_ECALLBACK);
}

rx_status rx__target_ref_init(rx__target *t, const rx_config *cfg,
                              const rx_callback_target *cb, rx_err *err)
{
    if (cfg->ladder.path != RX_PATH_REFERENCE)
        return RX_OK;
    switch (cfg->target.kind) {
    case RX_TARGET_GMM:
    case RX_TARGET_MIXTURE25: {
        const double sd = cfg->ladder.reference_sd;
        t->ref.mean = cfg->ladder.reference_mean;
        t->ref.inv_s2 = 1.0 / (sd * sd);
        /* d/2 log(2 pi sd^2): exp(-U_0) integrates to 1 */
        t->ref.lognorm = (double)t->dim * (0.5 * RX__LOG_2PI + log(sd));
        t->ref.eval = ref_gauss;
        t->fused_m25 = 0; /* the fused step knows no reference */
        return RX_OK;
    }
    case RX_TARGET_NETWORK:
        t->ref.eval = rx__network_prior;
        return RX_OK;
    case RX_TARGET_CALLBACK:
        if (!cb || !cb->prior)
            return rx__fail(err, RX_EINVAL,
                            "ladder.path: reference with a callback target "
                            "needs rx_callback_target.prior (the normalised "
                            "prior energy and its gradient)");
        t->ref.fn = cb->prior;
        t->ref.eval = ref_cb;
        return RX_OK;
    default:
        return rx__fail(err, RX_ECONFIG,
                        "ladder.path: reference: target.kind %d has no "
                        "reference", (int)cfg->target.kind);
    }
}

rx_status rx__target_ref(const rx__target *t, const double *theta,
                         double *u0, double *g0)
{
    rx_status st = t->ref.eval(t, theta, u0, g0);
    if (st == RX_OK && !isfinite(*u0))
        st = RX_ENUMERIC;
    return st;
}

int rx__target_ref_law(const rx__target *t, double *mean, double *sd)
{
    if (t->ref.eval == ref_gauss) {
        *mean = t->ref.lognorm + 0.5 * (double)t->dim;
        *sd = sqrt(0.5 * (double)t->dim);
        return 1;
    }
    if (t->ref.eval == rx__network_prior)
        return rx__network_prior_law(t, mean, sd);
    return 0;
}

rx_status rx__target_like_exact(const rx__target *t, rx__tws *w,
                                const double *theta, double *u_like)
{
    if (rx__target_is_network(t))
        return rx__network_like_full(t, w, theta, u_like);
    double u, u0;
    rx_status st = t->eval(t, theta, &u, NULL);
    if (st == RX_OK)
        st = rx__target_ref(t, theta, &u0, NULL);
    if (st != RX_OK)
        return st;
    *u_like = u - u0;
    return isfinite(*u_like) ? RX_OK : RX_ENUMERIC;
}
