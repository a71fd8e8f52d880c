/* SGLD with a fixed diagonal preconditioner D = diag(d):
 *   theta_j <- theta_j - eta gm d_j g_j + sqrt(2 eta tau d_j) z_j
 * (gm the bias's gradient multiplier, 1 without one; z in coordinate
 * order from the step's stream, so the engine may draw them ahead). A
 * constant positive-definite D keeps exp(-U / tau) invariant in the
 * continuous-time limit (Langevin diffusion with drift -D grad U and
 * diffusion 2 tau D). Stateless. Its key step.precond: d (dim values > 0),
 * [] = all ones (then the bits of sgld). */
#include <math.h>

#include "step.h"

static const rx__keydef keys_[] = {
    {"step.precond", K_VEC, 0, "[]", 0, HUGE_VAL, 1, 0, NULL,
     "psgld_diag: the diagonal preconditioner d, dim numbers > 0; "
     "[] = all ones"},
};

static void psgld_diag_apply(const rx__stepconf *sc, const rx__rowvals *own,
                             double *theta, double *state,
                             const double *grad, double gm, size_t dim,
                             double eta, double tau, rx__stream *s,
                             const double *zpre, size_t nz)
{
    (void)sc;
    (void)state;
    /* the check has refused a length other than dim; [] = ones */
    const double *d =
        own->k[0].n > 0 && (size_t)own->k[0].n >= dim ? own->k[0].v : NULL;
    const double eg = eta * gm, v = 2.0 * eta * tau;
    if (dim < RX__FILL_MIN && !zpre) { /* the same draws, no chunks */
        for (size_t j = 0; j < dim; ++j) {
            const double dj = d ? d[j] : 1.0;
            theta[j] += -eg * dj * grad[j] + sqrt(v * dj) * rx__normal(s);
        }
        return;
    }
    double z[RX_STEP_CHUNK];
    for (size_t j0 = 0; j0 < dim; j0 += RX_STEP_CHUNK) {
        size_t n = dim - j0 < RX_STEP_CHUNK ? dim - j0 : RX_STEP_CHUNK;
        const double *zz = rx__step_noise(s, zpre, nz, j0, z, n);
        for (size_t j = 0; j < n; ++j) {
            const double dj = d ? d[j0 + j] : 1.0;
            theta[j0 + j] += -eg * dj * grad[j0 + j] + sqrt(v * dj) * zz[j];
        }
    }
}

/* step.precond must fit the run: dim values where it is given. */
static rx_status psgld_diag_check(const rx__rowrun *run,
                                  const rx__rowvals *own, const char **key,
                                  rx_err *err)
{
    const int n = own->k[0].n;
    if (n > 0 && run->dim > 0 && (size_t)n != run->dim) {
        *key = "step.precond";
        return rx__fail(err, RX_ECONFIG,
                        "needs %zu values (the dimension) or [] (all ones), "
                        "got %d",
                        run->dim, n);
    }
    return RX_OK;
}

const rx__step_type rx__step_psgld_diag = {
    .row = {.name = "psgld_diag",
            .doc = "SGLD, fixed diagonal preconditioner d: "
                   "theta -= eta d grad + sqrt(2 eta tau d) xi",
            .keys = keys_,
            .nkeys = 1,
            .props = RX__STEP_SAMPLES,
            .check = psgld_diag_check},
    .apply = psgld_diag_apply,
    .draws = RX__DRAWS_DIM,
    .needs = RX__NEEDS_GRAD,
};
