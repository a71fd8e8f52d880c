/*
 * Private to src/model/: forward and backward of one op of a compiled net
 * (layers.c), which picks the conv method of the op (im2col here,
 * winograd.c or direct.c).
 */
#ifndef RX_MODEL_LAYERS_H
#define RX_MODEL_LAYERS_H

#include "ops.h"

void rx__op_forward(const rx__op *op, rx__netws *ws, const float *w,
                    const float *in, float *out, int n);
/* dout: gradient of the op's output (may be modified); din: gradient of
 * its input (NULL if !op->need_dx); gw: parameter gradient (accumulated). */
void rx__op_backward(const rx__op *op, rx__netws *ws, const float *w,
                     const float *in, const float *out, float *dout,
                     float *din, float *gw, int n);
/* Images per im2col chunk (one sgemm) of a conv op in this workspace. */
int rx__conv_chunk(const rx__op *op, const rx__netws *ws);

#endif
