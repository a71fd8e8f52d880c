/*
 * Small matrix products on several threads (docs/performance.md, "Small
 * matrix products"): the UCI MLP's loss + gradient (13-50-1, batch 32, as
 * yaml/uci_boston.yaml) called back to back, once on one thread and then
 * on two threads at once (each with its own workspace, pinned to CPUs 0
 * and 1), under model.gemm blas (every product to cblas_sgemm) and auto
 * (replex's own loops for small products). Prints microseconds per call,
 * per thread, for ROUNDS rounds with the settings interleaved.
 * Usage: gemm_threads [-n ROUNDS] [-k CALLS]   (Linux: pthread affinity)
 */
#define _GNU_SOURCE
#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench_nets.h"

enum { NB = 32 };

typedef struct job {
    const rx__net *net;
    int cpu, calls;
    double us;
} job;

static void *worker(void *arg)
{
    job *j = arg;
#if defined(__linux__)
    cpu_set_t m;
    CPU_ZERO(&m);
    CPU_SET(j->cpu, &m);
    pthread_setaffinity_np(pthread_self(), sizeof m, &m);
#endif
    rx__netws *ws = rx__netws_create(j->net, NB, 1);
    const size_t d = rx__net_nparams(j->net), D = rx__net_in_dim(j->net);
    float *w = rx__alloc_aligned(sizeof(float) * d, 64);
    float *g = rx__alloc_aligned(sizeof(float) * d, 64);
    float *x = rx__alloc_aligned(sizeof(float) * D * NB, 64);
    float *y = rx__alloc_aligned(sizeof(float) * NB, 64);
    j->us = -1.0;
    if (ws && w && g && x && y) {
        rxb_inputs(j->net, 0, NB, w, x, y);
        double loss;
        for (int r = 0; r < 200; ++r)
            rx__net_loss_grad(j->net, ws, w, x, y, NB, 1.0, &loss, g, NULL);
        double t = rx__now();
        for (int r = 0; r < j->calls; ++r)
            rx__net_loss_grad(j->net, ws, w, x, y, NB, 1.0, &loss, g, NULL);
        j->us = (rx__now() - t) / j->calls * 1e6;
    }
    rx__free_aligned(w), rx__free_aligned(g), rx__free_aligned(x);
    rx__free_aligned(y);
    rx__netws_destroy(&ws);
    return NULL;
}

int main(int argc, char **argv)
{
    int rounds = 5, calls = 20000;
    for (int a = 1; a < argc; ++a) {
        if (!strcmp(argv[a], "-n") && a + 1 < argc)
            rounds = atoi(argv[++a]);
        else if (!strcmp(argv[a], "-k") && a + 1 < argc)
            calls = atoi(argv[++a]);
        else {
            fprintf(stderr, "usage: %s [-n ROUNDS] [-k CALLS]\n", argv[0]);
            return 2;
        }
    }
    if (rounds < 1 || calls < 1)
        return 2;
    rx__blas_set_threads(1);
    rx__net *net[2] = {NULL, NULL};
    for (int m = 0; m < 2; ++m) {
        rx__netspec sp = rxb_spec(0, RX_CONV_AUTO);
        sp.gemm = m ? RX_GEMM_AUTO : RX_GEMM_BLAS;
        rx_err err = {{0}};
        if (rx__net_create(&net[m], &sp, &err) != RX_OK) {
            fprintf(stderr, "%s\n", err.msg);
            return 1;
        }
    }
    printf("MLP 13-50-1 loss + gradient, batch %d, %d calls: us per call\n\n"
           "| round | gemm | 1 thread | 2 threads (CPU 0, CPU 1) |\n"
           "|---:|:---|---:|---:|\n", NB, calls);
    for (int r = 1; r <= rounds; ++r)
        for (int m = 0; m < 2; ++m) {
            job one = {net[m], 0, calls, 0.0};
            pthread_t t0, t1;
            pthread_create(&t0, NULL, worker, &one);
            pthread_join(t0, NULL);
            job a = {net[m], 0, calls, 0.0}, b = {net[m], 1, calls, 0.0};
            pthread_create(&t0, NULL, worker, &a);
            pthread_create(&t1, NULL, worker, &b);
            pthread_join(t0, NULL);
            pthread_join(t1, NULL);
            printf("| %d | %s | %.2f | %.2f, %.2f |\n", r, m ? "auto" : "blas",
                   one.us, a.us, b.us);
        }
    rx__net_destroy(&net[0]);
    rx__net_destroy(&net[1]);
    return 0;
}
