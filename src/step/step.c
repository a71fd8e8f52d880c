/*
 * The step-rule table: rx_step_kind -> row (one file per rule), and what
 * every rule shares: a fresh state and the on-swap policy (deo.md 3.1,
 * resgld_vr.md 2.1, renhd.md 3.3 and 9).
 */
#include <string.h>

#include "step.h"

size_t rx__step_len_dim(size_t dim)
{
    return dim;
}

/* A test binary may define this row: it then joins the table after the
 * built-in rows, known to no other file (tests/test_contract.c). */
extern const rx__step_type rx__step_test_row __attribute__((weak));

/* The table: a row's index is its value in step.target / step.others. A
 * new rule is its file and one line here (before the test row). */
const rx__step_type *const rx__step_types[RX__STEP_MAX] = {
    &rx__step_sgld,  &rx__step_sgd,   &rx__step_msgd,
    &rx__step_psgd,  &rx__step_sghmc, &rx__step_sgnht,
    &rx__step_psgld_diag,
    &rx__step_test_row, /* NULL unless a test defines it */
};

int rx__step_count(void)
{
    int n = 0;
    while (n < RX__STEP_MAX && rx__step_types[n])
        ++n;
    return n;
}

static const rx__rowdecl *step_at(int i)
{
    return i >= 0 && i < rx__step_count() ? &rx__step_types[i]->row : NULL;
}

const rx__table rx__step_table = {"step rule", {"step.target", "step.others", NULL},
                                  rx__step_count, step_at};

void rx__step_init(rx_step_kind kind, const rx__stepconf *sc, double *state,
                   size_t dim, double eta, double tau, rx__stream *s)
{
    const rx__step_type *t = rx__step_types[kind];
    if (!state || !t->state_len)
        return;
    if (t->init)
        t->init(sc, &sc->own[kind], state, dim, eta, tau, s);
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
    t->rescale(sc, &sc->own[kind1], state, dim, eta0, tau0, eta1, tau1);
}
