/*
 * The scalar stream draws as always-inline functions, for the hot loops
 * that draw a few numbers per call (the 2-D target's fused chain-step,
 * src/target/mixture25.c) and for rng.c itself, which builds rx__normal,
 * rx__stream_init and rx__philox4x32_10 on them: one definition, so the
 * inlined draws are bitwise the library's.
 */
#ifndef RX_CORE_RNG_INLINE_H
#define RX_CORE_RNG_INLINE_H

#include <string.h>

#include "internal.h"
#include "ziggurat_tables.h"

#if defined(__GNUC__)
#define RX__RNG_INL static inline __attribute__((always_inline))
#else
#define RX__RNG_INL static inline
#endif

#define RX__PHILOX_M0 0xD2511F53u
#define RX__PHILOX_M1 0xCD9E8D57u
#define RX__PHILOX_W0 0x9E3779B9u
#define RX__PHILOX_W1 0xBB67AE85u

RX__RNG_INL rx__u32x4 rx__philox_inl(rx__u32x4 c, uint32_t k0, uint32_t k1)
{
    for (int r = 0; r < 10; ++r) {
        if (r > 0) {
            k0 += RX__PHILOX_W0;
            k1 += RX__PHILOX_W1;
        }
        uint64_t p0 = (uint64_t)RX__PHILOX_M0 * c.v[0];
        uint64_t p1 = (uint64_t)RX__PHILOX_M1 * c.v[2];
        rx__u32x4 n = {{(uint32_t)(p1 >> 32) ^ c.v[1] ^ k0, (uint32_t)p1,
                        (uint32_t)(p0 >> 32) ^ c.v[3] ^ k1, (uint32_t)p0}};
        c = n;
    }
    return c;
}

RX__RNG_INL void rx__stream_init_inl(rx__stream *s, uint64_t seed,
                                     uint32_t entity, uint32_t purpose,
                                     uint64_t k)
{
    s->key0 = (uint32_t)seed;
    s->key1 = (uint32_t)(seed >> 32);
    s->c1 = (uint32_t)k;
    s->c2 = ((uint32_t)(k >> 32) & 0xffffffu) | (purpose << 24);
    s->c3 = entity;
    s->block = 0;
    s->have_raw = 0;
    s->have_spare = 0;
    s->normal = RX_NORMAL_BOX_MULLER;
}

RX__RNG_INL rx__u32x4 rx__next_block_inl(rx__stream *s)
{
    rx__u32x4 c = {{s->block++, s->c1, s->c2, s->c3}};
    return rx__philox_inl(c, s->key0, s->key1);
}

/* The next two 32-bit words of the stream: words 0-1 of a fresh block,
 * then its words 2-3. */
RX__RNG_INL void rx__next_pair_inl(rx__stream *s, uint32_t *a, uint32_t *b)
{
    if (s->have_raw) {
        *a = s->raw[0];
        *b = s->raw[1];
        s->have_raw = 0;
    } else {
        rx__u32x4 r = rx__next_block_inl(s);
        *a = r.v[0];
        *b = r.v[1];
        s->raw[0] = r.v[2];
        s->raw[1] = r.v[3];
        s->have_raw = 1;
    }
}

/* z with its sign bit set from bit 8 of u, without a branch (the sign is
 * a coin: a branch on it mispredicts half the time). */
RX__RNG_INL double rx__zig_signed(double z, uint64_t u)
{
    uint64_t zb;
    memcpy(&zb, &z, sizeof zb);
    zb ^= (u & 0x100u) << 55;
    memcpy(&z, &zb, sizeof zb);
    return z;
}

/* The ziggurat's fast test on a 64-bit word u (rng.c's layout: layer bits
 * 0-7, sign bit 8, m bits 11-63): 1 and *z when the whole column under the
 * candidate lies below the curve (98.8 % of words). */
RX__RNG_INL int rx__zig_fast(uint64_t u, double *z)
{
    unsigned i = (unsigned)(u & 0xffu);
    uint64_t m = u >> 11;
    if (m >= rx__zig_k[i])
        return 0;
    /* m < 2^53: exact as a signed conversion */
    *z = rx__zig_signed((double)(int64_t)m * rx__zig_w[i], u);
    return 1;
}

/* The ziggurat draw of a stream whose word u failed the fast test: the
 * wedge or the tail, else whole new draws (rng.c). */
double rx__zig_slow(rx__stream *s, uint64_t u);

/* One ziggurat normal of stream s: the fast test inline, the rest of the
 * draws (1.2 %) in rx__zig_slow. */
RX__RNG_INL double rx__zig_normal_inl(rx__stream *s)
{
    uint32_t a, b;
    rx__next_pair_inl(s, &a, &b);
    uint64_t u = ((uint64_t)a << 32) | b;
    double z;
    return rx__zig_fast(u, &z) ? z : rx__zig_slow(s, u);
}

#endif
