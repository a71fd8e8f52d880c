/*
 * Fixed ladders (constant, geometric between two ends, explicit list) and
 * the adaptive updates of deo.md 2.4 and 2.6. The adaptive state lives in
 * each thread's exchange state and is updated identically on all threads
 * (same inputs, same operation order), so no thread waits for another.
 */
#include <math.h>
#include <string.h>

#include "ladder.h"

void rx__ladder_fill(const rx_ladder_spec *s, int P, double *out)
{
    switch (s->kind) {
    case RX_LADDER_CONSTANT:
        for (int q = 0; q < P; ++q)
            out[q] = s->min;
        break;
    case RX_LADDER_GEOMETRIC: {
        double ratio = s->max / s->min;
        for (int q = 0; q < P; ++q)
            out[q] = s->min * pow(ratio, (double)q / (double)(P - 1));
        out[P - 1] = s->max;
        out[0] = s->min; /* P = 1: the single chain takes min */
        break;
    }
    case RX_LADDER_LIST:
        for (int q = 0; q < P; ++q)
            out[q] = s->values.v[q];
        break;
    }
}

double rx__gamma(const rx__aconf *ac, int64_t k)
{
    double g = ac->a / (pow((double)k, ac->alpha) + ac->b);
    return g < ac->cap ? g : ac->cap;
}

void rx__ladder_update(double *L, double *tmp, const double *H, int P,
                       double gamma, int project)
{
    memcpy(tmp, L, sizeof(double) * (size_t)P);
    for (int p = 1; p < P - 1; ++p) {
        double glo = tmp[p] - tmp[p - 1], ghi = tmp[p + 1] - tmp[p];
        double fwd = tmp[p - 1] + (glo > 0.0 ? glo : 0.0) * exp(gamma * H[p - 1]);
        double bwd = tmp[p + 1] - (ghi > 0.0 ? ghi : 0.0) * exp(gamma * H[p]);
        L[p] = 0.5 * (fwd + bwd);
    }
    if (project)
        for (int p = 1; p < P - 1; ++p) {
            if (L[p] < L[p - 1])
                L[p] = L[p - 1];
            if (L[p] > tmp[p + 1])
                L[p] = tmp[p + 1];
        }
}

void rx__adapt(const rx__aconf *ac, rx__xstate *xs, int64_t k)
{
    const int P = ac->P;
    if (ac->adapt == RX_ADAPT_BARRIER) {
        for (int p = 0; p < P - 1; ++p)
            xs->acc_sum[p] += xs->ev[p].prob;
        if (k == xs->round_end) {
            /* r_j = 1 - mean acceptance probability over the round */
            int64_t len = ac->round0 << xs->round;
            double lambda = 0.0;
            for (int p = 0; p < P - 1; ++p) {
                xs->acc_sum[p] = 1.0 - xs->acc_sum[p] / (double)len;
                if (xs->acc_sum[p] < 0.0)
                    xs->acc_sum[p] = 0.0;
                lambda += xs->acc_sum[p];
            }
            if (xs->round < RX__MAX_ROUNDS)
                xs->round_lambda[xs->round] = lambda;
            rx__barrier_update(xs->tau, xs->acc_sum, P, xs->tmp);
            for (int q = 0; q < P; ++q)
                xs->beta[q] = 1.0 / xs->tau[q];
            for (int p = 0; p < P - 1; ++p)
                xs->acc_sum[p] = 0.0;
            xs->round++;
            xs->round_end = k + (ac->round0 << xs->round);
        }
        return;
    }
    if (ac->adapt == RX_ADAPT_NONE && !ac->adapt_c)
        return;
    double gamma = rx__gamma(ac, k);
    double sum = 0.0;
    /* H_j = A_j - S, written over this iteration's uniforms (used up) */
    double *H = xs->u;
    for (int p = 0; p < P - 1; ++p) {
        H[p] = (double)xs->ev[p].cond - ac->S;
        sum += (double)xs->ev[p].cond;
    }
    if (ac->adapt != RX_ADAPT_NONE)
        rx__ladder_update(ac->adapt == RX_ADAPT_ETA ? xs->eta : xs->tau,
                          xs->tmp, H, P, gamma, ac->project);
    if (ac->adapt == RX_ADAPT_TAU)
        for (int q = 0; q < P; ++q)
            xs->beta[q] = 1.0 / xs->tau[q];
    if (ac->adapt_c)
        xs->C += ac->c_scale * gamma * (sum / (double)(P - 1) - ac->S);
}

/* Fritsch-Carlson monotone cubic through (x[i], y[i]), x strictly
 * increasing, evaluated at t; d holds the P slopes (computed here). */
static double fc_eval(const double *x, const double *y, const double *d,
                      int n, double t)
{
    if (t <= x[0])
        return y[0];
    if (t >= x[n - 1])
        return y[n - 1];
    int i = 0;
    while (i < n - 2 && t > x[i + 1])
        ++i;
    double h = x[i + 1] - x[i], s = (t - x[i]) / h;
    double h00 = (1 + 2 * s) * (1 - s) * (1 - s), h10 = s * (1 - s) * (1 - s);
    double h01 = s * s * (3 - 2 * s), h11 = s * s * (s - 1);
    return h00 * y[i] + h10 * h * d[i] + h01 * y[i + 1] + h11 * h * d[i + 1];
}

static void fc_slopes(const double *x, const double *y, double *d, int n)
{
    for (int i = 0; i < n; ++i) {
        if (i == 0)
            d[i] = (y[1] - y[0]) / (x[1] - x[0]);
        else if (i == n - 1)
            d[i] = (y[n - 1] - y[n - 2]) / (x[n - 1] - x[n - 2]);
        else {
            double a = (y[i] - y[i - 1]) / (x[i] - x[i - 1]);
            double b = (y[i + 1] - y[i]) / (x[i + 1] - x[i]);
            d[i] = a * b <= 0 ? 0.0 : 0.5 * (a + b);
        }
    }
    for (int i = 0; i < n - 1; ++i) {
        double delta = (y[i + 1] - y[i]) / (x[i + 1] - x[i]);
        if (delta == 0.0) {
            d[i] = d[i + 1] = 0.0;
            continue;
        }
        double al = d[i] / delta, be = d[i + 1] / delta;
        double s = al * al + be * be;
        if (s > 9.0) {
            double t = 3.0 / sqrt(s);
            d[i] = t * al * delta;
            d[i + 1] = t * be * delta;
        }
    }
}

void rx__barrier_update(double *tau, const double *r, int P, double *tmp)
{
    double *lam = tmp, *beta = tmp + P, *d = tmp + 2 * P;
    lam[0] = 0.0;
    for (int q = 1; q < P; ++q)
        lam[q] = lam[q - 1] + r[q - 1] + 1e-6;
    for (int q = 0; q < P; ++q)
        beta[q] = 1.0 / tau[q];
    fc_slopes(lam, beta, d, P);
    const double total = lam[P - 1];
    for (int q = 1; q < P - 1; ++q)
        tau[q] = 1.0 / fc_eval(lam, beta, d, P, total * q / (P - 1));
}
