/*
 * The AWSGLD bias rows (src/bias/awsgld.c) against csgld.md 2.3 and 7:
 *
 *  1. The rows' declarations: awsgld one state per position, no global
 *     update; iawsgld SHARED with RX__BIAS_NEEDS_GLOBAL_UPDATE.
 *  2. T1: theta[m-1] == 1 exactly and theta non-decreasing after every
 *     one of 2e5 updates (awsgld n = 1, iawsgld n = 5), each update
 *     against the literal eq. 7.5 theta_i += omega theta_J (1{i >= J} -
 *     theta_i) (iawsgld: the field averaged over the chains, from a copy
 *     of theta_k); a non-finite energy leaves the state as it was; pack
 *     and unpack, and unpack refuses a theta that is not monotone or
 *     whose top is not 1.
 *  3. T2: g >= 1 for a monotone theta, = 1 in bin 0 and the guarded
 *     overflow bin; log w = zeta log theta[J] - (1/T - 1/tau) U with the
 *     row's key T, and zeta log theta[J] without it.
 *  4. T12, T13, T14 through the engine on the spec's settings
 *     (yaml/awsgld_cdf_1d.yaml: N(0,1), tau = 1, eta 0.01, m = 1000, du =
 *     0.01, e_min = min U, omega_k = 0.02/(k^0.6 + 100), gradient noise
 *     N(0, 0.1^2), theta_0 = (i+1)/m, 1e7 iterations): T12 max |theta -
 *     CDF| < 0.04 on N(0,1) (zeta 1) and on 0.4 N(-2,1) + 0.6 N(1,1)
 *     (zeta 1); T13 the fraction of samples with U <= 0.01 ordered zeta 2
 *     > zeta 1 > SGLD, near 0.39 / 0.31 / 0.113; T14 the weighted energy
 *     CDF within KS 0.05 (zeta 1) and 0.08 (zeta 2).
 *  5. Negative controls: a row with the update's sign flipped (theta <-
 *     theta - omega H, a test-only row in the table's test slot) misses
 *     T12 by far; the zeta 2 samples weighted with theta(J) instead of
 *     theta(J)^2 (the reference MNIST code's weight), and unweighted,
 *     miss T14.
 *  6. The tempered weight against an exact answer: AWSGLD at tau = 2 with
 *     T = 1 on N(0,1): the weighted second moment near 1 (2 unweighted).
 *  7. Same bits on 1, 2 and 3 threads: awsgld under a tempered ladder
 *     with swaps (and sync: partner, which it allows), iawsgld with 3
 *     chains; a resumed run equals the uninterrupted one (both rows).
 *     The row's check: T above the coldest tau refused at its key;
 *     iawsgld under a tempered ladder refused at ladder.tau.
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
#include "../src/bias/contour.h"
#include "bias_run.h"
#include "check.h"

static char src[1024];

/* ---- the broken variant: the update with its sign flipped --------------*/

static rx_status flip_update(const rx__bias_params *par, void *state, int n,
                             const double *U, const double *tau, int64_t k,
                             rx_err *err)
{
    (void)tau;
    (void)err;
    rx__cs_state *s = state;
    const int m = par->bins;
    for (int p = 0; p < n; ++p) {
        int j = 0;
        if (rx__bias_bin(par, U[p], &j) != RX_OK)
            return RX_ENUMERIC;
        s->v[m + j] += 1.0;
        if (j == m - 1)
            continue;
        const double c = rx__bias_omega(&par->sa, k + 1) * s->v[j];
        for (int i = 0; i < m; ++i) { /* theta - omega H */
            double t = s->v[i] - c * ((i >= j ? 1.0 : 0.0) - s->v[i]);
            s->v[i] = fmin(fmax(t, par->theta_floor), 1.0);
        }
        s->updates++;
    }
    return RX_OK;
}

static void flip_init(const rx__bias_params *par, void *state)
{
    rx__cs_state *s = state;
    s->updates = s->overflow = 0;
    for (int i = 0; i < par->bins; ++i) {
        s->v[i] = (i + 1.0) / par->bins;
        s->v[par->bins + i] = 0.0;
    }
}

static const char *const flip_uses[] = {"bias.", NULL};
const rx__bias_type rx__bias_test_row = {
    .row = {.name = "awsgld_flipped",
            .doc = "test only: AWSGLD with the update's sign flipped",
            .uses = flip_uses},
    .share = RX__BIAS_PER_POSITION,
    .size = rx__cs_size,
    .init = flip_init,
    .update = flip_update,
    .grad_mult = rx__cs_grad_mult,
    .log_weight = rx__cs_log_weight,
    .pack_len = rx__cs_pack_len,
    .pack = rx__cs_pack,
    .unpack = rx__cs_unpack,
    .view = rx__cs_view,
};

/* ---- configuration ---------------------------------------------------- */

/* cfg = yaml/awsgld_cdf_1d.yaml then sets[0..n-1]. */
static rx_status load(const char *const *sets, int n, rx_config *cfg,
                      rx_err *err)
{
    char path[1200];
    snprintf(path, sizeof path, "%s/yaml/awsgld_cdf_1d.yaml", src);
    rx_config_default(cfg);
    return rx_config_load(path, sets, n, cfg, err);
}

static const rx__bias_type *row_params(const char *kind, rx__bias_params *par)
{
    rx_config cfg;
    rx_err err = {0};
    const char *s[1] = {kind};
    rx_status st = load(s, kind ? 1 : 0, &cfg, &err);
    CHECK_MSG(st == RX_OK, "%s: %s", kind ? kind : "file", err.msg);
    rx__bias_params_from(par, &cfg);
    rx_config_free(&cfg);
    return st == RX_OK ? rx__bias_find(par->kind) : NULL;
}

static double *theta(const rx__bias_type *T, const rx__bias_params *par,
                     void *s)
{
    const double *c, *v;
    int64_t u;
    T->view(par, s, &c, &v, &u);
    return (double *)c;
}

/* ---- 1-3: the rows alone ---------------------------------------------- */

/* eq. 7.5 as printed, the field averaged over the chains not in the
 * guarded overflow bin, from a copy of theta_k; then the floor. */
static void literal(const rx__bias_params *par, double *th, int n,
                    const double *U, int64_t k)
{
    if (literal_step(par, th, n, U, k, 1) > 0)
        for (int i = 0; i < par->bins; ++i)
            th[i] = fmax(th[i], par->theta_floor);
}

static void t1(const rx__bias_type *T, int P)
{
    rx__bias_params par;
    row_params(NULL, &par);
    par.bins = 50; /* a short partition: U over all its bins */
    par.sa.a = 1.0;
    par.sa.b = 10.0;
    const int m = par.bins;
    void *s = new_state(T, &par);
    double *th = theta(T, &par, s), *lit = malloc(sizeof(double) * m);
    CHECK(th[m - 1] == 1.0 && th[0] == 1.0 / m);
    double worst = 0.0;
    int top = 0, mono = 0, bad = 0;
    const int64_t K = 200000;
    for (int64_t k = 0; k < K; ++k) {
        double U[8], tau[8] = {1, 1, 1, 1, 1, 1, 1, 1};
        for (int p = 0; p < P; ++p)
            U[p] = p == 1 && unif() < 0.3
                       ? U[0]
                       : par.energy_min + 0.52 * unif() * unif() * unif();
        memcpy(lit, th, sizeof(double) * (size_t)m);
        bad += T->update(&par, s, P, U, tau, k, NULL) != RX_OK;
        literal(&par, lit, P, U, k);
        top += th[m - 1] != 1.0;
        for (int i = 0; i < m; ++i) {
            worst = fmax(worst, fabs(th[i] - lit[i]) / lit[i]);
            mono += i > 0 && th[i] < th[i - 1];
        }
    }
    printf("T1 (%s, %d energies per update): %lld updates, theta[m-1] != 1 "
           "%d times, not monotone %d times, max relative distance to "
           "eq. 7.5 %.2e, theta[0] %.3g\n",
           T->row.name, P, (long long)K, top, mono, worst, th[0]);
    CHECK(bad == 0 && top == 0 && mono == 0);
    CHECK_MSG(worst < 1e-12, "distance to eq. 7.5: %g", worst);

    /* a non-finite energy: RX_ENUMERIC, the state as it was */
    const size_t sz = T->size(&par);
    unsigned char *before = malloc(sz);
    memcpy(before, s, sz);
    const double Un[3] = {0.9, NAN, 1.0}, t3[3] = {1, 1, 1};
    rx_err err = {0};
    CHECK(T->update(&par, s, P < 3 ? 1 : 3, P < 3 ? Un + 1 : Un, t3, K,
                    &err) == RX_ENUMERIC);
    CHECK(memcmp(before, s, sz) == 0);
    /* pack, unpack: the next updates agree bit for bit */
    const size_t len = T->pack_len(&par);
    double *buf = malloc(sizeof(double) * len);
    T->pack(&par, s, buf);
    void *r = new_state(T, &par);
    CHECK(T->unpack(&par, r, buf, &err) == RX_OK);
    const double U5[5] = {0.93, 0.95, 1.1, 0.93, 1.3},
                 t5[5] = {1, 1, 1, 1, 1};
    T->update(&par, s, P, U5, t5, K, NULL);
    T->update(&par, r, P, U5, t5, K, NULL);
    CHECK(memcmp(s, r, sz) == 0);
    const double keep = buf[2 + 5];
    buf[2 + 5] = buf[2 + 6] * 1.5; /* theta[5] > theta[6] */
    CHECK(T->unpack(&par, r, buf, &err) == RX_EDATA);
    CHECK(strstr(err.msg, "monotone") != NULL);
    buf[2 + 5] = keep;
    buf[2 + m - 1] = 0.999;
    CHECK(T->unpack(&par, r, buf, &err) == RX_EDATA);
    free(buf);
    free(r);
    free(before);
    free(lit);
    free(s);
}

static void t2(const rx__bias_type *T)
{
    rx__bias_params par;
    row_params(NULL, &par);
    par.zeta = 2.0;
    const int m = par.bins;
    void *s = new_state(T, &par);
    const double *th = theta(T, &par, s);
    int below = 0;
    for (int j = 0; j < m; ++j)
        below += T->grad_mult(&par, s, par.energy_min + (j + 0.5) * 0.01,
                              1.0) < 1.0;
    CHECK_MSG(below == 0, "g < 1 in %d bins for a monotone theta", below);
    const double e0 = par.energy_min;
    CHECK(T->grad_mult(&par, s, e0 + 0.005, 1.0) == 1.0);
    CHECK(T->grad_mult(&par, s, e0 + 1e3, 1.0) == 1.0);
    CHECK_NEAR(T->grad_mult(&par, s, e0 + 0.025, 3.0),
               1.0 + 2.0 * 3.0 / 0.01 * log(3.0 / 2.0), 1e-9);
    const double U = e0 + 0.035; /* bin 3 */
    CHECK_NEAR(T->log_weight(&par, s, U, 2.0), 2.0 * log(th[3]), 1e-12);
    const double Tt = 0.5;
    par.own.k[0].v = &Tt;
    par.own.k[0].n = 1;
    CHECK_NEAR(T->log_weight(&par, s, U, 2.0),
               2.0 * log(th[3]) - (1.0 / 0.5 - 1.0 / 2.0) * U, 1e-12);
    CHECK(T->log_weight(&par, s, e0 + 1e3, 2.0) == -INFINITY);
    CHECK(isnan(T->log_weight(&par, s, NAN, 2.0)));
    free(s);
}

/* ---- 4-7: through the engine ------------------------------------------ */

typedef struct target1 {
    double w[2], mu[2];
    int k;
} target1;
static const target1 N01 = {{1, 0}, {0, 0}, 1};
static const target1 MIX = {{0.4, 0.6}, {-2, 1}, 2};

static double energy(const target1 *t, double x)
{
    double p = 0.0;
    for (int i = 0; i < t->k; ++i)
        p += t->w[i] * exp(-0.5 * (x - t->mu[i]) * (x - t->mu[i]));
    return 0.9189385332046727 - log(p);
}

/* min U on a grid, refined */
static double energy_min(const target1 *t)
{
    double best = INFINITY, bx = 0.0;
    for (double x = -6.0; x <= 6.0; x += 1e-4) {
        const double u = energy(t, x);
        if (u < best) {
            best = u;
            bx = x;
        }
    }
    for (double h = 1e-5; h > 1e-10; h /= 10.0)
        for (double x = bx - 10 * h; x <= bx + 10 * h; x += h)
            if (energy(t, x) < best) {
                best = energy(t, x);
                bx = x;
            }
    return best;
}

/* F[i] = P(U <= e_min + (i+1) du) under the target at tau = 1 */
static void energy_cdf(const target1 *t, double e0, double du, int m,
                       double *F)
{
    memset(F, 0, sizeof(double) * (size_t)m);
    const double h = 2e-5;
    for (double x = -14.0; x <= 14.0; x += h) {
        const double u = energy(t, x);
        double b = floor((u - e0) / du);
        int j = b < 0 ? 0 : (b >= m - 1 ? m - 1 : (int)b);
        F[j] += exp(-u) * h;
    }
    for (int i = 1; i < m; ++i)
        F[i] += F[i - 1];
    for (int i = 0; i < m; ++i)
        F[i] /= F[m - 1];
}

typedef struct run_out {
    rx_status st;
    int64_t n;
    float *x;
    double *lw;
    double *theta;
    int partner, m;
} run_out;

static void out_free(run_out *o)
{
    free(o->x);
    free(o->lw);
    free(o->theta);
    memset(o, 0, sizeof *o);
}

static int collect(rx_ctx *c, const rx_results *r, void *out)
{
    run_out *o = out;
    o->n = r->n_samples * (int64_t)r->dim; /* dim 1 */
    o->partner = r->partner;
    o->x = copy_floats(r->samples, (size_t)o->n);
    if (r->log_weights)
        o->lw = copy_doubles(r->log_weights, (size_t)r->n_samples);
    o->m = bias_copy(c, 0, &o->theta, NULL);
    return 1;
}

static run_out engine_run(const char *const *sets, int n, int threads,
                          const char *from, int64_t stop_at, const char *ck)
{
    static const char *const pre[] = {"record.trace_every=0",
                                      "bias.resample=false"};
    run_out o;
    memset(&o, 0, sizeof o);
    o.st = load_collect(load, pre, NSETS(pre), sets, n, threads, from,
                        stop_at, ck, collect, &o);
    return o;
}

static int same(const run_out *a, const run_out *b)
{
    return same_rows(a->n, a->x, a->lw, b->n, b->x, b->lw);
}

static double max_dev(const run_out *o, const double *F, int *at)
{
    double d = 0.0;
    for (int i = 0; o->theta && i < o->m; ++i)
        if (fabs(o->theta[i] - F[i]) > d) {
            d = fabs(o->theta[i] - F[i]);
            *at = i;
        }
    return o->theta ? d : INFINITY;
}

/* fraction of samples with U <= e0 + 0.01 */
static double low_frac(const run_out *o, const target1 *t, double e0)
{
    int64_t c = 0;
    for (int64_t i = 0; i < o->n; ++i)
        c += energy(t, o->x[i]) <= e0 + 0.01;
    return o->n ? (double)c / (double)o->n : 0.0;
}

typedef struct uw {
    double u, w;
} uw;
static int by_u(const void *a, const void *b)
{
    const double x = ((const uw *)a)->u, y = ((const uw *)b)->u;
    return (x > y) - (x < y);
}

/* KS distance between the weighted empirical CDF of U (log-weights lw
 * times `scale`; 0: unweighted) and the target's energy CDF (fine
 * bins of F, evaluated at the sample's bin's top edge, as theta) */
static double ks(const run_out *o, const target1 *t, double e0,
                 const double *F, int m, double scale)
{
    uw *a = malloc(sizeof(uw) * (size_t)o->n);
    double mx = -INFINITY, tot = 0.0;
    const int wt = o->lw && scale != 0.0; /* scale 0: unweighted */
    for (int64_t i = 0; wt && i < o->n; ++i)
        mx = fmax(mx, scale * o->lw[i]);
    for (int64_t i = 0; i < o->n; ++i) {
        a[i].u = energy(t, o->x[i]);
        a[i].w = wt ? exp(scale * o->lw[i] - mx) : 1.0;
        tot += a[i].w;
    }
    qsort(a, (size_t)o->n, sizeof(uw), by_u);
    double cum = 0.0, d = 0.0;
    for (int64_t i = 0; i < o->n; ++i) {
        cum += a[i].w;
        if (i + 1 < o->n && a[i + 1].u == a[i].u)
            continue;
        /* the CDF at u, linear between the bin edges */
        const double b = (a[i].u - e0) / 0.01;
        int j = (int)floor(b);
        if (j >= m - 1)
            continue;
        const double lo = j <= 0 ? 0.0 : F[j - 1];
        const double f = j < 0 ? 0.0 : lo + (F[j] - lo) * (b - j);
        d = fmax(d, fabs(cum / tot - f));
    }
    free(a);
    return d;
}

static void cdf_claims(void)
{
    const double e0 = energy_min(&N01);
    const int m = 1000;
    double *F = malloc(sizeof(double) * m), *G = malloc(sizeof(double) * m);
    energy_cdf(&N01, e0, 0.01, m, F);
    CHECK_NEAR(F[99], erf(1.0), 1e-4); /* u = 1: erf(sqrt(1)) */
    static const char *const z2[] = {"bias.zeta=2"};
    static const char *const sg[] = {"bias.kind=none"};
    run_out a = engine_run(NULL, 0, 1, NULL, -1, NULL);
    run_out b = engine_run(z2, 1, 1, NULL, -1, NULL);
    run_out s = engine_run(sg, 1, 1, NULL, -1, NULL);
    int wa = -1, wb = -1;
    const double da = max_dev(&a, F, &wa), db = max_dev(&b, F, &wb);
    const double fa = low_frac(&a, &N01, e0), fb = low_frac(&b, &N01, e0),
                 fs = low_frac(&s, &N01, e0);
    const double ka = ks(&a, &N01, e0, F, m, 1.0),
                 kb = ks(&b, &N01, e0, F, m, 1.0);
    const double kbw = ks(&b, &N01, e0, F, m, 0.5),
                 kau = ks(&a, &N01, e0, F, m, 0.0);
    printf("T12 N(0,1), zeta 1, 1e7 iterations: max |theta - CDF| %.4f "
           "(bin %d); zeta 2: max |theta - CDF| %.4f (bin %d)\n",
           da, wa, db, wb);
    printf("T13 fraction with U <= 0.01: zeta 2 %.4f, zeta 1 %.4f, SGLD "
           "%.4f\n", fb, fa, fs);
    printf("T14 weighted KS: zeta 1 %.4f, zeta 2 %.4f; controls: zeta 2 "
           "weighted with theta(J) %.4f, zeta 1 unweighted %.4f\n",
           ka, kb, kbw, kau);
    CHECK_MSG(da < 0.04, "T12 N(0,1): %g", da);
    CHECK_MSG(fb > fa && fa > fs, "T13 order %g %g %g", fb, fa, fs);
    CHECK_MSG(fabs(fa - 0.31) < 0.04, "T13 zeta 1: %g", fa);
    CHECK_MSG(fabs(fb - 0.39) < 0.05, "T13 zeta 2: %g", fb);
    CHECK_MSG(fabs(fs - 0.113) < 0.02, "T13 SGLD: %g", fs);
    CHECK_MSG(ka < 0.05, "T14 zeta 1: %g", ka);
    CHECK_MSG(kb < 0.08, "T14 zeta 2: %g", kb);
    CHECK_MSG(kbw > 0.08, "control: wrong weights pass T14 (%g)", kbw);
    CHECK_MSG(kau > 0.05, "control: no weights pass T14 (%g)", kau);
    out_free(&b);
    out_free(&s);

    /* the broken variant: the update's sign flipped */
    static const char *const fl[] = {"bias.kind=awsgld_flipped"};
    run_out f = engine_run(fl, 1, 1, NULL, -1, NULL);
    int wf = -1;
    const double df = max_dev(&f, F, &wf);
    printf("control: sign flipped: max |theta - CDF| %.4f (bin %d)\n", df,
           wf);
    CHECK_MSG(df > 0.2, "the flipped update passes T12: %g", df);
    out_free(&f);
    out_free(&a);

    /* the mixture, zeta 1 */
    const double e1 = energy_min(&MIX);
    energy_cdf(&MIX, e1, 0.01, m, G);
    char emin[64];
    snprintf(emin, sizeof emin, "bias.energy_min=%.17g", e1);
    const char *mx[] = {"target.weights=[0.4, 0.6]",
                        "target.means=[[-2], [1]]",
                        "target.scales=[[1], [1]]", "init.low=0.999",
                        "init.high=1.001", emin};
    run_out x = engine_run(mx, 6, 1, NULL, -1, NULL);
    int wx = -1;
    const double dx = max_dev(&x, G, &wx);
    const double kx = ks(&x, &MIX, e1, G, m, 1.0);
    printf("T12 mixture 0.4 N(-2,1) + 0.6 N(1,1), zeta 1 (e_min %.6f): "
           "max |theta - CDF| %.4f (bin %d); T14 KS %.4f\n",
           e1, dx, wx, kx);
    CHECK_MSG(dx < 0.04, "T12 mixture: %g", dx);
    CHECK_MSG(kx < 0.05, "T14 mixture: %g", kx);
    out_free(&x);
    free(F);
    free(G);
}

/* AWSGLD at tau = 2 reweighted to T = 1: the second moment of N(0, 1) */
static void tempered(void)
{
    static const char *const s[] = {"ladder.tau=2",
                                    "bias.awsgld_temperature=1",
                                    "iterations=2000000", "bias.bins=400",
                                    "bias.bin_width=0.05"};
    run_out o = engine_run(s, 5, 1, NULL, -1, NULL);
    double mx = -INFINITY, sw = 0, s2 = 0, u2 = 0;
    for (int64_t i = 0; i < o.n; ++i)
        mx = fmax(mx, o.lw[i]);
    for (int64_t i = 0; i < o.n; ++i) {
        const double w = exp(o.lw[i] - mx), x2 = (double)o.x[i] * o.x[i];
        sw += w;
        s2 += w * x2;
        u2 += x2;
    }
    s2 /= sw;
    u2 /= (double)o.n;
    printf("tau 2, T 1: weighted E[x^2] %.4f (exact 1), unweighted %.4f\n",
           s2, u2);
    CHECK_MSG(fabs(s2 - 1.0) < 0.05, "weighted E[x^2] = %g", s2);
    out_free(&o);
}

static void determinism(void)
{
    static const char *const lad[] = {
        "iterations=30000", "tempering.n_chains=3", "tempering.scheme=deo",
        "ladder.tau=[1, 2, 4]", "ladder.eta=[0.01, 0.01, 0.01]",
        "bias.awsgld_temperature=1", "record.all_positions=true",
        "balance=rotate"};
    static const char *const ia[] = {
        "iterations=30000", "tempering.n_chains=3", "tempering.scheme=none",
        "ladder.tau=[1, 1, 1]", "ladder.eta=[0.01, 0.01, 0.01]",
        "bias.kind=iawsgld", "record.all_positions=true", "balance=rotate"};
    char ck[256];
    snprintf(ck, sizeof ck, "/tmp/rx_awsgld_ck_%ld.bin", (long)getpid());
    for (int v = 0; v < 2; ++v) {
        const char *const *s = v ? ia : lad;
        run_out r[3];
        for (int t = 0; t < 3; ++t)
            r[t] = engine_run(s, 8, t + 1, NULL, -1, NULL);
        const char *sp[9];
        memcpy(sp, s, sizeof(char *) * 8);
        sp[7] = "sync=partner";
        run_out p = engine_run(sp, 8, 3, NULL, -1, NULL);
        run_out part = engine_run(s, 8, 1, NULL, 12000, ck);
        CHECK(part.st == RX_EABORTED);
        run_out res = engine_run(s, 8, 3, ck, -1, NULL);
        unlink(ck);
        const int ok = same(&r[0], &r[1]) && same(&r[0], &r[2]) &&
                       same(&r[0], &p) && same(&r[0], &res);
        printf("%s, 30000 iterations, %lld values: same bits on 1, 2, 3 "
               "threads, sync: partner (%s design) and resumed at 12000 on "
               "3 threads: %s\n",
               v ? "iawsgld, 3 chains at tau 1"
                 : "awsgld, tau [1, 2, 4] with DEO swaps",
               (long long)r[0].n, p.partner ? "partner" : "barrier",
               ok ? "yes" : "NO");
        CHECK(ok);
        CHECK(r[0].lw != NULL);
        CHECK_MSG(p.partner == !v, "partner design %d", p.partner);
        for (int t = 0; t < 3; ++t)
            out_free(&r[t]);
        out_free(&p);
        out_free(&part);
        out_free(&res);
    }
}

static void checks(void)
{
    rx_config cfg;
    rx_err err = {0};
    static const char *const hot[] = {"bias.awsgld_temperature=1.5"};
    rx_status st = load(hot, 1, &cfg, &err);
    rx_config_free(&cfg);
    CHECK_MSG(st == RX_ECONFIG && strstr(err.msg, "bias.awsgld_temperature")
                  && strstr(err.msg, "above the coldest"),
              "T above tau: %s", err.msg);
    static const char *const neg[] = {"bias.awsgld_temperature=-1"};
    st = load(neg, 1, &cfg, &err);
    rx_config_free(&cfg);
    CHECK_MSG(st == RX_ECONFIG && strstr(err.msg, "awsgld_temperature"),
              "T < 0: %s", err.msg);
    static const char *const tl[] = {"bias.kind=iawsgld",
                                     "tempering.n_chains=3",
                                     "ladder.tau=[1, 2, 4]",
                                     "ladder.eta=[0.01, 0.01, 0.01]"};
    st = load(tl, 4, &cfg, &err);
    rx_config_free(&cfg);
    CHECK_MSG(st == RX_ECONFIG && strstr(err.msg, "ladder.tau") &&
                  strstr(err.msg, "constant temperature ladder"),
              "iawsgld tempered: %s", err.msg);
}

int main(void)
{
    const char *s = getenv("RX_SRCDIR");
    snprintf(src, sizeof src, "%s", s ? s : ".");
    rx__bias_params par;
    const rx__bias_type *A = row_params(NULL, &par);
    const rx__bias_type *I = row_params("bias.kind=iawsgld", &par);
    CHECK(A && I);
    if (!A || !I)
        return check_done();
    CHECK(A->share == RX__BIAS_PER_POSITION &&
          !(A->needs & RX__BIAS_NEEDS_GLOBAL_UPDATE));
    CHECK(I->share == RX__BIAS_SHARED &&
          (I->needs & RX__BIAS_NEEDS_GLOBAL_UPDATE));
    checks();
    t1(A, 1);
    t1(I, 5);
    t2(A);
    t2(I);
    determinism();
    tempered();
    cdf_claims();
    return check_done();
}
