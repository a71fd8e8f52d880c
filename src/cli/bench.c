/*
 * `replex bench`: a grid benchmark over schedule x P x threads x target x
 * swap rule x normal method, through the public API only (rx_create /
 * rx_run / rx_get_results). This file owns the cells' configurations, one
 * fork()ed child per run (isolation, and the peak RSS from wait4), and the
 * command; the grid file is read in bench_grid.c (through the same YAML
 * loader as experiment files), the outputs (bench.csv, bench.md, gnuplot
 * figures) are written in bench_out.c. It never reaches into the library's
 * internals: what it measures is what an embedding program gets.
 */
#define _DEFAULT_SOURCE
#define _POSIX_C_SOURCE 200809L
#include <errno.h>
#include <math.h>
#include <poll.h>
#include <signal.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/time.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>

#include "../core/internal.h"
#include "../io/config.h"
#include "../io/marker.h"
#include "bench.h"
#include "bench_int.h"
#include "opts.h"
#include "outdir.h"
#include "plots.h"
#include "progress.h"
#include "replex/replex.h"

/* a cell during whose runs others took more of the CPUs is reported; a
 * reading needs runs of this many seconds together */
#define RX_BENCH_FOREIGN_WARN 0.05
#define RX_BENCH_FOREIGN_SPAN 1.0

/* ------------------------------------------------------------------------ */
/* Cells and their configurations.                                           */
/* ------------------------------------------------------------------------ */

/* Deterministic values in [0, 1) for the built-in gmm_expensive (a fixed
 * target, whatever the grid's seed). */
static double sm_uniform(uint64_t *s)
{
    uint64_t z = (*s += 0x9e3779b97f4a7c15ULL);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    z ^= z >> 31;
    return (double)(z >> 11) * 0x1.0p-53;
}

enum { GMM_EXP_DIM = 100, GMM_EXP_COMP = 50 };

/* Fills the target and ladders of a built-in target. */
static rx_status builtin_target(bt_kind kind, double noise, rx_config *c)
{
    c->ladder.eta.kind = RX_LADDER_CONSTANT;
    c->ladder.tau.kind = RX_LADDER_GEOMETRIC;
    c->ladder.tau.min = 1.0;
    c->tempering.target_swap_rate = 0.4;
    if (kind == BT_MIXTURE25) {
        /* yaml/mixture25_deo.yaml */
        c->target.kind = RX_TARGET_MIXTURE25;
        c->target.confine_radius2 = 20.0;
        c->ladder.eta.min = 0.003;
        c->ladder.tau.max = 30.0;
    } else if (kind == BT_NONE) {
        c->target.kind = RX_TARGET_NONE;
        return RX_OK;
    } else {
        static const double w2[4] = {0.1, 0.2, 0.3, 0.4};
        static const double m2[8] = {-4, -4, -4, 4, 4, -4, 4, 4};
        static const double s2[8] = {0.6, 0.9, 0.8, 0.6, 0.7, 0.7, 0.9, 0.5};
        const int cheap = kind == BT_GMM_CHEAP;
        const int K = cheap ? 4 : GMM_EXP_COMP, d = cheap ? 2 : GMM_EXP_DIM;
        const size_t kd = (size_t)K * (size_t)d;
        c->target.kind = RX_TARGET_GMM;
        c->target.dim = d;
        c->target.weights.v = malloc(sizeof(double) * (size_t)K);
        c->target.means.v = malloc(sizeof(double) * kd);
        c->target.scales.v = malloc(sizeof(double) * kd);
        if (!c->target.weights.v || !c->target.means.v ||
            !c->target.scales.v)
            return RX_ENOMEM;
        c->target.weights.n = K;
        c->target.means.rows = c->target.scales.rows = K;
        c->target.means.cols = c->target.scales.cols = d;
        uint64_t s = 12345;
        for (int k = 0; k < K; ++k)
            c->target.weights.v[k] = cheap ? w2[k] : 1.0 + sm_uniform(&s);
        for (size_t j = 0; j < kd; ++j) {
            c->target.means.v[j] = cheap ? m2[j] : -4.0 + 8.0 * sm_uniform(&s);
            c->target.scales.v[j] = cheap ? s2[j] : 0.5 + 0.5 * sm_uniform(&s);
        }
        /* yaml/gmm_2d.yaml's ladders; smaller steps in 100 dimensions */
        c->ladder.eta.min = cheap ? 0.02 : 0.005;
        c->ladder.tau.max = 40.0;
    }
    c->target.energy_noise_sd = noise;
    c->target.grad_noise_sd = noise;
    return RX_OK;
}

/* The configuration of one cell (timing: record.phase_timing). On error
 * err says why and *cfg holds defaults. */
static rx_status cell_config(const bcell *c, int timing, rx_config *cfg,
                             rx_err *err)
{
    rx_status st;
    if (c->tg->kind == BT_FILE) {
        if ((st = rx_config_load(c->tg->name, NULL, 0, cfg, err)) != RX_OK)
            return st;
    } else {
        rx_config_default(cfg);
        cfg->seed = c->seed;
        if ((st = builtin_target(c->tg->kind, c->noise, cfg)) != RX_OK) {
            rx_config_free(cfg);
            snprintf(err->msg, sizeof err->msg, "out of memory");
            return st;
        }
    }
    cfg->iterations = c->iterations;
    cfg->threads = c->threads;
    cfg->tempering.n_chains = c->P;
    cfg->tempering.scheme = (rx_scheme)c->scheme;
    if (c->scheme == RX_SCHEME_DEO_W)
        cfg->tempering.window = c->window;
    else if (c->scheme == RX_SCHEME_DEO_STAR)
        cfg->tempering.window = RX_WINDOW_AUTO;
    cfg->tempering.rule = (rx_rule)c->rule;
    cfg->rng.normal = (rx_normal_method)c->normal; /* over a file's */
    /* minimal recording, as bench/bench_engine.c: no index process, no
     * trace, a sample every 100 iterations, no final ensemble score */
    cfg->record.burn_in = 0;
    cfg->record.thin = 100;
    cfg->record.index_every = 0;
    cfg->record.trace_every = 0;
    cfg->record.phase_timing = timing;
    cfg->evaluate.final_ensemble = 0;
    cfg->checkpoint.every = 0;
    if ((st = rx_config_validate(cfg, err)) != RX_OK)
        rx_config_free(cfg);
    return st;
}


/* Short description of a cell for messages. */
static void cell_desc(const bcell *c, char *buf, size_t cap)
{
    char w[32] = "", nz[48] = "";
    if (c->scheme == RX_SCHEME_DEO_W)
        snprintf(w, sizeof w, " W=%d", c->window);
    if (!isnan(c->noise) && c->noise > 0.0)
        snprintf(nz, sizeof nz, " noise=%g", c->noise);
    snprintf(buf, cap, "%s%s %s %s %s%s P=%d threads=%d", c->tg->name, nz,
             rx__rule_name((rx_rule)c->rule),
             rx__names_of(rx__normal_names, c->normal),
             rx__scheme_name((rx_scheme)c->scheme), w, c->P,
             c->threads);
}

/* ------------------------------------------------------------------------ */
/* One run in a child process.                                               */
/* ------------------------------------------------------------------------ */


/* What a child sends back through its pipe. */

static int write_all(int fd, const void *p, size_t n)
{
    const char *c = p;
    while (n > 0) {
        ssize_t w = write(fd, c, n);
        if (w < 0 && errno == EINTR)
            continue;
        if (w <= 0)
            return -1;
        c += w;
        n -= (size_t)w;
    }
    return 0;
}

/* The child: create, run (unless setup_only), report, _exit. */
static void child_main(const rx_config *cfg, int setup_only, int fd)
{
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = SIG_DFL;
    sigemptyset(&sa.sa_mask);
    sigaction(SIGINT, &sa, NULL);
    sigaction(SIGTERM, &sa, NULL);
    bres *r = calloc(1, sizeof *r);
    if (!r)
        _exit(3);
    rx_err err = {""};
    rx_ctx *ctx = NULL;
    rx_status st = rx_create(&ctx, cfg, NULL, (rx_logger){NULL, NULL}, &err);
    if (st != RX_OK) {
        r->status = st;
        r->setup = 1;
        snprintf(r->msg, sizeof r->msg, "%s", err.msg);
    } else if (!setup_only && (st = rx_run(ctx)) != RX_OK) {
        r->status = st;
        snprintf(r->msg, sizeof r->msg, "%s", rx_errmsg(ctx));
    } else if (!setup_only) {
        rx_results res;
        rx_get_results(ctx, &res);
        r->wall = res.wall_s;
        r->eval = res.eval_s;
        r->iterations = res.iterations;
        r->trips = res.trips_a5;
        r->swaps = res.total_swaps;
        for (int p = 0; p + 1 < res.n_chains; ++p) {
            r->attempts += res.pairs[p].attempts;
            r->conds += res.pairs[p].conditions;
            r->evals += res.pairs[p].evaluated;
        }
        r->window = res.window;
        r->threads = res.threads;
        r->wshare = -1.0;
        r->steal = res.steal_share;
        if (res.wait_share && res.threads > 0) {
            double sum = 0.0;
            for (int t = 0; t < res.threads; ++t)
                sum += res.wait_share[t];
            r->wshare = sum / res.threads;
        }
        for (int j = 0; j < RX_NPHASES; ++j)
            r->phase[j] = res.phase_s[j];
        if (res.thread_phase_s && res.threads > 0) {
            r->has_threads = 1;
            r->wait_min = r->wait_max = res.thread_phase_s[RX_PHASE_WAIT];
            for (int t = 1; t < res.threads; ++t) {
                double w = res.thread_phase_s[t * RX_NPHASES + RX_PHASE_WAIT];
                r->wait_min = w < r->wait_min ? w : r->wait_min;
                r->wait_max = w > r->wait_max ? w : r->wait_max;
            }
        }
    }
    rx_destroy(&ctx);
    int bad = write_all(fd, r, sizeof *r) != 0;
    close(fd);
    _exit(bad ? 4 : 0);
}

/* ---- foreign load: CPU time other processes (or the host) take ------- */
/* The CPU seconds between a and b that neither this process nor its child
 * (child_cpu seconds) used, into *cpu, and the wall seconds into *span;
 * 0 when unknown. /proc/stat counts in clock ticks (10 ms on Linux), so
 * only sums over a second or more mean much (cell_foreign). */
static int foreign_cpu(const rx__load_snap *a, const rx__load_snap *b,
                       double child_cpu, double *cpu, double *span)
{
    *span = b->t - a->t;
    *cpu = (b->busy - a->busy) - (b->own - a->own) - child_cpu;
    return a->ok && b->ok && *span > 0.0;
}

/* A cell's foreign load: others' share of all CPUs over its runs; -1 when
 * a run had no reading or the runs took less than RX_BENCH_FOREIGN_SPAN s
 * together (ticks of 10 ms would dominate). */
static double cell_foreign(const bcell *c)
{
    long ncpu = sysconf(_SC_NPROCESSORS_ONLN);
    if (c->fg_bad || ncpu < 1 || c->fg_span < RX_BENCH_FOREIGN_SPAN)
        return -1.0;
    double f = c->fg_cpu / (c->fg_span * (double)ncpu);
    return f < 0.0 ? 0.0 : f > 1.0 ? 1.0 : f;
}

/* Runs cfg in a fork()ed child. 0: *r filled (r->status may be an error),
 * *rss_kib the child's peak RSS; -1: the child died (why in r->msg);
 * -2: interrupted (SIGINT / SIGTERM to this process). */
static int run_child(const rx_config *cfg, int setup_only, bres *r,
                     long *rss_kib, double fg[2])
{
    memset(r, 0, sizeof *r);
    fg[0] = fg[1] = -1.0;
    const rx__load_snap l0 = rx__load_now();
    int fds[2];
    if (pipe(fds) != 0) {
        snprintf(r->msg, sizeof r->msg, "pipe: %s", strerror(errno));
        return -1;
    }
    fflush(NULL);
    const pid_t parent = getpid();
    pid_t pid = fork();
    if (pid < 0) {
        snprintf(r->msg, sizeof r->msg, "fork: %s", strerror(errno));
        close(fds[0]);
        close(fds[1]);
        return -1;
    }
    if (pid == 0) {
        /* a bench killed outright (SIGKILL) takes its cell with it */
        if (prctl(PR_SET_PDEATHSIG, SIGKILL) != 0 || getppid() != parent)
            _exit(3);
        close(fds[0]);
        child_main(cfg, setup_only, fds[1]);
    }
    close(fds[1]);
    size_t got = 0;
    int killed = 0;
    for (;;) {
        if (rx_cli_interrupted() && !killed) {
            kill(pid, SIGTERM);
            killed = 1;
        }
        struct pollfd pfd = {fds[0], POLLIN, 0};
        int pr = poll(&pfd, 1, 200);
        if (pr < 0 && errno != EINTR)
            break;
        if (pr <= 0)
            continue;
        ssize_t n = read(fds[0], (char *)r + got, sizeof *r - got);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0)
            break;
        got += (size_t)n;
        if (got == sizeof *r)
            break;
    }
    close(fds[0]);
    int status = 0;
    struct rusage ru;
    memset(&ru, 0, sizeof ru);
    while (wait4(pid, &status, 0, &ru) < 0 && errno == EINTR)
        ;
    *rss_kib = ru.ru_maxrss; /* KiB on Linux */
    const rx__load_snap l1 = rx__load_now();
    if (!foreign_cpu(&l0, &l1,
                     (double)ru.ru_utime.tv_sec +
                         1e-6 * (double)ru.ru_utime.tv_usec +
                         (double)ru.ru_stime.tv_sec +
                         1e-6 * (double)ru.ru_stime.tv_usec,
                     &fg[0], &fg[1]))
        fg[0] = fg[1] = -1.0;
    if (killed || rx_cli_interrupted())
        return -2;
    if (got != sizeof *r || !WIFEXITED(status) || WEXITSTATUS(status)) {
        if (WIFSIGNALED(status))
            snprintf(r->msg, sizeof r->msg, "the run's process died of "
                     "signal %d (%s)", WTERMSIG(status),
                     strsignal(WTERMSIG(status)));
        else
            snprintf(r->msg, sizeof r->msg, "the run's process exited "
                     "with status %d before reporting",
                     WIFEXITED(status) ? WEXITSTATUS(status) : -1);
        return -1;
    }
    return 0;
}


typedef struct bopts {
    const char *file, *out;
    int force, quiet, no_plots;
    int reps;                  /* -1: the grid's */
    long long iterations;      /* -1: the grid's */
    const char *threads, *chains;
} bopts;


enum { BOPT_REPS = 256, BOPT_ITERATIONS, BOPT_THREADS, BOPT_CHAINS,
       BOPT_FORCE, BOPT_NO_PLOTS };

static const struct option BENCH_OPTS[] = {
    {"out", required_argument, NULL, 'o'},
    {"reps", required_argument, NULL, BOPT_REPS},
    {"iterations", required_argument, NULL, BOPT_ITERATIONS},
    {"threads", required_argument, NULL, BOPT_THREADS},
    {"chains", required_argument, NULL, BOPT_CHAINS},
    {"force", no_argument, NULL, BOPT_FORCE},
    {"no-plots", no_argument, NULL, BOPT_NO_PLOTS},
    {"quiet", no_argument, NULL, 'q'},
    {NULL, 0, NULL, 0}};

static void on_bench_opt(rx_cli_args *a, void *user, int id, const char *arg)
{
    bopts *o = user;
    long long v;
    switch (id) {
    case 'o':
        o->out = arg;
        break;
    case BOPT_REPS:
        if (!rx_cli_opt_ll(a, "reps", arg, 1, MAX_REPS, &v))
            o->reps = (int)v;
        break;
    case BOPT_ITERATIONS:
        if (!rx_cli_opt_ll(a, "iterations", arg, 1, 1000000000000LL, &v))
            o->iterations = v;
        break;
    case BOPT_THREADS:
        o->threads = arg;
        break;
    case BOPT_CHAINS:
        o->chains = arg;
        break;
    case BOPT_FORCE:
        o->force = 1;
        break;
    case BOPT_NO_PLOTS:
        o->no_plots = 1;
        break;
    case 'q':
        o->quiet = 1;
        break;
    case RX_CLI_OPERAND:
        if (!o->file)
            o->file = arg;
        else
            rx_cli_bad(a, "one grid file only ('%s')", arg);
        break;
    }
}

/* argv[0] is "bench". Returns -1 to go on, else the exit status (help
 * printed, or a usage error). */
static int parse_args(int argc, char **argv, bopts *o, void (*usage)(FILE *))
{
    rx_cli_args a = {"bench", 0, ""};
    int rc = rx_cli_parse(&a, argc, argv, BENCH_OPTS, on_bench_opt, o);
    if (rc == 0)
        usage(stdout);
    if (rc >= 0)
        return rc;
    if (o->out && !o->out[0])
        return rx_cli_usage_error("bench", "-o: an empty directory name");
    if (!o->file)
        return rx_cli_usage_error("bench", "missing GRID.yaml");
    return -1;
}

static int validate_cells(const char *file, bcell *cells, int n)
{
    for (int i = 0; i < n; ++i) {
        rx_config cfg;
        rx_err err = {""};
        rx_status st = cell_config(&cells[i], 0, &cfg, &err);
        if (st == RX_ENOMEM) {
            fprintf(stderr, "replex: bench: out of memory\n");
            return EXIT_RUNFAIL;
        }
        char d[512];
        cell_desc(&cells[i], d, sizeof d);
        const btarget *t = cells[i].tg;
        if (st != RX_OK) {
            if (t->line)
                fprintf(stderr, "replex: %s:%d:%d: %s: cell %s: %s\n", file,
                        t->line, t->col, t->where, d, err.msg);
            else
                fprintf(stderr, "replex: bench: cell %s: %s\n", d, err.msg);
            return EXIT_BADINPUT;
        }
        int first = t->kind == BT_FILE;
        for (int j = 0; j < i && first; ++j)
            if (cells[j].tg->kind == BT_FILE &&
                !strcmp(cells[j].tg->name, t->name))
                first = 0;
        if (first) {
            bres r;
            long rss;
            double fg[2];
            int rc = run_child(&cfg, 1, &r, &rss, fg);
            if (rc == -2) {
                rx_config_free(&cfg);
                fprintf(stderr, "replex: bench: interrupted; nothing "
                        "written\n");
                return EXIT_RUNFAIL;
            }
            if (rc != 0 || r.status != RX_OK) {
                rx_config_free(&cfg);
                fprintf(stderr, "replex: %s:%d:%d: %s: cannot set up %s: "
                        "%s\n", file, t->line, t->col, t->where, t->name,
                        r.msg);
                return rc == 0 && r.status != RX_ENOMEM ? EXIT_BADINPUT
                                                        : EXIT_RUNFAIL;
            }
        }
        rx_config_free(&cfg);
    }
    return 0;
}

/* One run of cell c; progress line unless quiet. 0, or an exit status. */
static int run_cell(bcell *c, int timed, int k, int total, int round,
                    int rounds, int quiet)
{
    char d[512];
    cell_desc(c, d, sizeof d);
    rx_config cfg;
    rx_err err = {""};
    if (cell_config(c, timed, &cfg, &err) != RX_OK) {
        fprintf(stderr, "replex: bench: cell %s: %s\n", d, err.msg);
        return EXIT_RUNFAIL;
    }
    bres r;
    long rss = 0;
    double fg[2];
    int rc = run_child(&cfg, 0, &r, &rss, fg);
    rx_config_free(&cfg);
    if (rc == -2) {
        fprintf(stderr, "replex: bench: interrupted (%s) at run %d of %d; "
                "nothing written\n",
                rx_cli_interrupted() == SIGTERM ? "SIGTERM" : "SIGINT", k,
                total);
        return EXIT_RUNFAIL;
    }
    if (rc != 0 || r.status != RX_OK) {
        fprintf(stderr, "replex: bench: cell %s: run failed: %s\n", d,
                r.msg);
        return EXIT_RUNFAIL;
    }
    if (r.iterations != c->iterations) {
        fprintf(stderr, "replex: bench: cell %s: ran %lld of %lld "
                "iterations\n", d, (long long)r.iterations,
                (long long)c->iterations);
        return EXIT_RUNFAIL;
    }
    double wall = r.wall - r.eval;
    if (!(wall > 0.0))
        wall = 1e-9; /* a clock too coarse for the run: keep rates finite */
    c->rss_kib = rss > c->rss_kib ? rss : c->rss_kib;
    if (fg[1] > 0.0) {
        c->fg_cpu += fg[0];
        c->fg_span += fg[1];
    } else {
        c->fg_bad = 1;
    }
    if (timed) {
        if (c->nwall > 0 && (r.trips != c->trips || r.swaps != c->swaps))
            c->nondet = 1;
        c->timed = 1;
        c->timed_wall = wall;
        for (int j = 0; j < RX_NPHASES; ++j)
            c->phase[j] = r.phase[j];
        c->has_imb = r.has_threads;
        c->imb = r.has_threads ? (r.wait_max - r.wait_min) / wall : 0.0;
    } else {
        if (c->nwall > 0 && (r.trips != c->trips || r.swaps != c->swaps))
            c->nondet = 1;
        c->wall[c->nwall++] = wall;
        if (r.wshare >= 0.0 && c->nwsh < c->reps)
            c->wsh[c->nwsh++] = r.wshare;
        if (r.steal >= 0.0 && c->nstl < c->reps)
            c->stl[c->nstl++] = r.steal;
        c->trips = r.trips;
        c->swaps = r.swaps;
        c->attempts = r.attempts;
        c->conds = r.conds;
        c->evals = r.evals;
        c->window_used = r.window;
        c->threads_used = r.threads;
    }
    if (!quiet)
        fprintf(stderr, "replex: bench: [%d/%d] %s %d/%d: %s: %.3f s\n", k,
                total, timed ? "phase-timed" : "round", round, rounds, d,
                wall);
    return 0;
}

/* Warns about cells during whose runs other processes (or the host, as
 * steal time) took more than RX_BENCH_FOREIGN_WARN of the CPUs, naming
 * the host's part where the steal share reaches the same level. */
static void warn_foreign(const bcell *cells, int n)
{
    for (int i = 0; i < n; ++i) {
        if (!(cells[i].foreign > RX_BENCH_FOREIGN_WARN))
            continue;
        char d[512], st[160] = "";
        cell_desc(&cells[i], d, sizeof d);
        if (cells[i].stl_med >= RX_BENCH_FOREIGN_WARN)
            snprintf(st, sizeof st,
                     "; the host's steal alone took %.0f%% of the threads' "
                     "time (column steal_share: a virtual machine's CPUs "
                     "are shared, so a quieter host is what helps)",
                     100.0 * cells[i].stl_med);
        fprintf(stderr, "replex: bench: warning: cell %d (%s): other "
                "processes or the host took %.0f%% of the CPUs during its "
                "runs%s; its times are suspect (column foreign_load)\n",
                i + 1, d, 100.0 * cells[i].foreign, st);
    }
}

/* Warns when round trips differ between repetitions of a cell, or between
 * cells that differ only in the thread count (results must not depend on
 * either). */
static void check_determinism(const bcell *cells, int n)
{
    for (int i = 0; i < n; ++i) {
        char d[512];
        cell_desc(&cells[i], d, sizeof d);
        if (cells[i].nondet)
            fprintf(stderr, "replex: bench: warning: cell %d (%s): round "
                    "trips differ between repetitions\n", i + 1, d);
        int b = cells[i].base;
        if (b >= 0 && b != i && cells[b].reps && cells[i].nwall &&
            cells[b].nwall && cells[i].iterations == cells[b].iterations &&
            (cells[i].trips != cells[b].trips ||
             cells[i].swaps != cells[b].swaps))
            fprintf(stderr, "replex: bench: warning: cell %d (%s): round "
                    "trips differ from the 1-thread cell %d\n", i + 1, d,
                    b + 1);
    }
}

/* DEO*'s window is W*(P, S) for the configured target swap rate S (0.4
 * for the built-in targets); when the rate S stands for, the pairs'
 * condition rate (conditions / evaluations: every pair in every iteration,
 * whatever the window), gives a W* at least twice as large or as small,
 * the cell's DEO* is not the optimal DEO_W for that target (e.g. the
 * Metropolis rule on noisy energies: 0.88 on mixture25 at P = 16, W* 2
 * against the 8 used). A note, not a warning: the cell measured what it
 * was asked to. (rx_run logs the same note for a `replex run`.) */
static void note_window(const bcell *cells, int n)
{
    for (int i = 0; i < n; ++i) {
        const bcell *c = &cells[i];
        const double r = c->evals ? (double)c->conds / (double)c->evals
                                  : 0.0;
        const int w = c->scheme == RX_SCHEME_DEO_STAR
                          ? rx__window_off(c->P, c->window_used, r)
                          : 0;
        if (w < 1)
            continue;
        char d[512];
        cell_desc(c, d, sizeof d);
        fprintf(stderr, "replex: bench: note: cell %d (%s): DEO* ran with "
                "W = %d; its pairs' condition rate %.3g (the rate S stands "
                "for) gives W* = %d (set tempering.target_swap_rate in a "
                "file target, or add deo_w cells with that window)\n",
                i + 1, d, c->window_used, r, w);
    }
}

/* The grid file with the command line's overrides. 0 or an exit status. */
static int load_grids(const bopts *o, bparse *b, bgrid **grids, int *ng)
{
    if (rx_cli_bench_load_grid(b, grids, ng) != 0) {
        fprintf(stderr, "replex: %s\n", b->msg);
        return b->oom ? EXIT_RUNFAIL : EXIT_BADINPUT;
    }
    for (int i = 0; i < *ng; ++i) {
        bgrid *g = &(*grids)[i];
        int *v, k, e = 0;
        if (o->reps > 0)
            g->reps = o->reps;
        if (o->iterations > 0)
            g->iterations = o->iterations;
        if (o->threads &&
            (e = rx_cli_bench_cli_list("--threads", o->threads, 1, 4096, 1,
                                       b->ncpu, b->pool, &v, &k)) == 0) {
            g->threads = v;
            g->n_threads = k;
        }
        if (!e && o->chains &&
            (e = rx_cli_bench_cli_list("--chains", o->chains, 2, 65536, 0,
                                       b->ncpu, b->pool, &v, &k)) == 0) {
            g->chains = v;
            g->n_chains = k;
        }
        if (e) {
            if (e == -1)
                fprintf(stderr, "replex: bench: out of memory\n");
            return e == -1 ? EXIT_RUNFAIL : EXIT_BADINPUT;
        }
    }
    return 0;
}

/* Every cell once per round, the order reversed on odd rounds (so slow
 * drifts of the machine touch all cells alike), then the phase-timed
 * runs. 0 or an exit status. */
static int run_rounds(bcell *cells, int n, int maxreps, int total,
                      int quiet)
{
    int k = 0, rc = 0;
    for (int r = 0; r < maxreps && rc == 0; ++r)
        for (int q = 0; q < n && rc == 0; ++q) {
            int i = r % 2 ? n - 1 - q : q;
            if (r < cells[i].reps)
                rc = run_cell(&cells[i], 0, ++k, total, r + 1, cells[i].reps,
                              quiet);
        }
    for (int i = 0; i < n && rc == 0; ++i)
        if (cells[i].timing)
            rc = run_cell(&cells[i], 1, ++k, total, 1, 1, quiet);
    return rc;
}

/* bench.csv, bench.md (also to stdout unless quiet) and the figures. 0 or
 * an exit status. */
static int write_outputs(const bopts *o, const bcell *cells, int n)
{
    char path[4400];
    snprintf(path, sizeof path, "%s/bench.csv", o->out);
    if (rx_cli_bench_write_csv(path, cells, n) != 0) {
        fprintf(stderr, "replex: %s: cannot write: %s\n", path,
                strerror(errno));
        return EXIT_RUNFAIL;
    }
    snprintf(path, sizeof path, "%s/bench.md", o->out);
    FILE *md = fopen(path, "w");
    if (md) {
        fprintf(md, "# replex bench %s\n\n%d cells; throughput: median and "
                "best over the repetitions; phases (us per iteration, "
                "thread 0) from a separate phase-timed run; `replex help "
                "bench` and docs/cli.md define the columns.\n\n", o->file, n);
        rx_cli_bench_write_md(md, cells, n);
    }
    if (!md || fclose(md) != 0) {
        fprintf(stderr, "replex: %s: cannot write: %s\n", path,
                strerror(errno));
        return EXIT_RUNFAIL;
    }
    if (!o->quiet) {
        rx_cli_bench_write_md(stdout, cells, n);
        fflush(stdout);
    }
    if (!o->no_plots) {
        char why[4800];
        if (rx_cli_bench_write_plots(o->out, cells, n, why, sizeof why) != 0 &&
            !o->quiet)
            fprintf(stderr, "replex: %s\n", why);
    }
    if (!o->quiet)
        fprintf(stderr, "replex: bench: wrote %s/bench.csv and %s/bench.md\n",
                o->out, o->out);
    return 0;
}

/* The cells' sampling walls, then their wait and steal shares, in one
 * block (returned, to free); NULL when out of memory. */
static double *cell_arrays(bcell *cells, int n)
{
    size_t nw = 0;
    for (int i = 0; i < n; ++i)
        nw += (size_t)cells[i].reps;
    double *walls = calloc(nw ? 3 * nw : 1, sizeof(double));
    for (int i = 0, off = 0; walls && i < n; off += cells[i].reps, ++i) {
        cells[i].wall = walls + off;
        cells[i].wsh = walls + nw + off;
        cells[i].stl = walls + 2 * nw + off;
    }
    return walls;
}

int rx_cli_bench(int argc, char **argv, void (*usage)(FILE *f))
{
    bopts o;
    memset(&o, 0, sizeof o);
    o.reps = -1;
    o.iterations = -1;
    int rc = parse_args(argc, argv, &o, usage);
    if (rc >= 0)
        return rc;
    long nc = sysconf(_SC_NPROCESSORS_ONLN);
    bpool pool = {NULL, 0, 0};
    bparse b;
    memset(&b, 0, sizeof b);
    b.file = o.file;
    b.pool = &pool;
    b.ncpu = nc >= 1 && nc <= 4096 ? (int)nc : 1;
    bgrid *grids = NULL;
    int ng = 0, n = 0;
    bcell *cells = NULL;
    double *walls = NULL;
    int lock = -1;
    char dflt[4200];
    if ((rc = load_grids(&o, &b, &grids, &ng)) != 0)
        goto done;
    cells = calloc(MAX_CELLS, sizeof *cells);
    if (!cells) {
        fprintf(stderr, "replex: bench: out of memory\n");
        rc = EXIT_RUNFAIL;
        goto done;
    }
    if (rx_cli_bench_expand(grids, ng, cells, &n) != 0) {
        fprintf(stderr, "replex: %s: more than %d cells\n", o.file,
                MAX_CELLS);
        rc = EXIT_BADINPUT;
        goto done;
    }
    int maxreps = 0, total = 0;
    for (int i = 0; i < n; ++i) {
        maxreps = cells[i].reps > maxreps ? cells[i].reps : maxreps;
        total += cells[i].reps + cells[i].timing;
    }
    if (!(walls = cell_arrays(cells, n))) {
        fprintf(stderr, "replex: bench: out of memory\n");
        rc = EXIT_RUNFAIL;
        goto done;
    }
    /* the output directory, checked before the first run */
    if (!o.out) {
        rx_cli_default_out(o.file, dflt, sizeof dflt);
        o.out = dflt;
    }
    /* one replex at a time writes DIR, as `run` takes it: a second bench
     * (or run) into it is refused before it starts, not interleaved */
    if ((lock = rx_cli_lock_out(o.out)) < 0) {
        rc = EXIT_BADINPUT;
        goto done;
    }
    struct stat sb;
    int existed = lstat(o.out, &sb) == 0;
    if (!o.force && existed) {
        fprintf(stderr, "replex: %s: already exists; choose another -o or "
                "pass --force\n", o.out);
        rc = EXIT_BADINPUT;
        goto done;
    }
    /* --force replaces only a directory replex wrote (its marker, not a
     * link, not the working directory); checked now, replaced after the
     * runs, so nothing placed in it (a link to another file) is written
     * through */
    if (existed && rx_cli_force_ok(o.out) != 0) {
        rc = EXIT_BADINPUT;
        goto done;
    }
    int sig_ok = rx_cli_signals_install() == 0;
    /* DIR is made after the runs (a bench killed outright leaves none);
     * that it can be is checked now, with a probe beside it */
    char probe[4300];
    snprintf(probe, sizeof probe, "%s.probe-%ld", o.out, (long)getpid());
    if ((rc = validate_cells(o.file, cells, n)) == 0 && !existed &&
        (rx_cli_mkdir_parents(o.out) != 0 || mkdir(probe, 0777) != 0 ||
         rmdir(probe) != 0)) {
        fprintf(stderr, "replex: %s: cannot create the output directory: "
                "%s\n", o.out, strerror(errno));
        rc = EXIT_BADINPUT;
    }
    if (rc == 0 && !o.quiet)
        fprintf(stderr, "replex: bench: %d cells, %d runs (%d round%s, "
                "then the phase-timed runs) into %s\n", n, total, maxreps,
                maxreps > 1 ? "s" : "", o.out);
    if (rc == 0)
        rc = run_rounds(cells, n, maxreps, total, o.quiet);
    if (sig_ok)
        rx_cli_signals_restore();
    if (rc != 0)
        goto done;
    rx_cli_bench_derive(cells, n, cell_foreign);
    check_determinism(cells, n);
    warn_foreign(cells, n);
    if (!o.quiet)
        note_window(cells, n);
    if (rx_cli_make_multi_dir(o.out, existed, RX_MARKER_BENCH) != 0) {
        rc = EXIT_RUNFAIL;
        goto done;
    }
    rc = write_outputs(&o, cells, n);
done:
    rx_cli_unlock_out(lock, o.out);
    free(walls);
    free(cells);
    rx_cli_bench_pool_free(&pool);
    return rc;
}
