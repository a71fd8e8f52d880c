/*
 * Barrier latency floor of the machine: ns per barrier for 1 and 2 threads
 * (or up to -t T), libgomp's `#pragma omp barrier` against a
 * sense-reversing spin barrier of the kind the engine's run loop uses
 * (atomic counter + sense flag on separate cache lines, release/acquire,
 * PAUSE while spinning), and against epoch flags (each thread stores its
 * barrier count on its own cache line and reads the others'; no shared
 * read-modify-write). Nothing happens between barriers, so the figure
 * is the pure cross-core hand-off: the lower bound of the engine's
 * per-iteration "barrier wait" phase. Best of REPS repetitions of N
 * barriers. OMP_WAIT_POLICY changes the libgomp figure, not the spin one.
 *
 * Usage: bench_barrier [-n N] [-r REPS] [-t T]
 */
#include <omp.h>
#include <stdalign.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct spin_barrier {
    alignas(64) atomic_int count;
    alignas(64) atomic_int sense;
    int n;
} spin_barrier;

static void spin_wait(spin_barrier *b, int *local_sense)
{
    int s = !*local_sense;
    *local_sense = s;
    if (atomic_fetch_add_explicit(&b->count, 1, memory_order_acq_rel) ==
        b->n - 1) {
        atomic_store_explicit(&b->count, 0, memory_order_relaxed);
        atomic_store_explicit(&b->sense, s, memory_order_release);
        return;
    }
    while (atomic_load_explicit(&b->sense, memory_order_acquire) != s) {
#if defined(__x86_64__) || defined(__i386__)
        __builtin_ia32_pause();
#endif
    }
}

/* Epoch flags: each thread publishes its barrier count on its own cache
 * line and waits until every other thread's count has reached it. No
 * read-modify-write on a shared line: with 2 threads one store and one
 * remote read per thread. */
typedef struct epoch_slot {
    alignas(64) atomic_long e;
} epoch_slot;

static void epoch_wait(epoch_slot *f, int nt, int t, long *mine)
{
    long e = ++*mine;
    atomic_store_explicit(&f[t].e, e, memory_order_release);
    for (int u = 0; u < nt; ++u)
        while (u != t &&
               atomic_load_explicit(&f[u].e, memory_order_acquire) < e) {
#if defined(__x86_64__) || defined(__i386__)
            __builtin_ia32_pause();
#endif
        }
}

/* Seconds per barrier, kind 0 = libgomp, 1 = spin, 2 = epoch flags. */
static double measure(int nt, int kind, long n)
{
    static spin_barrier b;
    static epoch_slot f[64];
    for (int u = 0; u < 64; ++u)
        atomic_init(&f[u].e, 0);
    atomic_init(&b.count, 0);
    atomic_init(&b.sense, 0);
    b.n = nt;
    double t0 = 0.0, t1 = 0.0;
#pragma omp parallel num_threads(nt)
    {
        int sense = 0;
#pragma omp barrier
        double a = omp_get_wtime();
        if (kind == 0) {
            for (long i = 0; i < n; ++i) {
#pragma omp barrier
            }
        } else if (kind == 1) {
            for (long i = 0; i < n; ++i)
                spin_wait(&b, &sense);
        } else {
            long mine = 0;
            const int t = omp_get_thread_num();
            for (long i = 0; i < n; ++i)
                epoch_wait(f, nt, t, &mine);
        }
        double z = omp_get_wtime();
        if (omp_get_thread_num() == 0) {
            t0 = a;
            t1 = z;
        }
    }
    return (t1 - t0) / (double)n;
}

int main(int argc, char **argv)
{
    long n = 200000;
    int reps = 5, tmax = 2;
    for (int i = 1; i < argc; ++i) {
        if (!strcmp(argv[i], "-n") && i + 1 < argc)
            n = atol(argv[++i]);
        else if (!strcmp(argv[i], "-r") && i + 1 < argc)
            reps = atoi(argv[++i]);
        else if (!strcmp(argv[i], "-t") && i + 1 < argc)
            tmax = atoi(argv[++i]);
        else {
            fprintf(stderr, "usage: %s [-n N] [-r REPS] [-t T]\n", argv[0]);
            return 2;
        }
    }
    if (n < 1 || reps < 1 || tmax < 1 || tmax > 64) {
        fprintf(stderr, "bench_barrier: N, REPS >= 1, 1 <= T <= 64\n");
        return 2;
    }
    const char *wp = getenv("OMP_WAIT_POLICY");
    printf("barrier latency, best of %d x %ld barriers; OMP_WAIT_POLICY=%s"
           "\n\n",
           reps, n, wp && *wp ? wp : "(unset)");
    printf("| threads | libgomp omp barrier, ns | spin barrier, ns | "
           "epoch flags, ns |\n");
    printf("|---:|---:|---:|---:|\n");
    for (int nt = 1; nt <= tmax; ++nt) {
        double best[3] = {1e300, 1e300, 1e300};
        for (int r = 0; r < reps; ++r)
            for (int kind = 0; kind < 3; ++kind) {
                double s = measure(nt, kind, n);
                if (s < best[kind])
                    best[kind] = s;
            }
        printf("| %d | %.1f | %.1f | %.1f |\n", nt, best[0] * 1e9,
               best[1] * 1e9, best[2] * 1e9);
    }
    return 0;
}
