/*
 * The help texts of `replex` (CLI only): `replex --help`, `replex help
 * CMD` and `replex CMD --help`.
 */
#ifndef RX_CLI_HELP_H
#define RX_CLI_HELP_H

#include <stdio.h>

/* One command of `replex`. */
typedef struct rx_cli_cmd_help {
    const char *name;
    const char *synopsis; /* after "replex NAME" */
    const char *summary;  /* one line, for `replex --help` */
    const char *details;  /* options and notes, for `replex help NAME` */
} rx_cli_cmd_help;

/* The command called name, or NULL. */
const rx_cli_cmd_help *rx_cli_find_cmd(const char *name);
/* `replex --help`: the commands, examples and exit statuses, into f. */
void rx_cli_usage(FILE *f);
/* `replex CMD --help` of command h into f. */
void rx_cli_cmd_usage(FILE *f, const rx_cli_cmd_help *h);

#endif
