/*
 * MCMC transition rules ("steps") on a flat double parameter vector, as a
 * type table in the style of GSL's gsl_rng_type: each rule is one const
 * row (rx__step_type) in its own file; step.c's table lists the rows,
 * in the order of their values in step.target / step.others.
 *
 * A step reads the gradient cached at theta and moves theta; the caller
 * re-evaluates the energy and gradient at the new point. Rules with state
 * (momentum, RMS average, thermostat) keep it in the particle's `state`
 * vector of state_len(dim) doubles, so it moves with the particle on a
 * swap.
 */
#ifndef RX_STEP_H
#define RX_STEP_H

#include "../core/internal.h"
#include "../core/row.h"

/* Most rows the step table may hold (the built-in rows and a test's). */
#define RX__STEP_MAX 16

/* The rules' shared parameters (one set for the run), and the values of
 * each row's own keys by its index (rx__step_apply passes a row its own). */
typedef struct rx__stepconf {
    double momentum, rms_alpha, rms_eps, sghmc_vhat;
    double sgnht_c;  /* SGNHT: injected-noise level c (Ding et al.'s A h) */
    double sgnht_mu; /* SGNHT: thermostat gain mu (0: thermostat off)     */
    int64_t reset_every; /* step.reset_every N: fresh states at k = N, 2N,
                          * ... (0: never)                              */
    rx__rowvals own[RX__STEP_MAX];
} rx__stepconf;

/* Does iteration k start a trajectory round (step.reset_every N > 0 and k
 * = N, 2N, ...)? Then every particle's state is made fresh at its
 * position before its step of k (the row's init, as at the start of the
 * run; RENHD's reset, renhd.md 3.3). A function of k alone: the same on
 * every thread and rank. */
static inline int rx__step_round_start(const rx__stepconf *sc, int64_t k)
{
    return sc->reset_every > 0 && k > 0 && k % sc->reset_every == 0;
}

/* A step row's properties (row.props): what validation, warnings and the
 * reference path read instead of naming rules. */
enum {
    RX__STEP_SAMPLES = 1, /* injects noise at the temperature: its chain
                           * samples exp(-U / tau) (else it optimises)  */
    RX__STEP_MOMENTUM = 2, /* a velocity that `state_on_swap: reset`
                           * zeroes, which narrows the samples          */
    RX__STEP_PLAIN = 4    /* stateless theta -= eta g, plus the noise
                           * sqrt(2 eta tau) z in coordinate order where
                           * it samples: what the engine's fused kernels
                           * (the 2-D target's) compute in one pass     */
};

/* Which normals a step draws from its stream. */
typedef enum rx__step_draws {
    RX__DRAWS_NONE = 0, /* none                                         */
    RX__DRAWS_DIM = 1   /* dim normals per step, coordinate order: they
                           can be drawn ahead (zpre of apply)          */
} rx__step_draws;

/* What a row needs from the caller before apply. */
enum { RX__NEEDS_GRAD = 1, RX__NEEDS_ENERGY = 2 };

/*
 * One step rule. Every function is reentrant and allocates nothing.
 *  - state_len(dim): doubles of per-particle state; NULL: stateless.
 *  - init: a fresh state for a particle at (eta, tau): at the start, on a
 *    reset and on a change of rule. s: a stream for rules whose fresh
 *    state is random (may be NULL: the row then uses its mean). NULL
 *    init with a state: zeros.
 *  - apply: one step; state NULL for stateless rules; gm the gradient
 *    multiplier of an energy-histogram bias (src/bias/): the rule uses
 *    gm * grad in place of grad (as -(eta gm) grad where it scales by
 *    eta), the noise unchanged; gm = 1.0 gives the same bits as no
 *    multiplier; noise from s; zpre,
 *    when not NULL, holds the stream's first nz draws (nz a multiple of
 *    RX_STEP_CHUNK, or dim), drawn ahead, and s continues after them: the
 *    same numbers as drawing them here.
 *  - rescale: the state of a particle that moves from (eta0, tau0) to
 *    (eta1, tau1) under the `follow` policy, same rule; NULL: kept as is.
 */
typedef struct rx__step_type {
    rx__rowdecl row; /* name, own keys, shared keys read, props, check */
    size_t (*state_len)(size_t dim);
    void (*init)(const struct rx__stepconf *sc, const rx__rowvals *own,
                 double *state, size_t dim, double eta, double tau,
                 rx__stream *s);
    void (*apply)(const struct rx__stepconf *sc, const rx__rowvals *own,
                  double *theta, double *state, const double *grad,
                  double gm, size_t dim, double eta, double tau,
                  rx__stream *s, const double *zpre, size_t nz);
    void (*rescale)(const struct rx__stepconf *sc, const rx__rowvals *own,
                    double *state, size_t dim, double eta0, double tau0,
                    double eta1, double tau1);
    rx__step_draws draws;
    unsigned needs; /* RX__NEEDS_* */
} rx__step_type;

/* state_len of the rules that keep one double per coordinate (momentum,
 * RMS average) */
size_t rx__step_len_dim(size_t dim);

extern const rx__step_type rx__step_sgld, rx__step_sgd, rx__step_msgd,
    rx__step_psgd, rx__step_sghmc, rx__step_sgnht, rx__step_psgld_diag;

/* The rows by their value in step.target / step.others (step.c): the
 * built-in rows, then a test binary's row where it defines one
 * (rx__step_test_row); rx__step_count() of them, the slots past it NULL. */
extern const rx__step_type *const rx__step_types[RX__STEP_MAX];
int rx__step_count(void);
/* The table as the configuration walks it (names, keys, properties). */
extern const rx__table rx__step_table;

static inline const rx__step_type *rx__step_row(rx_step_kind k)
{
    return rx__step_types[k];
}

/* Per-particle state length of rule k at dimension dim (0: stateless). */
static inline size_t rx__step_state_len(rx_step_kind k, size_t dim)
{
    const rx__step_type *t = rx__step_types[k];
    return t->state_len ? t->state_len(dim) : 0;
}

/* Does this rule keep per-particle state? */
static inline int rx__step_has_state(rx_step_kind k)
{
    return rx__step_types[k]->state_len != NULL;
}

/* Chunk of the noise draws (rx__normal_fill calls) inside a step. */
#define RX_STEP_CHUNK 256

/* Does this rule draw dim normals from its stream, in order (SGLD, SGHMC,
 * SGNHT)? Only then can the noise be drawn ahead (zpre below). */
static inline int rx__step_draws_dim(rx_step_kind k)
{
    return rx__step_types[k]->draws == RX__DRAWS_DIM;
}

/* One step of rule `kind` with gradient multiplier gm (the row's apply,
 * see above). */
static inline void rx__step_apply_g(rx_step_kind kind,
                                    const rx__stepconf *sc, double *theta,
                                    double *state, const double *grad,
                                    double gm, size_t dim, double eta,
                                    double tau, rx__stream *s,
                                    const double *zpre, size_t nz)
{
    rx__step_types[kind]->apply(sc, &sc->own[kind], theta, state, grad, gm,
                                dim, eta, tau, s, zpre, nz);
}

/* One step of rule `kind` without a multiplier (gm = 1). */
static inline void rx__step_apply(rx_step_kind kind, const rx__stepconf *sc,
                                  double *theta, double *state,
                                  const double *grad, size_t dim, double eta,
                                  double tau, rx__stream *s,
                                  const double *zpre, size_t nz)
{
    rx__step_apply_g(kind, sc, theta, state, grad, 1.0, dim, eta, tau, s,
                     zpre, nz);
}

/* A fresh state of rule `kind` (the row's init; zeros where it has none). */
void rx__step_init(rx_step_kind kind, const rx__stepconf *sc, double *state,
                   size_t dim, double eta, double tau, rx__stream *s);

/*
 * A particle moved from a position with (eta0, tau0, kind0) to one with
 * (eta1, tau1, kind1): adjust its state per the on-swap policy. `follow`
 * applies the row's rescale (velocities by sqrt(eta1 tau1 / (eta0 tau0));
 * the pSGD second moments are kept; see each row), `follow_raw` keeps the
 * state, `reset` and a change of rule give a fresh state (the row's init
 * at (eta1, tau1), random parts from s where s is not NULL).
 */
void rx__step_move(rx_state_on_swap pol, rx_step_kind kind0,
                   rx_step_kind kind1, const rx__stepconf *sc, double *state,
                   size_t dim, double eta0, double tau0, double eta1,
                   double tau1, rx__stream *s);

/* Shared by the rows: the noise of the chunk j0..j0+n-1, drawn ahead
 * (zpre, the first nz draws) or now into buf. */
static inline const double *rx__step_noise(rx__stream *s, const double *zpre,
                                           size_t nz, size_t j0, double *buf,
                                           size_t n)
{
    if (zpre && j0 + n <= nz)
        return zpre + j0;
    rx__normal_fill(s, buf, n);
    return buf;
}

#endif
