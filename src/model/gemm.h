/*
 * Private to src/model/: row-major single-precision GEMM (gemm.c) for the
 * network layers, by the workspace's engine (rx__gemmctx, ops.h).
 */
#ifndef RX_MODEL_GEMM_H
#define RX_MODEL_GEMM_H

#include "ops.h"

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

#endif
