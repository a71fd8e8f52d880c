/*
 * The CSGLD bias row (src/bias/) against csgld.md 7: the deterministic
 * claims T1-T5 (SA invariants, the multiplier, binning, the energy-barrier
 * reduction, resampling), then the stochastic claims T6-T9 with a
 * single-chain SGLD loop written here on the 1-D mixture 0.4 N(-6,1) +
 * 0.6 N(4,1) (csgld.md 4.1.1), calling the row the way the engine's
 * iteration does: multiplier at the step, update after the energy, the
 * weight of the recorded sample after the update. Last, a timing of the
 * multiplier + update against plain SGLD for d >> bins (csgld.md B6),
 * printed, not asserted.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../src/bias/bias.h"
#include "check.h"

#define M 50 /* bins of the spec's mixture tests */

static rx__bias_params mixture_params(double zeta)
{
    rx__bias_params p;
    rx__bias_params_default(&p);
    p.kind = RX_BIAS_CSGLD;
    p.bins = M;
    p.energy_min = 1.0;
    p.bin_width = 1.0;
    p.zeta = zeta;
    p.sa.a = 1.0; /* omega_k = 1/(k^0.6 + 100) */
    p.sa.b = 100.0;
    p.sa.alpha = 0.6;
    p.sa.cap = 1.0;
    return p;
}

/* Energy and gradient of 0.4 N(-6,1) + 0.6 N(4,1) (tau = 1). */
static double gmm(double x, double *grad)
{
    double a = log(0.4) - 0.5 * (x + 6.0) * (x + 6.0);
    double b = log(0.6) - 0.5 * (x - 4.0) * (x - 4.0);
    double hi = a > b ? a : b, lo = a > b ? b : a;
    double e = exp(lo - hi);
    double lse = hi + log1p(e);
    double ra = exp(a - lse); /* responsibility of N(-6,1) */
    *grad = ra * (x + 6.0) + (1.0 - ra) * (x - 4.0);
    return 0.9189385332046727 - lse; /* -log pi(x), 0.5 log(2 pi) */
}

/* theta_inf(i) = mass of bin i under pi, by quadrature on a fine grid. */
static void exact_theta(const rx__bias_params *p, double *th)
{
    for (int i = 0; i < p->bins; ++i)
        th[i] = 0.0;
    const double h = 1e-4;
    for (double x = -40.0; x <= 40.0; x += h) {
        double g, U = gmm(x, &g);
        int j;
        if (rx__bias_bin(p, U, &j) == RX_OK)
            th[j] += exp(-U) * h;
    }
    double s = 0.0;
    for (int i = 0; i < p->bins; ++i)
        s += th[i];
    for (int i = 0; i < p->bins; ++i)
        th[i] /= s;
}

/* ---- T1 SA invariants ---------------------------------------------------*/

static void t1_invariants(void)
{
    static const double zetas[] = {0.0, 0.75, 1.0, 3.0};
    for (int z = 0; z < 4; ++z)
        for (int init = 0; init < 2; ++init) {
            rx__bias_params p = mixture_params(zetas[z]);
            p.theta_init = init ? RX_BIAS_THETA_LINEAR : RX_BIAS_THETA_UNIFORM;
            if (z == 3)
                p.sa.constant = 0.9; /* large steps */
            rx__bias b;
            CHECK(rx__bias_create(&b, &p, 1, NULL) == RX_OK);
            void *st = rx__bias_state(&b, 0);
            const double *th = rx__csgld_theta(st);
            rx__stream s;
            rx__stream_init(&s, 7, (uint32_t)z, RX_STREAM_STEP, 0);
            double worst = 0.0;
            int nonpos = 0;
            for (int64_t k = 0; k < 100000; ++k) {
                /* energies mostly low, sometimes far out */
                double U = 1.0 + 8.0 * fabs(rx__normal(&s));
                if (k % 97 == 0)
                    U = 60.0;
                b.type->update(&p, st, 1, &U, &(double){1.0}, k, NULL);
                double sum = 0.0;
                for (int i = 0; i < M; ++i) {
                    sum += th[i];
                    nonpos += !(th[i] > 0.0);
                }
                worst = fmax(worst, fabs(sum - 1.0));
            }
            CHECK_MSG(worst < 1e-12, "zeta %g: |sum theta - 1| = %g",
                      zetas[z], worst);
            CHECK(nonpos == 0);
            rx__bias_destroy(&b);
        }
}

/* ---- T2 multiplier ------------------------------------------------------*/

static void t2_multiplier(void)
{
    rx__bias_params p = mixture_params(0.75);
    rx__bias b;
    CHECK(rx__bias_create(&b, &p, 1, NULL) == RX_OK);
    void *st = rx__bias_state(&b, 0);
    double *th = rx__csgld_theta(st);
    const rx__bias_type *T = b.type;
    double tau = 1.0;
    /* uniform theta: g == 1 in every bin (CSGLD is SGLD) */
    int not1 = 0;
    for (double U = -5.0; U < 60.0; U += 0.25)
        not1 += T->grad_mult(&p, st, U, tau) != 1.0;
    CHECK(not1 == 0);
    /* theta increasing over bins 0..9 (each twice the last) */
    double s = 0.0;
    for (int i = 0; i < M; ++i)
        s += th[i] = i < 10 ? ldexp(1.0, i) : 1.0;
    for (int i = 0; i < M; ++i)
        th[i] /= s;
    CHECK(T->grad_mult(&p, st, 1.5, tau) == 1.0); /* bin 0: g(0) = 1 */
    for (int j = 1; j < 10; ++j) {
        double U = 1.5 + j, g = T->grad_mult(&p, st, U, 2.0);
        CHECK(g > 1.0);
        CHECK_NEAR(g, 1.0 + 0.75 * 2.0 * log(2.0), 1e-12);
    }
    /* theta[10] < theta[9]: a bouncy (g < 0 for large enough zeta tau) */
    s = log(th[10]) - log(th[9]);
    CHECK_NEAR(T->grad_mult(&p, st, 11.5, 1.0), 1.0 + 0.75 * s, 1e-12);
    /* forward difference reads bin j+1 */
    p.difference = RX_BIAS_DIFF_FORWARD;
    CHECK_NEAR(T->grad_mult(&p, st, 10.5, 1.0), 1.0 + 0.75 * s, 1e-12);
    p.difference = RX_BIAS_DIFF_BACKWARD;
    /* clamp */
    p.mult_clamp = 1.25;
    CHECK(T->grad_mult(&p, st, 5.5, 1.0) == 1.25);
    CHECK(T->grad_mult(&p, st, 11.5, 1.0) == -1.25);
    p.mult_clamp = 0.0;
    /* zeta = 0: SGLD */
    p.zeta = 0.0;
    for (int j = 0; j < M; ++j)
        not1 += T->grad_mult(&p, st, 1.5 + j, 1.0) != 1.0;
    CHECK(not1 == 0);
    p.zeta = 0.75;
    /* overflow bin: g = 1 and weight 0 with the guard, not without */
    th[M - 1] *= 4.0; /* theta[m-1] > theta[m-2]: g would be > 1 */
    CHECK(T->grad_mult(&p, st, 1e6, 1.0) == 1.0);
    CHECK(T->log_weight(&p, st, 1e6, 1.0) == -INFINITY);
    p.overflow_guard = 0;
    CHECK(T->grad_mult(&p, st, 1e6, 1.0) > 1.0);
    CHECK_NEAR(T->log_weight(&p, st, 1e6, 1.0), 0.75 * log(th[M - 1]),
               1e-12);
    p.overflow_guard = 1;
    /* the weight of a sample: zeta log theta[J] */
    CHECK_NEAR(T->log_weight(&p, st, 4.5, 1.0), 0.75 * log(th[3]), 1e-12);
    rx__bias_destroy(&b);
}

/* ---- T3 binning, non-finite energies, validation, checkpoint ------------*/

static void t3_binning(void)
{
    rx__bias_params p = mixture_params(0.75);
    int j = -7;
    static const struct {
        double U;
        int j;
    } cases[] = {{-1e308, 0}, {-3.0, 0}, {1.0, 0}, {1.999, 0}, {2.0, 1},
                 {2.5, 1},    {3.0, 2},  {49.9, 48}, {50.0, 49}, {1e308, 49}};
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; ++i) {
        CHECK(rx__bias_bin(&p, cases[i].U, &j) == RX_OK);
        CHECK_MSG(j == cases[i].j, "U %g: bin %d, want %d", cases[i].U, j,
                  cases[i].j);
    }
    const double bad[] = {NAN, INFINITY, -INFINITY};
    rx__bias b;
    CHECK(rx__bias_create(&b, &p, 1, NULL) == RX_OK);
    void *st = rx__bias_state(&b, 0);
    unsigned char before[4096];
    CHECK(b.type->size(&p) <= sizeof before);
    memcpy(before, st, b.type->size(&p));
    for (int i = 0; i < 3; ++i) {
        j = -7;
        CHECK(rx__bias_bin(&p, bad[i], &j) == RX_ENUMERIC && j == -7);
        double U[2] = {3.0, bad[i]};
        rx_err e;
        CHECK(b.type->update(&p, st, 2, U, (double[]){1, 1}, 5, &e) ==
              RX_ENUMERIC);
        CHECK(strstr(e.msg, "chain 1") != NULL);
        CHECK(memcmp(before, st, b.type->size(&p)) == 0);
        CHECK(isnan(b.type->grad_mult(&p, st, bad[i], 1.0)));
        CHECK(isnan(b.type->log_weight(&p, st, bad[i], 1.0)));
    }
    /* checkpoint: pack, unpack into a fresh state, same bytes */
    for (int k = 0; k < 100; ++k)
        b.type->update(&p, st, 1, &(double){1.5 + k % 9}, &(double){1}, k,
                       NULL);
    const double *curve, *vis;
    int64_t upd;
    b.type->view(&p, st, &curve, &vis, &upd);
    CHECK(curve == rx__csgld_theta(st) && upd == 100 && vis[0] == 12.0);
    size_t len = b.type->pack_len(&p);
    double *buf = malloc(sizeof(double) * len);
    b.type->pack(&p, st, buf);
    rx__bias b2;
    CHECK(rx__bias_create(&b2, &p, 1, NULL) == RX_OK);
    rx_err e;
    CHECK(b.type->unpack(&p, rx__bias_state(&b2, 0), buf, &e) == RX_OK);
    CHECK(memcmp(st, rx__bias_state(&b2, 0), b.type->size(&p)) == 0);
    buf[2 + 3] = -0.5; /* theta[3] < 0 */
    CHECK(b.type->unpack(&p, rx__bias_state(&b2, 0), buf, &e) == RX_EDATA);
    free(buf);
    rx__bias_destroy(&b2);
    rx__bias_destroy(&b);
    /* P chains: one state per position, each on its own cache lines and
     * updated alone; kind none: no states */
    CHECK(rx__bias_create(&b, &p, 4, NULL) == RX_OK);
    CHECK(b.n == 4 && b.stride % RX_CACHELINE == 0 &&
          b.stride >= b.type->size(&p));
    b.type->update(&p, rx__bias_state(&b, 2), 1, &(double){3.5},
                   &(double){1}, 0, NULL);
    CHECK(rx__csgld_theta(rx__bias_state(&b, 2))[2] > 1.0 / M);
    CHECK(rx__csgld_theta(rx__bias_state(&b, 1))[2] == 1.0 / M);
    rx__bias_destroy(&b);
    rx__bias_params none;
    rx__bias_params_default(&none);
    CHECK(rx__bias_create(&b, &none, 4, NULL) == RX_OK && b.type == NULL &&
          b.n == 0);
    rx__bias_destroy(&b);
}

/* Each bad parameter is refused, naming its key. */
static void t3_validation(void)
{
    rx__bias_params p0 = mixture_params(0.75), p;
    const char *key = NULL;
    rx_err e;
    CHECK(rx__bias_check(&p0, &key, &e) == RX_OK);
#define REFUSE(field, value, want)                                         \
    do {                                                                   \
        p = p0;                                                            \
        p.field = value;                                                   \
        key = NULL;                                                        \
        CHECK(rx__bias_check(&p, &key, &e) == RX_ECONFIG);                 \
        CHECK_MSG(key && strcmp(key, want) == 0, "%s: key %s, msg %s",     \
                  #field, key ? key : "(null)", e.msg);                    \
    } while (0)
    REFUSE(bins, 1, "bias.bins");
    REFUSE(bins, RX_BIAS_MAX_BINS + 1, "bias.bins");
    REFUSE(energy_min, NAN, "bias.energy_min");
    REFUSE(energy_min, INFINITY, "bias.energy_min");
    REFUSE(bin_width, 0.0, "bias.bin_width");
    REFUSE(bin_width, -1.0, "bias.bin_width");
    REFUSE(bin_width, NAN, "bias.bin_width");
    REFUSE(bin_width, 1e307, "bias.bin_width"); /* top edge overflows */
    REFUSE(energy_min, 1e15, "bias.bin_width"); /* edges coincide */
    REFUSE(zeta, -0.5, "bias.zeta");
    REFUSE(zeta, NAN, "bias.zeta");
    REFUSE(zeta, INFINITY, "bias.zeta");
    REFUSE(sa.alpha, 0.5, "bias.sa.alpha");
    REFUSE(sa.alpha, 1.5, "bias.sa.alpha");
    REFUSE(sa.a, 0.0, "bias.sa.a");
    REFUSE(sa.a, 200.0, "bias.sa.a"); /* omega_1 = 200/101 >= 1 */
    REFUSE(sa.b, -1.0, "bias.sa.b");
    REFUSE(sa.cap, 0.0, "bias.sa.cap");
    REFUSE(sa.constant, 1.0, "bias.sa.constant");
    REFUSE(sa.constant, -0.1, "bias.sa.constant");
    REFUSE(mult_clamp, 0.5, "bias.multiplier_clamp");
    REFUSE(mult_clamp, -5.0, "bias.multiplier_clamp");
    REFUSE(mult_clamp, INFINITY, "bias.multiplier_clamp");
    REFUSE(theta_floor, 0.0, "bias.theta_floor");
    REFUSE(theta_floor, 0.02, "bias.theta_floor");
#undef REFUSE
    p = p0;
    p.sa.a = 200.0;
    p.sa.cap = 0.5; /* the cap makes omega_1 < 1 */
    CHECK(rx__bias_check(&p, &key, &e) == RX_OK);
    p = p0;
    p.sa.constant = 0.03;
    CHECK(rx__bias_check(&p, &key, &e) == RX_OK);
    CHECK(rx__bias_omega(&p.sa, 1) == 0.03 &&
          rx__bias_omega(&p.sa, 1000000) == 0.03);
    CHECK_NEAR(rx__bias_omega(&p0.sa, 32), 1.0 / (pow(32, 0.6) + 100),
               1e-17);
}

/* ---- T4 barrier reduction -----------------------------------------------*/

/* max - min over x in [-6, 4] of U(x) + zeta tau log Psi_theta(U(x)). */
static double barrier(const rx__bias_params *p, const double *th)
{
    double lo = INFINITY, hi = -INFINITY;
    for (double x = -6.0; x <= 4.0; x += 1e-4) {
        double g, U = gmm(x, &g);
        double v = U + p->zeta * rx__bias_log_psi(p, th, U);
        lo = fmin(lo, v);
        hi = fmax(hi, v);
    }
    return hi - lo;
}

static void t4_barrier(void)
{
    static const double zeta[3] = {0.0, 0.75, 1.0};
    static const double want[3] = {12.01, 2.64, 1.37};
    double th[M];
    rx__bias_params p = mixture_params(0.0);
    exact_theta(&p, th);
    for (int i = 0; i < 3; ++i) {
        p.zeta = zeta[i];
        double bar = barrier(&p, th);
        printf("T4 zeta %.2f: barrier %.4f (spec %.2f)\n", zeta[i], bar,
               want[i]);
        CHECK_NEAR(bar, want[i], 0.005);
    }
}

/* ---- T5 resampling ------------------------------------------------------*/

static void t5_resampling(void)
{
    enum { N = 8, R = 20000 };
    const double w[N] = {0.1, 0.5, 1.0, 2.0, 3.7, 0.0, 0.05, 1.3};
    double logw[N], sw = 0.0;
    for (int i = 0; i < N; ++i) {
        logw[i] = log(w[i]) + 40.0; /* any scale */
        sw += w[i];
    }
    double mean_res[N] = {0}, mean_sys[N] = {0}, ess = 0.0;
    int64_t copies[N];
    int total_bad = 0, failed = 0;
    for (int r = 0; r < R; ++r) {
        rx__stream s;
        rx__stream_init(&s, 11, 0, RX_STREAM_STEP, (uint64_t)r);
        failed += rx__resample_residual(logw, N, &s, copies, &ess, NULL) !=
                  RX_OK;
        for (int i = 0; i < N; ++i)
            mean_res[i] += (double)copies[i] / R;
        failed += rx__resample_systematic(logw, N, N, &s, copies, NULL,
                                          NULL) != RX_OK;
        int64_t t = 0;
        for (int i = 0; i < N; ++i) {
            mean_sys[i] += (double)copies[i] / R;
            t += copies[i];
        }
        total_bad += t != N;
    }
    CHECK(failed == 0 && total_bad == 0);
    /* E[copies_i] = w_i / mean(w); a count's sd is at most 1/2 per draw
     * (the fractional part is a Bernoulli), so 5 sd of the mean of R */
    const double tol = 5.0 * 0.5 / sqrt((double)R);
    for (int i = 0; i < N; ++i) {
        double r = w[i] * N / sw;
        CHECK_MSG(fabs(mean_res[i] - r) < tol, "residual %d: %g vs %g", i,
                  mean_res[i], r);
        CHECK_MSG(fabs(mean_sys[i] - r) < tol, "systematic %d: %g vs %g", i,
                  mean_sys[i], r);
    }
    CHECK(mean_res[5] == 0.0); /* weight 0: never copied */
    double s2 = 0.0;
    for (int i = 0; i < N; ++i)
        s2 += w[i] * w[i];
    CHECK_NEAR(ess, sw * sw / s2, 1e-9);
    CHECK(ess >= 1.0 && ess <= N);
    /* equal weights: one copy each, ESS = n; one weight: ESS = 1 */
    double eq[N], one[N];
    for (int i = 0; i < N; ++i) {
        eq[i] = -3.0;
        one[i] = i == 2 ? 0.0 : -INFINITY;
    }
    rx__stream s;
    rx__stream_init(&s, 11, 1, RX_STREAM_STEP, 0);
    CHECK(rx__resample_residual(eq, N, &s, copies, &ess, NULL) == RX_OK);
    int all1 = 1;
    for (int i = 0; i < N; ++i)
        all1 &= copies[i] == 1;
    CHECK(all1 && ess == N);
    CHECK(rx__weights_ess(one, N) == 1.0);
    /* bad input is refused */
    rx_err e;
    CHECK(rx__resample_residual(one, 0, &s, copies, NULL, &e) == RX_EINVAL);
    one[2] = -INFINITY;
    CHECK(rx__resample_residual(one, N, &s, copies, NULL, &e) == RX_EINVAL);
    one[2] = NAN;
    CHECK(rx__resample_residual(one, N, &s, copies, NULL, &e) == RX_EINVAL);
}

/* ---- the single-chain loop (T6-T9) --------------------------------------*/

typedef struct chain_out {
    double p_w, mean_w;   /* weighted P(x < -1), weighted mean */
    double frac_neg;      /* fraction of iterations with g < 0 */
    int64_t crossings;    /* moves between the wells x < -3 and x > 1 */
    double occ[M];        /* fraction of iterations per bin */
    double theta[M];      /* theta at the end */
} chain_out;

/*
 * K iterations of x <- x - eps g (grad U + 0.1 z1) + sqrt(2 eps) z2 from
 * x0 = 4, tau = 1 (csgld.md 7.2 T6: gradient noise N(0, 0.01)). kind
 * none: plain SGLD (g = 1, w = 1). Each iteration: the step with the
 * multiplier from the energy of the current x, the energy at the new x,
 * the SA update with it, the new x recorded with its weight.
 */
static void run_chain(const rx__bias_params *p, uint64_t seed, int64_t K,
                      chain_out *o)
{
    const double eps = 0.1, tau = 1.0, sd = sqrt(2.0 * eps * tau);
    rx__bias b;
    rx_err e;
    CHECK_MSG(rx__bias_create(&b, p, 1, &e) == RX_OK, "%s", e.msg);
    const rx__bias_type *T = b.type;
    void *st = T ? rx__bias_state(&b, 0) : NULL;
    rx__stream s;
    rx__stream_init(&s, seed, 0, RX_STREAM_STEP, 0);
    s.normal = RX_NORMAL_ZIGGURAT;
    double x = 4.0, grad, U = gmm(x, &grad);
    double sw = 0.0, swl = 0.0, swx = 0.0;
    int64_t neg = 0, cross = 0;
    int right = 1; /* in the well of N(4,1) */
    for (int64_t k = 0; k < K; ++k) {
        double g = T ? T->grad_mult(p, st, U, tau) : 1.0;
        neg += g < 0.0;
        double gn = grad + 0.1 * rx__normal(&s);
        x += -(eps * g) * gn + sd * rx__normal(&s);
        U = gmm(x, &grad);
        double w = 1.0;
        if (T) {
            T->update(p, st, 1, &U, &tau, k, NULL);
            w = exp(T->log_weight(p, st, U, tau));
        }
        sw += w;
        swl += x < -1.0 ? w : 0.0;
        swx += w * x;
        if (right ? x < -3.0 : x > 1.0) {
            right = !right;
            cross++;
        }
    }
    o->crossings = cross;
    o->p_w = swl / sw;
    o->mean_w = swx / sw;
    o->frac_neg = (double)neg / (double)K;
    if (T) {
        const double *th = rx__csgld_theta(st);
        const double *vis = rx__csgld_visits(p, st);
        for (int i = 0; i < M; ++i) {
            o->theta[i] = th[i];
            o->occ[i] = vis[i] / (double)K;
        }
    }
    rx__bias_destroy(&b);
}

#define K_RUN 10000000 /* csgld.md 7.2 T6: 1e7 iterations */

static void t6_to_t9(void)
{
    double th_inf[M];
    rx__bias_params p = mixture_params(0.75);
    exact_theta(&p, th_inf);
    double pred[M], ps = 0.0;
    for (int i = 0; i < M; ++i)
        ps += pred[i] = pow(th_inf[i], 1.0 - 0.75);
    static const uint64_t seeds[3] = {1, 2, 3};
    for (int r = 0; r < 3; ++r) {
        chain_out o, og;
        run_chain(&p, seeds[r], K_RUN, &o);
        rx__bias_params none;
        rx__bias_params_default(&none);
        run_chain(&none, seeds[r], K_RUN, &og);
        printf("seed %d: CSGLD weighted P(x<-1) %.4f mean %.3f, g<0 %.4f, "
               "%lld crossings; SGLD P(x<-1) %.4f mean %.3f, %lld "
               "crossings\n",
               (int)seeds[r], o.p_w, o.mean_w, o.frac_neg,
               (long long)o.crossings, og.p_w, og.mean_w,
               (long long)og.crossings);
        /* T6 */
        CHECK(o.p_w >= 0.32 && o.p_w <= 0.46);
        CHECK(o.mean_w >= -1.0 && o.mean_w <= 1.0);
        /* SGLD from the same start is trapped. The spec's bound (P(x<-1)
         * < 0.25, mean > 2) is one run's outcome: SGLD crosses the
         * barrier (12 energy units) 1-8 times in 1e7 iterations, and its
         * P(x<-1) was 0.19-0.84 over seeds 1-10 (it held for one). What
         * holds on every seed: SGLD crosses over 100 times less often
         * than CSGLD (measured: 1-8 against 9550-9705). */
        CHECK_MSG(og.crossings * 100 < o.crossings,
                  "SGLD %lld crossings, CSGLD %lld", (long long)og.crossings,
                  (long long)o.crossings);
        /* T7: occupancy of bin i ~ theta_inf(i)^(1 - zeta), bins 0-12 */
        double worst = 0.0;
        for (int i = 0; i <= 12; ++i)
            worst = fmax(worst, fabs(o.occ[i] / (pred[i] / ps) - 1.0));
        printf("  T7 occupancy: worst relative error bins 0-12 %.4f\n",
               worst);
        CHECK(worst < 0.15);
        /* T8: |log theta - log theta_inf| < 0.8 where theta_inf > 1e-6 */
        double dev = 0.0;
        for (int i = 0; i < M; ++i)
            if (th_inf[i] > 1e-6)
                dev = fmax(dev, fabs(log(o.theta[i]) - log(th_inf[i])));
        printf("  T8 theta: worst |log ratio| %.4f\n", dev);
        CHECK(dev < 0.8);
        /* T9: bouncy moves */
        CHECK(o.frac_neg > 0.05);
    }
    /* T7, zeta = 1: flat histogram over the reachable non-boundary bins
     * (theta_inf > 1e-6, as in T8; bins 1..) */
    p.zeta = 1.0;
    chain_out o;
    run_chain(&p, 4, K_RUN, &o);
    double lo = INFINITY, hi = 0.0, mean = 0.0;
    int nb = 0;
    for (int i = 1; i < M - 1; ++i)
        if (th_inf[i] > 1e-6) {
            mean += o.occ[i];
            nb++;
        }
    mean /= nb;
    for (int i = 1; i < M - 1; ++i)
        if (th_inf[i] > 1e-6) {
            lo = fmin(lo, o.occ[i] / mean);
            hi = fmax(hi, o.occ[i] / mean);
        }
    printf("T7 zeta 1: %d bins, occupancy / mean in [%.3f, %.3f], g<0 %.4f\n",
           nb, lo, hi, o.frac_neg);
    CHECK(lo > 0.8 && hi < 1.2);
    CHECK(o.frac_neg > 0.05);
}

/* ---- B6 overhead, printed only ------------------------------------------*/

/* iters iterations of SGLD on U = |x|^2 / 2 in d dims (grad = x), with the
 * bias's multiplier, update and weight when b is not NULL; seconds. */
static double b6_arm(const rx__bias *b, double *x, double *z, size_t d,
                     int iters)
{
    const double eta = 1e-3, tau = 1.0, sd = sqrt(2.0 * eta * tau);
    double U = 0.0, lw = 0.0;
    for (size_t j = 0; j < d; ++j)
        U += 0.5 * x[j] * x[j];
    void *st = b ? rx__bias_state(b, 0) : NULL;
    double t0 = rx__now();
    for (int k = 0; k < iters; ++k) {
        double g = b ? b->type->grad_mult(&b->par, st, U, tau) : 1.0;
        rx__stream s;
        rx__stream_init(&s, 5, 0, RX_STREAM_STEP, (uint64_t)k);
        rx__normal_fill(&s, z, d);
        const double c = eta * g;
        double u = 0.0;
        for (size_t j = 0; j < d; ++j) {
            x[j] += -c * x[j] + sd * z[j];
            u += 0.5 * x[j] * x[j];
        }
        U = u;
        if (b) {
            b->type->update(&b->par, st, 1, &U, &tau, k, NULL);
            lw += b->type->log_weight(&b->par, st, U, tau);
        }
    }
    double t = rx__now() - t0;
    CHECK(!isnan(lw) && isfinite(U)); /* -inf: an overflow-bin weight */
    return t;
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

static void b6_overhead(void)
{
    enum { ROUNDS = 7, ITERS = 20 };
    const size_t d = 100000;
    double *x = malloc(sizeof(double) * d), *z = malloc(sizeof(double) * d);
    rx__bias_params p = mixture_params(0.75);
    p.bins = 100;
    p.energy_min = 0.5 * (double)d - 500.0;
    p.bin_width = 10.0;
    rx__bias b;
    CHECK(rx__bias_create(&b, &p, 1, NULL) == RX_OK);
    rx__stream s;
    rx__stream_init(&s, 3, 0, RX_STREAM_INIT, 0);
    rx__normal_fill(&s, x, d);
    double ratio[ROUNDS], tp = 0.0, tb = 0.0;
    for (int r = 0; r < ROUNDS; ++r) { /* alternating arms */
        double a = b6_arm(NULL, x, z, d, ITERS);
        double c = b6_arm(&b, x, z, d, ITERS);
        ratio[r] = c / a;
        tp += a;
        tb += c;
    }
    qsort(ratio, ROUNDS, sizeof ratio[0], cmp_double);
    printf("B6 d = %zu, bins = %d: SGLD %.1f us/iter, CSGLD %.1f us/iter, "
           "median ratio of %d alternating rounds %.4f (printed, not "
           "asserted)\n",
           d, p.bins, 1e6 * tp / (ROUNDS * ITERS), 1e6 * tb / (ROUNDS * ITERS),
           ROUNDS, ratio[ROUNDS / 2]);
    rx__bias_destroy(&b);
    free(x);
    free(z);
}

int main(void)
{
    t1_invariants();
    t2_multiplier();
    t3_binning();
    t3_validation();
    t4_barrier();
    t5_resampling();
    t6_to_t9();
    b6_overhead();
    return check_done();
}
