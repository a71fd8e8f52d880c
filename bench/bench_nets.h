/*
 * The networks the model benchmarks time (bench_model): the
 * MNIST CNN of csgld.md 5.3 with 10 classes, the UCI MLP 13-50-1 and the
 * Fashion-MNIST LSTM RNN of the Nose-Hoover paper, and
 * their fixed random inputs (parameters by the library's initialisation,
 * N(0, 1) inputs, uniform labels or N(0, 1) targets, stream seed 1).
 */
#ifndef RX_BENCH_NETS_H
#define RX_BENCH_NETS_H

#include <string.h>

#include "../src/model/model.h"

static const rx__layerspec rxb_cnn_layers[] = {
    {RX_LAYER_CONV2D, 0, 32, 5, 1, 2}, {RX_LAYER_RELU, 0, 0, 0, 0, 0},
    {RX_LAYER_MAXPOOL, 0, 0, 2, 2, 0}, {RX_LAYER_CONV2D, 0, 64, 5, 1, 2},
    {RX_LAYER_RELU, 0, 0, 0, 0, 0},    {RX_LAYER_MAXPOOL, 0, 0, 2, 2, 0},
    {RX_LAYER_FLATTEN, 0, 0, 0, 0, 0}, {RX_LAYER_DENSE, 50, 0, 0, 0, 0},
    {RX_LAYER_RELU, 0, 0, 0, 0, 0},    {RX_LAYER_DENSE, 10, 0, 0, 0, 0}};
static const rx__layerspec rxb_mlp_layers[] = {
    {RX_LAYER_DENSE, 50, 0, 0, 0, 0}, {RX_LAYER_RELU, 0, 0, 0, 0, 0},
    {RX_LAYER_DENSE, 1, 0, 0, 0, 0}};
/* The Fashion-MNIST RNN of the replica-exchange Nose-Hoover paper: an
 * image's 28 rows into an LSTM of 128, ReLU, dense 64, ReLU, dense 10. */
static const rx__layerspec rxb_lstm_layers[] = {
    {RX_LAYER_LSTM, 128, 0, 0, 0, 0}, {RX_LAYER_RELU, 0, 0, 0, 0, 0},
    {RX_LAYER_DENSE, 64, 0, 0, 0, 0}, {RX_LAYER_RELU, 0, 0, 0, 0, 0},
    {RX_LAYER_DENSE, 10, 0, 0, 0, 0}};

/* The spec of the CNN (cnn = 1), the RNN (cnn = 2) or the MLP (0), conv
 * method conv. */
static inline rx__netspec rxb_spec(int cnn, rx__conv_algo conv)
{
    rx__netspec sp;
    memset(&sp, 0, sizeof sp);
    sp.conv = conv;
    if (cnn == 2) {
        sp.in_c = 1, sp.in_h = 28, sp.in_w = 28;
        sp.n_layers = 5, sp.layers = rxb_lstm_layers;
        sp.lik = RX_LIK_SOFTMAX, sp.n_out = 10;
    } else if (cnn) {
        sp.in_c = 1, sp.in_h = 28, sp.in_w = 28;
        sp.n_layers = 10, sp.layers = rxb_cnn_layers;
        sp.lik = RX_LIK_SOFTMAX, sp.n_out = 10;
    } else {
        sp.in_c = 1, sp.in_h = 1, sp.in_w = 13;
        sp.n_layers = 3, sp.layers = rxb_mlp_layers;
        sp.lik = RX_LIK_GAUSSIAN, sp.n_out = 1, sp.noise_var = 1.0;
    }
    return sp;
}

/* Parameters w, n inputs x and targets y of net (classes when cnn,
 * 1 or 2). */
static inline void rxb_inputs(const rx__net *net, int cnn, int n, float *w,
                              float *x, float *y)
{
    const size_t D = rx__net_in_dim(net);
    rx__stream s;
    rx__stream_init(&s, 1, 0, RX_STREAM_MODELINIT, 0);
    rx__net_init_params(net, w, &s);
    for (size_t i = 0; i < D * (size_t)n; ++i)
        x[i] = (float)rx__normal(&s);
    for (int i = 0; i < n; ++i)
        y[i] = cnn ? (float)rx__uniform_int(&s, 10) : (float)rx__normal(&s);
}

/* One side of an A/B of two nets (or of one net twice, with a flag set to
 * 1 for side 0 and 0 for side 1): a loss+gradient step on the same data,
 * for rxb_ab_pairs (bench_util.h). */
typedef struct rxb_ab {
    rx__net *net[2];
    rx__netws *ws[2];
    int *flag;
    const float *w, *x, *y;
    float *g;
    int n;
    double loss[2];
} rxb_ab;

static inline void rxb_ab_step(void *p, int which)
{
    rxb_ab *c = p;
    if (c->flag)
        *c->flag = which == 0;
    rx__net_loss_grad(c->net[which], c->ws[which], c->w, c->x, c->y, c->n,
                      1.0, &c->loss[which], c->g, NULL);
}

#endif
