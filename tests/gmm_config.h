/*
 * Tests: a gmm target's components into a config (the arrays are copied;
 * rx_config_free releases them).
 */
#ifndef RX_TEST_GMM_CONFIG_H
#define RX_TEST_GMM_CONFIG_H

#include <stdlib.h>
#include <string.h>

#include "replex/replex.h"

/* K components in d dimensions: weights w (K), means mu and scales sc
 * (K x d, row-major). */
static inline void gmm_config(rx_config *c, const double *w,
                              const double *mu, const double *sc, int K,
                              int d)
{
    const size_t nw = sizeof(double) * (size_t)K;
    const size_t nm = nw * (size_t)d;
    c->target.kind = RX_TARGET_GMM;
    c->target.weights.v = malloc(nw);
    c->target.means.v = malloc(nm);
    c->target.scales.v = malloc(nm);
    if (!c->target.weights.v || !c->target.means.v || !c->target.scales.v)
        return; /* rx_create then refuses the empty mixture */
    memcpy(c->target.weights.v, w, nw);
    memcpy(c->target.means.v, mu, nm);
    memcpy(c->target.scales.v, sc, nm);
    c->target.weights.n = K;
    c->target.means.rows = c->target.scales.rows = K;
    c->target.means.cols = c->target.scales.cols = d;
}

#endif
