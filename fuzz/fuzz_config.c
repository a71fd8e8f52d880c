/*
 * libFuzzer harness for the YAML experiment loader (src/io/config.c),
 * through the public API: rx_config_load, rx_sweep_load, rx_config_write.
 *
 * Input: an experiment file, optionally followed by a line "#--set" and
 * then one --set override per line (key.path=value), so that the override
 * parser and tree_set are fuzzed too. The file is written to a memfd and
 * loaded through /proc/self/fd/N (the loader reads only paths).
 *
 * Properties checked beyond "no crash, no leak, no UB" (an abort() here is
 * a finding, reported by libFuzzer with the input):
 *   - every failure has a non-empty message and a documented status;
 *   - a loaded config validates (rx_config_validate) and its resolved form
 *     (rx_config_write) loads again and resolves to the same text.
 */
#define _GNU_SOURCE
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "replex/replex.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static int fd_in = -1, fd_out = -1, fd_out2 = -1;
static char path_in[64], path_out[64], path_out2[64];

static int memfile(const char *name, char *path, size_t cap)
{
    int fd = memfd_create(name, 0);
    if (fd < 0) {
        perror("memfd_create");
        abort();
    }
    snprintf(path, cap, "/proc/self/fd/%d", fd);
    return fd;
}

static void put(int fd, const void *p, size_t n)
{
    if (ftruncate(fd, 0) != 0 ||
        (n && pwrite(fd, p, n, 0) != (ssize_t)n)) {
        perror("memfd write");
        abort();
    }
}

/* Whole content of a memfd, NUL-terminated (caller frees). */
static char *slurp(int fd, size_t *len)
{
    off_t n = lseek(fd, 0, SEEK_END);
    char *b = malloc((size_t)n + 1);
    if (!b || pread(fd, b, (size_t)n, 0) != n)
        abort();
    b[n] = '\0';
    *len = (size_t)n;
    return b;
}

static void check_status(rx_status st, const rx_err *err)
{
    if (st == RX_OK)
        return;
    if (st != RX_ECONFIG && st != RX_EIO && st != RX_ENOMEM &&
        st != RX_EINVAL) {
        fprintf(stderr, "unexpected status %d\n", (int)st);
        abort();
    }
    if (!err->msg[0]) {
        fprintf(stderr, "error %d without a message\n", (int)st);
        abort();
    }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (fd_in < 0) {
        fd_in = memfile("in.yaml", path_in, sizeof path_in);
        fd_out = memfile("out.yaml", path_out, sizeof path_out);
        fd_out2 = memfile("out2.yaml", path_out2, sizeof path_out2);
    }
    /* split off the --set lines */
    static const char sep[] = "#--set\n";
    size_t flen = size;
    const uint8_t *s = NULL;
    for (size_t i = 0; i + sizeof sep - 1 <= size; ++i)
        if ((i == 0 || data[i - 1] == '\n') &&
            memcmp(data + i, sep, sizeof sep - 1) == 0) {
            flen = i;
            s = data + i + sizeof sep - 1;
            break;
        }
    char *setbuf = NULL;
    const char *sets[16];
    int nsets = 0;
    if (s) {
        size_t sl = (size_t)(data + size - s);
        setbuf = malloc(sl + 1);
        if (!setbuf)
            return 0;
        memcpy(setbuf, s, sl);
        setbuf[sl] = '\0';
        char *save = NULL;
        for (char *t = strtok_r(setbuf, "\n", &save); t && nsets < 16;
             t = strtok_r(NULL, "\n", &save))
            sets[nsets++] = t;
    }
    put(fd_in, data, flen);

    rx_err err = {""};
    rx_config cfg;
    rx_status st = rx_config_load(path_in, sets, nsets, &cfg, &err);
    check_status(st, &err);
    if (st == RX_OK) {
        rx_err e2 = {""};
        if (rx_config_validate(&cfg, &e2) != RX_OK) {
            fprintf(stderr, "loaded config fails validation: %s\n", e2.msg);
            abort();
        }
        if (rx_config_write(&cfg, path_out, &e2) != RX_OK) {
            fprintf(stderr, "write failed: %s\n", e2.msg);
            abort();
        }
        rx_config again;
        rx_status st2 = rx_config_load(path_out, NULL, 0, &again, &e2);
        if (st2 != RX_OK) {
            fprintf(stderr, "resolved config does not load: %s\n", e2.msg);
            abort();
        }
        if (rx_config_write(&again, path_out2, &e2) != RX_OK)
            abort();
        size_t l1, l2;
        char *a = slurp(fd_out, &l1), *b = slurp(fd_out2, &l2);
        if (l1 != l2 || memcmp(a, b, l1) != 0) {
            fprintf(stderr, "resolved config is not a fixed point:\n%s\n---\n"
                            "%s\n", a, b);
            abort();
        }
        free(a);
        free(b);
        rx_config_free(&again);
        rx_config_free(&cfg);
    }
    rx_sweep sw;
    err.msg[0] = '\0';
    st = rx_sweep_load(path_in, &sw, &err);
    check_status(st, &err);
    if (st == RX_OK)
        rx_sweep_free(&sw);
    free(setbuf);
    return 0;
}
