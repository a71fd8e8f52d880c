/*
 * Test helpers for engine runs with a bias row (src/bias/): a copy of a
 * position's curve and visits at the end of a run, and the well-tempered
 * ensemble tests' run (samples, log-weights, pair acceptances and
 * position 0's state), compared bit for bit and reduced to the moments
 * of E = |x|^2 / 2.
 */
#ifndef RX_TEST_BIAS_RUN_H
#define RX_TEST_BIAS_RUN_H

#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "replex/replex.h"
#include "../src/bias/bias.h"
#include "../src/engine/state.h" /* rx__ctx_bias: the run's state */
#include "run_util.h"

/* Copies of the curve and visits (either pointer NULL: not copied) of
 * position `pos`'s bias state in c; the number of bins, 0 if the run has
 * no bias. */
static inline int bias_copy(rx_ctx *c, int pos, double **curve,
                            double **visits)
{
    const rx__bias *b = rx__ctx_bias(c);
    if (!b->type)
        return 0;
    const double *cv, *vis;
    int64_t upd;
    b->type->view(&b->par, rx__bias_state(b, pos), &cv, &vis, &upd);
    const size_t m = (size_t)b->par.bins;
    if (curve)
        *curve = copy_doubles(cv, m);
    if (visits)
        *visits = copy_doubles(vis, m);
    return b->par.bins;
}

/* A fresh state of row T. */
static inline void *new_state(const rx__bias_type *T,
                              const rx__bias_params *par)
{
    void *s = calloc(1, T->size(par));
    if (s)
        T->init(par, s);
    return s;
}

/* A small deterministic generator for the unit parts: uniform on [0, 1). */
static uint64_t unif_state_ = 0x9E3779B97F4A7C15u;
static inline double unif(void)
{
    unif_state_ = unif_state_ * 6364136223846793005u + 1442695040888963407u;
    return (double)(unif_state_ >> 11) * 0x1.0p-53;
}

/* The stochastic-approximation step of the contour rows as printed in
 * the papers, on th = theta_k: th[i] += omega_(k+1) (1/|S|) sum_{p in S}
 * theta_k(J_p) (1{i >= J_p} - theta_k(i)) (cumulative, AWSGLD's eq.
 * 7.5) or 1{i = J_p} (else, CSGLD's eq. 6.5), S the chains whose energy
 * U[p] (n <= 16 of them) is not in the guarded overflow bin (when
 * par->overflow_guard), J_p its bin; th as it was if S is empty. Returns
 * |S|; the caller applies its floor. */
static inline int literal_step(const rx__bias_params *par, double *th, int n,
                               const double *U, int64_t k, int cumulative)
{
    const int m = par->bins;
    double *old = copy_doubles(th, (size_t)m);
    int js[16], ns = 0;
    for (int p = 0; p < n; ++p) {
        int j;
        rx__bias_bin(par, U[p], &j);
        if (!(par->overflow_guard && j == m - 1))
            js[ns++] = j;
    }
    const double w = rx__bias_omega(&par->sa, k + 1);
    for (int i = 0; i < m && ns > 0; ++i) {
        double h = 0.0;
        for (int s = 0; s < ns; ++s)
            h += old[js[s]] *
                 (((cumulative ? i >= js[s] : i == js[s]) ? 1.0 : 0.0) -
                  old[i]);
        th[i] = old[i] + w * h / ns;
    }
    free(old);
    return ns;
}

/* ---- the real well-tempered row through its table entry ----------------- */

extern const rx__bias_type rx__bias_wte_row;

/* Its functions (static in src/bias/wte.c), for a test-only row's entry
 * (an initializer cannot read them from rx__bias_wte_row). */
static inline size_t wte_f_size(const rx__bias_params *p)
{
    return rx__bias_wte_row.size(p);
}
static inline void wte_f_init(const rx__bias_params *p, void *s)
{
    rx__bias_wte_row.init(p, s);
}
static inline rx_status wte_f_update(const rx__bias_params *p, void *s,
                                     int n, const double *U,
                                     const double *tau, int64_t k,
                                     rx_err *err)
{
    return rx__bias_wte_row.update(p, s, n, U, tau, k, err);
}
static inline double wte_f_mult(const rx__bias_params *p, const void *s,
                                double U, double tau)
{
    return rx__bias_wte_row.grad_mult(p, s, U, tau);
}
static inline double wte_f_lw(const rx__bias_params *p, const void *s,
                              double U, double tau)
{
    return rx__bias_wte_row.log_weight(p, s, U, tau);
}
static inline size_t wte_f_plen(const rx__bias_params *p)
{
    return rx__bias_wte_row.pack_len(p);
}
static inline void wte_f_pack(const rx__bias_params *p, const void *s,
                              double *out)
{
    rx__bias_wte_row.pack(p, s, out);
}
static inline void wte_f_view(const rx__bias_params *p, const void *s,
                              const double **c, const double **v, int64_t *u)
{
    rx__bias_wte_row.view(p, s, c, v, u);
}

/* The entry of a test-only row made of the real row's functions, per
 * position, with its own update and no unpack (not checkpointed). */
#define WTE_TEST_ROW_FUNCTIONS(update_fn)                                    \
    .share = RX__BIAS_PER_POSITION, .size = wte_f_size, .init = wte_f_init,  \
    .update = (update_fn), .grad_mult = wte_f_mult, .log_weight = wte_f_lw,  \
    .pack_len = wte_f_plen, .pack = wte_f_pack, .unpack = NULL,              \
    .view = wte_f_view

/* The shared keys such a row reads. */
#define WTE_TEST_ROW_USES                                                    \
    {"bias.bins", "bias.energy_min", "bias.bin_width", NULL}

/* ---- the well-tempered ensemble's runs --------------------------------- */

typedef struct wte_out {
    rx_status st;
    int64_t n; /* rows */
    size_t dim;
    int P, partner;
    float *x;
    double *lw;
    double acc[8];      /* mean acceptance of each pair */
    int64_t swaps;
    double *A, *visits; /* position 0's state */
    int m;
    double e0, du;
} wte_out;

static inline void wte_free(wte_out *o)
{
    free(o->x);
    free(o->lw);
    free(o->A);
    free(o->visits);
    memset(o, 0, sizeof *o);
}

static inline int wte_collect(rx_ctx *c, const rx_results *r, void *out)
{
    wte_out *o = out;
    o->n = r->n_samples;
    o->dim = r->dim;
    o->P = r->n_chains;
    o->partner = r->partner;
    o->swaps = r->total_swaps;
    o->x = copy_floats(r->samples, (size_t)r->n_samples * r->dim);
    if (r->log_weights)
        o->lw = copy_doubles(r->log_weights, (size_t)r->n_samples);
    for (int p = 0; p < r->n_chains - 1 && p < 8; ++p)
        o->acc[p] = r->pairs[p].accept_sum / (double)r->pairs[p].evaluated;
    o->m = bias_copy(c, 0, &o->A, &o->visits);
    if (o->m) {
        const rx__bias *b = rx__ctx_bias(c);
        o->e0 = b->par.energy_min;
        o->du = b->par.bin_width;
    }
    return 1;
}

/* The file `yaml` with sets[0..n), run as stop_run (threads, from,
 * stop_at, ck). */
static inline wte_out wte_run(const char *yaml, const char *const *sets,
                              int n, int threads, const char *from,
                              int64_t stop_at, const char *ck)
{
    wte_out o;
    memset(&o, 0, sizeof o);
    rx_config cfg;
    rx_err err = {0};
    rx_config_default(&cfg);
    const rx_status st = rx_config_load(yaml, sets, n, &cfg, &err);
    o.st = run_collect(&cfg, st, &err, threads, from, stop_at, ck,
                       wte_collect, &o);
    return o;
}

/* The same rows and log-weights, bit for bit (both weighted). */
static inline int wte_same(const wte_out *a, const wte_out *b)
{
    const size_t nx = (size_t)a->n * a->dim;
    return a->n > 0 && a->n == b->n && a->dim == b->dim && a->lw && b->lw &&
           memcmp(a->x, b->x, sizeof(float) * nx) == 0 &&
           memcmp(a->lw, b->lw, sizeof(double) * (size_t)a->n) == 0;
}

typedef struct emom {
    double mean, var, wmean, wvar;
} emom;

/* E = |x|^2 / 2 of the rows (the energy less its constant), its mean and
 * variance, unweighted and with the run's weights */
static inline emom wte_moments(const wte_out *o)
{
    emom r = {0, 0, NAN, NAN};
    double mx = -INFINITY, sw = 0.0, s1 = 0.0, s2 = 0.0, w1 = 0.0, w2 = 0.0;
    for (int64_t i = 0; o->lw && i < o->n; ++i)
        mx = fmax(mx, o->lw[i]);
    for (int64_t i = 0; i < o->n; ++i) {
        double e = 0.0;
        for (size_t j = 0; j < o->dim; ++j) {
            const double x = o->x[(size_t)i * o->dim + j];
            e += 0.5 * x * x;
        }
        s1 += e;
        s2 += e * e;
        if (o->lw) {
            const double w = exp(o->lw[i] - mx);
            sw += w;
            w1 += w * e;
            w2 += w * e * e;
        }
    }
    r.mean = s1 / (double)o->n;
    r.var = s2 / (double)o->n - r.mean * r.mean;
    if (o->lw) {
        r.wmean = w1 / sw;
        r.wvar = w2 / sw - r.wmean * r.wmean;
    }
    return r;
}

/* The determinism runs: sets s[0..ns) on 1, 2 and 3 threads (r), with
 * its last setting replaced by sync=partner on 3 (p), stopped at 12000
 * into the checkpoint ck (its status checked: stopped) and resumed from it
 * on 3 threads; same bits against r[0]: t12, t13, tp, tr; moved: r[0]'s
 * nonzero log-weights. */
typedef struct wte_bits_runs {
    wte_out r[3], p;
    int t12, t13, tp, tr, moved;
} wte_bits_runs;

static inline wte_bits_runs wte_bits(wte_out (*run)(const char *const *, int,
                                                 int, const char *, int64_t,
                                                 const char *),
                                 const char *const *s, int ns, const char *ck)
{
    wte_bits_runs b;
    for (int t = 0; t < 3; ++t)
        b.r[t] = run(s, ns, t + 1, NULL, -1, NULL);
    const char *sp[16];
    memcpy(sp, s, sizeof(char *) * (size_t)ns);
    sp[ns - 1] = "sync=partner";
    b.p = run(sp, ns, 3, NULL, -1, NULL);
    wte_out part = run(s, ns, 1, NULL, 12000, ck);
    CHECK(part.st == RX_EABORTED);
    wte_out res = run(s, ns, 3, ck, -1, NULL);
    unlink(ck);
    b.t12 = wte_same(&b.r[0], &b.r[1]);
    b.t13 = wte_same(&b.r[0], &b.r[2]);
    b.tp = wte_same(&b.r[0], &b.p);
    b.tr = wte_same(&b.r[0], &res);
    b.moved = 0; /* the weights are the deposits' (not all 0) */
    for (int64_t i = 0; b.r[0].lw && i < b.r[0].n; ++i)
        b.moved += b.r[0].lw[i] != 0.0;
    wte_free(&part);
    wte_free(&res);
    return b;
}

static inline void wte_bits_free(wte_bits_runs *b)
{
    for (int t = 0; t < 3; ++t)
        wte_free(&b->r[t]);
    wte_free(&b->p);
}

#endif
