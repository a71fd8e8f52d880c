/*
 * The per-parameter table (paramtab.h): which quantities get a row, read
 * from the runs through the engine's view (state.h); the figures of each
 * row come from src/record/param.c. A network's weights are not
 * identifiable one by one (hidden units permute, signs flip), so its
 * table leads with what is: the log density and the sampled precisions,
 * and the warnings judge only those.
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../config/config.h"
#include "../engine/state.h"
#include "../target/target.h"
#include "json.h"
#include "paramtab.h"

/* What a quantity of the table is read from. */
typedef enum { SRC_LP, SRC_EXP, SRC_SD, SRC_COORD } src_kind;

typedef struct {
    src_kind kind;
    int64_t j;      /* the coordinate: SRC_EXP exp of it, SRC_SD
                       scale exp(-x / 2) of it, SRC_COORD itself */
    double scale;   /* SRC_SD */
} src;

/* Draw t of run v's target position, of quantity s. */
static double value(const rx__runview *v, int64_t per, int64_t t, src s)
{
    const size_t row = (size_t)(t * per);
    if (s.kind == SRC_LP)
        return -v->energy[row];
    const double x = (double)v->res.samples[row * v->res.dim + (size_t)s.j];
    return s.kind == SRC_EXP  ? exp(x)
           : s.kind == SRC_SD ? s.scale * exp(-0.5 * x)
                              : x;
}

static int64_t per_draw(const rx__runview *v)
{
    return v->cfg->record.all_positions ? v->res.n_chains : 1;
}

/* The named rows (lp, a network's precisions and its noise sd) into
 * t->name and s; returns how many (at most RX__PARAM_NAMED_MAX). The
 * noise precision e^rho is of the standardised targets (data.
 * standardise_target); the noise sd 1 / sqrt(e^rho) times the targets'
 * training sd is in the units of y, as the test RMSE. */
static int named_rows(const rx__runview *v, rx__paramtab *t, src *s)
{
    int k = 0;
    if (v->energy) {
        snprintf(t->name[k], sizeof t->name[k], "lp");
        s[k++] = (src){SRC_LP, 0, 0.0};
    }
    if (!t->network)
        return k;
    const int learn = v->cfg->model.learn_precision != 0;
    const int hyper = v->cfg->model.weight_precision_a > 0.0;
    if (hyper && t->dim >= (size_t)(1 + learn)) {
        snprintf(t->name[k], sizeof t->name[k], "weight_precision");
        s[k++] = (src){SRC_EXP, (int64_t)t->dim - 1 - learn, 0.0};
    }
    if (learn && t->dim >= 1) {
        snprintf(t->name[k], sizeof t->name[k], "noise_precision");
        s[k++] = (src){SRC_EXP, (int64_t)t->dim - 1, 0.0};
        snprintf(t->name[k], sizeof t->name[k], "noise_sd");
        s[k++] = (src){SRC_SD, (int64_t)t->dim - 1,
                       rx__network_y_sd(v->target)};
    }
    return k;
}

void rx__paramtab_free(rx__paramtab *t)
{
    free(t->name);
    free(t->row);
    t->name = NULL;
    t->row = NULL;
    t->n_rows = 0;
}

void rx__paramtab_judge(rx__paramtab *t)
{
    t->ess_min = t->rhat_max = NAN;
    t->ess_min_row = t->rhat_max_row = -1;
    const int n = t->network && t->n_named > 0 ? t->n_named : t->n_rows;
    for (int i = 0; i < n; ++i) {
        const rx__param_stats *r = &t->row[i];
        const double e[3] = {r->ess_mean, r->ess_bulk, r->ess_tail};
        for (int k = 0; k < 3; ++k)
            if (!isnan(e[k]) && (isnan(t->ess_min) || e[k] < t->ess_min)) {
                t->ess_min = e[k];
                t->ess_min_row = i;
            }
        if (!isnan(r->rhat) && (isnan(t->rhat_max) || r->rhat > t->rhat_max)) {
            t->rhat_max = r->rhat;
            t->rhat_max_row = i;
        }
    }
}

rx_status rx__paramtab_get(rx_ctx *const *runs, int n, rx__paramtab *t,
                           rx_err *err)
{
    memset(t, 0, sizeof *t);
    t->ess_min = t->rhat_max = NAN;
    t->ess_min_row = t->rhat_max_row = -1;
    if (n < 1)
        return rx__fail(err, RX_EINVAL, "parameters: no run");
    rx__runview *v = malloc(sizeof *v * (size_t)n);
    if (!v)
        return rx__fail(err, RX_ENOMEM, "parameters: out of memory");
    rx_status st = RX_OK;
    for (int i = 0; i < n; ++i) {
        rx__run_view(runs[i], &v[i]);
        const int64_t d = v[i].res.samples ? v[i].res.n_samples /
                                                 per_draw(&v[i])
                                           : 0;
        if (i == 0) {
            t->draws = d;
            t->dim = v[0].res.dim;
        } else if (d != t->draws || v[i].res.dim != t->dim) {
            st = rx__fail(err, RX_EINVAL, "parameters: run %d has %lld "
                          "draws of %zu coordinates, run 1 %lld of %zu",
                          i + 1, (long long)d, v[i].res.dim,
                          (long long)t->draws, t->dim);
            goto out;
        }
    }
    t->chains = n;
    t->network = v[0].target && rx__target_is_network(v[0].target);
    t->weighted = v[0].res.log_weights != NULL;
    if (n == 1 && v[0].evaluated)
        t->bma = v[0].res.bma;
    if (t->draws < 4)
        goto out;
    const size_t nc = t->dim < RX__PARAM_COORDS_MAX ? t->dim
                                                    : RX__PARAM_COORDS_MAX;
    const size_t cap = nc + RX__PARAM_NAMED_MAX, N = (size_t)n * (size_t)t->draws;
    src *s = malloc(sizeof *s * cap);
    t->name = calloc(cap, sizeof *t->name);
    t->row = malloc(sizeof *t->row * cap);
    double *x = malloc(sizeof(double) * N);
    double *w = t->weighted ? malloc(sizeof(double) * N) : NULL;
    rx__ess_work *ew = rx__ess_work_new(n, t->draws);
    if (!s || !t->name || !t->row || !x || (t->weighted && !w) || !ew) {
        st = rx__fail(err, RX_ENOMEM, "parameters: out of memory");
        goto rows_out;
    }
    for (int i = 1; i < n; ++i)
        if (!v[i].energy)
            v[0].energy = NULL; /* lp only where every run has it */
    int k = named_rows(&v[0], t, s);
    t->n_named = k;
    for (size_t j = 0; j < nc; ++j, ++k) {
        snprintf(t->name[k], sizeof t->name[k], "theta[%zu]", j);
        s[k] = (src){SRC_COORD, (int64_t)j, 0.0};
    }
    for (int i = 0; w && i < n; ++i) {
        const int64_t per = per_draw(&v[i]);
        for (int64_t d = 0; d < t->draws; ++d)
            w[(size_t)i * (size_t)t->draws + (size_t)d] =
                v[i].res.log_weights[d * per];
    }
    for (int r = 0; r < k && st == RX_OK; ++r) {
        for (int i = 0; i < n; ++i) {
            const int64_t per = per_draw(&v[i]);
            for (int64_t d = 0; d < t->draws; ++d)
                x[(size_t)i * (size_t)t->draws + (size_t)d] =
                    value(&v[i], per, d, s[r]);
        }
        if (rx__param_stats_get(x, w, n, t->draws, ew, &t->row[r]) != RX_OK)
            st = rx__fail(err, RX_ENOMEM, "parameters: out of memory");
    }
    t->n_rows = st == RX_OK ? k : 0;
    if (st == RX_OK)
        rx__paramtab_judge(t);
rows_out:
    rx__ess_work_free(ew);
    free(s);
    free(x);
    free(w);
    if (st != RX_OK)
        rx__paramtab_free(t);
out:
    free(v);
    return st;
}

/* ---- the draws behind the rows, for the plots --------------------------*/

void rx__paramdraws_free(rx__paramdraws *d)
{
    free(d->name);
    free(d->x);
    free(d->iter);
    free(d->w);
    memset(d, 0, sizeof *d);
}

rx_status rx__paramdraws_get(rx_ctx *ctx, int coords, rx__paramdraws *d,
                             rx_err *err)
{
    memset(d, 0, sizeof *d);
    rx__runview v;
    rx__run_view(ctx, &v);
    const int64_t per = per_draw(&v);
    const int64_t n = v.res.samples ? v.res.n_samples / per : 0;
    rx__paramtab t = {0};
    t.dim = v.res.dim;
    t.network = v.target && rx__target_is_network(v.target);
    d->network = t.network;
    if (n < 1)
        return RX_OK;
    /* the named rows first (their names into t.name), then coordinates:
     * none for a network (its weights are not identifiable) */
    const size_t nc = t.network ? 0
                      : (size_t)coords < t.dim ? (size_t)coords
                                               : t.dim;
    const size_t cap = nc + RX__PARAM_NAMED_MAX;
    src *s = malloc(sizeof *s * cap);
    t.name = calloc(cap, sizeof *t.name);
    d->x = malloc(sizeof(double) * cap * (size_t)n);
    d->iter = malloc(sizeof(int64_t) * (size_t)n);
    d->w = v.res.log_weights ? malloc(sizeof(double) * (size_t)n) : NULL;
    rx_status st = RX_OK;
    if (!s || !t.name || !d->x || !d->iter ||
        (v.res.log_weights && !d->w)) {
        st = rx__fail(err, RX_ENOMEM, "plots: out of memory");
        goto out;
    }
    int k = named_rows(&v, &t, s);
    d->n_named = k;
    for (size_t j = 0; j < nc; ++j, ++k) {
        snprintf(t.name[k], sizeof t.name[k], "theta[%zu]", j);
        s[k] = (src){SRC_COORD, (int64_t)j, 0.0};
    }
    d->k = k;
    d->n = n;
    const rx_config *c = v.cfg;
    double lmax = -INFINITY;
    for (int64_t i = 0; i < n; ++i) {
        d->iter[i] = c->record.burn_in + i * c->record.thin;
        for (int r = 0; r < k; ++r)
            d->x[(size_t)i * (size_t)k + (size_t)r] = value(&v, per, i, s[r]);
        if (d->w && v.res.log_weights[i * per] > lmax)
            lmax = v.res.log_weights[i * per];
    }
    for (int64_t i = 0; d->w && i < n; ++i)
        d->w[i] = exp(v.res.log_weights[i * per] - lmax);
    d->name = t.name;
    t.name = NULL;
out:
    free(s);
    free(t.name);
    if (st != RX_OK)
        rx__paramdraws_free(d);
    return st;
}

/* ---- the summary's block and summary.csv --------------------------------*/

/* Column names (summary.csv's header, the JSON keys) and values. */
static const char *const COLS[] = {
    "mean", "sd", "q5", "q50", "q95", "mcse_mean", "ess_mean",
    "ess_batch_means", "ess_bulk", "ess_tail", "rhat"};
#define NCOLS ((int)(sizeof COLS / sizeof COLS[0]))

static void cols(const rx__param_stats *r, double *c)
{
    const double v[NCOLS] = {r->mean, r->sd, r->q5, r->q50, r->q95,
                             r->mcse_mean, r->ess_mean, r->ess_bm,
                             r->ess_bulk, r->ess_tail, r->rhat};
    memcpy(c, v, sizeof v);
}

/* ---- the verdict ---------------------------------------------------------*/

void rx__paramtab_verdict(const rx__paramtab *t, rx__verdict *v)
{
    v->judged = t->network && t->n_named > 0 ? t->n_named : t->n_rows;
    v->need = RX__PARAM_ESS_LOW * (t->chains > 1 ? t->chains : 1);
    v->bulk_min = v->tail_min = v->rhat_max = NAN;
    v->bulk_row = v->tail_row = v->rhat_row = v->undef_row = -1;
    for (int i = 0; i < v->judged; ++i) {
        const rx__param_stats *r = &t->row[i];
        if (isnan(r->ess_bulk) || isnan(r->ess_tail) || isnan(r->rhat)) {
            if (v->undef_row < 0)
                v->undef_row = i;
            continue;
        }
        if (v->bulk_row < 0 || r->ess_bulk < v->bulk_min) {
            v->bulk_min = r->ess_bulk;
            v->bulk_row = i;
        }
        if (v->tail_row < 0 || r->ess_tail < v->tail_min) {
            v->tail_min = r->ess_tail;
            v->tail_row = i;
        }
        if (v->rhat_row < 0 || r->rhat > v->rhat_max) {
            v->rhat_max = r->rhat;
            v->rhat_row = i;
        }
    }
    v->converged = v->judged > 0 && v->undef_row < 0 &&
                   v->bulk_min >= v->need && v->tail_min >= v->need &&
                   v->rhat_max <= RX__PARAM_RHAT_HIGH;
    if (t->dim == 0 && t->n_rows == 0) /* target none: no parameters */
        v->converged = -1;
}

/* The failed checks of v, each a phrase, into r; returns how many. */
static int verdict_fails(const rx__paramtab *t, const rx__verdict *v,
                         char r[4][160])
{
    int n = 0;
    const int k = t->chains > 1 ? t->chains : 1;
    if (v->judged == 0) {
        snprintf(r[n++], sizeof r[0], "fewer than 4 target draws: nothing "
                 "to judge");
        return n;
    }
    if (v->undef_row >= 0)
        snprintf(r[n++], sizeof r[0], "the draws of %s do not vary (its ESS "
                 "and R-hat are not defined)", t->name[v->undef_row]);
    char per[48] = "";
    if (k > 1)
        snprintf(per, sizeof per, " (%.0f per chain x %d)",
                 RX__PARAM_ESS_LOW, k);
    if (v->bulk_row >= 0 && !(v->bulk_min >= v->need))
        snprintf(r[n++], sizeof r[0], "the bulk ESS of %s is %.0f, below "
                 "%.0f%s", t->name[v->bulk_row], v->bulk_min, v->need, per);
    if (v->tail_row >= 0 && !(v->tail_min >= v->need))
        snprintf(r[n++], sizeof r[0], "the tail ESS of %s is %.0f, below "
                 "%.0f", t->name[v->tail_row], v->tail_min, v->need);
    if (v->rhat_row >= 0 && !(v->rhat_max <= RX__PARAM_RHAT_HIGH))
        snprintf(r[n++], sizeof r[0], "the R-hat of %s is %.3f, above %.2f "
                 "(%s disagree)", t->name[v->rhat_row], v->rhat_max,
                 RX__PARAM_RHAT_HIGH,
                 k > 1 ? "the replicates" : "the run's two halves");
    return n;
}

/* What to do about a run that is not converged. */
static const char *verdict_advice(const rx__paramtab *t)
{
    return t->chains > 1
               ? "its means, quantiles, modes and densities are not "
                 "reliable: run longer (iterations); where R-hat is high the "
                 "replicates sample different modes or still remember their "
                 "starts"
               : "its means, quantiles, modes and densities are not "
                 "reliable: run longer (iterations), and run replicates from "
                 "dispersed starts (replicates: 4 with init.low / init.high "
                 "around every region a mode may lie in) to see modes a "
                 "single run misses";
}

/* What the checks cannot see, for a run that passed them. */
static const char *verdict_limit(const rx__paramtab *t)
{
    return t->chains > 1
               ? "a mode that no replicate visited cannot be seen"
               : "a mode that no draw visited cannot be seen from one run: "
                 "replicates from dispersed starts and their R-hat can";
}

void rx__paramtab_verdict_json_at(FILE *f, const rx__paramtab *t, int ind)
{
    rx__verdict v;
    rx__paramtab_verdict(t, &v);
    char r[4][160];
    const int n = v.converged ? 0 : verdict_fails(t, &v, r);
    fprintf(f, "%*s\"convergence\": {\"converged\": %s, \"verdict\": \"%s\", "
            "\"rows_judged\": %d, \"rhat\": \"%s\",\n%*s  ",
            ind, "",
            v.converged < 0 ? "null" : v.converged ? "true" : "false",
            v.converged < 0 ? "not judged"
            : v.converged   ? "converged"
                            : "NOT CONVERGED",
            v.judged,
            t->chains > 1 ? "split, over the replicates"
                          : "split, the run's two halves",
            ind, "");
    rx__json_kv(f, "ess_needed", v.need);
    fputs(", ", f);
    rx__json_kv(f, "rhat_allowed", RX__PARAM_RHAT_HIGH);
    fputs(", ", f);
    rx__json_kv(f, "ess_bulk_min", v.bulk_min);
    fputs(", \"ess_bulk_min_row\": ", f);
    if (v.bulk_row >= 0)
        rx__json_str(f, t->name[v.bulk_row]);
    else
        fputs("null", f);
    fputs(", ", f);
    rx__json_kv(f, "ess_tail_min", v.tail_min);
    fputs(", \"ess_tail_min_row\": ", f);
    if (v.tail_row >= 0)
        rx__json_str(f, t->name[v.tail_row]);
    else
        fputs("null", f);
    fputs(", ", f);
    rx__json_kv(f, "rhat_max", v.rhat_max);
    fputs(", \"rhat_max_row\": ", f);
    if (v.rhat_row >= 0)
        rx__json_str(f, t->name[v.rhat_row]);
    else
        fputs("null", f);
    fprintf(f, ",\n%*s  \"reasons\": [", ind, "");
    for (int i = 0; i < n; ++i) {
        fputs(i ? ", " : "", f);
        rx__json_str(f, r[i]);
    }
    fputs("], \"advice\": ", f);
    rx__json_str(f, v.converged < 0 ? "the target has no parameters"
                    : v.converged   ? verdict_limit(t)
                                    : verdict_advice(t));
    fputs("},\n", f);
}

/* The verdict's line, the last one printed. */
static void verdict_print(FILE *f, const rx__paramtab *t)
{
    rx__verdict v;
    rx__paramtab_verdict(t, &v);
    if (v.converged < 0) {
        fputs("convergence: not judged (the target has no parameters)\n",
              f);
        return;
    }
    if (v.converged) {
        fprintf(f, "converged: bulk and tail ESS >= %.0f and R-hat <= %.2f "
                "for %s (Vehtari et al. 2021); %s\n", v.need,
                RX__PARAM_RHAT_HIGH,
                t->network ? "lp and the hyper-parameters"
                           : "lp and every coordinate listed",
                verdict_limit(t));
        return;
    }
    char r[4][160];
    const int n = verdict_fails(t, &v, r);
    fputs("NOT CONVERGED: ", f);
    for (int i = 0; i < n; ++i)
        fprintf(f, "%s%s", i ? "; " : "", r[i]);
    fprintf(f, ": %s\n", verdict_advice(t));
}

/* The warnings: each a sentence (at most 2), into w; returns how many. */
static int warnings(const rx__paramtab *t, char w[2][400])
{
    int n = 0;
    const char *what = t->network ? "of lp and the hyper-parameters" : "";
    if (!isnan(t->ess_min) && t->ess_min < RX__PARAM_ESS_LOW)
        snprintf(w[n++], sizeof w[0],
                 "the smallest ESS%s%s is %.0f (%s), below %.0f: its "
                 "mean, sd and quantiles rest on fewer than %.0f "
                 "independent draws and the 5 %% / 95 %% quantiles are "
                 "unreliable; run longer (iterations), keep more draws "
                 "(record.thin), or add replicates",
                 what[0] ? " " : "", what, t->ess_min,
                 t->name[t->ess_min_row], RX__PARAM_ESS_LOW,
                 RX__PARAM_ESS_LOW);
    if (!isnan(t->rhat_max) && t->rhat_max > RX__PARAM_RHAT_HIGH)
        snprintf(w[n++], sizeof w[0],
                 "R-hat of %s is %.3f, above %.2f: %s disagree, so the "
                 "draws have not settled on one distribution (a mode "
                 "visited by one part only, or a drift); run longer, "
                 "raise record.burn_in, or add chains to the ladder",
                 t->name[t->rhat_max_row], t->rhat_max, RX__PARAM_RHAT_HIGH,
                 t->chains > 1 ? "the replicates" : "the run's two halves");
    return n;
}

void rx__paramtab_json_at(FILE *f, const rx__paramtab *t, int ind)
{
    fprintf(f, "%*s\"parameters\": {\"chains\": %d, \"draws\": %lld, "
            "\"weighted\": %s, \"network\": %s, \"rhat\": \"%s\", "
            "\"coordinates\": %zu, \"coordinates_listed\": %d,\n"
            "%*s  \"rows\": [",
            ind, "", t->chains, (long long)t->draws,
            t->weighted ? "true" : "false", t->network ? "true" : "false",
            t->chains > 1 ? "split, over the replicates"
                          : "split, the run's two halves",
            t->dim, t->n_rows - t->n_named, ind, "");
    double c[NCOLS];
    for (int i = 0; i < t->n_rows; ++i) {
        fprintf(f, "%s%*s    {\"name\": ", i ? ",\n" : "\n", ind, "");
        rx__json_str(f, t->name[i]);
        cols(&t->row[i], c);
        for (int k = 0; k < NCOLS; ++k) {
            fputs(", ", f);
            rx__json_kv(f, COLS[k], c[k]);
        }
        fputc('}', f);
    }
    fprintf(f, "],\n%*s  \"warnings\": [", ind, "");
    char w[2][400];
    const int nw = warnings(t, w);
    for (int i = 0; i < nw; ++i) {
        fputs(i ? ", " : "", f);
        rx__json_str(f, w[i]);
    }
    fputs("]},\n", f);
}

void rx__paramtab_json(FILE *f, const rx__paramtab *t)
{
    rx__paramtab_json_at(f, t, 2);
}

void rx__paramtab_metrics_json(FILE *f, const rx__paramtab *t)
{
    const rx_metrics *m = &t->bma;
    if (!m->valid) {
        fputs("null", f);
        return;
    }
    fprintf(f, "{\"models\": %lld, \"test_examples\": %lld, ",
            (long long)m->n_models, (long long)m->n_test);
    if (m->classification) {
        rx__json_kv(f, "accuracy", m->accuracy);
        fputs(", ", f);
        rx__json_kv(f, "nll", m->nll);
        fputs(", ", f);
        rx__json_kv(f, "ece", m->ece);
    } else {
        rx__json_kv(f, "rmse", m->rmse);
        fputs(", ", f);
        rx__json_kv(f, "nll", m->nll);
    }
    fputc('}', f);
}

void rx__paramtab_csv_head(FILE *f, const char *lead)
{
    fprintf(f, "%sname", lead);
    for (int k = 0; k < NCOLS; ++k)
        fprintf(f, ",%s", COLS[k]);
    fputc('\n', f);
}

void rx__paramtab_csv_rows(FILE *f, const rx__paramtab *t, const char *lead)
{
    double c[NCOLS];
    for (int i = 0; i < t->n_rows; ++i) {
        fprintf(f, "%s%s", lead, t->name[i]);
        cols(&t->row[i], c);
        for (int k = 0; k < NCOLS; ++k)
            fprintf(f, isnan(c[k]) ? ",nan" : ",%.10g", c[k]);
        fputc('\n', f);
    }
}

rx_status rx__paramtab_csv(const rx__paramtab *t, const char *path,
                           rx_err *err)
{
    FILE *f = fopen(path, "w");
    if (!f)
        return rx__fail(err, RX_EIO, "%s: cannot create: %s", path,
                        strerror(errno));
    rx__paramtab_csv_head(f, "");
    rx__paramtab_csv_rows(f, t, "");
    if (fclose(f) != 0)
        return rx__fail(err, RX_EIO, "%s: write failed: %s", path,
                        strerror(errno));
    return RX_OK;
}

/* ---- the block printed after a run --------------------------------------*/

static void print_metrics(FILE *f, const rx_metrics *m)
{
    if (!m->valid)
        return;
    if (m->classification)
        fprintf(f, "test set (%lld examples, average of %lld models): "
                "accuracy %.4f, NLL %.4f, ECE %.4f\n",
                (long long)m->n_test, (long long)m->n_models, m->accuracy,
                m->nll, m->ece);
    else
        fprintf(f, "test set (%lld examples, average of %lld models): "
                "RMSE %.4g, NLL %.4g (original units)\n",
                (long long)m->n_test, (long long)m->n_models, m->rmse,
                m->nll);
}

static void print_row(FILE *f, const char *name, const rx__param_stats *r)
{
    fprintf(f, "  %-16s %10.4g %9.3g %10.4g %10.4g %10.4g %9.2g %8.0f "
            "%8.0f %8.0f %6.3f\n",
            name, r->mean, r->sd, r->q5, r->q50, r->q95, r->mcse_mean,
            r->ess_mean, r->ess_bulk, r->ess_tail, r->rhat);
}

void rx__paramtab_print(FILE *f, const rx__paramtab *t, const char *files)
{
    print_metrics(f, &t->bma);
    if (t->n_rows == 0) {
        verdict_print(f, t);
        return;
    }
    const char *wt = t->weighted ? ", weighted by the bias's importance "
                                   "weights" : "";
    if (t->chains > 1)
        fprintf(f, "parameters (%d replicates x %lld draws%s; R-hat over "
                "the replicates):\n", t->chains, (long long)t->draws, wt);
    else
        fprintf(f, "parameters (%lld draws%s; R-hat of the run's two "
                "halves):\n", (long long)t->draws, wt);
    fprintf(f, "  %-16s %10s %9s %10s %10s %10s %9s %8s %8s %8s %6s\n",
            "", "mean", "sd", "5%", "50%", "95%", "mcse", "ess", "bulk",
            "tail", "R-hat");
    const int shown = t->n_named + RX__PARAM_COORDS_SHOWN < t->n_rows
                          ? t->n_named + RX__PARAM_COORDS_SHOWN
                          : t->n_rows;
    for (int i = 0; i < shown; ++i)
        print_row(f, t->name[i], &t->row[i]);
    if (t->dim > (size_t)(shown - t->n_named))
        fprintf(f, "  ... %zu more coordinate%s: every row is in %s\n",
                t->dim - (size_t)(shown - t->n_named),
                t->dim - (size_t)(shown - t->n_named) == 1 ? "" : "s",
                files);
    if (t->dim > (size_t)(t->n_rows - t->n_named))
        fprintf(f, "  (the files list the first %d coordinates)\n",
                t->n_rows - t->n_named);
    fprintf(f, "  ess: for the mean (the draws' own ESS); mcse = sd / "
            "sqrt(the smaller of ess and\n  the batch-means ESS); bulk, "
            "tail: rank-normalised ESS (Vehtari et al. 2021)\n");
    if (t->network)
        fprintf(f, "  (a network's weights are not identifiable one by "
                "one: judge the run by lp and the precisions)\n");
    char w[2][400];
    const int nw = warnings(t, w);
    for (int i = 0; i < nw; ++i)
        fprintf(f, "warning: %s\n", w[i]);
    verdict_print(f, t);
}
