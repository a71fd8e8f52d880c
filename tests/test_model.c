/*
 * Network models (src/model/): every layer and both likelihoods against a
 * double-precision reference forward written here (plain NCHW loops, no
 * code shared with the library), gradients against central differences
 * of that reference, the BLAS path against the plain-C reference path,
 * concurrent pthreads against serial calls (bitwise), shape errors naming
 * the layer, the lstm layer and the paper's RNN (lstm_checks), and a small
 * MLP trained by SGD to the noise level.
 */
#include <dirent.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "../src/model/gemm.h"
#include "../src/model/pgemm.h"
#include "check.h"

#ifndef M_PI
#define M_PI 3.14159265358979323846
#endif

/* ---- double-precision reference forward --------------------------------*/

/* Loss of example x (NCHW) with target y under parameters w (double). */
static double ref_loss(const rx__netspec *sp, const double *w, size_t nw,
                       const float *x, float y)
{
    enum { CAP = 4096 };
    double a[CAP], b[CAP];
    int c = sp->in_c, h = sp->in_h, wd = sp->in_w;
    for (int j = 0; j < c * h * wd; ++j)
        a[j] = x[j];
    size_t off = 0;
    for (int li = 0; li < sp->n_layers; ++li) {
        const rx__layerspec *L = &sp->layers[li];
        switch (L->kind) {
        case RX_LAYER_DENSE: {
            const int F = c * h * wd, U = L->units;
            const double *W = w + off, *bias = w + off + (size_t)F * U;
            for (int u = 0; u < U; ++u) {
                double s = bias[u];
                for (int f = 0; f < F; ++f)
                    s += a[f] * W[(size_t)f * U + u];
                b[u] = s;
            }
            off += (size_t)F * U + U;
            c = 1, h = 1, wd = U;
            break;
        }
        case RX_LAYER_CONV2D: {
            const int k = L->ksize, s = L->stride ? L->stride : 1,
                      p = L->pad, co = L->filters;
            const int oh = (h + 2 * p - k) / s + 1;
            const int ow = (wd + 2 * p - k) / s + 1;
            const double *W = w + off, *bias = w + off + (size_t)co * c * k * k;
            for (int o = 0; o < co; ++o)
                for (int yy = 0; yy < oh; ++yy)
                    for (int xx = 0; xx < ow; ++xx) {
                        double t = bias[o];
                        for (int ci = 0; ci < c; ++ci)
                            for (int kh = 0; kh < k; ++kh)
                                for (int kw = 0; kw < k; ++kw) {
                                    const int iy = yy * s - p + kh,
                                              ix = xx * s - p + kw;
                                    if (iy < 0 || iy >= h || ix < 0 || ix >= wd)
                                        continue;
                                    t += W[((o * c + ci) * k + kh) * k + kw] *
                                         a[(ci * h + iy) * wd + ix];
                                }
                        b[(o * oh + yy) * ow + xx] = t;
                    }
            off += (size_t)co * c * k * k + co;
            c = co, h = oh, wd = ow;
            break;
        }
        case RX_LAYER_MAXPOOL: {
            const int k = L->ksize, s = L->stride ? L->stride : k;
            const int oh = (h - k) / s + 1, ow = (wd - k) / s + 1;
            for (int ci = 0; ci < c; ++ci)
                for (int yy = 0; yy < oh; ++yy)
                    for (int xx = 0; xx < ow; ++xx) {
                        double m = -1e300;
                        for (int ky = 0; ky < k; ++ky)
                            for (int kx = 0; kx < k; ++kx) {
                                double v = a[(ci * h + yy * s + ky) * wd +
                                             xx * s + kx];
                                if (v > m)
                                    m = v;
                            }
                        b[(ci * oh + yy) * ow + xx] = m;
                    }
            h = oh, wd = ow;
            break;
        }
        case RX_LAYER_RELU:
            for (int j = 0; j < c * h * wd; ++j)
                b[j] = a[j] > 0 ? a[j] : 0;
            break;
        case RX_LAYER_TANH:
            for (int j = 0; j < c * h * wd; ++j)
                b[j] = tanh(a[j]);
            break;
        case RX_LAYER_FLATTEN:
            for (int j = 0; j < c * h * wd; ++j)
                b[j] = a[j];
            wd = c * h * wd, c = h = 1;
            break;
        case RX_LAYER_LSTM: { /* PyTorch's nn.LSTM equations, step by step */
            enum { HMAX = 256 };
            const int T = h, F = wd, H = L->units, G = 4 * H;
            const double *Wx = w + off, *Wh = Wx + (size_t)F * G,
                         *bias = Wh + (size_t)H * G;
            double hs[HMAX] = {0}, cs[HMAX] = {0}, z[4 * HMAX];
            for (int t = 0; t < T; ++t) {
                for (int q = 0; q < G; ++q) {
                    double v = bias[q];
                    for (int f = 0; f < F; ++f)
                        v += a[t * F + f] * Wx[(size_t)f * G + q];
                    for (int k = 0; k < H; ++k)
                        v += hs[k] * Wh[(size_t)k * G + q];
                    z[q] = v;
                }
                for (int j = 0; j < H; ++j) {
                    const double ig = 1 / (1 + exp(-z[j]));
                    const double fg = 1 / (1 + exp(-z[H + j]));
                    const double gg = tanh(z[2 * H + j]);
                    const double og = 1 / (1 + exp(-z[3 * H + j]));
                    cs[j] = fg * cs[j] + ig * gg;
                    hs[j] = og * tanh(cs[j]);
                }
            }
            for (int j = 0; j < H; ++j)
                b[j] = hs[j];
            off += (size_t)(F + H) * G + G;
            c = 1, h = 1, wd = H;
            break;
        }
        }
        memcpy(a, b, sizeof(double) * (size_t)(c * h * wd));
    }
    const int C = sp->n_out;
    if (sp->lik == RX_LIK_SOFTMAX) {
        double m = a[0], se = 0;
        for (int j = 1; j < C; ++j)
            if (a[j] > m)
                m = a[j];
        for (int j = 0; j < C; ++j)
            se += exp(a[j] - m);
        return m + log(se) - a[(int)y];
    }
    const double r = a[0] - y;
    const double rho = sp->learn_precision ? w[nw - 1] : -log(sp->noise_var);
    return 0.5 * exp(rho) * r * r - 0.5 * rho + 0.5 * log(2 * M_PI);
}

static double ref_sum(const rx__netspec *sp, const double *w, size_t nw,
                      const float *x, const float *y, int n, size_t D)
{
    double s = 0;
    for (int i = 0; i < n; ++i)
        s += ref_loss(sp, w, nw, x + (size_t)i * D, y[i]);
    return s;
}

/* ---- random nets -------------------------------------------------------*/

typedef struct tcase {
    rx__netspec spec;
    rx__layerspec L[16];
} tcase;

static int ri(rx__stream *s, int lo, int hi)
{
    return lo + (int)rx__uniform_int(s, (uint64_t)(hi - lo + 1));
}

static void add(tcase *t, rx__layer_kind k, int units, int filters, int ks,
                int stride, int pad)
{
    rx__layerspec *L = &t->L[t->spec.n_layers++];
    memset(L, 0, sizeof *L);
    L->kind = k, L->units = units, L->filters = filters, L->ksize = ks;
    L->stride = stride, L->pad = pad;
}

/* Template `kind` with random sizes drawn from s. */
static void make_case(tcase *t, int kind, rx__stream *s)
{
    memset(t, 0, sizeof *t);
    rx__netspec *sp = &t->spec;
    sp->layers = t->L;
    switch (kind) {
    case 0: /* MLP, tanh and relu, gaussian fixed noise */
        sp->in_c = 1, sp->in_h = 1, sp->in_w = ri(s, 2, 7);
        add(t, RX_LAYER_DENSE, ri(s, 3, 9), 0, 0, 0, 0);
        add(t, RX_LAYER_TANH, 0, 0, 0, 0, 0);
        add(t, RX_LAYER_DENSE, ri(s, 2, 8), 0, 0, 0, 0);
        add(t, RX_LAYER_RELU, 0, 0, 0, 0, 0);
        add(t, RX_LAYER_DENSE, 1, 0, 0, 0, 0);
        sp->lik = RX_LIK_GAUSSIAN, sp->n_out = 1, sp->noise_var = 0.3;
        break;
    case 1: /* MLP, learned precision */
        sp->in_c = 1, sp->in_h = 1, sp->in_w = ri(s, 1, 6);
        add(t, RX_LAYER_DENSE, ri(s, 2, 10), 0, 0, 0, 0);
        add(t, RX_LAYER_RELU, 0, 0, 0, 0, 0);
        add(t, RX_LAYER_DENSE, 1, 0, 0, 0, 0);
        sp->lik = RX_LIK_GAUSSIAN, sp->n_out = 1, sp->noise_var = 0.5;
        sp->learn_precision = 1;
        break;
    case 2: { /* CNN, multi-channel input (layout change), pad, stride */
        sp->in_c = ri(s, 2, 3), sp->in_h = ri(s, 6, 8), sp->in_w = ri(s, 5, 8);
        add(t, RX_LAYER_CONV2D, 0, ri(s, 2, 4), 3, 1, 1);
        add(t, RX_LAYER_RELU, 0, 0, 0, 0, 0);
        add(t, RX_LAYER_MAXPOOL, 0, 0, 2, 2, 0);
        add(t, RX_LAYER_CONV2D, 0, ri(s, 2, 4), 2, 2, 1);
        add(t, RX_LAYER_TANH, 0, 0, 0, 0, 0);
        add(t, RX_LAYER_FLATTEN, 0, 0, 0, 0, 0);
        add(t, RX_LAYER_DENSE, ri(s, 3, 6), 0, 0, 0, 0);
        add(t, RX_LAYER_RELU, 0, 0, 0, 0, 0);
        sp->n_out = ri(s, 2, 4);
        add(t, RX_LAYER_DENSE, sp->n_out, 0, 0, 0, 0);
        sp->lik = RX_LIK_SOFTMAX;
        break;
    }
    case 3: /* 1 channel; overlapping pool 3/2; stride-2 conv without pad;
               conv straight into dense (implicit flatten); relu->tanh */
        sp->in_c = 1, sp->in_h = ri(s, 8, 10), sp->in_w = ri(s, 8, 10);
        add(t, RX_LAYER_CONV2D, 0, ri(s, 2, 3), ri(s, 2, 3), 2, 0);
        add(t, RX_LAYER_RELU, 0, 0, 0, 0, 0);
        add(t, RX_LAYER_TANH, 0, 0, 0, 0, 0);
        add(t, RX_LAYER_MAXPOOL, 0, 0, 3, 2, 0);
        add(t, RX_LAYER_CONV2D, 0, ri(s, 2, 3), 1, 1, 0);
        add(t, RX_LAYER_DENSE, 1, 0, 0, 0, 0);
        sp->lik = RX_LIK_GAUSSIAN, sp->n_out = 1, sp->noise_var = 0.7;
        sp->learn_precision = 1;
        break;
    case 5: /* rows wider than one 16-float vector (im2col/col2im) */
        sp->in_c = 1, sp->in_h = ri(s, 17, 19), sp->in_w = ri(s, 17, 35);
        add(t, RX_LAYER_CONV2D, 0, 2, 3, 1, 1);
        add(t, RX_LAYER_RELU, 0, 0, 0, 0, 0);
        add(t, RX_LAYER_MAXPOOL, 0, 0, 2, 2, 0);
        add(t, RX_LAYER_CONV2D, 0, 2, ri(s, 1, 3), 1, ri(s, 0, 1));
        add(t, RX_LAYER_TANH, 0, 0, 0, 0, 0);
        sp->n_out = 2;
        add(t, RX_LAYER_DENSE, 2, 0, 0, 0, 0);
        sp->lik = RX_LIK_SOFTMAX;
        break;
    case 6: /* wide enough for Winograd under auto (c >= 8, k 3..5),
               outputs not a multiple of the tile, pad 0 .. k/2 */
        sp->in_c = 1, sp->in_h = ri(s, 7, 10), sp->in_w = ri(s, 7, 11);
        add(t, RX_LAYER_CONV2D, 0, ri(s, RX__WINO_MIN_C, 10), 3, 1, 1);
        add(t, RX_LAYER_RELU, 0, 0, 0, 0, 0);
        {
            const int k = ri(s, 3, 5);
            add(t, RX_LAYER_CONV2D, 0, ri(s, 2, 4), k, 1, ri(s, 0, k / 2));
        }
        add(t, RX_LAYER_TANH, 0, 0, 0, 0, 0);
        sp->n_out = 3;
        add(t, RX_LAYER_DENSE, 3, 0, 0, 0, 0);
        sp->lik = RX_LIK_SOFTMAX;
        break;
    case 7: /* lstm over the rows of an image, the paper's head */
        sp->in_c = 1, sp->in_h = ri(s, 2, 6), sp->in_w = ri(s, 1, 5);
        add(t, RX_LAYER_LSTM, ri(s, 1, 6), 0, 0, 0, 0);
        add(t, RX_LAYER_RELU, 0, 0, 0, 0, 0);
        add(t, RX_LAYER_DENSE, ri(s, 2, 5), 0, 0, 0, 0);
        add(t, RX_LAYER_RELU, 0, 0, 0, 0, 0);
        sp->n_out = ri(s, 2, 4);
        add(t, RX_LAYER_DENSE, sp->n_out, 0, 0, 0, 0);
        sp->lik = RX_LIK_SOFTMAX;
        break;
    case 8: /* a one-filter conv before the lstm: its input gradient over
               several steps; the lstm's output straight into dense */
        sp->in_c = 1, sp->in_h = ri(s, 3, 6), sp->in_w = ri(s, 3, 6);
        add(t, RX_LAYER_CONV2D, 0, 1, 3, 1, 1);
        add(t, RX_LAYER_TANH, 0, 0, 0, 0, 0);
        add(t, RX_LAYER_LSTM, ri(s, 2, 5), 0, 0, 0, 0);
        add(t, RX_LAYER_DENSE, 1, 0, 0, 0, 0);
        sp->lik = RX_LIK_GAUSSIAN, sp->n_out = 1, sp->noise_var = 0.4;
        break;
    case 9: /* dense then a one-step lstm (a vector input), then another
               lstm on its state, tanh */
        sp->in_c = 1, sp->in_h = 1, sp->in_w = ri(s, 2, 5);
        add(t, RX_LAYER_DENSE, ri(s, 2, 6), 0, 0, 0, 0);
        add(t, RX_LAYER_LSTM, ri(s, 2, 5), 0, 0, 0, 0);
        add(t, RX_LAYER_LSTM, ri(s, 1, 4), 0, 0, 0, 0);
        add(t, RX_LAYER_TANH, 0, 0, 0, 0, 0);
        sp->n_out = 3;
        add(t, RX_LAYER_DENSE, 3, 0, 0, 0, 0);
        sp->lik = RX_LIK_SOFTMAX;
        break;
    default: /* tanh -> relu on the input, pool then activation, softmax */
        sp->in_c = 2, sp->in_h = 6, sp->in_w = 6;
        add(t, RX_LAYER_TANH, 0, 0, 0, 0, 0);
        add(t, RX_LAYER_RELU, 0, 0, 0, 0, 0);
        add(t, RX_LAYER_CONV2D, 0, ri(s, 1, 3), 3, 1, 2);
        add(t, RX_LAYER_MAXPOOL, 0, 0, 2, 0, 0);
        add(t, RX_LAYER_TANH, 0, 0, 0, 0, 0);
        add(t, RX_LAYER_FLATTEN, 0, 0, 0, 0, 0);
        sp->n_out = 3;
        add(t, RX_LAYER_DENSE, 3, 0, 0, 0, 0);
        sp->lik = RX_LIK_SOFTMAX;
        break;
    }
}

/* Random inputs, targets and (initialised, then jittered) parameters. */
static void fill(const rx__net *net, const rx__netspec *sp, float *w,
                 float *x, float *y, int n, rx__stream *s)
{
    const size_t d = rx__net_nparams(net), D = rx__net_in_dim(net);
    rx__net_init_params(net, w, s);
    for (size_t j = 0; j < d; ++j)
        w[j] += (float)(0.2 * rx__normal(s));
    for (size_t j = 0; j < D * (size_t)n; ++j)
        x[j] = (float)rx__normal(s);
    for (int i = 0; i < n; ++i)
        y[i] = sp->lik == RX_LIK_SOFTMAX
                   ? (float)rx__uniform_int(s, (uint64_t)sp->n_out)
                   : (float)rx__normal(s);
}

/* ---- 1. forward and gradient against the double reference -------------*/

static double worst_grad_err;
static int total_kinks;

static void check_case(const tcase *t, int use_blas, int chunk_cap,
                       rx__stream *s)
{
    rx_err err = {{0}};
    rx__net *net = NULL;
    rx_status st = rx__net_create(&net, &t->spec, &err);
    CHECK_MSG(st == RX_OK, "%s", err.msg);
    if (st != RX_OK)
        return;
    const int n = ri(s, 1, 5);
    rx__netws *ws = rx__netws_create(net, n + 2, use_blas);
    ws->chunk_cap = chunk_cap;
    if (chunk_cap) /* passes of chunk_cap examples, gradients accumulated */
        ws->micro = chunk_cap;
    const size_t d = rx__net_nparams(net), D = rx__net_in_dim(net);
    float *w = malloc(sizeof(float) * d), *g = malloc(sizeof(float) * d);
    float *x = malloc(sizeof(float) * D * (size_t)n);
    float y[8];
    double *wd = malloc(sizeof(double) * d), pe[8];
    fill(net, &t->spec, w, x, y, n, s);
    const double scale = 1.0 + rx__uniform(s);
    double loss = 0;
    st = rx__net_loss_grad(net, ws, w, x, y, n, scale, &loss, g, pe);
    CHECK_MSG(st == RX_OK, "%s", rx__netws_errmsg(ws));

    for (size_t j = 0; j < d; ++j)
        wd[j] = w[j];
    const double lref = ref_sum(&t->spec, wd, d, x, y, n, D);
    CHECK_MSG(fabs(loss - lref) <= 1e-5 * (fabs(lref) + 1.0),
              "loss %.10g vs double reference %.10g", loss, lref);
    double spe = 0;
    for (int i = 0; i < n; ++i)
        spe += pe[i];
    CHECK_NEAR(spe, loss, 1e-9 * (fabs(loss) + 1));

    /* central differences in double on up to 200 coordinates (all when
     * fewer), always including the last one (rho, or the last bias) */
    const double eps = 1e-6;
    double *fd = malloc(sizeof(double) * d), fdmax = 0;
    size_t *idx = malloc(sizeof(size_t) * d), m = 0;
    for (size_t j = 0; j < d; ++j)
        if (d <= 200 || j == d - 1 || rx__uniform(s) < 200.0 / (double)d)
            idx[m++] = j;
    for (size_t q = 0; q < m; ++q) {
        const size_t j = idx[q];
        const double w0 = wd[j];
        wd[j] = w0 + eps;
        const double lp = ref_sum(&t->spec, wd, d, x, y, n, D);
        wd[j] = w0 - eps;
        const double lm = ref_sum(&t->spec, wd, d, x, y, n, D);
        wd[j] = w0;
        fd[q] = scale * (lp - lm) / (2 * eps);
        if (fabs(fd[q]) > fdmax)
            fdmax = fabs(fd[q]);
    }
    /* relative error, with a floor of 1 % of the largest component for
     * components that cancel to near zero (float rounding dominates).
     * ReLU and max-pooling make the loss piecewise smooth: where the step
     * eps straddles a kink (a pooling tie or a ReLU input within ~eps of
     * zero), the central difference averages two slopes. Such a component
     * is judged on a 1e-9 step instead, and only if the one-sided
     * differences on the 1e-6 step disagree (the kink is confirmed); at
     * most 5 % of the checked components may be such kinks. */
    int bad = 0, kinks = 0;
    for (size_t q = 0; q < m; ++q) {
        const double den = fmax(fabs(fd[q]), 1e-2 * fdmax);
        double e = fabs(g[idx[q]] - fd[q]) / (den > 0 ? den : 1);
        if (e >= 1e-3) {
            const size_t j = idx[q];
            const double w0 = wd[j], l0 = ref_sum(&t->spec, wd, d, x, y, n, D);
            double f[4]; /* l(w0 + h) for h = eps, -eps, 1e-9, -1e-9 */
            const double hs[4] = {eps, -eps, 1e-9, -1e-9};
            for (int h = 0; h < 4; ++h) {
                wd[j] = w0 + hs[h];
                f[h] = ref_sum(&t->spec, wd, d, x, y, n, D);
            }
            wd[j] = w0;
            const double right = scale * (f[0] - l0) / eps;
            const double left = scale * (l0 - f[1]) / eps;
            const double fine = scale * (f[2] - f[3]) / 2e-9;
            const double e2 = fabs(g[j] - fine) / (den > 0 ? den : 1);
            if (fabs(right - left) >= 1e-3 * den && e2 < 1e-3) {
                ++kinks;
                e = e2;
            }
        }
        if (e > worst_grad_err)
            worst_grad_err = e;
        if (e >= 1e-3 && bad++ < 3)
            fprintf(stderr, "  param %zu of %zu: grad %.8g, central "
                    "difference %.8g (rel %.2e)\n", idx[q], d,
                    (double)g[idx[q]], fd[q], e);
    }
    total_kinks += kinks;
    CHECK_MSG(20 * kinks <= (int)m, "%d of %zu components at kinks", kinks,
              m);
    CHECK_MSG(bad == 0, "%d of %zu gradient components off (blas %d, conv "
              "%d, chunk cap %d, %d layers, %zu params)", bad, m, use_blas,
              (int)t->spec.conv, chunk_cap, t->spec.n_layers, d);

    /* predict: the reference's outputs through the loss identity */
    float *out = malloc(sizeof(float) * (size_t)n * t->spec.n_out);
    st = rx__net_predict(net, ws, w, x, n, out);
    CHECK(st == RX_OK);
    for (int i = 0; i < n && st == RX_OK; ++i) {
        if (t->spec.lik == RX_LIK_SOFTMAX) {
            double sum = 0;
            for (int c = 0; c < t->spec.n_out; ++c)
                sum += out[i * t->spec.n_out + c];
            CHECK_NEAR(sum, 1.0, 1e-5);
            /* -log p_y is the example's loss */
            CHECK_NEAR(-log(out[i * t->spec.n_out + (int)y[i]]), pe[i],
                       1e-4 * (1 + pe[i]));
        } else {
            const double rho = t->spec.learn_precision
                                   ? wd[d - 1] : -log(t->spec.noise_var);
            const double r = out[i] - y[i];
            CHECK_NEAR(0.5 * exp(rho) * r * r - 0.5 * rho +
                           0.5 * log(2 * M_PI), pe[i], 1e-4 * (1 + pe[i]));
        }
    }
    free(out);
    free(fd);
    free(idx);
    free(w);
    free(g);
    free(x);
    free(wd);
    rx__netws_destroy(&ws);
    rx__net_destroy(&net);
}

/* ---- 2. BLAS path against the reference path --------------------------*/

static const rx__layerspec mnist_layers[] = {
    {RX_LAYER_CONV2D, 0, 32, 5, 1, 2}, {RX_LAYER_RELU, 0, 0, 0, 0, 0},
    {RX_LAYER_MAXPOOL, 0, 0, 2, 2, 0}, {RX_LAYER_CONV2D, 0, 64, 5, 1, 2},
    {RX_LAYER_RELU, 0, 0, 0, 0, 0},    {RX_LAYER_MAXPOOL, 0, 0, 2, 2, 0},
    {RX_LAYER_FLATTEN, 0, 0, 0, 0, 0}, {RX_LAYER_DENSE, 50, 0, 0, 0, 0},
    {RX_LAYER_RELU, 0, 0, 0, 0, 0},    {RX_LAYER_DENSE, 10, 0, 0, 0, 0}};
static const rx__layerspec mlp_layers[] = {
    {RX_LAYER_DENSE, 50, 0, 0, 0, 0}, {RX_LAYER_RELU, 0, 0, 0, 0, 0},
    {RX_LAYER_DENSE, 1, 0, 0, 0, 0}};

static rx__netspec mnist_spec(void)
{
    rx__netspec sp;
    memset(&sp, 0, sizeof sp);
    sp.in_c = 1, sp.in_h = 28, sp.in_w = 28;
    sp.n_layers = 10, sp.layers = mnist_layers;
    sp.lik = RX_LIK_SOFTMAX, sp.n_out = 10;
    return sp;
}

static rx__netspec mlp_spec(int D)
{
    rx__netspec sp;
    memset(&sp, 0, sizeof sp);
    sp.in_c = 1, sp.in_h = 1, sp.in_w = D;
    sp.n_layers = 3, sp.layers = mlp_layers;
    sp.lik = RX_LIK_GAUSSIAN, sp.n_out = 1, sp.noise_var = 1.0;
    return sp;
}

/*
 * Both paths sum the same products in float, in different orders (OpenBLAS
 * blocks K and uses FMA; the reference adds in k order). The rounding
 * error of a sum of K products is at most about K * 2^-24 times the sum of
 * their magnitudes, and ~sqrt(K) times that in practice. Here K is up to
 * 800 (conv2 forward) and 6 x 784 (conv1 weight gradient), and the
 * measured differences are 1e-7 .. 2e-5 of the largest gradient component.
 * A mapping error (a wrong transpose, stride or offset) changes components
 * by O(1). Tolerance: every component within 1e-4 of the largest one, the
 * loss within 1e-5 relative.
 */
static void compare_paths(const rx__netspec *sa, int blas_a,
                          const rx__netspec *sb, int blas_b, int n,
                          int chunk_cap, double loss_tol, double grad_tol,
                          const char *what)
{
    rx_err err = {{0}};
    rx__net *na = NULL, *nb = NULL;
    CHECK(rx__net_create(&na, sa, &err) == RX_OK);
    CHECK(rx__net_create(&nb, sb, &err) == RX_OK);
    rx__netws *wb = rx__netws_create(na, n, blas_a);
    rx__netws *wr = rx__netws_create(nb, n, blas_b);
    wb->chunk_cap = chunk_cap;
    if (chunk_cap)
        wb->micro = chunk_cap;
    const size_t d = rx__net_nparams(na), D = rx__net_in_dim(na);
    CHECK(rx__net_nparams(nb) == d);
    float *w = malloc(sizeof(float) * d), *gb = malloc(sizeof(float) * d),
          *gr = malloc(sizeof(float) * d), *x = malloc(sizeof(float) * D * n),
          *y = malloc(sizeof(float) * n);
    rx__stream s;
    rx__stream_init(&s, 7, 0, RX_STREAM_MODELINIT, (uint64_t)n);
    fill(na, sa, w, x, y, n, &s);
    double lb = 0, lr = 0;
    CHECK(rx__net_loss_grad(na, wb, w, x, y, n, 3.0, &lb, gb, NULL) == RX_OK);
    CHECK(rx__net_loss_grad(nb, wr, w, x, y, n, 3.0, &lr, gr, NULL) == RX_OK);
    double gmax = 0, dmax = 0;
    for (size_t j = 0; j < d; ++j) {
        gmax = fmax(gmax, fabs(gr[j]));
        dmax = fmax(dmax, fabs(gb[j] - gr[j]));
    }
    printf("%s: loss %.9g vs %.9g (rel %.1e), max grad diff %.2e of max "
           "%.3g (rel %.1e)\n", what, lb, lr, fabs(lb - lr) / fabs(lr), dmax,
           gmax, dmax / gmax);
    CHECK(fabs(lb - lr) <= loss_tol * fabs(lr));
    CHECK(gmax > 0 && dmax <= grad_tol * gmax);
    free(w);
    free(gb);
    free(gr);
    free(x);
    free(y);
    rx__netws_destroy(&wb);
    rx__netws_destroy(&wr);
    rx__net_destroy(&na);
    rx__net_destroy(&nb);
}

/* Number of conv ops of the spec's net that run by algo (-1 if the spec
 * does not compile). */
static int uses_algo(const rx__netspec *sp, rx__conv_algo algo)
{
    rx_err err = {{0}};
    rx__net *net = NULL;
    if (rx__net_create(&net, sp, &err) != RX_OK)
        return -1;
    int k = 0;
    for (int j = 0; j < net->n_ops; ++j)
        k += net->ops[j].kind == RX__OP_CONV && net->ops[j].algo == (int)algo;
    rx__net_destroy(&net);
    return k;
}

static int uses_winograd(const rx__netspec *sp)
{
    return uses_algo(sp, RX_CONV_WINOGRAD);
}

/*
 * Winograd against im2col: the same function, rounded differently. The
 * transforms multiply by constants up to 5.25 (B^T) and 16 (G, 8 (A^T)),
 * which scales the float rounding of the 32- or 64-term sums by about
 * that much over im2col's K = 800 dot products (Lavin and Gray 2016
 * measure F(6x6,3x3), the same points, at ~1e-5 relative in float).
 * Measured here: <= 1e-6 of the largest gradient component on the MNIST
 * CNN, <= 1.1e-5 over the shapes of conv_shapes. The tolerance is the
 * same as BLAS against the reference (1e-4): a wrong transform, tile
 * offset or crop changes components by O(1) of the largest.
 */
#define WINO_LOSS_TOL 1e-5
#define WINO_GRAD_TOL 1e-4

/*
 * Winograd and direct against im2col on the shapes the random cases miss:
 * every kernel size 2..7 (tile outputs m = 7..2), the register path
 * (2 channels) and the GEMM path (5 channels), as a first layer (no input
 * gradient) and after another conv, pads 0 .. k - 1 (outputs smaller than
 * a tile included), 17 images (a chunk of 16 and one of 1); and a layer
 * whose tile rows span several GEMM groups with a short last one. The
 * tolerance is im2col's own BLAS-vs-reference one (measured: <= 2e-5).
 */
/* A case of c x h x w inputs with no layers yet, and its softmax head of
 * `classes` outputs. */
static void case_start(tcase *t, int c, int h, int w)
{
    memset(t, 0, sizeof *t);
    t->spec.layers = t->L;
    t->spec.in_c = c, t->spec.in_h = h, t->spec.in_w = w;
}

static void case_softmax(tcase *t, int classes)
{
    t->spec.n_out = classes;
    add(t, RX_LAYER_DENSE, classes, 0, 0, 0, 0);
    t->spec.lik = RX_LIK_SOFTMAX;
}

static void conv_shapes(void)
{
    int cases = 0, groups_seen = 0;
    for (int k = 2; k <= 7; ++k)
        for (int wide = 0; wide < 2; ++wide)
            for (int first = 0; first < 2; ++first) {
                tcase t;
                memset(&t, 0, sizeof t);
                rx__netspec *sp = &t.spec;
                sp->layers = t.L;
                const int c = wide ? 5 : 2, pad = (k + wide + first) % k;
                sp->in_c = first ? c : 1;
                sp->in_h = 4 + (k + first) % 6, sp->in_w = 3 + (2 * k) % 7;
                if (!first) {
                    add(&t, RX_LAYER_CONV2D, 0, c, 3, 1, 1);
                    add(&t, RX_LAYER_RELU, 0, 0, 0, 0, 0);
                }
                if (sp->in_h + 2 * pad < k)
                    sp->in_h = k;
                if (sp->in_w + 2 * pad < k)
                    sp->in_w = k;
                add(&t, RX_LAYER_CONV2D, 0, 3, k, 1, pad);
                add(&t, RX_LAYER_TANH, 0, 0, 0, 0, 0);
                sp->n_out = 3;
                add(&t, RX_LAYER_DENSE, 3, 0, 0, 0, 0);
                sp->lik = RX_LIK_SOFTMAX;
                rx__netspec si = *sp, sw = *sp, sd = *sp;
                si.conv = RX_CONV_IM2COL;
                sw.conv = RX_CONV_WINOGRAD;
                sd.conv = RX_CONV_DIRECT;
                CHECK(uses_winograd(&sw) == 2 - first);
                CHECK(uses_algo(&sd, RX_CONV_DIRECT) == 2 - first);
                char what[160];
                snprintf(what, sizeof what, "  Winograd vs im2col, k %d, %d "
                         "channels, %s, pad %d, %dx%d", k, c,
                         first ? "first layer" : "after a conv", pad,
                         sp->in_h, sp->in_w);
                compare_paths(&sw, 1, &si, 1, 17, 0, 1e-5, 1e-4, what);
                memcpy(what + 2, "direct  ", 8);
                compare_paths(&sd, 1, &si, 1, 17, 0, 1e-5, 1e-4, what);
                cases += 2;
            }
    /* 8 -> 8 channels, 3x3 pad 1 on 29x31: 6x6 outputs a tile, 5 x 6
     * tiles; a tile row of V + M is 64 x 16 x 6 x 16 x 4 B = 384 KiB, so
     * groups of 3 rows (1.5 MiB): 18 + 12 tiles. */
    {
        tcase t;
        case_start(&t, 3, 29, 31);
        rx__netspec *sp = &t.spec;
        add(&t, RX_LAYER_CONV2D, 0, 8, 3, 1, 1);
        add(&t, RX_LAYER_RELU, 0, 0, 0, 0, 0);
        add(&t, RX_LAYER_CONV2D, 0, 8, 3, 1, 1);
        add(&t, RX_LAYER_RELU, 0, 0, 0, 0, 0);
        add(&t, RX_LAYER_MAXPOOL, 0, 0, 4, 4, 0);
        case_softmax(&t, 3);
        rx__netspec si = *sp;
        si.conv = RX_CONV_IM2COL;
        rx_err err = {{0}};
        rx__net *net = NULL;
        CHECK(rx__net_create(&net, sp, &err) == RX_OK);
        for (int j = 0; j < net->n_ops; ++j) {
            const rx__op *op = &net->ops[j];
            if (op->kind != RX__OP_CONV || op->algo != RX_CONV_WINOGRAD)
                continue;
            const int tiles = op->th * op->tw;
            groups_seen = (tiles + op->tg - 1) / op->tg;
            CHECK_MSG(groups_seen > 1 && tiles % op->tg != 0,
                      "%d tiles in groups of %d", tiles, op->tg);
        }
        CHECK_MSG(groups_seen > 1, "conv 8->8 on 29x31 not by Winograd "
                  "in groups");
        rx__net_destroy(&net);
        compare_paths(sp, 1, &si, 1, 17, 0, 1e-5, 1e-4,
                      "  Winograd in several tile groups (short last) vs "
                      "im2col, 8->8 3x3 on 29x31");
        ++cases;
    }
    /* direct in bands of output rows with a short last one: 32 maps of
     * 28 columns make bands of 4 rows (256 KiB), 30 rows = 7 x 4 + 2 */
    {
        tcase t;
        case_start(&t, 1, 30, 28);
        rx__netspec *sp = &t.spec;
        add(&t, RX_LAYER_CONV2D, 0, 32, 5, 1, 2);
        add(&t, RX_LAYER_TANH, 0, 0, 0, 0, 0);
        add(&t, RX_LAYER_CONV2D, 0, 2, 3, 1, 1);
        add(&t, RX_LAYER_TANH, 0, 0, 0, 0, 0);
        case_softmax(&t, 3);
        rx_err err = {{0}};
        rx__net *net = NULL;
        CHECK(rx__net_create(&net, sp, &err) == RX_OK);
        int bands = 0;
        for (int j = 0; net && j < net->n_ops; ++j) {
            const rx__op *op = &net->ops[j];
            if (op->kind == RX__OP_CONV && op->algo == RX_CONV_DIRECT &&
                op->oc == 32)
                bands = op->oh % op->gr ? op->oh / op->gr + 1 : -1;
        }
        CHECK_MSG(bands == 8, "direct conv 1 -> 32 on 30x28: %d bands", bands);
        rx__net_destroy(&net);
        rx__netspec si = *sp;
        si.conv = RX_CONV_IM2COL;
        compare_paths(sp, 1, &si, 1, 17, 0, 1e-5, 1e-4,
                      "  direct (auto) in 8 bands (short last) vs im2col, "
                      "1 -> 32 5x5 on 30x28, then 32 -> 2");
        ++cases;
    }
    /* auto keeps a layer whose Winograd buffers and activations (16
     * images) would pass RX__WINO_MAX_BYTES on im2col: 64 -> 64
     * channels, 3x3, on 224x224 (~430 MiB) but not on 28x28 */
    for (int big = 0; big < 2; ++big) {
        tcase t;
        memset(&t, 0, sizeof t);
        t.spec.layers = t.L;
        t.spec.in_c = 64, t.spec.in_h = t.spec.in_w = big ? 224 : 28;
        add(&t, RX_LAYER_CONV2D, 0, 64, 3, 1, 1);
        add(&t, RX_LAYER_DENSE, 2, 0, 0, 0, 0);
        t.spec.n_out = 2, t.spec.lik = RX_LIK_SOFTMAX;
        CHECK_MSG(uses_winograd(&t.spec) == !big, "64-channel 3x3 conv on "
                  "%dx%d: Winograd %d", t.spec.in_h, t.spec.in_w,
                  uses_winograd(&t.spec));
    }
    printf("conv shapes: %d comparisons against im2col, last layer in %d "
           "tile groups\n", cases, groups_seen);
}

/* A workspace used for other batches in between gives the same bits. */
static void reuse(const rx__netspec *sp, const char *what)
{
    rx_err err = {{0}};
    rx__net *net = NULL;
    CHECK(rx__net_create(&net, sp, &err) == RX_OK);
    const int n = 20;
    const size_t d = rx__net_nparams(net), D = rx__net_in_dim(net);
    float *w = malloc(sizeof(float) * d), *g1 = malloc(sizeof(float) * d);
    float *g2 = malloc(sizeof(float) * d), *g3 = malloc(sizeof(float) * d);
    float *x = malloc(sizeof(float) * D * 2 * n), *y = malloc(sizeof(float) * 2 * n);
    rx__stream s;
    rx__stream_init(&s, 5, 0, RX_STREAM_MODELINIT, 1);
    fill(net, sp, w, x, y, 2 * n, &s);
    rx__netws *fresh = rx__netws_create(net, n, 1), *used = rx__netws_create(net, n, 1);
    double l1 = 0, l2 = 0, l3 = 0;
    CHECK(rx__net_loss_grad(net, fresh, w, x, y, n, 1.0, &l1, g1, NULL) == RX_OK);
    /* other data, a smaller batch, then the first batch again */
    CHECK(rx__net_loss_grad(net, used, w, x + D * n, y + n, 5, 1.0, &l2, g2,
                            NULL) == RX_OK);
    CHECK(rx__net_loss_grad(net, used, w, x + D * n, y + n, n, 1.0, &l2, g2,
                            NULL) == RX_OK);
    CHECK(rx__net_loss_grad(net, used, w, x, y, n, 1.0, &l3, g3, NULL) == RX_OK);
    const int same = l1 == l3 && !memcmp(g1, g3, sizeof(float) * d);
    printf("workspace reuse, %s: %s\n", what, same ? "bitwise equal" : "DIFFERS");
    CHECK(same);
    free(w), free(g1), free(g2), free(g3), free(x), free(y);
    rx__netws_destroy(&fresh);
    rx__netws_destroy(&used);
    rx__net_destroy(&net);
}

static void blas_vs_ref(const rx__netspec *sp, int n, int chunk_cap,
                        const char *what)
{
    char buf[160];
    snprintf(buf, sizeof buf, "blas vs reference, %s", what);
    compare_paths(sp, 1, sp, 0, n, chunk_cap, 1e-5, 1e-4, buf);
}

/* rx__gemm_own sums every element over k in order from 0, as the reference
 * does: the same bits for random shapes, both orientations (vectors over
 * N or over M), the transposed copies, whole and partial 16-column
 * vectors, several row blocks, leading dimensions above the sizes, beta 0
 * (C not read) and beta != 0; and rx__gemm sends small products there
 * under model.gemm auto. */
static void gemm_own_exact(rx__stream *s)
{
    enum { CAP = 80 * 90 };
    float *A = malloc(sizeof(float) * CAP), *B = malloc(sizeof(float) * CAP),
          *C1 = malloc(sizeof(float) * CAP), *C2 = malloc(sizeof(float) * CAP),
          *C3 = malloc(sizeof(float) * CAP),
          *scr = malloc(sizeof(float) * RX__GEMM_SCRATCH);
    static const int dims[] = {1, 2, 5, 15, 16, 17, 31, 33, 50, 64, 70};
    const int nd = (int)(sizeof dims / sizeof dims[0]);
    int cases = 0, bad = 0, routed = 0, small = 0;
    for (int rep = 0; rep < 160; ++rep) {
        const int M = dims[ri(s, 0, nd - 1)], N = dims[ri(s, 0, nd - 1)],
                  K = dims[ri(s, 0, nd - 1)];
        const int ta = ri(s, 0, 1), tb = ri(s, 0, 1), pad = ri(s, 0, 3);
        const int lda = (ta ? M : K) + pad, ldb = (tb ? K : N) + pad,
                  ldc = N + pad;
        const float alpha = rep % 3 ? 1.0f : 0.75f;
        const float beta = rep % 2 ? 0.0f : 0.5f;
        for (int j = 0; j < CAP; ++j) {
            A[j] = (float)(2.0 * rx__uniform(s) - 1.0);
            B[j] = (float)(2.0 * rx__uniform(s) - 1.0);
            C1[j] = C2[j] = C3[j] = (float)(2.0 * rx__uniform(s) - 1.0);
        }
        rx__gemm_ref(ta, tb, M, N, K, alpha, A, lda, B, ldb, beta, C1, ldc);
        CHECK(rx__gemm_own_scratch(ta, tb, M, N, K) <= RX__GEMM_SCRATCH);
        rx__gemm_own(ta, tb, M, N, K, alpha, A, lda, B, ldb, beta, C2, ldc,
                     scr);
        const rx__gemmctx g = {1, 1, scr, RX__GEMM_SCRATCH, 0};
        rx__gemm(&g, ta, tb, M, N, K, alpha, A, lda, B, ldb, beta, C3, ldc);
        bad += memcmp(C1, C2, sizeof(float) * CAP) != 0;
        if ((int64_t)M * N * K <= RX__GEMM_SMALL_MNK) { /* else sgemm's */
            routed += memcmp(C1, C3, sizeof(float) * CAP) == 0;
            small++;
        }
        cases++;
    }
    printf("own small products: %d shapes, %d differ from the reference; %d of "
           "the %d small ones through rx__gemm the same\n", cases, bad, routed,
           small);
    CHECK_MSG(bad == 0, "%d of %d own products differ from the reference",
              bad, cases);
    CHECK(routed == small && small > cases / 2);
    free(A), free(B), free(C1), free(C2), free(C3), free(scr);
}

/* ---- 3. threads ----------------------------------------------------------*/

typedef struct job {
    const rx__net *net;
    const float *w, *x, *y;
    int n, reps;
    const float *g_serial;
    double l_serial;
    int mismatches;
} job;

static void *worker(void *arg)
{
    job *jb = arg;
    rx__netws *ws = rx__netws_create(jb->net, jb->n, 1);
    const size_t d = rx__net_nparams(jb->net);
    float *g = malloc(sizeof(float) * d);
    for (int r = 0; r < jb->reps; ++r) {
        double l = 0;
        if (!ws || !g ||
            rx__net_loss_grad(jb->net, ws, jb->w, jb->x, jb->y, jb->n, 2.0,
                              &l, g, NULL) != RX_OK ||
            memcmp(&l, &jb->l_serial, sizeof l) != 0 ||
            memcmp(g, jb->g_serial, sizeof(float) * d) != 0)
            jb->mismatches++;
    }
    free(g);
    rx__netws_destroy(&ws);
    return NULL;
}

static void threads(const rx__netspec *sp, int n, int reps, const char *what)
{
    enum { NT = 4 };
    rx_err err = {{0}};
    rx__net *net = NULL;
    CHECK(rx__net_create(&net, sp, &err) == RX_OK);
    const size_t d = rx__net_nparams(net), D = rx__net_in_dim(net);
    float *w = malloc(sizeof(float) * d);
    float *x = malloc(sizeof(float) * D * n * NT);
    float *y = malloc(sizeof(float) * n * NT);
    float *gs = malloc(sizeof(float) * d * NT);
    rx__stream s;
    rx__stream_init(&s, 11, 0, RX_STREAM_MODELINIT, 0);
    fill(net, sp, w, x, y, n * NT, &s);
    job jobs[NT];
    rx__netws *ws = rx__netws_create(net, n, 1);
    for (int t = 0; t < NT; ++t) { /* serial results, one batch per thread */
        jobs[t] = (job){net, w, x + (size_t)t * n * D, y + (size_t)t * n, n,
                        reps, gs + (size_t)t * d, 0, 0};
        CHECK(rx__net_loss_grad(net, ws, w, jobs[t].x, jobs[t].y, n, 2.0,
                                &jobs[t].l_serial, gs + (size_t)t * d,
                                NULL) == RX_OK);
    }
    pthread_t th[NT];
    for (int t = 0; t < NT; ++t)
        CHECK(pthread_create(&th[t], NULL, worker, &jobs[t]) == 0);
    int bad = 0;
    for (int t = 0; t < NT; ++t) {
        pthread_join(th[t], NULL);
        bad += jobs[t].mismatches;
    }
    printf("threads, %s: %d threads x %d calls, %d differ from serial\n",
           what, NT, reps, bad);
    CHECK(bad == 0);
    free(w);
    free(x);
    free(y);
    free(gs);
    rx__netws_destroy(&ws);
    rx__net_destroy(&net);
}

/*
 * The Winograd products (pgemm.c), every version this CPU runs (AVX-512,
 * AVX2 + FMA, portable), against a scalar chain of fmaf per element in k
 * order from 0: the same bits, for random shapes with partial register
 * blocks (rows), 16-column units (1 to 5), c and T not multiples of 16,
 * both operand orders of A, and dU added to what it held. Then the MNIST
 * CNN's loss and gradient with each version: the same bits.
 */
static void pgemm_exact(rx__stream *s)
{
    enum { CAP = 80 * 96 };
    float *A = malloc(sizeof(float) * CAP), *B = malloc(sizeof(float) * CAP),
          *C0 = malloc(sizeof(float) * CAP), *C1 = malloc(sizeof(float) * CAP),
          *vt = malloc(sizeof(float) * CAP);
    const int top = rx__pgemm_isa();
    int cases = 0, bad[3] = {0, 0, 0};
    for (int rep = 0; rep < 120; ++rep) {
        for (int j = 0; j < CAP; ++j) {
            A[j] = (float)(2.0 * rx__uniform(s) - 1.0);
            B[j] = (float)(2.0 * rx__uniform(s) - 1.0);
        }
        const int nt = rep % 2; /* 0: rx__pmm, 1: rx__pmm_nt */
        const int M = ri(s, 1, 19), K = ri(s, 1, 40), n16 = ri(s, 1, 5);
        const int ta = ri(s, 0, 1);
        const int oc = ri(s, 1, 21), c = ri(s, 1, 40), T = ri(s, 1, 64);
        const size_t ldT = (size_t)(T + 15) / 16 * 16 + 16 * ri(s, 0, 1);
        /* row strides of B and C with or without a padding vector: the
         * padding must stay untouched */
        const size_t ldb = (size_t)16 * n16 + 16 * ri(s, 0, 1),
                     ldc = (size_t)16 * n16 + 16 * ri(s, 0, 1);
        const float fill_c = (float)rx__uniform(s);
        /* the oracle */
        for (int j = 0; j < CAP; ++j)
            C0[j] = fill_c;
        if (!nt) {
            for (int i = 0; i < M; ++i)
                for (int l = 0; l < 16 * n16; ++l) {
                    float acc = 0.0f;
                    for (int k = 0; k < K; ++k)
                        acc = fmaf(ta ? A[k * M + i] : A[i * K + k],
                                   B[k * ldb + l], acc);
                    C0[i * ldc + l] = acc;
                }
        } else {
            for (int i = 0; i < oc; ++i)
                for (int j = 0; j < c; ++j) {
                    float acc = 0.0f;
                    for (int t = 0; t < T; ++t)
                        acc = fmaf(A[(size_t)i * ldT + t],
                                   B[(size_t)j * ldT + t], acc);
                    C0[i * c + j] += acc;
                }
        }
        for (int isa = 0; isa <= top; ++isa) {
            for (int j = 0; j < CAP; ++j)
                C1[j] = fill_c;
            if (!nt)
                rx__pmm(isa, M, n16, K, A, ta ? 1 : (size_t)K,
                        ta ? (size_t)M : 1, B, ldb, C1, ldc);
            else {
                CHECK(rx__pmm_nt_vt(c, T) <= CAP);
                rx__pmm_nt(isa, oc, c, T, A, B, ldT, vt, C1);
            }
            bad[isa] += memcmp(C0, C1, sizeof(float) * CAP) != 0;
        }
        cases++;
    }
    printf("pgemm: %d shapes, differing from the fmaf chains: %d portable, "
           "%d avx2, %d avx512 (this CPU runs up to %s)\n", cases, bad[0],
           bad[1], bad[2], rx__pgemm_isa_name(top));
    CHECK(bad[0] == 0 && bad[1] == 0 && bad[2] == 0);
    free(A), free(B), free(C0), free(C1), free(vt);

    /* the network with each version */
    rx__netspec sp = mnist_spec();
    CHECK_MSG(uses_winograd(&sp) > 0, "the MNIST CNN under auto runs no "
              "conv by Winograd: the check below would not reach pgemm");
    rx_err err = {{0}};
    rx__net *net = NULL;
    CHECK(rx__net_create(&net, &sp, &err) == RX_OK);
    enum { N = 20 };
    const size_t d = rx__net_nparams(net), D = rx__net_in_dim(net);
    float *w = malloc(sizeof(float) * d), *x = malloc(sizeof(float) * D * N),
          *y = malloc(sizeof(float) * N), *g0 = malloc(sizeof(float) * d),
          *g1 = malloc(sizeof(float) * d);
    rx__stream_init(s, 13, 0, RX_STREAM_MODELINIT, 7);
    fill(net, &sp, w, x, y, N, s);
    rx__netws *ws = rx__netws_create(net, N, 1);
    CHECK(ws && ws->g.isa == top);
    double l0 = 0, l1 = 0;
    int same = 1;
    for (int isa = top; ws && isa >= 0; --isa) {
        ws->g.isa = isa;
        CHECK(rx__net_loss_grad(net, ws, w, x, y, N, 1.0, isa == top ? &l0 : &l1,
                                isa == top ? g0 : g1, NULL) == RX_OK);
        if (isa != top)
            same &= l0 == l1 && !memcmp(g0, g1, sizeof(float) * d);
    }
    printf("pgemm: MNIST CNN (auto), batch %d, every version: %s\n", N,
           same ? "bitwise equal" : "DIFFERS");
    CHECK(same);
    free(w), free(x), free(y), free(g0), free(g1);
    rx__netws_destroy(&ws);
    rx__net_destroy(&net);
}

/* ---- 3b. lstm -------------------------------------------------------------*/

/* The paper's Fashion-MNIST RNN (Nose-Hoover replica exchange, Sec. 4.2):
 * 28 rows of 28 pixels into an LSTM of 128, ReLU, dense 64, ReLU, dense
 * 10. */
static const rx__layerspec rnn_layers[] = {
    {RX_LAYER_LSTM, 128, 0, 0, 0, 0}, {RX_LAYER_RELU, 0, 0, 0, 0, 0},
    {RX_LAYER_DENSE, 64, 0, 0, 0, 0}, {RX_LAYER_RELU, 0, 0, 0, 0, 0},
    {RX_LAYER_DENSE, 10, 0, 0, 0, 0}};

static rx__netspec rnn_spec(void)
{
    rx__netspec sp;
    memset(&sp, 0, sizeof sp);
    sp.in_c = 1, sp.in_h = 28, sp.in_w = 28;
    sp.n_layers = 5, sp.layers = rnn_layers;
    sp.lik = RX_LIK_SOFTMAX, sp.n_out = 10;
    return sp;
}

/*
 * Random lstm nets (kinds 7-9) against the double reference and its
 * central differences, on both GEMM paths and in blocks of 2; then the
 * paper's RNN: its parameter count (4 x 128 x (28 + 128) + 512 for the
 * LSTM with one bias vector, + 8,256 + 650 = 89,290), its loss against
 * the reference, BLAS against the reference path over several blocks,
 * concurrent threads and a reused workspace bitwise.
 */
static void lstm_checks(rx__stream *s)
{
    worst_grad_err = 0;
    total_kinks = 0;
    for (int kind = 7; kind <= 9; ++kind)
        for (int rep = 0; rep < 4; ++rep) {
            tcase t;
            make_case(&t, kind, s);
            check_case(&t, 1, 0, s);
            check_case(&t, 0, 0, s);
            check_case(&t, 1, 2, s);
        }
    printf("lstm gradient check: worst relative error %.2e (limit 1e-3); "
           "%d components judged on the 1e-9 step at a kink\n",
           worst_grad_err, total_kinks);
    rx__netspec rn = rnn_spec();
    rx_err err = {{0}};
    rx__net *net = NULL;
    CHECK_MSG(rx__net_create(&net, &rn, &err) == RX_OK, "%s", err.msg);
    if (!net)
        return;
    const size_t d = rx__net_nparams(net);
    CHECK_MSG(d == 89290, "the RNN has %zu parameters", d);
    /* three examples against the double reference (fill's weights) */
    {
        const int n = 3;
        rx__netws *ws = rx__netws_create(net, n, 1);
        float *w = malloc(sizeof(float) * d), x[3 * 784], y[3];
        double *wd = malloc(sizeof(double) * d), loss = 0;
        rx__stream_init(s, 3, 0, RX_STREAM_MODELINIT, 28);
        fill(net, &rn, w, x, y, n, s);
        for (size_t j = 0; j < d; ++j)
            wd[j] = w[j];
        CHECK(rx__net_loss_grad(net, ws, w, x, y, n, 1.0, &loss, NULL,
                                NULL) == RX_OK);
        const double lref = ref_sum(&rn, wd, d, x, y, n, 784);
        printf("lstm RNN 28x28-128-64-10 (%zu params): loss %.9g vs double "
               "reference %.9g\n", d, loss, lref);
        CHECK(fabs(loss - lref) <= 1e-5 * (fabs(lref) + 1.0));
        free(w);
        free(wd);
        rx__netws_destroy(&ws);
    }
    rx__net_destroy(&net);
    blas_vs_ref(&rn, 50, 0, "lstm RNN, batch 50");
    blas_vs_ref(&rn, 9, 4, "lstm RNN, batch 9, blocks of 4");
    threads(&rn, 30, 2, "lstm RNN, batch 30");
    reuse(&rn, "lstm RNN");
}

/* ---- 4. shape errors -----------------------------------------------------*/

static void expect_error(const rx__netspec *sp, const char *needle)
{
    rx_err err = {{0}};
    rx__net *net = NULL;
    rx_status st = rx__net_create(&net, sp, &err);
    CHECK_MSG(st == RX_EINVAL && net == NULL && strstr(err.msg, needle),
              "status %d, message \"%s\", wanted \"%s\"", (int)st, err.msg,
              needle);
}

static void shape_errors(void)
{
    tcase t;
    memset(&t, 0, sizeof t);
    rx__netspec *sp = &t.spec;
    sp->layers = t.L;
    sp->in_c = 1, sp->in_h = 8, sp->in_w = 8;
    sp->lik = RX_LIK_SOFTMAX, sp->n_out = 10;
    add(&t, RX_LAYER_CONV2D, 0, 4, 3, 1, 0); /* 6x6 */
    add(&t, RX_LAYER_MAXPOOL, 0, 0, 2, 2, 0); /* 3x3 */
    add(&t, RX_LAYER_CONV2D, 0, 4, 5, 1, 0);
    expect_error(sp, "model.layers[2]: conv2d kernel 5 larger than input 3x3");
    t.L[2].ksize = 3, t.L[2].pad = 0; /* 1x1 */
    add(&t, RX_LAYER_MAXPOOL, 0, 0, 2, 2, 0);
    expect_error(sp, "model.layers[3]: maxpool window 2 larger than input 1x1");
    t.L[3].kind = RX_LAYER_DENSE, t.L[3].units = 0;
    expect_error(sp, "model.layers[3]: dense units must be >= 1");
    t.L[3].units = 7;
    expect_error(sp, "model.layers[3]: the last layer gives 7 outputs, "
                     "n_out is 10");
    t.L[3].units = 10;
    t.L[1].stride = -1;
    expect_error(sp, "model.layers[1]: maxpool needs");
    t.L[1].stride = 2;
    t.L[0].filters = 0;
    expect_error(sp, "model.layers[0]: conv2d needs filters >= 1");
    t.L[0].filters = 4;
    t.L[2].kind = (rx__layer_kind)42;
    expect_error(sp, "model.layers[2]: unknown layer kind 42");
    t.L[2].kind = RX_LAYER_CONV2D;
    t.L[2].kind = RX_LAYER_LSTM, t.L[2].units = 3; /* after 4 channels */
    expect_error(sp, "model.layers[2]: lstm reads a one-channel input as h "
                     "steps of w features; its input is 4x3x3");
    t.L[0].filters = 1;
    t.L[2].units = 0;
    expect_error(sp, "model.layers[2]: lstm units must be >= 1");
    t.L[0].filters = 4;
    t.L[2].kind = RX_LAYER_CONV2D, t.L[2].units = 0;
    rx_err err = {{0}};
    rx__net *net = NULL;
    CHECK_MSG(rx__net_create(&net, sp, &err) == RX_OK, "%s", err.msg);
    CHECK(net && rx__net_nparams(net) == 40 + 148 + 50 &&
          rx__net_out_dim(net) == 10);
    rx__net_destroy(&net);
    /* the argmax is a 16-bit offset in the window: at most 256 x 256 */
    {
        tcase g;
        case_start(&g, 1, 257, 257);
        add(&g, RX_LAYER_MAXPOOL, 0, 0, 257, 1, 0);
        case_softmax(&g, 2);
        expect_error(&g.spec, "model.layers[0]: maxpool window 257 larger "
                              "than 256");
        g.spec.in_h = g.spec.in_w = 256;
        g.L[0].ksize = 256;
        rx_err e2 = {{0}};
        rx__net *n2 = NULL;
        CHECK_MSG(rx__net_create(&n2, &g.spec, &e2) == RX_OK, "%s", e2.msg);
        rx__net_destroy(&n2);
    }
    sp->lik = RX_LIK_GAUSSIAN, sp->noise_var = 1.0;
    expect_error(sp, "model: the gaussian likelihood needs 1 output");
    sp->noise_var = 0.0;
    expect_error(sp, "noise_var must be > 0");

    /* errors of a call: batch size, labels */
    rx__netspec m = mlp_spec(3);
    CHECK(rx__net_create(&net, &m, &err) == RX_OK);
    rx__netws *ws = rx__netws_create(net, 4, 1);
    float w[512] = {0}, x[15] = {0}, y[5] = {0}, g[512]; /* >= 353 params */
    double l;
    CHECK(rx__net_loss_grad(net, ws, w, x, y, 5, 1.0, &l, g, NULL) ==
          RX_EINVAL);
    CHECK(strstr(rx__netws_errmsg(ws), "batch of 5 outside 1 .. 4") != NULL);
    rx__netws_destroy(&ws);
    rx__net_destroy(&net);
    m.lik = RX_LIK_SOFTMAX;
    m.n_out = 3;
    rx__layerspec L3[3] = {mlp_layers[0], mlp_layers[1],
                           {RX_LAYER_DENSE, 3, 0, 0, 0, 0}};
    m.layers = L3;
    CHECK(rx__net_create(&net, &m, &err) == RX_OK);
    ws = rx__netws_create(net, 4, 1);
    y[1] = 3.0f;
    CHECK(rx__net_loss_grad(net, ws, w, x, y, 2, 1.0, &l, g, NULL) ==
          RX_EINVAL);
    CHECK(strstr(rx__netws_errmsg(ws), "label 3 of example 1") != NULL);
    y[1] = 1e20f;
    CHECK(rx__net_loss_grad(net, ws, w, x, y, 2, 1.0, &l, g, NULL) ==
          RX_EINVAL);
    CHECK(strstr(rx__netws_errmsg(ws), "label 1e+20 of example 1") != NULL);
    rx__netws_destroy(&ws);
    rx__net_destroy(&net);
}

/* ---- 5. initialisation ---------------------------------------------------*/

static void init_check(void)
{
    rx__netspec sp = mnist_spec();
    rx_err err = {{0}};
    rx__net *net = NULL;
    CHECK(rx__net_create(&net, &sp, &err) == RX_OK);
    const size_t d = rx__net_nparams(net);
    CHECK(d == 832 + 51264 + 156850 + 510);
    CHECK_NEAR(rx__net_flops_fwd(net),
               2.0 * (32 * 25 * 784 + 64 * 800 * 196 + 3136 * 50 + 500), 1);
    float *w = malloc(sizeof(float) * d);
    rx__stream s;
    rx__stream_init(&s, 3, 0, RX_STREAM_MODELINIT, 0);
    rx__net_init_params(net, w, &s);
    /* conv2 weights: fan_in 800, bound 1/sqrt(800); Uniform variance b^2/3 */
    const double bnd = 1 / sqrt(800.0);
    double m2 = 0, mx = 0;
    for (size_t j = 832; j < 832 + 51200; ++j) {
        m2 += (double)w[j] * w[j];
        mx = fmax(mx, fabs(w[j]));
    }
    CHECK(mx <= bnd && mx > 0.99 * bnd);
    CHECK_NEAR(m2 / 51200, bnd * bnd / 3, 0.02 * bnd * bnd / 3);
    /* a minibatch of 2500 runs in blocks: workspace memory stays that of
     * one block */
    rx__netws *big = rx__netws_create(net, 2500, 1);
    rx__netws *small = rx__netws_create(net, 100, 1);
    CHECK(big && small && big->micro == small->micro);
    CHECK(big && small && rx__netws_bytes(big) == rx__netws_bytes(small));
    if (big)
        printf("MNIST CNN workspace for batch 2500: blocks of %d, %.1f MiB\n",
               big->micro, (double)rx__netws_bytes(big) / (1 << 20));
    rx__netws_destroy(&small);
    rx__netws_destroy(&big);
    /* fc2 bias: fan_in 50 */
    for (size_t j = d - 10; j < d; ++j)
        CHECK(fabs(w[j]) <= 1 / sqrt(50.0));
    free(w);
    rx__net_destroy(&net);

    sp = mlp_spec(4);
    sp.learn_precision = 1, sp.noise_var = 0.25;
    CHECK(rx__net_create(&net, &sp, &err) == RX_OK);
    float wm[4 * 50 + 50 + 50 + 1 + 1];
    CHECK(rx__net_nparams(net) == sizeof wm / sizeof wm[0]);
    rx__net_init_params(net, wm, &s);
    CHECK_NEAR(wm[sizeof wm / sizeof wm[0] - 1], log(4.0), 1e-6);
    rx__net_destroy(&net);
}

/* ---- 5b. blocks: a batch in blocks of b images equals one block -------*/

/*
 * A batch runs in blocks of images whose weight gradients accumulate
 * (src/model/net.c). Each image's forward is the same computation in any
 * block, so the loss, the per-example losses and the predictions may
 * differ only where a product's summation order depends on how many
 * images share it (OpenBLAS takes other kernels for one image than for
 * several: measured up to 9e-6 on a per-example loss, 5e-5 on a
 * probability, the size of the BLAS-against-reference differences
 * above, whose tolerance 1e-4 they get); the weight gradient is a sum of
 * per-block float partial sums, added in another grouping: rounding of
 * order sqrt(K) 2^-24 relative to the magnitudes summed, K up to
 * 37 x 784 terms here, so ~1e-5 of the largest component at worst
 * (measured: <= 1.3e-6). Tolerance: 2e-5 of the largest gradient
 * component, the loss within 1e-6 relative (measured <= 1.3e-7). A block
 * that drops, repeats or misplaces images changes them by O(1/37).
 */
static void blocks_check(void)
{
    const rx__conv_algo algos[] = {RX_CONV_IM2COL, RX_CONV_AUTO,
                                   RX_CONV_WINOGRAD, RX_CONV_DIRECT};
    const char *names[] = {"im2col", "auto", "winograd", "direct"};
    const int blocks[] = {1, 3, 7, 16, 20};
    enum { N = 37 }; /* divisible by none of the blocks */
    for (int a = 0; a < 4; ++a) {
        rx__netspec sp = mnist_spec();
        sp.conv = algos[a];
        rx_err err = {{0}};
        rx__net *net = NULL;
        CHECK(rx__net_create(&net, &sp, &err) == RX_OK);
        if (!net)
            continue;
        const size_t d = rx__net_nparams(net), D = rx__net_in_dim(net);
        float *w = malloc(sizeof(float) * d), *gr = malloc(sizeof(float) * d),
              *gb = malloc(sizeof(float) * d),
              *x = malloc(sizeof(float) * D * N), y[N], pr[N * 10],
              pb[N * 10];
        double er[N], eb[N], lr = 0, lb = 0;
        rx__stream s;
        rx__stream_init(&s, 11, 0, RX_STREAM_MODELINIT, (uint64_t)a);
        fill(net, &sp, w, x, y, N, &s);
        rx__netws *ref = rx__netws_create_block(net, N, 1, N);
        CHECK(ref && ref->micro == N);
        CHECK(rx__net_loss_grad(net, ref, w, x, y, N, 2.0, &lr, gr, er) ==
              RX_OK);
        CHECK(rx__net_predict(net, ref, w, x, N, pr) == RX_OK);
        double gmax = 0;
        for (size_t j = 0; j < d; ++j)
            gmax = fmax(gmax, fabs(gr[j]));
        for (int k = 0; k < (int)(sizeof blocks / sizeof blocks[0]); ++k) {
            rx__netws *ws = rx__netws_create_block(net, N, 1, blocks[k]);
            CHECK(ws && ws->micro == blocks[k]);
            if (!ws)
                continue;
            CHECK(rx__netws_bytes(ws) < rx__netws_bytes(ref));
            CHECK(rx__net_loss_grad(net, ws, w, x, y, N, 2.0, &lb, gb, eb) ==
                  RX_OK);
            CHECK(rx__net_predict(net, ws, w, x, N, pb) == RX_OK);
            double dg = 0, de = 0, dp = 0;
            for (size_t j = 0; j < d; ++j)
                dg = fmax(dg, fabs(gb[j] - gr[j]));
            for (int i = 0; i < N; ++i)
                de = fmax(de, fabs(eb[i] - er[i]) / (fabs(er[i]) + 1.0));
            for (int i = 0; i < N * 10; ++i)
                dp = fmax(dp, fabs(pb[i] - pr[i]));
            printf("blocks of %2d vs one block of %d, MNIST CNN %s: loss "
                   "rel %.1e, per-example %.1e, predictions %.1e, grad "
                   "%.1e of max %.3g\n", blocks[k], N, names[a],
                   fabs(lb - lr) / fabs(lr), de, dp, dg / gmax, gmax);
            CHECK(fabs(lb - lr) <= 1e-6 * fabs(lr));
            CHECK(de <= 1e-4 && dp <= 1e-4);
            CHECK(gmax > 0 && dg <= 2e-5 * gmax);
            rx__netws_destroy(&ws);
        }
        /* the default at batch 100: blocks of a few MB, a multiple of the
         * 16 vector lanes where a conv runs by Winograd or direct */
        rx__netws *dw = rx__netws_create(net, 100, 1);
        CHECK(dw && dw->micro == rx__net_block(net, 100));
        CHECK(dw && dw->micro < 100);
        CHECK(dw && (a == 0 || dw->micro % 16 == 0));
        if (dw)
            printf("MNIST CNN %s, batch 100: blocks of %d images, "
                   "workspace %.2f MiB\n", names[a], dw->micro,
                   (double)rx__netws_bytes(dw) / (1 << 20));
        rx__netws_destroy(&dw);
        rx__netws_destroy(&ref);
        free(w);
        free(gr);
        free(gb);
        free(x);
        rx__net_destroy(&net);
    }
}

/* ---- 6. training ---------------------------------------------------------*/

/* y = sin(2 x1) + x2^2 / 2 + noise (sd 0.1), x ~ U(-2, 2)^2 */
static void synth(float *x, float *y, int n, rx__stream *s)
{
    for (int i = 0; i < n; ++i) {
        const double a = 4 * rx__uniform(s) - 2, b = 4 * rx__uniform(s) - 2;
        x[2 * i] = (float)a, x[2 * i + 1] = (float)b;
        y[i] = (float)(sin(2 * a) + 0.5 * b * b + 0.1 * rx__normal(s));
    }
}

/* Test RMSE (against noisy targets; the floor is the noise sd 0.1) of a
 * 2-50-1 ReLU MLP after plain SGD on the mean squared error. */
static double train_rmse(uint64_t seed)
{
    enum { NTR = 2000, NTE = 1000, B = 50, EPOCHS = 300 };
    static float xtr[2 * NTR], ytr[NTR], xte[2 * NTE], yte[NTE], out[NTE];
    rx__stream s;
    rx__stream_init(&s, seed, 0, RX_STREAM_DATA, 0);
    synth(xtr, ytr, NTR, &s);
    synth(xte, yte, NTE, &s);
    rx__netspec sp = mlp_spec(2);
    rx_err err = {{0}};
    rx__net *net = NULL;
    if (rx__net_create(&net, &sp, &err) != RX_OK)
        return 1e9;
    rx__netws *ws = rx__netws_create(net, NTE, 1);
    const size_t d = rx__net_nparams(net);
    float w[2 * 50 + 50 + 50 + 1], g[2 * 50 + 50 + 50 + 1];
    rx__stream_init(&s, seed, 0, RX_STREAM_MODELINIT, 0);
    rx__net_init_params(net, w, &s);
    const float lr = 0.05f;
    for (int e = 0; e < EPOCHS; ++e)
        for (int b = 0; b < NTR / B; ++b) {
            double l;
            rx__net_loss_grad(net, ws, w, xtr + 2 * b * B, ytr + b * B, B,
                              1.0 / B, &l, g, NULL);
            for (size_t j = 0; j < d; ++j)
                w[j] -= lr * g[j];
        }
    rx__net_predict(net, ws, w, xte, NTE, out);
    double se = 0;
    for (int i = 0; i < NTE; ++i)
        se += (out[i] - yte[i]) * (double)(out[i] - yte[i]);
    rx__netws_destroy(&ws);
    rx__net_destroy(&net);
    return sqrt(se / NTE);
}

/* Threads of this process (/proc/self/task entries). */
static int process_threads(void)
{
    DIR *d = opendir("/proc/self/task");
    if (!d)
        return -1;
    int n = 0;
    for (struct dirent *e; (e = readdir(d));)
        n += e->d_name[0] != '.';
    closedir(d);
    return n;
}

/* The same once it is at most `want`, or after 1 s: a joined thread can
 * stay listed for a moment after pthread_join returns. */
static int process_threads_settled(int want)
{
    int n = process_threads();
    for (int i = 0; i < 100 && n > want; ++i) {
        nanosleep(&(struct timespec){0, 10000000}, NULL);
        n = process_threads();
    }
    return n;
}

/* rx_blas_single_thread ends the pool of OpenBLAS's pthreads build, and
 * the engine's rx__blas_set_threads(1) does not start it again (OpenBLAS
 * 0.3.21's openblas_set_num_threads restarts an ended pool). */
static void check_blas_pool(void)
{
    if (rx__blas_parallel() != 1) {
        printf("blas pool: not OpenBLAS's pthreads build, skipped\n");
        return;
    }
    rx_blas_single_thread();
    const int t0 = process_threads_settled(1); /* the test's only thread */
    rx__blas_set_threads(2); /* a pool of at least one thread */
    const int t1 = process_threads();
    const int prev = rx_blas_single_thread();
    const int t2 = process_threads_settled(t0);
    const int same = rx__blas_set_threads(1);
    const int t3 = process_threads_settled(t0);
    printf("blas pool: threads %d alone, %d with 2 BLAS threads, %d after "
           "rx_blas_single_thread, %d after setting 1 again\n",
           t0, t1, t2, t3);
    CHECK(t0 >= 1 && t1 > t0);
    CHECK(prev == 2 && same == 1);
    CHECK(t2 == t0 && t3 == t0);
}

/* The OPENBLAS_CORETYPE note: which core OpenBLAS picked against what the
 * CPU has (OpenBLAS 0.3.21's corename strings). */
static void check_core_suggest(void)
{
    static const struct {
        const char *core;
        int avx512, avx2fma;
        const char *want;
    } c[] = {
        {"Haswell", 1, 1, "SkylakeX"},  /* Sapphire Rapids under KVM */
        {"Prescott", 1, 1, "SkylakeX"}, /* Emerald Rapids, Firecracker */
        {"SANDYBRIDGE", 1, 1, "SkylakeX"},
        {"Haswell", 0, 1, NULL},
        {"Prescott", 0, 1, "Haswell"},
        {"Nehalem", 0, 1, "Haswell"},
        {"Prescott", 0, 0, NULL},
        {"SkylakeX", 1, 1, NULL},
        {"Cooperlake", 1, 1, NULL},
        {"Zen", 1, 1, NULL},
        {"Zen", 0, 1, NULL},
        {NULL, 1, 1, NULL},
    };
    for (size_t i = 0; i < sizeof c / sizeof c[0]; ++i) {
        const char *got =
            rx__blas_core_suggest(c[i].core, c[i].avx512, c[i].avx2fma);
        CHECK_MSG(got == c[i].want ||
                      (got && c[i].want && !strcmp(got, c[i].want)),
                  "core %s avx512 %d avx2fma %d: %s, expected %s",
                  c[i].core ? c[i].core : "(null)", c[i].avx512,
                  c[i].avx2fma, got ? got : "none",
                  c[i].want ? c[i].want : "none");
    }
    char note[400];
    if (rx__blas_core_hint(note, sizeof note))
        CHECK(strstr(note, "OPENBLAS_CORETYPE=") != NULL);
}

int main(int argc, char **argv)
{
    check_blas_pool();
    check_core_suggest();
    rx__blas_set_threads(1);
    if (argc > 1 && !strcmp(argv[1], "--spread")) { /* seed spread */
        for (int k = 1; k <= 20; ++k)
            printf("seed %d: test RMSE %.4f\n", k, train_rmse((uint64_t)k));
        return 0;
    }

    rx__stream s;
    rx__stream_init(&s, 2024, 0, RX_STREAM_MODELINIT, 99);
    int n_wino = 0, n_direct = 0, n_direct_auto = 0;
    for (int kind = 0; kind < 7; ++kind)
        for (int rep = 0; rep < 3; ++rep) {
            tcase t;
            make_case(&t, kind, &s);
            for (int conv = RX_CONV_AUTO; conv <= RX_CONV_DIRECT; ++conv) {
                if (kind < 2 && conv != RX_CONV_AUTO)
                    continue; /* no conv layer */
                t.spec.conv = (rx__conv_algo)conv;
                n_wino += uses_winograd(&t.spec) > 0;
                if (conv == RX_CONV_AUTO)
                    n_direct_auto += uses_algo(&t.spec, RX_CONV_DIRECT) > 0;
                else
                    n_direct += uses_algo(&t.spec, RX_CONV_DIRECT) > 0;
                check_case(&t, 1, 0, &s);
                check_case(&t, 0, 0, &s);
                if (kind >= 2) /* several im2col / Winograd chunks */
                    check_case(&t, 1, 2, &s);
            }
        }
    /* auto picks Winograd in the kind-6 cases; winograd forces it where a
     * conv has stride 1 and k >= 2 (kinds 2, 4, 5, 6; kind 3's stride-1
     * conv is 1x1): 3 + 12 specs */
    CHECK_MSG(n_wino == 15, "%d specs ran a Winograd conv", n_wino);
    /* direct: every kind with a stride-1 conv (2-6), 1x1 included; auto
     * picks it there too (each has one with fewer than 8 channels in) */
    CHECK_MSG(n_direct == 15, "%d specs ran a direct conv", n_direct);
    CHECK_MSG(n_direct_auto == 15, "auto: %d specs ran a direct conv",
              n_direct_auto);
    printf("gradient check: worst relative error %.2e (limit 1e-3); %d "
           "components judged on the 1e-9 step at a kink\n", worst_grad_err,
           total_kinks);

    rx__netspec mn = mnist_spec(), ml = mlp_spec(13);
    blas_vs_ref(&mn, 6, 0, "MNIST CNN, batch 6");
    blas_vs_ref(&mn, 5, 2, "MNIST CNN, batch 5, passes of 2");
    rx__netspec mi = mn;
    mi.conv = RX_CONV_IM2COL;
    CHECK(uses_winograd(&mn) == 1 && uses_winograd(&mi) == 0);
    compare_paths(&mn, 1, &mi, 1, 20, 0, WINO_LOSS_TOL, WINO_GRAD_TOL,
                  "Winograd vs im2col, MNIST CNN, batch 20 (16 + 4)");
    compare_paths(&mn, 0, &mi, 1, 7, 3, WINO_LOSS_TOL, WINO_GRAD_TOL,
                  "Winograd (reference GEMM, chunks of 3) vs im2col, "
                  "MNIST CNN, batch 7");
    rx__netspec mw = mn;
    mw.conv = RX_CONV_WINOGRAD; /* conv1 (1 channel): registers, no GEMM */
    CHECK(uses_winograd(&mw) == 2);
    compare_paths(&mw, 1, &mi, 1, 20, 0, WINO_LOSS_TOL, WINO_GRAD_TOL,
                  "Winograd conv1 + conv2 vs im2col, MNIST CNN, batch 20");
    rx__netspec md = mn;
    md.conv = RX_CONV_DIRECT; /* conv1 direct; conv2 (800 taps) im2col */
    CHECK(uses_algo(&md, RX_CONV_DIRECT) == 1);
    compare_paths(&md, 1, &mi, 1, 20, 0, WINO_LOSS_TOL, WINO_GRAD_TOL,
                  "direct conv1 vs im2col, MNIST CNN, batch 20 (16 + 4)");
    /* model.gemm auto: the MLP's products are all small, so its BLAS path
     * runs rx__gemm_own throughout and gives the reference's bits */
    gemm_own_exact(&s);
    pgemm_exact(&s);
    compare_paths(&ml, 1, &ml, 0, 50, 0, 0.0, 0.0,
                  "own small products vs reference, MLP 13-50-1, batch 50 "
                  "(the same bits)");
    rx__netspec mb = ml;
    mb.gemm = RX_GEMM_BLAS;
    blas_vs_ref(&mb, 50, 0, "MLP 13-50-1, batch 50");
    blas_vs_ref(&mb, 300, 0, "MLP 13-50-1, batch 300");

    threads(&mn, 4, 8, "MNIST CNN, batch 4");
    threads(&mw, 20, 2, "MNIST CNN, all convs Winograd, batch 20");
    threads(&md, 20, 2, "MNIST CNN, conv1 direct, batch 20");
    reuse(&mn, "MNIST CNN, auto (Winograd conv2)");
    reuse(&mw, "MNIST CNN, all convs Winograd");
    reuse(&md, "MNIST CNN, conv1 direct");
    conv_shapes();
    threads(&ml, 50, 2000, "MLP 13-50-1, batch 50");

    lstm_checks(&s);
    shape_errors();
    init_check();
    blocks_check();

    /* seed spread (--spread, seeds 1-20): test RMSE 0.101 .. 0.112,
     * mean 0.106. The limit 0.13 is 30 % above the noise floor 0.1 and
     * 1.6x above the worst seed's excess, far below an underfit net (the
     * best linear fit gives 0.87, the constant 0.90). */
    const double rmse = train_rmse(1);
    printf("MLP 2-50-1 SGD on sin(2 x1) + x2^2/2 + N(0, 0.1^2): test RMSE "
           "%.4f (noise 0.1, limit 0.13)\n", rmse);
    CHECK(rmse < 0.13);
    return check_done();
}
