/*
 * Private to src/model/: direct convolution for layers with few input
 * channels (direct.c), on the interleaved layout of vec.h.
 */
#ifndef RX_MODEL_DIRECT_H
#define RX_MODEL_DIRECT_H

#include "ops.h"

/* Direct convolution (stride 1, k <= RX__WA, c k^2 <= RX__DIRECT_TAPS):
 * every output vector of 16 images as multiply-adds of the interleaved
 * input, kernels as scalars. */
#define RX__DIRECT_TAPS 256
void rx__direct_setup(rx__op *op);
/* Floats of the workspace buffers it needs: the interleaved input planes
 * (pad), a band of the interleaved output or its gradient (dy), the
 * weight gradient's per-lane sums (dwl). */
void rx__direct_sizes(const rx__op *op, size_t *pad, size_t *dy,
                      size_t *dwl);
void rx__direct_forward(const rx__op *op, rx__netws *ws, const float *w,
                        const float *in, float *out, int n);
void rx__direct_backward(const rx__op *op, rx__netws *ws, const float *w,
                         const float *in, const float *dout, float *din,
                         float *gw, int n);

#endif
