/*
 * The 25-mode 2-D energy of the DEO papers (deo.md 5.1):
 *   U(b) = 0.2 |b|^2 - 2 (cos 2 pi b1 + cos 2 pi b2)
 * plus, when confine_r2 >= 0, the notebook's confining term
 *   1[|b|^2 > R2] (|b|^2 - R2).
 */
#include <math.h>

#include "../core/rng_inline.h"
#include "../core/sincos2pi.h"
#include "target.h"

#if defined(__GNUC__)
#define M25_INL static inline __attribute__((always_inline))
#else
#define M25_INL static inline
#endif

/* The energy and its gradient at b (one definition for eval_m25 and the
 * fused step below). */
M25_INL void m25_energy(double confine_r2, const double *b, double *energy,
                        double *g0, double *g1)
{
    const double two_pi = 6.283185307179586476925286766559;
    double s1, c1, s2, c2;
    rx__sincos2pi(b[0], &s1, &c1);
    rx__sincos2pi(b[1], &s2, &c2);
    double r2 = b[0] * b[0] + b[1] * b[1];
    double u = 0.2 * r2 - 2.0 * (c1 + c2);
    *g0 = 0.4 * b[0] + 2.0 * two_pi * s1;
    *g1 = 0.4 * b[1] + 2.0 * two_pi * s2;
    if (confine_r2 >= 0.0 && r2 > confine_r2) {
        u += r2 - confine_r2;
        *g0 += 2.0 * b[0];
        *g1 += 2.0 * b[1];
    }
    *energy = u;
}

static rx_status eval_m25(const rx__target *t, const double *b,
                          double *energy, double *grad)
{
    double g0, g1;
    m25_energy(t->u.m25.confine_r2, b, energy, &g0, &g1);
    if (grad) {
        grad[0] = g0;
        grad[1] = g1;
    }
    return RX_OK;
}

/* The normals of one fused chain-step at k (SGLD's two: stream (seed,
 * entity, STEP, k); the energy noise and the gradient noise at k + 1),
 * each drawn only where used. */
M25_INL void m25_draws(const rx__target *t, int sgld, uint64_t seed,
                       uint32_t entity, uint64_t k, double z[5])
{
    rx__stream s;
    if (sgld) {
        rx__stream_init_inl(&s, seed, entity, RX_STREAM_STEP, k);
        z[0] = rx__zig_normal_inl(&s);
        z[1] = rx__zig_normal_inl(&s);
    }
    if (t->energy_noise_sd > 0.0) {
        rx__stream_init_inl(&s, seed, entity, RX_STREAM_ENERGYNOISE, k + 1);
        z[2] = rx__zig_normal_inl(&s);
    }
    if (t->grad_noise_sd > 0.0) {
        rx__stream_init_inl(&s, seed, entity, RX_STREAM_GRADNOISE, k + 1);
        z[3] = rx__zig_normal_inl(&s);
        z[4] = rx__zig_normal_inl(&s);
    }
}

/* The chain-step; zpre: NULL (draw here) or the five normals drawn ahead.
 * Inlined twice below, so each copy keeps its draws in registers. */
M25_INL rx_status m25_core(const rx__target *t, double *theta, double *grad,
                           double *energy, int sgld, double eta, double tau,
                           uint64_t seed, uint32_t entity, uint64_t k,
                           const double *zpre)
{
    rx__stream s;
    double z0, z1;
    if (sgld) { /* rx__step_apply(RX_STEP_SGLD) on 2 coordinates */
        if (zpre) {
            z0 = zpre[0];
            z1 = zpre[1];
        } else {
            rx__stream_init_inl(&s, seed, entity, RX_STREAM_STEP, k);
            z0 = rx__zig_normal_inl(&s);
            z1 = rx__zig_normal_inl(&s);
        }
        const double sd = sqrt(2.0 * eta * tau);
        theta[0] += -eta * grad[0] + sd * z0;
        theta[1] += -eta * grad[1] + sd * z1;
    } else { /* RX_STEP_SGD */
        theta[0] -= eta * grad[0];
        theta[1] -= eta * grad[1];
    }
    /* rx__target_eval_pe at k + 1 */
    double e, g0, g1;
    m25_energy(t->u.m25.confine_r2, theta, &e, &g0, &g1);
    if (t->energy_noise_sd > 0.0) {
        if (zpre) {
            z0 = zpre[2];
        } else {
            rx__stream_init_inl(&s, seed, entity, RX_STREAM_ENERGYNOISE,
                                k + 1);
            z0 = rx__zig_normal_inl(&s);
        }
        e += t->energy_noise_sd * z0;
    }
    if (t->grad_noise_sd > 0.0) {
        if (zpre) {
            z0 = zpre[3];
            z1 = zpre[4];
        } else {
            rx__stream_init_inl(&s, seed, entity, RX_STREAM_GRADNOISE, k + 1);
            z0 = rx__zig_normal_inl(&s);
            z1 = rx__zig_normal_inl(&s);
        }
        g0 += t->grad_noise_sd * z0;
        g1 += t->grad_noise_sd * z1;
    }
    *energy = e;
    grad[0] = g0;
    grad[1] = g1;
    return isfinite(e) && isfinite(g0) && isfinite(g1) ? RX_OK
                                                       : RX_ENUMERIC;
}

rx_status rx__m25_step(const rx__target *t, double *theta, double *grad,
                       double *energy, int sgld, double eta, double tau,
                       uint64_t seed, uint32_t entity, uint64_t k)
{
    return m25_core(t, theta, grad, energy, sgld, eta, tau, seed, entity, k,
                    NULL);
}

rx_status rx__m25_step_pre(const rx__target *t, double *theta, double *grad,
                           double *energy, int sgld, double eta, double tau,
                           const double zpre[5])
{
    return m25_core(t, theta, grad, energy, sgld, eta, tau, 0, 0, 0, zpre);
}

void rx__m25_draws(const rx__target *t, uint64_t seed, uint32_t entity,
                   uint64_t k, double z[5])
{
    m25_draws(t, 1, seed, entity, k, z);
}

rx_status rx__mixture25_init(rx__target *t, const rx_config *cfg)
{
    t->dim = 2;
    t->eval = eval_m25;
    t->fused_m25 = 1;
    t->u.m25.confine_r2 = cfg->target.confine_radius2;
    return RX_OK;
}
