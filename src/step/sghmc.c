/* SGHMC, the practical form of Chen et al. 2014 (resgld_vr.md 2.1):
 * v <- rho v - eta g + N(0, 2 eta (1 - rho - beta^) tau), theta <- theta + v,
 * beta^ = V^ eta / 2. State: v (dim). */
#include <math.h>

#include "step.h"

static void sghmc_apply(const rx__stepconf *sc,
    const rx__rowvals *own, double *theta,
                        double *state, const double *grad, double gm,
                        size_t dim, double eta, double tau, rx__stream *s,
                        const double *zpre, size_t nz)
{
    (void)own;
    const double eg = eta * gm; /* eta itself when gm = 1 */
    const double rho = sc->momentum, alpha = 1.0 - rho;
    const double bhat = 0.5 * sc->sghmc_vhat * eta;
    const double sd = sqrt(2.0 * eta * (alpha - bhat) * tau);
    if (dim < RX__FILL_MIN && !zpre) {
        for (size_t j = 0; j < dim; ++j) {
            state[j] = rho * state[j] - eg * grad[j] + sd * rx__normal(s);
            theta[j] += state[j];
        }
        return;
    }
    double z[RX_STEP_CHUNK];
    for (size_t j0 = 0; j0 < dim; j0 += RX_STEP_CHUNK) {
        size_t n = dim - j0 < RX_STEP_CHUNK ? dim - j0 : RX_STEP_CHUNK;
        const double *zz = rx__step_noise(s, zpre, nz, j0, z, n);
        for (size_t j = j0; j < j0 + n; ++j) {
            state[j] = rho * state[j] - eg * grad[j] + sd * zz[j - j0];
            theta[j] += state[j];
        }
    }
}

/* v's stationary spread grows as sqrt(eta tau): a velocity is rescaled by
 * sqrt(eta1 tau1 / (eta0 tau0)) (exact in the extended space). */
static void sghmc_rescale(const rx__stepconf *sc,
    const rx__rowvals *own, double *state, size_t dim,
                          double eta0, double tau0, double eta1, double tau1)
{
    (void)own;
    (void)sc;
    const double r = sqrt((eta1 * tau1) / (eta0 * tau0));
    for (size_t j = 0; j < dim; ++j)
        state[j] *= r;
}


/* Its check against the run: the noise estimate must not exceed the
 * friction at the largest learning rate. */
static rx_status sghmc_check(const rx__rowrun *run, const rx__rowvals *own,
                             const char **key, rx_err *err)
{
    (void)own;
    const rx_config *c = run->cfg;
    const double b = 0.5 * c->step.sghmc_vhat * run->eta_max;
    if (b > 1.0 - c->step.momentum) {
        *key = "step.sghmc_vhat";
        return rx__fail(err, RX_ECONFIG,
                        "beta^ = V^ eta / 2 = %.3g exceeds the friction 1 "
                        "- rho = %.3g at the largest learning rate",
                        b, 1.0 - c->step.momentum);
    }
    return RX_OK;
}

static const char *const uses_[] = {"step.momentum", "step.sghmc_vhat", NULL};

const rx__step_type rx__step_sghmc = {
    .row = {.name = "sghmc",
            .doc = "SG Hamiltonian Monte Carlo with friction 1 - rho",
            .props = RX__STEP_SAMPLES | RX__STEP_MOMENTUM,
            .uses = uses_,
            .check = sghmc_check},
    .state_len = rx__step_len_dim,
    .apply = sghmc_apply,
    .rescale = sghmc_rescale,
    .draws = RX__DRAWS_DIM,
    .needs = RX__NEEDS_GRAD,
};
