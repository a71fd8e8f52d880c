/*
 * Network model throughput on ONE thread: the MNIST CNN of csgld.md 5.3
 * (conv5x5x32 pad 2, ReLU, pool 2, conv5x5x64 pad 2, ReLU, pool 2,
 * dense 3136-50 ReLU, dense 50-10, softmax), the UCI MLP 13-50-1 (ReLU,
 * Gaussian) or the Fashion-MNIST RNN (28 rows into LSTM 128, ReLU, dense
 * 64, ReLU, dense 10, softmax; batch 128 by default). One step = rx__net_loss_grad + an SGD update of the flat
 * vector; a repetition times one CNN step or a block of 100 MLP steps.
 * Prints per-step time (best and median of the repetitions, as wall time
 * and as this thread's CPU time, which leaves out the time other processes
 * hold the core), examples/s, GFLOP/s counting rx__net_flops_grad, and
 * the single-thread cblas_sgemm peak (n^3, best of 5) measured in the
 * same process.
 *
 *   bench_model [--net cnn|mlp|lstm] [--batch n] [--reps r] [--ref]
 *               [--peak n] [--profile] [--block b]
 *
 * --ref uses the plain-C reference path; --profile also times each op's
 * forward and backward on one block of images (src/model/net.c); --block
 * sets the images per block (default: rx__net_block's choice).
 */
#define _POSIX_C_SOURCE 199309L
#include <cblas.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "../src/model/layers.h"
#include "../src/model/pgemm.h"
#include "bench_nets.h"
#include "bench_util.h"


static double sgemm_peak(int n, double *peak_cpu)
{
    float *A = rx__alloc_aligned(sizeof(float) * (size_t)n * n, 64);
    float *B = rx__alloc_aligned(sizeof(float) * (size_t)n * n, 64);
    float *C = rx__alloc_aligned(sizeof(float) * (size_t)n * n, 64);
    if (!A || !B || !C)
        return 0.0;
    for (size_t i = 0; i < (size_t)n * n; ++i) {
        A[i] = (float)(i % 7) * 1e-3f;
        B[i] = (float)(i % 5) * 1e-3f;
    }
    double best = 1e30, bestc = 1e30;
    for (int r = 0; r < 6; ++r) {
        double t = rx__now(), tc = rxb_cpu_now();
        cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, n, n, n, 1.0f,
                    A, n, B, n, 0.0f, C, n);
        t = rx__now() - t;
        tc = rxb_cpu_now() - tc;
        if (r > 0 && t < best)
            best = t;
        if (r > 0 && tc < bestc)
            bestc = tc;
    }
    *peak_cpu = 2.0 * n * (double)n * n / bestc * 1e-9;
    rx__free_aligned(A);
    rx__free_aligned(B);
    rx__free_aligned(C);
    return 2.0 * n * (double)n * n / best * 1e-9;
}

static const char *op_name(rx__opkind k)
{
    static const char *const nm[] = {"?",    "dense", "conv",    "pool",
                                     "relu", "tanh",  "to_nf", "to_cnhw",
                                     "lstm"};
    return (int)k >= 1 && (int)k <= 8 ? nm[k] : "?";
}

/* Per-op forward and backward time on one block of the workspace (best
 * of reps), gradients discarded; the gradients of an op's output and
 * input in buffers of their own. */
static void profile(const rx__net *net, rx__netws *ws, const float *w,
                    const float *x, float *g, int reps)
{
    const int n = ws->micro;
    size_t big = 0;
    for (int j = 0; j < net->n_ops; ++j) {
        const rx__op *op = &net->ops[j];
        big = op->out_sz > big ? op->out_sz : big;
        big = op->in_sz > big ? op->in_sz : big;
    }
    float *dbuf[2] = {rx__alloc_aligned(sizeof(float) * big * n, 64),
                      rx__alloc_aligned(sizeof(float) * big * n, 64)};
    if (!dbuf[0] || !dbuf[1])
        return;
    printf("per op, one block of %d images:\n", n);
    for (int j = 0; j < net->n_ops; ++j) {
        const rx__op *op = &net->ops[j];
        const float *in = op->in_buf < 0 ? x : ws->act[op->in_buf];
        double bf = 1e30, bb = 1e30;
        for (int r = 0; r < reps; ++r) {
            double t = rx__now();
            rx__op_forward(op, ws, w, in, ws->act[op->out_buf], n);
            t = rx__now() - t;
            if (t < bf)
                bf = t;
        }
        if (op->need_dx || op->nw) {
            float *dout = dbuf[0];
            for (size_t q = 0; q < op->out_sz * (size_t)n; ++q)
                dout[q] = 1e-3f;
            for (int r = 0; r < reps; ++r) {
                float *din = !op->need_dx ? NULL
                             : op->in_buf == op->out_buf ? dout
                                                         : dbuf[1];
                if (op->kind == RX__OP_LSTM) /* its backward reads the
                                                 * forward's state */
                    rx__op_forward(op, ws, w, in, ws->act[op->out_buf], n);
                double t = rx__now();
                rx__op_backward(op, ws, w, in, ws->act[op->out_buf], dout,
                                din, g, n);
                t = rx__now() - t;
                if (t < bb)
                    bb = t;
            }
        } else {
            bb = 0.0;
        }
        printf("  op %d %-7s %3dx%2dx%2d -> %3dx%2dx%2d  fwd %8.3f ms  "
               "bwd %8.3f ms  %6.1f GFLOP/s\n", j, op_name(op->kind), op->c,
               op->h, op->w, op->oc, op->oh, op->ow, bf * 1e3, bb * 1e3,
               op->flops > 0 ? (2.0 + op->need_dx) * op->flops * n /
                                   (bf + bb) * 1e-9
                             : 0.0);
    }
    rx__free_aligned(dbuf[0]);
    rx__free_aligned(dbuf[1]);
}

int main(int argc, char **argv)
{
    const char *which = "cnn";
    int batch = -1, reps = -1, ref = 0, peak_n = 1024, prof = 0, conv = 0;
    int isa = -1, block = 0;
    for (int a = 1; a < argc; ++a) {
        if (!strcmp(argv[a], "--net") && a + 1 < argc)
            which = argv[++a];
        else if (!strcmp(argv[a], "--batch") && a + 1 < argc)
            batch = atoi(argv[++a]);
        else if (!strcmp(argv[a], "--block") && a + 1 < argc)
            block = atoi(argv[++a]);
        else if (!strcmp(argv[a], "--reps") && a + 1 < argc)
            reps = atoi(argv[++a]);
        else if (!strcmp(argv[a], "--peak") && a + 1 < argc)
            peak_n = atoi(argv[++a]);
        else if (!strcmp(argv[a], "--conv") && a + 1 < argc) {
            ++a;
            conv = !strcmp(argv[a], "im2col")     ? RX_CONV_IM2COL
                   : !strcmp(argv[a], "winograd") ? RX_CONV_WINOGRAD
                   : !strcmp(argv[a], "direct")   ? RX_CONV_DIRECT
                   : !strcmp(argv[a], "auto")     ? RX_CONV_AUTO
                                                  : -1;
            if (conv < 0) {
                fprintf(stderr, "--conv: auto, im2col, winograd or direct\n");
                return 2;
            }
        } else if (!strcmp(argv[a], "--isa") && a + 1 < argc) {
            ++a;
            isa = !strcmp(argv[a], "avx512")     ? RX__ISA_AVX512
                  : !strcmp(argv[a], "avx2")     ? RX__ISA_AVX2
                  : !strcmp(argv[a], "portable") ? RX__ISA_PORTABLE
                                                 : -2;
            if (isa == -2 || isa > rx__pgemm_isa()) {
                fprintf(stderr, "--isa: avx512, avx2 or portable, at most "
                        "%s on this CPU\n", rx__pgemm_isa_name(rx__pgemm_isa()));
                return 2;
            }
        } else if (!strcmp(argv[a], "--ref"))
            ref = 1;
        else if (!strcmp(argv[a], "--profile"))
            prof = 1;
        else {
            fprintf(stderr, "usage: %s [--net cnn|mlp|lstm] [--batch n] "
                    "[--reps r] [--ref] [--peak n] [--profile] [--block b] "
                    "[--conv auto|im2col|winograd|direct] "
                    "[--isa avx512|avx2|portable]\n", argv[0]);
            return 2;
        }
    }
    const int cnn = !strcmp(which, "cnn") ? 1 : !strcmp(which, "lstm") ? 2 : 0;
    if (!cnn && strcmp(which, "mlp")) {
        fprintf(stderr, "--net must be cnn, mlp or lstm\n");
        return 2;
    }
    if (batch < 1)
        batch = cnn == 2 ? 128 : cnn ? 100 : 50;
    if (reps < 1)
        reps = cnn ? 20 : 300;
    rx__blas_set_threads(1);

    const rx__netspec spec = rxb_spec(cnn, (rx__conv_algo)conv);
    rx_err err = {{0}};
    rx__net *net = NULL;
    if (rx__net_create(&net, &spec, &err) != RX_OK) {
        fprintf(stderr, "%s\n", err.msg);
        return 1;
    }
    rx__netws *ws = rx__netws_create_block(net, batch, !ref,
                                           block > 0 ? block : 0);
    if (ws && isa >= 0)
        ws->g.isa = isa;
    const size_t d = rx__net_nparams(net), D = rx__net_in_dim(net);
    float *w = rx__alloc_aligned(sizeof(float) * d, 64);
    float *g = rx__alloc_aligned(sizeof(float) * d, 64);
    float *x = rx__alloc_aligned(sizeof(float) * D * (size_t)batch, 64);
    float *y = rx__alloc_aligned(sizeof(float) * (size_t)batch, 64);
    double *ts = malloc(sizeof(double) * (size_t)reps);
    double *tc = malloc(sizeof(double) * (size_t)reps);
    if (!ws || !w || !g || !x || !y || !ts || !tc)
        return 1;
    rxb_inputs(net, cnn, batch, w, x, y);

    double peak_cpu = 0.0;
    const double peak = sgemm_peak(peak_n, &peak_cpu);
    const float lr = 1e-6f;
    double loss = 0.0;
    for (int r = 0; r < 3; ++r)
        rx__net_loss_grad(net, ws, w, x, y, batch, 1.0, &loss, g, NULL);
    /* a sample is a block of steps long enough for the clocks (the thread
     * CPU clock of a VM may tick coarsely) */
    const int blk = cnn ? 1 : 100;
    for (int r = 0; r < reps; ++r) {
        double t = rx__now(), t1 = rxb_cpu_now();
        for (int q = 0; q < blk; ++q) {
            if (rx__net_loss_grad(net, ws, w, x, y, batch, 1.0, &loss, g,
                                  NULL) != RX_OK) {
                fprintf(stderr, "%s\n", rx__netws_errmsg(ws));
                return 1;
            }
            for (size_t j = 0; j < d; ++j)
                w[j] -= lr * g[j];
        }
        ts[r] = (rx__now() - t) / blk;
        tc[r] = (rxb_cpu_now() - t1) / blk;
    }
    qsort(ts, (size_t)reps, sizeof *ts, rxb_cmpd);
    qsort(tc, (size_t)reps, sizeof *tc, rxb_cmpd);
    const double best = ts[0], med = ts[reps / 2];
    const double bestc = tc[0], medc = tc[reps / 2];
    const double fl = rx__net_flops_grad(net) * batch;
    printf("net %s (%zu params), batch %d, %s path, conv %s (%s products), "
           "%d reps, loss %.6g, workspace %.1f MiB\n", which, d,
           batch, ref ? "reference" : "blas",
           conv == RX_CONV_IM2COL     ? "im2col"
           : conv == RX_CONV_WINOGRAD ? "winograd"
           : conv == RX_CONV_DIRECT   ? "direct"
                                      : "auto",
           rx__pgemm_isa_name(ws->g.isa), reps, loss,
           (double)rx__netws_bytes(ws) / (1 << 20));
    printf("step: best %.3f us  median %.3f us  (%.0f / %.0f examples/s)\n",
           best * 1e6, med * 1e6, batch / best, batch / med);
    printf("model: %.2f MFLOP/step, best %.2f GFLOP/s, median %.2f "
           "GFLOP/s\n", fl * 1e-6, fl / best * 1e-9, fl / med * 1e-9);
    printf("sgemm %dx%dx%d single-thread peak: %.2f GFLOP/s; model at "
           "%.0f %% (best) / %.0f %% (median) of it\n", peak_n, peak_n,
           peak_n, peak, 100.0 * fl / best * 1e-9 / peak,
           100.0 * fl / med * 1e-9 / peak);
    printf("thread CPU time: step best %.3f us median %.3f us, %.2f / %.2f "
           "GFLOP/s; sgemm peak %.2f GFLOP/s, model at %.0f %% (best)\n",
           bestc * 1e6, medc * 1e6, fl / bestc * 1e-9, fl / medc * 1e-9,
           peak_cpu, 100.0 * fl / bestc * 1e-9 / peak_cpu);
    if (prof)
        profile(net, ws, w, x, g, cnn ? 10 : 2000);
    free(ts);
    free(tc);
    rx__free_aligned(w);
    rx__free_aligned(g);
    rx__free_aligned(x);
    rx__free_aligned(y);
    rx__netws_destroy(&ws);
    rx__net_destroy(&net);
    return 0;
}
