/*
 * The engine's entry points: create a context from a configuration (in
 * named phases: the exchange's settings, variance reduction, the step and
 * ladder settings, the run's buffers, the predictive evaluation), destroy
 * it, its error message, the setters, and the testing toggles.
 */
#define _GNU_SOURCE
#include <omp.h>
#include <stdlib.h>
#include <string.h>

#include "../ladder/ladder.h"
#include "wing.h"

/* The rows of the tables in use: the values of their own keys (read from
 * the context's copy of the config, whose key store lives as long as the
 * context), and each row's check against the run now that the dimension
 * is known. */
static rx_status create_rows(rx_ctx *c, rx_err *err)
{
    if (rx__store_ensure(&c->cfg) != RX_OK)
        return rx__fail(err, RX_ENOMEM, "rx_create: out of memory");
    rx__slot tmp[RX__ROW_MAX_KEYS];
    for (int r = 0; r < rx__step_count(); ++r)
        rx__row_values(&c->cfg, &rx__step_table, r, &c->sc.own[r], tmp);
    rx__row_values(&c->cfg, &rx__xtest_table, (int)c->cfg.tempering.rule,
                   &c->xc.own, tmp);
    rx_status st = rx__rows_check(&c->cfg, c->dim, NULL, err);
    return st == RX_OK ? RX_OK : RX_EINVAL;
}

/* The exchange's settings (window, rule, sigma^2, fresh pair noise). */
static void create_exchange(rx_ctx *c, const rx_config *cfg)
{
    c->xc.P = c->P;
    c->xc.W = rx_config_window(cfg);
    c->xc.parity_phase = cfg->tempering.parity_phase;
    c->xc.scheme = cfg->tempering.scheme;
    c->xc.rule = cfg->tempering.rule;
    c->xc.accept_prob = cfg->tempering.accept_prob;
    c->xc.sequential = cfg->tempering.sequential_stats;
    const unsigned xp = rx__xtest_row(cfg->tempering.rule)->row.props;
    if (c->xc.W > 1 && (xp & RX__XT_WCORR))
        c->xc.wcorr = cfg->tempering.window_correction == RX_WCORR_LOGW
                          ? log((double)c->xc.W)
                          : cfg->tempering.window_correction;
    c->xc.inv_F = 1.0 / cfg->tempering.sigma2_factor;
    c->s2_estimate = cfg->tempering.sigma2 == RX_SIGMA2_ESTIMATE &&
                     (xp & RX__XT_SIGMA2);
    if (cfg->energy.fresh_per_pair && cfg->target.energy_noise_sd > 0.0) {
        /* the chains keep exact energies; the rule adds the noise */
        c->xc.fresh_sd = cfg->target.energy_noise_sd;
        c->xc.normal = (int)cfg->rng.normal;
        c->target->energy_noise_sd = 0.0;
    }
    /* a rule that decides from paired estimates, on minibatch energies */
    const rx__xtest_type *xt = rx__xtest_row(cfg->tempering.rule);
    const rx__target *tg = c->target;
    c->xc.paired = (xp & RX__XT_PAIRED) && xt->paired && tg->cv.losses &&
                   tg->cv.bs < tg->cv.N && c->P > 1;
}

/* The rule's per-run state, where its row declares one: allocated and
 * filled once here, read by every thread's decisions through xc.rstate. */
static rx_status create_xtest_state(rx_ctx *c, rx_err *err)
{
    const int r = (int)c->cfg.tempering.rule;
    const rx__xtest_type *t = rx__xtest_row((rx_rule)r);
    rx_status st = RX_OK;
    if (t->size && t->init) {
        const size_t n = t->size(&c->xc.own);
        c->xt_state = rx__calloc_aligned(n > 0 ? n : 1, RX_CACHELINE);
        if (!c->xt_state)
            return rx__fail(err, RX_ENOMEM, "rx_create: out of memory for "
                            "the %s rule's state", t->row.name);
        rx__rowrun run;
        rx__row_run(&c->cfg, &rx__xtest_table, r, c->dim, &run);
        st = t->init(c->xt_state, &run, &c->xc.own, err);
        c->xc.rstate = c->xt_state;
    }
    if (st == RX_OK && c->xc.paired) {
        t->paired(&c->xc.own, c->xt_state, &c->pdc.inc, &c->pdc.cap,
                  &c->pdc.s2star);
        c->pdc.seed = c->cfg.seed;
    }
    return st;
}

/* variance_reduction: its settings, and a target that supports it. */
static rx_status create_vr(rx_ctx *c, const rx_config *cfg, rx_err *err)
{
    if (!cfg->variance_reduction.enabled)
        return RX_OK;
    const double cf = cfg->variance_reduction.coefficient;
    c->vc.on = 1;
    c->vc.m = cfg->variance_reduction.period;
    c->vc.adaptive = cf == RX_VR_ADAPTIVE;
    c->vc.c0 = c->vc.adaptive ? -1.0 : cf;
    c->vc.gamma = cfg->variance_reduction.gamma;
    c->vc.anchor_batch = cfg->variance_reduction.anchor_batch;
    c->vc.J = cfg->variance_reduction.samples > 0
                  ? cfg->variance_reduction.samples
                  : cfg->variance.samples;
    if (!c->target->cv.losses)
        return rx__fail(err, RX_ECONFIG,
                        "variance_reduction: the target has no "
                        "per-example losses");
    if (c->vc.anchor_batch > c->target->cv.N)
        return rx__fail(err, RX_ECONFIG,
                        "variance_reduction.anchor_batch: %lld rows, but "
                        "the training set has %lld (0 = the full data)",
                        (long long)c->vc.anchor_batch,
                        (long long)c->target->cv.N);
    return RX_OK;
}

/* The step rules' and the ladder's settings, and the team's size. */
static void create_step_ladder(rx_ctx *c, const rx_config *cfg)
{
    c->sc.momentum = cfg->step.momentum;
    c->sc.rms_alpha = cfg->step.rms_alpha;
    c->sc.rms_eps = cfg->step.rms_eps;
    c->sc.sghmc_vhat = cfg->step.sghmc_vhat;
    c->sc.sgnht_c = cfg->step.sgnht_c;
    c->sc.sgnht_mu = cfg->step.sgnht_mu;
    /* trajectory rounds (runkeys.c): swaps every L, fresh states every N */
    rx__run_rounds(cfg, &c->xc.every, &c->sc.reset_every);
    /* the per-particle state: the longest of the rules in use */
    const size_t l0 = rx__step_state_len(cfg->step.target, c->dim);
    const size_t l1 = rx__step_state_len(cfg->step.others, c->dim);
    c->slen = l0 > l1 ? l0 : l1;
    c->ac.P = c->P;
    c->ac.adapt = cfg->tempering.scheme == RX_SCHEME_NONE ? RX_ADAPT_NONE
                                                        : cfg->ladder.adapt;
    c->ac.project = cfg->ladder.monotone_projection;
    /* no swaps, nothing to adapt: scheme none keeps C and the ladders */
    c->ac.adapt_c = (rx__xtest_row(cfg->tempering.rule)->row.props &
                     RX__XT_BUFFER_C) &&
                    cfg->correction.adapt &&
                    cfg->tempering.scheme != RX_SCHEME_NONE;
    c->ac.S = cfg->tempering.target_swap_rate;
    c->ac.c_scale = cfg->correction.step_scale;
    c->ac.a = cfg->stepsize.a;
    c->ac.b = cfg->stepsize.b;
    c->ac.alpha = cfg->stepsize.alpha;
    c->ac.cap = cfg->stepsize.cap;
    c->ac.round0 = cfg->ladder.barrier_round;
    c->C_final = cfg->correction.init;
    c->xc.seed = cfg->seed;
    c->nt_req = cfg->threads > 0 ? cfg->threads : omp_get_max_threads();
    if (c->nt_req > c->P)
        c->nt_req = c->P;
    if (c->nt_req < 1)
        c->nt_req = 1;
}

/* The run's buffers: ladders, particles, energies, thread slots, final
 * state, and the samples (refused over RX_RECORD_LIMIT_BYTES). */
static rx_status create_buffers(rx_ctx *c, const rx_config *cfg,
                                rx_err *err)
{
    const size_t P = (size_t)c->P;
    const int64_t K = cfg->iterations;
    /* the config checks the index and the samples of analytic targets;
     * a callback target's dimension is known only here */
    int64_t ns = K > cfg->record.burn_in
                     ? (K - 1 - cfg->record.burn_in) / cfg->record.thin + 1
                     : 0;
    /* all_positions: P rows per kept iteration, position-minor */
    const int64_t per = cfg->record.all_positions ? (int64_t)P : 1;
    double smp_bytes = (double)ns * (double)per * (double)c->dim * 4.0;
    if (smp_bytes > RX_RECORD_LIMIT_BYTES)
        return rx__fail(err, RX_ECONFIG,
                        "record.thin: the samples would take %.1f GiB in "
                        "memory; raise thin",
                        smp_bytes / 1073741824.0);
    c->n_samples = ns * per;
    c->eta = malloc(P * sizeof(double));
    c->tau = malloc(P * sizeof(double));
    c->parts = calloc(P, sizeof *c->parts);
    c->E[0] = rx__calloc_aligned(P * sizeof(double), RX_CACHELINE);
    c->E[1] = rx__calloc_aligned(P * sizeof(double), RX_CACHELINE);
    c->ts = rx__calloc_aligned((size_t)c->nt_req * sizeof(rx__tstate),
                               RX_CACHELINE);
    c->final_at = malloc(P * sizeof(int32_t));
    c->s2_final = malloc(P * sizeof(double));
    if (!c->eta || !c->tau || !c->parts || !c->E[0] || !c->E[1] || !c->ts ||
        !c->final_at || !c->s2_final)
        return rx__fail(err, RX_ENOMEM, "rx_create: out of memory");
    if (ns > 0 && c->dim > 0) {
        /* zeroed: on ranks a row is written by one rank and merged by a
         * bitwise OR (ranks.c) */
        c->samples = calloc((size_t)(ns * per) * c->dim, sizeof(float));
        c->senergy = calloc((size_t)(ns * per), sizeof(double));
        if (!c->samples || !c->senergy)
            return rx__fail(err, RX_ENOMEM,
                            "rx_create: out of memory for %lld samples",
                            (long long)ns);
    }
    return RX_OK;
}

/* ladder.path reference: the betas by position (explicit, or (1 - q /
 * (P-1))^a), temperature 1 everywhere, and the log Z record (the exact
 * U_like of every kept row at every position). */
static rx_status create_path(rx_ctx *c, const rx_config *cfg, rx_err *err)
{
    if (cfg->ladder.path != RX_PATH_REFERENCE)
        return RX_OK;
    const int P = c->P;
    c->path = 1;
    c->pbeta = malloc(sizeof(double) * (size_t)P);
    c->logz_terms = malloc(sizeof(double) * 2 * (size_t)P);
    if (!c->pbeta || !c->logz_terms)
        return rx__fail(err, RX_ENOMEM, "rx_create: out of memory");
    for (int q = 0; q < P; ++q)
        c->pbeta[q] = cfg->ladder.betas.n == P
                          ? cfg->ladder.betas.v[q]
                          : pow(1.0 - (double)q / (double)(P - 1),
                                cfg->ladder.beta_exponent);
    c->pbeta[0] = 1.0;
    c->pbeta[P - 1] = 0.0;
    for (int q = 0; q < P; ++q)
        c->tau[q] = 1.0;
    const int64_t per = cfg->record.all_positions ? (int64_t)P : 1;
    c->logz_rows = c->n_samples / per;
    const double bytes = (double)c->logz_rows * (double)(P + 1) * 8.0;
    if (bytes > RX_RECORD_LIMIT_BYTES)
        return rx__fail(err, RX_ECONFIG,
                        "record.thin: the log Z record would take %.1f GiB "
                        "in memory; raise thin",
                        bytes / 1073741824.0);
    if (c->logz_rows > 0) {
        /* zeroed: on ranks rows are merged by OR (see samples) */
        c->logz_u = calloc((size_t)c->logz_rows * (size_t)(P + 1),
                           sizeof(double));
        if (!c->logz_u)
            return rx__fail(err, RX_ENOMEM,
                            "rx_create: out of memory for the log Z record");
    }
    return RX_OK;
}

/* The energy-histogram bias (bias.*): its states (one per position for
 * CSGLD, one for all chains for a shared row) and the samples'
 * log-weights. A row that declares a global update every iteration runs
 * on the barrier design, whose step 3 serves it (partner_applies). */
static rx_status create_bias(rx_ctx *c, const rx_config *cfg, rx_err *err)
{
    rx__bias_params par;
    rx__bias_params_from(&par, cfg);
    rx__slot tmp[RX__ROW_MAX_KEYS];
    rx__row_values(&c->cfg, &rx__bias_table, (int)c->cfg.bias.kind,
                   &par.own, tmp);
    const char *key = "bias";
    rx_err e;
    if (rx__bias_check(&par, &key, &e) != RX_OK)
        return rx__fail(err, RX_ECONFIG, "%s: %s", key, e.msg);
    rx_status st = rx__bias_create(&c->bias, &par, c->P, err);
    if (st != RX_OK || !c->bias.type)
        return st;
    if (c->bias.type->swap_shift && c->P > 1) {
        /* its term in every exchange test's exponent */
        c->xc.shift = rx__bias_xshift;
        c->xc.shift_ctx = c;
    }
    if (c->n_samples > 0) {
        c->logw = calloc((size_t)c->n_samples, sizeof(double));
        if (!c->logw)
            return rx__fail(err, RX_ENOMEM,
                            "rx_create: out of memory for the weights");
    }
    return RX_OK;
}

/* The posterior-predictive evaluation of a network target. */
static rx_status create_eval(rx_ctx *c, const rx_config *cfg, rx_err *err)
{
    if (!rx__target_is_network(c->target))
        return RX_OK;
    rx__evalst *ev = &c->ev;
    ev->on = 1;
    ev->rows = rx__network_rows(c->target, 0);
    ev->ood_rows = rx__network_rows(c->target, 1);
    ev->n_out = rx__network_nout(c->target);
    const size_t R = (size_t)ev->rows, O = (size_t)ev->ood_rows;
    const size_t no = (size_t)ev->n_out;
    int bad = 0;
    for (int m = 0; m < 2; ++m) {
        ev->mean[m] = malloc(sizeof(double) * R * no);
        ev->lmax[m] = malloc(sizeof(double) * R);
        ev->lsum[m] = malloc(sizeof(double) * R);
        ev->ood_mean[m] = malloc(sizeof(double) * (O ? O : 1) * no);
        bad |= !ev->mean[m] || !ev->lmax[m] || !ev->lsum[m] ||
               !ev->ood_mean[m];
    }
    ev->y = malloc(sizeof(double) * (R ? R : 1));
    bad |= !ev->y;
    if (cfg->evaluate.final_ensemble) {
        ev->ens_models = malloc((size_t)c->P * c->dim * sizeof(float));
        bad |= !ev->ens_models;
    }
    if (bad)
        return rx__fail(err, RX_ENOMEM,
                        "rx_create: out of memory for the evaluation");
    ev->classify = rx__network_test_y(c->target, ev->y);
    return RX_OK;
}

rx_status rx_create(rx_ctx **out, const rx_config *cfg,
                    const rx_callback_target *cb, rx_logger logger,
                    rx_err *err)
{
    if (out)
        *out = NULL;
    if (!out || !cfg)
        return rx__fail(err, RX_EINVAL, "rx_create: %s is NULL",
                        !out ? "out" : "cfg");
    rx_status st = rx_config_validate(cfg, err);
    if (st != RX_OK)
        return st;
    rx_ctx *c = calloc(1, sizeof *c);
    if (!c)
        return rx__fail(err, RX_ENOMEM, "rx_create: out of memory");
    c->log = logger;
    c->steal_share = -1.0; /* until a run measures it */
    c->start_s = -1.0;
    st = rx_config_copy(&c->cfg, cfg);
    if (st != RX_OK) {
        rx__fail(err, st, "rx_create: out of memory copying the config");
        goto fail;
    }
    st = rx__target_create(&c->target, cfg, cb, err);
    if (st != RX_OK)
        goto fail;
    c->P = cfg->tempering.n_chains;
    c->dim = c->target->dim;
    st = create_rows(c, err);
    if (st != RX_OK)
        goto fail;
    create_exchange(c, cfg);
    st = create_xtest_state(c, err);
    if (st != RX_OK)
        goto fail;
    st = create_vr(c, cfg, err);
    if (st != RX_OK)
        goto fail;
    create_step_ladder(c, cfg);
    st = create_buffers(c, cfg, err);
    if (st == RX_OK)
        st = create_bias(c, cfg, err);
    if (st == RX_OK)
        st = create_eval(c, cfg, err);
    if (st != RX_OK)
        goto fail;
    rx__ladder_fill(&cfg->ladder.eta, c->P, c->eta);
    rx__ladder_fill(&cfg->ladder.tau, c->P, c->tau);
    st = create_path(c, cfg, err);
    if (st != RX_OK)
        goto fail;
    st = rx__rec_init(&c->rec, c->P, cfg->iterations, cfg->record.index_every,
                      cfg->record.trace_every);
    /* per-pair sigma^2 columns when the rule's sigma^2 moves */
    if (st == RX_OK && (c->s2_estimate || c->vc.on))
        st = rx__rec_trace_sigma2(&c->rec);
    if (st == RX_OK) {
        double rho, u_min;
        rx__run_hit(cfg, &rho, &u_min);
        st = rx__rec_hit_init(&c->rec, rho, u_min, rx__run_hit_stop(cfg));
        c->box = rx__run_box(cfg);
    }
    if (st == RX_OK && c->xc.paired)
        st = rx__rec_xbatch_init(&c->rec);
    if (st != RX_OK) {
        rx__fail(err, st, "rx_create: out of memory for the recorders");
        goto fail;
    }
    *out = c;
    return RX_OK;
fail:
    rx_destroy(&c);
    return st;
}

void rx_destroy(rx_ctx **cp)
{
    if (!cp || !*cp)
        return;
    rx_ctx *c = *cp;
    rx__ranks_free(c);
    if (c->parts)
        for (int i = 0; i < c->P; ++i)
            rx__free_aligned(c->parts[i]);
    if (c->ts)
        for (int t = 0; t < c->nt_req; ++t) {
            rx__free_aligned(c->ts[t].x.at);
        }
    rx__free_aligned(c->ts);
    free(c->thread_phase_s);
    free(c->final_cut);
    free(c->wait_share);
    free(c->parts);
    rx__free_aligned(c->E[0]);
    rx__free_aligned(c->E[1]);
    free(c->eta);
    free(c->tau);
    free(c->samples);
    free(c->senergy);
    free(c->logw);
    free(c->pbeta);
    free(c->logz_u);
    free(c->logz_terms);
    free(c->res_bias);
    rx__bias_destroy(&c->bias);
    rx__free_aligned(c->xt_state);
    for (int m = 0; m < 2; ++m) {
        free(c->ev.mean[m]);
        free(c->ev.lmax[m]);
        free(c->ev.lsum[m]);
        free(c->ev.ood_mean[m]);
    }
    free(c->ev.y);
    free(c->ev.ens_models);
    rx__xstate_free_resumed(&c->res_x);
    free(c->res_parts);
    free(c->ckpt_path);
    free(c->final_at);
    free(c->s2_final);
    rx__rec_free(&c->rec);
    rx__target_destroy(&c->target);
    rx_config_free(&c->cfg);
    free(c);
    *cp = NULL;
}

const char *rx_errmsg(const rx_ctx *c) { return c ? c->err.msg : ""; }

rx_status rx_set_stop_flag(rx_ctx *c, volatile sig_atomic_t *flag)
{
    if (!c)
        return RX_EINVAL;
    c->stop_flag = flag;
    return RX_OK;
}

rx_status rx_set_progress(rx_ctx *c, rx_progress_fn fn, void *user,
                          int64_t every)
{
    if (!c)
        return RX_EINVAL;
    if (fn && every < 0)
        return rx__fail(&c->err, RX_EINVAL,
                        "rx_set_progress: every must be >= 1 (or 0: paced "
                        "by time), got %lld",
                        (long long)every);
    c->progress_fn = fn;
    c->progress_user = user;
    c->progress_every = every;
    return RX_OK;
}

void rx__engine_generic_only(rx_ctx *c, int on)
{
    if (c)
        c->generic_only = on != 0;
}

void rx__engine_no_defer(rx_ctx *c, int on)
{
    if (c)
        c->no_defer = on != 0;
}

void rx__engine_no_prefetch(rx_ctx *c, int on)
{
    if (c)
        c->no_prefetch = on != 0;
}

void rx__engine_bank(rx_ctx *c, int mode)
{
    if (c)
        c->bank_mode = mode > 0 ? 1 : mode < 0 ? -1 : 0;
}
