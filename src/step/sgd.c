/* SGD: theta <- theta - eta g (noise, if any, is in the gradient). */
#include "step.h"

static void sgd_apply(const rx__stepconf *sc,
    const rx__rowvals *own, double *theta, double *state,
                      const double *grad, double gm, size_t dim, double eta,
                      double tau, rx__stream *s, const double *zpre,
                      size_t nz)
{
    (void)own;
    const double eg = eta * gm; /* eta itself when gm = 1 */
    (void)sc;
    (void)state;
    (void)tau;
    (void)s;
    (void)zpre;
    (void)nz;
    for (size_t j = 0; j < dim; ++j)
        theta[j] -= eg * grad[j];
}

const rx__step_type rx__step_sgd = {
    .row = {.name = "sgd",
            .doc = "stochastic gradient descent: theta -= eta grad (optimises)",
            .props = RX__STEP_PLAIN},
    .apply = sgd_apply,
    .draws = RX__DRAWS_NONE,
    .needs = RX__NEEDS_GRAD,
};
