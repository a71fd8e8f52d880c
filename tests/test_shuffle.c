/*
 * The minibatch sampler's epochs are uniform random permutations (issue
 * 21, item 15): Fisher-Yates, not a shuffle that reaches only some
 * permutations (Sattolo's, one index off, gives only the (n-1)! cyclic
 * ones: never a fixed point, always one cycle). With one batch per epoch
 * (bs = n) rx__batcher_get(k) is epoch k's whole permutation. Fixed seeds;
 * the tolerances are 5 standard errors, or chi-square quantiles near
 * 1e-4 (the figures are printed).
 *
 *  1. n = 50, 20,000 epochs: the number of fixed points is Poisson(1)
 *     (exact to 1e-50 at n = 50): mean 1 (sd 1), P(none) = 1/e, and a
 *     chi-square over 0, 1, 2, 3, 4, >= 5 fixed points (5 df); the mean
 *     number of cycles is the harmonic number H_50 = 4.499 (variance
 *     sum (1/i - 1/i^2) = 2.874);
 *  2. n = 4, 24,000 epochs: each of the 24 permutations about 1,000
 *     times (chi-square, 23 df);
 *  3. batches of an epoch are disjoint and every row is in one of them
 *     (n = 53, bs = 5: 10 batches, 3 rows left out per epoch).
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "replex/replex.h"
#include "../src/data/data.h"
#include "check.h"

#define SEED 20261126ULL

static void fixed_points(uint32_t entity)
{
    enum { N = 50, E = 20000, BINS = 6 };
    rx__batcher b;
    rx_err err = {0};
    CHECK(rx__batcher_init(&b, N, N, SEED, entity, &err) == RX_OK);
    if (!b.perm)
        return;
    int64_t hist[BINS] = {0};
    double sum = 0.0, cycles = 0.0;
    for (int64_t k = 0; k < E; ++k) {
        const int32_t *p = rx__batcher_get(&b, k);
        int fp = 0, nc = 0;
        unsigned char seen[N] = {0};
        for (int i = 0; i < N; ++i) {
            fp += p[i] == i;
            if (!seen[i]) {
                nc++;
                for (int j = i; !seen[j]; j = p[j])
                    seen[j] = 1;
            }
        }
        sum += fp;
        cycles += nc;
        hist[fp < BINS - 1 ? fp : BINS - 1]++;
    }
    rx__batcher_free(&b);
    const double mean = sum / E, p0 = (double)hist[0] / E;
    /* Poisson(1) probabilities of 0..4 and >= 5 */
    double pr[BINS], tail = 1.0, f = 1.0, chi2 = 0.0;
    for (int j = 0; j < BINS - 1; ++j) {
        if (j > 0)
            f *= j;
        pr[j] = exp(-1.0) / f;
        tail -= pr[j];
    }
    pr[BINS - 1] = tail;
    for (int j = 0; j < BINS; ++j) {
        double ex = E * pr[j];
        const double d = (double)hist[j] - ex;
        chi2 += d * d / ex;
    }
    double hn = 0.0, vn = 0.0;
    for (int i = 1; i <= N; ++i) {
        hn += 1.0 / i;
        vn += 1.0 / i - 1.0 / ((double)i * i);
    }
    const double mc = cycles / E;
    printf("entity %u: fixed points mean %.4f, P(none) %.4f (1/e %.4f), "
           "chi-square %.2f (5 df); cycles mean %.4f (H_50 %.4f); counts "
           "0..>=5: %lld %lld %lld %lld %lld %lld\n", entity, mean, p0,
           exp(-1.0), chi2, mc, hn, (long long)hist[0], (long long)hist[1],
           (long long)hist[2], (long long)hist[3], (long long)hist[4],
           (long long)hist[5]);
    CHECK_NEAR(mean, 1.0, 5.0 / sqrt((double)E));
    CHECK_NEAR(p0, exp(-1.0), 5.0 * sqrt(exp(-1.0) * (1 - exp(-1.0)) / E));
    CHECK(chi2 < 25.7); /* 5 df: P(chi2 > 25.7) = 1e-4 */
    CHECK_NEAR(mc, hn, 5.0 * sqrt(vn / E));
}

static void all_perms_of_4(void)
{
    enum { N = 4, E = 24000, NP = 24 };
    rx__batcher b;
    rx_err err = {0};
    CHECK(rx__batcher_init(&b, N, N, SEED, 7, &err) == RX_OK);
    if (!b.perm)
        return;
    int64_t count[256] = {0};
    for (int64_t k = 0; k < E; ++k) {
        const int32_t *p = rx__batcher_get(&b, k);
        int code = 0;
        for (int i = 0; i < N; ++i)
            code = code * 4 + p[i];
        count[code]++;
    }
    rx__batcher_free(&b);
    int distinct = 0;
    double chi2 = 0.0, ex = (double)E / NP;
    for (int code = 0; code < 256; ++code)
        if (count[code]) {
            distinct++;
            const double d = (double)count[code] - ex;
            chi2 += d * d / ex;
        }
    chi2 += (NP - distinct) * ex; /* permutations never drawn */
    printf("n = 4: %d of 24 permutations drawn, chi-square %.2f (23 df)\n",
           distinct, chi2);
    CHECK(distinct == NP);
    CHECK(chi2 < 53.0); /* 23 df: P(chi2 > 53) ~ 3e-4 */
}

static void epoch_partition(void)
{
    enum { N = 53, BS = 5, NB = N / BS };
    rx__batcher b;
    rx_err err = {0};
    CHECK(rx__batcher_init(&b, N, BS, SEED, 3, &err) == RX_OK);
    if (!b.perm)
        return;
    int ok = 1;
    for (int64_t e = 0; e < 50 && ok; ++e) {
        int seen[N] = {0};
        for (int j = 0; j < NB; ++j) {
            const int32_t *p = rx__batcher_get(&b, e * NB + j);
            for (int i = 0; i < BS; ++i) {
                if (p[i] < 0 || p[i] >= N || seen[p[i]]++)
                    ok = 0;
            }
        }
        /* the permutation itself (batches, then the rows left out) */
        const int32_t *p = rx__batcher_get(&b, e * NB);
        int all[N] = {0};
        for (int i = 0; i < N; ++i)
            if (p[i] < 0 || p[i] >= N || all[p[i]]++)
                ok = 0;
    }
    rx__batcher_free(&b);
    CHECK(ok);
}

int main(void)
{
    fixed_points(0);
    fixed_points(1);
    all_perms_of_4();
    epoch_partition();
    return check_done();
}
