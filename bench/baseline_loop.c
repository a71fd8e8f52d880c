/*
 * Baseline for the engine benchmark: the same replica-exchange SGLD loop as
 * the engine runs (25-mode energy, SGLD at every position, DEO even/odd
 * swaps, Metropolis on exact energies), written the way a researcher would
 * write it in an afternoon: one thread, state indexed by position, a
 * xorshift64* generator with Box-Muller normals, swaps by copying theta.
 *
 * It is not bit-compatible with the engine (different generator, gradient
 * recomputed at the start of each step rather than cached), only the same
 * amount of mathematical work per chain-step: 2 sin + 2 cos for U and its
 * gradient, 2 Gaussian draws, and per active pair one uniform + exp.
 *
 * With -s SD every energy and gradient coordinate gets N(0, SD^2) noise
 * (the engine's target.energy_noise_sd / grad_noise_sd): the
 * "noisy energies" setting, three more Gaussian draws per chain-step.
 *
 * Usage: baseline_loop [-n REPS] [-k ITERS] [-s NOISE_SD] [P ...]
 *        (default P = 16 64 256, NOISE_SD 0)
 */
#define _POSIX_C_SOURCE 200809L
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "baseline_loop.h"

double rxb_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

/* ---- random numbers: xorshift64* + Box-Muller (one spare cached) ------ */
typedef struct rng {
    uint64_t s;
    int has_spare;
    double spare;
} rng;

static uint64_t next_u64(rng *r)
{
    r->s ^= r->s >> 12;
    r->s ^= r->s << 25;
    r->s ^= r->s >> 27;
    return r->s * 2685821657736338717ull;
}

static double unif(rng *r) /* (0,1) */
{
    return ((double)(next_u64(r) >> 11) + 0.5) * (1.0 / 9007199254740992.0);
}

static double randn(rng *r)
{
    if (r->has_spare) {
        r->has_spare = 0;
        return r->spare;
    }
    const double two_pi = 6.283185307179586476925286766559;
    double u1 = unif(r), u2 = unif(r);
    double rad = sqrt(-2.0 * log(u1));
    r->spare = rad * sin(two_pi * u2);
    r->has_spare = 1;
    return rad * cos(two_pi * u2);
}

/* ---- the 25-mode energy: U(b) = 0.2|b|^2 - 2(cos 2 pi b1 + cos 2 pi b2) */
static double energy(const double *b)
{
    const double two_pi = 6.283185307179586476925286766559;
    return 0.2 * (b[0] * b[0] + b[1] * b[1]) -
           2.0 * (cos(two_pi * b[0]) + cos(two_pi * b[1]));
}

static void gradient(const double *b, double *g)
{
    const double two_pi = 6.283185307179586476925286766559;
    g[0] = 0.4 * b[0] + 2.0 * two_pi * sin(two_pi * b[0]);
    g[1] = 0.4 * b[1] + 2.0 * two_pi * sin(two_pi * b[1]);
}

rxb_result rxb_baseline_run(int P, int64_t K, uint64_t seed, double eta,
                            double tau_min, double tau_max, int64_t thin,
                            double noise_sd)
{
    rxb_result res = {0.0, 0.0, 0, 0};
    double *x = malloc(sizeof(double) * 2 * (size_t)P); /* x[2q], x[2q+1] */
    double *E = malloc(sizeof(double) * (size_t)P);
    double *tau = malloc(sizeof(double) * (size_t)P);
    if (!x || !E || !tau) {
        free(x);
        free(E);
        free(tau);
        res.wall_s = -1.0;
        return res;
    }
    rng r = {seed * 0x9E3779B97F4A7C15ull + 1, 0, 0.0};
    for (int q = 0; q < P; ++q) {
        tau[q] = P > 1 ? tau_min * pow(tau_max / tau_min,
                                       (double)q / (double)(P - 1))
                       : tau_min;
        x[2 * q] = -1.0 + 2.0 * unif(&r);
        x[2 * q + 1] = -1.0 + 2.0 * unif(&r);
        E[q] = energy(&x[2 * q]);
    }

    double t0 = rxb_now();
    for (int64_t k = 0; k < K; ++k) {
        /* SGLD at every position */
        for (int q = 0; q < P; ++q) {
            double g[2];
            gradient(&x[2 * q], g);
            if (noise_sd > 0.0) {
                g[0] += noise_sd * randn(&r);
                g[1] += noise_sd * randn(&r);
            }
            double sd = sqrt(2.0 * eta * tau[q]);
            x[2 * q] += -eta * g[0] + sd * randn(&r);
            x[2 * q + 1] += -eta * g[1] + sd * randn(&r);
            E[q] = energy(&x[2 * q]);
            if (noise_sd > 0.0)
                E[q] += noise_sd * randn(&r);
        }
        /* DEO: pairs (q, q+1), 0-based q odd on even k, even on odd k */
        for (int q = (k & 1) ? 0 : 1; q + 1 < P; q += 2) {
            double a = (1.0 / tau[q] - 1.0 / tau[q + 1]) * (E[q] - E[q + 1]);
            res.attempts++;
            if (a >= 0.0 || unif(&r) < exp(a)) {
                double t;
                t = x[2 * q];
                x[2 * q] = x[2 * q + 2];
                x[2 * q + 2] = t;
                t = x[2 * q + 1];
                x[2 * q + 1] = x[2 * q + 3];
                x[2 * q + 3] = t;
                t = E[q];
                E[q] = E[q + 1];
                E[q + 1] = t;
                res.swaps++;
            }
        }
        if (k % thin == 0)
            res.checksum += x[0] + x[1];
    }
    res.wall_s = rxb_now() - t0;
    free(x);
    free(E);
    free(tau);
    return res;
}

#ifndef RXB_NO_MAIN
static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

int main(int argc, char **argv)
{
    int reps = 7;
    int64_t K = 20001;
    double noise = 0.0;
    int Ps[16];
    int nP = 0;
    for (int i = 1; i < argc; ++i) {
        if (!strcmp(argv[i], "-n") && i + 1 < argc)
            reps = atoi(argv[++i]);
        else if (!strcmp(argv[i], "-k") && i + 1 < argc)
            K = atoll(argv[++i]);
        else if (!strcmp(argv[i], "-s") && i + 1 < argc)
            noise = atof(argv[++i]);
        else if (nP < 16 && atoi(argv[i]) >= 2)
            Ps[nP++] = atoi(argv[i]);
        else {
            fprintf(stderr, "usage: %s [-n REPS] [-k ITERS] [-s NOISE_SD] "
                    "[P ...]\n", argv[0]);
            return 2;
        }
    }
    if (reps < 1 || K < 1 || !(noise >= 0.0)) {
        fprintf(stderr, "reps and iterations must be >= 1, NOISE_SD >= 0\n");
        return 2;
    }
    if (nP == 0) {
        Ps[0] = 16;
        Ps[1] = 64;
        Ps[2] = 256;
        nP = 3;
    }
    double *w = malloc(sizeof(double) * (size_t)reps);
    if (!w)
        return 1;
    printf("baseline: single-threaded C loop, SGLD + DEO + Metropolis, "
           "25-mode target, noise sd %g, %lld iterations, best/median of "
           "%d\n\n", noise, (long long)K, reps);
    printf("| P | best Msteps/s | median Msteps/s | best us/iter | "
           "swap rate | checksum |\n");
    printf("|---:|---:|---:|---:|---:|---:|\n");
    for (int j = 0; j < nP; ++j) {
        int P = Ps[j];
        rxb_result r =
            rxb_baseline_run(P, 1000, 1, 0.001, 1.0, 10.0, 100, noise);
        for (int i = 0; i < reps; ++i) {
            r = rxb_baseline_run(P, K, 1, 0.001, 1.0, 10.0, 100, noise);
            if (r.wall_s < 0) {
                fprintf(stderr, "out of memory\n");
                return 1;
            }
            w[i] = r.wall_s;
        }
        qsort(w, (size_t)reps, sizeof(double), cmp_double);
        double steps = (double)K * (double)P;
        double med =
            reps % 2 ? w[reps / 2] : 0.5 * (w[reps / 2 - 1] + w[reps / 2]);
        printf("| %d | %.2f | %.2f | %.3f | %.3f | %.4g |\n", P,
               steps / w[0] * 1e-6, steps / med * 1e-6, w[0] / (double)K * 1e6,
               r.attempts ? (double)r.swaps / (double)r.attempts : 0.0,
               r.checksum);
    }
    free(w);
    return 0;
}
#endif
