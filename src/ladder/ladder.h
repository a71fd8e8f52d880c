/*
 * Ladders over positions: learning rates eta(q) and temperatures tau(q).
 */
#ifndef RX_LADDER_H
#define RX_LADDER_H

#include "../core/internal.h"

/* Fill out[0..P-1] from a spec (validated beforehand). */
void rx__ladder_fill(const rx_ladder_spec *s, int P, double *out);

#endif
