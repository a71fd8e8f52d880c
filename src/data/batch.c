/*
 * The minibatch sampler: epochs of Fisher-Yates permutations from Philox
 * streams, so that the indices of iteration k are a pure function of
 * (seed, entity, n, bs, k). Owns its permutation cache; allocates only in
 * rx__batcher_init.
 */
#include <string.h>

#include "data.h"

rx_status rx__batcher_init(rx__batcher *b, int64_t n, int64_t bs,
                           uint64_t seed, uint32_t entity, rx_err *err)
{
    if (!b)
        return rx__fail(err, RX_EINVAL, "batcher: no sampler given");
    memset(b, 0, sizeof *b);
    b->epoch = -1;
    if (bs < 1)
        return rx__fail(err, RX_EINVAL, "batch size %lld: must be at least "
                        "1", (long long)bs);
    if (n < bs)
        return rx__fail(err, RX_EINVAL, "data set of %lld rows is smaller "
                        "than the batch size %lld", (long long)n,
                        (long long)bs);
    if (n > INT32_MAX)
        return rx__fail(err, RX_EINVAL, "data set of %lld rows: the "
                        "sampler handles at most %ld", (long long)n,
                        (long)INT32_MAX);
    b->perm = rx__alloc_aligned((size_t)n * sizeof(int32_t), 64);
    if (!b->perm)
        return rx__fail(err, RX_ENOMEM, "batcher: out of memory for %lld "
                        "indices", (long long)n);
    b->seed = seed;
    b->entity = entity;
    b->n = n;
    b->bs = bs;
    b->nb = n / bs;
    return RX_OK;
}

/* Epoch e's permutation: identity, then Fisher-Yates from the top with
 * stream (seed, entity, RX_STREAM_BATCH, e). O(n), no allocation. */
static void make_epoch(rx__batcher *b, int64_t e)
{
    int32_t *p = b->perm;
    for (int64_t i = 0; i < b->n; ++i)
        p[i] = (int32_t)i;
    rx__stream s;
    rx__stream_init(&s, b->seed, b->entity, RX_STREAM_BATCH, (uint64_t)e);
    for (int64_t i = b->n - 1; i > 0; --i) {
        int64_t j = (int64_t)rx__uniform_int(&s, (uint64_t)i + 1);
        int32_t t = p[i];
        p[i] = p[j];
        p[j] = t;
    }
    b->epoch = e;
}

const int32_t *rx__batcher_get(rx__batcher *b, int64_t k)
{
    if (!b || !b->perm || k < 0)
        return NULL;
    int64_t e = k / b->nb, j = k % b->nb;
    if (e != b->epoch)
        make_epoch(b, e);
    return b->perm + j * b->bs;
}

void rx__batcher_free(rx__batcher *b)
{
    if (!b)
        return;
    rx__free_aligned(b->perm);
    memset(b, 0, sizeof *b);
    b->epoch = -1;
}
