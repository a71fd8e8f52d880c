/*
 * The C API as an embedding code sees it: a user callback target, an error
 * returned by the callback, non-finite energies, bad arguments, config
 * copy/validate/write/load round trip, and the messages they produce.
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

int main(void)
{
    rx_err err;
    user_t u = {-1, 0, 0};
    rx_callback_target cb = {3, quad, &u};

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
    CHECK(rx_config_window(&d) == 6); /* deo_star default, P 8, S 0.4 */

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
    remove(path);
    rx_config_free(&d);
    CHECK(d.ladder.tau.values.v == NULL && d.tempering.n_chains == 16);
    return check_done();
}
