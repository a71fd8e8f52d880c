/*
 * Recorders: round trips (deo.md 4.2, both counters), restarts, per-pair
 * counts, the index process and the trace. Run by one thread after the
 * exchange phase; they read the maps and pair events and own their memory.
 */
#ifndef RX_RECORD_H
#define RX_RECORD_H

#include <stdatomic.h>

#include "../core/internal.h"
#include "../exchange/exchange.h"

enum { RX_VIS_LOW = 1, RX_VIS_HIGH = 2 };

/* hit.rho >= 0 (Deng 2021, Table 7.1): particle i's first iteration k
 * with U <= u_min + rho (-1: none yet) and its lowest energy, written by
 * the thread that steps it; k is atomic because a trace row reads every
 * particle's while the others may step the next iteration. One cache
 * line each. */
typedef struct rx__hitslot {
    alignas(RX_CACHELINE) _Atomic int64_t k;
    double emin;
} rx__hitslot;

/* A paired exchange estimate's counts for one pair (the noise-aware test
 * on minibatch energies): estimates made, rows they used, and those that
 * ended at the cap with the variance still too high (n_var_fail). */
typedef struct rx__xbatch {
    int64_t estimates, rows, var_fail;
} rx__xbatch;

typedef struct rx__recorder {
    int P;
    int64_t trips_a5, trips_l1, restarts, total_swaps;
    int64_t seen_nonadjacent; /* APE swaps already accounted for */
    uint8_t *visited;   /* P: A.5 marks                           */
    uint8_t *last_end;  /* P: 0 none, LOW, HIGH (restarts)         */
    uint8_t *l1_state;  /* P: 0 none, 1 seen 1, 2 seen 1 then P     */
    rx_pair_stats *pairs; /* P-1 cumulative                          */
    /* index process */
    int64_t index_every, n_index, cap_index;
    int32_t *index;
    int64_t *index_iter;
    /* trace: rows of n_trace_cols doubles */
    int64_t trace_every, n_trace, cap_trace;
    int n_trace_cols;
    int n_sigma2_cols; /* 0, or P-1 trailing sigma_p^2 columns */
    double *trace;
    int64_t *win_cond, *win_eval, *win_swaps; /* since last trace row */
    /* hit.rho >= 0: P slots (else NULL), the threshold u_min + rho, and
     * the trace's last column `hits` */
    rx__hitslot *hit;
    double hit_thr;
    /* P-1 counts of the paired exchange estimates (rx__rec_xbatch_init),
     * written by the thread that estimates the pair, or NULL */
    rx__xbatch *xb;
    int hit_stop;    /* hit.stop: the run ends after the first hit */
    int hit_stopped; /* it did (set after the run) */
} rx__recorder;

rx_status rx__rec_init(rx__recorder *r, int P, int64_t K,
                       int64_t index_every, int64_t trace_every);
void rx__rec_free(rx__recorder *r);
/*
 * Adds the per-pair sigma_p^2 of the bias-corrected rule (xs->s2hat, the
 * value the rule uses at that iteration) as P-1 trailing trace columns
 * sigma2_1 .. sigma2_{P-1}. Call after rx__rec_init and before the first
 * row, when sigma^2 is estimated online or the energies are variance
 * reduced; a second call does nothing.
 */
rx_status rx__rec_trace_sigma2(rx__recorder *r);
/*
 * With rho >= 0 (hit.rho; hit.u_min): the P hit slots and the trace column `hits`
 * (the chains whose first hit is at or before the row's iteration), after
 * rx__rec_trace_sigma2; nothing otherwise. RX_ENOMEM.
 */
rx_status rx__rec_hit_init(rx__recorder *r, double rho, double u_min,
                           int stop);
/* Particle i's energy u after its step of iteration k (any thread: the
 * one that steps i); nothing without hit slots. */
static inline void rx__rec_hit(rx__recorder *r, int i, int64_t k, double u)
{
    rx__hitslot *h = r->hit;
    if (!h)
        return;
    h += i;
    if (u < h->emin)
        h->emin = u;
    if (u <= r->hit_thr &&
        atomic_load_explicit(&h->k, memory_order_relaxed) < 0)
        atomic_store_explicit(&h->k, k, memory_order_relaxed);
}
/* hit.stop: whether some particle's first hit is at or before iteration
 * k. Every thread gets the same answer anywhere after the barrier that
 * ends the step phase of k (a slot never changes once set, and one set
 * meanwhile in the step phase of k + 1 holds k + 1), and so does every
 * MPI rank (each updates every particle's slot from the gathered
 * energies): the run loops leave at the same iteration everywhere. */
static inline int rx__rec_hit_by(const rx__recorder *r, int64_t k)
{
    for (int i = 0; i < r->P; ++i) {
        const int64_t h =
            atomic_load_explicit(&r->hit[i].k, memory_order_relaxed);
        if (h >= 0 && h <= k)
            return 1;
    }
    return 0;
}
/* A resumed run's slots at iteration k: NULL, or what is invalid (a first
 * hit after k or below -1, a NaN lowest energy). */
const char *rx__rec_hit_check(const rx__recorder *r, int64_t k);

/* The paired exchange estimates' counts (zeroed); RX_ENOMEM. */
rx_status rx__rec_xbatch_init(rx__recorder *r);
/* A resumed run's counts at iteration k: NULL, or what is invalid. */
const char *rx__rec_xbatch_check(const rx__recorder *r, int64_t k);

/* After the exchange and adapt phases of iteration k. */
void rx__rec_iter(rx__recorder *r, int64_t k, const rx__xstate *xs);
/* The index (with_index) and trace rows due at iteration k (part of
 * rx__rec_iter; the engine's partner design calls it for the trace alone
 * at its global synchronisations, with the counters summed over the
 * threads, and writes the index rows itself, each thread its positions). */
void rx__rec_rows(rx__recorder *r, int64_t k, const rx__xstate *xs,
                  int with_index);
/* Trace column names, written to buf as a CSV header line (truncated to
 * cap - 1 characters). */
void rx__rec_trace_header(const rx__recorder *r, char *buf, size_t cap);
/* The header's length without its terminating zero. */
size_t rx__rec_trace_header_len(const rx__recorder *r);

#endif
