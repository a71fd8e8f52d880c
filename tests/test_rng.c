/*
 * Philox4x32-10 against the Random123 known-answer vectors, and the
 * uniform / normal / integer draws built on it.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define _GNU_SOURCE
#include "../src/core/internal.h"
#include "../src/core/sincos2pi.h"
#include "../src/core/ziggurat_tables.h"
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

/*
 * Distribution test of rx__normal under one method: n draws binned on
 * 0.15-wide bins over [-4.5, 4.5] plus the two outer tails, Pearson's
 * chi-square against the normal CDF (df = 61). The bound df + 6 sqrt(2 df)
 * is about 6 standard deviations of the statistic above its mean: a
 * correct generator fails it with probability below 1e-6 for any seed, a
 * wrong layer table or tail (a few 1e-3 of the mass misplaced) fails it
 * by far. Also: mass beyond the ziggurat's tail start r = 3.6541 (within
 * 5 standard errors), and the moments.
 */
static void normal_distribution(int method, uint64_t seed)
{
    enum { NB = 62 };
    const int n = 4000000;
    const double lo = -4.5, w = 0.15;
    long cnt[NB] = {0};
    long beyond_r = 0;
    double sz = 0, sz2 = 0, sz4 = 0;
    rx__stream s;
    rx__stream_init(&s, seed, 11, RX_STREAM_STEP, 5);
    s.normal = method;
    for (int i = 0; i < n; ++i) {
        double z = rx__normal(&s);
        sz += z;
        sz2 += z * z;
        sz4 += z * z * z * z;
        if (fabs(z) > 3.6541528853610088)
            beyond_r++;
        int b = z < lo ? 0 : z >= -lo ? NB - 1 : 1 + (int)((z - lo) / w);
        if (b > NB - 2 && z < -lo)
            b = NB - 2;
        cnt[b]++;
    }
    double chi2 = 0.0;
    for (int b = 0; b < NB; ++b) {
        double a = b == 0 ? -INFINITY : lo + (b - 1) * w;
        double c = b == NB - 1 ? INFINITY : lo + b * w;
        double pa = 0.5 * erfc(-a / sqrt(2.0)), pc = 0.5 * erfc(-c / sqrt(2.0));
        double e = n * (pc - pa);
        chi2 += ((double)cnt[b] - e) * ((double)cnt[b] - e) / e;
    }
    double df = NB - 1;
    if (getenv("RX_TEST_VERBOSE"))
        fprintf(stderr, "method %d seed %llu: chi2 %.1f, beyond r %ld\n",
                method, (unsigned long long)seed, chi2, beyond_r);
    CHECK_MSG(chi2 < df + 6.0 * sqrt(2.0 * df), "method %d: chi2 %.1f (df %g)",
              method, chi2, df);
    double pr = erfc(3.6541528853610088 / sqrt(2.0));
    CHECK_MSG(fabs((double)beyond_r - n * pr) < 5.0 * sqrt(n * pr),
              "method %d: %ld beyond r, expected %.0f", method, beyond_r,
              n * pr);
    CHECK_NEAR(sz / n, 0.0, 5 / sqrt(n));
    CHECK_NEAR(sz2 / n, 1.0, 5 * sqrt(2.0 / n));
    CHECK_NEAR(sz4 / n, 3.0, 5 * sqrt(96.0 / n));
}

/*
 * The ziggurat's tables (src/core/ziggurat_tables.h) are consistent: equal
 * layer areas v, heights f(x[i]) = exp(-x[i]^2/2), x[1] = r, the base
 * layer holding the rectangle plus the tail, and k[i] the 53-bit
 * threshold of x[i+1] / x[i].
 */
static void ziggurat_tables(void)
{
    const double t53 = 9007199254740992.0;
    double worst_area = 0.0, worst_f = 0.0, worst_k = 0.0;
    for (int i = 0; i < 256; ++i) {
        double xi = rx__zig_w[i] * t53;
        double xn = i < 255 ? rx__zig_w[i + 1] * t53 : 0.0;
        const double pi = 3.14159265358979323846;
        double tail = sqrt(pi / 2) * erfc(RX__ZIG_R / sqrt(2.0));
        double area = i == 0 ? RX__ZIG_R * rx__zig_f[1] + tail
                             : xi * (rx__zig_f[i + 1] - rx__zig_f[i]);
        if (i == 0)
            CHECK_NEAR(xi * rx__zig_f[1], RX__ZIG_V, 1e-15);
        worst_area = fmax(worst_area, fabs(area / RX__ZIG_V - 1.0));
        worst_f = fmax(worst_f, fabs(rx__zig_f[i] - exp(-0.5 * xi * xi)));
        worst_k = fmax(worst_k, fabs((double)rx__zig_k[i] - t53 * xn / xi));
        CHECK(i == 0 || xn < xi);
    }
    CHECK_NEAR(rx__zig_w[1] * t53, RX__ZIG_R, 1e-15);
    CHECK(rx__zig_f[256] == 1.0);
    CHECK_MSG(worst_area < 1e-12, "layer area off by %.3g", worst_area);
    CHECK_MSG(worst_f < 1e-15, "height off by %.3g", worst_f);
    CHECK_MSG(worst_k <= 1.0, "threshold off by %.3g", worst_k);
}

/*
 * The ziggurat's tail (|z| > r, the only draws that take the tail path
 * besides the base rectangle): over 4e7 draws (~10,000 in the tail) the
 * mean and variance of |z| - r given |z| > r against the normal tail's
 * m - r and 1 + r m - m^2 with m = phi(r) / Q(r), within 5 standard
 * errors.
 */
static void ziggurat_tail(void)
{
    const double r = RX__ZIG_R;
    rx__stream s;
    rx__stream_init(&s, 17, 2, RX_STREAM_GRADNOISE, 9);
    s.normal = RX_NORMAL_ZIGGURAT;
    double se = 0.0, se2 = 0.0;
    long cnt = 0;
    for (int i = 0; i < 40000000; ++i) {
        double z = fabs(rx__normal(&s));
        if (z > r) {
            se += z - r;
            se2 += (z - r) * (z - r);
            cnt++;
        }
    }
    double m = exp(-0.5 * r * r) / sqrt(2 * 3.14159265358979323846) / (0.5 * erfc(r / sqrt(2.0)));
    double mean = m - r, var = 1.0 + r * m - m * m;
    double c = (double)cnt;
    CHECK(cnt > 9000);
    CHECK_MSG(fabs(se / c - mean) < 5.0 * sqrt(var / c),
              "tail excess mean %.4f, expected %.4f", se / c, mean);
    /* var of (z - r)^2: bounded by E(z-r)^4 ~ 24 mean^4 for an
     * exponential-like tail; take 5 of those standard errors */
    double ex2 = var + mean * mean;
    CHECK_MSG(fabs(se2 / c - ex2) < 5.0 * sqrt(24.0 * mean * mean * mean *
                                                  mean / c),
              "tail excess second moment %.5f, expected %.5f", se2 / c, ex2);
}

/*
 * rx__normal_fill is n calls of rx__normal, bitwise, and leaves the stream
 * where they would (the next draws agree too), for both methods, every
 * block implementation this CPU has, lengths around the group size, and
 * streams that start with a pending spare or pending words.
 */
/* The whole state of a stream after draws: counters, pending words,
 * pending spare (compared only where they are live). */
static int same_state(const rx__stream *x, const rx__stream *y)
{
    if (x->block != y->block || x->have_raw != y->have_raw ||
        x->have_spare != y->have_spare || x->normal != y->normal)
        return 0;
    if (x->have_raw && (x->raw[0] != y->raw[0] || x->raw[1] != y->raw[1]))
        return 0;
    return !x->have_spare || memcmp(&x->spare, &y->spare, sizeof x->spare) == 0;
}

/* n draws one at a time from x and in bulk from y (a copy): same numbers,
 * same final state */
static int fill_matches(int impl, rx__stream *x, size_t n)
{
    static double a[4200], b[4200];
    rx__stream y = *x;
    for (size_t i = 0; i < n; ++i)
        a[i] = rx__normal(x);
    rx__normal_fill_impl(impl, &y, b, n);
    return memcmp(a, b, n * sizeof a[0]) == 0 && same_state(x, &y);
}

static void normal_fill(void)
{
    const size_t ns[] = {1, 2, 7, 8, 9, 31, 32, 33, 63, 64, 65, 100, 1000,
                         2049};
    int cases = 0, impls = 0;
    for (int impl = 0; impl < 3; ++impl) {
        if (!rx__blocks_impl_available(impl))
            continue;
        impls++;
        for (int method = 0; method < 2; ++method)
            for (int pre = 0; pre < 10; ++pre)
                for (size_t t = 0; t < sizeof ns / sizeof ns[0]; ++t) {
                    rx__stream x;
                    rx__stream_init(&x, 77, (uint32_t)t, RX_STREAM_STEP,
                                    (uint64_t)pre);
                    x.normal = method;
                    /* 0..4 draws before leave every combination of a
                     * pending spare and pending words; pre >= 5 starts
                     * near 2^32 blocks (the counter's wrap) */
                    if (pre >= 5)
                        x.block = 0xfffffff9u;
                    for (int j = 0; j < pre % 5; ++j)
                        rx__normal(&x);
                    CHECK_MSG(fill_matches(impl, &x, ns[t]),
                              "impl %d method %d pre %d n %zu", impl, method,
                              pre, ns[t]);
                    cases++;
                }
    }
    CHECK(impls >= 1 && cases == impls * 2 * 10 * 14);
    /* random states and lengths, whole state compared (a cheap version of
     * a 1e8-draw stress run): 3000 cases per implementation */
    {
        rx__stream r;
        rx__stream_init(&r, 5, 5, RX_STREAM_SCHED, 5);
        int bad = 0, n_cases = 0;
        for (int c = 0; c < 9000; ++c) {
            int impl = c % 3;
            if (!rx__blocks_impl_available(impl))
                continue;
            rx__stream x;
            rx__stream_init(&x, rx__uniform_int(&r, 1000), (uint32_t)c,
                            RX_STREAM_GRADNOISE, rx__uniform_int(&r, 1u << 20));
            x.normal = (int)rx__uniform_int(&r, 2);
            if (rx__uniform_int(&r, 4) == 0)
                x.block = 0xffffffffu - (uint32_t)rx__uniform_int(&r, 40);
            for (uint64_t j = rx__uniform_int(&r, 6); j > 0; --j)
                rx__normal(&x);
            bad += !fill_matches(impl, &x, (size_t)rx__uniform_int(&r, 4001));
            n_cases++;
        }
        CHECK_MSG(bad == 0, "%d of %d random fill cases differ", bad, n_cases);
    }
    /* a ziggurat tail word (layer 0, m >= k[0]) as the last pair of a
     * group, so its extra words come from the next group: found by
     * scanning k, then filled from several offsets */
    {
        int found = 0;
        for (uint64_t k = 0; k < 200000 && !found; ++k) {
            rx__stream s0;
            rx__stream_init(&s0, 31, 4, RX_STREAM_STEP, k);
            uint32_t w[4][RX__GROUP];
            rx__philox_group(0, &s0, 0, RX__GROUP, w);
            uint64_t u = ((uint64_t)w[2][15] << 32) | w[3][15];
            if ((u & 0xffu) != 0 || (u >> 11) < rx__zig_k[0])
                continue;
            found = 1;
            for (int impl = 0; impl < 3; ++impl)
                for (size_t n = 16; n <= 40; ++n)
                    if (rx__blocks_impl_available(impl)) {
                        rx__stream x = s0;
                        x.normal = RX_NORMAL_ZIGGURAT;
                        CHECK_MSG(fill_matches(impl, &x, n),
                                  "tail across groups: impl %d n %zu", impl,
                                  n);
                    }
        }
        CHECK_MSG(found, "no tail word at the end of a group in the scan");
    }
    /* the block implementations against the scalar Philox directly */
    rx__stream s;
    rx__stream_init(&s, 0x123456789abcdefull, 5, RX_STREAM_GRADNOISE, 99);
    uint32_t w[3][4][RX__GROUP];
    for (int impl = 0; impl < 3; ++impl)
        if (rx__blocks_impl_available(impl))
            rx__philox_group(impl, &s, 0xfffffff8u, RX__GROUP, w[impl]);
    for (int impl = 1; impl < 3; ++impl)
        if (rx__blocks_impl_available(impl))
            CHECK_MSG(memcmp(w[0], w[impl], sizeof w[0]) == 0,
                      "blocks of implementation %d differ", impl);
    if (getenv("RX_TEST_VERBOSE"))
        fprintf(stderr, "fill: %d block implementations on this CPU\n",
                impls);
}

static int u64_cmp(const void *a, const void *b)
{
    uint64_t p = *(const uint64_t *)a, q = *(const uint64_t *)b;
    return (p > q) - (p < q);
}

/* rx_replicate_seed: seed itself for r = 0, else the low 53 bits of the
 * Philox draw at counter (r, 0, 0, purpose), all below 2^53 (a JSON
 * reader's double holds them) and distinct for r = 1..1000. */
static void replicate_seeds(void)
{
    static const uint64_t seeds[] = {0, 1, 3, 42, 0x123456789abcdefull,
                                     UINT64_MAX};
    static uint64_t got[1001];
    for (size_t i = 0; i < sizeof seeds / sizeof seeds[0]; ++i) {
        const uint64_t sd = seeds[i];
        CHECK(rx_replicate_seed(sd, 0) == sd);
        for (int r = 1; r <= 1000; ++r) {
            uint64_t v = rx_replicate_seed(sd, r);
            CHECK_MSG(v < (UINT64_C(1) << 53),
                      "seed %llu, r %d: %llu is not below 2^53",
                      (unsigned long long)sd, r, (unsigned long long)v);
            rx__u32x4 c = {{(uint32_t)r, 0u,
                            (uint32_t)RX_STREAM_REPLICATE << 24, 0u}};
            rx__u32x4 p = rx__philox4x32_10(c, (uint32_t)sd,
                                            (uint32_t)(sd >> 32));
            CHECK(v == (((uint64_t)(p.v[1] & 0x1fffffu) << 32) | p.v[0]));
            got[r - 1] = v;
        }
        got[1000] = sd;
        qsort(got, 1001, sizeof got[0], u64_cmp);
        int dup = 0;
        for (int r = 1; r < 1001; ++r)
            dup += got[r] == got[r - 1];
        CHECK_MSG(dup == 0, "seed %llu: %d repeated replicate seeds",
                  (unsigned long long)sd, dup);
    }
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

    replicate_seeds();
    normal_fill();
    ziggurat_tables();
    ziggurat_tail();
    normal_distribution(RX_NORMAL_BOX_MULLER, 3);
    normal_distribution(RX_NORMAL_ZIGGURAT, 3);
    normal_distribution(RX_NORMAL_ZIGGURAT, 4);
    {
        /* the ziggurat stream is a pure function too, and not the
         * Box-Muller numbers */
        rx__stream a, b, c;
        rx__stream_init(&a, 9, 3, RX_STREAM_STEP, 77);
        rx__stream_init(&b, 9, 3, RX_STREAM_STEP, 77);
        rx__stream_init(&c, 9, 3, RX_STREAM_STEP, 77);
        a.normal = b.normal = RX_NORMAL_ZIGGURAT;
        int same = 1, differ = 0;
        for (int i = 0; i < 1000; ++i) {
            double x = rx__normal(&a), y = rx__normal(&b), z = rx__normal(&c);
            same &= memcmp(&x, &y, sizeof x) == 0;
            differ += x != z;
        }
        CHECK(same);
        CHECK(differ > 990);
    }

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
        /* beyond the int64 range (a diverged chain): whole turns, no
         * undefined conversion (UBSan in the sanitizer build) */
        rx__sincos2pi(-7e222, &sn, &cs);
        CHECK(sn == 0.0 && cs == 1.0);
        rx__sincos2pi(0x1p61, &sn, &cs);
        CHECK(sn == 0.0 && cs == 1.0);
        rx__sincos2pi(INFINITY, &sn, &cs);
        CHECK(isnan(sn) && isnan(cs));
    }
    return check_done();
}
