/*
 * Normal draws (docs/performance.md, "Normal draws"): ns per N(0,1) draw
 * of one stream, for both methods (rng.normal), drawn one at a time
 * (rx__normal, what a 2-D target's step does) and in bulk (rx__normal_fill,
 * what a network's Langevin noise does) with each block implementation
 * this CPU has (0 scalar, 1 AVX2, 2 AVX-512F). Every bulk variant is
 * checked bitwise against the one-at-a-time draws (exit 1 otherwise).
 *
 * Usage: bench_normal [-n ROUNDS] [-d DRAWS]   (DRAWS per stream, default
 * 752: the Langevin noise of the 13-50-1 MLP with learned precision).
 * Rounds interleave the variants; best and median are printed as a
 * Markdown table.
 */
#define _POSIX_C_SOURCE 200809L
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "../src/core/internal.h"
#include "bench_util.h"

enum { NV = 10, NR = 99 };

/* variant v: method = v / 5; v % 5: 0 one at a time, 1 bulk (best
 * implementation), 2..4 bulk with implementation 0..2 */
static double run(int v, size_t d, long reps, double *z, double *sink)
{
    const int method = v / 5, kind = v % 5;
    double t0 = rxb_now();
    for (long r = 0; r < reps; ++r) {
        rx__stream s;
        rx__stream_init(&s, 7, 3, RX_STREAM_STEP, (uint64_t)r);
        s.normal = method;
        if (kind == 0)
            for (size_t i = 0; i < d; ++i)
                z[i] = rx__normal(&s);
        else if (kind == 1)
            rx__normal_fill(&s, z, d);
        else
            rx__normal_fill_impl(kind - 2, &s, z, d);
        *sink += z[r % (long)d];
    }
    return (rxb_now() - t0) / ((double)reps * (double)d) * 1e9;
}

int main(int argc, char **argv)
{
    int rounds = 7;
    size_t d = 752;
    for (int i = 1; i + 1 < argc; i += 2) {
        if (!strcmp(argv[i], "-n"))
            rounds = atoi(argv[i + 1]);
        else if (!strcmp(argv[i], "-d"))
            d = (size_t)atol(argv[i + 1]);
    }
    if (rounds < 1 || rounds > NR || d < 1 || d > 1000000) {
        fprintf(stderr, "usage: bench_normal [-n 1..%d] [-d 1..1000000]\n",
                NR);
        return 2;
    }
    double *z = malloc(d * sizeof *z), *ref = malloc(d * sizeof *ref);
    if (!z || !ref)
        return 1;
    /* bitwise: every bulk variant against one-at-a-time draws */
    int bad = 0;
    for (int method = 0; method < 2; ++method)
        for (int impl = 0; impl < 3; ++impl) {
            if (!rx__blocks_impl_available(impl))
                continue;
            rx__stream a, b;
            rx__stream_init(&a, 7, 3, RX_STREAM_STEP, 1);
            a.normal = method;
            b = a;
            for (size_t i = 0; i < d; ++i)
                ref[i] = rx__normal(&a);
            rx__normal_fill_impl(impl, &b, z, d);
            bad |= memcmp(ref, z, d * sizeof *z) != 0;
        }
    const char *name[5] = {"one at a time (rx__normal)",
                           "bulk, best implementation",
                           "bulk, scalar blocks", "bulk, AVX2 blocks",
                           "bulk, AVX-512F blocks"};
    double t[NV][NR];
    double sink = 0.0;
    const long reps = (long)(4000000 / d) + 1;
    for (int r = 0; r < rounds; ++r)
        for (int k = 0; k < NV; ++k) {
            int v = r & 1 ? NV - 1 - k : k;
            int kind = v % 5;
            t[v][r] = kind >= 2 && !rx__blocks_impl_available(kind - 2)
                          ? -1.0
                          : run(v, d, reps, z, &sink);
        }
    printf("bitwise equal to one-at-a-time draws: %s; %d rounds, %zu draws "
           "per stream\n\n",
           bad ? "NO" : "yes", rounds, d);
    printf("| method | variant | best ns/draw | median ns/draw |\n"
           "|:---|:---|---:|---:|\n");
    for (int v = 0; v < NV; ++v) {
        if (t[v][0] < 0.0)
            continue;
        qsort(t[v], (size_t)rounds, sizeof(double), rxb_cmpd);
        printf("| %s | %s | %.2f | %.2f |\n",
               v / 5 ? "ziggurat" : "box_muller", name[v % 5], t[v][0],
               t[v][rounds / 2]);
    }
    if (sink == 1234.5)
        puts("");
    free(z);
    free(ref);
    return bad;
}
