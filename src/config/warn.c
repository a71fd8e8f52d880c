/*
 * Warnings of a valid configuration: combinations known to be biased, and
 * silent mistakes. Each is logged once, at RX_LOG_WARN, located at the key
 * the user set (docs/yaml.md "Warnings").
 */
#include <math.h>
#include <stdarg.h>
#include <stdio.h>

#include "../core/num.h"
#include "config.h"

/* One warning: "WHERE: what", WHERE the location of key `path`. */
static void warn(rx_logger log, const rx__marks *mk, const char *path,
                 const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 4, 5)))
#endif
    ;
static void warn(rx_logger log, const rx__marks *mk, const char *path,
                 const char *fmt, ...)
{
    char msg[1024];
    rx__key_where(mk, path, msg, sizeof msg);
    size_t l = 0;
    while (msg[l])
        ++l;
    if (l + 2 < sizeof msg) {
        msg[l++] = ':';
        msg[l++] = ' ';
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(msg + l, sizeof msg - l, fmt, ap);
        va_end(ap);
    }
    log.fn(log.user, RX_LOG_WARN, msg);
}

/* The user set this key (in the file or with --set). */
static int given(const rx__marks *mk, const char *path)
{
    int i = rx__key_index(path);
    return mk && i >= 0 && mk->src[i];
}

/* The key of a combination to point at: the first one the user set. */
static const char *pick(const rx__marks *mk, const char *a, const char *b,
                        const char *c)
{
    if (given(mk, a) || (!given(mk, b) && (!c || !given(mk, c))))
        return a;
    return given(mk, b) || !c ? b : c;
}

/* The swap energies are minibatch (or injected-noise) estimates. */
static int noisy_energies(const rx_config *c)
{
    if (c->target.energy_noise_sd > 0.0)
        return 1;
    if (c->target.kind == RX_TARGET_NETWORK)
        return 1; /* minibatches; VR reduces the noise, does not remove it */
    return c->target.kind == RX_TARGET_MIXTURE_DATA &&
           (int64_t)c->data.batch_size < c->target.n_data;
}

/* The largest temperature (or learning rate) of the ladder. */
static double top_tau(const rx_ladder_spec *L)
{
    if (L->kind == RX_LADDER_LIST && L->values.n > 0)
        return L->values.v[L->values.n - 1];
    return L->kind == RX_LADDER_CONSTANT ? L->min : L->max;
}

/* Combinations known to give a biased target chain. */
static int biased(const rx_config *c, const rx__marks *mk, rx_logger log)
{
    int n = 0;
    const int metro = c->tempering.rule == RX_RULE_METROPOLIS;
    const int W = rx_config_window(c);
    if (metro && W > 1 && c->tempering.window_correction == 0.0 &&
        c->tempering.n_chains > 1) {
        warn(log, mk, pick(mk, "tempering.scheme", "tempering.rule", NULL),
             "BIASED: a swap window W = %d (scheme %s) with Metropolis "
             "swaps and no window correction: at most one swap "
             "per pair per window biases the target chain (Deng et al. 2023, "
             "\"How to alleviate the bias\"); use "
             "scheme deo, or set tempering.window_correction (logW), or the "
             "deterministic rule on noisy energies where the papers use "
             "DEO*",
             W, rx__scheme_name(c->tempering.scheme));
        ++n;
    }
    if (metro && noisy_energies(c) && c->tempering.n_chains > 1 &&
        c->tempering.scheme != RX_SCHEME_NONE) {
        const char *why = c->target.energy_noise_sd > 0.0
                              ? "target.energy_noise_sd > 0"
                              : "minibatch energies";
        warn(log, mk,
             pick(mk, "tempering.rule",
                  c->target.energy_noise_sd > 0.0 ? "target.energy_noise_sd"
                                                  : "target.kind",
                  NULL),
             "BIASED: the metropolis rule on noisy energies (%s): the noise "
             "in the energy difference inflates the swaps (Deng 2021, Sec. "
             "2.3.1); use "
             "rule bias_corrected (with tempering.sigma2) or deterministic",
             why);
        ++n;
    }
    const int mom = c->step.target == RX_STEP_SGHMC ||
                    c->step.target == RX_STEP_MSGD ||
                    c->step.others == RX_STEP_SGHMC ||
                    c->step.others == RX_STEP_MSGD;
    if (mom && c->step.state_on_swap == RX_STATE_RESET &&
        c->tempering.scheme != RX_SCHEME_NONE) {
        warn(log, mk, "step.state_on_swap",
             "BIASED: reset zeroes the momentum of a particle that changes "
             "position, which narrows SGHMC's samples (on the Gaussian of "
             "tests/test_steps.c: sd 36 %% too small, variance 60 %%); use "
             "follow (the default)");
        ++n;
    }
    return n;
}

/* SGNHT's thermostat fluctuates with sd about sqrt(eta mu tau / d)
 * (replex's analysis of the integrator of Luo et al. 2019, Eq. 13;
 * tests/test_sgnht.c); unless its level s* is well above that, s often goes
 * negative and the samples come out wrong. s* (2 - s*) = (2 c + eta V) /
 * tau, V the injected gradient noise's variance (target.grad_noise_sd^2;
 * with V = 0, s* is about c / tau: keep c / tau >= 3 sd). Checked at
 * the hottest SGNHT position, on the targets whose dimension d is known
 * before the run. */
static int sgnht_noisy(const rx_config *c, const rx__marks *mk,
                       rx_logger log)
{
    const int at0 = c->step.target == RX_STEP_SGNHT;
    const int others = c->step.others == RX_STEP_SGNHT &&
                       c->tempering.n_chains > 1;
    const double d = c->target.kind == RX_TARGET_MIXTURE25 ? 2.0
                     : c->target.kind == RX_TARGET_MIXTURE_DATA ? 1.0
                     : c->target.kind == RX_TARGET_GMM
                         ? (double)c->target.means.cols
                         : 0.0;
    if ((!at0 && !others) || !(d > 0.0) || !(c->step.sgnht_mu > 0.0))
        return 0;
    const double tau = c->ladder.path == RX_PATH_REFERENCE ? 1.0
                       : others ? top_tau(&c->ladder.tau)
                                : c->ladder.tau.min;
    const double eta = others ? top_tau(&c->ladder.eta) : c->ladder.eta.min;
    const double V = c->target.grad_noise_sd * c->target.grad_noise_sd;
    const double k = (2.0 * c->step.sgnht_c + eta * V) / tau;
    const double s_star = k < 1.0 ? 1.0 - sqrt(1.0 - k) : 1.0;
    const double sd = sqrt(eta * c->step.sgnht_mu * tau / d);
    if (s_star >= 3.0 * sd)
        return 0;
    warn(log, mk, pick(mk, "step.sgnht_mu", "step.sgnht_c", NULL),
         "the SGNHT thermostat's noise (sd about sqrt(eta mu tau / d) = "
         "%.3g at tau %.4g, eta %.4g, d %.0f) is not small against its "
         "level s* = %.3g: s often goes negative and the samples come out "
         "wrong (at d = 50 the energy variance came out 24 %% too high); "
         "keep s* >= "
         "3 sd: lower sgnht_mu or raise sgnht_c",
         sd, tau, eta, d, s_star);
    return 1;
}

/* The reference path's log Z needs RX_LOG_Z_MIN_ROWS kept rows per
 * position for its batch-means standard error (rx_log_z.valid). */
static int logz_rows(const rx_config *c, const rx__marks *mk, rx_logger log)
{
    if (c->ladder.path != RX_PATH_REFERENCE || c->record.thin < 1)
        return 0;
    const int64_t K = c->iterations, b = c->record.burn_in;
    const int64_t n = K > b ? (K - 1 - b) / c->record.thin + 1 : 0;
    if (n >= RX_LOG_Z_MIN_ROWS)
        return 0;
    warn(log, mk, pick(mk, "record.thin", "record.burn_in", "iterations"),
         "%lld kept rows per position (iterations %lld, burn_in %lld, thin "
         "%lld): the log Z standard error needs at least %d, so the run "
         "will report log Z as not valid",
         (long long)n, (long long)K, (long long)b,
         (long long)c->record.thin, RX_LOG_Z_MIN_ROWS);
    return 1;
}

int rx__config_warnings(const rx_config *c, const rx__marks *mk,
                        rx_logger log)
{
    if (!c || !log.fn)
        return 0;
    int n = biased(c, mk, log);
    n += sgnht_noisy(c, mk, log);
    if (c->record.burn_in >= c->iterations) {
        warn(log, mk, "record.burn_in",
             "%lld >= iterations (%lld): no sample will be kept",
             (long long)c->record.burn_in, (long long)c->iterations);
        ++n;
    }
    n += logz_rows(c, mk, log);
    const double top = top_tau(&c->ladder.tau);
    if (top < 1.0 && c->ladder.path != RX_PATH_REFERENCE) {
        warn(log, mk, "ladder.tau",
             "the top temperature %s is below 1: every chain is colder "
             "than the target, none explores more freely",
             RX_NUM(top));
        ++n;
    }
    return n;
}
