/*
 * Keys of how a run is spread, beside the schema's own: one table of
 * rows that are always in use (no key picks them), so their keys live in
 * the key store (rx_config.keys) and reach parsing, --set, defaults,
 * `replex keys`, config.yaml and rx_config_set/get like a row's, and a
 * key added here moves no field of the public rx_config. Rows: `mpi`,
 * the ranks of an MPI run (docs/yaml.md, "mpi"); `hit`, the hitting time
 * of an optimisation run (docs/yaml.md, "hit"); `rounds`, trajectory
 * rounds (the replica-exchange Nose-Hoover paper, Alg. 2-3): swaps tried
 * only at the end of every tempering.every iterations, the step rules'
 * state made fresh at the start of every step.reset_every iterations.
 */
#include <math.h>
#include <stdio.h>

#include "../core/internal.h"
#include "../step/step.h"
#include "config.h"

#ifndef RX_HAVE_MPI
#define RX_HAVE_MPI 0
#endif

static const rx__keydef MPI_KEYS[] = {
    {"mpi.ranks", K_INT, 0, "0", 0, 65536, 0, 0, NULL,
     "MPI ranks the run expects: 0 = as many as it is launched on "
     "(mpirun -np R); R > 0 refuses any other number. Each rank steps "
     "a block of the chains with its threads; results are the same bits "
     "for any split of ranks x threads (docs/architecture.md, \"Ranks\")"},
};

static rx_status mpi_check(const rx__rowrun *run, const rx__rowvals *own,
                           const char **key, rx_err *err)
{
    const int ranks = (int)own->k[0].v[0];
    *key = "mpi.ranks";
    if (ranks > 0 && !RX_HAVE_MPI)
        return rx__fail(err, RX_ECONFIG,
                        "%d ranks asked, but this replex was built without "
                        "MPI (install libopenmpi-dev and reconfigure: meson "
                        "setup --reconfigure -Dmpi=enabled)",
                        ranks);
    if (ranks > run->P && run->P > 0)
        return rx__fail(err, RX_ECONFIG,
                        "%d ranks for %d chains (tempering.n_chains): every "
                        "rank needs at least one chain",
                        ranks, run->P);
    return RX_OK;
}

static const rx__rowdecl MPI_ROW = {
    "mpi", "how the run is spread over MPI ranks", MPI_KEYS,
    (int)(sizeof MPI_KEYS / sizeof MPI_KEYS[0]), NULL, 0, mpi_check, NULL};

static const rx__keydef HIT_KEYS[] = {
    {"hit.rho", K_REAL, 0, "-1", -HUGE_VAL, HUGE_VAL, 0, 0, NULL,
     ">= 0: record each chain's first iteration with U <= hit.u_min + rho "
     "and its lowest energy (summary.json hit, trace.csv hits); < 0: off"},
    {"hit.u_min", K_REAL, 0, "0", -HUGE_VAL, HUGE_VAL, 0, 0, NULL,
     "the known minimum of the energy for hit.rho (0 for the test "
     "functions of target.kind)"},
    {"hit.stop", K_BOOL, 0, "false", 0, 0, 0, 0, NULL,
     "true (with hit.rho >= 0): the run ends after the first iteration "
     "at which any chain has U <= hit.u_min + rho, as a completed run of "
     "that many iterations (summary.json hit.stopped); false: it runs all "
     "its iterations"},
};

static rx_status hit_check(const rx__rowrun *run, const rx__rowvals *own,
                           const char **key, rx_err *err)
{
    (void)run;
    const double rho = own->k[0].v[0], u_min = own->k[1].v[0];
    if (rho >= 0.0 && !isfinite(rho)) {
        *key = "hit.rho";
        return rx__fail(err, RX_ECONFIG, "must be finite");
    }
    if (rho >= 0.0 && !isfinite(u_min)) {
        *key = "hit.u_min";
        return rx__fail(err, RX_ECONFIG, "must be finite");
    }
    if (own->k[2].v[0] != 0.0 && !(rho >= 0.0)) {
        *key = "hit.stop";
        return rx__fail(err, RX_ECONFIG,
                        "needs hit.rho >= 0 (the threshold it stops at)");
    }
    return RX_OK;
}

static const rx__rowdecl HIT_ROW = {
    "hit", "the hitting time of an optimisation run (Deng 2021, Table 7.1)",
    HIT_KEYS, (int)(sizeof HIT_KEYS / sizeof HIT_KEYS[0]), NULL, 0,
    hit_check, NULL};

/* The domain box of the optimisation runs (Deng 2021, section 7.2.2: the
 * code rejects proposals out of the domain). */
static const rx__keydef BOX_KEYS[] = {
    {"target.box", K_BOOL, 0, "false", 0, 0, 0, 0, NULL,
     "true: a step that would take a particle out of [init.low, "
     "init.high]^d is rejected: the particle stays where it is, and its "
     "energy and gradient are evaluated there again (with the next "
     "iteration's gradient noise, as after any step); stateless step "
     "rules only (sgld, sgd, psgld_diag); false: no box"},
};

static rx_status box_check(const rx__rowrun *run, const rx__rowvals *own,
                           const char **key, rx_err *err)
{
    const rx_config *c = run->cfg;
    if (own->k[0].v[0] == 0.0)
        return RX_OK;
    *key = "target.box";
    if (c->target.kind == RX_TARGET_NETWORK || c->target.kind == RX_TARGET_NONE)
        return rx__fail(err, RX_ECONFIG,
                        "needs a target whose particles start in [init.low, "
                        "init.high]^d (not %s)",
                        c->target.kind == RX_TARGET_NONE ? "none"
                                                         : "network");
    for (int r = 0; r < rx__step_count(); ++r) {
        if (!rx__row_in_use(c, &rx__step_table, r) ||
            !rx__step_types[r]->state_len)
            continue;
        return rx__fail(err, RX_ECONFIG,
                        "step rule %s keeps a state (a momentum or a "
                        "preconditioner) that a rejected step would have "
                        "to restore: the box supports stateless rules only "
                        "(sgld, sgd, psgld_diag)",
                        rx__step_types[r]->row.name);
    }
    return RX_OK;
}

static const rx__rowdecl BOX_ROW = {
    "box", "the domain box of an optimisation run (Deng 2021, 7.2.2)",
    BOX_KEYS, (int)(sizeof BOX_KEYS / sizeof BOX_KEYS[0]), NULL, 0,
    box_check, NULL};

/* Trajectory rounds: both are functions of the iteration k alone, so
 * every thread and every MPI rank makes the same decision. */
static const rx__keydef ROUNDS_KEYS[] = {
    {"tempering.every", K_INT, 0, "1", 1, 1e9, 0, 0, NULL,
     "L >= 1: swaps are tried only at the last iteration of every L (k + 1 "
     "a multiple of L, after the round's steps); the schedule counts "
     "attempts (deo alternates its parity, a window W is W attempts). 1: "
     "every iteration"},
    {"step.reset_every", K_INT, 0, "0", 0, 1e9, 0, 0, NULL,
     "N >= 1: at the start of every N iterations (k = N, 2N, ...) every "
     "particle's step state is made fresh at its position, as at the "
     "start of the run (sgnht: v ~ N(0, tau eta), s = c / tau, the "
     "trajectory reset of the replica-exchange Nose-Hoover paper); 0: "
     "never"},
};

/* A reset that zeroes a velocity narrows the samples as state_on_swap:
 * reset does (warn.c); with no state in use it does nothing. */
static int rounds_warn(const rx__rowrun *run, const rx__rowvals *own,
                       const char **key, char *msg, size_t cap)
{
    const rx_config *c = run->cfg;
    if (!(own->k[1].v[0] > 0.0))
        return 0;
    int mom = 0, state = 0;
    for (int r = 0; r < rx__step_count(); ++r) {
        if (!rx__row_in_use(c, &rx__step_table, r))
            continue;
        mom |= (rx__step_types[r]->row.props & RX__STEP_MOMENTUM) != 0;
        state |= rx__step_types[r]->state_len != NULL;
    }
    *key = "step.reset_every";
    if (mom)
        snprintf(msg, cap,
                 "BIASED: a fresh state zeroes the momentum of every "
                 "particle every %.0f iterations, which narrows SGHMC's "
                 "samples (as state_on_swap: reset does); use sgnht, whose "
                 "fresh state draws v at the temperature",
                 own->k[1].v[0]);
    else if (!state)
        snprintf(msg, cap,
                 "the step rules in use (step.target, step.others) keep no "
                 "state: the reset every %.0f iterations does nothing",
                 own->k[1].v[0]);
    return mom || !state;
}

static const rx__rowdecl ROUNDS_ROW = {
    "rounds", "trajectory rounds: swaps every L iterations, fresh states",
    ROUNDS_KEYS, (int)(sizeof ROUNDS_KEYS / sizeof ROUNDS_KEYS[0]), NULL, 0,
    NULL, rounds_warn};

/* Label noise: what the network target reads (through rx_config_get_real,
 * being below the configuration); an epoch is one pass of a particle's
 * minibatch stream (src/data/batch.c). */
static const rx__keydef LABELS_KEYS[] = {
    {"data.label_noise", K_REAL, 0, "0", 0, 1, 0, 0, NULL,
     "classification: x in [0, 1]; at the start of every epoch (one pass "
     "of a particle's minibatches, floor(N / batch_size) of its "
     "iterations) floor(x N) training rows are chosen at random and their "
     "clean labels permuted among them (the replica-exchange Nose-Hoover "
     "paper, Sec. 4.2); the gradient and the swap energies see them, test "
     "scores and full-data energies the clean labels. 0: off"},
};

static rx_status labels_check(const rx__rowrun *run, const rx__rowvals *own,
                              const char **key, rx_err *err)
{
    const rx_config *c = run->cfg;
    const double x = own->k[0].v[0];
    *key = "data.label_noise";
    if (!(x >= 0.0 && x <= 1.0))
        return rx__fail(err, RX_ECONFIG, "must be in [0, 1], got %g", x);
    if (x == 0.0)
        return RX_OK;
    if (c->target.kind != RX_TARGET_NETWORK)
        return rx__fail(err, RX_ECONFIG,
                        "label noise permutes the labels of a "
                        "classification data set; target.kind %s has no "
                        "labels (use target.kind: network)",
                        rx__target_names[c->target.kind]);
    const rx_data_format fm = c->data.format;
    if (!(c->data.task == RX_TASK_CLASSIFICATION || fm == RX_DATA_IDX ||
          fm == RX_DATA_MNIST_JSON))
        return rx__fail(err, RX_ECONFIG,
                        "label noise needs classification data "
                        "(data.task: classification); a regression target "
                        "has no labels to permute");
    if (c->variance_reduction.enabled)
        return rx__fail(err, RX_ECONFIG,
                        "not with variance_reduction: the control "
                        "variate's anchor sums the losses of the clean "
                        "labels, while the minibatch sees the noisy ones");
    return RX_OK;
}

static const rx__rowdecl LABELS_ROW = {
    "labels", "label noise on a classification data set", LABELS_KEYS,
    (int)(sizeof LABELS_KEYS / sizeof LABELS_KEYS[0]), NULL, 0,
    labels_check, NULL};

enum { ROW_MPI, ROW_HIT, ROW_ROUNDS, ROW_BOX, ROW_LABELS, N_ROWS };

static int run_count(void) { return N_ROWS; }

static const rx__rowdecl *run_at(int i)
{
    return i == ROW_MPI      ? &MPI_ROW
           : i == ROW_HIT    ? &HIT_ROW
           : i == ROW_ROUNDS ? &ROUNDS_ROW
           : i == ROW_BOX    ? &BOX_ROW
           : i == ROW_LABELS ? &LABELS_ROW
                             : NULL;
}

void rx__run_rounds(const rx_config *c, int64_t *every, int64_t *reset)
{
    rx__rowvals own;
    rx__slot tmp[RX__ROW_MAX_KEYS];
    rx__row_values(c, &rx__run_table, ROW_ROUNDS, &own, tmp);
    *every = (int64_t)own.k[0].v[0];
    *reset = (int64_t)own.k[1].v[0];
}

void rx__run_hit(const rx_config *c, double *rho, double *u_min)
{
    rx__rowvals own;
    rx__slot tmp[RX__ROW_MAX_KEYS];
    rx__row_values(c, &rx__run_table, ROW_HIT, &own, tmp);
    *rho = own.k[0].v[0];
    *u_min = own.k[1].v[0];
}

int rx__run_hit_stop(const rx_config *c)
{
    rx__rowvals own;
    rx__slot tmp[RX__ROW_MAX_KEYS];
    rx__row_values(c, &rx__run_table, ROW_HIT, &own, tmp);
    return own.k[0].v[0] >= 0.0 && own.k[2].v[0] != 0.0;
}

int rx__run_box(const rx_config *c)
{
    rx__rowvals own;
    rx__slot tmp[RX__ROW_MAX_KEYS];
    rx__row_values(c, &rx__run_table, ROW_BOX, &own, tmp);
    return own.k[0].v[0] != 0.0;
}

int rx__run_ranks(const rx_config *c)
{
    rx__rowvals own;
    rx__slot tmp[RX__ROW_MAX_KEYS];
    rx__row_values(c, &rx__run_table, ROW_MPI, &own, tmp);
    return (int)own.k[0].v[0];
}

const rx__table rx__run_table = {"run", {NULL, NULL, NULL}, run_count,
                                 run_at};
