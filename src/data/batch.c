/*
 * The minibatch sampler: epochs of Fisher-Yates permutations from Philox
 * streams, so that the indices of iteration k are a pure function of
 * (seed, entity, n, bs, k); with label noise also the epoch's training
 * labels, a pure function of (seed, entity, n, m, epoch) and the clean
 * labels. Owns its permutation and label caches; allocates only in
 * rx__batcher_init and rx__batcher_label_noise.
 */
#include <math.h>
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

rx_status rx__batcher_label_noise(rx__batcher *b, const float *y,
                                  double frac, rx_err *err)
{
    if (!b || !b->perm || !y)
        return rx__fail(err, RX_EINVAL, "label noise: no sampler or labels");
    if (!(frac >= 0.0 && frac <= 1.0))
        return rx__fail(err, RX_EINVAL, "label noise %g: must be in [0, 1]",
                        frac);
    const int64_t m = (int64_t)floor(frac * (double)b->n);
    if (m < 2) /* one row or none: nothing to permute */
        return RX_OK;
    b->ylab = rx__alloc_aligned((size_t)b->n * sizeof(float), 64);
    if (!b->ylab)
        return rx__fail(err, RX_ENOMEM, "label noise: out of memory for "
                        "%lld labels", (long long)b->n);
    b->y = y;
    b->n_noisy = m > b->n ? b->n : m;
    b->epoch = -1;
    return RX_OK;
}

const float *rx__batcher_labels(const rx__batcher *b)
{
    return b && b->ylab && b->epoch >= 0 ? b->ylab : NULL;
}

void rx__label_noise(const float *y, int64_t n, int64_t m, uint64_t seed,
                     uint32_t entity, int64_t epoch, int32_t *sel,
                     float *ylab)
{
    memcpy(ylab, y, (size_t)n * sizeof *ylab);
    rx__stream s;
    rx__stream_init(&s, seed, entity, RX_STREAM_LABELS, (uint64_t)epoch);
    for (int64_t i = 0; i < n; ++i)
        sel[i] = (int32_t)i;
    /* sel[0..m) := a uniform random m-subset, in random order */
    for (int64_t i = 0; i < m; ++i) {
        int64_t j = i + (int64_t)rx__uniform_int(&s, (uint64_t)(n - i));
        int32_t t = sel[i];
        sel[i] = sel[j];
        sel[j] = t;
    }
    /* a uniform permutation of their (clean) labels among them */
    for (int64_t i = m - 1; i > 0; --i) {
        int64_t j = (int64_t)rx__uniform_int(&s, (uint64_t)i + 1);
        float t = ylab[sel[i]];
        ylab[sel[i]] = ylab[sel[j]];
        ylab[sel[j]] = t;
    }
}

/* Epoch e's permutation: identity, then Fisher-Yates from the top with
 * stream (seed, entity, RX_STREAM_BATCH, e). O(n), no allocation. Under
 * label noise first the epoch's labels, with perm as the scratch. */
static void make_epoch(rx__batcher *b, int64_t e)
{
    int32_t *p = b->perm;
    if (b->ylab)
        rx__label_noise(b->y, b->n, b->n_noisy, b->seed, b->entity, e, p,
                        b->ylab);
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
    rx__free_aligned(b->ylab);
    memset(b, 0, sizeof *b);
    b->epoch = -1;
}
