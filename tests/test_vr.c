/*
 * Variance-reduced (control-variate) energies, resgld_vr.md 3 and 6 on the
 * [CH3] mixture model (N = 1e4, beta_true = -5, phi = 20, s = 5):
 *   T6  Var(VR) << Var(standard) (ratio > 50), Var_VR(lag 0) == 0,
 *       unbiasedness of the VR energy;
 *   T7  Var(VR) increasing in m and eta, decreasing in n, with the spec's
 *       ratio windows; Var(std) independent of m and eta, ~ 1/n;
 *   T9  the adaptive coefficient converges to -Cov/Var; on the model with
 *       large m eta (weak correlation) the adaptive-c VR variance is
 *       below the fixed c = -1 one;
 *   swaps of VR vs standard estimator (F = 100) at equal accuracy through
 *   the engine, and bitwise equality across thread counts.
 * The sigma^2 factor-2 regression is in test_resgld.c (T12).
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "replex/replex.h"
#include "../src/engine/ctx.h"
#include "../src/estimate/vr.h"
#include "../src/target/target.h"
#include "check.h"

typedef struct {
    rx__target *t;
    rx__tws *tw;
    rx__vrws *vw;
} model;

static int model_open(model *md, int n, int J)
{
    rx_config c;
    rx_config_default(&c);
    c.target.kind = RX_TARGET_MIXTURE_DATA;
    c.target.n_data = 10000;
    c.data.batch_size = n;
    rx_err err;
    memset(md, 0, sizeof *md);
    if (rx__target_create(&md->t, &c, NULL, &err) != RX_OK ||
        rx__tws_create(md->t, 0, 1, 7, &md->tw, &err) != RX_OK ||
        rx__vrws_create(&md->vw, n, J) != RX_OK) {
        fprintf(stderr, "model_open: %s\n", err.msg);
        return 0;
    }
    return 1;
}

static void model_close(model *md)
{
    rx__vrws_destroy(&md->vw);
    rx__tws_destroy(&md->tw);
    rx__target_destroy(&md->t);
}

typedef struct {
    double var_vr, var_std; /* lag-averaged */
    double var_lag0, var_last; /* lag 0 and lag m-1 */
} varres;

/*
 * One SGLD chain (plain minibatch gradients, tau = 1000) from beta = -5
 * after `burn` iterations; then for `iters` iterations the VR and the
 * standard estimator variance at the current position, J fresh batches
 * each, anchor refreshed every m iterations (c = -1).
 */
static varres measure(int n, double eta, int64_t m, int64_t burn,
                      int64_t iters, int J, uint64_t seed)
{
    varres r = {0, 0, 0, 0};
    model md;
    if (!model_open(&md, n, J))
        return r;
    rx__vrconf vc = {1, m, -1.0, 0, 0.0, 0, J};
    const double tau = 1000.0;
    double beta = -5.0, g = 0.0, e = 0.0, anchor = beta, lhat = 0.0;
    double c = -1.0;
    int64_t nc = 0, n0 = 0, nl = 0;
    for (int64_t k = 0; k < burn + iters; ++k) {
        if (k >= burn) {
            int64_t lag = (k - burn) % m;
            if (lag == 0) {
                anchor = beta;
                rx__vr_anchor_energy(md.t, md.tw, md.vw, &vc, &anchor, seed,
                                     0, (uint64_t)k, &lhat, NULL);
            }
            double vv, vs;
            rx__vr_period_end(md.t, md.tw, md.vw, &vc, &beta, &anchor, lhat,
                              &c, &nc, seed, 0, (uint64_t)k, &vv, &vs, NULL);
            r.var_vr += vv;
            r.var_std += vs;
            if (lag == 0) {
                r.var_lag0 = vv > r.var_lag0 ? vv : r.var_lag0;
                n0++;
            }
            if (lag == m - 1) {
                r.var_last += vv;
                nl++;
            }
        }
        rx__target_eval_pe(md.t, md.tw, &beta, &e, &g, seed, 0, (uint64_t)k,
                           NULL);
        rx__stream s;
        rx__stream_init(&s, seed, 0, RX_STREAM_STEP, (uint64_t)k);
        beta += -eta * g + sqrt(2.0 * eta * tau) * rx__normal(&s);
    }
    r.var_vr /= (double)iters;
    r.var_std /= (double)iters;
    r.var_last /= nl > 0 ? (double)nl : 1.0;
    model_close(&md);
    return r;
}

static void t6_t7(void)
{
    const int64_t burn = 3000, it = 2400;
    const int J = 20;
    varres base = measure(100, 1e-6, 40, burn, it, 30, 11);
    printf("T6 n=100 eta=1e-6 m=40: Var(std) %.4g, Var(VR) %.4g (lag m-1 "
           "%.4g), ratio %.1f (lag m-1 %.1f), Var_VR(lag 0) max %.3g\n",
           base.var_std, base.var_vr, base.var_last,
           base.var_std / base.var_vr, base.var_std / base.var_last,
           base.var_lag0);
    CHECK(base.var_std / base.var_vr > 50.0);
    CHECK(base.var_lag0 == 0.0);
    CHECK(base.var_last > base.var_vr);

    varres m10 = measure(100, 1e-6, 10, burn, it, J, 12);
    varres m40 = measure(100, 1e-6, 40, burn, it, J, 12);
    varres m160 = measure(100, 1e-6, 160, burn, it, J, 12);
    varres e1 = measure(100, 2.5e-7, 40, burn, it, J, 12);
    varres e4 = measure(100, 4e-6, 40, burn, it, J, 12);
    varres n4 = measure(400, 1e-6, 40, burn, it, J, 12);
    printf("T7 m 10/40/160: Var(VR) %.4g / %.4g / %.4g; Var(std) %.4g / "
           "%.4g / %.4g\n",
           m10.var_vr, m40.var_vr, m160.var_vr, m10.var_std, m40.var_std,
           m160.var_std);
    printf("T7 eta 2.5e-7/1e-6/4e-6: Var(VR) %.4g / %.4g / %.4g; Var(std) "
           "%.4g / %.4g\n",
           e1.var_vr, m40.var_vr, e4.var_vr, e1.var_std, e4.var_std);
    printf("T7 n 100/400: Var(VR) %.4g / %.4g; Var(std) %.4g / %.4g "
           "(ratio %.2f)\n",
           m40.var_vr, n4.var_vr, m40.var_std, n4.var_std,
           m40.var_std / n4.var_std);
    CHECK(m10.var_vr < m40.var_vr && m40.var_vr < m160.var_vr);
    CHECK(e1.var_vr < m40.var_vr && m40.var_vr < e4.var_vr);
    CHECK(n4.var_vr < m40.var_vr);
    double rm1 = m40.var_vr / m10.var_vr, rm2 = m160.var_vr / m40.var_vr;
    double re1 = m40.var_vr / e1.var_vr, re2 = e4.var_vr / m40.var_vr;
    CHECK_MSG(rm1 >= 2.5 && rm1 <= 16.0, "m x4: %g", rm1);
    CHECK_MSG(rm2 >= 2.5 && rm2 <= 16.0, "m x4: %g", rm2);
    CHECK_MSG(re1 >= 2.5 && re1 <= 6.0, "eta x4: %g", re1);
    CHECK_MSG(re2 >= 2.5 && re2 <= 6.0, "eta x4: %g", re2);
    double rn = m40.var_std / n4.var_std;
    CHECK_MSG(rn >= 2.5 && rn <= 6.0, "Var(std) n x4: %g", rn);
    /* Var(std) does not depend on m or eta (within 25 %) */
    CHECK(fabs(m10.var_std / m160.var_std - 1.0) < 0.25);
    CHECK(fabs(e1.var_std / e4.var_std - 1.0) < 0.25);
}

/* Unbiasedness: at end-of-period positions, the mean of J VR energies on
 * fresh batches is within 4 sd of the exact energy. */
static void t6_unbiased(void)
{
    model md;
    const int J = 30, n = 100;
    if (!model_open(&md, n, J))
        return;
    rx__vrconf vc = {1, 40, -1.0, 0, 0.0, 0, J};
    double beta = -5.0, g, e;
    int bad = 0;
    double zmax = 0.0;
    for (int rep = 0; rep < 10; ++rep) {
        double anchor = beta, lhat = 0.0;
        rx__vr_anchor_energy(md.t, md.tw, md.vw, &vc, &anchor, 5, 0, 0,
                             &lhat, NULL);
        for (int k = 0; k < 39; ++k) { /* to lag 39 */
            uint64_t kk = (uint64_t)(rep * 40 + k);
            rx__target_eval_pe(md.t, md.tw, &beta, &e, &g, 5, 0, kk, NULL);
            rx__stream s;
            rx__stream_init(&s, 5, 0, RX_STREAM_STEP, kk);
            beta += -1e-6 * g + sqrt(2e-6 * 1000.0) * rx__normal(&s);
        }
        double exact = rx__mixdata_full_energy(md.t, beta, NULL);
        rx__stream s;
        rx__stream_init(&s, 99, (uint32_t)rep, RX_STREAM_VARIANCE, 0);
        int32_t idx[100];
        double la[100], m = 0.0, q = 0.0;
        for (int j = 0; j < J; ++j) {
            for (int r = 0; r < n; ++r)
                idx[r] = (int32_t)rx__uniform_int(&s, 10000);
            md.t->cv.losses(md.t, md.tw, &beta, idx, n, la);
            double ev;
            rx__vr_energy(md.t, md.tw, md.vw, &beta, la, idx, &anchor, NULL,
                          lhat, -1.0, &ev, NULL);
            double d = ev - m;
            m += d / (j + 1);
            q += d * (ev - m);
        }
        double sd = sqrt(q / (J - 1) / J);
        double z = fabs(m - exact) / sd;
        zmax = z > zmax ? z : zmax;
        bad += z >= 4.0;
    }
    printf("T6 unbiasedness: max |mean - U| / sd over 10 positions %.2f\n",
           zmax);
    CHECK(bad == 0);
    model_close(&md);
}

/* T9: synthetic paired estimators with correlation rho, equal variances. */
static void t9(void)
{
    static const double rhos[3] = {0.3, 0.5, 0.9};
    for (int ri = 0; ri < 3; ++ri) {
        const double rho = rhos[ri];
        double worst = 0.0, mean_h = 0.0, mean_c = 0.0;
        for (int rep = 0; rep < 200; ++rep) {
            double ch = -1.0, cc = -1.0;
            int64_t nh = 0, ncst = 0;
            rx__stream s;
            rx__stream_init(&s, 3, (uint32_t)(ri * 1000 + rep),
                            RX_STREAM_VARIANCE, 0);
            for (int u = 0; u < 200; ++u) {
                double a[10], b[10];
                for (int j = 0; j < 10; ++j) {
                    double z1 = rx__normal(&s), z2 = rx__normal(&s);
                    a[j] = z1;
                    b[j] = rho * z1 + sqrt(1.0 - rho * rho) * z2;
                }
                rx__vr_coef_update(a, b, 10, 0.0, &ch, &nh);
                rx__vr_coef_update(a, b, 10, 0.3, &cc, &ncst);
            }
            double d = fabs(ch + rho);
            worst = d > worst ? d : worst;
            mean_h += ch / 200.0;
            mean_c += cc / 200.0;
        }
        printf("T9 rho %.1f: harmonic mean c %.3f (worst |c - c*| %.3f), "
               "constant 0.3 mean c %.3f\n",
               rho, mean_h, worst, mean_c);
        CHECK(worst < 0.1);
        CHECK(fabs(mean_c + rho) < 0.03);
    }
}

/*
 * T9 on the [CH3] model: one SGLD chain at tau, anchors refreshed every m;
 * at each period end (before the refresh) the variance of the VR estimator
 * with c = -1 and with the adaptive coefficient as it stood BEFORE this
 * period's update, on the same J batches; the adaptive c is then updated
 * from independent batches (entity 1). Means over the periods after 5.
 */
typedef struct {
    double var_std, var_fixed, var_adapt, c;
} t9res;

static t9res t9_model_run(int64_t m, double eta, double tau, int periods,
                          uint64_t seed)
{
    t9res r = {0, 0, 0, 0};
    const int J = 20;
    model md;
    if (!model_open(&md, 100, J))
        return r;
    rx__vrconf vf = {1, m, -1.0, 0, 0.0, 0, J};
    rx__vrconf va = {1, m, -1.0, 1, 0.0, 0, J};
    double beta = -5.0, g, e, lhat = 0.0, cad = -1.0;
    int64_t nca = 0, nd = 0, k = 0;
    int cnt = 0;
    for (int p = -1; p < periods; ++p) {
        double anchor = beta;
        if (p >= 0)
            rx__vr_anchor_energy(md.t, md.tw, md.vw, &vf, &anchor, seed, 0,
                                 (uint64_t)k, &lhat, NULL);
        for (int64_t j = 0; j < (p < 0 ? 3000 : m); ++j, ++k) {
            rx__target_eval_pe(md.t, md.tw, &beta, &e, &g, seed, 0,
                               (uint64_t)k, NULL);
            rx__stream s;
            rx__stream_init(&s, seed, 0, RX_STREAM_STEP, (uint64_t)k);
            beta += -eta * g + sqrt(2.0 * eta * tau) * rx__normal(&s);
        }
        if (p < 0)
            continue; /* burn-in */
        double cf = -1.0, ce = cad, vf1, va1, vs, vx;
        rx__vr_period_end(md.t, md.tw, md.vw, &vf, &beta, &anchor, lhat, &cf,
                          &nd, seed, 0, (uint64_t)k, &vf1, &vs, NULL);
        rx__vr_period_end(md.t, md.tw, md.vw, &vf, &beta, &anchor, lhat, &ce,
                          &nd, seed, 0, (uint64_t)k, &va1, &vs, NULL);
        rx__vr_period_end(md.t, md.tw, md.vw, &va, &beta, &anchor, lhat, &cad,
                          &nca, seed, 1, (uint64_t)k, &vx, &vx, NULL);
        if (p >= 5) {
            r.var_std += vs;
            r.var_fixed += vf1;
            r.var_adapt += va1;
            cnt++;
        }
    }
    r.var_std /= cnt;
    r.var_fixed /= cnt;
    r.var_adapt /= cnt;
    r.c = cad;
    model_close(&md);
    return r;
}

static void t9_model(void)
{
    /* tau 1e5: beta wanders over both modes within a period (weak
     * correlation); tau 1000, m eta 640 x 1.6e-5: moderate */
    t9res w = t9_model_run(640, 4e-6, 1e5, 100, 1);
    t9res q = t9_model_run(640, 1.6e-5, 1000.0, 100, 1);
    printf("T9 model, tau 1e5, m 640, eta 4e-6: Var std %.4g, VR c=-1 "
           "%.4g, adaptive %.4g (c %.3f)\n",
           w.var_std, w.var_fixed, w.var_adapt, w.c);
    printf("T9 model, tau 1000, m 640, eta 1.6e-5: Var std %.4g, VR c=-1 "
           "%.4g, adaptive %.4g (c %.3f)\n",
           q.var_std, q.var_fixed, q.var_adapt, q.c);
    /* weak correlation: c = -1 adds variance, the adaptive c removes some */
    CHECK(w.var_fixed > w.var_std);
    CHECK(w.var_adapt < 0.8 * w.var_fixed);
    CHECK(w.var_adapt < 1.05 * w.var_std);
    CHECK(w.c > -0.7 && w.c < -0.2);
    CHECK(q.var_adapt < q.var_fixed && q.var_fixed < q.var_std);
    CHECK(q.c > -1.0 && q.c < -0.8);
}

static rx_ctx *run_cfg2(const char *const *sets, int nsets, int threads,
                        int64_t iters, int sigma2_cols)
{
    rx_config c;
    rx_err err;
    char path[1024];
    const char *src = getenv("RX_SRCDIR");
    snprintf(path, sizeof path, "%s/yaml/vr_mixture_data.yaml",
             src ? src : ".");
    if (rx_config_load(path, sets, nsets, &c, &err) != RX_OK) {
        fprintf(stderr, "%s\n", err.msg);
        return NULL;
    }
    c.threads = threads;
    c.iterations = iters;
    c.record.burn_in = iters / 10;
    rx_ctx *ctx = NULL;
    rx_logger lg = {NULL, NULL};
    if (rx_create(&ctx, &c, NULL, lg, &err) != RX_OK ||
        (sigma2_cols && rx__rec_trace_sigma2(&ctx->rec) != RX_OK) ||
        rx_run(ctx) != RX_OK) {
        fprintf(stderr, "run: %s %s\n", err.msg, ctx ? rx_errmsg(ctx) : "");
        rx_destroy(&ctx);
    }
    rx_config_free(&c);
    return ctx;
}

static rx_ctx *run_cfg(const char *const *sets, int nsets, int threads,
                       int64_t iters)
{
    return run_cfg2(sets, nsets, threads, iters, 0);
}

static double mode_err(const rx_ctx *ctx, double *w_est)
{
    double wt = 0.0, we = 0.0;
    rx__mixdata_mode_weight(ctx->target, ctx->tau[0], -15.0, 35.0,
                            ctx->samples, ctx->n_samples, &wt, &we);
    *w_est = we;
    return fabs(we - wt);
}

/* Executed swaps, VR (F = 1) against the standard estimator (F = 100, the
 * dissertation's reSGLD), same seeds; mode weight beta > 10 vs exact. */
static void swaps_vr_vs_std(void)
{
    const char *vr[] = {"seed=1"};
    const char *std[] = {"seed=1", "variance_reduction.enabled=false",
                         "tempering.sigma2_factor=100"};
    int64_t sv = 0, ss = 0;
    double ev = 0.0, es = 0.0;
    const int S = 3;
    for (int seed = 1; seed <= S; ++seed) {
        char sd[32];
        snprintf(sd, sizeof sd, "seed=%d", seed);
        vr[0] = sd;
        std[0] = sd;
        rx_ctx *a = run_cfg(vr, 1, 2, 15000);
        rx_ctx *b = run_cfg(std, 3, 2, 15000);
        CHECK(a && b);
        if (!a || !b) {
            rx_destroy(&a);
            rx_destroy(&b);
            return;
        }
        rx_results ra, rb;
        rx_get_results(a, &ra);
        rx_get_results(b, &rb);
        double wa, wb;
        double xa = mode_err(a, &wa), xb = mode_err(b, &wb);
        printf("swaps seed %d: VR %lld (weight %.3f, |err| %.3f), standard "
               "F=100 %lld (weight %.3f, |err| %.3f)\n",
               seed, (long long)ra.total_swaps, wa, xa,
               (long long)rb.total_swaps, wb, xb);
        sv += ra.total_swaps;
        ss += rb.total_swaps;
        ev += xa / S;
        es += xb / S;
        rx_destroy(&a);
        rx_destroy(&b);
    }
    printf("swaps total VR %lld vs standard %lld; mean |mode error| VR "
           "%.3f vs standard %.3f\n",
           (long long)sv, (long long)ss, ev, es);
    CHECK(sv > ss);
    CHECK(ev <= es + 0.05);
}

/* Bitwise equality across thread counts (P = 4, adaptive c, per-particle
 * batches, full and subsampled anchors). */
static void determinism(void)
{
    const char *sets[] = {"tempering.n_chains=4", "ladder.tau=[10, 50, 200, 1000]",
                          "variance_reduction.coefficient=adaptive",
                          "data.shared_minibatch=false",
                          "variance_reduction.period=7",
                          "variance_reduction.anchor_batch=0"};
    for (int v = 0; v < 2; ++v) {
        if (v == 1)
            sets[5] = "variance_reduction.anchor_batch=1000";
        rx_ctx *a = run_cfg(sets, 6, 1, 1500);
        rx_ctx *b = run_cfg(sets, 6, 3, 1500);
        CHECK(a && b);
        if (a && b) {
            rx_results ra, rb;
            rx_get_results(a, &ra);
            rx_get_results(b, &rb);
            CHECK(ra.n_samples == rb.n_samples && ra.n_samples > 0);
            CHECK(memcmp(ra.samples, rb.samples,
                         sizeof(float) * (size_t)ra.n_samples) == 0);
            CHECK(ra.total_swaps == rb.total_swaps);
            CHECK(memcmp(ra.sigma2, rb.sigma2, sizeof(double) * 3) == 0);
            int same = 1;
            for (int i = 0; i < 4; ++i)
                same &= a->parts[i]->vr_c == b->parts[i]->vr_c &&
                        a->parts[i]->energy == b->parts[i]->energy;
            CHECK(same);
        }
        rx_destroy(&a);
        rx_destroy(&b);
    }
}

/*
 * trace.csv's per-pair sigma_p^2 columns (rx__rec_trace_sigma2): P = 4,
 * VR with sigma^2 estimated at the period ends. The header ends with
 * sigma2_1..sigma2_3; every row's values are finite and positive, move
 * away from variance.init once estimated, and the last row holds the
 * final estimates of summary.json.
 */
static void trace_sigma2(void)
{
    const char *sets[] = {"tempering.n_chains=4",
                          "ladder.tau=[10, 50, 200, 1000]",
                          "variance_reduction.period=7",
                          "record.trace_every=100"};
    rx_ctx *a = run_cfg2(sets, 4, 2, 1500, 1);
    CHECK(a != NULL);
    if (!a)
        return;
    const rx__recorder *r = &a->rec;
    CHECK(r->n_sigma2_cols == 3);
    CHECK(rx__rec_trace_sigma2(&a->rec) == RX_OK && r->n_sigma2_cols == 3);
    size_t len = rx__rec_trace_header_len(r);
    char *h = malloc(len + 1);
    CHECK(h != NULL);
    if (h) {
        rx__rec_trace_header(r, h, len + 1);
        CHECK(strlen(h) == len);
        const char *tail = ",tau_4,sigma2_1,sigma2_2,sigma2_3";
        CHECK(len > strlen(tail) &&
              strcmp(h + len - strlen(tail), tail) == 0);
        int commas = 0;
        for (const char *q = h; *q; ++q)
            commas += *q == ',';
        CHECK(commas + 1 == r->n_trace_cols);
        free(h);
    }
    CHECK(r->n_trace == 15);
    int ok = 1, moved = 0;
    const int nc = r->n_trace_cols;
    for (int64_t i = 0; i < r->n_trace; ++i)
        for (int p = 0; p < 3; ++p) {
            double v = r->trace[(size_t)i * (size_t)nc + (size_t)(nc - 3 + p)];
            ok &= isfinite(v) && v > 0.0;
            moved += v != a->cfg.variance.init;
        }
    CHECK(ok);
    CHECK(moved > 0);
    const double *last = r->trace + (size_t)(r->n_trace - 1) * (size_t)nc;
    CHECK(memcmp(last + nc - 3, a->s2_final, 3 * sizeof(double)) == 0);
    printf("trace sigma2 columns: last row %.4g / %.4g / %.4g\n",
           last[nc - 3], last[nc - 2], last[nc - 1]);
    rx_destroy(&a);
}

int main(void)
{
    trace_sigma2();
    t9();
    t9_model();
    t6_unbiased();
    t6_t7();
    determinism();
    swaps_vr_vs_std();
    return check_done();
}
