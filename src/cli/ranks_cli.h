/*
 * `replex run` under an MPI launcher (CLI only; docs/cli.md, "On MPI
 * ranks"): MPI started when a launcher started this process, rank 0 the
 * replex a user sees (messages, the run directory), the other ranks
 * silent but for their own failures; one go / no-go before a run, so a
 * rank that leaves early never leaves the others waiting; the exit
 * status the largest of the ranks'. The MPI calls themselves are the
 * engine's (src/engine/ranks.h); without MPI every function here acts
 * for one process.
 */
#ifndef RX_CLI_RANKS_CLI_H
#define RX_CLI_RANKS_CLI_H

#include "replex/replex.h"

/* This process among the ranks of `replex run`. */
typedef struct rx_cli_ranks {
    int mpi;         /* started under an MPI launcher */
    int rank, nranks; /* this process's world rank, the world size (0 and
                       * 1 without a launcher) */
    int errfd;       /* ranks > 0: their own stderr (stdio is muted) */
    int agreed;      /* set once this rank took part in the go / no-go */
} rx_cli_ranks;

/* The state of a process no launcher started. */
#define RX_CLI_RANKS_ONE {0, 0, 1, 2, 0}

/* `replex run`: starts MPI when a launcher started this process and mutes
 * stdout and stderr of ranks > 0 (errfd keeps their stderr). -1 to go on,
 * else the exit status after printing why. */
int rx_cli_ranks_begin(rx_cli_ranks *k, int *argc, char ***argv);

/* After the command (rc its exit status on this rank): a rank that left
 * before the go / no-go says no there, as the others wait for it; then
 * MPI ends. Returns the largest exit status of the ranks (rc without a
 * launcher). */
int rx_cli_ranks_end(rx_cli_ranks *k, int rc);

/* Whether this process is a rank other than 0 of a launch. */
int rx_cli_ranks_worker(const rx_cli_ranks *k);

/* Rank 0 is ready to start a run (ok) or not: 1 when every rank is, else
 * 0; every rank calls it once per run (rx_cli_run_worker for ranks > 0).
 * Without a launcher: ok. */
int rx_cli_ranks_go(rx_cli_ranks *k, int ok);

/* Rank 0 leaves a run before it starts: the other ranks, waiting to
 * start it, learn that it does not. Returns rc. */
int rx_cli_no_go(rx_cli_ranks *k, int rc);

/* The file's mpi.ranks against the launch's rank count: 0, or 2 after
 * printing why (file names the experiment file). */
int rx_cli_ranks_check(const rx_cli_ranks *k, const rx_config *cfg,
                       const char *file);

/* A rank > 0 of a plain run: the same run from the same configuration
 * (cfg, consumed), resumed from the checkpoint ckpt that rank 0 reads
 * too when resuming, with the same checkpoint period and stop flag,
 * writing nothing; rank 0 writes the run directory. Its own failures go
 * to errfd. Returns its exit status. */
int rx_cli_run_worker(rx_cli_ranks *k, rx_config *cfg, const char *ckpt,
                      int resuming);

/* A rank > 0 that runs whole runs of its own (a sweep's): its stderr
 * back, so that its runs' failures are seen. */
void rx_cli_ranks_unmute(const rx_cli_ranks *k);

#endif
