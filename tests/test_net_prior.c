/*
 * model.prior_scale: fan_in gives every weight and bias of a layer the
 * precision lambda F, F the layer's fan-in (the N(0, 1/fan_in) prior of
 * PBP's layer-scaled networks when lambda = 1). Checked on the Boston MLP
 * (13-50-1, learned noise precision): the prior energy, its gradient and
 * the normalising constant of the reference against the closed form, and
 * `none` against lambda |w|^2 / 2.
 *
 * model.weight_precision_a > 0 (the hierarchical prior): lambda = e^psi
 * is one more coordinate psi after the weights (before rho), with
 * U += (e^psi / 2) sum_j F_j w_j^2 - (nw / 2) psi + b e^psi - a psi; the
 * same checks, and that rho is still the last coordinate.
 *
 * The split's rows (test_rows.npy / train_rows.npy of a run directory):
 * the test and training rows partition the file's 506 rows, 51 of them in
 * the test set, and the test set's targets are the file's MEDV of those
 * rows.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "replex/replex.h"
#include "../src/target/target.h"
#include "check.h"
#include "uci_boston.h"

#define NP 752 /* 13*50 + 50 + 50*1 + 1 + rho */

/* The Boston MLP with the Gamma(6, 6) noise prior, the prior scale and
 * precision given, and the weight precision's Gamma(wa, 0.5) prior (wa 0:
 * lambda fixed). */
static rx__target *open_boston(const char *scale, const char *prec,
                               const char *wa)
{
    char s1[64], s2[64], s3[64];
    snprintf(s1, sizeof s1, "model.prior_scale=%s", scale);
    snprintf(s2, sizeof s2, "model.prior_precision=%s", prec);
    snprintf(s3, sizeof s3, "model.weight_precision_a=%s", wa);
    const char *sets[] = {s1, s2, "model.weight_decay=0", s3,
                          "model.weight_precision_b=0.5",
                          "model.precision_a=6", "model.precision_b=6"};
    rx_config c;
    rx_err err;
    rx__target *t = NULL;
    rx_status st = load_boston(sets, 7, &c, &err);
    CHECK_MSG(st == RX_OK, "%s", err.msg);
    if (st != RX_OK)
        return NULL;
    st = rx__target_create(&t, &c, NULL, &err);
    CHECK_MSG(st == RX_OK, "%s", err.msg);
    rx_config_free(&c);
    return st == RX_OK ? t : NULL;
}

/* Fan-in of parameter j of the 13-50-1 MLP (weights, then biases). */
static double fan(int j)
{
    return j < 13 * 50 + 50 ? 13.0 : 50.0;
}

/* The hierarchical prior: Gamma(2, 0.5) on lambda, layer-scaled. */
static void hierarchical(void)
{
    const double a = 2.0, b = 0.5, log_2pi = 1.8378770664093454836;
    const int NW = NP - 1, D = NP + 1; /* weights; + psi + rho */
    rx__target *t = open_boston("fan_in", "0", "2");
    if (!t)
        return;
    CHECK_MSG(t->dim == D, "dim %zu, want %d (weights, psi, rho)",
              (size_t)t->dim, D);
    if (t->dim != D) {
        rx__target_destroy(&t);
        return;
    }
    double theta[NP + 1], g[NP + 1];
    for (int j = 0; j < D; ++j)
        theta[j] = 0.3 * sin(0.7 * j + 1.0);
    const double psi = theta[NW], rho = theta[D - 1], lam = exp(psi);
    double q = 0.0, logdet = 0.0;
    for (int j = 0; j < NW; ++j) {
        q += 0.5 * fan(j) * theta[j] * theta[j];
        logdet += log(fan(j));
    }
    const double gam = 6.0 * exp(rho) - 6.0 * rho;
    const double hyp = lam * q + b * lam - (a + 0.5 * NW) * psi;
    CHECK_NEAR(t->cv.prior(t, theta), hyp + gam, 1e-9 * fabs(hyp));
    double u = 0.0;
    CHECK(rx__network_prior(t, theta, &u, g) == RX_OK);
    const double z = 0.5 * (NW * log_2pi - logdet) + lgamma(a) - a * log(b) +
                     lgamma(6.0) - 6.0 * log(6.0);
    CHECK_NEAR(u, hyp + gam + z, 1e-9 * fabs(u));
    int bad = 0;
    for (int j = 0; j < NW; ++j)
        bad += fabs(g[j] - lam * fan(j) * theta[j]) > 1e-12;
    CHECK_MSG(bad == 0, "%d weight gradient coordinates off", bad);
    CHECK_NEAR(g[NW], lam * q + b * lam - (a + 0.5 * NW), 1e-9 * lam * q);
    CHECK_NEAR(g[D - 1], 6.0 * exp(rho) - 6.0, 1e-12);
    rx__target_destroy(&t);
}

/* The file's row of every test and training example of split 0. */
static void split_rows(void)
{
    rx__target *t = open_boston("none", "1", "0");
    if (!t)
        return;
    const int64_t *te = NULL, *tr = NULL;
    const int64_t nte = rx__network_split_rows(t, 0, &te);
    const int64_t ntr = rx__network_split_rows(t, 1, &tr);
    CHECK_MSG(nte == 51 && ntr == 455 && te && tr, "%lld test, %lld "
              "training rows", (long long)nte, (long long)ntr);
    if (nte != 51 || ntr != 455 || !te || !tr) {
        rx__target_destroy(&t);
        return;
    }
    int seen[506] = {0}, order = 1;
    for (int64_t i = 0; i < nte; ++i)
        if (te[i] >= 0 && te[i] < 506)
            seen[te[i]] += 1;
    for (int64_t i = 0; i < ntr; ++i)
        if (tr[i] >= 0 && tr[i] < 506)
            seen[tr[i]] += 1;
    for (int64_t i = 1; i < nte; ++i)
        order &= te[i] > te[i - 1];
    int once = 0;
    for (int r = 0; r < 506; ++r)
        once += seen[r] == 1;
    CHECK_MSG(once == 506, "%d of 506 rows in exactly one set", once);
    CHECK(order);
    /* MEDV, the last field, of the file's data rows (2 lines above) */
    char path[4096];
    const char *src = getenv("RX_SRCDIR");
    snprintf(path, sizeof path, "%s/data/uci/boston_house_prices.csv",
             src ? src : "..");
    FILE *f = fopen(path, "r");
    CHECK_MSG(f != NULL, "%s: cannot open", path);
    static double medv[506];
    char line[1024];
    int r = -2;
    while (f && fgets(line, sizeof line, f)) {
        const char *c = strrchr(line, ',');
        if (r >= 0 && r < 506 && c)
            medv[r] = atof(c + 1);
        ++r;
    }
    if (f)
        fclose(f);
    double y[51];
    rx__network_test_y(t, y);
    int off = 0;
    for (int i = 0; i < 51; ++i)
        off += fabs(y[i] - medv[te[i]]) > 1e-4 * (1.0 + medv[te[i]]);
    CHECK_MSG(off == 0, "%d test targets differ from the file's rows", off);
    rx__target_destroy(&t);
}

int main(void)
{
    const double lam = 2.0, log_2pi = 1.8378770664093454836;
    hierarchical();
    split_rows();
    rx__target *tf = open_boston("fan_in", "2", "0");
    rx__target *tn = open_boston("none", "2", "0");
    if (!tf || !tn)
        return check_done();
    CHECK(tf->dim == NP && tn->dim == NP);
    double theta[NP], g[NP], gn[NP];
    for (int j = 0; j < NP; ++j)
        theta[j] = 0.3 * sin(0.7 * j + 1.0);
    double rho = theta[NP - 1], gam = 6.0 * exp(rho) - 6.0 * rho;
    double qf = 0.0, qn = 0.0, logdet = 0.0;
    for (int j = 0; j < NP - 1; ++j) {
        qf += 0.5 * lam * fan(j) * theta[j] * theta[j];
        qn += 0.5 * lam * theta[j] * theta[j];
        logdet += log(lam * fan(j));
    }
    /* the energy's prior part, as the control variates see it */
    CHECK_NEAR(tf->cv.prior(tf, theta), qf + gam, 1e-9 * qf);
    CHECK_NEAR(tn->cv.prior(tn, theta), qn + gam, 1e-9 * qn);
    /* the normalised reference and its gradient */
    double u = 0.0, un = 0.0;
    CHECK(rx__network_prior(tf, theta, &u, g) == RX_OK);
    CHECK(rx__network_prior(tn, theta, &un, gn) == RX_OK);
    double z = 0.5 * ((NP - 1) * log_2pi - logdet) + lgamma(6.0) -
               6.0 * log(6.0);
    CHECK_NEAR(u, qf + gam + z, 1e-9 * fabs(u));
    int bad = 0;
    for (int j = 0; j < NP - 1; ++j) {
        bad += fabs(g[j] - lam * fan(j) * theta[j]) > 1e-12;
        bad += fabs(gn[j] - lam * theta[j]) > 1e-12;
    }
    CHECK_MSG(bad == 0, "%d gradient coordinates off", bad);
    CHECK_NEAR(g[NP - 1], 6.0 * exp(rho) - 6.0, 1e-12);
    rx__target_destroy(&tf);
    rx__target_destroy(&tn);
    return check_done();
}
