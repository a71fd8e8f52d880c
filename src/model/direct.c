/*
 * Direct convolution, stride 1, for layers with few input channels (the
 * first layer of an image net: 1 channel, where im2col's GEMM has K = k^2
 * = 25 and runs far below peak, and Winograd's has K = 1).
 *
 * A chunk of up to 16 images is interleaved one per vector lane
 * (rx__il_in), so an output pixel of all 16 images is one vector:
 *   out[co][y][x] = b[co] + sum_{ci,kh,kw} W[co][ci][kh][kw] il[ci][y+kh][x+kw]
 * with the weight broadcast. Eight output channels share each input load.
 * The weight gradient sums dy[co][y][x] * il[ci][y+kh][x+kw] per lane and
 * adds the 16 lanes at the end (in a fixed order); the input gradient
 * scatters W dy into an interleaved zero-bordered plane.
 *
 * The output (its gradient) is interleaved a band of rows at a time
 * (RX__DIRECT_BAND_BYTES), not whole planes (the MNIST CNN's conv1: 4 of
 * 28 rows, 229 KiB instead of 1.6 MB); the weight gradient's per-lane
 * sums carry from band to band in memory (dwl), so they run over the rows
 * in order as without bands. The input gradient's sums do not: they run
 * band by band (direct_dx), a function of the shapes only.
 */
#include <string.h>

#include "direct.h"
#include "vec.h"

/* output channels per register block of the forward pass */
#define CO_BLK 8

/* Bytes of one band of the interleaved output (gradient). */
#define RX__DIRECT_BAND_BYTES ((size_t)256 * 1024)

void rx__direct_setup(rx__op *op)
{
    op->algo = RX_CONV_DIRECT;
    op->wh = op->h + 2 * op->pad;
    op->ww = op->w + 2 * op->pad;
    const size_t row = sizeof(float) * RX__VW * (size_t)op->oc * op->ow;
    const size_t hb = RX__DIRECT_BAND_BYTES / row;
    op->gr = hb < 1 ? 1 : hb > (size_t)op->oh ? op->oh : (int)hb;
}

void rx__direct_sizes(const rx__op *op, size_t *pad, size_t *dy,
                      size_t *dwl)
{
    *pad = (size_t)op->c * op->wh * op->ww * RX__VW;
    *dy = (size_t)op->oc * op->gr * op->ow * RX__VW;
    *dwl = (size_t)op->oc * op->c * op->k * op->k * RX__VW;
}

/* out (interleaved: oc planes of oh x ow vectors) = b + W * il. */
RX__CLONES
static void direct_out(const rx__op *op, const float *restrict il,
                       const float *restrict W, const float *restrict bias,
                       int y0, int ny, float *restrict out)
{
    const int k = op->k, c = op->c, ow = op->ow, ww = op->ww;
    const size_t plane = (size_t)op->wh * ww, ohw = (size_t)ny * ow;
    const int taps = c * k * k;
    for (int c0 = 0; c0 < op->oc; c0 += CO_BLK) {
        const int nb = op->oc - c0 < CO_BLK ? op->oc - c0 : CO_BLK;
        float wb[CO_BLK][RX__DIRECT_TAPS], bb[CO_BLK];
        for (int j = 0; j < CO_BLK; ++j) { /* padded block: repeat c0 */
            const int cj = c0 + (j < nb ? j : 0);
            bb[j] = bias[cj];
            for (int t = 0; t < taps; ++t)
                wb[j][t] = W[(size_t)cj * taps + t];
        }
        for (int y = y0; y < y0 + ny; ++y)
            for (int x = 0; x < ow; ++x) {
                rx__vf acc[CO_BLK];
                for (int j = 0; j < CO_BLK; ++j)
                    acc[j] = (rx__vf){0} + bb[j];
                for (int ci = 0; ci < c; ++ci)
                    for (int kh = 0; kh < k; ++kh)
                        for (int kw = 0; kw < k; ++kw) {
                            rx__vf v;
                            rx__vld(&v, il + (ci * plane +
                                            (size_t)(y + kh) * ww + x + kw) *
                                               RX__VW);
                            const int t = (ci * k + kh) * k + kw;
                            for (int j = 0; j < CO_BLK; ++j)
                                acc[j] += wb[j][t] * v;
                        }
                for (int j = 0; j < nb; ++j)
                    rx__vst(out + ((size_t)(c0 + j) * ohw +
                                   (size_t)(y - y0) * ow + x) *
                                     RX__VW,
                           &acc[j]);
            }
    }
}

/* dwl[co][t] (vectors) += dy * input tap t over the band's pixels: rows
 * y0 .. y0 + ny - 1, dy holding them. */
RX__CLONES
static void direct_dw(const rx__op *op, const float *restrict il,
                      const float *restrict dy, int y0, int ny,
                      float *restrict dwl)
{
    const int k = op->k, c = op->c, ow = op->ow, ww = op->ww;
    const size_t plane = (size_t)op->wh * ww;
    const int taps = c * k * k;
    for (int co = 0; co < op->oc; ++co)
        for (int ci = 0; ci < c; ++ci)
            for (int kh = 0; kh < k; ++kh) {
                rx__vf acc[RX__WA];
                float *a = dwl + ((size_t)co * taps + (ci * k + kh) * k) *
                                     RX__VW;
                for (int kw = 0; kw < k; ++kw)
                    rx__vld(&acc[kw], a + (size_t)kw * RX__VW);
                for (int y = y0; y < y0 + ny; ++y) {
                    const float *drow =
                        dy + ((size_t)co * ny + (y - y0)) * ow * RX__VW;
                    const float *irow =
                        il + (ci * plane + (size_t)(y + kh) * ww) * RX__VW;
                    for (int x = 0; x < ow; ++x) {
                        rx__vf d;
                        rx__vld(&d, drow + (size_t)x * RX__VW);
                        for (int kw = 0; kw < k; ++kw) {
                            rx__vf v;
                            rx__vld(&v, irow + (size_t)(x + kw) * RX__VW);
                            acc[kw] += d * v;
                        }
                    }
                }
                for (int kw = 0; kw < k; ++kw)
                    rx__vst(a + (size_t)kw * RX__VW, &acc[kw]);
            }
}

/* gW[co][t] += the 16 lanes of dwl[co][t], in lane order. */
static void direct_dw_sum(const rx__op *op, const float *dwl, float *gW)
{
    const size_t n = (size_t)op->oc * op->c * op->k * op->k;
    for (size_t q = 0; q < n; ++q) {
        float s = 0.0f;
        for (int l = 0; l < RX__VW; ++l)
            s += dwl[q * RX__VW + (size_t)l];
        gW[q] += s;
    }
}

/* dil (zeroed by the caller) += W^T dy, scattered over the taps. Called
 * band by band, so each element of dil sums in (band, co, y) order: its
 * bits depend on the band height op->gr, which the shapes fix (never the
 * thread count); changing RX__DIRECT_BAND_BYTES changes them. */
RX__CLONES
static void direct_dx(const rx__op *op, const float *restrict dy, int y0,
                      int ny, const float *restrict W, float *restrict dil)
{
    const int k = op->k, c = op->c, ow = op->ow, ww = op->ww;
    const size_t plane = (size_t)op->wh * ww;
    const int taps = c * k * k;
    for (int ci = 0; ci < c; ++ci)
        for (int co = 0; co < op->oc; ++co)
            for (int y = y0; y < y0 + ny; ++y)
                for (int kh = 0; kh < k; ++kh) {
                    const float *drow =
                        dy + ((size_t)co * ny + (y - y0)) * ow * RX__VW;
                    float *irow =
                        dil + (ci * plane + (size_t)(y + kh) * ww) * RX__VW;
                    for (int kw = 0; kw < k; ++kw) {
                        const float wt =
                            W[(size_t)co * taps + (ci * k + kh) * k + kw];
                        for (int x = 0; x < ow; ++x) {
                            rx__vf d, v;
                            rx__vld(&d, drow + (size_t)x * RX__VW);
                            float *p = irow + (size_t)(x + kw) * RX__VW;
                            rx__vld(&v, p);
                            v += wt * d;
                            rx__vst(p, &v);
                        }
                    }
                }
}

void rx__direct_forward(const rx__op *op, rx__netws *ws, const float *w,
                        const float *in, float *out, int n)
{
    const int chunk = rx__il_chunk(ws);
    const size_t ohw = (size_t)op->oh * op->ow;
    for (int i0 = 0; i0 < n; i0 += chunk) {
        const int b = n - i0 < chunk ? n - i0 : chunk;
        rx__il_in(op, in, n, i0, b, ws->pad);
        for (int y0 = 0; y0 < op->oh; y0 += op->gr) {
            const int ny = op->oh - y0 < op->gr ? op->oh - y0 : op->gr;
            direct_out(op, ws->pad, w + op->woff, w + op->boff, y0, ny,
                       ws->wmo);
            for (int co = 0; co < op->oc; ++co)
                rx__deinterleave(ws->wmo + (size_t)co * ny * op->ow * RX__VW,
                                 op->ow, b, ny, op->ow,
                                 out + ((size_t)co * n + i0) * ohw +
                                     (size_t)y0 * op->ow,
                                 ohw);
        }
    }
}

void rx__direct_backward(const rx__op *op, rx__netws *ws, const float *w,
                         const float *in, const float *dout, float *din,
                         float *gw, int n)
{
    const int chunk = rx__il_chunk(ws);
    const size_t ohw = (size_t)op->oh * op->ow;
    const size_t ilf = (size_t)RX__VW * op->c * op->wh * op->ww;
    float *gb = gw + op->boff, *dwl = ws->wdu;
    for (int i0 = 0; i0 < n; i0 += chunk) {
        const int b = n - i0 < chunk ? n - i0 : chunk;
        rx__il_in(op, in, n, i0, b, ws->pad);
        memset(dwl, 0, sizeof(float) * RX__VW * (size_t)op->oc * op->c *
                           op->k * op->k);
        for (int y0 = 0; y0 < op->oh; y0 += op->gr) {
            const int ny = op->oh - y0 < op->gr ? op->oh - y0 : op->gr;
            rx__il_dy(op, dout, n, i0, b, y0, ny, op->ow, ws->wmo);
            direct_dw(op, ws->pad, ws->wmo, y0, ny, dwl);
        }
        direct_dw_sum(op, dwl, gw + op->woff);
        for (int co = 0; co < op->oc; ++co)
            gb[co] += rx__row_sum(dout + ((size_t)co * n + i0) * ohw,
                                  (size_t)b * ohw);
        if (!din)
            continue;
        memset(ws->pad, 0, sizeof(float) * ilf);
        for (int y0 = 0; y0 < op->oh; y0 += op->gr) {
            const int ny = op->oh - y0 < op->gr ? op->oh - y0 : op->gr;
            rx__il_dy(op, dout, n, i0, b, y0, ny, op->ow, ws->wmo);
            direct_dx(op, ws->wmo, y0, ny, w + op->woff, ws->pad);
        }
        rx__il_to_din(op, ws->pad, n, i0, b, din);
    }
}
