/*
 * When a key applies (src/config/applies.h). One rule per key path or
 * section: the rule of a key's exact path wins, else the rule of its
 * longest section ("data."), else the key always applies. A new key is
 * shown until a rule here says otherwise; tests/test_config_view.c checks
 * that every rule names a key or a section of the schema.
 */
#include "../exchange/xtest.h"
#include "../step/step.h"
#include "../target/optfun.h"
#include "applies.h"

#include <string.h>

#include "config.h"

typedef int (*when_fn)(const rx_config *c);

/* ---- the target --------------------------------------------------------*/

static int net(const rx_config *c)
{
    return c->target.kind == RX_TARGET_NETWORK;
}
static int gmm(const rx_config *c) { return c->target.kind == RX_TARGET_GMM; }
static int m25(const rx_config *c)
{
    return c->target.kind == RX_TARGET_MIXTURE25;
}
static int mixd(const rx_config *c)
{
    return c->target.kind == RX_TARGET_MIXTURE_DATA;
}
/* a test function of optimisation (rastrigin ... ackley) */
static int optfun(const rx_config *c)
{
    return rx__optfun_index((int)c->target.kind) >= 0;
}
/* the data-model targets: minibatches, splits, per-example losses */
static int net_or_mixd(const rx_config *c) { return net(c) || mixd(c); }
/* a target with energies (not `none`) */
static int energies(const rx_config *c)
{
    return c->target.kind != RX_TARGET_NONE;
}
/* initial points from init.low/high (a network draws its own weights) */
static int box_init(const rx_config *c) { return energies(c) && !net(c); }
/* the density comparison on a grid: 1-D and 2-D targets */
static int density(const rx_config *c)
{
    return m25(c) || mixd(c) ||
           (gmm(c) && c->target.means.cols >= 1 && c->target.means.cols <= 2);
}

/* ---- data and model (network) ------------------------------------------*/

static int fmt(const rx_config *c, rx_data_format f)
{
    return net(c) && c->data.format == f;
}
static int data_file(const rx_config *c)
{
    return net(c) && c->data.format != RX_DATA_SYNTHETIC;
}
static int idx(const rx_config *c) { return fmt(c, RX_DATA_IDX); }
static int csv(const rx_config *c) { return fmt(c, RX_DATA_CSV); }
static int synth(const rx_config *c) { return fmt(c, RX_DATA_SYNTHETIC); }
static int images(const rx_config *c)
{
    return idx(c) || fmt(c, RX_DATA_MNIST_JSON);
}
static int tabular(const rx_config *c) { return csv(c) || synth(c); }
static int random_split(const rx_config *c)
{
    return net(c) && !(c->data.format == RX_DATA_IDX && c->data.test_path[0]) &&
           !(c->data.format == RX_DATA_CSV && c->data.test_rows[0]);
}
static int classify(const rx_config *c)
{
    return net(c) && (c->data.task == RX_TASK_CLASSIFICATION || images(c));
}
static int regress(const rx_config *c) { return net(c) && !classify(c); }
/* model.likelihood auto is gaussian for regression */
static int gaussian(const rx_config *c)
{
    return net(c) && (c->model.likelihood == 2 ||
                      (c->model.likelihood == 0 && regress(c)));
}
static int learn_prec(const rx_config *c)
{
    return gaussian(c) && c->model.learn_precision;
}
static int weight_hyper(const rx_config *c)
{
    return net(c) && c->model.weight_precision_a > 0.0;
}
static int convs(const rx_config *c)
{
    for (int i = 0; net(c) && i < c->model.n_layers; ++i)
        if (c->model.layers[i].kind == RX_L_CONV2D)
            return 1;
    return 0;
}

/* ---- swaps --------------------------------------------------------------*/

static int swaps(const rx_config *c)
{
    return c->tempering.scheme != RX_SCHEME_NONE;
}
/* The exchange test in use reads or adapts what `props` says. */
static int rule_has(const rx_config *c, unsigned props)
{
    return swaps(c) &&
           (unsigned)c->tempering.rule < (unsigned)rx__xtest_count() &&
           (rx__xtest_row(c->tempering.rule)->row.props & props) == props;
}
static int deo_family(const rx_config *c)
{
    const rx_scheme s = c->tempering.scheme;
    return s == RX_SCHEME_DEO || s == RX_SCHEME_DEO_W ||
           s == RX_SCHEME_DEO_STAR;
}
static int deo_w(const rx_config *c)
{
    return c->tempering.scheme == RX_SCHEME_DEO_W;
}
/* a rule that reads sigma_p^2 */
static int corrected(const rx_config *c)
{
    return rule_has(c, RX__XT_SIGMA2);
}
static int adapt_c(const rx_config *c)
{
    return rule_has(c, RX__XT_BUFFER_C) && c->correction.adapt;
}
/* Eq. 12 on the learning rates or temperatures */
static int adapt_eq12(const rx_config *c)
{
    return swaps(c) && (c->ladder.adapt == RX_ADAPT_ETA ||
                        c->ladder.adapt == RX_ADAPT_TAU);
}
/* the reference path of log Z (ladder.path: reference) */
static int ref_path(const rx_config *c)
{
    return c->ladder.path == RX_PATH_REFERENCE;
}
/* the temperature ladder: the reference path steps at temperature 1 */
static int temp_path(const rx_config *c) { return !ref_path(c); }
/* its Gaussian reference from the config: the analytic targets */
static int ref_gauss(const rx_config *c)
{
    return ref_path(c) && (gmm(c) || m25(c));
}
static int barrier(const rx_config *c)
{
    return swaps(c) && c->ladder.adapt == RX_ADAPT_BARRIER;
}
/* the step sizes gamma_k of the ladder and buffer updates */
static int gamma_k(const rx_config *c) { return adapt_eq12(c) || adapt_c(c); }
/* S: W*, and the target of the Eq. 12 and Eq. 13 updates */
static int swap_rate(const rx_config *c)
{
    const rx_scheme s = c->tempering.scheme;
    return swaps(c) && (s == RX_SCHEME_DEO_STAR ||
                        (s == RX_SCHEME_DEO_W &&
                         c->tempering.window == RX_WINDOW_AUTO) ||
                        gamma_k(c));
}
static int window_corr(const rx_config *c)
{
    return rule_has(c, RX__XT_WCORR) && rx_config_window(c) > 1;
}
static int s2_estimate(const rx_config *c)
{
    return corrected(c) && c->tempering.sigma2 == RX_SIGMA2_ESTIMATE;
}
static int s2_noise(const rx_config *c)
{
    return corrected(c) && (c->tempering.sigma2 == RX_SIGMA2_ESTIMATE ||
                            c->tempering.sigma2 == RX_SIGMA2_AUTO);
}
static int vr(const rx_config *c)
{
    return net_or_mixd(c) && c->variance_reduction.enabled;
}
static int vr_adaptive(const rx_config *c)
{
    return vr(c) && c->variance_reduction.coefficient == RX_VR_ADAPTIVE;
}
/* variance.samples: the sigma2 estimate's J, and VR's unless it sets one */
static int s2_samples(const rx_config *c)
{
    return s2_estimate(c) || (vr(c) && c->variance_reduction.samples == 0);
}
static int energy_noise(const rx_config *c)
{
    return swaps(c) && energies(c) && c->target.energy_noise_sd > 0.0;
}

/* ---- steps, faults, bias ------------------------------------------------*/

/* a step rule with a state that moves with its particle */
static int step_state(const rx_config *c)
{
    for (int r = 0; r < rx__step_count(); ++r)
        if (rx__step_types[r]->state_len &&
            rx__row_in_use(c, &rx__step_table, r))
            return swaps(c);
    return 0;
}
static int rollback(const rx_config *c)
{
    return c->faults.policy == RX_FAULTS_ROLLBACK;
}
static int injecting(const rx_config *c)
{
    return c->faults.inject_iteration >= 0;
}
static int biased(const rx_config *c) { return (int)c->bias.kind != 0; }


/* ---- the rules ----------------------------------------------------------*/

static const struct {
    const char *path; /* a key, or a section ending in '.' */
    when_fn when;
} RULES[] = {
    {"target.weights", gmm},
    {"target.means", gmm},
    {"target.scales", gmm},
    {"target.energy_noise_sd", energies},
    {"target.grad_noise_sd", energies},
    {"target.confine_radius2", m25},
    {"target.n_data", mixd},
    {"target.phi", mixd},
    {"target.data_sd", mixd},
    {"target.beta_true", mixd},
    {"target.prior_sd", mixd},
    {"target.dim", optfun},
    {"data.", net},
    {"data.path", data_file},
    {"data.labels_path", idx},
    {"data.test_path", idx},
    {"data.test_labels_path", idx},
    {"data.test_rows", csv},
    {"data.header", csv},
    {"data.skip_rows", csv},
    {"data.target_column", csv},
    {"data.test_fraction", random_split},
    {"data.split", net_or_mixd},
    {"data.classes", classify},
    {"data.ood_classes", classify},
    {"data.standardise", tabular},
    {"data.standardise_target", regress},
    {"data.pixel_mean", images},
    {"data.pixel_sd", images},
    {"data.batch_size", net_or_mixd},
    {"data.shared_minibatch", net_or_mixd},
    {"data.label_noise", classify},
    {"data.synthetic_n", synth},
    {"data.synthetic_features", synth},
    {"data.synthetic_noise_sd", synth},
    {"model.", net},
    {"model.noise_var", gaussian},
    {"model.learn_precision", gaussian},
    {"model.precision_a", learn_prec},
    {"model.precision_b", learn_prec},
    {"model.weight_precision_b", weight_hyper},
    {"model.conv", convs},
    {"evaluate.", net},
    {"evaluate.ece_bins", classify},
    {"init.", box_init},
    {"tempering.window", deo_w},
    {"tempering.parity_phase", deo_family},
    {"tempering.rule", swaps},
    {"tempering.target_swap_rate", swap_rate},
    {"tempering.window_correction", window_corr},
    {"tempering.sequential_stats", swaps},
    {"variance.", s2_estimate},
    {"variance.samples", s2_samples},
    {"variance.definition_difference", s2_noise},
    {"variance_reduction.", vr},
    {"variance_reduction.enabled", net_or_mixd},
    {"variance_reduction.gamma", vr_adaptive},
    {"correction.step_scale", adapt_c},
    {"stepsize.", gamma_k},
    {"energy.fresh_per_pair", energy_noise},
    {"ladder.adapt", swaps},
    {"ladder.barrier_round", barrier},
    {"ladder.monotone_projection", adapt_eq12},
    {"ladder.tau", temp_path},
    {"ladder.beta_exponent", ref_path},
    {"ladder.betas", ref_path},
    {"ladder.reference_mean", ref_gauss},
    {"ladder.reference_sd", ref_gauss},
    {"step.state_on_swap", step_state},
    {"faults.max_rollbacks", rollback},
    {"faults.inject_iteration", injecting},
    {"faults.inject_particle", injecting},
    {"record.grid_bins", density},
    {"record.grid_low", density},
    {"record.grid_high", density},
    {"bias.", biased},
    {"bias.kind", NULL}, /* always */
};
#define NRULES ((int)(sizeof RULES / sizeof RULES[0]))

const char *rx__applies_rule(int i)
{
    return i >= 0 && i < NRULES ? RULES[i].path : NULL;
}

/* The rows that declare key p (a row's own key) or read it (their `uses`
 * list it, or its section "x."): 1 and *on = whether one of them is in
 * use; 0 when no row names it. */
static int row_claims(const rx_config *c, int i, const char *p, int *on)
{
    const rx__table *T;
    int r;
    if (rx__key_row(i, &T, &r)) {
        *on = rx__row_in_use(c, T, r);
        return 1;
    }
    int claimed = 0;
    *on = 0;
    if (rx__key_table(rx__key_at(i)))
        return 0; /* a key that picks a table's row: never the row's */
    for (int t = 0; rx__tables[t]; ++t)
        for (r = 0; r < rx__tables[t]->count(); ++r) {
            const char *const *u = rx__tables[t]->at(r)->uses;
            for (; u && *u; ++u) {
                const size_t n = strlen(*u);
                if (strcmp(*u, p) == 0 ||
                    ((*u)[n - 1] == '.' && strncmp(*u, p, n) == 0)) {
                    claimed = 1;
                    *on |= rx__row_in_use(c, rx__tables[t], r);
                }
            }
        }
    return claimed;
}

int rx__key_applies(const rx_config *c, int i)
{
    if (!c || i < 0 || i >= rx__key_count())
        return 0;
    const char *p = rx__key_at(i)->path;
    int on = 0;
    if (row_claims(c, i, p, &on) && !on)
        return 0;
    int best = -1;
    size_t blen = 0;
    for (int r = 0; r < NRULES; ++r) {
        const char *q = RULES[r].path;
        const size_t n = strlen(q);
        if (!strcmp(p, q))
            return RULES[r].when ? RULES[r].when(c) : 1;
        if (q[n - 1] == '.' && n > blen && !strncmp(p, q, n)) {
            best = r;
            blen = n;
        }
    }
    return best < 0 || !RULES[best].when ? 1 : RULES[best].when(c);
}
