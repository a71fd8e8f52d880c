/* The paired minibatch estimate of the noise-aware exchange test: see
 * pairdiff.h. */
#include <math.h>
#include <stdlib.h>

#include "../core/rng_inline.h"
#include "pairdiff.h"

rx_status rx__pdws_create(rx__pdws **out, int64_t N, int bs)
{
    *out = NULL;
    if (N < 1 || bs < 1 || N > INT32_MAX)
        return RX_EINVAL;
    rx__pdws *w = calloc(1, sizeof *w);
    if (!w)
        return RX_ENOMEM;
    w->N = N;
    w->bs = bs;
    w->perm = malloc(sizeof(int32_t) * (size_t)N);
    w->swp = malloc(sizeof(int32_t) * (size_t)N);
    w->la = malloc(sizeof(double) * (size_t)bs);
    w->lb = malloc(sizeof(double) * (size_t)bs);
    if (!w->perm || !w->swp || !w->la || !w->lb) {
        rx__pdws_destroy(&w);
        return RX_ENOMEM;
    }
    for (int64_t i = 0; i < N; ++i)
        w->perm[i] = (int32_t)i;
    *out = w;
    return RX_OK;
}

void rx__pdws_destroy(rx__pdws **w)
{
    if (!*w)
        return;
    free((*w)->perm);
    free((*w)->swp);
    free((*w)->la);
    free((*w)->lb);
    free(*w);
    *w = NULL;
}

/* The losses of rows perm[j0 .. j1) at both parameter vectors, pushed
 * onto the running mean and sum of squares of their differences. */
static rx_status push_rows(const rx__target *t, rx__tws *tw, rx__pdws *w,
                           const double *ta, const double *tb, int64_t j0,
                           int64_t j1, int64_t *n, double *mean, double *m2)
{
    for (int64_t c0 = j0; c0 < j1; c0 += w->bs) {
        const int m = (int)(j1 - c0 < w->bs ? j1 - c0 : w->bs);
        rx_status st = t->cv.losses(t, tw, ta, w->perm + c0, m, w->la);
        if (st == RX_OK)
            st = t->cv.losses(t, tw, tb, w->perm + c0, m, w->lb);
        if (st != RX_OK)
            return st;
        for (int r = 0; r < m; ++r) {
            const double d = w->la[r] - w->lb[r];
            if (!isfinite(d))
                return RX_ENUMERIC;
            ++*n;
            const double delta = d - *mean;
            *mean += delta / (double)*n;
            *m2 += delta * (d - *mean);
        }
    }
    return RX_OK;
}

rx_status rx__pd_estimate(const rx__target *t, rx__tws *tw, rx__pdws *w,
                          const rx__pdconf *pc, const double *theta_a,
                          const double *theta_b, double dbeta, uint32_t pair,
                          uint64_t k, rx__pdest *out)
{
    const int64_t N = w->N;
    const int64_t lim = pc->cap > 0 && pc->cap < N ? pc->cap : N;
    const double Nd = (double)N, b2 = dbeta * dbeta;
    rx__stream s;
    rx__stream_init(&s, pc->seed, pair | RX__PD_ENTITY, RX_STREAM_XTEST, k);
    int64_t n = 0, drawn = 0;
    double mean = 0.0, m2 = 0.0, var = INFINITY;
    rx_status st = RX_OK;
    do {
        const int64_t take = pc->inc < lim - drawn ? pc->inc : lim - drawn;
        for (int64_t j = drawn; j < drawn + take; ++j) {
            const int64_t r =
                j + (int64_t)rx__uniform_int(&s, (uint64_t)(N - j));
            const int32_t x = w->perm[j];
            w->perm[j] = w->perm[r];
            w->perm[r] = x;
            w->swp[j] = (int32_t)r;
        }
        st = push_rows(t, tw, w, theta_a, theta_b, drawn, drawn + take, &n,
                       &mean, &m2);
        drawn += take;
        if (st != RX_OK)
            break;
        if (n >= N)
            var = 0.0; /* the whole data: exact */
        else if (n >= 2)
            var = b2 * Nd * Nd * (m2 / (double)(n - 1)) / (double)n *
                  ((double)(N - n) / Nd);
    } while (var >= pc->s2star && drawn < lim);
    for (int64_t j = drawn - 1; j >= 0; --j) { /* back to the identity */
        const int64_t r = w->swp[j];
        const int32_t x = w->perm[j];
        w->perm[j] = w->perm[r];
        w->perm[r] = x;
    }
    if (st != RX_OK)
        return st;
    /* the reference path's swaps read U_like: its reference is the prior */
    const double dprior =
        pc->like_only ? 0.0 : t->cv.prior(t, theta_a) - t->cv.prior(t, theta_b);
    out->dU = dprior + Nd * mean;
    out->var = var;
    out->n = n;
    return isfinite(out->dU) ? RX_OK : RX_ENUMERIC;
}
