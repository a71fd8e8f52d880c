/*
 * The ICSGLD bias row (src/bias/icsgld.c) against csgld.md 2.2 and 7:
 *
 *  1. The row's declarations: a SHARED state, RX__BIAS_NEEDS_GLOBAL_UPDATE
 *     (one state for the run).
 *  2. T1 with P = 5 energies per update: the sum of theta stays 1 within
 *     1e-12 and theta > 0 over 2e5 updates; each update against the
 *     literal eq. 6.5 computed from a copy of theta_k (every theta(J_p)
 *     read before any is written, the field averaged over the chains not
 *     in the guarded overflow bin); the field does not depend on zeta;
 *     all chains in the overflow bin change nothing but the counts; a
 *     non-finite energy leaves the state as it was; pack and unpack.
 *  3. T2: the multiplier and the log-weight are CSGLD's: g = 1 in bin 0,
 *     for uniform theta, for zeta = 0 and in the guarded overflow bin;
 *     g > 1 where theta[j] > theta[j-1]; log w = zeta log theta[J].
 *  4. T10 through the engine on the spec's settings: the mixture 0.4
 *     N(-6,1) + 0.6 N(4,1) of yaml/csgld_gmm_1d.yaml (gradient noise
 *     N(0, 0.1^2), omega_k = 1/(k^0.6 + 100), m = 50, du = 1, e_min = 1,
 *     overflow guard on) with P = 5 chains at tau = 1, zeta = 3, eta =
 *     0.02, 4e6 iterations: |log theta / theta_star| < 0.25 on bins
 *     0-11 (theta_star = theta_inf^(1/zeta) normalised), the bins 0-11
 *     visited within +-5 % of their mean, the weighted P(x < -1) in
 *     [0.28, 0.48] (true 0.40).
 *  5. T10's negative controls, and that the defaults avoid them: (i) at
 *     eta = 0.1 with the overflow bin's energies in the SA step (g = 1
 *     there, as csgld.md 1.6 item 2 ran it: a plain 5-chain loop over
 *     the row) theta collapses onto the top bin; through the engine with
 *     the overflow guard (the default) it does not; (ii) du = 0.5 (m =
 *     100) with the backward multiplier collapses onto the two lowest
 *     bins, the forward one does not (both through the engine).
 *  6. Same bits on 1, 2 and 3 threads (samples and log-weights; chains
 *     moving between threads on 3); sync: partner falls back to the
 *     barrier design (the row declares a global update) with the same
 *     bits; a run resumed from a checkpoint equals the uninterrupted one.
 *
 * The row is reached through its configuration name in one place
 * (KIND_SET below; the unit parts take rx__bias_find of the kind it
 * loads). A constant temperature ladder is its check: a shared theta
 * under a tempered ladder is refused at ladder.tau.
 */
#define _POSIX_C_SOURCE 200809L
#include <math.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "replex/replex.h"
#include "../src/bias/bias.h"
#include "bias_run.h"
#include "check.h"

/* The one place that names the row. */
#define KIND_SET "bias.kind=icsgld"

static char src[1024];

/* cfg = yaml/csgld_gmm_1d.yaml (the spec's mixture) with the ICSGLD
 * kind, then sets[0..n-1]. Returns RX_OK or the loader's status. */
static rx_status load(const char *const *sets, int n, rx_config *cfg,
                      rx_err *err)
{
    char path[1200];
    snprintf(path, sizeof path, "%s/yaml/csgld_gmm_1d.yaml", src);
    const char *all[24];
    all[0] = KIND_SET;
    for (int i = 0; i < n && i < 23; ++i)
        all[i + 1] = sets[i];
    rx_config_default(cfg);
    return rx_config_load(path, all, n + 1, cfg, err);
}

/* The row and its parameters (the spec's partition) from the config. */
static const rx__bias_type *row_params(rx__bias_params *par)
{
    rx_config cfg;
    rx_err err = {0};
    if (load(NULL, 0, &cfg, &err) != RX_OK) {
        rx_config_free(&cfg);
        return NULL;
    }
    rx__bias_params_from(par, &cfg);
    rx_config_free(&cfg);
    return rx__bias_find(par->kind);
}

/* ---- 1-3: the row alone ---------------------------------------------- */

static const double *theta_of(const rx__bias_type *T,
                              const rx__bias_params *par, const void *s,
                              const double **visits, int64_t *updates)
{
    const double *curve, *v;
    int64_t u;
    T->view(par, s, &curve, &v, &u);
    if (visits)
        *visits = v;
    if (updates)
        *updates = u;
    return curve;
}

/* eq. 6.5 as printed: theta_i += omega (1/|S|) sum_{p in S} theta_k(J_p)
 * (1{i = J_p} - theta_i), from a copy of theta_k; then floor and the
 * sum renormalised. */
static void literal_update(const rx__bias_params *par, double *th, int n,
                           const double *U, int64_t k)
{
    const int m = par->bins;
    if (literal_step(par, th, n, U, k, 0) > 0)
        for (int i = 0; i < m; ++i)
            if (th[i] < par->theta_floor)
                th[i] = par->theta_floor;
    double sum = 0.0;
    for (int i = 0; i < m; ++i)
        sum += th[i];
    for (int i = 0; i < m; ++i)
        th[i] /= sum;
}

static void declarations(const rx__bias_type *T)
{
    CHECK(T->share == RX__BIAS_SHARED);
    CHECK(T->needs & RX__BIAS_NEEDS_GLOBAL_UPDATE);
    rx__bias_params par;
    row_params(&par);
    rx__bias b;
    rx_err err = {0};
    CHECK(rx__bias_create(&b, &par, 5, &err) == RX_OK);
    CHECK_MSG(b.n == 1, "%d states for 5 chains", b.n);
    rx__bias_destroy(&b);
}

static void t1(const rx__bias_type *T)
{
    rx__bias_params par;
    row_params(&par);
    const int m = par.bins, P = 5;
    void *s = new_state(T, &par);
    double *lit = malloc(sizeof(double) * (size_t)m);
    memcpy(lit, theta_of(T, &par, s, NULL, NULL), sizeof(double) * m);
    double worst_sum = 0.0, worst_lit = 0.0, tmin = 1.0;
    int bad = 0;
    const int64_t K = 200000;
    for (int64_t k = 0; k < K; ++k) {
        double U[5], tau[5] = {1, 1, 1, 1, 1};
        for (int p = 0; p < P; ++p) /* energies over bins 0..m-1, two
                                     * chains often in one bin */
            U[p] = p == 1 && unif() < 0.3 ? U[0]
                                          : 1.0 + 52.0 * unif() * unif();
        if (T->update(&par, s, P, U, tau, k, NULL) != RX_OK)
            bad++;
        literal_update(&par, lit, P, U, k);
        const double *th = theta_of(T, &par, s, NULL, NULL);
        double sum = 0.0;
        for (int i = 0; i < m; ++i) {
            sum += th[i];
            tmin = fmin(tmin, th[i]);
            worst_lit = fmax(worst_lit, fabs(th[i] - lit[i]) / lit[i]);
        }
        worst_sum = fmax(worst_sum, fabs(sum - 1.0));
        /* follow the row, so each step is compared from the same theta_k */
        memcpy(lit, th, sizeof(double) * (size_t)m);
    }
    printf("T1: %lld updates of 5 chains: max |sum theta - 1| %.2e, min "
           "theta %.3g, max relative distance to eq. 6.5 %.2e\n",
           (long long)K, worst_sum, tmin, worst_lit);
    CHECK(bad == 0);
    CHECK_MSG(worst_sum < 1e-12, "|sum - 1| = %g", worst_sum);
    CHECK_MSG(tmin > 0.0, "min theta %g", tmin);
    CHECK_MSG(worst_lit < 1e-12, "distance to eq. 6.5: %g", worst_lit);

    /* read before write: two chains in bin 3, one in bin 4, from a
     * theta where the order would matter; and zeta plays no part */
    rx__bias_params p3 = par, p0 = par;
    p3.zeta = 3.0;
    p0.zeta = 0.75;
    void *a = new_state(T, &p3), *b = new_state(T, &p0);
    const double U[3] = {4.5, 4.5, 5.5}, tau[3] = {1, 1, 1};
    memcpy(lit, theta_of(T, &p3, a, NULL, NULL), sizeof(double) * m);
    CHECK(T->update(&p3, a, 3, U, tau, 0, NULL) == RX_OK);
    CHECK(T->update(&p0, b, 3, U, tau, 0, NULL) == RX_OK);
    literal_update(&p3, lit, 3, U, 0);
    const double *ta = theta_of(T, &p3, a, NULL, NULL);
    const double *tb = theta_of(T, &p0, b, NULL, NULL);
    CHECK(memcmp(ta, tb, sizeof(double) * (size_t)m) == 0);
    CHECK_NEAR(ta[3], lit[3], 1e-16);
    CHECK_NEAR(ta[4], lit[4], 1e-16);
    CHECK(ta[3] > ta[4] && ta[4] > ta[5]);

    /* every chain in the guarded overflow bin: only the counts move */
    unsigned char *before = malloc(T->size(&par));
    memcpy(before, a, T->size(&par));
    const double Uo[3] = {1e3, 60.0, 51.5};
    CHECK(T->update(&p3, a, 3, Uo, tau, 1, NULL) == RX_OK);
    const double *vis;
    int64_t upd;
    ta = theta_of(T, &p3, a, &vis, &upd);
    CHECK(memcmp(ta, theta_of(T, &p3, before, NULL, NULL),
                 sizeof(double) * (size_t)m) == 0);
    CHECK(upd == 1 && vis[m - 1] == 3.0 && vis[3] == 2.0);
    /* without the guard the top bin gains */
    p3.overflow_guard = 0;
    CHECK(T->update(&p3, a, 3, Uo, tau, 2, NULL) == RX_OK);
    CHECK(theta_of(T, &p3, a, NULL, NULL)[m - 1] > 1.0 / m);
    p3.overflow_guard = 1;

    /* a non-finite energy: RX_ENUMERIC, the state as it was */
    memcpy(before, a, T->size(&par));
    const double Un[3] = {3.0, NAN, 4.0};
    rx_err err = {0};
    CHECK(T->update(&p3, a, 3, Un, tau, 3, &err) == RX_ENUMERIC);
    CHECK(strstr(err.msg, "chain 1") != NULL);
    CHECK(memcmp(before, a, T->size(&par)) == 0);

    /* pack, unpack into a fresh state: the next updates agree bit for
     * bit */
    const size_t len = T->pack_len(&par);
    double *buf = malloc(sizeof(double) * len);
    T->pack(&par, s, buf);
    void *r = new_state(T, &par);
    CHECK(T->unpack(&par, r, buf, &err) == RX_OK);
    const double U5[5] = {2.5, 2.5, 7.1, 3.3, 12.0},
                 t5[5] = {1, 1, 1, 1, 1};
    T->update(&par, s, 5, U5, t5, K, NULL);
    T->update(&par, r, 5, U5, t5, K, NULL);
    CHECK(memcmp(s, r, T->size(&par)) == 0);
    buf[2] = -1.0; /* theta[0] */
    CHECK(T->unpack(&par, r, buf, &err) == RX_EDATA);
    free(buf);
    free(r);
    free(before);
    free(a);
    free(b);
    free(lit);
    free(s);
}

static void t2(const rx__bias_type *T)
{
    rx__bias_params par;
    row_params(&par);
    par.zeta = 3.0;
    const int m = par.bins;
    void *s = new_state(T, &par);
    /* uniform theta: g = 1 everywhere, log w = zeta log(1/m) */
    int ones = 0;
    for (int j = 0; j < m; ++j) {
        const double U = par.energy_min + (j + 0.5) * par.bin_width;
        ones += T->grad_mult(&par, s, U, 1.0) == 1.0;
    }
    CHECK_MSG(ones == m, "uniform theta: g = 1 in %d of %d bins", ones, m);
    CHECK_NEAR(T->log_weight(&par, s, 3.5, 1.0), 3.0 * log(1.0 / m), 1e-12);
    /* theta[j] rising, then falling */
    double *th = rx__csgld_theta(s); /* the shared contour layout */
    for (int j = 0; j < m; ++j)
        th[j] = j < 5 ? (j + 1.0) : 5.0 / (j - 3.0);
    double sum = 0.0;
    for (int j = 0; j < m; ++j)
        sum += th[j];
    for (int j = 0; j < m; ++j)
        th[j] /= sum;
    CHECK(T->grad_mult(&par, s, 1.5, 1.0) == 1.0); /* bin 0 */
    const double g3 = T->grad_mult(&par, s, 4.5, 2.0); /* bin 3, tau 2 */
    CHECK(g3 > 1.0);
    CHECK_NEAR(g3, 1.0 + 3.0 * 2.0 / 1.0 * (log(th[3]) - log(th[2])),
               1e-12);
    CHECK(T->grad_mult(&par, s, 9.5, 1.0) < 1.0); /* bin 8: falling */
    CHECK(T->grad_mult(&par, s, 1e4, 1.0) == 1.0); /* overflow, guarded */
    CHECK(T->log_weight(&par, s, 1e4, 1.0) == -INFINITY);
    CHECK_NEAR(T->log_weight(&par, s, 4.5, 1.0), 3.0 * log(th[3]), 1e-12);
    CHECK(isnan(T->grad_mult(&par, s, NAN, 1.0)));
    rx__bias_params z0 = par;
    z0.zeta = 0.0;
    CHECK(T->grad_mult(&z0, s, 4.5, 1.0) == 1.0);
    CHECK(T->log_weight(&z0, s, 4.5, 1.0) == 0.0);
    printf("T2: g = 1 for uniform theta, in bin 0, for zeta 0 and in the "
           "overflow bin; g(bin 3) = %.4f\n", g3);
    free(s);
}

/* ---- 4-6: through the engine ----------------------------------------- */

/* 0.4 N(-6,1) + 0.6 N(4,1): U = -log pi. */
static double gmm_energy(double x)
{
    double a = log(0.4) - 0.5 * (x + 6.0) * (x + 6.0);
    double b = log(0.6) - 0.5 * (x - 4.0) * (x - 4.0);
    double hi = a > b ? a : b, lo = a > b ? b : a;
    return 0.9189385332046727 - (hi + log1p(exp(lo - hi)));
}

/* theta_star = theta_inf^(1/zeta) / sum: theta_inf the bins' masses
 * under pi (quadrature). */
static void theta_star(const rx__bias_params *p, double zeta, double *ts)
{
    const int m = p->bins;
    for (int i = 0; i < m; ++i)
        ts[i] = 0.0;
    const double h = 1e-4;
    for (double x = -40.0; x <= 40.0; x += h) {
        double U = gmm_energy(x);
        int j;
        if (rx__bias_bin(p, U, &j) == RX_OK)
            ts[j] += exp(-U) * h;
    }
    double s = 0.0;
    for (int i = 0; i < m; ++i)
        s += (ts[i] = pow(ts[i], 1.0 / zeta));
    for (int i = 0; i < m; ++i)
        ts[i] /= s;
}

/* What an engine run left. */
typedef struct run_out {
    rx_status st;
    int64_t n;
    float *x;
    double *lw;
    double *theta, *visits; /* the shared state at the end */
    int partner;
    double p_left; /* weighted P(x < -1) */
} run_out;

static void out_free(run_out *o)
{
    free(o->x);
    free(o->lw);
    free(o->theta);
    free(o->visits);
    memset(o, 0, sizeof *o);
}

static int collect(rx_ctx *c, const rx_results *r, void *out)
{
    run_out *o = out;
    if (!r->log_weights)
        return 0;
    o->n = r->n_samples;
    o->partner = r->partner;
    o->x = copy_floats(r->samples, (size_t)o->n);
    o->lw = copy_doubles(r->log_weights, (size_t)o->n);
    double mx = -INFINITY, sw = 0.0, sl = 0.0;
    for (int64_t i = 0; i < o->n; ++i)
        mx = fmax(mx, o->lw[i]);
    for (int64_t i = 0; i < o->n; ++i) {
        const double w = exp(o->lw[i] - mx);
        sw += w;
        sl += o->x[i] < -1.0f ? w : 0.0;
    }
    o->p_left = sl / sw;
    CHECK(rx__ctx_bias(c)->n == 1);
    bias_copy(c, 0, &o->theta, &o->visits);
    return 1;
}

/* The spec's T10 run (P = 5 at tau = 1, zeta 3, eta 0.02, 4e6
 * iterations, every position kept every 10th iteration), then sets, on
 * `threads` threads; from/stop_at/ck as stop_run. */
static run_out engine_run(const char *const *sets, int n, int threads,
                          const char *from, int64_t stop_at, const char *ck)
{
    static const char *const pre[] = {
        "tempering.n_chains=5", "tempering.scheme=none",
        "ladder.tau=[1, 1, 1, 1, 1]",
        "ladder.eta=[0.02, 0.02, 0.02, 0.02, 0.02]", "bias.zeta=3",
        "iterations=4000000", "record.all_positions=true",
        "record.trace_every=0", "bias.resample=false"};
    run_out o;
    memset(&o, 0, sizeof o);
    o.st = load_collect(load, pre, NSETS(pre), sets, n, threads, from,
                        stop_at, ck, collect, &o);
    return o;
}

static int same(const run_out *a, const run_out *b)
{
    return same_rows(a->n, a->x, a->lw, b->n, b->x, b->lw); /* lw: always */
}

/* max |log theta / theta_star| over bins lo..hi; the bins' visits within
 * *flat of their mean. */
static double theta_dev(const run_out *o, const double *ts, int lo, int hi,
                        int *worst)
{
    double d = 0.0;
    for (int i = lo; i <= hi; ++i) {
        const double e = fabs(log(o->theta[i] / ts[i]));
        if (e > d) {
            d = e;
            *worst = i;
        }
    }
    return d;
}

static double flatness(const double *v, int lo, int hi)
{
    double mean = 0.0, d = 0.0;
    for (int i = lo; i <= hi; ++i)
        mean += v[i];
    mean /= (hi - lo + 1);
    for (int i = lo; i <= hi; ++i)
        d = fmax(d, fabs(v[i] / mean - 1.0));
    return d;
}

static void t10(void)
{
    rx__bias_params par;
    row_params(&par);
    const int m = par.bins;
    double *ts = malloc(sizeof(double) * (size_t)m);
    theta_star(&par, 3.0, ts);
    run_out o = engine_run(NULL, 0, 2, NULL, -1, NULL);
    if (!o.theta) {
        CHECK(0);
        free(ts);
        return;
    }
    printf("T10 (P 5, zeta 3, eta 0.02, 4e6 iterations): log theta / "
           "theta_star on bins 0-13:");
    for (int i = 0; i <= 13; ++i)
        printf(" %.3f", log(o.theta[i] / ts[i]));
    printf("\n  visits / mean over bins 0-11:");
    double mean = 0.0;
    for (int i = 0; i <= 11; ++i)
        mean += o.visits[i] / 12.0;
    for (int i = 0; i <= 13; ++i)
        printf(" %.3f", o.visits[i] / mean);
    int w = -1;
    const double dev = theta_dev(&o, ts, 0, 11, &w);
    const double flat = flatness(o.visits, 0, 11);
    printf("\n  max |log ratio| bins 0-11 %.3f (bin %d), occupancy "
           "spread %.3f, weighted P(x<-1) %.4f over %lld rows\n",
           dev, w, flat, o.p_left, (long long)o.n);
    CHECK_MSG(dev < 0.25, "|log theta/theta_star| = %g in bin %d", dev, w);
    CHECK_MSG(flat <= 0.05, "occupancy of bins 0-11 off its mean by %g",
              flat);
    CHECK_MSG(o.p_left >= 0.28 && o.p_left <= 0.48, "weighted P(x<-1) %g",
              o.p_left);
    CHECK(o.partner == 0);
    out_free(&o);
    free(ts);
}

static double normal(void)
{
    double u = unif(), v = unif();
    return sqrt(-2.0 * log(1.0 - u)) * cos(6.283185307179586 * v);
}

/* 0.4 N(-6,1) + 0.6 N(4,1): the gradient of U. */
static double gmm_grad(double x)
{
    double a = log(0.4) - 0.5 * (x + 6.0) * (x + 6.0);
    double b = log(0.6) - 0.5 * (x - 4.0) * (x - 4.0);
    double ra = 1.0 / (1.0 + exp(b - a));
    return ra * (x + 6.0) + (1.0 - ra) * (x - 4.0);
}

/*
 * Control (i) as csgld.md 1.6 item 2 ran it: the overflow bin's energies
 * enter the SA step but the multiplier there is 1. The engine's
 * overflow_guard switches the two together: with it off the multiplier
 * stays active in the top bin, and on this file's settings the chains
 * then diverged (a non-finite gradient near iteration 3e6) rather than
 * collapse, so the control runs here, on the row. P = 5
 * chains from x = 4, eta 0.1, the row's update with all P energies, then
 * each chain's SGLD step with the row's multiplier. Returns theta(top).
 */
static double overflow_collapse(const rx__bias_type *T, int64_t K)
{
    rx__bias_params par;
    row_params(&par);
    par.zeta = 3.0;
    par.overflow_guard = 0;
    const int m = par.bins;
    void *s = new_state(T, &par);
    double x[5], U[5], tau[5] = {1, 1, 1, 1, 1};
    for (int p = 0; p < 5; ++p) {
        x[p] = 4.0;
        U[p] = gmm_energy(x[p]);
    }
    const double eta = 0.1, sd = sqrt(2.0 * eta);
    for (int64_t k = 0; k < K; ++k) {
        if (T->update(&par, s, 5, U, tau, k, NULL) != RX_OK)
            break;
        for (int p = 0; p < 5; ++p) {
            int j;
            rx__bias_bin(&par, U[p], &j);
            const double g = j == m - 1 ? 1.0
                                        : T->grad_mult(&par, s, U[p], 1.0);
            x[p] -= eta * g * (gmm_grad(x[p]) + 0.1 * normal());
            x[p] += sd * normal();
            U[p] = gmm_energy(x[p]);
        }
    }
    const double top = theta_of(T, &par, s, NULL, NULL)[m - 1];
    free(s);
    return top;
}

static void controls(const rx__bias_type *T)
{
    /* (i) eta 0.1: with the overflow bin in the SA step theta(top) takes
     * the mass; the engine's default guard keeps it out */
    const double top = overflow_collapse(T, 4000000);
    static const char *const on[] = {"ladder.eta=[0.1, 0.1, 0.1, 0.1, 0.1]",
                                     "iterations=4000000"};
    run_out b = engine_run(on, 2, 2, NULL, -1, NULL);
    if (b.theta) {
        printf("control (i), eta 0.1, 4e6 iterations: theta(top) %.4g with "
               "the overflow bin in the SA step (g = 1 there, a plain "
               "loop), %.3g through the engine with the guard (weighted "
               "P(x<-1) %.3f)\n", top, b.theta[49], b.p_left);
        CHECK_MSG(top > 0.9, "no collapse without the guard: %g", top);
        CHECK_MSG(b.theta[49] < 1e-6, "theta(top) %g with the guard",
                  b.theta[49]);
    } else {
        CHECK(0);
    }
    out_free(&b);
    run_out a;
    /* (ii) du = 0.5 over the same range: the backward multiplier lets
     * the two lowest bins (the modes' tops) absorb theta; forward not */
    static const char *const bw[] = {"bias.bins=100", "bias.bin_width=0.5",
                                     "iterations=2000000"};
    static const char *const fw[] = {"bias.bins=100", "bias.bin_width=0.5",
                                     "iterations=2000000",
                                     "bias.difference=forward"};
    a = engine_run(bw, 3, 2, NULL, -1, NULL);
    b = engine_run(fw, 4, 2, NULL, -1, NULL);
    if (a.theta && b.theta) {
        const double la = a.theta[0] + a.theta[1];
        const double lb = b.theta[0] + b.theta[1];
        printf("control (ii), du 0.5, 2e6 iterations: theta of bins 0-1 "
               "%.4f backward (weighted P(x<-1) %.3f), %.4f forward (%.3f)\n",
               la, a.p_left, lb, b.p_left);
        CHECK_MSG(la > 0.99, "backward: bins 0-1 hold %g", la);
        CHECK_MSG(lb < 0.5, "forward: bins 0-1 hold %g", lb);
        CHECK_MSG(b.p_left >= 0.28 && b.p_left <= 0.52,
                  "forward: weighted P(x<-1) %g", b.p_left);
    } else {
        CHECK(0);
    }
    out_free(&a);
    out_free(&b);
}

static void determinism(void)
{
    static const char *const s[] = {"iterations=30000", "balance=rotate"};
    run_out r[3];
    for (int t = 0; t < 3; ++t)
        r[t] = engine_run(s, 2, t + 1, NULL, -1, NULL);
    CHECK_MSG(same(&r[0], &r[1]) && same(&r[0], &r[2]),
              "1, 2, 3 threads differ");
    static const char *const sp[] = {"iterations=30000", "sync=partner"};
    run_out p = engine_run(sp, 2, 3, NULL, -1, NULL);
    CHECK_MSG(p.partner == 0, "sync: partner ran the partner design");
    CHECK_MSG(same(&r[0], &p), "sync: partner differs");
    /* a resumed run */
    char ck[256];
    snprintf(ck, sizeof ck, "/tmp/rx_icsgld_ck_%ld.bin", (long)getpid());
    static const char *const s1[] = {"iterations=30000"};
    run_out part = engine_run(s1, 1, 1, NULL, 12000, ck);
    CHECK(part.st == RX_EABORTED);
    run_out res = engine_run(s1, 1, 3, ck, -1, NULL);
    CHECK_MSG(same(&r[0], &res), "resumed run differs");
    unlink(ck);
    printf("30000 iterations, %lld rows: the same bits on 1, 2, 3 threads "
           "(chains moving on 3), under sync: partner (barrier used) and "
           "resumed at 12000 on 3 threads: %s\n",
           (long long)r[0].n,
           same(&r[0], &r[1]) && same(&r[0], &r[2]) && same(&r[0], &p) &&
                   same(&r[0], &res)
               ? "yes"
               : "NO");
    for (int t = 0; t < 3; ++t)
        out_free(&r[t]);
    out_free(&p);
    out_free(&part);
    out_free(&res);
}

int main(void)
{
    const char *s = getenv("RX_SRCDIR");
    snprintf(src, sizeof src, "%s", s ? s : ".");
    rx_config cfg;
    rx_err err = {0};
    rx_status st = load(NULL, 0, &cfg, &err);
    rx_config_free(&cfg);
    CHECK_MSG(st == RX_OK, "%s is not reachable from the configuration "
              "(%s)", KIND_SET, err.msg);
    if (st != RX_OK)
        return check_done();
    /* the row's check: one theta, one temperature */
    const char *tempered[] = {"tempering.n_chains=4",
                              "ladder.tau={min: 1, max: 4}"};
    st = load(tempered, 2, &cfg, &err);
    rx_config_free(&cfg);
    CHECK_MSG(st == RX_ECONFIG && strstr(err.msg, "ladder.tau") &&
                  strstr(err.msg, "constant temperature ladder"),
              "a tempered ladder: %s", err.msg);
    rx__bias_params par;
    const rx__bias_type *T = row_params(&par);
    CHECK(T != NULL);
    if (!T)
        return check_done();
    declarations(T);
    t1(T);
    t2(T);
    determinism();
    t10();
    controls(T);
    return check_done();
}
