/*
 * Data set transformations: free, row subsets, seeded train/test splits,
 * class filters and standardisation. Pure functions of their inputs (the
 * split's permutation comes from a Philox stream); no files, no threads.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "data.h"

void rx__data_free(rx__dataset *d)
{
    if (!d)
        return;
    rx__free_aligned(d->x);
    rx__free_aligned(d->y);
    free(d->row);
    if (d->feat_names) {
        for (int64_t j = 0; j < d->nfeat; ++j)
            free(d->feat_names[j]);
        free(d->feat_names);
    }
    memset(d, 0, sizeof *d);
}

/* Allocates out->x / out->y for n rows shaped like src and copies the
 * metadata (shape, classes, target statistics, names). */
static rx_status alloc_like(rx__dataset *out, const rx__dataset *src,
                            int64_t n, rx_err *err)
{
    memset(out, 0, sizeof *out);
    if (n < 1 || src->nfeat < 1 ||
        (uint64_t)n > SIZE_MAX / sizeof(float) / (uint64_t)src->nfeat)
        return rx__fail(err, RX_EINVAL, "data set of %lld x %lld rows: "
                        "bad size", (long long)n, (long long)src->nfeat);
    out->n = n;
    out->nfeat = src->nfeat;
    out->c = src->c;
    out->h = src->h;
    out->w = src->w;
    out->n_classes = src->n_classes;
    out->y_mean = src->y_mean;
    out->y_sd = src->y_sd;
    out->x = rx__alloc_aligned((size_t)n * (size_t)src->nfeat *
                                   sizeof(float), 64);
    out->y = rx__alloc_aligned((size_t)n * sizeof(float), 64);
    out->row = malloc((size_t)n * sizeof *out->row);
    if (!out->x || !out->y || !out->row)
        goto oom;
    if (src->feat_names) {
        out->feat_names = calloc((size_t)src->nfeat, sizeof(char *));
        if (!out->feat_names)
            goto oom;
        for (int64_t j = 0; j < src->nfeat; ++j)
            if (src->feat_names[j] &&
                !(out->feat_names[j] = rx__data_strdup(src->feat_names[j])))
                goto oom;
    }
    return RX_OK;
oom:
    rx__data_free(out);
    return rx__fail(err, RX_ENOMEM, "data set of %lld rows: out of memory",
                    (long long)n);
}

static void copy_row(rx__dataset *out, int64_t i, const rx__dataset *src,
                     int64_t r)
{
    size_t nf = (size_t)src->nfeat;
    memcpy(out->x + (size_t)i * nf, src->x + (size_t)r * nf,
           nf * sizeof(float));
    out->y[i] = src->y[r];
    out->row[i] = src->row ? src->row[r] : r;
}

static rx_status check_set(const rx__dataset *d, const char *what,
                           rx_err *err)
{
    if (!d || d->n < 1 || d->nfeat < 1 || !d->x || !d->y)
        return rx__fail(err, RX_EINVAL, "%s: empty or unloaded data set",
                        what);
    return RX_OK;
}

rx_status rx__data_subset(rx__dataset *out, const rx__dataset *src,
                          const int64_t *rows, int64_t n, rx_err *err)
{
    if (out)
        memset(out, 0, sizeof *out);
    if (!out)
        return rx__fail(err, RX_EINVAL, "subset: no output data set");
    rx_status st = check_set(src, "subset", err);
    if (st != RX_OK)
        return st;
    if (n < 1 || (!rows && n > src->n))
        return rx__fail(err, RX_EINVAL, "subset of %lld rows from a set of "
                        "%lld", (long long)n, (long long)src->n);
    for (int64_t i = 0; rows && i < n; ++i)
        if (rows[i] < 0 || rows[i] >= src->n)
            return rx__fail(err, RX_EINVAL, "subset: row %lld (entry %lld) "
                            "outside 0..%lld", (long long)rows[i],
                            (long long)i, (long long)src->n - 1);
    st = alloc_like(out, src, n, err);
    if (st != RX_OK)
        return st;
    for (int64_t i = 0; i < n; ++i)
        copy_row(out, i, src, rows ? rows[i] : i);
    return RX_OK;
}

/* Rows with in_test[r] set go to test, the others to train, each part in
 * the original row order. Both parts are non-empty (the callers check). */
static rx_status split_mask(const rx__dataset *all,
                            const unsigned char *in_test, int64_t nt,
                            rx__dataset *train, rx__dataset *test,
                            rx_err *err)
{
    const int64_t n = all->n;
    rx_status st = alloc_like(train, all, n - nt, err);
    if (st == RX_OK)
        st = alloc_like(test, all, nt, err);
    if (st != RX_OK) {
        rx__data_free(train);
        return st;
    }
    int64_t a = 0, b = 0;
    for (int64_t r = 0; r < n; ++r) {
        if (in_test[r])
            copy_row(test, b++, all, r);
        else
            copy_row(train, a++, all, r);
    }
    return RX_OK;
}

/* The shared checks of both splits. */
static rx_status split_args(const rx__dataset *all, rx__dataset *train,
                            rx__dataset *test, rx_err *err)
{
    if (train)
        memset(train, 0, sizeof *train);
    if (test)
        memset(test, 0, sizeof *test);
    if (!train || !test || train == test || train == all || test == all)
        return rx__fail(err, RX_EINVAL, "split: train and test must be two "
                        "distinct new data sets");
    return check_set(all, "split", err);
}

rx_status rx__data_split(const rx__dataset *all, double test_frac,
                         uint64_t seed, uint32_t split_id,
                         rx__dataset *train, rx__dataset *test, rx_err *err)
{
    rx_status st = split_args(all, train, test, err);
    if (st != RX_OK)
        return st;
    if (!(test_frac > 0.0 && test_frac < 1.0))
        return rx__fail(err, RX_EINVAL, "split: test fraction %g not in "
                        "(0, 1)", test_frac);
    int64_t n = all->n;
    int64_t nt = (int64_t)floor(test_frac * (double)n + 0.5);
    if (nt < 1 || nt > n - 1)
        return rx__fail(err, RX_EINVAL, "split: test fraction %g of %lld "
                        "rows leaves an empty %s set", test_frac,
                        (long long)n, nt < 1 ? "test" : "train");

    /* in_test[r]: 1 if row r is among the first nt of the permutation */
    int64_t *perm = malloc((size_t)n * sizeof *perm);
    unsigned char *in_test = calloc((size_t)n, 1);
    if (!perm || !in_test) {
        free(perm);
        free(in_test);
        return rx__fail(err, RX_ENOMEM, "split: out of memory");
    }
    for (int64_t i = 0; i < n; ++i)
        perm[i] = i;
    rx__stream s;
    rx__stream_init(&s, seed, split_id, RX_STREAM_DATA, 0);
    for (int64_t i = n - 1; i > 0; --i) {
        int64_t j = (int64_t)rx__uniform_int(&s, (uint64_t)i + 1);
        int64_t t = perm[i];
        perm[i] = perm[j];
        perm[j] = t;
    }
    for (int64_t i = 0; i < nt; ++i)
        in_test[perm[i]] = 1;
    free(perm);
    st = split_mask(all, in_test, nt, train, test, err);
    free(in_test);
    return st;
}

rx_status rx__data_split_rows(const rx__dataset *all, const char *path,
                              rx__dataset *train, rx__dataset *test,
                              rx_err *err)
{
    rx_status st = split_args(all, train, test, err);
    if (st != RX_OK)
        return st;
    unsigned char *in_test = calloc((size_t)all->n, 1);
    if (!in_test)
        return rx__fail(err, RX_ENOMEM, "%s: out of memory", path);
    int64_t nt = 0;
    st = rx__data_read_rows(path, all->n, in_test, &nt, err);
    if (st == RX_OK && nt > all->n - 1)
        st = rx__fail(err, RX_EDATA,
                      "%s: lists all %lld rows of the data file as test rows; "
                      "no training rows are left", path, (long long)all->n);
    if (st == RX_OK)
        st = split_mask(all, in_test, nt, train, test, err);
    free(in_test);
    return st;
}

rx_status rx__data_filter_classes(rx__dataset *out, const rx__dataset *src,
                                  const int *classes, int nc, rx_err *err)
{
    if (out)
        memset(out, 0, sizeof *out);
    if (!out)
        return rx__fail(err, RX_EINVAL, "class filter: no output data set");
    rx_status st = check_set(src, "class filter", err);
    if (st != RX_OK)
        return st;
    if (src->n_classes < 1)
        return rx__fail(err, RX_EINVAL, "class filter: the data set is a "
                        "regression set (no classes)");
    if (!classes || nc < 1)
        return rx__fail(err, RX_EINVAL, "class filter: no classes given");
    int K = src->n_classes;
    int *map = malloc((size_t)K * sizeof *map);
    if (!map)
        return rx__fail(err, RX_ENOMEM, "class filter: out of memory");
    for (int k = 0; k < K; ++k)
        map[k] = -1;
    for (int i = 0; i < nc; ++i) {
        if (classes[i] < 0 || classes[i] >= K) {
            free(map);
            return rx__fail(err, RX_EINVAL, "class filter: class %d not in "
                            "0..%d", classes[i], K - 1);
        }
        if (map[classes[i]] >= 0) {
            free(map);
            return rx__fail(err, RX_EINVAL, "class filter: class %d given "
                            "twice", classes[i]);
        }
        map[classes[i]] = i;
    }
    int64_t m = 0;
    for (int64_t r = 0; r < src->n; ++r) {
        int lab = (int)src->y[r];
        if (lab >= 0 && lab < K && map[lab] >= 0)
            ++m;
    }
    if (m == 0) {
        free(map);
        return rx__fail(err, RX_EINVAL, "class filter: no rows of the %d "
                        "classes given", nc);
    }
    st = alloc_like(out, src, m, err);
    if (st != RX_OK) {
        free(map);
        return st;
    }
    out->n_classes = nc;
    int64_t i = 0;
    for (int64_t r = 0; r < src->n; ++r) {
        int lab = (int)src->y[r];
        if (lab >= 0 && lab < K && map[lab] >= 0) {
            copy_row(out, i, src, r);
            out->y[i++] = (float)map[lab];
        }
    }
    free(map);
    return RX_OK;
}

/*
 * Mean and population sd of the n values v[0], v[stride], ... in two
 * passes (no cancellation). sd < 1e-12 |mean| + tiny counts as constant
 * and is reported as 1 so that the column is only centred.
 */
static void stats(const float *v, int64_t n, size_t stride, double *mean,
                  double *sd)
{
    double s = 0.0;
    for (int64_t i = 0; i < n; ++i)
        s += (double)v[(size_t)i * stride];
    double m = s / (double)n, q = 0.0;
    for (int64_t i = 0; i < n; ++i) {
        double d = (double)v[(size_t)i * stride] - m;
        q += d * d;
    }
    double sdv = sqrt(q / (double)n);
    *mean = m;
    *sd = (sdv > 1e-12 * fabs(m) && sdv > 1e-30) ? sdv : 1.0;
}

rx_status rx__data_standardise(rx__dataset **sets, int n_sets,
                               const rx__dataset *train, int features,
                               int targets, double fixed_mean,
                               double fixed_sd, rx_err *err)
{
    rx_status st = check_set(train, "standardise (train)", err);
    if (st != RX_OK)
        return st;
    if (n_sets < 0 || (n_sets > 0 && !sets))
        return rx__fail(err, RX_EINVAL, "standardise: no data sets");
    for (int i = 0; i < n_sets; ++i) {
        st = check_set(sets[i], "standardise", err);
        if (st != RX_OK)
            return st;
        for (int j = 0; j < i; ++j)
            if (sets[j] == sets[i])
                return rx__fail(err, RX_EINVAL, "standardise: set %d given "
                                "twice (as %d and %d)", i, j, i);
        if (sets[i]->nfeat != train->nfeat)
            return rx__fail(err, RX_EINVAL, "standardise: set %d has %lld "
                            "features, the train set %lld", i,
                            (long long)sets[i]->nfeat,
                            (long long)train->nfeat);
        if (targets && (sets[i]->y_mean != 0.0 || sets[i]->y_sd != 1.0))
            return rx__fail(err, RX_EINVAL, "standardise: targets of set %d "
                            "are already standardised (mean %g, sd %g)", i,
                            sets[i]->y_mean, sets[i]->y_sd);
    }
    if (targets && train->n_classes != 0)
        return rx__fail(err, RX_EINVAL, "standardise: targets of a "
                        "classification set (%d classes)", train->n_classes);
    if (features && fixed_sd > 0.0 && !isfinite(fixed_mean))
        return rx__fail(err, RX_EINVAL, "standardise: fixed mean %g",
                        fixed_mean);

    size_t nf = (size_t)train->nfeat;
    double *mu = NULL, *sd = NULL;
    if (features) {
        mu = malloc(nf * sizeof *mu);
        sd = malloc(nf * sizeof *sd);
        if (!mu || !sd) {
            free(mu);
            free(sd);
            return rx__fail(err, RX_ENOMEM, "standardise: out of memory");
        }
        for (size_t j = 0; j < nf; ++j) {
            if (fixed_sd > 0.0) {
                mu[j] = fixed_mean;
                sd[j] = fixed_sd;
            } else {
                stats(train->x + j, train->n, nf, &mu[j], &sd[j]);
            }
        }
    }
    double ym = 0.0, ys = 1.0;
    if (targets)
        stats(train->y, train->n, 1, &ym, &ys);

    /* statistics are fixed now; train may be among the sets */
    for (int i = 0; i < n_sets; ++i) {
        rx__dataset *d = sets[i];
        if (features) {
            for (int64_t r = 0; r < d->n; ++r) {
                float *row = d->x + (size_t)r * nf;
                for (size_t j = 0; j < nf; ++j)
                    row[j] = (float)(((double)row[j] - mu[j]) / sd[j]);
            }
        }
        if (targets) {
            for (int64_t r = 0; r < d->n; ++r)
                d->y[r] = (float)(((double)d->y[r] - ym) / ys);
            d->y_mean = ym;
            d->y_sd = ys;
        }
    }
    free(mu);
    free(sd);
    return RX_OK;
}
