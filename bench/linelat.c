/*
 * How long one cache line takes to move between two CPUs: two threads,
 * pinned to CPUs A and B, hand a counter back and forth N times through
 * one atomic line (each waits for the other's increment, then adds one);
 * printed: the one-way time, the round trip / 2 (docs/performance.md,
 * "Cache lines between cores, and the threads' start": 51-68 ns on the
 * 2-vCPU VM of 2026-11-23).
 *
 * Usage: linelat [N] [A B]   (defaults 2000000, CPUs 0 and 1)
 */
#define _GNU_SOURCE
#include <pthread.h>
#include <sched.h>
#include <stdalign.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>

#include "bench_util.h"

typedef struct {
    alignas(64) atomic_long v;
    long n;
    int cpu;
} line;

static int pin(int cpu)
{
    cpu_set_t s;
    CPU_ZERO(&s);
    CPU_SET(cpu, &s);
    return pthread_setaffinity_np(pthread_self(), sizeof s, &s);
}

/* the thread that moves the odd values: waits for i, writes i + 1 */
static void *pong(void *arg)
{
    line *l = arg;
    if (pin(l->cpu) != 0)
        fprintf(stderr, "linelat: cannot pin to CPU %d\n", l->cpu);
    for (long i = 1; i < l->n; i += 2) {
        while (atomic_load_explicit(&l->v, memory_order_acquire) != i)
            ;
        atomic_store_explicit(&l->v, i + 1, memory_order_release);
    }
    return NULL;
}

int main(int argc, char **argv)
{
    const long n = argc > 1 ? atol(argv[1]) : 2000000;
    const int a = argc > 3 ? atoi(argv[2]) : 0, b = argc > 3 ? atoi(argv[3]) : 1;
    if (n < 1000 || n % 2 || a < 0 || b < 0 || (argc != 1 && argc != 2 &&
                                                  argc != 4)) {
        fprintf(stderr, "usage: linelat [N >= 1000, even] [CPU_A CPU_B]\n");
        return 2;
    }
    static line l;
    atomic_init(&l.v, 0);
    l.n = n;
    l.cpu = b;
    if (pin(a) != 0) {
        fprintf(stderr, "linelat: cannot pin to CPU %d\n", a);
        return 1;
    }
    pthread_t t;
    if (pthread_create(&t, NULL, pong, &l) != 0)
        return 1;
    const double t0 = rxb_now();
    for (long i = 0; i < n; i += 2) {
        while (atomic_load_explicit(&l.v, memory_order_acquire) != i)
            ;
        atomic_store_explicit(&l.v, i + 1, memory_order_release);
    }
    const double dt = rxb_now() - t0;
    pthread_join(t, NULL);
    printf("CPUs %d and %d: one-way %.1f ns (%ld hand-overs in %.3f s)\n", a,
           b, 1e9 * dt / (double)n, n, dt);
    return 0;
}
