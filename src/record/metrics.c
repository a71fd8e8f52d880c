/*
 * Posterior-predictive scores (RMSE, NLL, accuracy, Brier, ECE, entropies)
 * from accumulated predictions and the test targets. Plain arithmetic over
 * arrays, run once after the run on one thread; it knows nothing of the
 * network that made the predictions.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "metrics.h"

static void regression(const rx__predtruth *tr, int64_t S,
                       const double *mean, const double *lmax,
                       const double *lsum, rx_metrics *m)
{
    const int64_t R = tr->n;
    double se = 0.0, nll = 0.0;
    for (int64_t r = 0; r < R; ++r) {
        double y = tr->y[r];
        double e = mean[r] - y;
        se += e * e;
        nll -= lmax[r] + log(lsum[r] / (double)S);
    }
    m->rmse = sqrt(se / (double)R);
    m->nll = nll / (double)R;
}

static void classification(const rx__predtruth *tr, const double *mean,
                           int ece_bins, rx_metrics *m)
{
    const int no = tr->n_out;
    const int64_t R = tr->n;
    double nll = 0.0, brier = 0.0, ent = 0.0;
    int64_t correct = 0;
    int nb = ece_bins > 0 ? ece_bins : 15;
    double conf_sum[1000] = {0}, acc_sum[1000] = {0};
    int64_t cnt[1000] = {0};
    if (nb > 1000)
        nb = 1000;
    for (int64_t r = 0; r < R; ++r) {
        const double *p = mean + r * no;
        int y = (int)tr->y[r], arg = 0;
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
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* The mean predictive entropy of the OOD rows and its 10/50/90 %
 * quantiles (left 0 if the sort buffer cannot be had). */
static void ood_entropy(const rx__predtruth *tr, const double *ood_mean,
                        rx_metrics *m)
{
    const int no = tr->n_out;
    const int64_t O = tr->n_ood;
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

void rx__pred_metrics(const rx__predtruth *tr, int64_t S, const double *mean,
                      const double *lmax, const double *lsum,
                      const double *ood_mean, int ece_bins, rx_metrics *m)
{
    memset(m, 0, sizeof *m);
    m->valid = 1;
    m->classification = tr->classify;
    m->n_models = S;
    m->n_test = tr->n;
    m->n_ood = tr->n_ood;
    if (!tr->classify) {
        regression(tr, S, mean, lmax, lsum, m);
        return;
    }
    classification(tr, mean, ece_bins, m);
    if (ood_mean && tr->n_ood > 0)
        ood_entropy(tr, ood_mean, m);
}
