/*
 * The step-rule table: rx_step_kind -> row (one file per rule), and what
 * every rule shares: a fresh state and the on-swap policy (deo.md 3.1,
 * resgld_vr.md 2.1, renhd.md 3.3 and 9).
 */
#include <string.h>

#include "step.h"

/* Indexed by rx_step_kind; a new rule is a file, a row here and an enum
 * value at the end of rx_step_kind. */
size_t rx__step_len_dim(size_t dim)
{
    return dim;
}

const rx__step_type *const rx__step_types[RX__STEP_KINDS] = {
    [RX_STEP_SGLD] = &rx__step_sgld,   [RX_STEP_SGD] = &rx__step_sgd,
    [RX_STEP_MSGD] = &rx__step_msgd,   [RX_STEP_PSGD] = &rx__step_psgd,
    [RX_STEP_SGHMC] = &rx__step_sghmc, [RX_STEP_SGNHT] = &rx__step_sgnht,
};

void rx__step_init(rx_step_kind kind, const rx__stepconf *sc, double *state,
                   size_t dim, double eta, double tau, rx__stream *s)
{
    const rx__step_type *t = rx__step_types[kind];
    if (!state || !t->state_len)
        return;
    if (t->init)
        t->init(sc, state, dim, eta, tau, s);
    else
        memset(state, 0, sizeof(double) * t->state_len(dim));
}

void rx__step_move(rx_state_on_swap pol, rx_step_kind kind0,
                   rx_step_kind kind1, const rx__stepconf *sc, double *state,
                   size_t dim, double eta0, double tau0, double eta1,
                   double tau1, rx__stream *s)
{
    const rx__step_type *t = rx__step_types[kind1];
    if (!state || !t->state_len)
        return;
    if (pol == RX_STATE_RESET || kind0 != kind1) {
        rx__step_init(kind1, sc, state, dim, eta1, tau1, s);
        return;
    }
    if (pol == RX_STATE_FOLLOW_RAW || !t->rescale)
        return;
    t->rescale(sc, state, dim, eta0, tau0, eta1, tau1);
}
