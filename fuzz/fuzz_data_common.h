/*
 * Shared helpers of the data-loader harnesses (fuzz_csv.c, fuzz_idx.c,
 * fuzz_json.c): files in a private temporary directory, a gzip writer (so
 * that the loaders' zlib path is reached with valid streams), the status
 * check, and the transforms run on every set that loads (split,
 * standardise, class filter, batcher), so those are fuzzed too.
 *
 * Properties beyond "no crash, no leak, no UB, no hang" (an abort() is a
 * finding): a failure has a documented status (RX_EDATA, RX_EIO,
 * RX_ENOMEM, RX_EINVAL) and a non-empty message, and leaves the output
 * data set all zero; a loaded set is consistent (n >= 0, nfeat >= 1 when
 * n >= 1, finite x and y, labels in [0, n_classes)).
 */
#ifndef RX_FUZZ_DATA_COMMON_H
#define RX_FUZZ_DATA_COMMON_H

#define _GNU_SOURCE
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <zlib.h>

#include "../src/data/data.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static char fz_dir[256];

/* A private temporary directory, created once and removed at exit. */
static void fz_rmdir(void)
{
    char cmd[300];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", fz_dir);
    if (system(cmd) != 0) {
        /* nothing to do */
    }
}

static const char *fz_tmpdir(void)
{
    if (!fz_dir[0]) {
        const char *t = getenv("TMPDIR");
        snprintf(fz_dir, sizeof fz_dir, "%s/rx-fuzz-data.XXXXXX",
                 t && *t ? t : "/tmp");
        if (!mkdtemp(fz_dir)) {
            perror("mkdtemp");
            abort();
        }
        atexit(fz_rmdir);
    }
    return fz_dir;
}

/* gzip (one member) of p[0..n) into a malloc'd buffer. */
static unsigned char *fz_gzip(const void *p, size_t n, size_t *out_len)
{
    z_stream z;
    memset(&z, 0, sizeof z);
    if (deflateInit2(&z, 1, Z_DEFLATED, 15 + 16, 8, Z_DEFAULT_STRATEGY) !=
        Z_OK)
        abort();
    size_t cap = deflateBound(&z, (uLong)n) + 64;
    unsigned char *o = malloc(cap);
    if (!o)
        abort();
    z.next_in = (Bytef *)(uintptr_t)p;
    z.avail_in = (uInt)n;
    z.next_out = o;
    z.avail_out = (uInt)cap;
    if (deflate(&z, Z_FINISH) != Z_STREAM_END)
        abort();
    *out_len = cap - z.avail_out;
    deflateEnd(&z);
    return o;
}

/* Writes p[0..n) to path, gzipped when gz. */
static void fz_write(const char *path, const void *p, size_t n, int gz)
{
    unsigned char *zb = NULL;
    if (gz) {
        zb = fz_gzip(p, n, &n);
        p = zb;
    }
    FILE *f = fopen(path, "wb");
    if (!f || (n && fwrite(p, 1, n, f) != n) || fclose(f) != 0) {
        perror(path);
        abort();
    }
    free(zb);
}

static void fz_check_status(rx_status st, const rx_err *err,
                            const rx__dataset *d, const char *what)
{
    if (st == RX_OK)
        return;
    if (st != RX_EDATA && st != RX_EIO && st != RX_ENOMEM &&
        st != RX_EINVAL) {
        fprintf(stderr, "%s: unexpected status %d (%s)\n", what, (int)st,
                err->msg);
        abort();
    }
    if (!err->msg[0]) {
        fprintf(stderr, "%s: error %d without a message\n", what, (int)st);
        abort();
    }
    if (d) {
        static const rx__dataset zero;
        if (memcmp(d, &zero, sizeof zero) != 0) {
            fprintf(stderr, "%s: error %d left a half-filled data set "
                            "(%s)\n", what, (int)st, err->msg);
            abort();
        }
    }
}

static void fz_check_set(const rx__dataset *d)
{
    if (d->n < 0 || (d->n > 0 && (d->nfeat < 1 || !d->x || !d->y))) {
        fprintf(stderr, "inconsistent data set: n %lld nfeat %lld\n",
                (long long)d->n, (long long)d->nfeat);
        abort();
    }
    for (int64_t i = 0; i < d->n * d->nfeat; ++i)
        if (!isfinite(d->x[i])) {
            fprintf(stderr, "non-finite feature at %lld\n", (long long)i);
            abort();
        }
    for (int64_t i = 0; i < d->n; ++i) {
        if (!isfinite(d->y[i]) ||
            (d->n_classes > 0 &&
             (d->y[i] < 0 || d->y[i] >= d->n_classes ||
              d->y[i] != floorf(d->y[i])))) {
            fprintf(stderr, "bad target %g at row %lld (%d classes)\n",
                    (double)d->y[i], (long long)i, d->n_classes);
            abort();
        }
    }
}

/* The transforms on a loaded set; k: a byte of the input choosing
 * parameters. Errors must be clean too. */
static void fz_transforms(const rx__dataset *d, unsigned k)
{
    fz_check_set(d);
    rx_err err = {""};
    rx__dataset train, test;
    double frac = ((k & 7) + 1) / 9.0;
    rx_status st = rx__data_split(d, frac, 17, k >> 3, &train, &test, &err);
    fz_check_status(st, &err, NULL, "split");
    if (st == RX_OK) {
        if (train.n + test.n != d->n)
            abort();
        fz_check_set(&train);
        fz_check_set(&test);
        rx__dataset *sets[2] = {&train, &test};
        err.msg[0] = '\0';
        st = rx__data_standardise(sets, 2, &train, 1,
                                  d->n_classes == 0 && (k & 8),
                                  d->h > 0 ? 0.5 : 0.0,
                                  d->h > 0 ? 0.25 : 0.0, &err);
        fz_check_status(st, &err, NULL, "standardise");
        rx__batcher b;
        memset(&b, 0, sizeof b);
        err.msg[0] = '\0';
        int64_t bs = 1 + (int64_t)(k % 5);
        st = rx__batcher_init(&b, train.n, bs, 99, k, &err);
        fz_check_status(st, &err, NULL, "batcher_init");
        if (st == RX_OK) {
            for (int64_t it = 0; it < 8; ++it) {
                const int32_t *idx = rx__batcher_get(&b, it * (1 + (k & 3)));
                if (!idx)
                    abort();
                for (int64_t j = 0; j < bs; ++j)
                    if (idx[j] < 0 || idx[j] >= train.n)
                        abort();
            }
            if (rx__batcher_get(&b, -1) != NULL)
                abort();
        }
        rx__batcher_free(&b);
    }
    rx__data_free(&train);
    rx__data_free(&test);
    if (d->n_classes > 1) {
        int classes[2] = {d->n_classes - 1, (int)(k % (unsigned)d->n_classes)};
        int nc = classes[0] == classes[1] ? 1 : 2;
        rx__dataset f;
        err.msg[0] = '\0';
        st = rx__data_filter_classes(&f, d, classes, nc, &err);
        fz_check_status(st, &err, NULL, "filter_classes");
        if (st == RX_OK)
            fz_check_set(&f);
        rx__data_free(&f);
    }
}

#endif
