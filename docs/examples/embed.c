/*
 * Embedding replex in a C code: the host supplies its own energy and
 * gradient, runs DEO* parallel tempering through the public API and reads
 * the results. Build against an installed replex with
 *   cc embed.c $(pkg-config --cflags --libs replex) -o embed
 * (meson builds and runs it as the test `example_embed`).
 *
 * The target is a 2-D double well, U(x) = (x0^2 - 4)^2 / 4 + x1^2 / 2,
 * whose two modes at x0 = +-2 a single chain at tau = 1 rarely joins.
 */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include <replex/replex.h>

typedef struct {
    double depth; /* scales the barrier */
    long fail_after; /* < 0: never; else return an error after so many calls */
    long calls;
} well;

/* Called concurrently from several threads: only reads *user, except the
 * call counter, updated atomically. */
static rx_status energy(void *user, const double *x, size_t d, double *e,
                        double *grad)
{
    well *w = user;
    long n = __atomic_fetch_add(&w->calls, 1, __ATOMIC_RELAXED);
    if (w->fail_after >= 0 && n >= w->fail_after)
        return RX_EABORTED; /* stops the run cleanly */
    (void)d;
    double a = x[0] * x[0] - 4.0;
    *e = w->depth * a * a / 4.0 + 0.5 * x[1] * x[1];
    if (grad) {
        grad[0] = w->depth * a * x[0];
        grad[1] = x[1];
    }
    return RX_OK;
}

static int run(well *w, int quiet)
{
    rx_config cfg;
    rx_config_default(&cfg);
    cfg.target.kind = RX_TARGET_CALLBACK;
    cfg.iterations = 40000;
    cfg.tempering.n_chains = 8;
    /* the sampler's keys by name, as in a YAML file (any key of `replex
     * keys`; the same checks and messages; a rule's own keys exist only
     * this way) */
    static const char *const keys[][2] = {
        {"tempering.scheme", "deo_star"}, /* W = W*(8, 0.4) */
        /* exact energies: offset the gate's bias (docs/reproduction.md 2) */
        {"tempering.window_correction", "logW"},
        {"ladder.eta", "0.01"},
        {"ladder.tau", "{min: 1, max: 20}"},
    };
    rx_err err;
    for (size_t i = 0; i < sizeof keys / sizeof keys[0]; ++i)
        if (rx_config_set(&cfg, keys[i][0], keys[i][1], &err) != RX_OK) {
            fprintf(stderr, "embed: %s\n", err.msg);
            rx_config_free(&cfg);
            return 1;
        }
    cfg.record.burn_in = 1000;
    cfg.record.thin = 10;
    rx_callback_target cb = {.dim = 2, .energy = energy, .user = w};
    rx_ctx *ctx = NULL;
    if (rx_create(&ctx, &cfg, &cb, (rx_logger){0}, &err) != RX_OK) {
        fprintf(stderr, "embed: %s\n", err.msg);
        rx_config_free(&cfg);
        return 1;
    }
    rx_status st = rx_run(ctx);
    int rc = 0;
    if (st != RX_OK) {
        if (!quiet)
            fprintf(stderr, "embed: run stopped: %s (%s)\n", rx_errmsg(ctx),
                    rx_strerror(st));
        rc = st == RX_EABORTED ? 3 : 1;
    } else {
        rx_results r;
        rx_get_results(ctx, &r);
        long right = 0;
        for (int64_t i = 0; i < r.n_samples; ++i)
            right += r.samples[i * 2] > 0;
        double frac = (double)right / (double)r.n_samples;
        printf("%lld samples, right-well fraction %.3f (symmetric: 0.5), "
               "%lld round trips, W = %d, %d threads\n",
               (long long)r.n_samples, frac, (long long)r.trips_a5, r.window,
               r.threads);
        if (fabs(frac - 0.5) > 0.06)
            rc = 2;
    }
    rx_destroy(&ctx);
    rx_config_free(&cfg);
    return rc;
}

int main(void)
{
    well w = {4.0, -1, 0};
    int rc = run(&w, 0);
    if (rc != 0)
        return rc;
    /* a callback error stops the run with RX_EABORTED and a message */
    well bad = {4.0, 5000, 0};
    if (run(&bad, 0) != 3) {
        fprintf(stderr, "embed: the callback's error did not stop the run\n");
        return 1;
    }
    printf("1 passed, 0 failed\n");
    return 0;
}
