/*
 * Fixed ladders: constant, geometric between two ends, explicit list.
 * The geometric ends are set exactly (not through pow) so eta(1), eta(P)
 * are bit-identical to the inputs.
 */
#include <math.h>

#include "ladder.h"

void rx__ladder_fill(const rx_ladder_spec *s, int P, double *out)
{
    switch (s->kind) {
    case RX_LADDER_CONSTANT:
        for (int q = 0; q < P; ++q)
            out[q] = s->min;
        break;
    case RX_LADDER_GEOMETRIC: {
        double ratio = s->max / s->min;
        for (int q = 0; q < P; ++q)
            out[q] = s->min * pow(ratio, (double)q / (double)(P - 1));
        out[0] = s->min;
        out[P - 1] = s->max;
        break;
    }
    case RX_LADDER_LIST:
        for (int q = 0; q < P; ++q)
            out[q] = s->values.v[q];
        break;
    }
}
