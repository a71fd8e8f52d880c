/*
 * Reports: a thread's failures and the run's message about them (the same
 * whatever the thread count), the notes a finished run logs (waiting,
 * the DEO* window), progress callbacks and the time-paced periods behind
 * them, and the posterior-predictive evaluation of a network target.
 */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../core/num.h"
#include "../record/metrics.h"
#include "wing.h"

/* slot: k & 1 inside the loop (read after barrier k), 2 during set-up.
 * Parity slots keep a failure raised in step k+1 invisible to a thread that
 * has not yet read the flag of k, so all threads leave at the same k. */
void rx__chain_fail(rx_ctx *c, rx__tstate *ts, int slot, rx_status st,
                    int32_t i, int64_t k, double last)
{
    if (ts->st == RX_OK) {
        ts->st = st;
        ts->fail_particle = i;
        ts->fail_k = k;
        ts->fail_last_energy = last;
    }
#pragma omp atomic write
    c->fail_flag[slot] = 1;
}

/* A particle's failure: the thread keeps its earliest (iteration, then
 * particle), which the run reports over all threads; under the partner
 * design a run goes on to its next global synchronisation, so a thread can
 * see several (the same particle again, or one that came from a thread
 * that failed earlier). */
void rx__particle_fail(rx_ctx *c, rx__tstate *ts, int slot, rx_status st,
                       int32_t i, int q, int64_t k, double last,
                       int32_t coord)
{
    if (ts->st != RX_OK &&
        (ts->fail_particle < 0 || ts->fail_k < k ||
         (ts->fail_k == k && ts->fail_particle <= i)))
        return;
    ts->st = RX_OK; /* rx__chain_fail records only into a clean slot */
    rx__chain_fail(c, ts, slot, st, i, k, last);
    ts->fail_q = q;
    ts->fail_coord = coord;
}


/* Periods paced by time (the partner design's full barriers, progress
 * callbacks with every = 0), at the end of one after iteration k: the
 * largest power of two up to RX_PERIOD_MAX whose iterations, at the pace
 * since the last end, take at most RX_PERIOD_SECONDS (1 on a target slower
 * than that); p moves to (k, now). */
enum { RX_PERIOD_MAX = 4096 };
static const double RX_PERIOD_SECONDS = 0.005;

int64_t rx__pace_period(rx__pace *p, int64_t k)
{
    const double now = rx__now(), per = (now - p->t) / (double)(k - p->k);
    p->k = k;
    p->t = now;
    int64_t g = RX_PERIOD_MAX;
    while (g > 1 && (double)g * per > RX_PERIOD_SECONDS)
        g /= 2;
    return g;
}

/* Barrier design: is a progress call due after iteration k? every = 0:
 * about every RX_PERIOD_SECONDS of iterations (thread 0 alone reads and
 * moves progress_next). */
int rx__progress_due(rx_ctx *c, int64_t k)
{
    if (k + 1 == c->cfg.iterations)
        return 1;
    if (c->progress_every > 0)
        return (k + 1) % c->progress_every == 0;
    if (k + 1 < c->progress_next)
        return 0;
    c->progress_next = k + 1 + rx__pace_period(&c->progress_pace, k);
    return 1;
}

/* Thread 0 after recording iteration k; a refusal stops every thread after
 * the next barrier (the flag of parity k + 1). */
void rx__report_progress(rx_ctx *c, rx__tstate *ts, int64_t k, double t0)
{
    rx_progress pr;
    pr.iteration = k + 1;
    pr.iterations = c->cfg.iterations;
    pr.trips_a5 = c->rec.trips_a5;
    pr.swaps = c->rec.total_swaps + ts->x.nonadjacent_swaps;
    double acc = 0.0;
    int64_t ev = 0;
    for (int p = 0; p + 1 < c->P; ++p) {
        acc += c->rec.pairs[p].accept_sum;
        ev += c->rec.pairs[p].evaluated;
    }
    pr.mean_accept = ev > 0 ? acc / (double)ev : 0.0;
    pr.elapsed_s = rx__now() - t0;
    if (c->progress_fn(c->progress_user, &pr) != RX_OK)
        rx__chain_fail(c, ts, (int)((k + 1) & 1), RX_EABORTED, RX_FAIL_PROGRESS, k + 1,
                       NAN);
}

/* Row chunks of the test (set 0) and OOD (set 1) sets, chunk j scored by
 * thread j % nthr, for the kept samples (BMA) and the final ensemble. */
void rx__evaluate_chunks(rx_ctx *c, rx__tstate *ts, int t, int nthr)
{
    rx__evalst *ev = &c->ev;
    const int64_t cb = c->cfg.evaluate.batch;
    const int64_t n0 = (ev->rows + cb - 1) / cb;
    const int64_t n1 = (ev->ood_rows + cb - 1) / cb;
    const float *models[2] = {c->samples, ev->ens_models};
    const int64_t S[2] = {c->n_samples, ev->ens_models ? c->P : 0};
    for (int64_t j = t; j < n0 + n1; j += nthr)
        for (int m = 0; m < 2; ++m) {
            if (S[m] <= 0 || !models[m])
                continue;
            const int set = j < n0 ? 0 : 1;
            const int64_t r0 = (set == 0 ? j : j - n0) * cb;
            const int64_t rows = set == 0 ? ev->rows : ev->ood_rows;
            const int64_t r1 = r0 + cb < rows ? r0 + cb : rows;
            rx_status st = rx__network_predict(
                c->target, ts->tws, models[m], S[m], set, r0, r1,
                set == 0 ? ev->mean[m] : ev->ood_mean[m],
                set == 0 ? ev->lmax[m] : NULL, set == 0 ? ev->lsum[m] : NULL);
            if (st != RX_OK && ts->st == RX_OK) {
                ts->st = st;
                ts->fail_particle = RX_FAIL_EVAL;
            }
        }
}

void rx__evaluate_metrics(rx_ctx *c)
{
    rx__evalst *ev = &c->ev;
    const rx__predtruth tr = {ev->y, ev->rows, ev->ood_rows, ev->n_out,
                              ev->classify};
    for (int m = 0; m < 2; ++m) {
        rx_metrics *out = m == 0 ? &ev->bma : &ev->ens;
        const int64_t S = m == 0 ? c->n_samples : (ev->ens_models ? c->P : 0);
        memset(out, 0, sizeof *out);
        if (S <= 0 || (m == 0 && !c->samples))
            continue;
        rx__pred_metrics(&tr, S, ev->mean[m], ev->lmax[m], ev->lsum[m],
                         ev->ood_rows ? ev->ood_mean[m] : NULL,
                         c->cfg.evaluate.ece_bins, out);
    }
}

int rx__wait_note(char *buf, size_t cap, const double *share, int n, int P,
                  double steal, double span)
{
    if (n < 2 || !share || !buf || cap == 0)
        return 0;
    double sum = 0.0, most = share[0];
    int tm = 0;
    for (int t = 0; t < n; ++t) {
        sum += share[t];
        if (share[t] > most) {
            most = share[t];
            tm = t;
        }
    }
    const double mean = sum / n;
    if (!(mean >= RX_WAIT_NOTE_SHARE))
        return 0;
    int w = snprintf(buf, cap,
                     "the %d threads waited for each other %.0f %% of the "
                     "iterations' time on average (thread %d: %.0f %%; "
                     "summary.json timing.wait_share) ",
                     n, 100.0 * mean, tm, 100.0 * most);
    const size_t at = w < 0 ? 0 : (size_t)w < cap ? (size_t)w : cap - 1;
    /* one 10 ms tick of steal is 0.01 / span: below RX_STEAL_NOTE_SPAN
     * thread-seconds it alone could reach the threshold */
    if (steal >= RX_WAIT_NOTE_STEAL && span >= RX_STEAL_NOTE_SPAN)
        snprintf(buf + at, cap - at,
                 "while the host gave %.0f %% of their CPU time to others "
                 "(timing.steal_share: a virtual machine's CPUs are "
                 "shared): a thread that is not running holds the others "
                 "up, so the speed-up from threads is lower than on "
                 "dedicated cores (docs/performance.md, \"Steal\")",
                 100.0 * steal);
    else
        snprintf(buf + at, cap - at,
                 "with %.3g chains per thread: fewer threads, or more "
                 "chains or a costlier step per thread, use the cores "
                 "better (docs/performance.md, \"A cost model\")",
                 (double)P / n);
    return 1;
}

int rx__window_note(char *buf, size_t cap, int P, int W, double S,
                    int64_t cond, int64_t evaluated)
{
    if (!buf || cap == 0 || evaluated < RX_WINDOW_NOTE_EVALS)
        return 0;
    const double r = (double)cond / (double)evaluated;
    const int w = rx__window_off(P, W, r);
    if (w < 1)
        return 0;
    snprintf(buf, cap,
             "the window W = %d came from tempering.target_swap_rate %.3g, "
             "but the pairs met the swap condition in %.3g of their "
             "evaluations (swaps.condition_rate_mean), for which the "
             "optimal window W*(%d, %.3g) is %d: set target_swap_rate to "
             "that rate, or change the ladder until its pairs accept "
             "about %.3g (docs/yaml.md, tempering.target_swap_rate)",
             W, S, r, P, r, w, S);
    return 1;
}

/* The thread slot whose failure the run reports (deterministic): the
 * lowest slot with a failure that is not a particle's; else the earliest
 * particle failure (iteration, then particle); -1 when none failed. */
int rx__pick_failure(const rx_ctx *c)
{
    int pick = -1;
    for (int t = 0; t < c->nt_req && pick < 0; ++t)
        if (c->ts[t].st != RX_OK && c->ts[t].fail_particle < 0)
            pick = t;
    for (int t = 0; t < c->nt_req && pick < 0; ++t) {
        const rx__tstate *a = &c->ts[t];
        if (a->st == RX_OK)
            continue;
        int best = 1;
        for (int u = 0; u < c->nt_req; ++u) {
            const rx__tstate *b = &c->ts[u];
            if (u != t && b->st != RX_OK &&
                (b->fail_k < a->fail_k ||
                 (b->fail_k == a->fail_k &&
                  b->fail_particle < a->fail_particle)))
                best = 0;
        }
        if (best)
            pick = t;
    }
    return pick;
}

/* The notes on waiting and on the window, for a run that completed
 * without a failure. */
static void run_notes(rx_ctx *c)
{
    const int P = c->P, nt_used = c->nt_used;
    const int64_t K = c->cfg.iterations;
    if (c->wait_share && c->iters_done >= K) {
        char note[400];
        if (rx__wait_note(note, sizeof note, c->wait_share, nt_used, P,
                          c->steal_share, c->wall_s * nt_used))
            rx__logf(&c->log, RX_LOG_INFO, "%s", note);
    }
    /* not where the correction adapts the rate to S, nor with a window
     * correction, which lowers it on purpose */
    if (c->iters_done >= K && c->rec.pairs && !c->ac.adapt_c &&
        c->xc.wcorr == 0.0 &&
        (c->cfg.tempering.scheme == RX_SCHEME_DEO_STAR ||
         (c->cfg.tempering.scheme == RX_SCHEME_DEO_W &&
          c->cfg.tempering.window == RX_WINDOW_AUTO))) {
        int64_t cond = 0, ev = 0;
        for (int p = 0; p < P - 1; ++p) {
            cond += c->rec.pairs[p].conditions;
            ev += c->rec.pairs[p].evaluated;
        }
        char note[480];
        if (rx__window_note(note, sizeof note, P, c->xc.W,
                            c->cfg.tempering.target_swap_rate, cond, ev))
            rx__logf(&c->log, RX_LOG_INFO, "%s", note);
    }
}

/* rx_run's status and message for the failure in thread slot ts. */
static rx_status failure_message(rx_ctx *c, const rx__tstate *ts)
{
    if (ts->fail_particle == RX_FAIL_ALLOC)
        return rx__fail(&c->err, ts->st, "rx_run: %s while allocating "
                        "chain state", rx_strerror(ts->st));
    int32_t i = ts->fail_particle;
    if (i == RX_FAIL_SETUP)
        return rx__fail(&c->err, ts->st, "rx_run: %s", ts->err.msg);
    if (i == RX_FAIL_EVAL)
        return rx__fail(&c->err, ts->st, "rx_run: evaluation: %s",
                        rx_strerror(ts->st));
    if (i == RX_FAIL_STOP)
        return rx__fail(&c->err, ts->st,
                        "rx_run: stopped on request after the step phase "
                        "of iteration %lld%s%s", (long long)ts->fail_k,
                        c->ckpt_fn ? "; checkpoint written to " : "",
                        c->ckpt_fn ? c->ckpt_path : "");
    if (i == RX_FAIL_CKPT)
        return rx__fail(&c->err, ts->st,
                        "rx_run: checkpoint at iteration %lld failed: %s "
                        "(%s)", (long long)ts->fail_k, c->ckpt_err,
                        c->ckpts_written > 0 || c->resumed
                            ? "the previous checkpoint is intact"
                            : "no checkpoint had been written yet: nothing "
                              "to resume");
    if (i == RX_FAIL_PROGRESS)
        return rx__fail(&c->err, ts->st, "rx_run: stopped by the "
                        "progress callback after iteration %lld",
                        (long long)ts->fail_k);
    if (ts->fail_k < 0)
        return rx__fail(&c->err, ts->st,
                        "rx_run: particle %d: %s at its initial point",
                        (int)i, rx_strerror(ts->st));
    if (ts->st == RX_ENUMERIC) {
        const rx__particle *fp = c->parts[i];
        double nrm = 0.0;
        for (size_t j = 0; fp && j < c->dim; ++j)
            nrm += fp->theta[j] * fp->theta[j];
        /* a NaN coordinate: "nan" and why, never the sign of a NaN */
        char norm[64];
        if (isnan(nrm))
            snprintf(norm, sizeof norm, "nan (a coordinate is not a "
                     "number)");
        else
            snprintf(norm, sizeof norm, "%.6g", sqrt(nrm));
        char what[96];
        if (ts->fail_coord >= 0)
            snprintf(what, sizeof what, "non-finite gradient (coordinate "
                     "%d)", (int)ts->fail_coord);
        else
            snprintf(what, sizeof what, "non-finite energy");
        return rx__fail(&c->err, ts->st,
                        "rx_run: particle %d at position %d%s, iteration "
                        "%lld: %s; last finite energy %s, |theta| = "
                        "%s%s",
                        (int)i, (int)ts->fail_q + 1,
                        ts->fail_q == 0 ? " (the target)" : "",
                        (long long)ts->fail_k, what,
                        RX_NUM(ts->fail_last_energy), norm,
                        c->cfg.faults.policy == 1
                            ? " (faults.max_rollbacks reached)"
                            : " (faults.policy: rollback would restore "
                              "and halve its step)");
    }
    return rx__fail(&c->err, ts->st,
                    "rx_run: particle %d at iteration %lld: %s (last "
                    "finite energy %s)",
                    (int)i, (long long)ts->fail_k, rx_strerror(ts->st),
                    RX_NUM(ts->fail_last_energy));
}

rx_status rx__run_outcome(rx_ctx *c)
{
    const int pick = rx__pick_failure(c);
    if (pick >= 0)
        return failure_message(c, &c->ts[pick]);
    run_notes(c);
    rx__logf(&c->log, RX_LOG_INFO,
             "run done: %lld iterations, %d chains, %d threads, %.3f s",
             (long long)c->cfg.iterations, c->P, c->nt_used, c->wall_s);
    return RX_OK;
}
