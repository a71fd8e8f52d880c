/*
 * BLAS identification for `replex info`. The network models of src/model/
 * are the only other place that includes <cblas.h>.
 */
#include <cblas.h>
#include <stdio.h>

#include "../core/internal.h"
#include "model.h"

/* OpenBLAS exports these; declared here to avoid its private headers. */
char *openblas_get_config(void);
int openblas_get_num_threads(void);
int openblas_get_parallel(void);

void rx__blas_info(char *buf, size_t cap);
void rx__blas_info(char *buf, size_t cap)
{
    static const char *const par[] = {"sequential", "pthreads", "openmp"};
    int p = openblas_get_parallel();
    snprintf(buf, cap, "OpenBLAS %s (%s, %d threads)", openblas_get_config(),
             p >= 0 && p <= 2 ? par[p] : "?", openblas_get_num_threads());
}

void openblas_set_num_threads(int n);

int rx__blas_set_threads(int n)
{
    int prev = openblas_get_num_threads();
    openblas_set_num_threads(n);
    return prev;
}
