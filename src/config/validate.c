/*
 * Cross-field validation of a configuration: every message names the key
 * (located through marks where the config came from a file).
 */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "../core/internal.h"
#include "../bias/bias.h"
#include "../core/num.h"
#include "../exchange/xtest.h"
#include "../step/step.h"
#include "../target/optfun.h"
#include "config.h"

static rx_status check_ladder(const rx_ladder_spec *L, const char *path,
                              int P, const rx__marks *mk, rx_err *err)
{
    if (L->kind == RX_LADDER_LIST && L->values.n != P)
        return rx__key_err(err, mk, path,
                       "the list has %d values but tempering.n_chains is %d",
                       L->values.n, P);
    if (!(L->min > 0.0))
        return rx__key_err(err, mk, path, "values must be > 0, got %s",
                       RX_NUM(L->min));
    if (L->kind == RX_LADDER_GEOMETRIC && !(L->max >= L->min))
        return rx__key_err(err, mk, path,
                       "ladder ends are not ordered: max %s < min %s",
                       RX_NUM(L->max), RX_NUM(L->min));
    if (L->kind == RX_LADDER_LIST)
        for (int i = 0; i < L->values.n; ++i) {
            if (!(L->values.v[i] > 0.0) || !isfinite(L->values.v[i]))
                return rx__key_err(err, mk, path, "values must be finite and > 0");
            if (i && L->values.v[i] < L->values.v[i - 1])
                return rx__key_err(err, mk, path, "ladder must be non-decreasing");
        }
    return RX_OK;
}

/* Integer labels, no repeats. */
static rx_status check_labels(const rx_vec *v, const char *path,
                              const rx__marks *mk, rx_err *err)
{
    for (int i = 0; i < v->n; ++i) {
        if (v->v[i] != floor(v->v[i]))
            return rx__key_err(err, mk, path, "labels must be integers, got %g",
                           v->v[i]);
        for (int j = 0; j < i; ++j)
            if (v->v[j] == v->v[i])
                return rx__key_err(err, mk, path, "label %g given twice",
                               v->v[i]);
    }
    return RX_OK;
}

/* The data/model/evaluate sections (shapes are checked against the data
 * when the run is created). */
static rx_status validate_network(const rx_config *c, const rx__marks *mk,
                                  rx_err *err)
{
    const int net = c->target.kind == RX_TARGET_NETWORK;
    if (!net) {
        if (c->model.n_layers > 0)
            return rx__key_err(err, mk, "model.layers",
                           "a model needs target.kind: network");
        if (c->data.path[0])
            return rx__key_err(err, mk, "data.path",
                           "data are used only by target.kind: network");
        return RX_OK;
    }
    if (c->model.n_layers < 1)
        return rx__key_err(err, mk, "model.layers",
                       "target.kind network needs at least one layer, e.g. "
                       "[{dense: 50}, relu, {dense: 1}]");
    if (c->model.layers[c->model.n_layers - 1].kind != RX_L_DENSE &&
        c->model.layers[c->model.n_layers - 1].kind != RX_L_CONV2D)
        return rx__key_err(err, mk, "model.layers",
                       "the last layer must be dense (its units are the "
                       "outputs)");
    const rx_data_format fm = c->data.format;
    if (fm != RX_DATA_SYNTHETIC && !c->data.path[0])
        return rx__key_err(err, mk, "data.path",
                       "data.format %s needs a path",
                       fm == RX_DATA_CSV ? "csv"
                       : fm == RX_DATA_IDX ? "idx" : "mnist_json");
    if (fm == RX_DATA_IDX && !c->data.labels_path[0])
        return rx__key_err(err, mk, "data.labels_path",
                       "data.format idx needs the label file");
    if (fm != RX_DATA_IDX && (c->data.test_path[0] ||
                              c->data.test_labels_path[0]))
        return rx__key_err(err, mk, "data.test_path",
                       "a fixed test set is supported for data.format idx "
                       "only; other formats use test_fraction");
    if (fm != RX_DATA_CSV && c->data.test_rows[0])
        return rx__key_err(err, mk, "data.test_rows",
                       "a file of test rows is supported for data.format "
                       "csv only");
    if (!c->data.test_path[0] != !c->data.test_labels_path[0])
        return rx__key_err(err, mk, c->data.test_path[0] ? "data.test_labels_path"
                                                     : "data.test_path",
                       "test_path and test_labels_path go together");
    const int cls = c->data.task == RX_TASK_CLASSIFICATION ||
                    fm == RX_DATA_IDX || fm == RX_DATA_MNIST_JSON;
    if (fm == RX_DATA_SYNTHETIC && c->data.task != RX_TASK_REGRESSION)
        return rx__key_err(err, mk, "data.task",
                       "the synthetic data set is a regression set");
    if ((fm == RX_DATA_IDX || fm == RX_DATA_MNIST_JSON) &&
        c->data.task != RX_TASK_CLASSIFICATION)
        return rx__key_err(err, mk, "data.task",
                       "image data sets are classification tasks; set "
                       "data.task: classification");
    rx_status st = check_labels(&c->data.classes, "data.classes", mk, err);
    if (st == RX_OK)
        st = check_labels(&c->data.ood_classes, "data.ood_classes", mk, err);
    if (st != RX_OK)
        return st;
    if (!cls && (c->data.classes.n || c->data.ood_classes.n))
        return rx__key_err(err, mk, c->data.classes.n ? "data.classes"
                                                  : "data.ood_classes",
                       "class filters need data.task: classification");
    for (int i = 0; i < c->data.ood_classes.n; ++i)
        for (int j = 0; j < c->data.classes.n; ++j)
            if (c->data.ood_classes.v[i] == c->data.classes.v[j])
                return rx__key_err(err, mk, "data.ood_classes",
                               "label %g is also in data.classes",
                               c->data.ood_classes.v[i]);
    int lik = c->model.likelihood;
    if (lik == 0)
        lik = cls ? 1 : 2;
    if (cls && lik == 2)
        return rx__key_err(err, mk, "model.likelihood",
                       "gaussian likelihood on a classification task");
    if (!cls && lik == 1)
        return rx__key_err(err, mk, "model.likelihood",
                       "softmax likelihood on a regression task");
    if (c->model.learn_precision && lik != 2)
        return rx__key_err(err, mk, "model.learn_precision",
                       "only for the gaussian likelihood");
    if (!(c->model.noise_var > 0))
        return rx__key_err(err, mk, "model.noise_var", "must be > 0");
    if (c->record.all_positions && c->tempering.n_chains > 64)
        return rx__key_err(err, mk, "record.all_positions",
                       "keeps every position's network sample; use at most "
                       "64 chains");
    return RX_OK;
}

/* Run size, threads, schedule and window. */
static rx_status check_run(const rx_config *c, const rx__marks *mk,
                           rx_err *err)
{
    const int P = c->tempering.n_chains;
    if (c->iterations < 1)
        return rx__key_err(err, mk, "iterations", "must be >= 1");
    if (P < 1 || P > 1048576)
        return rx__key_err(err, mk, "tempering.n_chains",
                       "must be in [1, 1048576], got %d", P);
    if (P < 2 && c->tempering.scheme != RX_SCHEME_NONE)
        return rx__key_err(err, mk, "tempering.n_chains",
                       "replica exchange needs >= 2 chains, got %d (a single "
                       "chain only with scheme none)",
                       P);
    if (c->threads < 0)
        return rx__key_err(err, mk, "threads", "must be >= 0");
    if (c->replicates < 1 || c->replicates > 1000)
        return rx__key_err(err, mk, "replicates",
                           "must be in [1, 1000], got %d", c->replicates);
    if (c->replicates > 1 && c->checkpoint.every > 0)
        return rx__key_err(err, mk, "replicates",
                           "checkpoints are per run: replicates > 1 cannot "
                           "be resumed (set checkpoint.every: 0)");
    double S = c->tempering.target_swap_rate;
    if (!(S > 0.0 && S < 1.0))
        return rx__key_err(err, mk, "tempering.target_swap_rate",
                       "S must be in (0, 1), got %s", RX_NUM(S));
    double a = c->tempering.accept_prob;
    if (!(a >= 0.0 && a <= 1.0))
        return rx__key_err(err, mk, "tempering.accept_prob",
                       "must be in [0, 1], got %s", RX_NUM(a));
    if ((unsigned)c->tempering.scheme > RX_SCHEME_NONE)
        return rx__key_err(err, mk, "tempering.scheme", "unknown scheme");
    if ((unsigned)c->tempering.rule >= (unsigned)rx__xtest_count())
        return rx__key_err(err, mk, "tempering.rule", "unknown rule");
    if (c->tempering.parity_phase != 0 && c->tempering.parity_phase != 1)
        return rx__key_err(err, mk, "tempering.parity_phase", "must be 0 or 1");
    double wc = c->tempering.window_correction;
    if (!(wc >= 0.0 || wc == RX_WCORR_LOGW) || !isfinite(wc))
        return rx__key_err(err, mk, "tempering.window_correction",
                       "must be a number >= 0 or logW");
    int w = c->tempering.window;
    if (w < 0)
        return rx__key_err(err, mk, "tempering.window",
                       "must be a positive integer or auto");
    if (w != RX_WINDOW_AUTO) {
        if (c->tempering.scheme == RX_SCHEME_DEO_STAR)
            return rx__key_err(err, mk, "tempering.window",
                           "scheme deo_star computes W* itself; use scheme "
                           "deo_w for a fixed window of %d",
                           w);
        if (c->tempering.scheme == RX_SCHEME_DEO && w != 1)
            return rx__key_err(err, mk, "tempering.window",
                           "scheme deo uses W = 1; use scheme deo_w for a "
                           "window of %d",
                           w);
        if (c->tempering.scheme != RX_SCHEME_DEO &&
            c->tempering.scheme != RX_SCHEME_DEO_W)
            return rx__key_err(err, mk, "tempering.window",
                           "a window applies only to schemes deo_w and "
                           "deo_star");
    }
    return RX_OK;
}

/* Ladders, the initial box, recording and its memory bound. */
static rx_status check_records(const rx_config *c, const rx__marks *mk,
                               rx_err *err)
{
    const int P = c->tempering.n_chains;
    rx_status st = check_ladder(&c->ladder.eta, "ladder.eta", P, mk, err);
    /* the reference path steps at temperature 1: ladder.tau is not used */
    if (st == RX_OK && c->ladder.path != RX_PATH_REFERENCE)
        st = check_ladder(&c->ladder.tau, "ladder.tau", P, mk, err);
    if (st != RX_OK)
        return st;
    if (!(c->init.high > c->init.low))
        return rx__key_err(err, mk, "init.high",
                       "must be > init.low (%s), got %s",
                       RX_NUM(c->init.low), RX_NUM(c->init.high));
    if (!(c->record.grid_high > c->record.grid_low))
        return rx__key_err(err, mk, "record.grid_high",
                       "must be > record.grid_low");
    if (c->record.thin < 1)
        return rx__key_err(err, mk, "record.thin", "must be >= 1");
    if (c->record.burn_in < 0)
        return rx__key_err(err, mk, "record.burn_in", "must be >= 0");
    /* iterations k = burn_in .. K-1 are kept: none when burn_in >= K, and
     * a run's answer (samples, table, log Z) would be empty */
    if (c->iterations > 0 && c->record.burn_in >= c->iterations)
        return rx__key_err(err, mk, "record.burn_in",
                           "%lld >= iterations (%lld): the run would keep "
                           "no sample; lower record.burn_in (e.g. --set "
                           "record.burn_in=0) or raise iterations",
                           (long long)c->record.burn_in,
                           (long long)c->iterations);
    if (c->record.index_every < 0)
        return rx__key_err(err, mk, "record.index_every", "must be >= 0");
    if (c->record.trace_every < 0)
        return rx__key_err(err, mk, "record.trace_every", "must be >= 0");
    if (!(c->target.energy_noise_sd >= 0))
        return rx__key_err(err, mk, "target.energy_noise_sd", "must be >= 0");
    if (!(c->target.grad_noise_sd >= 0))
        return rx__key_err(err, mk, "target.grad_noise_sd", "must be >= 0");
    {
        /* the in-memory records must fit: index process and samples */
        const double limit = RX_RECORD_LIMIT_BYTES;
        double idx = c->record.index_every > 0
                         ? ((double)c->iterations /
                                (double)c->record.index_every +
                            1.0) * (double)P * 4.0
                         : 0.0;
        double dim = c->target.kind == RX_TARGET_MIXTURE25 ? 2.0
                     : c->target.kind == RX_TARGET_MIXTURE_DATA ? 1.0
                     : c->target.kind == RX_TARGET_GMM
                         ? (double)c->target.means.cols
                         : (double)rx__optfun_dim(c);
        double ns = c->iterations > c->record.burn_in
                        ? (double)(c->iterations - c->record.burn_in) /
                              (double)c->record.thin *
                              (c->record.all_positions ? (double)P : 1.0)
                        : 0.0;
        if (idx > limit)
            return rx__key_err(err, mk, "record.index_every",
                           "the index process would take %.1f GiB in "
                           "memory (limit %.0f GiB); raise index_every",
                           idx / 1073741824.0, limit / 1073741824.0);
        if (ns * dim * 4.0 > limit)
            return rx__key_err(err, mk, "record.thin",
                           "the samples would take %.1f GiB in memory "
                           "(limit %.0f GiB); raise thin",
                           ns * dim * 4.0 / 1073741824.0,
                           limit / 1073741824.0);
        /* the trace: a row of 6 + 5 P doubles at most (sigma2 columns
         * included) every trace_every iterations */
        double tr = c->record.trace_every > 0
                        ? ((double)c->iterations /
                               (double)c->record.trace_every +
                           1.0) * (6.0 + 5.0 * (double)P) * 8.0
                        : 0.0;
        if (tr > limit)
            return rx__key_err(err, mk, "record.trace_every",
                           "the trace would take %.1f GiB in memory "
                           "(limit %.0f GiB); raise trace_every",
                           tr / 1073741824.0, limit / 1073741824.0);
    }
    return RX_OK;
}

/* The Gaussian-mixture target's arrays. */
static rx_status check_gmm(const rx_config *c, const rx__marks *mk,
                           rx_err *err)
{
    const int K = c->target.means.rows;
    if (c->target.kind == RX_TARGET_GMM) {
        if (K < 1)
            return rx__key_err(err, mk, "target.means",
                           "target gmm needs at least one component mean");
        if (c->target.weights.n != K)
            return rx__key_err(err, mk, "target.weights",
                           "has %d values but target.means has %d rows",
                           c->target.weights.n, K);
        if (c->target.scales.rows != K ||
            c->target.scales.cols != c->target.means.cols)
            return rx__key_err(err, mk, "target.scales",
                           "shape %dx%d differs from target.means %dx%d",
                           c->target.scales.rows, c->target.scales.cols, K,
                           c->target.means.cols);
        for (int i = 0; i < K; ++i)
            if (!(c->target.weights.v[i] > 0.0))
                return rx__key_err(err, mk, "target.weights",
                               "weights must be > 0");
        for (int i = 0; i < K * c->target.scales.cols; ++i)
            if (!(c->target.scales.v[i] > 0.0))
                return rx__key_err(err, mk, "target.scales",
                               "scales must be > 0");
    } else if (c->target.weights.n || K || c->target.scales.rows) {
        return rx__key_err(err, mk,
                       c->target.weights.n ? "target.weights"
                       : K                 ? "target.means"
                                           : "target.scales",
                       "only used with target.kind gmm");
    }
    return RX_OK;
}

/* A test function's dimension; the hitting-time threshold. */
static rx_status check_optfun_hit(const rx_config *c, const rx__marks *mk,
                                  rx_err *err)
{
    const int kind = (int)c->target.kind;
    if (rx__optfun_index(kind) >= 0) {
        const char *why = rx__optfun_dim_error(kind, rx__optfun_dim(c));
        if (why)
            return rx__key_err(err, mk, "target.dim", "%s, got %d", why,
                               rx__optfun_dim(c));
    }
    return RX_OK;
}

/* The names of table t's rows whose props & mask == want (!= want for
 * mask with RX__ROWS_NOT), as "a, b or c". */
#define RX__ROWS_NOT 0x80000000u
static void rows_with(const rx__table *t, unsigned mask, unsigned want,
                      char *buf, size_t cap)
{
    int m = 0, n = t->count();
    const int neg = (mask & RX__ROWS_NOT) != 0;
    const char *hit[64];
    mask &= ~RX__ROWS_NOT;
    for (int r = 0; r < n && m < 64; ++r)
        if (((t->at(r)->props & mask) == want) != neg)
            hit[m++] = t->at(r)->name;
    size_t len = 0;
    buf[0] = '\0';
    for (int i = 0; i < m && len < cap; ++i) {
        int w = snprintf(buf + len, cap - len, "%s%s",
                         i == 0 ? "" : i == m - 1 ? " or " : ", ", hit[i]);
        if (w < 0)
            break;
        len += (size_t)w;
    }
}

/* Swap rule, sigma2, steps, ladder adaptation, step sizes. */
static rx_status check_swaps(const rx_config *c, const rx__marks *mk,
                             rx_err *err)
{
    const int P = c->tempering.n_chains;
    const unsigned xp = rx__xtest_row(c->tempering.rule)->row.props;
    if (c->target.kind == RX_TARGET_NONE && (xp & RX__XT_ENERGY)) {
        char names[256];
        rows_with(&rx__xtest_table, RX__XT_ENERGY, 0, names, sizeof names);
        return rx__key_err(err, mk, "tempering.rule",
                           "target none has no energies; use rule %s",
                           names);
    }
    if (c->tempering.scheme == RX_SCHEME_APE && (xp & RX__XT_ENERGY) &&
        !(xp & RX__XT_LADDER)) {
        char names[256];
        rows_with(&rx__xtest_table,
                  RX__XT_ENERGY | RX__XT_LADDER | RX__ROWS_NOT,
                  RX__XT_ENERGY, names, sizeof names);
        return rx__key_err(err, mk, "tempering.rule",
                           "ape needs temperatures (%s); the %s condition "
                           "compares neighbours only", names,
                           rx__rule_name(c->tempering.rule));
    }
    double s2 = c->tempering.sigma2;
    if (!(s2 >= 0.0 || s2 == RX_SIGMA2_AUTO || s2 == RX_SIGMA2_ESTIMATE) ||
        !isfinite(s2))
        return rx__key_err(err, mk, "tempering.sigma2",
                       "must be a number >= 0, auto or estimate");
    if (s2 == RX_SIGMA2_ESTIMATE && c->target.kind != RX_TARGET_GMM &&
        c->target.kind != RX_TARGET_MIXTURE25 &&
        c->target.kind != RX_TARGET_NETWORK &&
        c->target.kind != RX_TARGET_MIXTURE_DATA)
        return rx__key_err(err, mk, "tempering.sigma2",
                       "estimate needs repeated noisy energies, which the "
                       "analytic targets with energy_noise_sd and network "
                       "targets (minibatches) provide");
    if ((xp & RX__XT_SIGMA2) && s2 == RX_SIGMA2_AUTO &&
        !(c->target.energy_noise_sd > 0.0))
        return rx__key_err(err, mk, "tempering.sigma2",
                       "rule %s needs sigma2: give a number, or "
                       "use auto with target.energy_noise_sd > 0",
                       rx__rule_name(c->tempering.rule));
    if (!(c->tempering.sigma2_factor >= 1.0))
        return rx__key_err(err, mk, "tempering.sigma2_factor", "must be >= 1");
    if ((unsigned)c->ladder.adapt > RX_ADAPT_BARRIER)
        return rx__key_err(err, mk, "ladder.adapt", "unknown value");
    if (c->ladder.adapt != RX_ADAPT_NONE && P < 3)
        return rx__key_err(err, mk, "ladder.adapt",
                       "an adaptive ladder needs n_chains >= 3 (the ends are "
                       "fixed)");
    if ((c->ladder.adapt == RX_ADAPT_TAU ||
         c->ladder.adapt == RX_ADAPT_BARRIER) &&
        (xp & (RX__XT_ENERGY | RX__XT_LADDER)) == RX__XT_ENERGY)
        return rx__key_err(err, mk, "ladder.adapt",
                       "the %s rule does not use temperatures; "
                       "adapt eta", rx__rule_name(c->tempering.rule));
    if (!(c->stepsize.a > 0) || !(c->stepsize.b >= 0) ||
        !(c->stepsize.alpha > 0.5 && c->stepsize.alpha <= 1) ||
        !(c->stepsize.cap > 0))
        return rx__key_err(err, mk, "stepsize",
                       "needs a > 0, b >= 0, alpha in (0.5, 1], cap > 0");
    if (!isfinite(c->correction.init) || !(c->correction.step_scale >= 0))
        return rx__key_err(err, mk, "correction.step_scale",
                       "must be >= 0 (and correction.init finite)");
    if (c->target.kind == RX_TARGET_MIXTURE_DATA &&
        c->data.batch_size > c->target.n_data)
        return rx__key_err(err, mk, "data.batch_size",
                       "%d is larger than target.n_data = %lld",
                       c->data.batch_size, (long long)c->target.n_data);
    return RX_OK;
}

/* The temperature of position q (0-based) of a ladder, q = 0 or 1: the
 * smallest where a rule is used at positions q.. (ladders ascend). */
static double tau_at(const rx_ladder_spec *L, int q, int P)
{
    if (L->kind == RX_LADDER_LIST)
        return L->values.n > q ? L->values.v[q] : L->min;
    if (L->kind == RX_LADDER_CONSTANT || q == 0 || P < 2)
        return L->min;
    return L->min * pow(L->max / L->min, (double)q / (double)(P - 1));
}

/* The largest learning rate of the ladder. */
static double eta_top(const rx_ladder_spec *L)
{
    return L->kind == RX_LADDER_CONSTANT ? L->min : L->max;
}

/* What row r of table t sees of the run (src/core/row.h). */
void rx__row_run(const rx_config *c, const rx__table *t, int r, size_t dim,
                 rx__rowrun *run)
{
    const int P = c->tempering.n_chains;
    memset(run, 0, sizeof *run);
    run->cfg = c;
    run->P = P;
    run->dim = c->target.kind == RX_TARGET_MIXTURE25    ? 2
               : c->target.kind == RX_TARGET_MIXTURE_DATA ? 1
               : c->target.kind == RX_TARGET_GMM
                   ? (size_t)(c->target.means.cols > 0 ? c->target.means.cols
                                                      : 0)
                   : (size_t)rx__optfun_dim(c);
    if (dim)
        run->dim = dim;
    run->tau_moves = c->ladder.adapt == RX_ADAPT_TAU ||
                     c->ladder.adapt == RX_ADAPT_BARRIER;
    run->at_target = t != &rx__step_table || (int)c->step.target == r;
    run->at_others = P > 1 && (t != &rx__step_table ||
                               (int)c->step.others == r);
    /* the coldest position it runs at: an adaptive temperature ladder may
     * move position 2 down to 1's; the reference path runs every position
     * at temperature 1 */
    const int q = run->at_target || run->tau_moves || P < 2 ? 0 : 1;
    const int ref = c->ladder.path == RX_PATH_REFERENCE;
    run->tau_cold = ref ? 1.0 : tau_at(&c->ladder.tau, q, P);
    const rx_ladder_spec *L = &c->ladder.tau;
    run->tau_hot = ref ? 1.0
                   : !run->at_others ? L->min
                   : L->kind == RX_LADDER_LIST && L->values.n > 0
                       ? L->values.v[L->values.n - 1]
                       : eta_top(L);
    run->eta_cold = tau_at(&c->ladder.eta, q, P);
    run->eta_max = eta_top(&c->ladder.eta);
    const rx_ladder_spec *E = &c->ladder.eta;
    run->eta_hot = !run->at_others ? E->min
                   : E->kind == RX_LADDER_LIST && E->values.n > 0
                       ? E->values.v[E->values.n - 1]
                       : eta_top(E);
}

/* For the rule in use, when it is RX__XT_PAIRED on minibatch energies:
 * what the paired estimates need of the run (xtest.h). */
static rx_status paired_check(const rx__rowrun *run, const char **key,
                              rx_err *err)
{
    const rx_config *c = run->cfg;
    const rx__xtest_type *t = rx__xtest_row(c->tempering.rule);
    if (!(t->row.props & RX__XT_PAIRED) || !rx__xt_minibatch(c))
        return RX_OK;
    const char *why = NULL;
    if (c->tempering.scheme == RX_SCHEME_ADJ ||
        c->tempering.scheme == RX_SCHEME_APE || c->tempering.sequential_stats)
        /* at the key that asks for it: the scheme, or sequential_stats
         * under a scheme that would do */
        *key = c->tempering.scheme == RX_SCHEME_ADJ ||
                       c->tempering.scheme == RX_SCHEME_APE
                   ? "tempering.scheme"
                   : "tempering.sequential_stats",
        why = "needs a schedule of disjoint pairs decided from the "
              "pre-swap state (deo, deo_w, deo_star or seo, without "
              "sequential_stats): each attempted pair's batch is "
              "estimated before the exchange";
    else if (run->tau_moves || c->ladder.adapt != RX_ADAPT_NONE)
        *key = "ladder.adapt",
        why = "cannot adapt the ladder: only the attempted pairs are "
              "estimated, and the adaptation reads every pair";
    else if (rx__run_ranks(c) > 1)
        *key = "mpi.ranks",
        why = "runs on one rank: a pair's two parameter vectors are "
              "evaluated together, and on ranks they live apart";
    if (!why)
        return RX_OK;
    snprintf(err->msg, sizeof err->msg,
             "the %s rule on minibatch energies (the growing exchange "
             "batch) %s", t->row.name, why);
    return RX_ECONFIG;
}

/* The rows in use: a known value for every table key, and each row's own
 * check against the run, located at the key it names. */
rx_status rx__rows_check(const rx_config *c, size_t dim,
                         const rx__marks *mk, rx_err *err)
{
    if ((unsigned)c->step.target >= (unsigned)rx__step_count())
        return rx__key_err(err, mk, "step.target", "unknown value");
    if ((unsigned)c->step.others >= (unsigned)rx__step_count())
        return rx__key_err(err, mk, "step.others", "unknown value");
    for (int t = 0; rx__tables[t]; ++t) {
        const rx__table *T = rx__tables[t];
        for (int r = 0; r < T->count(); ++r) {
            const rx__rowdecl *d = T->at(r);
            if (!rx__row_in_use(c, T, r) ||
                (!d->check && T != &rx__xtest_table))
                continue;
            rx__rowrun run;
            rx__rowvals own;
            rx__slot tmp[RX__ROW_MAX_KEYS];
            rx__row_run(c, T, r, dim, &run);
            rx__row_values(c, T, r, &own, tmp);
            const char *key = NULL;
            rx_err e = {{0}};
            /* an exchange test deciding from paired estimates: what they
             * need of the run, before the row's own check */
            if (T == &rx__xtest_table &&
                paired_check(&run, &key, &e) != RX_OK)
                return rx__key_err(err, mk, key ? key : "(run)", "%s",
                                   e.msg);
            if (d->check && d->check(&run, &own, &key, &e) != RX_OK)
                return rx__key_err(err, mk, key ? key : "(run)", "%s",
                                   e.msg);
        }
    }
    return RX_OK;
}

/* The control-variate energies. */
static rx_status check_vr(const rx_config *c, const rx__marks *mk,
                          rx_err *err)
{
    if (c->variance_reduction.enabled) {
        const rx_target_kind tk = c->target.kind;
        if (tk != RX_TARGET_NETWORK && tk != RX_TARGET_MIXTURE_DATA)
            return rx__key_err(err, mk, "variance_reduction.enabled",
                           "a control variate needs per-example losses, "
                           "which target.kind network and mixture_data "
                           "provide; target.kind %s has none",
                           rx__target_names[tk]);
        if (c->variance_reduction.period < 1)
            return rx__key_err(err, mk, "variance_reduction.period",
                           "the anchor period m must be >= 1, got %lld",
                           (long long)c->variance_reduction.period);
        double cf = c->variance_reduction.coefficient;
        if (!(cf == RX_VR_ADAPTIVE || (cf >= -2.0 && cf <= 2.0)))
            return rx__key_err(err, mk, "variance_reduction.coefficient",
                           "must be in [-2, 2] or adaptive");
        if (tk == RX_TARGET_MIXTURE_DATA &&
            c->variance_reduction.anchor_batch > c->target.n_data)
            return rx__key_err(err, mk, "variance_reduction.anchor_batch",
                           "%lld rows, but target.n_data is %lld (0 = the "
                           "full data)",
                           (long long)c->variance_reduction.anchor_batch,
                           (long long)c->target.n_data);
    }
    return RX_OK;
}

/* A rule whose chain samples exp(-U / tau) (RX__STEP_SAMPLES): the
 * injected noise is set by the temperature. The others inject none: they
 * descend to a mode (or wander by the gradient noise alone, at no known
 * temperature). */
static int step_samples(rx_step_kind k)
{
    return (rx__step_row(k)->row.props & RX__STEP_SAMPLES) != 0;
}

/* The reference path's step rules: the stepping stone averages over each
 * pi_beta, so every position's chain must sample it. */
static rx_status check_path_steps(const rx_config *c, const rx__marks *mk,
                                  rx_err *err)
{
    const int at0 = !step_samples(c->step.target);
    if (!at0 && (c->tempering.n_chains < 2 || step_samples(c->step.others)))
        return RX_OK;
    const rx_step_kind k = at0 ? c->step.target : c->step.others;
    char names[256];
    rows_with(&rx__step_table, RX__STEP_SAMPLES, RX__STEP_SAMPLES, names,
              sizeof names);
    return rx__key_err(err, mk, at0 ? "step.target" : "step.others",
                       "%s injects no noise at the temperature, so its "
                       "chains do not sample pi_beta; the reference path's "
                       "stepping stone needs chains that sample each "
                       "pi_beta: use %s",
                       rx__step_row(k)->row.name, names);
}

double rx__config_ref_beta(const rx_config *c, int q)
{
    const int P = c->tempering.n_chains;
    if (q <= 0)
        return 1.0;
    if (q >= P - 1)
        return 0.0;
    if (c->ladder.betas.n == P)
        return c->ladder.betas.v[q];
    return pow(1.0 - (double)q / (double)(P - 1), c->ladder.beta_exponent);
}

/* ladder.beta_exponent: the betas it gives decrease strictly, as a listed
 * ladder.betas must (an exponent far from 1 makes (1 - q/(P-1))^a round
 * to 1 or underflow to 0 for several positions). */
static rx_status check_beta_exponent(const rx_config *c, const rx__marks *mk,
                                     rx_err *err)
{
    const int P = c->tempering.n_chains;
    for (int q = 1; q < P; ++q) {
        const double lo = rx__config_ref_beta(c, q);
        const double hi = rx__config_ref_beta(c, q - 1);
        if (lo < hi)
            continue;
        return rx__key_err(err, mk, "ladder.beta_exponent",
                           "%s gives betas (1 - q/(P-1))^a, P = n_chains "
                           "= %d, that are not distinct in double "
                           "precision: beta %d (%s) is not below beta %d "
                           "(%s), so positions %d and %d would sample "
                           "the same distribution and the stepping stone "
                           "between them is 0 (a ladder.betas list with "
                           "equal values is refused too); an exponent "
                           "from about 1 to 5 spreads them (3 is the "
                           "default), or list ladder.betas",
                           RX_NUM(c->ladder.beta_exponent), P, q + 1,
                           RX_NUM(lo), q, RX_NUM(hi), q, q + 1);
    }
    return RX_OK;
}

/* ladder.path reference: a target with a normalised reference, fixed
 * betas from 1 to 0, and only the parts that keep pi_beta exact. */
static rx_status check_path(const rx_config *c, const rx__marks *mk,
                            rx_err *err)
{
    rx_status st;
    const int P = c->tempering.n_chains;
    const rx_vec *b = &c->ladder.betas;
    if (c->ladder.path != RX_PATH_REFERENCE) {
        if (b->n > 0)
            return rx__key_err(err, mk, "ladder.betas",
                               "applies only with ladder.path: reference");
        return RX_OK;
    }
    const rx_target_kind tk = c->target.kind;
    if (tk != RX_TARGET_GMM && tk != RX_TARGET_MIXTURE25 &&
        tk != RX_TARGET_NETWORK && tk != RX_TARGET_CALLBACK)
        return rx__key_err(err, mk, "ladder.path",
                           "reference needs a target with a normalised "
                           "reference: gmm and mixture25 (ladder."
                           "reference_mean/sd), network (its Gaussian "
                           "prior) or callback (with a prior function); "
                           "target.kind %s has none",
                           rx__target_names[tk]);
    if (tk == RX_TARGET_NETWORK &&
        !(c->model.weight_decay > 0.0 || c->model.prior_precision > 0.0))
        return rx__key_err(err, mk, "model.prior_precision",
                           "the reference path needs a proper prior: "
                           "weight_decay or prior_precision > 0");
    if (b->n > 0) {
        if (b->n != P)
            return rx__key_err(err, mk, "ladder.betas",
                               "needs n_chains = %d values, got %d", P,
                               b->n);
        if (b->v[0] != 1.0 || b->v[P - 1] != 0.0)
            return rx__key_err(err, mk, "ladder.betas",
                               "must start at 1 (the target) and end at 0 "
                               "(the reference), got %.17g ... %.17g",
                               b->v[0], b->v[P - 1]);
        for (int q = 1; q < P; ++q)
            if (!(b->v[q] < b->v[q - 1]))
                return rx__key_err(err, mk, "ladder.betas",
                                   "must decrease strictly: value %d "
                                   "(%.17g) is not below value %d (%.17g)",
                                   q + 1, b->v[q], q, b->v[q - 1]);
    } else if ((st = check_beta_exponent(c, mk, err)) != RX_OK) {
        return st;
    }
    if (c->ladder.adapt == RX_ADAPT_TAU || c->ladder.adapt == RX_ADAPT_BARRIER)
        return rx__key_err(err, mk, "ladder.adapt",
                           "%s moves the temperatures, which the reference "
                           "path keeps at 1; use none or eta",
                           rx__adapt_names[c->ladder.adapt]);
    if (!(rx__xtest_row(c->tempering.rule)->row.props & RX__XT_EXACT)) {
        char names[256];
        rows_with(&rx__xtest_table, RX__XT_EXACT, RX__XT_EXACT, names,
                  sizeof names);
        return rx__key_err(err, mk, "tempering.rule",
                           "the reference path needs a rule that leaves "
                           "each pi_beta invariant (%s), got %s",
                           names, rx__rule_name(c->tempering.rule));
    }
    st = check_path_steps(c, mk, err);
    if (st != RX_OK)
        return st;
    if ((int)c->bias.kind != 0)
        return rx__key_err(err, mk, "bias.kind",
                           "a bias reweights the samples; the reference "
                           "path's estimate of log Z needs plain ones");
    if (c->variance_reduction.enabled)
        return rx__key_err(err, mk, "variance_reduction.enabled",
                           "not available with ladder.path: reference");
    return RX_OK;
}

/* bias.bins: a bias whose update touches every bin costs bins per update;
 * a run whose bias alone would take a day or more is refused (the warning
 * of rx__config_warnings states smaller costs). */
static rx_status check_bias_cost(const rx_config *c, const rx__marks *mk,
                                 rx_err *err)
{
    const double work = rx__bias_bin_work(c);
    if (!(work > RX__BIAS_WORK_MAX))
        return RX_OK;
    const double per = work / (double)c->iterations;
    return rx__key_err(err, mk, "bias.bins",
                       "%d bins: every update of bias.kind %s touches every "
                       "bin, %.3g bins an iteration and %.3g in all "
                       "(iterations %lld), over %.0e: about %.0f h at a "
                       "nanosecond a bin on top of the sampling; the "
                       "energy histogram needs only bins its chains can "
                       "fill (the default is 100): use fewer",
                       c->bias.bins, rx__bias_kind_name(c->bias.kind), per,
                       work, (long long)c->iterations, RX__BIAS_WORK_MAX,
                       work * 1e-9 / 3600.0);
}

rx_status rx__config_check(const rx_config *c, const rx__marks *mk,
                           rx_err *err)
{
    rx_status st = check_run(c, mk, err);
    if (st == RX_OK)
        st = check_records(c, mk, err);
    if (st == RX_OK)
        st = check_gmm(c, mk, err);
    if (st == RX_OK)
        st = check_optfun_hit(c, mk, err);
    if (st == RX_OK)
        st = check_swaps(c, mk, err);
    if (st == RX_OK)
        st = rx__rows_check(c, 0, mk, err);
    if (st == RX_OK)
        st = check_vr(c, mk, err);
    if (st == RX_OK)
        st = validate_network(c, mk, err);
    if (st == RX_OK)
        st = check_path(c, mk, err);
    if (st == RX_OK)
        st = check_bias_cost(c, mk, err);
    return st;
}

rx_status rx_config_validate(const rx_config *c, rx_err *err)
{
    if (!c)
        return rx__fail(err, RX_EINVAL, "rx_config_validate: NULL config");
    return rx__config_check(c, NULL, err);
}
