/*
 * Output directories of the CLI (src/cli/outdir.h).
 */
#define _XOPEN_SOURCE 700
#include "outdir.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include "../io/marker.h"
#include "plots.h"

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
    fprintf(stderr, "replex: %s %s; --force replaces only a directory "
            "replex wrote (a run, sweep, replicates or bench): choose "
            "another -o\n", out, why);
    return -1;
}

int rx_cli_make_multi_dir(const char *out, int force, const char *marker)
{
    struct stat sb;
    const int exists = lstat(out, &sb) == 0;
    if (exists && !force) {
        fprintf(stderr, "replex: %s: already exists; choose another -o or "
                "pass --force\n", out);
        return -1;
    }
    if (force && rx_cli_force_ok(out) != 0)
        return -1;
    /* --force replaces: nothing of the old runs (a longer sweep's
     * run-NNN, more replicates' rep-NN, a single run's files) stays */
    if (exists && rx__rm_tree(out) != 0) {
        fprintf(stderr, "replex: %s: cannot replace: %s\n", out,
                strerror(errno));
        return -1;
    }
    if (rx_cli_mkdir_parents(out) != 0 ||
        (mkdir(out, 0777) != 0 && errno != EEXIST) ||
        rx_cli_write_marker(out, marker) != 0) {
        fprintf(stderr, "replex: %s: cannot create: %s\n", out,
                strerror(errno));
        return -1;
    }
    rx_cli_clean_stale(out, 1, 0);
    return 0;
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

/* The PID in an open lock file; -1 when it holds none. */
static long read_pid(int fd)
{
    char b[32];
    ssize_t n = pread(fd, b, sizeof b - 1, 0);
    if (n <= 0)
        return -1;
    b[n] = '\0';
    char *end;
    long pid = strtol(b, &end, 10);
    return pid > 0 && (*end == '\n' || *end == '\0') ? pid : -1;
}

int rx_cli_lock_partial(const char *partial)
{
    char lp[PATH_MAX + 8];
    snprintf(lp, sizeof lp, "%s/lock", partial);
    /* never through a link: the lock file is truncated, written and at
     * the end removed, which would hit whatever the link points to */
    struct stat sb;
    if (lstat(partial, &sb) == 0 && !S_ISDIR(sb.st_mode)) {
        fprintf(stderr, "replex: %s is %s, not a directory replex made: "
                "remove it, or choose another -o\n", partial,
                S_ISLNK(sb.st_mode) ? "a symbolic link" : "a file");
        return -1;
    }
    int fd = open(lp, O_RDWR | O_CREAT | O_CLOEXEC | O_NOFOLLOW, 0666);
    if (fd < 0) {
        fprintf(stderr, "replex: %s: cannot create: %s\n", lp,
                strerror(errno));
        return -1;
    }
    if (flock(fd, LOCK_EX | LOCK_NB) != 0) {
        int e = errno;
        long pid = read_pid(fd);
        close(fd);
        if (e == EWOULDBLOCK) {
            char who[48] = "another process";
            if (pid > 0)
                snprintf(who, sizeof who, "process %ld", pid);
            fprintf(stderr, "replex: %s is in use by a running replex (%s): "
                    "wait for it to finish, or stop it first (a run with "
                    "checkpoints writes one on SIGINT)\n", partial, who);
        } else {
            fprintf(stderr, "replex: %s: cannot lock: %s\n", lp,
                    strerror(e));
        }
        return -1;
    }
    char b[32];
    int n = snprintf(b, sizeof b, "%ld\n", (long)getpid());
    if (ftruncate(fd, 0) != 0 || pwrite(fd, b, (size_t)n, 0) != n) {
        fprintf(stderr, "replex: %s: cannot write: %s\n", lp,
                strerror(errno));
        close(fd);
        return -1;
    }
    return fd;
}

long rx_cli_lock_holder(const char *partial)
{
    char lp[PATH_MAX + 8];
    snprintf(lp, sizeof lp, "%s/lock", partial);
    int fd = open(lp, O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return 0;
    long pid = 0;
    if (flock(fd, LOCK_SH | LOCK_NB) != 0)
        pid = errno == EWOULDBLOCK ? read_pid(fd) : 0;
    close(fd);
    return pid;
}

void rx_cli_unlock_partial(int fd, const char *partial, int remove)
{
    if (fd < 0)
        return;
    if (remove) {
        char lp[4200 + 8]; /* the callers' paths are 4200 bytes */
        snprintf(lp, sizeof lp, "%s/lock", partial);
        unlink(lp);
    }
    close(fd);
}

int rx_cli_lock_out(const char *out)
{
    char pd[PATH_MAX];
    if (strlen(out) > PATH_MAX - 16) {
        fprintf(stderr, "replex: %s: path too long\n", out);
        return -1;
    }
    snprintf(pd, sizeof pd, "%s.partial", out);
    if (rx_cli_mkdir_parents(pd) != 0 ||
        (mkdir(pd, 0777) != 0 && errno != EEXIST)) {
        fprintf(stderr, "replex: %s: cannot create: %s\n", pd,
                strerror(errno));
        return -1;
    }
    int fd = rx_cli_lock_partial(pd);
    if (fd < 0)
        rmdir(pd); /* ours when empty; a live owner's lock stays */
    return fd;
}

void rx_cli_unlock_out(int fd, const char *out)
{
    if (fd < 0)
        return;
    char pd[PATH_MAX];
    snprintf(pd, sizeof pd, "%.*s.partial", PATH_MAX - 16, out);
    rx_cli_unlock_partial(fd, pd, 1);
    rmdir(pd); /* stays while it holds an interrupted run's checkpoint */
}

/* A temporary directory of replex's: empty, or holding the marker. */
static int is_our_temp(const char *path)
{
    struct stat sb;
    if (lstat(path, &sb) != 0 || !S_ISDIR(sb.st_mode))
        return 0;
    char m[2 * PATH_MAX + 16];
    snprintf(m, sizeof m, "%s/%s", path, RX_MARKER_FILE);
    if (lstat(m, &sb) == 0 && S_ISREG(sb.st_mode))
        return 1;
    DIR *d = opendir(path);
    if (!d)
        return 0;
    int empty = 1;
    for (struct dirent *e; empty && (e = readdir(d));)
        if (strcmp(e->d_name, ".") && strcmp(e->d_name, ".."))
            empty = 0;
    closedir(d);
    return empty;
}

/* The PID of "<base>.tmp-PID" or "<base>.probe-PID" (any base when base
 * is NULL), else 0. */
static long temp_pid(const char *name, const char *base)
{
    const char *p = NULL;
    if (base) {
        size_t n = strlen(base);
        if (strncmp(name, base, n) != 0)
            return 0;
        p = name + n;
    } else {
        p = strrchr(name, '.');
        if (!p)
            return 0;
    }
    if (!strncmp(p, ".tmp-", 5))
        p += 5;
    else if (!strncmp(p, ".probe-", 7))
        p += 7;
    else
        return 0;
    char *end;
    long pid = strtol(p, &end, 10);
    return *p >= '0' && *p <= '9' && *end == '\0' && pid > 0 ? pid : 0;
}

int rx_cli_clean_stale(const char *out, int any_name, int own_lock)
{
    char dir[PATH_MAX], base[PATH_MAX] = "", part[PATH_MAX + 16];
    snprintf(dir, sizeof dir, "%s", out);
    if (!any_name) {
        char *sl = strrchr(dir, '/');
        snprintf(base, sizeof base, "%s", sl ? sl + 1 : dir);
        if (sl)
            sl[sl == dir ? 1 : 0] = '\0';
        else
            snprintf(dir, sizeof dir, ".");
        snprintf(part, sizeof part, "%s.partial", out);
        if (!own_lock && rx_cli_lock_holder(part) != 0)
            return 0; /* a live run owns out */
    }
    DIR *d = opendir(dir);
    if (!d)
        return 0;
    int removed = 0;
    for (struct dirent *e; (e = readdir(d));) {
        long pid = temp_pid(e->d_name, any_name ? NULL : base);
        if (pid <= 0 || pid == (long)getpid())
            continue;
        if (kill((pid_t)pid, 0) == 0 || errno != ESRCH)
            continue; /* its process is alive (or not ours to see) */
        char p[2 * PATH_MAX + 2];
        snprintf(p, sizeof p, "%s/%s", dir, e->d_name);
        if (is_our_temp(p) &&
            rx__rm_tree(p) == 0)
            ++removed;
    }
    closedir(d);
    return removed;
}

int rx_cli_check_writable(const char *out)
{
    if (rx_cli_mkdir_parents(out) != 0) {
        fprintf(stderr, "replex: %s: cannot create the parent directories: "
                "%s\n", out, strerror(errno));
        return -1;
    }
    char probe[4200];
    snprintf(probe, sizeof probe, "%s.probe-%ld", out, (long)getpid());
    if (mkdir(probe, 0777) != 0) {
        fprintf(stderr, "replex: %s: cannot create the run directory: %s\n",
                out, strerror(errno));
        return -1;
    }
    rmdir(probe);
    return 0;
}

void rx_cli_partial_paths(const char *out, char *dir, char *ck, char *cf,
                          char *src, size_t cap)
{
    snprintf(dir, cap, "%s.partial", out);
    snprintf(ck, cap, "%s.partial/checkpoint.bin", out);
    snprintf(cf, cap, "%s.partial/config.yaml", out);
    snprintf(src, cap, "%s.partial/source", out);
}

void rx_cli_partial_remove(const char *out, int dir)
{
    char d[4200], ck[4200], cf[4200], sr[4200];
    rx_cli_partial_paths(out, d, ck, cf, sr, sizeof d);
    remove(ck);
    remove(cf);
    remove(sr);
    char tmp[4300];
    snprintf(tmp, sizeof tmp, "%s.tmp", ck);
    remove(tmp);
    if (dir) {
        snprintf(tmp, sizeof tmp, "%s/lock", d);
        remove(tmp);
        rmdir(d);
    }
}

int rx_cli_partial_start(const char *out, int force, const rx_config *cfg,
                         const char *source, int *lock)
{
    char d[4200], ck[4200], cf[4200], sr[4200];
    rx_cli_partial_paths(out, d, ck, cf, sr, sizeof d);
    int existed = 0;
    if (mkdir(d, 0777) != 0) {
        if (errno != EEXIST) {
            fprintf(stderr, "replex: %s: cannot create: %s\n", d,
                    strerror(errno));
            return 2;
        }
        existed = access(ck, F_OK) == 0; /* else a plain run's lock */
    }
    if ((*lock = rx_cli_lock_partial(d)) < 0)
        return 2;
    if (existed && !force) {
        fprintf(stderr, "replex: %s exists (an interrupted run): "
                "continue it with `replex run --resume %s`, or pass "
                "--force to start over\n", d, out);
        rx_cli_unlock_partial(*lock, d, 0);
        *lock = -1;
        return 2;
    }
    if (existed)
        rx_cli_partial_remove(out, 0);
    rx_err err = {""};
    FILE *f = NULL;
    if (rx_config_write(cfg, cf, &err) != RX_OK ||
        !(f = fopen(sr, "w")) || fputs(source, f) < 0 || fclose(f) != 0) {
        fprintf(stderr, "replex: %s: cannot write the run's configuration: "
                "%s\n", d, err.msg[0] ? err.msg : strerror(errno));
        rx_cli_unlock_partial(*lock, d, 1);
        *lock = -1;
        rx_cli_partial_remove(out, 1);
        return 1;
    }
    return 0;
}
