/*
 * Plots of a finished run, drawn by gnuplot (an external, well-kept tool)
 * when it is on PATH: the index process with particle 1's path
 * highlighted, the condition rate of every pair over time, the ladder, the
 * buffer C and the estimated sigma^2 over time (each only when the run
 * adapts it: trace.csv shows it moving), for 1-D and 2-D targets the
 * sample histogram beside the true density, and for networks and targets
 * of 3 or more dimensions the trace and marginals of lp and a few
 * quantities (the table's rows). Every figure names its axes,
 * keys its lines and starts from gnuplot's defaults (`reset`); ranges are
 * set here, so gnuplot never meets an empty one. Writes CSV data, plots.gp
 * and SVG files into the run directory's plots/ (docs/cli.md, "Plots").
 * Part of the CLI: the library never starts programs.
 */
#define _GNU_SOURCE /* posix_spawn_file_actions_addchdir_np */
#include <errno.h>
#include <math.h>
#include <fcntl.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "../exchange/xtest.h"
#include "../io/paramtab.h"
#include "plots.h"

extern char **environ;

/* Is an executable gnuplot in a directory of PATH? (No shell: the
 * directories are searched here, as execvp would.) */
int rx_cli_have_gnuplot(void)
{
    const char *path = getenv("PATH");
    if (!path || !path[0])
        path = "/usr/bin:/bin";
    char buf[4200];
    while (*path) {
        size_t n = strcspn(path, ":");
        snprintf(buf, sizeof buf, "%.*s/gnuplot", (int)(n ? n : 1),
                 n ? path : ".");
        if (access(buf, X_OK) == 0)
            return 1;
        path += n + (path[n] == ':');
    }
    return 0;
}

/* gnuplot SCRIPT (argv[1], no shell) with stderr to LOG, in directory CWD
 * (NULL: this process's). 0 when it exits 0. */
static int spawn_gnuplot(const char *cwd, const char *script,
                         const char *log)
{
    posix_spawn_file_actions_t fa;
    if (posix_spawn_file_actions_init(&fa) != 0)
        return -1;
    int bad = 0;
    if (cwd)
        bad |= posix_spawn_file_actions_addchdir_np(&fa, cwd);
    bad |= posix_spawn_file_actions_addopen(&fa, 2, log,
                                            O_WRONLY | O_CREAT | O_TRUNC,
                                            0666);
    bad |= posix_spawn_file_actions_addopen(&fa, 0, "/dev/null", O_RDONLY,
                                            0);
    pid_t pid;
    char *argv[] = {"gnuplot", (char *)script, NULL};
    if (!bad && posix_spawnp(&pid, "gnuplot", &fa, NULL, argv, environ) != 0)
        bad = 1;
    posix_spawn_file_actions_destroy(&fa);
    if (bad)
        return -1;
    int ws;
    while (waitpid(pid, &ws, 0) < 0)
        if (errno != EINTR)
            return -1;
    return WIFEXITED(ws) && WEXITSTATUS(ws) == 0 ? 0 : -1;
}

/* gnuplot run inside DIR on plots/SCRIPT, whose paths are relative to DIR:
 * the directory's name never enters a script, whatever it holds. */
int rx_cli_run_gnuplot(const char *dir, const char *script, char *why,
                       size_t cap)
{
    char sp[600];
    snprintf(sp, sizeof sp, "plots/%s", script);
    if (spawn_gnuplot(dir, sp, "plots/gnuplot.log") != 0) {
        snprintf(why, cap, "gnuplot failed; see %s/plots/gnuplot.log", dir);
        return -1;
    }
    return 0;
}

int rx_cli_mkdir_parents(const char *dir)
{
    char buf[4096];
    if (strlen(dir) >= sizeof buf) {
        errno = ENAMETOOLONG;
        return -1;
    }
    strcpy(buf, dir);
    for (char *p = buf + 1; *p; ++p) {
        if (*p != '/')
            continue;
        *p = '\0';
        if (mkdir(buf, 0777) != 0 && errno != EEXIST)
            return -1;
        *p = '/';
    }
    return 0;
}

void rx_cli_default_out(const char *file, char *buf, size_t cap)
{
    const char *base = strrchr(file, '/');
    base = base ? base + 1 : file;
    size_t bl = strlen(base);
    if (bl > 5 && !strcmp(base + bl - 5, ".yaml"))
        bl -= 5;
    else if (bl > 4 && !strcmp(base + bl - 4, ".yml"))
        bl -= 4;
    snprintf(buf, cap, "runs/%.*s", (int)bl, base);
}

int rx_cli_plots_dir(const char *dir, char *why, size_t cap)
{
    if (!rx_cli_have_gnuplot()) {
        snprintf(why, cap, "gnuplot not found; plots skipped (apt-get "
                 "install gnuplot-nox)");
        return 1;
    }
    char path[4096];
    snprintf(path, sizeof path, "%s/plots", dir);
    if (mkdir(path, 0777) != 0 && errno != EEXIST) {
        snprintf(why, cap, "%s: cannot create", path);
        return -1;
    }
    return 0;
}

static FILE *open_in(const char *dir, const char *name, char *path,
                     size_t cap)
{
    snprintf(path, cap, "%s/plots/%s", dir, name);
    return fopen(path, "w");
}

/* ---- a CSV table of numbers read back (trace.csv, sweep.csv) ---- */

typedef struct {
    int nc;      /* columns */
    long nr;     /* rows */
    char **name; /* the nc header names */
    double *v;   /* nr x nc; NaN where a field is empty or not a number */
} csvtab;

static void csv_free(csvtab *t)
{
    for (int j = 0; t->name && j < t->nc; ++j)
        free(t->name[j]);
    free(t->name);
    free(t->v);
    memset(t, 0, sizeof *t);
}

/* One field at S (up to the next comma or the line's end) as a number. */
static double csv_field(const char *s)
{
    char *end;
    double x = strtod(s, &end);
    if (end == s || (*end && *end != ',' && *end != '\n' && *end != '\r'))
        return NAN;
    return x;
}

/* PATH: a header line, then rows of numbers. 0, or -1 when it cannot be
 * read (missing, empty, out of memory). */
static int csv_read(const char *path, csvtab *t)
{
    memset(t, 0, sizeof *t);
    FILE *f = fopen(path, "r");
    if (!f)
        return -1;
    char *line = NULL;
    size_t lcap = 0;
    long rcap = 0;
    int ok = getline(&line, &lcap, f) > 0;
    if (ok) {
        line[strcspn(line, "\r\n")] = '\0';
        t->nc = 1;
        for (const char *c = line; *c; ++c)
            t->nc += *c == ',';
        t->name = calloc((size_t)t->nc, sizeof *t->name);
        ok = t->name != NULL;
        const char *s = line;
        for (int j = 0; ok && j < t->nc; ++j) {
            size_t n = strcspn(s, ",");
            ok = (t->name[j] = strndup(s, n)) != NULL;
            s += n + (s[n] == ',');
        }
    }
    while (ok && getline(&line, &lcap, f) > 0) {
        if (line[0] == '\n' || line[0] == '\r')
            continue;
        if (t->nr == rcap) {
            rcap = rcap ? 2 * rcap : 64;
            double *v = realloc(t->v, (size_t)rcap * (size_t)t->nc *
                                          sizeof *v);
            if (!(ok = v != NULL))
                break;
            t->v = v;
        }
        double *row = t->v + (size_t)t->nr++ * (size_t)t->nc;
        const char *s = line;
        for (int j = 0; j < t->nc; ++j) {
            row[j] = csv_field(s);
            s += strcspn(s, ",");
            s += *s == ',';
        }
    }
    free(line);
    fclose(f);
    if (!ok)
        csv_free(t);
    return ok ? 0 : -1;
}

/* The column named NAME, or -1. */
static int csv_col(const csvtab *t, const char *name)
{
    for (int j = 0; j < t->nc; ++j)
        if (!strcmp(t->name[j], name))
            return j;
    return -1;
}

/* The first of the N columns PREFIX1 .. PREFIXn when all are there in
 * order, or -1. */
static int csv_cols(const csvtab *t, const char *prefix, int n)
{
    char a[64], b[64];
    snprintf(a, sizeof a, "%s1", prefix);
    snprintf(b, sizeof b, "%s%d", prefix, n);
    int c0 = csv_col(t, a);
    return n > 0 && c0 >= 0 && csv_col(t, b) == c0 + n - 1 ? c0 : -1;
}

static double csv_at(const csvtab *t, long r, int j)
{
    return t->v[(size_t)r * (size_t)t->nc + (size_t)j];
}

/* The range of the finite values in columns C0 .. C0+N-1; 0 when there is
 * none. */
static int csv_range(const csvtab *t, int c0, int n, double *lo, double *hi)
{
    int any = 0;
    for (long r = 0; r < t->nr; ++r)
        for (int j = c0; j < c0 + n; ++j) {
            double x = csv_at(t, r, j);
            if (!isfinite(x))
                continue;
            if (!any || x < *lo)
                *lo = x;
            if (!any || x > *hi)
                *hi = x;
            any = 1;
        }
    return any;
}

/* Does any of the columns C0 .. C0+N-1 change from row to row? */
static int csv_varies(const csvtab *t, int c0, int n)
{
    for (int j = c0; j < c0 + n; ++j)
        for (long r = 1; r < t->nr; ++r) {
            double a = csv_at(t, 0, j), b = csv_at(t, r, j);
            if (a != b && !(isnan(a) && isnan(b)))
                return 1;
        }
    return 0;
}

/* ---- pieces of the gnuplot scripts ---- */

/* Palettes: one colour per pair or position (dark to light, each visible
 * on white), and the sequential one of the density images. */
static const char PAL_SERIES[] =
    "set palette defined (0 '#3b0f70', 0.35 '#2c7fb8', 0.7 '#1a9850', "
    "1 '#d95f02')\n";
static const char PAL_DENSITY[] =
    "set palette defined (0 '#440154', 0.25 '#3b528b', 0.5 '#21908d', "
    "0.75 '#5dc963', 1 '#fde725')\n";

/* A figure, plots/NAME.svg of W x H pixels, from gnuplot's defaults: the
 * settings of one figure never leak into the next. Plain text labels (no
 * enhanced-text markup: key names hold underscores). */
static void fig_begin(FILE *gp, const char *name, int w, int h)
{
    fprintf(gp, "\n# ---- %s.svg\nreset\n"
                "set terminal svg size %d,%d dynamic noenhanced "
                "font 'sans,12' background rgb 'white'\n"
                "set output 'plots/%s.svg'\nset encoding utf8\n"
                "set datafile separator ','\n"
                "set grid lc rgb '#e0e0e0'\nset tics nomirror\n"
                "set key tmargin center horizontal\n",
            name, w, h, name);
}

/* 1, 2 or 5 times a power of ten, at least RAW. */
static double nice_step(double raw)
{
    if (!(raw > 0))
        return 1;
    double p = pow(10, floor(log10(raw)));
    double m = raw / p;
    return (m <= 1.000001 ? 1 : m <= 2.000001 ? 2 : m <= 5.000001 ? 5 : 10) *
           p;
}

/* The x axis of iterations LO..HI, widened to round numbers: a labelled
 * tick on every multiple of a step giving 3 to 7 of them, written 20k or
 * 1.5M from 10000 on. */
static void iter_axis(FILE *gp, double lo, double hi)
{
    if (!(hi > lo))
        hi = lo + 1;
    double st = nice_step((hi - lo) / 6);
    if (st < 1)
        st = 1;
    lo = floor(lo / st) * st;
    hi = ceil(hi / st) * st;
    fprintf(gp, "set xlabel 'iteration'\nset xrange [%.17g:%.17g]\n"
                "set xtics (",
            lo, hi);
    long i0 = (long)ceil(lo / st - 1e-9);
    for (long i = i0; (double)i * st <= hi * (1 + 1e-12); ++i) {
        double t = (double)i * st;
        char lab[40];
        if (hi >= 1e4 && fabs(t) >= 1e6)
            snprintf(lab, sizeof lab, "%gM", t / 1e6);
        else if (hi >= 1e4 && fabs(t) >= 1e3)
            snprintf(lab, sizeof lab, "%gk", t / 1e3);
        else
            snprintf(lab, sizeof lab, "%g", t);
        fprintf(gp, "%s'%s' %.17g", i > i0 ? ", " : "", lab, t);
    }
    fprintf(gp, ")\n");
}

/* The range of axis AX ("y", "y2", "x") for values LO..HI: logarithmic
 * when they are positive and span a factor of 20 or more (labels on the
 * decades), else linear with a 5 % margin (a single value gets a margin of
 * its own, so no range is ever empty). */
static void value_axis(FILE *gp, const char *ax, double lo, double hi)
{
    if (lo > 0 && hi / lo >= 20) {
        lo /= 1.2;
        hi *= 1.2;
        fprintf(gp, "set logscale %s\nset %srange [%.9g:%.9g]\n"
                    "set %stics (",
                ax, ax, lo, hi, ax);
        /* a label on 1, 2 and 5 times each power of ten across fewer than
         * three decades, else on the powers of ten */
        int few = hi / lo < 1000;
        const char *sep = "";
        for (double d = pow(10, floor(log10(lo))); d <= hi; d *= 10)
            for (int m = 1; m <= 5; m += m == 1 ? 1 : 3) {
                if ((m > 1 && !few) || m * d < lo || m * d > hi)
                    continue;
                fprintf(gp, "%s'%g' %.9g", sep, m * d, m * d);
                sep = ", ";
            }
        fprintf(gp, ")\n");
        return;
    }
    double pad = (hi - lo) * 0.05;
    if (!(pad > 0))
        pad = lo != 0 ? fabs(lo) * 0.05 : 0.5;
    fprintf(gp, "set %srange [%.9g:%.9g]\n", ax, lo - pad, hi + pad);
}

/* Colours for N lines, one per pair (PAIRS) or position: each line its own
 * key entry when N <= 6, else a colour box. */
static void series_setup(FILE *gp, int n, int pairs)
{
    fputs(PAL_SERIES, gp);
    if (n <= 6) {
        fprintf(gp, "unset colorbox\n");
        return;
    }
    double st = nice_step(n / 8.0);
    fprintf(gp, "set cbrange [1:%d]\nset cbtics %g\nset cblabel '%s'\n"
                "set colorbox\n",
            n, st < 1 ? 1 : st,
            pairs ? "pair p (positions p and p+1)"
                  : "position q (1 = target)");
}

/* The plot clause of those N lines: gnuplot columns G0 .. G0+N-1 of FILE
 * (its header skipped) against column 1. */
static void series_clause(FILE *gp, const char *file, int g0, int n,
                          int pairs)
{
    fprintf(gp, "for [i=%d:%d] '%s' skip 1 using 1:i with lines lc palette "
                "frac ",
            g0, g0 + n - 1, file);
    if (n == 1)
        fprintf(gp, "0");
    else
        fprintf(gp, "(i-%d)/%d.0", g0, n - 1);
    if (n <= 6 && pairs)
        fprintf(gp, " lw 1.5 title sprintf('pair %%d-%%d', i-%d, i-%d)",
                g0 - 1, g0 - 2);
    else if (n <= 6)
        fprintf(gp, " lw 1.5 title sprintf('position %%d', i-%d)", g0 - 1);
    else
        fprintf(gp, " lw 1 title (i == %d ? '%s (colour box)' : '')", g0,
                pairs ? "each pair" : "each position");
}

/* ---- the figures of one run ---- */

/* index.svg: the position of every particle over the last 2000 rows of
 * the index process, particle 1 (which starts at the target) in red. */
static int fig_index(FILE *gp, const char *dir, const rx_results *r)
{
    const int P = r->n_chains;
    if (r->n_index < 2 || P < 2)
        return 0;
    char path[4096];
    FILE *f = open_in(dir, "index.csv", path, sizeof path);
    int *pos = malloc(sizeof(int) * (size_t)P);
    if (!f || !pos) {
        if (f)
            fclose(f);
        free(pos);
        return 0;
    }
    int64_t first = r->n_index > 2000 ? r->n_index - 2000 : 0;
    for (int64_t k = first; k < r->n_index; ++k) {
        const int32_t *row = r->index + (size_t)k * (size_t)P;
        for (int q = 0; q < P; ++q)
            pos[row[q]] = q + 1;
        fprintf(f, "%lld", (long long)r->index_iter[k]);
        for (int i = 0; i < P; ++i)
            fprintf(f, ",%d", pos[i]);
        fputc('\n', f);
    }
    free(pos);
    fclose(f);
    int shown = P < 32 ? P : 32;
    fig_begin(gp, "index", 900, 520);
    fprintf(gp, "set title 'Index process: the position each particle "
                "holds (last %lld rows of index.npy)'\n",
            (long long)(r->n_index - first));
    iter_axis(gp, (double)r->index_iter[first],
              (double)r->index_iter[r->n_index - 1]);
    fprintf(gp, "set ylabel 'position (1 = target chain, %d = hottest)'\n"
                "set yrange [0.5:%d.5]\n",
            P, P);
    if (P <= 16)
        fprintf(gp, "set ytics 1,1,%d\n", P);
    else
        fprintf(gp, "set ytics %g\nset ytics add (1, %d)\n",
                nice_step(P / 8.0), P);
    char others[64];
    if (shown < P)
        snprintf(others, sizeof others, "particles 2-%d (of %d)", shown, P);
    else
        snprintf(others, sizeof others, "the other particles");
    fprintf(gp, "plot for [i=3:%d] 'plots/index.csv' using 1:i with steps "
                "lc rgb '#c8c8c8' lw 1 title (i == 3 ? '%s' : ''), "
                "'plots/index.csv' using 1:2 with steps lc rgb '#d62728' "
                "lw 2.5 title 'particle 1 (starts at the target)'\n",
            shown + 1, others);
    return 1;
}

/* Does the run adapt something towards the target swap rate S? */
static int aims_at_rate(const rx_config *cfg)
{
    return cfg->ladder.adapt == RX_ADAPT_ETA ||
           cfg->ladder.adapt == RX_ADAPT_TAU ||
           ((rx__xtest_row(cfg->tempering.rule)->row.props &
             RX__XT_BUFFER_C) &&
            cfg->correction.adapt);
}

/* acceptance.svg: the condition rate of every pair per trace interval. */
static int fig_acceptance(FILE *gp, const csvtab *t, int P,
                          const rx_config *cfg)
{
    int c0 = csv_cols(t, "cond_", P - 1), cm = csv_col(t, "mean_cond");
    if (P < 2 || c0 < 0 || cm < 0)
        return 0;
    fig_begin(gp, "acceptance", 900, 540);
    fprintf(gp, "set title 'Swap-condition rate of each adjacent pair, per "
                "trace interval of %lld iterations'\n",
            (long long)cfg->record.trace_every);
    iter_axis(gp, 0, csv_at(t, t->nr - 1, 0));
    fprintf(gp, "set ylabel 'condition rate (fraction of comparisons)'\n"
                "set yrange [0:1]\nset ytics 0.1\n");
    series_setup(gp, P - 1, 1);
    fprintf(gp, "plot ");
    series_clause(gp, "trace.csv", c0 + 1, P - 1, 1);
    fprintf(gp, ", 'trace.csv' skip 1 using 1:%d with lines lw 2.5 "
                "lc rgb 'black' title 'mean over the pairs'",
            cm + 1);
    if (aims_at_rate(cfg))
        fprintf(gp, ", %.17g with lines dt 2 lw 2 lc rgb '#b2182b' "
                    "title 'target rate S = %g'",
                cfg->tempering.target_swap_rate,
                cfg->tempering.target_swap_rate);
    fputc('\n', gp);
    return 1;
}

/* One panel of N lines per position or pair (columns C0..) against the
 * iteration: Y its axis label, TITLE its title. */
static void trace_panel(FILE *gp, const csvtab *t, int c0, int n,
                        int pairs, const char *y, const char *title)
{
    double lo = 0, hi = 0;
    csv_range(t, c0, n, &lo, &hi);
    fprintf(gp, "unset logscale\nset title '%s'\nset ylabel '%s'\n", title,
            y);
    iter_axis(gp, 0, csv_at(t, t->nr - 1, 0));
    value_axis(gp, "y", lo, hi);
    series_setup(gp, n, pairs);
    fprintf(gp, "plot ");
    series_clause(gp, "trace.csv", c0 + 1, n, pairs);
    fputc('\n', gp);
}

static const char *adapt_name(rx_ladder_adapt a)
{
    return a == RX_ADAPT_ETA ? "eta" : a == RX_ADAPT_TAU ? "tau"
           : a == RX_ADAPT_BARRIER ? "barrier" : "none";
}

/* ladder.svg: the learning-rate and temperature ladders over time, a
 * panel for each that changes (none: no figure). */
static int fig_ladder(FILE *gp, const csvtab *t, int P,
                      const rx_config *cfg)
{
    int ce = csv_cols(t, "eta_", P), ct = csv_cols(t, "tau_", P);
    int ve = ce >= 0 && csv_varies(t, ce, P);
    int vt = ct >= 0 && csv_varies(t, ct, P);
    if (!ve && !vt)
        return 0;
    fig_begin(gp, "ladder", 900, ve && vt ? 860 : 500);
    if (ve && vt)
        fprintf(gp, "set multiplot layout 2,1\n");
    char title[160];
    const char *how = adapt_name(cfg->ladder.adapt);
    if (ve) {
        snprintf(title, sizeof title, "Learning rate of each position over "
                 "time (ladder.adapt: %s)", how);
        trace_panel(gp, t, ce, P, 0, "learning rate η", title);
    }
    if (vt) {
        snprintf(title, sizeof title, "Temperature of each position over "
                 "time (ladder.adapt: %s)", how);
        trace_panel(gp, t, ct, P, 0, "temperature τ", title);
    }
    if (ve && vt)
        fprintf(gp, "unset multiplot\n");
    return 1;
}

/* correction.svg: the buffer C of the deterministic rule, when it moves. */
static int fig_correction(FILE *gp, const csvtab *t, const rx_config *cfg)
{
    int cc = csv_col(t, "C");
    double lo = 0, hi = 0;
    if (cc < 0 || !csv_varies(t, cc, 1) || !csv_range(t, cc, 1, &lo, &hi))
        return 0;
    fig_begin(gp, "correction", 900, 480);
    fprintf(gp, "set title 'Correction buffer C of the deterministic swap "
                "rule, adapted towards S = %g'\n"
                "set ylabel 'C (energy units)'\nset key off\n",
            cfg->tempering.target_swap_rate);
    iter_axis(gp, 0, csv_at(t, t->nr - 1, 0));
    value_axis(gp, "y", lo, hi);
    fprintf(gp, "plot 'trace.csv' skip 1 using 1:%d with lines lw 2 "
                "lc rgb '#2c7fb8' notitle\n",
            cc + 1);
    return 1;
}

/* sigma2.svg: the estimated energy-noise variance of each pair, when the
 * run estimates it online. */
static int fig_sigma2(FILE *gp, const csvtab *t, int P)
{
    int c0 = P > 1 ? csv_cols(t, "sigma2_", P - 1) : -1;
    if (c0 < 0 || !csv_varies(t, c0, P - 1))
        return 0;
    fig_begin(gp, "sigma2", 900, 500);
    trace_panel(gp, t, c0, P - 1, 1, "σ² (energy units squared)",
                "Energy-noise variance σ² of each pair used by the "
                "bias-corrected rule");
    return 1;
}

/* density.svg: the true density beside the histogram of the target
 * samples, on the grid record.grid_* (1-D: two lines on one axis; 2-D: two
 * images on one colour scale). */
static int fig_density(FILE *gp, const char *dir, rx_ctx *ctx,
                       const rx_config *cfg, const rx_results *r)
{
    const int d = (int)r->dim;
    if ((d != 1 && d != 2) || r->n_samples < 1)
        return 0;
    const int B = cfg->record.grid_bins;
    const double lo = cfg->record.grid_low, hi = cfg->record.grid_high;
    const double h = (hi - lo) / B;
    size_t n = d == 1 ? (size_t)B : (size_t)B * (size_t)B;
    double *pt = malloc(n * sizeof(double));
    double *pe = malloc(n * sizeof(double));
    char path[4096];
    FILE *f = NULL;
    double vmax = 0;
    if (pt && pe && rx_density_grid(ctx, pt, pe) == RX_OK &&
        (f = open_in(dir, "density.csv", path, sizeof path))) {
        for (size_t i = 0; i < n; ++i) {
            if (pt[i] > vmax)
                vmax = pt[i];
            if (pe[i] > vmax)
                vmax = pe[i];
        }
        for (int y = 0; y < (d == 1 ? 1 : B); ++y) {
            for (int x = 0; x < B; ++x) {
                size_t i = (size_t)x + (size_t)y * (size_t)B;
                if (d == 1)
                    fprintf(f, "%.6g,%.6g,%.6g\n", lo + (x + 0.5) * h,
                            pt[i], pe[i]);
                else
                    fprintf(f, "%.6g,%.6g,%.6g,%.6g\n", lo + (x + 0.5) * h,
                            lo + (y + 0.5) * h, pt[i], pe[i]);
            }
            if (d == 2)
                fputc('\n', f);
        }
        fclose(f);
    }
    free(pt);
    free(pe);
    if (!f || !(vmax > 0) || !isfinite(vmax))
        return 0;
    const char *unweighted = (int)cfg->bias.kind != 0
                                 ? " (unweighted: the bias flattens the "
                                   "density)"
                                 : "";
    if (d == 1) {
        fig_begin(gp, "density", 900, 500);
        fprintf(gp, "set title 'Density of the target position: exact and "
                    "from the %lld samples'\n"
                    "set xlabel 'x'\n"
                    "set ylabel 'probability per grid cell (width %g)'\n"
                    "set xrange [%.9g:%.9g]\nset yrange [0:%.9g]\n",
                (long long)r->n_samples, h, lo, hi,
                vmax * 1.08);
        fprintf(gp, "plot 'plots/density.csv' using 1:3 with histeps lw 1.5 "
                    "lc rgb '#2c7fb8' title 'histogram of the samples%s', "
                    "'' using 1:2 with lines lw 2 lc rgb 'black' "
                    "title 'true density exp(-U)'\n",
                unweighted);
        return 1;
    }
    /* two square panels of the same size, one colour box on the right;
     * each cell a sharp square (up to 100 x 100 cells) */
    const char *px = B <= 100 ? " pixels" : "";
    fig_begin(gp, "density", 1060, 500);
    fputs(PAL_DENSITY, gp);
    fprintf(gp, "set key off\nset grid noxtics noytics\n"
                "set cbrange [0:%.9g]\n"
                "set cblabel 'probability per grid cell (%g x %g)'\n"
                "set xrange [%.9g:%.9g]\nset yrange [%.9g:%.9g]\n"
                "set xlabel 'x1'\nset ylabel 'x2'\n"
                "set bmargin at screen 0.13\nset tmargin at screen 0.89\n"
                "set multiplot\n",
            vmax, h, h, lo, hi, lo, hi);
    fprintf(gp, "set lmargin at screen 0.06\nset rmargin at screen 0.43\n"
                "unset colorbox\n"
                "set title 'true density exp(-U), normalised on the grid'\n"
                "plot 'plots/density.csv' using 1:2:3 with image%s "
                "notitle\n",
            px);
    fprintf(gp, "set lmargin at screen 0.51\nset rmargin at screen 0.88\n"
                "set colorbox\n"
                "set title 'histogram of the %lld target samples%s'\n"
                "plot 'plots/density.csv' using 1:2:4 with image%s "
                "notitle\nunset multiplot\n",
            (long long)r->n_samples, unweighted, px);
    return 1;
}

/* ---- the draws: trace and marginals (networks, 3 or more dimensions) ---*/

/* Points of a trace line at most (every m-th draw beyond). */
#define DRAWS_TRACE_MAX 2000
/* Quantities drawn at most: lp and three more. */
#define DRAWS_SHOWN_MAX 4
/* Bins of a marginal's histogram. */
#define DRAWS_BINS 40

/* The axis label of a table row. */
static void draw_label(const char *name, char *buf, size_t cap)
{
    if (!strcmp(name, "lp"))
        snprintf(buf, cap, "lp = -U (log density, nats)");
    else if (!strcmp(name, "noise_sd"))
        snprintf(buf, cap, "noise sd (units of y)");
    else if (!strcmp(name, "noise_precision"))
        snprintf(buf, cap, "noise precision (standardised y)");
    else if (!strcmp(name, "weight_precision"))
        snprintf(buf, cap, "weight precision lambda");
    else
        snprintf(buf, cap, "%s", name);
}

/* The quantities to draw: lp, then a network's weight precision and
 * noise sd (its precision where there is no sd), else the first
 * coordinates; their columns of d into col, returns how many. */
static int draws_pick(const rx__paramdraws *d, int *col)
{
    int n = 0, has_sd = 0;
    for (int c = 0; c < d->k; ++c)
        has_sd |= !strcmp(d->name[c], "noise_sd");
    for (int c = 0; c < d->k && n < DRAWS_SHOWN_MAX; ++c)
        if (!(has_sd && !strcmp(d->name[c], "noise_precision")))
            col[n++] = c;
    return n;
}

/* trace.svg and marginals.svg: the kept draws of lp and a few quantities
 * against the iteration, and each one's histogram (weighted by a bias's
 * importance weights) with its mean. For networks (whose weights are
 * not identifiable: lp and the hyper-parameters) and targets of 3 or more
 * dimensions; 1-D and 2-D ones have density.svg. */
static int fig_draws(FILE *gp, const char *dir, rx_ctx *ctx,
                     const rx_results *r)
{
    if (r->dim < 3) /* a network has more */
        return 0;
    rx__paramdraws d;
    rx_err err;
    if (rx__paramdraws_get(ctx, DRAWS_SHOWN_MAX - 1, &d, &err) != RX_OK)
        return 0;
    int col[DRAWS_SHOWN_MAX];
    const int k = d.n >= 2 ? draws_pick(&d, col) : 0;
    char path[4096];
    FILE *f = k > 0 ? open_in(dir, "draws.csv", path, sizeof path) : NULL;
    FILE *h = f ? open_in(dir, "marginals.csv", path, sizeof path) : NULL;
    double lo[DRAWS_SHOWN_MAX], hi[DRAWS_SHOWN_MAX], mean[DRAWS_SHOWN_MAX];
    double dens[DRAWS_SHOWN_MAX][DRAWS_BINS], width[DRAWS_SHOWN_MAX];
    int ok = f && h;
    const int64_t m = (d.n + DRAWS_TRACE_MAX - 1) / DRAWS_TRACE_MAX;
    for (int q = 0; ok && q < k; ++q) {
        /* range, weighted mean and histogram (a density: it integrates
         * to 1 over the bins) */
        double sw = 0, sx = 0;
        lo[q] = INFINITY;
        hi[q] = -INFINITY;
        for (int64_t i = 0; i < d.n; ++i) {
            const double x = d.x[(size_t)i * (size_t)d.k + (size_t)col[q]];
            const double w = d.w ? d.w[i] : 1.0;
            if (!isfinite(x))
                continue;
            lo[q] = x < lo[q] ? x : lo[q];
            hi[q] = x > hi[q] ? x : hi[q];
            sw += w;
            sx += w * x;
        }
        if (!(sw > 0) || !(hi[q] >= lo[q])) {
            ok = 0;
            break;
        }
        mean[q] = sx / sw;
        if (!(hi[q] > lo[q])) { /* constant: a bin around the value */
            const double pad = lo[q] != 0 ? fabs(lo[q]) * 0.05 : 0.5;
            lo[q] -= pad;
            hi[q] += pad;
        }
        width[q] = (hi[q] - lo[q]) / DRAWS_BINS;
        for (int b = 0; b < DRAWS_BINS; ++b)
            dens[q][b] = 0;
        for (int64_t i = 0; i < d.n; ++i) {
            const double x = d.x[(size_t)i * (size_t)d.k + (size_t)col[q]];
            if (!isfinite(x))
                continue;
            int b = (int)((x - lo[q]) / width[q]);
            b = b < 0 ? 0 : b >= DRAWS_BINS ? DRAWS_BINS - 1 : b;
            dens[q][b] += (d.w ? d.w[i] : 1.0) / (sw * width[q]);
        }
    }
    if (ok) {
        fprintf(f, "iteration");
        for (int q = 0; q < k; ++q)
            fprintf(f, ",%s", d.name[col[q]]);
        fputc('\n', f);
        for (int64_t i = 0; i < d.n; i += m) {
            fprintf(f, "%lld", (long long)d.iter[i]);
            for (int q = 0; q < k; ++q)
                fprintf(f, ",%.9g",
                        d.x[(size_t)i * (size_t)d.k + (size_t)col[q]]);
            fputc('\n', f);
        }
        for (int q = 0; q < k; ++q)
            fprintf(h, "%s%s_bin,%s_density", q ? "," : "", d.name[col[q]],
                    d.name[col[q]]);
        fputc('\n', h);
        for (int b = 0; b < DRAWS_BINS; ++b) {
            for (int q = 0; q < k; ++q)
                fprintf(h, "%s%.9g,%.9g", q ? "," : "",
                        lo[q] + (b + 0.5) * width[q], dens[q][b]);
            fputc('\n', h);
        }
    }
    if (f)
        fclose(f);
    if (h)
        fclose(h);
    if (!ok || k == 0) {
        rx__paramdraws_free(&d);
        return 0;
    }
    const char *what = d.network ? "a network: its weights are not "
                                   "identifiable, so lp and the "
                                   "hyper-parameters"
                                 : "lp and the first coordinates";
    char every[64] = "";
    if (m > 1)
        snprintf(every, sizeof every, ", every %lld-th shown",
                 (long long)m);
    char lab[64];
    /* trace.svg: one panel per quantity, one iteration axis */
    fig_begin(gp, "trace", 900, 60 + 170 * k);
    fprintf(gp, "set key off\nset multiplot layout %d,1 title 'Trace of "
                "the %lld kept target draws%s (%s)'\n",
            k, (long long)d.n, every, what);
    for (int q = 0; q < k; ++q) {
        draw_label(d.name[col[q]], lab, sizeof lab);
        double vlo = INFINITY, vhi = -INFINITY;
        for (int64_t i = 0; i < d.n; i += m) {
            const double x = d.x[(size_t)i * (size_t)d.k + (size_t)col[q]];
            if (isfinite(x)) {
                vlo = x < vlo ? x : vlo;
                vhi = x > vhi ? x : vhi;
            }
        }
        fprintf(gp, "unset logscale\nset ylabel '%s'\n", lab);
        iter_axis(gp, (double)d.iter[0], (double)d.iter[d.n - 1]);
        if (q < k - 1)
            fprintf(gp, "unset xlabel\n");
        value_axis(gp, "y", vlo, vhi);
        fprintf(gp, "plot 'plots/draws.csv' skip 1 using 1:%d with lines "
                    "lw 1 lc rgb '#2c7fb8' notitle\n",
                q + 2);
    }
    fprintf(gp, "unset multiplot\n");
    /* marginals.svg: the histograms, two per row */
    const int rows = (k + 1) / 2;
    fig_begin(gp, "marginals", 900, 60 + 300 * rows);
    fprintf(gp, "set key off\nset style fill solid 0.5 border "
                "rgb '#2c7fb8'\nset multiplot layout %d,%d title "
                "'Marginals of the %lld kept target draws%s (%s); dashed: "
                "the mean'\n",
            rows, k > 1 ? 2 : 1, (long long)d.n,
            d.w ? ", weighted by the bias''s importance weights" : "",
            what);
    for (int q = 0; q < k; ++q) {
        draw_label(d.name[col[q]], lab, sizeof lab);
        double dmax = 0;
        for (int b = 0; b < DRAWS_BINS; ++b)
            dmax = dens[q][b] > dmax ? dens[q][b] : dmax;
        fprintf(gp, "unset arrow\nset xlabel '%s'\n"
                    "set ylabel 'probability density'\nset xtics %.9g\n"
                    "set xrange [%.9g:%.9g]\nset yrange [0:%.9g]\n"
                    "set arrow from %.9g, graph 0 to %.9g, graph 1 nohead "
                    "dt 2 lw 1.5 lc rgb 'black'\n"
                    "plot 'plots/marginals.csv' skip 1 using %d:%d with "
                    "boxes lc rgb '#9ecae1' notitle\n",
                lab, nice_step((hi[q] - lo[q]) / 4), lo[q], hi[q],
                dmax > 0 ? dmax * 1.08 : 1.0, mean[q],
                mean[q], 2 * q + 1, 2 * q + 2);
    }
    fprintf(gp, "unset multiplot\n");
    rx__paramdraws_free(&d);
    return 2;
}

int rx_cli_plots(rx_ctx *ctx, const rx_config *cfg, const char *dir,
                 char *why, size_t cap)
{
    int pr = rx_cli_plots_dir(dir, why, cap);
    if (pr != 0)
        return pr;
    char path[4096];
    rx_results r;
    rx_get_results(ctx, &r);
    const int P = r.n_chains;
    FILE *gp = open_in(dir, "plots.gp", path, sizeof path);
    if (!gp) {
        snprintf(why, cap, "%s: cannot write", path);
        return -1;
    }
    fprintf(gp, "# The figures of this run, drawn by replex; to redraw them "
                "run `gnuplot plots/plots.gp` in the run directory.\n");
    int figs = fig_index(gp, dir, &r);
    csvtab t;
    snprintf(path, sizeof path, "%s/trace.csv", dir);
    if (csv_read(path, &t) == 0) {
        if (t.nr >= 2) {
            figs += fig_acceptance(gp, &t, P, cfg);
            figs += fig_ladder(gp, &t, P, cfg);
            figs += fig_correction(gp, &t, cfg);
            figs += fig_sigma2(gp, &t, P);
        }
        csv_free(&t);
    }
    figs += fig_density(gp, dir, ctx, cfg, &r);
    figs += fig_draws(gp, dir, ctx, &r);
    fclose(gp);
    return figs ? rx_cli_run_gnuplot(dir, "plots.gp", why, cap) : 0;
}

/* ---- the figures of a sweep ---- */

/* Is every value of swept key I a number? */
static int key_numeric(const rx_sweep *sw, int i)
{
    for (int j = 0; j < sw->n_values[i]; ++j)
        if (isnan(csv_field(sw->values[i][j])))
            return 0;
    return 1;
}

/* Which value of key I run R (0-based) used: the last key varies fastest. */
static int run_value(const rx_sweep *sw, long r, int i)
{
    for (int k = sw->n_keys - 1; k > i; --k)
        r /= sw->n_values[k];
    return (int)(r % sw->n_values[i]);
}

void rx_cli_gp_quote(FILE *gp, const char *s)
{
    for (; *s; ++s) {
        if (*s == '\'')
            fputs("''", gp);
        else
            fputc((unsigned char)*s < 0x20 ? ' ' : *s, gp);
    }
}

/* The y2 quantity of the sweep figures: the TV distance where the target
 * has a density, else the network's test metric. */
static int sweep_y2(const csvtab *t, const char **label)
{
    static const struct {
        const char *col, *label;
    } Y2[] = {
        {"tv_distance", "TV distance to the true density"},
        {"accuracy", "test accuracy of the posterior average"},
        {"rmse", "test RMSE of the posterior average"},
    };
    for (size_t k = 0; k < sizeof Y2 / sizeof Y2[0]; ++k) {
        int c = csv_col(t, Y2[k].col);
        double lo, hi;
        if (c >= 0 && csv_range(t, c, 1, &lo, &hi)) {
            *label = Y2[k].label;
            return c;
        }
    }
    return -1;
}

/* sweep_data.csv: per run, the x of every key (its value, or its index
 * among the key's values when they are not numbers), the round trips and
 * the y2 quantity. */
static int sweep_data(const char *out, const rx_sweep *sw, const csvtab *t,
                      int crun, int ca, int c2)
{
    char path[4096];
    FILE *f = open_in(out, "sweep_data.csv", path, sizeof path);
    if (!f)
        return -1;
    for (long r = 0; r < t->nr; ++r) {
        double run = csv_at(t, r, crun);
        if (!(run >= 1))
            continue;
        for (int i = 0; i < sw->n_keys; ++i) {
            int j = run_value(sw, (long)run - 1, i);
            if (key_numeric(sw, i))
                fprintf(f, "%.17g,", csv_field(sw->values[i][j]));
            else
                fprintf(f, "%d,", j + 1);
        }
        fprintf(f, "%.9g,%.9g\n", csv_at(t, r, ca),
                c2 >= 0 ? csv_at(t, r, c2) : NAN);
    }
    return fclose(f) == 0 ? 0 : -1;
}

/* The x axis of key I: a tick at each value when there are at most 12
 * (the values as written in the file), a logarithmic scale for positive
 * numbers spanning a factor of 100 or more. */
static void sweep_xaxis(FILE *gp, const rx_sweep *sw, int i)
{
    const int n = sw->n_values[i];
    fprintf(gp, "set xlabel '%s'\n", sw->keys[i]);
    if (!key_numeric(sw, i)) {
        fprintf(gp, "set xrange [0.5:%d.5]\n", n);
    } else {
        double lo = 0, hi = 0;
        for (int j = 0; j < n; ++j) {
            double x = csv_field(sw->values[i][j]);
            lo = j == 0 || x < lo ? x : lo;
            hi = j == 0 || x > hi ? x : hi;
        }
        if (lo > 0 && hi / lo >= 100) {
            fprintf(gp, "set logscale x\nset xrange [%.9g:%.9g]\n",
                    lo / 1.5, hi * 1.5);
        } else {
            double pad = hi > lo ? (hi - lo) * 0.06
                                 : (lo != 0 ? fabs(lo) * 0.1 : 1);
            fprintf(gp, "set xrange [%.9g:%.9g]\n", lo - pad, hi + pad);
        }
    }
    if (n > 12)
        return;
    fprintf(gp, "set xtics (");
    for (int j = 0; j < n; ++j) {
        fprintf(gp, "%s'", j ? ", " : "");
        rx_cli_gp_quote(gp, sw->values[i][j]);
        if (key_numeric(sw, i))
            fprintf(gp, "' %.17g", csv_field(sw->values[i][j]));
        else
            fprintf(gp, "' %d", j + 1);
    }
    fprintf(gp, ")\n");
}

int rx_cli_sweep_plots(const char *out, const rx_sweep *sw, char *why,
                       size_t cap)
{
    int pr = rx_cli_plots_dir(out, why, cap);
    if (pr != 0)
        return pr;
    char path[4096];
    csvtab t;
    snprintf(path, sizeof path, "%s/sweep.csv", out);
    if (csv_read(path, &t) != 0) {
        snprintf(why, cap, "%s: cannot read", path);
        return -1;
    }
    const char *y2label = NULL;
    int crun = csv_col(&t, "run"), ca = csv_col(&t, "a5_per_1000");
    int c2 = sweep_y2(&t, &y2label);
    double alo = 0, ahi = 0, blo = 0, bhi = 0;
    int has_a = ca >= 0 && csv_range(&t, ca, 1, &alo, &ahi);
    int has_b = c2 >= 0 && csv_range(&t, c2, 1, &blo, &bhi);
    int rc = crun >= 0 && ca >= 0 ? sweep_data(out, sw, &t, crun, ca, c2)
                                  : -1;
    csv_free(&t);
    FILE *gp = rc == 0 ? open_in(out, "sweep.gp", path, sizeof path) : NULL;
    if (!gp) {
        snprintf(why, cap, "%s/plots: cannot write the sweep figures", out);
        return -1;
    }
    fprintf(gp, "# The figures of this sweep, drawn by replex; to redraw "
                "them run `gnuplot plots/sweep.gp` in the sweep directory.\n");
    int figs = 0;
    const int ya = sw->n_keys + 1, yb = sw->n_keys + 2;
    for (int i = 0; i < sw->n_keys && (has_a || has_b); ++i) {
        /* seeds repeat a setting: against them alone only when nothing
         * else is swept */
        if (!strcmp(sw->keys[i], "seed") && sw->n_keys > 1)
            continue;
        char name[160];
        snprintf(name, sizeof name, "sweep_%s", sw->keys[i]);
        for (char *c = name; *c; ++c)
            if (*c == '.')
                *c = '_';
        fig_begin(gp, name, 900, 500);
        fprintf(gp, "set title 'Sweep over %s: a point per run, lines "
                    "through the means%s'\n",
                sw->keys[i],
                sw->n_keys > 1 ? " (over the other swept keys)" : "");
        sweep_xaxis(gp, sw, i);
        if (has_a) {
            fprintf(gp, "set ylabel 'round trips per 1000 iterations'\n");
            value_axis(gp, "y", alo, ahi);
        }
        if (has_b) {
            fprintf(gp, "set %slabel '%s'\nset %stics\n", has_a ? "y2" : "y",
                    y2label, has_a ? "y2" : "y");
            value_axis(gp, has_a ? "y2" : "y", blo, bhi);
        }
        const char *sep = "plot ";
        if (has_a) {
            fprintf(gp, "plot 'plots/sweep_data.csv' using %d:%d with points "
                        "pt 7 ps 0.8 lc rgb '#2c7fb8' title 'round trips%s', "
                        "'' using %d:%d smooth unique with lines lw 2 "
                        "lc rgb '#2c7fb8' notitle",
                    i + 1, ya, has_b ? " (left axis)" : "", i + 1, ya);
            sep = ", ";
        }
        if (has_b)
            fprintf(gp, "%s'plots/sweep_data.csv' using %d:%d axes x1%s "
                        "with points pt 5 ps 0.8 lc rgb '#d95f02' "
                        "title '%s%s', '' using %d:%d axes x1%s smooth unique "
                        "with lines lw 2 dt 2 lc rgb '#d95f02' notitle",
                    sep, i + 1, yb, has_a ? "y2" : "y1", y2label,
                    has_a ? " (right axis)" : "", i + 1, yb,
                    has_a ? "y2" : "y1");
        fputc('\n', gp);
        ++figs;
    }
    fclose(gp);
    return figs ? rx_cli_run_gnuplot(out, "sweep.gp", why, cap) : 0;
}
