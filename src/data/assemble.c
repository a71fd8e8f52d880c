/*
 * The data sets of a network target, assembled from cfg->data: the loaded
 * (or synthetic) rows, the train/test split (a fixed test file, a file of
 * test rows, or the seeded split of data.split), the class filters and the
 * OOD set of held-out labels, the random subsets of data.max_train and
 * data.max_test, and the standardisation with the training statistics.
 * Everything here is keyed by data.split, never by the run's seed, so
 * every seed of a configuration sees the same sets.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "data.h"

/* splits are keyed by data.split only, so every seed sees the same split */
#define RX__SPLIT_KEY 0x7265706c6578ULL

void rx__datasets_free(rx__datasets *s)
{
    if (!s)
        return;
    rx__data_free(&s->train);
    rx__data_free(&s->test);
    rx__data_free(&s->ood);
    s->split = 0;
}

/* y = sin(2 x1) + 0.5 x2^2 - 0.5 + 0.3 sum_{j>2} x_j + noise, x ~ N(0, I);
 * a fixed data set (keyed by data.split, not by the run's seed). */
static rx_status synthetic(rx__dataset *d, const rx_config *cfg, rx_err *err)
{
    const int64_t n = cfg->data.synthetic_n;
    const int D = cfg->data.synthetic_features;
    memset(d, 0, sizeof *d);
    d->x = rx__alloc_aligned((size_t)n * (size_t)D * sizeof(float), 64);
    d->y = rx__alloc_aligned((size_t)n * sizeof(float), 64);
    if (!d->x || !d->y) {
        rx__data_free(d);
        return rx__fail(err, RX_ENOMEM, "data: out of memory for %lld "
                        "synthetic examples", (long long)n);
    }
    d->n = n;
    d->nfeat = D;
    d->c = 1;
    d->h = 1;
    d->w = D;
    d->y_sd = 1.0;
    rx__stream s;
    rx__stream_init(&s, RX__SPLIT_KEY, (uint32_t)cfg->data.split,
                    RX_STREAM_DATA, 1);
    for (int64_t i = 0; i < n; ++i) {
        float *x = d->x + i * D;
        double y = 0.0;
        for (int j = 0; j < D; ++j)
            x[j] = (float)rx__normal(&s);
        y += sin(2.0 * x[0]);
        if (D > 1)
            y += 0.5 * (double)x[1] * x[1] - 0.5;
        for (int j = 2; j < D; ++j)
            y += 0.3 * x[j];
        y += cfg->data.synthetic_noise_sd * rx__normal(&s);
        d->y[i] = (float)y;
    }
    return RX_OK;
}

static int cmp_i64(const void *a, const void *b)
{
    int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
    return (x > y) - (x < y);
}

/* Replace *d by its rows of the classes cls[0..nc-1]. */
static rx_status keep_classes(rx__dataset *d, const int *cls, int nc,
                              rx_err *err)
{
    rx__dataset o;
    memset(&o, 0, sizeof o);
    rx_status st = rx__data_filter_classes(&o, d, cls, nc, err);
    if (st != RX_OK)
        return st;
    rx__data_free(d);
    *d = o;
    return RX_OK;
}

/* Keep n rows chosen at random (a seeded permutation keyed by the split
 * id and `salt`), in their original order: files are often sorted by
 * label, so "the first n" would be a biased subset. */
static rx_status keep_random(rx__dataset *d, int64_t n, uint32_t split,
                             uint64_t salt, rx_err *err)
{
    if (n <= 0 || n >= d->n)
        return RX_OK;
    int64_t *perm = malloc(sizeof(int64_t) * (size_t)d->n);
    if (!perm)
        return rx__fail(err, RX_ENOMEM, "data: out of memory");
    for (int64_t i = 0; i < d->n; ++i)
        perm[i] = i;
    rx__stream s;
    rx__stream_init(&s, RX__SPLIT_KEY, split, RX_STREAM_DATA, salt);
    for (int64_t i = 0; i < n; ++i) { /* partial Fisher-Yates */
        int64_t j = i + (int64_t)rx__uniform_int(&s, (uint64_t)(d->n - i));
        int64_t tmp = perm[i];
        perm[i] = perm[j];
        perm[j] = tmp;
    }
    qsort(perm, (size_t)n, sizeof(int64_t), cmp_i64);
    rx__dataset o;
    memset(&o, 0, sizeof o);
    rx_status st = rx__data_subset(&o, d, perm, n, err);
    free(perm);
    if (st != RX_OK)
        return st;
    rx__data_free(d);
    *d = o;
    return RX_OK;
}

/* The CSV file of cfg->data with its header, skip and target options. */
static rx_status load_csv(rx__dataset *all, const rx_config *cfg,
                          rx_err *err)
{
    rx__csvopts o;
    rx__csvopts_default(&o);
    o.header = cfg->data.header == 0 ? -1 : cfg->data.header == 1 ? 0 : 1;
    o.skip_rows = cfg->data.skip_rows;
    o.classification = cfg->data.task == RX_TASK_CLASSIFICATION;
    const char *tc = cfg->data.target_column;
    char *end = NULL;
    long idx = tc[0] ? strtol(tc, &end, 10) : -1;
    if (tc[0] && end && *end == '\0') {
        o.target_name = NULL;
        o.target_index = (int)idx;
    } else if (tc[0]) {
        o.target_name = tc;
    } else {
        o.target_name = NULL;
        o.target_index = -1;
    }
    return rx__data_load_csv(all, cfg->data.path, &o, err);
}

/* The rows of data.format (all), and the fixed test set of an IDX
 * data.test_path (left empty without one). */
static rx_status load_all(rx__dataset *all, rx__dataset *fixed_test,
                          const rx_config *cfg, rx_err *err)
{
    rx_status st = RX_OK;
    switch (cfg->data.format) {
    case RX_DATA_CSV:
        st = load_csv(all, cfg, err);
        break;
    case RX_DATA_IDX:
        st = rx__data_load_idx(all, cfg->data.path, cfg->data.labels_path,
                               err);
        if (st == RX_OK && cfg->data.test_path[0])
            st = rx__data_load_idx(fixed_test, cfg->data.test_path,
                                   cfg->data.test_labels_path, err);
        if (st == RX_OK && fixed_test->n > 0 &&
            fixed_test->nfeat != all->nfeat)
            st = rx__fail(err, RX_EDATA,
                          "%s: %lld features per image, but %s has %lld",
                          cfg->data.test_path, (long long)fixed_test->nfeat,
                          cfg->data.path, (long long)all->nfeat);
        break;
    case RX_DATA_MNIST_JSON:
        st = rx__data_load_mnist_json(all, cfg->data.path, err);
        break;
    case RX_DATA_SYNTHETIC:
        st = synthetic(all, cfg, err);
        break;
    }
    return st;
}

/* data.classes and data.ood_classes (the complement of the OOD labels
 * when only those are given); the OOD set is the test rows of the
 * held-out labels. */
static rx_status filter_classes(rx__datasets *s, const rx_config *cfg,
                                rx_err *err)
{
    const int K = s->train.n_classes > s->test.n_classes
                      ? s->train.n_classes : s->test.n_classes;
    int cls[1024], ood[1024], nc = 0, no = 0;
    for (int i = 0; i < cfg->data.ood_classes.n && no < 1024; ++i)
        ood[no++] = (int)cfg->data.ood_classes.v[i];
    for (int i = 0; i < cfg->data.classes.n && nc < 1024; ++i)
        cls[nc++] = (int)cfg->data.classes.v[i];
    if (nc == 0 && no > 0)
        for (int c = 0; c < K && nc < 1024; ++c) {
            int held = 0;
            for (int j = 0; j < no; ++j)
                held |= ood[j] == c;
            if (!held)
                cls[nc++] = c;
        }
    for (int i = 0; i < nc; ++i)
        if (cls[i] >= K)
            return rx__fail(err, RX_ECONFIG,
                            "data.classes: label %d does not occur in %s "
                            "(labels 0..%d)", cls[i], cfg->data.path, K - 1);
    for (int i = 0; i < no; ++i)
        if (ood[i] >= K)
            return rx__fail(err, RX_ECONFIG,
                            "data.ood_classes: label %d does not occur in "
                            "%s (labels 0..%d)", ood[i], cfg->data.path,
                            K - 1);
    rx_status st = RX_OK;
    if (no > 0)
        st = rx__data_filter_classes(&s->ood, &s->test, ood, no, err);
    if (st == RX_OK && nc > 0) {
        st = keep_classes(&s->train, cls, nc, err);
        if (st == RX_OK)
            st = keep_classes(&s->test, cls, nc, err);
    }
    return st;
}

/* Features (data.standardise, or data.pixel_mean / pixel_sd of image
 * sets) and regression targets (data.standardise_target), all with the
 * training statistics. */
static rx_status standardise(rx__datasets *s, const rx_config *cfg,
                             rx_err *err)
{
    const rx_data_format fm = cfg->data.format;
    rx__dataset *sets[3] = {&s->train, &s->test, &s->ood};
    const int nsets = s->ood.n > 0 ? 3 : 2;
    const int image = fm == RX_DATA_IDX || fm == RX_DATA_MNIST_JSON;
    const int feats = image ? cfg->data.pixel_sd > 0.0
                            : cfg->data.standardise;
    const int targ = s->train.n_classes == 0 &&
                     cfg->data.standardise_target;
    if (!feats && !targ)
        return RX_OK;
    rx__dataset train_copy = s->train; /* stats before changes */
    return rx__data_standardise(sets, nsets, &train_copy, feats, targ,
                                image ? cfg->data.pixel_mean : 0.0,
                                image ? cfg->data.pixel_sd : 0.0, err);
}

/* Train and test (and OOD) from all: a fixed test set is taken as it is,
 * else a file of test rows or the seeded split of data.split. */
static rx_status split(rx__datasets *s, rx__dataset *all,
                       rx__dataset *fixed_test, const rx_config *cfg,
                       rx_err *err)
{
    if (fixed_test->n > 0) {
        s->train = *all;
        s->test = *fixed_test;
        memset(all, 0, sizeof *all);
        memset(fixed_test, 0, sizeof *fixed_test);
        return RX_OK;
    }
    rx_status st =
        cfg->data.format == RX_DATA_CSV && cfg->data.test_rows[0]
            ? rx__data_split_rows(all, cfg->data.test_rows, &s->train,
                                  &s->test, err)
            : rx__data_split(all, cfg->data.test_fraction, RX__SPLIT_KEY,
                             (uint32_t)cfg->data.split, &s->train, &s->test,
                             err);
    if (st == RX_OK)
        s->split = 1;
    return st;
}

static rx_status assemble(rx__datasets *s, const rx_config *cfg,
                          rx_err *err)
{
    rx__dataset all, fixed_test;
    memset(&all, 0, sizeof all);
    memset(&fixed_test, 0, sizeof fixed_test);
    rx_status st = load_all(&all, &fixed_test, cfg, err);
    if (st == RX_OK)
        st = split(s, &all, &fixed_test, cfg, err);
    rx__data_free(&all);
    rx__data_free(&fixed_test);
    if (st != RX_OK)
        return st;
    if (s->train.n_classes > 0) {
        st = filter_classes(s, cfg, err);
        if (st != RX_OK)
            return st;
    }
    const uint32_t sid = (uint32_t)cfg->data.split;
    st = keep_random(&s->train, cfg->data.max_train, sid, 2, err);
    if (st == RX_OK)
        st = keep_random(&s->test, cfg->data.max_test, sid, 3, err);
    if (st == RX_OK && s->ood.n > 0)
        st = keep_random(&s->ood, cfg->data.max_test, sid, 4, err);
    if (st != RX_OK)
        return st;
    if (s->train.n < 1 || s->test.n < 1)
        return rx__fail(err, RX_EDATA,
                        "%s: %lld training and %lld test examples after the "
                        "split and the class filters; need at least one of "
                        "each",
                        cfg->data.format == RX_DATA_SYNTHETIC
                            ? "data (synthetic)" : cfg->data.path,
                        (long long)s->train.n, (long long)s->test.n);
    return standardise(s, cfg, err);
}

rx_status rx__data_assemble(rx__datasets *s, const rx_config *cfg,
                            rx_err *err)
{
    memset(s, 0, sizeof *s);
    rx_status st = assemble(s, cfg, err);
    if (st != RX_OK)
        rx__datasets_free(s);
    return st;
}
