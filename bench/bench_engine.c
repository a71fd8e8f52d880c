/*
 * Engine benchmark: chain-steps per second of rx_run on the 25-mode target
 * (SGLD, DEO and DEO*, Metropolis) for 1 and 2 threads and P = 16, 64, 256,
 * and the per-iteration synchronisation cost (target none, Bernoulli rule:
 * no work per chain, so a wall iteration is barrier + exchange + the empty
 * step loop). Every repetition is a fresh rx_create / rx_run / rx_destroy;
 * the figure is rx_results.wall_s (the parallel region, set-up included).
 * Recording is switched off (index_every = trace_every = 0, thin = 100) so
 * it is not what is measured. Phase breakdowns come from one extra run per
 * cell with record.phase_timing = 1 (thread 0's clocks), kept apart from
 * the throughput figures because the clock reads cost time themselves.
 *
 * The baseline loop (baseline_loop.c, same mathematics, one thread, written
 * plainly) runs in the same process so the ratio engine / baseline is taken
 * under the same machine conditions.
 *
 * Usage: bench_engine [-n REPS] [-k ITERS] [-P N] [-t T] [-g GROUP] [CSV]
 *   REPS >= 1 (default 7), ITERS (default 20001). -P / -t / -g keep only
 *   the cells with that chain count / thread count / group (m25, sync,
 *   baseline), e.g. for a profiler. Markdown on stdout; the CSV (one row
 *   per cell) is written to CSV when given.
 * OpenMP reads OMP_WAIT_POLICY / GOMP_SPINCOUNT at start-up: run the
 * program once per setting (meson registers default and active).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "baseline_loop.h"
#include "replex/replex.h"

enum { MAX_REPS = 1000 };

typedef struct cell {
    const char *group; /* "m25" or "sync" */
    rx_target_kind target;
    rx_rule rule;
    rx_scheme scheme;
    int P;
    int threads;
} cell;

typedef struct cell_out {
    int ok;
    int threads_used, window;
    double best_wall, med_wall; /* phase_timing = 0 runs */
    double t_wall, phase[4];    /* the phase_timing = 1 run */
    double swap_rate;           /* swaps / attempts over all pairs */
} cell_out;

static const char *scheme_name(rx_scheme s)
{
    switch (s) {
    case RX_SCHEME_DEO:
        return "DEO";
    case RX_SCHEME_DEO_STAR:
        return "DEO*";
    default:
        return "?";
    }
}

static const char *target_name(rx_target_kind t)
{
    return t == RX_TARGET_MIXTURE25 ? "mixture25"
                                    : (t == RX_TARGET_NONE ? "none" : "?");
}

static const char *env_or(const char *name, const char *dflt)
{
    const char *v = getenv(name);
    return v && *v ? v : dflt;
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

static double median_sorted(const double *w, int n)
{
    return n % 2 ? w[n / 2] : 0.5 * (w[n / 2 - 1] + w[n / 2]);
}

/* One fresh run; fills *wall, and phase/swap figures when asked. */
static int run_once(const cell *c, int64_t K, int timing, double *wall,
                    double phase[4], double *swap_rate, int *thr, int *win)
{
    rx_config cfg;
    rx_config_default(&cfg);
    cfg.seed = 12345;
    cfg.iterations = K;
    cfg.threads = c->threads;
    cfg.target.kind = c->target;
    cfg.tempering.n_chains = c->P;
    cfg.tempering.scheme = c->scheme;
    cfg.tempering.rule = c->rule;
    cfg.step.target = RX_STEP_SGLD;
    cfg.step.others = RX_STEP_SGLD;
    cfg.record.index_every = 0;
    cfg.record.trace_every = 0;
    cfg.record.thin = 100;
    cfg.record.phase_timing = timing;

    rx_err err;
    err.msg[0] = '\0';
    rx_ctx *ctx = NULL;
    rx_logger quiet = {NULL, NULL};
    rx_status st = rx_create(&ctx, &cfg, NULL, quiet, &err);
    rx_config_free(&cfg);
    if (st != RX_OK) {
        fprintf(stderr, "bench_engine: rx_create: %s: %s\n", rx_strerror(st),
                err.msg);
        return -1;
    }
    st = rx_run(ctx);
    if (st != RX_OK) {
        fprintf(stderr, "bench_engine: rx_run: %s: %s\n", rx_strerror(st),
                rx_errmsg(ctx));
        rx_destroy(&ctx);
        return -1;
    }
    rx_results r;
    rx_get_results(ctx, &r);
    if (r.iterations != K) {
        fprintf(stderr, "bench_engine: ran %lld of %lld iterations\n",
                (long long)r.iterations, (long long)K);
        rx_destroy(&ctx);
        return -1;
    }
    *wall = r.wall_s;
    if (phase)
        for (int j = 0; j < 4; ++j)
            phase[j] = r.phase_s[j];
    if (swap_rate) {
        int64_t att = 0;
        for (int p = 0; p < r.n_chains - 1; ++p)
            att += r.pairs[p].attempts;
        *swap_rate = att ? (double)r.total_swaps / (double)att : 0.0;
    }
    if (thr)
        *thr = r.threads;
    if (win)
        *win = r.window;
    rx_destroy(&ctx);
    return 0;
}

static cell_out measure(const cell *c, int64_t K, int reps)
{
    cell_out o;
    memset(&o, 0, sizeof o);
    double w[MAX_REPS];
    double dummy;
    /* warm-up: thread pool, page faults, frequency */
    if (run_once(c, K < 2001 ? K : 2001, 0, &dummy, NULL, NULL, NULL, NULL))
        return o;
    for (int i = 0; i < reps; ++i)
        if (run_once(c, K, 0, &w[i], NULL, i == 0 ? &o.swap_rate : NULL,
                     &o.threads_used, &o.window))
            return o;
    qsort(w, (size_t)reps, sizeof(double), cmp_double);
    o.best_wall = w[0];
    o.med_wall = median_sorted(w, reps);
    if (run_once(c, K, 1, &o.t_wall, o.phase, NULL, NULL, NULL))
        return o;
    o.ok = 1;
    return o;
}

typedef struct base_out {
    int P;
    double best_wall, med_wall, swap_rate, checksum;
} base_out;

static base_out measure_baseline(int P, int64_t K, int reps)
{
    base_out b;
    memset(&b, 0, sizeof b);
    b.P = P;
    double w[MAX_REPS];
    rxb_result r =
        rxb_baseline_run(P, K < 2001 ? K : 2001, 1, 0.001, 1.0, 10.0, 100);
    for (int i = 0; i < reps; ++i) {
        r = rxb_baseline_run(P, K, (uint64_t)i + 1, 0.001, 1.0, 10.0, 100);
        w[i] = r.wall_s;
    }
    qsort(w, (size_t)reps, sizeof(double), cmp_double);
    b.best_wall = w[0];
    b.med_wall = median_sorted(w, reps);
    b.swap_rate = r.attempts ? (double)r.swaps / (double)r.attempts : 0.0;
    b.checksum = r.checksum;
    return b;
}

int main(int argc, char **argv)
{
    int reps = 7;
    int64_t K = 20001;
    const char *csv_path = NULL;
    int only_P = 0, only_t = 0;
    const char *only_g = NULL;
    for (int i = 1; i < argc; ++i) {
        if (!strcmp(argv[i], "-n") && i + 1 < argc)
            reps = atoi(argv[++i]);
        else if (!strcmp(argv[i], "-P") && i + 1 < argc)
            only_P = atoi(argv[++i]);
        else if (!strcmp(argv[i], "-t") && i + 1 < argc)
            only_t = atoi(argv[++i]);
        else if (!strcmp(argv[i], "-g") && i + 1 < argc)
            only_g = argv[++i];
        else if (!strcmp(argv[i], "-k") && i + 1 < argc)
            K = atoll(argv[++i]);
        else if (argv[i][0] != '-' && !csv_path)
            csv_path = argv[i];
        else {
            fprintf(stderr,
                    "usage: %s [-n REPS] [-k ITERS] [-P N] [-t T] "
                    "[-g m25|sync|baseline] [CSV_PATH]\n",
                    argv[0]);
            return 2;
        }
    }
    if (reps < 1 || reps > MAX_REPS || K < 1) {
        fprintf(stderr, "bench_engine: need 1 <= REPS <= %d, ITERS >= 1\n",
                MAX_REPS);
        return 2;
    }
    const char *wp = env_or("OMP_WAIT_POLICY", "(unset)");
    const char *sc = env_or("GOMP_SPINCOUNT", "(unset)");
    const char *pb = env_or("OMP_PROC_BIND", "(unset)");

    static const cell cells[] = {
        {"m25", RX_TARGET_MIXTURE25, RX_RULE_METROPOLIS, RX_SCHEME_DEO, 16, 1},
        {"m25", RX_TARGET_MIXTURE25, RX_RULE_METROPOLIS, RX_SCHEME_DEO, 16, 2},
        {"m25", RX_TARGET_MIXTURE25, RX_RULE_METROPOLIS, RX_SCHEME_DEO_STAR,
         16, 1},
        {"m25", RX_TARGET_MIXTURE25, RX_RULE_METROPOLIS, RX_SCHEME_DEO_STAR,
         16, 2},
        {"m25", RX_TARGET_MIXTURE25, RX_RULE_METROPOLIS, RX_SCHEME_DEO, 64, 1},
        {"m25", RX_TARGET_MIXTURE25, RX_RULE_METROPOLIS, RX_SCHEME_DEO, 64, 2},
        {"m25", RX_TARGET_MIXTURE25, RX_RULE_METROPOLIS, RX_SCHEME_DEO_STAR,
         64, 1},
        {"m25", RX_TARGET_MIXTURE25, RX_RULE_METROPOLIS, RX_SCHEME_DEO_STAR,
         64, 2},
        {"m25", RX_TARGET_MIXTURE25, RX_RULE_METROPOLIS, RX_SCHEME_DEO, 256,
         1},
        {"m25", RX_TARGET_MIXTURE25, RX_RULE_METROPOLIS, RX_SCHEME_DEO, 256,
         2},
        {"m25", RX_TARGET_MIXTURE25, RX_RULE_METROPOLIS, RX_SCHEME_DEO_STAR,
         256, 1},
        {"m25", RX_TARGET_MIXTURE25, RX_RULE_METROPOLIS, RX_SCHEME_DEO_STAR,
         256, 2},
        {"sync", RX_TARGET_NONE, RX_RULE_BERNOULLI, RX_SCHEME_DEO, 2, 1},
        {"sync", RX_TARGET_NONE, RX_RULE_BERNOULLI, RX_SCHEME_DEO, 2, 2},
        {"sync", RX_TARGET_NONE, RX_RULE_BERNOULLI, RX_SCHEME_DEO, 16, 1},
        {"sync", RX_TARGET_NONE, RX_RULE_BERNOULLI, RX_SCHEME_DEO, 16, 2},
        {"sync", RX_TARGET_NONE, RX_RULE_BERNOULLI, RX_SCHEME_DEO, 64, 2},
        {"sync", RX_TARGET_NONE, RX_RULE_BERNOULLI, RX_SCHEME_DEO, 256, 2},
    };
    enum { NC = sizeof cells / sizeof cells[0] };
    static const int base_P[] = {16, 64, 256};
    enum { NB = sizeof base_P / sizeof base_P[0] };

    cell_out out[NC];
    base_out base[NB];
    int use[NC], use_b[NB];
    for (int i = 0; i < NC; ++i)
        use[i] = (!only_P || cells[i].P == only_P) &&
                 (!only_t || cells[i].threads == only_t) &&
                 (!only_g || !strcmp(only_g, cells[i].group));
    for (int b = 0; b < NB; ++b)
        use_b[b] = (!only_P || base_P[b] == only_P) &&
                   (!only_t || only_t == 1) &&
                   (!only_g || !strcmp(only_g, "baseline"));
    double t_start = rxb_now();
    for (int b = 0; b < NB; ++b)
        if (use_b[b])
            base[b] = measure_baseline(base_P[b], K, reps);
    for (int i = 0; i < NC; ++i) {
        if (!use[i])
            continue;
        out[i] = measure(&cells[i], K, reps);
        if (!out[i].ok)
            return 1;
    }
    double t_total = rxb_now() - t_start;
    int n_m25 = 0, n_sync = 0, n_base = 0;
    for (int i = 0; i < NC; ++i) {
        n_m25 += use[i] && !strcmp(cells[i].group, "m25");
        n_sync += use[i] && !strcmp(cells[i].group, "sync");
    }
    for (int b = 0; b < NB; ++b)
        n_base += use_b[b];

    printf("# replex engine benchmark\n\n");
    printf("replex %s; %lld iterations per run; best and median of %d "
           "fresh runs (plus 1 warm-up and 1 phase-timed run per cell); "
           "OMP_WAIT_POLICY=%s GOMP_SPINCOUNT=%s OMP_PROC_BIND=%s; "
           "benchmark took %.1f s\n\n",
           rx_version(), (long long)K, reps, wp, sc, pb, t_total);

    if (n_m25 || n_base) {
        printf("## Throughput, 25-mode target (SGLD, Metropolis)\n\n");
        printf("chain-steps/s = iterations * P / rx_results.wall_s.\n\n");
        printf(
            "| P | scheme | W | threads | best Msteps/s | median Msteps/s | "
            "best us/iter | swap rate |\n");
        printf("|---:|:---|---:|---:|---:|---:|---:|---:|\n");
        for (int i = 0; i < NC; ++i) {
            const cell *c = &cells[i];
            if (!use[i] || strcmp(c->group, "m25"))
                continue;
            double steps = (double)K * c->P;
            printf("| %d | %s | %d | %d | %.2f | %.2f | %.3f | %.3f |\n", c->P,
                   scheme_name(c->scheme), out[i].window, out[i].threads_used,
                   steps / out[i].best_wall * 1e-6,
                   steps / out[i].med_wall * 1e-6,
                   out[i].best_wall / (double)K * 1e6, out[i].swap_rate);
        }
        for (int b = 0; b < NB; ++b) {
            if (!use_b[b])
                continue;
            double steps = (double)K * base[b].P;
            printf(
                "| %d | baseline DEO | 1 | 1 | %.2f | %.2f | %.3f | %.3f |\n",
                base[b].P, steps / base[b].best_wall * 1e-6,
                steps / base[b].med_wall * 1e-6,
                base[b].best_wall / (double)K * 1e6, base[b].swap_rate);
        }

        printf("\n");
    }
    if (n_m25 && n_base) {
        printf("## Engine / baseline (best vs best, DEO)\n\n");
        printf(
            "| P | engine 1 thread / baseline | engine 2 threads / baseline "
            "| 2 threads / 1 thread |\n");
        printf("|---:|---:|---:|---:|\n");
        for (int b = 0; b < NB; ++b) {
            double w1 = 0.0, w2 = 0.0;
            for (int i = 0; i < NC && use_b[b]; ++i) {
                const cell *c = &cells[i];
                if (!use[i] || strcmp(c->group, "m25") ||
                    c->scheme != RX_SCHEME_DEO || c->P != base[b].P)
                    continue;
                if (c->threads == 1)
                    w1 = out[i].best_wall;
                if (c->threads == 2)
                    w2 = out[i].best_wall;
            }
            if (w1 > 0 && w2 > 0)
                printf("| %d | %.2f | %.2f | %.2f |\n", base[b].P,
                       base[b].best_wall / w1, base[b].best_wall / w2,
                       w1 / w2);
        }

        printf("\n");
    }
    if (n_sync) {
        printf(
            "## Synchronisation cost (target none, Bernoulli rule, DEO)\n\n");
        printf(
            "No work per chain: wall/iteration = empty step loop + barrier + "
            "replicated exchange.\n\n");
        printf("| P | threads | best us/iter | median us/iter |\n");
        printf("|---:|---:|---:|---:|\n");
        for (int i = 0; i < NC; ++i) {
            const cell *c = &cells[i];
            if (!use[i] || strcmp(c->group, "sync"))
                continue;
            printf("| %d | %d | %.3f | %.3f |\n", c->P, out[i].threads_used,
                   out[i].best_wall / (double)K * 1e6,
                   out[i].med_wall / (double)K * 1e6);
        }

        printf("\n");
    }
    if (n_m25 || n_sync) {
        printf("## Phase breakdown (thread 0, one run with phase_timing = 1), "
               "us per iteration\n\n");
        printf(
            "other = wall - sum of phases (region start-up, particle set-up, "
            "the clock reads themselves).\n\n");
        printf("| target | P | scheme | threads | wall | step+energy | "
               "barrier wait | exchange | record | other |\n");
        printf("|:---|---:|:---|---:|---:|---:|---:|---:|---:|---:|\n");
        for (int i = 0; i < NC; ++i) {
            const cell *c = &cells[i];
            const cell_out *o = &out[i];
            if (!use[i])
                continue;
            double us = 1e6 / (double)K;
            double other = o->t_wall - o->phase[0] - o->phase[1] -
                           o->phase[2] - o->phase[3];
            printf("| %s | %d | %s | %d | %.3f | %.3f | %.3f | %.3f | %.3f | "
                   "%.3f |\n",
                   target_name(c->target), c->P, scheme_name(c->scheme),
                   o->threads_used, o->t_wall * us, o->phase[0] * us,
                   o->phase[1] * us, o->phase[2] * us, o->phase[3] * us,
                   other * us);
        }
    }

    if (csv_path) {
        FILE *f = fopen(csv_path, "w");
        if (!f) {
            perror(csv_path);
            return 1;
        }
        fprintf(f, "group,target,rule,scheme,P,threads,window,iterations,"
                   "reps,best_wall_s,median_wall_s,best_steps_per_s,"
                   "median_steps_per_s,best_us_per_iter,median_us_per_iter,"
                   "timed_wall_s,step_s,wait_s,exchange_s,record_s,"
                   "swap_rate,omp_wait_policy,gomp_spincount\n");
        for (int i = 0; i < NC; ++i) {
            const cell *c = &cells[i];
            const cell_out *o = &out[i];
            if (!use[i])
                continue;
            double steps = (double)K * c->P;
            fprintf(f,
                    "%s,%s,%s,%s,%d,%d,%d,%lld,%d,%.9g,%.9g,%.6g,%.6g,%.6g,"
                    "%.6g,%.9g,%.9g,%.9g,%.9g,%.9g,%.6g,%s,%s\n",
                    c->group, target_name(c->target),
                    c->rule == RX_RULE_METROPOLIS ? "metropolis" : "bernoulli",
                    scheme_name(c->scheme), c->P, o->threads_used, o->window,
                    (long long)K, reps, o->best_wall, o->med_wall,
                    steps / o->best_wall, steps / o->med_wall,
                    o->best_wall / (double)K * 1e6,
                    o->med_wall / (double)K * 1e6, o->t_wall, o->phase[0],
                    o->phase[1], o->phase[2], o->phase[3], o->swap_rate, wp,
                    sc);
        }
        for (int b = 0; b < NB; ++b) {
            if (!use_b[b])
                continue;
            double steps = (double)K * base[b].P;
            fprintf(
                f,
                "baseline,mixture25,metropolis,DEO,%d,1,1,%lld,%d,%.9g,"
                "%.9g,%.6g,%.6g,%.6g,%.6g,,,,,,%.6g,%s,%s\n",
                base[b].P, (long long)K, reps, base[b].best_wall,
                base[b].med_wall, steps / base[b].best_wall,
                steps / base[b].med_wall, base[b].best_wall / (double)K * 1e6,
                base[b].med_wall / (double)K * 1e6, base[b].swap_rate, wp, sc);
        }
        if (fclose(f)) {
            perror(csv_path);
            return 1;
        }
        fprintf(stderr, "bench_engine: wrote %s\n", csv_path);
    }
    return 0;
}
