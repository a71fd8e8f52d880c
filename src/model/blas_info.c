/*
 * BLAS identification for `replex info`. The network models of src/model/
 * are the only other place that includes <cblas.h>.
 */
#include <cblas.h>
#include <stdio.h>
#include <strings.h>

#include "../core/internal.h"
#include "model.h"

/* OpenBLAS exports these; declared here to avoid its private headers. */
char *openblas_get_config(void);
char *openblas_get_corename(void);
int openblas_get_num_threads(void);
int openblas_get_parallel(void);

void rx__blas_info(char *buf, size_t cap);
void rx__blas_info(char *buf, size_t cap)
{
    static const char *const par[] = {"sequential", "pthreads", "openmp"};
    const int p = openblas_get_parallel(), hint = rx__blas_avx512_unused();
    snprintf(buf, cap, "OpenBLAS %s (%s, %d threads)%s%s",
             openblas_get_config(), p >= 0 && p <= 2 ? par[p] : "?",
             openblas_get_num_threads(), hint ? "\nnote: " : "",
             hint ? RX__BLAS_AVX512_HINT : "");
}

void openblas_set_num_threads(int n);

int rx__blas_set_threads(int n)
{
    int prev = openblas_get_num_threads();
    openblas_set_num_threads(n);
    return prev;
}

int rx__blas_avx512_unused(void)
{
#if defined(__GNUC__) && defined(__x86_64__)
    const char *core = openblas_get_corename();
    return core && !strcasecmp(core, "haswell") &&
           __builtin_cpu_supports("avx512f") &&
           __builtin_cpu_supports("avx512bw") &&
           __builtin_cpu_supports("avx512dq") &&
           __builtin_cpu_supports("avx512vl");
#else
    return 0;
#endif
}
