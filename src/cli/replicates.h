/*
 * `replex run` on a file with `replicates: N >= 2` (CLI only).
 */
#ifndef RX_CLI_REPLICATES_H
#define RX_CLI_REPLICATES_H

#include "progress.h"
#include "replex/replex.h"

/* How the replicates are run and where they go. */
typedef struct rx_cli_reps {
    const char *file;    /* the experiment file (the runs' source) */
    const char *out;     /* DIR: DIR/rep-00 ... and DIR/summary.json */
    int force, quiet, plots;
    rx_cli_progress *pr; /* progress display and interrupt check of every
                          * run (may be NULL) */
    int rank, nranks;    /* this process's world rank and the world's
                          * size (0 and 1 without a launcher) */
    int errfd;           /* ranks > 0: their own stderr (stdio muted) */
} rx_cli_reps;

/* Runs N = cfg->replicates copies of cfg (copy r with the seed
 * rx_replicate_seed(cfg->seed, r)) into out/rep-00 ..., then writes
 * out/summary.json with the split R-hat over them. Returns the exit
 * status. Under a launcher copy r runs on rank r mod R alone (with its
 * threads) and rank 0 builds the summary from every copy's final state
 * (docs/cli.md, "On MPI ranks"); a copy's failure gives every rank the
 * same status, rank 0's summary its own (the caller takes the ranks'
 * largest). */
int rx_cli_replicates(const rx_config *cfg, const rx_cli_reps *o);

#endif
