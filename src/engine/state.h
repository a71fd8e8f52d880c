/*
 * What the rest of the library (src/io: the run directory, checkpoints)
 * reads of a run, through functions of the engine: the context (ctx.h)
 * is never read outside the engine. Internal, not installed.
 *
 *  - a finished run's view for the summary (results.c): the public
 *    results plus the few facts the summary writes beside them;
 *  - the resumable state a checkpoint holds (state.c): the engine packs
 *    it through a byte sink and restores it from a byte source, in one
 *    order; the file's framing (header, CRC, atomic write) stays in
 *    io/checkpoint.c.
 */
#ifndef RX_ENGINE_STATE_H
#define RX_ENGINE_STATE_H

#include <stddef.h>
#include <stdint.h>

#include "../bias/bias.h"
#include "../core/internal.h"
#include "../estimate/vr.h"
#include "../record/record.h"

/* The context's error slot, for a failure of a writer working on it. */
rx_err *rx__ctx_err(rx_ctx *c);
/* Whether rx_run has been called on the context. */
int rx__ctx_ran(const rx_ctx *c);
/* The context's resolved configuration (borrowed). */
const rx_config *rx__ctx_cfg(const rx_ctx *c);

/* ---- a finished run, as the summary reads it (results.c) ---------- */

typedef struct rx__runview {
    rx_results res;            /* rx_get_results */
    const rx_config *cfg;      /* the resolved configuration */
    const rx__recorder *rec;   /* trace rows and their column names */
    const rx__target *target;  /* the target (data-model diagnostics) */
    int evaluated;             /* a network's posterior-predictive
                                * evaluation ran (res.bma, res.ensemble) */
    size_t slen;               /* doubles of step-rule state per particle */
    const int *final_cut;      /* res.threads + 1 chain-range cuts at the
                                * end, or NULL */
    int ranks;                 /* MPI ranks the run ran on (1 without) */
    double ranks_sync_s;       /* and this rank's seconds in their
                                * per-iteration allgathers */
    double mem_data, mem_scratch; /* network: bytes of data and scratch */
    /* variance_reduction (vr_on): settings and the particles' sums, in
     * particle order */
    int vr_on, vr_adaptive;
    int64_t vr_period;         /* variance_reduction.period */
    int64_t vr_anchor_rows;    /* rows of an anchor pass */
    double vr_c0;              /* the fixed coefficient */
    double vr_c_mean;          /* adaptive: the mean final coefficient */
    double vr_batch;           /* minibatch rows */
    rx__vrcost vr_cost;        /* cost counters summed over particles */
    double vr_grad_s;          /* seconds in gradient evaluations */
    const double *energy;      /* res.n_samples: each sample's energy U,
                                * as the run computed it (minibatch
                                * estimate on data targets), or NULL */
    const double *pred_mean;   /* evaluated: the predictive mean of the
                                * kept samples on the test set, rows x
                                * outputs (rx__network_rows, _nout), or
                                * NULL */
    /* ladder.adapt barrier: the completed rounds, round r of
     * barrier_round * 2^r iterations, and each one's Lambda (the sum of
     * the pairs' rejection rates over it) */
    int64_t rounds;
    const double *round_lambda;
} rx__runview;

/* Borrowed: valid until rx_destroy. */
void rx__run_view(const rx_ctx *c, rx__runview *v);

/* The run's energy-histogram bias (its type NULL without one); borrowed,
 * read-only: its states after the run, for the summary. */
const rx__bias *rx__ctx_bias(const rx_ctx *c);

/* faults.policy rollback: particle i's rollbacks, the iteration of its
 * last one and its step scale; returns 0 (outputs untouched) where the
 * particle does not exist. */
int rx__particle_faults(const rx_ctx *c, int i, int32_t *rollbacks,
                        int64_t *last_k, double *step_scale);

/* ---- the resumable state (state.c) -------------------------------- */

/* What a checkpoint of the run at iteration k records in its header: the
 * run's identity, the sizes of the blocks, and the limits the counts of a
 * file being read must keep (cap_index, cap_trace). */
typedef struct rx__ckident {
    uint64_t seed;
    int64_t K, burn_in, thin, index_every, trace_every;
    int64_t dim, k, rows, n_index, n_trace;
    int64_t cap_index, cap_trace;
    int32_t P, per, n_cols, stride; /* stride: doubles per particle */
} rx__ckident;

void rx__state_ident(const rx_ctx *c, int64_t k, rx__ckident *id);

/* A sink (writing) or source (reading) of n bytes at p. */
typedef void (*rx__state_io)(void *user, void *p, size_t n);

/* The state's blocks in order through put: the P packed particles, the
 * exchange state, the recorders (id's counts), id->rows rows of samples
 * and their energies (on the reference path then id->rows x P U_like
 * values of log Z and id->rows U_0 values of position P);
 * with a bias, then the particles' P log-weights, the bias states packed
 * (the row's pack, pack_len doubles each) and the samples' log-weights.
 * Called by the checkpoint writer on thread 0 while the other threads
 * wait. RX_ENOMEM before anything is written. */
rx_status rx__state_save(rx_ctx *c, const rx__ckident *id, rx__state_io put,
                         void *user);
/* The same blocks from get, sized by id (a file's header checked against
 * rx__state_ident): the particles and the exchange state are held for the
 * run to resume from, the recorders and samples read in place (so a
 * failed read leaves the context fit only for rx_destroy). RX_ENOMEM
 * before anything is read. */
rx_status rx__state_load(rx_ctx *c, const rx__ckident *id, rx__state_io get,
                         void *user);
/* After a complete and intact read (CRC checked): whether the restored
 * state holds only what a run of this configuration can write at
 * iteration k (maps a permutation, ladders finite and positive, counters
 * at most k P, integer fields in range): NULL, or what is wrong. The
 * engine indexes and casts with these values, so a file that matches its
 * CRC by accident or design must not reach it otherwise. */
const char *rx__state_check(const rx_ctx *c, int64_t k);
/* After a complete and intact read: -1, and rx_run resumes at id->k; or
 * the first particle whose position is invalid (nothing resumes); or P
 * when the bias states are not valid ones (the message in the context's
 * error). */
int rx__state_resume(rx_ctx *c, const rx__ckident *id);

/* The checkpoint writer rx_run calls on thread 0 after the step phase of
 * iteration k: the file at path, a message into err (cap bytes) when it
 * fails. */
typedef rx_status (*rx__ckpt_writer)(rx_ctx *c, int64_t k, const char *path,
                                     char *err, size_t cap);
/* Checkpoints to path every `every` iterations (< 0: the configuration's
 * checkpoint.every) with fn; RX_ENOMEM (nothing changed) when the path
 * cannot be copied. */
rx_status rx__ckpt_install(rx_ctx *c, const char *path, int64_t every,
                           rx__ckpt_writer fn);

#endif
