/*
 * The AWSGLD rows (adaptively weighted SGLD, csgld.md 2.3, Deng 2021
 * ch. 7): theta, monotone with theta[m-1] = 1, learns the CDF of the
 * energy by stochastic approximation with the field theta(J) (1{i >= J}
 * - theta(i)); the gradient multiplier is CSGLD's (>= 1 here, theta
 * being non-decreasing: the chain runs colder and with a larger step in
 * the low-energy bins); a sample's log-weight zeta log theta[J] - (1/T -
 * 1/tau) U takes the samples drawn at the position's temperature tau back
 * to a target temperature T <= tau (the row's own key; 0: T = tau, no
 * tempering term). theta starts at (i+1)/m (csgld.md 2.3, U3), which
 * bias.theta_init does not offer, so the row ignores that key.
 *
 * Two rows: `awsgld`, one theta per position (one chain, P independent
 * chains, or a temperature ladder, each position learning the CDF at its
 * own tau), and `iawsgld`, its interacting variant: one theta shared by
 * the P chains at one temperature, updated once per iteration with the
 * field averaged over them (every theta(J_p) read before any is written),
 * as ICSGLD averages CSGLD's. The state layout, the multiplier, packing
 * and the view are the contour rows' (contour.h); the update, the initial
 * theta, the log-weight and the checkpoint's checks (monotone, top 1, not
 * a simplex) are this file's. Boundary bins as csgld.md 1.6: in the
 * overflow bin g = 1, no SA step, weight 0 (overflow_guard); theta
 * floored; the optional clamp of g.
 */
#include <math.h>
#include <string.h>

#include "../core/num.h"
#include "bias.h"
#include "contour.h"

/* ---- state -------------------------------------------------------------*/

/* The contour layout (counters, theta[m], visits[m]) then, for the shared
 * row, acc[m]: the update's scratch, 0 between calls, not packed. */
static size_t iaw_size(const rx__bias_params *par)
{
    return rx__cs_size(par) + (size_t)par->bins * sizeof(double);
}

static double *iaw_acc(const rx__bias_params *par, void *state)
{
    return ((rx__cs_state *)state)->v + 2 * (size_t)par->bins;
}

/* theta[i] = (i+1)/m, or 1 for every i (flat): monotone, theta[m-1] = 1
 * exactly; no visits. */
static void theta_start(const rx__bias_params *par, void *state, int flat)
{
    rx__cs_state *s = state;
    const int m = par->bins;
    s->updates = s->overflow = 0;
    for (int i = 0; i < m; ++i)
        s->v[i] = flat ? 1.0 : (double)(i + 1) / (double)m;
    memset(s->v + m, 0, sizeof(double) * (size_t)m);
}

/* awsgld: its key bias.awsgld_theta_init (own->k[1]): 0 cdf, 1 flat. */
static void aw_init(const rx__bias_params *par, void *state)
{
    const rx__pval *v = &par->own.k[1];
    theta_start(par, state, v->v && v->n == 1 && v->v[0] == 1.0);
}

static void iaw_init(const rx__bias_params *par, void *state)
{
    theta_start(par, state, 0);
    memset(iaw_acc(par, state), 0, sizeof(double) * (size_t)par->bins);
}

/* ---- update ------------------------------------------------------------*/

static rx_status finite_all(const char *name, int n, const double *U,
                            int64_t k, rx_err *err)
{
    for (int i = 0; i < n; ++i)
        if (!isfinite(U[i]))
            return rx__fail(err, RX_ENUMERIC,
                            "%s: energy %g of chain %d at iteration %lld "
                            "is not finite: cannot bin it",
                            name, U[i], i, (long long)k);
    return RX_OK;
}

/*
 * One SA step with bin j (eq. 7.5 in closed form, csgld.md 1.4): c =
 * omega theta[j]; theta[i] <- (1-c) theta[i] for i < j, (1-c) theta[i] + c
 * for i >= j, capped at 1 against rounding; then the floor. Every
 * operation is monotone in theta[i] and the added term does not fall with
 * i, so theta stays non-decreasing in floating point too; theta[m-1] is 1
 * before and after. For i >= j the new value is at least the old one, so
 * the floor can only act below j.
 */
static void aw_step(const rx__bias_params *par, double *th, int j,
                    double omega)
{
    const int m = par->bins;
    const double c = omega * th[j], q = 1.0 - c, fl = par->theta_floor;
    for (int i = 0; i < j; ++i) { /* two branch-free loops: O(m) per step */
        const double t = q * th[i];
        th[i] = t < fl ? fl : t;
    }
    for (int i = j; i < m; ++i) { /* >= theta[i] >= fl: no floor needed */
        const double t = q * th[i] + c;
        th[i] = t > 1.0 ? 1.0 : t;
    }
    th[m - 1] = 1.0;
}

static rx_status aw_update(const rx__bias_params *par, void *state, int n,
                           const double *U, const double *tau, int64_t k,
                           rx_err *err)
{
    RX_UNUSED(tau); /* the field is free of zeta and tau */
    if (finite_all("awsgld", n, U, k, err) != RX_OK)
        return RX_ENUMERIC;
    rx__cs_state *s = state;
    const int m = par->bins;
    double *th = s->v, *visits = s->v + m;
    const double omega = rx__bias_omega(&par->sa, k + 1);
    for (int i = 0; i < n; ++i) {
        int j = 0;
        (void)rx__bias_bin(par, U[i], &j);
        visits[j] += 1.0;
        if (par->overflow_guard && j == m - 1) {
            s->overflow++;
            continue;
        }
        aw_step(par, th, j, omega);
        s->updates++;
    }
    return RX_OK;
}

/*
 * The shared row's step from the n chains' energies: S = the chains not in
 * the guarded overflow bin, cbar = (1/|S|) sum_{p in S} theta(J_p) and
 * acc[i] = sum_{p in S, J_p = i} theta(J_p), every theta(J_p) read before
 * any is written; theta[i] <- (1 - omega cbar) theta[i] + (omega/|S|)
 * sum_{j <= i} acc[j] (the field theta(J_p)(1{i >= J_p} - theta(i))
 * averaged over S), capped at 1, floored; theta[m-1] stays 1. O(m + n).
 */
static rx_status iaw_update(const rx__bias_params *par, void *state, int n,
                            const double *U, const double *tau, int64_t k,
                            rx_err *err)
{
    RX_UNUSED(tau);
    if (finite_all("iawsgld", n, U, k, err) != RX_OK)
        return RX_ENUMERIC;
    rx__cs_state *s = state;
    const int m = par->bins;
    double *th = s->v, *acc = iaw_acc(par, state);
    double csum = 0.0;
    const int ns = rx__cs_gather(par, s, n, U, acc, &csum);
    if (ns == 0)
        return RX_OK;
    const double omega = rx__bias_omega(&par->sa, k + 1);
    const double inv = 1.0 / (double)ns;
    const double q = 1.0 - omega * (csum * inv), fl = par->theta_floor;
    double cum = 0.0;
    for (int i = 0; i < m; ++i) {
        cum += acc[i];
        acc[i] = 0.0;
        const double t = q * th[i] + omega * (cum * inv);
        th[i] = t < fl ? fl : (t > 1.0 ? 1.0 : t);
    }
    th[m - 1] = 1.0;
    s->updates++;
    return RX_OK;
}

/* ---- weights -----------------------------------------------------------*/

/* T of the row's key (own->k[0]); 0 means the position's tau. */
static double target_T(const rx__bias_params *par, double tau)
{
    const rx__pval *v = &par->own.k[0];
    return v->v && v->n == 1 && v->v[0] > 0.0 ? v->v[0] : tau;
}

/* log w = zeta log theta[J] - (1/T - 1/tau) U (csgld.md 2.3, U19); -inf
 * (weight 0) in the overflow bin under the guard. */
static double aw_log_weight(const rx__bias_params *par, const void *state,
                            double U, double tau)
{
    const double lw = rx__cs_log_weight(par, state, U, tau);
    if (!isfinite(lw))
        return lw;
    const double T = target_T(par, tau);
    return T == tau ? lw : lw - (1.0 / T - 1.0 / tau) * U;
}

/* ---- checkpoints -------------------------------------------------------*/

static int is_count(double x)
{
    return x >= 0.0 && x <= 9007199254740992.0 && x == floor(x);
}

/* The contour packing (counters, theta, visits); a state of this row has
 * theta in (0, 1], non-decreasing, theta[m-1] = 1. */
static rx_status aw_unpack(const rx__bias_params *par, void *state,
                           const double *in, rx_err *err)
{
    const int m = par->bins;
    if (!is_count(in[0]) || !is_count(in[1]))
        return rx__fail(err, RX_EDATA, "awsgld state: bad counters %g, %g",
                        in[0], in[1]);
    for (int i = 0; i < m; ++i) {
        const double t = in[2 + i];
        if (!(t > 0.0 && t <= 1.0))
            return rx__fail(err, RX_EDATA, "awsgld state: theta[%d] = %g "
                            "is not in (0, 1]", i, t);
        if (i > 0 && t < in[1 + i])
            return rx__fail(err, RX_EDATA, "awsgld state: theta[%d] = %g "
                            "below theta[%d] = %g (not monotone)",
                            i, t, i - 1, in[1 + i]);
        if (!is_count(in[2 + m + i]))
            return rx__fail(err, RX_EDATA, "awsgld state: visits[%d] = %g",
                            i, in[2 + m + i]);
    }
    if (in[1 + m] != 1.0)
        return rx__fail(err, RX_EDATA, "awsgld state: theta[%d] = %s, "
                        "not 1", m - 1, RX_NUM(in[1 + m]));
    rx__cs_state *s = state;
    s->updates = (int64_t)in[0];
    s->overflow = (int64_t)in[1];
    memcpy(s->v, in + 2, sizeof(double) * 2 * (size_t)m);
    return RX_OK;
}

static rx_status iaw_unpack(const rx__bias_params *par, void *state,
                            const double *in, rx_err *err)
{
    rx_status st = aw_unpack(par, state, in, err);
    if (st == RX_OK)
        memset(iaw_acc(par, state), 0, sizeof(double) * (size_t)par->bins);
    return st;
}

/* ---- the rows ----------------------------------------------------------*/

/* T must not exceed the temperature the samples are drawn at: the
 * tempering term reweights from a hotter tau down to T (csgld.md 2.3). */
static rx_status check_T(const rx__rowrun *run, const rx__rowvals *own,
                         const char *path, const char **key, rx_err *err)
{
    const double T = own->k[0].v ? own->k[0].v[0] : 0.0;
    if (T > 0.0 && T > run->tau_cold) {
        *key = path;
        return rx__fail(err, RX_ECONFIG,
                        "the target temperature %s is above the coldest "
                        "temperature the chains run at, %.6g: AWSGLD runs "
                        "at tau >= T and reweights down to T",
                        RX_NUM(T), run->tau_cold);
    }
    return RX_OK;
}

static rx_status aw_check(const rx__rowrun *run, const rx__rowvals *own,
                          const char **key, rx_err *err)
{
    return check_T(run, own, "bias.awsgld_temperature", key, err);
}

/* One theta learns the CDF of one distribution: the shared row needs every
 * chain at one temperature (as icsgld). */
static rx_status iaw_check(const rx__rowrun *run, const rx__rowvals *own,
                           const char **key, rx_err *err)
{
    if (run->P > 1 && run->tau_hot != run->tau_cold) {
        *key = "ladder.tau";
        return rx__fail(err, RX_ECONFIG,
                        "bias iawsgld shares one theta between the %d "
                        "chains, so they must sample one distribution: a "
                        "constant temperature ladder, got tau from %.6g to "
                        "%.6g",
                        run->P, run->tau_cold, run->tau_hot);
    }
    return check_T(run, own, "bias.iawsgld_temperature", key, err);
}

/* The shared bias keys the rows read: all but bias.theta_init (theta
 * starts at (i+1)/m). */
static const char *const aw_uses[] = {
    "bias.bins", "bias.energy_min", "bias.bin_width", "bias.zeta",
    "bias.difference", "bias.multiplier_clamp", "bias.overflow_guard",
    "bias.theta_floor", "bias.sa.", "bias.resample", NULL};

static const char *const aw_init_names[] = {"cdf", "flat", NULL};

static const rx__keydef aw_keys[] = {
    {"bias.awsgld_temperature", K_REAL, 0, "0", 0, HUGE_VAL, 0, 0, NULL,
     "awsgld: the target temperature T <= tau the weights recover, log w "
     "= zeta log theta[J] - (1/T - 1/tau) U; 0 = tau (no tempering term)"},
    {"bias.awsgld_theta_init", K_ENUM, 0, "cdf", 0, 0, 0, 0, aw_init_names,
     "awsgld: theta at the start: cdf ((i+1)/m) or flat (1 in every bin: "
     "multiplier 1 everywhere until theta learns, as the dissertation's "
     "optimisation code, which starts from a constant theta)"},
};

static const rx__keydef iaw_keys[] = {
    {"bias.iawsgld_temperature", K_REAL, 0, "0", 0, HUGE_VAL, 0, 0, NULL,
     "iawsgld: the target temperature T <= tau the weights recover, as "
     "bias.awsgld_temperature; 0 = tau"},
};

const rx__bias_type rx__bias_awsgld_row = {
    .row = {.name = "awsgld",
            .doc = "adaptively weighted SGLD: theta learns the energy CDF "
                   "per position; weights theta(J)^zeta, tempered to T",
            .keys = aw_keys,
            .nkeys = 2,
            .uses = aw_uses,
            .check = aw_check},
    .share = RX__BIAS_PER_POSITION,
    .needs = RX__BIAS_UPDATE_ALL_BINS,
    .size = rx__cs_size,
    .init = aw_init,
    .update = aw_update,
    .grad_mult = rx__cs_grad_mult,
    .log_weight = aw_log_weight,
    .pack_len = rx__cs_pack_len,
    .pack = rx__cs_pack,
    .unpack = aw_unpack,
    .view = rx__cs_view,
};

const rx__bias_type rx__bias_iawsgld_row = {
    .row = {.name = "iawsgld",
            .doc = "interacting AWSGLD: one CDF theta shared by the P "
                   "chains, updated from all of them (the averaged field)",
            .keys = iaw_keys,
            .nkeys = 1,
            .uses = aw_uses,
            .check = iaw_check},
    .share = RX__BIAS_SHARED,
    .needs = RX__BIAS_NEEDS_GLOBAL_UPDATE | /* every chain's energy first */
             RX__BIAS_UPDATE_ALL_BINS,
    .size = iaw_size,
    .init = iaw_init,
    .update = iaw_update,
    .grad_mult = rx__cs_grad_mult,
    .log_weight = aw_log_weight,
    .pack_len = rx__cs_pack_len,
    .pack = rx__cs_pack,
    .unpack = iaw_unpack,
    .view = rx__cs_view,
};
