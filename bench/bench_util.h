/*
 * The helpers the stand-alone benchmarks in bench/ share: a monotonic
 * clock and the calling thread's CPU clock in seconds, and a qsort
 * comparison of doubles (for medians).
 */
#ifndef RX_BENCH_UTIL_H
#define RX_BENCH_UTIL_H

#include <stdlib.h>
#include <time.h>

static inline double rxb_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static inline double rxb_cpu_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static inline int rxb_cmpd(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/*
 * A/B in one process: reps pairs (after two warm-up pairs) of step(ctx, 0)
 * then step(ctx, 1), each timed in this thread's CPU time. ta and tb (reps
 * each) come back sorted; the result is the number of pairs in which
 * step 0 was faster. On a VM whose speed drifts within a minute, the
 * per-pair count is the robust figure.
 */
static inline int rxb_ab_pairs(void (*step)(void *ctx, int which), void *ctx,
                               int reps, double *ta, double *tb)
{
    int wins = 0;
    for (int r = -2; r < reps; ++r) {
        double t = rxb_cpu_now();
        step(ctx, 0);
        const double a = rxb_cpu_now() - t;
        t = rxb_cpu_now();
        step(ctx, 1);
        const double b = rxb_cpu_now() - t;
        if (r < 0)
            continue;
        ta[r] = a, tb[r] = b;
        wins += a < b;
    }
    qsort(ta, (size_t)reps, sizeof *ta, rxb_cmpd);
    qsort(tb, (size_t)reps, sizeof *tb, rxb_cmpd);
    return wins;
}

#endif
