/*
 * Private to src/target/: the network target's state, shared by its
 * energy (network.c) and its posterior predictive (predict.c).
 */
#ifndef RX_TARGET_NETDATA_H
#define RX_TARGET_NETDATA_H

#include "../data/data.h"
#include "../model/model.h"
#include "target.h"

struct rx__netdata {
    rx__datasets ds;    /* train, test, OOD (src/data/assemble.c) */
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
    double label_noise; /* data.label_noise: the fraction of training
                           labels each epoch permutes (0: off) */
    double y_mean, y_sd;
};

#endif
