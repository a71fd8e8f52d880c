/*
 * A/B of two conv configurations of the MNIST CNN (batch 100, one thread)
 * in ONE process: two nets, their steps alternating, thread CPU time per
 * step. On a VM whose speed drifts by tens of percent within a minute,
 * the per-pair win count is the robust figure.
 *
 *   conv_ab [--a METHOD] [--b METHOD] [--tg-b TILES] [--reps R]
 *
 * METHOD: auto | im2col | winograd | direct (model.conv). --tg-b sets the
 * Winograd tiles per GEMM group of net B (default: the library's choice).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../src/model/ops.h"
#include "bench_nets.h"
#include "bench_util.h"

static int method(const char *s)
{
    return !strcmp(s, "im2col")     ? RX_CONV_IM2COL
           : !strcmp(s, "winograd") ? RX_CONV_WINOGRAD
           : !strcmp(s, "direct")   ? RX_CONV_DIRECT
           : !strcmp(s, "auto")     ? RX_CONV_AUTO
                                    : -1;
}

int main(int argc, char **argv)
{
    int ma = RX_CONV_AUTO, mb = RX_CONV_AUTO, tgb = 0, reps = 15;
    for (int a = 1; a < argc; ++a) {
        if (!strcmp(argv[a], "--a") && a + 1 < argc)
            ma = method(argv[++a]);
        else if (!strcmp(argv[a], "--b") && a + 1 < argc)
            mb = method(argv[++a]);
        else if (!strcmp(argv[a], "--tg-b") && a + 1 < argc)
            tgb = atoi(argv[++a]);
        else if (!strcmp(argv[a], "--reps") && a + 1 < argc)
            reps = atoi(argv[++a]);
        else
            ma = -1;
    }
    if (ma < 0 || mb < 0 || reps < 1 || reps > 1000 || tgb < 0) {
        fprintf(stderr, "usage: %s [--a auto|im2col|winograd|direct] [--b "
                "...] [--tg-b TILES] [--reps R]\n", argv[0]);
        return 2;
    }
    const rx__netspec sa = rxb_spec(1, (rx__conv_algo)ma);
    const rx__netspec sb = rxb_spec(1, (rx__conv_algo)mb);
    rx_err err = {{0}};
    rx__net *na = NULL, *nb = NULL;
    if (rx__net_create(&na, &sa, &err) != RX_OK ||
        rx__net_create(&nb, &sb, &err) != RX_OK) {
        fprintf(stderr, "%s\n", err.msg);
        return 1;
    }
    for (int j = 0; j < nb->n_ops && tgb; ++j)
        if (nb->ops[j].algo == RX_CONV_WINOGRAD)
            nb->ops[j].tg = tgb;
    rx__blas_set_threads(1);
    const int n = 100;
    rx__netws *wa = rx__netws_create(na, n, 1), *wb = rx__netws_create(nb, n, 1);
    const size_t d = rx__net_nparams(na), D = rx__net_in_dim(na);
    float *w = malloc(sizeof(float) * d), *g = malloc(sizeof(float) * d);
    float *x = malloc(sizeof(float) * D * n), *y = malloc(sizeof(float) * n);
    double *ta = malloc(sizeof(double) * reps), *tb = malloc(sizeof(double) * reps);
    if (!wa || !wb || !w || !g || !x || !y || !ta || !tb)
        return 1;
    rxb_inputs(na, 1, n, w, x, y);
    rxb_ab ctx = {{na, nb}, {wa, wb}, NULL, w, x, y, g, n, {0, 0}};
    const int wins = rxb_ab_pairs(rxb_ab_step, &ctx, reps, ta, tb);
    const double la = ctx.loss[0], lb = ctx.loss[1];
    printf("A: best %.1f median %.1f ms | B: best %.1f median %.1f ms | A "
           "faster in %d of %d pairs | loss A %.6g B %.6g\n", ta[0] * 1e3,
           ta[reps / 2] * 1e3, tb[0] * 1e3, tb[reps / 2] * 1e3, wins, reps,
           la, lb);
    free(ta), free(tb), free(w), free(g), free(x), free(y);
    rx__netws_destroy(&wa);
    rx__netws_destroy(&wb);
    rx__net_destroy(&na);
    rx__net_destroy(&nb);
    return 0;
}
