/*
 * `replex run` on a file with `replicates: N >= 2` (CLI only).
 */
#ifndef RX_CLI_REPLICATES_H
#define RX_CLI_REPLICATES_H

#include "progress.h"
#include "replex/replex.h"

/* Runs N = cfg->replicates copies of cfg (copy r with the seed
 * rx_replicate_seed(cfg->seed, r)) into out/rep-00 ..., then writes
 * out/summary.json with the split R-hat over them. Returns the exit
 * status. file: the experiment file (the runs' source). pr (may be NULL):
 * progress display and interrupt check of every run. */
int rx_cli_replicates(const char *file, const rx_config *cfg,
                      const char *out, int force, int quiet, int plots,
                      rx_cli_progress *pr, int rank, int nranks);

#endif
