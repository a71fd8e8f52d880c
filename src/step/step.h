/*
 * MCMC transition rules ("steps") on a flat double parameter vector.
 * A step reads the gradient cached at theta and moves theta; the caller
 * re-evaluates the energy and gradient at the new point. Rules with
 * optimiser state (mSGD, pSGD, SGHMC) keep it in the particle's `state`
 * vector, so it moves with the particle on a swap.
 */
#ifndef RX_STEP_H
#define RX_STEP_H

#include "../core/internal.h"

typedef struct rx__stepconf {
    double momentum, rms_alpha, rms_eps, sghmc_vhat;
} rx__stepconf;

/* Does this rule keep per-particle state (dim doubles)? */
static inline int rx__step_has_state(rx_step_kind k)
{
    return k == RX_STEP_MSGD || k == RX_STEP_PSGD || k == RX_STEP_SGHMC;
}

/* Chunk of the noise draws (rx__normal_fill calls) inside a step. */
#define RX_STEP_CHUNK 256

/* Does this rule draw dim normals from its stream, in order (SGLD and
 * SGHMC)? Only then can the noise be drawn ahead (zpre below). */
static inline int rx__step_draws_dim(rx_step_kind k)
{
    return k == RX_STEP_SGLD || k == RX_STEP_SGHMC;
}

/* One step; state may be NULL for stateless rules; noise from stream s.
 * zpre, when not NULL, holds the stream's first nz draws (nz a multiple of
 * RX_STEP_CHUNK, or dim), drawn ahead, and s continues after them: the
 * same numbers as drawing them here. */
void rx__step_apply(rx_step_kind kind, const rx__stepconf *sc, double *theta,
                    double *state, const double *grad, size_t dim,
                    double eta, double tau, rx__stream *s,
                    const double *zpre, size_t nz);

/*
 * A particle moved from a position with (eta0, tau0, kind0) to one with
 * (eta1, tau1, kind1): adjust its state per the on-swap policy. Velocities
 * (SGHMC v; mSGD's velocity eta b) are rescaled by sqrt(eta1 tau1 /
 * (eta0 tau0)); the pSGD second moments are kept; a change of rule resets.
 */
void rx__step_on_move(rx_state_on_swap pol, rx_step_kind kind0,
                      rx_step_kind kind1, double *state, size_t dim,
                      double eta0, double tau0, double eta1, double tau1);

#endif
