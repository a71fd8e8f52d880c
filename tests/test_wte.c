/*
 * The well-tempered ensemble row (src/bias/wte.c) against renhd.md 5 and
 * its claims T10, T11:
 *
 *  1. The row: one state per position, no global update; its own keys.
 *  2. The row alone: every deposit against eq. 14 written here, A[J] += h
 *     exp(-A[J] / ((gamma - 1) tau)), at tau 1 and 2; a non-finite energy
 *     leaves the state as it was; the multiplier 1 + (A[J+1] - A[J]) /
 *     du (backward in the top bin); the log-weight A~(U) / tau, linear in
 *     the bin, continuous at its edges, A[J] / tau at the lower one; pack
 *     and unpack, and unpack refuses a negative A.
 *  3. T10 through the engine (yaml/wte_gauss_50d.yaml: d = 50 standard
 *     Gaussian, SGNHT at tau 1, eta 0.01, c 0.1, mu 1, gamma 2, h 0.01,
 *     du 0.5, E in [0, 150], 1e6 iterations, the second half): var(E)
 *     with the bias / var(E) without it in [1.7, 2.4], and the weighted
 *     mean energy within 1.5 % of the unbiased run's. T11: A on the well
 *     visited bins against -((gamma-1)/gamma) (E - (d/2 - 1) log E), the
 *     least-squares slope within 20 % of 1.
 *  4. Negative controls: a row whose deposit has its sign flipped (A[J]
 *     -= h exp(A[J] / ((gamma-1) tau)), a test-only row in the table's
 *     test slot) narrows the distribution instead (ratio below 1.7) and
 *     misses T11's slope; the samples without their weights miss the
 *     1.5 % of T10.
 *  5. Same bits on 1, 2 and 3 threads (3 independent chains at tau 1, 2,
 *     4, each position with its own deposit; sync: partner too); a run
 *     stopped at 12000 of 30000 iterations and resumed on 3 threads ends
 *     with the same bits. Bad values refused at file:line:col: gamma <= 1,
 *     h <= 0, and swaps under a rule that cannot take the deposits' term
 *     (at tempering.rule; swaps themselves: tests/test_wte_swap.c).
 * RX_WTE_SEEDS=n repeats T10 and T11 over seeds 1..n and prints them.
 */
#define _POSIX_C_SOURCE 200809L
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "replex/replex.h"
#include "../src/bias/bias.h"
#include "bias_run.h"
#include "check.h"

static char src[1024];

/* ---- the broken variant: the deposit's sign flipped ---------------------*/

/* The state holds B = -A: the real update on A = -B is B[J] -= h exp(B[J]
 * / ((gamma-1) tau)); the multiplier and weight read B as the row reads
 * A (1 + B', B~ / tau). */
static rx_status flip_update(const rx__bias_params *par, void *state, int n,
                             const double *U, const double *tau, int64_t k,
                             rx_err *err)
{
    const double *c, *v;
    int64_t u;
    rx__bias_wte_row.view(par, state, &c, &v, &u);
    double *A = (double *)c;
    for (int i = 0; i < par->bins; ++i)
        A[i] = -A[i];
    rx_status st = rx__bias_wte_row.update(par, state, n, U, tau, k, err);
    for (int i = 0; i < par->bins; ++i)
        A[i] = -A[i];
    return st;
}

/* The real row's other functions: wte_f_* (bias_run.h). */

/* its gamma and h: the file's values by default (a key belongs to one
 * row, so the test row declares its own) */
static const rx__keydef flip_keys[] = {
    {"bias.wte_flipped_gamma", K_REAL, 0, "2", 1, HUGE_VAL, 1, 1, NULL,
     "test only"},
    {"bias.wte_flipped_height", K_REAL, 0, "0.01", 0, HUGE_VAL, 1, 1, NULL,
     "test only"},
};
static const char *const flip_uses[] = WTE_TEST_ROW_USES;
const rx__bias_type rx__bias_test_row = {
    .row = {.name = "wte_flipped",
            .doc = "test only: the well-tempered deposit with its sign "
                   "flipped",
            .keys = flip_keys,
            .nkeys = 2,
            .uses = flip_uses},
    /* not checkpointed (a negative A is refused) */
    WTE_TEST_ROW_FUNCTIONS(flip_update),
};

/* ---- configuration ---------------------------------------------------- */

static rx_status load(const char *file, const char *const *sets, int n,
                      rx_config *cfg, rx_err *err)
{
    char path[1200];
    snprintf(path, sizeof path, "%s/yaml/wte_gauss_50d.yaml", src);
    rx_config_default(cfg);
    return rx_config_load(file ? file : path, sets, n, cfg, err);
}

/* The row's parameters from the YAML file (gamma 2, h 0.01, 300 bins of
 * 0.5 from 45.95). */
static void row_params(rx__bias_params *par, rx_config *cfg)
{
    rx_err err = {0};
    rx_status st = load(NULL, NULL, 0, cfg, &err);
    CHECK_MSG(st == RX_OK, "file: %s", err.msg);
    rx__bias_params_from(par, cfg);
}

/* ---- 2: the row alone -------------------------------------------------- */

static void row_alone(void)
{
    const rx__bias_type *T = &rx__bias_wte_row;
    rx__bias_params par;
    rx_config cfg;
    row_params(&par, &cfg);
    const double gamma = 2.0, h = 0.01;
    par.own.k[0].v = &gamma;
    par.own.k[0].n = 1;
    par.own.k[1].v = &h;
    par.own.k[1].n = 1;
    const int m = par.bins;
    const double e0 = par.energy_min, du = par.bin_width;
    void *s = calloc(1, T->size(&par));
    T->init(&par, s);
    const double *A, *vis;
    int64_t upd;
    T->view(&par, s, &A, &vis, &upd);
    double *lit = calloc((size_t)m, sizeof(double));
    uint64_t lcg = 12345;
    double worst = 0.0;
    for (int64_t k = 0; k < 100000; ++k) {
        lcg = lcg * 6364136223846793005u + 1442695040888963407u;
        const double r = (double)(lcg >> 11) * 0x1.0p-53;
        const double U = e0 - 3.0 + 160.0 * r * r, tau = k & 1 ? 2.0 : 1.0;
        CHECK(T->update(&par, s, 1, &U, &tau, k, NULL) == RX_OK);
        int j = (int)floor((U - e0) / du);
        j = j < 0 ? 0 : (j > m - 1 ? m - 1 : j);
        lit[j] += h * exp(-lit[j] / ((gamma - 1.0) * tau));
        worst = fmax(worst, fabs(A[j] - lit[j]));
    }
    T->view(&par, s, &A, &vis, &upd);
    printf("deposits: %lld updates against eq. 14, max |A - literal| %.1e; "
           "A[0] %.4f, A[%d] %.4f\n",
           (long long)upd, worst, A[0], m - 1, A[m - 1]);
    CHECK(upd == 100000 && worst == 0.0);

    /* a non-finite energy: RX_ENUMERIC, the state as it was */
    const size_t sz = T->size(&par);
    unsigned char *before = malloc(sz);
    memcpy(before, s, sz);
    const double Un = NAN, t1 = 1.0;
    rx_err err = {0};
    CHECK(T->update(&par, s, 1, &Un, &t1, 0, &err) == RX_ENUMERIC);
    CHECK(memcmp(before, s, sz) == 0);

    /* the multiplier and the weight */
    const int j = 40;
    const double lo = e0 + j * du;
    const double sl = (A[j + 1] - A[j]) / du;
    CHECK_NEAR(T->grad_mult(&par, s, lo + 0.3 * du, 2.0), 1.0 + sl, 1e-12);
    CHECK_NEAR(T->grad_mult(&par, s, e0 + 1e6, 1.0),
               1.0 + (A[m - 1] - A[m - 2]) / du, 1e-12);
    CHECK_NEAR(T->log_weight(&par, s, lo, 2.0), A[j] / 2.0, 1e-12);
    CHECK_NEAR(T->log_weight(&par, s, lo + 0.3 * du, 2.0),
               (A[j] + 0.3 * (A[j + 1] - A[j])) / 2.0, 1e-12);
    /* continuous at the upper edge: A[j+1] from both sides */
    CHECK_NEAR(T->log_weight(&par, s, lo + du * (1 - 1e-12), 1.0), A[j + 1],
               1e-9);
    CHECK(isnan(T->log_weight(&par, s, NAN, 1.0)));

    /* pack, unpack: the next deposits agree bit for bit */
    const size_t len = T->pack_len(&par);
    double *buf = malloc(sizeof(double) * len);
    T->pack(&par, s, buf);
    void *r = calloc(1, sz);
    CHECK(T->unpack(&par, r, buf, &err) == RX_OK);
    const double U3 = e0 + 20.2, t2 = 2.0;
    T->update(&par, s, 1, &U3, &t2, 7, NULL);
    T->update(&par, r, 1, &U3, &t2, 7, NULL);
    CHECK(memcmp(s, r, sz) == 0);
    buf[1 + 5] = -1e-3;
    CHECK(T->unpack(&par, r, buf, &err) == RX_EDATA);
    CHECK(strstr(err.msg, "A[5]") != NULL);
    free(buf);
    free(r);
    free(before);
    free(lit);
    free(s);
    rx_config_free(&cfg);
}

/* ---- 3-5: through the engine ------------------------------------------ */

/* The file (yaml/wte_gauss_50d.yaml) with sets[0..n), run as stop_run. */
static wte_out engine_run(const char *const *sets, int n, int threads,
                          const char *from, int64_t stop_at, const char *ck)
{
    char path[1200];
    snprintf(path, sizeof path, "%s/yaml/wte_gauss_50d.yaml", src);
    return wte_run(path, sets, n, threads, from, stop_at, ck);
}

/* T11: least-squares slope of A[J] against f(E_J) = -((gamma-1)/gamma)
 * (E_J - T (d/2 - 1) log E_J) over the bins with at least 1 % of the
 * most visits, E_J = J du the lower edge of bin J above the energy's
 * constant; *nb the bins used. */
static double t11_slope(const wte_out *o, double gamma, int d, int *nb)
{
    double vmax = 0.0;
    for (int j = 0; j < o->m; ++j)
        vmax = fmax(vmax, o->visits[j]);
    double sf = 0, sa = 0, sff = 0, sfa = 0;
    int n = 0;
    for (int j = 1; j < o->m - 1; ++j) {
        if (o->visits[j] < 0.01 * vmax)
            continue;
        const double E = j * o->du;
        const double f = -(gamma - 1.0) / gamma *
                         (E - (0.5 * d - 1.0) * log(E));
        sf += f;
        sa += o->A[j];
        sff += f * f;
        sfa += f * o->A[j];
        n++;
    }
    *nb = n;
    return (n * sfa - sf * sa) / (n * sff - sf * sf);
}

static void t10(uint64_t seed, int controls)
{
    char sd[64];
    snprintf(sd, sizeof sd, "seed=%llu", (unsigned long long)seed);
    const char *w[] = {sd};
    const char *u[] = {sd, "bias.kind=none"};
    const char *f[] = {sd, "bias.kind=wte_flipped"};
    wte_out a = engine_run(w, 1, 1, NULL, -1, NULL);
    wte_out b = engine_run(u, 2, 1, NULL, -1, NULL);
    const emom ma = wte_moments(&a), mb = wte_moments(&b);
    const double ratio = ma.var / mb.var;
    const double rel = ma.wmean / mb.mean - 1.0;
    const double relu = ma.mean / mb.mean - 1.0;
    int nb = 0;
    const double sl = t11_slope(&a, 2.0, 50, &nb);
    printf("T10 seed %llu: no bias <E> %.3f var %.2f; wte <E> %.3f var %.2f "
           "(ratio %.3f); weighted <E> %.3f (%+.2f %%) var %.2f; "
           "unweighted %+.2f %%\n",
           (unsigned long long)seed, mb.mean, mb.var, ma.mean, ma.var, ratio,
           ma.wmean, 100.0 * rel, ma.wvar, 100.0 * relu);
    printf("T11 seed %llu: slope of A against eq. 25 over %d bins: %.3f\n",
           (unsigned long long)seed, nb, sl);
    CHECK_MSG(ratio >= 1.7 && ratio <= 2.4, "T10 ratio %g", ratio);
    CHECK_MSG(fabs(rel) < 0.015, "T10 weighted mean off by %g", rel);
    CHECK_MSG(fabs(sl - 1.0) < 0.2 && nb >= 20, "T11 slope %g (%d bins)", sl,
              nb);
    if (controls) {
        /* the samples without their weights */
        CHECK_MSG(fabs(relu) >= 0.015,
                  "control: unweighted samples pass T10 (%g)", relu);
        wte_out c = engine_run(f, 2, 1, NULL, -1, NULL);
        const emom mc = wte_moments(&c);
        int nc = 0;
        const double sc = t11_slope(&c, 2.0, 50, &nc);
        printf("control: deposit sign flipped: var %.2f (ratio %.3f), "
               "weighted <E> %.3f; T11 slope %.3f\n",
               mc.var, mc.var / mb.var, mc.wmean, sc);
        CHECK_MSG(c.st == RX_OK && mc.var / mb.var < 1.7,
                  "control: the flipped deposit passes T10 (%g)",
                  mc.var / mb.var);
        CHECK_MSG(!(fabs(sc - 1.0) < 0.2),
                  "control: the flipped deposit passes T11 (%g)", sc);
        wte_free(&c);
    }
    wte_free(&a);
    wte_free(&b);
}

static void determinism(void)
{
    static const char *const s[] = {
        "iterations=30000", "record.burn_in=0", "record.thin=1",
        "tempering.n_chains=3", "ladder.tau=[1, 2, 4]",
        "ladder.eta=[0.01, 0.01, 0.01]", "record.all_positions=true",
        "balance=rotate"};
    enum { NS = 8 };
    char ck[256];
    snprintf(ck, sizeof ck, "/tmp/rx_wte_ck_%ld.bin", (long)getpid());
    wte_bits_runs b = wte_bits(engine_run, s, NS, ck);
    printf("3 chains at tau 1, 2, 4 (each its own A), 30000 iterations, "
           "%lld rows of %zu: same bits on 1 and 2 threads %s, 1 and 3 %s, "
           "sync: partner (%s design) %s, resumed at 12000 on 3 threads "
           "%s; %d nonzero log-weights\n",
           (long long)b.r[0].n, b.r[0].dim, b.t12 ? "yes" : "NO",
           b.t13 ? "yes" : "NO", b.p.partner ? "partner" : "barrier",
           b.tp ? "yes" : "NO", b.tr ? "yes" : "NO", b.moved);
    CHECK(b.t12 && b.t13 && b.tp && b.tr);
    CHECK(b.moved > 0);
    wte_bits_free(&b);
}

/* A YAML file whose bias block sets `line`; the message of loading it
 * must start with path:row:col: key */
static void refused(const char *line, const char *where, const char *key,
                    const char *what)
{
    char path[256];
    snprintf(path, sizeof path, "/tmp/rx_wte_bad_%ld.yaml", (long)getpid());
    char text[1024];
    snprintf(text, sizeof text,
             "seed: 1\niterations: 10\ntarget: {kind: gmm, weights: [1], "
             "means: [[0]], scales: [[1]]}\ntempering: {n_chains: 2, "
             "scheme: none}\nladder: {eta: 0.01, tau: 1}\nbias:\n  kind: "
             "wte\n%s\n", line);
    rx_status st;
    rx_err err = {0};
    if (!load_text(path, text, &st, &err)) {
        CHECK(!"the file written");
        return;
    }
    char want[400];
    snprintf(want, sizeof want, "%s:%s: %s", path, where, key);
    printf("refused: %s\n", err.msg);
    CHECK_MSG(st == RX_ECONFIG && strncmp(err.msg, want, strlen(want)) == 0 &&
                  strstr(err.msg, what),
              "%s: %s", line, err.msg);
}

static void checks(void)
{
    refused("  wte_gamma: 1", "8:14", "bias.wte_gamma", "> 1");
    refused("  wte_gamma: .inf", "8:14", "bias.wte_gamma", "");
    refused("  wte_height: 0", "8:15", "bias.wte_height", "> 0");
    refused("  wte_height: -0.5", "8:15", "bias.wte_height", "> 0");
    /* swaps under a rule that cannot take the deposits' term */
    char path[256];
    snprintf(path, sizeof path, "/tmp/rx_wte_bad_%ld.yaml", (long)getpid());
    rx_status st;
    rx_err err = {0};
    if (!load_text(path,
                   "seed: 1\ntarget: {kind: gmm, weights: [1], means: [[0]], "
                   "scales: [[1]]}\ntempering:\n  n_chains: 3\n  scheme: "
                   "deo\n  rule: deterministic\nladder: {eta: 0.01, tau: "
                   "[1, 2, 4]}\nbias: {kind: wte}\n",
                   &st, &err))
        return;
    printf("refused: %s\n", err.msg);
    char want[400];
    snprintf(want, sizeof want, "%s:6:9: tempering.rule: bias wte", path);
    CHECK_MSG(st == RX_ECONFIG && strncmp(err.msg, want, strlen(want)) == 0,
              "swaps: %s", err.msg);
}

int main(void)
{
    const char *e = getenv("RX_SRCDIR");
    snprintf(src, sizeof src, "%s", e ? e : ".");
    const rx__bias_type *W = &rx__bias_wte_row;
    rx__bias_params par;
    rx_config cfg;
    row_params(&par, &cfg);
    const rx__bias_type *T = rx__bias_find(par.kind);
    rx_config_free(&cfg);
    CHECK(T == W);
    CHECK(W->share == RX__BIAS_PER_POSITION && W->needs == 0);
    CHECK(W->row.nkeys == 2 &&
          strcmp(W->row.keys[0].path, "bias.wte_gamma") == 0 &&
          strcmp(W->row.keys[1].path, "bias.wte_height") == 0);
    checks();
    row_alone();
    determinism();
    const char *ns = getenv("RX_WTE_SEEDS");
    const int n = ns ? atoi(ns) : 1;
    for (int s = 1; s <= (n > 0 ? n : 1); ++s)
        t10((uint64_t)s, s == 1);
    return check_done();
}
