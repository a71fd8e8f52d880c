/*
 * MCMC transition rules ("steps") on a flat double parameter vector.
 * A step reads the gradient cached at theta and moves theta; the caller
 * re-evaluates the energy and gradient at the new point.
 */
#ifndef RX_STEP_H
#define RX_STEP_H

#include "../core/internal.h"

/* theta <- theta - eta * grad (+ sqrt(2 eta tau) xi for SGLD); the noise
 * comes from stream s. */
void rx__step_apply(rx_step_kind kind, double *theta, const double *grad,
                    size_t dim, double eta, double tau, rx__stream *s);

#endif
