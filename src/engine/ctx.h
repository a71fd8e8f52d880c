/*
 * The context: everything one run owns. Internal; read by src/io writers.
 */
#ifndef RX_ENGINE_CTX_H
#define RX_ENGINE_CTX_H

#include "../core/internal.h"
#include "../exchange/exchange.h"
#include "../ladder/ladder.h"
#include "../record/record.h"
#include "../step/step.h"
#include "../target/target.h"

/* Particle header; theta and grad follow in the same aligned block. */
typedef struct rx__particle {
    alignas(RX_CACHELINE) double *theta;
    double *grad;
    double *state;     /* optimiser state (mSGD, pSGD, SGHMC) or NULL */
    int32_t last_q;    /* position during the previous step */
    double energy;
    double var_raw[2]; /* sigma^2 raw estimate, by parity of k */
    int32_t id;
} rx__particle;

/* Per-thread state, one cache-line-aligned slot per thread. */
typedef struct rx__tstate {
    alignas(RX_CACHELINE) rx__xstate x;
    double t_step, t_wait, t_xch, t_rec;
    rx_status st;
    int32_t fail_particle;
    int64_t fail_k;
    double fail_last_energy;
    rx__tws *tws;        /* target scratch (network targets) */
    rx_err err;          /* message of a set-up failure of this thread */
} rx__tstate;

/* Posterior-predictive evaluation of a network target. */
typedef struct rx__evalst {
    int on;
    int64_t rows, ood_rows;
    int n_out;
    float *ens_models;          /* P x dim: final particles, or NULL */
    double *mean[2], *lmax[2], *lsum[2], *ood_mean[2]; /* [0] BMA, [1] ens */
    rx_metrics bma, ens;
} rx__evalst;

struct rx_ctx {
    rx_config cfg;
    rx_logger log;
    rx_err err;
    rx__target *target;
    rx__xconf xc;
    rx__aconf ac;
    rx__stepconf sc;
    double C_final;             /* thread 0's buffer after the run */
    double *s2_final;           /* P-1: thread 0's sigma_p^2 after run */
    int s2_estimate;            /* sigma2: estimate */
    int P, nt_req, nt_used;
    size_t dim;
    double *eta, *tau;          /* initial ladders; final ones after run */
    rx__particle **parts;       /* P, allocated by owner threads */
    double *E[2];               /* energies by particle, by parity of k */
    rx__tstate *ts;             /* nt_req slots */
    int fail_flag[3];           /* by parity of k; [2] = set-up */
    rx__recorder rec;
    int64_t n_samples;
    float *samples;             /* n_samples x dim */
    int ran;
    int64_t iters_done;
    double wall_s;
    double phase_s[4];
    int32_t *final_at;          /* P, after the run */
    rx_progress_fn progress_fn; /* optional, thread 0 */
    void *progress_user;
    int64_t progress_every;
    rx__evalst ev;
    double eval_s;
    double mem_data, mem_scratch; /* network: data sets, all scratch */
};

#endif
