/*
 * Energy-histogram biases: a type table in the style of GSL's
 * gsl_rng_type. A bias partitions the energy axis into bins, keeps a
 * state over the bins (theta of CSGLD/ICSGLD/AWSGLD, the deposit A(E) of
 * the well-tempered ensemble), updates it once per iteration from the
 * chains' energies by stochastic approximation, hands the step one scalar
 * gradient multiplier per particle per iteration, and gives each recorded
 * sample an importance weight (csgld.md 1-2, renhd.md 5). Below the
 * engine: no threads, no files; depends on core only.
 *
 * Where the engine calls it (design.md, "One iteration"):
 *   step 1  g = type->grad_mult(par, state(q), U(q), tau(q)) for the
 *           particle at position q, U its energy from step 2 of the last
 *           iteration (the first iteration: the initial energy); the step
 *           rule uses g * grad in place of grad (the noise is unchanged).
 *   step 3  after the barrier, type->update(...) in position order
 *           0..P-1: a shared state, one call with the P energies (thread
 *           0); a state per position or particle, one call per state,
 *           n = 1 (the barrier loop splits the positions into blocks, one
 *           per thread; the partner design makes the call on the thread
 *           that steps the position, right after its energy). Each state
 *           gets the same calls in the same order whatever the threads,
 *           so the same bits for any thread count. Then each particle's
 *           log-weight; the barrier loop's second barrier publishes both
 *           before step 1 of the next iteration (engine/chain.c,
 *           rx__bias_step3 and rx__bias_after_step).
 *   step 6  a recorded sample x with energy U (the energy binned in step
 *           3 of the same iteration) gets log w = type->log_weight(par,
 *           state, U, tau), with the state just after that update.
 * The multiplier of iteration k+1 thus reads theta after the update that
 * consumed J(x_{k+1}): csgld.md 2.0's "SA before multiplier" order, which
 * the spec names equally valid, with one energy evaluation per iteration.
 *
 * How the four samplers map onto a row (CSGLD, ICSGLD and AWSGLD with
 * its interacting variant are rows: csgld.c, icsgld.c, awsgld.c; what
 * they share is contour.h):
 *  - CSGLD, one chain or P independent chains (csgld.md 2.1):
 *    share = PER_POSITION (theta estimates the energy PDF at that
 *    position's temperature, so under swaps it stays with the position);
 *    update with n = 1: theta <- (1-c) theta + c e_J, c = omega_{k+1}
 *    theta[J]^zeta; g = 1 + zeta tau / du (log theta[J] - log theta[J-1]);
 *    log w = zeta log theta[J].
 *  - ICSGLD (2.2): share = SHARED; one update with the P energies,
 *    field theta(J)(e_J - theta) averaged over the chains, every
 *    theta(J_p) read before any is written; the same g and log w.
 *  - AWSGLD (2.3): share = PER_POSITION (SHARED for an interacting
 *    variant); update theta(i) <- (1-c) theta(i) + c 1{i >= J}, c = omega
 *    theta[J]; the same g; log w = zeta log theta[J] - (1/T - 1/tau) U
 *    with a target temperature T in the parameters (the tau argument of
 *    log_weight is the position's temperature).
 *  - Well-tempered ensemble (renhd.md 5.3; the row wte.c): state A[m];
 *    update A[J] += h exp(-A[J] / ((gamma-1) tau)) (tau: the update's tau
 *    argument; gamma and h the row's own keys); g = 1 + (A[J+1] - A[J]) /
 *    du (forward difference, backward at the top bin); log w = A(U) /
 *    tau, A linear across a bin. share = PER_POSITION, the bias that
 *    stays with its temperature (renhd.md 5.4 W4 (b)); PER_PARTICLE
 *    would be the paper's A arrays that swap with theta (W4 (a)). A swap
 *    under it adds [A_a(Ua) - A_a(Ub)] / tau_a + [A_b(Ub) - A_b(Ua)] /
 *    tau_b to the exchange test's exponent: the row's swap_shift, which
 *    the engine's exchange calls (step 4).
 */
#ifndef RX_BIAS_H
#define RX_BIAS_H

#include "../core/internal.h"
#include "../core/row.h"

/** Most bins a partition may have (one state is 2 bins doubles). */
#define RX_BIAS_MAX_BINS 4194304

/** Who owns a state, and so how many there are and who updates them. */
typedef enum rx__bias_share {
    RX__BIAS_SHARED = 0,       /* one state for all P chains: update needs
                                * every chain's energy (a barrier, step 3) */
    RX__BIAS_PER_POSITION = 1, /* one per position (temperature); stays put
                                * when particles swap */
    RX__BIAS_PER_PARTICLE = 2  /* one per particle; moves with it on a swap */
} rx__bias_share;

/* The stochastic-approximation step omega_k, k = 1, 2, ... (csgld.md 1.5):
 * constant > 0: omega_k = constant; else omega_k = min(cap, a / (k^alpha
 * + b)). Positive, non-increasing, sum infinite and sum of squares finite
 * for alpha in (0.5, 1]. */
typedef struct rx__bias_sa {
    double a;        /* A > 0 (default 1) */
    double b;        /* B >= 0 (default 100) */
    double alpha;    /* in (0.5, 1] (default 0.6) */
    double cap;      /* in (0, 1] (default 1) */
    double constant; /* > 0: constant omega in (0, 1); 0 (default): off */
} rx__bias_sa;

/*
 * The parameters of a bias: plain data the configuration fills (keys
 * bias.*) shared by the contour rows. A row reads the fields it uses and
 * ignores the rest; a parameter of its own (AWSGLD's target temperature,
 * the well-tempered ensemble's gamma) is a key the row declares
 * (rx__rowdecl.keys), whose values it reads in `own`, never a field here.
 *
 * Partition (csgld.md 1.2): bins m >= 2, lower reference energy e_min,
 * width du > 0. Bin j of energy U is clamp(floor((U - e_min)/du), 0,
 * m-1): bin 0 = (-inf, e_min + du], bin m-1 = (e_min + (m-1) du, +inf)
 * the overflow bin.
 */
typedef struct rx__bias_params {
    rx_bias_kind kind;    /* default RX_BIAS_NONE */
    int bins;             /* m in [2, RX_BIAS_MAX_BINS] (default 100) */
    double energy_min;    /* e_min, finite (default 0) */
    double bin_width;     /* du > 0 (default 1) */
    double zeta;          /* flattening exponent >= 0 (default 0.75) */
    rx__bias_sa sa;       /* SA step omega_k */
    rx_bias_theta_init theta_init; /* default uniform */
    rx_bias_difference difference; /* default backward */
    double mult_clamp;    /* > 0: the multiplier is clamped to [-c, c],
                           * c >= 1 ([-5, 5] for networks, csgld.md 1.6
                           * item 3); 0 (default): no clamp */
    int overflow_guard;   /* 1 (default): in bin m-1, g = 1, no SA step,
                           * weight 0 (csgld.md 1.6 item 2) */
    double theta_floor;   /* theta >= floor after each update, in
                           * [0, 1/m) (default 1e-300) */
    rx__rowvals own;      /* the values of the row's own keys */
} rx__bias_params;

/*
 * A row. state points to size(par) bytes (RX_CACHELINE-aligned) that
 * init fills; the engine allocates one (SHARED) or P (PER_POSITION,
 * PER_PARTICLE) of them, each on its own cache lines. A state holds no
 * pointers: a copy of its bytes is a copy of the state (rollback).
 */
/* What a row needs of the engine's iteration (rx__bias_type.needs). */
enum {
    /* a global step 3 every iteration: every chain's energy of iteration
     * k before any chain's step of k + 1 (a SHARED state must declare
     * it; rx__bias_create refuses one that does not). The engine then
     * runs the barrier loop, whose step 3 updates the state once from
     * the P energies; the partner design, whose threads wait only for
     * their neighbours, stands aside. Without it (one state per position
     * or particle) either loop runs. */
    RX__BIAS_NEEDS_GLOBAL_UPDATE = 1,
    /* an update touches every bin (theta's SA step): it costs bins per
     * update, which the configuration estimates for a run and bounds
     * (rx__bias_bin_work) */
    RX__BIAS_UPDATE_ALL_BINS = 2
};

typedef struct rx__bias_type {
    rx__rowdecl row;      /* the bias.kind name, "csgld"; own keys; check */
    rx__bias_share share; /* who owns a state (see rx__bias_share) */
    unsigned needs;       /* RX__BIAS_NEEDS_* */
    size_t (*size)(const rx__bias_params *par); /* bytes of one state */
    void (*init)(const rx__bias_params *par, void *state);
    /*
     * The SA step of iteration k (0-based; it uses omega_{k+1}) from the
     * energies U[0..n-1] of the n chains that share this state, in
     * position order, with their temperatures tau[0..n-1]. RX_ENUMERIC
     * with a message naming the chain (index i of U) when an energy is not
     * finite; the state is then unchanged.
     */
    rx_status (*update)(const rx__bias_params *par, void *state, int n,
                        const double *U, const double *tau, int64_t k,
                        rx_err *err);
    /* The gradient multiplier for a particle with energy U at temperature
     * tau: the step uses g * grad. NaN when U is not finite. Pure: reads
     * the state only; safe from any number of threads between updates. */
    double (*grad_mult)(const rx__bias_params *par, const void *state,
                        double U, double tau);
    /* The natural log of the importance weight of a sample with energy U
     * recorded at temperature tau; -inf for weight 0; NaN when U is not
     * finite. */
    double (*log_weight)(const rx__bias_params *par, const void *state,
                         double U, double tau);
    /* Checkpoint: pack_len doubles; unpack checks what it reads (RX_EDATA
     * with a message when the numbers cannot be a state of this row). */
    size_t (*pack_len)(const rx__bias_params *par);
    void (*pack)(const rx__bias_params *par, const void *state, double *out);
    rx_status (*unpack)(const rx__bias_params *par, void *state,
                        const double *in, rx_err *err);
    /* For reports (summary.json, trace): the per-bin curve (theta or A)
     * and visit counts (bins doubles each), and the number of SA updates
     * applied. */
    void (*view)(const rx__bias_params *par, const void *state,
                 const double **curve, const double **visits,
                 int64_t *updates);
    /*
     * Optional (NULL: none). The bias's term of a swap's log-acceptance
     * between positions a and b at temperatures tau_a, tau_b, whose
     * occupants have energies Ua, Ub and whose states are sa, sb (the
     * states of the positions, or of the particles for PER_PARTICLE):
     * the log of the ratio of the biased densities the swap changes
     * beyond exp(-U / tau). A row whose position q samples exp(-U / tau_q
     * - lw_q(U)) returns lw_a(Ua) - lw_a(Ub) + lw_b(Ub) - lw_b(Ua) (WTE:
     * [A_a(Ua) - A_a(Ub)] / tau_a + [A_b(Ub) - A_b(Ua)] / tau_b). Pure,
     * like grad_mult: the engine calls it from every thread's exchange
     * (step 4) with the states after step 3 of the same iteration, and
     * the exchange adds it to the exponent of every test that reads
     * energies. A row that has it allows swaps (its check refuses what
     * rx__bias_swap_check refuses); the barrier loop then runs (the
     * partner design stands aside), and a recorded sample's log-weight is
     * read at the position that records it (a particle may arrive there
     * by a swap after its step 3). NaN when an energy is not finite.
     */
    double (*swap_shift)(const rx__bias_params *par, const void *sa,
                         const void *sb, double Ua, double Ub, double tau_a,
                         double tau_b);
} rx__bias_type;

/* The rows. */
extern const rx__bias_type rx__bias_csgld_row;
extern const rx__bias_type *const rx__bias_csgld;

/* Most rows the table may hold (none, the built-in rows and a test's). */
#define RX__BIAS_MAX 16
/* The rows by their bias.kind value (bias.c): row 0 is "none" (no
 * functions), then the built-in rows, then a test binary's row where it
 * defines one (rx__bias_test_row); rx__bias_count() of them. */
extern const rx__bias_type *const rx__bias_types[RX__BIAS_MAX];
int rx__bias_count(void);
/* The table as the configuration walks it. */
extern const rx__table rx__bias_table;

/* The row of a kind; NULL for RX_BIAS_NONE or an unknown kind. */
const rx__bias_type *rx__bias_find(rx_bias_kind kind);
/* Name of a kind ("none", "csgld"); NULL when unknown. */
const char *rx__bias_kind_name(rx_bias_kind kind);

/* Every field at its default (kind none). */
void rx__bias_params_default(rx__bias_params *par);
/* The parameters of a configuration's bias.* keys. */
void rx__bias_params_from(rx__bias_params *par, const rx_config *cfg);

/*
 * Validation for the configuration layer: RX_OK, or RX_ECONFIG with
 * *key = the key path at fault ("bias.bins") and err->msg = what is wrong
 * (no key path in it: the caller prefixes file:line:col: key). Checks
 * bins, energy range, zeta, the SA schedule, the clamp and the floor.
 * Kind none is always valid.
 */
rx_status rx__bias_check(const rx__bias_params *par, const char **key,
                         rx_err *err);

/*
 * For the check of a row with swap_shift, under swaps (P > 1 and a
 * tempering.scheme other than none): the exchange test must accept with
 * the exact ratio (RX__XT_EXACT, so that the shift completes it) and must
 * not correct for the energies' noise (RX__XT_NOISE, RX__XT_SIGMA2: their
 * variance does not hold the shift's own noise). RX_OK, or RX_ECONFIG
 * with *key = "tempering.rule" and a message naming the row (name).
 */
rx_status rx__bias_swap_check(const rx__rowrun *run, const char *name,
                              const char **key, rx_err *err);
/* The bins a run's updates touch, bins x updates: a state per position
 * or particle is updated once per chain and iteration, a shared one once
 * per iteration; 0 for a row whose update touches one bin (wte) and for
 * kind none. */
double rx__bias_bin_work(const rx_config *cfg);
/* The bin work validation refuses (about a day at a nanosecond a bin
 * before any sampling) and the one it warns from (a few seconds, when the
 * bins are many: RX__BIAS_BINS_MANY). */
#define RX__BIAS_WORK_MAX 1e14
#define RX__BIAS_WORK_WARN 1e10
#define RX__BIAS_BINS_MANY 10000

/* omega_k of the schedule, k >= 1 (csgld.md 1.5). */
double rx__bias_omega(const rx__bias_sa *sa, int64_t k);

/* The bin of energy U: RX_OK and *j in [0, m-1], or RX_ENUMERIC when U is
 * NaN or infinite (*j untouched). */
rx_status rx__bias_bin(const rx__bias_params *par, double U, int *j);

/*
 * log Psi_theta(u) of csgld.md 1.3, the piecewise-continuous (log-linear
 * in u across each bin) interpolation of log theta: in bin j >= 1,
 * log theta[j-1] + (log theta[j] - log theta[j-1]) (u - e_min - j du) /
 * du; in bin 0, log theta[0] (theta(0) := theta(1)). NaN when u is not
 * finite.
 */
double rx__bias_log_psi(const rx__bias_params *par, const double *theta,
                        double u);

/* CSGLD state access (tests, reports): theta[0..m-1] and visits. */
double *rx__csgld_theta(void *state);
const double *rx__csgld_visits(const rx__bias_params *par,
                               const void *state);

/*
 * The states of one run: n of them, stride bytes apart (a multiple of
 * RX_CACHELINE), each initialised. n = 1 for a SHARED row, else P.
 */
typedef struct rx__bias {
    const rx__bias_type *type;
    rx__bias_params par;
    int n;
    size_t stride;
    unsigned char *mem;
} rx__bias;

rx_status rx__bias_create(rx__bias *b, const rx__bias_params *par, int P,
                          rx_err *err);
void rx__bias_destroy(rx__bias *b);
static inline void *rx__bias_state(const rx__bias *b, int i)
{
    return b->mem + (size_t)i * b->stride;
}

/*
 * Resampling (csgld.md 2.5): weighted samples -> an unweighted set, as a
 * number of copies of each sample, from log weights logw[0..n-1] (-inf
 * for weight 0; weights are exp(logw - max), so any scale works).
 * Residual-stochastic: copies_i = floor(r_i) + Bernoulli(r_i - floor(r_i))
 * with r_i = w_i / mean(w), E[copies_i] = r_i; one uniform of s per
 * sample, in order. Systematic: M copies in all, sample i gets the number
 * of points u0 + t (t = 0..M-1, one uniform u0) that fall in its share of
 * [0, M) (E[copies_i] = M w_i / sum w). RX_EINVAL with a message when
 * n < 1, a log weight is NaN or +inf, or every weight is 0. *ess, when not
 * NULL, gets (sum w)^2 / sum w^2, in [1, n].
 */
rx_status rx__resample_residual(const double *logw, int64_t n,
                                rx__stream *s, int64_t *copies, double *ess,
                                rx_err *err);
rx_status rx__resample_systematic(const double *logw, int64_t n, int64_t M,
                                  rx__stream *s, int64_t *copies,
                                  double *ess, rx_err *err);
/* ESS of log weights (as above); 0 when they are invalid. */
double rx__weights_ess(const double *logw, int64_t n);

#endif
