/*
 * The C API as an embedding code sees it: a user callback target, an error
 * returned by the callback, non-finite energies, bad arguments, config
 * copy/validate/write/load round trip, the progress callback
 * (rx_set_progress), and the messages they produce.
 */
#define _POSIX_C_SOURCE 200809L
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "replex/replex.h"
#include "check.h"

/* U = sum (x - 1)^2 / 2: N(1, tau) at temperature tau */
typedef struct {
    int fail_at_call; /* < 0: never */
    int nan;
    long calls;       /* counted atomically: called from many threads */
} user_t;

static rx_status quad(void *user, const double *x, size_t d, double *e,
                      double *g)
{
    user_t *u = user;
    long n;
#pragma omp atomic capture
    n = u->calls++;
    if (u->fail_at_call >= 0 && n >= u->fail_at_call)
        return u->nan ? (*e = NAN, RX_OK) : RX_EABORTED;
    double s = 0;
    for (size_t j = 0; j < d; ++j) {
        double z = x[j] - 1.0;
        s += 0.5 * z * z;
        if (g)
            g[j] = z;
    }
    *e = s;
    return RX_OK;
}

static void logger(void *user, int level, const char *msg)
{
    (void)level;
    (void)msg;
    (*(int *)user)++;
}

static rx_config base(void)
{
    rx_config c;
    rx_config_default(&c);
    c.target.kind = RX_TARGET_CALLBACK;
    c.iterations = 20000;
    c.tempering.n_chains = 4;
    c.tempering.scheme = RX_SCHEME_DEO;
    c.ladder.eta.min = 0.05;
    c.ladder.tau.kind = RX_LADDER_GEOMETRIC;
    c.ladder.tau.min = 1;
    c.ladder.tau.max = 8;
    c.record.burn_in = 1000;
    c.record.thin = 5;
    return c;
}


/* progress callback: records what it sees; refuses at call `stop_at` */
typedef struct {
    int calls, stop_at, bad;
    int64_t last_iter, last_trips, K, every;
    double last_elapsed;
} prog_t;

static rx_status on_progress(void *user, const rx_progress *p)
{
    prog_t *g = user;
    g->calls++;
    /* every = 0 (paced by time): any increasing iteration */
    int64_t want = p->iteration == g->K || g->every == 0
                       ? p->iteration
                       : g->last_iter + g->every;
    if (p->iteration != want || p->iteration <= g->last_iter ||
        p->iterations != g->K || p->trips_a5 < g->last_trips ||
        p->elapsed_s < g->last_elapsed || !(p->mean_accept >= 0.0) ||
        !(p->mean_accept <= 1.0) || p->swaps < 0)
        g->bad++;
    g->last_iter = p->iteration;
    g->last_trips = p->trips_a5;
    g->last_elapsed = p->elapsed_s;
    return g->calls == g->stop_at ? RX_ECALLBACK : RX_OK;
}

/* A built-in-target run of K iterations on 2 threads, with a progress
 * callback when g != NULL; results copied out. */
static rx_status progress_run(int64_t K, prog_t *g, int64_t every,
                              rx_results *r, float **samples, int32_t **index,
                              char *msg, size_t cap)
{
    rx_config c;
    rx_config_default(&c);
    c.iterations = K;
    c.tempering.n_chains = 8;
    c.threads = 2;
    rx_ctx *ctx = NULL;
    rx_err err;
    rx_status st = rx_create(&ctx, &c, NULL, (rx_logger){0}, &err);
    rx_config_free(&c);
    if (st != RX_OK) {
        snprintf(msg, cap, "%s", err.msg);
        return st;
    }
    if (g) {
        g->K = K;
        g->every = every;
        st = rx_set_progress(ctx, on_progress, g, every);
    }
    if (st == RX_OK)
        st = rx_run(ctx);
    snprintf(msg, cap, "%s", st == RX_OK ? "" : rx_errmsg(ctx));
    rx_get_results(ctx, r);
    size_t ns = (size_t)r->n_samples * r->dim, ni = (size_t)r->n_index *
                                                   (size_t)r->n_chains;
    *samples = malloc(ns * sizeof(float) + 1);
    *index = malloc(ni * sizeof(int32_t) + 1);
    if (*samples && ns)
        memcpy(*samples, r->samples, ns * sizeof(float));
    if (*index && ni)
        memcpy(*index, r->index, ni * sizeof(int32_t));
    r->pairs = NULL; /* views die with the context */
    r->samples = NULL;
    r->index = NULL;
    r->index_iter = NULL;
    r->eta = r->tau = r->sigma2 = NULL;
    rx_destroy(&ctx);
    return st;
}

static void test_progress(void)
{
    /* argument checks */
    CHECK(rx_set_progress(NULL, on_progress, NULL, 1) == RX_EINVAL);
    rx_config c;
    rx_config_default(&c);
    c.iterations = 10;
    c.tempering.n_chains = 4;
    rx_ctx *ctx = NULL;
    rx_err err;
    if (rx_create(&ctx, &c, NULL, (rx_logger){0}, &err) == RX_OK) {
        CHECK(rx_set_progress(ctx, on_progress, NULL, -1) == RX_EINVAL);
        CHECK(strstr(rx_errmsg(ctx), "every") != NULL);
        /* fn NULL: none (every is then ignored) */
        CHECK(rx_set_progress(ctx, NULL, NULL, -1) == RX_OK);
        CHECK(rx_run(ctx) == RX_OK);
    } else {
        CHECK_MSG(0, "%s", err.msg);
    }
    rx_destroy(&ctx);
    rx_config_free(&c);

    /* called every 7 iterations and after the last, with increasing
     * iteration and round trips; the results are those of a run without */
    const int64_t K = 1000;
    char msg[1100];
    rx_results r0, r1;
    float *s0, *s1;
    int32_t *i0, *i1;
    rx_status st = progress_run(K, NULL, 0, &r0, &s0, &i0, msg, sizeof msg);
    CHECK_MSG(st == RX_OK, "%s", msg);
    prog_t g = {0, -1, 0, 0, 0, 0, 0, 0.0};
    st = progress_run(K, &g, 7, &r1, &s1, &i1, msg, sizeof msg);
    CHECK_MSG(st == RX_OK, "%s", msg);
    CHECK_MSG(g.calls == (int)(K / 7) + 1, "%d calls", g.calls);
    CHECK(g.bad == 0);
    CHECK(g.last_iter == K);
    CHECK(g.last_trips == r1.trips_a5);
    CHECK(r0.iterations == K && r1.iterations == K);
    CHECK(r0.trips_a5 == r1.trips_a5 && r0.trips_l1 == r1.trips_l1);
    CHECK(r0.total_swaps == r1.total_swaps);
    CHECK(r0.n_samples == r1.n_samples && r0.n_samples > 0);
    CHECK(s0 && s1 && memcmp(s0, s1, (size_t)r0.n_samples * r0.dim *
                                         sizeof(float)) == 0);
    CHECK(r0.n_index == r1.n_index && r0.n_index > 0);
    CHECK(i0 && i1 && memcmp(i0, i1, (size_t)r0.n_index *
                                         (size_t)r0.n_chains *
                                         sizeof(int32_t)) == 0);
    free(s1);
    free(i1);

    /* every = 0, paced by time: increasing iterations, the last after K,
     * the same results */
    prog_t a = {0, -1, 0, 0, 0, 0, 0, 0.0};
    st = progress_run(K, &a, 0, &r1, &s1, &i1, msg, sizeof msg);
    CHECK_MSG(st == RX_OK, "%s", msg);
    CHECK_MSG(a.calls >= 1 && a.bad == 0 && a.last_iter == K,
              "paced: %d calls, %d bad, last %lld", a.calls, a.bad,
              (long long)a.last_iter);
    CHECK(r0.trips_a5 == r1.trips_a5 && r0.total_swaps == r1.total_swaps);
    CHECK(s1 && memcmp(s0, s1, (size_t)r0.n_samples * r0.dim *
                                   sizeof(float)) == 0);
    CHECK(i1 && memcmp(i0, i1, (size_t)r0.n_index * (size_t)r0.n_chains *
                                   sizeof(int32_t)) == 0);
    free(s1);
    free(i1);

    /* a refusal stops the run cleanly after that iteration: RX_EABORTED,
     * a message naming it, no further calls */
    prog_t h = {0, 20, 0, 0, 0, 0, 0, 0.0};
    st = progress_run(K, &h, 7, &r1, &s1, &i1, msg, sizeof msg);
    CHECK(st == RX_EABORTED);
    CHECK_MSG(strstr(msg, "progress callback") != NULL &&
                  strstr(msg, "iteration 140") != NULL, "%s", msg);
    CHECK(h.calls == 20 && h.bad == 0);
    CHECK_MSG(r1.iterations == 140, "%lld", (long long)r1.iterations);
    free(s1);
    free(i1);

    /* every = 1, refusing at the very last call: still RX_EABORTED */
    prog_t l = {0, (int)K, 0, 0, 0, 0, 0, 0.0};
    st = progress_run(K, &l, 1, &r1, &s1, &i1, msg, sizeof msg);
    CHECK(st == RX_EABORTED);
    CHECK(l.calls == (int)K && l.bad == 0);
    free(s1);
    free(i1);
    free(s0);
    free(i0);
}

int main(void)
{
    rx_err err;
    user_t u = {-1, 0, 0};
    rx_callback_target cb = {.dim = 3, .energy = quad, .user = &u};

    /* a callback target samples N(1, 1) in 3-D at position 1 */
    rx_config c = base();
    rx_ctx *ctx = NULL;
    int nlog = 0;
    rx_status st = rx_create(&ctx, &c, &cb, (rx_logger){&nlog, logger}, &err);
    CHECK_MSG(st == RX_OK, "%s", err.msg);
    if (st == RX_OK) {
        CHECK(rx_run(ctx) == RX_OK);
        CHECK(nlog >= 1);
        rx_results r;
        CHECK(rx_get_results(ctx, &r) == RX_OK);
        CHECK(r.dim == 3 && r.n_samples == (20000 - 1000 - 1) / 5 + 1);
        double m = 0, v = 0;
        for (int64_t i = 0; i < r.n_samples; ++i)
            m += r.samples[i * 3];
        m /= (double)r.n_samples;
        for (int64_t i = 0; i < r.n_samples; ++i)
            v += (r.samples[i * 3] - m) * (r.samples[i * 3] - m);
        v /= (double)r.n_samples;
        /* SGLD with eta 0.05 on unit curvature: variance 1/(1 - eta/2) */
        CHECK_NEAR(m, 1.0, 0.1);
        CHECK_NEAR(v, 1.0 / (1.0 - 0.025), 0.12);
        CHECK(u.calls == 4 + 4 * 20000);
        /* running twice is refused, with a message */
        CHECK(rx_run(ctx) == RX_EINVAL);
        CHECK(strstr(rx_errmsg(ctx), "already run") != NULL);
        /* TV needs a 1-D or 2-D target */
        double tv;
        CHECK(rx_density_tv(ctx, &tv) == RX_ENOTSUP);
        double w[1];
        CHECK(rx_mode_weights(ctx, w, 1) == RX_ENOTSUP);
    }
    rx_destroy(&ctx);
    CHECK(ctx == NULL);
    rx_destroy(&ctx); /* NULL-safe */
    rx_destroy(NULL);

    /* the callback's error stops the run and names particle and iteration */
    u.calls = 0;
    u.fail_at_call = 4 + 4 * 100;
    st = rx_create(&ctx, &c, &cb, (rx_logger){0}, &err);
    CHECK(st == RX_OK);
    if (st == RX_OK) {
        st = rx_run(ctx);
        CHECK(st == RX_EABORTED);
        CHECK_MSG(strstr(rx_errmsg(ctx), "iteration 100") != NULL, "%s",
                  rx_errmsg(ctx));
        CHECK(strstr(rx_errmsg(ctx), "particle") != NULL);
    }
    rx_destroy(&ctx);

    /* a NaN energy is caught as RX_ENUMERIC */
    u.calls = 0;
    u.fail_at_call = 4 + 4 * 7;
    u.nan = 1;
    st = rx_create(&ctx, &c, &cb, (rx_logger){0}, &err);
    if (st == RX_OK) {
        st = rx_run(ctx);
        CHECK(st == RX_ENUMERIC);
        CHECK_MSG(strstr(rx_errmsg(ctx), "iteration 7") != NULL, "%s",
                  rx_errmsg(ctx));
    }
    rx_destroy(&ctx);

    /* a run that would keep no sample (burn_in >= iterations) is refused
     * by rx_config_validate and rx_create, naming record.burn_in; one
     * iteration below it keeps exactly one row */
    {
        rx_config k = base();
        k.iterations = 1000;
        rx_err e2 = {{0}};
        CHECK(rx_config_validate(&k, &e2) == RX_ECONFIG);
        CHECK_MSG(strstr(e2.msg, "record.burn_in: 1000 >= iterations "
                                 "(1000): the run would keep no sample") !=
                      NULL,
                  "%s", e2.msg);
        rx_ctx *z = NULL;
        CHECK(rx_create(&z, &k, &cb, (rx_logger){0}, &e2) == RX_ECONFIG &&
              z == NULL);
        CHECK(strstr(e2.msg, "record.burn_in") != NULL);
        k.iterations = 1001;
        user_t keep = u;
        u = (user_t){-1, 0, 0};
        st = rx_create(&z, &k, &cb, (rx_logger){0}, &e2);
        CHECK_MSG(st == RX_OK, "%s", e2.msg);
        if (st == RX_OK) {
            rx_results r;
            st = rx_run(z);
            CHECK_MSG(st == RX_OK, "%s", rx_errmsg(z));
            CHECK(st == RX_OK && rx_get_results(z, &r) == RX_OK &&
                  r.n_samples == 1);
        }
        rx_destroy(&z);
        u = keep;
    }

    /* bad arguments: clear status, no crash */
    CHECK(rx_create(NULL, &c, &cb, (rx_logger){0}, &err) == RX_EINVAL);
    CHECK(rx_create(&ctx, &c, NULL, (rx_logger){0}, &err) == RX_EINVAL);
    CHECK(strstr(err.msg, "callback") != NULL);
    CHECK(ctx == NULL);
    CHECK(rx_run(NULL) == RX_EINVAL);
    CHECK(strcmp(rx_strerror(RX_ENOMEM), "out of memory") == 0);
    CHECK(strcmp(rx_strerror((rx_status)-100), "unknown status") == 0);
    rx_config_free(&c);

    /* validation messages name the key path */
    rx_config d;
    rx_config_default(&d);
    d.tempering.n_chains = 1;
    CHECK(rx_config_validate(&d, &err) == RX_ECONFIG);
    CHECK(strncmp(err.msg, "tempering.n_chains:", 19) == 0);
    d.tempering.n_chains = 8;
    d.tempering.target_swap_rate = 1.0;
    CHECK(rx_config_validate(&d, &err) == RX_ECONFIG);
    CHECK(strncmp(err.msg, "tempering.target_swap_rate:", 27) == 0);
    d.tempering.target_swap_rate = 0.4;
    d.ladder.eta.kind = RX_LADDER_GEOMETRIC;
    d.ladder.eta.min = 0.6;
    d.ladder.eta.max = 0.003;
    CHECK(rx_config_validate(&d, &err) == RX_ECONFIG);
    CHECK(strstr(err.msg, "not ordered") != NULL);
    d.ladder.eta.min = -1;
    d.ladder.eta.kind = RX_LADDER_CONSTANT;
    CHECK(rx_config_validate(&d, &err) == RX_ECONFIG);
    CHECK(strncmp(err.msg, "ladder.eta:", 11) == 0);
    d.ladder.eta.min = 0.01;
    d.target.grad_noise_sd = -1;
    CHECK(rx_config_validate(&d, &err) == RX_ECONFIG);
    CHECK(strncmp(err.msg, "target.grad_noise_sd:", 21) == 0);
    d.target.grad_noise_sd = 0;
    CHECK(rx_config_validate(&d, &err) == RX_OK);
    CHECK(d.tempering.scheme == RX_SCHEME_DEO); /* the default: W = 1 */
    CHECK(rx_config_window(&d) == 1);
    d.tempering.scheme = RX_SCHEME_DEO_STAR;
    CHECK(rx_config_window(&d) == 6); /* W*(P 8, S 0.4) */

    /* write -> load reproduces the config exactly */
    d.ladder.tau.kind = RX_LADDER_LIST;
    d.ladder.tau.values.n = 8;
    d.ladder.tau.values.v = malloc(8 * sizeof(double));
    for (int q = 0; q < 8; ++q)
        d.ladder.tau.values.v[q] = 1.0 + 0.1 * q * q + 1e-13;
    d.seed = 18446744073709551615ull;
    d.tempering.window_correction = RX_WCORR_LOGW;
    char path[] = "/tmp/replex-test-api-XXXXXX";
    int fd = mkstemp(path);
    CHECK(fd >= 0);
    close(fd);
    CHECK(rx_config_write(&d, path, &err) == RX_OK);
    rx_config e;
    st = rx_config_load(path, NULL, 0, &e, &err);
    CHECK_MSG(st == RX_OK, "%s", err.msg);
    if (st == RX_OK) {
        CHECK(e.seed == d.seed);
        CHECK(e.ladder.tau.kind == RX_LADDER_LIST && e.ladder.tau.values.n == 8);
        CHECK(memcmp(e.ladder.tau.values.v, d.ladder.tau.values.v,
                     8 * sizeof(double)) == 0);
        CHECK(e.tempering.window_correction == RX_WCORR_LOGW);
        CHECK(e.ladder.eta.min == d.ladder.eta.min);
        rx_config f;
        CHECK(rx_config_copy(&f, &e) == RX_OK);
        CHECK(f.ladder.tau.values.v != e.ladder.tau.values.v);
        CHECK(f.ladder.tau.values.v[7] == e.ladder.tau.values.v[7]);
        rx_config_free(&f);
        rx_config_free(&e);
    }
    /* strings read back as the same bytes: quotes, backslashes, control
     * characters and YAML's other line breaks (NEL, LS, PS) escaped (a CR
     * was written raw and read back folded; found by fuzz/fuzz_config.c) */
    {
        static const char odd[] = "a\rb\r\r\nc\td\"e\\f\x01g\x7f"
                                  "h\xc2\x85i\xe2\x80\xa8j\xe2\x80\xa9k \xc3\xa9";
        FILE *f = fopen(path, "w");
        CHECK(f != NULL);
        if (f) {
            fputs("target: {kind: network}\n"
                  "model: {layers: [{dense: 1}]}\n"
                  "data: {format: idx, task: classification, labels_path: "
                  "\"\\r\", path: \"a\\rb\\r\\r\\nc\\td\\\"e\\\\f\\x01g"
                  "\\x7fh\\Ni\\Lj\\Pk \\u00e9\"}\n", f);
            fclose(f);
        }
        rx_config g;
        st = rx_config_load(path, NULL, 0, &g, &err);
        CHECK_MSG(st == RX_OK, "%s", err.msg);
        if (st == RX_OK) {
            CHECK_MSG(strcmp(g.data.path, odd) == 0, "loaded as '%s'",
                      g.data.path);
            CHECK(rx_config_write(&g, path, &err) == RX_OK);
            rx_config_free(&g);
            st = rx_config_load(path, NULL, 0, &g, &err);
            CHECK_MSG(st == RX_OK, "%s", err.msg);
        }
        if (st == RX_OK) {
            CHECK_MSG(strcmp(g.data.path, odd) == 0, "read back as '%s'",
                      g.data.path);
            CHECK(strcmp(g.data.labels_path, "\r") == 0);
            rx_config_free(&g);
        }
    }
    remove(path);
    rx_config_free(&d);
    CHECK(d.ladder.tau.values.v == NULL && d.tempering.n_chains == 16);

    test_progress();
    return check_done();
}
