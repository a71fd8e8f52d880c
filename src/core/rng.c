/*
 * Philox4x32-10 (Salmon et al., SC'11) and the counter-keyed streams built on
 * it. Pure functions of (key, counter): results never depend on call order
 * across streams, which is what makes output thread-count independent.
 */
#include <math.h>
#include <string.h>

#if defined(__x86_64__) && defined(__GNUC__)
#include <immintrin.h>
#define RX_X86_SIMD 1
#endif
#if defined(__GNUC__)
#define RX_INLINE_ALWAYS inline __attribute__((always_inline))
#define RX_NOINLINE __attribute__((noinline))
#else
#define RX_INLINE_ALWAYS inline
#define RX_NOINLINE
#endif

#include "internal.h"
#include "rng_inline.h"
#include "sincos2pi.h"

rx__u32x4 rx__philox4x32_10(rx__u32x4 c, uint32_t k0, uint32_t k1)
{
    return rx__philox_inl(c, k0, k1);
}

void rx__stream_init(rx__stream *s, uint64_t seed, uint32_t entity,
                     uint32_t purpose, uint64_t k)
{
    rx__stream_init_inl(s, seed, entity, purpose, k);
}

uint64_t rx_replicate_seed(uint64_t seed, int r)
{
    if (r <= 0)
        return seed;
    rx__u32x4 c = {{(uint32_t)r, 0u, (uint32_t)RX_STREAM_REPLICATE << 24, 0u}};
    rx__u32x4 v = rx__philox_inl(c, (uint32_t)seed, (uint32_t)(seed >> 32));
    /* 53 bits: a JSON reader holding numbers as doubles reads it exactly */
    return ((uint64_t)v.v[1] << 32 | v.v[0]) & ((UINT64_C(1) << 53) - 1);
}

/* (x + 0.5) / 2^32: strictly inside (0,1). */
static inline double u32_open(uint32_t x)
{
    return ((double)x + 0.5) * (1.0 / 4294967296.0);
}

double rx__uniform(rx__stream *s)
{
    rx__u32x4 r = rx__next_block_inl(s);
    uint64_t m = ((uint64_t)r.v[0] << 21) ^ (uint64_t)(r.v[1] >> 11);
    m &= (1ull << 53) - 1;
    return ((double)m + 0.5) * (1.0 / 9007199254740992.0);
}

uint64_t rx__uniform_int(rx__stream *s, uint64_t n)
{
    rx__u32x4 r = rx__next_block_inl(s);
    /* high 64 bits of x * n (Lemire's multiply, no modulo bias beyond
     * 2^-64 relative) computed with 32-bit halves, ISO C only */
    uint64_t xh = r.v[0], xl = r.v[1];
    uint64_t nh = n >> 32, nl = n & 0xffffffffu;
    uint64_t ll = xl * nl, lh = xl * nh, hl = xh * nl, hh = xh * nh;
    uint64_t mid = (ll >> 32) + (lh & 0xffffffffu) + (hl & 0xffffffffu);
    return hh + (lh >> 32) + (hl >> 32) + (mid >> 32);
}

/* A source of 32-bit word pairs: the stream itself (scalar draws) or a
 * group of blocks computed ahead (rx__normal_fill). */
typedef void (*pair_fn)(void *src, uint32_t *a, uint32_t *b);

static void stream_pair(void *src, uint32_t *a, uint32_t *b)
{
    rx__next_pair_inl((rx__stream *)src, a, b);
}

/* Uniform on (0,1) with 53 bits from the next pair. */
static RX_INLINE_ALWAYS double
src_uniform(void *src, pair_fn pair)
{
    uint32_t a, b;
    pair(src, &a, &b);
    uint64_t m = (((uint64_t)a << 32) | b) >> 11;
    return ((double)m + 0.5) * (1.0 / 9007199254740992.0);
}

/*
 * Ziggurat (Marsaglia and Tsang 2000) with 256 equal-area layers of
 * f(x) = exp(-x^2/2), tables from scripts/gen_ziggurat.py. One 64-bit word
 * u: layer i = bits 0-7, sign = bit 8, m = bits 11-63 (53 bits), candidate
 * z = m * x[i] / 2^53. m < k[i] means z < x[i+1]: the whole column under
 * z lies below the curve, accept (98.8 % of words). Otherwise layer 0
 * draws from the tail beyond r (Marsaglia 1964) and a layer i > 0 tests a
 * uniform height in [f(x[i]), f(x[i+1])] against f(z); a rejected word
 * starts over with the next one.
 */
/* The tail or the wedge for a word u that failed the fast test: 1 and *out
 * when accepted, 0 when the draw starts over. */
static RX_INLINE_ALWAYS int zig_edge(void *src, pair_fn pair, uint64_t u,
                                     double *out)
{
    unsigned i = (unsigned)(u & 0xffu);
    double sign = (u & 0x100u) ? -1.0 : 1.0;
    double z = (double)(u >> 11) * rx__zig_w[i];
    if (i == 0) {
        double x, y;
        do {
            x = -log(src_uniform(src, pair)) * (1.0 / RX__ZIG_R);
            y = -log(src_uniform(src, pair));
        } while (y + y < x * x);
        *out = sign * (RX__ZIG_R + x);
        return 1;
    }
    double h = rx__zig_f[i] + src_uniform(src, pair) *
                                  (rx__zig_f[i + 1] - rx__zig_f[i]);
    *out = sign * z;
    return h < exp(-0.5 * z * z);
}

static RX_INLINE_ALWAYS double zig_draw(void *src, pair_fn pair)
{
    for (;;) {
        uint32_t a, b;
        pair(src, &a, &b);
        uint64_t u = ((uint64_t)a << 32) | b;
        double z;
        if (rx__zig_fast(u, &z) || zig_edge(src, pair, u, &z))
            return z;
    }
}

/* Box-Muller on one pair: *c = r cos(2 pi u2) (returned first), *s its
 * sine partner (the spare). */
static inline void bm_pair(uint32_t a, uint32_t b, double *c, double *s)
{
    double rad = sqrt(-2.0 * log(u32_open(a)));
    double sn, cs;
    rx__sincos2pi(u32_open(b), &sn, &cs);
    *c = rad * cs;
    *s = rad * sn;
}

double rx__zig_slow(rx__stream *s, uint64_t u)
{
    double z;
    if (zig_edge(s, stream_pair, u, &z))
        return z;
    return zig_draw(s, stream_pair);
}

double rx__normal(rx__stream *s)
{
    if (s->normal == RX_NORMAL_ZIGGURAT)
        return rx__zig_normal_inl(s);
    if (s->have_spare) {
        s->have_spare = 0;
        return s->spare;
    }
    uint32_t a, b;
    rx__next_pair_inl(s, &a, &b);
    double c;
    bm_pair(a, b, &c, &s->spare);
    s->have_spare = 1;
    return c;
}

/* ---- blocks ahead ------------------------------------------------------
 * nb <= RX__GROUP consecutive blocks c0 .. c0+nb-1 of one stream, word j of
 * block l at w[j][l]. Three implementations, bitwise the same (integer
 * arithmetic): AVX-512F (16 blocks per vector), AVX2 (8) and scalar. */
static void blocks_scalar(uint32_t k0, uint32_t k1, uint32_t c0,
                          uint32_t c1, uint32_t c2, uint32_t c3, int nb,
                          uint32_t w[4][RX__GROUP])
{
    for (int l = 0; l < nb; ++l) {
        rx__u32x4 c = {{c0 + (uint32_t)l, c1, c2, c3}};
        rx__u32x4 r = rx__philox4x32_10(c, k0, k1);
        for (int j = 0; j < 4; ++j)
            w[j][l] = r.v[j];
    }
}

#ifdef RX_X86_SIMD
__attribute__((target("avx2"))) static inline void
mulhilo8(__m256i a, __m256i m, __m256i *hi, __m256i *lo)
{
    __m256i pe = _mm256_mul_epu32(a, m);                        /* lanes 0,2,.. */
    __m256i po = _mm256_mul_epu32(_mm256_srli_epi64(a, 32), m); /* 1,3,.. */
    *hi = _mm256_blend_epi32(_mm256_srli_epi64(pe, 32), po, 0xAA);
    *lo = _mm256_blend_epi32(pe, _mm256_slli_epi64(po, 32), 0xAA);
}

__attribute__((target("avx2"))) static void
blocks_avx2(uint32_t k0, uint32_t k1, uint32_t c0, uint32_t c1, uint32_t c2,
            uint32_t c3, int nb, uint32_t w[4][RX__GROUP])
{
    const __m256i m0 = _mm256_set1_epi32((int)RX__PHILOX_M0);
    const __m256i m1 = _mm256_set1_epi32((int)RX__PHILOX_M1);
    const __m256i inc = _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7);
    for (int l = 0; l < nb; l += 8) {
        __m256i x0 = _mm256_add_epi32(_mm256_set1_epi32((int)(c0 + (uint32_t)l)),
                                      inc);
        __m256i x1 = _mm256_set1_epi32((int)c1);
        __m256i x2 = _mm256_set1_epi32((int)c2);
        __m256i x3 = _mm256_set1_epi32((int)c3);
        uint32_t a = k0, b = k1;
        for (int r = 0; r < 10; ++r) {
            if (r > 0) {
                a += RX__PHILOX_W0;
                b += RX__PHILOX_W1;
            }
            __m256i h0, l0, h1, l1;
            mulhilo8(x0, m0, &h0, &l0);
            mulhilo8(x2, m1, &h1, &l1);
            x0 = _mm256_xor_si256(_mm256_xor_si256(h1, x1),
                                  _mm256_set1_epi32((int)a));
            x2 = _mm256_xor_si256(_mm256_xor_si256(h0, x3),
                                  _mm256_set1_epi32((int)b));
            x1 = l1;
            x3 = l0;
        }
        _mm256_storeu_si256((__m256i *)(void *)&w[0][l], x0);
        _mm256_storeu_si256((__m256i *)(void *)&w[1][l], x1);
        _mm256_storeu_si256((__m256i *)(void *)&w[2][l], x2);
        _mm256_storeu_si256((__m256i *)(void *)&w[3][l], x3);
    }
}

__attribute__((target("avx512f"))) static void
blocks_avx512(uint32_t k0, uint32_t k1, uint32_t c0, uint32_t c1,
              uint32_t c2, uint32_t c3, int nb, uint32_t w[4][RX__GROUP])
{
    (void)nb; /* always the whole group: one vector */
    const __m512i m0 = _mm512_set1_epi32((int)RX__PHILOX_M0);
    const __m512i m1 = _mm512_set1_epi32((int)RX__PHILOX_M1);
    const __m512i inc = _mm512_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10,
                                          11, 12, 13, 14, 15);
    __m512i x0 = _mm512_add_epi32(_mm512_set1_epi32((int)c0), inc);
    __m512i x1 = _mm512_set1_epi32((int)c1);
    __m512i x2 = _mm512_set1_epi32((int)c2);
    __m512i x3 = _mm512_set1_epi32((int)c3);
    uint32_t a = k0, b = k1;
    for (int r = 0; r < 10; ++r) {
        if (r > 0) {
            a += RX__PHILOX_W0;
            b += RX__PHILOX_W1;
        }
        __m512i pe0 = _mm512_mul_epu32(x0, m0);
        __m512i po0 = _mm512_mul_epu32(_mm512_srli_epi64(x0, 32), m0);
        __m512i pe1 = _mm512_mul_epu32(x2, m1);
        __m512i po1 = _mm512_mul_epu32(_mm512_srli_epi64(x2, 32), m1);
        __m512i h0 = _mm512_mask_blend_epi32(0xAAAA, _mm512_srli_epi64(pe0, 32),
                                             po0);
        __m512i l0 = _mm512_mask_blend_epi32(0xAAAA, pe0,
                                             _mm512_slli_epi64(po0, 32));
        __m512i h1 = _mm512_mask_blend_epi32(0xAAAA, _mm512_srli_epi64(pe1, 32),
                                             po1);
        __m512i l1 = _mm512_mask_blend_epi32(0xAAAA, pe1,
                                             _mm512_slli_epi64(po1, 32));
        /* 0x96: three-way exclusive or */
        x0 = _mm512_ternarylogic_epi32(h1, x1, _mm512_set1_epi32((int)a), 0x96);
        x2 = _mm512_ternarylogic_epi32(h0, x3, _mm512_set1_epi32((int)b), 0x96);
        x1 = l1;
        x3 = l0;
    }
    _mm512_storeu_si512((void *)&w[0][0], x0);
    _mm512_storeu_si512((void *)&w[1][0], x1);
    _mm512_storeu_si512((void *)&w[2][0], x2);
    _mm512_storeu_si512((void *)&w[3][0], x3);
}
#endif

int rx__blocks_impl_available(int impl)
{
#ifdef RX_X86_SIMD
    if (impl == 2)
        return __builtin_cpu_supports("avx512f");
    if (impl == 1)
        return __builtin_cpu_supports("avx2");
#endif
    return impl == 0;
}

/* The best implementation this CPU runs (a read of the CPU's feature
 * bits, no state of ours). */
static int blocks_best(void)
{
#ifdef RX_X86_SIMD
    __builtin_cpu_init(); /* idempotent; for callers before constructors */
#endif
    return rx__blocks_impl_available(2) ? 2
           : rx__blocks_impl_available(1) ? 1
                                          : 0;
}

void rx__philox_group(int impl, const rx__stream *s, uint32_t first,
                      int nb, uint32_t w[4][RX__GROUP])
{
#ifdef RX_X86_SIMD
    if (impl == 2) {
        blocks_avx512(s->key0, s->key1, first, s->c1, s->c2, s->c3, nb, w);
        return;
    }
    if (impl == 1) {
        blocks_avx2(s->key0, s->key1, first, s->c1, s->c2, s->c3, nb, w);
        return;
    }
#endif
    (void)impl;
    blocks_scalar(s->key0, s->key1, first, s->c1, s->c2, s->c3, nb, w);
}

/* The fill's word source: the stream's pending pair first, then groups of
 * blocks computed ahead. The group holds blocks base .. base+nb-1; pos
 * counts the pairs taken from it (two per block). */
typedef struct {
    rx__stream *s;
    int impl;
    int nb, pos;      /* blocks in the group, pairs taken from it */
    uint32_t base;    /* block number of the group's first block */
    size_t want;      /* pairs still expected (sizes the next group) */
    uint32_t w[4][RX__GROUP];
    uint64_t u[2 * RX__GROUP]; /* pair p as (first word << 32) | second */
} group_src;

static inline void group_refill(group_src *g)
{
    g->base += (uint32_t)g->nb;
    size_t nb = (g->want + 1) / 2;
    g->nb = nb < 1 ? 1 : nb > RX__GROUP ? RX__GROUP : (int)nb;
    rx__philox_group(g->impl, g->s, g->base, g->nb, g->w);
    for (int l = 0; l < g->nb; ++l) {
        g->u[2 * l] = ((uint64_t)g->w[0][l] << 32) | g->w[1][l];
        g->u[2 * l + 1] = ((uint64_t)g->w[2][l] << 32) | g->w[3][l];
    }
    g->pos = 0;
}

static void group_pair(void *src, uint32_t *a, uint32_t *b)
{
    group_src *g = (group_src *)src;
    rx__stream *s = g->s;
    if (s->have_raw) {
        *a = s->raw[0];
        *b = s->raw[1];
        s->have_raw = 0;
        return;
    }
    if (g->pos == 2 * g->nb)
        group_refill(g);
    uint64_t u = g->u[g->pos++];
    *a = (uint32_t)(u >> 32);
    *b = (uint32_t)u;
    if (g->want)
        g->want--;
}

/* The draw of a word u that failed the ziggurat's fast test: the tail or
 * the wedge, and on rejection whole new draws (zig_draw). */
static RX_NOINLINE double zig_slow(group_src *g, uint64_t u)
{
    double z;
    if (zig_edge(g, group_pair, u, &z))
        return z;
    return zig_draw(g, group_pair);
}

/* The ziggurat over the group's words: the fast test inline, the rest in
 * zig_slow. The same words in the same order as zig_draw. */
static void zig_fill(group_src *g, double *out, size_t n)
{
    size_t i = 0;
    if (g->s->have_raw && n > 0)
        out[i++] = zig_draw(g, group_pair);
    while (i < n) {
        if (g->pos == 2 * g->nb)
            group_refill(g);
        /* the group's pairs in registers until the slow path needs g */
        int pos = g->pos;
        const int end = 2 * g->nb;
        while (i < n && pos < end) {
            uint64_t u = g->u[pos++];
            double z;
            if (rx__zig_fast(u, &z)) {
                out[i++] = z;
            } else {
                size_t used = (size_t)(pos - g->pos);
                g->want = g->want > used ? g->want - used : 0;
                g->pos = pos;
                out[i++] = zig_slow(g, u);
                pos = -1; /* g is current (it may hold a new group) */
                break;
            }
        }
        if (pos >= 0) {
            size_t used = (size_t)(pos - g->pos);
            g->want = g->want > used ? g->want - used : 0;
            g->pos = pos;
        }
    }
}

void rx__normal_fill_impl(int impl, rx__stream *s, double *out, size_t n)
{
    size_t i = 0;
    if (n < RX__FILL_MIN) { /* a group would cost more than it saves */
        for (; i < n; ++i)
            out[i] = rx__normal(s);
        return;
    }
    group_src g;
    g.s = s;
    g.impl = impl;
    g.nb = g.pos = 0;
    g.base = s->block;
    if (s->normal == RX_NORMAL_ZIGGURAT) {
        g.want = n + 1;
        zig_fill(&g, out, n);
    } else {
        if (s->have_spare) {
            s->have_spare = 0;
            out[i++] = s->spare;
        }
        g.want = (n - i + 1) / 2;
        for (; i + 1 < n; i += 2) {
            uint32_t a, b;
            group_pair(&g, &a, &b);
            bm_pair(a, b, &out[i], &out[i + 1]);
        }
        if (i < n) {
            uint32_t a, b;
            group_pair(&g, &a, &b);
            bm_pair(a, b, &out[i], &s->spare);
            s->have_spare = 1;
        }
    }
    /* the stream is where the scalar draws would leave it: past every
     * block whose first pair was taken, with words 2, 3 of the last one
     * pending when only its first pair was */
    s->block = g.base + (uint32_t)((g.pos + 1) / 2);
    if (g.pos & 1) {
        int l = g.pos >> 1;
        s->raw[0] = g.w[2][l];
        s->raw[1] = g.w[3][l];
        s->have_raw = 1;
    }
}

void rx__normal_fill(rx__stream *s, double *out, size_t n)
{
    rx__normal_fill_impl(n < RX__FILL_MIN ? 0 : blocks_best(), s, out, n);
}

void rx__uniform4(uint64_t seed, uint32_t entity, uint32_t purpose,
                  uint64_t k, uint32_t block, double out[4])
{
    rx__stream s;
    rx__stream_init(&s, seed, entity, purpose, k);
    s.block = block;
    rx__u32x4 r = rx__next_block_inl(&s);
    for (int j = 0; j < 4; ++j)
        out[j] = u32_open(r.v[j]);
}
