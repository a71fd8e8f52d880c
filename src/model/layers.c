/*
 * Forward and backward of one op of a compiled net: dense, conv2d (im2col
 * over a chunk of images, one sgemm per chunk), max-pool (argmax kept),
 * ReLU, tanh and the two layout changes. Works on buffers the workspace
 * owns; allocates nothing; touches no parameter but through w and gw.
 */
#include <math.h>
#include <string.h>

#include "net_internal.h"

/*
 * Target size of the im2col matrix of one chunk, in floats (1 MiB). The
 * matrix is written once and read by the sgemm (which packs it in panels);
 * keeping it within L2 (2 MiB per core here) leaves room for the packed
 * weights and the output chunk. Chunks of several images give the conv2 of
 * the MNIST CNN (K = 800, 14x14 outputs) GEMMs of ~300+ columns instead of
 * 196. Tuned with bench_model (docs/performance.md).
 */
#define RX__COL_TARGET (256 * 1024)

int rx__conv_chunk(const rx__op *op, const rx__netws *ws)
{
    const int max_batch = ws->chunk_cap > 0 && ws->chunk_cap < ws->max_batch
                              ? ws->chunk_cap
                              : ws->max_batch;
    const size_t per = (size_t)op->c * op->k * op->k * op->oh * op->ow;
    size_t ch = RX__COL_TARGET / (per ? per : 1);
    if (ch < 1)
        ch = 1;
    if (ch > (size_t)max_batch)
        ch = (size_t)max_batch;
    return (int)ch;
}

/* Rows (ci, kh, kw) of the column matrix of images i0 .. i0+b-1 of a CNHW
 * tensor with batch n; columns (image, y, x). Zero padding written. */
static void im2col(const rx__op *op, const float *in, int n, int i0, int b,
                   float *col)
{
    const int h = op->h, w = op->w, k = op->k, s = op->stride, p = op->pad;
    const int oh = op->oh, ow = op->ow;
    const size_t ohw = (size_t)oh * ow, cols = (size_t)b * ohw;
    for (int ci = 0; ci < op->c; ++ci)
        for (int kh = 0; kh < k; ++kh)
            for (int kw = 0; kw < k; ++kw) {
                float *dst = col + ((size_t)(ci * k + kh) * k + kw) * cols;
                /* valid x range for stride 1: 0 <= x - p + kw < w */
                int x0 = p - kw, x1 = w + p - kw;
                if (x0 < 0)
                    x0 = 0;
                if (x1 > ow)
                    x1 = ow;
                for (int ii = 0; ii < b; ++ii) {
                    const float *plane =
                        in + ((size_t)ci * n + i0 + ii) * h * w;
                    for (int y = 0; y < oh; ++y) {
                        float *d = dst + ii * ohw + (size_t)y * ow;
                        const int iy = y * s - p + kh;
                        if (iy < 0 || iy >= h) {
                            memset(d, 0, sizeof(float) * (size_t)ow);
                            continue;
                        }
                        const float *src = plane + (size_t)iy * w;
                        if (s == 1) {
                            for (int x = 0; x < x0; ++x)
                                d[x] = 0.0f;
                            if (x1 > x0)
                                memcpy(d + x0, src + x0 - p + kw,
                                       sizeof(float) * (size_t)(x1 - x0));
                            for (int x = x1 > x0 ? x1 : x0; x < ow; ++x)
                                d[x] = 0.0f;
                        } else {
                            for (int x = 0; x < ow; ++x) {
                                const int ix = x * s - p + kw;
                                d[x] = ix >= 0 && ix < w ? src[ix] : 0.0f;
                            }
                        }
                    }
                }
            }
}

/* Adjoint of im2col: din (images i0 .. i0+b-1, zeroed here) += col. */
static void col2im(const rx__op *op, const float *col, int n, int i0, int b,
                   float *din)
{
    const int h = op->h, w = op->w, k = op->k, s = op->stride, p = op->pad;
    const int oh = op->oh, ow = op->ow;
    const size_t ohw = (size_t)oh * ow, cols = (size_t)b * ohw;
    const size_t hw = (size_t)h * w;
    for (int ci = 0; ci < op->c; ++ci)
        memset(din + ((size_t)ci * n + i0) * hw, 0,
               sizeof(float) * hw * (size_t)b);
    for (int ci = 0; ci < op->c; ++ci)
        for (int kh = 0; kh < k; ++kh)
            for (int kw = 0; kw < k; ++kw) {
                const float *src =
                    col + ((size_t)(ci * k + kh) * k + kw) * cols;
                int x0 = p - kw, x1 = w + p - kw;
                if (x0 < 0)
                    x0 = 0;
                if (x1 > ow)
                    x1 = ow;
                for (int ii = 0; ii < b; ++ii) {
                    float *plane = din + ((size_t)ci * n + i0 + ii) * hw;
                    for (int y = 0; y < oh; ++y) {
                        const int iy = y * s - p + kh;
                        if (iy < 0 || iy >= h)
                            continue;
                        const float *d = src + ii * ohw + (size_t)y * ow;
                        float *row = plane + (size_t)iy * w;
                        if (s == 1) {
                            float *r = row - p + kw;
                            for (int x = x0; x < x1; ++x)
                                r[x] += d[x];
                        } else {
                            for (int x = 0; x < ow; ++x) {
                                const int ix = x * s - p + kw;
                                if (ix >= 0 && ix < w)
                                    row[ix] += d[x];
                            }
                        }
                    }
                }
            }
}

static void conv_forward(const rx__op *op, rx__netws *ws, const float *w,
                         const float *in, float *out, int n)
{
    const int K = op->c * op->k * op->k;
    const size_t ohw = (size_t)op->oh * op->ow;
    const int chunk = rx__conv_chunk(op, ws);
    const float *W = w + op->woff, *bias = w + op->boff;
    for (int i0 = 0; i0 < n; i0 += chunk) {
        const int b = n - i0 < chunk ? n - i0 : chunk;
        const int cols = (int)((size_t)b * ohw);
        float *o = out + (size_t)i0 * ohw;
        im2col(op, in, n, i0, b, ws->col);
        rx__gemm(&ws->g, 0, 0, op->oc, cols, K, 1.0f, W, K, ws->col, cols,
                 0.0f, o, (int)((size_t)n * ohw));
        for (int co = 0; co < op->oc; ++co) {
            float *r = o + (size_t)co * n * ohw;
            const float bb = bias[co];
            for (int j = 0; j < cols; ++j)
                r[j] += bb;
        }
    }
}

static void conv_backward(const rx__op *op, rx__netws *ws, const float *w,
                          const float *in, const float *dout, float *din,
                          float *gw, int n)
{
    const int K = op->c * op->k * op->k;
    const size_t ohw = (size_t)op->oh * op->ow;
    const int ld = (int)((size_t)n * ohw);
    const int chunk = rx__conv_chunk(op, ws);
    const float *W = w + op->woff;
    float *gW = gw + op->woff, *gb = gw + op->boff;
    for (int i0 = 0; i0 < n; i0 += chunk) {
        const int b = n - i0 < chunk ? n - i0 : chunk;
        const int cols = (int)((size_t)b * ohw);
        const float *d = dout + (size_t)i0 * ohw;
        im2col(op, in, n, i0, b, ws->col);
        rx__gemm(&ws->g, 0, 1, op->oc, K, cols, 1.0f, d, ld, ws->col, cols,
                 1.0f, gW, K);
        for (int co = 0; co < op->oc; ++co) {
            const float *r = d + (size_t)co * n * ohw;
            float s = 0.0f;
            for (int j = 0; j < cols; ++j)
                s += r[j];
            gb[co] += s;
        }
        if (din) {
            rx__gemm(&ws->g, 1, 0, K, cols, op->oc, 1.0f, W, K, d, ld, 0.0f,
                     ws->col, cols);
            col2im(op, ws->col, n, i0, b, din);
        }
    }
}

/* Max over each window of each (channel, image) plane; the plane order is
 * the same in both layouts, so pooling needs no layout change. Ties keep
 * the first (row-major) position. */
static void pool_forward(const rx__op *op, const float *in, float *out,
                         int32_t *arg, int n)
{
    const int h = op->h, w = op->w, k = op->k, s = op->stride;
    const int oh = op->oh, ow = op->ow;
    const size_t planes = (size_t)op->c * n, hw = (size_t)h * w;
    const size_t ohw = (size_t)oh * ow;
    for (size_t pl = 0; pl < planes; ++pl) {
        const float *src = in + pl * hw;
        float *dst = out + pl * ohw;
        int32_t *ag = arg + pl * ohw;
        if (k == 2 && s == 2) {
            for (int y = 0; y < oh; ++y) {
                const float *r0 = src + (size_t)(2 * y) * w, *r1 = r0 + w;
                for (int x = 0; x < ow; ++x) {
                    const int j = 2 * x;
                    float m = r0[j];
                    int32_t a = 2 * y * w + j;
                    if (r0[j + 1] > m) {
                        m = r0[j + 1];
                        a = 2 * y * w + j + 1;
                    }
                    if (r1[j] > m) {
                        m = r1[j];
                        a = (2 * y + 1) * w + j;
                    }
                    if (r1[j + 1] > m) {
                        m = r1[j + 1];
                        a = (2 * y + 1) * w + j + 1;
                    }
                    dst[y * ow + x] = m;
                    ag[y * ow + x] = a;
                }
            }
            continue;
        }
        for (int y = 0; y < oh; ++y)
            for (int x = 0; x < ow; ++x) {
                int32_t a = (y * s) * w + x * s;
                float m = src[a];
                for (int ky = 0; ky < k; ++ky)
                    for (int kx = 0; kx < k; ++kx) {
                        const int32_t j = (y * s + ky) * w + x * s + kx;
                        if (src[j] > m) {
                            m = src[j];
                            a = j;
                        }
                    }
                dst[y * ow + x] = m;
                ag[y * ow + x] = a;
            }
    }
}

static void pool_backward(const rx__op *op, const float *dout,
                          const int32_t *arg, float *din, int n)
{
    const size_t planes = (size_t)op->c * n, hw = (size_t)op->h * op->w;
    const size_t ohw = (size_t)op->oh * op->ow;
    memset(din, 0, sizeof(float) * planes * hw);
    for (size_t pl = 0; pl < planes; ++pl) {
        float *d = din + pl * hw;
        const float *g = dout + pl * ohw;
        const int32_t *ag = arg + pl * ohw;
        for (size_t j = 0; j < ohw; ++j)
            d[ag[j]] += g[j];
    }
}

static void dense_forward(const rx__op *op, rx__netws *ws, const float *w,
                          const float *in, float *out, int n)
{
    const int F = (int)op->in_sz, U = op->ow;
    const float *bias = w + op->boff;
    for (int i = 0; i < n; ++i)
        memcpy(out + (size_t)i * U, bias, sizeof(float) * (size_t)U);
    rx__gemm(&ws->g, 0, 0, n, U, F, 1.0f, in, F, w + op->woff, U, 1.0f, out,
             U);
}

static void dense_backward(const rx__op *op, rx__netws *ws, const float *w,
                           const float *in, const float *dout, float *din,
                           float *gw, int n)
{
    const int F = (int)op->in_sz, U = op->ow;
    rx__gemm(&ws->g, 1, 0, F, U, n, 1.0f, in, F, dout, U, 1.0f,
             gw + op->woff, U);
    float *gb = gw + op->boff;
    for (int i = 0; i < n; ++i) {
        const float *r = dout + (size_t)i * U;
        for (int j = 0; j < U; ++j)
            gb[j] += r[j];
    }
    if (din)
        rx__gemm(&ws->g, 0, 1, n, F, U, 1.0f, dout, U, w + op->woff, U, 0.0f,
                 din, F);
}

/* CNHW (c planes-of-n) <-> NF; hw floats move as one block. */
static void to_nf(const float *in, float *out, int c, size_t hw, int n)
{
    for (int ci = 0; ci < c; ++ci)
        for (int i = 0; i < n; ++i)
            memcpy(out + ((size_t)i * c + ci) * hw,
                   in + ((size_t)ci * n + i) * hw, sizeof(float) * hw);
}

static void to_cnhw(const float *in, float *out, int c, size_t hw, int n)
{
    for (int ci = 0; ci < c; ++ci)
        for (int i = 0; i < n; ++i)
            memcpy(out + ((size_t)ci * n + i) * hw,
                   in + ((size_t)i * c + ci) * hw, sizeof(float) * hw);
}

void rx__op_forward(const rx__op *op, rx__netws *ws, const float *w,
                    const float *in, float *out, int n)
{
    const size_t len = op->out_sz * (size_t)n;
    const size_t hw = (size_t)op->h * op->w;
    switch (op->kind) {
    case RX__OP_DENSE:
        dense_forward(op, ws, w, in, out, n);
        break;
    case RX__OP_CONV:
        conv_forward(op, ws, w, in, out, n);
        break;
    case RX__OP_POOL:
        pool_forward(op, in, out, ws->arg[op->pool_idx], n);
        break;
    case RX__OP_RELU:
        if (in == out)
            for (size_t j = 0; j < len; ++j)
                out[j] = out[j] > 0.0f ? out[j] : 0.0f;
        else
            for (size_t j = 0; j < len; ++j)
                out[j] = in[j] > 0.0f ? in[j] : 0.0f;
        break;
    case RX__OP_TANH:
        for (size_t j = 0; j < len; ++j)
            out[j] = tanhf(in[j]);
        break;
    case RX__OP_TO_NF:
        to_nf(in, out, op->c, hw, n);
        break;
    case RX__OP_TO_CNHW:
        to_cnhw(in, out, op->c, hw, n);
        break;
    }
}

void rx__op_backward(const rx__op *op, rx__netws *ws, const float *w,
                     const float *in, const float *out, float *dout,
                     float *din, float *gw, int n)
{
    const size_t len = op->out_sz * (size_t)n;
    const size_t hw = (size_t)op->h * op->w;
    switch (op->kind) {
    case RX__OP_DENSE:
        dense_backward(op, ws, w, in, dout, din, gw, n);
        break;
    case RX__OP_CONV:
        conv_backward(op, ws, w, in, dout, din, gw, n);
        break;
    case RX__OP_POOL:
        pool_backward(op, dout, ws->arg[op->pool_idx], din, n);
        break;
    case RX__OP_RELU: /* y > 0 exactly where the input was > 0 */
        if (din == dout) /* one pointer: no alias check, vectorised */
            for (size_t j = 0; j < len; ++j)
                dout[j] = out[j] > 0.0f ? dout[j] : 0.0f;
        else
            for (size_t j = 0; j < len; ++j)
                din[j] = out[j] > 0.0f ? dout[j] : 0.0f;
        break;
    case RX__OP_TANH:
        if (din == dout)
            for (size_t j = 0; j < len; ++j)
                dout[j] *= 1.0f - out[j] * out[j];
        else
            for (size_t j = 0; j < len; ++j)
                din[j] = dout[j] * (1.0f - out[j] * out[j]);
        break;
    case RX__OP_TO_NF:
        to_cnhw(dout, din, op->c, hw, n);
        break;
    case RX__OP_TO_CNHW:
        to_nf(dout, din, op->c, hw, n);
        break;
    }
}
