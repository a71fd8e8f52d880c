/*
 * Keys of how a run is spread, beside the schema's own: one table of
 * rows that are always in use (no key picks them), so their keys live in
 * the key store (rx_config.keys) and reach parsing, --set, defaults,
 * `replex keys`, config.yaml and rx_config_set/get like a row's, and a
 * key added here moves no field of the public rx_config. Rows: `mpi`,
 * the ranks of an MPI run (docs/yaml.md, "mpi"); `hit`, the hitting time
 * of an optimisation run (docs/yaml.md, "hit").
 */
#include <math.h>
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

static const rx__keydef HIT_KEYS[] = {
    {"hit.rho", K_REAL, 0, "-1", -HUGE_VAL, HUGE_VAL, 0, 0, NULL,
     ">= 0: record each chain's first iteration with U <= hit.u_min + rho "
     "and its lowest energy (summary.json hit, trace.csv hits); < 0: off"},
    {"hit.u_min", K_REAL, 0, "0", -HUGE_VAL, HUGE_VAL, 0, 0, NULL,
     "the known minimum of the energy for hit.rho (0 for the test "
     "functions of target.kind)"},
};

static rx_status hit_check(const rx__rowrun *run, const rx__rowvals *own,
                           const char **key, rx_err *err)
{
    (void)run;
    const double rho = own->k[0].v[0], u_min = own->k[1].v[0];
    if (rho >= 0.0 && !isfinite(rho)) {
        *key = "hit.rho";
        return rx__fail(err, RX_ECONFIG, "must be finite");
    }
    if (rho >= 0.0 && !isfinite(u_min)) {
        *key = "hit.u_min";
        return rx__fail(err, RX_ECONFIG, "must be finite");
    }
    return RX_OK;
}

static const rx__rowdecl HIT_ROW = {
    "hit", "the hitting time of an optimisation run (Deng 2021, Table 7.1)",
    HIT_KEYS, (int)(sizeof HIT_KEYS / sizeof HIT_KEYS[0]), NULL, 0,
    hit_check, NULL};

enum { ROW_MPI, ROW_HIT, N_ROWS };

static int run_count(void) { return N_ROWS; }

static const rx__rowdecl *run_at(int i)
{
    return i == ROW_MPI ? &MPI_ROW : i == ROW_HIT ? &HIT_ROW : NULL;
}

void rx__run_hit(const rx_config *c, double *rho, double *u_min)
{
    rx__rowvals own;
    rx__slot tmp[RX__ROW_MAX_KEYS];
    rx__row_values(c, &rx__run_table, ROW_HIT, &own, tmp);
    *rho = own.k[0].v[0];
    *u_min = own.k[1].v[0];
}

int rx__run_ranks(const rx_config *c)
{
    rx__rowvals own;
    rx__slot tmp[RX__ROW_MAX_KEYS];
    rx__row_values(c, &rx__run_table, ROW_MPI, &own, tmp);
    return (int)own.k[0].v[0];
}

const rx__table rx__run_table = {"run", {NULL, NULL, NULL}, run_count,
                                 run_at};
