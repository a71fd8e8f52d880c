/*
 * Output directories of the CLI (src/cli/outdir.h).
 */
#define _XOPEN_SOURCE 700
#include "outdir.h"

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "../io/marker.h"

/* Is a (a resolved path) b itself or one of b's parents? */
static int is_self_or_parent(const char *a, const char *b)
{
    size_t n = strlen(a);
    if (strncmp(a, b, n) != 0)
        return 0;
    return b[n] == '\0' || b[n] == '/' || (n == 1 && a[0] == '/');
}

int rx_cli_force_ok(const char *out)
{
    struct stat sb;
    if (lstat(out, &sb) != 0)
        return 0; /* nothing there to replace */
    char ro[PATH_MAX], rc[PATH_MAX], rh[PATH_MAX];
    const char *why = NULL;
    const char *home = getenv("HOME");
    if (S_ISLNK(sb.st_mode))
        why = "is a symbolic link";
    else if (!S_ISDIR(sb.st_mode))
        why = "is not a directory";
    else if (!realpath(out, ro))
        why = "cannot be resolved";
    else if (!strcmp(ro, "/"))
        why = "is the root directory";
    else if (home && home[0] && realpath(home, rh) && !strcmp(ro, rh))
        why = "is the home directory";
    else if (getcwd(rc, sizeof rc) && is_self_or_parent(ro, rc))
        why = "is the working directory or one of its parents";
    if (!why) {
        char m[PATH_MAX + 16];
        snprintf(m, sizeof m, "%s/%s", out, RX_MARKER_FILE);
        if (lstat(m, &sb) != 0 || !S_ISREG(sb.st_mode))
            why = "is not a directory replex wrote (it has no " RX_MARKER_FILE
                  " file)";
    }
    if (!why)
        return 0;
    fprintf(stderr, "replex: %s %s; --force replaces only a run or sweep "
            "directory replex wrote: choose another -o\n", out, why);
    return -1;
}

int rx_cli_write_marker(const char *dir, const char *text)
{
    char m[PATH_MAX + 16];
    snprintf(m, sizeof m, "%s/%s", dir, RX_MARKER_FILE);
    FILE *f = fopen(m, "w");
    if (!f)
        return -1;
    int bad = fputs(text, f) < 0;
    return fclose(f) != 0 || bad ? -1 : 0;
}
