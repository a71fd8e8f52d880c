/*
 * Per-thread scratch of the minibatch targets (network.c, mixdata.c):
 * created by its thread for the particles [lo, hi) it owns. Fields a
 * target does not use stay NULL; rx__tws_destroy frees whatever is set.
 */
#ifndef RX_TARGET_TWS_H
#define RX_TARGET_TWS_H

#include "../data/data.h"
#include "../model/model.h"

struct rx__tws {
    rx__netws *ws;
    float *w, *g;        /* np floats: theta rounded, gradient */
    float *xb, *yb;      /* gathered batch: bs x in, bs */
    float *out;          /* eval_batch x n_out predictions */
    int32_t *ib;         /* bs random rows (variance estimate) */
    double *pe;          /* bs per-example losses (mixture_data) */
    rx__batcher shared_b;
    rx__batcher *pb;     /* per particle [lo, hi) when not shared */
    int lo, hi;
};

#endif
