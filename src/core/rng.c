/*
 * Philox4x32-10 (Salmon et al., SC'11) and the counter-keyed streams built on
 * it. Pure functions of (key, counter): results never depend on call order
 * across streams, which is what makes output thread-count independent.
 */
#include <math.h>

#include "internal.h"
#include "sincos2pi.h"
#include "ziggurat_tables.h"

#define PHILOX_M0 0xD2511F53u
#define PHILOX_M1 0xCD9E8D57u
#define PHILOX_W0 0x9E3779B9u
#define PHILOX_W1 0xBB67AE85u

static inline void mulhilo(uint32_t a, uint32_t b, uint32_t *hi,
                           uint32_t *lo)
{
    uint64_t p = (uint64_t)a * b;
    *hi = (uint32_t)(p >> 32);
    *lo = (uint32_t)p;
}

rx__u32x4 rx__philox4x32_10(rx__u32x4 c, uint32_t k0, uint32_t k1)
{
    for (int r = 0; r < 10; ++r) {
        if (r > 0) {
            k0 += PHILOX_W0;
            k1 += PHILOX_W1;
        }
        uint32_t hi0, lo0, hi1, lo1;
        mulhilo(PHILOX_M0, c.v[0], &hi0, &lo0);
        mulhilo(PHILOX_M1, c.v[2], &hi1, &lo1);
        rx__u32x4 n = {{hi1 ^ c.v[1] ^ k0, lo1, hi0 ^ c.v[3] ^ k1, lo0}};
        c = n;
    }
    return c;
}

void rx__stream_init(rx__stream *s, uint64_t seed, uint32_t entity,
                     uint32_t purpose, uint64_t k)
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

static inline rx__u32x4 next_block(rx__stream *s)
{
    rx__u32x4 c = {{s->block++, s->c1, s->c2, s->c3}};
    return rx__philox4x32_10(c, s->key0, s->key1);
}

/* (x + 0.5) / 2^32: strictly inside (0,1). */
static inline double u32_open(uint32_t x)
{
    return ((double)x + 0.5) * (1.0 / 4294967296.0);
}

double rx__uniform(rx__stream *s)
{
    rx__u32x4 r = next_block(s);
    uint64_t m = ((uint64_t)r.v[0] << 21) ^ (uint64_t)(r.v[1] >> 11);
    m &= (1ull << 53) - 1;
    return ((double)m + 0.5) * (1.0 / 9007199254740992.0);
}

uint64_t rx__uniform_int(rx__stream *s, uint64_t n)
{
    rx__u32x4 r = next_block(s);
    /* high 64 bits of x * n (Lemire's multiply, no modulo bias beyond
     * 2^-64 relative) computed with 32-bit halves, ISO C only */
    uint64_t xh = r.v[0], xl = r.v[1];
    uint64_t nh = n >> 32, nl = n & 0xffffffffu;
    uint64_t ll = xl * nl, lh = xl * nh, hl = xh * nl, hh = xh * nh;
    uint64_t mid = (ll >> 32) + (lh & 0xffffffffu) + (hl & 0xffffffffu);
    return hh + (lh >> 32) + (hl >> 32) + (mid >> 32);
}

/* The next two 32-bit words of the stream: words 0-1 of a fresh block,
 * then its words 2-3. */
static inline void next_pair(rx__stream *s, uint32_t *a, uint32_t *b)
{
    if (s->have_raw) {
        *a = s->raw[0];
        *b = s->raw[1];
        s->have_raw = 0;
    } else {
        rx__u32x4 r = next_block(s);
        *a = r.v[0];
        *b = r.v[1];
        s->raw[0] = r.v[2];
        s->raw[1] = r.v[3];
        s->have_raw = 1;
    }
}

/* Uniform on (0,1) with 53 bits from the next two words. */
static inline double pair_uniform(rx__stream *s)
{
    uint32_t a, b;
    next_pair(s, &a, &b);
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
static double zig_normal(rx__stream *s)
{
    for (;;) {
        uint32_t a, b;
        next_pair(s, &a, &b);
        uint64_t u = ((uint64_t)a << 32) | b;
        unsigned i = (unsigned)(u & 0xffu);
        double sign = (u & 0x100u) ? -1.0 : 1.0;
        uint64_t m = u >> 11;
        double z = (double)m * rx__zig_w[i];
        if (m < rx__zig_k[i])
            return sign * z;
        if (i == 0) {
            double x, y;
            do {
                x = -log(pair_uniform(s)) * (1.0 / RX__ZIG_R);
                y = -log(pair_uniform(s));
            } while (y + y < x * x);
            return sign * (RX__ZIG_R + x);
        }
        double h = rx__zig_f[i] +
                   pair_uniform(s) * (rx__zig_f[i + 1] - rx__zig_f[i]);
        if (h < exp(-0.5 * z * z))
            return sign * z;
    }
}

double rx__normal(rx__stream *s)
{
    if (s->normal == RX_NORMAL_ZIGGURAT)
        return zig_normal(s);
    if (s->have_spare) {
        s->have_spare = 0;
        return s->spare;
    }
    uint32_t a, b;
    next_pair(s, &a, &b);
    double rad = sqrt(-2.0 * log(u32_open(a)));
    double sn, cs;
    rx__sincos2pi(u32_open(b), &sn, &cs);
    s->spare = rad * sn;
    s->have_spare = 1;
    return rad * cs;
}

void rx__uniform4(uint64_t seed, uint32_t entity, uint32_t purpose,
                  uint64_t k, uint32_t block, double out[4])
{
    rx__stream s;
    rx__stream_init(&s, seed, entity, purpose, k);
    s.block = block;
    rx__u32x4 r = next_block(&s);
    for (int j = 0; j < 4; ++j)
        out[j] = u32_open(r.v[j]);
}
