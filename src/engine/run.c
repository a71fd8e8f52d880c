/*
 * rx_run: P chains inside ONE OpenMP parallel region (the engine's files
 * are the only OpenMP users). The barrier design's iteration k:
 *   step + energy (each thread its own particles)   -- barrier --
 *   with a bias, its update in position order (step 3, rx__bias_step3)
 *   -- barrier --
 *   exchange + record (exchange replicated on every thread over its own
 *   copy of the maps; thread 0 records).
 * The exchange is a pure function of (energies, ladder, seed, k), so every
 * thread computes the same swaps and needs no second barrier; energies are
 * double-buffered by the parity of k so a fast thread writing k+1 never
 * overwrites what a slow thread still reads for k. The partner design's
 * loop is in partner.c.
 *
 * The phases: run_prepare (before the region), run_thread (each thread:
 * thread_setup, the loop, thread_finish), run_collect (after it), and
 * rx__run_outcome (report.c).
 */
#define _GNU_SOURCE
#include <math.h>
#include <omp.h>
#include <stdlib.h>
#include <string.h>

#include "../model/model.h"
#include "chain.h"
#include "ranks.h"
#include "wing.h"

/* Before the threads start: the team's barrier and cuts, the design
 * (partner or barrier), the fused chain-step, the particles' layout, the
 * buffers of noise drawn ahead, BLAS on one thread. */
static rx_status run_prepare(rx_ctx *c, rx__run *R)
{
    const int P = c->P;
    const int64_t K = c->cfg.iterations;
    const int timing = c->cfg.record.phase_timing;
    memset(R, 0, sizeof *R);
    R->sa_every = c->s2_estimate && !c->vc.on ? c->cfg.variance.every : 0;
    /* VR: sigma^2 steps at the period ends */
    R->vr_m = c->s2_estimate && c->vc.on ? c->vc.m : 0;
    /* cyclical learning rates: cycles of ceil(K / M) iterations */
    R->cyc_len = c->cfg.step.cyclical_cycles > 0
                     ? (K + c->cfg.step.cyclical_cycles - 1) /
                           c->cfg.step.cyclical_cycles
                     : 0;
    R->pin_team = rx__pin_wanted(c->nt_req);
    R->bar = rx__calloc_aligned(sizeof *R->bar, RX_CACHELINE);
    /* chain ranges by parity of k (load balance), and thread 0's plan */
    R->ncut = (size_t)c->nt_req + 1;
    R->cuts = rx__calloc_aligned(sizeof(int) * 3 * R->ncut, RX_CACHELINE);
    if (!R->bar || !R->cuts || rx__partner_prepare(c, R) != RX_OK) {
        rx__free_aligned(R->bar);
        rx__free_aligned(R->cuts);
        return rx__fail(&c->err, RX_ENOMEM, "rx_run: out of memory");
    }
    c->progress_next = 1; /* every = 0: the first call after iteration 0 */
    c->progress_pace = c->partner_pace;
    /* the fused chain-step of the 2-D target (rx__m25_step): SGLD or SGD
     * at every position, ziggurat draws, no rollback copies, no VR; phase
     * timing keeps the generic one, which times the evaluation apart */
    const rx_step_kind k0 = c->cfg.step.target, k1 = c->cfg.step.others;
    c->fused = c->target->fused_m25 && c->dim == 2 && !c->generic_only &&
               c->cfg.rng.normal == RX_NORMAL_ZIGGURAT &&
               (rx__step_row(k0)->row.props & RX__STEP_PLAIN) &&
               (rx__step_row(k1)->row.props & RX__STEP_PLAIN) &&
               c->cfg.faults.policy != 1 && !c->vc.on && !timing &&
               !c->bias.type && /* it has no gradient multiplier */
               !c->box;         /* nor the box */
    c->fused_noise[0] = (rx__step_row(k0)->row.props & RX__STEP_SAMPLES) != 0;
    c->fused_noise[1] = (rx__step_row(k1)->row.props & RX__STEP_SAMPLES) != 0;
    /* the partner design's waits draw the fused step's normals ahead */
    c->bank = c->fused && c->partner && c->nt_req > 1 && c->bank_mode >= 0;
    rx__particle_sizes(c);
    /* the barrier design with fresh pair noise: each thread draws its
     * share of the comparisons' noise in the step phase (by parity of k),
     * instead of every thread drawing all of it in the exchange; without
     * the memory every thread draws as before */
    R->fz = c->xc.fresh_sd > 0.0 && !c->partner && !c->generic_only && P > 1
                ? rx__calloc_aligned(sizeof(double) * 4 * (size_t)(P - 1),
                                     RX_CACHELINE)
                : NULL;
    /* the paired exchange estimates of the attempted pairs */
    if (c->xc.paired && c->mp) {
        rx__free_aligned(R->fz);
        rx__free_aligned(R->bar);
        rx__free_aligned(R->cuts);
        rx__partner_free(R);
        return rx__fail(&c->err, RX_ECONFIG,
                        "tempering.rule: the %s rule on minibatch energies "
                        "runs on one rank (a pair's two parameter vectors "
                        "are evaluated together); this run has %d",
                        rx__xtest_row(c->xc.rule)->row.name,
                        rx__ranks_size(c));
    }
    R->xpe = c->xc.paired ? rx__calloc_aligned(sizeof(double) * 2 *
                                                   (size_t)(P - 1),
                                               RX_CACHELINE)
                          : NULL;
    /* step 3's scratch: a shared bias state's P energies and
     * temperatures */
    R->bias_u = c->bias.type && !c->partner
                    ? rx__calloc_aligned(sizeof(double) * 2 * (size_t)P,
                                         RX_CACHELINE)
                    : NULL;
    if ((c->bias.type && !c->partner && !R->bias_u) ||
        (c->xc.paired && !R->xpe)) {
        rx__free_aligned(R->xpe);
        rx__free_aligned(R->bias_u);
        rx__free_aligned(R->fz);
        rx__free_aligned(R->bar);
        rx__free_aligned(R->cuts);
        rx__partner_free(R);
        return rx__fail(&c->err, RX_ENOMEM, "rx_run: out of memory");
    }
    /* on ranks a thread's neighbours may be another rank's: no helpers */
    c->zh = c->mp ? NULL : rx__zhelp_alloc(c);
    if (c->zh)
        c->mem_scratch += 2.0 * sizeof(double) * (double)c->dim * P;
    /* BLAS single-threaded inside a chain: the team is the parallelism */
    R->is_net = rx__target_is_network(c->target);
    R->blas_prev = R->is_net ? rx__blas_set_threads(1) : 0;
    char core_hint[400];
    if (R->is_net && rx__blas_core_hint(core_hint, sizeof core_hint))
        rx__logf(&c->log, RX_LOG_INFO, "%s", core_hint);
    if (R->is_net && c->cfg.model.gemm == RX_GEMM_BLAS && c->nt_req > 2)
        rx__logf(&c->log, RX_LOG_INFO,
                 "model.gemm: blas on %d threads: OpenBLAS serialises the "
                 "chains' concurrent small products (the Boston MLP ran "
                 "2.4x one thread on 16 threads, 13.3x with model.gemm: "
                 "auto; docs/performance.md, \"On 16 cores\")",
                 c->nt_req);
    /* on ranks: a launcher that bound this rank to fewer CPUs than it has
     * threads (Open MPI binds each rank to one core when it starts two
     * ranks or fewer) makes its threads take turns on them */
    cpu_set_t aff;
    if (c->mp && c->nt_req > 1 &&
        sched_getaffinity(0, sizeof aff, &aff) == 0 &&
        CPU_COUNT(&aff) < c->nt_req)
        rx__logf(&c->log, RX_LOG_WARN,
                 "rank %d runs %d threads on %d CPU%s: the launcher bound "
                 "it; start it with mpirun --map-by slot:PE=%d (or "
                 "--bind-to none) so that each thread has a core",
                 rx__ranks_rank(c), c->nt_req, CPU_COUNT(&aff),
                 CPU_COUNT(&aff) == 1 ? "" : "s", c->nt_req);
    R->load0 = rx__load_now();
    R->t0 = rx__now();
    return RX_OK;
}

/* Thread 0 before the others set up: the first cuts and the barrier. */
static void team_init(rx__run *R, int nthr, int P)
{
    int *cuts = R->cuts, *plan = R->cuts + 2 * R->ncut;
    for (int u = 0; u <= nthr; ++u)
        cuts[u] = cuts[R->ncut + u] = plan[u] = (int)((int64_t)u * P / nthr);
    R->nt_used = nthr;
    atomic_init(&R->bar->count, 0);
    atomic_init(&R->bar->sense, 0);
    R->bar->n = nthr;
}

/* Thread t's state: its exchange state, target and VR workspaces, the
 * resumed exchange state, the partner design's energies and statistics
 * (returned: Eloc, or NULL). Failures go to the set-up slot. */
static double *thread_setup(rx_ctx *c, rx__tstate *ts, int t, int lo,
                            int hi, int lb)
{
    const int P = c->P;
    ts->st = RX_OK;
    if (rx__tstate_alloc(c, ts, P) != RX_OK)
        rx__chain_fail(c, ts, 2, RX_ENOMEM, RX_FAIL_ALLOC, -1, 0.0);
    if (ts->st == RX_OK) {
        /* network and data targets: the thread's workspace then keeps a
         * minibatch sampler for every chain (a pure function of (seed,
         * chain, k) with a per-epoch cache), so a chain can move */
        const int all = lb || c->partner;
        rx_status st = rx__tws_create(c->target, all ? 0 : lo, all ? P : hi,
                                      c->cfg.seed, &ts->tws, &ts->err);
        if (st != RX_OK)
            rx__chain_fail(c, ts, 2, st, RX_FAIL_SETUP, -1, 0.0);
    }
    if (ts->st == RX_OK && c->vc.on &&
        rx__vrws_create(&ts->vrw, c->target->cv.bs, c->vc.J) != RX_OK)
        rx__chain_fail(c, ts, 2, RX_ENOMEM, RX_FAIL_ALLOC, -1, 0.0);
    if (ts->st == RX_OK) {
        rx_status st = rx__xbatch_thread_init(c, ts);
        if (st != RX_OK)
            rx__chain_fail(c, ts, 2, st, RX_FAIL_ALLOC, -1, 0.0);
    }
    if (ts->st == RX_OK && c->path) {
        ts->gpath = rx__calloc_aligned(sizeof(double) * (c->dim ? c->dim : 1),
                                       RX_CACHELINE);
        if (!ts->gpath)
            rx__chain_fail(c, ts, 2, RX_ENOMEM, RX_FAIL_ALLOC, -1, 0.0);
    }
    if (ts->st == RX_OK && c->box) {
        ts->box_keep = rx__calloc_aligned(
            sizeof(double) * (c->dim ? c->dim : 1), RX_CACHELINE);
        if (!ts->box_keep)
            rx__chain_fail(c, ts, 2, RX_ENOMEM, RX_FAIL_ALLOC, -1, 0.0);
    }
    if (ts->tws && rx__target_is_network(c->target)) {
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
            rx__chain_fail(c, ts, 2, RX_ENOMEM, RX_FAIL_ALLOC, -1, 0.0);
    }
    return Eloc;
}

/* Thread t's particles lo..hi-1: allocated (first touch), then resumed or
 * (with eval) evaluated at their initial points. On ranks, another rank's
 * particles are allocated without eval: their energies arrive with the
 * first iteration's, their state at checkpoints and the end. */
static void particles_init(rx_ctx *c, rx__tstate *ts, int lo, int hi,
                           int eval)
{
    const size_t pstride = rx__part_stride(c);
    const int vr = c->vc.on;
    for (int i = lo; i < hi && ts->st == RX_OK; ++i) {
        if (rx__particle_alloc(c, i, ts->tws) != RX_OK) {
            rx__chain_fail(c, ts, 2, RX_ENOMEM, i, -1, 0.0);
            break;
        }
        rx__particle *p = c->parts[i];
        if (c->resumed) {
            rx__part_unpack(p, c->dim, c->slen,
                            c->res_parts + (size_t)i * pstride);
            if (c->res_bias)
                p->logw = c->res_bias[i];
            continue;
        }
        if (!eval)
            continue;
        rx_status st = rx__target_eval_pe(c->target, ts->tws, p->theta,
                                          &p->energy, p->grad, c->cfg.seed,
                                          (uint32_t)i, 0,
                                          vr ? ts->vrw->pe : NULL);
        if (st == RX_OK && vr)
            st = rx__vr_after_eval(c, ts, p, i, -1);
        if (st == RX_OK && c->path)
            st = rx__path_energy(c, p);
        if (st != RX_OK)
            rx__particle_fail(c, ts, 2, st, i, i, -1, NAN,
                              isfinite(p->energy) ? bad_coord(p->grad, c->dim)
                                                  : -1);
    }
}

/* A stop request: this process's flag, or on ranks any rank's (as the
 * last iteration's exchange of flags saw them: the same on every rank). */
static int stop_asked(const rx_ctx *c)
{
    if (c->mp)
        return rx__ranks_stop(c);
    return c->stop_flag && *c->stop_flag;
}

/* Barrier design, at barrier k with a checkpoint flag set: every particle
 * is past the step phase of k and every exchange state past k - 1, a
 * consistent state; thread 0 writes the checkpoint while the others wait.
 * Returns whether the run stops. */
static int ckpt_sync(rx_ctx *c, rx__tstate *ts, rx__run *R, int t,
                     int nthr, int64_t k, int skip_step, int *sense)
{
    if (t == 0) {
        /* a stop request is taken here, before the barrier, never after
         * it: a slower thread reads stop_now after the barrier, and must
         * see what thread 0 saw (set later, in record_iter of k, it sent
         * that thread out of the loop while thread 0 went on to k + 1) */
        if (stop_asked(c))
            c->stop_now = 1;
        if (c->ckpt_fn && !skip_step) {
            /* on ranks: every rank's particles and rows, rank 0 writes */
            rx_status cst = c->mp ? rx__ranks_gather(c, k, c->ckpt_err,
                                                     sizeof c->ckpt_err)
                                  : RX_OK;
            if (cst == RX_OK && rx__ranks_rank(c) == 0)
                cst = c->ckpt_fn(c, k, c->ckpt_path, c->ckpt_err,
                                 sizeof c->ckpt_err);
            if (c->mp)
                cst = rx__ranks_ckpt_status(c, cst);
            if (cst != RX_OK) {
                ts->st = cst;
                ts->fail_particle = RX_FAIL_CKPT;
                ts->fail_k = k;
                c->stop_now = 1;
            } else {
                c->ckpts_written++;
            }
        }
        if (c->stop_now && ts->st == RX_OK) {
            ts->st = RX_EABORTED;
            ts->fail_particle = RX_FAIL_STOP;
            ts->fail_k = k;
        }
    }
    const double tw1 = nthr > 1 ? rx__now() : 0.0;
    rx__barrier_wait(R->bar, sense);
    if (nthr > 1) /* while thread 0 writes the checkpoint */
        ts->wait_s += rx__now() - tw1;
    /* every thread has read the flag: clear it (thread 0 sets this slot
     * again while recording k + 1) */
    if (t == 0) {
#pragma omp atomic write
        c->ckpt_flag[k & 1] = 0;
    }
    int stop;
#pragma omp atomic read
    stop = c->stop_now;
    return stop;
}

/* Barrier design, thread 0 after barrier k: the load balance's plan for
 * k + 2 into the slot of k, which nobody reads before the barrier of
 * k + 1; both slots in turn. */
static void lb_replan(rx_ctx *c, rx__run *R, int nthr, int64_t k)
{
    int *plan = R->cuts + 2 * R->ncut;
    if (k % RX_LB_WINDOW == 0 && k > c->k0 &&
        rx__lb_plan(plan, c->ts, nthr, c->cfg.balance == 2, k))
        R->lb_moves = 2;
    if (R->lb_moves > 0) {
        memcpy(R->cuts + (size_t)(k & 1) * R->ncut, plan,
               sizeof(int) * (size_t)(nthr + 1));
        R->lb_moves--;
        c->lb_changes++;
    }
}

/* Barrier design, thread 0 after the exchange of k: the recorders,
 * progress, and the checkpoint (or stop) flag for the step phase of
 * k + 1. */
static void record_iter(rx_ctx *c, rx__tstate *ts, const rx__run *R,
                        int64_t k)
{
    const int64_t K = c->cfg.iterations;
    rx__rec_iter(&c->rec, k, &ts->x);
    if (c->progress_fn && rx__progress_due(c, k))
        rx__report_progress(c, ts, k, R->t0);
    if (k + 1 < K &&
        ((c->ckpt_every > 0 && (k + 1) % c->ckpt_every == 0) ||
         stop_asked(c))) {
#pragma omp atomic write
        c->ckpt_flag[(k + 1) & 1] = 1;
    }
}

/* The iterations of thread t under the barrier design (chains lo..hi-1,
 * or the load balance's cuts with lb); returns whether the run stopped
 * early, *kout the iteration it left at. */
static int barrier_loop(rx_ctx *c, rx__run *R, rx__tstate *ts, int t,
                        int nthr, int lo, int hi, int lb, int *sense,
                        int64_t *kout)
{
    const int P = c->P;
    const int64_t K = c->cfg.iterations;
    const int timing = c->cfg.record.phase_timing;
    const int64_t sa_every = R->sa_every, vr_m = R->vr_m;
    const int64_t cyc_len = R->cyc_len;
    const int *const cuts = R->cuts;
    const size_t ncut = R->ncut;
    double *const fz = R->fz;
    /* thread 0 records, so it evaluates every pair; the others need only
     * the maps unless the ladder or C adapts from all pairs */
    const int full_x = t == 0 || c->ac.adapt != RX_ADAPT_NONE || c->ac.adapt_c;
    double t_exit = 0.0;
    int failed = 0;
    int64_t k;
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
            step_one(c, ts, i, ts->x.pos[i], k, cyc, row, Ek, sa_every,
                     timing, &t_en);
        }
        /* this thread's share of the pairs' fresh noise of k */
        double *fzk = fz ? fz + (size_t)(k & 1) * 2 * (size_t)(P - 1) : NULL;
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
        /* the wait share: every barrier timed (two clock reads; a sample
         * of them was biased by periodic work), less the noise drawn for
         * others while there */
        const int wtime = nthr > 1;
        const double tw0 = wtime ? rx__now() : 0.0;
        if (c->zh && nthr > 1)
            rx__barrier_wait_help(c, ts, R->bar, sense, k, !skip_step, lo_k,
                                  hi_k, timing || wtime);
        else
            rx__barrier_wait(R->bar, sense);
        const double help_k = ts->help_s - help0;
        if (c->mp) {
            /* the ranks' energies, failures and stop requests of k */
            if (t == 0)
                rx__ranks_step_sync(c, ts, Ek, k, skip_step);
            rx__barrier_wait(R->bar, sense);
        }
        if (wtime)
            ts->wait_s += rx__now() - tw0 - help_k;
#pragma omp atomic read
        failed = c->fail_flag[k & 1];
        if (failed)
            break;
        /* step 3: the bias update in position order, then a barrier so
         * that step 1 of k + 1 reads the updated states (a resumed
         * iteration's update is in its checkpoint) */
        double t3 = 0.0;
        if (c->bias.type && !skip_step) {
            const double t3a = timing || wtime ? rx__now() : 0.0;
            rx__bias_step3(c, ts, Ek, k, t, nthr, R->bias_u);
            const double t3b = timing || wtime ? rx__now() : 0.0;
            rx__barrier_wait(R->bar, sense);
            t3 = t3b - t3a;
            if (wtime)
                ts->wait_s += rx__now() - t3b;
#pragma omp atomic read
            failed = c->fail_flag[k & 1];
            if (failed)
                break;
        }
        int ck;
#pragma omp atomic read
        ck = c->ckpt_flag[k & 1];
        if (ck && ckpt_sync(c, ts, R, t, nthr, k, skip_step, sense)) {
            failed = 1;
            break;
        }
        if (lb && (k + 1) % RX_LB_SAMPLE == 0)
            t_exit = rx__now();
        if (lb && t == 0)
            lb_replan(c, R, nthr, k);
        double tc = timing ? rx__now() : 0.0;
        if (R->xpe && rx__exchange_at(&c->xc, k)) {
            /* the attempted pairs' paired estimates, then every thread
             * decides from them */
            rx__xbatch_phase(c, ts, R->xpe, k, t, nthr);
            rx__barrier_wait(R->bar, sense);
#pragma omp atomic read
            failed = c->fail_flag[k & 1];
            if (failed)
                break;
        }
        ts->x.pair_est = R->xpe;
        ts->x.fresh_z = fzk;
        rx__exchange(&c->xc, &ts->x, Ek, k, full_x);
        double tx = timing ? rx__now() : 0.0;
        rx__adapt(&c->ac, &ts->x, k);
        if ((sa_every > 0 && k % sa_every == 0) ||
            (vr_m > 0 && (k + 1) % vr_m == 0))
            rx__sigma2_sa(c, &ts->x, k);
        double td = timing ? rx__now() : 0.0;
        if (timing) {
            /* noise drawn for other threads' chains is step work */
            ts->tph[RX_PHASE_STEP] += tb - ta - t_en + help_k;
            ts->tph[RX_PHASE_ENERGY] += t_en;
            ts->tph[RX_PHASE_WAIT] += tc - tb - help_k - t3;
            ts->tph[RX_PHASE_EXCHANGE] += tx - tc;
            ts->tph[RX_PHASE_ADAPT] += td - tx + t3; /* the bias's too */
        }
        if (t == 0) {
            record_iter(c, ts, R, k);
            if (timing)
                ts->tph[RX_PHASE_RECORD] += rx__now() - td;
        }
        /* hit.stop: every thread (and rank) reads the same slots here, so
         * all leave after iteration k, a completed run of k + 1 */
        if (c->rec.hit_stop && rx__rec_hit_by(&c->rec, k)) {
            ++k;
            break;
        }
    }
    *kout = k;
    return failed;
}

/* After thread t's loop (left at k): the sample of the last iteration,
 * the posterior-predictive evaluation (every thread scores row chunks of
 * the test and OOD sets), and on thread 0 the run's final state. */
static void thread_finish(rx_ctx *c, rx__run *R, rx__tstate *ts, int t,
                          int nthr, int lo, int hi, int lb, int64_t k,
                          int failed, int *sense)
{
    const int P = c->P;
    const int64_t K = c->cfg.iterations;
    /* the chains this thread owned last (and at K: the same slot) */
    const int *cu_end = R->cuts + (size_t)(k & 1) * R->ncut;
    const int lo_e = lb ? cu_end[t] : lo, hi_e = lb ? cu_end[t + 1] : hi;
    int qlo = lo, qhi = hi; /* the partner design's positions */
    if (c->partner) {
        qlo = R->cuts[t];
        qhi = R->cuts[t + 1];
    }
    if (t == 0 && !failed && k < K) { /* hit.stop: the rows kept so far */
        const int64_t b = c->cfg.record.burn_in;
        const int64_t per = c->cfg.record.all_positions ? P : 1;
        c->rec.hit_stopped = 1;
        c->n_samples = c->samples && k - 1 >= b
                           ? ((k - 1 - b) / c->cfg.record.thin + 1) * per
                           : 0;
    }
    if (!failed && k > 0 && c->samples && c->partner) {
        int64_t row = sample_row(&c->cfg, k - 1);
        for (int q = qlo; q < qhi && row >= 0; ++q)
            store_row(c, ts, c->parts[ts->x.at[q]], q, row);
    } else if (!failed && k > 0 && c->samples) {
        int64_t row = sample_row(&c->cfg, k - 1);
        for (int i = lo_e; i < hi_e && row >= 0; ++i)
            store_row(c, ts, c->parts[i], ts->x.pos[i], row);
    }
    if (c->mp) {
        /* every rank's particles and rows, and the earliest failure */
        rx__barrier_wait(R->bar, sense);
        if (t == 0)
            rx__ranks_finish(c, ts, k);
        rx__barrier_wait(R->bar, sense);
        qlo = (int)((int64_t)t * P / nthr); /* now every particle's */
        qhi = (int)((int64_t)(t + 1) * P / nthr);
    }
    if (!failed && c->ev.on) {
        for (int u = c->partner || c->mp ? qlo : lo_e;
             u < (c->partner || c->mp ? qhi : hi_e) && c->ev.ens_models;
             ++u) {
            const int i = c->partner ? ts->x.at[u] : u;
            for (size_t j = 0; j < c->dim; ++j)
                c->ev.ens_models[(size_t)i * c->dim + j] =
                    (float)c->parts[i]->theta[j];
        }
        rx__barrier_wait(R->bar, sense);
        double te0 = rx__now();
        rx__evaluate_chunks(c, ts, t, nthr);
        rx__barrier_wait(R->bar, sense);
        if (t == 0) {
            rx__evaluate_metrics(c);
            c->eval_s = rx__now() - te0;
        }
    }
    if (t == 0) {
        c->iters_done = k;
        memcpy(c->final_at, ts->x.at, sizeof(int32_t) * (size_t)P);
        memcpy(c->eta, ts->x.eta, sizeof(double) * (size_t)P);
        memcpy(c->tau, ts->x.tau, sizeof(double) * (size_t)P);
        c->C_final = ts->x.C;
        memcpy(c->round_lambda, ts->x.round_lambda, sizeof c->round_lambda);
        c->rounds = c->ac.adapt == RX_ADAPT_BARRIER ? ts->x.round : 0;
        memcpy(c->s2_final, ts->x.s2hat, sizeof(double) * (size_t)P);
        c->rec.total_swaps += ts->x.nonadjacent_swaps;
    }
}

/* One thread of the parallel region. */
static void run_thread(rx_ctx *c, rx__run *R)
{
    const int t = omp_get_thread_num();
    const int nthr = omp_get_num_threads();
    const int P = c->P;
    rx__tstate *ts = &c->ts[t];
    ts->t_enter = rx__now();
    /* this rank's particles (all P without ranks), thread t's share */
    int plo, phi;
    rx__ranks_block(c, &plo, &phi);
    const int lo = plo + (int)((int64_t)t * (phi - plo) / nthr);
    const int hi = plo + (int)((int64_t)(t + 1) * (phi - plo) / nthr);
    int sense = 0;
    rx__pin pin = {.pinned = 0};
    if (R->pin_team && nthr == c->nt_req)
        rx__pin_thread(&pin, t);
    /* the barrier design's load balance moves chains between threads */
    const int lb = c->cfg.balance && nthr > 1 && !c->partner && !c->mp;
    if (t == 0)
        team_init(R, nthr, P);
    double *Eloc = thread_setup(c, ts, t, lo, hi, lb);
    particles_init(c, ts, lo, hi, 1);
    if (c->mp) { /* the other ranks' particles: thread t's share of them */
        const int a = (int)((int64_t)t * P / nthr);
        const int b = (int)((int64_t)(t + 1) * P / nthr);
        particles_init(c, ts, a, a > plo ? a : (b < plo ? b : plo), 0);
        particles_init(c, ts, a > phi ? a : phi, b > phi ? b : phi, 0);
    }
#pragma omp barrier
    if (c->mp) {
        if (t == 0)
            rx__ranks_setup_sync(c, ts);
#pragma omp barrier
    }
    int64_t k = c->k0;
    int failed = c->fail_flag[2];
    const double t_loop = rx__now();
    ts->wait_s = 0.0;
    if (!failed && c->partner)
        failed = rx__partner_loop(c, ts, t, nthr, R, &sense, Eloc, &k);
    else if (!failed)
        failed = barrier_loop(c, R, ts, t, nthr, lo, hi, lb, &sense, &k);
    ts->loop_s = rx__now() - t_loop;
    thread_finish(c, R, ts, t, nthr, lo, hi, lb, k, failed, &sense);
    free(Eloc);
    rx__free_aligned(ts->pst);
    rx__free_aligned(ts->pwin);
    ts->pst = NULL;
    ts->pwin = NULL;
    rx__tws_destroy(&ts->tws);
    rx__vrws_destroy(&ts->vrw);
    rx__xbatch_thread_free(ts);
    rx__free_aligned(ts->gpath);
    ts->gpath = NULL;
    rx__free_aligned(ts->box_keep);
    ts->box_keep = NULL;
    rx__unpin_thread(&pin);
}

/* After the parallel region: the run's timing facts (start, steal, wait
 * shares, phases), the final cuts, and the run's buffers freed. */
static void run_collect(rx_ctx *c, rx__run *R)
{
    const int nt_used = R->nt_used;
    c->nt_used = nt_used;
    c->wall_s = rx__now() - R->t0;
    c->start_s = 0.0;
    for (int t = 0; t < nt_used; ++t)
        if (c->ts[t].t_enter - R->t0 > c->start_s)
            c->start_s = c->ts[t].t_enter - R->t0;
    {
        const rx__load_snap load1 = rx__load_now();
        c->steal_share = rx__steal_share(&R->load0, &load1, nt_used);
    }
    if (R->is_net)
        rx__blas_set_threads(R->blas_prev);
    c->final_cut = nt_used > 0 ? malloc(sizeof(int) * (size_t)(nt_used + 1))
                               : NULL;
    if (c->final_cut && c->mp) { /* this rank's block, split evenly */
        int plo, phi;
        rx__ranks_block(c, &plo, &phi);
        for (int t = 0; t <= nt_used; ++t)
            c->final_cut[t] =
                plo + (int)((int64_t)t * (phi - plo) / nt_used);
    } else if (c->final_cut) {
        memcpy(c->final_cut, R->cuts + (size_t)(c->iters_done & 1) * R->ncut,
               sizeof(int) * (size_t)(nt_used + 1));
    }
    rx__free_aligned(R->bar);
    rx__free_aligned(R->cuts);
    rx__partner_free(R);
    rx__zhelp_free(c);
    for (int t = 0; t < c->nt_req; ++t)
        c->ts[t].x.fresh_z = c->ts[t].x.pair_est = NULL;
    rx__free_aligned(R->fz);
    rx__free_aligned(R->xpe);
    rx__free_aligned(R->bias_u);
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
    if (c->cfg.record.phase_timing && nt_used > 0) {
        c->thread_phase_s =
            malloc(sizeof(double) * RX_NPHASES * (size_t)nt_used);
        for (int t = 0; c->thread_phase_s && t < nt_used; ++t)
            for (int j = 0; j < RX_NPHASES; ++j)
                c->thread_phase_s[t * RX_NPHASES + j] = c->ts[t].tph[j];
    }
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
    rx__run R;
    /* on ranks: the run's own communicator, before anything else */
    rx_status st = rx__ranks_open(c);
    if (st == RX_OK)
        st = run_prepare(c, &R);
    if (st != RX_OK)
        return st;
#pragma omp parallel num_threads(c->nt_req)
    run_thread(c, &R);
    run_collect(c, &R);
    rx__logz_finish(c);
    return rx__run_outcome(c);
}
