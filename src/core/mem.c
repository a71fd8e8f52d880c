/*
 * Aligned allocation: every internal allocation of chain state goes through
 * here so that per-chain buffers start on their own cache line.
 */
#define _POSIX_C_SOURCE 200809L
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
