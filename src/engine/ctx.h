/*
 * The context: everything one run owns. Private to src/engine/: the rest
 * of the library reads a run through state.h (results, the summary's
 * view, the checkpoint state). The engine's files share wing.h.
 */
#ifndef RX_ENGINE_CTX_H
#define RX_ENGINE_CTX_H

#include <signal.h>
#include <stddef.h>
#include <stdatomic.h>

#include "../bias/bias.h"
#include "../core/internal.h"
#include "../estimate/pairdiff.h"
#include "../estimate/vr.h"
#include "../exchange/exchange.h"
#include "../ladder/ladder.h"
#include "../record/record.h"
#include "../step/step.h"
#include "../target/target.h"

/* Particle header; theta and grad follow in the same aligned block. The
 * first cache line holds what a chain-step of the fused 2-D target and the
 * partner design's recorder touch, so a particle that a boundary swap hands
 * to the other thread moves three lines to its new core (this one, theta,
 * grad: prefetch_particle in partner.c), not five. */
typedef struct rx__particle {
    alignas(RX_CACHELINE) double *theta;
    double *grad;
    double energy;
    double step_scale; /* 0.5^rollbacks */
    /* partner design, fused 2-D chain-step: the normals of iterations
     * zb_k .. zb_k + zb_n - 1, drawn ahead by a thread that waited (slot
     * j % RX_ZB holds iteration j; NULL when the run does not bank) */
    double *zb;
    int64_t zb_k;
    int32_t zb_n;
    int32_t last_q; /* position during the previous step */
    int32_t id;
    /* partner design: the recorder's marks travel with the particle */
    uint8_t vis, last_end, l1_state;
    /* the rest of the header */
    alignas(RX_CACHELINE) double *state; /* the step rule's state (slen
                                          * doubles: momentum, RMS average,
                                          * velocity and thermostat) or
                                          * NULL */
    double var_raw[2]; /* sigma^2 raw estimate, by parity of k */
    /* faults.policy rollback: the state before the current step */
    double *good_theta, *good_grad, *good_state;
    double good_energy;
    int32_t rollbacks;
    int64_t last_rollback_k;
    /* variance_reduction: the control variate follows the particle */
    double *anchor;      /* dim, or NULL */
    double vr_lhat;      /* sum_i l_i(anchor) */
    double vr_c;         /* coefficient */
    int64_t vr_nc;       /* adaptive c updates so far */
    rx__vrcost vr_cost;
    double grad_s;       /* seconds in gradient evaluations (VR runs) */
    double logw;         /* bias: log-weight of the point reached by the
                          * last step (its sample's weight) */
} rx__particle;
_Static_assert(offsetof(rx__particle, state) == RX_CACHELINE,
               "rx__particle: the hot fields fill the first cache line "
               "only");

enum { RX_ZB = 8 };

/* The run's MPI ranks (ranks.c; opaque elsewhere). */
typedef struct rx__ranks rx__ranks; /* iterations a particle's drawn-ahead normals hold */

/*
 * balance_noise: a chain's Langevin noise for one iteration, drawn ahead
 * by a thread that waits at the barrier (chain.c, "Noise drawn ahead").
 * Values are iteration + 1 (0: none). Two buffers by parity of the
 * iteration: the owner of iteration k reads z[k & 1] while a helper may
 * fill z[(k + 1) & 1].
 */
typedef struct rx__zhelp {
    alignas(RX_CACHELINE) atomic_llong claim; /* k + 1: noise of k claimed */
    atomic_llong taken;  /* k + 1: the owner has passed the chain in k */
    atomic_llong ready[2]; /* by parity of k: k + 1 once the helper that
                            * claimed k is done with z[k & 1] */
    size_t nz[2];        /* draws in z[b] (a multiple of the chunk or dim) */
    rx__stream s[2];     /* the step stream after those draws */
    double *z[2];        /* dim each */
} rx__zhelp;

/* What failed, where a thread's slot records no particle (fail_particle
 * holds a particle index >= 0, or one of these). */
typedef enum rx__fail_kind {
    RX_FAIL_ALLOC = -1,    /* allocating chain state */
    RX_FAIL_PROGRESS = -2, /* the progress callback asked to stop */
    RX_FAIL_SETUP = -3,    /* a thread's set-up (message in ts->err) */
    RX_FAIL_EVAL = -4,     /* posterior-predictive evaluation */
    RX_FAIL_STOP = -5,     /* a stop request (flag or signal) */
    RX_FAIL_CKPT = -6      /* writing a checkpoint */
} rx__fail_kind;

/* Per-thread state, one cache-line-aligned slot per thread. */
typedef struct rx__tstate {
    alignas(RX_CACHELINE) rx__xstate x;
    double tph[RX_NPHASES]; /* record.phase_timing: seconds by phase */
    double lb_busy, lb_pub; /* load balance: sampled busy seconds */
    double t_enter;         /* rx__now() as the thread entered the run's
                             * parallel region (rx_ctx.start_s) */
    double lb_wait, lb_t0;  /* partner design: seconds waited since the
                             * thread's CPU clock read lb_t0 */
    double help_s;          /* balance_noise: seconds drawing for others */
    double wait_s;          /* seconds waited for other threads in the
                             * iterations (partner: rings, with the
                             * normals drawn ahead there, and barriers;
                             * barrier design: every barrier, less the
                             * noise drawn for others there) */
    double loop_s;          /* seconds in the iterations */
    int64_t helped;         /* balance_noise: chain-steps helped */
    /* partner design: this thread's round trips, restarts and swaps */
    int64_t pc_a5, pc_l1, pc_rs, pc_sw;
    rx_pair_stats *pst;  /* P-1, this thread's pairs (others stay 0) */
    int64_t *pwin;       /* 3 (P-1): conditions, evaluations, swaps since
                          * the last trace row */
    rx_status st;
    int32_t fail_particle;
    int32_t fail_q;      /* position of the failing particle */
    int32_t fail_coord;  /* first non-finite gradient coordinate, -1 */
    int64_t fail_k;
    double fail_last_energy;
    rx__tws *tws;        /* target scratch (network targets) */
    double *gpath;       /* ladder.path reference: the step's gradient
                          * at its beta (dim), or NULL */
    double *box_keep;    /* target.box: the point before the step (dim),
                          * or NULL */
    rx__vrws *vrw;       /* control-variate scratch, or NULL */
    rx__pdws *pdw;       /* xc.paired: the exchange batch's scratch */
    int *xlist;          /* xc.paired: P - 1 ints, the pairs attempted */
    rx_err err;          /* message of a set-up failure of this thread */
} rx__tstate;

/* Posterior-predictive evaluation of a network target. */
typedef struct rx__evalst {
    int on;
    int64_t rows, ood_rows;
    int n_out;
    int classify;               /* the target is a classifier */
    double *y;                  /* rows: the test targets, as scored */
    float *ens_models;          /* P x dim: final particles, or NULL */
    double *mean[2], *lmax[2], *lsum[2], *ood_mean[2]; /* [0] BMA, [1] ens */
    rx_metrics bma, ens;
} rx__evalst;

/* Scalars of a packed particle: energy, var_raw[2], last_q, step_scale,
 * rollbacks, last_rollback_k; then theta, grad (dim each) and the state
 * (rx__part_slen doubles: slen, at least dim, zeros for stateless rules). */
#define RX__PSCAL 7
/* With variance reduction: then the anchor (dim) and RX__VRSCAL scalars
 * (U(anchor), c, its update count, the cost counters). */
#define RX__VRSCAL 11

/* A period paced by time (report.c, rx__pace_period): the iteration and
 * the time (rx__now) of its last end. */
typedef struct rx__pace {
    int64_t k;
    double t;
} rx__pace;

struct rx_ctx {
    rx_config cfg;
    rx_logger log;
    rx_err err;
    rx__target *target;
    rx__xconf xc;
    void *xt_state;             /* the rule's per-run state (xc.rstate) */
    rx__pdconf pdc;             /* xc.paired: the exchange batch's sizes */
    rx__aconf ac;
    rx__stepconf sc;
    rx__vrconf vc;
    double C_final;             /* thread 0's buffer after the run */
    double *s2_final;           /* P-1: thread 0's sigma_p^2 after run */
    double round_lambda[RX__MAX_ROUNDS]; /* barrier ladder: thread 0's */
    int64_t rounds;             /* completed barrier rounds after the run */
    int s2_estimate;            /* sigma2: estimate */
    int P, nt_req, nt_used;
    size_t dim;
    size_t slen;                /* per-particle state: the largest
                                 * rx__step_state_len of the rules in use
                                 * (0: stateless) */
    double *eta, *tau;          /* initial ladders; final ones after run */
    rx__particle **parts;       /* P, allocated by owner threads */
    double *E[2];               /* energies by particle, by parity of k */
    rx__tstate *ts;             /* nt_req slots */
    int fail_flag[3];           /* by parity of k; [2] = set-up */
    rx__recorder rec;
    int64_t n_samples;
    float *samples;             /* n_samples x dim */
    double *senergy;            /* n_samples: each sample's energy U (its
                                 * particle's, as the run computed it) */
    rx__bias bias;              /* bias.*: type NULL without one */
    double *logw;               /* bias: n_samples log-weights, or NULL */
    /* ladder.path reference: every position steps at temperature 1 on
     * U_0 + beta(q) U_like; the particles' energies are U_like */
    int path;
    double *pbeta;              /* P: the betas by position */
    double *logz_u;             /* rows x P: the exact U_like of each
                                 * kept row by position, then rows: the
                                 * reference energy U_0 of position P
                                 * (beta = 0) by kept row; or NULL */
    int64_t logz_rows;          /* rows logz_u holds */
    double *logz_terms;         /* 2 (P-1): terms, then their se */
    rx_log_z logz;              /* the estimate after the run */
    char logz_reason[512];      /* logz.reason's text */
    int ran;
    int64_t iters_done;
    double wall_s;
    double phase_s[RX_NPHASES];
    double *thread_phase_s;     /* nt_used x RX_NPHASES, or NULL */
    int64_t lb_changes;         /* load balance: iterations with a new cut */
    int fused;                  /* step_one: rx__m25_step applies */
    int fused_noise[2];         /* its rule at position 1 / the others
                                 * injects the Langevin noise */
    int box;                    /* target.box: a step out of
                                 * [init.low, init.high]^d is rejected */
    int no_defer;               /* testing: the partner design decides its
                                 * boundary pairs in their own iteration */
    size_t part_hdr, part_vec;  /* rx__particle_alloc: header and vector
                                 * sizes (prefetch_particle) */
    size_t part_svec;           /* and the state's (slen doubles) */
    int no_prefetch;            /* testing: the partner design does not
                                 * prefetch the neighbours' offers */
    int bank;                   /* partner design, fused chain-step, more
                                 * than one thread: waits draw ahead */
    int bank_mode;              /* testing: 1 draw ahead every iteration,
                                 * -1 never (rx__engine_bank) */
    int generic_only;           /* testing: neither the fused chain-step
                                 * nor pair noise drawn ahead */
    rx__zhelp *zh;              /* balance_noise: P slots, or NULL */
    int64_t noise_helped;       /* chain-steps whose noise a waiting thread
                                 * drew (all or part) */
    int partner;                /* synchronisation: the partner design */
    int partner_recut;          /* partner: thread 0 moved the cuts at the
                                 * last full barrier */
    int64_t partner_gevery;     /* partner: the full barriers' period */
    rx__pace partner_pace;      /* partner: the last full barrier */
    int partner_stop;           /* partner: thread 0's stop decision at
                                 * a full barrier, read after the next */
    int *final_cut;             /* nt_used + 1 chain-range cuts at the end */
    double *wait_share;         /* nt_used: wait_s / the iterations' wall
                                 * time, or NULL (1 thread) */
    double start_s;             /* wall seconds from the run's start until
                                 * its last thread entered the parallel
                                 * region; -1 until a run */
    double steal_share;         /* the host's steal over the run, per
                                 * thread (rx__steal_share); -1 unknown */
    int32_t *final_at;          /* P, after the run */
    rx_progress_fn progress_fn; /* optional, thread 0 */
    void *progress_user;
    int64_t progress_every;     /* 0: paced by time (progress_due) */
    int64_t progress_next;      /* barrier design, every 0: the next call
                                 * after iteration progress_next - 1 */
    rx__pace progress_pace;     /* and the last call */
    rx__evalst ev;
    /* checkpoints: written by thread 0 after the step phase of an
     * iteration whose flag (by parity) thread 0 set while recording the
     * previous one; ckpt_fn is installed by src/io/checkpoint.c
     * (rx__ckpt_install) */
    /* the checkpoint writer (state.h, rx__ckpt_writer) */
    rx_status (*ckpt_fn)(rx_ctx *c, int64_t k, const char *path, char *err,
                         size_t cap);
    char *ckpt_path;
    int64_t ckpt_every;
    int ckpt_flag[2];
    volatile sig_atomic_t *stop_flag; /* set asynchronously: stop cleanly */
    int stop_now;                     /* thread 0: stop after checkpoint */
    int64_t k0;                       /* resumed: first iteration to run */
    int resumed;
    int64_t ckpts_written;
    char ckpt_err[9000];
    /* a checkpoint being resumed (rx__state_load) */
    double *res_parts;   /* P x rx__part_stride: see rx__part_pack */
    double *res_bias;    /* bias: P log-weights, then the packed states */
    rx__xstate res_x;    /* at, pos, gate, eta, tau, beta, s2hat, acc_sum,
                            C, sa_count, round, round_end, nonadj */
    double eval_s;
    double mem_data, mem_scratch; /* network: data sets, all scratch */
    rx__ranks *mp;       /* the run's MPI ranks (ranks.c), or NULL */
};

/* Testing: on != 0 makes rx_run take the generic chain-step even where
 * the fused one applies, and draw the fresh pair noise in the exchange
 * (tests compare both with the default paths bitwise). */
void rx__engine_generic_only(rx_ctx *c, int on);
/* The note a run logs when its threads waited for each other much of the
 * time: share[t] (n threads) the part of the iterations' wall time thread
 * t waited, P chains, steal the run's steal share (rx__steal_share; < 0
 * unknown) over span thread-seconds (wall x threads). Writes it into buf
 * and returns 1 when the mean share reaches RX_WAIT_NOTE_SHARE; 0 (and buf
 * untouched) otherwise. From a steal share of RX_WAIT_NOTE_STEAL on, over
 * at least RX_STEAL_NOTE_SPAN thread-seconds, the note says the host took
 * that much of the threads' time: a thread whose virtual CPU is not
 * running holds up the others, whatever the run's settings. */
#define RX_WAIT_NOTE_SHARE 0.2
#define RX_WAIT_NOTE_STEAL 0.05
#define RX_STEAL_NOTE_SPAN 0.5 /* thread-seconds (wall x threads) */
int rx__wait_note(char *buf, size_t cap, const double *share, int n, int P,
                  double steal, double span);
/* The note at the end of a DEO* (or DEO_W, window auto) run whose pairs
 * met the swap condition at a rate r (cond / evaluated: every pair, every
 * iteration, whatever the window; the rate S stands for) far from the
 * target swap rate S that set its window W: into buf when W*(P, r) (1 for
 * r = 1) and W differ by a factor of 2 or more, over at least
 * RX_WINDOW_NOTE_EVALS evaluations; returns whether it wrote one. */
#define RX_WINDOW_NOTE_EVALS 1000
int rx__window_note(char *buf, size_t cap, int P, int W, double S,
                    int64_t cond, int64_t evaluated);
/* Testing and benchmarks: the partner design decides each attempted
 * boundary pair in its own iteration instead of one iteration later. */
void rx__engine_no_defer(rx_ctx *c, int on);
/* Testing and benchmarks: the partner design does not prefetch the
 * neighbours' offers at the start of an iteration. */
void rx__engine_no_prefetch(rx_ctx *c, int on);
/* Testing and benchmarks: under the partner design with the fused
 * chain-step, draw the inner particles' normals ahead in every iteration
 * (mode > 0: not only while waiting, so the drawn-ahead path runs whatever
 * the timing), or never (mode < 0); 0: while waiting (the default). */
void rx__engine_bank(rx_ctx *c, int mode);

#endif
