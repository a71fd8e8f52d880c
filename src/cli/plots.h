/*
 * gnuplot figures of a finished run (CLI only).
 */
#ifndef RX_CLI_PLOTS_H
#define RX_CLI_PLOTS_H

#include <stddef.h>

#include "replex/replex.h"

/* 0: plots written to DIR/plots; 1: skipped (why says so); -1: failed. */
int rx_cli_plots(rx_ctx *ctx, const rx_config *cfg, const char *dir,
                 char *why, size_t cap);

/* One figure per swept key: the round-trip rate and (when known) the TV
 * distance against the key's values, every run a point (out/plots). */
int rx_cli_sweep_plots(const char *out, const rx_sweep *sw, char *why,
                       size_t cap);

#endif
