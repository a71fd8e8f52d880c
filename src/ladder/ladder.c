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
    if (ac->adapt_c)
        xs->C += ac->c_scale * gamma * (sum / (double)(P - 1) - ac->S);
}
