/*
 * Engine benchmark: chain-steps per second of rx_run on the 25-mode target
 * (SGLD, DEO and DEO*, Metropolis) for 1 and 2 threads and P = 16, 64, 256,
 * and the per-iteration synchronisation cost (target none, Bernoulli rule:
 * no work per chain, so a wall iteration is the empty step loop + barrier +
 * exchange + recorder). Every run is a fresh rx_create / rx_run /
 * rx_destroy; the figure is rx_results.wall_s (the parallel region, set-up
 * included). Recording is reduced to the minimum (index_every =
 * trace_every = 0, thin = 100) so it is not what is measured.
 *
 * The baseline loop (baseline_loop.c: the same mathematics, one thread,
 * written plainly) is a cell like the others, so engine / baseline ratios
 * come from the same rounds.
 *
 * Rounds, not blocks: a round runs every cell once (order reversed on odd
 * rounds), then the next round; a cell's best and median are over rounds.
 * On a shared or virtual machine the speed drifts over tens of seconds;
 * interleaving exposes every cell to the same drift, which blocks of
 * back-to-back repetitions do not. Each round also does one run per
 * engine cell with record.phase_timing = 1 (thread 0's clocks, which cost
 * time themselves, so kept apart from the throughput runs); the phase
 * breakdown shown is that of the round whose timed run was fastest.
 *
 * Foreign load (Linux): per round, the CPU share other processes took,
 * ((busy + steal) of /proc/stat minus our own getrusage time) over
 * ncpu * wall. A round above 5% is not used while at least one round at
 * or below it exists; such rounds are replaced by extra rounds (up to
 * EXTRA, and none started after SECONDS).
 *
 * Usage: bench_engine [-n REPS] [-k ITERS] [-x EXTRA] [-d SECONDS]
 *                     [-P N] [-t T] [-g GROUP] [CSV]
 *   REPS rounds wanted (default 7, at most 100), ITERS iterations per run
 *   (default 20001), EXTRA (default 7), SECONDS (default 400). -P / -t /
 *   -g keep only the cells with that chain count / thread count / group
 *   (m25, sync, baseline), e.g. for a profiler. Markdown on stdout; the CSV
 *   (one row per cell) is written to CSV when given.
 * OpenMP reads OMP_WAIT_POLICY / GOMP_SPINCOUNT at start-up: run the
 * program once per setting (meson registers default and active).
 */
#define _POSIX_C_SOURCE 200809L
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <unistd.h>

#include "../src/core/internal.h"
#include "baseline_loop.h"
#include "replex/replex.h"

enum { MAX_ROUNDS = 200, MAX_REPS = 100 };
static const double FOREIGN_MAX = 0.05; /* a round above this is unused */

typedef struct cell {
    const char *group; /* "m25", "sync" or "baseline" */
    rx_target_kind target;
    rx_rule rule;
    rx_scheme scheme;
    int P;
    int threads;
} cell;

/* What one run gives. */
typedef struct run_out {
    double wall;
    double phase[4];
    double swap_rate; /* swaps / attempts over all pairs */
    int threads, window;
} run_out;

static const char *scheme_name(const cell *c)
{
    if (!strcmp(c->group, "baseline"))
        return "baseline DEO";
    switch (c->scheme) {
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

/* Median of n values (n >= 1); v is sorted in place. */
static double median(double *v, int n)
{
    qsort(v, (size_t)n, sizeof(double), cmp_double);
    return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

/* One fresh run of a cell. Returns 0 on success. */
static int run_cell(const cell *c, int64_t K, int timing, run_out *o)
{
    memset(o, 0, sizeof *o);
    if (!strcmp(c->group, "baseline")) {
        rxb_result r =
            rxb_baseline_run(c->P, K, 12345, 0.001, 1.0, 10.0, 100, 0.0);
        if (r.wall_s < 0.0) {
            fprintf(stderr, "bench_engine: baseline out of memory\n");
            return -1;
        }
        o->wall = r.wall_s;
        o->swap_rate = r.attempts ? (double)r.swaps / (double)r.attempts : 0;
        o->threads = o->window = 1;
        return 0;
    }
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
    o->wall = r.wall_s;
    /* the table's four columns from the engine's six phases */
    o->phase[0] = r.phase_s[RX_PHASE_STEP] + r.phase_s[RX_PHASE_ENERGY];
    o->phase[1] = r.phase_s[RX_PHASE_WAIT];
    o->phase[2] = r.phase_s[RX_PHASE_EXCHANGE] + r.phase_s[RX_PHASE_ADAPT];
    o->phase[3] = r.phase_s[RX_PHASE_RECORD];
    int64_t att = 0;
    for (int p = 0; p < r.n_chains - 1; ++p)
        att += r.pairs[p].attempts;
    o->swap_rate = att ? (double)r.total_swaps / (double)att : 0.0;
    o->threads = r.threads;
    o->window = r.window;
    rx_destroy(&ctx);
    return 0;
}

/* ---- load probe: CPU time other processes (or the host) take ---------- */
/* Share of ncpu * wall that others took between a and b; -1 unknown. */
static double foreign_share(const rx__load_snap *a, const rx__load_snap *b)
{
    long ncpu = sysconf(_SC_NPROCESSORS_ONLN);
    double dt = b->t - a->t;
    if (!a->ok || !b->ok || ncpu < 1 || dt <= 0.0)
        return -1.0;
    double f = ((b->busy - a->busy) - (b->own - a->own)) / (dt * (double)ncpu);
    return f < 0.0 ? 0.0 : f;
}

/* Per-cell results over the rounds. */
static double wall_r[64][MAX_ROUNDS];   /* throughput runs */
static run_out timed_r[64][MAX_ROUNDS]; /* phase_timing runs */

int main(int argc, char **argv)
{
    rx_blas_single_thread(); /* as the CLI: no OpenBLAS pool polling */
    int reps = 7, extra = 7;
    double deadline = 400.0;
    int64_t K = 20001;
    const char *csv_path = NULL;
    int only_P = 0, only_t = 0;
    const char *only_g = NULL;
    for (int i = 1; i < argc; ++i) {
        if (!strcmp(argv[i], "-n") && i + 1 < argc)
            reps = atoi(argv[++i]);
        else if (!strcmp(argv[i], "-k") && i + 1 < argc)
            K = atoll(argv[++i]);
        else if (!strcmp(argv[i], "-x") && i + 1 < argc)
            extra = atoi(argv[++i]);
        else if (!strcmp(argv[i], "-d") && i + 1 < argc)
            deadline = atof(argv[++i]);
        else if (!strcmp(argv[i], "-P") && i + 1 < argc)
            only_P = atoi(argv[++i]);
        else if (!strcmp(argv[i], "-t") && i + 1 < argc)
            only_t = atoi(argv[++i]);
        else if (!strcmp(argv[i], "-g") && i + 1 < argc)
            only_g = argv[++i];
        else if (argv[i][0] != '-' && !csv_path)
            csv_path = argv[i];
        else {
            fprintf(stderr,
                    "usage: %s [-n REPS] [-k ITERS] [-x EXTRA] [-d SECONDS] "
                    "[-P N] [-t T] [-g m25|sync|baseline] [CSV_PATH]\n",
                    argv[0]);
            return 2;
        }
    }
    if (reps < 1 || reps > MAX_REPS || K < 1 || extra < 0 ||
        extra > MAX_ROUNDS - MAX_REPS) {
        fprintf(stderr,
                "bench_engine: need 1 <= REPS <= %d, ITERS >= 1, "
                "0 <= EXTRA <= %d\n",
                MAX_REPS, MAX_ROUNDS - MAX_REPS);
        return 2;
    }
    const char *wp = env_or("OMP_WAIT_POLICY", "(unset)");
    const char *sc = env_or("GOMP_SPINCOUNT", "(unset)");
    const char *pb = env_or("OMP_PROC_BIND", "(unset)");

#define M25(s, P, t)                                                          \
    {                                                                         \
        "m25", RX_TARGET_MIXTURE25, RX_RULE_METROPOLIS, s, P, t               \
    }
#define SYNC(P, t)                                                            \
    {                                                                         \
        "sync", RX_TARGET_NONE, RX_RULE_BERNOULLI, RX_SCHEME_DEO, P, t        \
    }
#define BASE(P)                                                               \
    {                                                                         \
        "baseline", RX_TARGET_MIXTURE25, RX_RULE_METROPOLIS, RX_SCHEME_DEO,   \
            P, 1                                                              \
    }
    static const cell cells[] = {
        BASE(16),
        M25(RX_SCHEME_DEO, 16, 1),
        M25(RX_SCHEME_DEO, 16, 2),
        M25(RX_SCHEME_DEO_STAR, 16, 1),
        M25(RX_SCHEME_DEO_STAR, 16, 2),
        BASE(64),
        M25(RX_SCHEME_DEO, 64, 1),
        M25(RX_SCHEME_DEO, 64, 2),
        M25(RX_SCHEME_DEO_STAR, 64, 1),
        M25(RX_SCHEME_DEO_STAR, 64, 2),
        BASE(256),
        M25(RX_SCHEME_DEO, 256, 1),
        M25(RX_SCHEME_DEO, 256, 2),
        M25(RX_SCHEME_DEO_STAR, 256, 1),
        M25(RX_SCHEME_DEO_STAR, 256, 2),
        SYNC(2, 1),
        SYNC(2, 2),
        SYNC(16, 1),
        SYNC(16, 2),
        SYNC(64, 2),
        SYNC(256, 2),
    };
#undef M25
#undef SYNC
#undef BASE
    enum { NC = sizeof cells / sizeof cells[0] };
    _Static_assert(NC <= 64, "wall_r and timed_r hold 64 cells");
    int use[NC];
    int n_m25 = 0, n_sync = 0, n_base = 0;
    for (int i = 0; i < NC; ++i) {
        use[i] = (!only_P || cells[i].P == only_P) &&
                 (!only_t || cells[i].threads == only_t) &&
                 (!only_g || !strcmp(only_g, cells[i].group));
        n_m25 += use[i] && !strcmp(cells[i].group, "m25");
        n_sync += use[i] && !strcmp(cells[i].group, "sync");
        n_base += use[i] && !strcmp(cells[i].group, "baseline");
    }

    double t_start = rxb_now();
    rx__load_snap all0 = rx__load_now();
    /* warm-up: thread pool, page faults, clocks */
    run_out first[NC];
    for (int i = 0; i < NC; ++i)
        if (use[i] && run_cell(&cells[i], K < 2001 ? K : 2001, 0, &first[i]))
            return 1;

    double round_foreign[MAX_ROUNDS];
    int clean[MAX_ROUNDS];
    int n_rounds = 0, n_clean = 0;
    while (n_clean < reps && n_rounds < reps + extra &&
           (n_rounds < reps || rxb_now() - t_start < deadline)) {
        int r = n_rounds;
        rx__load_snap s0 = rx__load_now();
        for (int j = 0; j < NC; ++j) {
            int i = r % 2 ? NC - 1 - j : j;
            if (!use[i])
                continue;
            run_out o;
            if (run_cell(&cells[i], K, 0, &o))
                return 1;
            wall_r[i][r] = o.wall;
            if (strcmp(cells[i].group, "baseline")) {
                if (run_cell(&cells[i], K, 1, &timed_r[i][r]))
                    return 1;
            } else {
                timed_r[i][r] = o;
            }
        }
        rx__load_snap s1 = rx__load_now();
        round_foreign[r] = foreign_share(&s0, &s1);
        clean[r] = round_foreign[r] < FOREIGN_MAX;
        n_clean += clean[r];
        n_rounds++;
    }
    double t_total = rxb_now() - t_start;
    rx__load_snap all1 = rx__load_now();
    double foreign_all = foreign_share(&all0, &all1);
    /* rounds used: the clean ones, or all if none is clean */
    int used[MAX_ROUNDS], n_used = 0;
    double max_foreign = 0.0;
    for (int r = 0; r < n_rounds; ++r)
        if (clean[r] || n_clean == 0) {
            used[n_used++] = r;
            if (round_foreign[r] > max_foreign)
                max_foreign = round_foreign[r];
        }

    /* per cell: best, median, and the fastest timed run's phases */
    double best[NC], med[NC], ratio_2b[NC];
    run_out tim[NC];
    for (int i = 0; i < NC; ++i) {
        ratio_2b[i] = 0.0;
        if (!use[i])
            continue;
        double v[MAX_ROUNDS];
        best[i] = 1e300;
        int bt = used[0];
        for (int u = 0; u < n_used; ++u) {
            int r = used[u];
            v[u] = wall_r[i][r];
            if (v[u] < best[i])
                best[i] = v[u];
            if (timed_r[i][r].wall < timed_r[i][bt].wall)
                bt = r;
        }
        med[i] = median(v, n_used);
        tim[i] = timed_r[i][bt];
    }

    printf("# replex engine benchmark\n\n");
    printf("replex %s; %lld iterations per run; %d rounds used of %d run "
           "(a round = one run of every cell, plus one phase-timed run per "
           "engine cell); OMP_WAIT_POLICY=%s GOMP_SPINCOUNT=%s "
           "OMP_PROC_BIND=%s; benchmark took %.1f s.\n\n",
           rx_version(), (long long)K, n_used, n_rounds, wp, sc, pb, t_total);
    if (foreign_all >= 0.0)
        printf("Foreign load (other processes + steal, share of all CPUs): "
               "%.1f%% over the whole benchmark, at most %.1f%% in a used "
               "round%s.\n\n",
               100.0 * foreign_all, 100.0 * max_foreign,
               n_clean == 0 ? " (NO round was below 5%: figures disturbed)"
                            : "");

    if (n_m25 || n_base) {
        printf("## Throughput, 25-mode target (SGLD, Metropolis)\n\n");
        printf("chain-steps/s = iterations * P / wall; best and median over "
               "the rounds.\n\n");
        printf("| P | scheme | W | threads | best Msteps/s | median Msteps/s "
               "| best us/iter | swap rate |\n");
        printf("|---:|:---|---:|---:|---:|---:|---:|---:|\n");
        for (int i = 0; i < NC; ++i) {
            const cell *c = &cells[i];
            if (!use[i] || !strcmp(c->group, "sync"))
                continue;
            double steps = (double)K * c->P;
            printf("| %d | %s | %d | %d | %.2f | %.2f | %.3f | %.3f |\n", c->P,
                   scheme_name(c), first[i].window, first[i].threads,
                   steps / best[i] * 1e-6, steps / med[i] * 1e-6,
                   best[i] / (double)K * 1e6, tim[i].swap_rate);
        }
        printf("\n");
    }
    if (n_m25 && n_base) {
        printf("## Engine / baseline (DEO)\n\n");
        printf("Speed ratios (> 1: the first is faster). \"best\": best "
               "/ best over the rounds; \"per round\": median over the "
               "rounds of the ratio within a round (cells a few seconds "
               "apart, the most robust to machine drift).\n\n");
        printf("| P | 1 thread / baseline, best | 2 threads / baseline, "
               "best | 2 threads / baseline, per round | 2 threads / 1 "
               "thread, per round |\n");
        printf("|---:|---:|---:|---:|---:|\n");
        for (int b = 0; b < NC; ++b) {
            if (!use[b] || strcmp(cells[b].group, "baseline"))
                continue;
            int i1 = -1, i2 = -1;
            for (int i = 0; i < NC; ++i) {
                const cell *c = &cells[i];
                if (!use[i] || strcmp(c->group, "m25") ||
                    c->scheme != RX_SCHEME_DEO || c->P != cells[b].P)
                    continue;
                if (c->threads == 1)
                    i1 = i;
                if (c->threads == 2)
                    i2 = i;
            }
            if (i1 < 0 || i2 < 0)
                continue;
            double r2b[MAX_ROUNDS], r21[MAX_ROUNDS];
            for (int u = 0; u < n_used; ++u) {
                r2b[u] = wall_r[b][used[u]] / wall_r[i2][used[u]];
                r21[u] = wall_r[i1][used[u]] / wall_r[i2][used[u]];
            }
            ratio_2b[b] = median(r2b, n_used);
            printf("| %d | %.2f | %.2f | %.2f | %.2f |\n", cells[b].P,
                   best[b] / best[i1], best[b] / best[i2], ratio_2b[b],
                   median(r21, n_used));
        }
        printf("\n");
    }
    if (n_sync) {
        printf("## Synchronisation cost (target none, Bernoulli rule, "
               "DEO)\n\n");
        printf("No work per chain: wall/iteration = empty step loop + "
               "barrier + replicated exchange + recorder.\n\n");
        printf("| P | threads | best us/iter | median us/iter |\n");
        printf("|---:|---:|---:|---:|\n");
        for (int i = 0; i < NC; ++i) {
            const cell *c = &cells[i];
            if (!use[i] || strcmp(c->group, "sync"))
                continue;
            printf("| %d | %d | %.3f | %.3f |\n", c->P, first[i].threads,
                   best[i] / (double)K * 1e6, med[i] / (double)K * 1e6);
        }
        printf("\n");
    }
    if (n_m25 || n_sync) {
        printf("## Phase breakdown, us per iteration (thread 0, "
               "phase_timing = 1, the round's fastest timed run)\n\n");
        printf("other = wall - sum of phases (region start-up, particle "
               "set-up, loop overhead).\n\n");
        printf("| target | P | scheme | threads | wall | step+energy | "
               "barrier wait | exchange | record | other |\n");
        printf("|:---|---:|:---|---:|---:|---:|---:|---:|---:|---:|\n");
        for (int i = 0; i < NC; ++i) {
            const cell *c = &cells[i];
            const run_out *o = &tim[i];
            if (!use[i] || !strcmp(c->group, "baseline"))
                continue;
            double us = 1e6 / (double)K;
            double other = o->wall - o->phase[0] - o->phase[1] - o->phase[2] -
                           o->phase[3];
            printf("| %s | %d | %s | %d | %.3f | %.3f | %.3f | %.3f | %.3f "
                   "| %.3f |\n",
                   target_name(c->target), c->P, scheme_name(c), o->threads,
                   o->wall * us, o->phase[0] * us, o->phase[1] * us,
                   o->phase[2] * us, o->phase[3] * us, other * us);
        }
    }

    if (csv_path) {
        FILE *f = fopen(csv_path, "w");
        if (!f) {
            perror(csv_path);
            return 1;
        }
        fprintf(f,
                "group,target,rule,scheme,P,threads,window,iterations,"
                "rounds_used,best_wall_s,median_wall_s,best_steps_per_s,"
                "median_steps_per_s,best_us_per_iter,median_us_per_iter,"
                "timed_wall_s,step_s,wait_s,exchange_s,record_s,"
                "swap_rate,max_foreign_share,engine2_over_baseline_per_round,"
                "omp_wait_policy,gomp_spincount\n");
        for (int i = 0; i < NC; ++i) {
            const cell *c = &cells[i];
            if (!use[i])
                continue;
            const run_out *o = &tim[i];
            double steps = (double)K * c->P;
            fprintf(f,
                    "%s,%s,%s,%s,%d,%d,%d,%lld,%d,%.9g,%.9g,%.6g,%.6g,%.6g,"
                    "%.6g,%.9g,%.9g,%.9g,%.9g,%.9g,%.6g,%.4f,%.4g,%s,%s\n",
                    c->group, target_name(c->target),
                    c->rule == RX_RULE_METROPOLIS ? "metropolis" : "bernoulli",
                    strcmp(c->group, "baseline") ? scheme_name(c) : "DEO",
                    c->P, first[i].threads, first[i].window, (long long)K,
                    n_used, best[i], med[i], steps / best[i], steps / med[i],
                    best[i] / (double)K * 1e6, med[i] / (double)K * 1e6,
                    o->wall, o->phase[0], o->phase[1], o->phase[2],
                    o->phase[3], o->swap_rate, max_foreign, ratio_2b[i], wp,
                    sc);
        }
        if (fclose(f)) {
            perror(csv_path);
            return 1;
        }
        fprintf(stderr, "bench_engine: wrote %s\n", csv_path);
    }
    return 0;
}
