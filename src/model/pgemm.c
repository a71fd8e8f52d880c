/*
 * The products of the Winograd convolution (winograd.c) with fused
 * multiply-adds: C = A B with whole 16-column units (the forward M = U V
 * and the backward dV = U^T dM of every tile position), and dU += dM V^T
 * (the weight transforms' gradient, a sum over the tiles of a group).
 *
 * Each element is a chain of fmaf over k in order from 0: one rounding
 * per multiply-add. The AVX-512 and AVX2 + FMA versions (GCC function
 * attributes, picked per workspace from what the CPU reports) and the
 * portable one (fmaf lane by lane: one instruction where the CPU has
 * FMA, a library emulation where it has not, many times slower) give the
 * same bits; tests/test_model.c checks each against a scalar chain.
 * Owns no state; never allocates.
 */
#include <math.h>
#include <string.h>

#include "pgemm.h"
#include "vec.h"

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
#define RX__PGEMM_X86 1
#include <immintrin.h>
#else
#define RX__PGEMM_X86 0
#endif

typedef struct pmm_args {
    int K;
    const float *A;
    size_t a_rs, a_ks;
    const float *B;
    size_t ldb;
    float *C;
    size_t ldc;
} pmm_args;

typedef struct nt_args {
    int c, T;
    size_t ldT, ldv;
    const float *dM, *vt;
    float *dU;
} nt_args;

int rx__pgemm_isa(void)
{
#if RX__PGEMM_X86
    /* (the CPU model is filled in by a constructor; a workspace made
     * from another constructor would otherwise see no features) */
    __builtin_cpu_init();
    if (__builtin_cpu_supports("avx512f"))
        return RX__ISA_AVX512;
    if (__builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma"))
        return RX__ISA_AVX2;
#endif
    return RX__ISA_PORTABLE;
}

const char *rx__pgemm_isa_name(int isa)
{
    return isa == RX__ISA_AVX512 ? "avx512"
           : isa == RX__ISA_AVX2 ? "avx2"
                                 : "portable";
}

size_t rx__pmm_nt_vt(int c, int T)
{
    const size_t c16 = ((size_t)c + RX__VW - 1) / RX__VW;
    const size_t T16 = ((size_t)T + RX__VW - 1) / RX__VW;
    return T16 * RX__VW * c16 * RX__VW;
}

/* ---- portable: GNU vectors, fmaf lane by lane ---------------------------*/
/* (the helpers take and return vectors by value, always inlined: no
 * call, so no ABI to warn about; for the whole file, as GCC reports
 * it at the end, after inlining) */
#if defined(__GNUC__) /* and clang */
#pragma GCC diagnostic ignored "-Wpsabi"
#endif
RX__VINL rx__vf p_ld(const float *p)
{
    rx__vf v;
    memcpy(&v, p, sizeof v);
    return v;
}
RX__VINL void p_st(float *p, rx__vf v) { memcpy(p, &v, sizeof v); }
RX__VINL rx__vf p_bc(float x)
{
    rx__vf v;
    for (int l = 0; l < RX__VW; ++l)
        v[l] = x;
    return v;
}
RX__VINL rx__vf p_fma(rx__vf a, rx__vf b, rx__vf c)
{
    rx__vf r;
    for (int l = 0; l < RX__VW; ++l)
        r[l] = fmaf(a[l], b[l], c[l]);
    return r;
}
#define KSFX portable
#define KATTR
#define VL RX__VW
#define V rx__vf
#define VLD(p) p_ld(p)
#define VST(p, v) p_st(p, v)
#define VBC(x) p_bc(x)
#define VZERO ((rx__vf){0})
#define VADD(a, b) ((a) + (b))
#define VFMA(a, b, c) p_fma(a, b, c)
#define MM_R1 4
#define MM_V1 1
#define MM_R2 4
#define MM_V2 1
#define MM_R3 4
#define NT_R 4
#define NT_V 1
#include "pgemm_body.h"

#if RX__PGEMM_X86
/* ---- AVX-512: 32 registers, blocks of 16 accumulators ------------------*/
#define KSFX avx512
#define KATTR __attribute__((target("avx512f")))
#define VL 16
#define V __m512
#define VLD(p) _mm512_loadu_ps(p)
#define VST(p, v) _mm512_storeu_ps(p, v)
#define VBC(x) _mm512_set1_ps(x)
#define VZERO _mm512_setzero_ps()
#define VADD(a, b) _mm512_add_ps(a, b)
#define VFMA(a, b, c) _mm512_fmadd_ps(a, b, c)
#define MM_R1 4
#define MM_V1 4
#define MM_R2 8
#define MM_V2 2
#define MM_R3 8
#define NT_R 8
#define NT_V 2
#include "pgemm_body.h"

/* ---- AVX2 + FMA: 16 registers, blocks of 12 accumulators ---------------*/
#define KSFX avx2
#define KATTR __attribute__((target("avx2,fma")))
#define VL 8
#define V __m256
#define VLD(p) _mm256_loadu_ps(p)
#define VST(p, v) _mm256_storeu_ps(p, v)
#define VBC(x) _mm256_set1_ps(x)
#define VZERO _mm256_setzero_ps()
#define VADD(a, b) _mm256_add_ps(a, b)
#define VFMA(a, b, c) _mm256_fmadd_ps(a, b, c)
#define MM_R1 6
#define MM_V1 2
#define MM_R2 6
#define MM_V2 2
#define MM_R3 6
#define NT_R 6
#define NT_V 2
#include "pgemm_body.h"
#endif

void rx__pmm(int isa, int M, int n16, int K, const float *A, size_t a_rs,
             size_t a_ks, const float *B, size_t ldb, float *C, size_t ldc)
{
    const pmm_args g = {K, A, a_rs, a_ks, B, ldb, C, ldc};
#if RX__PGEMM_X86
    if (isa == RX__ISA_AVX512) {
        pmm_avx512(&g, M, n16);
        return;
    }
    if (isa == RX__ISA_AVX2) {
        pmm_avx2(&g, M, 2 * n16);
        return;
    }
#endif
    (void)isa;
    pmm_portable(&g, M, n16);
}

void rx__pmm_nt(int isa, int oc, int c, int T, const float *dM,
                const float *V_, size_t ldT, float *vt, float *dU)
{
    const int c16 = (c + RX__VW - 1) / RX__VW;
    const nt_args g = {c, T, ldT, (size_t)c16 * RX__VW, dM, vt, dU};
#if RX__PGEMM_X86
    if (isa == RX__ISA_AVX512) {
        pmm_nt_avx512(&g, oc, c16, V_, vt);
        return;
    }
    if (isa == RX__ISA_AVX2) {
        pmm_nt_avx2(&g, oc, c16, V_, vt);
        return;
    }
#endif
    (void)isa;
    pmm_nt_portable(&g, oc, c16, V_, vt);
}
