/*
 * Row-major single-precision GEMM for the network layers: the BLAS call
 * (cblas_sgemm, single-threaded by the caller's OpenBLAS setting), tight C
 * loops for small shapes, and the plain-C reference used by the tests.
 * Owns no state; never allocates.
 */
#include <cblas.h>
#include <string.h>

#include "net_internal.h"

/*
 * Below this many multiply-adds (M*N*K) the fast path uses the C loops of
 * rx__gemm_small instead of cblas_sgemm. OpenBLAS's interface costs about
 * 1-2 us per call (argument checks, buffer set-up, packing); the MLP
 * 13-50-1 at batch 50 has shapes of 50x50x13 = 32,500 multiply-adds, where
 * that overhead is as large as the arithmetic. Measured with
 * bench_model (docs/performance.md): at 32^3 = 32,768 the loops win, at
 * 64^3 BLAS wins clearly.
 */
#define RX__GEMM_SMALL 65536.0

static inline float at(const float *A, int lda, int t, int i, int k)
{
    return t ? A[(size_t)k * lda + i] : A[(size_t)i * lda + k];
}

static void scale_c(int M, int N, float beta, float *C, int ldc)
{
    if (beta == 1.0f)
        return;
    for (int i = 0; i < M; ++i) {
        float *c = C + (size_t)i * ldc;
        if (beta == 0.0f)
            memset(c, 0, sizeof(float) * (size_t)N);
        else
            for (int j = 0; j < N; ++j)
                c[j] *= beta;
    }
}

/* The oracle: one dot product per element, float accumulation in k order.
 * beta == 0 does not read C (BLAS semantics). */
void rx__gemm_ref(int ta, int tb, int M, int N, int K, float alpha,
                  const float *A, int lda, const float *B, int ldb,
                  float beta, float *C, int ldc)
{
    for (int i = 0; i < M; ++i)
        for (int j = 0; j < N; ++j) {
            float s = 0.0f;
            for (int k = 0; k < K; ++k)
                s += at(A, lda, ta, i, k) * at(B, ldb, !tb, j, k);
            float *c = C + (size_t)i * ldc + j;
            *c = beta == 0.0f ? alpha * s : alpha * s + beta * *c;
        }
}
/*
 * C[M x N] += alpha * op(A) B with B rows contiguous, in register tiles of
 * 4 rows x 16 columns summed over K before C is touched. A partial column
 * block (past N) is first copied zero-padded into panels of KC x 16 so the
 * inner loop always loads whole vectors. Each element is summed in k
 * order with separate multiply and add (C11 mode contracts nothing), so
 * every instruction-set clone gives the same bits. GCC on x86-64 Linux
 * builds AVX-512, AVX2 and baseline clones and picks one at load time
 * (ifunc).
 */
enum { TJ = RX__VW, KC = 256 };
typedef rx__vf rx__v16;

/* Vectors move through memcpy (unaligned loads and stores) and are passed
 * by pointer: a 64-byte vector argument would change the ABI per clone. */
#define LD16(v, p) memcpy(&(v), (p), sizeof(rx__v16))

/* c[0 .. nj) += alpha * v */
static inline void add_row(float *c, int nj, float alpha, const rx__v16 *v)
{
    float t[TJ];
    memcpy(t, v, sizeof t);
    for (int j = 0; j < nj; ++j)
        c[j] += alpha * t[j];
}

/* Sum of the 16 lanes as a tree (4 dependent adds, not 16). */
static inline float hsum16(const rx__v16 *v)
{
    float t[TJ];
    memcpy(t, v, sizeof t);
    for (int w = TJ / 2; w >= 1; w /= 2)
        for (int j = 0; j < w; ++j)
            t[j] += t[j + w];
    return t[0];
}

RX__CLONES
static void tile_axpy(int ta, int M, int N, int K, float alpha,
                      const float *restrict A, int lda,
                      const float *restrict B, int ldb, float *restrict C,
                      int ldc)
{
    float panel[KC * TJ];
    for (int j0 = 0; j0 < N; j0 += TJ) {
        const int nj = N - j0 < TJ ? N - j0 : TJ;
        for (int k0 = 0; k0 < K; k0 += KC) {
            const int kc = K - k0 < KC ? K - k0 : KC;
            const float *bp = B + (size_t)k0 * ldb + j0;
            size_t bs = (size_t)ldb;
            if (nj < TJ) {
                for (int k = 0; k < kc; ++k) {
                    float *d = panel + (size_t)k * TJ;
                    memcpy(d, bp + (size_t)k * ldb,
                           sizeof(float) * (size_t)nj);
                    memset(d + nj, 0, sizeof(float) * (size_t)(TJ - nj));
                }
                bp = panel;
                bs = TJ;
            }
            int i = 0;
            for (; i + 4 <= M; i += 4) {
                rx__v16 c0 = {0}, c1 = {0}, c2 = {0}, c3 = {0};
                for (int k = 0; k < kc; ++k) {
                    rx__v16 bv;
                    LD16(bv, bp + (size_t)k * bs);
                    c0 += at(A, lda, ta, i, k0 + k) * bv;
                    c1 += at(A, lda, ta, i + 1, k0 + k) * bv;
                    c2 += at(A, lda, ta, i + 2, k0 + k) * bv;
                    c3 += at(A, lda, ta, i + 3, k0 + k) * bv;
                }
                float *c = C + (size_t)i * ldc + j0;
                add_row(c, nj, alpha, &c0);
                add_row(c + ldc, nj, alpha, &c1);
                add_row(c + 2 * (size_t)ldc, nj, alpha, &c2);
                add_row(c + 3 * (size_t)ldc, nj, alpha, &c3);
            }
            for (; i < M; ++i) {
                rx__v16 c0 = {0};
                for (int k = 0; k < kc; ++k) {
                    rx__v16 bv;
                    LD16(bv, bp + (size_t)k * bs);
                    c0 += at(A, lda, ta, i, k0 + k) * bv;
                }
                add_row(C + (size_t)i * ldc + j0, nj, alpha, &c0);
            }
        }
    }
}

/* out[i * ldo] += alpha * (A row i . b), rows four at a time, each in 16
 * interleaved partial sums; the tail of K is added after. */
RX__CLONES
static void gemv_rows(int M, int K, float alpha, const float *restrict A,
                      int lda, const float *restrict b, float *restrict out,
                      int ldo)
{
    const int kv = K / TJ * TJ;
    int i = 0;
    for (; i + 4 <= M; i += 4) {
        const float *a0 = A + (size_t)i * lda, *a1 = a0 + lda,
                    *a2 = a1 + lda, *a3 = a2 + lda;
        rx__v16 s0 = {0}, s1 = {0}, s2 = {0}, s3 = {0};
        for (int k = 0; k < kv; k += TJ) {
            rx__v16 bv, v0, v1, v2, v3;
            LD16(bv, b + k);
            LD16(v0, a0 + k);
            LD16(v1, a1 + k);
            LD16(v2, a2 + k);
            LD16(v3, a3 + k);
            s0 += v0 * bv;
            s1 += v1 * bv;
            s2 += v2 * bv;
            s3 += v3 * bv;
        }
        float r0 = hsum16(&s0), r1 = hsum16(&s1), r2 = hsum16(&s2),
              r3 = hsum16(&s3);
        for (int k = kv; k < K; ++k) {
            r0 += a0[k] * b[k];
            r1 += a1[k] * b[k];
            r2 += a2[k] * b[k];
            r3 += a3[k] * b[k];
        }
        out[(size_t)i * ldo] += alpha * r0;
        out[(size_t)(i + 1) * ldo] += alpha * r1;
        out[(size_t)(i + 2) * ldo] += alpha * r2;
        out[(size_t)(i + 3) * ldo] += alpha * r3;
    }
    for (; i < M; ++i) {
        const float *a0 = A + (size_t)i * lda;
        rx__v16 s0 = {0};
        for (int k = 0; k < kv; k += TJ) {
            rx__v16 bv, v0;
            LD16(bv, b + k);
            LD16(v0, a0 + k);
            s0 += v0 * bv;
        }
        float r0 = hsum16(&s0);
        for (int k = kv; k < K; ++k)
            r0 += a0[k] * b[k];
        out[(size_t)i * ldo] += alpha * r0;
    }
}

/*
 * Small shapes: every layout the dense layers produce is mapped onto the
 * two kernels above when its vectors are contiguous, onto strided loops
 * otherwise.
 */
void rx__gemm_small(int ta, int tb, int M, int N, int K, float alpha,
                    const float *A, int lda, const float *B, int ldb,
                    float beta, float *C, int ldc)
{
    scale_c(M, N, beta, C, ldc);
    if (!tb && N > 1) {
        tile_axpy(ta, M, N, K, alpha, A, lda, B, ldb, C, ldc);
        return;
    }
    if (tb && K == 1 && ldb == 1) { /* outer product, B a row vector */
        tile_axpy(ta, M, N, 1, alpha, A, lda, B, N, C, ldc);
        return;
    }
    if (!tb && ta && ldc == 1) { /* N = 1: C^T (1 x M) = B^T op(A)^T */
        tile_axpy(1, 1, M, K, alpha, B, ldb, A, lda, C, M);
        return;
    }
    if (!ta && !tb && ldb == 1) { /* N = 1: matrix-vector */
        gemv_rows(M, K, alpha, A, lda, B, C, ldc);
        return;
    }
    if (!ta && tb) { /* row i of C = rows of B . row i of A */
        for (int i = 0; i < M; ++i)
            gemv_rows(N, K, alpha, B, ldb, A + (size_t)i * lda,
                      C + (size_t)i * ldc, 1);
        return;
    }
    for (int i = 0; i < M; ++i) { /* strided leftovers */
        float *c = C + (size_t)i * ldc;
        for (int j = 0; j < N; ++j) {
            float s = 0.0f;
            for (int k = 0; k < K; ++k)
                s += at(A, lda, ta, i, k) * at(B, ldb, !tb, j, k);
            c[j] += alpha * s;
        }
    }
}

void rx__gemm(const rx__gemmctx *g, int ta, int tb, int M, int N, int K,
              float alpha, const float *A, int lda, const float *B, int ldb,
              float beta, float *C, int ldc)
{
    if (M <= 0 || N <= 0)
        return;
    if (K <= 0) {
        scale_c(M, N, beta, C, ldc);
        return;
    }
    if (!g->use_blas) {
        rx__gemm_ref(ta, tb, M, N, K, alpha, A, lda, B, ldb, beta, C, ldc);
        return;
    }
    if ((double)M * N * K < RX__GEMM_SMALL) {
        rx__gemm_small(ta, tb, M, N, K, alpha, A, lda, B, ldb, beta, C, ldc);
        return;
    }
    cblas_sgemm(CblasRowMajor, ta ? CblasTrans : CblasNoTrans,
                tb ? CblasTrans : CblasNoTrans, M, N, K, alpha, A, lda, B,
                ldb, beta, C, ldc);
}
