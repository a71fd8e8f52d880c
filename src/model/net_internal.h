/*
 * Private to src/model/: the compiled op list of a net, the workspace, and
 * the kernels (GEMM dispatch, im2col, pooling, layout changes) the ops are
 * made of. Nothing here is seen outside src/model/.
 */
#ifndef RX_MODEL_NET_INTERNAL_H
#define RX_MODEL_NET_INTERNAL_H

#include <string.h>

#include "model.h"

/*
 * Activation layouts inside a workspace, for an actual batch of n:
 *   RX__NF    n x features, row-major (the caller's layout; features in
 *             PyTorch's c, h, w order);
 *   RX__CNHW  channel-major over the batch: element (c, i, y, x) at
 *             ((c * n + i) * h + y) * w + x. A conv layer then maps a
 *             chunk of images with ONE sgemm whose column count is
 *             chunk * out_h * out_w.
 * For c == 1 the two are the same bytes, and no conversion is made.
 */
enum { RX__NF = 0, RX__CNHW = 1 };

typedef enum rx__opkind {
    RX__OP_DENSE = 1,
    RX__OP_CONV,
    RX__OP_POOL,
    RX__OP_RELU,
    RX__OP_TANH,
    RX__OP_TO_NF,  /* CNHW -> NF (flatten after a spatial layer)  */
    RX__OP_TO_CNHW /* NF -> CNHW (a conv after a multi-channel input) */
} rx__opkind;

/* Winograd tile edge (input side): F(m, k) with m = RX__WA - k + 1. */
#define RX__WA 8

typedef struct rx__op {
    rx__opkind kind;
    int layer;              /* index in the spec (for messages)      */
    int c, h, w;            /* input shape per example               */
    int oc, oh, ow;         /* output shape per example              */
    int k, stride, pad;     /* conv / pool                           */
    size_t in_sz, out_sz;   /* floats per example                    */
    size_t woff, boff;      /* parameter offsets (dense, conv)       */
    size_t nw, nb;
    int fan_in;             /* dense: c*h*w; conv: c*k*k             */
    int in_buf, out_buf;    /* activation buffer; -1 = the input x   */
    int pool_idx;           /* pool: index of its argmax buffer      */
    int need_dx;            /* backward must produce d(input)        */
    double flops;           /* forward GEMM flops per example        */
    /* Winograd: F(wm x wm, k x k) on RX__WA x RX__WA tiles; th x tw tiles
     * cover the output. Winograd and direct: the zero-bordered input
     * plane is wh x ww. */
    int algo;               /* RX_CONV_IM2COL, _WINOGRAD or _DIRECT */
    int wm, th, tw, wh, ww;
    int tg;                 /* Winograd: tiles per GEMM group         */
    float wat[RX__WA * RX__WA]; /* A^T: wm x RX__WA (row stride RX__WA) */
    float wg[RX__WA * RX__WA];  /* G:   RX__WA x k  (row stride RX__WA) */
    float wbt[RX__WA * RX__WA]; /* B^T: RX__WA x RX__WA                 */
} rx__op;

struct rx__net {
    int n_ops;
    rx__op *ops;
    int n_bufs;             /* activation buffers                    */
    size_t *buf_sz;         /* floats per example, per buffer        */
    int n_pools;
    rx__lik_kind lik;
    double noise_var;
    int learn_precision;
    size_t nparams;
    size_t in_dim;
    int n_out;
    size_t max_act;         /* largest activation, floats/example    */
    double flops_fwd, flops_grad;
    rx__gemm_algo gemm;     /* the spec's                            */
};

/* A GEMM engine: use_blas 0 = plain-C reference loops, 1 = cblas_sgemm;
 * with use_blas and small, products of at most RX__GEMM_SMALL_MNK
 * multiply-adds go to rx__gemm_own instead (the reference's sums, fast),
 * with scratch (scratch_n floats) for a transposed operand. */
typedef struct rx__gemmctx {
    int use_blas;
    int small;
    float *scratch;
    size_t scratch_n;
} rx__gemmctx;
#define RX__GEMM_SMALL_MNK ((int64_t)1 << 18)
#define RX__GEMM_SCRATCH ((size_t)1 << 16)

struct rx__netws {
    const rx__net *net;
    int max_batch;
    int micro;              /* examples per pass (buffers sized for it) */
    rx__gemmctx g;
    float **act;            /* n_bufs buffers, micro * buf_sz        */
    float *dbuf[2];         /* backward ping-pong, micro * max_act   */
    int32_t **arg;          /* argmax per pool op, micro * out_sz    */
    float *col;             /* im2col / dcol scratch (+ RX__SLACK)   */
    float *pad;             /* zero-bordered input chunk (+ RX__SLACK) */
    size_t col_floats, pad_floats;
    int chunk_cap;          /* tests: fewer images per im2col chunk  */
    /* Winograd: transformed input V / its gradient (RX__WA^2 x c x ldT),
     * transformed output M / gradient (RX__WA^2 x oc x ldT), transformed
     * weights U and their gradient dU (RX__WA^2 x oc x c); the
     * zero-bordered input plane goes in pad. */
    float *wv, *wmo, *wu, *wdu;
    size_t bytes;
    rx_err err;             /* last message of a failed call         */
};

/*
 * Vector kernels: GNU vectors of 16 floats (one zmm, two ymm or four xmm),
 * moved with memcpy (unaligned) and never passed by value. GCC on x86-64
 * Linux builds AVX-512, AVX2 and baseline clones of the functions marked
 * RX__CLONES and picks one at load time (ifunc). No clone contracts a
 * multiply-add (C11 mode), so all give the same bits.
 */
#define RX__VW 16
typedef float rx__vf __attribute__((vector_size(4 * RX__VW)));
typedef int32_t rx__vi __attribute__((vector_size(4 * RX__VW)));
/* The same, at any float address (unaligned, may alias floats): a plain
 * vector copy that memcpy would turn into a library call. */
typedef float rx__vfu
    __attribute__((vector_size(4 * RX__VW), aligned(4), may_alias));
/* (not under ThreadSanitizer: the clones' ifunc resolvers run before its
 * runtime is set up and crash the program at load) */
#if defined(__GNUC__) && !defined(__clang__) && defined(__x86_64__) && \
    defined(__linux__) && !defined(__SANITIZE_THREAD__)
#define RX__CLONES __attribute__((target_clones("avx512f", "avx2", "default")))
#else
#define RX__CLONES
#endif
/* Helpers of the vector kernels, inlined into each target clone (a call
 * would run them as baseline code), and whole-vector moves at any float
 * address. */
#if defined(__GNUC__)
#define RX__VINL static inline __attribute__((always_inline))
#else
#define RX__VINL static inline
#endif

RX__VINL void rx__vld(rx__vf *v, const float *p)
{
    memcpy(v, p, sizeof *v);
}

RX__VINL void rx__vst(float *p, const rx__vf *v)
{
    memcpy(p, v, sizeof *v);
}

/* In-place transpose of a 16 x 16 float block held as 16 vectors: four
 * perfect shuffles (rows k and k + 8 zipped into rows 2k, 2k + 1). */
RX__VINL void rx__transpose16(rx__vf *r)
{
    for (int s = 0; s < 4; ++s) {
        rx__vf t[RX__VW];
        for (int k = 0; k < RX__VW / 2; ++k) {
            t[2 * k] = __builtin_shufflevector(r[k], r[k + 8], 0, 16, 1, 17,
                                               2, 18, 3, 19, 4, 20, 5, 21, 6,
                                               22, 7, 23);
            t[2 * k + 1] = __builtin_shufflevector(
                r[k], r[k + 8], 8, 24, 9, 25, 10, 26, 11, 27, 12, 28, 13, 29,
                14, 30, 15, 31);
        }
        memcpy(r, t, sizeof t);
    }
}

/* Floats past the end of col and pad that whole-vector copies may touch. */
#define RX__SLACK (2 * RX__VW)

/* ---- GEMM (row-major, C = alpha op(A) op(B) + beta C) -------------------*/
/* C = alpha op(A) op(B) + beta C with every element summed over k in
 * order from 0, as rx__gemm_ref does: the same bits, vectorised over the
 * longer of M and N. scratch holds K x max(M, N) floats when an operand
 * must be transposed for that (see rx__gemm_own_scratch). */
void rx__gemm_own(int ta, int tb, int M, int N, int K, float alpha,
                  const float *A, int lda, const float *B, int ldb,
                  float beta, float *C, int ldc, float *scratch);
/* Floats of scratch rx__gemm_own needs for this product (0: none). */
size_t rx__gemm_own_scratch(int ta, int tb, int M, int N, int K);
void rx__gemm(const rx__gemmctx *g, int ta, int tb, int M, int N, int K,
              float alpha, const float *A, int lda, const float *B, int ldb,
              float beta, float *C, int ldc);
/* The plain-C reference (naive triple loop, float accumulation). */
void rx__gemm_ref(int ta, int tb, int M, int N, int K, float alpha,
                  const float *A, int lda, const float *B, int ldb,
                  float beta, float *C, int ldc);

/* ---- layers (layers.c) ----------------------------------------------------*/
void rx__op_forward(const rx__op *op, rx__netws *ws, const float *w,
                    const float *in, float *out, int n);
/* dout: gradient of the op's output (may be modified); din: gradient of
 * its input (NULL if !op->need_dx); gw: parameter gradient (accumulated). */
void rx__op_backward(const rx__op *op, rx__netws *ws, const float *w,
                     const float *in, const float *out, float *dout,
                     float *din, float *gw, int n);
/* Images per im2col chunk (one sgemm) of a conv op in this workspace. */
int rx__conv_chunk(const rx__op *op, const rx__netws *ws);
/* The chunk's input, zero-bordered: c x b planes of hp x wp, the image at
 * (pad, pad); and back (the interior of such planes to n-image CNHW). */
void rx__pad_chunk(const rx__op *op, const float *in, int n, int i0, int b,
                   int hp, int wp, float *pad);
void rx__unpad_chunk(const rx__op *op, const float *pad, int hp, int wp,
                     int n, int i0, int b, float *din);
/* r[j] += v; the sum of r[0 .. len) in vector partial sums. */
void rx__add_const(float *restrict r, size_t len, float v);
float rx__row_sum(const float *restrict r, size_t len);

/* ---- Winograd and direct convolution (winograd.c, direct.c) -------------*/
/* Both work on chunks of up to 16 images interleaved one per vector lane
 * (rx__il_chunk images): il[c][y][x][lane] over c planes of wh x ww, the
 * image at (pad, pad), zero elsewhere and for lanes >= b. */
int rx__il_chunk(const rx__netws *ws);
void rx__il_in(const rx__op *op, const float *restrict in, int n, int i0,
               int b, float *restrict il);
void rx__il_to_din(const rx__op *op, const float *restrict il, int n,
                   int i0, int b, float *restrict din);
/* dst[l dstride + y w + x] = src[(y sw + x) 16 + l], l < b: h x w pixels
 * of an interleaved plane of row length sw back to b planes. */
void rx__deinterleave(const float *restrict src, int sw, int b, int h,
                      int w, float *restrict dst, size_t dstride);
/* dout interleaved over oc planes of gh x gw (>= oh x ow). */
void rx__il_dy(const rx__op *op, const float *restrict dout, int n, int i0,
               int b, int gh, int gw, float *restrict il);

/* Input channels up to which Winograd makes its products in registers,
 * tile by tile, instead of 64 GEMMs with K = c. */
#define RX__WINO_FUSED_C 4
/* Whether a conv of this shape can run by Winograd (stride 1, 2 <= k <=
 * RX__WA - 1), and the set-up of its transforms and tiling. */
int rx__wino_fits(int k, int stride);
void rx__wino_setup(rx__op *op);
/* Floats of each workspace buffer it needs. */
void rx__wino_sizes(const rx__op *op, size_t *v, size_t *m, size_t *u,
                    size_t *pad);
void rx__wino_forward(const rx__op *op, rx__netws *ws, const float *w,
                      const float *in, float *out, int n);
void rx__wino_backward(const rx__op *op, rx__netws *ws, const float *w,
                       const float *in, const float *dout, float *din,
                       float *gw, int n);

/* Direct convolution (stride 1, k <= RX__WA, c k^2 <= RX__DIRECT_TAPS):
 * every output vector of 16 images as multiply-adds of the interleaved
 * input, kernels as scalars. */
#define RX__DIRECT_TAPS 256
void rx__direct_setup(rx__op *op);
void rx__direct_sizes(const rx__op *op, size_t *pad, size_t *dy);
void rx__direct_forward(const rx__op *op, rx__netws *ws, const float *w,
                        const float *in, float *out, int n);
void rx__direct_backward(const rx__op *op, rx__netws *ws, const float *w,
                         const float *in, const float *dout, float *din,
                         float *gw, int n);

#endif
