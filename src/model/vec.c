/*
 * The vector helpers the kernel files share (vec.h): row sums, and the
 * interleaved layout of the Winograd and direct convolutions (a chunk of
 * up to 16 images, one per vector lane).
 */
#include <string.h>

#include "vec.h"

/* r[j] += v over len floats, and the sum of r over len floats, in vector
 * partial sums (a float reduction is not vectorised by the compiler). */
RX__CLONES
void rx__add_const(float *restrict r, size_t len, float v)
{
    for (size_t j = 0; j < len; ++j)
        r[j] += v;
}

RX__CLONES
float rx__row_sum(const float *restrict r, size_t len)
{
    rx__vf acc = {0};
    size_t j = 0;
    for (; j + RX__VW <= len; j += RX__VW) {
        rx__vf v;
        memcpy(&v, r + j, sizeof v);
        acc += v;
    }
    float t[RX__VW], s = 0.0f;
    memcpy(t, &acc, sizeof t);
    for (int q = RX__VW / 2; q >= 1; q /= 2)
        for (int l = 0; l < q; ++l)
            t[l] += t[l + q];
    for (; j < len; ++j)
        s += r[j];
    return t[0] + s;
}

int rx__il_chunk(const rx__netws *ws)
{
    int ch = ws->chunk_cap > 0 && ws->chunk_cap < ws->micro ? ws->chunk_cap
                                                            : ws->micro;
    return ch < RX__VW ? ch : RX__VW;
}

/*
 * dst[(y dw + x) 16 + l] = src[l sstride + y w + x] for l < b (b source
 * planes of h x w, sstride apart), 0 for l >= b: each destination vector
 * is built in a local array and stored whole, reading the b planes as b
 * sequential streams. And back (deinterleave).
 */
RX__CLONES
static void interleave(const float *restrict src, size_t sstride, int b,
                       int h, int w, float *restrict dst, int dw)
{
    const int hw = h * w;
    int q = 0, y = 0, x = 0; /* (y, x) = pixel q */
    for (; q + RX__VW <= hw; q += RX__VW) {
        rx__vf r[RX__VW];
        for (int l = 0; l < RX__VW; ++l) {
            if (l < b)
                memcpy(&r[l], src + (size_t)l * sstride + q, sizeof r[l]);
            else
                r[l] = (rx__vf){0};
        }
        rx__transpose16(r);
        for (int j = 0; j < RX__VW; ++j) {
            memcpy(dst + ((size_t)y * dw + x) * RX__VW, &r[j], sizeof r[j]);
            if (++x == w)
                x = 0, ++y;
        }
    }
    for (; q < hw; ++q) {
        float v[RX__VW] = {0};
        for (int l = 0; l < b; ++l)
            v[l] = src[(size_t)l * sstride + q];
        memcpy(dst + ((size_t)y * dw + x) * RX__VW, v, sizeof v);
        if (++x == w)
            x = 0, ++y;
    }
}

RX__CLONES
void rx__deinterleave(const float *restrict src, int sw, int b, int h,
                         int w, float *restrict dst, size_t dstride)
{
    const int hw = h * w;
    int q = 0, y = 0, x = 0;
    for (; q + RX__VW <= hw; q += RX__VW) {
        rx__vf r[RX__VW];
        for (int j = 0; j < RX__VW; ++j) {
            memcpy(&r[j], src + ((size_t)y * sw + x) * RX__VW, sizeof r[j]);
            if (++x == w)
                x = 0, ++y;
        }
        rx__transpose16(r);
        for (int l = 0; l < b; ++l)
            memcpy(dst + (size_t)l * dstride + q, &r[l], sizeof r[l]);
    }
    for (; q < hw; ++q) {
        const float *v = src + ((size_t)y * sw + x) * RX__VW;
        for (int l = 0; l < b; ++l)
            dst[(size_t)l * dstride + q] = v[l];
        if (++x == w)
            x = 0, ++y;
    }
}

/* The chunk's images interleaved: il[ci][y][x][l] = image i0 + l, channel
 * ci, at (y0 + y - pad, x - pad) for the hb rows y of a band; zero on the
 * border and for l >= b. */
void rx__il_in_rows(const rx__op *op, const float *restrict in, int n,
                    int i0, int b, int y0, int hb, float *restrict il)
{
    const int p = op->pad, ww = op->ww;
    const size_t hw = (size_t)op->h * op->w;
    const int ya = y0 > p ? y0 : p;
    const int yb = y0 + hb < p + op->h ? y0 + hb : p + op->h;
    memset(il, 0, sizeof(float) * RX__VW * (size_t)op->c * hb * ww);
    for (int ci = 0; ya < yb && ci < op->c; ++ci)
        interleave(in + ((size_t)ci * n + i0) * hw + (size_t)(ya - p) * op->w,
                   hw, b, yb - ya, op->w,
                   il + (((size_t)ci * hb + ya - y0) * ww + p) * RX__VW, ww);
}

void rx__il_in(const rx__op *op, const float *restrict in, int n, int i0,
               int b, float *restrict il)
{
    rx__il_in_rows(op, in, n, i0, b, 0, op->wh, il);
}

/* Rows y0 .. y0 + nr - 1 of the interleaved planes (bands of hb rows from
 * y0) that lie inside the input, back to the n-image CNHW din. */
void rx__il_to_din_rows(const rx__op *op, const float *restrict il, int n,
                        int i0, int b, int y0, int hb, int nr,
                        float *restrict din)
{
    const int p = op->pad, ww = op->ww;
    const size_t hw = (size_t)op->h * op->w;
    const int ya = y0 > p ? y0 : p;
    const int yb = y0 + nr < p + op->h ? y0 + nr : p + op->h;
    for (int ci = 0; ya < yb && ci < op->c; ++ci)
        rx__deinterleave(
            il + (((size_t)ci * hb + ya - y0) * ww + p) * RX__VW, ww, b,
            yb - ya, op->w,
            din + ((size_t)ci * n + i0) * hw + (size_t)(ya - p) * op->w, hw);
}

void rx__il_to_din(const rx__op *op, const float *restrict il, int n,
                   int i0, int b, float *restrict din)
{
    rx__il_to_din_rows(op, il, n, i0, b, 0, op->wh, op->wh, din);
}

/* Output rows y0 .. y0 + gh - 1 of the output gradient interleaved over
 * a gh x gw grid (gw >= ow), zero past the plane's edge and for l >= b. */
void rx__il_dy(const rx__op *op, const float *restrict dout, int n, int i0,
               int b, int y0, int gh, int gw, float *restrict il)
{
    const size_t ohw = (size_t)op->oh * op->ow;
    const int rows = op->oh - y0 < gh ? op->oh - y0 : gh;
    if (rows != gh || gw != op->ow)
        memset(il, 0, sizeof(float) * RX__VW * (size_t)op->oc * gh * gw);
    for (int co = 0; co < op->oc; ++co)
        interleave(dout + ((size_t)co * n + i0) * ohw + (size_t)y0 * op->ow,
                   ohw, b, rows, op->ow, il + (size_t)co * gh * gw * RX__VW,
                   gw);
}
