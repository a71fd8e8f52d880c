/*
 * Forward and backward of one op of a compiled net: dense, conv2d (im2col
 * over a chunk of images, one sgemm per chunk), max-pool (argmax kept),
 * ReLU, tanh, the two layout changes, and lstm (lstm.c). Works on
 * buffers the workspace owns; allocates nothing; touches no parameter but
 * through w and gw.
 */
#include <math.h>
#include <string.h>

#include "direct.h"
#include "gemm.h"
#include "layers.h"
#include "lstm.h"
#include "vec.h"
#include "winograd.h"

/*
 * Target size of the im2col matrix of one chunk, in floats (256 KiB). The
 * matrix is written once and read by the sgemm (which packs it in panels);
 * keeping it small leaves a core's L2 to the rest of the block's working
 * set (net.c). The MNIST CNN's conv1 then runs chunks of 3 images (GEMMs
 * of 2352 columns); its conv2 needs 613 KiB for one image. 1 MiB chunks
 * (13 images of conv1) were no faster (bench_model, docs/performance.md).
 */
#define RX__COL_TARGET (64 * 1024)

int rx__conv_chunk(const rx__op *op, const rx__netws *ws)
{
    const int max_batch = ws->chunk_cap > 0 && ws->chunk_cap < ws->micro
                              ? ws->chunk_cap
                              : ws->micro;
    const size_t per = (size_t)op->c * op->k * op->k * op->oh * op->ow;
    size_t ch = RX__COL_TARGET / (per ? per : 1);
    if (ch < 1)
        ch = 1;
    if (ch > (size_t)max_batch)
        ch = (size_t)max_batch;
    return (int)ch;
}

/*
 * im2col and col2im go through a zero-bordered copy of the chunk's input
 * (ws->pad: c x b planes of (h + 2 pad) x (w + 2 pad)), so a row segment
 * of the column matrix is a plain copy of out_w floats with no bounds
 * tests. With stride 1 each segment moves as whole 16-float vectors: the
 * lanes past out_w spill into the next segment, which is written after it
 * (the buffers carry RX__SLACK floats for the last one), and col2im masks
 * them out before adding.
 */
static void pad_chunk(const rx__op *op, const float *in, int n, int i0,
                      int b, int hp, int wp, float *pad)
{
    const int h = op->h, w = op->w, p = op->pad;
    const size_t hw = (size_t)h * w, hpwp = (size_t)hp * wp;
    if (hp != h || wp != w)
        memset(pad, 0, sizeof(float) * hpwp * (size_t)op->c * b);
    for (int ci = 0; ci < op->c; ++ci)
        for (int ii = 0; ii < b; ++ii) {
            const float *src = in + ((size_t)ci * n + i0 + ii) * hw;
            float *dst = pad + ((size_t)ci * b + ii) * hpwp +
                         (size_t)p * wp + p;
            for (int y = 0; y < h; ++y)
                memcpy(dst + (size_t)y * wp, src + (size_t)y * w,
                       sizeof(float) * (size_t)w);
        }
}

static void unpad_chunk(const rx__op *op, const float *pad, int hp, int wp,
                        int n, int i0, int b, float *din)
{
    const int h = op->h, w = op->w, p = op->pad;
    const size_t hpwp = (size_t)hp * wp, hw = (size_t)h * w;
    for (int ci = 0; ci < op->c; ++ci)
        for (int ii = 0; ii < b; ++ii) {
            const float *sp = pad + ((size_t)ci * b + ii) * hpwp +
                              (size_t)p * wp + p;
            float *dst = din + ((size_t)ci * n + i0 + ii) * hw;
            for (int y = 0; y < h; ++y)
                memcpy(dst + (size_t)y * w, sp + (size_t)y * wp,
                       sizeof(float) * (size_t)w);
        }
}

RX__CLONES
static void im2col(const rx__op *op, const float *restrict pad, int b,
                   float *restrict col)
{
    const int k = op->k, s = op->stride, oh = op->oh, ow = op->ow;
    const int wp = op->w + 2 * op->pad;
    const size_t hpwp = (size_t)(op->h + 2 * op->pad) * wp;
    const size_t ohw = (size_t)oh * ow, cols = (size_t)b * ohw;
    for (int ci = 0; ci < op->c; ++ci)
        for (int kh = 0; kh < k; ++kh)
            for (int kw = 0; kw < k; ++kw) {
                float *dst = col + ((size_t)(ci * k + kh) * k + kw) * cols;
                for (int ii = 0; ii < b; ++ii) {
                    const float *plane =
                        pad + ((size_t)ci * b + ii) * hpwp + kh * wp + kw;
                    float *d = dst + ii * ohw;
                    for (int y = 0; y < oh; ++y, d += ow) {
                        const float *src = plane + (size_t)y * s * wp;
                        if (s == 1 && ow <= RX__VW) { /* one move */
                            *(rx__vfu *)d = *(const rx__vfu *)src;
                        } else if (s == 1) {
                            for (int x = 0; x < ow; x += RX__VW)
                                *(rx__vfu *)(d + x) =
                                    *(const rx__vfu *)(src + x);
                        } else {
                            for (int x = 0; x < ow; ++x)
                                d[x] = src[x * s];
                        }
                    }
                }
            }
}

/* Adjoint of im2col into dpad (zeroed here), then its interior to din. */
RX__CLONES
static void col2im(const rx__op *op, const float *restrict col, int n,
                   int i0, int b, float *restrict dpad, float *restrict din)
{
    const int h = op->h, w = op->w, p = op->pad, k = op->k, s = op->stride;
    const int oh = op->oh, ow = op->ow, wp = w + 2 * p;
    const size_t hpwp = (size_t)(h + 2 * p) * wp;
    const size_t ohw = (size_t)oh * ow, cols = (size_t)b * ohw;
    memset(dpad, 0, sizeof(float) * hpwp * (size_t)op->c * b);
    /* lanes 0 .. ow % 16 - 1 of the last vector of a segment */
    rx__vi tail;
    for (int j = 0; j < RX__VW; ++j)
        tail[j] = j < ow % RX__VW ? -1 : 0;
    const int full = ow / RX__VW * RX__VW;
    for (int ci = 0; ci < op->c; ++ci)
        for (int kh = 0; kh < k; ++kh)
            for (int kw = 0; kw < k; ++kw) {
                const float *src =
                    col + ((size_t)(ci * k + kh) * k + kw) * cols;
                for (int ii = 0; ii < b; ++ii) {
                    float *plane =
                        dpad + ((size_t)ci * b + ii) * hpwp + kh * wp + kw;
                    const float *d = src + ii * ohw;
                    for (int y = 0; y < oh; ++y, d += ow) {
                        float *row = plane + (size_t)y * s * wp;
                        if (s != 1) {
                            for (int x = 0; x < ow; ++x)
                                row[x * s] += d[x];
                            continue;
                        }
                        int x = 0;
                        for (; x < full; x += RX__VW) {
                            rx__vf v, r;
                            memcpy(&v, d + x, sizeof v);
                            memcpy(&r, row + x, sizeof r);
                            r += v;
                            memcpy(row + x, &r, sizeof r);
                        }
                        if (x < ow) {
                            rx__vi v, r;
                            memcpy(&v, d + x, sizeof v);
                            v &= tail;
                            memcpy(&r, row + x, sizeof r);
                            rx__vf vf, rf;
                            memcpy(&vf, &v, sizeof vf);
                            memcpy(&rf, &r, sizeof rf);
                            rf += vf;
                            memcpy(row + x, &rf, sizeof rf);
                        }
                    }
                }
            }
    unpad_chunk(op, dpad, h + 2 * p, wp, n, i0, b, din);
}

static void conv_forward(const rx__op *op, rx__netws *ws, const float *w,
                         const float *in, float *out, int n)
{
    if (op->algo == RX_CONV_WINOGRAD) {
        rx__wino_forward(op, ws, w, in, out, n);
        return;
    }
    if (op->algo == RX_CONV_DIRECT) {
        rx__direct_forward(op, ws, w, in, out, n);
        return;
    }
    const int K = op->c * op->k * op->k;
    const size_t ohw = (size_t)op->oh * op->ow;
    const int chunk = rx__conv_chunk(op, ws);
    const float *W = w + op->woff, *bias = w + op->boff;
    for (int i0 = 0; i0 < n; i0 += chunk) {
        const int b = n - i0 < chunk ? n - i0 : chunk;
        const int cols = (int)((size_t)b * ohw);
        float *o = out + (size_t)i0 * ohw;
        pad_chunk(op, in, n, i0, b, op->h + 2 * op->pad, op->w + 2 * op->pad,
                      ws->pad);
        im2col(op, ws->pad, b, ws->col);
        rx__gemm(&ws->g, 0, 0, op->oc, cols, K, 1.0f, W, K, ws->col, cols,
                 0.0f, o, (int)((size_t)n * ohw));
        for (int co = 0; co < op->oc; ++co)
            rx__add_const(o + (size_t)co * n * ohw, (size_t)cols, bias[co]);
    }
}

static void conv_backward(const rx__op *op, rx__netws *ws, const float *w,
                          const float *in, const float *dout, float *din,
                          float *gw, int n)
{
    if (op->algo == RX_CONV_WINOGRAD) {
        rx__wino_backward(op, ws, w, in, dout, din, gw, n);
        return;
    }
    if (op->algo == RX_CONV_DIRECT) {
        rx__direct_backward(op, ws, w, in, dout, din, gw, n);
        return;
    }
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
        pad_chunk(op, in, n, i0, b, op->h + 2 * op->pad, op->w + 2 * op->pad,
                      ws->pad);
        im2col(op, ws->pad, b, ws->col);
        rx__gemm(&ws->g, 0, 1, op->oc, K, cols, 1.0f, d, ld, ws->col, cols,
                 1.0f, gW, K);
        for (int co = 0; co < op->oc; ++co)
            gb[co] += rx__row_sum(d + (size_t)co * n * ohw, (size_t)cols);
        if (din) {
            rx__gemm(&ws->g, 1, 0, K, cols, op->oc, 1.0f, W, K, d, ld, 0.0f,
                     ws->col, cols);
            col2im(op, ws->col, n, i0, b, ws->pad, din);
        }
    }
}

/*
 * 2x2 windows, stride 2, up to 16 outputs a row: one output row at a time
 * as vectors. The two input rows are copied into zero-padded 32-float
 * buffers (no read past the plane), split into even and odd columns by
 * shuffles, and the four candidates are compared in row-major order with
 * strict > (ties keep the first), exactly as the scalar loop; the data
 * decide nothing by branches.
 */
RX__CLONES
static void pool2_rows(const float *restrict src, int w, int oh, int ow,
                       float *restrict dst, uint16_t *restrict ag)
{
    const size_t hw = (size_t)2 * oh * w, ohw = (size_t)oh * ow;
    for (int y = 0; y < oh; ++y) {
        /* whole-vector loads and stores while they stay inside the
         * plane (lanes past the row read or write the next row, which is
         * written later); padded copies at the end */
        const float *r0 = src + (size_t)(2 * y) * w, *r1 = r0 + w;
        float t[2][2 * RX__VW] = {{0}};
        if ((size_t)(2 * y + 1) * w + 2 * RX__VW > hw) {
            memcpy(t[0], r0, sizeof(float) * 2 * ow);
            memcpy(t[1], r1, sizeof(float) * 2 * ow);
            r0 = t[0], r1 = t[1];
        }
        rx__vf a0, a1, b0, b1;
        memcpy(&a0, r0, sizeof a0);
        memcpy(&a1, r0 + RX__VW, sizeof a1);
        memcpy(&b0, r1, sizeof b0);
        memcpy(&b1, r1 + RX__VW, sizeof b1);
#define RX__EVEN 0, 2, 4, 6, 8, 10, 12, 14, 16, 18, 20, 22, 24, 26, 28, 30
#define RX__ODD 1, 3, 5, 7, 9, 11, 13, 15, 17, 19, 21, 23, 25, 27, 29, 31
        const rx__vf c[4] = {__builtin_shufflevector(a0, a1, RX__EVEN),
                             __builtin_shufflevector(a0, a1, RX__ODD),
                             __builtin_shufflevector(b0, b1, RX__EVEN),
                             __builtin_shufflevector(b0, b1, RX__ODD)};
#undef RX__EVEN
#undef RX__ODD
        rx__vf m = c[0];
        rx__vi a = {0}; /* the window offset of the max, 0 .. 3 */
        for (int q = 1; q < 4; ++q) {
            const rx__vi gt = c[q] > m; /* all ones where strictly greater */
            rx__vi mi, ci;
            memcpy(&mi, &m, sizeof mi);
            memcpy(&ci, &c[q], sizeof ci);
            mi = (ci & gt) | (mi & ~gt);
            memcpy(&m, &mi, sizeof m);
            a = (q & gt) | (a & ~gt);
        }
        const rx__vu16 a16 = __builtin_convertvector(a, rx__vu16);
        if ((size_t)y * ow + RX__VW <= ohw) {
            memcpy(dst + (size_t)y * ow, &m, sizeof m);
            memcpy(ag + (size_t)y * ow, &a16, sizeof a16);
        } else {
            float mo[RX__VW];
            uint16_t ao[RX__VW];
            memcpy(mo, &m, sizeof mo);
            memcpy(ao, &a16, sizeof ao);
            memcpy(dst + (size_t)y * ow, mo, sizeof(float) * ow);
            memcpy(ag + (size_t)y * ow, ao, sizeof(uint16_t) * ow);
        }
    }
}

/* Max over each window of each (channel, image) plane; the plane order is
 * the same in both layouts, so pooling needs no layout change. Ties keep
 * the first (row-major) position. */
static void pool_forward(const rx__op *op, const float *in, float *out,
                         uint16_t *arg, int n)
{
    const int h = op->h, w = op->w, k = op->k, s = op->stride;
    const int oh = op->oh, ow = op->ow;
    const size_t planes = (size_t)op->c * n, hw = (size_t)h * w;
    const size_t ohw = (size_t)oh * ow;
    if (k == 2 && s == 2 && ow <= RX__VW && h == 2 * oh && w == 2 * ow) {
        for (size_t pl = 0; pl < planes; ++pl)
            pool2_rows(in + pl * hw, w, oh, ow, out + pl * ohw,
                       arg + pl * ohw);
        return;
    }
    for (size_t pl = 0; pl < planes; ++pl) {
        const float *src = in + pl * hw;
        float *dst = out + pl * ohw;
        uint16_t *ag = arg + pl * ohw;
        if (k == 2 && s == 2) {
            for (int y = 0; y < oh; ++y) {
                const float *r0 = src + (size_t)(2 * y) * w, *r1 = r0 + w;
                for (int x = 0; x < ow; ++x) {
                    const int j = 2 * x;
                    float m = r0[j];
                    uint16_t a = 0;
                    if (r0[j + 1] > m) {
                        m = r0[j + 1];
                        a = 1;
                    }
                    if (r1[j] > m) {
                        m = r1[j];
                        a = 2;
                    }
                    if (r1[j + 1] > m) {
                        m = r1[j + 1];
                        a = 3;
                    }
                    dst[y * ow + x] = m;
                    ag[y * ow + x] = a;
                }
            }
            continue;
        }
        for (int y = 0; y < oh; ++y)
            for (int x = 0; x < ow; ++x) {
                int a = 0;
                float m = src[(size_t)(y * s) * w + x * s];
                for (int ky = 0; ky < k; ++ky)
                    for (int kx = 0; kx < k; ++kx) {
                        const float v = src[(size_t)(y * s + ky) * w + x * s + kx];
                        if (v > m) {
                            m = v;
                            a = ky * k + kx;
                        }
                    }
                dst[y * ow + x] = m;
                ag[y * ow + x] = (uint16_t)a;
            }
    }
}

/* The adjoint of pool2_rows for windows that tile the plane: each input
 * gets its window's gradient where it was the argmax, else 0, written as
 * two interleaved rows of whole vectors (padded copies at the end). */
RX__CLONES
static void unpool2_rows(const float *restrict g,
                         const uint16_t *restrict ag, int w, int oh, int ow,
                         float *restrict d)
{
    const size_t hw = (size_t)2 * oh * w, ohw = (size_t)oh * ow;
    for (int y = 0; y < oh; ++y) {
        rx__vf gv;
        rx__vu16 a16;
        if ((size_t)y * ow + RX__VW <= ohw) {
            memcpy(&gv, g + (size_t)y * ow, sizeof gv);
            memcpy(&a16, ag + (size_t)y * ow, sizeof a16);
        } else {
            float gt[RX__VW] = {0};
            uint16_t at[RX__VW] = {0};
            memcpy(gt, g + (size_t)y * ow, sizeof(float) * ow);
            memcpy(at, ag + (size_t)y * ow, sizeof(uint16_t) * ow);
            memcpy(&gv, gt, sizeof gv);
            memcpy(&a16, at, sizeof a16);
        }
        const rx__vi a = __builtin_convertvector(a16, rx__vi);
        rx__vi gi;
        memcpy(&gi, &gv, sizeof gi);
        rx__vi e[4] = {gi & (a == 0), gi & (a == 1), gi & (a == 2),
                       gi & (a == 3)};
        rx__vi o[4] = {
            __builtin_shufflevector(e[0], e[1], 0, 16, 1, 17, 2, 18, 3, 19, 4,
                                    20, 5, 21, 6, 22, 7, 23),
            __builtin_shufflevector(e[0], e[1], 8, 24, 9, 25, 10, 26, 11, 27,
                                    12, 28, 13, 29, 14, 30, 15, 31),
            __builtin_shufflevector(e[2], e[3], 0, 16, 1, 17, 2, 18, 3, 19, 4,
                                    20, 5, 21, 6, 22, 7, 23),
            __builtin_shufflevector(e[2], e[3], 8, 24, 9, 25, 10, 26, 11, 27,
                                    12, 28, 13, 29, 14, 30, 15, 31)};
        float *r0 = d + (size_t)(2 * y) * w;
        if ((size_t)(2 * y + 1) * w + 2 * RX__VW <= hw) {
            /* lanes past a row spill into the next one, written after */
            memcpy(r0, &o[0], sizeof o[0]);
            memcpy(r0 + RX__VW, &o[1], sizeof o[1]);
            memcpy(r0 + w, &o[2], sizeof o[2]);
            memcpy(r0 + w + RX__VW, &o[3], sizeof o[3]);
        } else {
            float t[4][RX__VW];
            memcpy(t, o, sizeof t);
            memcpy(r0, t[0], sizeof(float) * 2 * ow);
            memcpy(r0 + w, t[2], sizeof(float) * 2 * ow);
        }
    }
}

static void pool_backward(const rx__op *op, const float *dout,
                          const uint16_t *arg, float *din, int n)
{
    const size_t planes = (size_t)op->c * n, hw = (size_t)op->h * op->w;
    const size_t ohw = (size_t)op->oh * op->ow;
    const int w = op->w;
    if (op->k == 2 && op->stride == 2 && op->h == 2 * op->oh &&
        op->w == 2 * op->ow) { /* windows tile the plane: one write each */
        if (op->ow <= RX__VW) {
            for (size_t pl = 0; pl < planes; ++pl)
                unpool2_rows(dout + pl * ohw, arg + pl * ohw, w, op->oh,
                             op->ow, din + pl * hw);
            return;
        }
        for (size_t pl = 0; pl < planes; ++pl) {
            float *d = din + pl * hw;
            const float *g = dout + pl * ohw;
            const uint16_t *ag = arg + pl * ohw;
            for (int y = 0; y < op->oh; ++y) {
                float *r0 = d + (size_t)(2 * y) * w, *r1 = r0 + w;
                for (int x = 0; x < op->ow; ++x) {
                    const int a = ag[y * op->ow + x];
                    const float gv = g[y * op->ow + x];
                    r0[2 * x] = a == 0 ? gv : 0.0f;
                    r0[2 * x + 1] = a == 1 ? gv : 0.0f;
                    r1[2 * x] = a == 2 ? gv : 0.0f;
                    r1[2 * x + 1] = a == 3 ? gv : 0.0f;
                }
            }
        }
        return;
    }
    const int k = op->k, s = op->stride;
    memset(din, 0, sizeof(float) * planes * hw);
    for (size_t pl = 0; pl < planes; ++pl) {
        float *d = din + pl * hw;
        const float *g = dout + pl * ohw;
        const uint16_t *ag = arg + pl * ohw;
        for (int y = 0; y < op->oh; ++y)
            for (int x = 0; x < op->ow; ++x) {
                const int a = ag[y * op->ow + x];
                d[(size_t)(y * s + a / k) * w + x * s + a % k] +=
                    g[y * op->ow + x];
            }
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
    case RX__OP_LSTM:
        rx__lstm_forward(op, ws, w, in, out, n);
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
        if (op->relu_mask) /* the folded ReLU's backward (ops.h) */
            for (size_t j = 0; j < len; ++j)
                dout[j] = out[j] > 0.0f ? dout[j] : 0.0f;
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
    case RX__OP_LSTM:
        rx__lstm_backward(op, ws, w, in, dout, din, gw, n);
        break;
    }
}
