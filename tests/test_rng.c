/*
 * Philox4x32-10 against the Random123 known-answer vectors, and the
 * uniform / normal / integer draws built on it.
 */
#include <string.h>

#define _GNU_SOURCE
#include "../src/core/internal.h"
#include "../src/core/sincos2pi.h"
#include "check.h"

static void kat(uint32_t c0, uint32_t c1, uint32_t c2, uint32_t c3,
                uint32_t k0, uint32_t k1, uint32_t e0, uint32_t e1,
                uint32_t e2, uint32_t e3)
{
    rx__u32x4 c = {{c0, c1, c2, c3}};
    rx__u32x4 r = rx__philox4x32_10(c, k0, k1);
    CHECK_MSG(r.v[0] == e0 && r.v[1] == e1 && r.v[2] == e2 && r.v[3] == e3,
              "got %08x %08x %08x %08x", r.v[0], r.v[1], r.v[2], r.v[3]);
}

int main(void)
{
    /* Random123 kat_vectors, philox4x32 10: ctr[4] key[2] -> out[4] */
    kat(0, 0, 0, 0, 0, 0, 0x6627e8d5, 0xe169c58d, 0xbc57ac4c, 0x9b00dbd8);
    kat(0xffffffff, 0xffffffff, 0xffffffff, 0xffffffff, 0xffffffff,
        0xffffffff, 0x408f276d, 0x41c83b0e, 0xa20bc7c6, 0x6d5451fd);
    kat(0x243f6a88, 0x85a308d3, 0x13198a2e, 0x03707344, 0xa4093822,
        0x299f31d0, 0xd16cfe09, 0x94fdcceb, 0x5001e420, 0x24126ea1);

    /* moments: n = 1e6 draws; tolerances are 5 standard errors */
    const int n = 1000000;
    rx__stream s;
    rx__stream_init(&s, 42, 7, RX_STREAM_STEP, 123);
    double su = 0, su2 = 0, mn = 1, mx = 0;
    for (int i = 0; i < n; ++i) {
        double u = rx__uniform(&s);
        su += u;
        su2 += u * u;
        if (u < mn)
            mn = u;
        if (u > mx)
            mx = u;
    }
    CHECK(mn > 0.0 && mx < 1.0);
    CHECK_NEAR(su / n, 0.5, 5 * sqrt(1.0 / 12 / n));
    CHECK_NEAR(su2 / n - (su / n) * (su / n), 1.0 / 12, 5 * 0.0745 / sqrt(n));

    rx__stream_init(&s, 42, 7, RX_STREAM_STEP, 124);
    double sz = 0, sz2 = 0, sz4 = 0;
    for (int i = 0; i < n; ++i) {
        double z = rx__normal(&s);
        sz += z;
        sz2 += z * z;
        sz4 += z * z * z * z;
    }
    CHECK_NEAR(sz / n, 0.0, 5 / sqrt(n));
    CHECK_NEAR(sz2 / n, 1.0, 5 * sqrt(2.0 / n));
    CHECK_NEAR(sz4 / n, 3.0, 5 * sqrt(96.0 / n));

    /* integers on [0, 7): every value, roughly uniform */
    int cnt[7] = {0}, out_of_range = 0;
    rx__stream_init(&s, 1, 0, RX_STREAM_SCHED, 0);
    for (int i = 0; i < 70000; ++i) {
        uint64_t v = rx__uniform_int(&s, 7);
        if (v < 7)
            cnt[v]++;
        else
            out_of_range++;
    }
    CHECK(out_of_range == 0);
    for (int v = 0; v < 7; ++v)
        CHECK_NEAR(cnt[v], 10000, 5 * sqrt(10000 * 6.0 / 7));

    /* streams are pure functions of (seed, entity, purpose, k) */
    rx__stream a, b;
    rx__stream_init(&a, 9, 3, RX_STREAM_SWAP, 77);
    rx__stream_init(&b, 9, 3, RX_STREAM_SWAP, 77);
    double x1 = rx__normal(&a), x2 = rx__normal(&b);
    CHECK(memcmp(&x1, &x2, sizeof x1) == 0);
    rx__stream_init(&b, 9, 4, RX_STREAM_SWAP, 77);
    CHECK(rx__normal(&b) != x1);
    rx__stream_init(&b, 9, 3, RX_STREAM_STEP, 77);
    CHECK(rx__normal(&b) != x1);
    rx__stream_init(&b, 9, 3, RX_STREAM_SWAP, 77 + (1ull << 32));
    CHECK(rx__normal(&b) != x1);
    rx__stream_init(&b, 10, 3, RX_STREAM_SWAP, 77);
    CHECK(rx__normal(&b) != x1);
    /* the fast sin/cos of 2 pi x against libm in long double */
    {
        double worst = 0.0;
        rx__stream_init(&s, 5, 0, RX_STREAM_INIT, 0);
        for (int i = 0; i < 200000; ++i) {
            double x = (rx__uniform(&s) - 0.5) * (i < 100000 ? 2.0 : 200.0);
            double sn, cs;
            rx__sincos2pi(x, &sn, &cs);
            long double t = 6.283185307179586476925286766559L * (long double)x;
            double es = fabs(sn - (double)sinl(t)), ec = fabs(cs - (double)cosl(t));
            if (es > worst)
                worst = es;
            if (ec > worst)
                worst = ec;
        }
        /* |x| <= 100: the reference itself carries ~1e-17 |t| error */
        CHECK_MSG(worst < 4e-16, "max error %.3g", worst);
        double sn, cs;
        rx__sincos2pi(0.25, &sn, &cs);
        CHECK(sn == 1.0 && cs == 0.0);
        rx__sincos2pi(-0.5, &sn, &cs);
        CHECK(sn == 0.0 && cs == -1.0);
        rx__sincos2pi(3.0, &sn, &cs);
        CHECK(sn == 0.0 && cs == 1.0);
    }
    return check_done();
}
