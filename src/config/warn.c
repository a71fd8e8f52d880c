/*
 * Warnings of a valid configuration: combinations known to be biased, and
 * silent mistakes. Each is logged once, at RX_LOG_WARN, located at the key
 * the user set (docs/yaml.md "Warnings").
 */
#include <math.h>
#include <stdarg.h>
#include <stdio.h>

#include "../bias/bias.h"
#include "../core/num.h"
#include "../exchange/xtest.h"
#include "../step/step.h"
#include "../target/optfun.h"
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
    const unsigned xp = rx__xtest_row(c->tempering.rule)->row.props;
    const char *rule = rx__rule_name(c->tempering.rule);
    /* an exact rule that does not correct for the energies' noise */
    const int metro =
        (xp & RX__XT_EXACT) && !(xp & (RX__XT_SIGMA2 | RX__XT_NOISE));
    /* and subtracts a window correction: biased under a gate without one
     * (a rule that corrects for the noise itself, noise_aware, is Barker's
     * test on the exact energies: the gate biases it the same) */
    const int wcorr = (xp & RX__XT_EXACT) && !(xp & RX__XT_SIGMA2) &&
                      (xp & RX__XT_WCORR);
    const int W = rx_config_window(c);
    if (wcorr && W > 1 && c->tempering.window_correction == 0.0 &&
        c->tempering.n_chains > 1) {
        warn(log, mk, pick(mk, "tempering.scheme", "tempering.rule", NULL),
             "BIASED: a swap window W = %d (scheme %s) with %s "
             "swaps and no window correction: at most one swap "
             "per pair per window biases the target chain (Deng et al. 2023, "
             "\"How to alleviate the bias\"); use "
             "scheme deo, or set tempering.window_correction (logW), or the "
             "deterministic rule on noisy energies where the papers use "
             "DEO*",
             W, rx__scheme_name(c->tempering.scheme), rule);
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
             "BIASED: the %s rule on noisy energies (%s): the noise "
             "in the energy difference inflates the swaps (Deng 2021, Sec. "
             "2.3.1); use "
             "rule bias_corrected (with tempering.sigma2) or deterministic",
             rule, why);
        ++n;
    }
    int mom = 0; /* a rule in use keeps a velocity */
    for (int r = 0; r < rx__step_count(); ++r)
        mom |= (rx__step_types[r]->row.props & RX__STEP_MOMENTUM) &&
               rx__row_in_use(c, &rx__step_table, r);
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

/* The warnings the rows in use give about the run (their warn hooks). */
static int row_warnings(const rx_config *c, const rx__marks *mk,
                        rx_logger log)
{
    int n = 0;
    for (int t = 0; rx__tables[t]; ++t) {
        const rx__table *T = rx__tables[t];
        for (int r = 0; r < T->count(); ++r) {
            const rx__rowdecl *d = T->at(r);
            if (!d->warn || !rx__row_in_use(c, T, r))
                continue;
            rx__rowrun run;
            rx__rowvals own;
            rx__slot tmp[RX__ROW_MAX_KEYS];
            rx__row_run(c, T, r, 0, &run);
            rx__row_values(c, T, r, &own, tmp);
            const char *key = NULL;
            char msg[900];
            if (d->warn(&run, &own, &key, msg, sizeof msg)) {
                warn(log, mk, key ? key : T->select[0], "%s", msg);
                ++n;
            }
        }
    }
    return n;
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

/* The reference path's betas closer than this between neighbours: the
 * stepping-stone term between them is this fraction of the
 * log-likelihood, nothing for any data set of fewer than 10^5 points. */
#define RX__BETA_GAP_MIN 1e-12

/* Neighbouring betas (listed, or of ladder.beta_exponent) so close that
 * their chains sample the same distribution to double precision. */
static int close_betas(const rx_config *c, const rx__marks *mk,
                       rx_logger log)
{
    const int P = c->tempering.n_chains;
    if (c->ladder.path != RX_PATH_REFERENCE)
        return 0;
    int first = -1, last = -1, n = 0;
    double least = INFINITY;
    for (int q = 1; q < P; ++q) {
        const double gap =
            rx__config_ref_beta(c, q - 1) - rx__config_ref_beta(c, q);
        if (!(gap < RX__BETA_GAP_MIN))
            continue;
        first = first < 0 ? q - 1 : first;
        last = q;
        least = gap < least ? gap : least;
        ++n;
    }
    if (n == 0)
        return 0;
    const int listed = c->ladder.betas.n == P;
    const int low = rx__config_ref_beta(c, first) < 0.5;
    warn(log, mk, listed ? "ladder.betas" : "ladder.beta_exponent",
         "%d neighbouring pair%s of positions between %d and %d differ%s "
         "in beta by less than %g (the least by %s): the stepping-stone "
         "term of such a pair is about that difference times the "
         "log-likelihood, nothing in double precision, so their chains add "
         "nothing to log Z; %s",
         n, n > 1 ? "s" : "", first + 1, last + 1, n > 1 ? "" : "s",
         RX__BETA_GAP_MIN,
         RX_NUM(least),
         listed ? "spread the listed betas"
         : low  ? "a smaller exponent spreads them near the reference (3 "
                  "is the default)"
                : "a larger exponent spreads them near the target (3 is "
                  "the default)");
    return 1;
}

/* Many bins under a bias whose update touches every bin: what they cost
 * (validation refuses above RX__BIAS_WORK_MAX). */
static int bias_cost(const rx_config *c, const rx__marks *mk, rx_logger log)
{
    const double work = rx__bias_bin_work(c);
    if (c->bias.bins < RX__BIAS_BINS_MANY || !(work >= RX__BIAS_WORK_WARN))
        return 0;
    const double s = work * 1e-9;
    char t[48];
    if (s < 3600.0)
        snprintf(t, sizeof t, "%.0f s", s);
    else
        snprintf(t, sizeof t, "%.1f h", s / 3600.0);
    warn(log, mk, "bias.bins",
         "%d bins: every update of bias.kind %s touches every bin, %.3g "
         "bins an iteration and %.3g in all: about %s at a nanosecond a "
         "bin, on top of the sampling; the energy histogram needs only "
         "bins its chains can fill (the default is 100)",
         c->bias.bins, rx__bias_kind_name(c->bias.kind),
         work / (double)c->iterations, work, t);
    return 1;
}

int rx__config_warnings(const rx_config *c, const rx__marks *mk,
                        rx_logger log)
{
    if (!c || !log.fn)
        return 0;
    int n = biased(c, mk, log);
    n += row_warnings(c, mk, log);
    n += logz_rows(c, mk, log);
    n += close_betas(c, mk, log);
    n += bias_cost(c, mk, log);
    const double top = top_tau(&c->ladder.tau);
    /* a test function is minimised, not sampled at tau 1: its Table 7.1
     * temperatures are the energy's scale (ackley 0.05, sphere 1e-4); a
     * bias row explores by flattening the energy, not by hotter chains,
     * and the contour family runs below tau 1 on purpose (Deng 2021,
     * Sec. 6.4: tau 0.1), its weights saying what it samples */
    if (top < 1.0 && c->ladder.path != RX_PATH_REFERENCE &&
        rx__optfun_index((int)c->target.kind) < 0 &&
        !rx__bias_find(c->bias.kind)) {
        warn(log, mk, "ladder.tau",
             "the top temperature %s is below 1: every chain is colder "
             "than the target, none explores more freely",
             RX_NUM(top));
        ++n;
    }
    return n;
}
