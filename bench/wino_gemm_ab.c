/*
 * A/B of the Winograd position GEMMs (forward M = U V and dV = U^T dM):
 * the register-blocked kernel of src/model/winograd.c against
 * cblas_sgemm, in ONE process, steps alternating (the MNIST CNN, batch
 * 100, one thread, thread CPU time). Built by bench/wino_gemm_ab.sh, which
 * compiles winograd.c with RX__WINO_OWN_GEMM bound to the flag below.
 */
#include <stdio.h>
#include <stdlib.h>

#include "../src/model/ops.h"
#include "bench_nets.h"
#include "bench_util.h"

int rxb_own_gemm = 1;

int main(int argc, char **argv)
{
    const int reps = argc > 1 ? atoi(argv[1]) : 15;
    if (reps < 1 || reps > 1000)
        return 2;
    rx__netspec sp = rxb_spec(1, RX_CONV_AUTO);
    rx_err err = {{0}};
    rx__net *net = NULL;
    if (rx__net_create(&net, &sp, &err) != RX_OK)
        return 1;
    rx__blas_set_threads(1);
    const int n = 100;
    rx__netws *ws = rx__netws_create(net, n, 1);
    const size_t d = rx__net_nparams(net), D = rx__net_in_dim(net);
    float *w = malloc(sizeof(float) * d), *g = malloc(sizeof(float) * d);
    float *x = malloc(sizeof(float) * D * n), *y = malloc(sizeof(float) * n);
    double *ta = malloc(sizeof(double) * reps), *tb = malloc(sizeof(double) * reps);
    if (!ws || !w || !g || !x || !y || !ta || !tb)
        return 1;
    rxb_inputs(net, 1, n, w, x, y);
    /* side 0: the own kernel (flag 1), side 1: cblas_sgemm */
    rxb_ab ctx = {{net, net}, {ws, ws}, &rxb_own_gemm, w, x, y, g, n, {0, 0}};
    const int wins = rxb_ab_pairs(rxb_ab_step, &ctx, reps, ta, tb);
    const double la = ctx.loss[0], lb = ctx.loss[1];
    printf("own kernel: median %.1f ms | cblas_sgemm: median %.1f ms | own "
           "faster in %d of %d pairs | loss %.6f vs %.6f\n",
           ta[reps / 2] * 1e3, tb[reps / 2] * 1e3, wins, reps, la, lb);
    return 0;
}
