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
    const int p = openblas_get_parallel();
    char hint[400];
    const int h = rx__blas_core_hint(hint, sizeof hint);
    snprintf(buf, cap, "OpenBLAS %s (%s, %d threads)%s%s",
             openblas_get_config(), p >= 0 && p <= 2 ? par[p] : "?",
             openblas_get_num_threads(), h ? "\nnote: " : "", h ? hint : "");
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

const char *rx__blas_core_suggest(const char *core, int avx512, int avx2fma)
{
    /* OpenBLAS 0.3.21's x86 core names without AVX2 kernels, and Haswell
     * (AVX2, no AVX-512); AMD's names are left alone (Zen 4's AVX-512 is
     * not what SkylakeX's kernels are tuned for) */
    static const char *const pre_avx2[] = {
        "unknown", "katmai", "coppermine", "northwood", "prescott", "banias",
        "atom", "core2", "penryn", "dunnington", "nehalem", "sandybridge"};
    if (!core)
        return NULL;
    int old = 0;
    for (size_t i = 0; i < sizeof pre_avx2 / sizeof pre_avx2[0]; ++i)
        old |= !strcasecmp(core, pre_avx2[i]);
    if (avx512 && (old || !strcasecmp(core, "haswell")))
        return "SkylakeX";
    if (avx2fma && old)
        return "Haswell";
    return NULL;
}

int rx__blas_core_hint(char *buf, size_t cap)
{
#if defined(__GNUC__) && defined(__x86_64__)
    const char *core = openblas_get_corename();
    const int avx512 = __builtin_cpu_supports("avx512f") &&
                       __builtin_cpu_supports("avx512bw") &&
                       __builtin_cpu_supports("avx512dq") &&
                       __builtin_cpu_supports("avx512vl");
    const int avx2fma =
        __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma");
    const char *better = rx__blas_core_suggest(core, avx512, avx2fma);
    if (!better)
        return 0;
    snprintf(buf, cap,
             "OpenBLAS runs its %s kernels on this CPU, which has %s; "
             "OPENBLAS_CORETYPE=%s in the environment selects faster ones "
             "(network steps 1.3-4x faster; docs/performance.md, \"On 16 "
             "cores\")",
             core, avx512 ? "AVX-512" : "AVX2 and FMA", better);
    return 1;
#else
    (void)buf;
    (void)cap;
    return 0;
#endif
}
