/*
 * The partner design's full barriers (partner.c calls them every
 * c->partner_gevery iterations and where a trace row or progress report is
 * due): between the two barriers thread 0 assembles the run's map, its
 * counters and pair sums from every thread's, writes the trace and index
 * rows, reports progress, reads stop requests and failures, sets the next
 * period, and moves the cuts (load balance) with the statistics of the
 * pairs that change thread.
 */
#define _GNU_SOURCE
#include <stdlib.h>
#include <string.h>

#include "wing.h"

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

/* Thread 0 between the two barriers of a full barrier after iteration k:
 * the run's counters, map and pair sums from every thread's, the trace
 * and index rows, progress, stop requests and failures, the next period,
 * and (check) the load balance's new cuts. */
void rx__partner_assemble(rx_ctx *c, rx__tstate *ts, int nthr, rx__run *R,
                          int64_t k, int check)
{
    const int P = c->P;
    const int64_t K = c->cfg.iterations;
    rx__xstate *xs = &ts->x;
    rx__recorder *rw = &c->rec;
    rw->trips_a5 = rw->trips_l1 = rw->restarts = 0;
    rw->total_swaps = 0;
    for (int u = 0; u < nthr; ++u) {
        rw->trips_a5 += c->ts[u].pc_a5;
        rw->trips_l1 += c->ts[u].pc_l1;
        rw->restarts += c->ts[u].pc_rs;
        rw->total_swaps += c->ts[u].pc_sw;
    }
    const int32_t *const gmap = R->gmap;
    for (int q = 0; q < P; ++q) {
        xs->at[q] = gmap[q];
        xs->pos[gmap[q]] = q;
    }
    /* every pair belongs to one thread: these sums are its owner's
     * numbers, bit for bit */
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
        (c->progress_every == 0 || (k + 1) % c->progress_every == 0 ||
         k + 1 == K))
        rx__report_progress(c, ts, k, R->t0);
    if (k + 1 < K && c->stop_flag && *c->stop_flag && ts->st == RX_OK) {
        c->stop_now = 1;
        ts->st = RX_EABORTED;
        ts->fail_particle = RX_FAIL_STOP;
        ts->fail_k = k;
    }
    /* decided here, between the two barriers, for everyone: a thread may
     * already be failing in the next iteration's step by the time a slower
     * one would read the flags after the second barrier (and would then
     * wait for it forever) */
    int f0, f1;
#pragma omp atomic read
    f0 = c->fail_flag[0];
#pragma omp atomic read
    f1 = c->fail_flag[1];
    c->partner_stop = f0 || f1 || c->stop_now;
    c->partner_recut = 0;
    /* the next period from this one's iteration time */
    if (c->cfg.balance != 2)
        c->partner_gevery = rx__pace_period(&c->partner_pace, k);
    if (check && !c->partner_stop) {
        int *cuts = R->cuts;
        const size_t ncut = R->ncut;
        int *old = cuts + 2 * ncut; /* the barrier design's plan */
        memcpy(old, cuts, sizeof(int) * (size_t)(nthr + 1));
        if (rx__lb_plan(cuts, c->ts, nthr, c->cfg.balance == 2, k) &&
            memcmp(old, cuts, sizeof(int) * (size_t)(nthr + 1))) {
            partner_move_stats(c, old, cuts, nthr);
            /* both slots (final_cut reads one by parity) */
            memcpy(cuts + ncut, cuts, sizeof(int) * (size_t)(nthr + 1));
            c->partner_recut = 1;
            c->lb_changes++;
        }
    }
}
