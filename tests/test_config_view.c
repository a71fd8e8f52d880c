/*
 * How a configuration is shown: numbers in their shortest exact form
 * (rx__num) and the rules of which keys apply (rx__key_applies), as
 * `replex validate` prints them.
 */
#include <float.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "../src/config/applies.h"
#include "../src/config/config.h"
#include "../src/core/num.h"
#include "check.h"

/* significant digits of a %g form: no sign, exponent, point, leading
 * zeros, nor the trailing zeros of an integer */
static int sigdigits(const char *s)
{
    char d[64];
    int n = 0;
    for (; *s && *s != 'e'; ++s)
        if (*s >= '0' && *s <= '9' && (n > 0 || *s != '0'))
            d[n++] = *s;
    while (n > 1 && d[n - 1] == '0')
        --n;
    return n;
}

/* the shortest form: exact; as few significant digits as the shortest
 * "%.{p}g" that reads back; no exponent from 1e-4 to 1e16 */
static void shortest(double v)
{
    char b[RX_NUM_CHARS], t[64];
    rx__num(b, sizeof b, v);
    CHECK_MSG(strtod(b, NULL) == v, "%s does not read back as %.17g", b, v);
    int q = 1;
    for (; q <= 17; ++q) {
        snprintf(t, sizeof t, "%.*g", q, v);
        if (strtod(t, NULL) == v)
            break;
    }
    CHECK_MSG(sigdigits(b) == sigdigits(t), "%.17g: got %s, shortest is %s",
              v, b, t);
    if (fabs(v) >= 1e-4 && fabs(v) < 1e16)
        CHECK_MSG(!strchr(b, 'e'), "%.17g: %s has an exponent", v, b);
}

static void numbers(void)
{
    CHECK(!strcmp(RX_NUM(0.003), "0.003"));
    CHECK(!strcmp(RX_NUM(0.1), "0.1"));
    CHECK(!strcmp(RX_NUM(1e-05), "1e-05"));
    CHECK(!strcmp(RX_NUM(0.05), "0.05"));
    CHECK(!strcmp(RX_NUM(30), "30"));
    CHECK(!strcmp(RX_NUM(100000), "100000"));
    CHECK(!strcmp(RX_NUM(1e15), "1000000000000000"));
    CHECK(!strcmp(RX_NUM(1e16), "1e+16"));
    CHECK(!strcmp(RX_NUM(0.0001), "0.0001"));
    CHECK(!strcmp(RX_NUM(2.5e-5), "2.5e-05"));
    CHECK(!strcmp(RX_NUM(-5), "-5"));
    CHECK(!strcmp(RX_NUM(1.0 / 3.0), "0.3333333333333333"));
    CHECK(!strcmp(RX_NUM(0.1 + 0.2), "0.30000000000000004"));
    CHECK(!strcmp(RX_NUM(1e300), "1e+300"));
    CHECK(!strcmp(RX_NUM(-0.0), "-0"));
    CHECK(!strcmp(RX_NUM(NAN), "nan"));
    CHECK(!strcmp(RX_NUM(-INFINITY), "-inf"));
    CHECK(!strcmp(RX_NUM(DBL_MAX), "1.7976931348623157e+308"));
    CHECK(!strcmp(RX_NUM(5e-324), "5e-324")); /* the least denormal */
    /* every form reads back; a fixed generator over all exponents */
    uint64_t x = 0x9e3779b97f4a7c15ULL;
    for (int i = 0; i < 20000; ++i) {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        double v;
        memcpy(&v, &x, sizeof v);
        if (isfinite(v))
            shortest(v);
        shortest((double)(x % 100000) / 1000.0); /* short decimals */
        shortest((double)(x % 1000) * pow(10.0, (double)(i % 40 - 20)));
    }
}

static int applies(const rx_config *c, const char *path)
{
    int i = rx__key_index(path);
    CHECK_MSG(i >= 0, "%s is not a key", path);
    return rx__key_applies(c, i);
}

static void rules(void)
{
    /* every rule names a key (the schema's or a row's) or a section */
    for (int r = 0; rx__applies_rule(r); ++r) {
        const char *q = rx__applies_rule(r);
        size_t n = strlen(q);
        int found = 0;
        for (int i = 0; i < rx__key_count() && !found; ++i) {
            const char *kp = rx__key_at(i)->path;
            found = q[n - 1] == '.' ? !strncmp(kp, q, n) : !strcmp(kp, q);
        }
        CHECK_MSG(found, "rule %s names no key", q);
    }
    rx_config c;
    rx_config_default(&c); /* mixture25, deo, metropolis, sgld, no bias */
    CHECK(applies(&c, "seed") && applies(&c, "ladder.eta"));
    CHECK(applies(&c, "target.confine_radius2"));
    CHECK(!applies(&c, "target.means") && !applies(&c, "target.phi"));
    CHECK(!applies(&c, "data.path") && !applies(&c, "data.split"));
    CHECK(!applies(&c, "model.layers") && !applies(&c, "evaluate.batch"));
    CHECK(applies(&c, "bias.kind") && !applies(&c, "bias.bins"));
    CHECK(!applies(&c, "bias.sa.a"));
    CHECK(!applies(&c, "step.sgnht_c") && !applies(&c, "step.momentum"));
    CHECK(!applies(&c, "tempering.window") &&
          !applies(&c, "tempering.accept_prob"));
    CHECK(!applies(&c, "correction.init") && !applies(&c, "stepsize.a"));
    CHECK(applies(&c, "record.grid_bins") && applies(&c, "init.low"));
    CHECK(!applies(&c, "faults.inject_particle"));
    CHECK(!rx__key_applies(&c, -1) && !rx__key_applies(&c, rx__nkeys));

    c.bias.kind = RX_BIAS_CSGLD;
    c.step.others = RX_STEP_SGNHT;
    c.tempering.rule = RX_RULE_DETERMINISTIC;
    c.tempering.scheme = RX_SCHEME_DEO_STAR;
    CHECK(applies(&c, "bias.bins") && applies(&c, "bias.sa.cap"));
    CHECK(applies(&c, "step.sgnht_mu") && applies(&c, "step.state_on_swap"));
    CHECK(applies(&c, "correction.step_scale") && applies(&c, "stepsize.b"));
    CHECK(applies(&c, "tempering.target_swap_rate"));
    CHECK(!applies(&c, "tempering.window_correction")); /* deterministic */

    c.tempering.scheme = RX_SCHEME_NONE; /* no swaps: no swap keys */
    CHECK(!applies(&c, "tempering.rule") && !applies(&c, "correction.init"));
    CHECK(!applies(&c, "step.state_on_swap"));

    rx_config_default(&c);
    c.target.kind = RX_TARGET_NETWORK;
    c.data.format = RX_DATA_IDX;
    CHECK(applies(&c, "data.path") && applies(&c, "data.labels_path"));
    CHECK(applies(&c, "data.pixel_sd") && applies(&c, "data.classes"));
    CHECK(applies(&c, "data.label_noise")); /* a row's key, by its rule */
    CHECK(!applies(&c, "data.header") && !applies(&c, "data.synthetic_n"));
    CHECK(applies(&c, "model.weight_decay") && !applies(&c, "model.noise_var"));
    CHECK(!applies(&c, "init.low") && !applies(&c, "target.confine_radius2"));
    CHECK(!applies(&c, "record.grid_bins"));
    CHECK(applies(&c, "variance_reduction.enabled") &&
          !applies(&c, "variance_reduction.period"));
    c.data.format = RX_DATA_CSV; /* regression by default */
    CHECK(applies(&c, "data.header") && applies(&c, "model.noise_var"));
    CHECK(!applies(&c, "data.classes") && !applies(&c, "data.pixel_sd"));
    CHECK(!applies(&c, "data.label_noise"));
    CHECK(!applies(&c, "model.precision_a"));
    c.model.learn_precision = 1;
    CHECK(applies(&c, "model.precision_a"));
    rx_config_free(&c);
}

int main(void)
{
    numbers();
    rules();
    return check_done();
}
