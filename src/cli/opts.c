/*
 * Option parsing of every `replex` command (src/cli/opts.h): getopt_long
 * in its in-order mode ("-" first in the short options: operands come
 * back in place, whatever POSIXLY_CORRECT says), with its messages off
 * (":" and opterr = 0) so that every usage error is one line of ours.
 */
#define _GNU_SOURCE /* getopt_long */
#include "opts.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "replex/replex.h"

int rx_cli_bad(rx_cli_args *a, const char *fmt, ...)
{
    if (a->err[0])
        return 0;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(a->err, sizeof a->err, fmt, ap);
    va_end(ap);
    return 0;
}

int rx_cli_usage_error(const char *cmd, const char *fmt, ...)
{
    char msg[700];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    if (cmd && strcmp(cmd, "help") != 0)
        fprintf(stderr, "replex: %s: %s\nTry 'replex %s --help'.\n", cmd,
                msg, cmd);
    else if (cmd)
        fprintf(stderr, "replex: %s: %s\nTry 'replex --help'.\n", cmd, msg);
    else
        fprintf(stderr, "replex: %s\nTry 'replex --help'.\n", msg);
    return 2;
}

int rx_cli_opt_ll(rx_cli_args *a, const char *name, const char *s,
                  long long lo, long long hi, long long *out)
{
    char *end;
    errno = 0;
    long long v = strtoll(s, &end, 10);
    if (*end || end == s || errno == ERANGE || v < lo || v > hi) {
        rx_cli_bad(a, "--%s: expected an integer in [%lld, %lld], got '%s'",
                   name, lo, hi, s);
        return -1;
    }
    *out = v;
    return 0;
}

/* "--name" of a long argument, without its "=value". */
static void long_name(const char *arg, char *buf, size_t cap)
{
    size_t n = strcspn(arg, "=");
    snprintf(buf, cap, "%.*s", (int)(n < 200 ? n : 200), arg);
}

/* The long options that "--pre" abbreviates, as "--a, --b"; their count. */
static int matches(const struct option *lo, const char *pre, char *buf,
                   size_t cap)
{
    const size_t n = strlen(pre);
    int k = 0;
    size_t w = 0;
    buf[0] = '\0';
    for (int i = 0; lo[i].name; ++i)
        if (!strncmp(lo[i].name, pre, n)) {
            if (w < cap)
                w += (size_t)snprintf(buf + w, cap - w, "%s--%s",
                                      k ? ", " : "", lo[i].name);
            ++k;
        }
    return k;
}

/* The usage error of getopt's '?' or ':' (code), from optopt and the
 * argument it stopped at. */
static void opt_error(rx_cli_args *a, const struct option *lo, int code,
                      int opt, const char *at)
{
    char name[210];
    /* a long option: the argument getopt just passed starts with "--" and
     * names it (for a short one in a bundle, `at` may be an earlier
     * argument, so the long reading must match opt) */
    int is_long = at && !strncmp(at, "--", 2) && at[2];
    if (is_long) {
        long_name(at, name, sizeof name);
        if (opt) {
            char list[400];
            is_long = matches(lo, name + 2, list, sizeof list) > 0;
            int same = 0;
            for (int i = 0; is_long && lo[i].name; ++i)
                same |= lo[i].val == opt &&
                        !strncmp(lo[i].name, name + 2, strlen(name + 2));
            is_long = same;
        }
    }
    if (code == ':') {
        if (is_long)
            rx_cli_bad(a, "option '%s' needs a value", name);
        else
            rx_cli_bad(a, "option '-%c' needs a value", opt);
        return;
    }
    if (!is_long) {
        if (opt > 32 && opt < 127)
            rx_cli_bad(a, "unknown option '-%c'", opt);
        else
            rx_cli_bad(a, "unknown option '%s'", at ? at : "?");
        return;
    }
    if (opt) { /* a known flag given a value: --force=1 */
        rx_cli_bad(a, "option '%s' takes no value", name);
        return;
    }
    char list[400];
    if (matches(lo, name + 2, list, sizeof list) > 1)
        rx_cli_bad(a, "option '%s' is ambiguous (%s)", name, list);
    else
        rx_cli_bad(a, "unknown option '%s'", name);
}

int rx_cli_parse(rx_cli_args *a, int argc, char **argv,
                 const struct option *opts,
                 void (*on)(rx_cli_args *a, void *user, int id,
                            const char *arg),
                 void *user)
{
    int n = 0;
    while (opts && opts[n].name)
        ++n;
    struct option *lo = calloc((size_t)n + 2, sizeof *lo);
    char *shorts = malloc(3 * (size_t)n + 8);
    if (!lo || !shorts) {
        free(lo);
        free(shorts);
        fprintf(stderr, "replex: out of memory\n");
        return 1;
    }
    size_t w = 0;
    shorts[w++] = '-'; /* operands in order, as option 1 */
    shorts[w++] = ':'; /* ':' for a missing value, no messages */
    shorts[w++] = 'h';
    for (int i = 0; i < n; ++i) {
        lo[i] = opts[i];
        if (opts[i].val > 1 && opts[i].val < 256 && !opts[i].flag) {
            shorts[w++] = (char)opts[i].val;
            if (opts[i].has_arg == required_argument)
                shorts[w++] = ':';
        }
    }
    shorts[w] = '\0';
    lo[n] = (struct option){"help", no_argument, NULL, RX_CLI_HELP};
    opterr = 0;
    optind = 0; /* a fresh scan (glibc, musl) */
    int c, li;
    while ((c = getopt_long(argc, argv, shorts, lo, &li)) != -1) {
        if (c == RX_CLI_HELP)
            a->help = 1;
        else if (c == '?' || c == ':')
            opt_error(a, lo, c, optopt,
                      optind > 0 && optind <= argc ? argv[optind - 1] : NULL);
        else
            on(a, user, c, optarg);
    }
    for (; optind < argc; ++optind) /* after "--" */
        on(a, user, RX_CLI_OPERAND, argv[optind]);
    free(lo);
    free(shorts);
    if (a->help)
        return 0;
    if (a->err[0])
        return rx_cli_usage_error(a->cmd, "%s", a->err);
    return -1;
}

int rx_cli_create_exit(int st)
{
    return st == RX_ECONFIG || st == RX_EINVAL || st == RX_EDATA ||
                   st == RX_EIO
               ? 2
               : 1;
}
