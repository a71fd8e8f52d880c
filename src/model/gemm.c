/*
 * Row-major single-precision GEMM for the network layers: the BLAS call
 * (cblas_sgemm, single-threaded by the caller's OpenBLAS setting) and the
 * plain-C reference used by the tests.
 * Owns no state; never allocates.
 */
#include <cblas.h>
#include <string.h>

#include "gemm.h"
#include "vec.h"

/*
 * With model.gemm: blas every GEMM of the fast path goes to cblas_sgemm,
 * the small ones too (the default, auto, sends small ones to
 * rx__gemm_own: see rx__gemm_algo in model.h for why).
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

/*
 * rows x cols products C(r, c) = alpha sum_k P(r, k) Q(k, c) (+ beta C),
 * each summed over k in order from 0: the reference's sums. Blocks of
 * RB rows x VB vectors of 16 columns stay in registers over k (each Q
 * vector serves RB rows); the last cols % 16 columns and rows % RB rows
 * go one by one. The order of every sum is the same in every block shape
 * and at any vector width, and C11 mode contracts no multiply-add.
 * P(r, k) = P[r * p_rs + k * p_ks], Q(k, c) = Q[k * ldq + c],
 * C(r, c) = C[r * c_rs + c * c_cs].
 */
typedef struct own_args {
    int K;
    float alpha, beta;
    const float *P;
    size_t p_rs, p_ks;
    const float *Q;
    size_t ldq;
    float *C;
    size_t c_rs, c_cs;
} own_args;

/* One block: rows r..r+rb-1 (rb <= 4), whole vectors v..v+vb-1 (vb <= 4)
 * of 16 columns. */
RX__VINL void own_block(const own_args *a, int r, int rb, int v, int vb)
{
    rx__vf acc[4][4];
    for (int i = 0; i < rb; ++i)
        for (int j = 0; j < vb; ++j)
            acc[i][j] = (rx__vf){0};
    for (int k = 0; k < a->K; ++k) {
        rx__vf q[4];
        const float *qk = a->Q + (size_t)k * a->ldq + (size_t)v * RX__VW;
        for (int j = 0; j < vb; ++j)
            rx__vld(&q[j], qk + (size_t)j * RX__VW);
        for (int i = 0; i < rb; ++i) {
            const float p = a->P[(size_t)(r + i) * a->p_rs + (size_t)k * a->p_ks];
            for (int j = 0; j < vb; ++j)
                acc[i][j] += p * q[j];
        }
    }
    const int upd = a->beta != 0.0f;
    for (int i = 0; i < rb; ++i)
        for (int j = 0; j < vb; ++j) {
            float *c = a->C + (size_t)(r + i) * a->c_rs +
                       (size_t)(v + j) * RX__VW * a->c_cs;
            if (a->c_cs == 1) {
                rx__vf o = a->alpha * acc[i][j], old;
                if (upd) {
                    rx__vld(&old, c);
                    o = o + a->beta * old;
                }
                rx__vst(c, &o);
            } else {
                for (int l = 0; l < RX__VW; ++l) {
                    float *cl = c + (size_t)l * a->c_cs;
                    *cl = upd ? a->alpha * acc[i][j][l] + a->beta * *cl
                              : a->alpha * acc[i][j][l];
                }
            }
        }
}

/* Column c of rows r..r+rb-1 (rb <= 8) as scalar sums, the rows' chains
 * side by side. */
RX__VINL void own_col(const own_args *a, int r, int rb, int c)
{
    float s[8] = {0, 0, 0, 0, 0, 0, 0, 0};
    for (int k = 0; k < a->K; ++k) {
        const float q = a->Q[(size_t)k * a->ldq + c];
        for (int i = 0; i < rb; ++i)
            s[i] += a->P[(size_t)(r + i) * a->p_rs + (size_t)k * a->p_ks] * q;
    }
    for (int i = 0; i < rb; ++i) {
        float *cl = a->C + (size_t)(r + i) * a->c_rs + (size_t)c * a->c_cs;
        *cl = a->beta == 0.0f ? a->alpha * s[i]
                              : a->alpha * s[i] + a->beta * *cl;
    }
}

RX__CLONES static void own_rows(int rows, int cols, const own_args *a)
{
    const int nv = cols / RX__VW;
    int r = 0;
    for (; r + 4 <= rows; r += 4) {
        int v = 0;
        for (; v + 4 <= nv; v += 4)
            own_block(a, r, 4, v, 4);
        for (; v < nv; ++v)
            own_block(a, r, 4, v, 1);
    }
    for (; r < rows; ++r)
        for (int v = 0; v < nv; ++v)
            own_block(a, r, 1, v, 1);
    for (int c = nv * RX__VW; c < cols; ++c) {
        int i = 0;
        for (; i + 8 <= rows; i += 8)
            own_col(a, i, 8, c);
        for (; i < rows; ++i)
            own_col(a, i, 1, c);
    }
}

/* Rows of C (vectors over N) or columns (over M): the orientation that
 * needs no transposed copy, else the longer vectors. */
static int own_by_rows(int ta, int tb, int M, int N)
{
    if (!tb != !!ta)
        return !tb;
    return N >= M;
}

size_t rx__gemm_own_scratch(int ta, int tb, int M, int N, int K)
{
    if (own_by_rows(ta, tb, M, N)) /* Q = op(B): rows k contiguous unless tb */
        return tb ? (size_t)K * (size_t)N : 0;
    return ta ? 0 : (size_t)K * (size_t)M; /* columns: Q = op(A)^T */
}

void rx__gemm_own(int ta, int tb, int M, int N, int K, float alpha,
                  const float *A, int lda, const float *B, int ldb,
                  float beta, float *C, int ldc, float *scratch)
{
    /* a * b == b * a exactly, so the transposed orientation (C^T = op(B)^T
     * op(A)^T) gives every element the same sum */
    if (own_by_rows(ta, tb, M, N)) {
        const float *Q = B;
        size_t ldq = (size_t)ldb;
        if (tb) { /* op(B)(k, j) = B[j][k] */
            for (int k = 0; k < K; ++k)
                for (int j = 0; j < N; ++j)
                    scratch[(size_t)k * N + j] = B[(size_t)j * ldb + k];
            Q = scratch;
            ldq = (size_t)N;
        }
        const own_args a = {K, alpha, beta, A, ta ? 1 : (size_t)lda,
                            ta ? (size_t)lda : 1, Q, ldq, C, (size_t)ldc, 1};
        own_rows(M, N, &a);
    } else {
        const float *Q = A;
        size_t ldq = (size_t)lda;
        if (!ta) { /* op(A)(i, k) = A[i][k] */
            for (int k = 0; k < K; ++k)
                for (int i = 0; i < M; ++i)
                    scratch[(size_t)k * M + i] = A[(size_t)i * lda + k];
            Q = scratch;
            ldq = (size_t)M;
        }
        /* P(j, k) = op(B)(k, j) */
        const own_args a = {K, alpha, beta, B, tb ? (size_t)ldb : 1,
                            tb ? 1 : (size_t)ldb, Q, ldq, C, 1, (size_t)ldc};
        own_rows(N, M, &a);
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
    if (g->small && (int64_t)M * N * K <= RX__GEMM_SMALL_MNK &&
        rx__gemm_own_scratch(ta, tb, M, N, K) <= g->scratch_n) {
        rx__gemm_own(ta, tb, M, N, K, alpha, A, lda, B, ldb, beta, C, ldc,
                     g->scratch);
        return;
    }
    cblas_sgemm(CblasRowMajor, ta ? CblasTrans : CblasNoTrans,
                tb ? CblasTrans : CblasNoTrans, M, N, K, alpha, A, lda, B,
                ldb, beta, C, ldc);
}
