/*
 * `replex bench`: a grid benchmark of the engine (CLI only).
 */
#ifndef RX_CLI_BENCH_H
#define RX_CLI_BENCH_H

#include <stdio.h>

/* Runs `replex bench` (argv[0] is "bench", the options and the grid file
 * follow). usage prints the command's help (for -h / --help). Returns the
 * exit status: 0 ok (or the help), 1 a run failed or the outputs could not
 * be written, 2 bad input. */
int rx_cli_bench(int argc, char **argv, void (*usage)(FILE *f));

#endif
