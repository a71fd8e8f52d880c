/*
 * Private to src/model/: the products of the Winograd convolution
 * (pgemm.c) with fused multiply-adds, in an AVX-512, an AVX2 + FMA and a
 * portable version that give the same bits.
 */
#ifndef RX_MODEL_PGEMM_H
#define RX_MODEL_PGEMM_H

#include <stddef.h>

/* Kernel versions, in the workspace's rx__gemmctx.isa. */
enum { RX__ISA_PORTABLE = 0, RX__ISA_AVX2 = 1, RX__ISA_AVX512 = 2 };
/* The fastest version this CPU runs; its name. */
int rx__pgemm_isa(void);
const char *rx__pgemm_isa_name(int isa);

/* C[i][16 j + l] = sum_k A(i, k) B[k][16 j + l] for i < M, j < n16:
 * whole 16-column units, A(i, k) = A[i a_rs + k a_ks]. */
void rx__pmm(int isa, int M, int n16, int K, const float *A, size_t a_rs,
             size_t a_ks, const float *B, size_t ldb, float *C, size_t ldc);
/* dU[i][j] += sum_{t < T} dM[i][t] V[j][t] for i < oc, j < c (dU rows c
 * apart, dM and V rows ldT apart, ldT >= T rounded up to 16); vt holds
 * rx__pmm_nt_vt(c, T) floats. */
void rx__pmm_nt(int isa, int oc, int c, int T, const float *dM,
                const float *V, size_t ldT, float *vt, float *dU);
size_t rx__pmm_nt_vt(int c, int T);

#endif
