/*
 * The names a checkpoint puts in its directory. `replex run` keeps its
 * checkpoint in DIR.partial and, when the run completes, removes the
 * files it knows there (checkpoint.bin, checkpoint.bin.tmp, config.yaml,
 * source, lock) and the directory. A run killed with SIGKILL (or a power
 * cut) at any moment leaves whatever names exist at that moment, so the
 * checkpoint writer and the resume's reader must create no other name in
 * the directory, even briefly: any other would keep DIR.partial from
 * being removed after a successful resume.
 *
 * Every name that appears in the checkpoint's directory (inotify: created
 * or renamed into it) while a run is stopped with a checkpoint and then
 * resumed from it to the end must be checkpoint.bin.tmp (created) or
 * checkpoint.bin (renamed into place). Periodic checkpoints go through the
 * same writer.
 * Linux only (inotify); elsewhere the test is skipped.
 */
#define _POSIX_C_SOURCE 200809L
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "replex/replex.h"
#include "check.h"
#include "stop_run.h"

#ifdef __linux__
#include <sys/inotify.h>

static char base[] = "/tmp/replex-test-ckfiles-XXXXXX";
static char ck[160];

/* Reads the queued events of fd; CHECKs that each name is expected and
 * counts the creations of the temporary file and the renames into
 * place. */
static void drain(int fd, int *n_tmp, int *n_ck)
{
    _Alignas(struct inotify_event) char buf[4096];
    for (;;) {
        ssize_t n = read(fd, buf, sizeof buf);
        if (n <= 0)
            return;
        for (char *p = buf; p < buf + n;) {
            const struct inotify_event *e = (const struct inotify_event *)p;
            const char *name = e->len ? e->name : "";
            CHECK_MSG(!(e->mask & IN_Q_OVERFLOW), "inotify queue overflow");
            if ((e->mask & IN_CREATE) && !strcmp(name, "checkpoint.bin.tmp"))
                ++*n_tmp;
            else if ((e->mask & IN_MOVED_TO) &&
                     !strcmp(name, "checkpoint.bin"))
                ++*n_ck;
            else if (e->mask & (IN_CREATE | IN_MOVED_TO))
                CHECK_MSG(0, "%s appeared in the checkpoint's directory "
                          "(%s): a run killed then leaves it there, and "
                          "the completed resume cannot remove the "
                          "directory", name,
                          e->mask & IN_CREATE ? "created" : "renamed into it");
            p += sizeof *e + e->len;
        }
    }
}

int main(void)
{
    if (!mkdtemp(base)) {
        perror("mkdtemp");
        return 1;
    }
    const char *src = getenv("RX_SRCDIR");
    char yaml[1200];
    snprintf(yaml, sizeof yaml, "%s/yaml/gmm_1d_two_modes.yaml",
             src ? src : "..");
    snprintf(ck, sizeof ck, "%s/checkpoint.bin", base);
    static const char *const sets[] = {"iterations=60", "record.burn_in=5"};
    rx_config cfg;
    rx_err err = {""};
    rx_status st = rx_config_load(yaml, sets, 2, &cfg, &err);
    CHECK_MSG(st == RX_OK, "%s", err.msg);
    if (st != RX_OK) {
        rmdir(base);
        return check_done();
    }
    int fd = inotify_init1(IN_NONBLOCK | IN_CLOEXEC);
    if (fd < 0 || inotify_add_watch(fd, base, IN_CREATE | IN_MOVED_TO) < 0) {
        perror("inotify (test skipped)");
        rx_config_free(&cfg);
        rmdir(base);
        return 77;
    }

    /* stopped after iteration 35: a checkpoint written; then resumed (the
     * recorded configuration compared with this one) and run to the end */
    int n_tmp = 0, n_ck = 0;
    stopper s;
    rx_ctx *c = stop_run(&cfg, 1, NULL, 35, ck, &s, &st);
    CHECK_MSG(st == RX_EABORTED, "the stopped run: %s",
              c ? rx_errmsg(c) : "");
    rx_destroy(&c);
    drain(fd, &n_tmp, &n_ck);
    CHECK_MSG(n_tmp == 1 && n_ck == 1, "%d temporary files created, %d "
              "renamed into place; one checkpoint expected", n_tmp, n_ck);
    c = stop_run(&cfg, 1, ck, -1, NULL, &s, &st);
    CHECK_MSG(st == RX_OK, "the resumed run: %s", c ? rx_errmsg(c) : "");
    rx_destroy(&c);
    drain(fd, &n_tmp, &n_ck);
    CHECK(n_tmp == 1 && n_ck == 1);
    close(fd);
    rx_config_free(&cfg);
    remove(ck);
    rmdir(base);
    return check_done();
}
#else
int main(void)
{
    fputs("test_ckpt_files: inotify is Linux only (test skipped)\n", stderr);
    return 77;
}
#endif
