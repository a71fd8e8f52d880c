/*
 * Option parsing of every `replex` command (CLI only): POSIX/GNU
 * getopt_long semantics, and usage errors as one line and a hint.
 */
#ifndef RX_CLI_OPTS_H
#define RX_CLI_OPTS_H

#include <getopt.h>

/* The id an operand (a non-option argument) is passed with. */
#define RX_CLI_OPERAND 1
/* The id of -h / --help, which every command takes. */
#define RX_CLI_HELP 'h'

/* The state of one command's parse: its name and the first usage error. */
typedef struct rx_cli_args {
    const char *cmd; /* "run", "bench", ...; NULL: `replex` itself */
    int help;        /* -h or --help seen */
    char err[600];   /* the first usage error, "" when none */
} rx_cli_args;

/* Records a usage error (the first one is kept); returns 0. */
int rx_cli_bad(rx_cli_args *a, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 2, 3)))
#endif
    ;

/* Parses the arguments of `replex CMD` (argv[0] is CMD) as getopt_long
 * does: --name=value and --name value, -xVALUE and -x VALUE, bundled flags
 * (-qv), unambiguous abbreviations of long names, options and operands in
 * any order, `--` ends the options. opts: the command's options, ended by
 * a zero row; val is the short letter, or an id >= 256 for a long-only
 * option; -h/--help is added. For every option and operand, in order,
 * calls on(a, user, id, arg) (id RX_CLI_OPERAND for an operand, arg NULL
 * for a flag), which records a problem with rx_cli_bad. Returns -1 to go
 * on; 0 when -h/--help was given anywhere (the caller prints the help; an
 * error beside it is ignored); else prints the first usage error
 * (rx_cli_usage_error) and returns 2. */
int rx_cli_parse(rx_cli_args *a, int argc, char **argv,
                 const struct option *opts,
                 void (*on)(rx_cli_args *a, void *user, int id,
                            const char *arg),
                 void *user);

/* Prints a usage error of `replex CMD` (CMD NULL: `replex`): the line
 * "replex: CMD: MESSAGE" and the hint "Try 'replex CMD --help'." on
 * stderr; returns 2, the exit status of bad input. */
int rx_cli_usage_error(const char *cmd, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 2, 3)))
#endif
    ;

/* Integer option value of --NAME in [lo, hi] into *out; a usage error
 * ("--NAME: expected an integer in [lo, hi], got 'S'") and -1 if not. */
int rx_cli_opt_ll(rx_cli_args *a, const char *name, const char *s,
                  long long lo, long long hi, long long *out);

/* The exit status of a failed rx_create (st, an rx_status):
 * configuration, data file and shape errors are bad input (2), the rest
 * a failed run (1). */
int rx_cli_create_exit(int st);

#endif
