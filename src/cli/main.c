/*
 * The `replex` program: run, validate, summary, keys, info, bench, help. Exit status: 0
 * success, 1 the run failed (including an interrupt, a write error, out of
 * memory), 2 bad input (usage, file, YAML, key, value, output path). Every
 * path of main() returns one of these three.
 */
#define _POSIX_C_SOURCE 200809L
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "../io/config.h"
#include "../io/rundiag.h"
#include "../io/rundir_bias.h"
#include "bench.h"
#include "help.h"
#include "opts.h"
#include "outdir.h"
#include "../engine/ranks.h"
#include "plots.h"
#include "progress.h"
#include "ranks_cli.h"
#include "replicates.h"
#include "summary.h"
#include "sweep.h"
#include "replex/replex.h"

enum { EXIT_OK = 0, EXIT_RUNFAIL = 1, EXIT_BADINPUT = 2 };

static int is_help(const char *a)
{
    return !strcmp(a, "-h") || !strcmp(a, "--help");
}

static void bench_usage(FILE *f)
{
    rx_cli_cmd_usage(f, rx_cli_find_cmd("bench"));
}

/* The options of a command that takes none but --help. */
static const struct option NO_OPTS[] = {{NULL, 0, NULL, 0}};

/* Collects the operands of a command without options. */
typedef struct {
    char **v;
    int n;
} operands;

static void on_operand(rx_cli_args *a, void *user, int id, const char *arg)
{
    operands *o = user;
    (void)a;
    (void)id; /* only operands: the command has no options */
    o->v[o->n++] = (char *)arg;
}

/* Parses a command that takes operands and --help only; at most `most`
 * operands (-1: any). Returns -1 to go on, else the exit status. */
static int parse_operands(int argc, char **argv, const rx_cli_cmd_help *h,
                          int most, operands *o)
{
    rx_cli_args a = {h->name, 0, ""};
    o->n = 0;
    o->v = calloc((size_t)argc + 1, sizeof *o->v);
    if (!o->v) {
        fprintf(stderr, "replex: out of memory\n");
        return EXIT_RUNFAIL;
    }
    int rc = rx_cli_parse(&a, argc, argv, NO_OPTS, on_operand, o);
    if (rc == 0)
        rx_cli_cmd_usage(stdout, h);
    else if (rc < 0 && most >= 0 && o->n > most)
        rc = rx_cli_usage_error(h->name, "unexpected argument '%s'",
                                o->v[most]);
    if (rc >= 0) {
        free(o->v);
        o->v = NULL;
    }
    return rc;
}

/* ------------------------------------------------------------------------ */
/* Small commands.                                                           */
/* ------------------------------------------------------------------------ */

static int cmd_info(void)
{
    char buf[1024];
    rx_build_info(buf, sizeof buf);
    fputs(buf, stdout);
    FILE *f = fopen("/proc/cpuinfo", "r");
    char line[512], model[256] = "unknown";
    int ncpu = 0;
    if (f) {
        while (fgets(line, sizeof line, f)) {
            if (strncmp(line, "model name", 10) == 0) {
                char *c = strchr(line, ':');
                if (c && ncpu == 0) {
                    snprintf(model, sizeof model, "%s", c + 2);
                    model[strcspn(model, "\n")] = '\0';
                }
                ncpu++;
            }
        }
        fclose(f);
    }
    printf("CPU: %s (%d logical cpus)\n", model, ncpu);
    return EXIT_OK;
}

/* Key i is in section sec: its path is sec or starts with "sec.". */
static int in_section(int i, const char *sec)
{
    const char *p = rx__config_key(i).path;
    const size_t n = strlen(sec);
    return !strncmp(p, sec, n) && (p[n] == '\0' || p[n] == '.');
}

/* "rng, target, data, ...": the sections of the dotted keys, in the
 * schema's order. */
static void section_list(char *buf, size_t cap)
{
    const int n = rx__config_nkeys();
    size_t w = 0;
    buf[0] = '\0';
    for (int i = 0; i < n && w < cap; ++i) {
        const char *p = rx__config_key(i).path, *dot = strchr(p, '.');
        if (!dot)
            continue;
        const int len = (int)(dot - p);
        int seen = 0;
        for (int j = 0; j < i && !seen; ++j)
            seen = !strncmp(rx__config_key(j).path, p, (size_t)len + 1);
        if (!seen)
            w += (size_t)snprintf(buf + w, cap - w, "%s%.*s", w ? ", " : "",
                                  len, p);
    }
}

/* `replex keys [SECTION...]` */
static int cmd_keys(int nsec, char **secs)
{
    const int n = rx__config_nkeys();
    for (int s = 0; s < nsec; ++s) {
        int found = 0;
        for (int i = 0; i < n && !found; ++i)
            found = in_section(i, secs[s]);
        if (!found) {
            char list[1024];
            section_list(list, sizeof list);
            return rx_cli_usage_error("keys", "unknown section '%s' (one "
                                      "of %s; or a top-level key such as "
                                      "seed)", secs[s], list);
        }
    }
    int order[RX__MAX_KEYS]; /* each row's key within its section */
    const int nw = rx__key_write_order(order, n);
    for (int w = 0; w < nw; ++w) {
        const int i = order[w];
        int shown = nsec == 0;
        for (int s = 0; s < nsec && !shown; ++s)
            shown = in_section(i, secs[s]);
        if (!shown)
            continue;
        rx__keyinfo k = rx__config_key(i);
        printf("%-28s %-27s default %-18s %s\n", k.path, k.type, k.deflt,
               k.doc);
        /* a key whose value is a row of a table: the rows, from the table */
        const rx__table *t = rx__key_table(rx__key_at(i));
        for (int r = 0; t && r < t->count(); ++r)
            printf("    %-24s %s\n", t->at(r)->name,
                   t->at(r)->doc ? t->at(r)->doc : "");
    }
    return EXIT_OK;
}

/* `replex help [CMD]` (argv[0] is "help" or "--help") */
static int cmd_help_cmd(int argc, char **argv)
{
    operands o;
    int rc = parse_operands(argc, argv, rx_cli_find_cmd("help"), 1, &o);
    if (rc >= 0)
        return rc;
    if (o.n == 0) {
        rx_cli_usage(stdout);
    } else if (!rx_cli_find_cmd(o.v[0])) {
        rc = rx_cli_usage_error("help", "unknown command '%s'", o.v[0]);
    } else {
        rx_cli_cmd_usage(stdout, rx_cli_find_cmd(o.v[0]));
    }
    free(o.v);
    return rc >= 0 ? rc : EXIT_OK;
}

/* ------------------------------------------------------------------------ */
/* run and validate.                                                         */
/* ------------------------------------------------------------------------ */

/* A logger without a progress line to break. */
static void log_plain(void *user, int level, const char *msg)
{
    static const char *const lv[] = {"error", "warning", "info", "debug"};
    (void)user;
    fprintf(stderr, "replex: %s: %s\n", lv[level & 3], msg);
}


static const char *signame(int sig)
{
    return sig == SIGINT ? "SIGINT" : sig == SIGTERM ? "SIGTERM" : "signal";
}

/* Prints the resolved config as the run directory's config.yaml has it
 * (all), or only the keys that apply; -1 when stdout fails. */
static int print_resolved(const rx_config *cfg, int all)
{
    rx__config_fwrite(cfg, stdout, all);
    return fflush(stdout) == 0 && !ferror(stdout) ? 0 : -1;
}

typedef struct {
    const char *file, *out;
    const char *resume;     /* --resume DIR */
    const char **sets;
    int nsets, threads, force, quiet, verbose, no_plots;
    int all;                /* validate --all */
    int64_t progress_every; /* -1 auto, 0 off */
    double progress_interval;
    rx_cli_ranks *ranks;    /* this process among the launch's ranks */
} run_opts;

/* The ids of the long-only options (>= 256; short ones are their letter). */
enum {
    OPT_THREADS = 256, OPT_SET, OPT_FORCE, OPT_RESUME, OPT_NO_PLOTS,
    OPT_PROGRESS_EVERY, OPT_PROGRESS_INTERVAL, OPT_ALL, OPT_JSON, OPT_CSV
};

static const struct option RUN_OPTS[] = {
    {"out", required_argument, NULL, 'o'},
    {"threads", required_argument, NULL, OPT_THREADS},
    {"set", required_argument, NULL, OPT_SET},
    {"force", no_argument, NULL, OPT_FORCE},
    {"resume", required_argument, NULL, OPT_RESUME},
    {"quiet", no_argument, NULL, 'q'},
    {"verbose", no_argument, NULL, 'v'},
    {"no-plots", no_argument, NULL, OPT_NO_PLOTS},
    {"progress-every", required_argument, NULL, OPT_PROGRESS_EVERY},
    {"progress-interval", required_argument, NULL, OPT_PROGRESS_INTERVAL},
    {NULL, 0, NULL, 0}};

static const struct option VALIDATE_OPTS[] = {
    {"set", required_argument, NULL, OPT_SET},
    {"all", no_argument, NULL, OPT_ALL},
    {"quiet", no_argument, NULL, 'q'},
    {NULL, 0, NULL, 0}};

/* One option or operand of run / validate into the run_opts `user`. */
static void on_run_opt(rx_cli_args *a, void *user, int id, const char *arg)
{
    run_opts *o = user;
    long long v;
    switch (id) {
    case 'o':
        o->out = arg;
        break;
    case OPT_THREADS:
        if (!rx_cli_opt_ll(a, "threads", arg, 0, 4096, &v))
            o->threads = (int)v;
        break;
    case OPT_PROGRESS_EVERY:
        if (!rx_cli_opt_ll(a, "progress-every", arg, 0, 1000000000000LL, &v))
            o->progress_every = v;
        break;
    case OPT_PROGRESS_INTERVAL: {
        char *end;
        double d = strtod(arg, &end);
        if (*end || end == arg || !(d >= 0.0 && d <= 1e9))
            rx_cli_bad(a, "--progress-interval: expected seconds >= 0, got "
                       "'%s'", arg);
        else
            o->progress_interval = d;
        break;
    }
    case OPT_SET:
        o->sets[o->nsets++] = arg;
        break;
    case OPT_RESUME:
        o->resume = arg;
        break;
    case OPT_FORCE:
        o->force = 1;
        break;
    case OPT_NO_PLOTS:
        o->no_plots = 1;
        break;
    case OPT_ALL:
        o->all = 1;
        break;
    case 'q':
        o->quiet = 1;
        break;
    case 'v':
        o->verbose = 1;
        break;
    case RX_CLI_OPERAND:
        if (!o->file)
            o->file = arg;
        else
            rx_cli_bad(a, "one experiment file only ('%s')", arg);
        break;
    }
}

static const struct option SUMMARY_OPTS[] = {
    {"json", no_argument, NULL, OPT_JSON},
    {"csv", no_argument, NULL, OPT_CSV},
    {NULL, 0, NULL, 0}};

/* The options and operand of `replex summary`. */
typedef struct {
    const char *dir;
    int format; /* rx_cli_summary_format */
} summary_opts;

static void on_summary_opt(rx_cli_args *a, void *user, int id,
                           const char *arg)
{
    summary_opts *o = user;
    switch (id) {
    case OPT_JSON:
    case OPT_CSV: {
        const int f = id == OPT_JSON ? RX_CLI_SUMMARY_JSON
                                     : RX_CLI_SUMMARY_CSV;
        if (o->format != RX_CLI_SUMMARY_TEXT && o->format != f)
            rx_cli_bad(a, "--json and --csv: give one of them");
        o->format = f;
        break;
    }
    case RX_CLI_OPERAND:
        if (!o->dir)
            o->dir = arg;
        else
            rx_cli_bad(a, "unexpected argument '%s'", arg);
        break;
    }
}

/* Parses the options of run / validate. Returns -1 to go on, else the
 * exit status (help printed, or a usage error). */
static int parse_opts(int argc, char **argv, const rx_cli_cmd_help *h, int is_run,
                      run_opts *o)
{
    const char *cmd = h->name;
    rx_cli_args a = {cmd, 0, ""};
    int rc = rx_cli_parse(&a, argc, argv, is_run ? RUN_OPTS : VALIDATE_OPTS,
                          on_run_opt, o);
    if (rc == 0)
        rx_cli_cmd_usage(stdout, h);
    if (rc >= 0)
        return rc;
    if ((o->out && !o->out[0]) || (o->resume && !o->resume[0]))
        return rx_cli_usage_error(cmd, "%s: an empty directory name",
                                  o->resume && !o->resume[0] ? "--resume"
                                                             : "-o");
    if (o->resume && o->file)
        return rx_cli_usage_error(cmd, "--resume DIR takes its "
                                  "configuration from DIR.partial; give no "
                                  "FILE.yaml ('%s')", o->file);
    if (o->resume && o->nsets)
        return rx_cli_usage_error(cmd, "--resume continues the same "
                                  "configuration; --set is not allowed");
    if (!o->file && !o->resume)
        return rx_cli_usage_error(cmd, "missing FILE.yaml");
    return -1;
}

/* validate: everything run checks before its first iteration, the data
 * files and the network's shapes included (rx_create, then destroyed),
 * with run's message and exit status. */
static int validate_setup(const char *file, const rx_config *cfg)
{
    rx_ctx *ctx = NULL;
    rx_err err = {""};
    rx_status st = rx_create(&ctx, cfg, NULL, (rx_logger){0}, &err);
    rx_destroy(&ctx);
    if (st == RX_OK)
        return EXIT_OK;
    fprintf(stderr, "replex: %s: %s\n", file, err.msg);
    return rx_cli_create_exit(st);
}

/* The lines a completed run prints: its size and time, round trips,
 * TV distance and log Z where they apply, then the diagnostics d and the
 * table t summary.json was written from. */
static void print_run(rx_ctx *ctx, const char *out, const rx__rundiag *d,
                      const rx__paramtab *t)
{
    rx_results r;
    rx_get_results(ctx, &r);
    double tv;
    const int ranks = rx__ranks_size(ctx);
    char ranks_s[48] = "";
    if (ranks > 1)
        snprintf(ranks_s, sizeof ranks_s, "%d ranks x ", ranks);
    printf("%s: %lld iterations x %d chains (W = %d) on %s%d threads in "
           "%.3f s\n",
           out, (long long)r.iterations, r.n_chains, r.window, ranks_s,
           r.threads, r.wall_s);
    printf("round trips: %lld (A.5), %lld (1->P->1), restarts %lld; "
           "swaps %lld\n",
           (long long)r.trips_a5, (long long)r.trips_l1,
           (long long)r.restarts, (long long)r.total_swaps);
    double tvw;
    if (rx_density_tv(ctx, &tv) == RX_OK &&
        rx__density_tv_weighted(ctx, &tvw))
        printf("TV distance to the true density on the grid: %.4f "
               "(weighted draws; the unweighted draws: %.4f)\n", tvw,
               tv);
    else if (rx_density_tv(ctx, &tv) == RX_OK)
        printf("TV distance to the true density on the grid: %.4f\n", tv);
    if (r.log_z.valid)
        printf("log Z (stepping stone): %.4f +- %.4f (se)\n",
               r.log_z.estimate, r.log_z.se);
    else if (r.log_z.beta)
        printf("log Z (stepping stone): not valid: %s\n",
               r.log_z.reason ? r.log_z.reason : "unknown");
    rx__hit_print(stdout, ctx);
    rx__rundiag_report(stdout, ctx, d, t);
}

/* One run of run_one between its start and its end. */
typedef struct {
    rx_ctx *ctx;
    rx_cli_progress pr;
    int ckpt;      /* checkpoints: DIR.partial and its lock */
    int lock;      /* the lock held (DIR.partial's or out's), or -1 */
    char pd[4200], pck[4200]; /* DIR.partial and its checkpoint */
} run_state;

/* run_one up to the go: the output checks, the context (on the
 * launch's ranks), the locks, the checkpoint read or DIR.partial begun.
 * -1 to go on, else the exit status after printing why. */
static int run_start(const run_opts *o, const rx_config *cfg,
                     const char *source, int resuming, run_state *s)
{
    const char *out = o->out;
    struct stat sb;
    if (!o->force && stat(out, &sb) == 0) {
        fprintf(stderr, "replex: %s: already exists; choose another -o or "
                "pass --force\n", out);
        return EXIT_BADINPUT;
    }
    if ((o->force || resuming) && rx_cli_force_ok(out) != 0)
        return EXIT_BADINPUT;
    rx_cli_progress_init(&s->pr, o->quiet || o->progress_every == 0,
                         o->progress_every, o->progress_interval);
    s->pr.verbose = o->verbose;
    rx_logger lg = {&s->pr, o->quiet ? NULL : rx_cli_progress_log};
    rx_err err = {""};
    rx_status st = rx_create(&s->ctx, cfg, NULL, lg, &err);
    if (st != RX_OK) {
        fprintf(stderr, "replex: %s: %s\n", o->file, err.msg);
        return rx_cli_create_exit(st);
    }
    /* under a launcher: the world's ranks, before anything is written */
    if ((st = rx__ranks_attach_world(s->ctx)) != RX_OK) {
        fprintf(stderr, "replex: %s: %s\n", o->file, rx_errmsg(s->ctx));
        return EXIT_BADINPUT;
    }
    /* after rx_create: a missing data file creates no directory */
    if (rx_cli_check_writable(out) != 0)
        return EXIT_BADINPUT;
    char pcf[4200], psr[4200];
    rx_cli_partial_paths(out, s->pd, s->pck, pcf, psr, sizeof s->pd);
    s->ckpt = resuming || cfg->checkpoint.every > 0;
    if (resuming && (s->lock = rx_cli_lock_partial(s->pd)) < 0)
        return EXIT_BADINPUT;
    if (resuming && (st = rx_checkpoint_resume(s->ctx, s->pck)) != RX_OK) {
        fprintf(stderr, "replex: --resume %s: %s\n", out,
                rx_errmsg(s->ctx));
        rx_cli_unlock_partial(s->lock, s->pd, 0);
        s->lock = -1;
        return st == RX_ENOMEM ? EXIT_RUNFAIL : EXIT_BADINPUT;
    }
    int rc;
    if (!resuming && s->ckpt && 
        (rc = rx_cli_partial_start(out, o->force, cfg, source, &s->lock)))
        return rc;
    /* without checkpoints too: one replex at a time writes out */
    if (!s->ckpt && (s->lock = rx_cli_lock_out(out)) < 0)
        return EXIT_BADINPUT;
    /* a killed run's temporaries beside out (out is ours now if locked) */
    rx_cli_clean_stale(out, 0, s->lock >= 0);
    if (s->ckpt) {
        rx_checkpoint_enable(s->ctx, s->pck, cfg->checkpoint.every);
        rx_set_stop_flag(s->ctx, rx_cli_signal_flag());
        s->pr.engine_stops = 1;
    }
    return -1;
}

/* run_one after rx_run (st; go: the ranks agreed to start): the message
 * of a failure or an interrupt, or the run directory written (its
 * diagnostics and table into diag, tab); DIR.partial and the locks
 * released. The exit status. */
static int run_end(const run_opts *o, const rx_config *cfg,
                   const char *source, int resuming, run_state *s, int go,
                   rx_status st, rx__rundiag *diag, rx__paramtab *tab)
{
    const char *out = o->out;
    const int sig = rx_cli_interrupted();
    int rc = EXIT_OK;
    if (!go) {
        fprintf(stderr, "replex: another rank could not start the run "
                "(its message is above); nothing written\n");
        rc = EXIT_BADINPUT;
        if (s->ckpt && !resuming) { /* DIR.partial as rx_cli_partial_start undoes */
            rx_cli_unlock_partial(s->lock, s->pd, 1);
            s->lock = -1;
            rx_cli_partial_remove(out, 1);
        }
    } else if (st == RX_EABORTED && sig && s->ckpt) {
        fprintf(stderr, "replex: interrupted (%s): %s; continue with "
                "`replex run --resume %s`\n", signame(sig),
                rx_errmsg(s->ctx), out);
        rc = EXIT_RUNFAIL;
    } else if (st == RX_EABORTED && sig) {
        fprintf(stderr, "replex: interrupted (%s) at iteration %lld of %lld; "
                "nothing written (set checkpoint.every to be able to "
                "resume)\n",
                signame(sig), (long long)s->pr.seen_k,
                (long long)cfg->iterations);
        rc = EXIT_RUNFAIL;
    } else if (st != RX_OK) {
        fprintf(stderr, "replex: run failed: %s\n", rx_errmsg(s->ctx));
        rc = EXIT_RUNFAIL;
    } else if ((st = rx__write_rundir_keep(s->ctx, out, o->force || resuming,
                                           source, diag, tab)) != RX_OK) {
        fprintf(stderr, "replex: %s\n", rx_errmsg(s->ctx));
        rc = EXIT_RUNFAIL;
    } else if (s->ckpt) {
        rx_cli_partial_remove(out, 0); /* the run directory is complete */
        rx_cli_unlock_partial(s->lock, s->pd, 1);
        s->lock = -1;
        rmdir(s->pd);
    }
    if (!s->ckpt)
        rx_cli_unlock_out(s->lock, out);
    else
        rx_cli_unlock_partial(s->lock, s->pd, 0);
    return rc;
}

/* One run (no sweep, no replicates) into o->out; cfg is consumed. Under a
 * launcher rank 0 runs it here with the other ranks (rx_cli_run_worker). */
static int run_one(const run_opts *o, rx_config *cfg, const char *source,
                   int resuming)
{
    if (rx_cli_ranks_worker(o->ranks)) {
        char pd[4200], pck[4200], pcf[4200], psr[4200];
        rx_cli_partial_paths(o->out, pd, pck, pcf, psr, sizeof pd);
        return rx_cli_run_worker(o->ranks, cfg, pck, resuming);
    }
    run_state s = {.ctx = NULL, .lock = -1};
    int rc = run_start(o, cfg, source, resuming, &s);
    if (rc >= 0) {
        rx_config_free(cfg);
        rx_destroy(&s.ctx);
        return rx_cli_no_go(o->ranks, rc);
    }
    const int sig_ok = rx_cli_signals_install() == 0;
    rx_status st = rx_cli_progress_attach(&s.pr, s.ctx, "run",
                                          cfg->iterations,
                                          cfg->tempering.n_chains);
    /* under a launcher: every rank ready, or none starts */
    const int go = rx_cli_ranks_go(o->ranks, st == RX_OK);
    if (st == RX_OK && go)
        st = rx_run(s.ctx);
    rx_cli_progress_break(&s.pr);
    rx__rundiag diag = {0}; /* what summary.json was written from */
    rx__paramtab tab = {0};
    rc = run_end(o, cfg, source, resuming, &s, go, st, &diag, &tab);
    if (rc == EXIT_OK && !o->no_plots && !rx_cli_interrupted()) {
        char why[256];
        if (rx_cli_plots(s.ctx, cfg, o->out, why, sizeof why) != 0 &&
            !o->quiet)
            fprintf(stderr, "replex: %s\n", why);
    }
    int sig;
    if (rc == EXIT_OK && (sig = rx_cli_interrupted()) != 0) {
        fprintf(stderr, "replex: interrupted (%s) after the run; %s is "
                "complete%s\n", signame(sig), o->out,
                o->no_plots ? "" : " but its plots may be missing");
        rc = EXIT_RUNFAIL;
    }
    if (sig_ok)
        rx_cli_signals_restore();
    char nc[400];
    if (rc == EXIT_OK && !o->quiet &&
        rx__rundiag_unconverged(&diag, nc, sizeof nc))
        fprintf(stderr, "replex: warning: %s\n", nc);
    if (rc == EXIT_OK && !o->quiet)
        print_run(s.ctx, o->out, &diag, &tab);
    rx__paramtab_free(&tab);
    rx_config_free(cfg);
    rx_destroy(&s.ctx);
    return rc;
}

/* DIR of `--resume DIR` (or of DIR.partial), without trailing slashes. */
static void resume_dir(const char *arg, char *out, size_t cap)
{
    snprintf(out, cap, "%s", arg);
    size_t l = strlen(out);
    while (l > 1 && out[l - 1] == '/')
        out[--l] = '\0';
    if (l > 8 && !strcmp(out + l - 8, ".partial"))
        out[l - 8] = '\0';
}

/* replex run --resume DIR: the configuration and source name come from
 * DIR.partial; --threads may differ from the interrupted run. */
static int resume_run(const run_opts *o0)
{
    char out[4200], other[4200];
    resume_dir(o0->resume, out, sizeof out);
    if (o0->out) {
        resume_dir(o0->out, other, sizeof other);
        if (strcmp(other, out) != 0) {
            return rx_cli_usage_error("run", "--resume %s writes %s; -o %s "
                                      "is not allowed with it", o0->resume,
                                      out, o0->out);
        }
    }
    char pd[4200], pck[4200], pcf[4200], psr[4200];
    rx_cli_partial_paths(out, pd, pck, pcf, psr, sizeof pd);
    struct stat sb;
    if (stat(pck, &sb) != 0) {
        fprintf(stderr, "replex: --resume %s: no checkpoint %s (%s)\n",
                o0->resume, pck, strerror(errno));
        return EXIT_BADINPUT;
    }
    rx_config cfg;
    rx_err err = {""};
    rx_status st = rx_config_load(pcf, NULL, 0, &cfg, &err);
    if (st != RX_OK) {
        fprintf(stderr, "replex: --resume %s: %s\n", o0->resume, err.msg);
        return st == RX_ENOMEM ? EXIT_RUNFAIL : EXIT_BADINPUT;
    }
    char source[4200] = "";
    FILE *f = fopen(psr, "r");
    if (f) {
        if (!fgets(source, sizeof source, f))
            source[0] = '\0';
        fclose(f);
    }
    if (o0->threads >= 0)
        cfg.threads = o0->threads;
    run_opts o = *o0;
    o.out = out;
    o.file = pcf;
    return run_one(&o, &cfg, source, 1);
}

static int cmd_run_validate_in(int argc, char **argv, const rx_cli_cmd_help *h,
                               run_opts *o0);

/* run and validate; `run` under an MPI launcher (mpirun -np R replex
 * run ...) starts MPI and ends it here (ranks_cli.h). */
static int cmd_run_validate(int argc, char **argv, const rx_cli_cmd_help *h)
{
    rx_cli_ranks k = RX_CLI_RANKS_ONE;
    int rc;
    if (!strcmp(h->name, "run") &&
        (rc = rx_cli_ranks_begin(&k, &argc, &argv)) >= 0)
        return rc;
    run_opts o;
    memset(&o, 0, sizeof o);
    o.ranks = &k;
    rc = cmd_run_validate_in(argc, argv, h, &o);
    return rx_cli_ranks_end(&k, rc);
}

static int cmd_run_validate_in(int argc, char **argv, const rx_cli_cmd_help *h,
                               run_opts *o0)
{
    int is_run = !strcmp(h->name, "run");
    run_opts o = *o0;
    o.threads = -1;
    o.progress_every = -1;
    o.progress_interval = 10.0;
    o.sets = calloc((size_t)argc, sizeof *o.sets);
    if (!o.sets) {
        fprintf(stderr, "replex: out of memory\n");
        return EXIT_RUNFAIL;
    }
    int rc = parse_opts(argc, argv, h, is_run, &o);
    if (rc >= 0) {
        free(o.sets);
        return rc;
    }
    if (o.resume) {
        rc = resume_run(&o);
        free(o.sets);
        return rc;
    }
    rx_config cfg;
    rx_err err = {""};
    /* the config's warnings (biased combinations, silent mistakes) are
     * printed by run and validate alike, once, even with -q */
    rx_status st = rx__config_load_log(o.file, o.sets, o.nsets, &cfg,
                                       (rx_logger){NULL, log_plain}, &err);
    if (st != RX_OK) {
        fprintf(stderr, "replex: %s\n", err.msg);
        free(o.sets);
        return st == RX_ENOMEM ? EXIT_RUNFAIL : EXIT_BADINPUT;
    }
    if (o.threads >= 0)
        cfg.threads = o.threads;
    if (is_run && rx_cli_ranks_check(o.ranks, &cfg, o.file) != 0) {
        rx_config_free(&cfg);
        free(o.sets);
        return EXIT_BADINPUT;
    }
    rx_sweep sw;
    if ((st = rx_sweep_load(o.file, &sw, &err)) != RX_OK) {
        fprintf(stderr, "replex: %s\n", err.msg);
        rx_config_free(&cfg);
        free(o.sets);
        return st == RX_ENOMEM ? EXIT_RUNFAIL : EXIT_BADINPUT;
    }
    /* run and validate refuse the same: replicates beside a sweep */
    if (cfg.replicates > 1 && sw.n_keys > 0) {
        fprintf(stderr, "replex: %s: replicates: %d with a sweep: "
                "block; they do not combine: remove the sweep: block "
                "(replicates: N runs N seeds and reports R-hat over "
                "them), or run each sweep value as its own file\n",
                o.file, cfg.replicates);
        rx_config_free(&cfg);
        rx_sweep_free(&sw);
        free(o.sets);
        return EXIT_BADINPUT;
    }
    if (!is_run) {
        rx_sweep_free(&sw);
        rc = validate_setup(o.file, &cfg);
        if (rc == EXIT_OK)
            rc = print_resolved(&cfg, o.all) == 0 ? EXIT_OK : EXIT_RUNFAIL;
        if (rc == EXIT_OK && !o.quiet)
            fprintf(stderr, "%s: valid\n", o.file);
        rx_config_free(&cfg);
        free(o.sets);
        return rc;
    }
    char dflt[4096];
    if (!o.out) {
        rx_cli_default_out(o.file, dflt, sizeof dflt);
        o.out = dflt;
    }
    if (cfg.replicates > 1) { /* DIR/rep-00 ... and the R-hat summary */
        rx_cli_progress pr;
        rx_cli_progress_init(&pr, o.quiet || o.progress_every == 0 ||
                                      rx_cli_ranks_worker(o.ranks),
                             o.progress_every, o.progress_interval);
        int sig_ok = rx_cli_signals_install() == 0;
        /* under a launcher copy r runs on rank r mod R alone; a worker's
         * progress is quiet (its interrupt check) */
        o.ranks->agreed = 1; /* it takes part in the go / no-go */
        const rx_cli_reps ro = {o.file, o.out, o.force, o.quiet,
                                !o.no_plots, &pr, o.ranks->rank,
                                o.ranks->nranks, o.ranks->errfd};
        rc = rx_cli_replicates(&cfg, &ro);
        if (sig_ok)
            rx_cli_signals_restore();
        rx_config_free(&cfg);
        rx_sweep_free(&sw);
        free(o.sets);
        return rc;
    }
    if (sw.n_keys > 0) {
        rx_config_free(&cfg);
        rx_cli_progress pr;
        rx_cli_progress_init(&pr, o.quiet || o.progress_every == 0,
                             o.progress_every, o.progress_interval);
        int sig_ok = rx_cli_signals_install() == 0;
        /* under a launcher the runs are spread over the ranks; a rank's
         * own runs fail with their own messages (its stderr back), and a
         * signal stops them (a quiet progress: the interrupt check) */
        o.ranks->agreed = 1; /* it takes part in the go / no-go */
        if (rx_cli_ranks_worker(o.ranks)) {
            rx_cli_ranks_unmute(o.ranks);
            rx_cli_progress_init(&pr, 1, o.progress_every,
                                 o.progress_interval);
        }
        rc = rx_cli_sweep(o.file, (const char *const *)o.sets, o.nsets, &sw,
                          o.out, o.threads, o.force, o.quiet, !o.no_plots,
                          &pr, o.ranks->rank, o.ranks->nranks);
        if (sig_ok)
            rx_cli_signals_restore();
        rx_sweep_free(&sw);
        free(o.sets);
        return rc;
    }
    rc = run_one(&o, &cfg, o.file, 0);
    free(o.sets);
    return rc;
}

int main(int argc, char **argv)
{
    /* replex's only BLAS use is inside chains, one thread each: end the
     * pool OpenBLAS started at load before it competes with the chains
     * (rx_blas_single_thread, docs/performance.md "On 16 cores"). */
    rx_blas_single_thread();
    if (argc < 2) {
        rx_cli_usage(stderr);
        return EXIT_BADINPUT;
    }
    const char *cmd = argv[1];
    if (is_help(cmd) || !strcmp(cmd, "help"))
        return cmd_help_cmd(argc - 1, argv + 1);
    if (!strcmp(cmd, "--version")) {
        printf("replex %s\n", rx_version());
        return EXIT_OK;
    }
    const rx_cli_cmd_help *h = rx_cli_find_cmd(cmd);
    if (!h && cmd[0] == '-')
        return rx_cli_usage_error(NULL, "unknown option '%s' (give a "
                                  "command first)", cmd);
    if (!h)
        return rx_cli_usage_error(NULL, "unknown command '%s'", cmd);
    int rc;
    operands o;
    if (!strcmp(cmd, "info")) {
        if ((rc = parse_operands(argc - 1, argv + 1, h, 0, &o)) >= 0)
            return rc;
        free(o.v);
        return cmd_info();
    }
    if (!strcmp(cmd, "summary")) {
        summary_opts so = {NULL, RX_CLI_SUMMARY_TEXT};
        rx_cli_args a = {h->name, 0, ""};
        rc = rx_cli_parse(&a, argc - 1, argv + 1, SUMMARY_OPTS,
                          on_summary_opt, &so);
        if (rc == 0)
            rx_cli_cmd_usage(stdout, h);
        if (rc >= 0)
            return rc;
        if (!so.dir)
            return rx_cli_usage_error("summary", "missing DIR (a directory "
                                      "`replex run` wrote)");
        return rx_cli_summary(so.dir, (rx_cli_summary_format)so.format);
    }
    if (!strcmp(cmd, "keys")) {
        if ((rc = parse_operands(argc - 1, argv + 1, h, -1, &o)) >= 0)
            return rc;
        rc = cmd_keys(o.n, o.v);
        free(o.v);
        return rc;
    }
    if (!strcmp(cmd, "bench"))
        return rx_cli_bench(argc - 1, argv + 1, bench_usage);
    return cmd_run_validate(argc - 1, argv + 1, h);
}
