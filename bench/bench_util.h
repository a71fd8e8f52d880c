/*
 * The helpers the stand-alone benchmarks in bench/ share: a monotonic
 * clock and the calling thread's CPU clock in seconds, and a qsort
 * comparison of doubles (for medians).
 */
#ifndef RX_BENCH_UTIL_H
#define RX_BENCH_UTIL_H

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

#endif
