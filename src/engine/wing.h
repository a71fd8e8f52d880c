/*
 * The engine's private header: what its files share. The engine is one
 * concern per file:
 *   api.c      entry points: create, destroy, setters, testing toggles
 *   team.c     the threads: barrier, placement, per-thread state, load
 *              balance of the barrier design
 *   run.c      rx_run: set-up, the parallel region, the barrier loop
 *   partner.c  the partner design (rings, offers, its loop)
 *   partner_sync.c  its full barriers (thread 0's assembly, new cuts)
 *   chain.h/.c the chain-step (inline for the two loops), its generic
 *              path, variance-reduction glue, noise drawn ahead
 *   particle.c particle layout, first touch, pack/unpack
 *   state.c    the resumable state (checkpoints, through state.h)
 *   results.c  what a finished run hands out (rx_get_results, the
 *              summary's view, the accuracy diagnostics)
 *   report.c   failures and their messages, notes, progress, predictive
 *              evaluation
 *   ranks.c    a run on MPI ranks (the only MPI user; ranks.h)
 * Files that include it define _GNU_SOURCE first (sched_yield, CPU sets).
 * Nothing outside src/engine/ includes it (nor ctx.h).
 */
#ifndef RX_ENGINE_WING_H
#define RX_ENGINE_WING_H

#include <math.h>
#include <sched.h>
#include <stdatomic.h>
#include <string.h>

#include "ctx.h"
#include "../config/config.h"

/* ---- team.c: the barrier, thread placement, load balance ---------- */

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
static inline int barrier_arrive(rx__barrier *b, int *local_sense, int *s)
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
static inline void barrier_spin(const rx__barrier *b, int s)
{
    unsigned spins = 0;
    while (atomic_load_explicit(&b->sense, memory_order_acquire) != s) {
        if (++spins < RX_SPINS_BEFORE_YIELD)
            cpu_relax();
        else
            sched_yield();
    }
}

/* Spin (then yield) until *a equals want (exact) or reaches it. */
static inline void spin_until(atomic_llong *a, long long want, int exact)
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

void rx__barrier_wait(rx__barrier *b, int *local_sense);

/* Thread placement (team.c): never changes results, only speed. */
typedef struct rx__pin {
#if defined(__linux__)
    cpu_set_t saved;
#endif
    int pinned;
} rx__pin;

int rx__pin_wanted(int nthreads);
void rx__pin_thread(rx__pin *pn, int t);
void rx__unpin_thread(rx__pin *pn);

/* A thread's exchange state and its copy of the adaptive state. */
rx_status rx__tstate_alloc(const rx_ctx *c, rx__tstate *ts, int P);

/* Load balance of the barrier design (team.c); the partner design moves
 * its cuts with the same plan. */
enum { RX_LB_SAMPLE = 8, RX_LB_WINDOW = 512 };
int rx__lb_plan(int *cut, const rx__tstate *ts, int nthr, int rotate,
                int64_t k);

/* ---- run.c: what one run's threads share ------------------------- */

typedef struct rx__edge rx__edge; /* partner.c */

typedef struct rx__run {
    rx__barrier *bar;
    int *cuts;        /* 3 ncut: chain ranges by parity of k (load
                       * balance), then thread 0's plan */
    size_t ncut;      /* nt_req + 1 */
    rx__edge *edges;  /* partner design: two rings per thread */
    int32_t *gmap;    /* partner design: the map at a full barrier */
    uint8_t *ggate;   /* partner design: the gates there (load balance) */
    double *fz;       /* barrier design: the pairs' fresh noise by parity
                       * of k, or NULL */
    double *bias_u;   /* barrier design with a bias: 2 P doubles of
                       * step 3's scratch (thread 0), or NULL */
    double *xpe;      /* c->xc.paired: 2 (P - 1) doubles, the attempted
                       * pairs' estimates of k (xbatch.c), or NULL */
    double t0;        /* rx__now() at the run's start */
    int64_t sa_every; /* sigma^2 estimate's period (not with VR) */
    int64_t vr_m;     /* VR: sigma^2 steps at the period ends */
    int64_t cyc_len;  /* cyclical learning rates: a cycle's iterations */
    int nt_used;      /* the team's size */
    int lb_moves;     /* barrier design: plan slots still to publish */
    int pin_team;     /* pin the threads (rx__pin_wanted) */
    int is_net;       /* a network target (BLAS single-threaded) */
    int blas_prev;    /* the BLAS thread count to restore */
    rx__load_snap load0;
} rx__run;

/* ---- xbatch.c ----------------------------------------------------- */

/* c->xc.paired: thread scratch of the paired exchange estimates (nothing
 * otherwise); RX_ENOMEM. */
rx_status rx__xbatch_thread_init(rx_ctx *c, rx__tstate *ts);
void rx__xbatch_thread_free(rx__tstate *ts);
/* Thread t's share of the estimates of the pairs attempted at k, into
 * est (2 per pair: rx__xstate.pair_est); a failure goes to slot k & 1. */
void rx__xbatch_phase(rx_ctx *c, rx__tstate *ts, double *est, int64_t k,
                      int t, int nthr);

/* ---- partner.c ---------------------------------------------------- */

/* Decide whether the run uses the partner design (c->partner) and set up
 * its rings and assembled map; RX_ENOMEM when they do not fit. */
rx_status rx__partner_prepare(rx_ctx *c, rx__run *R);
void rx__partner_free(rx__run *R);
/* The iterations of thread t under the partner design; returns whether the
 * run stopped early (failure, stop request, progress callback), *kout the
 * iteration it left at. Eloc: P doubles and P ints of the thread's own. */
int rx__partner_loop(rx_ctx *c, rx__tstate *ts, int t, int nthr,
                     rx__run *R, int *sense, double *Eloc, int64_t *kout);
/* Thread 0 between the two barriers of a full barrier after iteration k
 * (partner_sync.c); check: the load balance may move the cuts. */
void rx__partner_assemble(rx_ctx *c, rx__tstate *ts, int nthr, rx__run *R,
                          int64_t k, int check);

/* ---- particle.c --------------------------------------------------- */

/* Doubles per packed particle of this run. */
size_t rx__part_stride(const rx_ctx *c);
/* Pack/unpack one particle's resumable state. */
void rx__part_pack(const rx__particle *p, size_t dim, size_t slen,
                   double *out);
void rx__part_unpack(rx__particle *p, size_t dim, size_t slen,
                     const double *in);
/* A particle's block sizes, set once before the threads start. */
void rx__particle_sizes(rx_ctx *c);
/* Particle i's block, first touched by the calling (owning) thread, at its
 * initial point. */
rx_status rx__particle_alloc(rx_ctx *c, int i, rx__tws *tws);

/* The sample row of iteration k, or -1 where k is not kept. */
static inline int64_t sample_row(const rx_config *c, int64_t k)
{
    if (k < c->record.burn_in)
        return -1;
    int64_t d = k - c->record.burn_in;
    return d % c->record.thin == 0 ? d / c->record.thin : -1;
}

/* The bias state of the particle i at position q (CSGLD: the
 * position's). */
static inline void *bias_state_of(rx_ctx *c, int i, int q)
{
    return rx__bias_state(&c->bias, c->bias.n == 1 ? 0
                                    : c->bias.type->share ==
                                              RX__BIAS_PER_PARTICLE
                                        ? i
                                        : q);
}

/* The sample of particle p at position q for kept-iteration `row`. */
static inline void store_sample(rx_ctx *c, const rx__particle *p, int q,
                                int64_t row, double logw)
{
    if (c->cfg.record.all_positions)
        row = row * c->P + q;
    else if (q != 0)
        return;
    float *dst = c->samples + (size_t)row * c->dim;
    for (size_t j = 0; j < c->dim; ++j)
        dst[j] = (float)p->theta[j];
    c->senergy[row] = p->energy;
    if (c->logw)
        c->logw[row] = logw;
}

/* ladder.path reference (chain.c): the exact U_like of particle p at
 * position q into kept row `row` of the log Z record. */
void rx__path_record(rx_ctx *c, rx__tstate *ts, const rx__particle *p,
                     int q, int64_t row);
/* The energy of a point just evaluated (U) as the path's U_like. */
rx_status rx__path_energy(const rx_ctx *c, rx__particle *p);

/* The sample of a kept row and, on the reference path, its U_like. Its
 * log-weight: the one of its step 3; under a bias row with swap_shift the
 * one at position q, where the particle may have arrived by a swap after
 * its step 3 (the states stay those of that step 3 until the next). */
static inline void store_row(rx_ctx *c, rx__tstate *ts, const rx__particle *p,
                             int q, int64_t row)
{
    const rx__bias_type *B = c->bias.type;
    store_sample(c, p, q, row,
                 B && B->swap_shift
                     ? B->log_weight(&c->bias.par, bias_state_of(c, p->id, q),
                                     p->energy, ts->x.tau[q])
                     : p->logw);
    if (c->logz_u)
        rx__path_record(c, ts, p, q, row);
}

/* Is the gradient finite? Returns the first bad coordinate or -1. */
static inline int32_t bad_coord(const double *g, size_t dim)
{
    for (size_t j = 0; j < dim; ++j)
        if (!isfinite(g[j]))
            return (int32_t)j;
    return -1;
}

/* faults.policy rollback: save (to_good) or restore a particle's theta,
 * gradient (dim each), step-rule state (slen) and energy. */
static inline void rollback_copy(rx__particle *p, size_t dim, size_t slen,
                                 int to_good)
{
    double *live[3] = {p->theta, p->grad, p->state};
    double *good[3] = {p->good_theta, p->good_grad, p->good_state};
    const size_t n[3] = {dim, dim, slen};
    for (int j = 0; j < 3; ++j)
        if (live[j])
            memcpy(to_good ? good[j] : live[j], to_good ? live[j] : good[j],
                   sizeof(double) * n[j]);
    if (to_good)
        p->good_energy = p->energy;
    else
        p->energy = p->good_energy;
}

/* ---- state.c ------------------------------------------------------ */

/* Copy the resumable part of an exchange state (P positions). */
void rx__xstate_copy(rx__xstate *dst, const rx__xstate *src, int P);
/* Free the arrays of a resumed exchange state (at, pos, gate, eta block). */
void rx__xstate_free_resumed(rx__xstate *x);

/* ---- chain.c (the inline chain-step: chain.h) --------------------- */

/* The generic chain-step: the update rule, then the (noisy) energy and
 * gradient at the new point; *t_en: the evaluation's seconds. */
rx_status rx__step_eval(rx_ctx *c, rx__tstate *ts, rx__particle *p, int i,
                        int q, int64_t k, double cyc, int timing,
                        double *t_en);
/* Control variates after particle i's gradient pass of iteration k;
 * k = -1: set-up. */
rx_status rx__vr_after_eval(rx_ctx *c, rx__tstate *ts, rx__particle *p,
                            int i, int64_t k);
/* The partner design's bias step after particle i's step of k at
 * position q (design.md steps 3 and 6, for a row without a global
 * update): the SA update of its state with the new energy, then the
 * log-weight of the point reached (its sample's). last: the energy before
 * the step, for a failure's message. */
void rx__bias_after_step(rx_ctx *c, rx__tstate *ts, rx__particle *p, int i,
                         int q, int64_t k, double last);
/* The barrier design's step 3 of iteration k, after the barrier: the bias
 * update in position order from the energies Ek (by particle), then the
 * particles' log-weights; thread t of nthr does its share (a shared
 * state: thread 0 all of it, scratch 2 P doubles). The states are read
 * again only after the next barrier. */
void rx__bias_step3(rx_ctx *c, rx__tstate *ts, const double *Ek, int64_t k,
                    int t, int nthr, double *scratch);
/* The exchange's shift hook (xc.shift, ctx the rx_ctx) for a bias row
 * with swap_shift: the row's term for the pair (a, b) from the states of
 * the two positions (or occupants), which every thread reads after step
 * 3 of the iteration exchanged and its barrier. */
double rx__bias_xshift(const void *ctx, const rx__xstate *xs, int a, int b,
                       double ea, double eb);
/* One stochastic-approximation step of sigma_p^2 at iteration k. */
void rx__sigma2_sa(const rx_ctx *c, rx__xstate *xs, int64_t k);
/* balance_noise: the buffers when the run uses them (else NULL), their
 * release, and the barrier that draws noise while it waits. */
rx__zhelp *rx__zhelp_alloc(const rx_ctx *c);
void rx__zhelp_free(rx_ctx *c);
void rx__barrier_wait_help(rx_ctx *c, rx__tstate *ts, rx__barrier *b,
                           int *local_sense, int64_t k, int cur, int own_lo,
                           int own_hi, int timing);

/* ---- results.c --------------------------------------------------- */

/* After the parallel region of a reference-path run: the estimate of
 * log Z from the kept rows (nothing on the temperature path or when the
 * run stopped early). */
void rx__logz_finish(rx_ctx *c);

/* ---- report.c ----------------------------------------------------- */

/* A failure of this thread in slot (k & 1 inside the loop, 2 during
 * set-up); rx__particle_fail keeps the thread's earliest particle
 * failure. */
void rx__chain_fail(rx_ctx *c, rx__tstate *ts, int slot, rx_status st,
                    int32_t i, int64_t k, double last);
void rx__particle_fail(rx_ctx *c, rx__tstate *ts, int slot, rx_status st,
                       int32_t i, int q, int64_t k, double last,
                       int32_t coord);
/* A period paced by time ending after iteration k: its length. */
int64_t rx__pace_period(rx__pace *p, int64_t k);
/* Barrier design: is a progress call due after iteration k? */
int rx__progress_due(rx_ctx *c, int64_t k);
/* Thread 0 after recording iteration k: the progress callback. */
void rx__report_progress(rx_ctx *c, rx__tstate *ts, int64_t k, double t0);
/* Posterior-predictive evaluation: thread t's row chunks, then (one
 * thread) the metrics. */
void rx__evaluate_chunks(rx_ctx *c, rx__tstate *ts, int t, int nthr);
void rx__evaluate_metrics(rx_ctx *c);
/* After the parallel region: the run's failure message (deterministic
 * over thread counts), or its notes and the closing log line. */
rx_status rx__run_outcome(rx_ctx *c);

/* ---- ranks.c: a run on MPI ranks (thread 0 of each rank calls these
 * while the rank's other threads wait; without ranks they do nothing) -- */

/* Frees the run's ranks (rx_destroy). */
void rx__ranks_free(rx_ctx *c);
/* This rank's particles [*lo, *hi) (all P without ranks). */
void rx__ranks_block(const rx_ctx *c, int *lo, int *hi);
/* Before the threads start (rx_run, the calling thread): the run's own
 * duplicate of the communicator; RX_OK or a status and c->err. */
rx_status rx__ranks_open(rx_ctx *c);
/* After set-up: any rank's set-up failure, or ranks that run different
 * runs (length, resumption, checkpoints, chains, seed), becomes every
 * rank's failure (fail_flag[2]); returns it. */
int rx__ranks_setup_sync(rx_ctx *c, rx__tstate *ts);
/* After the step phase of k: every rank's energies into Ek (and the
 * particles' energies and sigma^2 raw estimates of k, and unless skip
 * (the resumed iteration) the other ranks' particles' hitting times),
 * any rank's failure into fail_flag[k & 1], any rank's stop request into
 * rx__ranks_stop. */
void rx__ranks_step_sync(rx_ctx *c, rx__tstate *ts, double *Ek, int64_t k,
                         int skip);
/* Has any rank seen a stop request? */
int rx__ranks_stop(const rx_ctx *c);
/* Before a checkpoint at k: every rank's particles and kept rows on
 * every rank; RX_OK, or a status and err. */
rx_status rx__ranks_gather(rx_ctx *c, int64_t k, char *err, size_t cap);
/* Rank 0's checkpoint status (and ckpt_err) on every rank. */
rx_status rx__ranks_ckpt_status(rx_ctx *c, rx_status st);
/* After the loop (left at k): particles and rows gathered, and the
 * earliest failure of all ranks in every rank's thread slots. */
void rx__ranks_finish(rx_ctx *c, rx__tstate *ts, int64_t k);
/* The thread slot whose failure rx_run reports (report.c), or -1. */
int rx__pick_failure(const rx_ctx *c);

#endif
