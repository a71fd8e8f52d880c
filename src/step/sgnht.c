/*
 * SGNHT, the stochastic-gradient Nose-Hoover thermostat (Ding et al. 2014)
 * in renhd.md's variables (3.2 and the baseline of 9): with the rule's
 * eta as the step size epsilon and tau as the temperature T,
 *
 *   v     <- v - eta g - s v + N(0, 2 c eta)      kick, friction, noise
 *   theta <- theta + v                            drift with the new v
 *   s     <- s + mu (v'v / dim - tau eta)         thermostat, new v
 *
 * c is the injected-noise level (Ding et al.'s A h), mu the thermostat
 * gain (m kappa d; 1 in SGNHT, 0 turns the thermostat off and leaves
 * SGHMC with friction s). tau enters only the thermostat's target (and a
 * fresh state): the thermostat makes the kinetic temperature
 * <v'v> / (dim eta) equal tau and s absorbs the gradient noise (its fixed
 * point s* solves s* (2 - s*) = (2 c + eta V) / tau, V the gradient
 * noise variance per coordinate; renhd.md 3.4).
 *
 * State: v (dim doubles), then the one scalar thermostat s (renhd.md 1:
 * the gradient noise is taken isotropic, so one thermostat per particle).
 *
 * A fresh state (start, `reset`, change of rule) is renhd.md 3.3's start
 * of a trajectory at (eta, tau): v ~ N(0, tau eta I), s = c / tau (the
 * thermostat's fixed point with the injected noise alone). Without a
 * stream v = 0 (the thermostat heats it within about 1/s steps).
 *
 * When the particle changes position from (eta0, tau0) to (eta1, tau1)
 * under `follow` (the default), both are carried to the new position's
 * stationary law: v is rescaled by sqrt(eta1 tau1 / (eta0 tau0)) (v is
 * N(0, tau eta) per coordinate at stationarity), and s is moved to the new
 * fixed point with the noise level the thermostat has found: s (2 - s) tau0
 * = 2 c + eta0 V gives V, and s1 solves s1 (2 - s1) = (2 c + eta1 V) / tau1
 * (the smaller root; 1 where the right side exceeds 1). `follow_raw` keeps
 * v and s (SGNHT as Ding et al. run it, renhd.md 9: "SGNHT keeps xi");
 * `reset` gives the fresh state above (RENHD's reset, renhd.md 3.3, T12).
 */
#include <math.h>

#include "step.h"

static size_t sgnht_len(size_t dim)
{
    return dim + 1;
}

static void sgnht_init(const rx__stepconf *sc, double *state, size_t dim,
                       double eta, double tau, rx__stream *s)
{
    const double sd = sqrt(tau * eta);
    for (size_t j = 0; j < dim; ++j)
        state[j] = s ? sd * rx__normal(s) : 0.0;
    state[dim] = sc->sgnht_c / tau;
}

static void sgnht_apply(const rx__stepconf *sc, double *theta, double *state,
                        const double *grad, double gm, size_t dim,
                        double eta, double tau, rx__stream *s,
                        const double *zpre, size_t nz)
{
    const double eg = eta * gm; /* eta itself when gm = 1 */
    if (dim == 0)
        return;
    double *v = state;
    const double xi = state[dim];
    const double sd = sqrt(2.0 * sc->sgnht_c * eta);
    double vv = 0.0;
    if (dim < RX__FILL_MIN && !zpre) {
        for (size_t j = 0; j < dim; ++j) {
            double w = v[j] - eg * grad[j] - xi * v[j] + sd * rx__normal(s);
            v[j] = w;
            theta[j] += w;
            vv += w * w;
        }
    } else {
        double z[RX_STEP_CHUNK];
        for (size_t j0 = 0; j0 < dim; j0 += RX_STEP_CHUNK) {
            size_t n = dim - j0 < RX_STEP_CHUNK ? dim - j0 : RX_STEP_CHUNK;
            const double *zz = rx__step_noise(s, zpre, nz, j0, z, n);
            for (size_t j = j0; j < j0 + n; ++j) {
                double w = v[j] - eg * grad[j] - xi * v[j] + sd * zz[j - j0];
                v[j] = w;
                theta[j] += w;
                vv += w * w;
            }
        }
    }
    state[dim] = xi + sc->sgnht_mu * (vv / (double)dim - tau * eta);
}

static void sgnht_rescale(const rx__stepconf *sc, double *state, size_t dim,
                          double eta0, double tau0, double eta1, double tau1)
{
    const double r = sqrt((eta1 * tau1) / (eta0 * tau0));
    for (size_t j = 0; j < dim; ++j)
        state[j] *= r;
    const double s0 = state[dim], c2 = 2.0 * sc->sgnht_c;
    const double k1 = (c2 + eta1 / eta0 * (s0 * (2.0 - s0) * tau0 - c2)) /
                      tau1;
    state[dim] = k1 < 1.0 ? 1.0 - sqrt(1.0 - k1) : 1.0;
}

const rx__step_type rx__step_sgnht = {
    .name = "sgnht",
    .state_len = sgnht_len,
    .init = sgnht_init,
    .apply = sgnht_apply,
    .rescale = sgnht_rescale,
    .draws = RX__DRAWS_DIM,
    .needs = RX__NEEDS_GRAD,
};
