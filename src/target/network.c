/*
 * Bayesian neural-network target: a data set (src/data) and a network
 * (src/model) behind the energy interface.
 *
 *   U~(theta) = (N/n) sum_{i in B_k} l_i(theta) + (lambda/2) |w|^2
 *               [+ b e^rho - a rho, the Gamma(a, b) prior of a learned
 *                noise log-precision rho]
 *
 * with lambda = weight_decay * N + prior_precision (Deng 2021, Sec. 5.4.2);
 * with model.weight_precision_a > 0 lambda = e^psi is sampled too, one
 * more coordinate psi after the weights (before rho), under a Gamma(a, b)
 * prior on lambda (the hierarchical prior of PBP, Hernandez-Lobato and
 * Adams 2015, and of SVGD's experiments, Liu and Wang 2016):
 *   U += (lambda / 2) |w|^2 - (nw / 2) psi + b e^psi - a psi;
 * with model.prior_scale: fan_in every weight and bias has its own
 * precision lambda_j = lambda F_j, F_j the fan-in of its layer, so that
 * lambda = 1 is the N(0, 1/fan_in) prior of the layer-scaled networks
 * (PBP, Hernandez-Lobato and Adams 2015, scale each layer's input by
 * 1/sqrt(fan-in) under an N(0, 1/lambda) prior: the same thing).
 * The sampler keeps theta in double (a Langevin increment of a small
 * learning rate would be lost to float rounding); each evaluation rounds
 * it into the thread's float32 copy, which the network computes on, and
 * adds the float32 gradient and the prior in double.
 *
 * B_k, the minibatch of the evaluation with counter k, is drawn without
 * replacement within an epoch: shared by all chains (stream entity
 * RX__SHARED_BATCH) or one stream per particle. Results depend only on
 * (config, seed, particle, k).
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "../data/data.h"
#include "../model/model.h"
#include "target.h"
#include "tws.h"

#define RX__SHARED_BATCH 0xFFFFFFF0u
/* splits are keyed by data.split only, so every seed sees the same split */
#define RX__SPLIT_KEY 0x7265706c6578ULL

struct rx__netdata {
    rx__dataset train, test, ood;
    rx__net *net;
    size_t np;          /* network parameters (incl. rho) */
    size_t nw;          /* weights under the Gaussian prior */
    size_t dim;         /* theta: the nw weights, [psi], [rho] */
    int learn_prec;
    int hyper;          /* lambda = e^psi is sampled (theta[nw] = psi) */
    double lambda, prec_a, prec_b, noise_var;
    double wprec_a, wprec_b, psi0; /* its Gamma prior and start log lambda */
    double *lam;        /* per-weight precision (prior_scale fan_in), or NULL */
    double prior_norm[2]; /* -log normalisers of the weights' Gaussian and
                             of lambda's Gamma prior (set once) */
    int64_t N;          /* training examples */
    int bs, shared, eval_batch;
    int n_out, classify;
    int split;          /* train and test were split from one file */
    double y_mean, y_sd;
};

static void netdata_free(rx__target *t)
{
    rx__netdata *nd = t->u.net;
    if (!nd)
        return;
    rx__data_free(&nd->train);
    rx__data_free(&nd->test);
    rx__data_free(&nd->ood);
    rx__net_destroy(&nd->net);
    free(nd->lam);
    free(nd);
    t->u.net = NULL;
}

/* y = sin(2 x1) + 0.5 x2^2 - 0.5 + 0.3 sum_{j>2} x_j + noise, x ~ N(0, I);
 * a fixed data set (keyed by data.split, not by the run's seed). */
static rx_status synthetic(rx__dataset *d, const rx_config *cfg, rx_err *err)
{
    const int64_t n = cfg->data.synthetic_n;
    const int D = cfg->data.synthetic_features;
    memset(d, 0, sizeof *d);
    d->x = rx__alloc_aligned((size_t)n * (size_t)D * sizeof(float), 64);
    d->y = rx__alloc_aligned((size_t)n * sizeof(float), 64);
    if (!d->x || !d->y) {
        rx__data_free(d);
        return rx__fail(err, RX_ENOMEM, "data: out of memory for %lld "
                        "synthetic examples", (long long)n);
    }
    d->n = n;
    d->nfeat = D;
    d->c = 1;
    d->h = 1;
    d->w = D;
    d->y_sd = 1.0;
    rx__stream s;
    rx__stream_init(&s, RX__SPLIT_KEY, (uint32_t)cfg->data.split,
                    RX_STREAM_DATA, 1);
    for (int64_t i = 0; i < n; ++i) {
        float *x = d->x + i * D;
        double y = 0.0;
        for (int j = 0; j < D; ++j)
            x[j] = (float)rx__normal(&s);
        y += sin(2.0 * x[0]);
        if (D > 1)
            y += 0.5 * (double)x[1] * x[1] - 0.5;
        for (int j = 2; j < D; ++j)
            y += 0.3 * x[j];
        y += cfg->data.synthetic_noise_sd * rx__normal(&s);
        d->y[i] = (float)y;
    }
    return RX_OK;
}

/* Replace *d by the rows kept by fn (filter) — helpers over the loaders. */
static int cmp_i64(const void *a, const void *b)
{
    int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
    return (x > y) - (x < y);
}

static rx_status keep_classes(rx__dataset *d, const int *cls, int nc,
                              rx_err *err)
{
    rx__dataset o;
    memset(&o, 0, sizeof o);
    rx_status st = rx__data_filter_classes(&o, d, cls, nc, err);
    if (st != RX_OK)
        return st;
    rx__data_free(d);
    *d = o;
    return RX_OK;
}

/* Keep n rows chosen at random (a seeded permutation keyed by the split
 * id and `salt`), in their original order: files are often sorted by
 * label, so "the first n" would be a biased subset. */
static rx_status keep_random(rx__dataset *d, int64_t n, uint32_t split,
                             uint64_t salt, rx_err *err)
{
    if (n <= 0 || n >= d->n)
        return RX_OK;
    int64_t *perm = malloc(sizeof(int64_t) * (size_t)d->n);
    if (!perm)
        return rx__fail(err, RX_ENOMEM, "data: out of memory");
    for (int64_t i = 0; i < d->n; ++i)
        perm[i] = i;
    rx__stream s;
    rx__stream_init(&s, RX__SPLIT_KEY, split, RX_STREAM_DATA, salt);
    for (int64_t i = 0; i < n; ++i) { /* partial Fisher-Yates */
        int64_t j = i + (int64_t)rx__uniform_int(&s, (uint64_t)(d->n - i));
        int64_t tmp = perm[i];
        perm[i] = perm[j];
        perm[j] = tmp;
    }
    qsort(perm, (size_t)n, sizeof(int64_t), cmp_i64);
    rx__dataset o;
    memset(&o, 0, sizeof o);
    rx_status st = rx__data_subset(&o, d, perm, n, err);
    free(perm);
    if (st != RX_OK)
        return st;
    rx__data_free(d);
    *d = o;
    return RX_OK;
}

/* The CSV file of cfg->data with its header, skip and target options. */
static rx_status load_csv(rx__dataset *all, const rx_config *cfg,
                          rx_err *err)
{
    rx__csvopts o;
    rx__csvopts_default(&o);
    o.header = cfg->data.header == 0 ? -1 : cfg->data.header == 1 ? 0 : 1;
    o.skip_rows = cfg->data.skip_rows;
    o.classification = cfg->data.task == RX_TASK_CLASSIFICATION;
    const char *tc = cfg->data.target_column;
    char *end = NULL;
    long idx = tc[0] ? strtol(tc, &end, 10) : -1;
    if (tc[0] && end && *end == '\0') {
        o.target_name = NULL;
        o.target_index = (int)idx;
    } else if (tc[0]) {
        o.target_name = tc;
    } else {
        o.target_name = NULL;
        o.target_index = -1;
    }
    return rx__data_load_csv(all, cfg->data.path, &o, err);
}

static rx_status load_sets(rx__netdata *nd, const rx_config *cfg,
                           rx_err *err)
{
    const rx_data_format fm = cfg->data.format;
    rx__dataset all, fixed_test;
    memset(&all, 0, sizeof all);
    memset(&fixed_test, 0, sizeof fixed_test);
    rx_status st = RX_OK;
    switch (fm) {
    case RX_DATA_CSV:
        st = load_csv(&all, cfg, err);
        break;
    case RX_DATA_IDX:
        st = rx__data_load_idx(&all, cfg->data.path, cfg->data.labels_path,
                               err);
        if (st == RX_OK && cfg->data.test_path[0])
            st = rx__data_load_idx(&fixed_test, cfg->data.test_path,
                                   cfg->data.test_labels_path, err);
        if (st == RX_OK && fixed_test.n > 0 && fixed_test.nfeat != all.nfeat)
            st = rx__fail(err, RX_EDATA,
                          "%s: %lld features per image, but %s has %lld",
                          cfg->data.test_path, (long long)fixed_test.nfeat,
                          cfg->data.path, (long long)all.nfeat);
        break;
    case RX_DATA_MNIST_JSON:
        st = rx__data_load_mnist_json(&all, cfg->data.path, err);
        break;
    case RX_DATA_SYNTHETIC:
        st = synthetic(&all, cfg, err);
        break;
    }
    if (st != RX_OK)
        goto out;
    if (fixed_test.n > 0) {
        nd->train = all;
        nd->test = fixed_test;
        memset(&all, 0, sizeof all);
        memset(&fixed_test, 0, sizeof fixed_test);
    } else {
        /* a file of test rows, or the seeded split of data.split */
        st = fm == RX_DATA_CSV && cfg->data.test_rows[0]
                 ? rx__data_split_rows(&all, cfg->data.test_rows, &nd->train,
                                       &nd->test, err)
                 : rx__data_split(&all, cfg->data.test_fraction,
                                  RX__SPLIT_KEY, (uint32_t)cfg->data.split,
                                  &nd->train, &nd->test, err);
        if (st != RX_OK)
            goto out;
        nd->split = 1;
    }
    /* class filters; the OOD set is the test rows of the held-out labels */
    if (nd->train.n_classes > 0) {
        const int K = nd->train.n_classes > nd->test.n_classes
                          ? nd->train.n_classes : nd->test.n_classes;
        int cls[1024], ood[1024], nc = 0, no = 0;
        for (int i = 0; i < cfg->data.ood_classes.n && no < 1024; ++i)
            ood[no++] = (int)cfg->data.ood_classes.v[i];
        for (int i = 0; i < cfg->data.classes.n && nc < 1024; ++i)
            cls[nc++] = (int)cfg->data.classes.v[i];
        if (nc == 0 && no > 0)
            for (int c = 0; c < K && nc < 1024; ++c) {
                int held = 0;
                for (int j = 0; j < no; ++j)
                    held |= ood[j] == c;
                if (!held)
                    cls[nc++] = c;
            }
        for (int i = 0; i < nc; ++i)
            if (cls[i] >= K) {
                st = rx__fail(err, RX_ECONFIG,
                              "data.classes: label %d does not occur in %s "
                              "(labels 0..%d)", cls[i], cfg->data.path, K - 1);
                goto out;
            }
        for (int i = 0; i < no; ++i)
            if (ood[i] >= K) {
                st = rx__fail(err, RX_ECONFIG,
                              "data.ood_classes: label %d does not occur in "
                              "%s (labels 0..%d)", ood[i], cfg->data.path,
                              K - 1);
                goto out;
            }
        if (no > 0) {
            st = rx__data_filter_classes(&nd->ood, &nd->test, ood, no, err);
            if (st != RX_OK)
                goto out;
        }
        if (nc > 0) {
            st = keep_classes(&nd->train, cls, nc, err);
            if (st == RX_OK)
                st = keep_classes(&nd->test, cls, nc, err);
            if (st != RX_OK)
                goto out;
        }
    }
    const uint32_t sid = (uint32_t)cfg->data.split;
    st = keep_random(&nd->train, cfg->data.max_train, sid, 2, err);
    if (st == RX_OK)
        st = keep_random(&nd->test, cfg->data.max_test, sid, 3, err);
    if (st == RX_OK && nd->ood.n > 0)
        st = keep_random(&nd->ood, cfg->data.max_test, sid, 4, err);
    if (st != RX_OK)
        goto out;
    if (nd->train.n < 1 || nd->test.n < 1) {
        st = rx__fail(err, RX_EDATA,
                      "%s: %lld training and %lld test examples after the "
                      "split and the class filters; need at least one of "
                      "each",
                      fm == RX_DATA_SYNTHETIC ? "data (synthetic)"
                                              : cfg->data.path,
                      (long long)nd->train.n, (long long)nd->test.n);
        goto out;
    }
    {
        rx__dataset *sets[3] = {&nd->train, &nd->test, &nd->ood};
        const int nsets = nd->ood.n > 0 ? 3 : 2;
        const int image = fm == RX_DATA_IDX || fm == RX_DATA_MNIST_JSON;
        const int feats = image ? cfg->data.pixel_sd > 0.0
                                : cfg->data.standardise;
        const int targ = nd->train.n_classes == 0 &&
                         cfg->data.standardise_target;
        if (feats || targ) {
            rx__dataset train_copy = nd->train; /* stats before changes */
            st = rx__data_standardise(sets, nsets, &train_copy, feats, targ,
                                      image ? cfg->data.pixel_mean : 0.0,
                                      image ? cfg->data.pixel_sd : 0.0, err);
        }
    }
out:
    rx__data_free(&all);
    rx__data_free(&fixed_test);
    return st;
}

static rx__layer_kind layer_kind(rx_layer_kind k)
{
    switch (k) {
    case RX_L_DENSE: return RX_LAYER_DENSE;
    case RX_L_CONV2D: return RX_LAYER_CONV2D;
    case RX_L_MAXPOOL: return RX_LAYER_MAXPOOL;
    case RX_L_RELU: return RX_LAYER_RELU;
    case RX_L_TANH: return RX_LAYER_TANH;
    case RX_L_FLATTEN: return RX_LAYER_FLATTEN;
    }
    return RX_LAYER_FLATTEN;
}

static rx_status eval_net(const rx__target *t, rx__tws *w, uint32_t particle,
                          uint64_t k, const double *theta, double *energy,
                          double *grad, double *pe);
static const int32_t *cv_batch_net(const rx__target *t, rx__tws *w,
                                   uint32_t particle, uint64_t k);
static rx_status cv_losses_net(const rx__target *t, rx__tws *w,
                               const double *theta, const int32_t *idx, int n,
                               double *out);
static double cv_prior_net(const rx__target *t, const double *theta);

static void weight_prior_norm(const rx__netdata *nd, double n[2]);

rx_status rx__network_init(rx__target *t, const rx_config *cfg, rx_err *err)
{
    rx__netdata *nd = calloc(1, sizeof *nd);
    if (!nd)
        return rx__fail(err, RX_ENOMEM, "target: out of memory");
    t->u.net = nd;
    t->destroy = netdata_free;
    rx_status st = load_sets(nd, cfg, err);
    if (st != RX_OK)
        return st;
    nd->classify = nd->train.n_classes > 0;
    const rx__dataset *tr = &nd->train;
    rx__layerspec ls[RX_MAX_LAYERS];
    for (int i = 0; i < cfg->model.n_layers; ++i) {
        const rx_layer *L = &cfg->model.layers[i];
        ls[i].kind = layer_kind(L->kind);
        ls[i].units = L->units;
        ls[i].filters = L->filters;
        ls[i].ksize = L->kernel;
        ls[i].stride = L->stride;
        ls[i].pad = L->pad;
    }
    const rx_layer *last = &cfg->model.layers[cfg->model.n_layers - 1];
    const int n_out = last->kind == RX_L_DENSE ? last->units : -1;
    const int want = nd->classify ? tr->n_classes : 1;
    if (n_out != want)
        return rx__fail(err, RX_ECONFIG,
                        "model.layers[%d]: the last layer has %d outputs "
                        "but %s", cfg->model.n_layers - 1, n_out,
                        nd->classify ? "the data have a different number "
                                       "of classes"
                                     : "a regression model has 1 output");
    rx__netspec sp;
    memset(&sp, 0, sizeof sp);
    sp.in_c = tr->c > 0 ? tr->c : 1;
    sp.in_h = tr->h > 0 ? tr->h : 1;
    sp.in_w = tr->w > 0 ? tr->w : (int)tr->nfeat;
    sp.n_layers = cfg->model.n_layers;
    sp.layers = ls;
    sp.lik = nd->classify ? RX_LIK_SOFTMAX : RX_LIK_GAUSSIAN;
    sp.n_out = n_out;
    sp.noise_var = cfg->model.noise_var;
    sp.learn_precision = cfg->model.learn_precision;
    sp.conv = (rx__conv_algo)cfg->model.conv;
    sp.gemm = (rx__gemm_algo)cfg->model.gemm;
    st = rx__net_create(&nd->net, &sp, err);
    if (st != RX_OK)
        return st;
    if (rx__net_in_dim(nd->net) != (size_t)tr->nfeat)
        return rx__fail(err, RX_ECONFIG,
                        "model.layers: the network takes %zu inputs but the "
                        "data have %lld features",
                        rx__net_in_dim(nd->net), (long long)tr->nfeat);
    nd->np = rx__net_nparams(nd->net);
    nd->learn_prec = cfg->model.learn_precision;
    nd->nw = nd->np - (nd->learn_prec ? 1 : 0);
    nd->hyper = cfg->model.weight_precision_a > 0.0;
    nd->dim = nd->np + (nd->hyper ? 1 : 0);
    nd->N = tr->n;
    nd->lambda = cfg->model.weight_decay * (double)tr->n +
                 cfg->model.prior_precision;
    nd->wprec_a = cfg->model.weight_precision_a;
    nd->wprec_b = cfg->model.weight_precision_b;
    if (nd->hyper) { /* start at the fixed prior's lambda, else a / b */
        nd->psi0 = log(nd->lambda > 0.0 ? nd->lambda
                                        : nd->wprec_a / nd->wprec_b);
        nd->lambda = 1.0; /* the scale lives in psi */
    }
    if (cfg->model.prior_scale == 1 && nd->nw > 0) {
        nd->lam = malloc(nd->nw * sizeof *nd->lam);
        if (!nd->lam)
            return rx__fail(err, RX_ENOMEM,
                            "model.prior_scale: no memory for %zu "
                            "precisions", nd->nw);
        rx__net_fan_in(nd->net, nd->lam);
        for (size_t j = 0; j < nd->nw; ++j)
            nd->lam[j] *= nd->lambda;
    }
    weight_prior_norm(nd, nd->prior_norm);
    nd->noise_var = cfg->model.noise_var;
    nd->prec_a = cfg->model.precision_a;
    nd->prec_b = cfg->model.precision_b;
    nd->bs = cfg->data.batch_size;
    nd->shared = cfg->data.shared_minibatch;
    nd->eval_batch = cfg->evaluate.batch;
    nd->n_out = n_out;
    nd->y_mean = tr->y_mean;
    nd->y_sd = tr->y_sd > 0 ? tr->y_sd : 1.0;
    if (nd->bs > tr->n)
        return rx__fail(err, RX_ECONFIG,
                        "data.batch_size: %d is larger than the %lld "
                        "training examples", nd->bs, (long long)tr->n);
    t->dim = nd->dim;
    t->eval = NULL;
    t->eval_ws = eval_net;
    t->cv.N = nd->N;
    t->cv.bs = nd->bs;
    t->cv.batch = cv_batch_net;
    t->cv.losses = cv_losses_net;
    t->cv.prior = cv_prior_net;
    return RX_OK;
}

void rx__tws_destroy(rx__tws **wp)
{
    if (!wp || !*wp)
        return;
    rx__tws *w = *wp;
    rx__netws_destroy(&w->ws);
    rx__free_aligned(w->w);
    rx__free_aligned(w->g);
    rx__free_aligned(w->xb);
    rx__free_aligned(w->yb);
    rx__free_aligned(w->out);
    free(w->ib);
    free(w->pe);
    rx__batcher_free(&w->shared_b);
    if (w->pb)
        for (int i = 0; i < w->hi - w->lo; ++i)
            rx__batcher_free(&w->pb[i]);
    free(w->pb);
    free(w);
    *wp = NULL;
}

rx_status rx__tws_create(const rx__target *t, int lo, int hi, uint64_t seed,
                         rx__tws **out, rx_err *err)
{
    *out = NULL;
    if (!t->eval_ws)
        return RX_OK;
    if (t->tws_create)
        return t->tws_create(t, lo, hi, seed, out, err);
    const rx__netdata *nd = t->u.net;
    rx__tws *w = calloc(1, sizeof *w);
    if (!w)
        return rx__fail(err, RX_ENOMEM, "target: out of memory");
    w->lo = lo;
    w->hi = hi;
    const int mb = nd->bs > nd->eval_batch ? nd->bs : nd->eval_batch;
    const size_t in = (size_t)nd->train.nfeat;
    w->ws = rx__netws_create(nd->net, mb, 1);
    w->w = rx__alloc_aligned(nd->np * sizeof(float), 64);
    w->g = rx__alloc_aligned(nd->np * sizeof(float), 64);
    w->xb = rx__alloc_aligned((size_t)nd->bs * in * sizeof(float), 64);
    w->yb = rx__alloc_aligned((size_t)nd->bs * sizeof(float), 64);
    w->out = rx__alloc_aligned((size_t)nd->eval_batch * (size_t)nd->n_out *
                                   sizeof(float), 64);
    w->ib = malloc((size_t)nd->bs * sizeof(int32_t));
    rx_status st = RX_OK;
    if (!w->ws || !w->w || !w->g || !w->xb || !w->yb || !w->out || !w->ib)
        st = rx__fail(err, RX_ENOMEM, "target: out of memory for a network "
                      "workspace");
    if (st == RX_OK && nd->shared)
        st = rx__batcher_init(&w->shared_b, nd->train.n, nd->bs, seed,
                              RX__SHARED_BATCH, err);
    if (st == RX_OK && !nd->shared && hi > lo) {
        w->pb = calloc((size_t)(hi - lo), sizeof *w->pb);
        if (!w->pb)
            st = rx__fail(err, RX_ENOMEM, "target: out of memory");
        for (int i = lo; st == RX_OK && i < hi; ++i)
            st = rx__batcher_init(&w->pb[i - lo], nd->train.n, nd->bs, seed,
                                  (uint32_t)i, err);
    }
    if (st != RX_OK) {
        rx__tws_destroy(&w);
        return st;
    }
    *out = w;
    return RX_OK;
}

/* The weight prior's -log normalisers, constants of the net: n[0] the
 * Gaussian's (1/2) sum_j (log 2 pi - log lambda_j); n[1], with the
 * hierarchical prior, lambda's Gamma(a, b) as a density of psi, log
 * Gamma(a) - a log b (the weights' -(nw/2) psi is in weight_prior). */
static void weight_prior_norm(const rx__netdata *nd, double n[2])
{
    const double log_2pi = 1.8378770664093454836;
    if (nd->lam) {
        double logdet = 0.0;
        for (size_t j = 0; j < nd->nw; ++j)
            logdet += log(nd->lam[j]);
        n[0] = 0.5 * ((double)nd->nw * log_2pi - logdet);
    } else {
        n[0] = 0.5 * (double)nd->nw * (log_2pi - log(nd->lambda));
    }
    n[1] = nd->hyper ? lgamma(nd->wprec_a) - nd->wprec_a * log(nd->wprec_b)
                     : 0.0;
}

/* (1/2) sum_j lambda_j theta_j^2 over the weights; grad (may be NULL)
 * gets lambda_j theta_j added. With the hierarchical prior lambda_j =
 * e^psi x (the fixed part), and the energy and grad[nw] get the psi terms
 * of the file comment. */
static double weight_prior(const rx__netdata *nd, const double *theta,
                           double *grad)
{
    const double m = nd->hyper ? exp(theta[nd->nw]) : 1.0;
    double sq = 0.0;
    for (size_t j = 0; j < nd->nw; ++j) {
        const double l = nd->lam ? nd->lam[j] : nd->lambda;
        sq += l * theta[j] * theta[j];
        if (grad)
            grad[j] += m * l * theta[j];
    }
    double U = 0.5 * m * sq;
    if (nd->hyper) {
        const double a = nd->wprec_a + 0.5 * (double)nd->nw;
        U += nd->wprec_b * m - a * theta[nd->nw];
        if (grad)
            grad[nd->nw] = 0.5 * m * sq + nd->wprec_b * m - a;
    }
    return U;
}

/* Energy of the float weights in w->w on the gathered batch; grad (double,
 * may be NULL) gets the full gradient. theta provides the double prior. */
static rx_status net_energy(const rx__netdata *nd, rx__tws *w,
                            const double *theta, const int32_t *idx,
                            double *energy, double *grad, double *pe)
{
    const size_t in = (size_t)nd->train.nfeat;
    const int n = nd->bs;
    for (int r = 0; r < n; ++r) {
        memcpy(w->xb + (size_t)r * in, nd->train.x + (size_t)idx[r] * in,
               in * sizeof(float));
        w->yb[r] = nd->train.y[idx[r]];
    }
    const double scale = (double)nd->N / (double)n;
    double loss = 0.0;
    rx_status st = rx__net_loss_grad(nd->net, w->ws, w->w, w->xb, w->yb, n,
                                     scale, &loss, grad ? w->g : NULL, pe);
    if (st != RX_OK)
        return st;
    if (grad)
        for (size_t j = 0; j < nd->nw; ++j)
            grad[j] = (double)w->g[j];
    double U = scale * loss + weight_prior(nd, theta, grad);
    if (nd->learn_prec) {
        double rho = theta[nd->dim - 1];
        U += nd->prec_b * exp(rho) - nd->prec_a * rho;
    }
    *energy = U;
    if (grad) {
        if (nd->learn_prec) {
            double rho = theta[nd->dim - 1];
            grad[nd->dim - 1] = (double)w->g[nd->np - 1] +
                                nd->prec_b * exp(rho) - nd->prec_a;
        }
    }
    return RX_OK;
}

static void round_theta(const rx__netdata *nd, rx__tws *w,
                        const double *theta)
{
    for (size_t j = 0; j < nd->nw; ++j)
        w->w[j] = (float)theta[j];
    if (nd->learn_prec)
        w->w[nd->np - 1] = (float)theta[nd->dim - 1];
}

static rx_status eval_net(const rx__target *t, rx__tws *w, uint32_t particle,
                          uint64_t k, const double *theta, double *energy,
                          double *grad, double *pe)
{
    const rx__netdata *nd = t->u.net;
    rx__batcher *b = nd->shared ? &w->shared_b
                                : &w->pb[(int)particle - w->lo];
    const int32_t *idx = rx__batcher_get(b, (int64_t)k);
    round_theta(nd, w, theta);
    return net_energy(nd, w, theta, idx, energy, grad, pe);
}

/* Control variates (src/estimate): the rows of evaluation k, forward-only
 * per-example losses of up to bs rows, and the prior energy. */
static const int32_t *cv_batch_net(const rx__target *t, rx__tws *w,
                                   uint32_t particle, uint64_t k)
{
    const rx__netdata *nd = t->u.net;
    rx__batcher *b = nd->shared ? &w->shared_b
                                : &w->pb[(int)particle - w->lo];
    return rx__batcher_get(b, (int64_t)k);
}

static rx_status cv_losses_net(const rx__target *t, rx__tws *w,
                               const double *theta, const int32_t *idx, int n,
                               double *out)
{
    const rx__netdata *nd = t->u.net;
    const size_t in = (size_t)nd->train.nfeat;
    if (n < 1 || n > nd->bs)
        return RX_EINVAL;
    round_theta(nd, w, theta);
    for (int r = 0; r < n; ++r) {
        memcpy(w->xb + (size_t)r * in, nd->train.x + (size_t)idx[r] * in,
               in * sizeof(float));
        w->yb[r] = nd->train.y[idx[r]];
    }
    double loss = 0.0;
    return rx__net_loss_grad(nd->net, w->ws, w->w, w->xb, w->yb, n, 1.0,
                             &loss, NULL, out);
}

static double cv_prior_net(const rx__target *t, const double *theta)
{
    const rx__netdata *nd = t->u.net;
    double U = weight_prior(nd, theta, NULL);
    if (nd->learn_prec) {
        double rho = theta[nd->dim - 1];
        U += nd->prec_b * exp(rho) - nd->prec_a * rho;
    }
    return U;
}

/* The prior as the normalised reference of the path: N(0, 1/lambda) per
 * weight, and the Gamma(a, b) prior of a learned noise precision e^rho
 * as a density of rho, b e^rho - a rho + log Gamma(a) - a log b; with the
 * hierarchical prior lambda's Gamma prior as a density of psi likewise
 * (the weights' -(nw/2) psi is in weight_prior). */
rx_status rx__network_prior(const rx__target *t, const double *theta,
                            double *u0, double *g0)
{
    const rx__netdata *nd = t->u.net;
    if (g0)
        memset(g0, 0, nd->nw * sizeof *g0);
    double U = weight_prior(nd, theta, g0);
    U += nd->prior_norm[0]; /* in the order of the sums before: same bits */
    if (nd->hyper)
        U += nd->prior_norm[1];
    if (nd->learn_prec) {
        double rho = theta[nd->dim - 1], a = nd->prec_a, b = nd->prec_b;
        U += b * exp(rho) - a * rho + lgamma(a) - a * log(b);
        if (g0)
            g0[nd->dim - 1] = b * exp(rho) - a;
    }
    *u0 = U;
    return RX_OK;
}

/* sum_{i=1}^N l_i(theta) over the training set, bs rows at a time. */
rx_status rx__network_like_full(const rx__target *t, rx__tws *w,
                                const double *theta, double *u_like)
{
    const rx__netdata *nd = t->u.net;
    const size_t in = (size_t)nd->train.nfeat;
    round_theta(nd, w, theta);
    double total = 0.0;
    for (int64_t r0 = 0; r0 < nd->N; r0 += nd->bs) {
        const int n = nd->N - r0 < nd->bs ? (int)(nd->N - r0) : nd->bs;
        memcpy(w->xb, nd->train.x + (size_t)r0 * in,
               (size_t)n * in * sizeof(float));
        memcpy(w->yb, nd->train.y + r0, (size_t)n * sizeof(float));
        double loss = 0.0;
        rx_status st = rx__net_loss_grad(nd->net, w->ws, w->w, w->xb, w->yb,
                                         n, 1.0, &loss, NULL, NULL);
        if (st != RX_OK)
            return st;
        total += loss;
    }
    *u_like = total;
    return isfinite(total) ? RX_OK : RX_ENUMERIC;
}

double rx__network_batch_var(const rx__target *t, rx__tws *w,
                             const double *theta, int J, uint64_t seed,
                             uint32_t entity, uint64_t k)
{
    /* J energies at the frozen theta on J independent random batches */
    const rx__netdata *nd = t->u.net;
    round_theta(nd, w, theta);
    rx__stream s;
    rx__stream_init(&s, seed, entity, RX_STREAM_VARIANCE, k);
    int32_t *idx = w->ib;
    double m = 0.0, q = 0.0;
    for (int j = 0; j < J; ++j) {
        for (int r = 0; r < nd->bs; ++r)
            idx[r] = (int32_t)rx__uniform_int(&s, (uint64_t)nd->train.n);
        double e = 0.0;
        if (net_energy(nd, w, theta, idx, &e, NULL, NULL) != RX_OK)
            return NAN;
        double d = e - m;
        m += d / (j + 1);
        q += d * (e - m);
    }
    return J > 1 ? q / (J - 1) : 0.0;
}

int rx__network_init_point(const rx__target *t, double *theta, uint64_t seed,
                           uint32_t particle, rx__tws *w)
{
    if (!rx__target_is_network(t))
        return 0;
    const rx__netdata *nd = t->u.net;
    rx__stream s;
    rx__stream_init(&s, seed, particle, RX_STREAM_MODELINIT, 0);
    rx__net_init_params(nd->net, w->w, &s);
    for (size_t j = 0; j < nd->nw; ++j)
        theta[j] = (double)w->w[j];
    if (nd->hyper)
        theta[nd->nw] = nd->psi0;
    if (nd->learn_prec)
        theta[nd->dim - 1] = (double)w->w[nd->np - 1];
    return 1;
}

/* Bytes of the data sets (x and y of train, test, OOD) and of one thread's
 * scratch. */
void rx__network_mem(const rx__target *t, const rx__tws *w, double *data,
                     double *scratch)
{
    const rx__netdata *nd = t->u.net;
    const rx__dataset *ds[3] = {&nd->train, &nd->test, &nd->ood};
    double b = 0.0;
    for (int i = 0; i < 3; ++i)
        b += (double)ds[i]->n * (double)(ds[i]->nfeat + 1) * 4.0;
    *data = b;
    double s = 0.0;
    if (w) {
        s += (double)rx__netws_bytes(w->ws);
        s += 2.0 * (double)nd->np * 4.0;
        s += (double)nd->bs * (double)(nd->train.nfeat + 1) * 4.0;
        s += (double)nd->eval_batch * nd->n_out * 4.0;
        if (w->pb)
            s += (double)(w->hi - w->lo) * (double)nd->train.n * 4.0;
        else
            s += (double)nd->train.n * 4.0;
    }
    *scratch = s;
}

/* ---- posterior predictive ----------------------------------------------- */

int64_t rx__network_rows(const rx__target *t, int set)
{
    const rx__netdata *nd = t->u.net;
    return set == 0 ? nd->test.n : nd->ood.n;
}

int rx__network_nout(const rx__target *t) { return t->u.net->n_out; }

int64_t rx__network_split_rows(const rx__target *t, int set,
                               const int64_t **rows)
{
    const rx__netdata *nd = t->u.net;
    const rx__dataset *d = set == 0 ? &nd->test : &nd->train;
    *rows = nd->split ? d->row : NULL;
    return *rows ? d->n : 0;
}

int rx__network_test_y(const rx__target *t, double *y)
{
    const rx__netdata *nd = t->u.net;
    for (int64_t r = 0; r < nd->test.n; ++r)
        y[r] = nd->classify ? (double)nd->test.y[r]
                            : (double)nd->test.y[r] * nd->y_sd + nd->y_mean;
    return nd->classify;
}

/*
 * Accumulate the predictions of S parameter vectors (float, dim each, rows
 * of `models`) for rows [r0, r1) of set (0 test, 1 OOD), in model order:
 *   mean[r * n_out + c] += p_c / S (classification: probabilities;
 *   regression: f in original units, n_out = 1),
 *   regression: the running log-sum-exp (lmax[r], lsum[r]) of the
 *   per-model log N(y | f, s2) in original units.
 * Rows are independent, so any split of rows over threads gives the same
 * bits.
 */
rx_status rx__network_predict(const rx__target *t, rx__tws *w,
                              const float *models, int64_t S, int set,
                              int64_t r0, int64_t r1, double *mean,
                              double *lmax, double *lsum)
{
    const rx__netdata *nd = t->u.net;
    const rx__dataset *d = set == 0 ? &nd->test : &nd->ood;
    const size_t in = (size_t)d->nfeat;
    const int no = nd->n_out;
    const double inv_s = 1.0 / (double)S;
    for (int64_t r = r0; r < r1; ++r) {
        for (int c = 0; c < no; ++c)
            mean[r * no + c] = 0.0;
        if (lmax) {
            lmax[r] = -INFINITY;
            lsum[r] = 0.0;
        }
    }
    for (int64_t c0 = r0; c0 < r1; c0 += nd->eval_batch) {
        int n = (int)(r1 - c0 < nd->eval_batch ? r1 - c0 : nd->eval_batch);
        for (int64_t s = 0; s < S; ++s) {
            const float *wm = models + (size_t)s * nd->dim;
            rx_status st = rx__net_predict(nd->net, w->ws, wm,
                                           d->x + (size_t)c0 * in, n, w->out);
            if (st != RX_OK)
                return st;
            /* noise variance of this model, in original units */
            const double s2 = (nd->learn_prec ? exp(-(double)wm[nd->dim - 1])
                                              : nd->noise_var) *
                              nd->y_sd * nd->y_sd;
            for (int i = 0; i < n; ++i) {
                int64_t r = c0 + i;
                if (nd->classify) {
                    for (int c = 0; c < no; ++c)
                        mean[r * no + c] += inv_s * (double)w->out[i * no + c];
                    continue;
                }
                double f = (double)w->out[i] * nd->y_sd + nd->y_mean;
                double y = (double)d->y[r] * nd->y_sd + nd->y_mean;
                mean[r] += inv_s * f;
                double ll = -0.5 * log(2.0 * 3.14159265358979323846 * s2) -
                            0.5 * (y - f) * (y - f) / s2;
                if (ll > lmax[r]) {
                    lsum[r] = lsum[r] * exp(lmax[r] - ll) + 1.0;
                    lmax[r] = ll;
                } else {
                    lsum[r] += exp(ll - lmax[r]);
                }
            }
        }
    }
    return RX_OK;
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* Metrics from the accumulated predictions of S models over all rows. */
void rx__network_metrics(const rx__target *t, int64_t S, const double *mean,
                         const double *lmax, const double *lsum,
                         const double *ood_mean, int ece_bins,
                         rx_metrics *m)
{
    const rx__netdata *nd = t->u.net;
    const rx__dataset *d = &nd->test;
    const int no = nd->n_out;
    const int64_t R = d->n;
    memset(m, 0, sizeof *m);
    m->valid = 1;
    m->classification = nd->classify;
    m->n_models = S;
    m->n_test = R;
    m->n_ood = nd->ood.n;
    if (!nd->classify) {
        double se = 0.0, nll = 0.0;
        for (int64_t r = 0; r < R; ++r) {
            double y = (double)d->y[r] * nd->y_sd + nd->y_mean;
            double e = mean[r] - y;
            se += e * e;
            nll -= lmax[r] + log(lsum[r] / (double)S);
        }
        m->rmse = sqrt(se / (double)R);
        m->nll = nll / (double)R;
        return;
    }
    double nll = 0.0, brier = 0.0, ent = 0.0;
    int64_t correct = 0;
    int nb = ece_bins > 0 ? ece_bins : 15;
    double conf_sum[1000] = {0}, acc_sum[1000] = {0};
    int64_t cnt[1000] = {0};
    if (nb > 1000)
        nb = 1000;
    for (int64_t r = 0; r < R; ++r) {
        const double *p = mean + r * no;
        int y = (int)d->y[r], arg = 0;
        for (int c = 1; c < no; ++c)
            if (p[c] > p[arg])
                arg = c;
        correct += arg == y;
        double py = p[y] > 1e-300 ? p[y] : 1e-300;
        nll -= log(py);
        for (int c = 0; c < no; ++c) {
            double e = p[c] - (c == y ? 1.0 : 0.0);
            brier += e * e;
            if (p[c] > 0)
                ent -= p[c] * log(p[c]);
        }
        int b = (int)(p[arg] * nb);
        if (b >= nb)
            b = nb - 1;
        if (b < 0)
            b = 0;
        conf_sum[b] += p[arg];
        acc_sum[b] += arg == y;
        cnt[b]++;
    }
    double ece = 0.0;
    for (int b = 0; b < nb; ++b)
        if (cnt[b])
            ece += fabs(acc_sum[b] - conf_sum[b]) / (double)R;
    m->accuracy = (double)correct / (double)R;
    m->nll = nll / (double)R;
    m->brier = brier / (double)R;
    m->ece = ece;
    m->entropy_test = ent / (double)R;
    if (ood_mean && nd->ood.n > 0) {
        const int64_t O = nd->ood.n;
        double *h = malloc(sizeof(double) * (size_t)O);
        double es = 0.0;
        for (int64_t r = 0; r < O; ++r) {
            const double *p = ood_mean + r * no;
            double e = 0.0;
            for (int c = 0; c < no; ++c)
                if (p[c] > 0)
                    e -= p[c] * log(p[c]);
            es += e;
            if (h)
                h[r] = e;
        }
        m->entropy_ood = es / (double)O;
        if (h) {
            qsort(h, (size_t)O, sizeof(double), cmp_double);
            static const double qs[3] = {0.1, 0.5, 0.9};
            for (int q = 0; q < 3; ++q)
                m->entropy_ood_q[q] = h[(int64_t)(qs[q] * (double)(O - 1))];
            free(h);
        }
    }
}
