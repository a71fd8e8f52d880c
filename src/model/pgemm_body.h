/*
 * One version of the pgemm.c kernels, included by pgemm.c once per
 * instruction set with:
 *   KSFX          name suffix           KATTR  function attributes
 *   VL            floats per vector     V      the vector type
 *   VLD(p) VST(p, v) VBC(x) VZERO VADD(a, b)
 *   VFMA(a, b, c) a * b + c rounded once
 *   MM_R1 x MM_V1, MM_R2 x MM_V2, MM_R3 x 1: register blocks (rows x
 *   vectors) of rx__pmm, widest first; NT_R x NT_V: those of rx__pmm_nt.
 * Every element is one chain of fused multiply-adds over k (t) in order
 * from 0, so the block shapes and vector widths change no bit. Ends by
 * undefining all of these.
 */
_Static_assert(MM_V2 <= MM_V1 && NT_V >= 1, "mm_block's arrays hold MM_V1 "
               "vectors");
#define KCAT2(a, b) a##_##b
#define KCAT(a, b) KCAT2(a, b)

static inline __attribute__((always_inline)) KATTR void
KCAT(mm_block, KSFX)(const pmm_args *g, int i, int rb, int j, int vb)
{
    V acc[MM_R2 > MM_R1 ? (MM_R2 > MM_R3 ? MM_R2 : MM_R3)
                        : (MM_R1 > MM_R3 ? MM_R1 : MM_R3)][MM_V1];
    for (int r = 0; r < rb; ++r)
        for (int v = 0; v < vb; ++v)
            acc[r][v] = VZERO;
    const float *a0 = g->A + (size_t)i * g->a_rs;
    for (int k = 0; k < g->K; ++k) {
        V b[MM_V1];
        const float *bk = g->B + (size_t)k * g->ldb + (size_t)j * VL;
        for (int v = 0; v < vb; ++v)
            b[v] = VLD(bk + (size_t)v * VL);
        const float *ak = a0 + (size_t)k * g->a_ks;
        for (int r = 0; r < rb; ++r) {
            const V a = VBC(ak[(size_t)r * g->a_rs]);
            for (int v = 0; v < vb; ++v)
                acc[r][v] = VFMA(a, b[v], acc[r][v]);
        }
    }
    for (int r = 0; r < rb; ++r)
        for (int v = 0; v < vb; ++v)
            VST(g->C + (size_t)(i + r) * g->ldc + (size_t)(j + v) * VL,
                acc[r][v]);
}

KATTR static void KCAT(pmm, KSFX)(const pmm_args *g, int M, int nv)
{
    int j = 0;
    for (; j + MM_V1 <= nv; j += MM_V1) {
        int i = 0;
        for (; i + MM_R1 <= M; i += MM_R1)
            KCAT(mm_block, KSFX)(g, i, MM_R1, j, MM_V1);
        for (; i < M; ++i)
            KCAT(mm_block, KSFX)(g, i, 1, j, MM_V1);
    }
    for (; j + MM_V2 <= nv; j += MM_V2) {
        int i = 0;
        for (; i + MM_R2 <= M; i += MM_R2)
            KCAT(mm_block, KSFX)(g, i, MM_R2, j, MM_V2);
        for (; i < M; ++i)
            KCAT(mm_block, KSFX)(g, i, 1, j, MM_V2);
    }
    for (; j < nv; ++j) {
        int i = 0;
        for (; i + MM_R3 <= M; i += MM_R3)
            KCAT(mm_block, KSFX)(g, i, MM_R3, j, 1);
        for (; i < M; ++i)
            KCAT(mm_block, KSFX)(g, i, 1, j, 1);
    }
}

static inline __attribute__((always_inline)) KATTR void
KCAT(nt_block, KSFX)(const nt_args *g, int co, int rb, int v, int vb)
{
    V acc[NT_R][NT_V];
    for (int r = 0; r < rb; ++r)
        for (int j = 0; j < vb; ++j)
            acc[r][j] = VZERO;
    for (int t = 0; t < g->T; ++t) {
        V q[NT_V];
        const float *vt = g->vt + (size_t)t * g->ldv + (size_t)v * VL;
        for (int j = 0; j < vb; ++j)
            q[j] = VLD(vt + (size_t)j * VL);
        for (int r = 0; r < rb; ++r) {
            const V a = VBC(g->dM[(size_t)(co + r) * g->ldT + t]);
            for (int j = 0; j < vb; ++j)
                acc[r][j] = VFMA(a, q[j], acc[r][j]);
        }
    }
    for (int r = 0; r < rb; ++r)
        for (int j = 0; j < vb; ++j) {
            const int nl = g->c - (v + j) * VL;
            if (nl <= 0)
                continue; /* a vector past the last column */
            float *d = g->dU + (size_t)(co + r) * g->c + (size_t)(v + j) * VL;
            if (nl >= VL) {
                VST(d, VADD(VLD(d), acc[r][j]));
            } else {
                float s[VL];
                VST(s, acc[r][j]);
                for (int l = 0; l < nl; ++l)
                    d[l] += s[l];
            }
        }
}

KATTR static void KCAT(pmm_nt, KSFX)(const nt_args *g, int oc, int c16,
                                     const float *V_, float *vt)
{
    const int T16 = (g->T + RX__VW - 1) / RX__VW;
    for (int cb = 0; cb < c16; ++cb)
        for (int tb = 0; tb < T16; ++tb) {
            rx__vf r[RX__VW];
            for (int i = 0; i < RX__VW; ++i) {
                const int ci = cb * RX__VW + i;
                if (ci < g->c)
                    rx__vld(&r[i], V_ + (size_t)ci * g->ldT +
                                       (size_t)tb * RX__VW);
                else
                    r[i] = (rx__vf){0};
            }
            rx__transpose16(r);
            for (int i = 0; i < RX__VW; ++i)
                rx__vst(vt + ((size_t)tb * RX__VW + i) * g->ldv +
                            (size_t)cb * RX__VW,
                        &r[i]);
        }
    const int nv = (g->c + VL - 1) / VL; /* vectors holding a column */
    int v = 0;
    for (; v + NT_V <= nv; v += NT_V) {
        int co = 0;
        for (; co + NT_R <= oc; co += NT_R)
            KCAT(nt_block, KSFX)(g, co, NT_R, v, NT_V);
        for (; co < oc; ++co)
            KCAT(nt_block, KSFX)(g, co, 1, v, NT_V);
    }
    for (; v < nv; ++v) {
        int co = 0;
        for (; co + NT_R <= oc; co += NT_R)
            KCAT(nt_block, KSFX)(g, co, NT_R, v, 1);
        for (; co < oc; ++co)
            KCAT(nt_block, KSFX)(g, co, 1, v, 1);
    }
}

#undef KCAT
#undef KCAT2
#undef KSFX
#undef KATTR
#undef VL
#undef V
#undef VLD
#undef VST
#undef VBC
#undef VZERO
#undef VADD
#undef VFMA
#undef MM_R1
#undef MM_V1
#undef MM_R2
#undef MM_V2
#undef MM_R3
#undef NT_R
#undef NT_V
