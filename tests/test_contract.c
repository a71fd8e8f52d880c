/*
 * The row contract (src/core/row.h): a step rule and an exchange test
 * defined here, in the test binary only, join their tables through the
 * weak hooks of step.c and xtest.c, known to no other file. Each then
 * passes through every generic path: its name in the YAML enum and the
 * bench grid's names, its own keys in the schema (`replex keys`, parsing,
 * defaults, the resolved config, applies, copy and free, the keyed API),
 * its check and the warnings its properties call for, located messages
 * for bad values, the engine (its own values reach it), the same bits on
 * 1, 2 and 3 threads and a checkpoint round trip. Then every real row:
 * its name and keys documented in docs/yaml.md.
 */
#define _POSIX_C_SOURCE 200809L
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../src/config/applies.h"
#include "../src/config/config.h"
#include "../src/exchange/xtest.h"
#include "../src/io/config.h"
#include "../src/io/digest.h"
#include "../src/step/step.h"
#include "check.h"
#include "stop_run.h"

/* ---- a test-only step: SGLD preconditioned by a fixed diagonal --------- */

static const rx__keydef psgld_keys[] = {
    {"step.test_scale", K_VEC, 0, "[]", 0, 1e6, 1, 0, NULL,
     "test row: the diagonal preconditioner d (dim values > 0; [] = 1)"},
    {"step.test_gain", K_REAL, 0, "1", 0, 10, 1, 0, NULL,
     "test row: a gain on the drift, in (0, 10]"},
};

static void psgld_apply(const rx__stepconf *sc, const rx__rowvals *own,
                        double *theta, double *state, const double *grad,
                        double gm, size_t dim, double eta, double tau,
                        rx__stream *s, const double *zpre, size_t nz)
{
    (void)sc, (void)state;
    const double *d = own->k[0].n ? own->k[0].v : NULL;
    const double gain = own->k[1].v[0];
    double z[RX_STEP_CHUNK];
    for (size_t j0 = 0; j0 < dim; j0 += RX_STEP_CHUNK) {
        size_t n = dim - j0 < RX_STEP_CHUNK ? dim - j0 : RX_STEP_CHUNK;
        const double *zz = rx__step_noise(s, zpre, nz, j0, z, n);
        for (size_t j = 0; j < n; ++j) {
            const double dj = d ? d[j0 + j] : 1.0;
            theta[j0 + j] += -eta * gain * gm * dj * grad[j0 + j] +
                             sqrt(2.0 * eta * tau * dj) * zz[j];
        }
    }
}

static rx_status psgld_check(const rx__rowrun *run, const rx__rowvals *own,
                             const char **key, rx_err *err)
{
    if (own->k[0].n && run->dim && (size_t)own->k[0].n != run->dim) {
        *key = "step.test_scale";
        return rx__fail(err, RX_ECONFIG,
                        "needs %zu values (the dimension), got %d",
                        run->dim, own->k[0].n);
    }
    return RX_OK;
}

const rx__step_type rx__step_test_row = {
    .row = {.name = "test_psgld",
            .doc = "test row: SGLD with a fixed diagonal preconditioner",
            .keys = psgld_keys,
            .nkeys = 2,
            .props = RX__STEP_SAMPLES,
            .check = psgld_check},
    .apply = psgld_apply,
    .draws = RX__DRAWS_DIM,
    .needs = RX__NEEDS_GRAD,
};

/* ---- a test-only exchange test: Metropolis damped by a constant -------- */

static const rx__keydef damped_keys[] = {
    {"tempering.test_damp", K_REAL, 0, "0.5", 0, 1, 1, 0, NULL,
     "test row: the acceptance factor in (0, 1]"},
};

static int damped_decide(const rx__xconf *xc, const rx__xstate *xs, int a,
                         int b, double ea, double eb, double s, double u,
                         int64_t k, double *prob)
{
    rx__xt_fresh(xc, xs, a, k, &ea, &eb);
    /* on minibatch energies the engine's paired estimate (RX__XT_PAIRED)
     * in place of the energies' difference */
    const double dU = xs->pair_est ? xs->pair_est[2 * a] : ea - eb;
    const double x = (xs->beta[a] - xs->beta[b]) * dU + s - xc->wcorr;
    /* the factor as its per-run state holds it (size, init) */
    *prob = *(const double *)xc->rstate * (x >= 0.0 ? 1.0 : exp(x));
    return u < *prob;
}

static size_t damped_size(const rx__rowvals *own)
{
    (void)own;
    return sizeof(double);
}

static int damped_inits; /* init runs once per rx_create */

static rx_status damped_init(void *state, const rx__rowrun *run,
                             const rx__rowvals *own, rx_err *err)
{
    (void)err;
    ++damped_inits;
    *(double *)state = run->P > 1 ? own->k[0].v[0] : 0.0;
    return RX_OK;
}

/* The paired estimates' sizes: a row may take them from its keys (own)
 * or its state; this one fixes them. */
static void damped_paired(const rx__rowvals *own, const void *state,
                          int64_t *inc, int64_t *cap, double *var_goal)
{
    (void)own;
    (void)state;
    *inc = 64;
    *cap = 0;
    *var_goal = 1.0;
}

const rx__xtest_type rx__xt_test_row = {
    .row = {.name = "test_damped",
            .doc = "test row: c min(1, exp(dbeta dU)), detailed balance",
            .keys = damped_keys,
            .nkeys = 1,
            .props = RX__XT_UNIFORM | RX__XT_ENERGY | RX__XT_LADDER |
                     RX__XT_WCORR | RX__XT_EXACT | RX__XT_PAIRED},
    .decide = damped_decide,
    .size = damped_size,
    .init = damped_init,
    .paired = damped_paired,
};

/* ---- helpers --------------------------------------------------------------*/

static char tmpdir[256];

static const char *write_yaml(const char *name, const char *text)
{
    static char path[512];
    snprintf(path, sizeof path, "%s/%s", tmpdir, name);
    FILE *f = fopen(path, "w");
    if (f) {
        fputs(text, f);
        fclose(f);
    }
    return path;
}

#define BASE                                                                 \
    "iterations: 2000\nseed: 3\n"                                            \
    "target: {kind: gmm, weights: [1], means: [[0, 0]], scales: [[1, 2]]}\n" \
    "ladder: {eta: 0.01, tau: {min: 1, max: 4}}\n"                           \
    "record: {burn_in: 200}\n"

#define MB_BASE                                                              \
    "iterations: 400\nseed: 3\n"                                             \
    "target: {kind: mixture_data, n_data: 1000}\n"                           \
    "data: {batch_size: 50}\nrecord: {burn_in: 0}\n"

static const char *good_yaml =
    BASE "tempering: {n_chains: 4, scheme: deo, rule: test_damped, "
         "test_damp: 0.8}\n"
         "step: {target: test_psgld, others: test_psgld, test_scale: [1, 4],"
         " test_gain: 1}\n";

static int key_of(const char *path)
{
    int i = rx__key_index(path);
    CHECK_MSG(i >= 0, "%s is not a key", path);
    return i;
}

/* The resolved configuration (the keys that apply) as text. */
static char *resolved(const rx_config *c)
{
    char *text = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&text, &len);
    if (!f)
        return NULL;
    rx__config_fwrite(c, f, 0);
    fclose(f);
    return text;
}

/* ---- the generic paths ----------------------------------------------------*/

static void test_tables_and_keys(void)
{
    const int ns = rx__step_count(), nx = rx__xtest_count();
    CHECK(!strcmp(rx__step_types[ns - 1]->row.name, "test_psgld"));
    CHECK(!strcmp(rx__xtest_types[nx - 1]->row.name, "test_damped"));
    /* the YAML enum's names are the rows' (and the bench grid reads them
     * through the same key) */
    const rx__keydef *st = rx__key_at(key_of("step.target"));
    const rx__keydef *ru = rx__key_at(key_of("tempering.rule"));
    CHECK(rx__kd_find(st, "test_psgld") == ns - 1);
    CHECK(rx__kd_find(rx__key_at(key_of("step.others")), "test_psgld") ==
          ns - 1);
    CHECK(rx__kd_find(ru, "test_damped") == nx - 1);
    CHECK(rx__kd_nnames(ru) == nx && rx__kd_nnames(st) == ns);
    /* its keys in the listing `replex keys` prints, after the
     * configuration's own, in the key store (not fields of rx_config) */
    int seen = 0;
    for (int i = 0; i < rx__config_nkeys(); ++i) {
        rx__keyinfo k = rx__config_key(i);
        if (!strcmp(k.path, "step.test_scale"))
            seen += i >= rx__nkeys && !strcmp(k.type, "list of numbers") &&
                    !strcmp(k.deflt, "[]") && strstr(k.doc, "test row");
        if (!strcmp(k.path, "tempering.test_damp"))
            seen += i >= rx__nkeys && !strcmp(k.type, "number");
    }
    CHECK_MSG(seen == 2, "replex keys lists the rows' keys (%d)", seen);
    CHECK(rx__key_count() <= RX__MAX_KEYS);
    /* every key path is unique */
    for (int i = 0; i < rx__key_count(); ++i)
        CHECK_MSG(rx__key_index(rx__key_at(i)->path) == i, "%s twice",
                  rx__key_at(i)->path);
}

static void test_load_and_applies(void)
{
    rx_config c;
    rx_err err = {{0}};
    rx_status st = rx_config_load(write_yaml("good.yaml", good_yaml), NULL,
                                  0, &c, &err);
    CHECK_MSG(st == RX_OK, "%s", err.msg);
    const double *v = NULL;
    int n = 0;
    double x = 0;
    CHECK(rx_config_get_vec(&c, "step.test_scale", &v, &n, &err) == RX_OK &&
          n == 2 && v[0] == 1.0 && v[1] == 4.0);
    CHECK(rx_config_get_real(&c, "tempering.test_damp", &x, &err) ==
              RX_OK && x == 0.8);
    CHECK(rx__key_applies(&c, key_of("step.test_scale")) &&
          rx__key_applies(&c, key_of("tempering.test_damp")));
    char *text = resolved(&c);
    CHECK(text && strstr(text, "test_scale: [1, 4]") &&
          strstr(text, "test_damp: 0.8") && strstr(text, "test_gain: 1"));
    /* each section once: the rows' keys inside their sections, so the
     * resolved file (config.yaml, `replex run --resume`) loads again */
    const char *t1 = text ? strstr(text, "\nstep:\n") : NULL;
    const char *t2 = text ? strstr(text, "\ntempering:\n") : NULL;
    CHECK_MSG(t1 && !strstr(t1 + 1, "\nstep:\n") && t2 &&
                  !strstr(t2 + 1, "\ntempering:\n"),
              "a section written twice:\n%s", text ? text : "");
    free(text);
    char rp[400];
    snprintf(rp, sizeof rp, "%s/resolved.yaml", tmpdir);
    rx_config r;
    CHECK(rx_config_write(&c, rp, &err) == RX_OK);
    st = rx_config_load(rp, NULL, 0, &r, &err);
    CHECK_MSG(st == RX_OK, "the resolved config does not load: %s",
              err.msg);
    if (st == RX_OK) {
        CHECK(rx_config_get_vec(&r, "step.test_scale", &v, &n, &err) ==
                  RX_OK &&
              n == 2 && v[1] == 4.0 && r.step.target == c.step.target);
        CHECK(rx_config_get_real(&r, "tempering.test_damp", &x, &err) ==
                  RX_OK &&
              x == 0.8);
    }
    rx_config_free(&r);
    unlink(rp);
    /* a copy holds its own store */
    rx_config d;
    rx_config_default(&d);
    CHECK(rx_config_copy(&d, &c) == RX_OK);
    rx_config_free(&c);
    CHECK(rx_config_get_vec(&d, "step.test_scale", &v, &n, &err) == RX_OK &&
          n == 2 && v[1] == 4.0);
    /* not in use: the keys do not apply and are not written */
    CHECK(rx_config_set(&d, "step.target", "sgld", &err) == RX_OK &&
          rx_config_set(&d, "step.others", "sgld", &err) == RX_OK &&
          rx_config_set(&d, "tempering.rule", "metropolis", &err) == RX_OK);
    CHECK(!rx__key_applies(&d, key_of("step.test_scale")) &&
          !rx__key_applies(&d, key_of("tempering.test_damp")));
    text = resolved(&d);
    CHECK(text && !strstr(text, "test_scale") && !strstr(text, "test_damp"));
    free(text);
    /* the checkpoint's canonical config leaves an idle row's keys out, so
     * a rule with keys added to the library does not invalidate the
     * checkpoints of runs that do not use it */
    char *canon = NULL;
    CHECK(rx__config_canon(&d, &canon, &err) == RX_OK && canon &&
          !strstr(canon, "test_scale") && strstr(canon, "momentum"));
    free(canon);
    rx_config_free(&d);
}

/* A bad file: status, and the message at its file:line:col and key. */
static void bad(const char *name, const char *yaml, const char *want)
{
    rx_config c;
    rx_err err = {{0}};
    const char *path = write_yaml(name, yaml);
    rx_status st = rx_config_load(path, NULL, 0, &c, &err);
    char loc[600];
    snprintf(loc, sizeof loc, "%s:", path);
    CHECK_MSG(st == RX_ECONFIG && strstr(err.msg, want) &&
                  !strncmp(err.msg, loc, strlen(loc)),
              "%s: got '%s', want '%s' at %s", name, err.msg, want, path);
    rx_config_free(&c);
}

static void test_bad_input(void)
{
    /* the row's check, located at the key it names */
    bad("len.yaml",
        BASE "step: {target: test_psgld, test_scale: [1, 2, 3]}\n",
        ":6:40: step.test_scale: needs 2 values (the dimension), got 3");
    /* the declared range, type and names */
    bad("gain.yaml", BASE "step: {target: test_psgld, test_gain: 20}\n",
        ":6:39: step.test_gain: value 20 out of range");
    bad("neg.yaml", BASE "step: {target: test_psgld, test_scale: [1, -1]}\n",
        ":6:44: step.test_scale[1]: value -1 out of range");
    bad("damp.yaml", BASE "tempering: {rule: test_damped, test_damp: x}\n",
        ":6:43: tempering.test_damp: expected a number");
    bad("name.yaml", BASE "step: {target: test_psgl}\n",
        "did you mean 'test_psgld'?");
    /* a paired row gets what its estimates need checked without a check
     * of its own (rx__xt_paired_check): pairs decided before the swaps */
    bad("pair.yaml", MB_BASE "tempering: {n_chains: 4, rule: test_damped, "
                     "scheme: adj}\n",
        "tempering.scheme: the test_damped rule on minibatch energies");
}

static int n_warn;
static char last_warn[1024];
static void on_log(void *user, int level, const char *msg)
{
    (void)user;
    if (level == RX_LOG_WARN) {
        ++n_warn;
        if (strstr(msg, "BIASED"))
            snprintf(last_warn, sizeof last_warn, "%s", msg);
    }
}

static void test_properties(void)
{
    rx_config c;
    rx_err err = {{0}};
    CHECK(rx_config_load(write_yaml("w.yaml", good_yaml), NULL, 0, &c,
                         &err) == RX_OK);
    /* a window gate with a rule that declares RX__XT_WCORR: biased
     * without the correction, and said so */
    CHECK(rx_config_set(&c, "tempering.scheme", "deo_w", &err) == RX_OK &&
          rx_config_set_int(&c, "tempering.window", 4, &err) == RX_OK);
    n_warn = 0;
    last_warn[0] = '\0';
    rx__config_warnings(&c, NULL, (rx_logger){NULL, on_log});
    CHECK_MSG(strstr(last_warn, "window W = 4") &&
                  strstr(last_warn, "test_damped"),
              "window warning: '%s'", last_warn);
    CHECK(rx_config_set(&c, "tempering.window_correction", "logW", &err) ==
          RX_OK);
    last_warn[0] = '\0';
    rx__config_warnings(&c, NULL, (rx_logger){NULL, on_log});
    CHECK(!strstr(last_warn, "window W"));
    /* the reference path reads RX__XT_EXACT and RX__STEP_SAMPLES */
    CHECK(rx_config_set(&c, "tempering.scheme", "deo", &err) == RX_OK &&
          rx_config_set(&c, "tempering.window", "auto", &err) == RX_OK &&
          rx_config_set(&c, "ladder.path", "reference", &err) == RX_OK);
    rx_status st = rx_config_validate(&c, &err);
    CHECK_MSG(st == RX_OK, "reference path: %s", err.msg);
    rx_config_free(&c);
}

static void test_keyed_api(void)
{
    rx_config c;
    rx_config_default(&c);
    rx_err err = {{0}};
    const double d[2] = {2.0, 3.0};
    CHECK(rx_config_set_vec(&c, "step.test_scale", d, 2, &err) == RX_OK);
    /* out of range, wrong type, unknown key: RX_EINVAL, a message naming
     * the key, the value kept */
    CHECK(rx_config_set_real(&c, "step.test_gain", 20.0, &err) ==
              RX_EINVAL &&
          strstr(err.msg, "rx_config_set_real: step.test_gain: "));
    CHECK(rx_config_set(&c, "step.test_scale", "abc", &err) == RX_EINVAL &&
          strstr(err.msg, "step.test_scale: expected a list"));
    CHECK(rx_config_set(&c, "step.test_scal", "[1]", &err) == RX_EINVAL &&
          strstr(err.msg, "did you mean 'step.test_scale'"));
    CHECK(rx_config_set(&c, "tempering.rule", "nope", &err) == RX_EINVAL &&
          strstr(err.msg, "test_damped"));
    const double *v = NULL;
    int n = 0;
    int64_t i = 0;
    double x = 0;
    CHECK(rx_config_get_vec(&c, "step.test_scale", &v, &n, &err) == RX_OK &&
          n == 2 && v[0] == 2.0);
    CHECK(rx_config_get_real(&c, "step.test_gain", &x, &err) == RX_OK &&
          x == 1.0);
    CHECK(rx_config_get_int(&c, "step.test_gain", &i, &err) == RX_EINVAL);
    CHECK(rx_config_get_real(&c, "step.test_scale", &x, &err) == RX_EINVAL);
    char buf[64];
    CHECK(rx_config_get(&c, "step.test_scale", buf, sizeof buf, &err) ==
              RX_OK && !strcmp(buf, "[2, 3]"));
    CHECK(rx_config_get(&c, "step.test_scale", buf, 3, &err) == RX_EINVAL);
    /* the configuration's own keys through the same calls */
    CHECK(rx_config_set_int(&c, "tempering.n_chains", 6, &err) == RX_OK &&
          c.tempering.n_chains == 6);
    CHECK(rx_config_set_int(&c, "tempering.n_chains", 0, &err) == RX_EINVAL);
    CHECK(rx_config_set(NULL, "seed", "1", &err) == RX_EINVAL);
    CHECK(rx_config_set(&c, NULL, "1", &err) == RX_EINVAL);
    CHECK(rx_config_set(&c, "seed", NULL, &err) == RX_EINVAL);
    rx_config_free(&c);
    CHECK(c.keys == NULL);
}

/* ---- through the engine ---------------------------------------------------*/

static float *run_samples(const rx_config *base, int threads,
                          const char *from, int64_t stop_at, const char *ck,
                          int64_t *ns)
{
    stopper s;
    rx_status st;
    rx_ctx *ctx = stop_run(base, threads, from, stop_at, ck, &s, &st);
    float *out = NULL;
    *ns = 0;
    if (ctx && st == RX_OK) {
        rx_results r;
        rx_get_results(ctx, &r);
        *ns = r.n_samples * (int64_t)r.dim;
        out = malloc(sizeof(float) * (size_t)(*ns > 0 ? *ns : 1));
        if (out)
            memcpy(out, r.samples, sizeof(float) * (size_t)*ns);
    } else if (ctx && st != RX_EABORTED) {
        fprintf(stderr, "run: %s\n", rx_errmsg(ctx));
    }
    rx_destroy(&ctx);
    return out;
}

static void test_engine(void)
{
    rx_config c;
    rx_err err = {{0}};
    CHECK(rx_config_load(write_yaml("e.yaml", good_yaml), NULL, 0, &c,
                         &err) == RX_OK);
    int64_t n1, n2, n3, nb, nr;
    const int inits0 = damped_inits;
    float *a = run_samples(&c, 1, NULL, -1, NULL, &n1);
    float *b = run_samples(&c, 2, NULL, -1, NULL, &n2);
    float *t = run_samples(&c, 3, NULL, -1, NULL, &n3);
    CHECK_MSG(damped_inits == inits0 + 3, "the row's init ran %d times "
              "for 3 runs", damped_inits - inits0);
    CHECK(a && b && t && n1 == n2 && n1 == n3 && n1 > 0);
    if (a && b && t) {
        CHECK_MSG(!memcmp(a, b, sizeof(float) * (size_t)n1) &&
                      !memcmp(a, t, sizeof(float) * (size_t)n1),
                  "the same bits on 1, 2 and 3 threads");
    }
    /* the row's values reach it: another preconditioner, other draws;
     * the scale of coordinate 2 (sd 2) is sampled correctly */
    if (a) {
        double m = 0, v2 = 0;
        const int64_t rows = n1 / 2;
        for (int64_t r = 0; r < rows; ++r)
            m += a[2 * r + 1];
        m /= (double)rows;
        for (int64_t r = 0; r < rows; ++r)
            v2 += (a[2 * r + 1] - m) * (a[2 * r + 1] - m);
        v2 /= (double)(rows - 1);
        CHECK_MSG(v2 > 2.0 && v2 < 8.0, "variance of x2 %g, want 4", v2);
    }
    CHECK(rx_config_set(&c, "step.test_scale", "[1, 1]", &err) == RX_OK);
    float *o = run_samples(&c, 1, NULL, -1, NULL, &nb);
    CHECK(o && a && nb == n1 && memcmp(a, o, sizeof(float) * (size_t)n1));
    free(o);
    /* a checkpoint round trip: stopped at 900 on 2 threads, resumed on 3 */
    CHECK(rx_config_set(&c, "step.test_scale", "[1, 4]", &err) == RX_OK);
    char ck[400];
    snprintf(ck, sizeof ck, "%s/ck.bin", tmpdir);
    free(run_samples(&c, 2, NULL, 900, ck, &nb));
    float *res = run_samples(&c, 3, ck, -1, NULL, &nr);
    CHECK_MSG(res && a && nr == n1 &&
                  !memcmp(a, res, sizeof(float) * (size_t)n1),
              "resumed run differs from the uninterrupted one");
    free(res);
    /* the row's check at rx_create, where the callback's dimension is
     * known only there, goes through the same generic path */
    CHECK(rx_config_set(&c, "step.test_scale", "[1, 4, 9]", &err) == RX_OK);
    rx_ctx *ctx = NULL;
    CHECK(rx_create(&ctx, &c, NULL, (rx_logger){0}, &err) != RX_OK &&
          strstr(err.msg, "step.test_scale: needs 2 values"));
    rx_destroy(&ctx);
    free(a);
    free(b);
    free(t);
    rx_config_free(&c);
    /* the paired row on minibatch energies: the engine's estimates, only
     * the attempted pairs evaluated, the same bits on 1 and 3 threads */
    CHECK(rx_config_load(write_yaml("p.yaml", MB_BASE "tempering: {n_chains: "
                                    "4, scheme: deo, rule: test_damped}\n"),
                         NULL, 0, &c, &err) == RX_OK);
    float *p1 = run_samples(&c, 1, NULL, -1, NULL, &n1);
    float *p3 = run_samples(&c, 3, NULL, -1, NULL, &n3);
    CHECK(p1 && p3 && n1 == n3 && n1 > 0 &&
          !memcmp(p1, p3, sizeof(float) * (size_t)n1));
    rx_ctx *pc = NULL;
    CHECK(rx_create(&pc, &c, NULL, (rx_logger){0}, &err) == RX_OK &&
          rx_run(pc) == RX_OK);
    if (pc) {
        rx_results r;
        rx_get_results(pc, &r);
        int64_t att = 0, ev = 0;
        for (int q = 0; q < r.n_chains - 1; ++q)
            att += r.pairs[q].attempts, ev += r.pairs[q].evaluated;
        CHECK_MSG(att > 0 && ev == att, "paired: %lld attempts, %lld "
                  "evaluated", (long long)att, (long long)ev);
    }
    rx_destroy(&pc);
    free(p1);
    free(p3);
    rx_config_free(&c);
}

/* ---- the documentation of the real rows -----------------------------------*/

static void test_docs(void)
{
    const char *src = getenv("RX_SRCDIR");
    char path[600];
    snprintf(path, sizeof path, "%s/docs/yaml.md", src ? src : "..");
    FILE *f = fopen(path, "rb");
    CHECK_MSG(f != NULL, "open %s", path);
    if (!f)
        return;
    static char doc[1 << 20];
    size_t n = fread(doc, 1, sizeof doc - 1, f);
    doc[n] = '\0';
    fclose(f);
    for (int t = 0; rx__tables[t]; ++t) {
        const rx__table *T = rx__tables[t];
        for (int r = 0; r < T->count(); ++r) {
            const rx__rowdecl *d = T->at(r);
            if (!strncmp(d->name, "test_", 5))
                continue; /* this file's rows */
            char want[200];
            snprintf(want, sizeof want, "`%s`", d->name);
            CHECK_MSG(strstr(doc, want) != NULL,
                      "docs/yaml.md does not name the %s row %s", T->kind,
                      d->name);
            for (int k = 0; k < d->nkeys; ++k) {
                snprintf(want, sizeof want, "`%s`", d->keys[k].path);
                CHECK_MSG(strstr(doc, want) != NULL,
                          "docs/yaml.md does not document %s", want);
            }
        }
    }
}

int main(void)
{
    snprintf(tmpdir, sizeof tmpdir, "/tmp/rx_contract_XXXXXX");
    if (!mkdtemp(tmpdir))
        return 1;
    test_tables_and_keys();
    test_load_and_applies();
    test_bad_input();
    test_properties();
    test_keyed_api();
    test_engine();
    test_docs();
    char cmd[300];
    snprintf(cmd, sizeof cmd, "%s/ck.bin", tmpdir);
    unlink(cmd);
    const char *names[] = {"good.yaml", "len.yaml", "gain.yaml", "neg.yaml",
                           "damp.yaml", "name.yaml", "w.yaml", "e.yaml",
                           "pair.yaml", "p.yaml"};
    for (size_t i = 0; i < sizeof names / sizeof names[0]; ++i) {
        snprintf(cmd, sizeof cmd, "%s/%s", tmpdir, names[i]);
        unlink(cmd);
    }
    rmdir(tmpdir);
    return check_done();
}
