/*
 * The well-tempered ensemble row (WTE; Bonomi & Parrinello 2010, as the
 * replica-exchange Nose-Hoover paper uses it: renhd.md 5): well-tempered
 * metadynamics with the potential energy as the collective variable. Each
 * position keeps a deposit A over the energy bins, 0 at the start, and
 * every iteration adds to the bin J of the energy just reached
 *
 *     A[J] <- A[J] + h exp(-A[J] / ((gamma - 1) tau))          (eq. 14)
 *
 * (h = bias.wte_height, gamma = bias.wte_gamma > 1, tau the position's
 * temperature). The chain then samples the biased potential V = U + A(U):
 * the step uses g grad U with g = 1 + (A[J+1] - A[J]) / du (the forward
 * difference of Alg. 2; backward in the top bin, renhd.md 5.4 W2), and at
 * convergence the energy's distribution is pi(E)^(1/gamma) (Theorem 3):
 * its variance is about gamma times the canonical one. A recorded sample
 * gets the log-weight A~(U) / tau (eq. 12), which takes it back to
 * exp(-U / tau).
 *
 * Decisions (renhd.md 5.4):
 *  - A~ is the potential the multiplier integrates: linear in each bin,
 *    A[J] at the bin's lower edge e_min + J du and A[J+1] at its upper
 *    edge (in the top bin the backward slope continues past the edge,
 *    below e_min the slope of bin 0). The weight A~(U) / tau is then
 *    exactly the ratio of the target to the density the chain samples,
 *    where the paper's bin value A[J] is off by up to |A'| du inside a
 *    bin.
 *  - The grid is the shared partition (bias.bins, bias.energy_min,
 *    bias.bin_width = the paper's Delta), the index clamped (W1); every
 *    bin takes deposits, the overflow bin included (bias.overflow_guard,
 *    theta's guard, does not apply).
 *  - The deposit stays with its temperature (W4 (b), one state per
 *    position). A swap between positions j and k then adds [A_j(U_j) -
 *    A_j(U_k)] / T_j + [A_k(U_k) - A_k(U_j)] / T_k to the exchange test's
 *    exponent (the row's swap_shift, with the same A~ as the weight and
 *    the multiplier), which makes the swap exact for the biased
 *    densities exp(-(U + A~_q(U)) / T_q) the positions sample. The check
 *    refuses a test that does not take that shift exactly
 *    (rx__bias_swap_check).
 */
#include <math.h>
#include <string.h>

#include "../core/num.h"
#include "bias.h"

/* The state: the deposits made, then A[0..m-1] and visits[0..m-1] (counts,
 * exact as doubles to 2^53). No pointers: its bytes are the state. */
typedef struct wte_state {
    int64_t updates;
    double v[];
} wte_state;

/* gamma and h, the row's own keys (own.k[0], own.k[1]); the defaults
 * where a caller left them unset (a test's parameters). */
static double gamma_of(const rx__bias_params *par)
{
    const rx__pval *v = &par->own.k[0];
    return v->v && v->n == 1 ? v->v[0] : 2.0;
}

static double height_of(const rx__bias_params *par)
{
    const rx__pval *v = &par->own.k[1];
    return v->v && v->n == 1 ? v->v[0] : 1e-4;
}

static size_t wte_size(const rx__bias_params *par)
{
    return sizeof(wte_state) + 2 * (size_t)par->bins * sizeof(double);
}

static void wte_init(const rx__bias_params *par, void *state)
{
    wte_state *s = state;
    s->updates = 0;
    memset(s->v, 0, sizeof(double) * 2 * (size_t)par->bins);
}

/* The deposits of the n energies in the order given (n = 1 for a
 * position's own state), each at its chain's temperature. */
static rx_status wte_update(const rx__bias_params *par, void *state, int n,
                            const double *U, const double *tau, int64_t k,
                            rx_err *err)
{
    for (int i = 0; i < n; ++i)
        if (!isfinite(U[i]))
            return rx__fail(err, RX_ENUMERIC,
                            "wte: energy %g of chain %d at iteration %lld "
                            "is not finite: cannot bin it",
                            U[i], i, (long long)k);
    wte_state *s = state;
    double *A = s->v, *visits = s->v + par->bins;
    const double h = height_of(par), gm1 = gamma_of(par) - 1.0;
    for (int i = 0; i < n; ++i) {
        int j = 0;
        (void)rx__bias_bin(par, U[i], &j);
        visits[j] += 1.0;
        A[j] += h * exp(-A[j] / (gm1 * tau[i]));
        s->updates++;
    }
    return RX_OK;
}

/* The slope of A~ in bin j: forward, backward in the top bin. */
static double slope(const rx__bias_params *par, const double *A, int j)
{
    const int m = par->bins;
    return j + 1 < m ? (A[j + 1] - A[j]) / par->bin_width
                     : (A[m - 1] - A[m - 2]) / par->bin_width;
}

/* g = 1 + A~'(U), clamped by bias.multiplier_clamp when it is set. */
static double wte_grad_mult(const rx__bias_params *par, const void *state,
                            double U, double tau)
{
    RX_UNUSED(tau);
    int j;
    if (rx__bias_bin(par, U, &j) != RX_OK)
        return NAN;
    double g = 1.0 + slope(par, ((const wte_state *)state)->v, j);
    const double c = par->mult_clamp;
    if (c > 0.0)
        g = g < -c ? -c : (g > c ? c : g);
    return g;
}

/* A~(U): A[J] at the lower edge of bin J plus the bin's slope times the
 * distance from it; NaN when U is not finite. */
static double a_tilde(const rx__bias_params *par, const void *state,
                      double U)
{
    int j;
    if (rx__bias_bin(par, U, &j) != RX_OK)
        return NAN;
    const double *A = ((const wte_state *)state)->v;
    const double edge = par->energy_min + (double)j * par->bin_width;
    return A[j] + slope(par, A, j) * (U - edge);
}

/* log w = A~(U) / tau. */
static double wte_log_weight(const rx__bias_params *par, const void *state,
                             double U, double tau)
{
    return a_tilde(par, state, U) / tau;
}

/* The swap's term: [A_a(Ua) - A_a(Ub)] / tau_a + [A_b(Ub) - A_b(Ua)] /
 * tau_b, with the A~ of the weight (renhd.md 5.4 W4 (b)). */
static double wte_swap_shift(const rx__bias_params *par, const void *sa,
                             const void *sb, double Ua, double Ub,
                             double tau_a, double tau_b)
{
    return (a_tilde(par, sa, Ua) - a_tilde(par, sa, Ub)) / tau_a +
           (a_tilde(par, sb, Ub) - a_tilde(par, sb, Ua)) / tau_b;
}

static size_t wte_pack_len(const rx__bias_params *par)
{
    return 1 + 2 * (size_t)par->bins;
}

static void wte_pack(const rx__bias_params *par, const void *state,
                     double *out)
{
    const wte_state *s = state;
    out[0] = (double)s->updates;
    memcpy(out + 1, s->v, sizeof(double) * 2 * (size_t)par->bins);
}

static int is_count(double x)
{
    return x >= 0.0 && x <= 9007199254740992.0 && x == floor(x);
}

/* A state of this row: a count of deposits, every A finite and >= 0 (it
 * starts at 0 and only grows), visit counts. */
static rx_status wte_unpack(const rx__bias_params *par, void *state,
                            const double *in, rx_err *err)
{
    const int m = par->bins;
    if (!is_count(in[0]))
        return rx__fail(err, RX_EDATA, "wte state: bad counter %g", in[0]);
    for (int i = 0; i < m; ++i) {
        const double a = in[1 + i];
        if (!(a >= 0.0 && isfinite(a)))
            return rx__fail(err, RX_EDATA, "wte state: A[%d] = %g is not a "
                            "finite number >= 0", i, a);
        if (!is_count(in[1 + m + i]))
            return rx__fail(err, RX_EDATA, "wte state: visits[%d] = %g", i,
                            in[1 + m + i]);
    }
    wte_state *s = state;
    s->updates = (int64_t)in[0];
    memcpy(s->v, in + 1, sizeof(double) * 2 * (size_t)m);
    return RX_OK;
}

static void wte_view(const rx__bias_params *par, const void *state,
                     const double **curve, const double **visits,
                     int64_t *updates)
{
    const wte_state *s = state;
    *curve = s->v;
    *visits = s->v + par->bins;
    *updates = s->updates;
}

/* Swaps: a test that takes the shift exactly (rx__bias_swap_check). */
static rx_status wte_check(const rx__rowrun *run, const rx__rowvals *own,
                           const char **key, rx_err *err)
{
    RX_UNUSED(own);
    return rx__bias_swap_check(run, "wte", key, err);
}

/* The shared keys it reads: the partition and the clamp. */
static const char *const wte_uses[] = {"bias.bins", "bias.energy_min",
                                       "bias.bin_width",
                                       "bias.multiplier_clamp",
                                       "bias.resample", NULL};

static const rx__keydef wte_keys[] = {
    {"bias.wte_gamma", K_REAL, 0, "2", 1, HUGE_VAL, 1, 1, NULL,
     "wte: the tempering factor gamma > 1: the energy's distribution "
     "becomes pi(E)^(1/gamma), its variance about gamma times wider"},
    {"bias.wte_height", K_REAL, 0, "1e-4", 0, HUGE_VAL, 1, 1, NULL,
     "wte: the deposit h > 0 per iteration, A[J] += h exp(-A[J] / "
     "((gamma - 1) tau)), in energy units"},
};

const rx__bias_type rx__bias_wte_row = {
    .row = {.name = "wte",
            .doc = "well-tempered ensemble: a deposit A(E) per position "
                   "widens the energy distribution; weights exp(A(U)/tau)",
            .keys = wte_keys,
            .nkeys = 2,
            .uses = wte_uses,
            .check = wte_check},
    .share = RX__BIAS_PER_POSITION,
    .needs = 0, /* each position's state: updated by its particle's owner */
    .size = wte_size,
    .init = wte_init,
    .update = wte_update,
    .grad_mult = wte_grad_mult,
    .log_weight = wte_log_weight,
    .pack_len = wte_pack_len,
    .pack = wte_pack,
    .unpack = wte_unpack,
    .view = wte_view,
    .swap_shift = wte_swap_shift,
};
