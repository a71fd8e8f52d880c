/*
 * A finished run's convergence diagnostics (rundiag.c): the effective
 * sample size and autocorrelation time of the target position's draws per
 * coordinate, the communication barrier Lambda and the number of chains it
 * suggests (per run and per barrier-ladder round), the importance weights'
 * ESS; the summary's "diagnostics" block, the lines `replex run` prints,
 * and the summary of replicate runs (split R-hat over them). The figures
 * are computed by src/record/ess.c.
 */
#ifndef RX_IO_RUNDIAG_H
#define RX_IO_RUNDIAG_H

#include <stdio.h>

#include "replex/replex.h"
#include "paramtab.h"

/* Coordinates whose ESS is computed: every one up to this many, else
 * this many evenly spaced ones (coordinate i * dim / 64, i < 64). */
#define RX__DIAG_COORDS 64

/* Barrier-ladder rounds printed after a run: the last this many. */
#define RX__DIAG_ROUNDS_SHOWN 10

typedef struct rx__rundiag {
    /* the target position's draws (kept samples) */
    int64_t draws;   /* rows of the target position (0: none kept) */
    size_t dim;
    int n_coords;    /* coordinates evaluated; 0 with fewer than 4 draws */
    int64_t coord[RX__DIAG_COORDS];
    rx_ess_info ess[RX__DIAG_COORDS];
    /* over the evaluated coordinates (NaN where none is defined) */
    double bulk_min, bulk_median, tail_min, tail_median;
    double tau_median, tau_max;
    /* the communication barrier (Syed et al. 2022) */
    int n_chains;
    double lambda;   /* NaN: no pair was evaluated (scheme none) */
    int suggested;   /* chains it suggests (0 with a NaN lambda) */
    rx_rule rule;    /* tempering.rule */
    int applies;     /* the suggestion means something: a Metropolis-type
                      * rule (metropolis, bias_corrected), whose rejection
                      * measures how far apart neighbours are; the
                      * deterministic and Bernoulli rules set theirs */
    int64_t rounds;  /* ladder.adapt barrier: completed rounds */
    int64_t round0;  /* ladder.barrier_round */
    const double *round_lambda; /* rounds entries (borrowed from the run) */
    /* importance weights (a bias) */
    int weighted;
    double weights_ess; /* (sum w)^2 / sum w^2 of the target rows */
} rx__rundiag;

/* The diagnostics of a finished run; RX_ENOMEM when scratch cannot be
 * had (then the context's message says so). pt: NULL, or this run's
 * parameter table (rx__paramtab_get of c alone), whose coordinate rows
 * give the bulk and tail ESS (the same bits) instead of computing them
 * again. */
rx_status rx__rundiag_get(rx_ctx *c, const rx__paramtab *pt, rx__rundiag *d);

/* The summary's "diagnostics" block, a line ending in ",\n". */
void rx__rundiag_json(FILE *f, const rx__rundiag *d);

/* The few labelled lines `replex run` prints after a run. */
void rx__rundiag_print(FILE *f, const rx__rundiag *d);
/* The ESS under which a run's estimates are not trusted (Vehtari et al.
 * 2021 ask for 100 per chain before reading the estimates). */
#define RX_ESS_ENOUGH 100

/* 1 with a message in msg (a plain "not converged" and why) when the
 * run's smallest bulk or tail ESS (d, of rx__rundiag_get) is under
 * RX_ESS_ENOUGH, else 0. */
int rx__rundiag_unconverged(const rx__rundiag *d, char *msg, size_t cap);

/* rx__rundiag_print of d and rx__paramtab_print of t into f; where d or
 * t is NULL, computed from c first (or the error printed). */
void rx__rundiag_report(FILE *f, rx_ctx *c, const rx__rundiag *d,
                        const rx__paramtab *t);

/* hit.rho >= 0: one line, the first hitting iteration and chain, how
 * many chains hit, and whether the run stopped there (hit.stop); nothing
 * otherwise (src/io/rundir.c). */
void rx__hit_print(FILE *f, const rx_ctx *c);

/* rx_write_rundir that hands back the diagnostics and the parameter
 * table it wrote into summary.json (d, t not NULL; t to be freed with
 * rx__paramtab_free, empty on failure), so that what is printed after
 * the run is not computed twice (src/io/rundir.c). */
rx_status rx__write_rundir_keep(const rx_ctx *c, const char *dir, int force,
                                const char *source, rx__rundiag *d,
                                rx__paramtab *t);

/* What the replicates' summary found, for the lines printed after it. */
typedef struct rx__repdiag {
    int n_coords;          /* coordinates evaluated (0: too few draws) */
    double rhat_max;       /* the largest R-hat over them (NaN: none) */
    int64_t rhat_max_coord;
    double bulk_min;       /* the smallest pooled bulk ESS */
    int has_log_z;         /* every copy has a log Z (ladder.path
                            * reference): */
    double log_z_mean;     /* their mean, */
    double log_z_sd;       /* the sd across the copies (n - 1), */
    double log_z_se_mean;  /* the mean of the copies' reported se */
    rx__paramtab table;    /* the per-parameter table over the copies
                            * (rx__repdiag_free releases it) */
} rx__repdiag;

/*
 * The summary of n >= 2 replicate runs of one configuration (each one
 * chain): path gets a JSON file with the seeds and run directories, the
 * split R-hat per coordinate over the runs and the ESS of the runs pooled
 * (rx_rhat, rx_ess with n chains), each run's ESS, Lambda and the chains
 * it suggests, weights ESS (a bias) and log Z with its se (ladder.path
 * reference), and the log Z's mean and sd across the runs. The R-hat and
 * ESS are of the unweighted draws (samples.npy). dirs:
 * the runs' directory names (relative to the summary). Written to a
 * temporary file and renamed; the per-parameter table over the copies
 * goes into its "parameters" block and into summary.csv beside it.
 * out (may be NULL): the headline figures and the table.
 * err: the reason on failure.
 */
rx_status rx__replicates_summary(rx_ctx *const *runs, const char *const *dirs,
                                 int n, const char *path, const char *source,
                                 rx__repdiag *out, rx_err *err);

/* The lines `replex run` prints after the replicates' summary. */
void rx__repdiag_print(FILE *f, const rx__repdiag *d, int n);
/* Releases what rx__replicates_summary allocated in d (NULL-safe). */
void rx__repdiag_free(rx__repdiag *d);

#endif
