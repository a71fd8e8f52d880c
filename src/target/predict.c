/*
 * The network target's posterior predictive: its test and OOD sets as the
 * evaluation sees them (row counts, outputs, the file rows of a split,
 * the targets in original units) and the predictions of a set of
 * parameter vectors on them. The scores (RMSE, NLL, accuracy, ECE, ...)
 * are src/record/metrics.c's: they need the targets and the predictions,
 * not the network.
 */
#include <math.h>

#include "netdata.h"
#include "target.h"
#include "tws.h"

int64_t rx__network_rows(const rx__target *t, int set)
{
    const rx__netdata *nd = t->u.net;
    return set == 0 ? nd->ds.test.n : nd->ds.ood.n;
}

int rx__network_nout(const rx__target *t) { return t->u.net->n_out; }

double rx__network_y_sd(const rx__target *t) { return t->u.net->y_sd; }

int64_t rx__network_split_rows(const rx__target *t, int set,
                               const int64_t **rows)
{
    const rx__netdata *nd = t->u.net;
    const rx__dataset *d = set == 0 ? &nd->ds.test : &nd->ds.train;
    *rows = nd->ds.split ? d->row : NULL;
    return *rows ? d->n : 0;
}

int rx__network_test_y(const rx__target *t, double *y)
{
    const rx__netdata *nd = t->u.net;
    const rx__dataset *d = &nd->ds.test;
    for (int64_t r = 0; r < d->n; ++r)
        y[r] = nd->classify ? (double)d->y[r]
                            : (double)d->y[r] * nd->y_sd + nd->y_mean;
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
    const rx__dataset *d = set == 0 ? &nd->ds.test : &nd->ds.ood;
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
