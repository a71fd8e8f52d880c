/*
 * Build and runtime facts for `replex info` and logs.
 */
#include <omp.h>
#include <stdio.h>

#include "../core/internal.h"
#include "ranks.h"

void rx__blas_info(char *buf, size_t cap);

void rx_build_info(char *buf, size_t cap)
{
    if (!buf || cap == 0)
        return;
    char blas[512];
    rx__blas_info(blas, sizeof blas);
    snprintf(buf, cap,
             "replex %s\nOpenMP: %d max threads (spec %d)\nBLAS: %s\n"
             "MPI: %s\n",
             RX_VERSION_STRING, omp_get_max_threads(), _OPENMP, blas,
             rx__mpi_built() ? "yes (mpirun -np R replex run ...; "
                               "docs/cli.md, \"On MPI ranks\")"
                             : "no (this build runs one process)");
}
