/*
 * A run on MPI ranks (docs/architecture.md, "Ranks"): the engine's side
 * of the communicator, and the few calls the command-line tool makes
 * around a run (start MPI when a launcher started it, agree on going on,
 * stop MPI). MPI is called only in src/engine/ranks.c; a build without
 * MPI (RX_HAVE_MPI 0) keeps the same functions, which report one rank.
 *
 * The design in one paragraph: every rank holds the whole run (the maps,
 * the ladders, the recorders, every bias state, all P particles' blocks)
 * and steps only the particles of its block [P r / R, P (r + 1) / R);
 * after the step phase of each iteration one allgather gives every rank
 * the P energies (and the P sigma^2 raw estimates, the ranks' failure and
 * stop flags); steps 3 to 6 then run on every rank from the same inputs,
 * so they give the same bits everywhere. The samples and log Z rows a
 * rank kept (zero elsewhere) are merged by a bitwise OR at checkpoints
 * and at the end; particles travel only then.
 */
#ifndef RX_ENGINE_RANKS_H
#define RX_ENGINE_RANKS_H

#include <stddef.h>
#include <stdint.h>

#include "../core/internal.h"

/* ---- the command-line tool's calls (whole-program MPI) --------------- */

/* Whether this build has MPI. */
int rx__mpi_built(void);
/* Starts MPI (thread level funneled) when the environment says a launcher
 * started this process (Open MPI's mpirun, a PMI or PMIx launcher), else
 * does nothing; *rank and *size are the world's (0 and 1 without MPI).
 * Returns 0, or -1 with a message in err. */
int rx__mpi_start(int *argc, char ***argv, int *rank, int *size,
                  rx_err *err);
/* Whether rx__mpi_start started MPI. */
int rx__mpi_started(void);
/* Every world rank's ok (nonzero) combined: 1 where all are ok, and
 * rank 0's own into *root_ok (may be NULL). Every rank calls it. Without
 * MPI: ok. */
int rx__mpi_all_ok(int ok, int *root_ok);
/* The world's largest value of v (an exit status, say). */
int rx__mpi_max_int(int v);
/* n bytes at p OR-ed over the world's ranks, in place (each rank wrote
 * its own part into zeroed memory): 0, or -1 on an MPI error. Without
 * MPI: 0. */
int rx__mpi_or_bytes(void *p, size_t n);
/* Ends MPI if rx__mpi_start started it. */
void rx__mpi_stop(void);
/* Ranks of the world communicator (1 without MPI). */
int rx__mpi_world_size(void);

/* ---- a run's ranks ----------------------------------------------------- */

/* Attaches the world communicator to a created run (the tool's runs under
 * a launcher); RX_EINVAL with a message in the run's error when the split
 * does not fit (more ranks than chains, mpi.ranks not the size). */
rx_status rx__ranks_attach_world(rx_ctx *c);
/* The run's rank and rank count (0 and 1 without ranks). */
int rx__ranks_rank(const rx_ctx *c);
int rx__ranks_size(const rx_ctx *c);
/* Rank 0's (this rank's) seconds in the iterations' allgathers: the
 * exchange phase's communication (0 without ranks). */
double rx__ranks_sync_s(const rx_ctx *c);

#endif
