/*
 * Resume with adaptive state (issue 21, item 12): the deterministic swap
 * rule with an adaptive buffer C (correction.adapt) and an adaptive
 * learning-rate ladder (ladder.adapt: eta), yaml/deo_sgd_2d.yaml
 * shortened. Both adapt every iteration, so a checkpoint that loses either
 * resumes into a different run.
 *
 *  1. A run stopped at iteration k1 through the stop flag (a progress
 *     callback raises it) writes a checkpoint; a fresh context resumes it
 *     on another thread count and runs to the end: every output file
 *     (samples.npy, index.npy, trace.csv, config.yaml, summary.json less
 *     its "timing" line) equals an uninterrupted run's, byte for byte.
 *  2. Checkpoint round trip: the resumed run, stopped again at k2, writes a
 *     checkpoint byte-identical to that of a run stopped at k2 without
 *     interruption (every field of the state: particles, exchange state
 *     with C and the ladders, recorders, samples), on 1, 2 and 3 threads.
 *  3. Both for the deterministic rule under DEO* (window 8, C adapted,
 *     ladder adapted) as well, and with momentum steps (SGHMC at the
 *     target, momentum SGD elsewhere: the optimiser state travels), and
 *     with SGNHT at positions 2..P (a state of dim + 1 doubles: velocity
 *     and thermostat, rescaled on a move, drawn afresh on the change of
 *     rule to and from SGHMC at the target).
 *  4. The barrier ladder (ladder.adapt: barrier, Metropolis on exact
 *     energies): the temperatures and the Lambda of every completed round
 *     (summary.json's diagnostics) survive the checkpoint.
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

static char src[1024], tmp[1024];

static int load(const char *const *sets, int n, rx_config *cfg)
{
    char path[1200];
    rx_err err = {0};
    snprintf(path, sizeof path, "%s/yaml/deo_sgd_2d.yaml", src);
    rx_status st = rx_config_load(path, sets, n, cfg, &err);
    CHECK_MSG(st == RX_OK, "%s", err.msg);
    return st == RX_OK;
}

/* One run: optionally resume from `from`, stop after iteration `stop_at`
 * (-1: run to the end) writing the checkpoint `ck`, write the run
 * directory `out` when the run completes. Returns the rx_run status. */
static rx_status one_run(const rx_config *base, int threads, const char *from,
                         int64_t stop_at, const char *ck, const char *out)
{
    stopper s;
    rx_status st;
    rx_ctx *c = stop_run(base, threads, from, stop_at, ck, &s, &st);
    if (!c)
        return st;
    if (st == RX_OK && out) {
        char path[1200];
        snprintf(path, sizeof path, "%s/yaml/deo_sgd_2d.yaml", src);
        rx_status w = rx_write_rundir(c, out, 1, path);
        CHECK_MSG(w == RX_OK, "rx_write_rundir %s: %s", out, rx_errmsg(c));
    }
    if (st != RX_OK && st != RX_EABORTED)
        fprintf(stderr, "run: %s\n", rx_errmsg(c));
    rx_destroy(&c);
    return st;
}

/* The whole file, less lines containing `skip` (NULL: none). */
static char *slurp(const char *path, const char *skip, size_t *n)
{
    FILE *f = fopen(path, "rb");
    *n = 0;
    if (!f)
        return NULL;
    size_t cap = 1 << 16, len = 0;
    char *b = malloc(cap), line[1 << 16];
    if (!b) {
        fclose(f);
        return NULL;
    }
    if (skip) {
        while (fgets(line, sizeof line, f)) {
            if (strstr(line, skip))
                continue;
            size_t l = strlen(line);
            while (len + l + 1 > cap) {
                cap *= 2;
                char *nb = realloc(b, cap);
                if (!nb) {
                    free(b);
                    fclose(f);
                    return NULL;
                }
                b = nb;
            }
            memcpy(b + len, line, l);
            len += l;
        }
    } else {
        size_t r;
        while ((r = fread(b + len, 1, cap - len, f)) > 0) {
            len += r;
            if (len == cap) {
                cap *= 2;
                char *nb = realloc(b, cap);
                if (!nb) {
                    free(b);
                    fclose(f);
                    return NULL;
                }
                b = nb;
            }
        }
    }
    fclose(f);
    *n = len;
    return b;
}

/* The checkpoint header (src/io/checkpoint.c) up to the particles. */
typedef struct ckhdr {
    char magic[8];
    uint32_t version, bom;
    uint64_t seed;
    int64_t K, burn_in, thin, index_every, trace_every;
    int64_t dim, k, rows, n_index, n_trace;
    int32_t P, per, n_cols, stride_pscal;
} ckhdr;

/* Two checkpoints hold the same state: the same bytes, every one (the
 * particles' var_raw, unused without an estimated sigma^2, included: a
 * checkpoint holds no uninitialised memory). */
static int same_checkpoint(const char *a, const char *b)
{
    size_t na, nb;
    char *x = slurp(a, NULL, &na), *y = slurp(b, NULL, &nb);
    int same = x && y && na == nb && na > sizeof(ckhdr) + 4 &&
               memcmp(x, "RXCKPT", 6) == 0 && memcmp(x, y, na) == 0;
    free(x);
    free(y);
    return same;
}

static int same_file(const char *a, const char *b, const char *skip)
{
    size_t na, nb;
    char *x = slurp(a, skip, &na), *y = slurp(b, skip, &nb);
    int same = x && y && na == nb && na > 0 && memcmp(x, y, na) == 0;
    free(x);
    free(y);
    return same;
}

static void same_rundir(const char *a, const char *b, const char *label)
{
    static const char *files[] = {"samples.npy", "index.npy", "trace.csv",
                                  "config.yaml", "summary.json"};
    for (int i = 0; i < 5; ++i) {
        char pa[1300], pb[1300];
        snprintf(pa, sizeof pa, "%s/%s", a, files[i]);
        snprintf(pb, sizeof pb, "%s/%s", b, files[i]);
        /* config.yaml records the thread count, summary.json timings */
        const char *skip = i == 4 ? "\"timing\"" : i == 3 ? "threads:" : NULL;
        CHECK_MSG(same_file(pa, pb, skip), "%s: %s differs from the "
                  "uninterrupted run's", label, files[i]);
    }
}

static void resume_case(const char *name, const char *const *sets, int n)
{
    rx_config cfg;
    rx_config_default(&cfg);
    if (!load(sets, n, &cfg))
        return;
    const int64_t K = cfg.iterations, k1 = K / 3, k2 = 2 * K / 3;
    char ref[1200], out[1200], ck1[1200], ck2[1200], ckb[1200];
    snprintf(ref, sizeof ref, "%s/%s_ref", tmp, name);
    snprintf(ck1, sizeof ck1, "%s/%s_k1.bin", tmp, name);
    snprintf(ck2, sizeof ck2, "%s/%s_k2.bin", tmp, name);
    CHECK(one_run(&cfg, 2, NULL, -1, NULL, ref) == RX_OK);
    /* stopped at k1, checkpoint written */
    CHECK(one_run(&cfg, 2, NULL, k1, ck1, NULL) == RX_EABORTED);
    CHECK(access(ck1, R_OK) == 0);
    /* resumed on 1 thread, stopped again at k2 */
    CHECK(one_run(&cfg, 1, ck1, k2, ck2, NULL) == RX_EABORTED);
    for (int t = 1; t <= 3; ++t) {
        /* stopped at k2 without interruption: the same checkpoint bytes */
        snprintf(ckb, sizeof ckb, "%s/%s_k2_t%d.bin", tmp, name, t);
        CHECK(one_run(&cfg, t, NULL, k2, ckb, NULL) == RX_EABORTED);
        const int same = same_checkpoint(ck2, ckb);
        CHECK_MSG(same, "%s: the checkpoint at the second stop after a "
                  "resume differs from an uninterrupted run's (%d threads)",
                  name, t);
        if (same)
            remove(ckb);
    }
    /* resumed from k1 on 3 threads and from k2 on 2, run to the end */
    char label[300];
    snprintf(out, sizeof out, "%s/%s_r1", tmp, name);
    CHECK(one_run(&cfg, 3, ck1, -1, NULL, out) == RX_OK);
    snprintf(label, sizeof label, "%s, resumed at k1", name);
    same_rundir(ref, out, label);
    snprintf(out, sizeof out, "%s/%s_r2", tmp, name);
    CHECK(one_run(&cfg, 2, ck2, -1, NULL, out) == RX_OK);
    snprintf(label, sizeof label, "%s, resumed twice", name);
    same_rundir(ref, out, label);
    /* the adaptive state did move: otherwise the test shows nothing */
    rx_config_free(&cfg);
    if (check_fail_ == 0) {
        remove(ck1);
        remove(ck2);
    }
}

/* C and the interior learning rates move away from their starting
 * values in these runs (so losing them on resume would show). */
static void state_moves(const char *const *sets, int n)
{
    rx_config cfg;
    rx_config_default(&cfg);
    if (!load(sets, n, &cfg))
        return;
    rx_ctx *c = NULL;
    rx_err err = {0};
    cfg.threads = 1;
    CHECK(rx_create(&c, &cfg, NULL, (rx_logger){0}, &err) == RX_OK);
    if (c && rx_run(c) == RX_OK) {
        rx_results r;
        rx_get_results(c, &r);
        CHECK_MSG(fabs(r.correction - cfg.correction.init) > 0.1,
                  "C = %g, init %g", r.correction, cfg.correction.init);
        CHECK(r.eta[1] != cfg.ladder.eta.min);
    }
    rx_destroy(&c);
    rx_config_free(&cfg);
}

int main(void)
{
    const char *s = getenv("RX_SRCDIR");
    snprintf(src, sizeof src, "%s", s ? s : "..");
    const char *t = getenv("TMPDIR");
    snprintf(tmp, sizeof tmp, "%s/rx_resume_XXXXXX", t ? t : "/tmp");
    if (!mkdtemp(tmp)) {
        perror("mkdtemp");
        return 1;
    }
    static const char *const deo[] = {"iterations=6000",
                                      "checkpoint.every=0"};
    static const char *const star[] = {"iterations=6000",
                                       "tempering.scheme=deo_star",
                                       "tempering.sequential_stats=false"};
    /* optimiser state travels too: momentum at every position */
    static const char *const mom[] = {"iterations=6000",
                                      "step.target=sghmc",
                                      "step.others=msgd",
                                      "ladder.eta.max=0.05"};
    /* a state longer than dim: SGNHT's velocity and thermostat */
    static const char *const nht[] = {"iterations=6000",
                                      "step.target=sghmc",
                                      "step.others=sgnht",
                                      "step.sgnht_mu=0.01",
                                      "ladder.eta.max=0.05"};
    /* the barrier ladder: rounds end at 99, 299, 699, 1499, 3099, so
     * four are complete at k1 = 2000 and five at k2 = 4000 */
    static const char *const bar[] = {"iterations=6000",
                                      "target.energy_noise_sd=0",
                                      "tempering.rule=metropolis",
                                      "ladder.tau={min: 1, max: 10}",
                                      "ladder.adapt=barrier",
                                      "ladder.barrier_round=100"};
    /* the reference path: its log Z record (summary.json's log_z) */
    static const char *const path[] = {"iterations=6000",
                                       "ladder.path=reference",
                                       "step.others=sgld",
                                       "ladder.reference_sd=3",
                                       "tempering.rule=metropolis",
                                       "ladder.adapt=none",
                                       "record.burn_in=500"};
    state_moves(deo, 2);
    resume_case("deo", deo, 2);
    resume_case("deo_star", star, 3);
    resume_case("momentum", mom, 4);
    resume_case("sgnht", nht, 5);
    resume_case("barrier", bar, 6);
    resume_case("path", path, 7);
    /* the run directories are left to the temporary directory's owner
     * only when a check failed */
    if (check_fail_ == 0) {
        const char *sub[] = {"deo_ref", "deo_r1", "deo_r2", "deo_star_ref",
                             "deo_star_r1", "deo_star_r2", "momentum_ref",
                             "momentum_r1", "momentum_r2", "sgnht_ref",
                             "sgnht_r1", "sgnht_r2", "barrier_ref",
                             "barrier_r1", "barrier_r2", "path_ref", "path_r1",
                             "path_r2"};
        const char *files[] = {"samples.npy", "index.npy", "trace.csv",
                               "config.yaml", "summary.json"};
        for (size_t i = 0; i < sizeof sub / sizeof *sub; ++i) {
            char p[1400];
            for (int j = 0; j < 5; ++j) {
                snprintf(p, sizeof p, "%s/%s/%s", tmp, sub[i], files[j]);
                remove(p);
            }
            snprintf(p, sizeof p, "%s/%s", tmp, sub[i]);
            rmdir(p);
        }
        rmdir(tmp);
    } else {
        fprintf(stderr, "files kept in %s\n", tmp);
    }
    return check_done();
}
