/*
 * A checkpoint whose contents are wrong but whose CRC-32 matches (written
 * by another tool, or corrupted and "repaired") must be refused with a
 * message, or resume into a run that ends with a documented status: the
 * reader checks the restored state before the engine indexes with it.
 * Found by fuzz/fuzz_resume.c (an out-of-range position map crashed the
 * exchange; restored counters overflowed).
 *
 * A real checkpoint of a small run (stopped after iteration 12) is
 * altered one word at a time: every aligned 4-byte word set to 2^30 and
 * to -2^30, every aligned 8-byte word to INT64_MAX and INT64_MIN (the
 * sanitizer build catches overflows there), every word to the bounds the
 * state check tests (-1, P - 1, P as integers and doubles, P - 1 plus an
 * ulp, at every byte offset: the blocks after the configuration text
 * are not aligned) and every byte to 2 (issue 35: a bound loosened by one
 * passed the huge values), with the trailing
 * CRC-32 recomputed; each file is resumed and, when accepted, run to the
 * end. The unaltered file must resume and complete.
 */
#define _POSIX_C_SOURCE 200809L
#include <math.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <zlib.h>

#include "replex/replex.h"
#include "check.h"
#include "stop_run.h"

static char dir[] = "/tmp/replex-test-ckpt-XXXXXX";
static char yaml[128], ck[128], bad[128];

static void put_file(const char *path, const void *p, size_t n)
{
    FILE *f = fopen(path, "wb");
    CHECK(f != NULL);
    if (f) {
        CHECK(fwrite(p, 1, n, f) == n);
        fclose(f);
    }
}

/* Resume `path` into cfg and run: 1 accepted and completed, 0 refused or
 * failed with a documented status and a message, -1 otherwise. */
static int try_resume(const rx_config *cfg, const char *path)
{
    rx_ctx *c = NULL;
    rx_err err = {""};
    if (rx_create(&c, cfg, NULL, (rx_logger){0}, &err) != RX_OK)
        return -1;
    rx_status st = rx_checkpoint_resume(c, path);
    if (st == RX_OK)
        st = rx_run(c);
    int r = st == RX_OK ? 1
            : (st == RX_EDATA || st == RX_EIO || st == RX_ENOMEM ||
               st == RX_EINVAL || st == RX_ENUMERIC) && rx_errmsg(c)[0]
                ? 0
                : -1;
    rx_destroy(&c);
    return r;
}

int main(void)
{
    if (!mkdtemp(dir)) {
        perror("mkdtemp");
        return 1;
    }
    snprintf(yaml, sizeof yaml, "%s/run.yaml", dir);
    snprintf(ck, sizeof ck, "%s/ck.bin", dir);
    snprintf(bad, sizeof bad, "%s/bad.bin", dir);
    static const char text[] =
        "seed: 5\niterations: 30\nthreads: 1\n"
        "target: {kind: mixture25}\n"
        "tempering: {n_chains: 4, scheme: deo, rule: metropolis}\n"
        "ladder: {eta: 0.003, tau: {min: 1, max: 10}}\n"
        "record: {burn_in: 5, thin: 2, trace_every: 3, index_every: 2}\n";
    put_file(yaml, text, sizeof text - 1);
    rx_config cfg;
    rx_err err = {""};
    rx_status st = rx_config_load(yaml, NULL, 0, &cfg, &err);
    CHECK_MSG(st == RX_OK, "%s", err.msg);
    if (st != RX_OK)
        return check_done();

    rx_ctx *c = NULL;
    CHECK(rx_create(&c, &cfg, NULL, (rx_logger){0}, &err) == RX_OK);
    stopper s = {0, 12};
    CHECK(rx_checkpoint_enable(c, ck, 0) == RX_OK);
    rx_set_stop_flag(c, &s.flag);
    rx_set_progress(c, raise_flag, &s, 1);
    CHECK(rx_run(c) == RX_EABORTED);
    rx_destroy(&c);

    static unsigned char orig[1 << 16], buf[1 << 16];
    FILE *f = fopen(ck, "rb");
    size_t n = f ? fread(orig, 1, sizeof orig, f) : 0;
    if (f)
        fclose(f);
    CHECK(n > 64 && n < sizeof orig);
    CHECK(try_resume(&cfg, ck) == 1);

    /* huge values, and the bounds of the checks themselves: -1, P - 1
     * and P (P = 4 chains) as int32, int64 and double, and P - 1 plus one
     * ulp as a double (a barrier round's Lambda <= P - 1), and 2 in every
     * byte (a gate is 0 or 1): a check loosened by one (at[q] > P for
     * at[q] >= P) then lets an out-of-range value through, which the
     * sanitizer build reports (scripts/sanitize.sh runs this test) */
    const int P = 4;
    const double ulp = nextafter((double)(P - 1), 100.0);
    enum { NKIND = 16 };
    int refused = 0, tried = 0;
    for (int kind = 0; kind < NKIND && n > 64; ++kind) {
        const size_t w = kind == 15 ? 1 : kind < 5 ? 4 : 8;
        /* the bounds at every byte offset: the blocks after the
         * configuration text are not aligned in the file */
        const int bound = (kind >= 2 && kind < 5) || kind >= 7;
        const size_t stepw = bound ? 1 : w;
        for (size_t off = 0; off + w <= n - 4; off += stepw) {
            memcpy(buf, orig, n);
            if (w == 1) {
                buf[off] = 2;
            } else if (w == 4) {
                static const int32_t v4[5] = {1 << 30, -(1 << 30), -1, 3, 4};
                memcpy(buf + off, &v4[kind], 4);
            } else if (kind < 10) {
                const int64_t v8[5] = {INT64_MAX, INT64_MIN, -1, P - 1, P};
                memcpy(buf + off, &v8[kind - 5], 8);
            } else {
                const double vd[5] = {-1.0, (double)(P - 1), (double)P, ulp,
                                      -0.0};
                memcpy(buf + off, &vd[kind - 10], 8);
            }
            uint32_t crc = (uint32_t)crc32(crc32(0L, Z_NULL, 0), buf,
                                           (uInt)(n - 4));
            memcpy(buf + n - 4, &crc, 4);
            put_file(bad, buf, n);
            int r = try_resume(&cfg, bad);
            CHECK_MSG(r >= 0, "word at byte %zu (%zu bytes) set: "
                      "undocumented status or no message", off, w);
            refused += r == 0;
            ++tried;
        }
    }
    printf("%d altered checkpoints, %d refused or failed cleanly\n", tried,
           refused);
    CHECK(refused > 0);
    rx_config_free(&cfg);
    remove(ck);
    remove(bad);
    remove(yaml);
    rmdir(dir);
    return check_done();
}
