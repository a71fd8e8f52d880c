/*
 * Private to src/model/: the vector helpers every kernel file shares (one
 * small file below gemm, winograd, direct and layers, so none of them
 * needs another for these): GNU vector types and whole-vector moves, row
 * sums, and the interleaved layout (one image per vector lane) of the
 * Winograd and direct convolutions.
 */
#ifndef RX_MODEL_VEC_H
#define RX_MODEL_VEC_H

#include <string.h>

#include "ops.h"

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
typedef uint16_t rx__vu16 __attribute__((vector_size(2 * RX__VW)));
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

/* r[j] += v; the sum of r[0 .. len) in vector partial sums. */
void rx__add_const(float *restrict r, size_t len, float v);
float rx__row_sum(const float *restrict r, size_t len);

/* The Winograd and direct convolutions work on chunks of up to 16 images
 * (rx__il_chunk images) interleaved one per vector lane: il[c][y][x][lane]
 * over c planes of wh x ww, the image at (pad, pad), zero elsewhere and
 * for lanes >= b. */
int rx__il_chunk(const rx__netws *ws);
void rx__il_in(const rx__op *op, const float *restrict in, int n, int i0,
               int b, float *restrict il);
void rx__il_to_din(const rx__op *op, const float *restrict il, int n,
                   int i0, int b, float *restrict din);
/* The same for a band of hb rows from padded row y0 (rx__il_in), and
 * its rows y0 .. y0 + nr - 1 back (rx__il_to_din). */
void rx__il_in_rows(const rx__op *op, const float *restrict in, int n,
                    int i0, int b, int y0, int hb, float *restrict il);
void rx__il_to_din_rows(const rx__op *op, const float *restrict il, int n,
                        int i0, int b, int y0, int hb, int nr,
                        float *restrict din);
/* dst[l dstride + y w + x] = src[(y sw + x) 16 + l], l < b: h x w pixels
 * of an interleaved plane of row length sw back to b planes. */
void rx__deinterleave(const float *restrict src, int sw, int b, int h,
                      int w, float *restrict dst, size_t dstride);
/* Output rows y0 .. y0 + gh - 1 of dout interleaved over oc planes of
 * gh x gw (gw >= ow; zero past the plane's edge). */
void rx__il_dy(const rx__op *op, const float *restrict dout, int n, int i0,
               int b, int y0, int gh, int gw, float *restrict il);

#endif
