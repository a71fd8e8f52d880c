/*
 * Aligned allocation: every internal allocation of chain state goes through
 * here so that per-chain buffers start on their own cache line.
 */
#include <stdlib.h>
#include <string.h>

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
