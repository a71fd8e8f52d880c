/*
 * The Fashion-MNIST RNN of yaml/fashion_rnn_renhd.yaml (28 rows of 28
 * pixels into an LSTM of 128, ReLU, dense 64, ReLU, dense 10, softmax) on
 * weights and a batch read from a file: writes its logits, summed
 * cross-entropy and gradient, for tests/test_lstm_torch.py to compare
 * with torch.nn.LSTM. Not a test on its own.
 *
 *   rnn_io IN OUT [--ref]
 *
 * IN (native byte order): int32 n, int32 d (89290), float32 w[d] in the
 * flat layout of src/model/model.h, x[n x 784], y[n] (class indices).
 * OUT: float64 loss (sum over the batch), float32 logits[n x 10] (the
 * last dense layer's outputs), float32 grad[d] (of the summed loss).
 * The batch runs in the workspace's default blocks (rx__net_block), as in
 * a run; --ref takes the plain-C reference GEMM path instead of BLAS.
 * Exit status 0, or 1 with a message on stderr.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../src/model/layers.h"

static const rx__layerspec rnn_layers[] = {
    {RX_LAYER_LSTM, 128, 0, 0, 0, 0}, {RX_LAYER_RELU, 0, 0, 0, 0, 0},
    {RX_LAYER_DENSE, 64, 0, 0, 0, 0}, {RX_LAYER_RELU, 0, 0, 0, 0, 0},
    {RX_LAYER_DENSE, 10, 0, 0, 0, 0}};

static int fail(const char *what, const char *path)
{
    fprintf(stderr, "rnn_io: %s%s%s\n", what, path ? ": " : "",
            path ? path : "");
    return 1;
}

/* The logits of n examples, block by block as rx__net_loss_grad runs
 * them: each op's forward, the last op's output copied out. */
static void logits(const rx__net *net, rx__netws *ws, const float *w,
                   const float *x, int n, float *out)
{
    const int C = rx__net_out_dim(net);
    ++ws->call;
    for (int i0 = 0; i0 < n; i0 += ws->micro) {
        const int m = n - i0 < ws->micro ? n - i0 : ws->micro;
        const float *xp = x + (size_t)i0 * net->in_dim, *z = xp;
        for (int j = 0; j < net->n_ops; ++j) {
            const rx__op *op = &net->ops[j];
            const float *in = op->in_buf < 0 ? xp : ws->act[op->in_buf];
            rx__op_forward(op, ws, w, in, ws->act[op->out_buf], m);
            z = ws->act[op->out_buf];
        }
        memcpy(out + (size_t)i0 * C, z, sizeof(float) * (size_t)m * C);
    }
}

int main(int argc, char **argv)
{
    if (argc < 3 || argc > 4 || (argc == 4 && strcmp(argv[3], "--ref")))
        return fail("usage: rnn_io IN OUT [--ref]", NULL);
    const int use_blas = argc == 3;
    rx__blas_set_threads(1);
    rx__netspec sp;
    memset(&sp, 0, sizeof sp);
    sp.in_c = 1, sp.in_h = 28, sp.in_w = 28;
    sp.n_layers = 5, sp.layers = rnn_layers;
    sp.lik = RX_LIK_SOFTMAX, sp.n_out = 10;
    rx_err err = {{0}};
    rx__net *net = NULL;
    if (rx__net_create(&net, &sp, &err) != RX_OK)
        return fail(err.msg, NULL);
    const size_t d = rx__net_nparams(net), D = rx__net_in_dim(net);
    const int C = rx__net_out_dim(net);

    FILE *f = fopen(argv[1], "rb");
    if (!f)
        return fail("cannot open", argv[1]);
    int32_t hdr[2];
    if (fread(hdr, sizeof hdr, 1, f) != 1 || hdr[0] < 1 ||
        hdr[0] > 100000 || (size_t)hdr[1] != d) {
        fclose(f);
        return fail("bad header (n, or d not the RNN's 89290)", argv[1]);
    }
    const int n = hdr[0];
    float *w = malloc(sizeof(float) * d), *g = malloc(sizeof(float) * d);
    float *x = malloc(sizeof(float) * D * (size_t)n);
    float *y = malloc(sizeof(float) * (size_t)n);
    float *z = malloc(sizeof(float) * (size_t)C * (size_t)n);
    if (!w || !g || !x || !y || !z) {
        fclose(f);
        return fail("out of memory", NULL);
    }
    const int ok = fread(w, sizeof(float), d, f) == d &&
                   fread(x, sizeof(float), D * (size_t)n, f) ==
                       D * (size_t)n &&
                   fread(y, sizeof(float), (size_t)n, f) == (size_t)n &&
                   fgetc(f) == EOF;
    fclose(f);
    if (!ok)
        return fail("short or long file", argv[1]);

    rx__netws *ws = rx__netws_create(net, n, use_blas);
    if (!ws)
        return fail("cannot create the workspace", NULL);
    double loss = 0.0;
    if (rx__net_loss_grad(net, ws, w, x, y, n, 1.0, &loss, g, NULL) != RX_OK)
        return fail(rx__netws_errmsg(ws), NULL);
    logits(net, ws, w, x, n, z);

    FILE *o = fopen(argv[2], "wb");
    if (!o)
        return fail("cannot create", argv[2]);
    const int wok = fwrite(&loss, sizeof loss, 1, o) == 1 &&
                    fwrite(z, sizeof(float), (size_t)C * n, o) ==
                        (size_t)C * n &&
                    fwrite(g, sizeof(float), d, o) == d;
    if (fclose(o) != 0 || !wok)
        return fail("write failed", argv[2]);
    printf("rnn_io: batch %d in blocks of %d, %s path, loss %.9g\n", n,
           ws->micro, use_blas ? "blas" : "reference", loss);
    rx__netws_destroy(&ws);
    rx__net_destroy(&net);
    free(w), free(g), free(x), free(y), free(z);
    return 0;
}
