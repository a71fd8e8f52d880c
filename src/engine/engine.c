/*
 * The run loop: P chains inside ONE OpenMP parallel region. The only file
 * with OpenMP. Per iteration k:
 *   step + energy (each thread its own particles)   -- barrier --
 *   exchange + record (exchange replicated on every thread over its own
 *   copy of the maps; thread 0 records).
 * The exchange is a pure function of (energies, ladder, seed, k), so every
 * thread computes the same swaps and needs no second barrier; energies are
 * double-buffered by the parity of k so a fast thread writing k+1 never
 * overwrites what a slow thread still reads for k.
 */
#define _GNU_SOURCE /* sched_yield */
#include <math.h>
#include <omp.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../ladder/ladder.h"
#include "../step/step.h"
#include "ctx.h"
#include "../io/config.h"
#include "../model/model.h"

/*
 * The per-iteration barrier: sense-reversing, spinning a little and then
 * yielding the core. libgomp's barrier spins for a long time before it
 * sleeps; when another process shares a core that turns every iteration
 * into a scheduler quantum (50-150x slower runs were measured). Spinning
 * with sched_yield keeps sub-microsecond latency on idle cores and hands
 * the core to the late thread on a busy machine. Release/acquire ordering
 * publishes the energies written before the barrier.
 */
typedef struct rx__barrier {
    alignas(RX_CACHELINE) atomic_int count;
    alignas(RX_CACHELINE) atomic_int sense;
    int n;
} rx__barrier;

#define RX_SPINS_BEFORE_YIELD 2000

static inline void cpu_relax(void)
{
#if defined(__x86_64__) || defined(__i386__)
    __builtin_ia32_pause();
#endif
}

/* Arrive at the barrier: 1 for the last thread (which opens it), else 0;
 * *s the sense that opens it. */
static int barrier_arrive(rx__barrier *b, int *local_sense, int *s)
{
    *s = !*local_sense;
    *local_sense = *s;
    if (atomic_fetch_add_explicit(&b->count, 1, memory_order_acq_rel) ==
        b->n - 1) {
        atomic_store_explicit(&b->count, 0, memory_order_relaxed);
        atomic_store_explicit(&b->sense, *s, memory_order_release);
        return 1;
    }
    return 0;
}

/* Wait until the barrier opens with sense s. */
static void barrier_spin(const rx__barrier *b, int s)
{
    unsigned spins = 0;
    while (atomic_load_explicit(&b->sense, memory_order_acquire) != s) {
        if (++spins < RX_SPINS_BEFORE_YIELD)
            cpu_relax();
        else
            sched_yield();
    }
}

static void barrier_wait(rx__barrier *b, int *local_sense)
{
    int s;
    if (!barrier_arrive(b, local_sense, &s))
        barrier_spin(b, s);
}

/*
 * Thread placement. Started from one CPU, the team's threads can share it
 * for a whole short run (measured: 1.7 M chain-steps/s instead of 5 M on 2
 * cores), so when the run uses every CPU the process may run on and the
 * user has not chosen a binding (OMP_PROC_BIND unset), thread t is pinned
 * to the t-th CPU of that set for the run and its previous mask restored
 * afterwards. Placement never changes results, only speed.
 */
typedef struct rx__pin {
#if defined(__linux__)
    cpu_set_t saved;
#endif
    int pinned;
} rx__pin;

static int pin_wanted(int nthreads)
{
#if defined(__linux__)
    if (getenv("OMP_PROC_BIND") || getenv("OMP_PLACES"))
        return 0;
    cpu_set_t m;
    if (sched_getaffinity(0, sizeof m, &m) != 0)
        return 0;
    return CPU_COUNT(&m) == nthreads && nthreads > 1;
#else
    (void)nthreads;
    return 0;
#endif
}

static void pin_thread(rx__pin *pn, int t)
{
    pn->pinned = 0;
#if defined(__linux__)
    if (sched_getaffinity(0, sizeof pn->saved, &pn->saved) != 0)
        return;
    int seen = 0;
    for (int cpu = 0; cpu < CPU_SETSIZE; ++cpu)
        if (CPU_ISSET(cpu, &pn->saved) && seen++ == t) {
            cpu_set_t one;
            CPU_ZERO(&one);
            CPU_SET(cpu, &one);
            pn->pinned = sched_setaffinity(0, sizeof one, &one) == 0;
            return;
        }
#else
    (void)t;
#endif
}

static void unpin_thread(rx__pin *pn)
{
#if defined(__linux__)
    if (pn->pinned)
        sched_setaffinity(0, sizeof pn->saved, &pn->saved);
#endif
    pn->pinned = 0;
}

static int64_t sample_row(const rx_config *c, int64_t k)
{
    if (k < c->record.burn_in)
        return -1;
    int64_t d = k - c->record.burn_in;
    return d % c->record.thin == 0 ? d / c->record.thin : -1;
}

rx_status rx_create(rx_ctx **out, const rx_config *cfg,
                    const rx_callback_target *cb, rx_logger logger,
                    rx_err *err)
{
    if (!out || !cfg)
        return rx__fail(err, RX_EINVAL, "rx_create: out and cfg required");
    *out = NULL;
    rx_status st = rx_config_validate(cfg, err);
    if (st != RX_OK)
        return st;
    rx_ctx *c = calloc(1, sizeof *c);
    if (!c)
        return rx__fail(err, RX_ENOMEM, "rx_create: out of memory");
    c->log = logger;
    c->steal_share = -1.0; /* until a run measures it */
    c->start_s = -1.0;
    st = rx_config_copy(&c->cfg, cfg);
    if (st != RX_OK) {
        rx__fail(err, st, "rx_create: out of memory copying the config");
        goto fail;
    }
    st = rx__target_create(&c->target, cfg, cb, err);
    if (st != RX_OK)
        goto fail;
    c->P = cfg->tempering.n_chains;
    c->dim = c->target->dim;
    c->xc.P = c->P;
    c->xc.W = rx_config_window(cfg);
    c->xc.parity_phase = cfg->tempering.parity_phase;
    c->xc.scheme = cfg->tempering.scheme;
    c->xc.rule = cfg->tempering.rule;
    c->xc.accept_prob = cfg->tempering.accept_prob;
    c->xc.sequential = cfg->tempering.sequential_stats;
    if (c->xc.W > 1 && (cfg->tempering.rule == RX_RULE_METROPOLIS ||
                        cfg->tempering.rule == RX_RULE_BIAS_CORRECTED))
        c->xc.wcorr = cfg->tempering.window_correction == RX_WCORR_LOGW
                          ? log((double)c->xc.W)
                          : cfg->tempering.window_correction;
    c->xc.inv_F = 1.0 / cfg->tempering.sigma2_factor;
    c->s2_estimate = cfg->tempering.sigma2 == RX_SIGMA2_ESTIMATE &&
                     cfg->tempering.rule == RX_RULE_BIAS_CORRECTED;
    if (cfg->energy.fresh_per_pair && cfg->target.energy_noise_sd > 0.0) {
        /* the chains keep exact energies; the rule adds the noise */
        c->xc.fresh_sd = cfg->target.energy_noise_sd;
        c->xc.normal = (int)cfg->rng.normal;
        c->target->energy_noise_sd = 0.0;
    }
    if (cfg->variance_reduction.enabled) {
        const double cf = cfg->variance_reduction.coefficient;
        c->vc.on = 1;
        c->vc.m = cfg->variance_reduction.period;
        c->vc.adaptive = cf == RX_VR_ADAPTIVE;
        c->vc.c0 = c->vc.adaptive ? -1.0 : cf;
        c->vc.gamma = cfg->variance_reduction.gamma;
        c->vc.anchor_batch = cfg->variance_reduction.anchor_batch;
        c->vc.J = cfg->variance_reduction.samples > 0
                      ? cfg->variance_reduction.samples
                      : cfg->variance.samples;
        if (!c->target->cv.losses) {
            st = rx__fail(err, RX_ECONFIG,
                          "variance_reduction: the target has no "
                          "per-example losses");
            goto fail;
        }
        if (c->vc.anchor_batch > c->target->cv.N) {
            st = rx__fail(err, RX_ECONFIG,
                          "variance_reduction.anchor_batch: %lld rows, but "
                          "the training set has %lld (0 = the full data)",
                          (long long)c->vc.anchor_batch,
                          (long long)c->target->cv.N);
            goto fail;
        }
    }
    c->sc.momentum = cfg->step.momentum;
    c->sc.rms_alpha = cfg->step.rms_alpha;
    c->sc.rms_eps = cfg->step.rms_eps;
    c->sc.sghmc_vhat = cfg->step.sghmc_vhat;
    c->ac.P = c->P;
    c->ac.adapt = cfg->tempering.scheme == RX_SCHEME_NONE ? RX_ADAPT_NONE
                                                        : cfg->ladder.adapt;
    c->ac.project = cfg->ladder.monotone_projection;
    /* no swaps, nothing to adapt: scheme none keeps C and the ladders */
    c->ac.adapt_c = cfg->tempering.rule == RX_RULE_DETERMINISTIC &&
                    cfg->correction.adapt &&
                    cfg->tempering.scheme != RX_SCHEME_NONE;
    c->ac.S = cfg->tempering.target_swap_rate;
    c->ac.c_scale = cfg->correction.step_scale;
    c->ac.a = cfg->stepsize.a;
    c->ac.b = cfg->stepsize.b;
    c->ac.alpha = cfg->stepsize.alpha;
    c->ac.cap = cfg->stepsize.cap;
    c->ac.round0 = cfg->ladder.barrier_round;
    c->C_final = cfg->correction.init;
    c->xc.seed = cfg->seed;
    c->nt_req = cfg->threads > 0 ? cfg->threads : omp_get_max_threads();
    if (c->nt_req > c->P)
        c->nt_req = c->P;
    if (c->nt_req < 1)
        c->nt_req = 1;

    const size_t P = (size_t)c->P;
    const int64_t K = cfg->iterations;
    /* the config checks the index and the samples of analytic targets;
     * a callback target's dimension is known only here */
    int64_t ns = K > cfg->record.burn_in
                     ? (K - 1 - cfg->record.burn_in) / cfg->record.thin + 1
                     : 0;
    /* all_positions: P rows per kept iteration, position-minor */
    const int64_t per = cfg->record.all_positions ? (int64_t)P : 1;
    double smp_bytes = (double)ns * (double)per * (double)c->dim * 4.0;
    if (smp_bytes > RX_RECORD_LIMIT_BYTES) {
        st = rx__fail(err, RX_ECONFIG,
                      "record.thin: the samples would take %.1f GiB in "
                      "memory; raise thin",
                      smp_bytes / 1073741824.0);
        goto fail;
    }
    c->n_samples = ns * per;
    c->eta = malloc(P * sizeof(double));
    c->tau = malloc(P * sizeof(double));
    c->parts = calloc(P, sizeof *c->parts);
    c->E[0] = rx__calloc_aligned(P * sizeof(double), RX_CACHELINE);
    c->E[1] = rx__calloc_aligned(P * sizeof(double), RX_CACHELINE);
    c->ts = rx__calloc_aligned((size_t)c->nt_req * sizeof(rx__tstate),
                               RX_CACHELINE);
    c->final_at = malloc(P * sizeof(int32_t));
    c->s2_final = malloc(P * sizeof(double));
    if (!c->eta || !c->tau || !c->parts || !c->E[0] || !c->E[1] || !c->ts ||
        !c->final_at || !c->s2_final) {
        st = rx__fail(err, RX_ENOMEM, "rx_create: out of memory");
        goto fail;
    }
    if (ns > 0 && c->dim > 0) {
        c->samples = malloc((size_t)(ns * per) * c->dim * sizeof(float));
        if (!c->samples) {
            st = rx__fail(err, RX_ENOMEM,
                          "rx_create: out of memory for %lld samples",
                          (long long)ns);
            goto fail;
        }
    }
    if (rx__target_is_network(c->target)) {
        rx__evalst *ev = &c->ev;
        ev->on = 1;
        ev->rows = rx__network_rows(c->target, 0);
        ev->ood_rows = rx__network_rows(c->target, 1);
        ev->n_out = rx__network_nout(c->target);
        const size_t R = (size_t)ev->rows, O = (size_t)ev->ood_rows;
        const size_t no = (size_t)ev->n_out;
        int bad = 0;
        for (int m = 0; m < 2; ++m) {
            ev->mean[m] = malloc(sizeof(double) * R * no);
            ev->lmax[m] = malloc(sizeof(double) * R);
            ev->lsum[m] = malloc(sizeof(double) * R);
            ev->ood_mean[m] = malloc(sizeof(double) * (O ? O : 1) * no);
            bad |= !ev->mean[m] || !ev->lmax[m] || !ev->lsum[m] ||
                   !ev->ood_mean[m];
        }
        if (cfg->evaluate.final_ensemble) {
            ev->ens_models = malloc(P * c->dim * sizeof(float));
            bad |= !ev->ens_models;
        }
        if (bad) {
            st = rx__fail(err, RX_ENOMEM,
                          "rx_create: out of memory for the evaluation");
            goto fail;
        }
    }
    rx__ladder_fill(&cfg->ladder.eta, c->P, c->eta);
    rx__ladder_fill(&cfg->ladder.tau, c->P, c->tau);
    st = rx__rec_init(&c->rec, c->P, K, cfg->record.index_every,
                      cfg->record.trace_every);
    /* per-pair sigma^2 columns when the rule's sigma^2 moves */
    if (st == RX_OK && (c->s2_estimate || c->vc.on))
        st = rx__rec_trace_sigma2(&c->rec);
    if (st != RX_OK) {
        rx__fail(err, st, "rx_create: out of memory for the recorders");
        goto fail;
    }
    *out = c;
    return RX_OK;
fail:
    rx_destroy(&c);
    return st;
}

void rx_destroy(rx_ctx **cp)
{
    if (!cp || !*cp)
        return;
    rx_ctx *c = *cp;
    if (c->parts)
        for (int i = 0; i < c->P; ++i)
            rx__free_aligned(c->parts[i]);
    if (c->ts)
        for (int t = 0; t < c->nt_req; ++t) {
            rx__free_aligned(c->ts[t].x.at);
        }
    rx__free_aligned(c->ts);
    free(c->thread_phase_s);
    free(c->final_cut);
    free(c->wait_share);
    free(c->parts);
    rx__free_aligned(c->E[0]);
    rx__free_aligned(c->E[1]);
    free(c->eta);
    free(c->tau);
    free(c->samples);
    for (int m = 0; m < 2; ++m) {
        free(c->ev.mean[m]);
        free(c->ev.lmax[m]);
        free(c->ev.lsum[m]);
        free(c->ev.ood_mean[m]);
    }
    free(c->ev.ens_models);
    rx__xstate_free_resumed(&c->res_x);
    free(c->res_parts);
    free(c->ckpt_path);
    free(c->final_at);
    free(c->s2_final);
    rx__rec_free(&c->rec);
    rx__target_destroy(&c->target);
    rx_config_free(&c->cfg);
    free(c);
    *cp = NULL;
}

const char *rx_errmsg(const rx_ctx *c) { return c ? c->err.msg : ""; }

/* One block per thread: at, pos (P each), ev, u, gate (P-1 each; u is
 * rounded up to a multiple of 4 for the 4-uniform Philox blocks), and the
 * thread's copy of the adaptive state: eta, tau, scratch (P each), C. */
static rx_status tstate_alloc(const rx_ctx *c, rx__tstate *ts, int P)
{
    size_t up = (size_t)P;
    size_t off_pos = up * sizeof(int32_t);
    size_t off_ev = (off_pos + up * sizeof(int32_t) + 7) & ~(size_t)7;
    size_t off_u = off_ev + up * sizeof(rx__pairev);
    size_t off_lad = off_u + (up + 4) * sizeof(double);
    size_t off_gate = off_lad + 8 * up * sizeof(double);
    size_t total = off_gate + up;
    char *b = rx__calloc_aligned(total, RX_CACHELINE);
    if (!b)
        return RX_ENOMEM;
    ts->x.at = (int32_t *)b;
    ts->x.pos = (int32_t *)(b + off_pos);
    ts->x.ev = (rx__pairev *)(b + off_ev);
    ts->x.u = (double *)(b + off_u);
    ts->x.eta = (double *)(b + off_lad);
    ts->x.tau = ts->x.eta + up;
    ts->x.tmp = ts->x.tau + up;
    ts->x.s2hat = ts->x.tmp + 3 * up; /* tmp holds 3P for the barrier */
    ts->x.acc_sum = ts->x.s2hat + up;
    ts->x.beta = ts->x.acc_sum + up;
    for (int p = 0; p < P; ++p)
        ts->x.acc_sum[p] = 0.0;
    ts->x.round = 0;
    ts->x.round_end = c->cfg.ladder.barrier_round - 1;
    {
        const rx_config *cf = &c->cfg;
        double s2 = cf->tempering.sigma2 == RX_SIGMA2_AUTO
                        ? cf->target.energy_noise_sd * cf->target.energy_noise_sd
                    : cf->tempering.sigma2 == RX_SIGMA2_ESTIMATE
                        ? cf->variance.init
                        : cf->tempering.sigma2;
        if (cf->variance.difference &&
            cf->tempering.sigma2 == RX_SIGMA2_AUTO)
            s2 *= 2.0; /* Var(U~p - U~p+1) = 2 sd^2 */
        for (int p = 0; p < P; ++p)
            ts->x.s2hat[p] = s2;
        ts->x.sa_count = 0;
    }
    ts->x.gate = (uint8_t *)(b + off_gate);
    memcpy(ts->x.eta, c->eta, sizeof(double) * up);
    memcpy(ts->x.tau, c->tau, sizeof(double) * up);
    for (int q = 0; q < P; ++q)
        ts->x.beta[q] = 1.0 / ts->x.tau[q];
    ts->x.C = c->cfg.correction.init;
    for (int q = 0; q < P; ++q)
        ts->x.at[q] = ts->x.pos[q] = q;
    for (int p = 0; p < P - 1; ++p)
        ts->x.gate[p] = 1;
    ts->x.nonadjacent_swaps = 0;
    return RX_OK;
}

/* A particle's block: the header, then each vector (theta, grad, ...) in
 * whole cache lines (particle_alloc); set once before the threads start,
 * for particle_alloc and prefetch_particle. */
static void particle_sizes(rx_ctx *c)
{
    c->part_hdr = (sizeof(rx__particle) + RX_CACHELINE - 1) / RX_CACHELINE *
                  RX_CACHELINE;
    const size_t vec = (c->dim * sizeof(double) + RX_CACHELINE - 1) /
                       RX_CACHELINE * RX_CACHELINE;
    c->part_vec = vec ? vec : RX_CACHELINE;
}

static rx_status particle_alloc(rx_ctx *c, int i, rx__tws *tws)
{
    const size_t hdr = c->part_hdr, v = c->part_vec;
    int stateful = rx__step_has_state(c->cfg.step.target) ||
                   rx__step_has_state(c->cfg.step.others);
    const int nv = stateful ? 3 : 2;
    const int rollback = c->cfg.faults.policy == 1;
    const size_t nvec = (size_t)(rollback ? 2 * nv : nv) + (c->vc.on ? 1 : 0);
    const size_t zbytes = c->bank ? sizeof(double) * 5 * RX_ZB : 0;
    char *b = rx__alloc_aligned(hdr + nvec * v + zbytes, RX_CACHELINE);
    if (!b)
        return RX_ENOMEM;
    rx__particle *p = (rx__particle *)b;
    p->theta = (double *)(b + hdr);
    p->grad = (double *)(b + hdr + v);
    p->state = stateful ? (double *)(b + hdr + 2 * v) : NULL;
    p->good_theta = rollback ? (double *)(b + hdr + (size_t)nv * v) : NULL;
    p->good_grad = rollback ? (double *)(b + hdr + (size_t)(nv + 1) * v)
                            : NULL;
    p->good_state = rollback && stateful
                        ? (double *)(b + hdr + (size_t)(nv + 2) * v) : NULL;
    p->anchor = c->vc.on ? (double *)(b + hdr + (nvec - 1) * v) : NULL;
    p->zb = c->bank ? (double *)(b + hdr + nvec * v) : NULL;
    p->zb_k = 0;
    p->zb_n = 0;
    p->vr_lhat = 0.0;
    p->vr_c = c->vc.c0;
    p->vr_nc = 0;
    memset(&p->vr_cost, 0, sizeof p->vr_cost);
    p->grad_s = 0.0;
    p->step_scale = 1.0;
    p->rollbacks = 0;
    p->last_rollback_k = -1;
    p->last_q = i;
    p->vis = p->last_end = p->l1_state = 0;
    if (p->state)
        memset(p->state, 0, sizeof(double) * c->dim);
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

void rx__part_pack(const rx__particle *p, size_t dim, double *out)
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
    if (p->state)
        memcpy(v + 2 * dim, p->state, sizeof(double) * dim);
    else
        memset(v + 2 * dim, 0, sizeof(double) * dim);
    if (p->anchor) {
        double *a = v + 3 * dim;
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
    return RX__PSCAL + 3 * c->dim +
           (c->vc.on ? c->dim + RX__VRSCAL : 0);
}

void rx__part_unpack(rx__particle *p, size_t dim, const double *in)
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
        memcpy(p->state, v + 2 * dim, sizeof(double) * dim);
    if (p->anchor) {
        const double *a = v + 3 * dim;
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

void rx__xstate_copy(rx__xstate *dst, const rx__xstate *src, int P)
{
    const size_t up = (size_t)P;
    memcpy(dst->at, src->at, sizeof(int32_t) * up);
    memcpy(dst->pos, src->pos, sizeof(int32_t) * up);
    memcpy(dst->gate, src->gate, up > 1 ? up - 1 : 0);
    memcpy(dst->eta, src->eta, sizeof(double) * up);
    memcpy(dst->tau, src->tau, sizeof(double) * up);
    memcpy(dst->beta, src->beta, sizeof(double) * up);
    memcpy(dst->s2hat, src->s2hat, sizeof(double) * up);
    memcpy(dst->acc_sum, src->acc_sum, sizeof(double) * up);
    dst->C = src->C;
    dst->sa_count = src->sa_count;
    dst->round = src->round;
    dst->round_end = src->round_end;
    dst->nonadjacent_swaps = src->nonadjacent_swaps;
}

void rx__xstate_free_resumed(rx__xstate *x)
{
    free(x->at);
    free(x->pos);
    free(x->gate);
    free(x->eta);
    x->at = x->pos = NULL;
    x->gate = NULL;
    x->eta = NULL;
}

/* Is the gradient finite? Returns the first bad coordinate or -1. */
static int32_t bad_coord(const double *g, size_t dim)
{
    for (size_t j = 0; j < dim; ++j)
        if (!isfinite(g[j]))
            return (int32_t)j;
    return -1;
}

/* The sample of particle p at position q for kept-iteration `row`. */
static void store_sample(rx_ctx *c, const rx__particle *p, int q,
                         int64_t row)
{
    if (c->cfg.record.all_positions)
        row = row * c->P + q;
    else if (q != 0)
        return;
    float *dst = c->samples + (size_t)row * c->dim;
    for (size_t j = 0; j < c->dim; ++j)
        dst[j] = (float)p->theta[j];
}

/*
 * One stochastic-approximation step of sigma_p^2 (resgld_vr.md 1.5) at
 * iteration k, after the exchange (replicated on every thread): the raw
 * estimate of pair p is (s^2 of the particle now at p + s^2 of the one at
 * p+1) / 2, each s^2 from J noisy energies at the point the particle
 * reached in this iteration's step. The first step takes it as is; then
 * gamma_m = 1/m (harmonic) or the configured constant.
 */
static void sigma2_sa(const rx_ctx *c, rx__xstate *xs, int64_t k)
{
    const int P = c->P;
    int64_t m = ++xs->sa_count;
    double g = c->cfg.variance.gamma > 0.0 ? c->cfg.variance.gamma
                                           : 1.0 / (double)m;
    for (int p = 0; p < P - 1; ++p) {
        /* per chain: (s_p^2 + s_p+1^2) / 2; literal: Var(difference) */
        double raw = (c->cfg.variance.difference ? 1.0 : 0.5) *
                     (c->parts[xs->at[p]]->var_raw[k & 1] +
                      c->parts[xs->at[p + 1]]->var_raw[k & 1]);
        xs->s2hat[p] = m == 1 ? raw : (1.0 - g) * xs->s2hat[p] + g * raw;
    }
}

/*
 * Control variates after particle i's gradient pass of iteration k (eval
 * counter k + 1, per-example losses in ts->vrw->pe): at a period end
 * ((k + 1) % m == 0) first the variance and adaptive c with the OLD anchor
 * (resgld_vr.md 3.4), then the anchor becomes theta and U(anchor) is
 * recomputed; then the VR energy replaces p->energy. k = -1: set-up.
 */
static rx_status vr_after_eval(rx_ctx *c, rx__tstate *ts, rx__particle *p,
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

/* slot: k & 1 inside the loop (read after barrier k), 2 during set-up.
 * Parity slots keep a failure raised in step k+1 invisible to a thread that
 * has not yet read the flag of k, so all threads leave at the same k. */
static void chain_fail(rx_ctx *c, rx__tstate *ts, int slot, rx_status st,
                       int32_t i, int64_t k, double last)
{
    if (ts->st == RX_OK) {
        ts->st = st;
        ts->fail_particle = i;
        ts->fail_k = k;
        ts->fail_last_energy = last;
    }
#pragma omp atomic write
    c->fail_flag[slot] = 1;
}

/* A particle's failure: the thread keeps its earliest (iteration, then
 * particle), which the run reports over all threads; under the partner
 * design a run goes on to its next global synchronisation, so a thread can
 * see several (the same particle again, or one that came from a thread
 * that failed earlier). */
static void particle_fail(rx_ctx *c, rx__tstate *ts, int slot, rx_status st,
                          int32_t i, int q, int64_t k, double last,
                          int32_t coord)
{
    if (ts->st != RX_OK &&
        (ts->fail_particle < 0 || ts->fail_k < k ||
         (ts->fail_k == k && ts->fail_particle <= i)))
        return;
    ts->st = RX_OK; /* chain_fail records only into a clean slot */
    chain_fail(c, ts, slot, st, i, k, last);
    ts->fail_q = q;
    ts->fail_coord = coord;
}

/* Row chunks of the test (set 0) and OOD (set 1) sets, chunk j scored by
 * thread j % nthr, for the kept samples (BMA) and the final ensemble. */
static void evaluate_chunks(rx_ctx *c, rx__tstate *ts, int t, int nthr)
{
    rx__evalst *ev = &c->ev;
    const int64_t cb = c->cfg.evaluate.batch;
    const int64_t n0 = (ev->rows + cb - 1) / cb;
    const int64_t n1 = (ev->ood_rows + cb - 1) / cb;
    const float *models[2] = {c->samples, ev->ens_models};
    const int64_t S[2] = {c->n_samples, ev->ens_models ? c->P : 0};
    for (int64_t j = t; j < n0 + n1; j += nthr)
        for (int m = 0; m < 2; ++m) {
            if (S[m] <= 0 || !models[m])
                continue;
            const int set = j < n0 ? 0 : 1;
            const int64_t r0 = (set == 0 ? j : j - n0) * cb;
            const int64_t rows = set == 0 ? ev->rows : ev->ood_rows;
            const int64_t r1 = r0 + cb < rows ? r0 + cb : rows;
            rx_status st = rx__network_predict(
                c->target, ts->tws, models[m], S[m], set, r0, r1,
                set == 0 ? ev->mean[m] : ev->ood_mean[m],
                set == 0 ? ev->lmax[m] : NULL, set == 0 ? ev->lsum[m] : NULL);
            if (st != RX_OK && ts->st == RX_OK) {
                ts->st = st;
                ts->fail_particle = -4;
            }
        }
}

static void evaluate_metrics(rx_ctx *c)
{
    rx__evalst *ev = &c->ev;
    for (int m = 0; m < 2; ++m) {
        rx_metrics *out = m == 0 ? &ev->bma : &ev->ens;
        const int64_t S = m == 0 ? c->n_samples : (ev->ens_models ? c->P : 0);
        memset(out, 0, sizeof *out);
        if (S <= 0 || (m == 0 && !c->samples))
            continue;
        rx__network_metrics(c->target, S, ev->mean[m], ev->lmax[m],
                            ev->lsum[m], ev->ood_rows ? ev->ood_mean[m] : NULL,
                            c->cfg.evaluate.ece_bins, out);
    }
}

rx_status rx_set_stop_flag(rx_ctx *c, volatile sig_atomic_t *flag)
{
    if (!c)
        return RX_EINVAL;
    c->stop_flag = flag;
    return RX_OK;
}

rx_status rx_set_progress(rx_ctx *c, rx_progress_fn fn, void *user,
                          int64_t every)
{
    if (!c)
        return RX_EINVAL;
    if (fn && every < 0)
        return rx__fail(&c->err, RX_EINVAL,
                        "rx_set_progress: every must be >= 1 (or 0: paced "
                        "by time), got %lld",
                        (long long)every);
    c->progress_fn = fn;
    c->progress_user = user;
    c->progress_every = every;
    return RX_OK;
}

/* Periods paced by time (the partner design's full barriers, progress
 * callbacks with every = 0), at the end of one after iteration k: the
 * largest power of two up to RX_PERIOD_MAX whose iterations, at the pace
 * since the last end, take at most RX_PERIOD_SECONDS (1 on a target slower
 * than that); p moves to (k, now). */
enum { RX_PERIOD_MAX = 4096 };
static const double RX_PERIOD_SECONDS = 0.005;

static int64_t pace_period(rx__pace *p, int64_t k)
{
    const double now = rx__now(), per = (now - p->t) / (double)(k - p->k);
    p->k = k;
    p->t = now;
    int64_t g = RX_PERIOD_MAX;
    while (g > 1 && (double)g * per > RX_PERIOD_SECONDS)
        g /= 2;
    return g;
}

/* Barrier design: is a progress call due after iteration k? every = 0:
 * about every RX_PERIOD_SECONDS of iterations (thread 0 alone reads and
 * moves progress_next). */
static int progress_due(rx_ctx *c, int64_t k)
{
    if (k + 1 == c->cfg.iterations)
        return 1;
    if (c->progress_every > 0)
        return (k + 1) % c->progress_every == 0;
    if (k + 1 < c->progress_next)
        return 0;
    c->progress_next = k + 1 + pace_period(&c->progress_pace, k);
    return 1;
}

/* Thread 0 after recording iteration k; a refusal stops every thread after
 * the next barrier (the flag of parity k + 1). */
static void report_progress(rx_ctx *c, rx__tstate *ts, int64_t k, double t0)
{
    rx_progress pr;
    pr.iteration = k + 1;
    pr.iterations = c->cfg.iterations;
    pr.trips_a5 = c->rec.trips_a5;
    pr.swaps = c->rec.total_swaps + ts->x.nonadjacent_swaps;
    double acc = 0.0;
    int64_t ev = 0;
    for (int p = 0; p + 1 < c->P; ++p) {
        acc += c->rec.pairs[p].accept_sum;
        ev += c->rec.pairs[p].evaluated;
    }
    pr.mean_accept = ev > 0 ? acc / (double)ev : 0.0;
    pr.elapsed_s = rx__now() - t0;
    if (c->progress_fn(c->progress_user, &pr) != RX_OK)
        chain_fail(c, ts, (int)((k + 1) & 1), RX_EABORTED, -2, k + 1, NAN);
}

/*
 * The step phase of particle i at position q in iteration k: the sample of
 * iteration k-1 (row >= 0), the move rule, the energy and gradient at the
 * new point (VR, rollback and the fault-injection aid included), and its
 * energy into Ek[i]. Used by both synchronisation designs.
 */
/* faults.policy rollback: save (to_good) or restore a particle's theta,
 * gradient, optimiser state and energy. */
static void rollback_copy(rx__particle *p, size_t dim, int to_good)
{
    double *live[3] = {p->theta, p->grad, p->state};
    double *good[3] = {p->good_theta, p->good_grad, p->good_state};
    for (int j = 0; j < 3; ++j)
        if (live[j])
            memcpy(to_good ? good[j] : live[j], to_good ? live[j] : good[j],
                   sizeof(double) * dim);
    if (to_good)
        p->good_energy = p->energy;
    else
        p->energy = p->good_energy;
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

static void spin_until(atomic_llong *a, long long want, int exact);

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
static void barrier_wait_help(rx_ctx *c, rx__tstate *ts, rx__barrier *b,
                              int *local_sense, int64_t k, int cur,
                              int own_lo, int own_hi, int timing)
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
static rx__zhelp *zhelp_alloc(const rx_ctx *c)
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

static void zhelp_free(rx_ctx *c)
{
    for (int i = 0; c->zh && i < c->P; ++i)
        for (int b = 0; b < 2; ++b)
            rx__free_aligned(c->zh[i].z[b]);
    rx__free_aligned(c->zh);
    c->zh = NULL;
}

/* The generic chain-step: the update rule, then the (noisy) energy and
 * gradient at the new point; *t_en: the evaluation's seconds. */
static rx_status step_eval(rx_ctx *c, rx__tstate *ts, rx__particle *p,
                           int i, int q, int64_t k, double cyc, int timing,
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
    if (q != p->last_q && p->state) {
        int q0 = p->last_q;
        rx__step_on_move(c->cfg.step.state_on_swap,
                         q0 == 0 ? kind_target : kind_other,
                         kind, p->state, c->dim,
                         ts->x.eta[q0], ts->x.tau[q0],
                         ts->x.eta[q], ts->x.tau[q]);
    }
    p->last_q = q;
    if (c->cfg.faults.policy == 1)
        rollback_copy(p, c->dim, 1);
    size_t nz = 0;
    const double *zpre = c->zh ? zhelp_take(&c->zh[i], k, &s, &nz) : NULL;
    rx__step_apply(kind, &c->sc, p->theta, p->state, p->grad,
                   c->dim,
                   ts->x.eta[q] * cyc * p->step_scale,
                   ts->x.tau[q], &s, zpre, nz);
    double tg = vr || timing ? rx__now() : 0.0;
    rx_status st = rx__target_eval_pe(
        c->target, ts->tws, p->theta, &p->energy, p->grad, seed,
        (uint32_t)i, (uint64_t)k + 1, vr ? ts->vrw->pe : NULL);
    if (vr || timing) {
        double dg = rx__now() - tg;
        p->grad_s += vr ? dg : 0.0;
        *t_en += dg;
    }
    return st;
}

static void step_one(rx_ctx *c, rx__tstate *ts, int i, int q, int64_t k,
                     double cyc, int64_t row, double *Ek, int64_t sa_every,
                     int timing, double *t_en)
{
    const uint64_t seed = c->cfg.seed;
    const int rollback = c->cfg.faults.policy == 1;
    const int64_t inj_k = c->cfg.faults.inject_iteration;
    const int inj_i = c->cfg.faults.inject_particle;
    const int vr = c->vc.on;
    rx__particle *p = c->parts[i];
    if (row >= 0)
        store_sample(c, p, q, row);
    double last = p->energy;
    rx_status st;
    if (c->fused) {
        /* the 2-D target under SGLD or SGD with ziggurat draws: the same
         * numbers from one call, the draws and the energy inlined */
        p->last_q = q;
        const rx_step_kind kind =
            q == 0 ? c->cfg.step.target : c->cfg.step.others;
        const double eta = ts->x.eta[q] * cyc * p->step_scale;
        if (p->zb_n > 0 && p->zb_k == k) { /* drawn ahead while waiting */
            st = rx__m25_step_pre(c->target, p->theta, p->grad, &p->energy,
                                  kind == RX_STEP_SGLD, eta, ts->x.tau[q],
                                  p->zb + 5 * (k % RX_ZB));
            p->zb_k++;
            p->zb_n--;
        } else {
            st = rx__m25_step(c->target, p->theta, p->grad, &p->energy,
                              kind == RX_STEP_SGLD, eta, ts->x.tau[q], seed,
                              (uint32_t)i, (uint64_t)k);
        }
    } else {
        st = step_eval(c, ts, p, i, q, k, cyc, timing, t_en);
    }
    int rolled = 0;
    if (k == inj_k && i == inj_i && st == RX_OK && c->dim) {
        p->grad[0] = NAN; /* faults.inject_*: testing aid */
        st = RX_ENUMERIC;
    }
    if (st == RX_ENUMERIC && rollback &&
        p->rollbacks < c->cfg.faults.max_rollbacks) {
        /* back to the state before this step, half step */
        rollback_copy(p, c->dim, 0);
        p->step_scale *= 0.5;
        p->rollbacks++;
        p->last_rollback_k = k;
        st = RX_OK;
        rolled = 1;
    }
    if (st == RX_OK && vr && !rolled)
        st = vr_after_eval(c, ts, p, i, k);
    if (st != RX_OK)
        particle_fail(c, ts, (int)(k & 1), st, i, q, k, last,
                      isfinite(p->energy) ? bad_coord(p->grad, c->dim) : -1);
    Ek[i] = p->energy;
    if (sa_every > 0 && k % sa_every == 0)
        p->var_raw[k & 1] = rx__target_noise_var(
            c->target, ts->tws, p->theta,
            c->cfg.variance.samples, seed,
            (uint32_t)i, (uint64_t)k);
}

/*
 * Load balance (barrier design, more than one thread). Chains are
 * contiguous index ranges per thread, cut[t] .. cut[t+1]. Every
 * RX_LB_SAMPLE-th iteration each thread times its busy span (from leaving
 * one barrier to arriving at the next: its chains' steps plus its exchange,
 * and on thread 0 the recorder); every RX_LB_WINDOW iterations thread 0
 * moves each cut towards the less busy neighbour, one chain at a time
 * while the difference (less twice the chain's cost per move) exceeds
 * 1.25 times the busier thread's mean cost per chain (so a move does not
 * make it worse).
 * Which thread steps a chain never changes a result: every draw is keyed by
 * the chain, never by the thread.
 */
enum { RX_LB_SAMPLE = 8, RX_LB_WINDOW = 512 };

static int lb_plan(int *cut, const rx__tstate *ts, int nthr, int rotate,
                   int64_t k)
{
    if (rotate) {
        /* testing aid: one boundary moves every window, back and forth */
        int t = (int)((k / RX_LB_WINDOW) % (nthr - 1)) + 1;
        int dir = (int)((k / RX_LB_WINDOW / (nthr - 1)) & 1) ? 1 : -1;
        int c = cut[t] + dir;
        if (c > cut[t - 1] && c < cut[t + 1])
            cut[t] = c;
        return 1;
    }
    /* a chain that moves is the donor's last or first one: its cost is
     * taken as the donor's mean m (the smallest mean over all threads
     * moved costly chains off a thread of cheap ones, and back); each
     * move narrows the difference d by about 2 m, and chains move while
     * it stays above 1.25 m */
    int moved = 0;
    for (int t = 0; t + 1 < nthr; ++t) {
        const double d = ts[t].lb_pub - ts[t + 1].lb_pub;
        const int na = cut[t + 1] - cut[t], nb = cut[t + 2] - cut[t + 1];
        const int from_a = d > 0.0, n = from_a ? na : nb;
        const double m = (from_a ? ts[t].lb_pub : ts[t + 1].lb_pub) / n;
        int j = 0;
        while (n - j > 1 && fabs(d) - 2.0 * j * m > 1.25 * m)
            ++j;
        cut[t + 1] += from_a ? -j : j;
        moved |= j > 0;
    }
    return moved;
}

/*
 * The partner design. Thread t owns POSITIONS lo..hi-1 (a contiguous
 * block) and the pairs inside it plus the boundary pair to its right; a
 * swap exchanges map entries, so a particle moves to the thread of its new
 * position (its state stays where it is in memory; the new owner reads it
 * after the offer that announced it, release/acquire). Each boundary
 * position offers (particle, energy) of every iteration to the neighbour
 * through a ring of RX_RING slots. Both sides wait for the other's offer
 * only when the pair is attempted (active with an open gate), and then
 * one iteration later (partner_decide, after the inner positions' steps);
 * the owner (the left thread) records the statistics of the other
 * iterations later, in order of k, once the offer is there (rx__pend). No
 * thread waits for any other except its two neighbours, and only on those
 * iterations. Each thread writes the index rows of its positions (their
 * boundary pairs decided at once there); everything global (trace rows,
 * progress, stop requests, failures) happens at a full barrier every
 * c->partner_gevery iterations (adapted to the iteration time: at most
 * about RX_PERIOD_SECONDS apart) and wherever a trace row or progress
 * report is due; there thread 0 assembles the map and sums the counters. While
 * it waits for an offer, a thread draws its inner particles' normals
 * ahead (rx__bank, the fused 2-D step). Decisions are the same pure
 * functions of energies, ladder, seed and k as in the barrier design, so
 * both give bitwise the same runs for any thread count.
 *
 * Load balance (config balance): each thread counts its busy CPU seconds
 * (its thread CPU clock less the time it waited on rings and barriers);
 * every RX_PLB_WINDOW iterations, at a full barrier, thread 0 moves the
 * cuts towards the less busy threads (lb_plan, as in the barrier design:
 * while the difference exceeds 1.25 times the busier thread's mean cost
 * per position), hands the moved pairs' statistics to their new owner
 * (partner_move_stats), and every thread takes its block's part of the
 * assembled map and the gates of its new pairs. CPU time, not wall time: a thread the system
 * deschedules holds its neighbours up whatever it owns, so those spells
 * must not move positions.
 */
enum { RX_RING = 64, RX_GLOBAL_EVERY = 256, RX_CONSUMED_EVERY = 8,
       RX_PEND_BATCH = 16, RX_PEND_AHEAD = 4, RX_PLB_WINDOW = 1024 };
/* (The full barriers' period adapts to the iteration time, pace_period:
 * stop requests and failures wait for a full barrier; RX_GLOBAL_EVERY
 * under balance: rotate.) */

/* One slot per cache line: a thread that reads the neighbour's offer of k
 * (or prefetches it) does not take the line the neighbour writes k + 1 to. */
typedef struct rx__offer {
    alignas(RX_CACHELINE) atomic_llong stamp; /* k + 1 once (id, E) of
                                               * iteration k are written */
    int32_t id;
    double E;
} rx__offer;

typedef struct rx__edge {
    rx__offer o[RX_RING];
    alignas(RX_CACHELINE) atomic_llong consumed; /* reader done below it */
    alignas(RX_CACHELINE) long long seen;        /* writer's cached copy */
} rx__edge;

/* The neighbour's particle that a boundary swap may hand over: start
 * loading its lines (written by the other core) while the exchange and the
 * recorder run, before the next step reads them, without loading the
 * header first: the header's first line (all a fused 2-D chain-step
 * touches, ctx.h) or, for other steps, the whole header (hdr bytes), then
 * the first lines of theta and grad, which particle_alloc puts right after
 * the header (vec bytes each; all of them on the 2-D target). */
static inline void prefetch_particle(const rx__particle *p, size_t hdr,
                                     size_t vec, int fused)
{
#if defined(__GNUC__)
    const char *b = (const char *)p;
    for (size_t o = 0; o < (fused ? RX_CACHELINE : hdr); o += RX_CACHELINE)
        __builtin_prefetch(b + o, 1);
    __builtin_prefetch(b + hdr, 1);       /* theta's first line */
    __builtin_prefetch(b + hdr + vec, 1); /* grad's */
#else
    (void)p;
    (void)hdr;
    (void)vec;
    (void)fused;
#endif
}

static inline void prefetch_offer(const rx__offer *o)
{
#if defined(__GNUC__)
    __builtin_prefetch(o, 0);
#else
    (void)o;
#endif
}

static void spin_until(atomic_llong *a, long long want, int exact)
{
    unsigned spins = 0;
    for (;;) {
        long long v = atomic_load_explicit(a, memory_order_acquire);
        if (exact ? v == want : v >= want)
            return;
        if (++spins < RX_SPINS_BEFORE_YIELD)
            cpu_relax();
        else
            sched_yield();
    }
}

/*
 * Waiting made useful (the fused 2-D chain-step under the partner design):
 * while a thread waits for a neighbour's offer it draws the normals of its
 * inner positions' particles for the coming iterations into the particles
 * (rx__particle.zb, up to RX_ZB iterations each, round robin over the
 * particles, one particle-iteration per call between two looks at the
 * offer); the step then takes them instead of drawing. The draws are keyed
 * by (seed, chain, iteration), so the numbers are the same. Only inner
 * positions: their particles stay with this thread at least until after
 * its next offer, which orders these writes before any other thread's
 * reads of the particle (the boundary positions' particles may cross now).
 */
typedef struct rx__bank {
    const rx_ctx *c;
    const int32_t *at; /* the thread's map */
    int q0, q1, q;     /* inner positions q0..q1-1, the next one to fill */
    int64_t k1;        /* the iteration every particle steps next */
} rx__bank;

/* One particle-iteration of normals drawn ahead; 0 when every inner
 * particle's buffer is full (or there is none). */
static int bank_one(rx__bank *b)
{
    for (int n = b->q1 - b->q0; n > 0; --n) {
        rx__particle *p = b->c->parts[b->at[b->q]];
        if (++b->q >= b->q1)
            b->q = b->q0;
        if (p->zb_n >= RX_ZB)
            continue;
        if (p->zb_n == 0)
            p->zb_k = b->k1;
        const int64_t j = p->zb_k + p->zb_n;
        rx__m25_draws(b->c->target, b->c->cfg.seed, (uint32_t)p->id,
                      (uint64_t)j, p->zb + 5 * (j % RX_ZB));
        p->zb_n++;
        return 1;
    }
    return 0;
}

/* offer and take return the seconds they waited (0 when they did not:
 * the clock is read only then), for the load balance; take draws ahead
 * into bk (when not NULL) while it waits. */
static double offer(rx__edge *e, int64_t k, int32_t id, double E)
{
    double w = 0.0;
    if (k >= RX_RING && e->seen < k - RX_RING + 1) {
        e->seen = atomic_load_explicit(&e->consumed, memory_order_acquire);
        if (e->seen < k - RX_RING + 1) {
            const double t0 = rx__now();
            spin_until(&e->consumed, k - RX_RING + 1, 0);
            w = rx__now() - t0;
            e->seen =
                atomic_load_explicit(&e->consumed, memory_order_acquire);
        }
    }
    rx__offer *o = &e->o[k % RX_RING];
    o->id = id;
    o->E = E;
    atomic_store_explicit(&o->stamp, k + 1, memory_order_release);
    return w;
}

static double take(rx__edge *e, int64_t k, int32_t *id, double *E,
                   rx__bank *bk)
{
    rx__offer *o = &e->o[k % RX_RING];
    double w = 0.0;
    if (atomic_load_explicit(&o->stamp, memory_order_acquire) != k + 1) {
        const double t0 = rx__now();
        while (bk &&
               atomic_load_explicit(&o->stamp, memory_order_acquire) !=
                   k + 1 &&
               bank_one(bk))
            ;
        spin_until(&o->stamp, k + 1, 1);
        w = rx__now() - t0;
    }
    *id = o->id;
    *E = o->E;
    return w;
}

/* Does the run allow the partner design? Everything it leaves out needs
 * all pairs or all chains in every iteration. */
static int partner_applies(const rx_ctx *c)
{
    const rx__xconf *xc = &c->xc;
    /* auto: analytic targets, where it measured faster; on the networks
     * the two designs measured level (docs/performance.md), partner asks
     * for it there too */
    if (c->cfg.sync == 1 || (c->cfg.sync == 0 && c->target->eval_ws))
        return 0;
    return c->P >= 2 && !xc->sequential &&
           (xc->scheme == RX_SCHEME_SEO || xc->scheme == RX_SCHEME_DEO ||
            xc->scheme == RX_SCHEME_DEO_W ||
            xc->scheme == RX_SCHEME_DEO_STAR) &&
           c->ac.adapt == RX_ADAPT_NONE && !c->ac.adapt_c &&
           !c->s2_estimate && !c->vc.on && !c->ckpt_fn && !c->resumed &&
           c->cfg.step.cyclical_cycles == 0;
}

/* A.5 check of particle i at position q (record.c's rule, local form;
 * the marks live in the particle, which only its current owner touches). */
static inline void partner_a5(rx_ctx *c, rx__tstate *ts, int32_t i, int q)
{
    rx__particle *p = c->parts[i];
    if (p->vis == (RX_VIS_LOW | RX_VIS_HIGH) && q == i) {
        ts->pc_a5++;
        p->vis = 0;
    }
}

/* One pair event into this thread's statistics and trace window. */
static inline void pair_account(rx__tstate *ts, int np, int p,
                                const rx__pairev *e)
{
    rx_pair_stats *st = &ts->pst[p];
    st->evaluated += e->evaluated;
    st->conditions += e->cond;
    st->attempts += e->attempt;
    st->swaps += e->swapped;
    st->accept_sum += e->prob;
    ts->pwin[np + p] += e->evaluated;
    ts->pwin[p] += e->cond;
    ts->pwin[2 * np + p] += e->swapped;
    ts->pc_sw += e->swapped;
}

/* The right boundary pair's iterations whose statistics wait for the
 * neighbour's offer (the pair was not attempted: nothing to decide), with
 * the energy of this side's occupant; recorded in order of k. */
typedef struct rx__pend {
    int64_t k[RX_RING];
    double E[RX_RING];
    double U[RX_RING]; /* the pair's uniform of k (rx__exchange_range) */
    int head, n;
} rx__pend;

static void pend_drain(rx_ctx *c, rx__tstate *ts, rx__edge *nb, int pr,
                       rx__pend *q, int block, rx__bank *bk)
{
    while (q->n > 0) {
        const int64_t kk = q->k[q->head];
        rx__offer *o = &nb->o[kk % RX_RING];
        if (!block &&
            atomic_load_explicit(&o->stamp, memory_order_acquire) != kk + 1)
            break;
        int32_t id;
        double E;
        ts->lb_wait += take(nb, kk, &id, &E, bk);
        rx__pairev e;
        rx__pair_stat(&c->xc, &ts->x, pr, q->E[q->head], E, kk,
                      &q->U[q->head], &e);
        pair_account(ts, c->P - 1, pr, &e);
        q->head = (q->head + 1) % RX_RING;
        q->n--;
    }
}

/* The recorder's per-iteration work for the inner pairs lo..pin_hi and
 * the positions lo..hi-1 of thread t (the boundary pairs: partner_decide). */
static void partner_record(rx_ctx *c, rx__tstate *ts, int lo, int hi,
                           int pin_hi)
{
    const rx__xstate *xs = &ts->x;
    const int P = c->P, np = P - 1;
    for (int p = lo; p <= pin_hi; ++p)
        pair_account(ts, np, p, &xs->ev[p]);
    rx__particle *a = lo == 0 ? c->parts[xs->at[0]] : NULL;
    rx__particle *b = hi == P ? c->parts[xs->at[P - 1]] : NULL;
    if (a)
        a->vis |= RX_VIS_LOW;
    if (b)
        b->vis |= RX_VIS_HIGH;
    if (a)
        partner_a5(c, ts, xs->at[0], 0);
    if (b)
        partner_a5(c, ts, xs->at[P - 1], P - 1);
    for (int p = lo; p <= pin_hi; ++p)
        if (xs->ev[p].swapped) {
            partner_a5(c, ts, xs->at[p], p);
            partner_a5(c, ts, xs->at[p + 1], p + 1);
        }
    if (a) {
        if (a->last_end == RX_VIS_HIGH)
            ts->pc_rs++;
        a->last_end = RX_VIS_LOW;
        if (a->l1_state == 2)
            ts->pc_l1++;
        a->l1_state = 1;
    }
    if (b) {
        b->last_end = RX_VIS_HIGH;
        if (b->l1_state == 1)
            b->l1_state = 2;
    }
}

/*
 * The boundary pairs attempted at iteration kk (dl: the left one, dr: the
 * right one), decided one iteration later, once this thread has stepped
 * its inner positions (or at once where the map or the counters are read
 * at kk): the neighbour's offer of kk, then the same decision on both
 * sides (El, Er: this side's energies at kk). The right pair's owner (this
 * thread) records it after the queued statistics of its earlier
 * iterations, so every pair's sums run in order of k.
 */
static void partner_decide(rx_ctx *c, rx__tstate *ts, int lo, int hi,
                           rx__edge *nb_left, rx__edge *nb_right,
                           rx__pend *pend, int64_t kk, int dl, int dr,
                           double El, double Er, double Ur, double *Eloc,
                           rx__bank *bk)
{
    rx__xstate *xs = &ts->x;
    int32_t id;
    double E;
    rx__pairev e;
    if (dl) {
        ts->lb_wait += take(nb_left, kk, &id, &E, bk);
        prefetch_particle(c->parts[id], c->part_hdr, c->part_vec, c->fused);
        xs->at[lo - 1] = id;
        Eloc[id] = E;
        if (rx__exchange_boundary(&c->xc, xs, lo - 1, E, El, kk, NULL, &e))
            partner_a5(c, ts, xs->at[lo], lo);
    }
    if (dr) {
        const int pr = hi - 1;
        pend_drain(c, ts, nb_right, pr, pend, 1, bk);
        atomic_store_explicit(&nb_right->consumed, kk, memory_order_release);
        ts->lb_wait += take(nb_right, kk, &id, &E, bk);
        prefetch_particle(c->parts[id], c->part_hdr, c->part_vec, c->fused);
        xs->at[hi] = id;
        Eloc[id] = E;
        if (rx__exchange_boundary(&c->xc, xs, pr, Er, E, kk, &Ur, &e))
            partner_a5(c, ts, xs->at[pr], pr);
        pair_account(ts, c->P - 1, pr, &e);
    }
}

/* The first iteration j >= from that ends a period (j + 1 a multiple of
 * every, every > 0). */
static inline int64_t next_end(int64_t from, int64_t every)
{
    return (from / every + 1) * every - 1;
}

/* The partner design's next full barrier at or after iteration `from`:
 * the last iteration, every c->partner_gevery-th, trace rows, progress
 * (with every > 0; every = 0 reports at these full barriers). */
static int64_t next_global(const rx_ctx *c, int64_t from)
{
    int64_t g = c->cfg.iterations - 1, e = next_end(from, c->partner_gevery);
    if (e < g)
        g = e;
    if (c->rec.trace_every > 0 && (e = next_end(from, c->rec.trace_every)) < g)
        g = e;
    if (c->progress_fn && c->progress_every > 0 &&
        (e = next_end(from, c->progress_every)) < g)
        g = e;
    return g;
}

/* The thread that owns pair p (and position p) under the partner cuts
 * (thread t: positions cut[t]..cut[t+1]-1, and the pairs from cut[t] up
 * to the boundary pair on its right). */
static int partner_owner(const int *cut, int nthr, int p)
{
    int t = 0;
    while (t + 1 < nthr && cut[t + 1] <= p)
        ++t;
    return t;
}

/* The load balance of the partner design moved the cuts from old to cut:
 * the statistics of each pair that changed thread go with it (every pair's
 * sums stay on one thread, so the assembled sums stay bit for bit). */
static void partner_move_stats(rx_ctx *c, const int *old, const int *cut,
                               int nthr)
{
    const int np = c->P - 1;
    for (int p = 0; p < np; ++p) {
        const int a = partner_owner(old, nthr, p),
                  b = partner_owner(cut, nthr, p);
        if (a == b)
            continue;
        rx__tstate *ta = &c->ts[a], *tb = &c->ts[b];
        tb->pst[p] = ta->pst[p];
        memset(&ta->pst[p], 0, sizeof ta->pst[p]);
        for (int j = 0; j < 3; ++j) {
            tb->pwin[j * np + p] = ta->pwin[j * np + p];
            ta->pwin[j * np + p] = 0;
        }
    }
}

/* The order in which thread t steps its positions lo..hi-1: the inner ones
 * (n_inner), then those at its boundaries (nbl, nbr: it has a left, a
 * right neighbour). */
static void partner_order(int lo, int hi, int nbl, int nbr, int *ord,
                          int *n_inner, int *n_ord)
{
    int n = 0;
    for (int q = lo + nbl; q < hi - nbr; ++q)
        ord[n++] = q;
    *n_inner = n;
    if (nbl)
        ord[n++] = lo;
    if (nbr && !(nbl && hi - 1 == lo))
        ord[n++] = hi - 1;
    *n_ord = n;
}

/* The iterations of thread t under the partner design; returns whether the
 * run stopped early (failure, stop request, progress callback), *kout the
 * iteration it left at. */
static int partner_loop(rx_ctx *c, rx__tstate *ts, int t, int nthr,
                        rx__barrier *bar, int *sense, rx__edge *edges,
                        int32_t *gmap, uint8_t *ggate, int *cuts, int ncut,
                        double *Eloc, double t0, int64_t *kout)
{
    const int P = c->P;
    const int64_t K = c->cfg.iterations;
    const int timing = c->cfg.record.phase_timing;
    /* load balance: the cuts move at full barriers (below) */
    const int plb = c->cfg.balance && nthr > 1;
    int lo = cuts[t], hi = cuts[t + 1];
    int phi = t + 1 < nthr ? hi - 1 : hi - 2; /* last owned pair */
    int glo = lo > 0 ? lo - 1 : 0;
    rx__edge *my_left = t > 0 ? &edges[2 * t] : NULL;
    rx__edge *my_right = t + 1 < nthr ? &edges[2 * t + 1] : NULL;
    rx__edge *nb_left = t > 0 ? &edges[2 * (t - 1) + 1] : NULL;
    rx__edge *nb_right = t + 1 < nthr ? &edges[2 * (t + 1)] : NULL;
    const rx__recorder *r = &c->rec;
    rx__xstate *xs = &ts->x;
    int pr = nb_right ? hi - 1 : -1; /* the right boundary pair */
    ts->lb_wait = 0.0;
    ts->lb_t0 = rx__thread_cpu();
    rx__pend pend;
    pend.head = pend.n = 0;
    /* the normals drawn ahead while waiting (the fused 2-D step) */
    rx__bank bk = {c, xs->at, lo + (nb_left != NULL), hi - (nb_right != NULL),
                   lo + (nb_left != NULL), 0};
    rx__bank *bkp = c->bank && bk.q0 < bk.q1 ? &bk : NULL;
    /* iterations of the next full barrier and the next index row, counted
     * down instead of dividing in every iteration */
    int64_t glob_k = next_global(c, 0), idx_k = 0, idx_row = 0;
    int failed = 0;
    int64_t k;
    /* the boundary pairs attempted at k - 1, decided at k (below) */
    int dl = 0, dr = 0;
    double El = 0.0, Er = 0.0; /* this side's energies of those pairs */
    double Ur = 0.0; /* the right pair's uniform of k - 1 */
    const int nbl = nb_left != NULL, nbr = nb_right != NULL;
    /* a single position at an end of the ladder decides at once: its
     * occupant's marks (position 0 or P - 1) are taken every iteration */
    int can_defer = !c->no_defer && !(hi - lo == 1 && (lo == 0 || hi == P));
    /* the order of the positions in the step phase: inner ones, then the
     * boundary ones (one call site keeps step_one inlined); the caller
     * allocates P ints after Eloc */
    int *ord = (int *)(Eloc + P), n_ord = 0, n_inner = 0;
    const int prefetch = !c->no_prefetch;
    partner_order(lo, hi, nbl, nbr, ord, &n_inner, &n_ord);
    for (k = 0; k < K; ++k) {
        double ta = timing ? rx__now() : 0.0, t_en = 0.0, t_w = 0.0;
        const int64_t row =
            k > 0 && c->samples ? sample_row(&c->cfg, k - 1) : -1;
        bk.k1 = k + 1; /* every wait of k comes after the inner steps */
        /* the inner positions first (no decision of k - 1 is left open
         * for them: the neighbours' offers of k - 1 get that long to
         * arrive), then the decisions, then the boundary positions */
        double t_w0 = 0.0; /* the part of t_w inside the step phase */
        if (prefetch) {
            /* the neighbours' offers of k - 1, which the decisions after
             * the inner steps read (usually written by now; where the
             * neighbour is behind, the line comes over early), and the
             * right neighbour's offer of k - RX_PEND_AHEAD: each slot of
             * that ring warmed a few iterations after it was written, for
             * the queued statistics (pend_drain) that read it later; a
             * slot per line, so this takes no line the neighbour writes */
            if (dl)
                prefetch_offer(&nb_left->o[(k - 1) % RX_RING]);
            if (dr)
                prefetch_offer(&nb_right->o[(k - 1) % RX_RING]);
            if (nbr && k >= RX_PEND_AHEAD)
                prefetch_offer(&nb_right->o[(k - RX_PEND_AHEAD) % RX_RING]);
        }
        for (int j = 0; j < n_ord; ++j) {
            if (j == n_inner && (dl | dr)) {
                double tw = timing ? rx__now() : 0.0;
                partner_decide(c, ts, lo, hi, nb_left, nb_right, &pend,
                               k - 1, dl, dr, El, Er, Ur, Eloc, bkp);
                dl = dr = 0;
                if (timing)
                    t_w0 = rx__now() - tw;
            }
            const int q = ord[j];
            step_one(c, ts, xs->at[q], q, k, 1.0, row, Eloc, 0, timing,
                     &t_en);
        }
        double tb = timing ? rx__now() : 0.0;
        if (bkp && c->bank_mode > 0)
            while (bank_one(bkp))
                ;
        if (my_left)
            ts->lb_wait += offer(my_left, k, xs->at[lo], Eloc[xs->at[lo]]);
        if (my_right)
            ts->lb_wait +=
                offer(my_right, k, xs->at[hi - 1], Eloc[xs->at[hi - 1]]);
        const int par = rx__exchange_sched(&c->xc, xs, k, glo, phi);
        /* a boundary pair is decided only when it is attempted (active
         * with an open gate); the right one's other iterations only add
         * statistics, which wait in `pend` for the neighbour's energy */
        const int right_open = nbr && ((pr + 1) & 1) == par && xs->gate[pr];
        const int left_open =
            nbl && ((lo - 1 + 1) & 1) == par && xs->gate[lo - 1];
        int jq = -1; /* this iteration's entry in pend */
        if (nbr) {
            if (pend.n >= RX_PEND_BATCH)
                pend_drain(c, ts, nb_right, pr, &pend, 0, NULL);
            if (!right_open) {
                if (pend.n == RX_RING) {
                    double tw = timing ? rx__now() : 0.0;
                    pend_drain(c, ts, nb_right, pr, &pend, 1, bkp);
                    if (timing)
                        t_w += rx__now() - tw;
                }
                jq = (pend.head + pend.n) % RX_RING;
                pend.k[jq] = k;
                pend.E[jq] = Eloc[xs->at[hi - 1]];
                pend.n++;
            }
        }
        /* this side's energies before the inner swaps (an attempted
         * boundary pair's inner neighbour pair is not active) */
        El = left_open ? Eloc[xs->at[lo]] : 0.0;
        Er = right_open ? Eloc[xs->at[hi - 1]] : 0.0;
        const int pin_hi = nbr ? hi - 2 : phi; /* the inner pairs */
        /* with the uniform of the right boundary pair: its statistics and
         * decision of k use it later (one Philox block fewer per
         * iteration where it shares a block with the inner pairs) */
        rx__exchange_range(&c->xc, xs, Eloc, k, par, lo, pin_hi, pr);
        if (nbr) {
            Ur = xs->u[pr];
            if (jq >= 0)
                pend.U[jq] = Ur;
        }
        const int global = k == glob_k;
        const int idx_now = r->index_every > 0 && k == idx_k;
        if (left_open | right_open) {
            if (global || idx_now || !can_defer) {
                /* the map and the counters are read now */
                double tw = timing ? rx__now() : 0.0;
                partner_decide(c, ts, lo, hi, nb_left, nb_right, &pend, k,
                               left_open, right_open, El, Er, Ur, Eloc, bkp);
                if (timing)
                    t_w += rx__now() - tw;
            } else {
                dl = left_open;
                dr = right_open;
            }
        }
        /* what this thread has read of the neighbours' rings */
        if (nbr)
            atomic_store_explicit(&nb_right->consumed,
                                  pend.n ? pend.k[pend.head] : k + 1 - dr,
                                  memory_order_release);
        if (nbl && (k + 1) % RX_CONSUMED_EVERY == 0)
            atomic_store_explicit(&nb_left->consumed, k + 1 - dl,
                                  memory_order_release);
        double tx = timing ? rx__now() : 0.0;
        partner_record(c, ts, lo, hi, pin_hi);
        if (idx_now) {
            /* the index row of k: each thread its own positions */
            if (idx_row < r->cap_index) {
                for (int q = lo; q < hi; ++q)
                    r->index[idx_row * P + q] = xs->at[q];
                if (t == 0)
                    r->index_iter[idx_row] = k;
            }
            idx_row++;
            idx_k += r->index_every;
        }
        double tg = timing ? rx__now() : 0.0, t_gw = 0.0;
        if (global) {
            if (nb_right) {
                pend_drain(c, ts, nb_right, pr, &pend, 1, NULL);
                atomic_store_explicit(&nb_right->consumed, k + 1,
                                      memory_order_release);
            }
            for (int q = lo; q < hi; ++q)
                gmap[q] = xs->at[q];
            for (int p = lo; p <= phi; ++p)
                ggate[p] = xs->gate[p];
            /* a cut check: this thread's busy seconds since the last one */
            const int check =
                plb && k + 1 < K &&
                (c->cfg.balance == 2 || (k + 1) % RX_PLB_WINDOW == 0);
            double tq = rx__now();
            if (check) { /* CPU time: a descheduled spell is no work */
                const double b = rx__thread_cpu() - ts->lb_t0 - ts->lb_wait;
                ts->lb_pub = b > 0.0 ? b : 0.0;
            }
            barrier_wait(bar, sense);
            ts->lb_wait += rx__now() - tq;
            if (t == 0) {
                rx__recorder *rw = &c->rec;
                rw->trips_a5 = rw->trips_l1 = rw->restarts = 0;
                rw->total_swaps = 0;
                for (int u = 0; u < nthr; ++u) {
                    rw->trips_a5 += c->ts[u].pc_a5;
                    rw->trips_l1 += c->ts[u].pc_l1;
                    rw->restarts += c->ts[u].pc_rs;
                    rw->total_swaps += c->ts[u].pc_sw;
                }
                for (int q = 0; q < P; ++q) {
                    xs->at[q] = gmap[q];
                    xs->pos[gmap[q]] = q;
                }
                /* every pair belongs to one thread: these sums are its
                 * owner's numbers, bit for bit */
                const int np = P - 1;
                for (int p = 0; p < np; ++p) {
                    rx_pair_stats sum = {0, 0, 0, 0, 0.0};
                    int64_t w0 = 0, w1 = 0, w2 = 0;
                    for (int u = 0; u < nthr; ++u) {
                        const rx__tstate *tu = &c->ts[u];
                        sum.conditions += tu->pst[p].conditions;
                        sum.evaluated += tu->pst[p].evaluated;
                        sum.attempts += tu->pst[p].attempts;
                        sum.swaps += tu->pst[p].swaps;
                        sum.accept_sum += tu->pst[p].accept_sum;
                        w0 += tu->pwin[p];
                        w1 += tu->pwin[np + p];
                        w2 += tu->pwin[2 * np + p];
                    }
                    rw->pairs[p] = sum;
                    rw->win_cond[p] = w0;
                    rw->win_eval[p] = w1;
                    rw->win_swaps[p] = w2;
                }
                rx__rec_rows(rw, k, xs, 0);
                if (rw->index_every > 0) {
                    int64_t n = k / rw->index_every + 1;
                    rw->n_index = n < rw->cap_index ? n : rw->cap_index;
                }
                /* every = 0: at every full barrier (paced by time) */
                if (c->progress_fn &&
                    (c->progress_every == 0 ||
                     (k + 1) % c->progress_every == 0 || k + 1 == K))
                    report_progress(c, ts, k, t0);
                if (k + 1 < K && c->stop_flag && *c->stop_flag &&
                    ts->st == RX_OK) {
                    c->stop_now = 1;
                    ts->st = RX_EABORTED;
                    ts->fail_particle = -5;
                    ts->fail_k = k;
                }
                /* decided here, between the two barriers, for everyone: a
                 * thread may already be failing in the next iteration's
                 * step by the time a slower one would read the flags after
                 * the second barrier (and would then wait for it forever) */
                int f0, f1;
#pragma omp atomic read
                f0 = c->fail_flag[0];
#pragma omp atomic read
                f1 = c->fail_flag[1];
                c->partner_stop = f0 || f1 || c->stop_now;
                c->partner_recut = 0;
                /* the next period from this one's iteration time */
                if (c->cfg.balance != 2)
                    c->partner_gevery = pace_period(&c->partner_pace, k);
                if (check && !c->partner_stop) {
                    int *old = cuts + 2 * ncut; /* the barrier design's plan */
                    memcpy(old, cuts, sizeof(int) * (size_t)(nthr + 1));
                    if (lb_plan(cuts, c->ts, nthr, c->cfg.balance == 2, k) &&
                        memcmp(old, cuts, sizeof(int) * (size_t)(nthr + 1))) {
                        partner_move_stats(c, old, cuts, nthr);
                        /* both slots (final_cut reads one by parity) */
                        memcpy(cuts + ncut, cuts,
                               sizeof(int) * (size_t)(nthr + 1));
                        c->partner_recut = 1;
                        c->lb_changes++;
                    }
                }
            }
            double tgw = rx__now();
            barrier_wait(bar, sense);
            const double tge = rx__now();
            if (timing)
                t_gw = tge - tgw;
            ts->lb_wait += tge - tgw;
            if (check) {
                ts->lb_t0 = rx__thread_cpu();
                ts->wait_s += ts->lb_wait;
                ts->lb_wait = 0.0;
            }
            /* every thread reads the period thread 0 set between the
             * barriers, so all agree on the next full barrier */
            glob_k = next_global(c, k + 1);
            if (c->partner_recut) {
                /* the new block: its part of the map (the rest of gmap
                 * is not ordered against the neighbours' writes at the
                 * next full barrier, and the other entries this thread
                 * reads, at[lo - 1] and at[hi], come from offers), the
                 * gates of its pairs */
                lo = cuts[t];
                hi = cuts[t + 1];
                phi = t + 1 < nthr ? hi - 1 : hi - 2;
                glo = lo > 0 ? lo - 1 : 0;
                pr = nb_right ? hi - 1 : -1;
                can_defer =
                    !c->no_defer && !(hi - lo == 1 && (lo == 0 || hi == P));
                partner_order(lo, hi, nbl, nbr, ord, &n_inner, &n_ord);
                bk.q0 = bk.q = lo + nbl;
                bk.q1 = hi - nbr;
                bkp = c->bank && bk.q0 < bk.q1 ? &bk : NULL;
                for (int q = lo; q < hi; ++q) {
                    xs->at[q] = gmap[q];
                    xs->pos[gmap[q]] = q;
                }
                for (int p = glo; p <= phi; ++p)
                    xs->gate[p] = ggate[p];
            }
            if (r->trace_every > 0 && (k + 1) % r->trace_every == 0)
                memset(ts->pwin, 0, sizeof(int64_t) * 3 * (size_t)(P - 1));
            if (c->partner_stop) {
                failed = 1;
                break;
            }
        }
        if (timing) {
            double te = rx__now();
            ts->tph[RX_PHASE_STEP] += tb - ta - t_en - t_w0;
            ts->tph[RX_PHASE_ENERGY] += t_en;
            ts->tph[RX_PHASE_WAIT] += t_w0 + t_w + t_gw;
            ts->tph[RX_PHASE_EXCHANGE] += tx - tb - t_w;
            ts->tph[RX_PHASE_RECORD] += te - tx - t_gw;
            (void)tg;
        }
    }
    ts->wait_s += ts->lb_wait;
    ts->lb_wait = 0.0;
    *kout = failed ? k + 1 : k;
    return failed;
}

int rx__wait_note(char *buf, size_t cap, const double *share, int n, int P,
                  double steal, double span)
{
    if (n < 2 || !share || !buf || cap == 0)
        return 0;
    double sum = 0.0, most = share[0];
    int tm = 0;
    for (int t = 0; t < n; ++t) {
        sum += share[t];
        if (share[t] > most) {
            most = share[t];
            tm = t;
        }
    }
    const double mean = sum / n;
    if (!(mean >= RX_WAIT_NOTE_SHARE))
        return 0;
    int w = snprintf(buf, cap,
                     "the %d threads waited for each other %.0f %% of the "
                     "iterations' time on average (thread %d: %.0f %%; "
                     "summary.json timing.wait_share) ",
                     n, 100.0 * mean, tm, 100.0 * most);
    const size_t at = w < 0 ? 0 : (size_t)w < cap ? (size_t)w : cap - 1;
    /* one 10 ms tick of steal is 0.01 / span: below RX_STEAL_NOTE_SPAN
     * thread-seconds it alone could reach the threshold */
    if (steal >= RX_WAIT_NOTE_STEAL && span >= RX_STEAL_NOTE_SPAN)
        snprintf(buf + at, cap - at,
                 "while the host gave %.0f %% of their CPU time to others "
                 "(timing.steal_share: a virtual machine's CPUs are "
                 "shared): a thread that is not running holds the others "
                 "up, so the speed-up from threads is lower than on "
                 "dedicated cores (docs/performance.md, \"Steal\")",
                 100.0 * steal);
    else
        snprintf(buf + at, cap - at,
                 "with %.3g chains per thread: fewer threads, or more "
                 "chains or a costlier step per thread, use the cores "
                 "better (docs/performance.md, \"A cost model\")",
                 (double)P / n);
    return 1;
}

int rx__window_note(char *buf, size_t cap, int P, int W, double S,
                    int64_t cond, int64_t evaluated)
{
    if (!buf || cap == 0 || evaluated < RX_WINDOW_NOTE_EVALS)
        return 0;
    const double r = (double)cond / (double)evaluated;
    const int w = rx__window_off(P, W, r);
    if (w < 1)
        return 0;
    snprintf(buf, cap,
             "the window W = %d came from tempering.target_swap_rate %.3g, "
             "but the pairs met the swap condition in %.3g of their "
             "evaluations (swaps.condition_rate_mean), for which the "
             "optimal window W*(%d, %.3g) is %d: set target_swap_rate to "
             "that rate, or change the ladder until its pairs accept "
             "about %.3g (docs/yaml.md, tempering.target_swap_rate)",
             W, S, r, P, r, w, S);
    return 1;
}

void rx__engine_generic_only(rx_ctx *c, int on)
{
    if (c)
        c->generic_only = on != 0;
}

void rx__engine_no_defer(rx_ctx *c, int on)
{
    if (c)
        c->no_defer = on != 0;
}

void rx__engine_no_prefetch(rx_ctx *c, int on)
{
    if (c)
        c->no_prefetch = on != 0;
}

void rx__engine_bank(rx_ctx *c, int mode)
{
    if (c)
        c->bank_mode = mode > 0 ? 1 : mode < 0 ? -1 : 0;
}

rx_status rx_run(rx_ctx *c)
{
    if (!c)
        return RX_EINVAL;
    if (c->ran)
        return rx__fail(&c->err, RX_EINVAL,
                        "rx_run: this context has already run; create a new "
                        "one");
    c->ran = 1;
    const int P = c->P;
    const int64_t K = c->cfg.iterations;
    const uint64_t seed = c->cfg.seed;
    const int timing = c->cfg.record.phase_timing;
    const int64_t sa_every =
        c->s2_estimate && !c->vc.on ? c->cfg.variance.every : 0;
    /* VR: sigma^2 steps at the period ends */
    const int64_t vr_m = c->s2_estimate && c->vc.on ? c->vc.m : 0;
    const int vr = c->vc.on;
    /* cyclical learning rates: cycles of ceil(K / M) iterations */
    const int64_t cyc_len =
        c->cfg.step.cyclical_cycles > 0
            ? (K + c->cfg.step.cyclical_cycles - 1) / c->cfg.step.cyclical_cycles
            : 0;
    int nt_used = 0;
    const int pin_team = pin_wanted(c->nt_req);
    rx__barrier *bar = rx__calloc_aligned(sizeof *bar, RX_CACHELINE);
    /* chain ranges by parity of k (load balance), and thread 0's plan */
    const size_t ncut = (size_t)c->nt_req + 1;
    int *cuts = rx__calloc_aligned(sizeof(int) * 3 * ncut, RX_CACHELINE);
    if (!bar || !cuts) {
        rx__free_aligned(bar);
        rx__free_aligned(cuts);
        return rx__fail(&c->err, RX_ENOMEM, "rx_run: out of memory");
    }
    int lb_moves = 0;
    /* the partner design's rings (two per thread) and assembled map; its
     * first full barrier comes after one iteration under the measured
     * balance, so the period adapts at once */
    c->partner = partner_applies(c);
    c->partner_gevery = c->cfg.balance == 2 ? RX_GLOBAL_EVERY : 1;
    c->partner_pace = (rx__pace){-1, rx__now()};
    c->progress_next = 1; /* every = 0: the first call after iteration 0 */
    c->progress_pace = c->partner_pace;
    rx__edge *edges = NULL;
    int32_t *gmap = NULL;
    uint8_t *ggate = NULL; /* the gates at a full barrier (load balance) */
    if (c->partner) {
        edges = rx__calloc_aligned(sizeof(rx__edge) * 2 * (size_t)c->nt_req,
                                   RX_CACHELINE);
        gmap = malloc(sizeof(int32_t) * (size_t)P);
        ggate = malloc((size_t)P);
        if (!edges || !gmap || !ggate) {
            rx__free_aligned(edges);
            free(gmap);
            free(ggate);
            rx__free_aligned(bar);
            rx__free_aligned(cuts);
            return rx__fail(&c->err, RX_ENOMEM, "rx_run: out of memory");
        }
        for (int e = 0; e < 2 * c->nt_req; ++e) {
            for (int j = 0; j < RX_RING; ++j)
                atomic_init(&edges[e].o[j].stamp, 0);
            atomic_init(&edges[e].consumed, 0);
            edges[e].seen = 0;
        }
    }
    /* the fused chain-step of the 2-D target (rx__m25_step): SGLD or SGD
     * at every position, ziggurat draws, no rollback copies, no VR; phase
     * timing keeps the generic one, which times the evaluation apart */
    const rx_step_kind k0 = c->cfg.step.target, k1 = c->cfg.step.others;
    c->fused = c->target->fused_m25 && c->dim == 2 && !c->generic_only &&
               c->cfg.rng.normal == RX_NORMAL_ZIGGURAT &&
               (k0 == RX_STEP_SGLD || k0 == RX_STEP_SGD) &&
               (k1 == RX_STEP_SGLD || k1 == RX_STEP_SGD) &&
               c->cfg.faults.policy != 1 && !c->vc.on && !timing;
    /* the partner design's waits draw the fused step's normals ahead */
    c->bank = c->fused && c->partner && c->nt_req > 1 && c->bank_mode >= 0;
    particle_sizes(c);
    /* the barrier design with fresh pair noise: each thread draws its
     * share of the comparisons' noise in the step phase (by parity of k),
     * instead of every thread drawing all of it in the exchange; without
     * the memory every thread draws as before */
    double *fz = c->xc.fresh_sd > 0.0 && !c->partner && !c->generic_only &&
                         P > 1
                     ? rx__calloc_aligned(sizeof(double) * 4 * (size_t)(P - 1),
                                          RX_CACHELINE)
                     : NULL;
    c->zh = zhelp_alloc(c);
    if (c->zh)
        c->mem_scratch += 2.0 * sizeof(double) * (double)c->dim * P;
    /* BLAS single-threaded inside a chain: the team is the parallelism */
    const int is_net = rx__target_is_network(c->target);
    const int blas_prev = is_net ? rx__blas_set_threads(1) : 0;
    char core_hint[400];
    if (is_net && rx__blas_core_hint(core_hint, sizeof core_hint))
        rx__logf(&c->log, RX_LOG_INFO, "%s", core_hint);
    if (is_net && c->cfg.model.gemm == RX_GEMM_BLAS && c->nt_req > 2)
        rx__logf(&c->log, RX_LOG_INFO,
                 "model.gemm: blas on %d threads: OpenBLAS serialises the "
                 "chains' concurrent small products (the Boston MLP ran "
                 "2.4x one thread on 16 threads, 13.3x with model.gemm: "
                 "auto; docs/performance.md, \"On 16 cores\")",
                 c->nt_req);
    const rx__load_snap load0 = rx__load_now();
    double t0 = rx__now();

#pragma omp parallel num_threads(c->nt_req)
    {
        const int t = omp_get_thread_num();
        const int nthr = omp_get_num_threads();
        rx__tstate *ts = &c->ts[t];
        ts->t_enter = rx__now();
        const int lo = (int)((int64_t)t * P / nthr);
        const int hi = (int)((int64_t)(t + 1) * P / nthr);
        int sense = 0;
        /* thread 0 records, so it evaluates every pair; the others need
         * only the maps unless the ladder or C adapts from all pairs */
        const int full_x =
            t == 0 || c->ac.adapt != RX_ADAPT_NONE || c->ac.adapt_c;
        rx__pin pin = {.pinned = 0};
        if (pin_team && nthr == c->nt_req)
            pin_thread(&pin, t);
        /* network and data targets: the thread's workspace then keeps a
         * minibatch sampler for every chain (a pure function of (seed,
         * chain, k) with a per-epoch cache), so a chain can move */
        const int lb = c->cfg.balance && nthr > 1 && !c->partner;
        int *plan = cuts + 2 * ncut;
        double t_exit = 0.0;
        if (t == 0) {
            for (int u = 0; u <= nthr; ++u)
                cuts[u] = cuts[ncut + u] = plan[u] =
                    (int)((int64_t)u * P / nthr);
            nt_used = nthr;
            atomic_init(&bar->count, 0);
            atomic_init(&bar->sense, 0);
            bar->n = nthr;
        }
        ts->st = RX_OK;
        if (tstate_alloc(c, ts, P) != RX_OK)
            chain_fail(c, ts, 2, RX_ENOMEM, -1, -1, 0.0);
        if (ts->st == RX_OK) {
            /* chains that move between threads: samplers for all */
            const int all = lb || c->partner;
            rx_status st = rx__tws_create(c->target, all ? 0 : lo,
                                          all ? P : hi, seed, &ts->tws,
                                          &ts->err);
            if (st != RX_OK)
                chain_fail(c, ts, 2, st, -3, -1, 0.0);
        }
        if (ts->st == RX_OK && vr &&
            rx__vrws_create(&ts->vrw, c->target->cv.bs, c->vc.J) != RX_OK)
            chain_fail(c, ts, 2, RX_ENOMEM, -1, -1, 0.0);
        if (ts->tws && is_net) {
            double dbytes, sbytes;
            rx__network_mem(c->target, ts->tws, &dbytes, &sbytes);
#pragma omp atomic
            c->mem_scratch += sbytes;
            if (t == 0)
                c->mem_data = dbytes;
        }
        if (c->resumed && ts->st == RX_OK)
            rx__xstate_copy(&ts->x, &c->res_x, P);
        /* partner design: energies by particle, own and neighbours' */
        double *Eloc = NULL;
        if (c->partner && ts->st == RX_OK) {
            /* and the partner loop's order of positions (P ints) */
            Eloc = malloc((sizeof(double) + sizeof(int)) * (size_t)P);
            ts->pst = rx__calloc_aligned(sizeof(rx_pair_stats) * (size_t)P,
                                         RX_CACHELINE);
            ts->pwin = rx__calloc_aligned(sizeof(int64_t) * 3 * (size_t)P,
                                          RX_CACHELINE);
            if (!Eloc || !ts->pst || !ts->pwin)
                chain_fail(c, ts, 2, RX_ENOMEM, -1, -1, 0.0);
        }
        const size_t pstride = rx__part_stride(c);
        for (int i = lo; i < hi && ts->st == RX_OK; ++i) {
            if (particle_alloc(c, i, ts->tws) != RX_OK) {
                chain_fail(c, ts, 2, RX_ENOMEM, i, -1, 0.0);
                break;
            }
            rx__particle *p = c->parts[i];
            if (c->resumed) {
                rx__part_unpack(p, c->dim, c->res_parts + (size_t)i * pstride);
                continue;
            }
            rx_status st = rx__target_eval_pe(c->target, ts->tws, p->theta,
                                              &p->energy, p->grad, seed,
                                              (uint32_t)i, 0,
                                              vr ? ts->vrw->pe : NULL);
            if (st == RX_OK && vr)
                st = vr_after_eval(c, ts, p, i, -1);
            if (st != RX_OK)
                particle_fail(c, ts, 2, st, i, i, -1, NAN,
                              isfinite(p->energy) ? bad_coord(p->grad, c->dim)
                                                  : -1);
        }
#pragma omp barrier
        int64_t k = c->k0;
        int failed = c->fail_flag[2];
        const double t_loop = rx__now();
        ts->wait_s = 0.0;
        if (!failed && c->partner) {
            failed = partner_loop(c, ts, t, nthr, bar, &sense, edges, gmap,
                                  ggate, cuts, (int)ncut, Eloc, t0, &k);
        } else if (!failed) {
            for (k = c->k0; k < K; ++k) {
                double *Ek = c->E[k & 1];
                /* a resumed run re-enters after the step phase of k0 */
                const int skip_step = c->resumed && k == c->k0;
                double cyc = 1.0;
                if (cyc_len > 0) {
                    double r = (double)(k % cyc_len) / (double)cyc_len;
                    cyc = 0.5 * (cos(3.14159265358979323846 * r) + 1.0);
                }
                double ta = timing ? rx__now() : 0.0, t_en = 0.0;
                /* the sample of iteration k-1, taken before stepping */
                const int64_t row =
                    k > 0 && c->samples ? sample_row(&c->cfg, k - 1) : -1;
                const int *cu = cuts + (size_t)(k & 1) * ncut;
                const int lo_k = lb ? cu[t] : lo, hi_k = lb ? cu[t + 1] : hi;
                for (int i = lo_k; i < hi_k && skip_step; ++i)
                    Ek[i] = c->parts[i]->energy;
                for (int i = lo_k; i < hi_k && !skip_step; ++i) {
                    step_one(c, ts, i, ts->x.pos[i], k, cyc, row, Ek,
                             sa_every, timing, &t_en);
                }
                /* this thread's share of the pairs' fresh noise of k */
                double *fzk =
                    fz ? fz + (size_t)(k & 1) * 2 * (size_t)(P - 1) : NULL;
                if (fzk) {
                    const int a0 = (int)((int64_t)t * (P - 1) / nthr);
                    const int a1 = (int)((int64_t)(t + 1) * (P - 1) / nthr);
                    for (int a = a0; a < a1; ++a)
                        rx__pair_noise(&c->xc, a, k, fzk + 2 * a);
                }
                double tb = timing ? rx__now() : 0.0;
                if (lb && k % RX_LB_SAMPLE == 0 && k > c->k0) {
                    ts->lb_busy += rx__now() - t_exit;
                    if (k % RX_LB_WINDOW == 0) {
                        ts->lb_pub = ts->lb_busy;
                        ts->lb_busy = 0.0;
                    }
                }
                const double help0 = ts->help_s;
                /* the wait share: every barrier timed (two clock reads;
                 * a sample of them was biased by periodic work), less
                 * the noise drawn for others while there */
                const int wtime = nthr > 1;
                const double tw0 = wtime ? rx__now() : 0.0;
                if (c->zh && nthr > 1)
                    barrier_wait_help(c, ts, bar, &sense, k, !skip_step,
                                      lo_k, hi_k, timing || wtime);
                else
                    barrier_wait(bar, &sense);
                const double help_k = ts->help_s - help0;
                if (wtime)
                    ts->wait_s += rx__now() - tw0 - help_k;
#pragma omp atomic read
                failed = c->fail_flag[k & 1];
                if (failed)
                    break;
                int ck;
#pragma omp atomic read
                ck = c->ckpt_flag[k & 1];
                if (ck) {
                    /* every particle is past the step phase of k and every
                     * exchange state past k - 1: a consistent state */
                    if (t == 0) {
                        if (c->ckpt_fn && !skip_step) {
                            rx_status cst = c->ckpt_fn(c, k);
                            if (cst != RX_OK) {
                                ts->st = cst;
                                ts->fail_particle = -6;
                                ts->fail_k = k;
                                c->stop_now = 1;
                            } else {
                                c->ckpts_written++;
                            }
                        }
                        if (c->stop_now && ts->st == RX_OK) {
                            ts->st = RX_EABORTED;
                            ts->fail_particle = -5;
                            ts->fail_k = k;
                        }
                    }
                    const double tw1 = nthr > 1 ? rx__now() : 0.0;
                    barrier_wait(bar, &sense);
                    if (nthr > 1) /* while thread 0 writes the checkpoint */
                        ts->wait_s += rx__now() - tw1;
                    /* every thread has read the flag: clear it (thread 0
                     * sets this slot again while recording k + 1) */
                    if (t == 0) {
#pragma omp atomic write
                        c->ckpt_flag[k & 1] = 0;
                    }
                    int stop;
#pragma omp atomic read
                    stop = c->stop_now;
                    if (stop) {
                        failed = 1;
                        break;
                    }
                }
                if (lb && (k + 1) % RX_LB_SAMPLE == 0)
                    t_exit = rx__now();
                if (lb && t == 0) {
                    /* plan for k + 2 into the slot of k, which nobody reads
                     * before the barrier of k + 1; both slots in turn */
                    if (k % RX_LB_WINDOW == 0 && k > c->k0 &&
                        lb_plan(plan, c->ts, nthr, c->cfg.balance == 2, k))
                        lb_moves = 2;
                    if (lb_moves > 0) {
                        memcpy(cuts + (size_t)(k & 1) * ncut, plan,
                               sizeof(int) * (size_t)(nthr + 1));
                        lb_moves--;
                        c->lb_changes++;
                    }
                }
                double tc = timing ? rx__now() : 0.0;
                ts->x.fresh_z = fzk;
                rx__exchange(&c->xc, &ts->x, Ek, k, full_x);
                double tx = timing ? rx__now() : 0.0;
                rx__adapt(&c->ac, &ts->x, k);
                if ((sa_every > 0 && k % sa_every == 0) ||
                    (vr_m > 0 && (k + 1) % vr_m == 0))
                    sigma2_sa(c, &ts->x, k);
                double td = timing ? rx__now() : 0.0;
                if (timing) {
                    /* noise drawn for other threads' chains is step work */
                    ts->tph[RX_PHASE_STEP] += tb - ta - t_en + help_k;
                    ts->tph[RX_PHASE_ENERGY] += t_en;
                    ts->tph[RX_PHASE_WAIT] += tc - tb - help_k;
                    ts->tph[RX_PHASE_EXCHANGE] += tx - tc;
                    ts->tph[RX_PHASE_ADAPT] += td - tx;
                }
                if (t == 0) {
                    rx__rec_iter(&c->rec, k, &ts->x);
                    if (c->progress_fn && progress_due(c, k))
                        report_progress(c, ts, k, t0);
                    /* checkpoint (or stop) after the step phase of k + 1 */
                    if (k + 1 < K &&
                        ((c->ckpt_every > 0 && (k + 1) % c->ckpt_every == 0) ||
                         (c->stop_flag && *c->stop_flag))) {
                        if (c->stop_flag && *c->stop_flag)
                            c->stop_now = 1;
#pragma omp atomic write
                        c->ckpt_flag[(k + 1) & 1] = 1;
                    }
                    if (timing)
                        ts->tph[RX_PHASE_RECORD] += rx__now() - td;
                }
            }
        }
        ts->loop_s = rx__now() - t_loop;
        /* the sample of the last iteration */
        /* the chains this thread owned last (and at K: the same slot) */
        const int *cu_end = cuts + (size_t)(k & 1) * ncut;
        const int lo_e = lb ? cu_end[t] : lo, hi_e = lb ? cu_end[t + 1] : hi;
        int qlo = lo, qhi = hi; /* the partner design's positions */
        if (c->partner) {
            qlo = cuts[t];
            qhi = cuts[t + 1];
        }
        if (!failed && K > 0 && c->samples && c->partner) {
            int64_t row = sample_row(&c->cfg, K - 1);
            for (int q = qlo; q < qhi && row >= 0; ++q)
                store_sample(c, c->parts[ts->x.at[q]], q, row);
        } else if (!failed && K > 0 && c->samples) {
            int64_t row = sample_row(&c->cfg, K - 1);
            for (int i = lo_e; i < hi_e && row >= 0; ++i)
                store_sample(c, c->parts[i], ts->x.pos[i], row);
        }
        if (!failed && c->ev.on) {
            /* posterior predictive of a network: every thread scores row
             * chunks of the test (and OOD) sets */
            for (int u = c->partner ? qlo : lo_e;
                 u < (c->partner ? qhi : hi_e) && c->ev.ens_models; ++u) {
                const int i = c->partner ? ts->x.at[u] : u;
                for (size_t j = 0; j < c->dim; ++j)
                    c->ev.ens_models[(size_t)i * c->dim + j] =
                        (float)c->parts[i]->theta[j];
            }
            barrier_wait(bar, &sense);
            double te0 = rx__now();
            evaluate_chunks(c, ts, t, nthr);
            barrier_wait(bar, &sense);
            if (t == 0) {
                evaluate_metrics(c);
                c->eval_s = rx__now() - te0;
            }
        }
        free(Eloc);
        rx__free_aligned(ts->pst);
        rx__free_aligned(ts->pwin);
        ts->pst = NULL;
        ts->pwin = NULL;
        rx__tws_destroy(&ts->tws);
        rx__vrws_destroy(&ts->vrw);
        unpin_thread(&pin);
        if (t == 0) {
            c->iters_done = k;
            memcpy(c->final_at, ts->x.at, sizeof(int32_t) * (size_t)P);
            memcpy(c->eta, ts->x.eta, sizeof(double) * (size_t)P);
            memcpy(c->tau, ts->x.tau, sizeof(double) * (size_t)P);
            c->C_final = ts->x.C;
            memcpy(c->s2_final, ts->x.s2hat, sizeof(double) * (size_t)P);
            c->rec.total_swaps += ts->x.nonadjacent_swaps;
        }
    }
    c->nt_used = nt_used;
    c->wall_s = rx__now() - t0;
    c->start_s = 0.0;
    for (int t = 0; t < nt_used; ++t)
        if (c->ts[t].t_enter - t0 > c->start_s)
            c->start_s = c->ts[t].t_enter - t0;
    {
        const rx__load_snap load1 = rx__load_now();
        c->steal_share = rx__steal_share(&load0, &load1, nt_used);
    }
    if (is_net)
        rx__blas_set_threads(blas_prev);
    c->final_cut = nt_used > 0 ? malloc(sizeof(int) * (size_t)(nt_used + 1))
                               : NULL;
    if (c->final_cut)
        memcpy(c->final_cut, cuts + (size_t)(c->iters_done & 1) * ncut,
               sizeof(int) * (size_t)(nt_used + 1));
    rx__free_aligned(bar);
    rx__free_aligned(cuts);
    rx__free_aligned(edges);
    free(gmap);
    free(ggate);
    zhelp_free(c);
    for (int t = 0; t < c->nt_req; ++t)
        c->ts[t].x.fresh_z = NULL;
    rx__free_aligned(fz);
    c->noise_helped = 0;
    for (int t = 0; t < c->nt_req; ++t)
        c->noise_helped += c->ts[t].helped;
    free(c->wait_share);
    c->wait_share =
        nt_used > 1 ? malloc(sizeof(double) * (size_t)nt_used) : NULL;
    for (int t = 0; c->wait_share && t < nt_used; ++t) {
        const rx__tstate *tu = &c->ts[t];
        /* every wait lies inside the loop's span: at most 1 */
        c->wait_share[t] = tu->loop_s > 0.0 ? tu->wait_s / tu->loop_s : 0.0;
    }
    for (int j = 0; j < RX_NPHASES; ++j)
        c->phase_s[j] = c->ts[0].tph[j];
    if (timing && nt_used > 0) {
        c->thread_phase_s =
            malloc(sizeof(double) * RX_NPHASES * (size_t)nt_used);
        for (int t = 0; c->thread_phase_s && t < nt_used; ++t)
            for (int j = 0; j < RX_NPHASES; ++j)
                c->thread_phase_s[t * RX_NPHASES + j] = c->ts[t].tph[j];
    }

    /* deterministic message: the lowest thread slot with a failure that
     * is not a particle's; else the earliest particle failure (iteration,
     * then particle) */
    int pick = -1;
    for (int t = 0; t < c->nt_req && pick < 0; ++t)
        if (c->ts[t].st != RX_OK && c->ts[t].fail_particle < 0)
            pick = t;
    for (int t = 0; t < c->nt_req && pick < 0; ++t) {
        const rx__tstate *a = &c->ts[t];
        if (a->st == RX_OK)
            continue;
        int best = 1;
        for (int u = 0; u < c->nt_req; ++u) {
            const rx__tstate *b = &c->ts[u];
            if (u != t && b->st != RX_OK &&
                (b->fail_k < a->fail_k ||
                 (b->fail_k == a->fail_k &&
                  b->fail_particle < a->fail_particle)))
                best = 0;
        }
        if (best)
            pick = t;
    }
    /* the notes on waiting and on the window, for runs that completed
     * without a failure */
    if (pick < 0 && c->wait_share && c->iters_done >= K) {
        char note[400];
        if (rx__wait_note(note, sizeof note, c->wait_share, nt_used, P,
                          c->steal_share, c->wall_s * nt_used))
            rx__logf(&c->log, RX_LOG_INFO, "%s", note);
    }
    /* not where the correction adapts the rate to S, nor with a window
     * correction, which lowers it on purpose */
    if (pick < 0 && c->iters_done >= K && c->rec.pairs && !c->ac.adapt_c &&
        c->xc.wcorr == 0.0 &&
        (c->cfg.tempering.scheme == RX_SCHEME_DEO_STAR ||
         (c->cfg.tempering.scheme == RX_SCHEME_DEO_W &&
          c->cfg.tempering.window == RX_WINDOW_AUTO))) {
        int64_t cond = 0, ev = 0;
        for (int p = 0; p < P - 1; ++p) {
            cond += c->rec.pairs[p].conditions;
            ev += c->rec.pairs[p].evaluated;
        }
        char note[480];
        if (rx__window_note(note, sizeof note, P, c->xc.W,
                            c->cfg.tempering.target_swap_rate, cond, ev))
            rx__logf(&c->log, RX_LOG_INFO, "%s", note);
    }
    for (int t = pick; t >= 0 && t < c->nt_req; t = c->nt_req) {
        rx__tstate *ts = &c->ts[t];
        if (ts->fail_particle == -1)
            return rx__fail(&c->err, ts->st, "rx_run: %s while allocating "
                            "chain state", rx_strerror(ts->st));
        int32_t i = ts->fail_particle;
        if (i == -3)
            return rx__fail(&c->err, ts->st, "rx_run: %s", ts->err.msg);
        if (i == -4)
            return rx__fail(&c->err, ts->st, "rx_run: evaluation: %s",
                            rx_strerror(ts->st));
        if (i == -5)
            return rx__fail(&c->err, ts->st,
                            "rx_run: stopped on request after the step phase "
                            "of iteration %lld%s%s", (long long)ts->fail_k,
                            c->ckpt_fn ? "; checkpoint written to " : "",
                            c->ckpt_fn ? c->ckpt_path : "");
        if (i == -6)
            return rx__fail(&c->err, ts->st,
                            "rx_run: checkpoint at iteration %lld failed: %s "
                            "(the previous checkpoint is intact)",
                            (long long)ts->fail_k, c->ckpt_err);
        if (i == -2)
            return rx__fail(&c->err, ts->st, "rx_run: stopped by the "
                            "progress callback after iteration %lld",
                            (long long)ts->fail_k);
        if (ts->fail_k < 0)
            return rx__fail(&c->err, ts->st,
                            "rx_run: particle %d: %s at its initial point",
                            (int)i, rx_strerror(ts->st));
        if (ts->st == RX_ENUMERIC) {
            const rx__particle *fp = c->parts[i];
            double nrm = 0.0;
            for (size_t j = 0; fp && j < c->dim; ++j)
                nrm += fp->theta[j] * fp->theta[j];
            char what[96];
            if (ts->fail_coord >= 0)
                snprintf(what, sizeof what, "non-finite gradient (coordinate "
                         "%d)", (int)ts->fail_coord);
            else
                snprintf(what, sizeof what, "non-finite energy");
            return rx__fail(&c->err, ts->st,
                            "rx_run: particle %d at position %d%s, iteration "
                            "%lld: %s; last finite energy %.17g, |theta| = "
                            "%.6g%s",
                            (int)i, (int)ts->fail_q + 1,
                            ts->fail_q == 0 ? " (the target)" : "",
                            (long long)ts->fail_k, what, ts->fail_last_energy,
                            sqrt(nrm),
                            c->cfg.faults.policy == 1
                                ? " (faults.max_rollbacks reached)"
                                : " (faults.policy: rollback would restore "
                                  "and halve its step)");
        }
        return rx__fail(&c->err, ts->st,
                        "rx_run: particle %d at iteration %lld: %s (last "
                        "finite energy %.17g)",
                        (int)i, (long long)ts->fail_k, rx_strerror(ts->st),
                        ts->fail_last_energy);
    }
    rx__logf(&c->log, RX_LOG_INFO,
             "run done: %lld iterations, %d chains, %d threads, %.3f s",
             (long long)K, P, nt_used, c->wall_s);
    return RX_OK;
}

rx_status rx_get_results(const rx_ctx *c, rx_results *r)
{
    if (!c || !r)
        return RX_EINVAL;
    memset(r, 0, sizeof *r);
    r->n_chains = c->P;
    r->window = c->xc.W;
    r->threads = c->nt_used;
    r->iterations = c->iters_done;
    r->trips_a5 = c->rec.trips_a5;
    r->trips_l1 = c->rec.trips_l1;
    r->restarts = c->rec.restarts;
    r->total_swaps = c->rec.total_swaps;
    r->pairs = c->rec.pairs;
    r->correction = c->C_final;
    r->sigma2 = c->s2_final;
    r->eta = c->eta;
    r->tau = c->tau;
    r->n_samples = c->ran ? c->n_samples : 0;
    r->dim = c->dim;
    r->samples = c->samples;
    r->n_index = c->rec.n_index;
    r->index = c->rec.index;
    r->index_iter = c->rec.index_iter;
    r->wall_s = c->wall_s;
    for (int j = 0; j < RX_NPHASES; ++j)
        r->phase_s[j] = c->phase_s[j];
    r->thread_phase_s = c->thread_phase_s;
    r->balance_changes = c->lb_changes;
    r->noise_helped = c->noise_helped;
    r->wait_share = c->wait_share;
    r->steal_share = c->steal_share;
    r->start_s = c->start_s;
    r->partner = c->partner;
    if (c->ran) {
        r->bma = c->ev.bma;
        r->ensemble = c->ev.ens;
    }
    r->eval_s = c->eval_s;
    return RX_OK;
}
