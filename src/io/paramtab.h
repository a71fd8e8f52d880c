/*
 * The per-parameter table of a finished run or of replicate runs
 * (paramtab.c): one row per quantity a user reads the answer from (the
 * log density lp, a network's hyper-parameters and its noise sd in the
 * units of y, then the coordinates of the target position), each with mean, sd, 5/50/95 % quantiles, the
 * mean's MCSE and ESS, bulk and tail ESS and R-hat (src/record/param.c);
 * the summary's "parameters" block, summary.csv, and the block printed
 * after a run with its warnings and a network's test metrics.
 */
#ifndef RX_IO_PARAMTAB_H
#define RX_IO_PARAMTAB_H

#include <stdio.h>

#include "replex/replex.h"
#include "../record/param.h"

/* Coordinates of the target position given a row: the first this many
 * (a network's weights beyond them are not identifiable one by one, and
 * a table of 10^5 rows is not read). */
#define RX__PARAM_COORDS_MAX 4096
/* Named rows at most: lp, weight_precision, noise_precision, noise_sd. */
#define RX__PARAM_NAMED_MAX 4
/* Coordinate rows printed after a run (all rows are in the files). */
#define RX__PARAM_COORDS_SHOWN 8
/* The thresholds of the warnings (Vehtari et al. 2021). */
#define RX__PARAM_ESS_LOW 100.0
#define RX__PARAM_RHAT_HIGH 1.01

typedef struct rx__paramtab {
    int chains;          /* runs pooled (replicates), 1 for a run */
    int64_t draws;       /* target draws per chain */
    size_t dim;          /* coordinates of the target position */
    int weighted;        /* the draws carry importance weights (a bias) */
    int network;         /* the coordinates are a network's weights */
    int n_rows;          /* rows computed (0: fewer than 4 draws) */
    int n_named;         /* the first n_named rows: lp, hyper-parameters */
    char (*name)[24];    /* n_rows names */
    rx__param_stats *row;
    /* over the judged rows (a network's named rows, else all): the
     * smallest ESS (of ess_mean, bulk, tail) and the largest R-hat, and
     * their rows (-1: none defined) */
    double ess_min, rhat_max;
    int ess_min_row, rhat_max_row;
    rx_metrics bma;      /* a network's test metrics (valid 0: none) */
} rx__paramtab;

/*
 * The table of n >= 1 runs of one configuration (with n > 1 each is one
 * chain of the table: replicates), into t (free with rx__paramtab_free).
 * RX_EINVAL when the runs' draws or dimensions differ, RX_ENOMEM; the
 * reason in err.
 */
rx_status rx__paramtab_get(rx_ctx *const *runs, int n, rx__paramtab *t,
                           rx_err *err);
void rx__paramtab_free(rx__paramtab *t);

/* Sets ess_min, rhat_max and their rows from t's rows (the warnings'
 * figures). */
void rx__paramtab_judge(rx__paramtab *t);

/*
 * The verdict on a table (Vehtari, Gelman, Simpson, Carpenter and
 * Buerkner 2021, "Rank-normalization, folding, and localization: an
 * improved R-hat", Bayesian Analysis 16(2)): converged when every judged
 * row (a network's named rows, else all) has a bulk and a tail ESS of at
 * least RX__PARAM_ESS_LOW per chain (the run is one chain, replicates N)
 * and an R-hat of at most RX__PARAM_RHAT_HIGH. A judged row whose figure
 * is not defined (draws that never vary), or a table without rows (fewer
 * than 4 draws), is not converged; a target without parameters (none)
 * is not judged. These figures see a run that moves
 * slowly or disagrees with itself; they cannot see a mode that no draw
 * visited (replicates from dispersed starts, and their R-hat, can).
 */
typedef struct rx__verdict {
    int converged;       /* 1: every check passed; 0: not; -1: not
                          * judged (a target without parameters:
                          * `none`) */
    int judged;          /* rows judged (0: no table) */
    double need;         /* the ESS needed: RX__PARAM_ESS_LOW x chains */
    double bulk_min, tail_min, rhat_max; /* over the judged rows (NaN:
                                          * none defined) */
    int bulk_row, tail_row, rhat_row;    /* their rows (-1: none) */
    int undef_row;       /* the first judged row with a figure not
                          * defined (-1: none) */
} rx__verdict;

void rx__paramtab_verdict(const rx__paramtab *t, rx__verdict *v);

/* The summary's "convergence" block (converged, verdict, the figures,
 * the thresholds and the reasons), a line ending in ",\n", indented by
 * ind spaces. */
void rx__paramtab_verdict_json_at(FILE *f, const rx__paramtab *t, int ind);

/*
 * The table a finished run or replicates directory stored, read back
 * from its summary.json at path (paramtab_read.c): the "parameters"
 * block (every number is written in its shortest exact form, so the
 * rows are the bits rx__paramtab_get computed) and a run's "metrics"
 * block, judged as rx__paramtab_get judges. RX_EIO: the file cannot be
 * read; RX_ECONFIG: it is not such a summary (no "parameters" block, a
 * missing or malformed field: "path:line:col: key: ..." in err);
 * RX_ENOMEM. Free t with rx__paramtab_free.
 */
rx_status rx__paramtab_read(const char *path, rx__paramtab *t, rx_err *err);

/* The summary's "parameters" block, a line ending in ",\n"; _at with
 * its lines indented by ind spaces (the summary's: 2). */
void rx__paramtab_json(FILE *f, const rx__paramtab *t);
void rx__paramtab_json_at(FILE *f, const rx__paramtab *t, int ind);

/* A network's test metrics as a JSON object, as the summary's "metrics"
 * block names them (models, test_examples, rmse and nll, or accuracy,
 * nll and ece); null when the run has none. */
void rx__paramtab_metrics_json(FILE *f, const rx__paramtab *t);

/* summary.csv's header line and its rows, on f; each line starts with
 * lead (a sweep's run and values, or ""), the header with its names. */
void rx__paramtab_csv_head(FILE *f, const char *lead);
void rx__paramtab_csv_rows(FILE *f, const rx__paramtab *t, const char *lead);

/* summary.csv: a header and every row; RX_EIO with the reason in err. */
rx_status rx__paramtab_csv(const rx__paramtab *t, const char *path,
                           rx_err *err);

/* The block printed after a run: the test metrics of a network, the
 * named rows and the first coordinates, a note on the rest (files names
 * where they are), the warnings and, last, the verdict (a line starting
 * "NOT CONVERGED:" or "converged:"). */
void rx__paramtab_print(FILE *f, const rx__paramtab *t, const char *files);

/*
 * The draws behind a run's named rows (lp, a network's precisions and
 * noise sd) and, for a target that is not a network, its first `coords`
 * coordinates: k quantities of n draws of the target position, for the
 * plots. Borrows nothing from ctx. Free with rx__paramdraws_free.
 */
typedef struct rx__paramdraws {
    int k;               /* quantities: the named ones, then theta[j] */
    int n_named;
    int network;         /* the target is a network */
    int64_t n;           /* draws (0: none kept) */
    char (*name)[24];    /* k names, as the table's rows */
    double *x;           /* n x k, draw-major */
    int64_t *iter;       /* n: the iteration each draw was kept at */
    double *w;           /* n importance weights (max 1), NULL: none */
} rx__paramdraws;

rx_status rx__paramdraws_get(rx_ctx *ctx, int coords, rx__paramdraws *d,
                             rx_err *err);
void rx__paramdraws_free(rx__paramdraws *d);

#endif
