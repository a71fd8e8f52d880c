/*
 * sin(2 pi x) and cos(2 pi x) together, for the 25-mode energy and the
 * Box-Muller transform, about 3x cheaper than libm's sincos on 2*pi*x and
 * at least as accurate (the argument is reduced exactly in units of a
 * quarter turn before any rounding). Pure IEEE double arithmetic: the same
 * bits on every thread and machine with the same binary.
 */
#ifndef RX_CORE_SINCOS2PI_H
#define RX_CORE_SINCOS2PI_H

#include <math.h>
#include <stdint.h>
#include <string.h>

static inline void rx__sincos2pi(double x, double *s, double *c)
{
    /* x = n/4 + r exactly, |r| <= 1/8, so t = 2 pi r in [-pi/4, pi/4].
     * Round to nearest with the 1.5 * 2^52 trick (no libm call on plain
     * x86-64); beyond 2^50 fall back to nearbyint. */
    double q = 4.0 * x;
    double n = fabs(q) < 1125899906842624.0
                   ? (q + 6755399441055744.0) - 6755399441055744.0
                   : nearbyint(q);
    double r = x - 0.25 * n;
    double t = 6.283185307179586476925286766559 * r;
    double t2 = t * t;
    /* Taylor series to t^15 / t^16: truncation < 7e-17 relative */
    double sp = -1.0 / 1307674368000.0;
    sp = sp * t2 + 1.0 / 6227020800.0;
    sp = sp * t2 - 1.0 / 39916800.0;
    sp = sp * t2 + 1.0 / 362880.0;
    sp = sp * t2 - 1.0 / 5040.0;
    sp = sp * t2 + 1.0 / 120.0;
    sp = sp * t2 - 1.0 / 6.0;
    double sn = t + t * t2 * sp;
    double cp = 1.0 / 20922789888000.0;
    cp = cp * t2 - 1.0 / 87178291200.0;
    cp = cp * t2 + 1.0 / 479001600.0;
    cp = cp * t2 - 1.0 / 3628800.0;
    cp = cp * t2 + 1.0 / 40320.0;
    cp = cp * t2 - 1.0 / 720.0;
    cp = cp * t2 + 1.0 / 24.0;
    cp = cp * t2 - 0.5;
    double cs = 1.0 + t2 * cp;
    /* the quadrant without a branch (it is a coin for Box-Muller): odd
     * quadrants swap sine and cosine, then sign bits flip; the same
     * values as selecting by cases */
    /* beyond 2^63, n is a multiple of 2^11 (quadrant 0); converting it
     * (or inf, NaN) to an integer would be undefined */
    uint64_t qn = fabs(n) < 9223372036854775808.0 ? (uint64_t)(int64_t)n : 0;
    uint64_t odd = 0 - (qn & 1), bs, bc, bsn, bcs;
    memcpy(&bsn, &sn, sizeof bsn);
    memcpy(&bcs, &cs, sizeof bcs);
    bs = (bsn & ~odd) | (bcs & odd);   /* odd: cos, even: sin */
    bc = (bcs & ~odd) | (bsn & odd);   /* odd: sin, even: cos */
    bs ^= (qn & 2) << 62;              /* quadrants 2, 3: -s */
    bc ^= ((qn + 1) & 2) << 62;        /* quadrants 1, 2: -c */
    memcpy(s, &bs, sizeof bs);
    memcpy(c, &bc, sizeof bc);
}

#endif
