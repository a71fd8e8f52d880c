/* Momentum SGD as PyTorch's SGD: b <- mu b + g; theta <- theta - eta b
 * (deo.md 3.1). State: b (dim). */
#include <math.h>

#include "step.h"

static void msgd_apply(const rx__stepconf *sc,
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
    for (size_t j = 0; j < dim; ++j) {
        state[j] = sc->momentum * state[j] + gm * grad[j];
        theta[j] -= eta * state[j];
    }
}

/* The velocity is eta b: rescaled by sqrt(eta1 tau1 / (eta0 tau0)), so b
 * by that times eta0 / eta1. */
static void msgd_rescale(const rx__stepconf *sc,
    const rx__rowvals *own, double *state, size_t dim,
                         double eta0, double tau0, double eta1, double tau1)
{
    (void)own;
    (void)sc;
    double r = sqrt((eta1 * tau1) / (eta0 * tau0));
    r *= eta0 / eta1;
    for (size_t j = 0; j < dim; ++j)
        state[j] *= r;
}

static const char *const uses_[] = {"step.momentum", NULL};

const rx__step_type rx__step_msgd = {
    .row = {.name = "msgd",
            .doc = "momentum SGD: b = mu b + grad; theta -= eta b (optimises)",
            .props = RX__STEP_MOMENTUM,
            .uses = uses_},
    .state_len = rx__step_len_dim,
    .apply = msgd_apply,
    .rescale = msgd_rescale,
    .draws = RX__DRAWS_NONE,
    .needs = RX__NEEDS_GRAD,
};
