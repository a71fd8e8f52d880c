/*
 * gnuplot figures of a finished run (CLI only).
 */
#ifndef RX_CLI_PLOTS_H
#define RX_CLI_PLOTS_H

#include <stddef.h>
#include <stdio.h>

#include "replex/replex.h"
#include "plotkit.h"

/* 0: plots written to DIR/plots; 1: skipped (why says so); -1: failed. */
int rx_cli_plots(rx_ctx *ctx, const rx_config *cfg, const char *dir,
                 char *why, size_t cap);

/* One figure per swept key (none for `seed` beside other keys): the
 * round-trip rate and the TV distance (network targets: the test metric)
 * against the key's values, every run a point, lines through the means
 * (out/plots). */
int rx_cli_sweep_plots(const char *out, const rx_sweep *sw, char *why,
                       size_t cap);

#endif
