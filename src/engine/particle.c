/*
 * Particle layout: one aligned block per particle (its header, then theta,
 * gradient, optimiser state, the rollback copies, the control variate's
 * anchor and the drawn-ahead normals, each in whole cache lines), first
 * touched by the thread that owns it; and the packed form of its
 * resumable state (checkpoints).
 */
#define _GNU_SOURCE
#include <stdlib.h>
#include <string.h>

#include "wing.h"

/* A particle's block: the header, then each vector (theta, grad, ...) in
 * whole cache lines (rx__particle_alloc); set once before the threads
 * start, for rx__particle_alloc and prefetch_particle (partner.c). The
 * state holds c->slen doubles (the rules' rows), the others dim. */
void rx__particle_sizes(rx_ctx *c)
{
    c->part_hdr = (sizeof(rx__particle) + RX_CACHELINE - 1) / RX_CACHELINE *
                  RX_CACHELINE;
    const size_t vec = (c->dim * sizeof(double) + RX_CACHELINE - 1) /
                       RX_CACHELINE * RX_CACHELINE;
    c->part_vec = vec ? vec : RX_CACHELINE;
    c->part_svec = (c->slen * sizeof(double) + RX_CACHELINE - 1) /
                   RX_CACHELINE * RX_CACHELINE;
}

/* Particle i's fresh state: the row's init for the rule at its first
 * position i, random parts from the stream (seed, i, RX_STREAM_STATE, 0). */
static void state_init(const rx_ctx *c, rx__particle *p, int i)
{
    memset(p->state, 0, sizeof(double) * c->slen);
    const rx_step_kind kind = i == 0 ? c->cfg.step.target
                                     : c->cfg.step.others;
    rx__stream s;
    rx__stream_init(&s, c->cfg.seed, (uint32_t)i, RX_STREAM_STATE, 0);
    s.normal = (int)c->cfg.rng.normal;
    rx__step_init(kind, &c->sc, p->state, c->dim, c->eta[i], c->tau[i], &s);
}

rx_status rx__particle_alloc(rx_ctx *c, int i, rx__tws *tws)
{
    const size_t hdr = c->part_hdr, v = c->part_vec;
    const size_t sv = c->slen ? c->part_svec : 0;
    const int rollback = c->cfg.faults.policy == 1;
    /* theta, grad, state; their rollback copies; the anchor; the normals
     * drawn ahead */
    const size_t set = 2 * v + sv;
    const size_t zbytes = c->bank ? sizeof(double) * 5 * RX_ZB : 0;
    const size_t bytes = hdr + (rollback ? 2 * set : set) +
                         (c->vc.on ? v : 0) + zbytes;
    char *b = rx__alloc_aligned(bytes, RX_CACHELINE);
    if (!b)
        return RX_ENOMEM;
    rx__particle *p = (rx__particle *)b;
    char *o = b + hdr;
    p->theta = (double *)o;
    p->grad = (double *)(o + v);
    p->state = sv ? (double *)(o + 2 * v) : NULL;
    o += set;
    p->good_theta = rollback ? (double *)o : NULL;
    p->good_grad = rollback ? (double *)(o + v) : NULL;
    p->good_state = rollback && sv ? (double *)(o + 2 * v) : NULL;
    o += rollback ? set : 0;
    p->anchor = c->vc.on ? (double *)o : NULL;
    o += c->vc.on ? v : 0;
    p->zb = c->bank ? (double *)o : NULL;
    p->zb_k = 0;
    p->zb_n = 0;
    p->vr_lhat = 0.0;
    p->vr_c = c->vc.c0;
    p->vr_nc = 0;
    memset(&p->vr_cost, 0, sizeof p->vr_cost);
    p->grad_s = 0.0;
    p->step_scale = 1.0;
    p->var_raw[0] = p->var_raw[1] = 0.0; /* checkpointed: defined bytes */
    p->rollbacks = 0;
    p->last_rollback_k = -1;
    p->last_q = i;
    p->vis = p->last_end = p->l1_state = 0;
    if (p->state)
        state_init(c, p, i);
    p->id = i;
    p->energy = 0.0;
    c->parts[i] = p;
    /* first touch by the owning thread: initial draw */
    if (!rx__network_init_point(c->target, p->theta, c->cfg.seed,
                                (uint32_t)i, tws)) {
        rx__stream s;
        rx__stream_init(&s, c->cfg.seed, (uint32_t)i, RX_STREAM_INIT, 0);
        double lo = c->cfg.init.low, hi = c->cfg.init.high;
        for (size_t j = 0; j < c->dim; ++j)
            p->theta[j] = lo + (hi - lo) * rx__uniform(&s);
    }
    for (size_t j = 0; j < c->dim; ++j)
        p->grad[j] = 0.0;
    return RX_OK;
}

/* Doubles of state in a packed particle: slen, at least dim (zeros for a
 * stateless rule), so the older rules keep their layout. */
static size_t part_slen(size_t dim, size_t slen)
{
    return slen > dim ? slen : dim;
}

void rx__part_pack(const rx__particle *p, size_t dim, size_t slen,
                   double *out)
{
    out[0] = p->energy;
    out[1] = p->var_raw[0];
    out[2] = p->var_raw[1];
    out[3] = (double)p->last_q;
    out[4] = p->step_scale;
    out[5] = (double)p->rollbacks;
    out[6] = (double)p->last_rollback_k;
    double *v = out + RX__PSCAL;
    memcpy(v, p->theta, sizeof(double) * dim);
    memcpy(v + dim, p->grad, sizeof(double) * dim);
    const size_t ps = part_slen(dim, slen);
    memset(v + 2 * dim, 0, sizeof(double) * ps);
    if (p->state)
        memcpy(v + 2 * dim, p->state, sizeof(double) * slen);
    if (p->anchor) {
        double *a = v + 2 * dim + ps;
        memcpy(a, p->anchor, sizeof(double) * dim);
        double *q = a + dim;
        q[0] = p->vr_lhat;
        q[1] = p->vr_c;
        q[2] = (double)p->vr_nc;
        q[3] = (double)p->vr_cost.fwd_rows;
        q[4] = (double)p->vr_cost.anchor_rows;
        q[5] = (double)p->vr_cost.anchor_passes;
        q[6] = (double)p->vr_cost.period_ends;
        q[7] = p->vr_cost.var_vr_sum;
        q[8] = p->vr_cost.var_std_sum;
        q[9] = p->vr_cost.seconds;
        q[10] = p->grad_s;
    }
}

size_t rx__part_stride(const rx_ctx *c)
{
    return RX__PSCAL + 2 * c->dim + part_slen(c->dim, c->slen) +
           (c->vc.on ? c->dim + RX__VRSCAL : 0);
}

void rx__part_unpack(rx__particle *p, size_t dim, size_t slen,
                     const double *in)
{
    p->energy = in[0];
    p->var_raw[0] = in[1];
    p->var_raw[1] = in[2];
    p->last_q = (int32_t)in[3];
    p->step_scale = in[4];
    p->rollbacks = (int32_t)in[5];
    p->last_rollback_k = (int64_t)in[6];
    const double *v = in + RX__PSCAL;
    memcpy(p->theta, v, sizeof(double) * dim);
    memcpy(p->grad, v + dim, sizeof(double) * dim);
    if (p->state)
        memcpy(p->state, v + 2 * dim, sizeof(double) * slen);
    if (p->anchor) {
        const double *a = v + 2 * dim + part_slen(dim, slen);
        memcpy(p->anchor, a, sizeof(double) * dim);
        const double *q = a + dim;
        p->vr_lhat = q[0];
        p->vr_c = q[1];
        p->vr_nc = (int64_t)q[2];
        p->vr_cost.fwd_rows = (int64_t)q[3];
        p->vr_cost.anchor_rows = (int64_t)q[4];
        p->vr_cost.anchor_passes = (int64_t)q[5];
        p->vr_cost.period_ends = (int64_t)q[6];
        p->vr_cost.var_vr_sum = q[7];
        p->vr_cost.var_std_sum = q[8];
        p->vr_cost.seconds = q[9];
        p->grad_s = q[10];
    }
}
