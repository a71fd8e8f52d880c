/*
 * The run directory: config.yaml, summary.json, trace.csv, index.npy,
 * samples.npy. Written into "<dir>.tmp-<pid>" and renamed when complete, so
 * a failed write never leaves a partial directory under the final name.
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
#include "../engine/ctx.h"
#include "json.h"
#include "marker.h"

static rx_status io_fail(rx_ctx *c, const char *what, const char *path)
{
    return rx__fail(&c->err, RX_EIO, "%s: %s: %s", path, what,
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

static rx_status write_summary(rx_ctx *c, const char *path,
                               const char *source)
{
    FILE *f = fopen(path, "w");
    if (!f)
        return io_fail(c, "cannot create", path);
    const int P = c->P;
    const int64_t K = c->iters_done;
    const rx__recorder *r = &c->rec;
    fprintf(f, "{\n  \"replex_version\": \"%s\",\n", RX_VERSION_STRING);
    fprintf(f, "  \"source\": ");
    rx__json_str(f, source);
    fprintf(f, ",\n");
    fprintf(f, "  \"seed\": %llu,\n  \"iterations\": %lld,\n",
            (unsigned long long)c->cfg.seed, (long long)K);
    fprintf(f, "  \"n_chains\": %d,\n  \"scheme\": \"%s\",\n  \"window\": %d,\n",
            P, rx__scheme_name(c->cfg.tempering.scheme), c->xc.W);
    fprintf(f, "  \"rule\": \"%s\",\n",
            rx__rule_name(c->cfg.tempering.rule));
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
    fprintf(f, "  ]},\n  ");
    rx__json_kv(f, "correction", c->C_final);
    fprintf(f, ",\n");
    if (c->cfg.tempering.rule == RX_RULE_BIAS_CORRECTED && P > 1) {
        fprintf(f, "  ");
        rx__json_kvec(f, "sigma2", c->s2_final, P - 1);
        fprintf(f, ",\n");
    }
    double vr_s = 0.0, vr_grad_s = 0.0, vr_equiv = 0.0, vr_equiv_per = 0.0;
    if (c->vc.on && c->parts) {
        /* cost accounting: forward evaluations beyond the gradient pass,
         * in minibatch units and measured seconds (resgld_vr.md 3.3) */
        rx__vrcost tot;
        memset(&tot, 0, sizeof tot);
        double grad_s = 0.0;
        for (int i = 0; i < P; ++i) {
            const rx__particle *pp = c->parts[i];
            if (!pp)
                continue;
            tot.fwd_rows += pp->vr_cost.fwd_rows;
            tot.anchor_rows += pp->vr_cost.anchor_rows;
            tot.anchor_passes += pp->vr_cost.anchor_passes;
            tot.period_ends += pp->vr_cost.period_ends;
            tot.var_vr_sum += pp->vr_cost.var_vr_sum;
            tot.var_std_sum += pp->vr_cost.var_std_sum;
            tot.seconds += pp->vr_cost.seconds;
            grad_s += pp->grad_s;
        }
        const double bs = (double)c->target->cv.bs;
        const double ngrad = (double)c->iters_done * (double)P;
        const double per_grad = ngrad > 0 ? grad_s / ngrad : 0.0;
        fprintf(f,
                "  \"variance_reduction\": {\"period\": %lld, "
                "\"coefficient\": ",
                (long long)c->vc.m);
        if (c->vc.adaptive) {
            double cm = 0.0;
            for (int i = 0; i < P; ++i)
                cm += c->parts[i] ? c->parts[i]->vr_c : 0.0;
            fprintf(f, "\"adaptive\", ");
            rx__json_kv(f, "coefficient_mean_final", cm / P);
        } else {
            rx__json_num(f, "%.17g", c->vc.c0);
        }
        fprintf(f, ", \"anchor_rows\": %lld, \"period_ends\": %lld, ",
                (long long)(c->vc.anchor_batch > 0 ? c->vc.anchor_batch
                                                   : c->target->cv.N),
                (long long)tot.period_ends);
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
        /* the measured part goes to the timing line (not deterministic) */
        vr_s = tot.seconds;
        vr_grad_s = grad_s;
        vr_equiv = per_grad > 0 ? tot.seconds / per_grad : 0.0;
        vr_equiv_per = per_grad > 0 && ngrad > 0
                           ? tot.seconds / per_grad / ngrad : 0.0;
    }
    fprintf(f, "  \"ladder\": {");
    rx__json_kvec(f, "eta", c->eta, P);
    fprintf(f, ", ");
    rx__json_kvec(f, "tau", c->tau, P);
    fprintf(f, "},\n");
    const size_t d = c->dim;
    fprintf(f, "  \"samples\": {\"count\": %lld, \"dim\": %zu",
            (long long)c->n_samples, d);
    if (c->n_samples > 0 && d > 0 && d <= 64) {
        double mean[64], var[64];
        for (size_t j = 0; j < d; ++j)
            mean[j] = var[j] = 0.0;
        for (int64_t s = 0; s < c->n_samples; ++s)
            for (size_t j = 0; j < d; ++j)
                mean[j] += c->samples[(size_t)s * d + j];
        for (size_t j = 0; j < d; ++j)
            mean[j] /= (double)c->n_samples;
        for (int64_t s = 0; s < c->n_samples; ++s)
            for (size_t j = 0; j < d; ++j) {
                double z = c->samples[(size_t)s * d + j] - mean[j];
                var[j] += z * z;
            }
        for (size_t j = 0; j < d; ++j)
            var[j] = sqrt(var[j] / (double)c->n_samples);
        fprintf(f, ", ");
        rx__json_kvec(f, "mean", mean, (int)d);
        fprintf(f, ", ");
        rx__json_kvec(f, "sd", var, (int)d);
    }
    fprintf(f, "},\n");
    double tv;
    if (rx_density_tv(c, &tv) == RX_OK) {
        fprintf(f, "  \"density\": {\"grid_bins\": %d, ",
                c->cfg.record.grid_bins);
        rx__json_kv(f, "grid_low", c->cfg.record.grid_low);
        fputs(", ", f);
        rx__json_kv(f, "grid_high", c->cfg.record.grid_high);
        fputs(", ", f);
        rx__json_kv(f, "tv_distance", tv);
        fputs("},\n", f);
    }
    if (c->cfg.target.kind == RX_TARGET_GMM && c->n_samples > 0) {
        int Kc = c->cfg.target.means.rows;
        double *est = malloc(sizeof(double) * (size_t)Kc);
        double *tru = malloc(sizeof(double) * (size_t)Kc);
        if (est && tru && rx_mode_weights(c, est, Kc) == RX_OK) {
            double tot = 0.0, mx = 0.0;
            for (int k = 0; k < Kc; ++k)
                tot += c->cfg.target.weights.v[k];
            for (int k = 0; k < Kc; ++k) {
                tru[k] = c->cfg.target.weights.v[k] / tot;
                if (fabs(est[k] - tru[k]) > mx)
                    mx = fabs(est[k] - tru[k]);
            }
            fprintf(f, "  \"modes\": {");
            rx__json_kvec(f, "weights_true", tru, Kc);
            fprintf(f, ", ");
            rx__json_kvec(f, "weights_est", est, Kc);
            fprintf(f, ", ");
            rx__json_kv(f, "max_abs_error", mx);
            fprintf(f, "},\n");
        }
        free(est);
        free(tru);
    }
    if (c->cfg.target.kind == RX_TARGET_MIXTURE_DATA && c->n_samples > 0) {
        double wt = 0.0, we = 0.0;
        if (rx__mixdata_mode_weight(c->target, c->tau[0],
                                    c->cfg.record.grid_low,
                                    c->cfg.record.grid_high, c->samples,
                                    c->n_samples, &wt, &we) == RX_OK) {
            fprintf(f, "  \"modes\": {");
            rx__json_kv(f, "split", 0.5 * c->cfg.target.phi);
            fputs(", ", f);
            rx__json_kv(f, "weight_high_true", wt);
            fputs(", ", f);
            rx__json_kv(f, "weight_high_est", we);
            fputs(", ", f);
            rx__json_kv(f, "abs_error", fabs(we - wt));
            fputs("},\n", f);
        }
    }
    if (c->ev.on) {
        const rx_metrics *ms[2] = {&c->ev.bma, &c->ev.ens};
        const char *names[2] = {"metrics", "metrics_final_ensemble"};
        for (int m = 0; m < 2; ++m) {
            const rx_metrics *x = ms[m];
            if (!x->valid)
                continue;
            fprintf(f, "  \"%s\": {\"models\": %lld, \"test_examples\": %lld",
                    names[m], (long long)x->n_models, (long long)x->n_test);
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
                    fprintf(f, ", \"ood_examples\": %lld, ",
                            (long long)x->n_ood);
                    rx__json_kv(f, "entropy_ood", x->entropy_ood);
                    fputs(", ", f);
                    rx__json_kvec(f, "entropy_ood_q10_q50_q90",
                                  x->entropy_ood_q, 3);
                }
            } else {
                fputs(", ", f);
                rx__json_kv(f, "rmse", x->rmse);
                fputs(", ", f);
                rx__json_kv(f, "nll", x->nll);
            }
            fprintf(f, "},\n");
        }
    }
    if (c->cfg.faults.policy == 1 && c->parts) {
        int64_t tot = 0;
        for (int i = 0; i < P; ++i)
            tot += c->parts[i] ? c->parts[i]->rollbacks : 0;
        fprintf(f, "  \"faults\": {\"policy\": \"rollback\", \"rollbacks\": "
                "%lld, \"chains\": [", (long long)tot);
        int first = 1;
        for (int i = 0; i < P; ++i) {
            const rx__particle *pp = c->parts[i];
            if (!pp || pp->rollbacks == 0)
                continue;
            fprintf(f, "%s{\"particle\": %d, \"rollbacks\": %d, "
                    "\"last_iteration\": %lld, ",
                    first ? "" : ", ", i, (int)pp->rollbacks,
                    (long long)pp->last_rollback_k);
            rx__json_kv(f, "step_scale", pp->step_scale);
            fputc('}', f);
            first = 0;
        }
        fprintf(f, "]},\n");
    }
    /* timing last: the only part that is not a function of (config, seed) */
    double steps = (double)K * (double)P;
    fprintf(f,
            "  \"timing\": {\"threads\": %d, \"wall_s\": %.6f, "
            "\"chain_steps_per_s\": %.1f",
            c->nt_used, c->wall_s,
            c->wall_s - c->eval_s > 0 ? steps / (c->wall_s - c->eval_s)
                                      : 0.0);
    fprintf(f, ", \"sync\": \"%s\"", c->partner ? "partner" : "barrier");
    if (c->final_cut) {
        fprintf(f, ", \"chains_per_thread\": [");
        for (int t = 0; t < c->nt_used; ++t)
            fprintf(f, "%s%d", t ? ", " : "",
                    c->final_cut[t + 1] - c->final_cut[t]);
        fprintf(f, "], \"balance_changes\": %lld, \"noise_helped\": %lld",
                (long long)c->lb_changes, (long long)c->noise_helped);
    }
    if (c->wait_share) {
        fprintf(f, ", \"wait_share\": [");
        for (int t = 0; t < c->nt_used; ++t) {
            fputs(t ? ", " : "", f);
            rx__json_num(f, "%.4f", c->wait_share[t]);
        }
        fprintf(f, "]");
    }
    if (c->start_s >= 0.0)
        fprintf(f, ", \"start_s\": %.6f", c->start_s);
    else
        fprintf(f, ", \"start_s\": null");
    if (c->steal_share >= 0.0)
        fprintf(f, ", \"steal_share\": %.4f", c->steal_share);
    else
        fprintf(f, ", \"steal_share\": null");
    if (c->vc.on)
        fprintf(f,
                ", \"variance_reduction\": {\"seconds\": %.6f, "
                "\"gradient_seconds\": %.6f, \"gradient_equivalents\": "
                "%.6g, \"gradient_equivalents_per_chain_iter\": %.6g}",
                vr_s, vr_grad_s, vr_equiv, vr_equiv_per);
    if (c->ev.on) {
        fprintf(f, ", \"evaluation_s\": %.6f", c->eval_s);
        /* what the run needs: data once, P particles (theta, gradient and
         * optimiser state in double), the samples, per-thread scratch */
        int stateful = c->parts && c->parts[0] && c->parts[0]->state;
        /* faults.policy rollback keeps a second copy of each */
        double parts = (double)c->P * (double)c->dim * 8.0 *
                       (stateful ? 3 : 2) *
                       (c->cfg.faults.policy == 1 ? 2 : 1);
        double smp = (double)c->n_samples * (double)c->dim * 4.0;
        struct rusage ru;
        double peak = getrusage(RUSAGE_SELF, &ru) == 0
                          ? (double)ru.ru_maxrss * 1024.0 : 0.0;
        fprintf(f,
                ", \"memory_mb\": {\"peak_rss\": %.1f, \"data\": %.1f, "
                "\"particles\": %.1f, \"samples\": %.1f, \"scratch\": "
                "%.1f}",
                peak / 1048576.0, c->mem_data / 1048576.0, parts / 1048576.0,
                smp / 1048576.0, c->mem_scratch / 1048576.0);
    }
    if (c->cfg.record.phase_timing && K > 0) {
        static const char *const names[RX_NPHASES] = {
            "step", "energy", "barrier_wait", "exchange", "adapt", "record"};
        fprintf(f, ", \"us_per_iter\": {");
        for (int j = 0; j < RX_NPHASES; ++j) {
            fprintf(f, "%s\"%s\": ", j ? ", " : "", names[j]);
            rx__json_num(f, "%.4f", 1e6 * c->phase_s[j] / (double)K);
        }
        fprintf(f, "}");
        if (c->thread_phase_s) {
            fprintf(f, ", \"us_per_iter_by_thread\": [");
            for (int t = 0; t < c->nt_used; ++t) {
                fprintf(f, "%s[", t ? ", " : "");
                for (int j = 0; j < RX_NPHASES; ++j) {
                    fputs(j ? ", " : "", f);
                    rx__json_num(f, "%.4f",
                                 1e6 * c->thread_phase_s[t * RX_NPHASES + j] /
                                     (double)K);
                }
                fprintf(f, "]");
            }
            fprintf(f, "]");
        }
    }
    fprintf(f, "}\n}\n");
    if (fclose(f) != 0)
        return io_fail(c, "write failed", path);
    return RX_OK;
}

static rx_status write_trace(rx_ctx *c, const char *path)
{
    FILE *f = fopen(path, "w");
    if (!f)
        return io_fail(c, "cannot create", path);
    size_t cap = rx__rec_trace_header_len(&c->rec) + 1;
    char *hdr = malloc(cap);
    if (!hdr) {
        fclose(f);
        return rx__fail(&c->err, RX_ENOMEM, "out of memory");
    }
    rx__rec_trace_header(&c->rec, hdr, cap);
    fprintf(f, "%s\n", hdr);
    free(hdr);
    const int nc = c->rec.n_trace_cols;
    for (int64_t i = 0; i < c->rec.n_trace; ++i) {
        const double *row = c->rec.trace + (size_t)i * (size_t)nc;
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

static int rm_rf(const char *dir)
{
    return nftw(dir, rm_cb, 16, FTW_DEPTH | FTW_PHYS);
}

rx_status rx_write_rundir(const rx_ctx *cc, const char *dir, int force,
                          const char *source)
{
    rx_ctx *c = (rx_ctx *)cc; /* only c->err is written */
    if (!c || !dir || !dir[0])
        return RX_EINVAL;
    if (!c->ran)
        return rx__fail(&c->err, RX_EINVAL,
                        "rx_write_rundir: the context has not run");
    struct stat sb;
    if (stat(dir, &sb) == 0 && !force)
        return rx__fail(&c->err, RX_EIO,
                        "%s: already exists; choose another -o or pass "
                        "--force",
                        dir);
    size_t L = strlen(dir) + 64;
    char *tmp = malloc(L), *p = malloc(L + 32);
    if (!tmp || !p) {
        free(tmp);
        free(p);
        return rx__fail(&c->err, RX_ENOMEM, "out of memory");
    }
    snprintf(tmp, L, "%s.tmp-%ld", dir, (long)getpid());
    rm_rf(tmp);
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
    st = rx_config_write(&c->cfg, p, &c->err);
    if (st != RX_OK)
        goto fail;
    snprintf(p, L + 32, "%s/summary.json", tmp);
    if ((st = write_summary(c, p, source)) != RX_OK)
        goto fail;
    snprintf(p, L + 32, "%s/trace.csv", tmp);
    if ((st = write_trace(c, p)) != RX_OK)
        goto fail;
    snprintf(p, L + 32, "%s/index.npy", tmp);
    if ((st = write_npy(c, p, "<i4", c->rec.index, 4, c->rec.n_index,
                        c->P)) != RX_OK)
        goto fail;
    snprintf(p, L + 32, "%s/samples.npy", tmp);
    if ((st = write_npy(c, p, "<f4", c->samples, 4, c->samples ? c->n_samples : 0,
                        (int64_t)c->dim)) != RX_OK)
        goto fail;
    snprintf(p, L + 32, "%s/" RX_MARKER_FILE, dir);
    if (force && lstat(dir, &sb) == 0 &&
        (!S_ISDIR(sb.st_mode) || lstat(p, &sb) != 0)) {
        st = rx__fail(&c->err, RX_EIO, "%s: not a directory replex wrote "
                      "(no " RX_MARKER_FILE " file): not replaced", dir);
        goto fail;
    }
    if (force && lstat(dir, &sb) == 0 && rm_rf(dir) != 0) {
        st = io_fail(c, "cannot replace", dir);
        goto fail;
    }
    if (rename(tmp, dir) != 0) {
        st = io_fail(c, "cannot rename the finished run directory to", dir);
        goto fail;
    }
    goto out;
fail:
    rm_rf(tmp);
out:
    free(tmp);
    free(p);
    return st;
}
