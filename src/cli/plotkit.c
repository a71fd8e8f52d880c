/*
 * The pieces of the gnuplot figures (plotkit.h): gnuplot found on PATH and
 * run without a shell, the plots/ directory, a CSV table of numbers read
 * back, a figure's opening, axes and series. Part of the CLI: the library
 * never starts programs.
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

#include "plotkit.h"

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

FILE *rx_cli_open_in(const char *dir, const char *name, char *path,
                     size_t cap)
{
    snprintf(path, cap, "%s/plots/%s", dir, name);
    return fopen(path, "w");
}

/* ---- a CSV table of numbers read back (trace.csv, sweep.csv) ---- */


void rx_cli_csv_free(csvtab *t)
{
    for (int j = 0; t->name && j < t->nc; ++j)
        free(t->name[j]);
    free(t->name);
    free(t->v);
    memset(t, 0, sizeof *t);
}

/* One field at S (up to the next comma or the line's end) as a number. */
double rx_cli_csv_field(const char *s)
{
    char *end;
    double x = strtod(s, &end);
    if (end == s || (*end && *end != ',' && *end != '\n' && *end != '\r'))
        return NAN;
    return x;
}

/* PATH: a header line, then rows of numbers. 0, or -1 when it cannot be
 * read (missing, empty, out of memory). */
int rx_cli_csv_read(const char *path, csvtab *t)
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
            row[j] = rx_cli_csv_field(s);
            s += strcspn(s, ",");
            s += *s == ',';
        }
    }
    free(line);
    fclose(f);
    if (!ok)
        rx_cli_csv_free(t);
    return ok ? 0 : -1;
}

/* The column named NAME, or -1. */
int rx_cli_csv_col(const csvtab *t, const char *name)
{
    for (int j = 0; j < t->nc; ++j)
        if (!strcmp(t->name[j], name))
            return j;
    return -1;
}

/* The first of the N columns PREFIX1 .. PREFIXn when all are there in
 * order, or -1. */
int rx_cli_csv_cols(const csvtab *t, const char *prefix, int n)
{
    char a[64], b[64];
    snprintf(a, sizeof a, "%s1", prefix);
    snprintf(b, sizeof b, "%s%d", prefix, n);
    int c0 = rx_cli_csv_col(t, a);
    return n > 0 && c0 >= 0 && rx_cli_csv_col(t, b) == c0 + n - 1 ? c0 : -1;
}

double rx_cli_csv_at(const csvtab *t, long r, int j)
{
    return t->v[(size_t)r * (size_t)t->nc + (size_t)j];
}

/* The range of the finite values in columns C0 .. C0+N-1; 0 when there is
 * none. */
int rx_cli_csv_range(const csvtab *t, int c0, int n, double *lo, double *hi)
{
    int any = 0;
    for (long r = 0; r < t->nr; ++r)
        for (int j = c0; j < c0 + n; ++j) {
            double x = rx_cli_csv_at(t, r, j);
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
int rx_cli_csv_varies(const csvtab *t, int c0, int n)
{
    for (int j = c0; j < c0 + n; ++j)
        for (long r = 1; r < t->nr; ++r) {
            double a = rx_cli_csv_at(t, 0, j), b = rx_cli_csv_at(t, r, j);
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
const char RX_CLI_PAL_DENSITY[] =
    "set palette defined (0 '#440154', 0.25 '#3b528b', 0.5 '#21908d', "
    "0.75 '#5dc963', 1 '#fde725')\n";

/* A figure, plots/NAME.svg of W x H pixels, from gnuplot's defaults: the
 * settings of one figure never leak into the next. Plain text labels (no
 * enhanced-text markup: key names hold underscores). */
void rx_cli_fig_begin(FILE *gp, const char *name, int w, int h)
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
double rx_cli_nice_step(double raw)
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
void rx_cli_iter_axis(FILE *gp, double lo, double hi)
{
    if (!(hi > lo))
        hi = lo + 1;
    double st = rx_cli_nice_step((hi - lo) / 6);
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
void rx_cli_value_axis(FILE *gp, const char *ax, double lo, double hi)
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
void rx_cli_series_setup(FILE *gp, int n, int pairs)
{
    fputs(PAL_SERIES, gp);
    if (n <= 6) {
        fprintf(gp, "unset colorbox\n");
        return;
    }
    double st = rx_cli_nice_step(n / 8.0);
    fprintf(gp, "set cbrange [1:%d]\nset cbtics %g\nset cblabel '%s'\n"
                "set colorbox\n",
            n, st < 1 ? 1 : st,
            pairs ? "pair p (positions p and p+1)"
                  : "position q (1 = target)");
}

/* The plot clause of those N lines: gnuplot columns G0 .. G0+N-1 of FILE
 * (its header skipped) against column 1. */
void rx_cli_series_clause(FILE *gp, const char *file, int g0, int n,
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

void rx_cli_gp_quote(FILE *gp, const char *s)
{
    for (; *s; ++s) {
        if (*s == '\'')
            fputs("''", gp);
        else
            fputc((unsigned char)*s < 0x20 ? ' ' : *s, gp);
    }
}
