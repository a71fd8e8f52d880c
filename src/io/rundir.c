/*
 * The run directory: config.yaml, summary.json, trace.csv, index.npy,
 * samples.npy, test_rows.npy and train_rows.npy (a network whose test set
 * is split off its data file), inference.nc (inference.c). Written into
 * "<dir>.tmp-<pid>" and renamed when complete, so a failed write never
 * leaves a partial directory under the final name.
 */
#define _XOPEN_SOURCE 700
#include <errno.h>
#include <ftw.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>

#include "../config/config.h"
#include "../engine/state.h"
#include "inference.h"
#include "../record/diag.h"
#include "json.h"
#include "marker.h"
#include "paramtab.h"
#include "rundiag.h"
#include "rundir_bias.h"

static rx_status io_fail(rx_ctx *c, const char *what, const char *path)
{
    return rx__fail(rx__ctx_err(c), RX_EIO, "%s: %s: %s", path, what,
                    strerror(errno));
}

/* .npy v1.0 header for a C-order array. */
static int npy_header(FILE *f, const char *descr, int64_t rows, int64_t cols)
{
    char dict[160];
    int n = snprintf(dict, sizeof dict,
                     "{'descr': '%s', 'fortran_order': False, 'shape': "
                     "(%lld, %lld), }",
                     descr, (long long)rows, (long long)cols);
    size_t total = 10 + (size_t)n + 1;
    size_t pad = (64 - total % 64) % 64;
    size_t hlen = (size_t)n + pad + 1;
    unsigned char pre[10] = {0x93, 'N', 'U', 'M', 'P', 'Y', 1, 0,
                             (unsigned char)(hlen & 0xff),
                             (unsigned char)(hlen >> 8)};
    if (fwrite(pre, 1, 10, f) != 10 || fwrite(dict, 1, (size_t)n, f) !=
                                           (size_t)n)
        return -1;
    for (size_t i = 0; i < pad; ++i)
        fputc(' ', f);
    return fputc('\n', f) == EOF ? -1 : 0;
}

static rx_status write_npy(rx_ctx *c, const char *path, const char *descr,
                           const void *data, size_t esize, int64_t rows,
                           int64_t cols)
{
    FILE *f = fopen(path, "wb");
    if (!f)
        return io_fail(c, "cannot create", path);
    size_t n = (size_t)rows * (size_t)cols;
    int bad = npy_header(f, descr, rows, cols) != 0 ||
              (n && fwrite(data, esize, n, f) != n);
    if (fclose(f) != 0 || bad)
        return io_fail(c, "write failed", path);
    return RX_OK;
}

/*
 * summary.json, one writer per block in file order. Each writes its whole
 * block (or nothing when the block does not apply) with the trailing
 * ",\n"; a new block is one writer and one call in write_summary.
 */
static void sum_header(FILE *f, const rx__runview *v, const char *source)
{
    fprintf(f, "{\n  \"replex_version\": \"%s\",\n", RX_VERSION_STRING);
    fprintf(f, "  \"source\": ");
    rx__json_str(f, source);
    fprintf(f, ",\n");
    fprintf(f, "  \"seed\": %llu,\n  \"iterations\": %lld,\n",
            (unsigned long long)v->cfg->seed, (long long)v->res.iterations);
    fprintf(f, "  \"n_chains\": %d,\n  \"scheme\": \"%s\",\n  \"window\": %d,\n",
            v->res.n_chains, rx__scheme_name(v->cfg->tempering.scheme),
            v->res.window);
    fprintf(f, "  \"rule\": \"%s\",\n",
            rx__rule_name(v->cfg->tempering.rule));
}

static void sum_round_trips(FILE *f, const rx__runview *v)
{
    const rx__recorder *r = v->rec;
    const int64_t K = v->res.iterations;
    double per = K > 0 ? 1000.0 / (double)K : 0.0;
    fprintf(f,
            "  \"round_trips\": {\"a5\": %lld, \"l1\": %lld, \"restarts\": "
            "%lld, ",
            (long long)r->trips_a5, (long long)r->trips_l1,
            (long long)r->restarts);
    rx__json_kv(f, "a5_per_1000", (double)r->trips_a5 * per);
    fputs(", ", f);
    rx__json_kv(f, "l1_per_1000", (double)r->trips_l1 * per);
    fputs("},\n", f);
}

static void sum_swaps(FILE *f, const rx__runview *v)
{
    const rx__recorder *r = v->rec;
    const int P = v->res.n_chains;
    const int64_t K = v->res.iterations;
    int64_t sc = 0, se = 0;
    for (int p = 0; p < P - 1; ++p) {
        sc += r->pairs[p].conditions;
        se += r->pairs[p].evaluated;
    }
    fprintf(f, "  \"swaps\": {\"total\": %lld, ", (long long)r->total_swaps);
    rx__json_kv(f, "condition_rate_mean", se ? (double)sc / (double)se : 0.0);
    fprintf(f, ", \"per_pair\": [\n");
    for (int p = 0; p < P - 1; ++p) {
        const rx_pair_stats *s = &r->pairs[p];
        double ev = s->evaluated ? (double)s->evaluated : 1.0;
        fprintf(f, "    {\"pair\": %d, ", p + 1);
        rx__json_kv(f, "condition_rate", (double)s->conditions / ev);
        fputs(", ", f);
        rx__json_kv(f, "swap_rate", K ? (double)s->swaps / (double)K : 0.0);
        fputs(", ", f);
        rx__json_kv(f, "mean_accept_prob", s->accept_sum / ev);
        fprintf(f, ", \"attempts\": %lld, \"swaps\": %lld}%s\n",
                (long long)s->attempts, (long long)s->swaps,
                p + 2 < P ? "," : "");
    }
    fprintf(f, "  ]},\n");
}

/* The noise-aware test on minibatch energies: per pair, the paired
 * estimates made (one per attempt), their mean rows, and those rejected
 * at tempering.noise_batch_max with the variance still too high. */
static void sum_xbatch(FILE *f, const rx__runview *v)
{
    const rx__recorder *r = v->rec;
    if (!r->xb)
        return;
    fputs("  \"exchange_batch\": [", f);
    for (int p = 0; p + 1 < r->P; ++p) {
        const rx__xbatch *x = &r->xb[p];
        fprintf(f, "%s{\"pair\": %d, \"estimates\": %lld, ", p ? ", " : "",
                p + 1, (long long)x->estimates);
        if (x->estimates > 0)
            rx__json_kv(f, "mean_rows",
                        (double)x->rows / (double)x->estimates);
        else
            fputs("\"mean_rows\": null", f);
        fprintf(f, ", \"n_var_fail\": %lld}", (long long)x->var_fail);
    }
    fputs("],\n", f);
}

static void sum_correction(FILE *f, const rx__runview *v)
{
    sum_xbatch(f, v);
    const int P = v->res.n_chains;
    fprintf(f, "  ");
    rx__json_kv(f, "correction", v->res.correction);
    fprintf(f, ",\n");
    if ((rx__xtest_row(v->cfg->tempering.rule)->row.props & RX__XT_SIGMA2) &&
        P > 1) {
        fprintf(f, "  ");
        rx__json_kvec(f, "sigma2", v->res.sigma2, P - 1);
        fprintf(f, ",\n");
    }
}

/* Gradient evaluations of the run: one per chain and iteration. */
static double sum_vr_ngrad(const rx__runview *v)
{
    return (double)v->res.iterations * (double)v->res.n_chains;
}

/* variance_reduction cost accounting: forward evaluations beyond the
 * gradient pass, in minibatch units (resgld_vr.md 3.3); the measured
 * seconds go to the timing line (not deterministic). */
static void sum_variance_reduction(FILE *f, const rx__runview *v)
{
    if (!v->vr_on)
        return;
    const rx__vrcost tot = v->vr_cost;
    const double bs = v->vr_batch;
    const double ngrad = sum_vr_ngrad(v);
    fprintf(f,
            "  \"variance_reduction\": {\"period\": %lld, "
            "\"coefficient\": ",
            (long long)v->vr_period);
    if (v->vr_adaptive) {
        fprintf(f, "\"adaptive\", ");
        rx__json_kv(f, "coefficient_mean_final", v->vr_c_mean);
    } else {
        rx__json_num(f, NULL, v->vr_c0);
    }
    fprintf(f, ", \"anchor_rows\": %lld, \"period_ends\": %lld, ",
            (long long)v->vr_anchor_rows, (long long)tot.period_ends);
    rx__json_kv(f, "variance_vr_mean",
                tot.period_ends ? tot.var_vr_sum / (double)tot.period_ends
                                : 0.0);
    fputs(", ", f);
    rx__json_kv(f, "variance_std_mean",
                tot.period_ends ? tot.var_std_sum / (double)tot.period_ends
                                : 0.0);
    fputs(", ", f);
    rx__json_kv(f, "variance_ratio", tot.var_vr_sum > 0
                                         ? tot.var_std_sum / tot.var_vr_sum
                                         : 0.0);
    fprintf(f, ",\n    \"cost\": {\"extra_forward_rows\": %lld, "
            "\"anchor_passes\": %lld, \"anchor_forward_rows\": %lld, ",
            (long long)tot.fwd_rows, (long long)tot.anchor_passes,
            (long long)tot.anchor_rows);
    rx__json_kv(f, "extra_forward_batches", (double)tot.fwd_rows / bs);
    fputs(", ", f);
    rx__json_kv(f, "extra_forward_batches_per_chain_iter",
                ngrad > 0 ? (double)tot.fwd_rows / bs / ngrad : 0.0);
    fprintf(f, ", \"gradient_evaluations\": %.0f}},\n", ngrad);
}

static void sum_ladder(FILE *f, const rx__runview *v)
{
    const int P = v->res.n_chains;
    fprintf(f, "  \"ladder\": {");
    rx__json_kvec(f, "eta", v->res.eta, P);
    fprintf(f, ", ");
    rx__json_kvec(f, "tau", v->res.tau, P);
    if (v->res.log_z.beta) {
        fprintf(f, ", ");
        rx__json_kvec(f, "beta", v->res.log_z.beta, P);
    }
    fprintf(f, "},\n");
}

/* ladder.path reference: the stepping-stone estimate of log Z */
static void sum_log_z(FILE *f, const rx__runview *v)
{
    const rx_log_z *z = &v->res.log_z;
    if (!z->beta)
        return;
    fprintf(f, "  \"log_z\": {\"valid\": %s, ", z->valid ? "true" : "false");
    if (z->reason) {
        fputs("\"reason\": ", f);
        rx__json_str(f, z->reason);
        fputs(", ", f);
    }
    rx__json_kv(f, "estimate", z->estimate);
    fputs(", ", f);
    rx__json_kv(f, "se", z->se);
    fprintf(f, ", \"method\": \"stepping stone (Xie et al. 2011); se: "
            "batch means over %d batches, delta method\", \"rows\": %lld, "
            "\"likelihood\": \"%s\",\n    ",
            z->batches, (long long)z->n,
            rx__target_is_network(v->target) ? "full data" : "exact");
    rx__json_kvec(f, "terms", z->terms, z->n_terms);
    fputs(",\n    ", f);
    rx__json_kvec(f, "terms_se", z->term_se, z->n_terms);
    fputs("},\n", f);
}

/* count and dim; per-coordinate mean and sd up to 64 dimensions */
static void sum_samples(FILE *f, const rx__runview *v)
{
    const size_t d = v->res.dim;
    const int64_t n = v->res.n_samples;
    const float *x = v->res.samples;
    fprintf(f, "  \"samples\": {\"count\": %lld, \"dim\": %zu",
            (long long)n, d);
    if (n > 0 && d > 0 && d <= 64) {
        double mean[64], var[64];
        for (size_t j = 0; j < d; ++j)
            mean[j] = var[j] = 0.0;
        for (int64_t s = 0; s < n; ++s)
            for (size_t j = 0; j < d; ++j)
                mean[j] += x[(size_t)s * d + j];
        for (size_t j = 0; j < d; ++j)
            mean[j] /= (double)n;
        for (int64_t s = 0; s < n; ++s)
            for (size_t j = 0; j < d; ++j) {
                double z = x[(size_t)s * d + j] - mean[j];
                var[j] += z * z;
            }
        for (size_t j = 0; j < d; ++j)
            var[j] = sqrt(var[j] / (double)n);
        fprintf(f, ", ");
        rx__json_kvec(f, "mean", mean, (int)d);
        fprintf(f, ", ");
        rx__json_kvec(f, "sd", var, (int)d);
    }
    fprintf(f, "},\n");
}

/* The samples as the diagnostics read them. */
static rx__diag_in diag_of(const rx__runview *v)
{
    rx__diag_in in = {v->target, v->cfg, v->res.samples, v->res.n_samples,
                      v->res.dim};
    return in;
}

/* Under a weighting bias (CSGLD) the draws are not the target's: the
 * plain figures are labelled unweighted and the weighted ones (the run's
 * answer) written beside them. */
static void sum_density(FILE *f, rx_ctx *c, const rx__runview *v)
{
    double tv, tvw;
    if (rx_density_tv(c, &tv) != RX_OK)
        return;
    fprintf(f, "  \"density\": {\"grid_bins\": %d, ",
            v->cfg->record.grid_bins);
    rx__json_kv(f, "grid_low", v->cfg->record.grid_low);
    fputs(", ", f);
    rx__json_kv(f, "grid_high", v->cfg->record.grid_high);
    fputs(", ", f);
    rx__json_kv(f, "tv_distance", tv);
    double *w = rx__sample_weights(c);
    const rx__diag_in in = diag_of(v);
    if (w && rx__density_tv_w(&in, w, &tvw) == RX_OK) {
        fputs(", \"tv_distance_draws\": \"unweighted\", ", f);
        rx__json_kv(f, "tv_distance_weighted", tvw);
    }
    free(w);
    fputs("},\n", f);
}

/* modes of a GMM target: estimated against true weights */
static void sum_modes_gmm(FILE *f, rx_ctx *c, const rx__runview *v)
{
    int Kc = v->cfg->target.means.rows;
    double *est = malloc(sizeof(double) * (size_t)Kc);
    double *tru = malloc(sizeof(double) * (size_t)Kc);
    if (est && tru && rx_mode_weights(c, est, Kc) == RX_OK) {
        double tot = 0.0, mx = 0.0;
        for (int k = 0; k < Kc; ++k)
            tot += v->cfg->target.weights.v[k];
        for (int k = 0; k < Kc; ++k) {
            tru[k] = v->cfg->target.weights.v[k] / tot;
            if (fabs(est[k] - tru[k]) > mx)
                mx = fabs(est[k] - tru[k]);
        }
        fprintf(f, "  \"modes\": {");
        rx__json_kvec(f, "weights_true", tru, Kc);
        fprintf(f, ", ");
        rx__json_kvec(f, "weights_est", est, Kc);
        fprintf(f, ", ");
        rx__json_kv(f, "max_abs_error", mx);
        double *w = rx__sample_weights(c);
        const rx__diag_in in = diag_of(v);
        if (w && rx__mode_weights_w(&in, w, est, Kc) == RX_OK) {
            double mw = 0.0;
            for (int k = 0; k < Kc; ++k)
                mw = fabs(est[k] - tru[k]) > mw ? fabs(est[k] - tru[k]) : mw;
            fputs(", \"weights_est_draws\": \"unweighted\", ", f);
            rx__json_kvec(f, "weights_est_weighted", est, Kc);
            fputs(", ", f);
            rx__json_kv(f, "max_abs_error_weighted", mw);
        }
        free(w);
        fprintf(f, "},\n");
    }
    free(est);
    free(tru);
}

/* modes of a mixture-data target: the weight of the high mode */
static void sum_modes_mixdata(FILE *f, const rx__runview *v)
{
    double wt = 0.0, we = 0.0;
    if (rx__mixdata_mode_weight(v->target, v->res.tau[0],
                                v->cfg->record.grid_low,
                                v->cfg->record.grid_high, v->res.samples,
                                v->res.n_samples, &wt, &we) != RX_OK)
        return;
    fprintf(f, "  \"modes\": {");
    rx__json_kv(f, "split", 0.5 * v->cfg->target.phi);
    fputs(", ", f);
    rx__json_kv(f, "weight_high_true", wt);
    fputs(", ", f);
    rx__json_kv(f, "weight_high_est", we);
    fputs(", ", f);
    rx__json_kv(f, "abs_error", fabs(we - wt));
    fputs("},\n", f);
}

/* modes of the 25-mode 2-D target: the samples' shares of the nearest
 * modes against the true masses on the grid (diag.c) */
static void sum_modes_m25(FILE *f, const rx__runview *v)
{
    const rx__diag_in in = {v->target, v->cfg, v->res.samples,
                            v->res.n_samples, v->res.dim};
    rx__m25_cover m;
    if (rx__m25_cover_get(&in, &m) != RX_OK)
        return;
    fprintf(f, "  \"modes\": {\"assignment\": \"nearest\", ");
    rx__json_kvec(f, "weights_true", m.w_true, RX_M25_MODES);
    fputs(", ", f);
    rx__json_kvec(f, "weights_est", m.w_est, RX_M25_MODES);
    fputs(", ", f);
    rx__json_kv(f, "tv_distance", m.tv);
    fputs(", ", f);
    rx__json_kv(f, "outer16_true", m.outer_true);
    fputs(", ", f);
    rx__json_kv(f, "outer16_est", m.outer_est);
    fprintf(f, ", \"visited\": %d, \"samples_in_grid\": %lld},\n",
            m.visited, (long long)m.n_inside);
}

static void sum_modes(FILE *f, rx_ctx *c, const rx__runview *v)
{
    if (v->cfg->target.kind == RX_TARGET_MIXTURE25)
        sum_modes_m25(f, v);
    if (v->cfg->target.kind == RX_TARGET_GMM && v->res.n_samples > 0)
        sum_modes_gmm(f, c, v);
    if (v->cfg->target.kind == RX_TARGET_MIXTURE_DATA && v->res.n_samples > 0)
        sum_modes_mixdata(f, v);
}

/* one metrics block: the model average or the final ensemble */
static void sum_metrics_one(FILE *f, const char *name, const rx_metrics *x)
{
    if (!x->valid)
        return;
    fprintf(f, "  \"%s\": {\"models\": %lld, \"test_examples\": %lld",
            name, (long long)x->n_models, (long long)x->n_test);
    if (x->classification) {
        const char *kn[] = {"accuracy", "nll", "ece", "brier",
                            "entropy_test"};
        const double kv[] = {x->accuracy, x->nll, x->ece, x->brier,
                             x->entropy_test};
        for (int j = 0; j < 5; ++j) {
            fputs(", ", f);
            rx__json_kv(f, kn[j], kv[j]);
        }
        if (x->n_ood > 0) {
            fprintf(f, ", \"ood_examples\": %lld, ", (long long)x->n_ood);
            rx__json_kv(f, "entropy_ood", x->entropy_ood);
            fputs(", ", f);
            rx__json_kvec(f, "entropy_ood_q10_q50_q90", x->entropy_ood_q, 3);
        }
    } else {
        fputs(", ", f);
        rx__json_kv(f, "rmse", x->rmse);
        fputs(", ", f);
        rx__json_kv(f, "nll", x->nll);
    }
    fprintf(f, "},\n");
}

static void sum_metrics(FILE *f, const rx__runview *v)
{
    if (!v->evaluated)
        return;
    sum_metrics_one(f, "metrics", &v->res.bma);
    sum_metrics_one(f, "metrics_final_ensemble", &v->res.ensemble);
}

/* hit.rho >= 0: each chain's (particle's) first iteration with U <=
 * u_min + rho, counted from 1 (the number of iterations run), null when
 * none, and its lowest energy; the first over the run and the mean over
 * the chains that hit (Deng 2021, Table 7.1). */
static void sum_hit(FILE *f, const rx__runview *v)
{
    const rx__recorder *r = v->rec;
    if (!r->hit)
        return;
    const int P = r->P;
    int n = 0, first = -1;
    double sum = 0.0;
    for (int i = 0; i < P; ++i) {
        const int64_t h = atomic_load(&r->hit[i].k);
        if (h < 0)
            continue;
        n++;
        sum += (double)(h + 1);
        if (first < 0 || h < atomic_load(&r->hit[first].k))
            first = i;
    }
    double rho, u_min;
    rx__run_hit(v->cfg, &rho, &u_min);
    fputs("  \"hit\": {", f);
    rx__json_kv(f, "u_min", u_min);
    fputs(", ", f);
    rx__json_kv(f, "rho", rho);
    fputs(", ", f);
    rx__json_kv(f, "threshold", r->hit_thr);
    fprintf(f, ", \"stop\": %s, \"stopped\": %s",
            r->hit_stop ? "true" : "false",
            r->hit_stopped ? "true" : "false");
    fprintf(f, ", \"chains\": %d, \"chains_hit\": %d, ", P, n);
    if (first >= 0)
        fprintf(f, "\"first_iteration\": %lld, \"first_chain\": %d, ",
                (long long)atomic_load(&r->hit[first].k) + 1, first);
    else
        fputs("\"first_iteration\": null, \"first_chain\": null, ", f);
    if (n)
        rx__json_kv(f, "mean_iterations", sum / n);
    else
        fputs("\"mean_iterations\": null", f);
    fputs(", \"iterations\": [", f);
    for (int i = 0; i < P; ++i) {
        const int64_t h = atomic_load(&r->hit[i].k);
        if (h >= 0)
            fprintf(f, "%s%lld", i ? ", " : "", (long long)h + 1);
        else
            fprintf(f, "%snull", i ? ", " : "");
    }
    fputs("], \"min_energy\": [", f);
    for (int i = 0; i < P; ++i) {
        if (i)
            fputs(", ", f);
        rx__json_num(f, NULL, r->hit[i].emin);
    }
    fputs("]},\n", f);
}

void rx__hit_print(FILE *f, const rx_ctx *c)
{
    rx__runview v;
    rx__run_view(c, &v);
    const rx__recorder *r = v.rec;
    if (!r->hit)
        return;
    int n = 0, first = -1;
    int64_t kf = -1;
    for (int i = 0; i < r->P; ++i) {
        const int64_t h = atomic_load(&r->hit[i].k);
        if (h < 0)
            continue;
        n++;
        if (first < 0 || h < kf) {
            first = i;
            kf = h;
        }
    }
    if (n == 0) {
        fprintf(f, "hit (U <= %.6g): no chain in %lld iterations\n",
                r->hit_thr, (long long)v.res.iterations);
        return;
    }
    fprintf(f, "hit (U <= %.6g): first at iteration %lld (chain %d); "
            "%d of %d chains hit%s\n",
            r->hit_thr, (long long)kf + 1, first, n, r->P,
            r->hit_stopped ? "; the run stopped there (hit.stop)" : "");
}

static void sum_faults(FILE *f, rx_ctx *c, const rx__runview *v)
{
    if (v->cfg->faults.policy != 1)
        return;
    const int P = v->res.n_chains;
    int64_t tot = 0;
    int32_t nrb;
    int64_t lk;
    double scale;
    for (int i = 0; i < P; ++i)
        tot += rx__particle_faults(c, i, &nrb, &lk, &scale) ? nrb : 0;
    fprintf(f, "  \"faults\": {\"policy\": \"rollback\", \"rollbacks\": "
            "%lld, \"chains\": [", (long long)tot);
    int first = 1;
    for (int i = 0; i < P; ++i) {
        if (!rx__particle_faults(c, i, &nrb, &lk, &scale) || nrb == 0)
            continue;
        fprintf(f, "%s{\"particle\": %d, \"rollbacks\": %d, "
                "\"last_iteration\": %lld, ",
                first ? "" : ", ", i, (int)nrb, (long long)lk);
        rx__json_kv(f, "step_scale", scale);
        fputc('}', f);
        first = 0;
    }
    fprintf(f, "]},\n");
}

/* convergence diagnostics: ESS, Lambda, weights (rundiag.c), into *d */
static rx_status sum_diagnostics(FILE *f, rx_ctx *c, const rx__paramtab *pt,
                                 rx__rundiag *d)
{
    rx_status st = rx__rundiag_get(c, pt, d);
    if (st == RX_OK)
        rx__rundiag_json(f, d);
    return st;
}

/* The timing line is last: the only part that is not a function of
 * (config, seed). It opens with threads, wall time and the scheduling
 * figures; sum_memory and sum_phases append to it. */
static void sum_timing(FILE *f, const rx__runview *v)
{
    double steps = (double)v->res.iterations * (double)v->res.n_chains;
    fprintf(f,
            "  \"timing\": {\"threads\": %d, \"wall_s\": %.6f, "
            "\"chain_steps_per_s\": %.1f",
            v->res.threads, v->res.wall_s,
            v->res.wall_s - v->res.eval_s > 0
                ? steps / (v->res.wall_s - v->res.eval_s)
                : 0.0);
    fprintf(f, ", \"sync\": \"%s\"", v->res.partner ? "partner" : "barrier");
    fprintf(f, ", \"ranks\": %d", v->ranks);
    if (v->ranks > 1)
        fprintf(f, ", \"ranks_sync_s\": %.6f", v->ranks_sync_s);
    if (v->final_cut) {
        fprintf(f, ", \"chains_per_thread\": [");
        for (int t = 0; t < v->res.threads; ++t)
            fprintf(f, "%s%d", t ? ", " : "",
                    v->final_cut[t + 1] - v->final_cut[t]);
        fprintf(f, "], \"balance_changes\": %lld, \"noise_helped\": %lld",
                (long long)v->res.balance_changes,
                (long long)v->res.noise_helped);
    }
    if (v->res.wait_share) {
        fprintf(f, ", \"wait_share\": [");
        for (int t = 0; t < v->res.threads; ++t) {
            fputs(t ? ", " : "", f);
            rx__json_num(f, "%.4f", v->res.wait_share[t]);
        }
        fprintf(f, "]");
    }
    if (v->res.start_s >= 0.0)
        fprintf(f, ", \"start_s\": %.6f", v->res.start_s);
    else
        fprintf(f, ", \"start_s\": null");
    if (v->res.steal_share >= 0.0)
        fprintf(f, ", \"steal_share\": %.4f", v->res.steal_share);
    else
        fprintf(f, ", \"steal_share\": null");
}

/* variance reduction's measured seconds, in gradient equivalents */
static void sum_timing_vr(FILE *f, const rx__runview *v)
{
    if (!v->vr_on)
        return;
    const double secs = v->vr_cost.seconds;
    const double grad_s = v->vr_grad_s;
    const double ngrad = sum_vr_ngrad(v);
    const double per_grad = ngrad > 0 ? grad_s / ngrad : 0.0;
    double equiv = per_grad > 0 ? secs / per_grad : 0.0;
    double equiv_per = per_grad > 0 && ngrad > 0
                           ? secs / per_grad / ngrad : 0.0;
    fprintf(f,
            ", \"variance_reduction\": {\"seconds\": %.6f, "
            "\"gradient_seconds\": %.6f, \"gradient_equivalents\": "
            "%.6g, \"gradient_equivalents_per_chain_iter\": %.6g}",
            secs, grad_s, equiv, equiv_per);
}

/* Evaluation seconds and what the run needs: data once, P particles
 * (theta, gradient and step-rule state in double), the samples,
 * per-thread scratch. */
static void sum_memory(FILE *f, const rx__runview *v)
{
    if (!v->evaluated)
        return;
    const double d = (double)v->res.dim;
    fprintf(f, ", \"evaluation_s\": %.6f", v->res.eval_s);
    /* faults.policy rollback keeps a second copy of each */
    double parts = (double)v->res.n_chains * 8.0 *
                   (2.0 * d + (double)v->slen) *
                   (v->cfg->faults.policy == 1 ? 2 : 1);
    double smp = (double)v->res.n_samples * d * 4.0;
    struct rusage ru;
    double peak = getrusage(RUSAGE_SELF, &ru) == 0
                      ? (double)ru.ru_maxrss * 1024.0 : 0.0;
    fprintf(f,
            ", \"memory_mb\": {\"peak_rss\": %.1f, \"data\": %.1f, "
            "\"particles\": %.1f, \"samples\": %.1f, \"scratch\": "
            "%.1f}",
            peak / 1048576.0, v->mem_data / 1048576.0, parts / 1048576.0,
            smp / 1048576.0, v->mem_scratch / 1048576.0);
}

/* record.phase_timing: microseconds per iteration of each phase, over
 * the run and per thread */
static void sum_phases(FILE *f, const rx__runview *v)
{
    static const char *const names[RX_NPHASES] = {
        "step", "energy", "barrier_wait", "exchange", "adapt", "record"};
    const int64_t K = v->res.iterations;
    if (!v->cfg->record.phase_timing || K <= 0)
        return;
    fprintf(f, ", \"us_per_iter\": {");
    for (int j = 0; j < RX_NPHASES; ++j) {
        fprintf(f, "%s\"%s\": ", j ? ", " : "", names[j]);
        rx__json_num(f, "%.4f", 1e6 * v->res.phase_s[j] / (double)K);
    }
    fprintf(f, "}");
    if (!v->res.thread_phase_s)
        return;
    fprintf(f, ", \"us_per_iter_by_thread\": [");
    for (int t = 0; t < v->res.threads; ++t) {
        fprintf(f, "%s[", t ? ", " : "");
        for (int j = 0; j < RX_NPHASES; ++j) {
            fputs(j ? ", " : "", f);
            rx__json_num(f, "%.4f",
                         1e6 * v->res.thread_phase_s[t * RX_NPHASES + j] /
                             (double)K);
        }
        fprintf(f, "]");
    }
    fprintf(f, "]");
}

static rx_status write_summary(rx_ctx *c, const char *path,
                               const char *source, const rx__paramtab *pt,
                               rx__rundiag *d)
{
    FILE *f = fopen(path, "w");
    if (!f)
        return io_fail(c, "cannot create", path);
    rx__runview view;
    rx__run_view(c, &view);
    const rx__runview *v = &view;
    sum_header(f, v, source);
    sum_round_trips(f, v);
    sum_swaps(f, v);
    sum_correction(f, v);
    sum_variance_reduction(f, v);
    sum_ladder(f, v);
    sum_log_z(f, v);
    sum_samples(f, v);
    sum_hit(f, v);
    rx__summary_bias(f, c);
    sum_density(f, c, v);
    sum_modes(f, c, v);
    sum_metrics(f, v);
    sum_faults(f, c, v);
    rx_status st = sum_diagnostics(f, c, pt, d);
    rx__paramtab_json(f, pt);
    rx__paramtab_verdict_json_at(f, pt, 2);
    sum_timing(f, v);
    sum_timing_vr(f, v);
    sum_memory(f, v);
    sum_phases(f, v);
    fprintf(f, "}\n}\n");
    if (fclose(f) != 0)
        return io_fail(c, "write failed", path);
    return st;
}

static rx_status write_trace(rx_ctx *c, const char *path)
{
    FILE *f = fopen(path, "w");
    if (!f)
        return io_fail(c, "cannot create", path);
    rx__runview view;
    rx__run_view(c, &view);
    const rx__recorder *rec = view.rec;
    size_t cap = rx__rec_trace_header_len(rec) + 1;
    char *hdr = malloc(cap);
    if (!hdr) {
        fclose(f);
        return rx__fail(rx__ctx_err(c), RX_ENOMEM, "out of memory");
    }
    rx__rec_trace_header(rec, hdr, cap);
    fprintf(f, "%s\n", hdr);
    free(hdr);
    const int nc = rec->n_trace_cols;
    for (int64_t i = 0; i < rec->n_trace; ++i) {
        const double *row = rec->trace + (size_t)i * (size_t)nc;
        for (int j = 0; j < nc; ++j)
            fprintf(f, j ? ",%.10g" : "%.10g", row[j]);
        fputc('\n', f);
    }
    if (fclose(f) != 0)
        return io_fail(c, "write failed", path);
    return RX_OK;
}

static int rm_cb(const char *p, const struct stat *sb, int flag,
                 struct FTW *ftw)
{
    (void)sb;
    (void)flag;
    (void)ftw;
    return remove(p);
}

int rx__rm_tree(const char *dir)
{
    return nftw(dir, rm_cb, 16, FTW_DEPTH | FTW_PHYS);
}

rx_status rx_write_rundir(const rx_ctx *c, const char *dir, int force,
                          const char *source)
{
    rx__rundiag d;
    rx__paramtab t;
    rx_status st = rx__write_rundir_keep(c, dir, force, source, &d, &t);
    rx__paramtab_free(&t);
    return st;
}

rx_status rx__write_rundir_keep(const rx_ctx *cc, const char *dir, int force,
                                const char *source, rx__rundiag *d,
                                rx__paramtab *pt)
{
    rx_ctx *c = (rx_ctx *)cc; /* only its error slot is written */
    memset(pt, 0, sizeof *pt);
    memset(d, 0, sizeof *d);
    if (!c)
        return RX_EINVAL;
    if (!dir || !dir[0])
        return rx__fail(rx__ctx_err(c), RX_EINVAL,
                        "rx_write_rundir: the directory is %s",
                        dir ? "empty" : "NULL");
    if (!rx__ctx_ran(c))
        return rx__fail(rx__ctx_err(c), RX_EINVAL,
                        "rx_write_rundir: the context has not run");
    struct stat sb;
    if (stat(dir, &sb) == 0 && !force)
        return rx__fail(rx__ctx_err(c), RX_EIO,
                        "%s: already exists; choose another -o or pass "
                        "--force",
                        dir);
    size_t L = strlen(dir) + 64;
    char *tmp = malloc(L), *p = malloc(L + 32);
    if (!tmp || !p) {
        free(tmp);
        free(p);
        return rx__fail(rx__ctx_err(c), RX_ENOMEM, "out of memory");
    }
    snprintf(tmp, L, "%s.tmp-%ld", dir, (long)getpid());
    rx__rm_tree(tmp);
    rx_status st = RX_OK;
    if (mkdir(tmp, 0777) != 0) {
        st = io_fail(c, "cannot create directory", tmp);
        goto out;
    }
    snprintf(p, L + 32, "%s/" RX_MARKER_FILE, tmp);
    FILE *mf = fopen(p, "w");
    int mbad = !mf || fputs(RX_MARKER_RUN, mf) < 0;
    if ((mf && fclose(mf) != 0) || mbad) {
        st = io_fail(c, "cannot write", p);
        goto fail;
    }
    snprintf(p, L + 32, "%s/config.yaml", tmp);
    rx__runview v;
    rx__run_view(c, &v);
    st = rx_config_write(v.cfg, p, rx__ctx_err(c));
    if (st != RX_OK)
        goto fail;
    rx_ctx *const one_run = c;
    if ((st = rx__paramtab_get(&one_run, 1, pt, rx__ctx_err(c))) != RX_OK)
        goto fail;
    snprintf(p, L + 32, "%s/summary.json", tmp);
    st = write_summary(c, p, source, pt, d);
    if (st == RX_OK) {
        snprintf(p, L + 32, "%s/summary.csv", tmp);
        st = rx__paramtab_csv(pt, p, rx__ctx_err(c));
    }
    if (st != RX_OK)
        goto fail;
    snprintf(p, L + 32, "%s/trace.csv", tmp);
    if ((st = write_trace(c, p)) != RX_OK)
        goto fail;
    snprintf(p, L + 32, "%s/index.npy", tmp);
    if ((st = write_npy(c, p, "<i4", v.res.index, 4, v.res.n_index,
                        v.res.n_chains)) != RX_OK)
        goto fail;
    snprintf(p, L + 32, "%s/samples.npy", tmp);
    if ((st = write_npy(c, p, "<f4", v.res.samples, 4,
                        v.res.samples ? v.res.n_samples : 0,
                        (int64_t)v.res.dim)) != RX_OK)
        goto fail;
    for (int set = 0; v.target && rx__target_is_network(v.target) &&
                      set < 2; ++set) {
        const int64_t *rows;
        int64_t n = rx__network_split_rows(v.target, set, &rows);
        if (n < 1)
            break;
        snprintf(p, L + 32, "%s/%s_rows.npy", tmp, set ? "train" : "test");
        if ((st = write_npy(c, p, "<i8", rows, 8, n, 1)) != RX_OK)
            goto fail;
    }
    if ((st = rx__rundir_bias_files(c, tmp)) != RX_OK)
        goto fail;
    snprintf(p, L + 32, "%s/inference.nc", tmp);
    const rx_ctx *one = c;
    if ((st = rx__write_inference(&one, 1, p, rx__ctx_err(c))) != RX_OK)
        goto fail;
    snprintf(p, L + 32, "%s/" RX_MARKER_FILE, dir);
    if (force && lstat(dir, &sb) == 0 &&
        (!S_ISDIR(sb.st_mode) || lstat(p, &sb) != 0)) {
        st = rx__fail(rx__ctx_err(c), RX_EIO, "%s: not a directory replex wrote "
                      "(no " RX_MARKER_FILE " file): not replaced", dir);
        goto fail;
    }
    if (force && lstat(dir, &sb) == 0 && rx__rm_tree(dir) != 0) {
        st = io_fail(c, "cannot replace", dir);
        goto fail;
    }
    if (rename(tmp, dir) != 0) {
        st = io_fail(c, "cannot rename the finished run directory to", dir);
        goto fail;
    }
    goto out;
fail:
    rx__rm_tree(tmp);
    rx__paramtab_free(pt);
out:
    free(tmp);
    free(p);
    return st;
}
