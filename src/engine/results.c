/*
 * What a finished run hands out: the public results (a borrowed view),
 * the summary's view for the run directory (state.h), and the accuracy
 * diagnostics of the samples (computed in src/record/diag.c from what
 * the engine hands it).
 */
#define _GNU_SOURCE
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "../record/diag.h"
#include "../record/logz.h"
#include "state.h"
#include "ranks.h"
#include "wing.h"

/* A NULL argument of a call on context c: RX_EINVAL, with the message in
 * the context's error slot (the only thing written). */
static rx_status null_arg(const rx_ctx *c, const char *fn, const char *arg)
{
    if (!c)
        return RX_EINVAL;
    return rx__fail(&((rx_ctx *)c)->err, RX_EINVAL, "%s: %s is NULL", fn,
                    arg);
}

rx_status rx_get_results(const rx_ctx *c, rx_results *r)
{
    if (!c || !r)
        return null_arg(c, "rx_get_results", "out");
    memset(r, 0, sizeof *r);
    r->n_chains = c->P;
    r->window = c->xc.W;
    r->threads = c->nt_used;
    r->iterations = c->iters_done;
    r->trips_a5 = c->rec.trips_a5;
    r->trips_l1 = c->rec.trips_l1;
    r->restarts = c->rec.restarts;
    r->total_swaps = c->rec.total_swaps;
    r->pairs = c->rec.pairs;
    r->correction = c->C_final;
    r->sigma2 = c->s2_final;
    r->eta = c->eta;
    r->tau = c->tau;
    r->n_samples = c->ran ? c->n_samples : 0;
    r->dim = c->dim;
    r->samples = c->samples;
    r->log_weights = c->ran ? c->logw : NULL;
    r->log_z = c->logz;
    r->n_index = c->rec.n_index;
    r->index = c->rec.index;
    r->index_iter = c->rec.index_iter;
    r->wall_s = c->wall_s;
    for (int j = 0; j < RX_NPHASES; ++j)
        r->phase_s[j] = c->phase_s[j];
    r->thread_phase_s = c->thread_phase_s;
    r->balance_changes = c->lb_changes;
    r->noise_helped = c->noise_helped;
    r->wait_share = c->wait_share;
    r->steal_share = c->steal_share;
    r->start_s = c->start_s;
    r->partner = c->partner;
    if (c->ran) {
        r->bma = c->ev.bma;
        r->ensemble = c->ev.ens;
    }
    r->eval_s = c->eval_s;
    return RX_OK;
}

void rx__run_view(const rx_ctx *c, rx__runview *v)
{
    memset(v, 0, sizeof *v);
    rx_get_results(c, &v->res);
    v->cfg = &c->cfg;
    v->rec = &c->rec;
    v->target = c->target;
    v->evaluated = c->ev.on;
    v->slen = c->parts && c->parts[0] && c->parts[0]->state ? c->slen : 0;
    v->final_cut = c->final_cut;
    v->ranks = c->mp ? rx__ranks_size(c) : 1;
    v->ranks_sync_s = rx__ranks_sync_s(c);
    v->energy = c->ran && c->samples ? c->senergy : NULL;
    v->pred_mean = c->ran && c->ev.on && c->ev.bma.valid ? c->ev.mean[0]
                                                         : NULL;
    v->rounds = c->rounds;
    v->round_lambda = c->round_lambda;
    v->mem_data = c->mem_data;
    v->mem_scratch = c->mem_scratch;
    v->vr_on = c->vc.on && c->parts;
    if (!v->vr_on)
        return;
    v->vr_adaptive = c->vc.adaptive;
    v->vr_period = c->vc.m;
    v->vr_anchor_rows =
        c->vc.anchor_batch > 0 ? c->vc.anchor_batch : c->target->cv.N;
    v->vr_c0 = c->vc.c0;
    v->vr_batch = (double)c->target->cv.bs;
    /* cost accounting: forward evaluations beyond the gradient pass, in
     * minibatch units and measured seconds (resgld_vr.md 3.3) */
    rx__vrcost *tot = &v->vr_cost;
    double cm = 0.0;
    for (int i = 0; i < c->P; ++i) {
        const rx__particle *pp = c->parts[i];
        cm += pp ? pp->vr_c : 0.0;
        if (!pp)
            continue;
        tot->fwd_rows += pp->vr_cost.fwd_rows;
        tot->anchor_rows += pp->vr_cost.anchor_rows;
        tot->anchor_passes += pp->vr_cost.anchor_passes;
        tot->period_ends += pp->vr_cost.period_ends;
        tot->var_vr_sum += pp->vr_cost.var_vr_sum;
        tot->var_std_sum += pp->vr_cost.var_std_sum;
        tot->seconds += pp->vr_cost.seconds;
        v->vr_grad_s += pp->grad_s;
    }
    v->vr_c_mean = cm / c->P;
}

int rx__particle_faults(const rx_ctx *c, int i, int32_t *rollbacks,
                        int64_t *last_k, double *step_scale)
{
    const rx__particle *p = c->parts && i >= 0 && i < c->P ? c->parts[i]
                                                           : NULL;
    if (!p)
        return 0;
    *rollbacks = p->rollbacks;
    *last_k = p->last_rollback_k;
    *step_scale = p->step_scale;
    return 1;
}

/* The diagnostics' inputs: the target position's samples of a run. */
static rx__diag_in diag_in(const rx_ctx *c)
{
    rx__diag_in in = {c->target, &c->cfg, c->samples,
                      c->ran ? c->n_samples : 0, c->dim};
    return in;
}

rx_status rx_density_grid(const rx_ctx *c, double *ptrue, double *pemp)
{
    if (!c || !ptrue || !pemp)
        return null_arg(c, "rx_density_grid", !ptrue ? "ptrue" : "pemp");
    const rx__diag_in in = diag_in(c);
    return rx__density_grid(&in, ptrue, pemp);
}

rx_status rx_density_tv(const rx_ctx *c, double *tv)
{
    if (!c || !tv)
        return null_arg(c, "rx_density_tv", "tv");
    const rx__diag_in in = diag_in(c);
    return rx__density_tv(&in, tv);
}

rx_status rx_mode_weights(const rx_ctx *c, double *est, int n)
{
    if (!c || !est)
        return null_arg(c, "rx_mode_weights", "est");
    const rx__diag_in in = diag_in(c);
    return rx__mode_weights(&in, est, n);
}

/* Why the estimate of a completed run is not valid (NULL: it is). */
static const char *logz_invalid(rx_ctx *c, rx_status st)
{
    rx_log_z *z = &c->logz;
    char *m = c->logz_reason;
    const size_t cap = sizeof c->logz_reason;
    if (st == RX_ENUMERIC)
        return "a kept row's U_like is not finite";
    if (st != RX_OK)
        return "out of memory for the estimate";
    if (z->n < RX_LOG_Z_MIN_ROWS) {
        snprintf(m, cap,
                 "%lld kept rows per position; the standard error needs at "
                 "least %d (%d batches of %d rows): raise iterations, or "
                 "lower record.burn_in or record.thin",
                 (long long)z->n, RX_LOG_Z_MIN_ROWS,
                 (int)sqrt((double)RX_LOG_Z_MIN_ROWS),
                 (int)sqrt((double)RX_LOG_Z_MIN_ROWS));
        return m;
    }
    int finite = isfinite(z->se);
    for (int p = 0; p < z->n_terms; ++p)
        finite = finite && isfinite(z->term_se[p]);
    return finite ? NULL : "the standard error is not finite";
}

/* Whether the beta = 0 position sampled its reference: the mean of its
 * rows' U_0 against what pi_0 gives, within RX__LOGZ_REF_Z Monte-Carlo
 * standard errors, from an ESS of at least RX__LOGZ_REF_ESS (NULL: it
 * did, or the reference's law is not known). A chain that cannot sample
 * pi_0 biases the last terms of the estimate, often without a sign in
 * their standard errors. */
static const char *logz_reference(rx_ctx *c)
{
    double want, want_sd;
    if (!rx__target_ref_law(c->target, &want, &want_sd))
        return NULL;
    const double *u0 = c->logz_u + (size_t)c->logz_rows * (size_t)c->P;
    rx__logz_ref r;
    rx_status st = rx__logz_ref_check(u0, c->logz_rows, want, want_sd, &r);
    if (st == RX_ENOMEM)
        return "out of memory for the check of the reference";
    if (st != RX_OK)
        return "a kept row's reference energy U_0 at beta = 0 is not finite";
    if (fabs(r.z) <= RX__LOGZ_REF_Z && r.ess >= RX__LOGZ_REF_ESS)
        return NULL;
    if (fabs(r.z) <= RX__LOGZ_REF_Z) {
        snprintf(c->logz_reason, sizeof c->logz_reason,
                 "the beta = 0 chain does not show that it samples its "
                 "reference: its U_0 has an ESS of %.3g in %lld kept rows "
                 "(at least %.0f needed; the mean of U_0 %.4g, the "
                 "reference's %.4g): it moves too slowly across the "
                 "reference (raise iterations or the step size at beta = "
                 "0, ladder.eta, or narrow the reference)",
                 r.ess, (long long)c->logz_rows, RX__LOGZ_REF_ESS, r.mean,
                 want);
        return c->logz_reason;
    }
    snprintf(c->logz_reason, sizeof c->logz_reason,
             "the beta = 0 chain does not sample its reference: the mean of "
             "its U_0 is %.4g where the reference gives %.4g (%.3g Monte-"
             "Carlo standard errors, ESS %.0f; the sd of U_0 %.3g, the "
             "reference's %.3g): %s",
             r.mean, want, fabs(r.z), r.ess, r.sd, want_sd,
             r.mean < want
                 ? "its draws stay narrower than the reference: too few "
                   "iterations for its step size to cross the reference's "
                   "width (raise iterations or the step size at beta = 0, "
                   "ladder.eta, or narrow the reference)"
                 : "its draws are wider than the reference or off its "
                   "centre: a step size too large at beta = 0 (ladder.eta) "
                   "or a chain still coming in (raise record.burn_in)");
    return c->logz_reason;
}

void rx__logz_finish(rx_ctx *c)
{
    rx_log_z *z = &c->logz;
    memset(z, 0, sizeof *z);
    if (!c->path)
        return;
    z->estimate = z->se = NAN;
    z->n_terms = c->P - 1;
    z->beta = c->pbeta;
    z->terms = c->logz_terms;
    z->term_se = c->logz_terms + (c->P - 1);
    for (int p = 0; p < 2 * (c->P - 1); ++p)
        c->logz_terms[p] = NAN;
    if (c->iters_done != c->cfg.iterations) {
        z->reason = "the run stopped before its last iteration";
        return;
    }
    if (!c->logz_u) {
        z->reason = "no kept rows (record.burn_in >= iterations)";
        return;
    }
    z->n = c->logz_rows;
    rx_status st = rx__logz_estimate(
        c->logz_u, c->logz_rows, c->P, c->pbeta, c->logz_terms,
        c->logz_terms + (c->P - 1), &z->estimate, &z->se, &z->batches);
    z->reason = logz_invalid(c, st);
    if (!z->reason)
        z->reason = logz_reference(c);
    if (!z->reason)
        z->reason = rx__logz_overlap_check(c->logz_u, c->logz_rows, c->P,
                                           c->pbeta, c->logz_reason,
                                           sizeof c->logz_reason);
    z->valid = z->reason == NULL;
}
