/*
 * model.prior_scale: fan_in gives every weight and bias of a layer the
 * precision lambda F, F the layer's fan-in (the N(0, 1/fan_in) prior of
 * PBP's layer-scaled networks when lambda = 1). Checked on the Boston MLP
 * (13-50-1, learned noise precision): the prior energy, its gradient and
 * the normalising constant of the reference against the closed form, and
 * `none` against lambda |w|^2 / 2.
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

static rx__target *open_boston(const char *scale, const char *prec)
{
    char s1[64], s2[64];
    snprintf(s1, sizeof s1, "model.prior_scale=%s", scale);
    snprintf(s2, sizeof s2, "model.prior_precision=%s", prec);
    const char *sets[] = {s1, s2, "model.weight_decay=0"};
    rx_config c;
    rx_err err;
    rx__target *t = NULL;
    rx_status st = load_boston(sets, 3, &c, &err);
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

int main(void)
{
    const double lam = 2.0, log_2pi = 1.8378770664093454836;
    rx__target *tf = open_boston("fan_in", "2");
    rx__target *tn = open_boston("none", "2");
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
