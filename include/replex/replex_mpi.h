/**
 * @file replex_mpi.h
 * A run on the ranks of an MPI communicator (installed by builds with
 * MPI; docs/api.md, "On MPI ranks"). Include after <mpi.h>.
 *
 * Every rank of comm creates the same run (the same configuration and
 * seed), calls rx_set_comm with comm, and calls rx_run from the thread
 * that initialised MPI (MPI_Init_thread with MPI_THREAD_FUNNELED or more
 * when the run has more than one thread). Rank r steps the chains
 * [P r / R, P (r + 1) / R) with its threads; after rx_run every rank
 * holds the whole result (samples, index, trace, weights, summary), the
 * same bits for any split of ranks x threads. rx_set_comm talks to no
 * other rank; rx_run duplicates comm (keep it valid until rx_run
 * returns; the run's messages never meet yours), sets MPI_ERRORS_RETURN
 * on its copy and checks that every rank runs the same run. The library
 * never calls MPI_Init, MPI_Finalize or MPI_Abort, and returns an error
 * status where a rank cannot go on.
 */
#ifndef REPLEX_MPI_H
#define REPLEX_MPI_H

#include <mpi.h>

#include "replex.h"

#ifdef __cplusplus
extern "C" {
#endif

/** Runs c on the ranks of comm. Call after rx_create (and
 *  rx_checkpoint_resume, if resuming: every rank reads the checkpoint)
 *  and before rx_run, on every rank of comm. RX_EINVAL (message in
 *  rx_errmsg(c)) when MPI is not initialised, comm is MPI_COMM_NULL,
 *  has more ranks than the run has chains, or another size than the
 *  configuration's mpi.ranks (when not 0), when the thread level is below
 *  MPI_THREAD_FUNNELED for a run with threads, or after rx_run. */
RX_API rx_status rx_set_comm(rx_ctx *c, MPI_Comm comm);

#ifdef __cplusplus
}
#endif

#endif
