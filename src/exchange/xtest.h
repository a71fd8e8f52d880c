/*
 * The exchange tests (tempering.rule) as a type table: the row type, the
 * rows' decisions as static inline functions the pair loops of exchange.c
 * inline (one switch per call selects the row, never an indirect call per
 * pair), and the list of rows by rx_rule that the table (xtest.c) and
 * those switches are built from. See exchange.h for adding a test.
 */
#ifndef RX_XTEST_H
#define RX_XTEST_H

#include <math.h>

#include "../core/row.h"
#include "xstate.h"

/* What an exchange test reads, estimates or adapts (its row's needs):
 * what the engine and the schedule serve it, and what rules the partner
 * design out. */
enum {
    RX__XT_UNIFORM = 1,   /* one uniform per comparison (the SWAP stream);
                           * without it no uniform of k is drawn       */
    RX__XT_ENERGY = 2,    /* reads the pair's energies: adds the fresh
                           * pair noise (rx__pair_noise) when
                           * xc->fresh_sd > 0                          */
    RX__XT_LADDER = 4,    /* reads the temperatures by position (beta)  */
    RX__XT_WCORR = 8,     /* subtracts c_W (xc->wcorr) when W > 1       */
    RX__XT_SIGMA2 = 16,   /* reads sigma_p^2 (xs->s2hat, xc->inv_F);
                           * under tempering.sigma2: estimate it is
                           * estimated every iteration from every pair's
                           * energies (a global step: no partner design) */
    RX__XT_BUFFER_C = 32, /* reads the buffer C (xs->C), adapted every
                           * iteration from all pairs' condition rates
                           * under correction.adapt (a global step)    */
    RX__XT_EXACT = 64,    /* accepts with a probability that leaves each
                           * tempered (or pi_beta) distribution invariant
                           * (detailed balance given exact energies): valid
                           * on the reference path; Lambda's chain count
                           * applies to it                            */
    RX__XT_NOISE = 128,   /* corrects for the energies' noise itself (a
                           * variance it knows): the warning about an
                           * exact rule on noisy energies is not for it */
    RX__XT_PAIRED = 256   /* on minibatch targets (per-example losses,
                           * a batch smaller than the data) it decides
                           * from the engine's paired estimates of each
                           * attempted pair (xs->pair_est), sized by its
                           * row's paired(): a global step (no partner
                           * design); the configuration refuses for it
                           * what the estimates cannot serve
                           * (validate.c's paired_check: not disjoint,
                           * an adaptive ladder, several ranks) */
};

/* An exchange test's decision for the positions a < b whose occupants
 * have energies ea, eb at k, with uniform u (unused without
 * RX__XT_UNIFORM): returns 1 if the swap is accepted and sets *prob, the
 * acceptance probability. s is the pair's shift of the log-acceptance
 * (a bias's term, xc->shift; 0 without one): a test that reads the
 * energies adds it to its exponent (with s = 0 the decision is that of
 * the exponent without it). Every thread evaluates the same expression,
 * so the decision is bitwise the same on all of them. */
typedef int (*rx__xt_decide_fn)(const rx__xconf *xc, const rx__xstate *xs,
                                int a, int b, double ea, double eb,
                                double s, double u, int64_t k,
                                double *prob);

/* One exchange test (tempering.rule). decide is the out-of-line copy of
 * the row's static inline decision (xtest.h), which the pair loops
 * inline.
 *
 * A test that needs something computed once per run from its keys (a
 * table its decision reads) declares size and init: rx_create allocates
 * size(own) bytes (zeroed, cache-line aligned), calls init once with what
 * the run is, and the decision reads the result as xc->rstate (read only,
 * shared by every thread: nothing is allocated or written in the pair
 * loop). init returns RX_OK, or an error with err->msg filled. Both NULL
 * for a test without per-run state (xc->rstate is then NULL). */
typedef struct rx__xtest_type {
    rx__rowdecl row;   /* the tempering.rule name, keys; props: RX__XT_* */
    rx__xt_decide_fn decide;
    size_t (*size)(const rx__rowvals *own);
    rx_status (*init)(void *state, const rx__rowrun *run,
                      const rx__rowvals *own, rx_err *err);
    /* RX__XT_PAIRED rows (NULL for the others): how the engine sizes the
     * paired estimates, from the row's own key values (and its per-run
     * state, NULL without size/init): rows added per round, the most rows
     * (0: the whole data) and the variance of dbeta (U~_a - U~_b) to get
     * below. An estimate that reaches the cap still at or above var_goal
     * is counted as n_var_fail by the engine; rejecting it (which keeps
     * detailed balance: the condition is symmetric under the swap) is the
     * decision's job. */
    void (*paired)(const rx__rowvals *own, const void *state, int64_t *inc,
                   int64_t *cap, double *var_goal);
} rx__xtest_type;

extern const rx__xtest_type rx__xt_metropolis, rx__xt_bernoulli,
    rx__xt_deterministic, rx__xt_bias_corrected;

/* Most rows the table may hold (the built-in rows and a test's). */
#define RX__XTEST_MAX 16

/* The rows by their tempering.rule value (xtest.c): the built-in rows,
 * then a test binary's row where it defines one (rx__xt_test_row);
 * rx__xtest_count() of them, the slots past it NULL. */
extern const rx__xtest_type *const rx__xtest_types[RX__XTEST_MAX];
int rx__xtest_count(void);
/* The table as the configuration walks it. */
extern const rx__table rx__xtest_table;

/* Minibatch energies (a network target, or mixture_data with a batch
 * smaller than its data): where an RX__XT_PAIRED row decides from paired
 * estimates. What such a row needs of the run (disjoint pairs decided
 * from the pre-swap state, a fixed ladder, one rank) the configuration
 * checks for every such row (validate.c's paired_check), so a new paired
 * test needs no copy of it. */
static inline int rx__xt_minibatch(const rx_config *c)
{
    return c->target.kind == RX_TARGET_NETWORK ||
           (c->target.kind == RX_TARGET_MIXTURE_DATA &&
            (int64_t)c->data.batch_size < c->target.n_data);
}

static inline const rx__xtest_type *rx__xtest_row(rx_rule r)
{
    return rx__xtest_types[r];
}

/* The rows whose decision the pair loops inline (a switch per call, no
 * indirect call per pair): X(value, row, arg); the row's decision is
 * row##_decide. A row not listed here (a new test in its own file) is
 * called through its table entry's decide. */
#define RX__XTEST_ROWS(X, arg)                                              \
    X(RX_RULE_METROPOLIS, rx__xt_metropolis, arg)                           \
    X(RX_RULE_BERNOULLI, rx__xt_bernoulli, arg)                             \
    X(RX_RULE_DETERMINISTIC, rx__xt_deterministic, arg)                     \
    X(RX_RULE_BIAS_CORRECTED, rx__xt_bias_corrected, arg)

/* CALL(decide) with the decision of xc->rule's row: inlined for the rows
 * listed above, through the table for the others. */
#define RX__XT_CASE_(e, row, CALL)                                          \
    case e:                                                                 \
        CALL(row##_decide);                                                 \
        break;
#define RX__XTEST_DISPATCH(rule, CALL)                                      \
    switch (rule) {                                                         \
        RX__XTEST_ROWS(RX__XT_CASE_, CALL)                                  \
    default:                                                                \
        CALL(rx__xtest_types[rule]->decide);                                \
        break;                                                              \
    }

/* The notebook's fresh energies: both re-drawn for the comparison whose
 * lower position is a (drawn ahead in xs->fresh_z, or here). */
static inline void rx__xt_fresh(const rx__xconf *xc, const rx__xstate *xs,
                                int a, int64_t k, double *ea, double *eb)
{
    if (xc->fresh_sd > 0.0) {
        double zl[2];
        const double *z = xs->fresh_z ? xs->fresh_z + 2 * a : zl;
        if (!xs->fresh_z)
            rx__pair_noise(xc, a, k, zl);
        *ea += xc->fresh_sd * z[0];
        *eb += xc->fresh_sd * z[1];
    }
}

/* Accept with probability min(1, exp(x)) against u. */
static inline int rx__xt_accept(double x, double u, double *prob)
{
    if (x >= 0.0) {
        *prob = 1.0;
        return 1;
    }
    *prob = exp(x);
    return u < *prob;
}

/* Metropolis (Eq. 2): exp((beta_a - beta_b)(U_a - U_b) + s - c_W). */
static inline int rx__xt_metropolis_decide(const rx__xconf *xc,
                                           const rx__xstate *xs, int a,
                                           int b, double ea, double eb,
                                           double s, double u, int64_t k,
                                           double *prob)
{
    rx__xt_fresh(xc, xs, a, k, &ea, &eb);
    double dT = xs->beta[a] - xs->beta[b];
    double x = dT * (ea - eb) + s - xc->wcorr;
    return rx__xt_accept(x, u, prob);
}

/* Bernoulli (idealised): accept with probability accept_prob, whatever
 * the energies. */
static inline int rx__xt_bernoulli_decide(const rx__xconf *xc,
                                          const rx__xstate *xs, int a, int b,
                                          double ea, double eb, double s,
                                          double u, int64_t k, double *prob)
{
    (void)xs, (void)a, (void)b, (void)ea, (void)eb, (void)s, (void)k;
    *prob = xc->accept_prob;
    return u < xc->accept_prob;
}

/* Deterministic (Eq. 8): the hotter chain's energy lower by more than the
 * buffer C; draws no uniform. It has no log-acceptance to shift (a bias
 * with a shift refuses it: rx__bias_swap_check). */
static inline int rx__xt_deterministic_decide(const rx__xconf *xc,
                                              const rx__xstate *xs, int a,
                                              int b, double ea, double eb,
                                              double s, double u, int64_t k,
                                              double *prob)
{
    (void)b, (void)s, (void)u;
    rx__xt_fresh(xc, xs, a, k, &ea, &eb);
    int acc = eb + xs->C < ea;
    *prob = acc;
    return acc;
}

/* Bias-corrected (Eq. 16): Metropolis less dT^2 sigma_a^2 / F. */
static inline int rx__xt_bias_corrected_decide(const rx__xconf *xc,
                                               const rx__xstate *xs, int a,
                                               int b, double ea, double eb,
                                               double s, double u, int64_t k,
                                               double *prob)
{
    rx__xt_fresh(xc, xs, a, k, &ea, &eb);
    double dT = xs->beta[a] - xs->beta[b];
    double x = dT * (ea - eb) + s - xc->wcorr;
    x -= dT * dT * xs->s2hat[a] * xc->inv_F;
    return rx__xt_accept(x, u, prob);
}

#endif
