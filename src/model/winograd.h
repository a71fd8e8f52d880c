/*
 * Private to src/model/: conv2d (stride 1) by Winograd's minimal filtering
 * on RX__WA x RX__WA tiles (winograd.c). Works on chunks of up to 16
 * images interleaved one per vector lane (vec.h).
 */
#ifndef RX_MODEL_WINOGRAD_H
#define RX_MODEL_WINOGRAD_H

#include "ops.h"

/* Input channels up to which Winograd makes its products in registers,
 * tile by tile, instead of 64 GEMMs with K = c. */
#define RX__WINO_FUSED_C 4
/* Whether a conv of this shape can run by Winograd (stride 1, 2 <= k <=
 * RX__WA - 1), and the set-up of its transforms and tiling. */
int rx__wino_fits(int k, int stride);
void rx__wino_setup(rx__op *op);
/* Floats of each workspace buffer it needs. */
void rx__wino_sizes(const rx__op *op, size_t *v, size_t *m, size_t *u,
                    size_t *pad);
void rx__wino_forward(const rx__op *op, rx__netws *ws, const float *w,
                      const float *in, float *out, int n);
void rx__wino_backward(const rx__op *op, rx__netws *ws, const float *w,
                       const float *in, const float *dout, float *din,
                       float *gw, int n);

#endif
