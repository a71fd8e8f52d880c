/*
 * Keys of how a run is spread, beside the schema's own: one table of
 * rows that are always in use (no key picks them), so their keys live in
 * the key store (rx_config.keys) and reach parsing, --set, defaults,
 * `replex keys`, config.yaml and rx_config_set/get like a row's. Today
 * one row: `mpi`, the ranks of an MPI run (docs/yaml.md, "mpi").
 */
#include <stdio.h>

#include "../core/internal.h"
#include "config.h"

#ifndef RX_HAVE_MPI
#define RX_HAVE_MPI 0
#endif

static const rx__keydef MPI_KEYS[] = {
    {"mpi.ranks", K_INT, 0, "0", 0, 65536, 0, 0, NULL,
     "MPI ranks the run expects: 0 = as many as it is launched on "
     "(mpirun -np R); R > 0 refuses any other number. Each rank steps "
     "a block of the chains with its threads; results are the same bits "
     "for any split of ranks x threads (docs/architecture.md, \"Ranks\")"},
};

static rx_status mpi_check(const rx__rowrun *run, const rx__rowvals *own,
                           const char **key, rx_err *err)
{
    const int ranks = (int)own->k[0].v[0];
    *key = "mpi.ranks";
    if (ranks > 0 && !RX_HAVE_MPI)
        return rx__fail(err, RX_ECONFIG,
                        "%d ranks asked, but this replex was built without "
                        "MPI (install libopenmpi-dev and reconfigure: meson "
                        "setup --reconfigure -Dmpi=enabled)",
                        ranks);
    if (ranks > run->P && run->P > 0)
        return rx__fail(err, RX_ECONFIG,
                        "%d ranks for %d chains (tempering.n_chains): every "
                        "rank needs at least one chain",
                        ranks, run->P);
    return RX_OK;
}

static const rx__rowdecl MPI_ROW = {
    "mpi", "how the run is spread over MPI ranks", MPI_KEYS,
    (int)(sizeof MPI_KEYS / sizeof MPI_KEYS[0]), NULL, 0, mpi_check, NULL};

static int run_count(void) { return 1; }

static const rx__rowdecl *run_at(int i) { return i == 0 ? &MPI_ROW : NULL; }

const rx__table rx__run_table = {"run", {NULL, NULL, NULL}, run_count,
                                 run_at};
