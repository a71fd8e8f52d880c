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

/* A run estimated to take this many seconds or more prints its notes
 * without -v (the estimate: elapsed time x K / k, from one second into
 * the run on). */
#define RX_CLI_NOTE_S 10.0
/* The notes held until the run is known to be long (more are dropped). */
#define RX_CLI_NOTES 8

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
    /* the run's notes (the library's RX_LOG_INFO messages): printed at
     * once with verbose or once the run is long (RX_CLI_NOTE_S), held
     * until then, dropped for a short run */
    int verbose;         /* -v: every note at once */
    int long_run;        /* the run takes RX_CLI_NOTE_S or more */
    int nnotes;          /* held notes */
    char notes[RX_CLI_NOTES][512];
} rx_cli_progress;

/* every <= 0: paced by time (see progress.c); interval: seconds (plain
 * mode). */
void rx_cli_progress_init(rx_cli_progress *pr, int quiet, int64_t every,
                          double interval);

/* Installs the callback on ctx for a run of K iterations and P chains. */
rx_status rx_cli_progress_attach(rx_cli_progress *pr, rx_ctx *ctx,
                                 const char *label, int64_t K, int P);

/* The log callback of a run (rx_logger, user = the rx_cli_progress):
 * errors and warnings at once; notes (info, debug) as the fields above
 * say. Lines "replex: LEVEL: MESSAGE" on stderr. */
void rx_cli_progress_log(void *user, int level, const char *msg);

/* The progress callback's check of the run's length: t seconds after
 * iteration k of K. From t >= 1 s on, a run estimated (t K / k) to take
 * RX_CLI_NOTE_S or more is long: the held notes are printed, later ones
 * at once. */
void rx_cli_progress_estimate(rx_cli_progress *pr, double t, int64_t k,
                              int64_t K);

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
