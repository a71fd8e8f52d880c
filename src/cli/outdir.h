/*
 * Output directories of the CLI: what --force may replace, the lock of a
 * live run's DIR.partial, and the temporaries a killed run left.
 */
#ifndef RX_CLI_OUTDIR_H
#define RX_CLI_OUTDIR_H

/* 0 when `--force` may replace (or, for a sweep, write into) out: it does
 * not exist, or it is a directory (not a link) holding replex's marker
 * file and is not /, $HOME, the working directory or one of its parents.
 * Otherwise prints why (naming out) and returns -1: exit 2. */
int rx_cli_force_ok(const char *out);

/* Writes the marker file (content text) into dir; 0 or -1 (errno). */
int rx_cli_write_marker(const char *dir, const char *text);

#endif
