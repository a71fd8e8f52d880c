/*
 * The 25-mode target's mode coverage (src/record/diag.c, summary.json
 * "modes"): a known sample set gives known shares, visited count, outer
 * mass and TV; the true masses against an independent midpoint sum of
 * exp(-U) over 1000 x 1000 points of [-3, 3]^2 (confining term R2 = 20):
 * outer 16 modes 0.499869, centre 0.071728, (1, 0) 0.058837, (2, 2)
 * 0.021433; the 200 x 200 midpoints used here differ from those by at
 * most 2.6e-4, hence the tolerance 1e-3.
 */
#include <math.h>
#include <stdio.h>

#include "../src/record/diag.h"
#include "check.h"

int main(void)
{
    rx_config cfg;
    rx_config_default(&cfg);
    cfg.target.kind = RX_TARGET_MIXTURE25;
    cfg.target.confine_radius2 = 20.0;
    cfg.record.grid_low = -3.0;
    cfg.record.grid_high = 3.0;
    cfg.record.grid_bins = 50;
    rx__target *t = NULL;
    rx_err err;
    CHECK(rx__target_create(&t, &cfg, NULL, &err) == RX_OK);
    if (!t)
        return check_done();
    /* centre, (2, 2), (-2, 0) from -2.4 (clamped), (1, -1) near its
     * border with (0, -1), one outside the grid (dropped) */
    const float s[] = {0.1f,  -0.2f, 2.3f, 1.6f,  -2.4f, 0.1f,
                       0.0f,  0.0f,  0.55f, -1.2f, 3.5f, 0.0f};
    rx__diag_in in = {t, &cfg, s, 6, 2};
    rx__m25_cover m;
    CHECK(rx__m25_cover_get(&in, &m) == RX_OK);
    CHECK(m.n_inside == 5);
    CHECK(m.visited == 4);
    CHECK_NEAR(m.w_est[12], 0.4, 1e-12);       /* (0, 0) twice */
    CHECK_NEAR(m.w_est[24], 0.2, 1e-12);       /* (2, 2) */
    CHECK_NEAR(m.w_est[10], 0.2, 1e-12);       /* (-2, 0) */
    CHECK_NEAR(m.w_est[3 + 5 * 1], 0.2, 1e-12); /* (1, -1) */
    CHECK_NEAR(m.outer_est, 0.4, 1e-12);
    double tot = 0.0, tv = 0.0;
    for (int k = 0; k < RX_M25_MODES; ++k) {
        tot += m.w_true[k];
        tv += fabs(m.w_est[k] - m.w_true[k]);
    }
    CHECK_NEAR(tot, 1.0, 1e-12);
    CHECK_NEAR(m.tv, 0.5 * tv, 1e-12);
    CHECK_NEAR(m.outer_true, 0.499869, 1e-3);
    CHECK_NEAR(m.w_true[12], 0.071728, 1e-3);
    CHECK_NEAR(m.w_true[13], 0.058837, 1e-3);
    CHECK_NEAR(m.w_true[24], 0.021433, 1e-3);
    /* the symmetries of U: (i, j) -> (-i, j), (j, i) */
    CHECK_NEAR(m.w_true[11], m.w_true[13], 1e-12);
    CHECK_NEAR(m.w_true[7], m.w_true[13], 1e-12);
    printf("outer 16: true %.6f, est %.3f; TV %.4f; %d modes visited\n",
           m.outer_true, m.outer_est, m.tv, m.visited);

    /* other targets: not applicable */
    cfg.target.kind = RX_TARGET_GMM;
    CHECK(rx__m25_cover_get(&in, &m) == RX_ENOTSUP);
    cfg.target.kind = RX_TARGET_MIXTURE25;
    in.n_samples = 0;
    CHECK(rx__m25_cover_get(&in, &m) == RX_ENOTSUP);
    rx__target_destroy(&t);
    return check_done();
}
