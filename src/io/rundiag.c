/*
 * Convergence diagnostics of finished runs (rundiag.h): which draws and
 * coordinates are looked at, the summary's "diagnostics" block, the lines
 * printed after a run, and the replicates' summary with R-hat. The
 * figures themselves come from src/record/ess.c; the importance weights'
 * ESS from the bias outputs (rundir_bias.c).
 */
#define _POSIX_C_SOURCE 200809L
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../config/config.h"
#include "../engine/state.h"
#include "../record/ess.h"
#include "json.h"
#include "paramtab.h"
#include "rundiag.h"
#include "rundir_bias.h"

/* Rows of samples per kept iteration: P with record.all_positions (the
 * target position first), else 1. */
static int64_t rows_per_draw(const rx_ctx *c, const rx_results *r)
{
    return rx__ctx_cfg(c)->record.all_positions ? r->n_chains : 1;
}

/* The coordinates evaluated (rundiag.h): returns how many. */
static int pick_coords(size_t dim, int64_t *coord)
{
    const size_t n = dim < RX__DIAG_COORDS ? dim : RX__DIAG_COORDS;
    for (size_t i = 0; i < n; ++i)
        coord[i] = (int64_t)(i * dim / n);
    return (int)n;
}

/* Coordinate j of the target position's n draws, as doubles. */
static void target_column(const rx_results *r, int64_t per, int64_t n,
                          int64_t j, double *out)
{
    for (int64_t i = 0; i < n; ++i)
        out[i] = (double)r->samples[(size_t)(i * per) * r->dim + (size_t)j];
}

static int dbl_cmp(const void *a, const void *b)
{
    double p = *(const double *)a, q = *(const double *)b;
    return (p > q) - (p < q);
}

/* The median, smallest and largest (max may be NULL) of the finite
 * values among v[0..n-1]; NaN when none is finite. tmp: n doubles. */
static void spread(const double *v, int n, double *tmp, double *median,
                   double *min, double *max)
{
    int m = 0;
    for (int i = 0; i < n; ++i)
        if (isfinite(v[i]))
            tmp[m++] = v[i];
    if (m == 0) {
        *median = *min = NAN;
        if (max)
            *max = NAN;
        return;
    }
    qsort(tmp, (size_t)m, sizeof(double), dbl_cmp);
    *median = m % 2 ? tmp[m / 2] : 0.5 * (tmp[m / 2 - 1] + tmp[m / 2]);
    *min = tmp[0];
    if (max)
        *max = tmp[m - 1];
}

/* Field k (0 bulk, 1 tail, 2 tau) of e[0..n-1] into v. */
static void ess_field(const rx_ess_info *e, int n, int k, double *v)
{
    for (int i = 0; i < n; ++i)
        v[i] = k == 0 ? e[i].ess_bulk : k == 1 ? e[i].ess_tail : e[i].tau;
}

rx_status rx__rundiag_get(rx_ctx *c, const rx__paramtab *pt, rx__rundiag *d)
{
    memset(d, 0, sizeof *d);
    rx__runview view;
    rx__run_view(c, &view);
    const rx_results *r = &view.res;
    const int64_t per = rows_per_draw(c, r);
    d->draws = r->samples ? r->n_samples / per : 0;
    d->dim = r->dim;
    d->n_chains = r->n_chains;
    d->lambda = rx__barrier_lambda(r->pairs, r->n_chains - 1);
    d->suggested = rx__barrier_chains(d->lambda);
    d->rule = view.cfg->tempering.rule;
    d->applies = (rx__xtest_row(d->rule)->row.props & RX__XT_EXACT) != 0;
    d->rounds = view.rounds < 64 ? view.rounds : 64;
    d->round0 = view.cfg->ladder.barrier_round;
    d->round_lambda = view.round_lambda;
    int64_t nw = 0;
    d->weighted = rx__target_weights_ess(c, &d->weights_ess, &nw);
    d->bulk_min = d->bulk_median = d->tail_min = d->tail_median = NAN;
    d->tau_median = d->tau_max = NAN;
    if (d->draws < 4 || d->dim == 0)
        return RX_OK;
    const int nc = pick_coords(d->dim, d->coord);
    double *col = malloc(sizeof(double) * (size_t)d->draws);
    rx__ess_work *ew = rx__ess_work_new(1, d->draws);
    if (!col || !ew) {
        free(col);
        rx__ess_work_free(ew);
        return rx__fail(rx__ctx_err(c), RX_ENOMEM,
                        "diagnostics: out of memory");
    }
    for (int i = 0; i < nc; ++i) {
        target_column(r, per, d->draws, d->coord[i], col);
        int finite = 1;
        for (int64_t t = 0; t < d->draws && finite; ++t)
            finite = isfinite(col[t]);
        rx_ess_info e = {NAN, NAN, NAN, NAN};
        /* the table's row of this coordinate: the draws' bulk and tail */
        const rx__param_stats *row =
            pt && pt->chains == 1 && pt->draws == d->draws &&
                    pt->dim == d->dim &&
                    d->coord[i] < (int64_t)(pt->n_rows - pt->n_named)
                ? &pt->row[pt->n_named + d->coord[i]]
                : NULL;
        if (finite)
            rx__ess_parts(ew, col,
                          RX__ESS_MEAN |
                              (row ? 0u : RX__ESS_BULK | RX__ESS_TAIL),
                          &e, NULL);
        if (finite && row) {
            e.ess_bulk = row->raw_bulk;
            e.ess_tail = row->raw_tail;
        }
        d->ess[i] = e;
    }
    rx__ess_work_free(ew);
    d->n_coords = nc;
    double v[RX__DIAG_COORDS], tmp[RX__DIAG_COORDS], unused;
    ess_field(d->ess, nc, 0, v);
    spread(v, nc, tmp, &d->bulk_median, &d->bulk_min, NULL);
    ess_field(d->ess, nc, 1, v);
    spread(v, nc, tmp, &d->tail_median, &d->tail_min, NULL);
    ess_field(d->ess, nc, 2, v);
    spread(v, nc, tmp, &d->tau_median, &unused, &d->tau_max);
    free(col);
    return RX_OK;
}

/* "key": [c0, c1, ...] of coordinate indices */
static void json_coords(FILE *f, const char *key, const int64_t *c, int n)
{
    fprintf(f, "\"%s\": [", key);
    for (int i = 0; i < n; ++i)
        fprintf(f, "%s%lld", i ? ", " : "", (long long)c[i]);
    fputc(']', f);
}

/* ", \"key\": value" */
static void kv_more(FILE *f, const char *key, double v)
{
    fputs(", ", f);
    rx__json_kv(f, key, v);
}

static void json_ess(FILE *f, const rx__rundiag *d)
{
    const int n = d->n_coords;
    if (n == 0) {
        fprintf(f, "\"ess\": null");
        return;
    }
    double v[RX__DIAG_COORDS];
    fprintf(f, "\"ess\": {\"dim\": %zu, ", d->dim);
    json_coords(f, "coordinates", d->coord, n);
    static const char *const key[3] = {"bulk", "tail", "tau"};
    for (int k = 0; k < 3; ++k) {
        ess_field(d->ess, n, k, v);
        fputs(",\n      ", f);
        rx__json_kvec(f, key[k], v, n);
    }
    fputs(",\n      ", f);
    rx__json_kv(f, "bulk_min", d->bulk_min);
    kv_more(f, "bulk_median", d->bulk_median);
    kv_more(f, "tail_min", d->tail_min);
    kv_more(f, "tail_median", d->tail_median);
    kv_more(f, "tau_median", d->tau_median);
    kv_more(f, "tau_max", d->tau_max);
    fprintf(f, ", \"enough\": %s",
            d->bulk_min >= RX_ESS_ENOUGH && d->tail_min >= RX_ESS_ENOUGH
                ? "true"
                : "false");
    fputc('}', f);
}

static void json_barrier(FILE *f, const rx__rundiag *d)
{
    if (isnan(d->lambda)) { /* no pair was ever evaluated */
        fprintf(f, "\"barrier\": null");
        return;
    }
    fprintf(f, "\"barrier\": {");
    rx__json_kv(f, "lambda", d->lambda);
    fprintf(f, ", \"suggested_chains\": %d, \"suggestion_applies\": %s, "
            "\"rule\": \"%s\", \"n_chains\": %d",
            d->suggested, d->applies ? "true" : "false",
            rx__rule_name(d->rule), d->n_chains);
    if (d->rounds > 0) {
        fprintf(f, ",\n      \"rounds\": [");
        for (int64_t j = 0; j < d->rounds; ++j) {
            const int64_t len = d->round0 << j;
            const int64_t last = d->round0 * ((INT64_C(2) << j) - 1) - 1;
            fprintf(f, "%s{\"round\": %lld, \"iterations\": %lld, "
                    "\"last_iteration\": %lld, ",
                    j ? ",\n        " : "", (long long)(j + 1),
                    (long long)len, (long long)last);
            rx__json_kv(f, "lambda", d->round_lambda[j]);
            fprintf(f, ", \"suggested_chains\": %d}",
                    rx__barrier_chains(d->round_lambda[j]));
        }
        fputc(']', f);
    }
    fputc('}', f);
}

void rx__rundiag_json(FILE *f, const rx__rundiag *d)
{
    fprintf(f, "  \"diagnostics\": {\"draws\": %lld,\n    ",
            (long long)d->draws);
    json_ess(f, d);
    fputs(",\n    ", f);
    json_barrier(f, d);
    if (d->weighted) {
        fputs(",\n    \"weights\": {", f);
        rx__json_kv(f, "ess", d->weights_ess);
        kv_more(f, "ess_fraction",
                d->draws > 0 ? d->weights_ess / (double)d->draws : 0.0);
        fputc('}', f);
    }
    fputs("},\n", f);
}

/* The barrier ladder's rounds, one line each, the last
 * RX__DIAG_ROUNDS_SHOWN of them. */
static void print_rounds(FILE *f, const rx__rundiag *d)
{
    const int64_t first = d->rounds > RX__DIAG_ROUNDS_SHOWN
                              ? d->rounds - RX__DIAG_ROUNDS_SHOWN
                              : 0;
    fprintf(f, "barrier ladder, %lld adaptation round%s:\n"
            "  round  iterations  Lambda  chains suggested\n",
            (long long)d->rounds, d->rounds == 1 ? "" : "s");
    if (first > 0)
        fprintf(f, "  (rounds 1 to %lld not shown; summary.json "
                "diagnostics.barrier.rounds has all)\n", (long long)first);
    for (int64_t j = first; j < d->rounds; ++j)
        fprintf(f, "  %5lld  %10lld  %6.3f  %16d\n", (long long)(j + 1),
                (long long)(d->round0 << j), d->round_lambda[j],
                rx__barrier_chains(d->round_lambda[j]));
}

void rx__rundiag_print(FILE *f, const rx__rundiag *d)
{
    if (d->n_coords > 0) {
        char cover[64] = "";
        if ((size_t)d->n_coords < d->dim)
            snprintf(cover, sizeof cover, "%d of %zu coordinates",
                     d->n_coords, d->dim);
        else
            snprintf(cover, sizeof cover, "%zu coordinate%s", d->dim,
                     d->dim == 1 ? "" : "s");
        fprintf(f, "ESS (%lld target draws, %s): bulk min %.0f, "
                "median %.0f; tail min %.0f; autocorrelation time max "
                "%.3g draws\n",
                (long long)d->draws, cover, d->bulk_min, d->bulk_median,
                d->tail_min, d->tau_max);
    } else {
        fprintf(f, "ESS: not computed (%lld target draws kept; at least "
                "4 needed)\n", (long long)d->draws);
    }
    if (!isnan(d->lambda) && d->applies) {
        fprintf(f, "communication barrier Lambda %.3g over %d pairs: %d "
                "chains suggested (this run %d)\n",
                d->lambda, d->n_chains - 1, d->suggested, d->n_chains);
        if (d->rounds > 0)
            print_rounds(f, d);
    } else if (!isnan(d->lambda)) {
        fprintf(f, "rejection summed over the %d pairs %.3g (no chain "
                "count suggested: the %s rule sets its own acceptance)\n",
                d->n_chains - 1, d->lambda, rx__rule_name(d->rule));
    }
    if (d->weighted)
        fprintf(f, "importance weights: ESS %.0f of %lld draws (%.1f %%)\n",
                d->weights_ess, (long long)d->draws,
                d->draws > 0 ? 100.0 * d->weights_ess / (double)d->draws
                             : 0.0);
}

int rx__rundiag_unconverged(const rx__rundiag *dp, char *msg, size_t cap)
{
    const rx__rundiag d = *dp;
    if (d.n_coords == 0 ||
        (d.bulk_min >= RX_ESS_ENOUGH && d.tail_min >= RX_ESS_ENOUGH))
        return 0;
    snprintf(msg, cap, "not converged: the smallest bulk ESS is %.0f and "
             "the smallest tail ESS %.0f of %lld draws, under %d: the "
             "sample means, modes and densities of this run are not "
             "reliable (a mode may be missing); raise iterations",
             d.bulk_min, d.tail_min, (long long)d.draws, RX_ESS_ENOUGH);
    return 1;
}

void rx__rundiag_report(FILE *f, rx_ctx *c, const rx__rundiag *d,
                        const rx__paramtab *t)
{
    rx__rundiag dc;
    if (d)
        rx__rundiag_print(f, d);
    else if (rx__rundiag_get(c, NULL, &dc) == RX_OK)
        rx__rundiag_print(f, &dc);
    else
        fprintf(f, "diagnostics: %s\n", rx_errmsg(c));
    rx__paramtab tc;
    rx_ctx *const one = c;
    if (t)
        rx__paramtab_print(f, t, "summary.csv and summary.json");
    else if (rx__paramtab_get(&one, 1, &tc, rx__ctx_err(c)) == RX_OK)
        rx__paramtab_print(f, &tc, "summary.csv and summary.json");
    else
        fprintf(f, "parameters: %s\n", rx_errmsg(c));
    if (!t)
        rx__paramtab_free(&tc);
}

/* ---- replicates ---------------------------------------------------------*/

/* The replicates' figures per coordinate: R-hat and the pooled ESS. */
typedef struct {
    int64_t draws;
    size_t dim;
    int nc;
    int64_t coord[RX__DIAG_COORDS];
    double rhat[RX__DIAG_COORDS];
    rx_ess_info ess[RX__DIAG_COORDS];
} rep_fig;

static rx_status rep_figures(rx_ctx *const *runs, int n, rep_fig *g,
                             rx_err *err)
{
    rx_results r0;
    rx_get_results(runs[0], &r0);
    const int64_t per0 = rows_per_draw(runs[0], &r0);
    g->draws = r0.samples ? r0.n_samples / per0 : 0;
    g->dim = r0.dim;
    g->nc = 0;
    for (int i = 1; i < n; ++i) {
        rx_results ri;
        rx_get_results(runs[i], &ri);
        int64_t di = ri.samples ? ri.n_samples / rows_per_draw(runs[i], &ri)
                                : 0;
        if (di != g->draws || ri.dim != g->dim)
            return rx__fail(err, RX_EINVAL,
                            "replicates: run %d has %lld draws of %zu "
                            "coordinates, run 1 %lld of %zu",
                            i + 1, (long long)di, ri.dim,
                            (long long)g->draws, g->dim);
    }
    if (g->draws < 4 || g->dim == 0)
        return RX_OK;
    const int nc = pick_coords(g->dim, g->coord);
    const size_t nd = (size_t)g->draws;
    double *x = malloc(sizeof(double) * nd * (size_t)n);
    rx__ess_work *ew = rx__ess_work_new(n, g->draws);
    if (!x || !ew) {
        free(x);
        rx__ess_work_free(ew);
        return rx__fail(err, RX_ENOMEM, "replicates: out of memory");
    }
    rx_status st = RX_OK;
    for (int j = 0; j < nc && st == RX_OK; ++j) {
        int finite = 1;
        for (int i = 0; i < n; ++i) {
            rx_results ri;
            rx_get_results(runs[i], &ri);
            target_column(&ri, rows_per_draw(runs[i], &ri), g->draws,
                          g->coord[j], x + (size_t)i * nd);
        }
        for (size_t t = 0; t < nd * (size_t)n && finite; ++t)
            finite = isfinite(x[t]);
        g->rhat[j] = NAN;
        g->ess[j] = (rx_ess_info){NAN, NAN, NAN, NAN};
        if (finite)
            rx__ess_parts(ew, x, RX__ESS_MEAN | RX__ESS_BULK | RX__ESS_TAIL |
                                     RX__ESS_RHAT,
                          &g->ess[j], &g->rhat[j]);
    }
    free(x);
    rx__ess_work_free(ew);
    if (st != RX_OK)
        return rx__fail(err, st, "replicates: out of memory");
    g->nc = nc;
    return RX_OK;
}

/* One replicate's line of the summary's "runs". */
static rx_status rep_run_json(FILE *f, rx_ctx *c, const char *dir)
{
    rx__rundiag d;
    rx_status st = rx__rundiag_get(c, NULL, &d);
    if (st != RX_OK)
        return st;
    rx_results r;
    rx_get_results(c, &r);
    fprintf(f, "    {\"dir\": ");
    rx__json_str(f, dir);
    fprintf(f, ", \"seed\": %llu, \"draws\": %lld, ",
            (unsigned long long)rx__ctx_cfg(c)->seed, (long long)d.draws);
    rx__json_kv(f, "ess_bulk_min", d.bulk_min);
    kv_more(f, "ess_bulk_median", d.bulk_median);
    kv_more(f, "ess_tail_min", d.tail_min);
    kv_more(f, "tau_max", d.tau_max);
    if (!isnan(d.lambda)) {
        kv_more(f, "lambda", d.lambda);
        fprintf(f, ", \"suggested_chains\": %d, \"suggestion_applies\": %s",
                d.suggested, d.applies ? "true" : "false");
    }
    if (d.weighted)
        kv_more(f, "weights_ess", d.weights_ess);
    if (r.log_z.beta) {
        kv_more(f, "log_z", r.log_z.estimate);
        kv_more(f, "log_z_se", r.log_z.se);
    }
    kv_more(f, "a5_per_1000",
            r.iterations > 0
                ? 1000.0 * (double)r.trips_a5 / (double)r.iterations
                : 0.0);
    fputc('}', f);
    return RX_OK;
}

/* The copies' log Z (ladder.path reference): their mean, the sd across
 * them (n - 1 in the denominator) and the mean of their reported se.
 * 0 when a copy has no estimate (then nothing is set). */
static int rep_log_z(rx_ctx *const *runs, int n, double *mean, double *sd,
                     double *se_mean)
{
    double s1 = 0.0, se = 0.0;
    for (int i = 0; i < n; ++i) {
        rx_results r;
        rx_get_results(runs[i], &r);
        if (!r.log_z.beta || !r.log_z.valid)
            return 0;
        s1 += r.log_z.estimate;
        se += r.log_z.se;
    }
    *mean = s1 / n;
    double ss = 0.0;
    for (int i = 0; i < n; ++i) {
        rx_results r;
        rx_get_results(runs[i], &r);
        ss += (r.log_z.estimate - *mean) * (r.log_z.estimate - *mean);
    }
    *sd = sqrt(ss / (n - 1));
    *se_mean = se / n;
    return 1;
}

/* "log_z": the copies' estimates compared, a line ending in ",\n". */
static void rep_log_z_json(FILE *f, rx_ctx *const *runs, int n)
{
    double mean, sd, se;
    if (!rep_log_z(runs, n, &mean, &sd, &se))
        return;
    fputs("  \"log_z\": {", f);
    rx__json_kv(f, "mean", mean);
    kv_more(f, "sd", sd);
    kv_more(f, "se_mean", se);
    fputs("},\n", f);
}

static void rep_diag_json(FILE *f, const rep_fig *g, int n)
{
    fprintf(f, "  \"diagnostics\": {\"chains\": %d, \"draws_per_chain\": "
            "%lld, \"dim\": %zu",
            n, (long long)g->draws, g->dim);
    if (g->nc == 0) {
        fprintf(f, ", \"rhat\": null}\n");
        return;
    }
    double v[RX__DIAG_COORDS], tmp[RX__DIAG_COORDS], med, mn, mx;
    fputs(",\n    ", f);
    json_coords(f, "coordinates", g->coord, g->nc);
    fputs(",\n    ", f);
    rx__json_kvec(f, "rhat", g->rhat, g->nc);
    spread(g->rhat, g->nc, tmp, &med, &mn, &mx);
    fputs(",\n    ", f);
    rx__json_kv(f, "rhat_max", mx);
    static const char *const key[2] = {"ess_bulk", "ess_tail"};
    for (int k = 0; k < 2; ++k) {
        ess_field(g->ess, g->nc, k, v);
        fputs(",\n    ", f);
        rx__json_kvec(f, key[k], v, g->nc);
        spread(v, g->nc, tmp, &med, &mn, NULL);
        fprintf(f, ",\n    \"%s_min\": ", key[k]);
        rx__json_num(f, NULL, mn); /* as every other number */
    }
    fputs("}\n", f);
}

static rx_status rep_write(rx_ctx *const *runs, const char *const *dirs,
                           int n, const char *path, const char *source,
                           const rep_fig *gp, const rx__paramtab *pt,
                           rx_err *err);
static rx_status rep_csv(const char *path, const rx__paramtab *pt,
                         rx_err *err);

rx_status rx__replicates_summary(rx_ctx *const *runs, const char *const *dirs,
                                 int n, const char *path, const char *source,
                                 rx__repdiag *out, rx_err *err)
{
    if (!runs || !dirs || !path || n < 2)
        return rx__fail(err, RX_EINVAL,
                        "replicates summary: needs at least 2 runs");
    rep_fig g;
    rx_status st = rep_figures(runs, n, &g, err);
    if (st != RX_OK)
        return st;
    rx__paramtab pt;
    if ((st = rx__paramtab_get(runs, n, &pt, err)) != RX_OK)
        return st;
    st = rep_write(runs, dirs, n, path, source, &g, &pt, err);
    if (st == RX_OK)
        st = rep_csv(path, &pt, err);
    if (st == RX_OK && out) {
        double v[RX__DIAG_COORDS], t[RX__DIAG_COORDS], med, mn;
        out->n_coords = g.nc;
        out->rhat_max = NAN;
        out->rhat_max_coord = -1;
        for (int j = 0; j < g.nc; ++j)
            if (isfinite(g.rhat[j]) &&
                (isnan(out->rhat_max) || g.rhat[j] > out->rhat_max)) {
                out->rhat_max = g.rhat[j];
                out->rhat_max_coord = g.coord[j];
            }
        ess_field(g.ess, g.nc, 0, v);
        spread(v, g.nc, t, &med, &mn, NULL);
        out->bulk_min = mn;
        out->has_log_z = rep_log_z(runs, n, &out->log_z_mean,
                                   &out->log_z_sd, &out->log_z_se_mean);
        out->table = pt;
    } else {
        rx__paramtab_free(&pt);
    }
    return st;
}

/* summary.csv beside the replicates' summary.json at path. */
static rx_status rep_csv(const char *path, const rx__paramtab *pt,
                         rx_err *err)
{
    const size_t L = strlen(path);
    char *csv = malloc(L + 8);
    if (!csv)
        return rx__fail(err, RX_ENOMEM, "replicates: out of memory");
    memcpy(csv, path, L + 1);
    if (L >= 5 && !strcmp(csv + L - 5, ".json"))
        csv[L - 5] = '\0';
    strcat(csv, ".csv");
    rx_status st = rx__paramtab_csv(pt, csv, err);
    free(csv);
    return st;
}

/* The replicates' summary.json (temporary file, renamed). */
static rx_status rep_write(rx_ctx *const *runs, const char *const *dirs,
                           int n, const char *path, const char *source,
                           const rep_fig *gp, const rx__paramtab *pt,
                           rx_err *err)
{
    rep_fig g = *gp;
    rx_status st = RX_OK;
    size_t L = strlen(path) + 32;
    char *tmp = malloc(L);
    if (!tmp)
        return rx__fail(err, RX_ENOMEM, "replicates: out of memory");
    snprintf(tmp, L, "%s.tmp-%ld", path, (long)getpid());
    FILE *f = fopen(tmp, "w");
    if (!f) {
        st = rx__fail(err, RX_EIO, "%s: cannot create: %s", tmp,
                      strerror(errno));
        free(tmp);
        return st;
    }
    fprintf(f, "{\n  \"replex_version\": \"%s\",\n  \"source\": ",
            RX_VERSION_STRING);
    rx__json_str(f, source);
    fprintf(f, ",\n  \"replicates\": %d,\n  \"runs\": [\n", n);
    for (int i = 0; i < n && st == RX_OK; ++i) {
        st = rep_run_json(f, runs[i], dirs[i]);
        fputs(i + 1 < n ? ",\n" : "\n  ],\n", f);
    }
    if (st == RX_OK) {
        rep_log_z_json(f, runs, n);
        rx__paramtab_json(f, pt);
        rx__paramtab_verdict_json_at(f, pt, 2);
        rep_diag_json(f, &g, n);
    }
    fputs("}\n", f);
    if (fclose(f) != 0 && st == RX_OK)
        st = rx__fail(err, RX_EIO, "%s: write failed: %s", tmp,
                      strerror(errno));
    else if (st != RX_OK)
        rx__fail(err, st, "replicates: out of memory");
    if (st == RX_OK && rename(tmp, path) != 0)
        st = rx__fail(err, RX_EIO, "%s: cannot rename to %s: %s", tmp, path,
                      strerror(errno));
    if (st != RX_OK)
        remove(tmp);
    free(tmp);
    return st;
}

void rx__repdiag_print(FILE *f, const rx__repdiag *d, int n)
{
    if (d->has_log_z)
        fprintf(f, "log Z over the %d replicates: mean %.4f, sd across "
                "them %.4f (their reported se %.4f on average)\n",
                n, d->log_z_mean, d->log_z_sd, d->log_z_se_mean);
    if (d->n_coords == 0) {
        fprintf(f, "R-hat: not computed (fewer than 4 target draws per "
                "replicate)\n");
        rx__paramtab_print(f, &d->table, "summary.csv and summary.json");
        return;
    }
    fprintf(f, "over the %d replicates: R-hat max %.4f (coordinate %lld); "
            "pooled bulk ESS min %.0f\n",
            n, d->rhat_max, (long long)d->rhat_max_coord, d->bulk_min);
    rx__paramtab_print(f, &d->table, "summary.csv and summary.json");
}

void rx__repdiag_free(rx__repdiag *d)
{
    if (d)
        rx__paramtab_free(&d->table);
}
