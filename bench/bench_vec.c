/*
 * Vectorisation candidates of the engine's hot loops,
 * measured against the code the engine runs. Each candidate gives bitwise
 * the same numbers as the engine's scalar code (checked here; the program
 * exits 1 otherwise), so adopting one would change no result:
 *
 *   philox   Philox4x32-10 blocks of 8 chains at once, written as loops over
 *            lanes for the compiler's auto-vectoriser, against 8 calls of
 *            rx__philox4x32_10 (the block every chain draws per step).
 *   sincos   sin/cos(2 pi x) of both coordinates of the 25-mode energy in
 *            one two-lane branch-free routine, against two calls of
 *            rx__sincos2pi (eval_m25's pair).
 *   normals  a batch of 64 N(0,1) draws from one stream: rx__normal in a
 *            loop (what the step of a 64-dimensional target does).
 *
 * Usage: bench_vec [-n ROUNDS]   (rounds interleave the variants; best and
 * median ns per unit are printed as a Markdown table)
 */
#define _POSIX_C_SOURCE 200809L
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "../src/core/internal.h"
#include "../src/core/sincos2pi.h"
#include "bench_util.h"

#define M0 0xD2511F53u
#define M1 0xCD9E8D57u
#define W0 0x9E3779B9u
#define W1 0xBB67AE85u

enum { L = 8, NR = 99 };

/* block 0 of entities e0 .. e0+7 of one (seed, purpose, k) */
static void __attribute__((noinline))
philox_lanes(uint32_t c1, uint32_t c2, uint32_t e0, uint32_t k0, uint32_t k1,
             rx__u32x4 *out)
{
    uint32_t x0[L], x1[L], x2[L], x3[L];
    for (int j = 0; j < L; ++j) {
        x0[j] = 0;
        x1[j] = c1;
        x2[j] = c2;
        x3[j] = e0 + (uint32_t)j;
    }
    for (int r = 0; r < 10; ++r) {
        for (int j = 0; j < L; ++j) {
            uint64_t p0 = (uint64_t)M0 * x0[j], p1 = (uint64_t)M1 * x2[j];
            uint32_t n0 = (uint32_t)(p1 >> 32) ^ x1[j] ^ k0;
            uint32_t n2 = (uint32_t)(p0 >> 32) ^ x3[j] ^ k1;
            x1[j] = (uint32_t)p1;
            x3[j] = (uint32_t)p0;
            x0[j] = n0;
            x2[j] = n2;
        }
        k0 += W0;
        k1 += W1;
    }
    for (int j = 0; j < L; ++j) {
        out[j].v[0] = x0[j];
        out[j].v[1] = x1[j];
        out[j].v[2] = x2[j];
        out[j].v[3] = x3[j];
    }
}

static void __attribute__((noinline))
philox_scalar(uint32_t c1, uint32_t c2, uint32_t e0, uint32_t k0,
              uint32_t k1, rx__u32x4 *out)
{
    for (int j = 0; j < L; ++j) {
        rx__u32x4 c = {{0, c1, c2, e0 + (uint32_t)j}};
        out[j] = rx__philox4x32_10(c, k0, k1);
    }
}

/* two lanes, branch-free quadrant selection, |x| < 2^48 */
static void __attribute__((noinline))
sincos_2lane(const double x[2], double s[2], double c[2])
{
    double sn[2], cs[2];
    int64_t m[2];
    for (int j = 0; j < 2; ++j) {
        double big = 4.0 * x[j] + 6755399441055744.0;
        memcpy(&m[j], &big, sizeof m[j]);
        double n = big - 6755399441055744.0;
        double t = 6.283185307179586476925286766559 * (x[j] - 0.25 * n);
        double t2 = t * t;
        double sp = -1.0 / 1307674368000.0;
        sp = sp * t2 + 1.0 / 6227020800.0;
        sp = sp * t2 - 1.0 / 39916800.0;
        sp = sp * t2 + 1.0 / 362880.0;
        sp = sp * t2 - 1.0 / 5040.0;
        sp = sp * t2 + 1.0 / 120.0;
        sp = sp * t2 - 1.0 / 6.0;
        sn[j] = t + t * t2 * sp;
        double cp = 1.0 / 20922789888000.0;
        cp = cp * t2 - 1.0 / 87178291200.0;
        cp = cp * t2 + 1.0 / 479001600.0;
        cp = cp * t2 - 1.0 / 3628800.0;
        cp = cp * t2 + 1.0 / 40320.0;
        cp = cp * t2 - 1.0 / 720.0;
        cp = cp * t2 + 1.0 / 24.0;
        cp = cp * t2 - 0.5;
        cs[j] = 1.0 + t2 * cp;
    }
    for (int j = 0; j < 2; ++j) {
        int swap = (int)(m[j] & 1), ns = (int)(m[j] & 2),
            nc = (int)((m[j] + 1) & 2);
        double a = swap ? cs[j] : sn[j], b = swap ? sn[j] : cs[j];
        s[j] = ns ? -a : a;
        c[j] = nc ? -b : b;
    }
}

static void __attribute__((noinline))
sincos_scalar(const double x[2], double s[2], double c[2])
{
    rx__sincos2pi(x[0], &s[0], &c[0]);
    rx__sincos2pi(x[1], &s[1], &c[1]);
}

int main(int argc, char **argv)
{
    int rounds = 7;
    if (argc == 3 && !strcmp(argv[1], "-n"))
        rounds = atoi(argv[2]);
    if (rounds < 1 || rounds > NR) {
        fprintf(stderr, "usage: bench_vec [-n ROUNDS (1..%d)]\n", NR);
        return 2;
    }
    /* equality first */
    int bad = 0;
    for (uint32_t i = 0; i < 10000; ++i) {
        rx__u32x4 a[L], b[L];
        philox_lanes(i, 7u << 24, 3 * i, 12345u, i * 77u, a);
        philox_scalar(i, 7u << 24, 3 * i, 12345u, i * 77u, b);
        bad |= memcmp(a, b, sizeof a) != 0;
        double x[2] = {(double)i * 1.37e-3 - 6.0, 5.0 - (double)i * 9.1e-4};
        double s1[2], c1[2], s2[2], c2[2];
        sincos_2lane(x, s1, c1);
        sincos_scalar(x, s2, c2);
        bad |= memcmp(s1, s2, sizeof s1) != 0 || memcmp(c1, c2, sizeof c1);
    }
    const char *name[5] = {"Philox block, 8 lanes (auto-vectorised)",
                           "Philox block, scalar (engine)",
                           "sincos pair, 2 lanes branch-free",
                           "sincos pair, 2 scalar calls (engine)",
                           "N(0,1) draw, rx__normal loop (engine)"};
    const char *unit[5] = {"block", "block", "pair", "pair", "draw"};
    double t[5][NR];
    volatile uint32_t sink_u = 0;
    volatile double sink_d = 0.0;
    const int N = 200000;
    for (int r = 0; r < rounds; ++r) {
        rx__u32x4 o[L];
        double t0 = rxb_now();
        for (int i = 0; i < N; ++i) {
            philox_lanes((uint32_t)i, 2u << 24, 0, 1u, 2u, o);
            sink_u ^= o[5].v[2];
        }
        double t1 = rxb_now();
        for (int i = 0; i < N; ++i) {
            philox_scalar((uint32_t)i, 2u << 24, 0, 1u, 2u, o);
            sink_u ^= o[5].v[2];
        }
        double t2 = rxb_now();
        double x[2] = {0.3, -1.7}, s[2], c[2];
        for (int i = 0; i < 4 * N; ++i) {
            x[0] += 1e-6;
            sincos_2lane(x, s, c);
            sink_d += s[0] + c[1];
        }
        double t3 = rxb_now();
        for (int i = 0; i < 4 * N; ++i) {
            x[0] += 1e-6;
            sincos_scalar(x, s, c);
            sink_d += s[0] + c[1];
        }
        double t4 = rxb_now();
        rx__stream st;
        rx__stream_init(&st, 1, 2, RX_STREAM_STEP, (uint64_t)r);
        double acc = 0.0;
        for (int i = 0; i < 8 * N; ++i)
            acc += rx__normal(&st);
        double t5 = rxb_now();
        sink_d += acc;
        t[0][r] = (t1 - t0) / (N * L) * 1e9;
        t[1][r] = (t2 - t1) / (N * L) * 1e9;
        t[2][r] = (t3 - t2) / (4.0 * N) * 1e9;
        t[3][r] = (t4 - t3) / (4.0 * N) * 1e9;
        t[4][r] = (t5 - t4) / (8.0 * N) * 1e9;
    }
    printf("bitwise equal to the engine's code: %s; %d rounds\n\n",
           bad ? "NO" : "yes", rounds);
    printf("| variant | unit | best ns | median ns |\n|:---|:---|---:|---:|\n");
    for (int v = 0; v < 5; ++v) {
        qsort(t[v], (size_t)rounds, sizeof(double), rxb_cmpd);
        printf("| %s | %s | %.2f | %.2f |\n", name[v], unit[v], t[v][0],
               t[v][rounds / 2]);
    }
    (void)sink_u;
    (void)sink_d;
    return bad;
}
