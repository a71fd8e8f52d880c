/*
 * Label noise (data.label_noise; the replica-exchange Nose-Hoover paper,
 * Sec. 4.2): at the start of every epoch floor(x N) training rows, chosen
 * at random, get their clean labels permuted among them.
 *  - one epoch's labels: exactly floor(x N) distinct rows chosen, the
 *    others untouched, the chosen rows' label multiset kept;
 *  - the sampler: every epoch starts from the clean labels (an epoch
 *    reached after others is the epoch reached first), the labels change
 *    from epoch to epoch and between particles, and the minibatch indices
 *    are those of a sampler without label noise;
 *  - through the engine on a small classification MLP: the same bits on
 *    1, 2 and 3 threads (shared and per-particle batches), another run
 *    than without noise, and x = 0 (or an x that permutes one row) the
 *    bits of a run without the key (a value measured before it existed);
 *  - values outside [0, 1] and NaN refused by the keyed setter.
 */
#define _POSIX_C_SOURCE 200809L
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../src/data/data.h"
#include "check.h"
#include "run_util.h"
#include "replex/replex.h"

/* ---- one epoch ---------------------------------------------------------*/

static int cmp_float(const void *a, const void *b)
{
    float x = *(const float *)a, y = *(const float *)b;
    return (x > y) - (x < y);
}

/* Rows whose label differs from the clean one. */
static int64_t n_changed(const float *y, const float *ylab, int64_t n)
{
    int64_t c = 0;
    for (int64_t i = 0; i < n; ++i)
        c += ylab[i] != y[i];
    return c;
}

static void one_epoch(void)
{
    enum { N = 1000 };
    static float y[N], ylab[N], a[N], b[N];
    static int32_t sel[N];
    static unsigned char in[N];
    for (int i = 0; i < N; ++i)
        y[i] = (float)(i % 10);
    const int64_t m = 300;
    for (int64_t e = 0; e < 5; ++e) {
        rx__label_noise(y, N, m, 7, 3, e, sel, ylab);
        memset(in, 0, sizeof in);
        int distinct = 1;
        for (int64_t j = 0; j < m; ++j) {
            if (sel[j] < 0 || sel[j] >= N || in[sel[j]])
                distinct = 0;
            else
                in[sel[j]] = 1;
        }
        CHECK_MSG(distinct, "epoch %lld: the %lld chosen rows are not "
                  "distinct rows", (long long)e, (long long)m);
        int outside = 1;
        for (int i = 0; i < N; ++i)
            if (!in[i] && ylab[i] != y[i])
                outside = 0;
        CHECK_MSG(outside, "epoch %lld: a row not chosen changed its label",
                  (long long)e);
        for (int64_t j = 0; j < m; ++j) {
            a[j] = y[sel[j]];
            b[j] = ylab[sel[j]];
        }
        qsort(a, (size_t)m, sizeof *a, cmp_float);
        qsort(b, (size_t)m, sizeof *b, cmp_float);
        CHECK_MSG(memcmp(a, b, (size_t)m * sizeof *a) == 0,
                  "epoch %lld: the chosen rows' labels are not a "
                  "permutation of their clean labels", (long long)e);
        /* 10 classes: a random permutation leaves about m/10 labels in
         * place; far more are moved */
        int64_t c = n_changed(y, ylab, N);
        CHECK_MSG(c > m / 2 && c <= m, "epoch %lld: %lld labels changed "
                  "of %lld chosen", (long long)e, (long long)c, (long long)m);
    }
    /* distinct labels: every chosen row but the permutation's fixed points
     * moves (about 1 on average) */
    for (int i = 0; i < N; ++i)
        y[i] = (float)i;
    rx__label_noise(y, N, m, 7, 3, 0, sel, ylab);
    int64_t c = n_changed(y, ylab, N);
    CHECK_MSG(c >= m - 6 && c <= m, "distinct labels: %lld of %lld moved",
              (long long)c, (long long)m);
    /* m = 0: the clean labels */
    rx__label_noise(y, N, 0, 7, 3, 0, sel, ylab);
    CHECK(n_changed(y, ylab, N) == 0);
}

/* ---- the sampler ---------------------------------------------------------*/

static void sampler(void)
{
    enum { N = 999, BS = 10 };
    static float y[N], prev[N];
    for (int i = 0; i < N; ++i)
        y[i] = (float)(i % 7);
    rx_err err;
    rx__batcher seq, plain, other;
    CHECK(rx__batcher_init(&seq, N, BS, 11, 2, &err) == RX_OK);
    CHECK(rx__batcher_init(&plain, N, BS, 11, 2, &err) == RX_OK);
    CHECK(rx__batcher_init(&other, N, BS, 11, 5, &err) == RX_OK);
    CHECK(rx__batcher_label_noise(&seq, y, 0.3, &err) == RX_OK);
    CHECK(rx__batcher_label_noise(&other, y, 0.3, &err) == RX_OK);
    CHECK_MSG(seq.n_noisy == 299, "floor(0.3 x 999) = 299 rows, got %lld",
              (long long)seq.n_noisy);
    CHECK(rx__batcher_labels(&seq) == NULL); /* no epoch drawn yet */
    CHECK(rx__batcher_label_noise(&plain, y, 1.5, &err) != RX_OK);
    CHECK(rx__batcher_label_noise(&plain, y, NAN, &err) != RX_OK);
    CHECK(rx__batcher_labels(&plain) == NULL);
    const int64_t nb = N / BS; /* 99 batches an epoch */
    int same_batches = 1, fresh_ok = 1, drift = 1, moves = 1, apart = 1;
    for (int64_t e = 0; e < 8; ++e) {
        for (int64_t j = 0; j < nb; ++j) {
            const int64_t k = e * nb + j;
            const int32_t *p = rx__batcher_get(&seq, k);
            const int32_t *q = rx__batcher_get(&plain, k);
            if (!p || !q || memcmp(p, q, BS * sizeof *p) != 0)
                same_batches = 0;
        }
        const float *lab = rx__batcher_labels(&seq);
        if (!lab)
            break;
        /* the epoch drawn first, by a fresh sampler */
        rx__batcher fresh;
        rx__batcher_init(&fresh, N, BS, 11, 2, &err);
        rx__batcher_label_noise(&fresh, y, 0.3, &err);
        rx__batcher_get(&fresh, e * nb + 3);
        const float *fl = rx__batcher_labels(&fresh);
        if (!fl || memcmp(fl, lab, N * sizeof *fl) != 0)
            fresh_ok = 0;
        rx__batcher_free(&fresh);
        if (n_changed(y, lab, N) > seq.n_noisy)
            drift = 0;
        if (e > 0 && memcmp(prev, lab, N * sizeof *lab) == 0)
            moves = 0;
        memcpy(prev, lab, sizeof prev);
        rx__batcher_get(&other, e * nb);
        const float *ol = rx__batcher_labels(&other);
        if (!ol || memcmp(ol, lab, N * sizeof *ol) == 0)
            apart = 0;
    }
    CHECK_MSG(same_batches, "label noise moved the minibatch indices");
    CHECK_MSG(fresh_ok, "an epoch reached after others differs from the "
              "same epoch drawn first (not from the clean labels?)");
    CHECK_MSG(drift, "more labels differ from the clean ones than floor(x "
              "N): noise on noise");
    CHECK_MSG(moves, "two epochs have the same labels");
    CHECK_MSG(apart, "two particles' streams have the same labels");
    rx__batcher_free(&seq);
    rx__batcher_free(&plain);
    rx__batcher_free(&other);
}

/* ---- through the engine -------------------------------------------------*/

static char dir[256];
static char yaml_path[320];

/* 200 rows, 4 features, 3 classes (a function of the first two features),
 * and an MLP file for it: 160 training rows (test_fraction 0.2), batch
 * 10, so an epoch is 16 iterations of a particle. */
static int write_files(void)
{
    snprintf(dir, sizeof dir, "%s/replex-label-XXXXXX",
             getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp");
    if (!mkdtemp(dir))
        return 0;
    char csv[300];
    snprintf(csv, sizeof csv, "%s/cls.csv", dir);
    FILE *f = fopen(csv, "w");
    if (!f)
        return 0;
    for (int i = 0; i < 200; ++i) {
        double x[4];
        for (int j = 0; j < 4; ++j)
            x[j] = sin(1.7 * i + 2.3 * j + 0.1 * i * j);
        int c = x[0] + 0.5 * x[1] > 0.4 ? 2 : x[0] - x[1] > -0.3 ? 1 : 0;
        fprintf(f, "%.6f,%.6f,%.6f,%.6f,%d\n", x[0], x[1], x[2], x[3], c);
    }
    fclose(f);
    snprintf(yaml_path, sizeof yaml_path, "%s/run.yaml", dir);
    f = fopen(yaml_path, "w");
    if (!f)
        return 0;
    fprintf(f,
            "seed: 3\n"
            "iterations: 200\n"
            "target: {kind: network}\n"
            "data: {format: csv, path: %s, header: no, "
            "task: classification, test_fraction: 0.2, batch_size: 10}\n"
            "model: {layers: [{dense: 8}, relu, {dense: 3}]}\n"
            "tempering: {n_chains: 4, scheme: deo, rule: bias_corrected, "
            "sigma2: 50}\n"
            "ladder: {eta: 1.0e-3, tau: {min: 1, max: 4}}\n"
            "record: {burn_in: 0, thin: 10}\n",
            csv);
    fclose(f);
    return 1;
}

static void remove_files(void)
{
    char p[400];
    snprintf(p, sizeof p, "%s/cls.csv", dir);
    remove(p);
    remove(yaml_path);
    rmdir(dir);
}

static rx_ctx *run(const char *const *sets, int nsets)
{
    return load_run(yaml_path, sets, nsets, NULL, NULL, 0);
}

static int same_run(rx_ctx *a, rx_ctx *b)
{
    rx_results ra, rb;
    return results2(a, b, &ra, &rb) && same_samples(&ra, &rb) &&
           ra.total_swaps == rb.total_swaps &&
           memcmp(&ra.bma, &rb.bma, sizeof ra.bma) == 0;
}

/* FNV-1a over the samples' bytes. */
static uint64_t samples_hash(rx_ctx *a)
{
    rx_results r;
    if (!a || rx_get_results(a, &r) != RX_OK)
        return 0;
    const unsigned char *p = (const unsigned char *)r.samples;
    const size_t n = sizeof(float) * (size_t)r.n_samples * r.dim;
    uint64_t h = 1469598103934665603ull;
    for (size_t i = 0; i < n; ++i)
        h = (h ^ p[i]) * 1099511628211ull;
    return h;
}

static void engine(void)
{
    if (!write_files()) {
        CHECK_MSG(0, "cannot write the data files under %s", dir);
        return;
    }
    for (int shared = 0; shared < 2; ++shared) {
        const char *sh = shared ? "data.shared_minibatch=true"
                                : "data.shared_minibatch=false";
        const char *s1[] = {"threads=1", sh, "data.label_noise=0.3"};
        const char *s2[] = {"threads=2", sh, "data.label_noise=0.3"};
        const char *s3[] = {"threads=3", sh, "data.label_noise=0.3",
                            "balance=rotate"};
        const char *s0[] = {"threads=2", sh};
        const char *s01[] = {"threads=3", sh, "data.label_noise=0.01"};
        rx_ctx *a = run(s1, 3), *b = run(s2, 3), *c = run(s3, 4);
        rx_ctx *z = run(s0, 2), *one = run(s01, 3);
        CHECK_MSG(same_run(a, b), "label noise: 1 vs 2 threads differ "
                  "(shared %d)", shared);
        CHECK_MSG(same_run(a, c), "label noise: 1 vs 3 threads differ "
                  "(shared %d)", shared);
        CHECK_MSG(a && z && !same_run(a, z), "label noise 0.3 gives the "
                  "run without it (shared %d)", shared);
        /* floor(0.01 x 160) = 1 row: nothing to permute */
        CHECK_MSG(same_run(z, one), "label noise 0.01 (one row) moved the "
                  "run (shared %d)", shared);
        rx_destroy(&a);
        rx_destroy(&b);
        rx_destroy(&c);
        rx_destroy(&z);
        rx_destroy(&one);
    }
    /* One SGLD chain without the key: the bits it gave before the key
     * existed (measured with the build of the commit before it, any
     * thread count). An intended change of the network's arithmetic or
     * of SGLD moves this value: measure it again then, with the key
     * absent. */
    const char *sg[] = {"threads=1", "tempering.n_chains=1",
                        "tempering.scheme=none"};
    const char *sg0[] = {"threads=1", "tempering.n_chains=1",
                         "tempering.scheme=none", "data.label_noise=0"};
    rx_ctx *g = run(sg, 3), *g0 = run(sg0, 4);
    const uint64_t h = samples_hash(g);
    printf("one chain, no label noise: samples hash %016llx\n",
           (unsigned long long)h);
    const uint64_t before = 0xf68034dcff9a82bcull;
    CHECK_MSG(h == before, "one chain without the key: hash %016llx, "
              "before the key %016llx", (unsigned long long)h,
              (unsigned long long)before);
    CHECK_MSG(same_run(g, g0), "data.label_noise: 0 differs from the key "
              "absent");
    rx_destroy(&g);
    rx_destroy(&g0);
    remove_files();
}

/* ---- refused values -------------------------------------------------------*/

static void refused(void)
{
    rx_config c;
    rx_config_default(&c);
    rx_err err;
    CHECK(rx_config_set_real(&c, "data.label_noise", 0.2, &err) == RX_OK);
    CHECK(rx_config_set_real(&c, "data.label_noise", 1.0, &err) == RX_OK);
    CHECK(rx_config_set_real(&c, "data.label_noise", 0.0, &err) == RX_OK);
    CHECK(rx_config_set_real(&c, "data.label_noise", 1.5, &err) != RX_OK);
    CHECK(rx_config_set_real(&c, "data.label_noise", -0.1, &err) != RX_OK);
    CHECK(rx_config_set_real(&c, "data.label_noise", NAN, &err) != RX_OK);
    double x = -1;
    CHECK(rx_config_get_real(&c, "data.label_noise", &x, &err) == RX_OK &&
          x == 0.0);
    rx_config_free(&c);
}

int main(void)
{
    one_epoch();
    sampler();
    refused();
    engine();
    return check_done();
}
