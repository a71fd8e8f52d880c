/*
 * No test-split statistics in the network's inputs (issue 21, item 13):
 * a CSV whose train and test splits DIFFER (the test split's feature is
 * shifted by +4), run end to end through a network target (a linear
 * Bayesian model, layers [{dense: 1}], so that it extrapolates):
 *
 *  - the test split is the rows the library's seeded split picks (a first
 *    run in which only those rows carry a target offset of 1000 has a
 *    test RMSE of 1000: every test row, and no other, is one of them);
 *  - the training features have mean 0 and sd 1: with y = 2 x + 1 + noise
 *    (sd 0.1), targets not standardised, the posterior means of the
 *    weight and the bias are 2 sd(x) and 2 mean(x) + 1 over the training
 *    rows (the test split's statistics move the bias by 8);
 *  - the test features are transformed with the training split's
 *    statistics: the posterior-predictive test RMSE is at the noise level
 *    (0.1), where the test split's own statistics move every prediction by
 *    2 x 4 = 8.
 */
#define _POSIX_C_SOURCE 200809L
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "replex/replex.h"
#include "../src/data/data.h"
#include "check.h"

#define N_ROWS 400
#define TEST_FRAC 0.25
#define SHIFT 4.0
/* the split key of network targets (src/data/assemble.c) */
#define SPLIT_KEY 0x7265706c6578ULL

static char tmp[1024];

/* in_test[r] = 1 for the rows the library's split sends to test. */
static int test_rows(unsigned char *in_test)
{
    rx__dataset all, tr, te;
    memset(&all, 0, sizeof all);
    rx_err err = {0};
    all.n = N_ROWS;
    all.nfeat = 1;
    all.c = all.h = all.w = 1;
    all.y_sd = 1.0;
    all.x = rx__alloc_aligned(sizeof(float) * N_ROWS, 64);
    all.y = rx__alloc_aligned(sizeof(float) * N_ROWS, 64);
    if (!all.x || !all.y)
        return 0;
    for (int r = 0; r < N_ROWS; ++r)
        all.x[r] = all.y[r] = (float)r;
    rx_status st = rx__data_split(&all, TEST_FRAC, SPLIT_KEY, 0, &tr, &te,
                                  &err);
    CHECK_MSG(st == RX_OK, "%s", err.msg);
    memset(in_test, 0, N_ROWS);
    for (int64_t i = 0; st == RX_OK && i < te.n; ++i)
        in_test[(int)te.y[i]] = 1;
    rx__data_free(&all);
    rx__data_free(&tr);
    rx__data_free(&te);
    return st == RX_OK;
}

/* A deterministic normal (Box-Muller on a fixed LCG): the data only. */
static double normal(unsigned long long *s)
{
    double u[2];
    for (int i = 0; i < 2; ++i) {
        *s = *s * 6364136223846793005ULL + 1442695040888963407ULL;
        u[i] = ((double)(*s >> 11) + 0.5) / 9007199254740992.0;
    }
    return sqrt(-2.0 * log(u[0])) * cos(6.283185307179586 * u[1]);
}

/* Writes the CSV; mean and population sd of x over the training rows. */
static int write_csv(const char *path, const unsigned char *in_test,
                     double y_offset, double *mean, double *sd)
{
    FILE *f = fopen(path, "w");
    if (!f)
        return 0;
    unsigned long long s = 12345;
    double sx = 0.0, sxx = 0.0;
    int n = 0;
    fprintf(f, "x,y\n");
    for (int r = 0; r < N_ROWS; ++r) {
        double x = normal(&s) + (in_test[r] ? SHIFT : 0.0);
        double y = 2.0 * x + 1.0 + 0.1 * normal(&s) +
                   (in_test[r] ? y_offset : 0.0);
        fprintf(f, "%.9g,%.9g\n", x, y);
        if (!in_test[r]) {
            x = (double)(float)x; /* as the loader reads it */
            sx += x;
            sxx += x * x;
            n++;
        }
    }
    *mean = sx / n;
    *sd = sqrt(sxx / n - *mean * *mean);
    return fclose(f) == 0;
}

static rx_ctx *run(const char *csv, int iterations, int std_target)
{
    char yaml[1200];
    snprintf(yaml, sizeof yaml, "%s/leak.yaml", tmp);
    FILE *f = fopen(yaml, "w");
    if (!f)
        return NULL;
    fprintf(f,
            "seed: 3\n"
            "iterations: %d\n"
            "threads: 1\n"
            "target: {kind: network}\n"
            "data: {format: csv, path: \"%s\", test_fraction: %g,"
            " batch_size: 50, standardise_target: %s}\n"
            "model: {layers: [{dense: 1}], learn_precision: false,"
            " noise_var: %g}\n"
            "tempering: {n_chains: 2, scheme: deo}\n"
            "ladder: {eta: 2.0e-7, tau: {min: 1, max: 2}}\n"
            "step: {target: sgld, others: sgld}\n"
            "record: {burn_in: %d, thin: 10}\n",
            iterations, csv, TEST_FRAC, std_target ? "true" : "false",
            std_target ? 0.0025 : 0.01, iterations / 2);
    fclose(f);
    rx_config cfg;
    rx_config_default(&cfg);
    rx_err err = {0};
    rx_status st = rx_config_load(yaml, NULL, 0, &cfg, &err);
    CHECK_MSG(st == RX_OK, "%s", err.msg);
    if (st != RX_OK)
        return NULL;
    rx_ctx *c = NULL;
    st = rx_create(&c, &cfg, NULL, (rx_logger){0}, &err);
    rx_config_free(&cfg);
    CHECK_MSG(st == RX_OK, "rx_create: %s", err.msg);
    if (st != RX_OK)
        return NULL;
    st = rx_run(c);
    CHECK_MSG(st == RX_OK, "rx_run: %s", rx_errmsg(c));
    if (st != RX_OK)
        rx_destroy(&c);
    remove(yaml);
    return c;
}

int main(void)
{
    const char *t = getenv("TMPDIR");
    snprintf(tmp, sizeof tmp, "%s/rx_leak_XXXXXX", t ? t : "/tmp");
    if (!mkdtemp(tmp)) {
        perror("mkdtemp");
        return 1;
    }
    unsigned char in_test[N_ROWS];
    char csv[1200];
    snprintf(csv, sizeof csv, "%s/shifted.csv", tmp);
    if (!test_rows(in_test))
        return check_done();

    /* 1. the rows computed above are the run's test split */
    double m_tr, s_tr;
    CHECK(write_csv(csv, in_test, 1000.0, &m_tr, &s_tr));
    rx_ctx *c = run(csv, 20, 1);
    if (c) {
        rx_results r;
        rx_get_results(c, &r);
        printf("offset run: %lld test rows, test RMSE %.1f\n",
               (long long)r.ensemble.n_test, r.ensemble.rmse);
        CHECK(r.ensemble.n_test == (int64_t)(TEST_FRAC * N_ROWS + 0.5));
        CHECK_NEAR(r.ensemble.rmse, 1000.0, 30.0);
        rx_destroy(&c);
    }

    /* 2. the shifted test split, the training split's statistics */
    CHECK(write_csv(csv, in_test, 0.0, &m_tr, &s_tr));
    c = run(csv, 4000, 0);
    if (c) {
        rx_results r;
        rx_get_results(c, &r);
        CHECK(r.dim == 2 && r.n_samples > 10);
        double m[2] = {0.0, 0.0};
        for (int64_t i = 0; i < r.n_samples; ++i)
            for (size_t j = 0; j < 2 && r.dim == 2; ++j)
                m[j] += r.samples[(size_t)i * r.dim + j];
        m[0] /= (double)r.n_samples;
        m[1] /= (double)r.n_samples;
        printf("posterior means: weight %.4f, bias %.4f (training x: mean "
               "%.4f, sd %.4f); test RMSE %.4f (BMA of %lld)\n", m[0], m[1],
               m_tr, s_tr, r.bma.rmse, (long long)r.bma.n_models);
        /* y = 2 x + 1 = 2 sd z + (2 mean + 1) where the training
         * features z have mean 0 and sd 1 */
        CHECK_NEAR(m[0], 2.0 * s_tr, 0.03);
        CHECK_NEAR(m[1], 2.0 * m_tr + 1.0, 0.03);
        /* test features through the training statistics */
        CHECK(r.bma.valid && !r.bma.classification);
        CHECK(r.bma.rmse < 0.3);
        rx_destroy(&c);
    }
    remove(csv);
    rmdir(tmp);
    return check_done();
}
