/*
 * gnuplot figures of a finished run (CLI only).
 */
#ifndef RX_CLI_PLOTS_H
#define RX_CLI_PLOTS_H

#include <stddef.h>
#include <stdio.h>

#include "replex/replex.h"

/* 0: plots written to DIR/plots; 1: skipped (why says so); -1: failed. */
int rx_cli_plots(rx_ctx *ctx, const rx_config *cfg, const char *dir,
                 char *why, size_t cap);

/* One figure per swept key (none for `seed` beside other keys): the
 * round-trip rate and the TV distance (network targets: the test metric)
 * against the key's values, every run a point, lines through the means
 * (out/plots). */
int rx_cli_sweep_plots(const char *out, const rx_sweep *sw, char *why,
                       size_t cap);

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

#endif
