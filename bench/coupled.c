/*
 * The machine's ceiling for two coupled threads (issue 6's 2 / 1 figure at
 * P = 16): no sampler, only fixed arithmetic. One thread does 2W of work
 * per iteration; two threads do W each per iteration and are coupled with
 * a slack of s iterations: before iteration k a thread waits until the
 * other has finished k - s of its iterations (s = 0: each waits for the
 * other's previous iteration, like a barrier every iteration, and may lead
 * it by up to one iteration; s = 1: by up to two; "p": the partner
 * design's dependency, up to 1 7/8; "free": no coupling, the ceiling for
 * independent work). The ratio of two threads' iteration
 * rate to one thread's is then the best any engine with that coupling
 * could do on this machine at that grain: every hiccup of one vCPU longer
 * than the slack is waited out by the other.
 *
 * Rounds are interleaved, the cells' order alternating between rounds
 * (docs/performance.md: the second of two back-to-back runs is slower on
 * this VM); per-round ratios, median and range.
 *
 * Usage: coupled [-n ROUNDS] [-k ITERS] [-w UNITS] [-i 1|8] [-s S1,S2,...]
 *   UNITS: length of a thread's work per iteration (dependent multiply-
 *   adds; 400 is about 1 us here, a thread's 8 chain-steps at P = 16);
 *   ILP: 1 (default) one dependent chain of multiply-adds, 8 eight
 *   independent ones (throughput-bound, as the sampler's step is);
 *   S: slacks, -1 for free, p for the partner design's dependency: a
 *   thread waits for the other's iteration k - 1 after 7/8 of its own
 *   iteration k, where the partner design waits for the neighbour's offer
 *   (after its inner positions' steps), so it may lead by up to 1 7/8
 *   iterations (default 0,p,1,2,4,16,-1).
 */
#define _POSIX_C_SOURCE 200809L
#include <omp.h>
#include <sched.h>
#include <stdalign.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench_util.h"

enum { MAXS = 16, SPINS = 2000, FREE = -1, PARTNER = -2 };

typedef struct {
    alignas(64) atomic_llong done;
    char pad[64 - sizeof(atomic_llong)];
} counter;

/* ILP 1: one dependent chain (latency-bound, what a sibling hyperthread
 * barely slows); ILP 8: eight independent chains, 8x the arithmetic in
 * about the same time here (throughput-bound, like the sampler's step). */
static int ilp = 1;

static double work(double a, long units)
{
    if (ilp == 1) {
        for (long j = 0; j < units; ++j) /* a dependent chain */
            a = a * 1.0000001 + 1e-9;
        return a;
    }
    double b[8];
    for (int l = 0; l < 8; ++l)
        b[l] = a + l;
    for (long j = 0; j < units; ++j)
        for (int l = 0; l < 8; ++l)
            b[l] = b[l] * 1.0000001 + 1e-9;
    for (int l = 1; l < 8; ++l)
        b[0] += b[l];
    return b[0];
}

/* Iterations per second of one thread doing 2 units' worth each. */
static double one_thread(long k, long units, double *sink)
{
    double a = 1.0, t0 = rxb_now();
    for (long i = 0; i < k; ++i)
        a = work(a, 2 * units);
    *sink += a;
    return (double)k / (rxb_now() - t0);
}

static void wait_for(atomic_llong *other, long want)
{
    unsigned spins = 0;
    while (atomic_load_explicit(other, memory_order_acquire) < want) {
        if (++spins > SPINS)
            sched_yield();
#if defined(__x86_64__) || defined(__i386__)
        __builtin_ia32_pause();
#endif
    }
}

/* Iterations per second of two threads coupled with slack s (FREE: not
 * coupled; PARTNER: the partner design's dependency). */
static double two_threads(long k, long units, int s, double *sink)
{
    counter c[2];
    atomic_init(&c[0].done, 0);
    atomic_init(&c[1].done, 0);
    double t0 = rxb_now(), acc = 0.0;
#pragma omp parallel num_threads(2) reduction(+ : acc)
    {
        const int t = omp_get_thread_num();
        atomic_llong *mine = &c[t].done, *other = &c[1 - t].done;
        double a = 1.0 + t;
#pragma omp barrier
        /* s = PARTNER: 7/8 of the work, then wait for the other's
         * iteration i - 1, then the last 1/8 */
        const long head = s == PARTNER ? units - units / 8 : 0;
        const long need = s == PARTNER ? 0 : s;
        for (long i = 0; i < k; ++i) {
            if (head)
                a = work(a, head);
            if ((s >= 0 || s == PARTNER) && i - need > 0)
                wait_for(other, i - need);
            a = work(a, units - head);
            atomic_store_explicit(mine, i + 1, memory_order_release);
        }
        acc += a;
    }
    *sink += acc;
    return (double)k / (rxb_now() - t0);
}

int main(int argc, char **argv)
{
    int rounds = 9, ns = 0, sl[MAXS];
    long k = 400000, units = 400;
    const char *slist = "0,p,1,2,4,16,-1";
    for (int i = 1; i < argc; ++i) {
        if (i + 1 < argc && !strcmp(argv[i], "-n"))
            rounds = atoi(argv[++i]);
        else if (i + 1 < argc && !strcmp(argv[i], "-k"))
            k = atol(argv[++i]);
        else if (i + 1 < argc && !strcmp(argv[i], "-w"))
            units = atol(argv[++i]);
        else if (i + 1 < argc && !strcmp(argv[i], "-i"))
            ilp = atoi(argv[++i]) == 8 ? 8 : 1;
        else if (i + 1 < argc && !strcmp(argv[i], "-s"))
            slist = argv[++i];
        else {
            fprintf(stderr, "usage: coupled [-n ROUNDS] [-k ITERS] "
                            "[-w UNITS] [-i 1|8] [-s S1,S2,...]\n");
            return 2;
        }
    }
    for (const char *p = slist; *p && ns < MAXS;) {
        char *end;
        if (*p == 'p') { /* the partner design's dependency */
            sl[ns++] = PARTNER;
            end = (char *)p + 1;
        } else {
            sl[ns++] = (int)strtol(p, &end, 10);
            if (sl[ns - 1] < 0)
                sl[ns - 1] = FREE;
        }
        if (end == p) {
            fprintf(stderr, "coupled: bad slack list '%s'\n", slist);
            return 2;
        }
        p = *end == ',' ? end + 1 : end;
    }
    if (rounds < 1 || k < 1000 || units < 1) {
        fprintf(stderr, "coupled: need -n >= 1, -k >= 1000, -w >= 1\n");
        return 2;
    }
    double *one = calloc((size_t)rounds, sizeof *one),
           *two = calloc((size_t)rounds * (size_t)ns, sizeof *two),
           *rat = calloc((size_t)rounds, sizeof *rat), sink = 0.0;
    if (!one || !two || !rat)
        return 1;
    double t1 = rxb_now();
    (void)one_thread(k / 10, units, &sink); /* warm-up */
    const double us = (rxb_now() - t1) / (double)(k / 10) * 1e6 / 2.0;
    printf("work per thread-iteration: %.2f us (w = %ld, ilp %d), %ld "
           "iterations\n", us, units, ilp, k);
    printf("round,one");
    for (int j = 0; j < ns; ++j)
        printf(sl[j] == FREE      ? ",free"
               : sl[j] == PARTNER ? ",partner"
                                  : ",s%d",
               sl[j]);
    printf("\n");
    for (int r = 0; r < rounds; ++r) {
        if (r % 2 == 0) {
            one[r] = one_thread(k, units, &sink);
            for (int j = 0; j < ns; ++j)
                two[r * ns + j] = two_threads(k, units, sl[j], &sink);
        } else {
            for (int j = ns - 1; j >= 0; --j)
                two[r * ns + j] = two_threads(k, units, sl[j], &sink);
            one[r] = one_thread(k, units, &sink);
        }
        printf("%d,%.0f", r + 1, one[r]);
        for (int j = 0; j < ns; ++j)
            printf(",%.0f", two[r * ns + j]);
        printf("\n");
        fflush(stdout);
    }
    printf("\n| coupling | 2 threads / 1 thread: median (range) |\n"
           "|:---|---:|\n");
    for (int j = 0; j < ns; ++j) {
        for (int r = 0; r < rounds; ++r)
            rat[r] = two[r * ns + j] / one[r];
        qsort(rat, (size_t)rounds, sizeof *rat, rxb_cmpd);
        const double med = rounds % 2 ? rat[rounds / 2]
                                      : 0.5 * (rat[rounds / 2 - 1] +
                                               rat[rounds / 2]);
        if (sl[j] == FREE)
            printf("| free |");
        else if (sl[j] == PARTNER)
            printf("| partner |");
        else
            printf("| slack %d |", sl[j]);
        printf(" %.3f (%.3f-%.3f) |\n", med, rat[0], rat[rounds - 1]);
    }
    if (sink == 0.123) /* keep the work */
        printf("#\n");
    free(one);
    free(two);
    free(rat);
    return 0;
}
