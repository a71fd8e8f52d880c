/*
 * The two helpers every stand-alone benchmark in bench/ needs: a monotonic
 * clock in seconds and a qsort comparison of doubles (for medians).
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

static inline int rxb_cmpd(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

#endif
