/*
 * Round-trip counters and per-iteration bookkeeping. Memory for the index
 * process and the trace is sized at init from K, so nothing allocates in
 * the run loop.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "record.h"

rx_status rx__rec_init(rx__recorder *r, int P, int64_t K,
                       int64_t index_every, int64_t trace_every)
{
    memset(r, 0, sizeof *r);
    r->P = P;
    r->index_every = index_every;
    r->trace_every = trace_every;
    r->cap_index = index_every > 0 ? (K + index_every - 1) / index_every : 0;
    r->cap_trace = trace_every > 0 ? (K + trace_every - 1) / trace_every : 0;
    /* columns: k, trips_a5, trips_l1, restarts, mean_cond, C,
     * cond_p (P-1), swaps_p (P-1), eta_q (P), tau_q (P)
     * [, sigma2_p (P-1): rx__rec_trace_sigma2] */
    r->n_trace_cols = 6 + 2 * (P - 1) + 2 * P;
    size_t up = (size_t)P;
    r->visited = calloc(up, 1);
    r->last_end = calloc(up, 1);
    r->l1_state = calloc(up, 1);
    r->pairs = calloc(up, sizeof *r->pairs);
    r->win_cond = calloc(up, sizeof(int64_t));
    r->win_eval = calloc(up, sizeof(int64_t));
    r->win_swaps = calloc(up, sizeof(int64_t));
    if (!r->visited || !r->last_end || !r->l1_state || !r->pairs ||
        !r->win_cond || !r->win_eval || !r->win_swaps)
        goto fail;
    if (r->cap_index > 0) {
        size_t n = (size_t)r->cap_index * up;
        if (n / up != (size_t)r->cap_index)
            goto fail;
        r->index = malloc(n * sizeof(int32_t));
        r->index_iter = malloc((size_t)r->cap_index * sizeof(int64_t));
        if (!r->index || !r->index_iter)
            goto fail;
    }
    if (r->cap_trace > 0) {
        r->trace = malloc((size_t)r->cap_trace * (size_t)r->n_trace_cols *
                          sizeof(double));
        if (!r->trace)
            goto fail;
    }
    return RX_OK;
fail:
    rx__rec_free(r);
    return RX_ENOMEM;
}

rx_status rx__rec_trace_sigma2(rx__recorder *r)
{
    if (r->n_sigma2_cols > 0 || r->P < 2)
        return RX_OK;
    const int nc = r->n_trace_cols + (r->P - 1);
    if (r->cap_trace > 0) {
        double *t = realloc(r->trace, (size_t)r->cap_trace * (size_t)nc *
                                          sizeof(double));
        if (!t)
            return RX_ENOMEM;
        r->trace = t;
    }
    r->n_sigma2_cols = r->P - 1;
    r->n_trace_cols = nc;
    return RX_OK;
}

rx_status rx__rec_hit_init(rx__recorder *r, double rho, double u_min,
                           int stop)
{
    if (!(rho >= 0.0) || r->hit)
        return RX_OK;
    const int nc = r->n_trace_cols + 1;
    if (r->cap_trace > 0) {
        double *t = realloc(r->trace, (size_t)r->cap_trace * (size_t)nc *
                                          sizeof(double));
        if (!t)
            return RX_ENOMEM;
        r->trace = t;
    }
    r->n_trace_cols = nc;
    r->hit = rx__calloc_aligned(sizeof(rx__hitslot) * (size_t)r->P,
                                RX_CACHELINE);
    if (!r->hit)
        return RX_ENOMEM;
    for (int i = 0; i < r->P; ++i) {
        atomic_init(&r->hit[i].k, -1);
        r->hit[i].emin = INFINITY;
    }
    r->hit_thr = u_min + rho;
    r->hit_stop = stop != 0;
    return RX_OK;
}

const char *rx__rec_hit_check(const rx__recorder *r, int64_t k)
{
    for (int i = 0; r->hit && i < r->P; ++i) {
        const int64_t h = atomic_load(&r->hit[i].k);
        if (h < -1 || h > k || isnan(r->hit[i].emin))
            return "a chain's hitting iteration or lowest energy is invalid";
    }
    return NULL;
}

rx_status rx__rec_xbatch_init(rx__recorder *r)
{
    if (r->xb || r->P < 2)
        return RX_OK;
    r->xb = rx__calloc_aligned(sizeof(rx__xbatch) * (size_t)(r->P - 1),
                               RX_CACHELINE);
    return r->xb ? RX_OK : RX_ENOMEM;
}

const char *rx__rec_xbatch_check(const rx__recorder *r, int64_t k)
{
    for (int p = 0; r->xb && p + 1 < r->P; ++p) {
        const rx__xbatch *x = &r->xb[p];
        if (x->estimates < 0 || x->estimates > k || x->rows < x->estimates ||
            x->var_fail < 0 || x->var_fail > x->estimates)
            return "a pair's exchange-batch counts are invalid";
    }
    return NULL;
}

/* The chains whose first hit is at or before iteration k: a particle
 * stepped at k + 1 meanwhile has a later one. */
static double hits_by(const rx__recorder *r, int64_t k)
{
    int n = 0;
    for (int i = 0; i < r->P; ++i) {
        const int64_t h =
            atomic_load_explicit(&r->hit[i].k, memory_order_relaxed);
        n += h >= 0 && h <= k;
    }
    return (double)n;
}

void rx__rec_free(rx__recorder *r)
{
    free(r->visited);
    free(r->last_end);
    free(r->l1_state);
    free(r->pairs);
    free(r->win_cond);
    free(r->win_eval);
    free(r->win_swaps);
    free(r->index);
    free(r->index_iter);
    free(r->trace);
    rx__free_aligned(r->hit);
    rx__free_aligned(r->xb);
    memset(r, 0, sizeof *r);
}

static inline void a5_check(rx__recorder *r, const rx__xstate *xs, int32_t i)
{
    if (r->visited[i] == (RX_VIS_LOW | RX_VIS_HIGH) && xs->pos[i] == i) {
        r->trips_a5++;
        r->visited[i] = 0;
    }
}

void rx__rec_iter(rx__recorder *r, int64_t k, const rx__xstate *xs)
{
    const int P = r->P;
    for (int p = 0; p < P - 1; ++p) {
        const rx__pairev *e = &xs->ev[p];
        rx_pair_stats *s = &r->pairs[p];
        s->evaluated += e->evaluated;
        s->conditions += e->cond;
        s->attempts += e->attempt;
        s->swaps += e->swapped;
        s->accept_sum += e->prob;
        r->win_eval[p] += e->evaluated;
        r->win_cond[p] += e->cond;
        r->win_swaps[p] += e->swapped;
        r->total_swaps += e->swapped;
    }
    /* A.5 counter (deo.md 4.2 (1)): mark both ends, then a particle that
     * has touched both and is back home completes a trip. Only a particle
     * that moved or sits at an end can newly satisfy that, so those are
     * the ones checked (the same counts as checking all P, in O(swaps)). */
    int32_t lo = xs->at[0], hi = xs->at[P - 1];
    if (P < 2)
        goto rows; /* one chain: no round trips */
    r->visited[lo] |= RX_VIS_LOW;
    r->visited[hi] |= RX_VIS_HIGH;
    if (xs->nonadjacent_swaps != r->seen_nonadjacent) {
        r->seen_nonadjacent = xs->nonadjacent_swaps; /* APE: check all */
        for (int i = 0; i < P; ++i)
            a5_check(r, xs, i);
    } else {
        a5_check(r, xs, lo);
        a5_check(r, xs, hi);
        for (int p = 0; p < P - 1; ++p)
            if (xs->ev[p].swapped) {
                a5_check(r, xs, xs->at[p]);
                a5_check(r, xs, xs->at[p + 1]);
            }
    }
    /* restarts: arrival at position 1 whose last end was P (this is the
     * counter written in deo.md 4.2 (2)); trips_l1 counts only complete
     * 1 -> P -> 1 cycles, i.e. not a particle's first half trip. */
    if (r->last_end[lo] == RX_VIS_HIGH)
        r->restarts++;
    r->last_end[lo] = RX_VIS_LOW;
    if (r->l1_state[lo] == 2)
        r->trips_l1++;
    r->l1_state[lo] = 1;
    r->last_end[hi] = RX_VIS_HIGH;
    if (r->l1_state[hi] == 1)
        r->l1_state[hi] = 2;

rows:
    rx__rec_rows(r, k, xs, 1);
}

void rx__rec_rows(rx__recorder *r, int64_t k, const rx__xstate *xs,
                  int with_index)
{
    const double *eta = xs->eta, *tau = xs->tau;
    const int P = r->P;
    if (with_index && r->index_every > 0 && k % r->index_every == 0 &&
        r->n_index < r->cap_index) {
        memcpy(r->index + (size_t)r->n_index * (size_t)P, xs->at,
               sizeof(int32_t) * (size_t)P);
        r->index_iter[r->n_index++] = k;
    }
    if (r->trace_every > 0 &&
        ((k + 1) % r->trace_every == 0) && r->n_trace < r->cap_trace) {
        double *row = r->trace + (size_t)r->n_trace * (size_t)r->n_trace_cols;
        int c = 0;
        int64_t sc = 0, se = 0;
        for (int p = 0; p < P - 1; ++p) {
            sc += r->win_cond[p];
            se += r->win_eval[p];
        }
        row[c++] = (double)k;
        row[c++] = (double)r->trips_a5;
        row[c++] = (double)r->trips_l1;
        row[c++] = (double)r->restarts;
        row[c++] = se ? (double)sc / (double)se : 0.0;
        row[c++] = xs->C;
        for (int p = 0; p < P - 1; ++p)
            row[c++] = r->win_eval[p]
                           ? (double)r->win_cond[p] / (double)r->win_eval[p]
                           : 0.0;
        for (int p = 0; p < P - 1; ++p)
            row[c++] = (double)r->win_swaps[p];
        for (int q = 0; q < P; ++q)
            row[c++] = eta[q];
        for (int q = 0; q < P; ++q)
            row[c++] = tau[q];
        for (int p = 0; p < r->n_sigma2_cols; ++p)
            row[c++] = xs->s2hat[p];
        if (r->hit)
            row[c++] = hits_by(r, k);
        r->n_trace++;
        memset(r->win_cond, 0, sizeof(int64_t) * (size_t)P);
        memset(r->win_eval, 0, sizeof(int64_t) * (size_t)P);
        memset(r->win_swaps, 0, sizeof(int64_t) * (size_t)P);
    }
}

void rx__rec_trace_header(const rx__recorder *r, char *buf, size_t cap)
{
    size_t n = 0;
    n += (size_t)snprintf(buf + n, cap - n,
                          "iteration,trips_a5,trips_l1,restarts,mean_cond,C");
    for (int p = 1; p < r->P && n < cap; ++p)
        n += (size_t)snprintf(buf + n, cap - n, ",cond_%d", p);
    for (int p = 1; p < r->P && n < cap; ++p)
        n += (size_t)snprintf(buf + n, cap - n, ",swaps_%d", p);
    for (int q = 1; q <= r->P && n < cap; ++q)
        n += (size_t)snprintf(buf + n, cap - n, ",eta_%d", q);
    for (int q = 1; q <= r->P && n < cap; ++q)
        n += (size_t)snprintf(buf + n, cap - n, ",tau_%d", q);
    for (int p = 1; p <= r->n_sigma2_cols && n < cap; ++p)
        n += (size_t)snprintf(buf + n, cap - n, ",sigma2_%d", p);
    if (r->hit && n < cap)
        n += (size_t)snprintf(buf + n, cap - n, ",hits");
}

size_t rx__rec_trace_header_len(const rx__recorder *r)
{
    size_t n = strlen("iteration,trips_a5,trips_l1,restarts,mean_cond,C");
    char tmp[32];
    for (int p = 1; p < r->P; ++p)
        n += (size_t)snprintf(tmp, sizeof tmp, ",cond_%d,swaps_%d", p, p);
    for (int q = 1; q <= r->P; ++q)
        n += (size_t)snprintf(tmp, sizeof tmp, ",eta_%d,tau_%d", q, q);
    for (int p = 1; p <= r->n_sigma2_cols; ++p)
        n += (size_t)snprintf(tmp, sizeof tmp, ",sigma2_%d", p);
    if (r->hit)
        n += strlen(",hits");
    return n;
}
