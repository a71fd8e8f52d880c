/*
 * Conv2d (stride 1) by Winograd's minimal filtering F(m x m, k x k) on
 * RX__WA x RX__WA input tiles, m = RX__WA - k + 1 (Lavin and Gray 2016):
 *
 *   Y = A^T [ (G g G^T) (.) (B^T d B) ] A
 *
 * for an input tile d, a k x k kernel g and an m x m output tile Y. Summed
 * over input channels, every one of the RX__WA^2 tile positions is one
 * GEMM: M[pos] (oc x tiles) = U[pos] (oc x c) . V[pos] (c x tiles); all
 * three (forward, dV, dU) run in pgemm.c's fused multiply-adds. For the
 * MNIST CNN's conv2 (k = 5, m = 4) that is 4.8x fewer multiply-adds than
 * the direct product on its 14x14 outputs (16 tiles of 4x4 cover 16x16).
 *
 * The backward pass is the exact adjoint of that computation (so the
 * gradient is the gradient of the function the forward computes):
 *   dM = A dY A^T,  dU[pos] = sum over tiles dM[pos] V[pos]^T,
 *   dV[pos] = U[pos]^T dM[pos],  dd = B dV B^T (added into overlapping
 *   input tiles),  dg = G^T dU G.
 *
 * The transforms come from the Toom-Cook construction with the points
 * 0, 1, -1, 2, -2, 1/2, -1/2 and infinity: correlation is the transpose of
 * linear convolution, s = C [(E_k h) (.) (E_m x)] with E_n the n-column
 * evaluation (Vandermonde) matrix and C = E_RX__WA^-1, so A = E_m,
 * G = E_k and B = C. They are computed once per op in double and rounded to
 * float. Accuracy in float32 is that of F(6x6, 3x3), which shares the
 * points; tests/test_model.c compares against the im2col path.
 *
 * A chunk is up to 16 images, one per lane of a 16-float GNU vector: the
 * chunk's input (and the output gradient) is first interleaved so that
 * pixel (y, x) of channel c of the 16 images is one vector, and every
 * transform is then whole-vector loads, multiply-adds and stores. Column
 * r * b + l of V[pos] and M[pos] is tile r of image l (b images in the
 * chunk); the 16-lane stores of tile r spill past its b columns into tile
 * r + 1's, which are written after them, and the rows have room for the
 * last tile's spill (ld_t). The dU GEMM (a sum over columns) reads only
 * the T = tiles * b columns; the others (rx__pmm) compute whole vectors
 * of columns, whose padding is never read.
 */
#include <math.h>
#include <string.h>

#include "gemm.h"
#include "pgemm.h"
#include "vec.h"
#include "winograd.h"

#define WA RX__WA
#ifndef RX__WINO_OWN_GEMM
#define RX__WINO_OWN_GEMM 1
#endif
#define WP (RX__WA * RX__WA)

/* Bytes of V plus M for one group of tiles (of a 16-image chunk): the
 * transforms and GEMMs of a group then stay in L2 (2 MiB a core here)
 * with the rest of the block's working set, instead of streaming 6 MiB
 * (the MNIST CNN's conv2, 16 tiles) through L3. That conv's groups are
 * 2 tiles (768 KiB). */
#define RX__WINO_GROUP_BYTES ((size_t)768 * 1024)

int rx__wino_fits(int k, int stride)
{
    return stride == 1 && k >= 2 && k <= WA - 1;
}

/* Gauss-Jordan with partial pivoting; returns 0 if singular. */
static int invert(double a[WA][WA], double inv[WA][WA])
{
    for (int i = 0; i < WA; ++i)
        for (int j = 0; j < WA; ++j)
            inv[i][j] = i == j;
    for (int col = 0; col < WA; ++col) {
        int piv = col;
        for (int r = col + 1; r < WA; ++r)
            if (fabs(a[r][col]) > fabs(a[piv][col]))
                piv = r;
        if (a[piv][col] == 0.0)
            return 0;
        for (int j = 0; j < WA; ++j) {
            double t = a[col][j];
            a[col][j] = a[piv][j];
            a[piv][j] = t;
            t = inv[col][j];
            inv[col][j] = inv[piv][j];
            inv[piv][j] = t;
        }
        const double d = a[col][col];
        for (int j = 0; j < WA; ++j) {
            a[col][j] /= d;
            inv[col][j] /= d;
        }
        for (int r = 0; r < WA; ++r) {
            if (r == col || a[r][col] == 0.0)
                continue;
            const double f = a[r][col];
            for (int j = 0; j < WA; ++j) {
                a[r][j] -= f * a[col][j];
                inv[r][j] -= f * inv[col][j];
            }
        }
    }
    return 1;
}

/* Row a of the n-column evaluation matrix: p^0 .. p^(n-1) at the finite
 * point p = pts[a], or the leading coefficient (infinity, a = WA - 1). */
static double eval(int a, int j, int n)
{
    static const double pts[WA - 1] = {0.0, 1.0, -1.0, 2.0, -2.0, 0.5, -0.5};
    if (a == WA - 1)
        return j == n - 1 ? 1.0 : 0.0;
    double v = 1.0;
    for (int e = 0; e < j; ++e)
        v *= pts[a];
    return v;
}

void rx__wino_setup(rx__op *op)
{
    const int k = op->k, m = WA - k + 1;
    double e[WA][WA], c[WA][WA];
    for (int a = 0; a < WA; ++a)
        for (int j = 0; j < WA; ++j)
            e[a][j] = eval(a, j, WA);
    /* distinct points: E is a non-singular Vandermonde matrix */
    (void)invert(e, c);
    memset(op->wat, 0, sizeof op->wat);
    memset(op->wg, 0, sizeof op->wg);
    for (int i = 0; i < m; ++i)
        for (int a = 0; a < WA; ++a)
            op->wat[i * WA + a] = (float)eval(a, i, m);
    for (int a = 0; a < WA; ++a)
        for (int j = 0; j < k; ++j)
            op->wg[a * WA + j] = (float)eval(a, j, k);
    for (int a = 0; a < WA; ++a)
        for (int b = 0; b < WA; ++b)
            op->wbt[a * WA + b] = (float)c[b][a];
    op->algo = RX_CONV_WINOGRAD;
    op->wm = m;
    op->th = (op->oh + m - 1) / m;
    op->tw = (op->ow + m - 1) / m;
    op->wh = op->th * m + k - 1;
    op->ww = op->tw * m + k - 1;
    /* tiles per GEMM group, V + M within the budget: whole rows of tiles
     * where a row fits, else part of one row; the output (gradient) grid
     * holds the group's rows of tiles */
    const size_t tile = (size_t)WP * (op->c + op->oc) * RX__VW *
                        sizeof(float);
    size_t tg = RX__WINO_GROUP_BYTES / tile;
    tg = tg < 1 ? 1 : tg;
    if (tg >= (size_t)op->tw) {
        const size_t rows = tg / op->tw > (size_t)op->th ? (size_t)op->th
                                                         : tg / op->tw;
        op->tg = (int)rows * op->tw;
        op->gr = (int)rows;
    } else {
        op->tg = (int)tg;
        op->gr = 1;
    }
}

/* Rows of V and M: 16 columns per tile of a group, room for the 16-lane
 * stores of the chunk's b <= 16 images at column r * b (the file
 * comment). */
static size_t ld_t(const rx__op *op) { return (size_t)op->tg * RX__VW; }

/* Floats of rx__pmm_nt's V^T buffer for op. */
static size_t vt_floats(const rx__op *op)
{
    return rx__pmm_nt_vt(op->c, op->tg * RX__VW);
}

/* Floats from one tile position's matrix to the next (rows x ldT plus one
 * cache line): without the line, the 64 positions of a tile sit a power of
 * two apart and share a handful of L1 sets. */
static size_t pos_stride(const rx__op *op, int rows)
{
    return (size_t)rows * ld_t(op) + RX__VW;
}

/* Rows of the interleaved input (gradient) planes held: all of them for
 * the fused path; for the GEMM path, a band of the gr tile rows being
 * computed and the k - 1 rows they share with the next band. */
static int band_rows(const rx__op *op)
{
    return op->c <= RX__WINO_FUSED_C ? op->wh : op->gr * op->wm + op->k - 1;
}

/* Vectors of the interleaved input planes, and of the output grid. */
static size_t il_in_floats(const rx__op *op)
{
    return (size_t)op->c * band_rows(op) * op->ww;
}

/* Tile rows the output grid holds: one for the fused path, a group's
 * (gr) for the GEMM path; each converts them as it goes. */
static int grid_rows(const rx__op *op)
{
    return op->c <= RX__WINO_FUSED_C ? 1 : op->gr;
}

static size_t il_grid_floats(const rx__op *op)
{
    return (size_t)op->oc * grid_rows(op) * op->wm * op->tw * op->wm;
}

void rx__wino_sizes(const rx__op *op, size_t *v, size_t *m, size_t *u,
                    size_t *pad)
{
    *u = (size_t)WP * op->oc * op->c;
    if (op->c <= RX__WINO_FUSED_C) { /* no V, M: dU per lane */
        *v = *u * RX__VW;
        *m = 0;
    } else {
        *v = (size_t)WP * pos_stride(op, op->c);
        *m = (size_t)WP * pos_stride(op, op->oc);
    }
    /* input planes, output (gradient) grid, and the input gradient's
     * planes when the backward makes one */
    *pad = ((1 + (op->need_dx != 0)) * il_in_floats(op) +
            il_grid_floats(op)) * RX__VW;
    if (op->c > RX__WINO_FUSED_C) /* then mm_du's V^T */
        *pad += vt_floats(op);
}

/* U[pos][co][ci] = G g G^T for every kernel g = W[co][ci]: the 8 rows of
 * G g as columns of 8-float vectors (k of them), then U column by column;
 * the products and sums are those of the plain loops, in the same order. */
typedef float rx__v8 __attribute__((vector_size(4 * WA)));
RX__CLONES
static void wino_u(const rx__op *op, const float *restrict W,
                   float *restrict U)
{
    const int k = op->k, P = op->oc * op->c;
    rx__v8 gcol[WA]; /* column i of G */
    for (int i = 0; i < WA; ++i)
        for (int a = 0; a < WA; ++a)
            gcol[i][a] = i < k ? op->wg[a * WA + i] : 0.0f;
    for (int q = 0; q < P; ++q) {
        const float *g = W + (size_t)q * k * k;
        rx__v8 t[WA]; /* t[j][a] = (G g)[a][j] */
        for (int j = 0; j < k; ++j) {
            rx__v8 s = {0};
            for (int i = 0; i < k; ++i)
                s += gcol[i] * g[i * k + j];
            t[j] = s;
        }
        for (int b = 0; b < WA; ++b) {
            rx__v8 s = {0}; /* s[a] = U[a][b] */
            for (int j = 0; j < k; ++j)
                s += t[j] * op->wg[b * WA + j];
            for (int a = 0; a < WA; ++a)
                U[(size_t)(a * WA + b) * P + q] = s[a];
        }
    }
}

/* gW[co][ci] += G^T dU G: 16 kernels q at a time as the lanes of a
 * vector (dU's rows are contiguous in q), the tail one by one; the same
 * products and sums in the same order either way. */
RX__VINL void dw_one(const rx__op *op, const float *dU, size_t P, size_t q,
                     float *gW)
{
    const int k = op->k;
    float t[WA][WA];
    for (int i = 0; i < k; ++i)
        for (int b = 0; b < WA; ++b) {
            float s = 0.0f;
            for (int a = 0; a < WA; ++a)
                s += op->wg[a * WA + i] * dU[(size_t)(a * WA + b) * P + q];
            t[i][b] = s;
        }
    float *g = gW + q * k * k;
    for (int i = 0; i < k; ++i)
        for (int j = 0; j < k; ++j) {
            float s = 0.0f;
            for (int b = 0; b < WA; ++b)
                s += t[i][b] * op->wg[b * WA + j];
            g[i * k + j] += s;
        }
}

RX__CLONES
static void wino_dw(const rx__op *op, const float *restrict dU,
                    float *restrict gW)
{
    const int k = op->k;
    const size_t P = (size_t)op->oc * op->c;
    size_t q = 0;
    for (; q + RX__VW <= P; q += RX__VW) {
        rx__vf t[WA - 1][WA], g[(WA - 1) * (WA - 1)];
        for (int i = 0; i < k; ++i)
            for (int b = 0; b < WA; ++b) {
                rx__vf s = {0}, x;
                for (int a = 0; a < WA; ++a) {
                    rx__vld(&x, dU + (size_t)(a * WA + b) * P + q);
                    s += op->wg[a * WA + i] * x;
                }
                t[i][b] = s;
            }
        for (int i = 0; i < k; ++i)
            for (int j = 0; j < k; ++j) {
                rx__vf s = {0};
                for (int b = 0; b < WA; ++b)
                    s += t[i][b] * op->wg[b * WA + j];
                g[i * k + j] = s;
            }
        for (int l = 0; l < RX__VW; ++l) {
            float *gq = gW + (q + (size_t)l) * k * k;
            for (int e = 0; e < k * k; ++e)
                gq[e] += g[e][l];
        }
    }
    for (; q < P; ++q)
        dw_one(op, dU, P, q, gW);
}

/*
 * The 1-D transforms on 16-lane vectors, using the structure of the
 * matrices of these points: B^T has rows (1,2), (3,4), (5,6) for the point
 * pairs +-1, +-2, +-1/2 that agree on even columns and are opposite on odd
 * ones, row 0 lives on even columns and row 7 on odd ones; likewise
 * A^T[i][r + 1] = (-1)^i A^T[i][r]. Even/odd splitting halves the
 * multiply-adds. Coefficients are read from the op's matrices, so these
 * compute the products with exactly those matrices (up to the order of
 * the float additions).
 */
RX__VINL void bt_fwd(const float *bt, const rx__vf *in, rx__vf *out)
{ /* out[a] = sum_y B^T[a][y] in[y] */
    out[0] = bt[0] * in[0] + bt[2] * in[2] + bt[4] * in[4] + bt[6] * in[6];
    for (int r = 1; r < WA - 1; r += 2) {
        const float *c = bt + r * WA;
        const rx__vf e = c[2] * in[2] + c[4] * in[4] + c[6] * in[6];
        const rx__vf o = c[1] * in[1] + c[3] * in[3] + c[5] * in[5];
        out[r] = e + o;
        out[r + 1] = e - o;
    }
    const float *c = bt + 7 * WA;
    out[7] = c[1] * in[1] + c[3] * in[3] + c[5] * in[5] + c[7] * in[7];
}

RX__VINL void bt_adj(const float *bt, const rx__vf *in, rx__vf *out)
{ /* out[y] = sum_a B^T[a][y] in[a] */
    rx__vf s[3], d[3];
    for (int p = 0; p < 3; ++p) {
        s[p] = in[1 + 2 * p] + in[2 + 2 * p];
        d[p] = in[1 + 2 * p] - in[2 + 2 * p];
    }
    out[0] = bt[0] * in[0];
    for (int y = 2; y < WA; y += 2)
        out[y] = bt[y] * in[0] + bt[WA + y] * s[0] + bt[3 * WA + y] * s[1] +
                 bt[5 * WA + y] * s[2];
    for (int y = 1; y < WA - 1; y += 2)
        out[y] = bt[WA + y] * d[0] + bt[3 * WA + y] * d[1] +
                 bt[5 * WA + y] * d[2] + bt[7 * WA + y] * in[7];
    out[7] = bt[7 * WA + 7] * in[7];
}

RX__VINL void at_fwd(const float *at, int m, const rx__vf *in,
                          rx__vf *out)
{ /* out[i] = sum_a A^T[i][a] in[a], i < m */
    rx__vf s[3], d[3];
    for (int p = 0; p < 3; ++p) {
        s[p] = in[1 + 2 * p] + in[2 + 2 * p];
        d[p] = in[1 + 2 * p] - in[2 + 2 * p];
    }
    for (int i = 0; i < m; ++i) {
        const float *c = at + i * WA;
        const rx__vf *v = i & 1 ? d : s;
        rx__vf o = c[1] * v[0] + c[3] * v[1] + c[5] * v[2];
        if (i == 0)
            o += c[0] * in[0];
        if (i == m - 1)
            o += c[7] * in[7];
        out[i] = o;
    }
}

RX__VINL void at_adj(const float *at, int m, const rx__vf *in,
                          rx__vf *out)
{ /* out[a] = sum_i A^T[i][a] in[i], i < m */
    out[0] = at[0] * in[0];
    for (int r = 1; r < WA - 1; r += 2) {
        rx__vf e = at[r] * in[0], o = at[WA + r] * in[1];
        for (int i = 2; i < m; i += 2)
            e += at[i * WA + r] * in[i];
        for (int i = 3; i < m; i += 2)
            o += at[i * WA + r] * in[i];
        out[r] = e + o;
        out[r + 1] = e - o;
    }
    out[7] = at[(m - 1) * WA + 7] * in[m - 1];
}

/*
 * One tile, 16 images: the four 2-D transforms. Position p = a * 8 + c of
 * the transformed tile is the vector at t + p * ps (floats) of the
 * transformed side; the spatial side is an interleaved plane with rows of
 * ww (input) or gw (output grid) vectors, at the tile's corner base.
 */
RX__VINL void tile_in(const float *bt, const float *base, int ww,
                           float *t, size_t ps)
{ /* t = B^T d B */
    rx__vf u[WA][WA], col[WA], o[WA];
    for (int x = 0; x < WA; ++x) {
        for (int y = 0; y < WA; ++y)
            rx__vld(&col[y], base + ((size_t)y * ww + x) * RX__VW);
        bt_fwd(bt, col, o);
        for (int a = 0; a < WA; ++a)
            u[a][x] = o[a];
    }
    for (int a = 0; a < WA; ++a) {
        bt_fwd(bt, u[a], o);
        for (int c = 0; c < WA; ++c)
            rx__vst(t + (size_t)(a * WA + c) * ps, &o[c]);
    }
}

RX__VINL void tile_out(const float *at, int m, const float *t,
                            size_t ps, float bias, float *base, int gw)
{ /* base = A^T t A + bias (m x m) */
    rx__vf u[WA][WA], in[WA], o[WA];
    for (int c = 0; c < WA; ++c) {
        for (int a = 0; a < WA; ++a)
            rx__vld(&in[a], t + (size_t)(a * WA + c) * ps);
        at_fwd(at, m, in, o);
        for (int i = 0; i < m; ++i)
            u[i][c] = o[i];
    }
    for (int i = 0; i < m; ++i) {
        at_fwd(at, m, u[i], o);
        for (int j = 0; j < m; ++j) {
            o[j] += bias;
            rx__vst(base + ((size_t)i * gw + j) * RX__VW, &o[j]);
        }
    }
}

RX__VINL void tile_dy(const float *at, int m, const float *base,
                           int gw, float *t, size_t ps)
{ /* t = A dY A^T */
    rx__vf u[WA][WA], col[WA], o[WA];
    for (int j = 0; j < m; ++j) {
        for (int i = 0; i < m; ++i)
            rx__vld(&col[i], base + ((size_t)i * gw + j) * RX__VW);
        at_adj(at, m, col, o);
        for (int a = 0; a < WA; ++a)
            u[a][j] = o[a];
    }
    for (int a = 0; a < WA; ++a) {
        at_adj(at, m, u[a], o);
        for (int c = 0; c < WA; ++c)
            rx__vst(t + (size_t)(a * WA + c) * ps, &o[c]);
    }
}

RX__VINL void tile_dd(const float *bt, const float *t, size_t ps,
                           float *base, int ww)
{ /* base += B t B^T */
    rx__vf u[WA][WA], in[WA], o[WA];
    for (int c = 0; c < WA; ++c) {
        for (int a = 0; a < WA; ++a)
            rx__vld(&in[a], t + (size_t)(a * WA + c) * ps);
        bt_adj(bt, in, o);
        for (int y = 0; y < WA; ++y)
            u[y][c] = o[y];
    }
    for (int y = 0; y < WA; ++y) {
        bt_adj(bt, u[y], o);
        for (int x = 0; x < WA; ++x) {
            float *p = base + ((size_t)y * ww + x) * RX__VW;
            rx__vf v;
            rx__vld(&v, p);
            v += o[x];
            rx__vst(p, &v);
        }
    }
}

/* Corners of tile r: in the band of input planes of channel ci from tile
 * row ty0, and in the output grid of channel co that holds grows tile
 * rows from tile row ty0. */
static const float *in_corner(const rx__op *op, const float *il, int ci,
                              int r, int ty0)
{
    const int ty = r / op->tw - ty0, tx = r % op->tw;
    return il + (((size_t)ci * band_rows(op) + (size_t)ty * op->wm) *
                     op->ww +
                 (size_t)tx * op->wm) * RX__VW;
}

static size_t grid_corner(const rx__op *op, int co, int r, int ty0,
                          int grows)
{
    const int m = op->wm, ty = r / op->tw - ty0, tx = r % op->tw;
    const size_t gw = (size_t)op->tw * m;
    return (((size_t)co * grows * m + (size_t)ty * m) * gw +
            (size_t)tx * m) * RX__VW;
}

/* V[pos][ci][(r - r0) b + l] = (B^T d B)[pos] for tile r of image l. */
RX__CLONES
static void wino_in(const rx__op *op, const float *restrict il, int b,
                    int r0, int nr, int ty0, float *restrict V)
{
    const size_t ldT = ld_t(op), ps = pos_stride(op, op->c);
    for (int ci = 0; ci < op->c; ++ci)
        for (int r = r0; r < r0 + nr; ++r)
            tile_in(op->wbt, in_corner(op, il, ci, r, ty0), op->ww,
                    V + (size_t)ci * ldT + (size_t)(r - r0) * b, ps);
}

/* A^T M A + bias into the interleaved output grid oil (oc planes of
 * gr m x tw m vectors from tile row ty0); the caller deinterleaves its
 * rows inside the oh x ow plane. */
RX__CLONES
static void wino_out(const rx__op *op, const float *restrict M, int b,
                     int r0, int nr, int ty0, const float *bias,
                     float *restrict oil)
{
    const size_t ldT = ld_t(op), ps = pos_stride(op, op->oc);
    for (int co = 0; co < op->oc; ++co)
        for (int r = r0; r < r0 + nr; ++r)
            tile_out(op->wat, op->wm,
                     M + (size_t)co * ldT + (size_t)(r - r0) * b, ps,
                     bias[co], oil + grid_corner(op, co, r, ty0, op->gr),
                     op->tw * op->wm);
}

/* dM[pos][co][(r - r0) b + l] = (A dY A^T)[pos], dY from the grid of
 * gr tile rows from ty0. */
RX__CLONES
static void wino_dy(const rx__op *op, const float *restrict dyil, int b,
                    int r0, int nr, int ty0, float *restrict dM)
{
    const size_t ldT = ld_t(op), ps = pos_stride(op, op->oc);
    for (int co = 0; co < op->oc; ++co)
        for (int r = r0; r < r0 + nr; ++r)
            tile_dy(op->wat, op->wm,
                    dyil + grid_corner(op, co, r, ty0, op->gr),
                    op->tw * op->wm,
                    dM + (size_t)co * ldT + (size_t)(r - r0) * b, ps);
}

/* dil (interleaved, zeroed by the caller) += B dV B^T over the tiles. */
RX__CLONES
static void wino_dd(const rx__op *op, const float *restrict dV, int b,
                    int r0, int nr, int ty0, float *restrict dil)
{
    const size_t ldT = ld_t(op), ps = pos_stride(op, op->c);
    for (int ci = 0; ci < op->c; ++ci)
        for (int r = r0; r < r0 + nr; ++r)
            tile_dd(op->wbt, dV + (size_t)ci * ldT + (size_t)(r - r0) * b,
                    ps, (float *)in_corner(op, dil, ci, r, ty0), op->ww);
}

/*
 * Few input channels (c <= RX__WINO_FUSED_C, a first layer): the GEMM of
 * a position would have K = c, so the products are made in registers
 * instead, tile by tile: the c transformed inputs, then per output channel
 * the 64 sums over c and the output transform. The backward keeps dU per
 * lane (dUl[pos][co][ci] vectors) and adds the 16 lanes at the end.
 */
RX__CLONES
static void fused_fwd(const rx__op *op, const float *restrict il,
                      const float *restrict U, const float *bias, int ty,
                      float *restrict oil)
{ /* tile row ty into the grid of one tile row */
    const int c = op->c, oc = op->oc;
    const size_t P = (size_t)oc * c;
    for (int r = ty * op->tw; r < (ty + 1) * op->tw; ++r) {
        float v[RX__WINO_FUSED_C][WP * RX__VW];
        for (int ci = 0; ci < c; ++ci)
            tile_in(op->wbt, in_corner(op, il, ci, r, 0), op->ww, v[ci], RX__VW);
        for (int co = 0; co < oc; ++co) {
            float mm[WP * RX__VW];
            for (int p = 0; p < WP; ++p) {
                rx__vf s = {0}, x;
                for (int ci = 0; ci < c; ++ci) {
                    rx__vld(&x, v[ci] + (size_t)p * RX__VW);
                    s += U[(size_t)p * P + (size_t)co * c + ci] * x;
                }
                rx__vst(mm + (size_t)p * RX__VW, &s);
            }
            tile_out(op->wat, op->wm, mm, RX__VW, bias[co],
                     oil + grid_corner(op, co, r, ty, 1),
                     op->tw * op->wm);
        }
    }
}

RX__CLONES
static void fused_bwd(const rx__op *op, const float *restrict il,
                      const float *restrict dyil, const float *restrict U,
                      int ty, float *restrict dUl, float *restrict dil)
{ /* tile row ty, its output gradient in a grid of one tile row */
    const int c = op->c, oc = op->oc;
    const size_t P = (size_t)oc * c;
    for (int r = ty * op->tw; r < (ty + 1) * op->tw; ++r) {
        float v[RX__WINO_FUSED_C][WP * RX__VW], dv[RX__WINO_FUSED_C][WP * RX__VW];
        for (int ci = 0; ci < c; ++ci)
            tile_in(op->wbt, in_corner(op, il, ci, r, 0), op->ww, v[ci], RX__VW);
        if (dil)
            memset(dv, 0, sizeof dv);
        for (int co = 0; co < oc; ++co) {
            float dm[WP * RX__VW];
            tile_dy(op->wat, op->wm, dyil + grid_corner(op, co, r, ty, 1),
                    op->tw * op->wm, dm, RX__VW);
            for (int p = 0; p < WP; ++p) {
                rx__vf d, x, acc;
                rx__vld(&d, dm + (size_t)p * RX__VW);
                for (int ci = 0; ci < c; ++ci) {
                    float *a = dUl + ((size_t)p * P + (size_t)co * c + ci) *
                                         RX__VW;
                    rx__vld(&x, v[ci] + (size_t)p * RX__VW);
                    rx__vld(&acc, a);
                    acc += d * x;
                    rx__vst(a, &acc);
                    if (dil) {
                        rx__vld(&x, dv[ci] + (size_t)p * RX__VW);
                        x += U[(size_t)p * P + (size_t)co * c + ci] * d;
                        rx__vst(dv[ci] + (size_t)p * RX__VW, &x);
                    }
                }
            }
        }
        if (dil)
            for (int ci = 0; ci < c; ++ci)
                tile_dd(op->wbt, dv[ci], RX__VW,
                        (float *)in_corner(op, dil, ci, r, 0), op->ww);
    }
}

/* For every tile position p: C[p] = U[p] B[p] (ta = 0: oc x T from c x T)
 * or U[p]^T B[p] (ta = 1: c x T from oc x T), rows ld_t apart, position
 * matrices psb / psc floats apart; by rx__pmm on the BLAS path (all
 * 16-column vectors of T), else by the plain-C reference. */
static void pos_gemms(const rx__op *op, rx__netws *ws, int ta, int T,
                      const float *B, size_t psb, float *C, size_t psc)
{
    const int c = op->c, oc = op->oc, ldT = (int)ld_t(op);
    const int M = ta ? c : oc, K = ta ? oc : c;
    for (int pos = 0; pos < WP; ++pos) {
        const float *U = ws->wu + (size_t)pos * oc * c;
        if (ws->g.use_blas && RX__WINO_OWN_GEMM)
            rx__pmm(ws->g.isa, M, (T + RX__VW - 1) / RX__VW, K, U,
                    ta ? 1 : (size_t)c, ta ? (size_t)c : 1,
                    B + (size_t)pos * psb, (size_t)ldT,
                    C + (size_t)pos * psc, (size_t)ldT);
        else
            rx__gemm(&ws->g, ta, 0, M, T, K, 1.0f, U, c,
                     B + (size_t)pos * psb, ldT, 0.0f,
                     C + (size_t)pos * psc, ldT);
    }
}

/* U of op for the weights of this call (net.c counts the calls). */
static void need_u(const rx__op *op, rx__netws *ws, const float *w)
{
    if (ws->wu_op == op && ws->wu_call == ws->call)
        return;
    wino_u(op, w + op->woff, ws->wu);
    ws->wu_op = op;
    ws->wu_call = ws->call;
}

void rx__wino_forward(const rx__op *op, rx__netws *ws, const float *w,
                      const float *in, float *out, int n)
{
    const int chunk = rx__il_chunk(ws);
    const int c = op->c, oc = op->oc;
    const int gw = op->tw * op->wm;
    const size_t psv = pos_stride(op, c), psm = pos_stride(op, oc);
    const size_t ohw = (size_t)op->oh * op->ow;
    float *il = ws->pad, *oil = ws->pad + il_in_floats(op) * RX__VW;
    need_u(op, ws, w);
    for (int i0 = 0; i0 < n; i0 += chunk) {
        const int b = n - i0 < chunk ? n - i0 : chunk;
        if (c <= RX__WINO_FUSED_C) {
            rx__il_in(op, in, n, i0, b, il);
            for (int ty = 0; ty < op->th; ++ty) {
                const int y0 = ty * op->wm;
                const int rows = op->oh - y0 < op->wm ? op->oh - y0 : op->wm;
                fused_fwd(op, il, ws->wu, w + op->boff, ty, oil);
                for (int co = 0; co < oc; ++co)
                    rx__deinterleave(
                        oil + (size_t)co * op->wm * gw * RX__VW, gw, b, rows,
                        op->ow,
                        out + ((size_t)co * n + i0) * ohw + (size_t)y0 * op->ow,
                        ohw);
            }
            continue;
        }
        /* gr tile rows at a time: their groups, then their output rows */
        for (int ty0 = 0; ty0 < op->th; ty0 += op->gr) {
            const int ny = op->th - ty0 < op->gr ? op->th - ty0 : op->gr;
            const int end = (ty0 + ny) * op->tw;
            rx__il_in_rows(op, in, n, i0, b, ty0 * op->wm, band_rows(op), il);
            for (int r0 = ty0 * op->tw; r0 < end; r0 += op->tg) {
                const int nr = end - r0 < op->tg ? end - r0 : op->tg;
                const int T = nr * b;
                wino_in(op, il, b, r0, nr, ty0, ws->wv);
                pos_gemms(op, ws, 0, T, ws->wv, psv, ws->wmo, psm);
                wino_out(op, ws->wmo, b, r0, nr, ty0, w + op->boff, oil);
            }
            const int y0 = ty0 * op->wm;
            const int rows = op->oh - y0 < ny * op->wm ? op->oh - y0
                                                        : ny * op->wm;
            for (int co = 0; co < oc; ++co)
                rx__deinterleave(
                    oil + (size_t)co * op->gr * op->wm * gw * RX__VW, gw, b,
                    rows, op->ow,
                    out + ((size_t)co * n + i0) * ohw + (size_t)y0 * op->ow,
                    ohw);
        }
    }
}

void rx__wino_backward(const rx__op *op, rx__netws *ws, const float *w,
                       const float *in, const float *dout, float *din,
                       float *gw, int n)
{
    const int chunk = rx__il_chunk(ws), tiles = op->th * op->tw;
    const int c = op->c, oc = op->oc, ldT = (int)ld_t(op);
    const size_t psv = pos_stride(op, c), psm = pos_stride(op, oc);
    const size_t ohw = (size_t)op->oh * op->ow;
    float *il = ws->pad, *dyil = ws->pad + il_in_floats(op) * RX__VW;
    float *dil = dyil + il_grid_floats(op) * RX__VW;
    float *vt = dil + (op->need_dx != 0) * il_in_floats(op) * RX__VW;
    float *gb = gw + op->boff;
    const int fused = c <= RX__WINO_FUSED_C;
    if (din)
        need_u(op, ws, w);
    memset(ws->wdu, 0, sizeof(float) * WP * (size_t)oc * c);
    if (fused)
        memset(ws->wv, 0, sizeof(float) * WP * (size_t)oc * c * RX__VW);
    const int gw_ = op->tw * op->wm, grows = grid_rows(op);
    const int hb = band_rows(op);
    for (int i0 = 0; i0 < n; i0 += chunk) {
        const int b = n - i0 < chunk ? n - i0 : chunk;
        if (din)
            memset(dil, 0, sizeof(float) * RX__VW * il_in_floats(op));
        if (fused) {
            rx__il_in(op, in, n, i0, b, il);
            for (int ty = 0; ty < op->th; ++ty) {
                rx__il_dy(op, dout, n, i0, b, ty * op->wm, op->wm, gw_, dyil);
                fused_bwd(op, il, dyil, ws->wu, ty, ws->wv, din ? dil : NULL);
            }
        }
        for (int r0 = 0, nr = 0; !fused && r0 < tiles; r0 += nr) {
            /* a group lies in the gr tile rows from ty0 (as forward) */
            const int ty0 = r0 / op->tw / op->gr * op->gr;
            const int end = ty0 + op->gr < op->th ? (ty0 + op->gr) * op->tw
                                                  : tiles;
            nr = end - r0 < op->tg ? end - r0 : op->tg;
            const int T = nr * b;
            if (r0 == ty0 * op->tw) { /* their input and gradient rows */
                rx__il_in_rows(op, in, n, i0, b, ty0 * op->wm, hb, il);
                rx__il_dy(op, dout, n, i0, b, ty0 * op->wm, grows * op->wm,
                          gw_, dyil);
            }
            wino_in(op, il, b, r0, nr, ty0, ws->wv);
            wino_dy(op, dyil, b, r0, nr, ty0, ws->wmo);
            for (int pos = 0; pos < WP; ++pos) {
                float *dU = ws->wdu + (size_t)pos * oc * c;
                if (ws->g.use_blas && RX__WINO_OWN_GEMM)
                    rx__pmm_nt(ws->g.isa, oc, c, T,
                               ws->wmo + (size_t)pos * psm,
                               ws->wv + (size_t)pos * psv, (size_t)ldT, vt,
                               dU);
                else
                    rx__gemm(&ws->g, 0, 1, oc, c, T, 1.0f,
                             ws->wmo + (size_t)pos * psm, ldT,
                             ws->wv + (size_t)pos * psv, ldT, 1.0f, dU, c);
            }
            if (!din)
                continue;
            /* V is spent: its buffer takes dV */
            pos_gemms(op, ws, 1, T, ws->wmo, psm, ws->wv, psv);
            wino_dd(op, ws->wv, b, r0, nr, ty0, dil);
            if (r0 + nr < end)
                continue;
            /* the band's rows no later tile touches go to din; the k - 1
             * it shares with the next band move up, the rest restart */
            const int y0 = ty0 * op->wm, last = end == tiles;
            const int done = last ? op->wh - y0 : op->gr * op->wm;
            rx__il_to_din_rows(op, dil, n, i0, b, y0, hb, done, din);
            if (last)
                continue;
            const size_t rowf = (size_t)op->ww * RX__VW;
            for (int ci = 0; ci < c; ++ci) {
                float *pl = dil + (size_t)ci * hb * rowf;
                memmove(pl, pl + (size_t)done * rowf,
                        sizeof(float) * (size_t)(hb - done) * rowf);
                memset(pl + (size_t)(hb - done) * rowf, 0,
                       sizeof(float) * (size_t)done * rowf);
            }
        }
        for (int co = 0; co < oc; ++co)
            gb[co] += rx__row_sum(dout + ((size_t)co * n + i0) * ohw,
                                  (size_t)b * ohw);
        if (din && fused)
            rx__il_to_din(op, dil, n, i0, b, din);
    }
    if (fused) /* the lanes of dU, in lane order */
        for (size_t q = 0; q < (size_t)WP * oc * c; ++q)
            for (int l = 0; l < RX__VW; ++l)
                ws->wdu[q] += ws->wv[q * RX__VW + (size_t)l];
    wino_dw(op, ws->wdu, gw + op->woff);
}
