/*
 * The paper's 2-D experiment (deo.md 5.1, testable claims T9-T11) with
 * yaml/deo_sgd_2d.yaml and yaml/deo_star_sgd_2d.yaml over 10 seeds, the
 * ladder invariants T6 on the update itself, and the bias-corrected rule's
 * acceptance (T12) through the exchange phase.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../src/engine/ctx.h"
#include "check.h"

static char dir[4096];

static rx_ctx *run_file(const char *file, const char *const *sets, int n)
{
    char path[4200];
    snprintf(path, sizeof path, "%s/yaml/%s", dir, file);
    rx_config c;
    rx_err err;
    rx_status st = rx_config_load(path, sets, n, &c, &err);
    CHECK_MSG(st == RX_OK, "%s", err.msg);
    if (st != RX_OK)
        return NULL;
    c.threads = 1; /* many short runs: one thread each is fastest */
    rx_ctx *ctx = NULL;
    st = rx_create(&ctx, &c, NULL, (rx_logger){0}, &err);
    rx_config_free(&c);
    CHECK_MSG(st == RX_OK, "%s", err.msg);
    if (st == RX_OK && rx_run(ctx) != RX_OK)
        CHECK(0);
    return ctx;
}

static void t9_t11(void)
{
    double mean[2] = {0, 0};
    const char *files[2] = {"deo_sgd_2d.yaml", "deo_star_sgd_2d.yaml"};
    for (int f = 0; f < 2; ++f) {
        double cmin = 1e9, cmax = -1e9, rmin = 1, rmax = 0, mc = 0;
        double e2min = 1, e2max = 0;
        for (int s = 1; s <= 10; ++s) {
            char seed[32];
            snprintf(seed, sizeof seed, "seed=%d", s);
            const char *sets[] = {seed};
            rx_ctx *c = run_file(files[f], sets, 1);
            if (!c)
                continue;
            rx_results r;
            rx_get_results(c, &r);
            mean[f] += 1000.0 * (double)r.trips_a5 / (double)r.iterations / 10;
            int64_t sc = 0, se = 0;
            for (int p = 0; p < 15; ++p) {
                double rate = (double)r.pairs[p].conditions /
                              (double)r.pairs[p].evaluated;
                if (rate < rmin)
                    rmin = rate;
                if (rate > rmax)
                    rmax = rate;
                sc += r.pairs[p].conditions;
                se += r.pairs[p].evaluated;
            }
            mc += (double)sc / (double)se / 10;
            if (r.correction < cmin)
                cmin = r.correction;
            if (r.correction > cmax)
                cmax = r.correction;
            if (r.eta[1] < e2min)
                e2min = r.eta[1];
            if (r.eta[1] > e2max)
                e2max = r.eta[1];
            /* T6: the ends are bit-identical to the inputs */
            CHECK(r.eta[0] == 0.003 && r.eta[15] == 0.6);
            rx_destroy(&c);
        }
        printf("%s: A5 trips/1000 %.2f, mean condition %.4f, pair rates "
               "[%.3f, %.3f], C [%.3f, %.3f], eta2 [%.4f, %.4f]\n",
               files[f], mean[f], mc, rmin, rmax, cmin, cmax, e2min, e2max);
        /* T10: mean condition rate within 0.01 of S, pairs within 0.06
         * (the mean covers all iterations; the spec's k > 100) */
        CHECK_NEAR(mc, 0.4, 0.01);
        CHECK(rmin >= 0.34 && rmax <= 0.46);
        CHECK(cmin >= 0.3 && cmax <= 0.7);
        /* T11: a large gap between the SGLD target and the first SGD chain */
        CHECK(e2min >= 0.02 && e2max <= 0.045);
    }
    /* T9: W=1 18.1 +- 1.5, W=8 42.5 +- 2 (paper 18 and 45), ratio >= 2 */
    CHECK_NEAR(mean[0], 18.1, 1.5);
    CHECK_NEAR(mean[1], 42.5, 2.0);
    CHECK(mean[1] / mean[0] >= 2.0);

    /* T9: the maximum of the W sweep lies in [7, 10] */
    static const int Ws[] = {1, 2, 4, 6, 7, 8, 9, 10, 12, 16, 20};
    double best = -1;
    int bestW = 0;
    for (size_t i = 0; i < sizeof Ws / sizeof Ws[0]; ++i) {
        double m = 0;
        for (int s = 1; s <= 5; ++s) {
            char seed[32], win[32];
            snprintf(seed, sizeof seed, "seed=%d", s);
            snprintf(win, sizeof win, "tempering.window=%d", Ws[i]);
            const char *sets[] = {seed, "tempering.scheme=deo_w", win};
            rx_ctx *c = run_file("deo_star_sgd_2d.yaml", sets, 3);
            if (!c)
                continue;
            rx_results r;
            rx_get_results(c, &r);
            m += 1000.0 * (double)r.trips_a5 / (double)r.iterations / 5;
            rx_destroy(&c);
        }
        printf("W = %2d: %.2f A5 trips / 1000\n", Ws[i], m);
        if (m > best) {
            best = m;
            bestW = Ws[i];
        }
    }
    CHECK_MSG(bestW >= 7 && bestW <= 10, "argmax W = %d", bestW);
}

static void t6(void)
{
    enum { P = 8 };
    double L[P], tmp[P], H[P - 1], ref[P];
    for (int q = 0; q < P; ++q)
        L[q] = ref[q] = 0.01 * (q + 1) * (1 + 0.1 * q);
    for (int p = 0; p < P - 1; ++p)
        H[p] = 0.0;
    for (int it = 0; it < 100; ++it)
        rx__ladder_update(L, tmp, H, P, 0.1, 0);
    int same = 1;
    for (int q = 0; q < P; ++q)
        same &= fabs(L[q] - ref[q]) <= 1e-15 * ref[q];
    CHECK_MSG(same, "H = 0 moved the ladder");
    CHECK(L[0] == ref[0] && L[P - 1] == ref[P - 1]);
    /* one pair j with H_j > 0 widens gap j from both sides */
    for (int j = 1; j < P - 2; ++j) {
        for (int q = 0; q < P; ++q)
            L[q] = ref[q];
        for (int p = 0; p < P - 1; ++p)
            H[p] = p == j ? 0.6 : 0.0;
        rx__ladder_update(L, tmp, H, P, 0.2, 0);
        CHECK(L[j] < ref[j]);         /* eta^(j) decreases (j >= 2, 1-based) */
        CHECK(L[j + 1] > ref[j + 1]); /* eta^(j+1) increases */
        CHECK(L[0] == ref[0] && L[P - 1] == ref[P - 1]);
        for (int q = 0; q < P; ++q)
            if (q != j && q != j + 1)
                CHECK(fabs(L[q] - ref[q]) <= 1e-15 * ref[q]);
    }
    /* projection keeps a collapsing ladder sorted */
    double M[5] = {0.0, 0.001, 0.002, 0.5, 1.0}, Hc[4] = {-0.4, 0.6, 0.6, 0};
    for (int it = 0; it < 200; ++it) {
        rx__ladder_update(M, tmp, Hc, 5, 0.5, 1);
        for (int q = 1; q < 5; ++q)
            CHECK(M[q] >= M[q - 1]);
    }
}

/* Acceptance rate of one rule on the pair (p, p+1) with U_p - U_{p+1} = dU
 * and independent N(0, sigma^2) noise on each energy, over n draws. */
static double rate(rx_rule rule, double dU, double sigma, double dT,
                   double F, double C, int n)
{
    rx__xconf xc;
    memset(&xc, 0, sizeof xc);
    xc.P = 2;
    xc.W = 1;
    xc.scheme = RX_SCHEME_DEO;
    xc.rule = rule;
    xc.seed = 3;
    xc.inv_F = 1.0 / F;
    int32_t at[2], pos[2];
    uint8_t gate[1];
    rx__pairev ev[1];
    double u[8], eta[2] = {1, 1}, tau[2] = {1, 1.0 / (1.0 - dT)}, tmp[6];
    double s2hat[2] = {sigma * sigma, sigma * sigma};
    rx__xstate xs;
    memset(&xs, 0, sizeof xs);
    xs.at = at;
    xs.pos = pos;
    xs.gate = gate;
    xs.ev = ev;
    xs.u = u;
    xs.eta = eta;
    xs.tau = tau;
    xs.tmp = tmp;
    xs.s2hat = s2hat;
    double beta[2] = {1.0 / tau[0], 1.0 / tau[1]};
    xs.beta = beta;
    xs.C = C;
    rx__stream s;
    rx__stream_init(&s, 11, 0, RX_STREAM_INIT, 0);
    double acc = 0;
    for (int k = 0; k < n; ++k) {
        double E[2] = {dU + sigma * rx__normal(&s), sigma * rx__normal(&s)};
        at[0] = pos[0] = 0;
        at[1] = pos[1] = 1;
        rx__exchange(&xc, &xs, E, k, 1);
        acc += ev[0].cond;
    }
    return acc / n;
}

static void t12(void)
{
    /* T12: Eq. 16 at dU = 0, dT = 1, sigma = 1 accepts E[min(1, e^{Z-1})],
     * Z ~ N(0, 2): 0.4795, where exact Metropolis accepts always */
    const int n = 1000000;
    double a0 = rate(RX_RULE_BIAS_CORRECTED, 0, 1, 1, 1, 0, n);
    printf("bias-corrected acceptance at dU = 0, sigma = 1: %.4f (T12: "
           "0.4795)\n", a0);
    CHECK_NEAR(a0, 0.4795, 0.002);
    /* detailed balance of Eq. 16 (resgld_vr.md T1): A(u)/A(-u) = e^u for
     * u = dT dU, dT = 0.9, sigma^2 = 4, dU = 3: e^2.7 = 14.88; F = 2
     * breaks it (6.92) */
    double ap = rate(RX_RULE_BIAS_CORRECTED, 3, 2, 0.9, 1, 0, n);
    double am = rate(RX_RULE_BIAS_CORRECTED, -3, 2, 0.9, 1, 0, n);
    double bp = rate(RX_RULE_BIAS_CORRECTED, 3, 2, 0.9, 2, 0, n);
    double bm = rate(RX_RULE_BIAS_CORRECTED, -3, 2, 0.9, 2, 0, n);
    printf("A(u)/A(-u): F = 1 %.3f (e^2.7 = 14.88), F = 2 %.3f (6.92)\n",
           ap / am, bp / bm);
    CHECK_NEAR(ap / am, exp(2.7), 0.04 * exp(2.7));
    CHECK_NEAR(bp / bm, 6.92, 0.04 * 6.92);
    /* T13 (Lemma 2): the deterministic condition with C* reproduces Eq. 16:
     * dT = 1, sigma = 1: C* = 0.0727 at dU = 0, -0.3372 at dU = -2 */
    double d0 = rate(RX_RULE_DETERMINISTIC, 0, 1, 1, 1, 0.0727, n);
    double c2 = rate(RX_RULE_BIAS_CORRECTED, -2, 1, 1, 1, 0, n);
    double d2 = rate(RX_RULE_DETERMINISTIC, -2, 1, 1, 1, -0.3372, n);
    printf("deterministic with C*: %.4f vs Eq. 16 %.4f (dU = 0); %.4f vs "
           "%.4f (dU = -2)\n", d0, a0, d2, c2);
    CHECK_NEAR(d0, a0, 0.003);
    CHECK_NEAR(d2, c2, 0.003);
}

/* The maps-only exchange (full = 0, threads other than 0) gives the same
 * maps and gates as the full one, for every DEO-family scheme and rule,
 * on random energies and ladders over many iterations. */
static void lazy_equals_full(void)
{
    enum { PM = 17 };
    const rx_scheme sch[4] = {RX_SCHEME_SEO, RX_SCHEME_DEO, RX_SCHEME_DEO_W,
                              RX_SCHEME_DEO_STAR};
    const rx_rule rules[4] = {RX_RULE_METROPOLIS, RX_RULE_BERNOULLI,
                              RX_RULE_DETERMINISTIC, RX_RULE_BIAS_CORRECTED};
    const int Ps[3] = {2, 7, PM};
    int64_t swaps = 0, mism = 0;
    for (int a = 0; a < 4; ++a)
        for (int b = 0; b < 4; ++b)
            for (int c = 0; c < 3; ++c) {
                const int P = Ps[c];
                rx__xconf xc;
                memset(&xc, 0, sizeof xc);
                xc.P = P;
                xc.W = sch[a] == RX_SCHEME_DEO_W || sch[a] == RX_SCHEME_DEO_STAR
                           ? 3 + c : 1;
                xc.scheme = sch[a];
                xc.rule = rules[b];
                xc.accept_prob = 0.4;
                xc.inv_F = 1.0;
                xc.seed = 77 + (uint64_t)(a * 16 + b * 4 + c);
                int32_t at[2][PM], pos[2][PM];
                uint8_t gate[2][PM];
                rx__pairev ev[2][PM];
                double u[2][PM + 3], eta[PM], tau[PM], beta[PM], tmp[PM];
                double s2[PM];
                rx__xstate xs[2];
                for (int q = 0; q < P; ++q) {
                    eta[q] = 1.0;
                    tau[q] = pow(1.3, q);
                    beta[q] = 1.0 / tau[q];
                    s2[q] = 0.3;
                }
                for (int v = 0; v < 2; ++v) {
                    memset(&xs[v], 0, sizeof xs[v]);
                    for (int q = 0; q < P; ++q)
                        at[v][q] = pos[v][q] = q;
                    xs[v].at = at[v];
                    xs[v].pos = pos[v];
                    xs[v].gate = gate[v];
                    xs[v].ev = ev[v];
                    xs[v].u = u[v];
                    xs[v].eta = eta;
                    xs[v].tau = tau;
                    xs[v].beta = beta;
                    xs[v].tmp = tmp;
                    xs[v].s2hat = s2;
                    xs[v].C = 0.1;
                }
                rx__stream s;
                rx__stream_init(&s, xc.seed, 0, RX_STREAM_INIT, 0);
                double E[PM];
                for (int64_t k = 0; k < 400; ++k) {
                    for (int i = 0; i < P; ++i)
                        E[i] = 2.0 * rx__normal(&s);
                    rx__exchange(&xc, &xs[0], E, k, 1);
                    rx__exchange(&xc, &xs[1], E, k, 0);
                    for (int q = 0; q < P; ++q)
                        mism += at[0][q] != at[1][q] || pos[0][q] != pos[1][q];
                    for (int p = 0; p + 1 < P; ++p) {
                        mism += gate[0][p] != gate[1][p];
                        swaps += ev[0][p].swapped;
                    }
                }
            }
    printf("maps-only exchange: %lld mismatches in %lld swaps\n",
           (long long)mism, (long long)swaps);
    CHECK(mism == 0);
    CHECK(swaps > 10000);
}

/* Accuracy on the 25-mode target, equal sample counts (about 2000):
 * DEO*-SGD beats DEO-SGD and SGLD x P16 in TV to the true density. */
static void tv_order(void)
{
    const char *files[3] = {"deo_star_sgd_2d.yaml", "deo_sgd_2d.yaml",
                            "sgld_x16_2d.yaml"};
    double tv[3] = {0, 0, 0};
    for (int f = 0; f < 3; ++f)
        for (int s = 1; s <= 5; ++s) {
            char seed[32];
            snprintf(seed, sizeof seed, "seed=%d", s);
            const char *sets[] = {seed};
            rx_ctx *c = run_file(files[f], sets, 1);
            double t = 1.0;
            if (c)
                CHECK(rx_density_tv(c, &t) == RX_OK);
            tv[f] += t / 5;
            rx_destroy(&c);
        }
    printf("TV (mean of 5 seeds): DEO*-SGD %.4f, DEO-SGD %.4f, SGLD x16 "
           "%.4f\n", tv[0], tv[1], tv[2]);
    CHECK(tv[0] < tv[1]);
    CHECK(tv[0] < tv[2]);
}

int main(void)
{
    const char *src = getenv("RX_SRCDIR");
    snprintf(dir, sizeof dir, "%s", src ? src : "..");
    t6();
    t12();
    lazy_equals_full();
    t9_t11();
    tv_order();
    return check_done();
}
