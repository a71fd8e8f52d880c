/*
 * The exchange's type tables (src/exchange/): every rx_rule and rx_scheme
 * has its row under its configuration name; each test's out-of-line
 * decision (the row's decide) and the inlined one of the pair loops
 * (rx__pair_stat) agree bit for bit with the formulas of deo.md and
 * resgld_vr.md (Eq. 2, 8, 16, the Bernoulli rule); a test without
 * RX__XT_UNIFORM reads no uniform; the even-odd rows' parity is that of
 * rx__deo_active. With a shift of the log-acceptance (a bias's term, the
 * pair loops' xc->shift) every rule with an exponent adds it, in the
 * decision and in the pair loops alike.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "../src/config/config.h"
#include "../src/exchange/exchange.h"
#include "check.h"

/* The noise-aware row's inverse CDF (src/exchange/noise_aware.c). */
double rx__na_quantile(const void *st, double u);

/* The acceptance probability each rule should give (fresh_sd = 0), with
 * the shift sh of the log-acceptance (a bias's term): the rules with an
 * exponent add it, the deterministic and Bernoulli rules have none. */
static double expected_prob(rx_rule r, const rx__xconf *xc,
                            const rx__xstate *xs, double ea, double eb,
                            double sh)
{
    double dT = xs->beta[0] - xs->beta[1];
    double x = dT * (ea - eb) + sh - xc->wcorr;
    switch (r) {
    case RX_RULE_METROPOLIS:
        return x >= 0.0 ? 1.0 : exp(x);
    case RX_RULE_BERNOULLI:
        return xc->accept_prob;
    case RX_RULE_DETERMINISTIC:
        return eb + xs->C < ea ? 1.0 : 0.0;
    case RX_RULE_BIAS_CORRECTED:
        x -= dT * dT * xs->s2hat[0] * xc->inv_F;
        return x >= 0.0 ? 1.0 : exp(x);
    default:
        break;
    }
    /* the rows after the enum's, by name */
    if (!strcmp(rx__xtest_row(r)->row.name, "barker")) /* renhd.md eq. 19,
                                                           * 4.4's stable g */
        return x >= 0.0 ? 1.0 / (1.0 + exp(-x)) : exp(x) / (1.0 + exp(x));
    return -1.0;
}

static void test_names(void)
{
    const rx__keydef *kd = rx__key_at(rx__key_index("tempering.rule"));
    CHECK(rx__kd_nnames(kd) == rx__xtest_count());
    for (int r = 0; r < rx__xtest_count(); ++r) {
        const rx__xtest_type *t = rx__xtest_row((rx_rule)r);
        CHECK_MSG(t && t->decide && !strcmp(t->row.name, rx__kd_name(kd, r)),
                  "rule %d", r);
    }
    for (int s = 0; s < RX__SCHED_KINDS; ++s) {
        const rx__sched_type *t = rx__sched_row((rx_scheme)s);
        CHECK_MSG(t && !strcmp(t->name, rx__scheme_names[s]), "scheme %d",
                  s);
        const int eo = s == RX_SCHEME_SEO || s == RX_SCHEME_DEO ||
                       s == RX_SCHEME_DEO_W || s == RX_SCHEME_DEO_STAR;
        CHECK_MSG(!!(t->flags & RX__SC_DISJOINT) == eo && !!t->parity == eo,
                  "scheme %s", t->name);
        CHECK_MSG(!t->exchange == (s == RX_SCHEME_NONE), "scheme %s",
                  t->name);
    }
}

/* The pair loops' shift hook (xc.shift): the value ctx points to. */
static double const_shift(const void *ctx, const rx__xstate *xs, int a,
                          int b, double ea, double eb)
{
    (void)xs, (void)a, (void)b, (void)ea, (void)eb;
    return *(const double *)ctx;
}

static void test_decisions(void)
{
    rx__xconf xc = {.P = 2, .W = 4, .accept_prob = 0.35, .wcorr = 0.1,
                    .inv_F = 0.5, .seed = 7};
    double beta[2], s2[2] = {0.8, 0.0};
    rx__xstate xs = {.beta = beta, .s2hat = s2, .C = 0.7};
    uint64_t h = 88172645463325252ull; /* xorshift64 */
    enum { NR = RX__XTEST_MAX };
    const int nr = rx__xtest_count();
    int n_acc[NR] = {0}, n_rej[NR] = {0};
    /* the rows with per-run state: built as rx_create builds it, from the
     * default config (their keys' defaults, no energy noise) */
    void *rstate[NR] = {0};
    rx__rowvals own[NR];
    rx_config dc;
    rx_config_default(&dc);
    CHECK(rx__store_ensure(&dc) == RX_OK);
    for (int r = 0; r < nr; ++r) {
        const rx__xtest_type *t = rx__xtest_row((rx_rule)r);
        rx__slot tmp[RX__ROW_MAX_KEYS];
        rx__row_values(&dc, &rx__xtest_table, r, &own[r], tmp);
        if (!t->size)
            continue;
        rx__rowrun run;
        rx__row_run(&dc, &rx__xtest_table, r, 0, &run);
        rx_err err = {{0}};
        rstate[r] = calloc(1, t->size(&own[r]));
        CHECK_MSG(rstate[r] && t->init(rstate[r], &run, &own[r], &err) ==
                      RX_OK, "%s: %s", t->row.name, err.msg);
    }
    double sh = 0.0; /* odd iterations: a shift of the log-acceptance */
    xc.shift_ctx = &sh;
    for (int it = 0; it < 4000; ++it) {
        double v[6];
        for (int j = 0; j < 6; ++j) {
            h ^= h << 13, h ^= h >> 7, h ^= h << 17;
            v[j] = (double)(h >> 11) * 0x1p-53;
        }
        sh = it & 1 ? 6.0 * v[5] - 3.0 : 0.0;
        xc.shift = it & 1 ? const_shift : NULL;
        beta[0] = 0.2 + 2.0 * v[0];
        beta[1] = beta[0] * (0.1 + 0.9 * v[1]);
        const double ea = 6.0 * v[2], eb = 6.0 * v[3], u = v[4];
        for (int r = 0; r < nr; ++r) {
            const rx__xtest_type *t = rx__xtest_row((rx_rule)r);
            xc.rule = (rx_rule)r;
            xc.rstate = rstate[r];
            xc.own = own[r];
            double prob = -1.0;
            int acc = t->decide(&xc, &xs, 0, 1, ea, eb, sh, u, 1, &prob);
            rx__pairev e;
            rx__pair_stat(&xc, &xs, 0, ea, eb, 1, &u, &e);
            double want = expected_prob((rx_rule)r, &xc, &xs, ea, eb, sh);
            if (!strcmp(t->row.name, "noise_aware")) {
                /* renhd.md 4.5 with E1's sign: dbeta (U_a - U_b) - c_W +
                 * the top-up to sigma*^2 = 0.5 (no noise here) + the
                 * correction's inverse CDF at u > 0 */
                rx__stream st;
                rx__stream_init(&st, xc.seed, 0, RX_STREAM_XTEST, 1);
                st.normal = xc.normal;
                const double x =
                    (beta[0] - beta[1]) * (ea - eb) + sh - xc.wcorr;
                want = x + sqrt(0.5) * rx__normal(&st) +
                                   rx__na_quantile(rstate[r], u) >
                               0.0
                           ? 1.0
                           : 0.0;
            }
            CHECK_MSG(prob == want && e.prob == want, "%s: %g %g, want %g",
                      t->row.name, prob, e.prob, want);
            CHECK_MSG(acc == e.cond && acc == (u < want || want >= 1.0),
                      "%s: %d %d", t->row.name, acc, e.cond);
            if (!(t->row.props & RX__XT_UNIFORM)) {
                double u1 = 1.0 - u;
                int a1 =
                    t->decide(&xc, &xs, 0, 1, ea, eb, sh, u1, 1, &prob);
                rx__pair_stat(&xc, &xs, 0, ea, eb, 1, NULL, &e);
                CHECK_MSG(a1 == acc && e.cond == acc,
                          "%s reads a uniform", t->row.name);
            }
            n_acc[r] += acc;
            n_rej[r] += !acc;
        }
    }
    for (int r = 0; r < nr; ++r)
        free(rstate[r]);
    rx_config_free(&dc);
    for (int r = 0; r < nr; ++r) /* both outcomes seen */
        CHECK_MSG(n_acc[r] > 100 && n_rej[r] > 100, "rule %d: %d / %d", r,
                  n_acc[r], n_rej[r]);
}

static void test_parity(void)
{
    const rx_scheme deo[3] = {RX_SCHEME_DEO, RX_SCHEME_DEO_W,
                              RX_SCHEME_DEO_STAR};
    for (int phase = 0; phase < 2; ++phase)
        for (int s = 0; s < 3; ++s) {
            rx__xconf xc = {.P = 8, .W = 3, .parity_phase = phase,
                            .scheme = deo[s]};
            const rx__sched_type *t = rx__sched_row(deo[s]);
            CHECK(t->flags & RX__SC_WINDOW);
            for (int64_t k = 0; k < 40; ++k) {
                int par = t->parity(&xc, k);
                for (int p = 0; p < 7; ++p)
                    CHECK(rx__deo_active(p, k, 3, phase) ==
                          (((p + 1) & 1) == par));
            }
        }
    CHECK(!(rx__sched_row(RX_SCHEME_SEO)->flags & RX__SC_WINDOW));
}

int main(void)
{
    test_names();
    test_decisions();
    test_parity();
    return check_done();
}
