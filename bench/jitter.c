/*
 * How steady is a CPU? A fixed piece of arithmetic (about 5 us here) is
 * timed N times; printed: median, 99th and 99.9th percentile, maximum, and
 * the share of the total time spent above 1.5x the median (hiccups:
 * interrupts, the hypervisor taking the vCPU). Run one copy per CPU at
 * once to see what coupled threads see: in a run with swaps every
 * iteration each thread also waits out its partner's hiccups
 * (docs/performance.md, "Why 2 threads stay below 1.7x here").
 *
 * Usage: jitter [N]     e.g. taskset -c 0 build/bench/jitter &
 *                            taskset -c 1 build/bench/jitter; wait
 */
#define _POSIX_C_SOURCE 200809L
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include "bench_util.h"

int main(int argc, char **argv)
{
    long n = argc > 1 ? atol(argv[1]) : 200000;
    if (n < 1000 || n > 100000000) {
        fprintf(stderr, "usage: jitter [N >= 1000]\n");
        return 2;
    }
    double *d = malloc((size_t)n * sizeof *d);
    if (!d)
        return 1;
    volatile double acc = 1.0;
    for (long i = 0; i < n; ++i) {
        double t0 = rxb_now(), a = acc;
        for (int j = 0; j < 1500; ++j) /* a dependent chain: fixed work */
            a = a * 1.0000001 + 1e-9;
        acc = a;
        d[i] = rxb_now() - t0;
    }
    double tot = 0.0, ex = 0.0;
    for (long i = 0; i < n; ++i)
        tot += d[i];
    qsort(d, (size_t)n, sizeof *d, rxb_cmpd);
    double med = d[n / 2];
    for (long i = 0; i < n; ++i)
        if (d[i] > 1.5 * med)
            ex += d[i] - med;
    printf("median %.2f us, p99 %.2f us, p99.9 %.2f us, max %.1f us; "
           "time above 1.5x the median: %.1f %% of the total\n",
           med * 1e6, d[n * 99 / 100] * 1e6, d[n * 999 / 1000] * 1e6,
           d[n - 1] * 1e6, 100.0 * ex / tot);
    free(d);
    return 0;
}
