/*
 * The online estimate of sigma_p^2 for the bias-corrected exchange test
 * (resgld_vr.md 1.5; Deng 2021, Sec. 2.3.3): stochastic approximation of
 * each pair's noise variance from the repeated noisy energies of the two
 * particles at its positions. Pure arithmetic: the engine gathers the
 * particles' variances and calls this after the exchange.
 */
#ifndef RX_ESTIMATE_SIGMA2_H
#define RX_ESTIMATE_SIGMA2_H

#include <stdint.h>

/* The raw estimate of a pair from the variances va, vb of the energies of
 * its two particles: per chain (va + vb) / 2, or with `difference` the
 * literal algorithms' Var(difference) = va + vb (over-corrects). */
static inline double rx__sigma2_raw(double va, double vb, int difference)
{
    return (difference ? 1.0 : 0.5) * (va + vb);
}

/* The step size of SA step m (1, 2, ...): the constant gamma in (0, 1],
 * or 1/m (harmonic, a fixed variance) for gamma 0. */
static inline double rx__sigma2_gain(double gamma, int64_t m)
{
    return gamma > 0.0 ? gamma : 1.0 / (double)m;
}

/* SA step m of an estimate: the raw value itself at m = 1, then
 * (1 - g) s2 + g raw. */
static inline double rx__sigma2_step(double s2, double raw, double g,
                                     int64_t m)
{
    return m == 1 ? raw : (1.0 - g) * s2 + g * raw;
}

#endif
