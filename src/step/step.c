/*
 * SGLD and SGD steps. No allocation, no state outside the arguments.
 */
#include <math.h>

#include "step.h"

void rx__step_apply(rx_step_kind kind, double *theta, const double *grad,
                    size_t dim, double eta, double tau, rx__stream *s)
{
    switch (kind) {
    case RX_STEP_SGLD: {
        const double sd = sqrt(2.0 * eta * tau);
        for (size_t j = 0; j < dim; ++j)
            theta[j] += -eta * grad[j] + sd * rx__normal(s);
        break;
    }
    case RX_STEP_SGD:
        for (size_t j = 0; j < dim; ++j)
            theta[j] -= eta * grad[j];
        break;
    }
}
