/*
 * Trajectory rounds (the replica-exchange Nose-Hoover paper, Alg. 2-3):
 * `tempering.every: L` (swaps tried only at the last iteration of every
 * L) and `step.reset_every: N` (every particle's step state made fresh at
 * k = N, 2N, ...), and RENHD as the paper runs it (yaml/renhd_t9.yaml).
 *
 *  (a) Swaps only at round ends: under deo, seo, adj and ape with L = 7
 *      (odd) and L = 10 (even), the index process changes only at
 *      iterations k with (k + 1) % L == 0, and every pair's attempts are
 *      exactly those of the schedule run on the attempt clock k / L (deo:
 *      the parities alternate per attempt, so with L even both classes of
 *      pairs are tried; on the iteration clock only the odd ones would
 *      be).
 *  (b) The reset, read back: on a flat callback target (U = 0) with
 *      SGNHT at c = 0 the step is deterministic, v_k = theta_k -
 *      theta_(k-1) = (1 - s_(k-1)) v_(k-1) and s_k = s_(k-1) + mu (v_k'v_k
 *      / d - tau eta), so the test tracks v and s from the positions
 *      alone. At k = N, 2N, ... every chain's velocity is a fresh draw
 *      (no longer (1 - s) v; variance tau eta within 10 % at d = 2000) and
 *      its thermostat restarts at c / tau (the next steps follow from s =
 *      c / tau exactly); at every other k the tracked law holds to 1e-9.
 *  (c) T9 (renhd.md 10) on SGNHT trajectories: the five-mode mixture with
 *      noisy energies and forces, 7 replicas, 50 steps per round, the
 *      noise-aware test at every round's end, the reset at every round's
 *      start, 20,000 rounds; seeds 1, 2, 3: every mode's weight within
 *      0.2 +- 0.04, every pair's acceptance (swaps / attempts) in [0.44,
 *      0.50], more than 1000 mode switches; SGNHT alone (one chain, mu 1,
 *      no rounds) stays in the mode it starts next to (0 switches, one
 *      weight above 0.99). The thermostat gain is the shipped file's
 *      0.0005 (yaml/renhd_t9.yaml says why).
 *  (d) The same bits (samples, index process, pair counters) on 1, 2 and 3
 *      threads, barrier and partner designs, and after a resume from a
 *      checkpoint taken in mid-round, at a round's last iteration (its
 *      swap) and at a round's first (its reset).
 */
#define _POSIX_C_SOURCE 200809L
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "replex/replex.h"
#include "check.h"
#include "run_util.h"

#define PI 3.14159265358979323846

/* yaml/renhd_t9.yaml */
static const char *t9_sets[] = {
    T9_TARGET_SETS,
    "tempering.every=50",
    "ladder.eta=0.005",
    "ladder.tau={min: 1, max: 11.390625}",
    "step.target=sgnht",
    "step.others=sgnht",
    "step.sgnht_c=0.1",
    "step.sgnht_mu=0.0005",
    "step.reset_every=50",
    "record.burn_in=99999",
    "record.thin=50",
    NULL,
};

/* A config: the T9 settings, then `extra` (either may be NULL). */
static int config(rx_config *c, const char *const *base,
                  const char *const *extra)
{
    rx_config_default(c);
    return set_list_checked(c, base, -1) && set_list_checked(c, extra, -1);
}

static rx_ctx *run_cfg(const rx_config *cfg, int threads,
                       const rx_callback_target *cb)
{
    rx_config c;
    rx_config_default(&c);
    rx_config_copy(&c, cfg);
    c.threads = threads;
    rx_ctx *ctx = create_run(&c, cb, NULL, NULL, 0);
    rx_config_free(&c);
    return ctx;
}

static rx_ctx *run(const char *const *base, const char *const *extra,
                   int threads)
{
    rx_config c;
    if (!config(&c, base, extra)) {
        rx_config_free(&c);
        return NULL;
    }
    rx_ctx *ctx = run_cfg(&c, threads, NULL);
    rx_config_free(&c);
    return ctx;
}

/* ---- (a) swaps only at round ends ------------------------------------- */

static const char *small_sets[] = {
    "seed=7",
    "target.kind=gmm",
    "target.weights=[0.5, 0.5]",
    "target.means=[[-2, 0], [2, 0]]",
    "target.scales=[[0.5, 0.5], [0.5, 0.5]]",
    "tempering.n_chains=6",
    "ladder.eta=0.01",
    "ladder.tau={min: 1, max: 8}",
    "step.target=sgnht",
    "step.others=sgnht",
    "step.sgnht_c=0.1",
    "record.index_every=1",
    NULL,
};

/* Pair p's attempts under deo (W = 1, phase 0) over n attempts: those of
 * the attempt clock r = k / L, active iff (p + 1) % 2 == r % 2. */
static int64_t deo_attempts(int p, int64_t n)
{
    int64_t a = 0;
    for (int64_t r = 0; r < n; ++r)
        a += ((p + 1) & 1) == (r & 1);
    return a;
}

static void rounds_case(const char *scheme, int L)
{
    const int64_t n = 300, K = n * L;
    char it[64], ev[64], sc[64];
    snprintf(it, sizeof it, "iterations=%lld", (long long)K);
    snprintf(ev, sizeof ev, "tempering.every=%d", L);
    snprintf(sc, sizeof sc, "tempering.scheme=%s", scheme);
    const char *extra[] = {it, ev, sc, NULL};
    rx_ctx *c = run(small_sets, extra, 1);
    if (!c)
        return;
    rx_results r;
    rx_get_results(c, &r);
    const int P = r.n_chains;
    int64_t moved = 0, bad = 0, att = 0, sw = 0;
    for (int64_t j = 1; j < r.n_index; ++j) {
        const int32_t *a = r.index + (size_t)(j - 1) * (size_t)P;
        const int32_t *b = r.index + (size_t)j * (size_t)P;
        if (memcmp(a, b, sizeof(int32_t) * (size_t)P) == 0)
            continue;
        ++moved;
        bad += (r.index_iter[j] + 1) % L != 0;
    }
    for (int p = 0; p < P - 1; ++p) {
        att += r.pairs[p].attempts;
        sw += r.pairs[p].swaps;
        if (strcmp(scheme, "deo") == 0)
            CHECK_MSG(r.pairs[p].attempts == deo_attempts(p, n),
                      "deo, L %d, pair %d: %lld attempts, want %lld", L,
                      p + 1, (long long)r.pairs[p].attempts,
                      (long long)deo_attempts(p, n));
        else if (strcmp(scheme, "adj") == 0)
            CHECK_MSG(r.pairs[p].attempts == n,
                      "adj, L %d, pair %d: %lld attempts, want %lld", L,
                      p + 1, (long long)r.pairs[p].attempts, (long long)n);
    }
    printf("(a) %-4s L %2d: %lld attempts (adjacent), %lld swaps, index "
           "moved at %lld iterations, %lld of them not a round's end\n",
           scheme, L, (long long)att, (long long)sw, (long long)moved,
           (long long)bad);
    CHECK_MSG(r.n_index == K, "%lld index rows", (long long)r.n_index);
    CHECK_MSG(moved > n / 10, "%s: the index moved at %lld iterations",
              scheme, (long long)moved);
    CHECK_MSG(bad == 0, "%s, L %d: %lld swaps inside a round", scheme, L,
              (long long)bad);
    if (strcmp(scheme, "seo") == 0)
        CHECK_MSG(att > n * (P - 1) / 2 - n && att < n * (P - 1) / 2 + n,
                  "seo: %lld attempts for %lld rounds", (long long)att,
                  (long long)n);
    if (strcmp(scheme, "ape") == 0)
        CHECK_MSG(att > 0 && att <= n, "ape: %lld attempts", (long long)att);
    rx_destroy(&c);
}

static void test_round_ends(void)
{
    static const char *schemes[] = {"deo", "seo", "adj", "ape"};
    for (int s = 0; s < 4; ++s)
        for (int l = 0; l < 2; ++l)
            rounds_case(schemes[s], l ? 10 : 7);
    /* L = 1 is the run without the key (the same bits) */
    static const char *one[] = {"iterations=3000", NULL};
    static const char *one_l[] = {"iterations=3000", "tempering.every=1",
                                  NULL};
    rx_ctx *a = run(small_sets, one, 1), *b = run(small_sets, one_l, 1);
    if (a && b) {
        rx_results ra, rb;
        rx_get_results(a, &ra);
        rx_get_results(b, &rb);
        CHECK(same_index(&ra, &rb) && same_samples(&ra, &rb));
    }
    rx_destroy(&a);
    rx_destroy(&b);
}

/* ---- (b) the reset, read back ----------------------------------------- */

#define RD 2000 /* dimension */
#define RP 3    /* chains */
#define RN 20   /* step.reset_every */
#define RK 70   /* iterations */

/* Every evaluation's theta, by the particle's vector (its address). */
typedef struct trace {
    const double *who[RP];
    int n[RP];
    double *th[RP]; /* (RK + 2) x RD each */
    int over;
} trace;

static rx_status flat(void *user, const double *theta, size_t dim,
                      double *energy, double *grad)
{
    trace *t = user;
    int i = 0;
    while (i < RP && t->who[i] && t->who[i] != theta)
        ++i;
    if (i == RP || t->n[i] >= RK + 2) {
        t->over = 1;
    } else {
        t->who[i] = theta;
        memcpy(t->th[i] + (size_t)t->n[i]++ * dim, theta,
               sizeof(double) * dim);
    }
    *energy = 0.0;
    if (grad)
        memset(grad, 0, sizeof(double) * dim);
    return RX_OK;
}

static void test_reset_readback(int reset_every, int expect_reset)
{
    static const char *sets[] = {
        "target.kind=callback", "tempering.n_chains=3",
        "tempering.scheme=none", "ladder.eta=0.01",
        "ladder.tau={min: 1, max: 4}", "step.target=sgnht",
        "step.others=sgnht", "step.sgnht_c=0", "step.sgnht_mu=1",
        "init.low=-1", "init.high=1", NULL};
    char it[64], re[64];
    snprintf(it, sizeof it, "iterations=%d", RK);
    snprintf(re, sizeof re, "step.reset_every=%d", reset_every);
    const char *extra[] = {it, re, NULL};
    trace t;
    memset(&t, 0, sizeof t);
    for (int i = 0; i < RP; ++i)
        t.th[i] = malloc(sizeof(double) * RD * (RK + 2));
    rx_callback_target cb = {.dim = RD, .energy = flat, .user = &t};
    rx_config c;
    rx_ctx *ctx = NULL;
    if (config(&c, sets, extra))
        ctx = run_cfg(&c, 1, &cb);
    rx_config_free(&c);
    const double eta = 0.01, mu = 1.0, taus[RP] = {1.0, 2.0, 4.0};
    int bad_law = 0, fresh = 0, stale = 0;
    double worst = 0.0;
    for (int i = 0; ctx && i < RP; ++i) {
        /* the first evaluation is the start; then one per iteration */
        CHECK_MSG(t.n[i] == RK + 1, "chain %d: %d evaluations", i, t.n[i]);
        if (t.n[i] != RK + 1)
            continue;
        const double tau = taus[i];
        static double v[RD], vn[RD];
        double s = 0.0; /* c / tau at the start */
        for (int j = 0; j < RD; ++j)
            v[j] = t.th[i][RD + j] - t.th[i][j];
        /* v_1 = v_0 (s_0 = c / tau = 0): a draw at tau */
        double vv = 0.0;
        for (int j = 0; j < RD; ++j)
            vv += v[j] * v[j];
        CHECK_MSG(fabs(vv / RD / (tau * eta) - 1.0) < 0.1,
                  "chain %d: start variance %.4f of tau eta", i,
                  vv / RD / (tau * eta));
        s += mu * (vv / RD - tau * eta);
        for (int k = 1; k < RK; ++k) {
            /* step k moves theta_k (evaluation k) to theta_(k+1) */
            double err = 0.0, w2 = 0.0;
            for (int j = 0; j < RD; ++j) {
                vn[j] = t.th[i][(size_t)(k + 1) * RD + j] -
                        t.th[i][(size_t)k * RD + j];
                const double e = fabs(vn[j] - (1.0 - s) * v[j]);
                err = e > err ? e : err;
                w2 += vn[j] * vn[j];
            }
            const int start = k % RN == 0;
            if (start) {
                /* a fresh velocity at tau, and s restarted at c / tau */
                const double var = w2 / RD / (tau * eta);
                const int is_fresh = err > 1e-6 && fabs(var - 1.0) < 0.1;
                fresh += is_fresh;
                stale += !is_fresh;
                if (is_fresh)
                    s = 0.0; /* c / tau, c = 0 */
                else if (expect_reset)
                    printf("(b) chain %d, k %d: max |v - (1 - s) v| %.3g, "
                           "var / (tau eta) %.4f: not a fresh state\n",
                           i, k, err, var);
            } else {
                worst = err > worst ? err : worst;
                bad_law += err > 1e-9;
            }
            s += mu * (w2 / RD - tau * eta);
            memcpy(v, vn, sizeof v);
        }
    }
    printf("(b) reset_every %d: %d fresh states at k = %d, %d, %d, %d not; "
           "the law of the other steps off by at most %.3g (%d steps "
           "beyond 1e-9)\n",
           reset_every, fresh, RN, 2 * RN, 3 * RN, stale, worst, bad_law);
    if (ctx) {
        CHECK(!t.over);
        CHECK_MSG(bad_law == 0, "%d steps off the tracked law", bad_law);
        if (expect_reset)
            CHECK_MSG(fresh == RP * ((RK - 1) / RN) && stale == 0,
                      "%d fresh, %d not", fresh, stale);
        else /* the control: the same read-back sees no reset */
            CHECK_MSG(fresh == 0 && stale == RP * ((RK - 1) / RN),
                      "without the key: %d fresh, %d not", fresh, stale);
    }
    rx_destroy(&ctx);
    for (int i = 0; i < RP; ++i)
        free(t.th[i]);
}

/* ---- (c) T9 on SGNHT trajectories ------------------------------------- */

static int switches(const rx_results *r)
{
    int n = 0, last = -1;
    for (int64_t i = 0; i < r->n_samples; ++i) {
        const double th = atan2(r->samples[2 * i + 1], r->samples[2 * i]);
        int m = ((int)lround(th / (2.0 * PI / 5.0)) + 5) % 5;
        n += last >= 0 && m != last;
        last = m;
    }
    return n;
}

static void test_t9(void)
{
    double wsum[5] = {0}, wsq[5] = {0};
    int ns = 0;
    for (int seed = 1; seed <= 3; ++seed) {
        char sd[32];
        snprintf(sd, sizeof sd, "seed=%d", seed);
        const char *extra[] = {sd, NULL};
        rx_ctx *c = run(t9_sets, extra, 1);
        if (!c)
            continue;
        rx_results r;
        rx_get_results(c, &r);
        double w[5], a[6];
        CHECK(rx_mode_weights(c, w, 5) == RX_OK);
        const int sw = switches(&r);
        printf("(c) T9 seed %d: weights %.3f %.3f %.3f %.3f %.3f; "
               "acceptance", seed, w[0], w[1], w[2], w[3], w[4]);
        for (int p = 0; p < 6; ++p) {
            a[p] = (double)r.pairs[p].swaps / (double)r.pairs[p].attempts;
            printf(" %.4f", a[p]);
        }
        printf("; attempts per pair %lld; switches %d\n",
               (long long)r.pairs[0].attempts, sw);
        for (int m = 0; m < 5; ++m) {
            CHECK_MSG(fabs(w[m] - 0.2) <= 0.04, "seed %d, mode %d: %.3f",
                      seed, m, w[m]);
            wsum[m] += w[m];
            wsq[m] += w[m] * w[m];
        }
        for (int p = 0; p < 6; ++p) {
            CHECK_MSG(a[p] > 0.44 && a[p] < 0.50, "seed %d, pair %d: %.4f",
                      seed, p + 1, a[p]);
            CHECK(r.pairs[p].attempts == 10000);
        }
        CHECK_MSG(sw > 1000, "seed %d: %d mode switches", seed, sw);
        ++ns;
        rx_destroy(&c);
    }
    if (ns == 3) {
        printf("(c) T9 over 3 seeds: mean (sd) per mode");
        for (int m = 0; m < 5; ++m) {
            const double mean = wsum[m] / 3.0;
            const double var = (wsq[m] - 3.0 * mean * mean) / 2.0;
            printf(" %.3f (%.3f)", mean, sqrt(var > 0.0 ? var : 0.0));
        }
        printf("\n");
    }
    /* the control: SGNHT alone (Ding et al.'s gain mu = 1, its thermostat
     * kept) stays where it started */
    static const char *alone[] = {"tempering.n_chains=1",
                                  "tempering.scheme=none",
                                  "tempering.every=1", "step.reset_every=0",
                                  "step.sgnht_mu=1", NULL};
    rx_ctx *c = run(t9_sets, alone, 1);
    if (c) {
        rx_results r;
        rx_get_results(c, &r);
        double w[5];
        CHECK(rx_mode_weights(c, w, 5) == RX_OK);
        const int sw = switches(&r);
        printf("(c) SGNHT alone: weights %.3f %.3f %.3f %.3f %.3f; "
               "switches %d\n", w[0], w[1], w[2], w[3], w[4], sw);
        double wmax = 0.0;
        for (int m = 0; m < 5; ++m)
            wmax = w[m] > wmax ? w[m] : wmax;
        CHECK_MSG(wmax > 0.99 && sw == 0, "largest weight %.3f, %d "
                  "switches", wmax, sw);
        rx_destroy(&c);
    }
}

/* ---- (d) the same bits ------------------------------------------------ */

static int same(rx_ctx *a, rx_ctx *b)
{
    rx_results ra, rb;
    rx_get_results(a, &ra);
    rx_get_results(b, &rb);
    return ra.n_chains == rb.n_chains && same_samples(&ra, &rb) &&
           same_index(&ra, &rb) && same_pairs(&ra, &rb);
}

static const char *bits_sets[] = {"iterations=20000", "record.burn_in=0",
                                  "record.thin=1", "record.index_every=1",
                                  NULL};

static void test_bits(void)
{
    rx_config cfg;
    if (!config(&cfg, t9_sets, bits_sets)) {
        rx_config_free(&cfg);
        return;
    }
    rx_ctx *ref = run_cfg(&cfg, 1, NULL);
    if (!ref) {
        rx_config_free(&cfg);
        return;
    }
    static const char *syncs[] = {"barrier", "partner"};
    for (int s = 0; s < 2; ++s) {
        for (int t = 1; t <= 3; ++t) {
            rx_err err = {{0}};
            CHECK(rx_config_set(&cfg, "sync", syncs[s], &err) == RX_OK);
            CHECK(rx_config_set(&cfg, "balance", t == 3 ? "rotate" : "off",
                                &err) == RX_OK);
            rx_ctx *c = run_cfg(&cfg, t, NULL);
            if (!c)
                continue;
            rx_results r;
            rx_get_results(c, &r);
            const int ok = same(ref, c);
            printf("(d) %s, %d threads (partner design %d): %s\n", syncs[s],
                   t, r.partner, ok ? "same bits" : "DIFFERENT");
            CHECK_MSG(ok, "%s on %d threads differs from 1 thread",
                      syncs[s], t);
            rx_destroy(&c);
        }
    }
    /* resumed: stopped mid-round, at a round's swap, at a round's reset */
    const char *tmp = getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp";
    static const int64_t stops[] = {5024, 5049, 5050};
    for (int i = 0; i < 3; ++i) {
        char ck[1024];
        snprintf(ck, sizeof ck, "%s/rx_rounds_%ld_%d.bin", tmp,
                 (long)getpid(), i);
        stopper s1, s2;
        rx_status st;
        rx_ctx *a = stop_run(&cfg, 2, NULL, stops[i], ck, &s1, &st);
        CHECK_MSG(st == RX_EABORTED, "stop at %lld: %d",
                  (long long)stops[i], (int)st);
        rx_destroy(&a);
        rx_ctx *b = stop_run(&cfg, 3, ck, -1, NULL, &s2, &st);
        CHECK_MSG(st == RX_OK, "resume from %lld: %d", (long long)stops[i],
                  (int)st);
        if (b) {
            const int ok = same(ref, b);
            printf("(d) stopped after iteration %lld, resumed on 3 threads: "
                   "%s\n", (long long)stops[i],
                   ok ? "same bits" : "DIFFERENT");
            CHECK_MSG(ok, "resumed after %lld: differs",
                      (long long)stops[i]);
        }
        rx_destroy(&b);
        remove(ck);
    }
    rx_destroy(&ref);
    rx_config_free(&cfg);
}

/* ---- keys -------------------------------------------------------------- */

static void test_keys(void)
{
    rx_config c;
    rx_err err = {{0}};
    rx_config_default(&c);
    CHECK(rx_config_set(&c, "tempering.every", "0", &err) != RX_OK);
    CHECK(rx_config_set(&c, "step.reset_every", "-1", &err) != RX_OK);
    CHECK(rx_config_set(&c, "tempering.every", "2.5", &err) != RX_OK);
    CHECK(rx_config_set(&c, "tempering.every", "50", &err) == RX_OK &&
          rx_config_set(&c, "step.reset_every", "50", &err) == RX_OK);
    char buf[64];
    CHECK(rx_config_get(&c, "tempering.every", buf, sizeof buf, &err) ==
              RX_OK &&
          strcmp(buf, "50") == 0);
    rx_config_free(&c);
}

int main(void)
{
    test_keys();
    test_round_ends();
    test_reset_readback(RN, 1);
    test_reset_readback(0, 0); /* the control: no reset, none seen */
    test_bits();
    test_t9();
    return check_done();
}
