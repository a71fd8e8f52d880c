/*
 * `replex bench`: a grid benchmark of the engine (CLI only).
 */
#ifndef RX_CLI_BENCH_H
#define RX_CLI_BENCH_H

#include <stdio.h>

/* Runs `replex bench` with the arguments after the command name (argv[0]
 * is the first of them; --help is handled by the caller). usage prints the
 * command's help (on a usage error, to stderr). Returns the exit status:
 * 0 ok, 1 a run failed or the outputs could not be written, 2 bad input. */
int rx_cli_bench(int argc, char **argv, void (*usage)(FILE *f));

#endif
