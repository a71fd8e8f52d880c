/*
 * Row-major single-precision GEMM for the network layers: the BLAS call
 * (cblas_sgemm, single-threaded by the caller's OpenBLAS setting) and the
 * plain-C reference used by the tests.
 * Owns no state; never allocates.
 */
#include <cblas.h>
#include <string.h>

#include "net_internal.h"

/*
 * Every GEMM of the fast path goes to cblas_sgemm, the small ones too.
 * OpenBLAS 0.3.21 has a small-matrix path of its own: register-tiled C
 * loops written for the MLP shapes (AVX-512/AVX2 clones) lost to it on
 * this machine, e.g. 50x50x13 in 2.2-2.7 us against 1.5-1.8 us, and a
 * whole MLP 13-50-1 step (batch 50) had a median of 19.8 us with the
 * loops for every small shape against 17.1 us with BLAS throughout
 * (interleaved runs on a loaded 2-core VM; docs/performance.md). Only
 * matrix-vector products came out faster in loops (0.8 against 1.3 us),
 * too little to keep a second code path for.
 */

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
    cblas_sgemm(CblasRowMajor, ta ? CblasTrans : CblasNoTrans,
                tb ? CblasTrans : CblasNoTrans, M, N, K, alpha, A, lda, B,
                ldb, beta, C, ldc);
}
