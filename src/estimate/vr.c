/*
 * The control-variate energy estimator (see vr.h). Owns nothing but its
 * per-thread scratch; reads the target through rx__target.cv and draws
 * batches from counter streams keyed by (seed, particle, k), so results do
 * not depend on the calling thread.
 */
#include <math.h>
#include <stdlib.h>

#include "vr.h"

rx_status rx__vrws_create(rx__vrws **out, int bs, int J)
{
    *out = NULL;
    rx__vrws *w = calloc(1, sizeof *w);
    if (!w)
        return RX_ENOMEM;
    w->bs = bs;
    w->J = J > 0 ? J : 1;
    w->pe = malloc(sizeof(double) * (size_t)bs);
    w->la = malloc(sizeof(double) * (size_t)bs);
    w->lb = malloc(sizeof(double) * (size_t)bs);
    w->idx = malloc(sizeof(int32_t) * (size_t)bs);
    w->ea = malloc(sizeof(double) * (size_t)w->J);
    w->eb = malloc(sizeof(double) * (size_t)w->J);
    if (!w->pe || !w->la || !w->lb || !w->idx || !w->ea || !w->eb) {
        rx__vrws_destroy(&w);
        return RX_ENOMEM;
    }
    *out = w;
    return RX_OK;
}

void rx__vrws_destroy(rx__vrws **wp)
{
    if (!wp || !*wp)
        return;
    rx__vrws *w = *wp;
    free(w->pe);
    free(w->la);
    free(w->lb);
    free(w->idx);
    free(w->ea);
    free(w->eb);
    free(w);
    *wp = NULL;
}

/* Neumaier-compensated running sum. */
static inline void nsum(double *s, double *comp, double x)
{
    double t = *s + x;
    if (fabs(*s) >= fabs(x))
        *comp += (*s - t) + x;
    else
        *comp += (x - t) + *s;
    *s = t;
}

rx_status rx__vr_anchor_energy(const rx__target *t, rx__tws *tw,
                               rx__vrws *vw, const rx__vrconf *vc,
                               const double *anchor, uint64_t seed,
                               uint32_t entity, uint64_t k, double *lhat,
                               rx__vrcost *cost)
{
    const int64_t N = t->cv.N;
    const int bs = t->cv.bs;
    const int sub = vc->anchor_batch > 0 && vc->anchor_batch < N;
    const int64_t rows = sub ? vc->anchor_batch : N;
    rx__stream s;
    if (sub)
        rx__stream_init(&s, seed, entity, RX_STREAM_ESTIMATE, k);
    double sum = 0.0, comp = 0.0;
    for (int64_t r0 = 0; r0 < rows; r0 += bs) {
        int n = (int)(rows - r0 < bs ? rows - r0 : bs);
        for (int r = 0; r < n; ++r)
            vw->idx[r] = sub ? (int32_t)rx__uniform_int(&s, (uint64_t)N)
                             : (int32_t)(r0 + r);
        rx_status st = t->cv.losses(t, tw, anchor, vw->idx, n, vw->lb);
        if (st != RX_OK)
            return st;
        double cs = 0.0;
        for (int r = 0; r < n; ++r)
            cs += vw->lb[r];
        nsum(&sum, &comp, cs);
    }
    *lhat = (sum + comp) * (sub ? (double)N / (double)rows : 1.0);
    if (cost) {
        cost->fwd_rows += rows;
        cost->anchor_rows += rows;
        cost->anchor_passes++;
    }
    return isfinite(*lhat) ? RX_OK : RX_ENUMERIC;
}

rx_status rx__vr_energy(const rx__target *t, rx__tws *tw, rx__vrws *vw,
                        const double *theta, const double *la,
                        const int32_t *idx, const double *anchor,
                        const double *lb, double lhat, double c,
                        double *energy, rx__vrcost *cost)
{
    const int n = t->cv.bs;
    if (!lb) {
        rx_status st = t->cv.losses(t, tw, anchor, idx, n, vw->lb);
        if (st != RX_OK)
            return st;
        lb = vw->lb;
        if (cost)
            cost->fwd_rows += n;
    }
    double d = 0.0;
    for (int r = 0; r < n; ++r)
        d += la[r] + c * lb[r];
    const double scale = (double)t->cv.N / (double)n;
    *energy = scale * d - c * lhat + t->cv.prior(t, theta);
    return isfinite(*energy) ? RX_OK : RX_ENUMERIC;
}

double rx__vr_coef_update(const double *a, const double *b, int J,
                          double gamma, double *c, int64_t *nc)
{
    if (J < 2)
        return NAN;
    double ma = 0.0, mb = 0.0;
    for (int j = 0; j < J; ++j) {
        ma += a[j];
        mb += b[j];
    }
    ma /= J;
    mb /= J;
    double cab = 0.0, vb = 0.0;
    for (int j = 0; j < J; ++j) {
        cab += (a[j] - ma) * (b[j] - mb);
        vb += (b[j] - mb) * (b[j] - mb);
    }
    if (!(vb > 0.0))
        return NAN;
    double ch = -cab / vb;
    int64_t j = ++*nc;
    double g = gamma > 0.0 ? gamma : 1.0 / (double)j;
    double cn = (1.0 - g) * *c + g * ch;
    *c = cn < -2.0 ? -2.0 : cn > 0.0 ? 0.0 : cn;
    return ch;
}

/* Sample variance (ddof 1) of x_j = a_j + c b_j. */
static double var_comb(const double *a, const double *b, double c, int J)
{
    double m = 0.0, q = 0.0;
    for (int j = 0; j < J; ++j) {
        double x = a[j] + c * b[j];
        double d = x - m;
        m += d / (j + 1);
        q += d * (x - m);
    }
    return J > 1 ? q / (J - 1) : 0.0;
}

rx_status rx__vr_period_end(const rx__target *t, rx__tws *tw, rx__vrws *vw,
                            const rx__vrconf *vc, const double *theta,
                            const double *anchor, double lhat, double *c,
                            int64_t *nc, uint64_t seed, uint32_t entity,
                            uint64_t k, double *var_vr, double *var_std,
                            rx__vrcost *cost)
{
    RX_UNUSED(lhat); /* a constant: no effect on the variances */
    const int n = t->cv.bs, J = vc->J;
    const double scale = (double)t->cv.N / (double)n;
    rx__stream s;
    rx__stream_init(&s, seed, entity, RX_STREAM_VARIANCE, k);
    for (int j = 0; j < J; ++j) {
        for (int r = 0; r < n; ++r)
            vw->idx[r] = (int32_t)rx__uniform_int(&s, (uint64_t)t->cv.N);
        rx_status st = t->cv.losses(t, tw, theta, vw->idx, n, vw->la);
        if (st == RX_OK)
            st = t->cv.losses(t, tw, anchor, vw->idx, n, vw->lb);
        if (st != RX_OK)
            return st;
        double sa = 0.0, sb = 0.0;
        for (int r = 0; r < n; ++r) {
            sa += vw->la[r];
            sb += vw->lb[r];
        }
        vw->ea[j] = scale * sa;
        vw->eb[j] = scale * sb;
    }
    if (vc->adaptive)
        rx__vr_coef_update(vw->ea, vw->eb, J, vc->gamma, c, nc);
    *var_vr = var_comb(vw->ea, vw->eb, *c, J);
    *var_std = var_comb(vw->ea, vw->eb, 0.0, J);
    if (cost) {
        cost->fwd_rows += 2 * (int64_t)J * n;
        cost->period_ends++;
        cost->var_vr_sum += *var_vr;
        cost->var_std_sum += *var_std;
    }
    return isfinite(*var_vr) ? RX_OK : RX_ENUMERIC;
}
