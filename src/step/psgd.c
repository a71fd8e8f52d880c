/* RMSprop-preconditioned SGD (Li et al. 2016), no noise: V <- a V +
 * (1 - a) g^2; theta <- theta - eta g / (lambda + sqrt V). State: V (dim),
 * kept as it is when the particle moves (no rescale). */
#include <math.h>

#include "step.h"

static void psgd_apply(const rx__stepconf *sc,
    const rx__rowvals *own, double *theta, double *state,
                       const double *grad, double gm, size_t dim,
                       double eta, double tau, rx__stream *s,
                       const double *zpre, size_t nz)
{
    (void)own;
    (void)tau;
    (void)s;
    (void)zpre;
    (void)nz;
    const double a = sc->rms_alpha;
    for (size_t j = 0; j < dim; ++j) {
        const double g = gm * grad[j]; /* grad[j] when gm = 1 */
        state[j] = a * state[j] + (1.0 - a) * g * g;
        theta[j] -= eta * g / (sc->rms_eps + sqrt(state[j]));
    }
}

static const char *const uses_[] = {"step.rms_alpha", "step.rms_eps", NULL};

const rx__step_type rx__step_psgd = {
    .row = {.name = "psgd",
            .doc = "RMSprop-preconditioned SGD (optimises)",
            .props = 0,
            .uses = uses_},
    .state_len = rx__step_len_dim,
    .apply = psgd_apply,
    .draws = RX__DRAWS_NONE,
    .needs = RX__NEEDS_GRAD,
};
