/*
 * Private to src/cli/: gnuplot found and run without a shell, the plots/
 * directory, and the pieces the figures of a run (plots.c) and of a sweep
 * (plots_sweep.c) share: a CSV table of numbers read back (trace.csv,
 * sweep.csv), a figure's opening, its axes and series (plotkit.c).
 */
#ifndef RX_CLI_PLOTKIT_H
#define RX_CLI_PLOTKIT_H

#include <stddef.h>
#include <stdio.h>

/* ---- gnuplot and the plots/ directory ---- */

/* Is gnuplot on PATH? */
int rx_cli_have_gnuplot(void);
/* Run gnuplot on plots/SCRIPT inside DIR (every path in a script is
 * relative to DIR, so no directory name ever becomes gnuplot code); its
 * messages go to DIR/plots/gnuplot.log. 0, or -1 with why. */
int rx_cli_run_gnuplot(const char *dir, const char *script, char *why,
                       size_t cap);
/* S inside a single-quoted gnuplot string: ' doubled, control characters
 * as spaces (the string stays on its line). No substitution happens in
 * single quotes, so any text is safe there. */
void rx_cli_gp_quote(FILE *gp, const char *s);
/* DIR/plots for gnuplot output: 0 created (or there), 1 no gnuplot (why
 * says so; skip), -1 cannot create (why). */
int rx_cli_plots_dir(const char *dir, char *why, size_t cap);
/* The default output directory of FILE: runs/<its name without .yaml>. */
void rx_cli_default_out(const char *file, char *buf, size_t cap);
/* Creates the missing parents of dir (not dir itself); 0 or -1 (errno). */
int rx_cli_mkdir_parents(const char *dir);

/* ---- a CSV table of numbers read back (trace.csv, sweep.csv) ---- */

typedef struct {
    int nc;      /* columns */
    long nr;     /* rows */
    char **name; /* the nc header names */
    double *v;   /* nr x nc; NaN where a field is empty or not a number */
} csvtab;

FILE *rx_cli_open_in(const char *dir, const char *name, char *path,
                     size_t cap);

void rx_cli_csv_free(csvtab *t);

/* One field at S (up to the next comma or the line's end) as a number. */
double rx_cli_csv_field(const char *s);

/* PATH: a header line, then rows of numbers. 0, or -1 when it cannot be
 * read (missing, empty, out of memory). */
int rx_cli_csv_read(const char *path, csvtab *t);

/* The column named NAME, or -1. */
int rx_cli_csv_col(const csvtab *t, const char *name);

/* The first of the N columns PREFIX1 .. PREFIXn when all are there in
 * order, or -1. */
int rx_cli_csv_cols(const csvtab *t, const char *prefix, int n);

double rx_cli_csv_at(const csvtab *t, long r, int j);

/* The range of the finite values in columns C0 .. C0+N-1; 0 when there is
 * none. */
int rx_cli_csv_range(const csvtab *t, int c0, int n, double *lo, double *hi);

/* Does any of the columns C0 .. C0+N-1 change from row to row? */
int rx_cli_csv_varies(const csvtab *t, int c0, int n);

/* A figure, plots/NAME.svg of W x H pixels, from gnuplot's defaults: the
 * settings of one figure never leak into the next. Plain text labels (no
 * enhanced-text markup: key names hold underscores). */
void rx_cli_fig_begin(FILE *gp, const char *name, int w, int h);

/* 1, 2 or 5 times a power of ten, at least RAW. */
double rx_cli_nice_step(double raw);

/* The x axis of iterations LO..HI, widened to round numbers: a labelled
 * tick on every multiple of a step giving 3 to 7 of them, written 20k or
 * 1.5M from 10000 on. */
void rx_cli_iter_axis(FILE *gp, double lo, double hi);

/* The range of axis AX ("y", "y2", "x") for values LO..HI: logarithmic
 * when they are positive and span a factor of 20 or more (labels on the
 * decades), else linear with a 5 % margin (a single value gets a margin of
 * its own, so no range is ever empty). */
void rx_cli_value_axis(FILE *gp, const char *ax, double lo, double hi);

/* Colours for N lines, one per pair (PAIRS) or position: each line its own
 * key entry when N <= 6, else a colour box. */
void rx_cli_series_setup(FILE *gp, int n, int pairs);

/* The plot clause of those N lines: gnuplot columns G0 .. G0+N-1 of FILE
 * (its header skipped) against column 1. */
void rx_cli_series_clause(FILE *gp, const char *file, int g0, int n,
                          int pairs);

/* The sequential palette of the density images. */
extern const char RX_CLI_PAL_DENSITY[];

#endif
