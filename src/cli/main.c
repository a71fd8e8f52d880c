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
#include "opts.h"
#include "outdir.h"
#include "../engine/ranks.h"
#include "plots.h"
#include "progress.h"
#include "replicates.h"
#include "summary.h"
#include "sweep.h"
#include "replex/replex.h"

enum { EXIT_OK = 0, EXIT_RUNFAIL = 1, EXIT_BADINPUT = 2 };

/* ------------------------------------------------------------------------ */
/* Help.                                                                     */
/* ------------------------------------------------------------------------ */

typedef struct {
    const char *name;
    const char *synopsis; /* after "replex NAME" */
    const char *summary;  /* one line, for `replex --help` */
    const char *details;  /* options and notes, for `replex help NAME` */
} cmd_help;

static const cmd_help CMDS[] = {
    {"run", "FILE.yaml [options]",
     "run an experiment (or every run of its sweep:) into a directory",
     "options:\n"
     "  -o, --out DIR          the run directory (default runs/<FILE without\n"
     "                         .yaml>); it must not exist unless --force\n"
     "  --threads N            OpenMP threads, 0 = all CPUs (default: the\n"
     "                         file's `threads`, itself 0); results do not\n"
     "                         depend on it\n"
     "  --set key.path=value   override one key, repeatable (default none);\n"
     "                         `replex keys` lists the keys\n"
     "  --force                replace an existing DIR that replex wrote\n"
     "                         (it holds a .replex file; default off)\n"
     "  --resume DIR           continue the interrupted run of DIR from\n"
     "                         DIR.partial/checkpoint.bin (no FILE.yaml)\n"
     "  -q, --quiet            print nothing but errors: no progress, no\n"
     "                         log, no summary (default off)\n"
     "  -v, --verbose          also print the run's notes (thread\n"
     "                         efficiency, BLAS kernels, the DEO* window;\n"
     "                         default: only when the run is estimated to\n"
     "                         take 10 s or more)\n"
     "  --no-plots             do not draw DIR/plots with gnuplot (default:\n"
     "                         drawn when gnuplot is on PATH)\n"
     "  --progress-every N     check progress and interrupts every N\n"
     "                         iterations (default: about every 5 ms of\n"
     "                         iterations); 0 = no progress display\n"
     "                         (interrupts are still seen)\n"
     "  --progress-interval S  when stderr is not a terminal, progress lines\n"
     "                         come every tenth of the run but at least S\n"
     "                         seconds apart (default 10)\n"
     "  -h, --help             this help\n"
     "\n"
     "Progress goes to stderr: one self-updating line on a terminal\n"
     "(iteration, percent, it/s, chain-steps/s, ETA, round trips, mean swap\n"
     "acceptance), plain lines otherwise. The run directory is written under\n"
     "a temporary name and renamed when complete. Ctrl-C (SIGINT) or SIGTERM\n"
     "stops the run after the current iteration and exits 1; with\n"
     "checkpoint.every > 0 the state is first written to DIR.partial/\n"
     "(also every checkpoint.every iterations), and\n"
     "  replex run --resume DIR [--threads N]\n"
     "continues to the same results as an uninterrupted run.\n"},
    {"validate", "FILE.yaml [options]",
     "check an experiment file and print the resolved configuration",
     "options:\n"
     "  --set key.path=value   override one key, repeatable (default none)\n"
     "  --all                  print every key, also those that do not\n"
     "                         apply to this target and sampler (default:\n"
     "                         only the keys that apply)\n"
     "  -q, --quiet            do not print \"FILE: valid\" (default off)\n"
     "  -h, --help             this help\n"
     "\n"
     "Prints the keys that apply to the file's target, schedule, swap rule,\n"
     "step rule and bias with their values (defaults spelled out) on\n"
     "stdout and \"FILE: valid\" on stderr, or the first error as\n"
     "file:line:col: key.path: problem, exit 2. With --all the output is\n"
     "the run directory's config.yaml.\n"},
    {"summary", "[--json | --csv] DIR",
     "print the per-parameter table of a finished run directory",
     "options:\n"
     "  --json                 the table as one JSON document (the\n"
     "                         summary's \"parameters\" block and the test\n"
     "                         metrics; a sweep's runs with their values)\n"
     "  --csv                  the table as CSV (summary.csv's columns; a\n"
     "                         sweep's rows led by run and its sweep keys)\n"
     "  -h, --help             this help\n"
     "\n"
     "Prints the table `replex run` printed at the end of the run (mean,\n"
     "sd, 5/50/95 % quantiles, MCSE, ESS for the mean, bulk and tail ESS,\n"
     "R-hat, a network's test metrics, the warnings) from DIR/summary.json;\n"
     "nothing is run. DIR is a run directory, a replicates directory (the\n"
     "table over the copies) or a sweep directory (each run's table, headed\n"
     "by its sweep values). Anything else, or a run that did not finish,\n"
     "is refused with exit 2. --json and --csv write all of it or, when a\n"
     "table cannot be read, nothing on stdout.\n"},
    {"keys", "[SECTION...]",
     "list the configuration keys with their type, default and meaning",
     "options:\n"
     "  -h, --help             this help\n"
     "\n"
     "Without SECTION every key; `replex keys ladder step` only the keys\n"
     "of those sections (a section is the part of a key before its first\n"
     "dot; a top-level key such as seed is its own section).\n"},
    {"info", "",
     "print the version, OpenMP threads, BLAS and CPU",
     "options:\n"
     "  -h, --help             this help\n"},
    {"bench", "GRID.yaml [options]",
     "benchmark the engine over a grid of schedules, P, threads, targets",
     "options:\n"
     "  -o, --out DIR          the output directory (default runs/<GRID\n"
     "                         without .yaml>); it must not exist unless\n"
     "                         --force\n"
     "  --reps N               repetitions of every cell (default: the\n"
     "                         grid's `reps`, itself 3)\n"
     "  --iterations N         iterations of every run (default: the grid's\n"
     "                         `iterations`, itself 20000)\n"
     "  --threads LIST         thread counts, e.g. 1,2 or all (default: the\n"
     "                         grid's `threads`, itself 1)\n"
     "  --chains LIST          chain counts P, e.g. 4,16 (default: the\n"
     "                         grid's `chains`, itself 16)\n"
     "  --force                replace an existing DIR that a bench wrote\n"
     "                         (default off)\n"
     "  -q, --quiet            print nothing but errors: no progress lines,\n"
     "                         no table (default off)\n"
     "  --no-plots             do not draw DIR/plots with gnuplot (default:\n"
     "                         drawn when gnuplot is on PATH)\n"
     "  -h, --help             this help\n"
     "\n"
     "Every cell (target x noise x rule x normal x scheme x W x P x\n"
     "threads) runs `reps` times through rx_create / rx_run, each run in its\n"
     "own child process (peak RSS from wait4), in rounds over all cells;\n"
     "then one separate run with record.phase_timing for the phase split.\n"
     "The CPU share other processes (or the host) took during a cell's runs\n"
     "(/proc/stat) is its column foreign_load; above 5 % a warning says its\n"
     "times are suspect.\n"
     "Writes DIR/bench.csv (one row per cell), DIR/bench.md (the table, also\n"
     "printed on stdout) and DIR/plots/ (speed-up against threads, round\n"
     "trips per second against W). The grid keys and the columns:\n"
     "docs/cli.md.\n"},
    {"help", "[COMMAND]", "general help, or the help of one command",
     "`replex help run` is the same as `replex run --help`.\n"},
};
#define NCMDS ((int)(sizeof CMDS / sizeof CMDS[0]))

/* After every command's options (replex CMD --help). */
static const char OPTS_TEXT[] =
    "Options and operands go in any order; --name=value or --name value,\n"
    "-oDIR or -o DIR, short flags bundle (-qv), a long name may be\n"
    "abbreviated while unambiguous; -- ends the options.\n";

static const char EXIT_TEXT[] =
    "exit status: 0 ok; 1 the run failed (error during the run, interrupted,\n"
    "cannot write the outputs, out of memory); 2 bad input (usage, unreadable\n"
    "file, YAML, unknown key, bad value, missing or malformed data file,\n"
    "output directory exists or cannot be created).\n";

static const cmd_help *find_cmd(const char *name)
{
    for (int i = 0; i < NCMDS; ++i)
        if (!strcmp(CMDS[i].name, name))
            return &CMDS[i];
    return NULL;
}

static void usage(FILE *f)
{
    fputs("usage: replex <command> [options]\n"
          "       replex <command> --help | replex help <command>\n"
          "       replex --version\n"
          "\n"
          "commands:\n",
          f);
    for (int i = 0; i < NCMDS; ++i)
        fprintf(f, "  %-9s %s\n", CMDS[i].name, CMDS[i].summary);
    fputs("\n"
          "examples:\n"
          "  replex run yaml/default.yaml -o runs/default --threads 2\n"
          "  replex run yaml/gmm_1d_two_modes.yaml --set tempering.n_chains=12\n"
          "  replex validate yaml/default.yaml\n"
          "\n",
          f);
    fputs(EXIT_TEXT, f);
}

static void cmd_usage(FILE *f, const cmd_help *h)
{
    fprintf(f, "usage: replex %s%s%s\n\n%s.\n\n%s\n%s\n%s", h->name,
            h->synopsis[0] ? " " : "", h->synopsis, h->summary, h->details,
            OPTS_TEXT, EXIT_TEXT);
}

static int is_help(const char *a)
{
    return !strcmp(a, "-h") || !strcmp(a, "--help");
}

static void bench_usage(FILE *f)
{
    cmd_usage(f, find_cmd("bench"));
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
static int parse_operands(int argc, char **argv, const cmd_help *h,
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
        cmd_usage(stdout, h);
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
    int rc = parse_operands(argc, argv, find_cmd("help"), 1, &o);
    if (rc >= 0)
        return rc;
    if (o.n == 0) {
        usage(stdout);
    } else if (!find_cmd(o.v[0])) {
        rc = rx_cli_usage_error("help", "unknown command '%s'", o.v[0]);
    } else {
        cmd_usage(stdout, find_cmd(o.v[0]));
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


/* Before a long run, make sure its directory can be written: create the
 * parents and a probe directory beside `out` (removed at once). Prints the
 * reason and returns -1 when it cannot. */
static int check_writable(const char *out)
{
    if (rx_cli_mkdir_parents(out) != 0) {
        fprintf(stderr, "replex: %s: cannot create the parent directories: "
                "%s\n", out, strerror(errno));
        return -1;
    }
    char probe[4200];
    snprintf(probe, sizeof probe, "%s.probe-%ld", out, (long)getpid());
    if (mkdir(probe, 0777) != 0) {
        fprintf(stderr, "replex: %s: cannot create the run directory: %s\n",
                out, strerror(errno));
        return -1;
    }
    rmdir(probe);
    return 0;
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
    int mpi;                /* started under an MPI launcher (ranks.h) */
    int rank, nranks;       /* this process's world rank, the world size */
    int errfd;              /* ranks > 0: their stderr (stdio is muted) */
    int *agreed;            /* set once this rank has taken part in the
                             * ranks' go / no-go (rx__mpi_all_ok) */
} run_opts;

/* Under a launcher, rank 0 leaves a run before it starts: the other
 * ranks, waiting to start it, learn that it does not (rx__mpi_all_ok).
 * Returns rc. */
static int no_go(const run_opts *o, int rc)
{
    if (o->mpi) {
        rx__mpi_all_ok(0, NULL);
        *o->agreed = 1;
    }
    return rc;
}

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
static int parse_opts(int argc, char **argv, const cmd_help *h, int is_run,
                      run_opts *o)
{
    const char *cmd = h->name;
    rx_cli_args a = {cmd, 0, ""};
    int rc = rx_cli_parse(&a, argc, argv, is_run ? RUN_OPTS : VALIDATE_OPTS,
                          on_run_opt, o);
    if (rc == 0)
        cmd_usage(stdout, h);
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

/* One run (no sweep) into o->out. cfg is consumed. */
/* DIR.partial: the checkpoint, the resolved config and the source name
 * of a run with checkpoint.every > 0 (removed when the run completes). */
static void partial_paths(const char *out, char *dir, char *ck, char *cf,
                          char *src, size_t cap)
{
    snprintf(dir, cap, "%s.partial", out);
    snprintf(ck, cap, "%s.partial/checkpoint.bin", out);
    snprintf(cf, cap, "%s.partial/config.yaml", out);
    snprintf(src, cap, "%s.partial/source", out);
}

/* Removes DIR.partial's files (not its lock, which the caller holds;
 * with dir, the lock file and the directory too). */
static void partial_remove(const char *out, int dir)
{
    char d[4200], ck[4200], cf[4200], sr[4200];
    partial_paths(out, d, ck, cf, sr, sizeof d);
    remove(ck);
    remove(cf);
    remove(sr);
    char tmp[4300];
    snprintf(tmp, sizeof tmp, "%s.tmp", ck);
    remove(tmp);
    if (dir) {
        snprintf(tmp, sizeof tmp, "%s/lock", d);
        remove(tmp);
        rmdir(d);
    }
}

/* Starts DIR.partial for a checkpointing run and takes its lock (*lock);
 * 0 or an exit status. A live owner is named and refused, --force or
 * not. */
static int partial_start(const run_opts *o, const rx_config *cfg,
                         const char *source, int *lock)
{
    char d[4200], ck[4200], cf[4200], sr[4200];
    partial_paths(o->out, d, ck, cf, sr, sizeof d);
    int existed = 0;
    if (mkdir(d, 0777) != 0) {
        if (errno != EEXIST) {
            fprintf(stderr, "replex: %s: cannot create: %s\n", d,
                    strerror(errno));
            return EXIT_BADINPUT;
        }
        existed = access(ck, F_OK) == 0; /* else a plain run's lock */
    }
    if ((*lock = rx_cli_lock_partial(d)) < 0)
        return EXIT_BADINPUT;
    if (existed && !o->force) {
        fprintf(stderr, "replex: %s exists (an interrupted run): "
                "continue it with `replex run --resume %s`, or pass "
                "--force to start over\n", d, o->out);
        rx_cli_unlock_partial(*lock, d, 0);
        *lock = -1;
        return EXIT_BADINPUT;
    }
    if (existed)
        partial_remove(o->out, 0);
    rx_err err = {""};
    FILE *f = NULL;
    if (rx_config_write(cfg, cf, &err) != RX_OK ||
        !(f = fopen(sr, "w")) || fputs(source, f) < 0 || fclose(f) != 0) {
        fprintf(stderr, "replex: %s: cannot write the run's configuration: "
                "%s\n", d, err.msg[0] ? err.msg : strerror(errno));
        rx_cli_unlock_partial(*lock, d, 1);
        *lock = -1;
        partial_remove(o->out, 1);
        return EXIT_RUNFAIL;
    }
    return 0;
}

/* The exit status of a failed rx_create: configuration, data file and
 * shape errors are bad input. */
static int create_exit(rx_status st)
{
    return st == RX_ECONFIG || st == RX_EINVAL || st == RX_EDATA ||
                   st == RX_EIO
               ? EXIT_BADINPUT
               : EXIT_RUNFAIL;
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
    return create_exit(st);
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

static int run_worker(const run_opts *o, rx_config *cfg, int resuming,
                      int errfd);

static int run_one(const run_opts *o, rx_config *cfg, const char *source,
                   int resuming)
{
    if (o->mpi && o->rank != 0)
        return run_worker(o, cfg, resuming, o->errfd);
    const char *out = o->out;
    struct stat sb;
    if (!o->force && stat(out, &sb) == 0) {
        fprintf(stderr,
                "replex: %s: already exists; choose another -o or pass "
                "--force\n",
                out);
        rx_config_free(cfg);
        return no_go(o, EXIT_BADINPUT);
    }
    if ((o->force || resuming) && rx_cli_force_ok(out) != 0) {
        rx_config_free(cfg);
        return no_go(o, EXIT_BADINPUT);
    }
    rx_cli_progress pr;
    rx_cli_progress_init(&pr, o->quiet || o->progress_every == 0,
                         o->progress_every, o->progress_interval);
    pr.verbose = o->verbose;
    rx_logger lg = {&pr, o->quiet ? NULL : rx_cli_progress_log};
    rx_ctx *ctx = NULL;
    rx_err err = {""};
    rx_status st = rx_create(&ctx, cfg, NULL, lg, &err);
    if (st != RX_OK) {
        rx_config_free(cfg);
        fprintf(stderr, "replex: %s: %s\n", o->file, err.msg);
        return no_go(o, create_exit(st));
    }
    /* under a launcher: the world's ranks, before anything is written */
    if ((st = rx__ranks_attach_world(ctx)) != RX_OK) {
        fprintf(stderr, "replex: %s: %s\n", o->file, rx_errmsg(ctx));
        rx_config_free(cfg);
        rx_destroy(&ctx);
        return no_go(o, EXIT_BADINPUT);
    }
    /* after rx_create: a missing data file creates no directory */
    if (check_writable(out) != 0) {
        rx_config_free(cfg);
        rx_destroy(&ctx);
        return no_go(o, EXIT_BADINPUT);
    }
    int rc = EXIT_OK;
    rx__rundiag diag = {0}; /* what summary.json was written from */
    rx__paramtab tab = {0};
    char pd[4200], pck[4200], pcf[4200], psr[4200];
    partial_paths(out, pd, pck, pcf, psr, sizeof pd);
    const int ckpt = resuming || cfg->checkpoint.every > 0;
    int lock = -1;
    if (resuming && (lock = rx_cli_lock_partial(pd)) < 0) {
        rx_config_free(cfg);
        rx_destroy(&ctx);
        return no_go(o, EXIT_BADINPUT);
    }
    if (resuming && (st = rx_checkpoint_resume(ctx, pck)) != RX_OK) {
        fprintf(stderr, "replex: --resume %s: %s\n", out, rx_errmsg(ctx));
        rx_cli_unlock_partial(lock, pd, 0);
        rx_config_free(cfg);
        rx_destroy(&ctx);
        return no_go(o, st == RX_ENOMEM ? EXIT_RUNFAIL : EXIT_BADINPUT);
    }
    if (!resuming && ckpt && (rc = partial_start(o, cfg, source, &lock))) {
        rx_config_free(cfg);
        rx_destroy(&ctx);
        return no_go(o, rc);
    }
    /* without checkpoints too: one replex at a time writes out */
    if (!ckpt && (lock = rx_cli_lock_out(out)) < 0) {
        rx_config_free(cfg);
        rx_destroy(&ctx);
        return no_go(o, EXIT_BADINPUT);
    }
    /* a killed run's temporaries beside out (out is ours now if locked) */
    rx_cli_clean_stale(out, 0, lock >= 0);
    if (ckpt) {
        rx_checkpoint_enable(ctx, pck, cfg->checkpoint.every);
        rx_set_stop_flag(ctx, rx_cli_signal_flag());
        pr.engine_stops = 1;
    }
    int sig_ok = rx_cli_signals_install() == 0;
    st = rx_cli_progress_attach(&pr, ctx, "run", cfg->iterations,
                                cfg->tempering.n_chains);
    /* under a launcher: every rank ready, or none starts */
    const int go = !o->mpi || rx__mpi_all_ok(st == RX_OK, NULL);
    if (o->mpi)
        *o->agreed = 1;
    if (st == RX_OK && go)
        st = rx_run(ctx);
    rx_cli_progress_break(&pr);
    int sig = rx_cli_interrupted();
    if (!go) {
        fprintf(stderr, "replex: another rank could not start the run "
                "(its message is above); nothing written\n");
        rc = EXIT_BADINPUT;
        if (ckpt && !resuming) { /* DIR.partial as partial_start undoes */
            rx_cli_unlock_partial(lock, pd, 1);
            lock = -1;
            partial_remove(out, 1);
        }
    } else if (st == RX_EABORTED && sig && ckpt) {
        fprintf(stderr, "replex: interrupted (%s): %s; continue with "
                "`replex run --resume %s`\n", signame(sig), rx_errmsg(ctx),
                out);
        rc = EXIT_RUNFAIL;
    } else if (st == RX_EABORTED && sig) {
        fprintf(stderr, "replex: interrupted (%s) at iteration %lld of %lld; "
                "nothing written (set checkpoint.every to be able to "
                "resume)\n",
                signame(sig), (long long)pr.seen_k,
                (long long)cfg->iterations);
        rc = EXIT_RUNFAIL;
    } else if (st != RX_OK) {
        fprintf(stderr, "replex: run failed: %s\n", rx_errmsg(ctx));
        rc = EXIT_RUNFAIL;
    } else if ((st = rx__write_rundir_keep(ctx, out, o->force || resuming,
                                           source, &diag, &tab)) != RX_OK) {
        fprintf(stderr, "replex: %s\n", rx_errmsg(ctx));
        rc = EXIT_RUNFAIL;
    } else if (ckpt) {
        partial_remove(out, 0); /* the run directory is complete */
        rx_cli_unlock_partial(lock, pd, 1);
        lock = -1;
        rmdir(pd);
    }
    if (!ckpt)
        rx_cli_unlock_out(lock, out);
    else
        rx_cli_unlock_partial(lock, pd, 0);
    if (rc == EXIT_OK && !o->no_plots && !rx_cli_interrupted()) {
        char why[256];
        int r = rx_cli_plots(ctx, cfg, out, why, sizeof why);
        if (r != 0 && !o->quiet)
            fprintf(stderr, "replex: %s\n", why);
    }
    if (rc == EXIT_OK && (sig = rx_cli_interrupted()) != 0) {
        fprintf(stderr, "replex: interrupted (%s) after the run; %s is "
                "complete%s\n", signame(sig), out,
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
        print_run(ctx, out, &diag, &tab);
    rx__paramtab_free(&tab);
    rx_config_free(cfg);
    rx_destroy(&ctx);
    return rc;
}

/* Ranks other than 0 under a launcher: the same run from the same
 * configuration (resumed from the checkpoint rank 0 reads too), with the
 * same checkpoint period and stop flag, writing nothing; rank 0 writes
 * the run directory. Their messages go to errfd (their stderr). */
static int run_worker(const run_opts *o, rx_config *cfg, int resuming,
                      int errfd)
{
    char pd[4200], pck[4200], pcf[4200], psr[4200];
    partial_paths(o->out, pd, pck, pcf, psr, sizeof pd);
    rx_ctx *ctx = NULL;
    rx_err err = {""};
    rx_status st = rx_create(&ctx, cfg, NULL, (rx_logger){0}, &err);
    if (st == RX_OK && (st = rx__ranks_attach_world(ctx)) != RX_OK)
        snprintf(err.msg, sizeof err.msg, "%s", rx_errmsg(ctx));
    if (st == RX_OK && resuming &&
        (st = rx_checkpoint_resume(ctx, pck)) != RX_OK)
        snprintf(err.msg, sizeof err.msg, "--resume: %s", rx_errmsg(ctx));
    if (st == RX_OK && (resuming || cfg->checkpoint.every > 0)) {
        rx_checkpoint_enable(ctx, pck, cfg->checkpoint.every);
        rx_set_stop_flag(ctx, rx_cli_signal_flag());
    }
    int rc = st == RX_OK ? EXIT_OK : create_exit(st);
    int root_ok = 1;
    const int go = rx__mpi_all_ok(st == RX_OK, &root_ok);
    *o->agreed = 1;
    /* as rank 0 does: a signal stops the run at one iteration, never
     * kills this rank (mpirun passes SIGINT and SIGTERM on) */
    const int sig_ok = rx_cli_signals_install() == 0;
    if (!go) {
        /* rank 0 says what it saw; a failure of this rank's own, here */
        if (st != RX_OK && root_ok)
            dprintf(errfd, "replex: rank %d: %s\n", o->rank, err.msg);
        rc = rc == EXIT_OK ? EXIT_BADINPUT : rc;
    } else if (rx_run(ctx) != RX_OK) {
        rc = EXIT_RUNFAIL;
    }
    if (sig_ok)
        rx_cli_signals_restore();
    rx_config_free(cfg);
    rx_destroy(&ctx);
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
    partial_paths(out, pd, pck, pcf, psr, sizeof pd);
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

static int cmd_run_validate_in(int argc, char **argv, const cmd_help *h,
                               run_opts *o0);

/* run under an MPI launcher (mpirun -np R replex run ...): MPI started
 * here, rank 0 is the replex a user sees (messages, the run directory),
 * the other ranks step their chains and stay silent but for their own
 * failures; the exit status is the largest of the ranks'. */
static int cmd_run_validate(int argc, char **argv, const cmd_help *h)
{
    run_opts o;
    memset(&o, 0, sizeof o);
    o.errfd = 2;
    o.nranks = 1;
    int agreed = 0;
    o.agreed = &agreed;
    if (!strcmp(h->name, "run")) {
        rx_err me = {""};
        o.mpi = rx__mpi_start(&argc, &argv, &o.rank, &o.nranks, &me);
        if (o.mpi < 0 || me.msg[0]) {
            fprintf(stderr, "replex: %s\n", me.msg);
            if (o.mpi > 0)
                rx__mpi_stop();
            return o.mpi < 0 ? EXIT_BADINPUT : EXIT_RUNFAIL;
        }
    }
    if (o.mpi && o.rank != 0) {
        o.errfd = dup(2);
        if (!freopen("/dev/null", "w", stdout) ||
            !freopen("/dev/null", "w", stderr))
            o.errfd = o.errfd < 0 ? 2 : o.errfd;
    }
    int rc = cmd_run_validate_in(argc, argv, h, &o);
    if (o.mpi) {
        /* a rank that left before the go / no-go (its file, its data)
         * says no there, as the others wait for it */
        if (!agreed)
            rx__mpi_all_ok(0, NULL);
        rc = rx__mpi_max_int(rc);
        rx__mpi_stop();
    }
    return rc;
}

static int cmd_run_validate_in(int argc, char **argv, const cmd_help *h,
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
    /* mpi.ranks against the launch (rx_set_comm checks it against a
     * program's communicator) */
    const int want = rx__run_ranks(&cfg);
    if (is_run && want > 0 && want != o.nranks) {
        fprintf(stderr, "replex: %s: mpi.ranks: the file asks for %d "
                "ranks; this run was started as %d (mpirun -np %d replex "
                "run ...)\n", o.file, want, o.nranks, want);
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
        rx_cli_progress_init(&pr, o.quiet || o.progress_every == 0,
                             o.progress_every, o.progress_interval);
        int sig_ok = rx_cli_signals_install() == 0;
        /* under a launcher each replicate's chains spread over the
         * ranks, one replicate after the other */
        *o.agreed = 1; /* it takes part in the go / no-go */
        rc = rx_cli_replicates(o.file, &cfg, o.out, o.force, o.quiet,
                               !o.no_plots, o.rank == 0 ? &pr : NULL,
                               o.mpi ? o.rank : 0, o.mpi ? o.nranks : 1);
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
        *o.agreed = 1; /* it takes part in the go / no-go */
        if (o.mpi && o.rank != 0) {
            dup2(o.errfd, 2);
            rx_cli_progress_init(&pr, 1, o.progress_every,
                                 o.progress_interval);
        }
        rc = rx_cli_sweep(o.file, (const char *const *)o.sets, o.nsets, &sw,
                          o.out, o.threads, o.force, o.quiet, !o.no_plots,
                          &pr, o.mpi ? o.rank : 0, o.mpi ? o.nranks : 1);
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
        usage(stderr);
        return EXIT_BADINPUT;
    }
    const char *cmd = argv[1];
    if (is_help(cmd) || !strcmp(cmd, "help"))
        return cmd_help_cmd(argc - 1, argv + 1);
    if (!strcmp(cmd, "--version")) {
        printf("replex %s\n", rx_version());
        return EXIT_OK;
    }
    const cmd_help *h = find_cmd(cmd);
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
            cmd_usage(stdout, h);
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
