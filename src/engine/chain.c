/*
 * The chain-step's out-of-line parts: the generic step (any rule, any
 * target), the control-variate glue of variance reduction, the sigma^2
 * estimate's stochastic approximation, and the noise that a thread
 * waiting at the barrier draws for other threads' chains. The inline
 * chain-step both loops call is in chain.h.
 */
#define _GNU_SOURCE
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "../estimate/sigma2.h"
#include "wing.h"

/*
 * One stochastic-approximation step of sigma_p^2 (src/estimate/sigma2.h)
 * at iteration k, after the exchange (replicated on every thread): the
 * raw estimate of pair p from the particles now at p and p+1, each
 * particle's variance from J noisy energies at the point it reached in
 * this iteration's step.
 */
void rx__sigma2_sa(const rx_ctx *c, rx__xstate *xs, int64_t k)
{
    const int P = c->P;
    int64_t m = ++xs->sa_count;
    const double g = rx__sigma2_gain(c->cfg.variance.gamma, m);
    for (int p = 0; p < P - 1; ++p) {
        const double raw =
            rx__sigma2_raw(c->parts[xs->at[p]]->var_raw[k & 1],
                           c->parts[xs->at[p + 1]]->var_raw[k & 1],
                           c->cfg.variance.difference);
        xs->s2hat[p] = rx__sigma2_step(xs->s2hat[p], raw, g, m);
    }
}

/*
 * The partner design's bias step for particle i at position q, right
 * after its energy of iteration k: the SA update of the state of position
 * q (or of particle i) with that energy, then the particle's log-weight.
 * The partner design runs only rows without RX__BIAS_NEEDS_GLOBAL_UPDATE
 * (partner_applies): each state is then touched in iteration k by this
 * call alone, once, n = 1, so the states get the bits of step 3 in
 * position order (rx__bias_step3), whatever thread makes the call. The
 * multiplier of k + 1 reads the state after the partner hand-off of k.
 */
void rx__bias_after_step(rx_ctx *c, rx__tstate *ts, rx__particle *p, int i,
                         int q, int64_t k, double last)
{
    const rx__bias_type *T = c->bias.type;
    void *bs = bias_state_of(c, i, q);
    const double tau = ts->x.tau[q];
    rx_status st = T->update(&c->bias.par, bs, 1, &p->energy, &tau, k, NULL);
    if (st != RX_OK) {
        rx__particle_fail(c, ts, (int)(k & 1), st, i, q, k, last, -1);
        return;
    }
    p->logw = T->log_weight(&c->bias.par, bs, p->energy, tau);
}

/* The first position in q0..q1-1 whose energy is not finite (q0 if none):
 * where a failed update points. */
static int bad_position(const double *U, int q0, int q1)
{
    for (int q = q0; q < q1; ++q)
        if (!isfinite(U[q]))
            return q;
    return q0;
}

/*
 * Step 3 of iteration k under the barrier design (design.md, "One
 * iteration"), after the barrier that follows every chain's energy and
 * before the exchange of k: the bias update from the energies of the
 * particles at positions 0..P-1 (Ek by particle, the map ts->x.at of the
 * step of k), then each of those particles' log-weight with the state
 * just after the update. A shared state (one for all chains): thread 0
 * alone, one call with the P energies and temperatures in position order
 * (scratch: 2 P doubles). One state per position or per particle: thread
 * t the positions of its block [t P / nthr, (t + 1) P / nthr) in order,
 * one call with n = 1 each; every state gets exactly one call, and the
 * states are independent, so the bits are those of one thread in
 * position order for any team. The caller's next barrier publishes the
 * states and log-weights before step 1 of k + 1. A failure (an energy
 * that cannot be binned) goes to the slot of k.
 */
void rx__bias_step3(rx_ctx *c, rx__tstate *ts, const double *Ek, int64_t k,
                    int t, int nthr, double *scratch)
{
    const rx__bias_type *T = c->bias.type;
    const rx__bias_params *par = &c->bias.par;
    const int P = c->P;
    const int32_t *at = ts->x.at;
    const double *tau = ts->x.tau;
    if (T->share == RX__BIAS_SHARED) {
        if (t != 0)
            return;
        double *U = scratch, *tq = scratch + P;
        for (int q = 0; q < P; ++q) {
            U[q] = Ek[at[q]];
            tq[q] = tau[q];
        }
        void *bs = rx__bias_state(&c->bias, 0);
        rx_status st = T->update(par, bs, P, U, tq, k, NULL);
        if (st != RX_OK) {
            const int q = bad_position(U, 0, P);
            rx__particle_fail(c, ts, (int)(k & 1), st, at[q], q, k, NAN,
                              -1);
            return;
        }
        for (int q = 0; q < P; ++q)
            c->parts[at[q]]->logw = T->log_weight(par, bs, U[q], tq[q]);
        return;
    }
    const int q0 = (int)((int64_t)t * P / nthr);
    const int q1 = (int)((int64_t)(t + 1) * P / nthr);
    for (int q = q0; q < q1; ++q) {
        const int i = at[q];
        rx__particle *p = c->parts[i];
        void *bs = bias_state_of(c, i, q);
        rx_status st = T->update(par, bs, 1, &Ek[i], &tau[q], k, NULL);
        if (st != RX_OK) {
            rx__particle_fail(c, ts, (int)(k & 1), st, i, q, k, NAN, -1);
            continue;
        }
        p->logw = T->log_weight(par, bs, Ek[i], tau[q]);
    }
}

double rx__bias_xshift(const void *ctx, const rx__xstate *xs, int a, int b,
                       double ea, double eb)
{
    const rx__bias *B = &((const rx_ctx *)ctx)->bias;
    const int per_particle = B->type->share == RX__BIAS_PER_PARTICLE;
    const int sa = B->n == 1 ? 0 : per_particle ? xs->at[a] : a;
    const int sb = B->n == 1 ? 0 : per_particle ? xs->at[b] : b;
    return B->type->swap_shift(&B->par, rx__bias_state(B, sa),
                               rx__bias_state(B, sb), ea, eb, xs->tau[a],
                               xs->tau[b]);
}

/*
 * Control variates after particle i's gradient pass of iteration k (eval
 * counter k + 1, per-example losses in ts->vrw->pe): at a period end
 * ((k + 1) % m == 0) first the variance and adaptive c with the OLD anchor
 * (resgld_vr.md 3.4), then the anchor becomes theta and U(anchor) is
 * recomputed; then the VR energy replaces p->energy. k = -1: set-up.
 */
rx_status rx__vr_after_eval(rx_ctx *c, rx__tstate *ts, rx__particle *p,
                            int i, int64_t k)
{
    const rx__vrconf *vc = &c->vc;
    const rx__target *t = c->target;
    rx__vrws *vw = ts->vrw;
    const uint64_t seed = c->cfg.seed;
    double t0 = rx__now();
    rx_status st = RX_OK;
    const int refresh = k < 0 || (k + 1) % vc->m == 0;
    if (k >= 0 && refresh) {
        double vv = 0.0, vs = 0.0;
        st = rx__vr_period_end(t, ts->tws, vw, vc, p->theta, p->anchor,
                               p->vr_lhat, &p->vr_c, &p->vr_nc, seed,
                               (uint32_t)i, (uint64_t)k, &vv, &vs,
                               &p->vr_cost);
        if (c->s2_estimate)
            p->var_raw[k & 1] = vv;
    }
    if (st == RX_OK && refresh) {
        memcpy(p->anchor, p->theta, sizeof(double) * c->dim);
        st = rx__vr_anchor_energy(t, ts->tws, vw, vc, p->anchor, seed,
                                  (uint32_t)i,
                                  k < 0 ? UINT64_MAX : (uint64_t)k,
                                  &p->vr_lhat, &p->vr_cost);
    }
    if (st == RX_OK) {
        const int32_t *idx = t->cv.batch(t, ts->tws, (uint32_t)i,
                                         (uint64_t)(k + 1));
        st = rx__vr_energy(t, ts->tws, vw, p->theta, vw->pe, idx, p->anchor,
                           refresh ? vw->pe : NULL, p->vr_lhat, p->vr_c,
                           &p->energy, &p->vr_cost);
    }
    p->vr_cost.seconds += rx__now() - t0;
    return st;
}

/*
 * Noise drawn ahead (balance_noise). Under the barrier design a thread that
 * reaches the barrier first would only spin there; instead it draws the
 * Langevin noise of other threads' chains (their step streams are pure
 * functions of (seed, chain, k), so any thread can draw them) into the
 * chain's buffer: for the current iteration k where the owner has not
 * reached the chain yet (that shortens the step phase everybody waits
 * for), else for k + 1. Load balance below the granularity of one chain,
 * with the same numbers: the owner uses the buffer's draws and continues
 * the stream after them. A chain's noise of an iteration is claimed once,
 * by its owner (which then draws it as usual) or by a helper (CAS on
 * claim, values k + 1); a helper drawing for k + 1 hands over after
 * RX_ZHELP_CHUNK draws once the barrier has opened, and the owner draws
 * the rest. A helper claims k + 1 only after the owner has passed the
 * chain in k (taken), so the owner never finds its k claimed for a later
 * iteration.
 */
enum { RX_ZHELP_MIN_DIM = 256, RX_ZHELP_CHUNK = 4 * RX_STEP_CHUNK };

/* The owner of chain i at iteration k: NULL when it draws its noise
 * itself; else the draws made ahead (*nz of them) and *s the stream after
 * them. */
static const double *zhelp_take(rx__zhelp *h, int64_t k, rx__stream *s,
                                size_t *nz)
{
    const long long want = (long long)k + 1;
    const double *z = NULL;
    long long cl = atomic_load_explicit(&h->claim, memory_order_acquire);
    while (cl < want &&
           !atomic_compare_exchange_weak_explicit(&h->claim, &cl, want,
                                                  memory_order_acq_rel,
                                                  memory_order_acquire))
        ;
    if (cl == want) { /* a helper's: wait until it is done */
        const int b = (int)(k & 1);
        spin_until(&h->ready[b], want, 1);
        *nz = h->nz[b];
        *s = h->s[b];
        z = h->z[b];
    }
    atomic_store_explicit(&h->taken, want, memory_order_release);
    return z;
}

/* A helper waiting at a barrier (sense not yet s): draw chain i's noise of
 * iteration kn unless someone has claimed it. */
static void zhelp_fill(rx_ctx *c, rx__tstate *ts, int i, int64_t kn,
                       const rx__barrier *b, int s, int timing)
{
    rx__zhelp *h = &c->zh[i];
    const long long want = (long long)kn + 1;
    long long cl = atomic_load_explicit(&h->claim, memory_order_acquire);
    for (;;) {
        if (cl >= want)
            return;
        if (atomic_compare_exchange_weak_explicit(
                &h->claim, &cl, want, memory_order_acq_rel,
                memory_order_acquire))
            break;
    }
    const double t0 = timing ? rx__now() : 0.0;
    const int bf = (int)(kn & 1);
    rx__stream st;
    rx__stream_init(&st, c->cfg.seed, (uint32_t)i, RX_STREAM_STEP,
                    (uint64_t)kn);
    st.normal = (int)c->cfg.rng.normal;
    size_t j0 = 0;
    while (j0 < c->dim) {
        size_t n = c->dim - j0 < RX_ZHELP_CHUNK ? c->dim - j0
                                                : RX_ZHELP_CHUNK;
        rx__normal_fill(&st, h->z[bf] + j0, n);
        j0 += n;
        /* the barrier opened (never while the owner still needs this
         * iteration's draws): the owner draws the rest */
        if (atomic_load_explicit(&b->sense, memory_order_relaxed) == s)
            break;
    }
    h->nz[bf] = j0;
    h->s[bf] = st;
    atomic_store_explicit(&h->ready[bf], want, memory_order_release);
    ts->helped++;
    if (timing)
        ts->help_s += rx__now() - t0;
}

/* barrier_wait after the step phase of iteration k, drawing noise while
 * waiting for the chains of other threads (outside own_lo..own_hi-1), the
 * highest index first (the owners step in increasing order); cur: the
 * chains are stepped in k (not the step phase a resumed run skips). */
void rx__barrier_wait_help(rx_ctx *c, rx__tstate *ts, rx__barrier *b,
                           int *local_sense, int64_t k, int cur, int own_lo,
                           int own_hi, int timing)
{
    int s;
    if (barrier_arrive(b, local_sense, &s))
        return;
    for (int i = c->P - 1; i >= 0; --i) {
        if (i >= own_lo && i < own_hi)
            continue;
        if (atomic_load_explicit(&b->sense, memory_order_acquire) == s)
            return;
        /* the owner has passed chain i in k: help with k + 1 */
        const int64_t kn =
            atomic_load_explicit(&c->zh[i].taken, memory_order_acquire) >
                    (long long)k
                ? k + 1
                : k;
        if (kn < c->cfg.iterations && (kn > k || cur))
            zhelp_fill(c, ts, i, kn, b, s, timing);
    }
    barrier_spin(b, s);
}

/* The buffers of balance_noise when the run uses them, else NULL. */
rx__zhelp *rx__zhelp_alloc(const rx_ctx *c)
{
    const rx_config *g = &c->cfg;
    if (!g->balance_noise || c->partner || c->nt_req < 2 ||
        c->dim < RX_ZHELP_MIN_DIM || !rx__step_draws_dim(g->step.target) ||
        !rx__step_draws_dim(g->step.others))
        return NULL;
    rx__zhelp *zh = rx__calloc_aligned(sizeof *zh * (size_t)c->P,
                                       RX_CACHELINE);
    for (int i = 0; zh && i < c->P; ++i) {
        atomic_init(&zh[i].claim, 0);
        atomic_init(&zh[i].taken, 0);
        atomic_init(&zh[i].ready[0], 0);
        atomic_init(&zh[i].ready[1], 0);
        for (int b = 0; b < 2; ++b) {
            zh[i].z[b] = rx__calloc_aligned(sizeof(double) * c->dim,
                                            RX_CACHELINE);
            if (!zh[i].z[b]) {
                for (int u = 0; u <= i; ++u)
                    for (int v = 0; v < 2; ++v)
                        rx__free_aligned(zh[u].z[v]);
                rx__free_aligned(zh);
                return NULL; /* no memory: run without it */
            }
        }
    }
    return zh;
}

void rx__zhelp_free(rx_ctx *c)
{
    for (int i = 0; c->zh && i < c->P; ++i)
        for (int b = 0; b < 2; ++b)
            rx__free_aligned(c->zh[i].z[b]);
    rx__free_aligned(c->zh);
    c->zh = NULL;
}

/* target.box: a proposal with a coordinate out of [lo, hi] is rejected
 * whole, the particle back at the point it stepped from (a NaN proposal
 * passes, to fail in the evaluation as without the box). */
static void box_reject(double *theta, const double *keep, size_t dim,
                       double lo, double hi)
{
    for (size_t j = 0; j < dim; ++j)
        if (theta[j] < lo || theta[j] > hi) {
            memcpy(theta, keep, sizeof(double) * dim);
            return;
        }
}

/* The generic chain-step: the update rule (a step out of target.box
 * undone), then the (noisy) energy and gradient at the new point; *t_en:
 * the evaluation's seconds. */
rx_status rx__step_eval(rx_ctx *c, rx__tstate *ts, rx__particle *p, int i,
                        int q, int64_t k, double cyc, int timing,
                        double *t_en)
{
    const uint64_t seed = c->cfg.seed;
    const rx_step_kind kind_target = c->cfg.step.target;
    const rx_step_kind kind_other = c->cfg.step.others;
    const int vr = c->vc.on;
    rx__stream s;
    rx__stream_init(&s, seed, (uint32_t)i, RX_STREAM_STEP,
                    (uint64_t)k);
    s.normal = (int)c->cfg.rng.normal;
    rx_step_kind kind = q == 0 ? kind_target : kind_other;
    /* a trajectory round starts at k (step.reset_every): a fresh state
     * at q, whatever the particle held or where it was */
    const int fresh = p->state && rx__step_round_start(&c->sc, k);
    if ((q != p->last_q || fresh) && p->state) {
        /* a fresh state's random parts: their own stream, keyed by the
         * iteration (the step stream's draws may be drawn ahead) */
        int q0 = p->last_q;
        rx__stream sm;
        rx__stream_init(&sm, seed, (uint32_t)i, RX_STREAM_STATE,
                        (uint64_t)k + 1);
        sm.normal = s.normal;
        if (fresh)
            rx__step_init(kind, &c->sc, p->state, c->dim, ts->x.eta[q],
                          ts->x.tau[q], &sm);
        else
            rx__step_move(c->cfg.step.state_on_swap,
                          q0 == 0 ? kind_target : kind_other, kind, &c->sc,
                          p->state, c->dim, ts->x.eta[q0], ts->x.tau[q0],
                          ts->x.eta[q], ts->x.tau[q], &sm);
    }
    p->last_q = q;
    if (c->cfg.faults.policy == 1)
        rollback_copy(p, c->dim, c->slen, 1);
    size_t nz = 0;
    const double *zpre = c->zh ? zhelp_take(&c->zh[i], k, &s, &nz) : NULL;
    /* the bias's gradient multiplier from the energy at the current
     * point (design.md step 1); exactly 1.0 without a bias */
    const double gm = c->bias.type
                          ? c->bias.type->grad_mult(&c->bias.par,
                                                    bias_state_of(c, i, q),
                                                    p->energy, ts->x.tau[q])
                          : 1.0;
    const double *g = p->grad;
    if (c->path) {
        /* grad U_0 + beta (grad U - grad U_0), from the full gradient the
         * particle holds */
        double u0;
        rx_status sr = rx__target_ref(c->target, p->theta, &u0, ts->gpath);
        if (sr != RX_OK)
            return sr;
        const double b = ts->x.beta[q];
        for (size_t j = 0; j < c->dim; ++j)
            ts->gpath[j] += b * (p->grad[j] - ts->gpath[j]);
        g = ts->gpath;
    }
    if (c->box)
        memcpy(ts->box_keep, p->theta, sizeof(double) * c->dim);
    rx__step_apply_g(kind, &c->sc, p->theta, p->state, g, gm,
                     c->dim,
                     ts->x.eta[q] * cyc * p->step_scale,
                     ts->x.tau[q], &s, zpre, nz);
    if (c->box)
        box_reject(p->theta, ts->box_keep, c->dim, c->cfg.init.low,
                   c->cfg.init.high);
    double tg = vr || timing ? rx__now() : 0.0;
    rx_status st = rx__target_eval_pe(
        c->target, ts->tws, p->theta, &p->energy, p->grad, seed,
        (uint32_t)i, (uint64_t)k + 1, vr ? ts->vrw->pe : NULL);
    if (st == RX_OK && c->path)
        st = rx__path_energy(c, p);
    if (vr || timing) {
        double dg = rx__now() - tg;
        p->grad_s += vr ? dg : 0.0;
        *t_en += dg;
    }
    return st;
}

rx_status rx__path_energy(const rx_ctx *c, rx__particle *p)
{
    double u0;
    rx_status st = rx__target_ref(c->target, p->theta, &u0, NULL);
    if (st == RX_OK) {
        p->energy -= u0;
        if (!isfinite(p->energy))
            st = RX_ENUMERIC;
    }
    return st;
}

/*
 * The log Z record of kept row `row` at position q: the particle's
 * U_like where it is exact (an analytic or callback target without
 * injected energy noise), else the exact one (the network: the full-data
 * sum of its losses, which a minibatch's exp-average would bias); at
 * position P (beta = 0) also its reference energy U_0, which the end of
 * the run checks against the reference's own law. A failure leaves NaN,
 * which the estimate reports as not valid.
 */
void rx__path_record(rx_ctx *c, rx__tstate *ts, const rx__particle *p,
                     int q, int64_t row)
{
    const rx__target *t = c->target;
    double u = p->energy;
    if ((t->eval_ws || t->energy_noise_sd > 0.0) &&
        rx__target_like_exact(t, ts->tws, p->theta, &u) != RX_OK)
        u = NAN;
    c->logz_u[(size_t)row * (size_t)c->P + (size_t)q] = u;
    if (q == c->P - 1) {
        double u0;
        if (rx__target_ref(t, p->theta, &u0, NULL) != RX_OK)
            u0 = NAN;
        c->logz_u[(size_t)c->logz_rows * (size_t)c->P + (size_t)row] = u0;
    }
}
