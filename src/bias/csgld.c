/*
 * The CSGLD row (contour SGLD, csgld.md 1-2.1 and 2.6): theta on the
 * simplex learns the energy PDF by stochastic approximation with the
 * field theta(J)^zeta (e_J - theta); the gradient multiplier is the
 * derivative of the piecewise-continuous log Psi_theta; a sample's
 * importance weight is theta(J)^zeta, kept as its log. One state per
 * position: one chain, or P independent chains. Boundary bins as csgld.md
 * 1.6 decides: in the overflow bin g = 1, no SA step and weight 0
 * (overflow_guard); theta floored; an optional clamp of g. The state
 * layout and every function but the update are shared with the ICSGLD
 * row (contour.h).
 */
#include <math.h>
#include <string.h>

#include "../core/num.h"
#include "bias.h"
#include "contour.h"

typedef rx__cs_state cs_state;

size_t rx__cs_size(const rx__bias_params *par)
{
    return sizeof(cs_state) + 2 * (size_t)par->bins * sizeof(double);
}

void rx__cs_init(const rx__bias_params *par, void *state)
{
    cs_state *s = state;
    const int m = par->bins;
    s->updates = s->overflow = 0;
    double *th = s->v;
    if (par->theta_init == RX_BIAS_THETA_LINEAR) {
        /* theta ~ (m, m-1, ..., 1): the authors' toy code */
        double tot = 0.5 * (double)m * (double)(m + 1);
        for (int i = 0; i < m; ++i)
            th[i] = (double)(m - i) / tot;
    } else {
        for (int i = 0; i < m; ++i)
            th[i] = 1.0 / (double)m;
    }
    memset(th + m, 0, sizeof(double) * (size_t)m);
}

int rx__cs_gather(const rx__bias_params *par, rx__cs_state *s, int n,
                  const double *U, double *acc, double *csum)
{
    const int m = par->bins;
    double *th = s->v, *visits = s->v + m;
    int ns = 0;
    for (int i = 0; i < n; ++i) {
        int j = 0;
        (void)rx__bias_bin(par, U[i], &j);
        visits[j] += 1.0;
        if (par->overflow_guard && j == m - 1) {
            s->overflow++;
            continue;
        }
        acc[j] += th[j]; /* theta_k(J_p): nothing written yet */
        *csum += th[j];
        ns++;
    }
    return ns;
}

void rx__cs_renorm(const rx__bias_params *par, double *th, double sum)
{
    if (fabs(sum - 1.0) > RX__CS_RENORM_TOL)
        for (int i = 0; i < par->bins; ++i)
            th[i] /= sum;
}

/*
 * One SA step with bin j: theta <- (1-c) theta + c e_j, c = omega
 * theta[j]^zeta (eq. 5.8 in closed form, csgld.md 1.4): the sum stays 1
 * and theta > 0 since c < 1 (omega < 1, theta <= 1). theta is floored,
 * then renormalised when rounding moved the sum.
 */
static void cs_step(const rx__bias_params *par, double *th, int j,
                    double omega)
{
    const int m = par->bins;
    const double c = omega * pow(th[j], par->zeta);
    const double q = 1.0 - c, fl = par->theta_floor;
    double sum = 0.0;
    for (int i = 0; i < m; ++i) {
        double t = q * th[i] + (i == j ? c : 0.0);
        t = t < fl ? fl : t;
        th[i] = t;
        sum += t;
    }
    rx__cs_renorm(par, th, sum);
}

static rx_status cs_update(const rx__bias_params *par, void *state, int n,
                           const double *U, const double *tau, int64_t k,
                           rx_err *err)
{
    RX_UNUSED(tau);
    cs_state *s = state;
    for (int i = 0; i < n; ++i)
        if (!isfinite(U[i]))
            return rx__fail(err, RX_ENUMERIC,
                            "csgld: energy %g of chain %d at iteration %lld "
                            "is not finite: cannot bin it",
                            U[i], i, (long long)k);
    const int m = par->bins;
    double *th = s->v, *visits = s->v + m;
    const double omega = rx__bias_omega(&par->sa, k + 1);
    /* the n energies one after the other (n = 1 for a position's own
     * state), in the order given */
    for (int i = 0; i < n; ++i) {
        int j = 0;
        (void)rx__bias_bin(par, U[i], &j);
        visits[j] += 1.0;
        if (par->overflow_guard && j == m - 1) {
            s->overflow++;
            continue;
        }
        cs_step(par, th, j, omega);
        s->updates++;
    }
    return RX_OK;
}

/* g = 1 + zeta tau / du * (difference of log theta at bin j), clamped;
 * 1 in bin 0 (backward), in the top bin (forward) and in the overflow bin
 * under the guard; exactly 1 for zeta = 0. */
double rx__cs_grad_mult(const rx__bias_params *par, const void *state,
                        double U, double tau)
{
    const cs_state *s = state;
    int j;
    if (rx__bias_bin(par, U, &j) != RX_OK)
        return NAN;
    const int m = par->bins;
    if (par->zeta == 0.0 || (par->overflow_guard && j == m - 1))
        return 1.0;
    const double *th = s->v;
    int lo = j, hi = j;
    if (par->difference == RX_BIAS_DIFF_FORWARD)
        hi = j + 1 < m ? j + 1 : m - 1;
    else
        lo = j > 0 ? j - 1 : 0;
    if (lo == hi)
        return 1.0;
    double g = 1.0 + par->zeta * tau / par->bin_width *
                         (log(th[hi]) - log(th[lo]));
    const double c = par->mult_clamp;
    if (c > 0.0)
        g = g < -c ? -c : (g > c ? c : g);
    return g;
}

/* log w = zeta log theta[J] (2.6: never w itself, theta^zeta underflows
 * for large zeta); -inf (weight 0) in the overflow bin under the guard. */
double rx__cs_log_weight(const rx__bias_params *par, const void *state,
                         double U, double tau)
{
    RX_UNUSED(tau);
    const cs_state *s = state;
    int j;
    if (rx__bias_bin(par, U, &j) != RX_OK)
        return NAN;
    if (par->overflow_guard && j == par->bins - 1)
        return -INFINITY;
    return par->zeta == 0.0 ? 0.0 : par->zeta * log(s->v[j]);
}

size_t rx__cs_pack_len(const rx__bias_params *par)
{
    return 2 + 2 * (size_t)par->bins;
}

void rx__cs_pack(const rx__bias_params *par, const void *state, double *out)
{
    const cs_state *s = state;
    out[0] = (double)s->updates;
    out[1] = (double)s->overflow;
    memcpy(out + 2, s->v, sizeof(double) * 2 * (size_t)par->bins);
}

static int is_count(double x)
{
    return x >= 0.0 && x <= 9007199254740992.0 && x == floor(x);
}

rx_status rx__cs_unpack(const rx__bias_params *par, void *state,
                        const double *in, rx_err *err)
{
    const int m = par->bins;
    if (!is_count(in[0]) || !is_count(in[1]))
        return rx__fail(err, RX_EDATA, "csgld state: bad counters %g, %g",
                        in[0], in[1]);
    double sum = 0.0;
    for (int i = 0; i < m; ++i) {
        double t = in[2 + i];
        if (!(t > 0.0 && t <= 1.0))
            return rx__fail(err, RX_EDATA, "csgld state: theta[%d] = %g "
                            "is not in (0, 1]", i, t);
        sum += t;
        if (!is_count(in[2 + m + i]))
            return rx__fail(err, RX_EDATA, "csgld state: visits[%d] = %g",
                            i, in[2 + m + i]);
    }
    if (fabs(sum - 1.0) > 1e-9)
        return rx__fail(err, RX_EDATA, "csgld state: theta sums to %s",
                        RX_NUM(sum));
    cs_state *s = state;
    s->updates = (int64_t)in[0];
    s->overflow = (int64_t)in[1];
    memcpy(s->v, in + 2, sizeof(double) * 2 * (size_t)m);
    return RX_OK;
}

void rx__cs_view(const rx__bias_params *par, const void *state,
                 const double **curve, const double **visits,
                 int64_t *updates)
{
    const cs_state *s = state;
    *curve = s->v;
    *visits = s->v + par->bins;
    *updates = s->updates;
}

double *rx__csgld_theta(void *state) { return ((cs_state *)state)->v; }

const double *rx__csgld_visits(const rx__bias_params *par,
                               const void *state)
{
    return ((const cs_state *)state)->v + par->bins;
}

static const char *const csgld_uses[] = {"bias.", NULL};

const rx__bias_type rx__bias_csgld_row = {
    .row = {.name = "csgld",
            .doc = "contour SGLD: theta learns the energy PDF per position; "
                   "importance weights theta(J)^zeta",
            .uses = csgld_uses},
    .share = RX__BIAS_PER_POSITION,
    .needs = RX__BIAS_UPDATE_ALL_BINS, /* each position's state: updated
                                        * by its particle's owner */
    .size = rx__cs_size,
    .init = rx__cs_init,
    .update = cs_update,
    .grad_mult = rx__cs_grad_mult,
    .log_weight = rx__cs_log_weight,
    .pack_len = rx__cs_pack_len,
    .pack = rx__cs_pack,
    .unpack = rx__cs_unpack,
    .view = rx__cs_view,
};

const rx__bias_type *const rx__bias_csgld = &rx__bias_csgld_row;
