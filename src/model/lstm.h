/*
 * Private to src/model/: forward and backward through time of an lstm op
 * (lstm.c), called by layers.c.
 */
#ifndef RX_MODEL_LSTM_H
#define RX_MODEL_LSTM_H

#include "ops.h"

/* Floats per example of the op's sequence state (ws->act[op->seq_buf]):
 * gates 4 T H, previous hidden states T H, cells T H, and the backward's
 * running d(h) and d(c), 2 H. */
size_t rx__lstm_state(int T, int H);

void rx__lstm_forward(const rx__op *op, rx__netws *ws, const float *w,
                      const float *in, float *out, int n);
/* din may be NULL (no input gradient); gw accumulates. */
void rx__lstm_backward(const rx__op *op, rx__netws *ws, const float *w,
                       const float *in, const float *dout, float *din,
                       float *gw, int n);

#endif
