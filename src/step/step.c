/*
 * SGLD, SGD, momentum SGD, RMSprop-preconditioned SGD and SGHMC steps
 * (deo.md 3.1, resgld_vr.md 2.1). No allocation; state lives with the
 * particle.
 */
#include <math.h>
#include <string.h>

#include "step.h"

/* Normal draws are made this many at a time (rx__normal_fill). */
/* The noise of the chunk j0..j0+n-1: drawn ahead (zpre, the first nz
 * draws) or now into buf. */
static inline const double *noise_chunk(rx__stream *s, const double *zpre,
                                        size_t nz, size_t j0, double *buf,
                                        size_t n)
{
    if (zpre && j0 + n <= nz)
        return zpre + j0;
    rx__normal_fill(s, buf, n);
    return buf;
}

void rx__step_apply(rx_step_kind kind, const rx__stepconf *sc, double *theta,
                    double *state, const double *grad, size_t dim,
                    double eta, double tau, rx__stream *s,
                    const double *zpre, size_t nz)
{
    switch (kind) {
    case RX_STEP_SGLD: {
        const double sd = sqrt(2.0 * eta * tau);
        if (dim < RX__FILL_MIN && !zpre) { /* the same draws, no chunks */
            for (size_t j = 0; j < dim; ++j)
                theta[j] += -eta * grad[j] + sd * rx__normal(s);
            break;
        }
        double z[RX_STEP_CHUNK];
        for (size_t j0 = 0; j0 < dim; j0 += RX_STEP_CHUNK) {
            size_t n = dim - j0 < RX_STEP_CHUNK ? dim - j0 : RX_STEP_CHUNK;
            const double *zz = noise_chunk(s, zpre, nz, j0, z, n);
            for (size_t j = 0; j < n; ++j)
                theta[j0 + j] += -eta * grad[j0 + j] + sd * zz[j];
        }
        break;
    }
    case RX_STEP_SGD:
        for (size_t j = 0; j < dim; ++j)
            theta[j] -= eta * grad[j];
        break;
    case RX_STEP_MSGD: /* PyTorch SGD: b = mu b + g; theta -= eta b */
        for (size_t j = 0; j < dim; ++j) {
            state[j] = sc->momentum * state[j] + grad[j];
            theta[j] -= eta * state[j];
        }
        break;
    case RX_STEP_PSGD: { /* Li et al. 2016 preconditioner, no noise */
        const double a = sc->rms_alpha;
        for (size_t j = 0; j < dim; ++j) {
            state[j] = a * state[j] + (1.0 - a) * grad[j] * grad[j];
            theta[j] -= eta * grad[j] / (sc->rms_eps + sqrt(state[j]));
        }
        break;
    }
    case RX_STEP_SGHMC: { /* v = rho v - eta g + N(0, 2 eta (a - b) tau) */
        const double rho = sc->momentum, alpha = 1.0 - rho;
        const double bhat = 0.5 * sc->sghmc_vhat * eta;
        const double sd = sqrt(2.0 * eta * (alpha - bhat) * tau);
        if (dim < RX__FILL_MIN && !zpre) {
            for (size_t j = 0; j < dim; ++j) {
                state[j] = rho * state[j] - eta * grad[j] + sd * rx__normal(s);
                theta[j] += state[j];
            }
            break;
        }
        double z[RX_STEP_CHUNK];
        for (size_t j0 = 0; j0 < dim; j0 += RX_STEP_CHUNK) {
            size_t n = dim - j0 < RX_STEP_CHUNK ? dim - j0 : RX_STEP_CHUNK;
            const double *zz = noise_chunk(s, zpre, nz, j0, z, n);
            for (size_t j = j0; j < j0 + n; ++j) {
                state[j] = rho * state[j] - eta * grad[j] + sd * zz[j - j0];
                theta[j] += state[j];
            }
        }
        break;
    }
    }
}

void rx__step_on_move(rx_state_on_swap pol, rx_step_kind kind0,
                      rx_step_kind kind1, double *state, size_t dim,
                      double eta0, double tau0, double eta1, double tau1)
{
    if (!state || !rx__step_has_state(kind1))
        return;
    if (pol == RX_STATE_RESET || kind0 != kind1) {
        memset(state, 0, sizeof(double) * dim);
        return;
    }
    if (pol == RX_STATE_FOLLOW_RAW || kind1 == RX_STEP_PSGD)
        return;
    double r = sqrt((eta1 * tau1) / (eta0 * tau0));
    if (kind1 == RX_STEP_MSGD)
        r *= eta0 / eta1; /* b is the velocity divided by eta */
    for (size_t j = 0; j < dim; ++j)
        state[j] *= r;
}
