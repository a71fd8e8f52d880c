/*
 * The 25-mode 2-D energy of the DEO papers (deo.md 5.1):
 *   U(b) = 0.2 |b|^2 - 2 (cos 2 pi b1 + cos 2 pi b2)
 * plus, when confine_r2 >= 0, the notebook's confining term
 *   1[|b|^2 > R2] (|b|^2 - R2).
 */
#include <math.h>

#include "../core/sincos2pi.h"
#include "target.h"

static rx_status eval_m25(const rx__target *t, const double *b,
                          double *energy, double *grad)
{
    const double two_pi = 6.283185307179586476925286766559;
    double s1, c1, s2, c2;
    rx__sincos2pi(b[0], &s1, &c1);
    rx__sincos2pi(b[1], &s2, &c2);
    double r2 = b[0] * b[0] + b[1] * b[1];
    double u = 0.2 * r2 - 2.0 * (c1 + c2);
    double g0 = 0.4 * b[0] + 2.0 * two_pi * s1;
    double g1 = 0.4 * b[1] + 2.0 * two_pi * s2;
    double rc = t->u.m25.confine_r2;
    if (rc >= 0.0 && r2 > rc) {
        u += r2 - rc;
        g0 += 2.0 * b[0];
        g1 += 2.0 * b[1];
    }
    *energy = u;
    if (grad) {
        grad[0] = g0;
        grad[1] = g1;
    }
    return RX_OK;
}

rx_status rx__mixture25_init(rx__target *t, const rx_config *cfg)
{
    t->dim = 2;
    t->eval = eval_m25;
    t->u.m25.confine_r2 = cfg->target.confine_radius2;
    return RX_OK;
}
