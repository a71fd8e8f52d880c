/*
 * Barker's logistic exchange test (renhd.md 4.1) through the engine: on
 * the two-mode mixture of the README (weights 0.3 / 0.7, a barrier one
 * chain at temperature 1 never crosses) the target chain's mode weights
 * come out within 0.03 of the truth (seed-to-seed sd about 0.007 over
 * seeds 1-6, as Metropolis's); every pair accepts less often than under
 * Metropolis on the same run (g(x) <= min(1, e^x)); the same bits on 1
 * and 3 threads; the window warning of an exact rule without a window
 * correction names it; the reference path accepts it (detailed balance).
 */
#define _POSIX_C_SOURCE 200809L
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../src/config/config.h"
#include "check.h"
#include "run_util.h"

static const char *sets_common[] = {
    "iterations=100000",
    "target.kind=gmm",
    "target.weights=[0.3, 0.7]",
    "target.means=[[-5], [5]]",
    "target.scales=[[0.7], [0.7]]",
    "tempering.n_chains=8",
    "tempering.scheme=deo",
    "ladder.eta=0.05",
    "ladder.tau={min: 1, max: 60}",
    "record.burn_in=1000",
    "record.thin=10",
};

static rx_ctx *run(const char *rule, int threads, rx_config *out)
{
    rx_config c;
    rx_err err = {{0}};
    rx_config_default(&c);
    set_list_checked(&c, sets_common, NSETS(sets_common));
    CHECK(rx_config_set(&c, "tempering.rule", rule, &err) == RX_OK);
    c.threads = threads;
    rx_ctx *ctx = create_run(&c, NULL, NULL, NULL, 0);
    if (out)
        *out = c;
    else
        rx_config_free(&c);
    return ctx;
}

static char warned[1024];
static void on_log(void *user, int level, const char *msg)
{
    (void)user;
    if (level == RX_LOG_WARN && strstr(msg, "window W"))
        snprintf(warned, sizeof warned, "%s", msg);
}

int main(void)
{
    rx_config cfg;
    rx_ctx *b = run("barker", 1, &cfg), *m = run("metropolis", 1, NULL);
    rx_ctx *b3 = run("barker", 3, NULL);
    if (!b || !m || !b3)
        return check_done();
    double w[2];
    CHECK(rx_mode_weights(b, w, 2) == RX_OK);
    CHECK_MSG(fabs(w[0] - 0.3) < 0.03 && fabs(w[1] - 0.7) < 0.03,
              "barker mode weights %.4f %.4f, want 0.3 0.7", w[0], w[1]);
    rx_results rb, rm, r3;
    rx_get_results(b, &rb);
    rx_get_results(m, &rm);
    rx_get_results(b3, &r3);
    for (int p = 0; p < rb.n_chains - 1; ++p) {
        const double ab = rb.pairs[p].accept_sum / (double)rb.pairs[p].evaluated;
        const double am = rm.pairs[p].accept_sum / (double)rm.pairs[p].evaluated;
        CHECK_MSG(ab < am && ab > 0.0, "pair %d: barker %.4f, metropolis "
                  "%.4f", p + 1, ab, am);
    }
    CHECK(rb.n_samples > 0 && same_samples(&rb, &r3) &&
          rb.total_swaps == r3.total_swaps);
    /* a window gate without a correction: warned about, by name */
    rx_err err = {{0}};
    CHECK(rx_config_set(&cfg, "tempering.scheme", "deo_w", &err) == RX_OK &&
          rx_config_set(&cfg, "tempering.window", "4", &err) == RX_OK);
    rx__config_warnings(&cfg, NULL, (rx_logger){NULL, on_log});
    CHECK_MSG(strstr(warned, "BIASED") && strstr(warned, "barker"),
              "window warning: '%s'", warned);
    /* the reference path's stepping stone: an exact rule */
    CHECK(rx_config_set(&cfg, "tempering.scheme", "deo", &err) == RX_OK &&
          rx_config_set(&cfg, "tempering.window", "auto", &err) == RX_OK &&
          rx_config_set(&cfg, "ladder.path", "reference", &err) == RX_OK);
    CHECK_MSG(rx_config_validate(&cfg, &err) == RX_OK, "%s", err.msg);
    rx_config_free(&cfg);
    rx_destroy(&b);
    rx_destroy(&m);
    rx_destroy(&b3);
    return check_done();
}
