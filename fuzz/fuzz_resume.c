/*
 * libFuzzer harness for the resume path, through the public API only:
 * rx_create, rx_checkpoint_resume on a file holding the fuzz input, then,
 * when the checkpoint was accepted, rx_run to the end of the (short) run.
 *
 * Input: two option bytes, then the bytes of a checkpoint file.
 *   byte 0, bits 0-1: the base configuration (of NBASE, below), bits 2-4:
 *           the configuration resumed into (of NPERT): the base itself, or
 *           the base with another chain count P, another dimension,
 *           another seed, another iteration count K (each a run of another
 *           shape, whose checkpoints must never fit), or another swap
 *           rule, step size or variance-reduction period (the same shape).
 *   byte 1, bit 0: before writing the file, replace its last 4 bytes by the
 *           CRC-32 (zlib) of everything before them, as the writer does, so
 *           that the reader behind the checksum sees mutated contents
 *           instead of refusing nearly all of them at the checksum;
 *           bit 1: checkpoint the resumed run again (every 7 iterations), so
 *           the writer runs on restored state too.
 *
 * Seeds: run with RX_FUZZ_RESUME_SEEDS=DIR, the harness writes real
 * checkpoints of every base configuration (stopped at two iterations),
 * prefixed with option bytes, into DIR and exits (scripts/fuzz.sh does so
 * at every run, so the seeds follow the checkpoint format); each must
 * resume and complete, or the harness aborts.
 *
 * Properties checked beyond "no crash, no leak, no UB, no hang" (an
 * abort() here is a finding, reported by libFuzzer with the input):
 *   - every refusal (rx_checkpoint_resume) and every failed run has a
 *     non-empty message and a documented status;
 *   - no file is accepted both by a run and by a run of another
 *     configuration: when a perturbed configuration (P, the dimension, the
 *     seed, K, the rule, the step size, the VR period) accepts the file,
 *     the base configuration must refuse it (the checkpoint records every
 *     result-affecting key);
 *   - a run that completes after a resume has results (rx_get_results).
 */
#define _GNU_SOURCE
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <zlib.h>

#include "replex/replex.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerInitialize(int *argc, char ***argv);

/* Small runs of three kinds: the adaptive deterministic rule under DEO*
 * (buffer C and eta ladder adapted, noisy energies, trace and index), a
 * GMM under DEO with momentum steps and every position recorded, and the
 * variance-reduced bias-corrected rule on a data target (anchors, sigma^2
 * estimates). */
#define NBASE 3
static const char *const BASE[NBASE] = {
    "seed: 7\n"
    "iterations: 48\n"
    "threads: 1\n"
    "target: {kind: mixture25, energy_noise_sd: 2, grad_noise_sd: 2,\n"
    "         confine_radius2: 20}\n"
    "tempering: {n_chains: 4, scheme: deo_star, rule: deterministic,\n"
    "            target_swap_rate: 0.4}\n"
    "correction: {init: 4, adapt: true}\n"
    "ladder: {eta: {min: 0.003, max: 0.6}, tau: 1, adapt: eta}\n"
    "step: {target: sgld, others: sgd}\n"
    "record: {burn_in: 10, thin: 3, trace_every: 5, index_every: 2,\n"
    "         grid_low: -3, grid_high: 3, grid_bins: 6}\n",

    "seed: 11\n"
    "iterations: 40\n"
    "threads: 1\n"
    "target: {kind: gmm, weights: [0.3, 0.7], means: [[-2, 0], [2, 1]],\n"
    "         scales: [[0.6, 0.9], [0.8, 0.5]]}\n"
    "tempering: {n_chains: 3, scheme: deo, rule: metropolis}\n"
    "ladder: {eta: 0.02, tau: {min: 1, max: 20}}\n"
    "step: {target: sghmc, others: msgd}\n"
    "record: {burn_in: 5, thin: 2, trace_every: 4, all_positions: true,\n"
    "         grid_low: -5, grid_high: 5, grid_bins: 10}\n",

    "seed: 3\n"
    "iterations: 40\n"
    "threads: 1\n"
    "target: {kind: mixture_data, n_data: 200, phi: 20, data_sd: 5,\n"
    "         beta_true: -5, prior_sd: 10}\n"
    "data: {batch_size: 20, shared_minibatch: true}\n"
    "init: {low: -10, high: 40}\n"
    "tempering: {n_chains: 3, scheme: adj, rule: bias_corrected,\n"
    "            sigma2: estimate, sigma2_factor: 1}\n"
    "variance: {every: 5, samples: 4, gamma: 0}\n"
    "variance_reduction: {enabled: true, period: 8, coefficient: -1}\n"
    "ladder: {eta: 1.0e-4, tau: {min: 10, max: 1000}}\n"
    "record: {burn_in: 10, thin: 2, trace_every: 6, grid_low: -15,\n"
    "         grid_high: 35}\n",
};

/* The configurations resumed into: --set overrides of the base. */
#define NPERT 7
static const char *const PERT[NBASE][NPERT][5] = {
    {{NULL},
     {"tempering.n_chains=5", NULL},
     /* mixture25 is 2-D: another dimension is a 3-D GMM */
     {"target.kind=gmm", "target.weights=[1]", "target.means=[[0, 0, 0]]",
      "target.scales=[[1, 1, 1]]", NULL},
     {"seed=8", NULL},
     {"iterations=49", NULL},
     {"tempering.rule=metropolis", NULL},
     {"ladder.eta={min: 0.004, max: 0.6}", NULL}},
    {{NULL},
     {"tempering.n_chains=2", NULL},
     {"target.means=[[-2], [2]]", "target.scales=[[0.6], [0.8]]", NULL},
     {"seed=12", NULL},
     {"iterations=41", NULL},
     {"tempering.rule=bernoulli", NULL},
     {"ladder.eta=0.03", NULL}},
    {{NULL},
     {"tempering.n_chains=4", NULL},
     /* the data target is 1-D: another dimension is a 2-D GMM */
     {"target.kind=gmm", "target.weights=[1]", "target.means=[[0, 0]]",
      "target.scales=[[1, 1]]", "variance_reduction.enabled=false"},
     {"seed=4", NULL},
     {"iterations=39", NULL},
     {"tempering.rule=metropolis", NULL},
     {"variance_reduction.period=9", NULL}},
};

static rx_config cfgs[NBASE][NPERT];
static char dir[64], path_yaml[128], path_in[128], path_out[128];

static void die(const char *what, const char *msg)
{
    fprintf(stderr, "fuzz_resume: %s: %s\n", what, msg);
    abort();
}

static void write_file(const char *path, const void *p, size_t n)
{
    FILE *f = fopen(path, "wb");
    if (!f || (n && fwrite(p, 1, n, f) != n) || fclose(f) != 0)
        die(path, "cannot write");
}

static void cleanup(void)
{
    char p[160];
    const char *names[] = {"in.bin", "out.bin", "out.bin.tmp", "cfg.yaml"};
    for (size_t i = 0; i < sizeof names / sizeof *names; ++i) {
        snprintf(p, sizeof p, "%s/%s", dir, names[i]);
        unlink(p);
    }
    rmdir(dir);
}

static void load_configs(void)
{
    strcpy(dir, "/tmp/rx-fuzz-resume.XXXXXX");
    if (!mkdtemp(dir))
        die("mkdtemp", "failed");
    atexit(cleanup);
    snprintf(path_yaml, sizeof path_yaml, "%s/cfg.yaml", dir);
    snprintf(path_in, sizeof path_in, "%s/in.bin", dir);
    snprintf(path_out, sizeof path_out, "%s/out.bin", dir);
    for (int b = 0; b < NBASE; ++b) {
        write_file(path_yaml, BASE[b], strlen(BASE[b]));
        for (int p = 0; p < NPERT; ++p) {
            int n = 0;
            while (n < 5 && PERT[b][p][n])
                ++n;
            rx_err err = {""};
            if (rx_config_load(path_yaml, PERT[b][p], n, &cfgs[b][p],
                               &err) != RX_OK)
                die("configuration", err.msg);
        }
    }
}

typedef struct stopper {
    volatile sig_atomic_t flag;
    int64_t at;
} stopper;

static rx_status raise_flag(void *user, const rx_progress *p)
{
    stopper *s = user;
    if (p->iteration >= s->at)
        s->flag = 1;
    return RX_OK;
}

/* Seeds: a real checkpoint of base b stopped after iteration `at`. */
static void write_seeds(const char *out)
{
    static const int64_t at[2] = {6, 21};
    for (int b = 0; b < NBASE; ++b)
        for (int i = 0; i < 2; ++i) {
            rx_ctx *c = NULL;
            rx_err err = {""};
            if (rx_create(&c, &cfgs[b][0], NULL, (rx_logger){0}, &err) !=
                RX_OK)
                die("rx_create", err.msg);
            stopper s = {0, at[i]};
            unlink(path_out);
            if (rx_checkpoint_enable(c, path_out, 0) != RX_OK ||
                rx_set_stop_flag(c, &s.flag) != RX_OK ||
                rx_set_progress(c, raise_flag, &s, 1) != RX_OK ||
                rx_run(c) != RX_EABORTED)
                die("seed run", rx_errmsg(c));
            rx_destroy(&c);
            /* a real checkpoint resumes and completes */
            if (rx_create(&c, &cfgs[b][0], NULL, (rx_logger){0}, &err) !=
                RX_OK)
                die("rx_create", err.msg);
            if (rx_checkpoint_resume(c, path_out) != RX_OK ||
                rx_run(c) != RX_OK)
                die("resuming a real checkpoint", rx_errmsg(c));
            rx_destroy(&c);
            FILE *f = fopen(path_out, "rb");
            if (!f)
                die(path_out, "no checkpoint written");
            static uint8_t buf[1 << 20];
            buf[0] = (uint8_t)b;
            buf[1] = (uint8_t)i; /* the later one with the CRC mode on */
            size_t n = fread(buf + 2, 1, sizeof buf - 2, f);
            fclose(f);
            /* and the same bytes offered to each other configuration */
            for (int p = 0; p < NPERT; ++p) {
                if (p > 0 && i > 0)
                    break;
                buf[0] = (uint8_t)(b | p << 2);
                char name[512];
                snprintf(name, sizeof name, "%s/ckpt-%d-k%lld-p%d", out, b,
                         (long long)at[i], p);
                write_file(name, buf, n + 2);
            }
        }
}

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
    (void)argc;
    (void)argv;
    load_configs();
    const char *seeds = getenv("RX_FUZZ_RESUME_SEEDS");
    if (seeds && seeds[0]) {
        write_seeds(seeds);
        for (int b = 0; b < NBASE; ++b)
            for (int p = 0; p < NPERT; ++p)
                rx_config_free(&cfgs[b][p]);
        exit(0);
    }
    return 0;
}

static void check_status(const char *what, rx_status st, const rx_ctx *c)
{
    /* RX_ECONFIG: the checkpoint's recorded configuration differs from
     * the run's (another rule, step size, ...: refused, naming the keys) */
    if (st != RX_EDATA && st != RX_EIO && st != RX_ENOMEM &&
        st != RX_EINVAL && st != RX_ENUMERIC && st != RX_ECONFIG) {
        char m[64];
        snprintf(m, sizeof m, "undocumented status %d", (int)st);
        die(what, m);
    }
    const char *msg = rx_errmsg(c);
    if (!msg || !msg[0])
        die(what, "an error without a message");
}

/* Resume cfg from path_in; returns the context when it was accepted. */
static rx_ctx *resume(const rx_config *cfg)
{
    rx_ctx *c = NULL;
    rx_err err = {""};
    if (rx_create(&c, cfg, NULL, (rx_logger){0}, &err) != RX_OK)
        die("rx_create", err.msg);
    rx_status st = rx_checkpoint_resume(c, path_in);
    if (st == RX_OK)
        return c;
    if (st == RX_ENUMERIC)
        die("rx_checkpoint_resume", "RX_ENUMERIC");
    check_status("rx_checkpoint_resume", st, c);
    rx_destroy(&c);
    return NULL;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size < 2)
        return 0;
    const int b = (data[0] & 3) % NBASE, p = (data[0] >> 2 & 7) % NPERT;
    const int fix_crc = data[1] & 1, rewrite = data[1] >> 1 & 1;
    const size_t n = size - 2;
    uint8_t *file = malloc(n + 1);
    if (!file)
        return 0;
    memcpy(file, data + 2, n);
    if (fix_crc && n >= 4) {
        uint32_t crc = (uint32_t)crc32(crc32(0L, Z_NULL, 0), file,
                                       (uInt)(n - 4));
        memcpy(file + n - 4, &crc, 4);
    }
    write_file(path_in, file, n);
    free(file);

    rx_ctx *c = resume(&cfgs[b][p]);
    if (!c)
        return 0;
    if (p != 0) {
        /* accepted by a run of another configuration (another shape, or
         * another result-affecting key, which the checkpoint records):
         * the base must refuse it */
        rx_ctx *c0 = resume(&cfgs[b][0]);
        if (c0) {
            rx_destroy(&c0);
            die("property", "one checkpoint accepted by runs of two "
                            "configurations");
        }
    }
    if (rewrite) {
        unlink(path_out);
        if (rx_checkpoint_enable(c, path_out, 7) != RX_OK)
            die("rx_checkpoint_enable", rx_errmsg(c));
    }
    rx_status st = rx_run(c);
    if (st == RX_OK) {
        rx_results r;
        if (rx_get_results(c, &r) != RX_OK)
            die("rx_get_results", rx_errmsg(c));
    } else {
        check_status("rx_run", st, c);
    }
    rx_destroy(&c);
    return 0;
}
