/*
 * Aligned allocation: every internal allocation of chain state goes through
 * here so that per-chain buffers start on their own cache line.
 */
#define _POSIX_C_SOURCE 200809L
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#if defined(__unix__) || defined(__APPLE__)
#include <sys/resource.h>
#include <unistd.h>
#endif

#include "internal.h"

void *rx__alloc_aligned(size_t size, size_t align)
{
    if (size == 0 || align == 0 || (align & (align - 1)) != 0)
        return NULL;
    if (align < sizeof(void *))
        align = sizeof(void *);
    size_t rounded = (size + align - 1) / align * align;
    if (rounded < size)
        return NULL; /* overflow */
    return aligned_alloc(align, rounded);
}

void *rx__calloc_aligned(size_t size, size_t align)
{
    void *p = rx__alloc_aligned(size, align);
    if (p)
        memset(p, 0, size);
    return p;
}

void rx__free_aligned(void *p) { free(p); }

double rx__mem_limit_bytes(void)
{
    double lim = 0.0;
#if defined(__unix__) || defined(__APPLE__)
    long pages = sysconf(_SC_PHYS_PAGES), psz = sysconf(_SC_PAGESIZE);
    if (pages > 0 && psz > 0)
        lim = (double)pages * (double)psz;
    struct rlimit rl;
    if (getrlimit(RLIMIT_AS, &rl) == 0 && rl.rlim_cur != RLIM_INFINITY &&
        (lim == 0.0 || (double)rl.rlim_cur < lim))
        lim = (double)rl.rlim_cur;
#endif
    return lim;
}

rx__load_snap rx__load_now(void)
{
    rx__load_snap z;
    memset(&z, 0, sizeof z);
    z.t = rx__now();
#if defined(__unix__) || defined(__APPLE__)
    FILE *f = fopen("/proc/stat", "r");
    if (!f)
        return z;
    unsigned long long v[8] = {0, 0, 0, 0, 0, 0, 0, 0};
    int n = fscanf(f, "cpu %llu %llu %llu %llu %llu %llu %llu %llu", &v[0],
                   &v[1], &v[2], &v[3], &v[4], &v[5], &v[6], &v[7]);
    fclose(f);
    long hz = sysconf(_SC_CLK_TCK);
    struct rusage ru;
    if (n < 8 || hz <= 0 || getrusage(RUSAGE_SELF, &ru) != 0)
        return z;
    /* user nice system idle iowait irq softirq steal: all but idle and
     * iowait (steal: the host ran someone else on our CPU) */
    z.busy = (double)(v[0] + v[1] + v[2] + v[5] + v[6] + v[7]) / (double)hz;
    z.steal = (double)v[7] / (double)hz;
    z.own = (double)ru.ru_utime.tv_sec + 1e-6 * (double)ru.ru_utime.tv_usec +
            (double)ru.ru_stime.tv_sec + 1e-6 * (double)ru.ru_stime.tv_usec;
    z.ok = 1;
#endif
    return z;
}

double rx__steal_share(const rx__load_snap *a, const rx__load_snap *b,
                       int threads)
{
    const double span = b->t - a->t;
    if (!a->ok || !b->ok || !(span > 0.0) || threads < 1)
        return -1.0;
    const double s = (b->steal - a->steal) / (span * (double)threads);
    return s > 0.0 ? s : 0.0;
}
