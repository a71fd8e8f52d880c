/*
 * `replex summary DIR`: the per-parameter table of a finished run,
 * replicates or sweep directory, read from its files (CLI only).
 */
#ifndef RX_CLI_SUMMARY_H
#define RX_CLI_SUMMARY_H

/* Prints the table(s) of dir on stdout; returns the exit status (2 with
 * the reason on stderr when dir is not a finished directory replex
 * wrote, 1 out of memory). */
int rx_cli_summary(const char *dir);

#endif
