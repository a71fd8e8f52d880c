/*
 * The baseline: a plain single-threaded replica-exchange SGLD loop on the
 * 25-mode energy, written the quick way (arrays indexed by position, swap
 * by copying the 2 doubles). bench_engine links it to print the ratio
 * engine / baseline from the same run; baseline_loop.c alone is also a
 * program (built without RXB_NO_MAIN).
 */
#ifndef RX_BENCH_BASELINE_LOOP_H
#define RX_BENCH_BASELINE_LOOP_H

#include <stdint.h>

typedef struct rxb_result {
    double wall_s;    /* seconds for the K iterations (set-up excluded) */
    double checksum;  /* sum of thinned position-1 samples (keeps the
                       * compiler honest, and a sanity figure) */
    int64_t attempts; /* active pair evaluations */
    int64_t swaps;    /* executed swaps */
} rxb_result;

/* P chains, K iterations, eta constant, tau geometric tau_min..tau_max,
 * DEO (W = 1) with the Metropolis rule on the energies, exact when
 * noise_sd = 0, else each energy and each gradient coordinate with added
 * N(0, noise_sd^2) noise (the engine's target.energy_noise_sd and
 * grad_noise_sd); every `thin` iterations the position-1 particle is
 * added to the checksum. */
rxb_result rxb_baseline_run(int P, int64_t K, uint64_t seed, double eta,
                            double tau_min, double tau_max, int64_t thin,
                            double noise_sd);

/* Monotonic seconds. */
double rxb_now(void);

#endif
