/*
 * `replex run` on a file with a sweep: block (CLI only).
 */
#ifndef RX_CLI_SWEEP_H
#define RX_CLI_SWEEP_H

#include "progress.h"
#include "replex/replex.h"

/* Runs every combination into out/run-NNN and writes out/sweep.csv,
 * out/sweep.md and out/plots/sweep_<key>.svg. Returns the exit status.
 * pr (may be NULL): progress display and interrupt check of every run.
 * Under an MPI launcher (nranks > 1, every rank calls it) the runs are
 * spread over the ranks, run r on rank r mod nranks; rank 0 holds the
 * lock, makes out and writes the tables. */
int rx_cli_sweep(const char *file, const char *const *sets, int nsets,
                 const rx_sweep *sw, const char *out, int threads, int force,
                 int quiet, int plots, rx_cli_progress *pr, int rank,
                 int nranks);

#endif
