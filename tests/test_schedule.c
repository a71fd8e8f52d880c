/*
 * Swap schedules: W* values (deo.md T1) and the DEO_W invariants of T5 on
 * random runs through the real engine, read back from the index process
 * (the particle at every position after every iteration).
 */
#include <stdlib.h>
#include <string.h>

#include "replex/replex.h"
#include "check.h"

static rx_ctx *run(rx_scheme sch, int window, int P, int64_t K,
                   rx_target_kind tk, uint64_t seed, int threads)
{
    rx_config c;
    rx_config_default(&c);
    c.seed = seed;
    c.iterations = K;
    c.threads = threads;
    c.target.kind = tk;
    c.tempering.n_chains = P;
    c.tempering.scheme = sch;
    c.tempering.window = window;
    if (tk == RX_TARGET_NONE) {
        c.tempering.rule = RX_RULE_BERNOULLI;
        c.tempering.accept_prob = 0.35;
    } else {
        c.ladder.eta.kind = RX_LADDER_CONSTANT;
        c.ladder.eta.min = 0.003;
        c.ladder.tau.kind = RX_LADDER_GEOMETRIC;
        c.ladder.tau.min = 1;
        c.ladder.tau.max = 20;
    }
    c.record.trace_every = 0;
    rx_ctx *ctx = NULL;
    rx_err err;
    rx_status st = rx_create(&ctx, &c, NULL, (rx_logger){0}, &err);
    rx_config_free(&c);
    CHECK_MSG(st == RX_OK, "%s", err.msg);
    if (st != RX_OK)
        return NULL;
    st = rx_run(ctx);
    CHECK_MSG(st == RX_OK, "%s", rx_errmsg(ctx));
    return ctx;
}

/* T5 on one run. Rows of the index are after iterations 0..K-1; the
 * state before iteration 0 is the identity. */
static void check_deo_invariants(const rx_results *r, int W, int phase)
{
    const int P = r->n_chains;
    int32_t *prev = malloc(sizeof(int32_t) * (size_t)P);
    int32_t *wstart = malloc(sizeof(int32_t) * (size_t)P);
    int *swapped = calloc((size_t)P, sizeof(int));
    int *pos = malloc(sizeof(int) * (size_t)P);
    int *pos0 = malloc(sizeof(int) * (size_t)P);
    for (int q = 0; q < P; ++q)
        prev[q] = wstart[q] = q;
    int bad_perm = 0, bad_parity = 0, bad_shape = 0, bad_gate = 0,
        bad_move = 0;
    int64_t nswaps = 0;
    for (int64_t k = 0; k < r->n_index; ++k) {
        const int32_t *row = r->index + (size_t)k * (size_t)P;
        if (r->index_iter[k] != k)
            bad_perm++;
        if (k % W == 0) {
            memset(swapped, 0, sizeof(int) * (size_t)P);
            memcpy(wstart, prev, sizeof(int32_t) * (size_t)P);
        }
        /* permutation */
        for (int q = 0; q < P; ++q)
            pos[q] = -1;
        for (int q = 0; q < P; ++q) {
            if (row[q] < 0 || row[q] >= P || pos[row[q]] != -1)
                bad_perm++;
            else
                pos[row[q]] = q;
        }
        /* changes come as adjacent transpositions of active parity */
        int64_t m = k / W;
        for (int q = 0; q < P; ++q) {
            if (row[q] == prev[q])
                continue;
            if (q + 1 < P && row[q] == prev[q + 1] && row[q + 1] == prev[q]) {
                int p1 = q + 1; /* 1-based pair index */
                if ((p1 & 1) != (int)((m + phase) & 1))
                    bad_parity++;
                if (swapped[q])
                    bad_gate++;
                swapped[q] = 1;
                nswaps++;
                ++q; /* skip the partner */
            } else {
                bad_shape++;
            }
        }
        /* at the end of a window: every particle moved <= 1 level */
        if ((k + 1) % W == 0 || k + 1 == r->n_index) {
            for (int q = 0; q < P; ++q)
                pos0[wstart[q]] = q;
            for (int i = 0; i < P; ++i)
                if (pos[i] >= 0 && abs(pos[i] - pos0[i]) > 1)
                    bad_move++;
        }
        memcpy(prev, row, sizeof(int32_t) * (size_t)P);
    }
    CHECK_MSG(bad_perm == 0, "%d rows not a permutation", bad_perm);
    CHECK_MSG(bad_shape == 0, "%d changes not adjacent transpositions",
              bad_shape);
    CHECK_MSG(bad_parity == 0, "%d swaps of the wrong parity (W=%d)",
              bad_parity, W);
    CHECK_MSG(bad_gate == 0, "%d second swaps in a window (W=%d)", bad_gate,
              W);
    CHECK_MSG(bad_move == 0, "%d particles moved > 1 level (W=%d)",
              bad_move, W);
    CHECK_MSG(nswaps == r->total_swaps, "index shows %lld swaps, counters "
              "%lld", (long long)nswaps, (long long)r->total_swaps);
    CHECK(nswaps > 0);
    free(prev);
    free(wstart);
    free(swapped);
    free(pos);
    free(pos0);
}

int main(void)
{
    /* T1: W* table of deo.md 1.6 */
    static const int Ps[] = {4, 8, 10, 16, 32, 64};
    static const double Ss[] = {0.005, 0.01, 0.05, 0.1, 0.2,
                                0.3, 0.4, 0.5, 0.6};
    static const int table[6][9] = {
        {342, 171, 34, 17, 8, 5, 4, 3, 2},
        {561, 280, 55, 27, 13, 8, 6, 5, 4},
        {626, 313, 62, 30, 15, 9, 7, 5, 4},
        {757, 378, 74, 36, 17, 11, 8, 6, 5},
        {940, 469, 92, 45, 22, 14, 10, 7, 6},
        {1115, 556, 109, 54, 26, 16, 11, 9, 7}};
    for (int i = 0; i < 6; ++i)
        for (int j = 0; j < 9; ++j)
            CHECK_MSG(rx_optimal_window(Ps[i], Ss[j]) == table[i][j],
                      "W*(%d, %g) = %d, table %d", Ps[i], Ss[j],
                      rx_optimal_window(Ps[i], Ss[j]), table[i][j]);
    CHECK(rx_optimal_window(16, 0.4) == 8);
    CHECK(rx_optimal_window(10, 0.005) == 626);
    CHECK(rx_optimal_window(2, 0.4) == 1 && rx_optimal_window(3, 0.4) == 1);
    CHECK(rx_optimal_window(3, 0.01) == 1);
    CHECK(rx_optimal_window(16, 0.0) == 0 && rx_optimal_window(16, 1.0) == 0);
    CHECK(rx_optimal_window(1, 0.4) == 0);

    /* T5 on random runs: idealised and real sampler, several W and P */
    static const int Ws[] = {1, 2, 3, 8, 13};
    static const int Pv[] = {2, 3, 5, 16};
    for (int a = 0; a < 5; ++a)
        for (int b = 0; b < 4; ++b)
            for (int tk = 0; tk < 2; ++tk) {
                rx_ctx *c = run(RX_SCHEME_DEO_W, Ws[a], Pv[b], 3001,
                                tk ? RX_TARGET_MIXTURE25 : RX_TARGET_NONE,
                                (uint64_t)(100 + a * 10 + b), 2);
                if (!c)
                    continue;
                rx_results r;
                rx_get_results(c, &r);
                CHECK(r.window == Ws[a]);
                check_deo_invariants(&r, Ws[a], 0);
                rx_destroy(&c);
            }
    /* many chains: P = 1024 (idealised model) */
    for (int w = 1; w <= 13; w += 12) {
        rx_ctx *c = run(RX_SCHEME_DEO_W, w, 1024, 2001, RX_TARGET_NONE, 11, 2);
        if (!c)
            continue;
        rx_results r;
        rx_get_results(c, &r);
        check_deo_invariants(&r, w, 0);
        rx_destroy(&c);
    }
    /* deo_star resolves W* and keeps the invariants */
    rx_ctx *cs = run(RX_SCHEME_DEO_STAR, RX_WINDOW_AUTO, 16, 4001,
                     RX_TARGET_MIXTURE25, 5, 2);
    if (cs) {
        rx_results r;
        rx_get_results(cs, &r);
        CHECK(r.window == 8);
        check_deo_invariants(&r, 8, 0);
        rx_destroy(&cs);
    }

    /* W = 1 reproduces DEO step for step (index and samples, bitwise) */
    rx_ctx *c1 = run(RX_SCHEME_DEO, RX_WINDOW_AUTO, 9, 5000,
                     RX_TARGET_MIXTURE25, 77, 2);
    rx_ctx *c2 = run(RX_SCHEME_DEO_W, 1, 9, 5000, RX_TARGET_MIXTURE25, 77, 2);
    if (c1 && c2) {
        rx_results a, b;
        rx_get_results(c1, &a);
        rx_get_results(c2, &b);
        CHECK(a.n_index == b.n_index && a.n_samples == b.n_samples);
        CHECK(memcmp(a.index, b.index,
                     sizeof(int32_t) * (size_t)a.n_index * 9) == 0);
        CHECK(memcmp(a.samples, b.samples,
                     sizeof(float) * (size_t)a.n_samples * a.dim) == 0);
        CHECK(a.trips_a5 == b.trips_a5 && a.total_swaps == b.total_swaps);
        check_deo_invariants(&a, 1, 0);
    }
    rx_destroy(&c1);
    rx_destroy(&c2);

    /* SEO: each iteration's swaps share one parity; ADJ and APE keep a
     * permutation; APE moves at most one pair per iteration */
    static const rx_scheme other[] = {RX_SCHEME_SEO, RX_SCHEME_ADJ,
                                      RX_SCHEME_APE};
    for (int s = 0; s < 3; ++s) {
        rx_ctx *c = run(other[s], RX_WINDOW_AUTO, 12, 4000,
                        RX_TARGET_MIXTURE25, 9, 2);
        if (!c)
            continue;
        rx_results r;
        rx_get_results(c, &r);
        int bad = 0, mixed = 0, multi = 0;
        int32_t prev[12];
        for (int q = 0; q < 12; ++q)
            prev[q] = q;
        for (int64_t k = 0; k < r.n_index; ++k) {
            const int32_t *row = r.index + (size_t)k * 12;
            int seen[12] = {0}, par = -1, changed = 0;
            for (int q = 0; q < 12; ++q) {
                if (row[q] < 0 || row[q] >= 12 || seen[row[q]]++)
                    bad++;
                if (row[q] != prev[q])
                    changed++;
            }
            if (other[s] == RX_SCHEME_SEO)
                for (int q = 0; q + 1 < 12; ++q)
                    if (row[q] != prev[q] && row[q] == prev[q + 1] &&
                        row[q + 1] == prev[q]) {
                        int p = (q + 1) & 1;
                        if (par >= 0 && p != par)
                            mixed++;
                        par = p;
                        ++q;
                    }
            if (other[s] == RX_SCHEME_APE && changed != 0 && changed != 2)
                multi++;
            memcpy(prev, row, sizeof prev);
        }
        CHECK_MSG(bad == 0, "scheme %d: %d rows not permutations", s, bad);
        CHECK_MSG(mixed == 0, "SEO: %d iterations with both parities", mixed);
        CHECK_MSG(multi == 0, "APE: %d iterations moved more than one pair",
                  multi);
        CHECK(r.total_swaps > 0);
        rx_destroy(&c);
    }
    return check_done();
}
