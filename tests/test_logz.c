/*
 * The evidence log Z of the reference path (ladder.path reference) against
 * values known without sampling, on fixed seeds, within 3 standard errors:
 *  1. the stepping-stone estimator alone, on exact draws from each pi_beta
 *     of a conjugate Gaussian model (pi_beta is Gaussian in closed form);
 *  2. the same model through the engine (callback target with a prior
 *     function): log Z in closed form;
 *  3. an unnormalised two-component Gaussian mixture (callback) with a
 *     Gaussian reference: Z by quadrature (Simpson) here;
 *  4. a gmm target with the reference from ladder.reference_mean/sd: the
 *     gmm's energy is normalised, so log Z = 0;
 * and the configurations the path refuses, with their messages: among
 * them every step rule that draws no noise (the step table's own
 * declaration), at position 1 and at the others; the minimum of kept
 * rows below which log Z is reported as not valid, with its reason; and
 *  5. the check of the beta = 0 chain against its reference (its U_0
 *     against chi^2_d / 2 + the normaliser): alone on exact draws, then a
 *     run whose chain samples pi_0 (valid) and three whose chain cannot
 *     (references too wide for the run's length, a step size too large
 *     at beta = 0), each reported as valid without the check, two of
 *     them with a log Z many se off;
 *  6. the overlap of neighbouring positions (rx__logz_overlap: the
 *     stepping-stone weights' ESS and the pair's Metropolis swap
 *     probability, from the kept rows) on rows built to pass or fail
 *     each figure; the runs are in tests/test_logz_overlap.sh.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "replex/replex.h"
#include "../src/core/internal.h"
#include "../src/record/logz.h"
#include "../src/step/step.h"
#include "check.h"
#include "gmm_config.h"

#define LOG_2PI 1.8378770664093454836

/* ---- conjugate Gaussian: theta_j ~ N(0, s0^2), y_ij ~ N(theta_j, s^2) */

enum { D = 2, NOBS = 20 };

typedef struct {
    double s0, s;
    double sy[D], syy[D]; /* sum y, sum y^2 per coordinate */
} conj;

static void conj_data(conj *m)
{
    /* prior and likelihood of comparable weight (precisions 2.8 and 5):
     * a path that weighs the prior wrongly moves log Z */
    m->s0 = 0.6;
    m->s = 2.0;
    rx__stream st;
    rx__stream_init(&st, 77, 0, RX_STREAM_DATA, 0);
    for (int j = 0; j < D; ++j) {
        double th = 1.5 * (j + 1) - 2.0; /* -0.5, 1 */
        m->sy[j] = m->syy[j] = 0.0;
        for (int i = 0; i < NOBS; ++i) {
            double y = th + m->s * rx__normal(&st);
            m->sy[j] += y;
            m->syy[j] += y * y;
        }
    }
}

/* log p(y) = log N(y; 0, s^2 I + s0^2 11') per coordinate */
static double conj_logz(const conj *m)
{
    const double s2 = m->s * m->s, v0 = m->s0 * m->s0, n = NOBS;
    double lz = 0.0;
    for (int j = 0; j < D; ++j)
        lz += -0.5 * n * (LOG_2PI + log(s2)) - 0.5 * log(1.0 + n * v0 / s2) -
              0.5 / s2 *
                  (m->syy[j] - m->sy[j] * m->sy[j] * v0 / (s2 + n * v0));
    return lz;
}

/* U_like = -log p(y | theta) and its gradient */
static double conj_like(const conj *m, const double *th, double *g)
{
    const double s2 = m->s * m->s, n = NOBS;
    double u = 0.0;
    for (int j = 0; j < D; ++j) {
        u += (m->syy[j] - 2.0 * th[j] * m->sy[j] + n * th[j] * th[j]) /
                 (2.0 * s2) +
             0.5 * n * (LOG_2PI + log(s2));
        if (g)
            g[j] = (n * th[j] - m->sy[j]) / s2;
    }
    return u;
}

static double conj_prior(const conj *m, const double *th, double *g)
{
    const double v0 = m->s0 * m->s0;
    double u = 0.0;
    for (int j = 0; j < D; ++j) {
        u += th[j] * th[j] / (2.0 * v0) + 0.5 * (LOG_2PI + log(v0));
        if (g)
            g[j] = th[j] / v0;
    }
    return u;
}

static rx_status conj_energy(void *user, const double *th, size_t dim,
                             double *e, double *g)
{
    (void)dim;
    const conj *m = user;
    double gl[D], gp[D];
    *e = conj_like(m, th, g ? gl : NULL) + conj_prior(m, th, g ? gp : NULL);
    if (g)
        for (int j = 0; j < D; ++j)
            g[j] = gl[j] + gp[j];
    return RX_OK;
}

static rx_status conj_prior_fn(void *user, const double *th, size_t dim,
                               double *e, double *g)
{
    (void)dim;
    *e = conj_prior(user, th, g);
    return RX_OK;
}

/* 1. the estimator on exact draws: pi_beta = N(mu_b, 1/prec_b) per
 * coordinate, prec_b = 1/s0^2 + beta n / s^2, mu_b = beta sum y / s^2 /
 * prec_b; rows of n i.i.d. draws at every position */
static void check_estimator(void)
{
    conj m;
    conj_data(&m);
    enum { P = 12, N = 4000 };
    double beta[P];
    for (int q = 0; q < P; ++q)
        beta[q] = pow(1.0 - (double)q / (P - 1), 3.0);
    double *u = malloc(sizeof(double) * N * P);
    rx__stream st;
    rx__stream_init(&st, 5, 1, RX_STREAM_DATA, 0);
    for (int r = 0; r < N; ++r)
        for (int q = 0; q < P; ++q) {
            double th[D];
            for (int j = 0; j < D; ++j) {
                double prec = 1.0 / (m.s0 * m.s0) +
                              beta[q] * NOBS / (m.s * m.s);
                double mu = beta[q] * m.sy[j] / (m.s * m.s) / prec;
                th[j] = mu + rx__normal(&st) / sqrt(prec);
            }
            u[r * P + q] = conj_like(&m, th, NULL);
        }
    double terms[P - 1], tse[P - 1], est, se;
    int B;
    rx_status s = rx__logz_estimate(u, N, P, beta, terms, tse, &est, &se, &B);
    const double truth = conj_logz(&m);
    CHECK(s == RX_OK);
    CHECK(B == 63);
    CHECK(se > 0.0 && se < 0.2);
    CHECK_MSG(fabs(est - truth) < 3.0 * se,
              "exact draws: log Z %.4f +- %.4f, true %.4f", est, se, truth);
    double sum = 0.0;
    for (int p = 0; p < P - 1; ++p)
        sum += terms[p];
    CHECK_NEAR(sum, est, 1e-9);
    /* a constant U_like c at every point: each term is -(dbeta) c exactly,
     * their sum -c, with zero spread (the log-sum-exp at c = 1e4 would
     * overflow a plain exp) */
    for (int r = 0; r < N * P; ++r)
        u[r] = 1e4;
    s = rx__logz_estimate(u, N, P, beta, terms, tse, &est, &se, &B);
    CHECK(s == RX_OK);
    CHECK_NEAR(est, -1e4, 1e-6);
    CHECK_NEAR(terms[0], -(beta[0] - beta[1]) * 1e4, 1e-6);
    CHECK_NEAR(se, 0.0, 1e-12);
    u[7] = NAN;
    CHECK(rx__logz_estimate(u, N, P, beta, terms, tse, &est, &se, &B) ==
          RX_ENUMERIC);
    CHECK(isnan(est));
    free(u);
}

static void base_config(rx_config *c, uint64_t seed)
{
    rx_config_default(c);
    c->seed = seed;
    c->threads = 2;
    c->iterations = 200000;
    c->tempering.n_chains = 16;
    c->tempering.scheme = RX_SCHEME_DEO;
    c->ladder.path = RX_PATH_REFERENCE;
    c->ladder.eta.kind = RX_LADDER_GEOMETRIC;
    c->record.burn_in = 5000;
    c->record.thin = 2;
    c->record.trace_every = 0;
    c->record.index_every = 0;
}

static int run_logz(const rx_config *c, const rx_callback_target *cb,
                    rx_log_z *z, const char *what)
{
    rx_ctx *ctx = NULL;
    rx_err err;
    rx_status st = rx_create(&ctx, c, cb, (rx_logger){0}, &err);
    CHECK_MSG(st == RX_OK, "%s: %s", what, err.msg);
    if (st != RX_OK)
        return 0;
    st = rx_run(ctx);
    CHECK_MSG(st == RX_OK, "%s: %s", what, rx_errmsg(ctx));
    rx_results r;
    rx_get_results(ctx, &r);
    *z = r.log_z;
    CHECK(r.log_z.valid && r.log_z.n_terms == c->tempering.n_chains - 1);
    CHECK(r.log_z.beta && r.log_z.beta[0] == 1.0 &&
          r.log_z.beta[c->tempering.n_chains - 1] == 0.0);
    /* every position steps at temperature 1 */
    CHECK(r.tau[0] == 1.0 && r.tau[c->tempering.n_chains - 1] == 1.0);
    CHECK(r.total_swaps > 0);
    rx_destroy(&ctx);
    return 1;
}

static void within_3se(const rx_log_z *z, double truth, const char *what)
{
    printf("%s: log Z %.4f +- %.4f (se), true %.4f, %lld rows, %d batches\n",
           what, z->estimate, z->se, truth, (long long)z->n, z->batches);
    CHECK(z->se > 0.0 && z->se < 0.1);
    CHECK_MSG(fabs(z->estimate - truth) < 3.0 * z->se,
              "%s: log Z %.4f +- %.4f, true %.4f", what, z->estimate, z->se,
              truth);
}

/* 2. the conjugate model through the engine */
static void check_conjugate(void)
{
    conj m;
    conj_data(&m);
    rx_config c;
    base_config(&c, 11);
    c.target.kind = RX_TARGET_CALLBACK;
    /* curvature 2.8 at the reference, 7.8 at the target */
    c.ladder.eta.min = 0.001;
    c.ladder.eta.max = 0.003;
    rx_callback_target cb = {.dim = D, .energy = conj_energy, .user = &m,
                             .prior = conj_prior_fn};
    rx_log_z z;
    if (run_logz(&c, &cb, &z, "conjugate"))
        within_3se(&z, conj_logz(&m), "conjugate Gaussian (callback)");
    rx_config_free(&c);
}

/* ---- 3. an unnormalised 1-D mixture with a Gaussian reference ---------- */

static const double MW[2] = {0.3, 0.7}, MM[2] = {-3.0, 2.5},
                    MS[2] = {0.5, 1.0}, RSD = 3.0;

static double mix_energy(double x, double *g)
{
    /* U = -log sum_k w_k exp(-(x - m_k)^2 / (2 s_k^2)), no 1/sqrt(2 pi) */
    double l[2], mx;
    for (int k = 0; k < 2; ++k) {
        double z = (x - MM[k]) / MS[k];
        l[k] = log(MW[k]) - 0.5 * z * z;
    }
    mx = l[0] > l[1] ? l[0] : l[1];
    double e0 = exp(l[0] - mx), e1 = exp(l[1] - mx);
    if (g)
        *g = (e0 * (x - MM[0]) / (MS[0] * MS[0]) +
              e1 * (x - MM[1]) / (MS[1] * MS[1])) /
             (e0 + e1);
    return -(mx + log(e0 + e1));
}

static rx_status mix_cb(void *user, const double *th, size_t dim, double *e,
                        double *g)
{
    (void)user;
    (void)dim;
    *e = mix_energy(th[0], g);
    return RX_OK;
}

static rx_status ref_cb(void *user, const double *th, size_t dim, double *e,
                        double *g)
{
    (void)user;
    (void)dim;
    *e = 0.5 * th[0] * th[0] / (RSD * RSD) + 0.5 * LOG_2PI + log(RSD);
    if (g)
        g[0] = th[0] / (RSD * RSD);
    return RX_OK;
}

/* log of the integral of exp(-U) over [-30, 30], composite Simpson */
static double mix_logz_quadrature(void)
{
    const int n = 200000;
    const double a = -30.0, h = 60.0 / n;
    double s = 0.0;
    for (int i = 0; i <= n; ++i) {
        double w = i == 0 || i == n ? 1.0 : (i % 2 ? 4.0 : 2.0);
        s += w * exp(-mix_energy(a + i * h, NULL));
    }
    return log(s * h / 3.0);
}

static void check_mixture(void)
{
    const double truth = mix_logz_quadrature();
    /* the quadrature against the Gaussian integrals it sums */
    CHECK_NEAR(truth,
               log(sqrt(2.0 * 3.14159265358979323846) * (MW[0] * MS[0] + MW[1] * MS[1])),
               1e-9);
    rx_config c;
    base_config(&c, 12);
    c.target.kind = RX_TARGET_CALLBACK;
    c.ladder.eta.min = 0.002;
    c.ladder.eta.max = 0.2;
    rx_callback_target cb = {.dim = 1, .energy = mix_cb, .prior = ref_cb};
    rx_log_z z;
    if (run_logz(&c, &cb, &z, "mixture"))
        within_3se(&z, truth, "unnormalised mixture (callback)");
    rx_config_free(&c);
}

/* 4. gmm (normalised: log Z = 0) with the reference from the config */
static void gmm_path_config(rx_config *c, uint64_t seed)
{
    base_config(c, seed);
    static const double w[] = {0.4, 0.6}, mu[] = {-2, 1, 2, -1},
                        sc[] = {0.7, 0.7, 1.0, 1.0};
    gmm_config(c, w, mu, sc, 2, 2);
    c->ladder.reference_mean = 0.5;
    c->ladder.reference_sd = 3.0;
    c->ladder.eta.min = 0.003;
    c->ladder.eta.max = 0.3;
    c->tempering.n_chains = 12;
}

static void check_gmm(void)
{
    rx_config c;
    gmm_path_config(&c, 13);
    rx_log_z z;
    if (run_logz(&c, NULL, &z, "gmm"))
        within_3se(&z, 0.0, "gmm 2-D, reference N(0.5, 3^2)");
    rx_config_free(&c);
}

/* What the path refuses, and where. */
static void check_refusals(void)
{
    rx_config c;
    rx_err err;
    rx_ctx *ctx = NULL;
    base_config(&c, 1);
    c.target.kind = RX_TARGET_MIXTURE_DATA;
    CHECK(rx_config_validate(&c, &err) == RX_ECONFIG &&
          strstr(err.msg, "ladder.path"));
    c.target.kind = RX_TARGET_MIXTURE25;
    c.ladder.adapt = RX_ADAPT_BARRIER;
    CHECK(rx_config_validate(&c, &err) == RX_ECONFIG &&
          strstr(err.msg, "ladder.adapt"));
    c.ladder.adapt = RX_ADAPT_NONE;
    c.tempering.rule = RX_RULE_DETERMINISTIC;
    CHECK(rx_config_validate(&c, &err) == RX_ECONFIG &&
          strstr(err.msg, "tempering.rule"));
    c.tempering.rule = RX_RULE_METROPOLIS;
    double bad[16];
    for (int q = 0; q < 16; ++q)
        bad[q] = 1.0 - q / 15.0;
    bad[5] = bad[4];
    c.ladder.betas.v = malloc(sizeof bad);
    memcpy(c.ladder.betas.v, bad, sizeof bad);
    c.ladder.betas.n = 16;
    CHECK(rx_config_validate(&c, &err) == RX_ECONFIG &&
          strstr(err.msg, "ladder.betas") && strstr(err.msg, "decrease"));
    c.ladder.betas.v[5] = 0.65;
    CHECK(rx_config_validate(&c, &err) == RX_OK);
    c.ladder.path = RX_PATH_TEMPERATURE;
    CHECK(rx_config_validate(&c, &err) == RX_ECONFIG &&
          strstr(err.msg, "ladder.betas"));
    c.ladder.path = RX_PATH_REFERENCE;
    /* the step rules: refused where the row draws no noise (sgd, msgd,
     * psgd), at position 1 or at the others, naming the key */
    int refused = 0;
    for (int k = 0; k < rx__step_count(); ++k) {
        const int samples = rx__step_row((rx_step_kind)k)->draws !=
                            RX__DRAWS_NONE;
        refused += !samples;
        for (int at = 0; at < 2; ++at) {
            c.step.target = at ? RX_STEP_SGLD : (rx_step_kind)k;
            c.step.others = at ? (rx_step_kind)k : RX_STEP_SGLD;
            rx_status vs = rx_config_validate(&c, &err);
            const char *key = at ? "step.others: " : "step.target: ";
            if (samples)
                CHECK_MSG(vs == RX_OK, "%s%d: %s", key, k, err.msg);
            else
                CHECK_MSG(vs == RX_ECONFIG && strstr(err.msg, key) &&
                              strstr(err.msg, "sample each pi_beta"),
                          "%s%d: status %d: %s", key, k, (int)vs,
                          vs == RX_OK ? "" : err.msg);
        }
    }
    CHECK(refused == 3);
    c.step.target = c.step.others = RX_STEP_SGLD;
    /* the temperature ladder is not used: a list of the wrong length is
     * not checked, and SGNHT's friction c / tau is taken at tau = 1 (at
     * tau 0.01, c = 0.1 would be refused on the temperature path) */
    c.ladder.tau.kind = RX_LADDER_LIST;
    c.ladder.tau.values.v = malloc(sizeof(double) * 2);
    c.ladder.tau.values.v[0] = c.ladder.tau.values.v[1] = 0.01;
    c.ladder.tau.values.n = 2;
    c.ladder.tau.min = 0.01;
    CHECK_MSG(rx_config_validate(&c, &err) == RX_OK, "%s", err.msg);
    c.ladder.tau.kind = RX_LADDER_CONSTANT;
    c.step.target = c.step.others = RX_STEP_SGNHT;
    CHECK_MSG(rx_config_validate(&c, &err) == RX_OK, "%s", err.msg);
    c.ladder.path = RX_PATH_TEMPERATURE;
    c.ladder.betas.n = 0;
    CHECK(rx_config_validate(&c, &err) == RX_ECONFIG &&
          strstr(err.msg, "step.sgnht_c"));
    c.ladder.betas.n = 16;
    c.ladder.path = RX_PATH_REFERENCE;
    c.step.target = c.step.others = RX_STEP_SGLD;
    c.ladder.tau.min = 1.0;
    /* a callback target without a prior function */
    c.target.kind = RX_TARGET_CALLBACK;
    rx_callback_target cb = {.dim = 1, .energy = mix_cb};
    rx_status cst = rx_create(&ctx, &c, &cb, (rx_logger){0}, &err);
    CHECK_MSG(cst == RX_EINVAL && strstr(err.msg, "prior") && !ctx,
              "status %d: %s", (int)cst, err.msg);
    rx_config_free(&c);
    /* the temperature path reports no log Z */
    base_config(&c, 1);
    c.ladder.path = RX_PATH_TEMPERATURE;
    c.iterations = 100;
    c.record.burn_in = 0;
    CHECK(rx_create(&ctx, &c, NULL, (rx_logger){0}, &err) == RX_OK);
    if (ctx && rx_run(ctx) == RX_OK) {
        rx_results r;
        rx_get_results(ctx, &r);
        CHECK(!r.log_z.valid && !r.log_z.beta);
    }
    rx_destroy(&ctx);
    rx_config_free(&c);
}

/* A short gmm run keeping n rows per position: log Z is valid from
 * RX_LOG_Z_MIN_ROWS rows on (10 batches), and below that it is not, with
 * the reason, whatever the estimate. */
static void min_rows_case(int64_t burn_in, int64_t thin, int64_t n_want,
                          int valid_want)
{
    rx_config c;
    gmm_path_config(&c, 21);
    c.tempering.n_chains = 6;
    c.iterations = 2000;
    c.record.burn_in = burn_in;
    c.record.thin = thin;
    rx_ctx *ctx = NULL;
    rx_err err;
    rx_status st = rx_create(&ctx, &c, NULL, (rx_logger){0}, &err);
    CHECK_MSG(st == RX_OK, "%s", err.msg);
    if (st == RX_OK && rx_run(ctx) == RX_OK) {
        rx_results r;
        rx_get_results(ctx, &r);
        const rx_log_z *z = &r.log_z;
        printf("burn_in %lld thin %lld: %lld rows, %d batches, valid %d, "
               "se %g: %s\n", (long long)burn_in, (long long)thin,
               (long long)z->n, z->batches, z->valid, z->se,
               z->reason ? z->reason : "");
        CHECK(z->n == n_want);
        CHECK_MSG(z->valid == valid_want, "%lld rows: valid %d",
                  (long long)z->n, z->valid);
        if (valid_want) {
            CHECK(!z->reason && z->batches >= 10 && isfinite(z->se));
        } else {
            CHECK(z->reason && strstr(z->reason, "kept rows per position") &&
                  strstr(z->reason, "at least 100"));
        }
    }
    rx_destroy(&ctx);
    rx_config_free(&c);
}

static void check_min_rows(void)
{
    CHECK(RX_LOG_Z_MIN_ROWS == 100);
    min_rows_case(1999, 1, 1, 0);   /* one row: se NaN */
    min_rows_case(1990, 1, 10, 0);  /* 3 batches */
    min_rows_case(1000, 100, 10, 0);
    min_rows_case(1901, 1, 99, 0);  /* 9 batches */
    /* 99 and 100 rows spread over the run (100 consecutive rows hold too
     * few independent draws of the beta = 0 chain to show that it samples
     * its reference: over 100 seeds 42 were not valid for that reason) */
    min_rows_case(20, 20, 99, 0);
    min_rows_case(0, 20, 100, 1); /* 10 batches of 10 */
}

/* ---- 5. the beta = 0 chain against its reference ---------------------- */

/* U_0 of n draws of a Gaussian reference in d coordinates whose sd is
 * `scale` times the reference's (1: exact draws) */
static void ref_draws(double *u0, int n, int d, double scale, double lognorm,
                      uint64_t seed)
{
    rx__stream st;
    rx__stream_init(&st, seed, 2, RX_STREAM_DATA, 0);
    for (int r = 0; r < n; ++r) {
        double q = 0.0;
        for (int j = 0; j < d; ++j) {
            double z = scale * rx__normal(&st);
            q += z * z;
        }
        u0[r] = lognorm + 0.5 * q;
    }
}

static void check_ref_stat(void)
{
    enum { N = 4000, Dm = 2 };
    const double lognorm = Dm * (0.5 * LOG_2PI + log(3.0)),
                 want = lognorm + 0.5 * Dm, want_sd = sqrt(0.5 * Dm);
    double *u0 = malloc(sizeof(double) * N);
    rx__logz_ref r;
    /* exact draws over 20 seeds: within 4 se every time (about 1 in
     * 15,000 would not be), the ESS near N, the moments near pi_0's */
    double zmax = 0.0;
    for (uint64_t s = 1; s <= 20; ++s) {
        ref_draws(u0, N, Dm, 1.0, lognorm, s);
        CHECK(rx__logz_ref_check(u0, N, want, want_sd, &r) == RX_OK);
        zmax = fmax(zmax, fabs(r.z));
        CHECK_MSG(r.ess > 0.8 * N && r.ess <= N, "ess %g", r.ess);
        CHECK(fabs(r.sd - want_sd) < 0.1 && r.want == want);
    }
    printf("reference check on exact draws: max |z| %.2f over 20 seeds\n",
           zmax);
    CHECK(zmax < RX__LOGZ_REF_Z);
    /* draws 10 % too narrow or too wide: E[U_0] moves by -0.19 / +0.21,
     * 9 se of 4,000 draws */
    ref_draws(u0, N, Dm, 0.9, lognorm, 1);
    CHECK(rx__logz_ref_check(u0, N, want, want_sd, &r) == RX_OK);
    CHECK_MSG(r.z < -RX__LOGZ_REF_Z, "narrow: z %g", r.z);
    ref_draws(u0, N, Dm, 1.1, lognorm, 1);
    CHECK(rx__logz_ref_check(u0, N, want, want_sd, &r) == RX_OK);
    CHECK_MSG(r.z > RX__LOGZ_REF_Z, "wide: z %g", r.z);
    /* a chain that never moves: z infinite, unless it sits at the mean */
    for (int i = 0; i < N; ++i)
        u0[i] = lognorm;
    CHECK(rx__logz_ref_check(u0, N, want, want_sd, &r) == RX_OK);
    CHECK(isinf(r.z) && r.z < 0 && r.sd == 0.0);
    for (int i = 0; i < N; ++i)
        u0[i] = want;
    CHECK(rx__logz_ref_check(u0, N, want, want_sd, &r) == RX_OK);
    CHECK(r.z == 0.0);
    u0[9] = NAN;
    CHECK(rx__logz_ref_check(u0, N, want, want_sd, &r) == RX_ENUMERIC);
    CHECK(rx__logz_ref_check(u0, 3, want, want_sd, &r) == RX_ENUMERIC);
    free(u0);
}

/* The 2-D gmm (log Z = 0) on 12 positions, 20,000 iterations, 1,900 kept
 * rows per position; eta_p: the step size at beta = 0 (0: the geometric
 * ladder 0.003 .. 0.3). */
static rx_log_z ref_run(double ref_sd, double eta_p, rx_results *res,
                        rx_ctx **ctx)
{
    rx_config c;
    gmm_path_config(&c, 31);
    c.iterations = 20000;
    c.record.burn_in = 1000;
    c.record.thin = 10;
    c.ladder.reference_sd = ref_sd;
    if (eta_p > 0.0) {
        const int P = c.tempering.n_chains;
        c.ladder.eta.kind = RX_LADDER_LIST;
        c.ladder.eta.values.v = malloc(sizeof(double) * (size_t)P);
        c.ladder.eta.values.n = P;
        for (int q = 0; q < P - 1; ++q) /* the geometric ladder's */
            c.ladder.eta.values.v[q] = 0.003 * pow(100.0, q / (P - 1.0));
        c.ladder.eta.values.v[P - 1] = eta_p;
    }
    rx_err err;
    rx_status st = rx_create(ctx, &c, NULL, (rx_logger){0}, &err);
    CHECK_MSG(st == RX_OK, "%s", err.msg);
    rx_config_free(&c);
    memset(res, 0, sizeof *res);
    if (st == RX_OK && rx_run(*ctx) == RX_OK)
        rx_get_results(*ctx, res);
    CHECK(res->log_z.beta != NULL);
    return res->log_z;
}

static void check_ref_runs(void)
{
    rx_results r;
    rx_ctx *ctx = NULL;
    /* the reference N(0.5, 3^2): its chain samples it */
    rx_log_z z = ref_run(3.0, 0.0, &r, &ctx);
    printf("reference sd 3: log Z %.4f +- %.4f, valid %d %s\n", z.estimate,
           z.se, z.valid, z.reason ? z.reason : "");
    CHECK_MSG(z.valid, "%s", z.reason ? z.reason : "");
    CHECK(fabs(z.estimate) < 4.0 * z.se);
    rx_destroy(&ctx);
    /* sd 100 and 1000: the beta = 0 chain, at eta 0.3, would need ~10^5
     * and ~10^7 steps to cross them; it crawls out from where it started
     * (at 100 its mean U_0 passes near pi_0's by chance, with an ESS of 2
     * in 1,900 rows, and log Z is within its se of 0 by chance too: no
     * number rests on that chain) */
    z = ref_run(100.0, 0.0, &r, &ctx);
    printf("reference sd 100: log Z %.4f +- %.4f, valid %d: %s\n",
           z.estimate, z.se, z.valid, z.reason ? z.reason : "");
    CHECK(!z.valid && z.reason &&
          strstr(z.reason, "the beta = 0 chain does not show that it "
                           "samples its reference") &&
          strstr(z.reason, "ESS") && strstr(z.reason, "iterations"));
    rx_destroy(&ctx);
    z = ref_run(1000.0, 0.0, &r, &ctx);
    printf("reference sd 1000: log Z %.4f +- %.4f, valid %d: %s\n",
           z.estimate, z.se, z.valid, z.reason ? z.reason : "");
    CHECK(fabs(z.estimate) > 4.0 * z.se); /* what valid would claim */
    CHECK(!z.valid && z.reason &&
          strstr(z.reason, "the beta = 0 chain does not sample its "
                           "reference") &&
          strstr(z.reason, "narrower") && strstr(z.reason, "iterations"));
    rx_destroy(&ctx);
    /* eta 9 at beta = 0 on N(0.5, 3^2): SGLD's draws have variance
     * 9 / (1 - 9 / 18), twice pi_0's */
    z = ref_run(3.0, 9.0, &r, &ctx);
    printf("eta 9 at beta = 0: log Z %.4f +- %.4f, valid %d: %s\n",
           z.estimate, z.se, z.valid, z.reason ? z.reason : "");
    CHECK(fabs(z.estimate) > 4.0 * z.se);
    CHECK(!z.valid && z.reason &&
          strstr(z.reason, "does not sample its reference") &&
          strstr(z.reason, "wider") && strstr(z.reason, "step size"));
    rx_destroy(&ctx);
}

/* 6. The overlap figures on rows whose answers are known. */
static void check_overlap(void)
{
    enum { N = 50, P3 = 3 };
    static const double beta[P3] = {1.0, 0.5, 0.0};
    double u[N * P3], ess[P3 - 1], acc[P3 - 1];
    char msg[512];
    /* every row the same: every weight equal (ESS n), swaps certain */
    for (int i = 0; i < N * P3; ++i)
        u[i] = 3.0;
    CHECK(rx__logz_overlap(u, N, P3, beta, ess, acc) == RX_OK);
    CHECK(fabs(ess[0] - N) < 1e-9 && fabs(ess[1] - N) < 1e-9);
    CHECK(acc[0] == 1.0 && acc[1] == 1.0);
    CHECK(rx__logz_overlap_check(u, N, P3, beta, msg, sizeof msg) == NULL);
    /* one row of position 2 far below the others: pair 1's weights
     * exp(-0.5 u) rest on it (ESS 1); position 1 sits no lower than
     * position 2, so their swaps are still certain */
    u[7 * P3 + 1] = -2000.0;
    CHECK(rx__logz_overlap(u, N, P3, beta, ess, acc) == RX_OK);
    CHECK_MSG(fabs(ess[0] - 1.0) < 1e-9, "ess %.17g", ess[0]);
    CHECK(fabs(ess[1] - N) < 1e-9);
    CHECK(acc[0] == 1.0);
    const char *why = rx__logz_overlap_check(u, N, P3, beta, msg, sizeof msg);
    CHECK_MSG(why && strstr(why, "neighbouring positions do not overlap: "
                                "positions 1 and 2 (beta 1 and 0.5)") &&
                  strstr(why, "an ESS of 1 in 50 rows (1 of 2 pairs"),
              "%s", why ? why : "(none)");
    /* equal weights, but position 2 (beta 0.5) 40 below position 3
     * (beta 0) in every row: a swap would cost exp(-0.5 x 40) */
    for (int r = 0; r < N; ++r) {
        u[r * P3 + 0] = u[r * P3 + 1] = 0.0;
        u[r * P3 + 2] = 40.0;
    }
    CHECK(rx__logz_overlap(u, N, P3, beta, ess, acc) == RX_OK);
    CHECK(fabs(ess[1] - N) < 1e-9);
    CHECK_MSG(fabs(acc[1] - exp(-20.0)) < 1e-20, "acc %.17g", acc[1]);
    why = rx__logz_overlap_check(u, N, P3, beta, msg, sizeof msg);
    CHECK_MSG(why && strstr(why, "positions 2 and 3 (beta 0.5 and 0) would "
                                "swap with mean probability 2.1e-09"),
              "%s", why ? why : "(none)");
    /* just above and just below the thresholds */
    for (int r = 0; r < N; ++r)
        u[r * P3 + 2] = -2.0 * log(RX__LOGZ_OVERLAP_ACC * 1.001);
    CHECK(rx__logz_overlap_check(u, N, P3, beta, msg, sizeof msg) == NULL);
    for (int r = 0; r < N; ++r)
        u[r * P3 + 2] = -2.0 * log(RX__LOGZ_OVERLAP_ACC * 0.999);
    CHECK(rx__logz_overlap_check(u, N, P3, beta, msg, sizeof msg) != NULL);
    u[5] = NAN;
    CHECK(rx__logz_overlap(u, N, P3, beta, ess, acc) == RX_ENUMERIC);
    CHECK(isnan(ess[0]) && isnan(acc[1]));
    CHECK(rx__logz_overlap(u, 0, P3, beta, ess, acc) == RX_EINVAL);
}

int main(void)
{
    check_estimator();
    check_refusals();
    check_min_rows();
    check_conjugate();
    check_mixture();
    check_gmm();
    check_ref_stat();
    check_ref_runs();
    check_overlap();
    return check_done();
}
