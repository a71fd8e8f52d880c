/*
 * The paired exchange estimates (a rule with RX__XT_PAIRED on minibatch
 * energies, c->xc.paired): after the step phase of iteration k, and before
 * its exchange, the team estimates the energy difference of every pair the
 * schedule attempts at k on one growing batch (src/estimate/pairdiff.h),
 * the pairs split over the threads in order; a barrier, and then every
 * thread's exchange reads the same estimates (xs->pair_est). Each estimate
 * is a function of (seed, pair, k) and the two parameter vectors: the same
 * bits on any number of threads.
 */
#include <stdlib.h>

#include "wing.h"

rx_status rx__xbatch_thread_init(rx_ctx *c, rx__tstate *ts)
{
    if (!c->xc.paired)
        return RX_OK;
    ts->xlist = malloc(sizeof(int) * (size_t)c->P);
    if (!ts->xlist)
        return RX_ENOMEM;
    return rx__pdws_create(&ts->pdw, c->target->cv.N, c->target->cv.bs);
}

void rx__xbatch_thread_free(rx__tstate *ts)
{
    rx__pdws_destroy(&ts->pdw);
    free(ts->xlist);
    ts->xlist = NULL;
}

void rx__xbatch_phase(rx_ctx *c, rx__tstate *ts, double *est, int64_t k,
                      int t, int nthr)
{
    const rx__xstate *xs = &ts->x;
    const int n = rx__exchange_attempts(&c->xc, xs, k, ts->xlist);
    /* on the reference path the energies are U_like (chain.c's
     * rx__path_energy): the estimate leaves the prior out too */
    rx__pdconf pc = c->pdc;
    pc.like_only = c->path;
    const int j0 = (int)((int64_t)n * t / nthr);
    const int j1 = (int)((int64_t)n * (t + 1) / nthr);
    for (int j = j0; j < j1; ++j) {
        const int p = ts->xlist[j];
        const int32_t ia = xs->at[p], ib = xs->at[p + 1];
        rx__pdest e;
        rx_status st = rx__pd_estimate(
            c->target, ts->tws, ts->pdw, &pc, c->parts[ia]->theta,
            c->parts[ib]->theta, xs->beta[p] - xs->beta[p + 1], (uint32_t)p,
            (uint64_t)k, &e);
        if (st != RX_OK) {
            rx__chain_fail(c, ts, (int)(k & 1), st, ia, k,
                           c->parts[ia]->energy);
            return;
        }
        est[2 * p] = e.dU;
        est[2 * p + 1] = e.var;
        rx__xbatch *x = &c->rec.xb[p];
        x->estimates++;
        x->rows += e.n;
        x->var_fail += e.var >= c->pdc.s2star;
    }
}
