/*
 * One CSGLD SA step, exactly (src/bias/csgld.c; csgld.md 1.4): from a
 * known, non-uniform theta, one update with an energy in bin J must give
 * theta_i' = (1 - c) theta_i + c [i = J], c = omega_{k+1} theta_J^zeta,
 * every bin to 1e-15, for k = 0, 1, 2, a few J, the default and a
 * constant SA schedule. The convergence tests cannot see an update
 * without its (1 - c) factor or with omega_k in place of omega_{k+1}
 * (both keep the fixed point); this one does.
 */
#include <math.h>
#include <stdio.h>

#include "../src/bias/bias.h"
#include "check.h"

#define NB 8

double *rx__csgld_theta(void *state);

static void one(int constant, int64_t k, int J, double zeta)
{
    rx__bias_params p;
    rx__bias_params_default(&p);
    p.kind = RX_BIAS_CSGLD;
    p.bins = NB;
    p.energy_min = 0.0;
    p.bin_width = 1.0;
    p.zeta = zeta;
    if (constant)
        p.sa.constant = 0.3;
    rx__bias b;
    CHECK(rx__bias_create(&b, &p, 1, NULL) == RX_OK);
    void *st = rx__bias_state(&b, 0);
    double *th = rx__csgld_theta(st);
    double th0[NB];
    for (int i = 0; i < NB; ++i) /* (i + 1) / 36: sums to 1 */
        th[i] = th0[i] = (double)(i + 1) / 36.0;
    const double U = (double)J + 0.5; /* bin J */
    CHECK(b.type->update(&p, st, 1, &U, &(double){1.0}, k, NULL) == RX_OK);
    const double c = rx__bias_omega(&p.sa, k + 1) * pow(th0[J], zeta);
    double worst = 0.0;
    for (int i = 0; i < NB; ++i) {
        double want = (1.0 - c) * th0[i] + (i == J ? c : 0.0);
        worst = fmax(worst, fabs(th[i] - want));
    }
    CHECK_MSG(worst <= 1e-15, "%s SA, k = %lld, J = %d, zeta %g: theta off "
              "by %.3g", constant ? "constant" : "default", (long long)k, J,
              zeta, worst);
    rx__bias_destroy(&b);
}

int main(void)
{
    static const int Js[] = {0, 3, NB - 2};
    for (int constant = 0; constant < 2; ++constant)
        for (int64_t k = 0; k < 3; ++k)
            for (int j = 0; j < 3; ++j) {
                one(constant, k, Js[j], 0.75);
                one(constant, k, Js[j], 1.0);
            }
    return check_done();
}
