/*
 * Bayesian neural-network target: a data set (src/data, assembled by
 * src/data/assemble.c) and a network (src/model) behind the energy
 * interface; here the energy, the prior and the per-thread workspaces.
 * Its posterior predictive is predict.c, its scores src/record/metrics.c.
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
 *
 * Label noise (data.label_noise = x > 0, classification only): the
 * minibatch energy and gradient of evaluation k read the labels of its
 * batch stream's epoch, in which floor(x N) rows carry permuted labels
 * (src/data/batch.c); with shared batches every particle sees the same
 * noisy labels, else each particle its own. Everything else reads the
 * clean labels: the full-data sum of the losses (log Z), the random
 * batches of the sigma^2 estimate, the control variates (refused with
 * label noise) and the posterior predictive (predict.c).
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "../data/data.h"
#include "../model/model.h"
#include "netdata.h"
#include "target.h"
#include "tws.h"

#define RX__SHARED_BATCH 0xFFFFFFF0u

static void netdata_free(rx__target *t)
{
    rx__netdata *nd = t->u.net;
    if (!nd)
        return;
    rx__datasets_free(&nd->ds);
    rx__net_destroy(&nd->net);
    free(nd->lam);
    free(nd);
    t->u.net = NULL;
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
    case RX_L_LSTM: return RX_LAYER_LSTM;
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
    rx_status st = rx__data_assemble(&nd->ds, cfg, err);
    if (st != RX_OK)
        return st;
    nd->classify = nd->ds.train.n_classes > 0;
    const rx__dataset *tr = &nd->ds.train;
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
    /* the key of the configuration's `labels` row (a layer above this
     * one), read through the keyed getter */
    nd->label_noise = 0.0;
    if (nd->classify &&
        rx_config_get_real(cfg, "data.label_noise", &nd->label_noise,
                           NULL) != RX_OK)
        nd->label_noise = 0.0;
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
    const size_t in = (size_t)nd->ds.train.nfeat;
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
    const double x = nd->label_noise;
    if (st == RX_OK && nd->shared) {
        st = rx__batcher_init(&w->shared_b, nd->ds.train.n, nd->bs, seed,
                              RX__SHARED_BATCH, err);
        if (st == RX_OK && x > 0.0)
            st = rx__batcher_label_noise(&w->shared_b, nd->ds.train.y, x,
                                         err);
    }
    if (st == RX_OK && !nd->shared && hi > lo) {
        w->pb = calloc((size_t)(hi - lo), sizeof *w->pb);
        if (!w->pb)
            st = rx__fail(err, RX_ENOMEM, "target: out of memory");
        for (int i = lo; st == RX_OK && i < hi; ++i) {
            st = rx__batcher_init(&w->pb[i - lo], nd->ds.train.n, nd->bs,
                                  seed, (uint32_t)i, err);
            if (st == RX_OK && x > 0.0)
                st = rx__batcher_label_noise(&w->pb[i - lo],
                                             nd->ds.train.y, x, err);
        }
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

/* Energy of the float weights in w->w on the gathered batch with the
 * training labels y (the clean ones, or an epoch's noisy ones); grad
 * (double, may be NULL) gets the full gradient. theta provides the
 * double prior. */
static rx_status net_energy(const rx__netdata *nd, rx__tws *w,
                            const double *theta, const int32_t *idx,
                            const float *y, double *energy, double *grad,
                            double *pe)
{
    const size_t in = (size_t)nd->ds.train.nfeat;
    const int n = nd->bs;
    for (int r = 0; r < n; ++r) {
        memcpy(w->xb + (size_t)r * in,
               nd->ds.train.x + (size_t)idx[r] * in, in * sizeof(float));
        w->yb[r] = y[idx[r]];
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
    const float *y = rx__batcher_labels(b);
    round_theta(nd, w, theta);
    return net_energy(nd, w, theta, idx, y ? y : nd->ds.train.y, energy,
                      grad, pe);
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
    const size_t in = (size_t)nd->ds.train.nfeat;
    if (n < 1 || n > nd->bs)
        return RX_EINVAL;
    round_theta(nd, w, theta);
    for (int r = 0; r < n; ++r) {
        memcpy(w->xb + (size_t)r * in,
               nd->ds.train.x + (size_t)idx[r] * in, in * sizeof(float));
        w->yb[r] = nd->ds.train.y[idx[r]];
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

int rx__network_prior_law(const rx__target *t, double *mean, double *sd)
{
    const rx__netdata *nd = t->u.net;
    if (nd->hyper || nd->learn_prec)
        return 0;
    /* U_0 = (1/2) sum_j lambda_j theta_j^2 + prior_norm[0], theta_j ~
     * N(0, 1 / lambda_j): chi^2_nw / 2 + the normaliser */
    *mean = nd->prior_norm[0] + 0.5 * (double)nd->nw;
    *sd = sqrt(0.5 * (double)nd->nw);
    return 1;
}

/* sum_{i=1}^N l_i(theta) over the training set, bs rows at a time, with
 * the clean labels (label noise is a perturbation of the minibatches, not
 * of the target whose evidence log Z estimates). */
rx_status rx__network_like_full(const rx__target *t, rx__tws *w,
                                const double *theta, double *u_like)
{
    const rx__netdata *nd = t->u.net;
    const size_t in = (size_t)nd->ds.train.nfeat;
    round_theta(nd, w, theta);
    double total = 0.0;
    for (int64_t r0 = 0; r0 < nd->N; r0 += nd->bs) {
        const int n = nd->N - r0 < nd->bs ? (int)(nd->N - r0) : nd->bs;
        memcpy(w->xb, nd->ds.train.x + (size_t)r0 * in,
               (size_t)n * in * sizeof(float));
        memcpy(w->yb, nd->ds.train.y + r0, (size_t)n * sizeof(float));
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
            idx[r] = (int32_t)rx__uniform_int(&s, (uint64_t)nd->ds.train.n);
        double e = 0.0;
        if (net_energy(nd, w, theta, idx, nd->ds.train.y, &e, NULL,
                       NULL) != RX_OK)
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
    const rx__dataset *sets[3] = {&nd->ds.train, &nd->ds.test,
                                  &nd->ds.ood};
    double b = 0.0;
    for (int i = 0; i < 3; ++i)
        b += (double)sets[i]->n * (double)(sets[i]->nfeat + 1) * 4.0;
    *data = b;
    double s = 0.0;
    if (w) {
        s += (double)rx__netws_bytes(w->ws);
        s += 2.0 * (double)nd->np * 4.0;
        s += (double)nd->bs * (double)(nd->ds.train.nfeat + 1) * 4.0;
        s += (double)nd->eval_batch * nd->n_out * 4.0;
        /* a batcher's permutation, and its labels under label noise */
        const double per = (double)nd->ds.train.n * 4.0 *
                           ((w->pb ? w->pb[0].ylab : w->shared_b.ylab)
                                ? 2.0 : 1.0);
        if (w->pb)
            s += (double)(w->hi - w->lo) * per;
        else
            s += per;
    }
    *scratch = s;
}

