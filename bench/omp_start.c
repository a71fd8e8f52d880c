/*
 * How long a process's first OpenMP parallel region takes to start its
 * threads (rx_results.start_s, summary.json timing.start_s): the time from
 * entering the first `omp parallel` until its last thread is in, then the
 * same for a second region right after. Run it in several fresh processes:
 *   for i in $(seq 8); do build/bench/omp_start; done
 * (docs/performance.md, "Cache lines between cores, and the threads'
 * start": 1.8-14.4 ms for the first region on the 2-vCPU VM of
 * 2026-11-23, 1-8 us for the second).
 *
 * Usage: omp_start [THREADS]   (default 2)
 */
#define _POSIX_C_SOURCE 200809L
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>

#include "bench_util.h"

/* seconds from t0 until the last of n threads entered a region */
static double region(int n)
{
    double in[64] = {0};
    const double t0 = rxb_now();
#pragma omp parallel num_threads(n)
    in[omp_get_thread_num()] = rxb_now();
    double last = t0;
    for (int t = 0; t < n; ++t)
        if (in[t] > last)
            last = in[t];
    return last - t0;
}

int main(int argc, char **argv)
{
    const int n = argc > 1 ? atoi(argv[1]) : 2;
    if (n < 2 || n > 64 || argc > 2) {
        fprintf(stderr, "usage: omp_start [THREADS 2..64]\n");
        return 2;
    }
    const double first = region(n), second = region(n);
    printf("%d threads: first region %.1f us, second %.1f us\n", n,
           1e6 * first, 1e6 * second);
    return 0;
}
