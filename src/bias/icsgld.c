/*
 * The ICSGLD row (interacting contour SGLD, csgld.md 2.2): one theta on
 * the simplex shared by the P chains, learned by stochastic approximation
 * with the chains' averaged scalable field theta(J_p) (e_{J_p} - theta),
 * which targets theta_inf^(1/zeta) / sum theta_inf^(1/zeta) (csgld.md
 * 1.4), numerically tractable for a large zeta. The multiplier, the
 * log-weight zeta log theta[J] (at the fixed point proportional to
 * theta_inf(J)), the boundary bins (overflow guard, floor, clamp), the
 * state layout and checkpoints are CSGLD's (contour.h); only the update
 * differs. The state is SHARED, so the row declares a global update: the
 * engine's step 3 calls it once per iteration with all P energies in
 * position order, after every chain's energy and before any chain's next
 * step.
 */
#include <math.h>
#include <string.h>

#include "bias.h"
#include "contour.h"

/* The state: CSGLD's (counters, theta[m], visits[m]), then acc[m], the
 * update's scratch, all 0 between calls (not packed: a copy of the bytes
 * is still a copy of the state). */
static size_t ic_size(const rx__bias_params *par)
{
    return rx__cs_size(par) + (size_t)par->bins * sizeof(double);
}

static double *ic_acc(const rx__bias_params *par, void *state)
{
    return ((rx__cs_state *)state)->v + 2 * (size_t)par->bins;
}

static void ic_init(const rx__bias_params *par, void *state)
{
    rx__cs_init(par, state);
    memset(ic_acc(par, state), 0, sizeof(double) * (size_t)par->bins);
}

/*
 * One SA step of iteration k (omega_{k+1}) from the n chains' energies
 * (csgld.md 2.2, eq. 6.5): S = the chains whose bin J_p is not the
 * guarded overflow bin; cbar = (1/|S|) sum_{p in S} theta(J_p) and
 * acc[i] = (1/|S|) sum_{p in S, J_p = i} theta(J_p), every theta(J_p)
 * read before any is written; then theta <- (1 - omega cbar) theta +
 * omega acc, which keeps the sum 1 and theta > 0 (omega cbar < 1); then
 * the floor and the renormalisation against rounding, as CSGLD. O(m + n).
 * With S empty nothing changes but the visits and the overflow count.
 */
static rx_status ic_update(const rx__bias_params *par, void *state, int n,
                           const double *U, const double *tau, int64_t k,
                           rx_err *err)
{
    RX_UNUSED(tau); /* the field is free of zeta and tau */
    rx__cs_state *s = state;
    for (int i = 0; i < n; ++i)
        if (!isfinite(U[i]))
            return rx__fail(err, RX_ENUMERIC,
                            "icsgld: energy %g of chain %d at iteration "
                            "%lld is not finite: cannot bin it",
                            U[i], i, (long long)k);
    const int m = par->bins;
    double *th = s->v, *acc = ic_acc(par, state);
    double csum = 0.0;
    const int ns = rx__cs_gather(par, s, n, U, acc, &csum);
    if (ns == 0)
        return RX_OK;
    const double omega = rx__bias_omega(&par->sa, k + 1);
    const double inv = 1.0 / (double)ns;
    const double q = 1.0 - omega * (csum * inv), fl = par->theta_floor;
    double sum = 0.0;
    for (int i = 0; i < m; ++i) {
        /* acc[i] = 0 outside the chains' bins: q theta[i] exactly */
        double t = q * th[i] + omega * (acc[i] * inv);
        acc[i] = 0.0;
        t = t < fl ? fl : t;
        th[i] = t;
        sum += t;
    }
    rx__cs_renorm(par, th, sum);
    s->updates++;
    return RX_OK;
}

static rx_status ic_unpack(const rx__bias_params *par, void *state,
                           const double *in, rx_err *err)
{
    rx_status st = rx__cs_unpack(par, state, in, err);
    if (st == RX_OK)
        memset(ic_acc(par, state), 0, sizeof(double) * (size_t)par->bins);
    return st;
}

/* Its check against the run: one theta learns the energy density of the
 * chains that share it, which must be one distribution: every position at
 * one temperature (csgld.md 2.2: P chains of the same target). */
static rx_status ic_check(const rx__rowrun *run, const rx__rowvals *own,
                          const char **key, rx_err *err)
{
    (void)own;
    if (run->P > 1 && run->tau_hot != run->tau_cold) {
        *key = "ladder.tau";
        return rx__fail(err, RX_ECONFIG,
                        "bias icsgld shares one theta between the %d "
                        "chains, so they must sample one distribution: a "
                        "constant temperature ladder, got tau from %.6g to "
                        "%.6g",
                        run->P, run->tau_cold, run->tau_hot);
    }
    return RX_OK;
}

static const char *const ic_uses[] = {"bias.", NULL};

const rx__bias_type rx__bias_icsgld_row = {
    .row = {.name = "icsgld",
            .doc = "interacting contour SGLD: one theta shared by the P "
                   "chains, updated from all of them (the averaged field)",
            .uses = ic_uses,
            .check = ic_check},
    .share = RX__BIAS_SHARED,
    .needs = RX__BIAS_NEEDS_GLOBAL_UPDATE | /* every chain's energy first */
             RX__BIAS_UPDATE_ALL_BINS,
    .size = ic_size,
    .init = ic_init,
    .update = ic_update,
    .grad_mult = rx__cs_grad_mult,
    .log_weight = rx__cs_log_weight,
    .pack_len = rx__cs_pack_len,
    .pack = rx__cs_pack,
    .unpack = ic_unpack,
    .view = rx__cs_view,
};

