/* SGLD: theta <- theta - (eta gm) g + sqrt(2 eta tau) z (deo.md 3.1; gm
 * the bias's gradient multiplier, 1 without one). */
#include <math.h>

#include "step.h"

static void sgld_apply(const rx__stepconf *sc,
    const rx__rowvals *own, double *theta, double *state,
                       const double *grad, double gm, size_t dim,
                       double eta, double tau, rx__stream *s,
                       const double *zpre, size_t nz)
{
    (void)own;
    (void)sc;
    (void)state;
    const double sd = sqrt(2.0 * eta * tau);
    const double eg = eta * gm; /* eta itself when gm = 1 */
    if (dim < RX__FILL_MIN && !zpre) { /* the same draws, no chunks */
        for (size_t j = 0; j < dim; ++j)
            theta[j] += -eg * grad[j] + sd * rx__normal(s);
        return;
    }
    double z[RX_STEP_CHUNK];
    for (size_t j0 = 0; j0 < dim; j0 += RX_STEP_CHUNK) {
        size_t n = dim - j0 < RX_STEP_CHUNK ? dim - j0 : RX_STEP_CHUNK;
        const double *zz = rx__step_noise(s, zpre, nz, j0, z, n);
        for (size_t j = 0; j < n; ++j)
            theta[j0 + j] += -eg * grad[j0 + j] + sd * zz[j];
    }
}

const rx__step_type rx__step_sgld = {
    .row = {.name = "sgld",
            .doc = "Langevin dynamics: theta -= eta grad + sqrt(2 eta tau) xi",
            .props = RX__STEP_SAMPLES | RX__STEP_PLAIN},
    .apply = sgld_apply,
    .draws = RX__DRAWS_DIM,
    .needs = RX__NEEDS_GRAD,
};
