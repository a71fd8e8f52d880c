/*
 * Progress display and interrupt handling of `replex run` (CLI only).
 * One rx_cli_progress per process run; the signal flag is process-global
 * (a signal handler can only reach static storage), the rest is per run.
 */
#ifndef RX_CLI_PROGRESS_H
#define RX_CLI_PROGRESS_H

#include <signal.h>
#include <stdint.h>
#include <stdio.h>

#include "replex/replex.h"

typedef struct rx_cli_progress {
    FILE *f;             /* stderr */
    int tty;             /* 1: one self-overwriting line; 0: plain lines */
    int quiet;           /* 1: nothing printed, interrupts still honoured */
    int64_t every;       /* iterations between callbacks, 0 by time */
    double interval;     /* plain lines: at least this many seconds apart */
    const char *label;   /* prefix of each line, e.g. "run" or "run 3/8" */
    int P;               /* chains, for chain-steps/s */
    int line_open;       /* tty: a progress line is on screen, unterminated */
    int printed;         /* plain: lines printed so far in this run */
    double last_t;       /* elapsed_s of the last line / redraw */
    int64_t last_k;      /* iteration of the last plain line */
    int64_t seen_k;      /* iteration of the last callback */
    int engine_stops;    /* 1: the engine watches the signal flag itself
                            (checkpointing runs): the callback does not
                            abort */
} rx_cli_progress;

/* every <= 0: paced by time (see progress.c); interval: seconds (plain
 * mode). */
void rx_cli_progress_init(rx_cli_progress *pr, int quiet, int64_t every,
                          double interval);

/* Installs the callback on ctx for a run of K iterations and P chains. */
rx_status rx_cli_progress_attach(rx_cli_progress *pr, rx_ctx *ctx,
                                 const char *label, int64_t K, int P);

/* Terminates an open tty line (before any other output to stderr). */
void rx_cli_progress_break(rx_cli_progress *pr);

/* SIGINT / SIGTERM: the handlers only record the signal; the progress
 * callback then stops the run (RX_EABORTED). install returns 0 on success;
 * restore puts back the previous dispositions. */
int rx_cli_signals_install(void);
void rx_cli_signals_restore(void);
/* The signal received since install (SIGINT, SIGTERM), or 0. */
int rx_cli_interrupted(void);
/* The flag itself, for rx_set_stop_flag. */
volatile sig_atomic_t *rx_cli_signal_flag(void);

#endif
