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
/* Ends the pthreads build's thread pool (OpenBLAS restarts it when it next
 * needs it); weak because the sequential build has none. */
int blas_thread_shutdown_(void) __attribute__((weak));

int rx__blas_set_threads(int n)
{
    int prev = openblas_get_num_threads();
    /* Only on a change: OpenBLAS 0.3.21's openblas_set_num_threads starts
     * the pool again when it has been ended (rx_blas_single_thread, or a
     * fork: its pthread_atfork handler ends it too), and its new threads
     * poll for work for about 0.1 s. */
    if (n != prev)
        openblas_set_num_threads(n);
    return prev;
}

int rx__blas_parallel(void) { return openblas_get_parallel(); }

int rx_blas_single_thread(void)
{
    /* Only the pthreads build has a pool of its own; the OpenMP build's
     * openblas_set_num_threads would set omp_set_num_threads(1) for the
     * whole process (and with it the engine's default team). */
    if (openblas_get_parallel() != 1)
        return openblas_get_num_threads();
    const int prev = rx__blas_set_threads(1);
    if (blas_thread_shutdown_)
        blas_thread_shutdown_();
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
