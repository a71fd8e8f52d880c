/*
 * Sweeps: the cartesian product of the values of every swept key, each
 * combination a normal run (the sweep values become --set overrides, so
 * they are validated exactly like a file). All combinations are validated
 * before the first run: a bad value exits 2 with nothing written.
 */
#define _POSIX_C_SOURCE 200809L
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "../io/marker.h"
#include "outdir.h"
#include "../engine/ranks.h"
#include "plots.h"
#include "progress.h"
#include "sweep.h"

enum { EXIT_RUNFAIL = 1, EXIT_BADINPUT = 2 };

/* the figures of one run, one table row */
typedef struct {
    double a5, l1, cond, tv, moderr, corr, wall;
    int64_t swaps;
    int has_tv, has_mod;
    rx_metrics met; /* network targets: the model average */
} row_t;

/* The metric columns of network runs: name, header, value. */
typedef struct {
    const char *csv, *md;
    int cls; /* 1 classification, 0 regression */
} mcol_t;
static const mcol_t MCOLS[] = {
    {"rmse", "RMSE", 0},         {"nll", "NLL", 0},
    {"accuracy", "accuracy", 1}, {"nll", "NLL", 1},
    {"ece", "ECE", 1},           {"entropy_ood", "OOD entropy", 1},
};
#define NMCOLS ((int)(sizeof MCOLS / sizeof MCOLS[0]))

static double mcol_value(const rx_metrics *m, int j)
{
    switch (j) {
    case 0: return m->rmse;
    case 1: return m->nll;
    case 2: return m->accuracy;
    case 3: return m->nll;
    case 4: return m->ece;
    default: return m->entropy_ood;
    }
}

/* Room for "key=" and a value of up to RX_PATH_MAX bytes, every byte
 * escaped (\xNN), in double quotes. */
#define COMBO_CAP (4 * RX_PATH_MAX + 512)

/* v as a YAML scalar that parses back to v itself: plain where every byte
 * is one that plain scalars keep as they are (numbers, names, simple
 * paths), else double-quoted with escapes, so that "d.csv #2" is not cut
 * at its comment and a newline is not folded. */
static void yaml_value(char *out, size_t cap, const char *v)
{
    int plain = v[0] != '\0' && v[0] != ' ' && v[strlen(v) - 1] != ' ';
    for (const char *p = v; *p && plain; ++p)
        plain = (*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') ||
                (*p >= '0' && *p <= '9') || strchr("._/+- ", *p);
    if (plain) {
        snprintf(out, cap, "%s", v);
        return;
    }
    size_t n = 0;
    out[n++] = '"';
    for (const unsigned char *p = (const unsigned char *)v;
         *p && n + 6 < cap; ++p) {
        if (*p == '"' || *p == '\\')
            n += (size_t)snprintf(out + n, cap - n, "\\%c", *p);
        else if (*p == '\n')
            n += (size_t)snprintf(out + n, cap - n, "\\n");
        else if (*p < 0x20 || *p == 0x7f)
            n += (size_t)snprintf(out + n, cap - n, "\\x%02x", *p);
        else
            out[n++] = (char)*p;
    }
    out[n++] = '"';
    out[n] = '\0';
}

static void combo_sets(const rx_sweep *sw, long idx, char **buf)
{
    for (int i = sw->n_keys - 1; i >= 0; --i) {
        int j = (int)(idx % sw->n_values[i]);
        idx /= sw->n_values[i];
        int kl = snprintf(buf[i], COMBO_CAP, "%s=", sw->keys[i]);
        yaml_value(buf[i] + kl, COMBO_CAP - (size_t)kl, sw->values[i][j]);
    }
}

static const char *combo_value(const rx_sweep *sw, long idx, int key)
{
    for (int i = sw->n_keys - 1; i >= 0; --i) {
        int j = (int)(idx % sw->n_values[i]);
        idx /= sw->n_values[i];
        if (i == key)
            return sw->values[i][j];
    }
    return "";
}

/* The data files a run names must be readable before anything is
 * created: exit 2 naming the key (a single run's rx_create does the same
 * before its directory). 0 when they are. */
static int check_data_files(const char *file, long r, const rx_config *c)
{
    const struct {
        const char *key, *path;
    } f[] = {{"data.path", c->data.path},
             {"data.labels_path", c->data.labels_path},
             {"data.test_path", c->data.test_path},
             {"data.test_labels_path", c->data.test_labels_path},
             {"data.test_rows", c->data.test_rows}};
    if (c->target.kind != RX_TARGET_NETWORK ||
        c->data.format == RX_DATA_SYNTHETIC)
        return 0;
    for (size_t i = 0; i < sizeof f / sizeof f[0]; ++i)
        if (f[i].path[0] && access(f[i].path, R_OK) != 0) {
            fprintf(stderr, "replex: %s: sweep run %ld: %s: %s: %s\n", file,
                    r + 1, f[i].key, f[i].path, strerror(errno));
            return EXIT_BADINPUT;
        }
    return 0;
}

/* One sweep: its inputs, the overrides of every run and their rows. */
typedef struct {
    const char *file, *out;
    const rx_sweep *sw;
    int threads, force, quiet;
    rx_cli_progress *pr;
    long n;           /* runs: the product of the value counts */
    int ns;           /* overrides: the --set ones, then one per key */
    const char **all; /* all ns overrides of the current run */
    char **combo;     /* the sweep's part of all */
    row_t *rows;      /* one per run */
} sweep_t;

/* Expand the grid: count the runs and allocate the overrides and rows.
 * On failure the caller still frees s with sweep_free. */
static int sweep_expand(sweep_t *s, const char *const *sets, int nsets)
{
    const rx_sweep *sw = s->sw;
    long n = 1;
    for (int i = 0; i < sw->n_keys; ++i) {
        n *= sw->n_values[i];
        if (n > 100000) {
            fprintf(stderr, "replex: %s: sweep of more than 100000 runs\n",
                    s->file);
            return EXIT_BADINPUT;
        }
    }
    if (nsets < 0 || sw->n_keys < 1)
        return EXIT_BADINPUT;
    s->n = n;
    s->ns = nsets + sw->n_keys;
    s->all = calloc((size_t)s->ns, sizeof *s->all);
    s->combo = calloc((size_t)sw->n_keys, sizeof *s->combo);
    s->rows = calloc((size_t)n, sizeof *s->rows);
    if (!s->all || !s->combo || !s->rows) {
        fprintf(stderr, "replex: out of memory\n");
        return EXIT_RUNFAIL;
    }
    int rc = 0;
    for (int i = 0; i < sw->n_keys; ++i)
        if (!(s->combo[i] = malloc(COMBO_CAP)))
            rc = EXIT_RUNFAIL;
    if (rc)
        fprintf(stderr, "replex: out of memory\n");
    for (int i = 0; i < nsets; ++i)
        s->all[i] = sets[i];
    for (int i = 0; i < sw->n_keys; ++i)
        s->all[nsets + i] = s->combo[i];
    return rc;
}

static void sweep_free(sweep_t *s)
{
    for (int i = 0; s->combo && i < s->sw->n_keys; ++i)
        free(s->combo[i]);
    free(s->combo);
    free(s->all);
    free(s->rows);
}

/* Check every run's inputs before any directory: each combination
 * validates and its data files can be read; then the first run's context
 * is created (its data are read: a malformed file is bad input, as for a
 * single run) into *c0 and *ctx0. */
static int sweep_check(sweep_t *s, rx_config *c0, rx_ctx **ctx0)
{
    rx_err err;
    int rc = 0;
    for (long r = 0; r < s->n && rc == 0; ++r) {
        combo_sets(s->sw, r, s->combo);
        rx_config c;
        if (rx_config_load(s->file, s->all, s->ns, &c, &err) != RX_OK) {
            fprintf(stderr, "replex: sweep run %ld: %s\n", r + 1, err.msg);
            rc = EXIT_BADINPUT;
        } else {
            rc = check_data_files(s->file, r, &c);
            rx_config_free(&c);
        }
    }
    if (rc != 0)
        return rc;
    combo_sets(s->sw, 0, s->combo);
    rx_status st0 = rx_config_load(s->file, s->all, s->ns, c0, &err);
    if (st0 == RX_OK) {
        if (s->threads >= 0)
            c0->threads = s->threads;
        st0 = rx_create(ctx0, c0, NULL, (rx_logger){0}, &err);
        if (st0 != RX_OK)
            rx_config_free(c0);
    }
    if (st0 != RX_OK) {
        fprintf(stderr, "replex: sweep run 1: %s\n", err.msg);
        return st0 == RX_ENOMEM ? EXIT_RUNFAIL : EXIT_BADINPUT;
    }
    return 0;
}

/* The table row of a finished run. */
static void sweep_fill_row(rx_ctx *ctx, const rx_config *c, row_t *w)
{
    rx_results res;
    rx_get_results(ctx, &res);
    double K = (double)res.iterations;
    w->a5 = 1000.0 * (double)res.trips_a5 / K;
    w->l1 = 1000.0 * (double)res.trips_l1 / K;
    int64_t sc = 0, se = 0;
    for (int p = 0; p + 1 < res.n_chains; ++p) {
        sc += res.pairs[p].conditions;
        se += res.pairs[p].evaluated;
    }
    w->cond = se ? (double)sc / (double)se : 0.0;
    w->swaps = res.total_swaps;
    w->corr = res.correction;
    w->wall = res.wall_s;
    w->has_tv = rx_density_tv(ctx, &w->tv) == RX_OK;
    w->met = res.bma;
    if (c->target.kind == RX_TARGET_GMM) {
        int K2 = c->target.means.rows;
        double *est = malloc(sizeof(double) * (size_t)K2), tot = 0;
        if (est && rx_mode_weights(ctx, est, K2) == RX_OK) {
            for (int k = 0; k < K2; ++k)
                tot += c->target.weights.v[k];
            for (int k = 0; k < K2; ++k) {
                double e = est[k] - c->target.weights.v[k] / tot;
                e = e < 0 ? -e : e;
                if (e > w->moderr)
                    w->moderr = e;
            }
            w->has_mod = 1;
        }
        free(est);
    }
}

/* Run r (0-based) into <out>/run-NNN; run 0 uses the context made by
 * sweep_check. 0, or the sweep's exit status. */
static int sweep_run_one(sweep_t *s, long r, rx_config *c0, rx_ctx *ctx0)
{
    const long n = s->n;
    combo_sets(s->sw, r, s->combo);
    rx_config c;
    rx_ctx *ctx = NULL;
    rx_status st = RX_OK;
    rx_err err;
    if (r == 0) {
        c = *c0;
        ctx = ctx0;
    } else if (rx_config_load(s->file, s->all, s->ns, &c, &err) != RX_OK) {
        return EXIT_BADINPUT;
    } else {
        if (s->threads >= 0)
            c.threads = s->threads;
        st = rx_create(&ctx, &c, NULL, (rx_logger){0}, &err);
    }
    char dir[4200];
    snprintf(dir, sizeof dir, "%s/run-%03ld", s->out, r + 1);
    char label[64];
    snprintf(label, sizeof label, "run %ld/%ld", r + 1, n);
    if (st == RX_OK && s->pr)
        st = rx_cli_progress_attach(s->pr, ctx, label, c.iterations,
                                    c.tempering.n_chains);
    if (st != RX_OK)
        fprintf(stderr, "replex: sweep run %ld: %s\n", r + 1,
                ctx ? rx_errmsg(ctx) : err.msg);
    else if ((st = rx_run(ctx)) != RX_OK) {
        rx_cli_progress_break(s->pr);
        if (st == RX_EABORTED && rx_cli_interrupted())
            fprintf(stderr, "replex: interrupted at iteration %lld of "
                    "sweep run %ld/%ld; runs 1 to %ld are complete in %s "
                    "(no sweep tables)\n", (long long)s->pr->seen_k, r + 1,
                    n, r, s->out);
        else
            fprintf(stderr, "replex: sweep run %ld failed: %s\n", r + 1,
                    rx_errmsg(ctx));
    } else if ((st = rx_write_rundir(ctx, dir, s->force, s->file)) != RX_OK)
        fprintf(stderr, "replex: %s\n", rx_errmsg(ctx));
    if (st == RX_OK) {
        row_t *w = &s->rows[r];
        sweep_fill_row(ctx, &c, w);
        if (!s->quiet)
            printf("%s: %s%s%s ... a5/1000 %.2f\n", dir, s->combo[0],
                   s->sw->n_keys > 1 ? " " : "",
                   s->sw->n_keys > 1 ? s->combo[1] : "", w->a5);
    }
    rx_destroy(&ctx);
    rx_config_free(&c);
    return st == RX_OK ? 0 : EXIT_RUNFAIL;
}

/* The header lines of sweep.csv (f) and sweep.md (m); returns the
 * number of metric columns. */
static int table_head(FILE *f, FILE *m, const rx_sweep *sw, int net,
                      int cls)
{
    fprintf(f, "run");
    fprintf(m, "| run");
    for (int i = 0; i < sw->n_keys; ++i) {
        fprintf(f, ",%s", sw->keys[i]);
        fprintf(m, " | %s", sw->keys[i]);
    }
    fprintf(f, ",a5_per_1000,l1_per_1000,condition_rate,swaps,"
               "correction,tv_distance,mode_weight_error");
    fprintf(m, " | A.5 trips/1000 | 1->P->1 /1000 | condition rate "
               "| swaps | C | TV | mode-weight error");
    int nm = 0;
    for (int j = 0; net && j < NMCOLS; ++j)
        if (MCOLS[j].cls == cls) {
            fprintf(f, ",%s", MCOLS[j].csv);
            fprintf(m, " | %s", MCOLS[j].md);
            ++nm;
        }
    fprintf(f, ",wall_s\n");
    fprintf(m, " | wall s |\n|---");
    for (int i = 0; i < sw->n_keys + 8 + nm; ++i)
        fprintf(m, "|---");
    fprintf(m, "|\n");
    return nm;
}

/* Run r's line in both tables. */
static void table_row(FILE *f, FILE *m, const sweep_t *s, long r, int net,
                      int cls)
{
    const row_t *w = &s->rows[r];
    fprintf(f, "%ld", r + 1);
    fprintf(m, "| %ld", r + 1);
    for (int i = 0; i < s->sw->n_keys; ++i) {
        fprintf(f, ",%s", combo_value(s->sw, r, i));
        fprintf(m, " | %s", combo_value(s->sw, r, i));
    }
    fprintf(f, ",%.6g,%.6g,%.6g,%lld,%.6g,", w->a5, w->l1, w->cond,
            (long long)w->swaps, w->corr);
    fprintf(m, " | %.2f | %.2f | %.4f | %lld | %.4g | ", w->a5, w->l1,
            w->cond, (long long)w->swaps, w->corr);
    if (w->has_tv) {
        fprintf(f, "%.6g", w->tv);
        fprintf(m, "%.4f", w->tv);
    }
    fprintf(f, ",");
    fprintf(m, " | ");
    if (w->has_mod) {
        fprintf(f, "%.6g", w->moderr);
        fprintf(m, "%.4f", w->moderr);
    }
    for (int j = 0; net && j < NMCOLS; ++j)
        if (MCOLS[j].cls == cls) {
            double v = mcol_value(&w->met, j);
            fprintf(f, ",%.6g", v);
            fprintf(m, " | %.4f", v);
        }
    fprintf(f, ",%.4f\n", w->wall);
    fprintf(m, " | %.3f |\n", w->wall);
}

/* The metrics' mean and standard error over all runs (e.g. the 20
 * random splits of the UCI protocol), under sweep.md's table. */
static void table_mean(FILE *m, const sweep_t *s, int cls)
{
    const long n = s->n;
    fprintf(m, "\nOver the %ld runs (mean +- standard error):", n);
    for (int j = 0; j < NMCOLS; ++j) {
        if (MCOLS[j].cls != cls)
            continue;
        double s1 = 0.0, s2 = 0.0;
        for (long r = 0; r < n; ++r) {
            double v = mcol_value(&s->rows[r].met, j);
            s1 += v;
            s2 += v * v;
        }
        double mu = s1 / (double)n;
        double var = (s2 - (double)n * mu * mu) / (double)(n - 1);
        fprintf(m, " %s %.4f +- %.4f;", MCOLS[j].md, mu,
                var > 0 ? sqrt(var / (double)n) : 0.0);
    }
    fprintf(m, "\n");
}

/* sweep.csv and sweep.md: one row per run, metric columns when the runs
 * scored a network. */
static int sweep_tables(const sweep_t *s)
{
    char p[4200];
    snprintf(p, sizeof p, "%s/sweep.csv", s->out);
    FILE *f = fopen(p, "w");
    snprintf(p, sizeof p, "%s/sweep.md", s->out);
    FILE *m = fopen(p, "w");
    int rc = 0;
    if (!f || !m) {
        fprintf(stderr, "replex: %s: cannot write the sweep tables\n",
                s->out);
        rc = EXIT_RUNFAIL;
    } else {
        int net = s->n > 0 && s->rows[0].met.valid;
        int cls = net && s->rows[0].met.classification;
        table_head(f, m, s->sw, net, cls);
        for (long r = 0; r < s->n; ++r)
            table_row(f, m, s, r, net, cls);
        if (net && s->n > 1)
            table_mean(m, s, cls);
    }
    if (f)
        fclose(f);
    if (m)
        fclose(m);
    return rc;
}

int rx_cli_sweep(const char *file, const char *const *sets, int nsets,
                 const rx_sweep *sw, const char *out, int threads, int force,
                 int quiet, int plots, rx_cli_progress *pr, int rank,
                 int nranks)
{
    sweep_t s = {.file = file, .out = out, .sw = sw, .threads = threads,
                 .force = force, .quiet = quiet, .pr = pr};
    rx_config c0;
    rx_ctx *ctx0 = NULL;
    int rc = sweep_expand(&s, sets, nsets);
    if (rc == 0)
        rc = sweep_check(&s, &c0, &ctx0);
    /* rank 0 alone takes the lock and makes out; the others wait for
     * its word (every rank checked the same inputs) */
    int lock = -1;
    if (rank == 0 && rc == 0 && (lock = rx_cli_lock_out(out)) < 0)
        rc = EXIT_BADINPUT;
    if (rank == 0 && rc == 0 &&
        rx_cli_make_multi_dir(out, force, RX_MARKER_SWEEP) != 0)
        rc = EXIT_BADINPUT;
    const int go = nranks < 2 || rx__mpi_all_ok(rc == 0, NULL);
    if (!go && rc == 0)
        rc = EXIT_BADINPUT; /* another rank's reason is above */
    /* run 0 is rank 0's; its context was made by the check */
    if ((rc != 0 || rank != 0) && ctx0) {
        rx_destroy(&ctx0);
        rx_config_free(&c0);
    }
    for (long r = rank; r < s.n && rc == 0; r += nranks)
        rc = sweep_run_one(&s, r, &c0, ctx0);
    if (nranks > 1 && go) {
        /* every rank's rows to every rank: a row is written by the one
         * rank that ran it into zeroed memory, so OR merges them (after
         * a failed go no rank comes here) */
        rc = rx__mpi_max_int(rc);
        if (rc == 0 &&
            rx__mpi_or_bytes(s.rows, sizeof *s.rows * (size_t)s.n) != 0)
            rc = EXIT_RUNFAIL;
    }
    if (rank != 0) {
        sweep_free(&s);
        return rc;
    }
    if (rc == 0)
        rc = sweep_tables(&s);
    if (rc == 0 && plots) {
        char why[256];
        if (rx_cli_sweep_plots(out, sw, why, sizeof why) != 0 && !quiet)
            fprintf(stderr, "replex: %s\n", why);
    }
    rx_cli_unlock_out(lock, out);
    sweep_free(&s);
    return rc;
}
