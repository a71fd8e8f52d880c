/*
 * The chain-step, inline: both run loops (run.c, partner.c) call it from
 * one site each, in their hot loops (a 2-D chain-step is about 100 ns),
 * so it is compiled into each of them as before the engine was split.
 */
#ifndef RX_ENGINE_CHAIN_H
#define RX_ENGINE_CHAIN_H

#include "wing.h"

/*
 * The step phase of particle i at position q in iteration k: the sample of
 * iteration k-1 (row >= 0), the move rule, the energy and gradient at the
 * new point (VR, rollback and the fault-injection aid included), and its
 * energy into Ek[i]. Used by both synchronisation designs.
 */
static inline void step_one(rx_ctx *c, rx__tstate *ts, int i, int q,
                            int64_t k, double cyc, int64_t row, double *Ek,
                            int64_t sa_every, int timing, double *t_en)
{
    const uint64_t seed = c->cfg.seed;
    const int rollback = c->cfg.faults.policy == 1;
    const int64_t inj_k = c->cfg.faults.inject_iteration;
    const int inj_i = c->cfg.faults.inject_particle;
    const int vr = c->vc.on;
    rx__particle *p = c->parts[i];
    if (row >= 0)
        store_row(c, ts, p, q, row);
    double last = p->energy;
    rx_status st;
    if (c->fused) {
        /* the 2-D target under SGLD or SGD with ziggurat draws: the same
         * numbers from one call, the draws and the energy inlined */
        p->last_q = q;
        const int noise = c->fused_noise[q != 0];
        const double eta = ts->x.eta[q] * cyc * p->step_scale;
        if (p->zb_n > 0 && p->zb_k == k) { /* drawn ahead while waiting */
            st = rx__m25_step_pre(c->target, p->theta, p->grad, &p->energy,
                                  noise, eta, ts->x.tau[q],
                                  p->zb + 5 * (k % RX_ZB));
            p->zb_k++;
            p->zb_n--;
        } else {
            st = rx__m25_step(c->target, p->theta, p->grad, &p->energy,
                              noise, eta, ts->x.tau[q], seed,
                              (uint32_t)i, (uint64_t)k);
        }
    } else {
        st = rx__step_eval(c, ts, p, i, q, k, cyc, timing, t_en);
    }
    int rolled = 0;
    if (k == inj_k && i == inj_i && st == RX_OK && c->dim) {
        p->grad[0] = NAN; /* faults.inject_*: testing aid */
        st = RX_ENUMERIC;
    }
    if (st == RX_ENUMERIC && rollback &&
        p->rollbacks < c->cfg.faults.max_rollbacks) {
        /* back to the state before this step, half step */
        rollback_copy(p, c->dim, c->slen, 0);
        p->step_scale *= 0.5;
        p->rollbacks++;
        p->last_rollback_k = k;
        st = RX_OK;
        rolled = 1;
    }
    if (st == RX_OK && vr && !rolled)
        st = rx__vr_after_eval(c, ts, p, i, k);
    if (st != RX_OK)
        rx__particle_fail(c, ts, (int)(k & 1), st, i, q, k, last,
                          isfinite(p->energy) ? bad_coord(p->grad, c->dim)
                                              : -1);
    Ek[i] = p->energy;
    rx__rec_hit(&c->rec, i, k, p->energy); /* hit.rho: hitting time */
    /* the partner design updates a bias here; the barrier design in its
     * step 3, after the barrier (rx__bias_step3) */
    if (c->bias.type && c->partner && st == RX_OK)
        rx__bias_after_step(c, ts, p, i, q, k, last);
    if (sa_every > 0 && k % sa_every == 0)
        p->var_raw[k & 1] = rx__target_noise_var(
            c->target, ts->tws, p->theta,
            c->cfg.variance.samples, seed,
            (uint32_t)i, (uint64_t)k);
}

#endif
