/*
 * `replex summary DIR`: the per-parameter table of a finished run,
 * replicates or sweep directory, read from its files (CLI only).
 */
#ifndef RX_CLI_SUMMARY_H
#define RX_CLI_SUMMARY_H

/* How the table is written: as `replex run` printed it, or as JSON or
 * CSV for a program. */
typedef enum {
    RX_CLI_SUMMARY_TEXT,
    RX_CLI_SUMMARY_JSON,
    RX_CLI_SUMMARY_CSV
} rx_cli_summary_format;

/* Prints the table(s) of dir on stdout; returns the exit status (2 with
 * the reason on stderr when dir is not a finished directory replex
 * wrote, 1 out of memory or when stdout cannot be written). */
int rx_cli_summary(const char *dir, rx_cli_summary_format format);

#endif
