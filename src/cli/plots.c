/*
 * Plots of a finished run, drawn by gnuplot (an external, well-kept tool)
 * when it is on PATH: the index process with particle 1's path
 * highlighted, the condition rate of every pair over time, the ladder, the
 * buffer C and the estimated sigma^2 over time (each only when the run
 * adapts it: trace.csv shows it moving), for 1-D and 2-D targets the
 * sample histogram beside the true density, and for networks and targets
 * of 3 or more dimensions the trace and marginals of lp and a few
 * quantities (the table's rows). Every figure names its axes,
 * keys its lines and starts from gnuplot's defaults (`reset`); ranges are
 * set here, so gnuplot never meets an empty one. Writes CSV data, plots.gp
 * and SVG files into the run directory's plots/ (docs/cli.md, "Plots").
 * Part of the CLI: the library never starts programs.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../exchange/xtest.h"
#include "../io/paramtab.h"
#include "plotkit.h"
#include "plots.h"

/* index.svg: the position of every particle over the last 2000 rows of
 * the index process, particle 1 (which starts at the target) in red. */
static int fig_index(FILE *gp, const char *dir, const rx_results *r)
{
    const int P = r->n_chains;
    if (r->n_index < 2 || P < 2)
        return 0;
    char path[4096];
    FILE *f = rx_cli_open_in(dir, "index.csv", path, sizeof path);
    int *pos = malloc(sizeof(int) * (size_t)P);
    if (!f || !pos) {
        if (f)
            fclose(f);
        free(pos);
        return 0;
    }
    int64_t first = r->n_index > 2000 ? r->n_index - 2000 : 0;
    for (int64_t k = first; k < r->n_index; ++k) {
        const int32_t *row = r->index + (size_t)k * (size_t)P;
        for (int q = 0; q < P; ++q)
            pos[row[q]] = q + 1;
        fprintf(f, "%lld", (long long)r->index_iter[k]);
        for (int i = 0; i < P; ++i)
            fprintf(f, ",%d", pos[i]);
        fputc('\n', f);
    }
    free(pos);
    fclose(f);
    int shown = P < 32 ? P : 32;
    rx_cli_fig_begin(gp, "index", 900, 520);
    fprintf(gp, "set title 'Index process: the position each particle "
                "holds (last %lld rows of index.npy)'\n",
            (long long)(r->n_index - first));
    rx_cli_iter_axis(gp, (double)r->index_iter[first],
              (double)r->index_iter[r->n_index - 1]);
    fprintf(gp, "set ylabel 'position (1 = target chain, %d = hottest)'\n"
                "set yrange [0.5:%d.5]\n",
            P, P);
    if (P <= 16)
        fprintf(gp, "set ytics 1,1,%d\n", P);
    else
        fprintf(gp, "set ytics %g\nset ytics add (1, %d)\n",
                rx_cli_nice_step(P / 8.0), P);
    char others[64];
    if (shown < P)
        snprintf(others, sizeof others, "particles 2-%d (of %d)", shown, P);
    else
        snprintf(others, sizeof others, "the other particles");
    fprintf(gp, "plot for [i=3:%d] 'plots/index.csv' using 1:i with steps "
                "lc rgb '#c8c8c8' lw 1 title (i == 3 ? '%s' : ''), "
                "'plots/index.csv' using 1:2 with steps lc rgb '#d62728' "
                "lw 2.5 title 'particle 1 (starts at the target)'\n",
            shown + 1, others);
    return 1;
}

/* Does the run adapt something towards the target swap rate S? */
static int aims_at_rate(const rx_config *cfg)
{
    return cfg->ladder.adapt == RX_ADAPT_ETA ||
           cfg->ladder.adapt == RX_ADAPT_TAU ||
           ((rx__xtest_row(cfg->tempering.rule)->row.props &
             RX__XT_BUFFER_C) &&
            cfg->correction.adapt);
}

/* acceptance.svg: the condition rate of every pair per trace interval. */
static int fig_acceptance(FILE *gp, const csvtab *t, int P,
                          const rx_config *cfg)
{
    int c0 = rx_cli_csv_cols(t, "cond_", P - 1), cm = rx_cli_csv_col(t, "mean_cond");
    if (P < 2 || c0 < 0 || cm < 0)
        return 0;
    rx_cli_fig_begin(gp, "acceptance", 900, 540);
    fprintf(gp, "set title 'Swap-condition rate of each adjacent pair, per "
                "trace interval of %lld iterations'\n",
            (long long)cfg->record.trace_every);
    rx_cli_iter_axis(gp, 0, rx_cli_csv_at(t, t->nr - 1, 0));
    fprintf(gp, "set ylabel 'condition rate (fraction of comparisons)'\n"
                "set yrange [0:1]\nset ytics 0.1\n");
    rx_cli_series_setup(gp, P - 1, 1);
    fprintf(gp, "plot ");
    rx_cli_series_clause(gp, "trace.csv", c0 + 1, P - 1, 1);
    fprintf(gp, ", 'trace.csv' skip 1 using 1:%d with lines lw 2.5 "
                "lc rgb 'black' title 'mean over the pairs'",
            cm + 1);
    if (aims_at_rate(cfg))
        fprintf(gp, ", %.17g with lines dt 2 lw 2 lc rgb '#b2182b' "
                    "title 'target rate S = %g'",
                cfg->tempering.target_swap_rate,
                cfg->tempering.target_swap_rate);
    fputc('\n', gp);
    return 1;
}

/* One panel of N lines per position or pair (columns C0..) against the
 * iteration: Y its axis label, TITLE its title. */
static void trace_panel(FILE *gp, const csvtab *t, int c0, int n,
                        int pairs, const char *y, const char *title)
{
    double lo = 0, hi = 0;
    rx_cli_csv_range(t, c0, n, &lo, &hi);
    fprintf(gp, "unset logscale\nset title '%s'\nset ylabel '%s'\n", title,
            y);
    rx_cli_iter_axis(gp, 0, rx_cli_csv_at(t, t->nr - 1, 0));
    rx_cli_value_axis(gp, "y", lo, hi);
    rx_cli_series_setup(gp, n, pairs);
    fprintf(gp, "plot ");
    rx_cli_series_clause(gp, "trace.csv", c0 + 1, n, pairs);
    fputc('\n', gp);
}

static const char *adapt_name(rx_ladder_adapt a)
{
    return a == RX_ADAPT_ETA ? "eta" : a == RX_ADAPT_TAU ? "tau"
           : a == RX_ADAPT_BARRIER ? "barrier" : "none";
}

/* ladder.svg: the learning-rate and temperature ladders over time, a
 * panel for each that changes (none: no figure). */
static int fig_ladder(FILE *gp, const csvtab *t, int P,
                      const rx_config *cfg)
{
    int ce = rx_cli_csv_cols(t, "eta_", P), ct = rx_cli_csv_cols(t, "tau_", P);
    int ve = ce >= 0 && rx_cli_csv_varies(t, ce, P);
    int vt = ct >= 0 && rx_cli_csv_varies(t, ct, P);
    if (!ve && !vt)
        return 0;
    rx_cli_fig_begin(gp, "ladder", 900, ve && vt ? 860 : 500);
    if (ve && vt)
        fprintf(gp, "set multiplot layout 2,1\n");
    char title[160];
    const char *how = adapt_name(cfg->ladder.adapt);
    if (ve) {
        snprintf(title, sizeof title, "Learning rate of each position over "
                 "time (ladder.adapt: %s)", how);
        trace_panel(gp, t, ce, P, 0, "learning rate η", title);
    }
    if (vt) {
        snprintf(title, sizeof title, "Temperature of each position over "
                 "time (ladder.adapt: %s)", how);
        trace_panel(gp, t, ct, P, 0, "temperature τ", title);
    }
    if (ve && vt)
        fprintf(gp, "unset multiplot\n");
    return 1;
}

/* correction.svg: the buffer C of the deterministic rule, when it moves. */
static int fig_correction(FILE *gp, const csvtab *t, const rx_config *cfg)
{
    int cc = rx_cli_csv_col(t, "C");
    double lo = 0, hi = 0;
    if (cc < 0 || !rx_cli_csv_varies(t, cc, 1) || !rx_cli_csv_range(t, cc, 1, &lo, &hi))
        return 0;
    rx_cli_fig_begin(gp, "correction", 900, 480);
    fprintf(gp, "set title 'Correction buffer C of the deterministic swap "
                "rule, adapted towards S = %g'\n"
                "set ylabel 'C (energy units)'\nset key off\n",
            cfg->tempering.target_swap_rate);
    rx_cli_iter_axis(gp, 0, rx_cli_csv_at(t, t->nr - 1, 0));
    rx_cli_value_axis(gp, "y", lo, hi);
    fprintf(gp, "plot 'trace.csv' skip 1 using 1:%d with lines lw 2 "
                "lc rgb '#2c7fb8' notitle\n",
            cc + 1);
    return 1;
}

/* sigma2.svg: the estimated energy-noise variance of each pair, when the
 * run estimates it online. */
static int fig_sigma2(FILE *gp, const csvtab *t, int P)
{
    int c0 = P > 1 ? rx_cli_csv_cols(t, "sigma2_", P - 1) : -1;
    if (c0 < 0 || !rx_cli_csv_varies(t, c0, P - 1))
        return 0;
    rx_cli_fig_begin(gp, "sigma2", 900, 500);
    trace_panel(gp, t, c0, P - 1, 1, "σ² (energy units squared)",
                "Energy-noise variance σ² of each pair used by the "
                "bias-corrected rule");
    return 1;
}

/* density.svg: the true density beside the histogram of the target
 * samples, on the grid record.grid_* (1-D: two lines on one axis; 2-D: two
 * images on one colour scale). */
static int fig_density(FILE *gp, const char *dir, rx_ctx *ctx,
                       const rx_config *cfg, const rx_results *r)
{
    const int d = (int)r->dim;
    if ((d != 1 && d != 2) || r->n_samples < 1)
        return 0;
    const int B = cfg->record.grid_bins;
    const double lo = cfg->record.grid_low, hi = cfg->record.grid_high;
    const double h = (hi - lo) / B;
    size_t n = d == 1 ? (size_t)B : (size_t)B * (size_t)B;
    double *pt = malloc(n * sizeof(double));
    double *pe = malloc(n * sizeof(double));
    char path[4096];
    FILE *f = NULL;
    double vmax = 0;
    if (pt && pe && rx_density_grid(ctx, pt, pe) == RX_OK &&
        (f = rx_cli_open_in(dir, "density.csv", path, sizeof path))) {
        for (size_t i = 0; i < n; ++i) {
            if (pt[i] > vmax)
                vmax = pt[i];
            if (pe[i] > vmax)
                vmax = pe[i];
        }
        for (int y = 0; y < (d == 1 ? 1 : B); ++y) {
            for (int x = 0; x < B; ++x) {
                size_t i = (size_t)x + (size_t)y * (size_t)B;
                if (d == 1)
                    fprintf(f, "%.6g,%.6g,%.6g\n", lo + (x + 0.5) * h,
                            pt[i], pe[i]);
                else
                    fprintf(f, "%.6g,%.6g,%.6g,%.6g\n", lo + (x + 0.5) * h,
                            lo + (y + 0.5) * h, pt[i], pe[i]);
            }
            if (d == 2)
                fputc('\n', f);
        }
        fclose(f);
    }
    free(pt);
    free(pe);
    if (!f || !(vmax > 0) || !isfinite(vmax))
        return 0;
    const char *unweighted = (int)cfg->bias.kind != 0
                                 ? " (unweighted: the bias flattens the "
                                   "density)"
                                 : "";
    if (d == 1) {
        rx_cli_fig_begin(gp, "density", 900, 500);
        fprintf(gp, "set title 'Density of the target position: exact and "
                    "from the %lld samples'\n"
                    "set xlabel 'x'\n"
                    "set ylabel 'probability per grid cell (width %g)'\n"
                    "set xrange [%.9g:%.9g]\nset yrange [0:%.9g]\n",
                (long long)r->n_samples, h, lo, hi,
                vmax * 1.08);
        fprintf(gp, "plot 'plots/density.csv' using 1:3 with histeps lw 1.5 "
                    "lc rgb '#2c7fb8' title 'histogram of the samples%s', "
                    "'' using 1:2 with lines lw 2 lc rgb 'black' "
                    "title 'true density exp(-U)'\n",
                unweighted);
        return 1;
    }
    /* two square panels of the same size, one colour box on the right;
     * each cell a sharp square (up to 100 x 100 cells) */
    const char *px = B <= 100 ? " pixels" : "";
    rx_cli_fig_begin(gp, "density", 1060, 500);
    fputs(RX_CLI_PAL_DENSITY, gp);
    fprintf(gp, "set key off\nset grid noxtics noytics\n"
                "set cbrange [0:%.9g]\n"
                "set cblabel 'probability per grid cell (%g x %g)'\n"
                "set xrange [%.9g:%.9g]\nset yrange [%.9g:%.9g]\n"
                "set xlabel 'x1'\nset ylabel 'x2'\n"
                "set bmargin at screen 0.13\nset tmargin at screen 0.89\n"
                "set multiplot\n",
            vmax, h, h, lo, hi, lo, hi);
    fprintf(gp, "set lmargin at screen 0.06\nset rmargin at screen 0.43\n"
                "unset colorbox\n"
                "set title 'true density exp(-U), normalised on the grid'\n"
                "plot 'plots/density.csv' using 1:2:3 with image%s "
                "notitle\n",
            px);
    fprintf(gp, "set lmargin at screen 0.51\nset rmargin at screen 0.88\n"
                "set colorbox\n"
                "set title 'histogram of the %lld target samples%s'\n"
                "plot 'plots/density.csv' using 1:2:4 with image%s "
                "notitle\nunset multiplot\n",
            (long long)r->n_samples, unweighted, px);
    return 1;
}

/* ---- the draws: trace and marginals (networks, 3 or more dimensions) ---*/

/* Points of a trace line at most (every m-th draw beyond). */
#define DRAWS_TRACE_MAX 2000
/* Quantities drawn at most: lp and three more. */
#define DRAWS_SHOWN_MAX 4
/* Bins of a marginal's histogram. */
#define DRAWS_BINS 40

/* The axis label of a table row. */
static void draw_label(const char *name, char *buf, size_t cap)
{
    if (!strcmp(name, "lp"))
        snprintf(buf, cap, "lp = -U (log density, nats)");
    else if (!strcmp(name, "noise_sd"))
        snprintf(buf, cap, "noise sd (units of y)");
    else if (!strcmp(name, "noise_precision"))
        snprintf(buf, cap, "noise precision (standardised y)");
    else if (!strcmp(name, "weight_precision"))
        snprintf(buf, cap, "weight precision lambda");
    else
        snprintf(buf, cap, "%s", name);
}

/* The quantities to draw: lp, then a network's weight precision and
 * noise sd (its precision where there is no sd), else the first
 * coordinates; their columns of d into col, returns how many. */
static int draws_pick(const rx__paramdraws *d, int *col)
{
    int n = 0, has_sd = 0;
    for (int c = 0; c < d->k; ++c)
        has_sd |= !strcmp(d->name[c], "noise_sd");
    for (int c = 0; c < d->k && n < DRAWS_SHOWN_MAX; ++c)
        if (!(has_sd && !strcmp(d->name[c], "noise_precision")))
            col[n++] = c;
    return n;
}

/* trace.svg and marginals.svg: the kept draws of lp and a few quantities
 * against the iteration, and each one's histogram (weighted by a bias's
 * importance weights) with its mean. For networks (whose weights are
 * not identifiable: lp and the hyper-parameters) and targets of 3 or more
 * dimensions; 1-D and 2-D ones have density.svg. */
static int fig_draws(FILE *gp, const char *dir, rx_ctx *ctx,
                     const rx_results *r)
{
    if (r->dim < 3) /* a network has more */
        return 0;
    rx__paramdraws d;
    rx_err err;
    if (rx__paramdraws_get(ctx, DRAWS_SHOWN_MAX - 1, &d, &err) != RX_OK)
        return 0;
    int col[DRAWS_SHOWN_MAX];
    const int k = d.n >= 2 ? draws_pick(&d, col) : 0;
    char path[4096];
    FILE *f = k > 0 ? rx_cli_open_in(dir, "draws.csv", path, sizeof path) : NULL;
    FILE *h = f ? rx_cli_open_in(dir, "marginals.csv", path, sizeof path) : NULL;
    double lo[DRAWS_SHOWN_MAX], hi[DRAWS_SHOWN_MAX], mean[DRAWS_SHOWN_MAX];
    double dens[DRAWS_SHOWN_MAX][DRAWS_BINS], width[DRAWS_SHOWN_MAX];
    int ok = f && h;
    const int64_t m = (d.n + DRAWS_TRACE_MAX - 1) / DRAWS_TRACE_MAX;
    for (int q = 0; ok && q < k; ++q) {
        /* range, weighted mean and histogram (a density: it integrates
         * to 1 over the bins) */
        double sw = 0, sx = 0;
        lo[q] = INFINITY;
        hi[q] = -INFINITY;
        for (int64_t i = 0; i < d.n; ++i) {
            const double x = d.x[(size_t)i * (size_t)d.k + (size_t)col[q]];
            const double w = d.w ? d.w[i] : 1.0;
            if (!isfinite(x))
                continue;
            lo[q] = x < lo[q] ? x : lo[q];
            hi[q] = x > hi[q] ? x : hi[q];
            sw += w;
            sx += w * x;
        }
        if (!(sw > 0) || !(hi[q] >= lo[q])) {
            ok = 0;
            break;
        }
        mean[q] = sx / sw;
        if (!(hi[q] > lo[q])) { /* constant: a bin around the value */
            const double pad = lo[q] != 0 ? fabs(lo[q]) * 0.05 : 0.5;
            lo[q] -= pad;
            hi[q] += pad;
        }
        width[q] = (hi[q] - lo[q]) / DRAWS_BINS;
        for (int b = 0; b < DRAWS_BINS; ++b)
            dens[q][b] = 0;
        for (int64_t i = 0; i < d.n; ++i) {
            const double x = d.x[(size_t)i * (size_t)d.k + (size_t)col[q]];
            if (!isfinite(x))
                continue;
            int b = (int)((x - lo[q]) / width[q]);
            b = b < 0 ? 0 : b >= DRAWS_BINS ? DRAWS_BINS - 1 : b;
            dens[q][b] += (d.w ? d.w[i] : 1.0) / (sw * width[q]);
        }
    }
    if (ok) {
        fprintf(f, "iteration");
        for (int q = 0; q < k; ++q)
            fprintf(f, ",%s", d.name[col[q]]);
        fputc('\n', f);
        for (int64_t i = 0; i < d.n; i += m) {
            fprintf(f, "%lld", (long long)d.iter[i]);
            for (int q = 0; q < k; ++q)
                fprintf(f, ",%.9g",
                        d.x[(size_t)i * (size_t)d.k + (size_t)col[q]]);
            fputc('\n', f);
        }
        for (int q = 0; q < k; ++q)
            fprintf(h, "%s%s_bin,%s_density", q ? "," : "", d.name[col[q]],
                    d.name[col[q]]);
        fputc('\n', h);
        for (int b = 0; b < DRAWS_BINS; ++b) {
            for (int q = 0; q < k; ++q)
                fprintf(h, "%s%.9g,%.9g", q ? "," : "",
                        lo[q] + (b + 0.5) * width[q], dens[q][b]);
            fputc('\n', h);
        }
    }
    if (f)
        fclose(f);
    if (h)
        fclose(h);
    if (!ok || k == 0) {
        rx__paramdraws_free(&d);
        return 0;
    }
    const char *what = d.network ? "a network: its weights are not "
                                   "identifiable, so lp and the "
                                   "hyper-parameters"
                                 : "lp and the first coordinates";
    char every[64] = "";
    if (m > 1)
        snprintf(every, sizeof every, ", every %lld-th shown",
                 (long long)m);
    char lab[64];
    /* trace.svg: one panel per quantity, one iteration axis */
    rx_cli_fig_begin(gp, "trace", 900, 60 + 170 * k);
    fprintf(gp, "set key off\nset multiplot layout %d,1 title 'Trace of "
                "the %lld kept target draws%s (%s)'\n",
            k, (long long)d.n, every, what);
    for (int q = 0; q < k; ++q) {
        draw_label(d.name[col[q]], lab, sizeof lab);
        double vlo = INFINITY, vhi = -INFINITY;
        for (int64_t i = 0; i < d.n; i += m) {
            const double x = d.x[(size_t)i * (size_t)d.k + (size_t)col[q]];
            if (isfinite(x)) {
                vlo = x < vlo ? x : vlo;
                vhi = x > vhi ? x : vhi;
            }
        }
        fprintf(gp, "unset logscale\nset ylabel '%s'\n", lab);
        rx_cli_iter_axis(gp, (double)d.iter[0], (double)d.iter[d.n - 1]);
        if (q < k - 1)
            fprintf(gp, "unset xlabel\n");
        rx_cli_value_axis(gp, "y", vlo, vhi);
        fprintf(gp, "plot 'plots/draws.csv' skip 1 using 1:%d with lines "
                    "lw 1 lc rgb '#2c7fb8' notitle\n",
                q + 2);
    }
    fprintf(gp, "unset multiplot\n");
    /* marginals.svg: the histograms, two per row */
    const int rows = (k + 1) / 2;
    rx_cli_fig_begin(gp, "marginals", 900, 60 + 300 * rows);
    fprintf(gp, "set key off\nset style fill solid 0.5 border "
                "rgb '#2c7fb8'\nset multiplot layout %d,%d title "
                "'Marginals of the %lld kept target draws%s (%s); dashed: "
                "the mean'\n",
            rows, k > 1 ? 2 : 1, (long long)d.n,
            d.w ? ", weighted by the bias''s importance weights" : "",
            what);
    for (int q = 0; q < k; ++q) {
        draw_label(d.name[col[q]], lab, sizeof lab);
        double dmax = 0;
        for (int b = 0; b < DRAWS_BINS; ++b)
            dmax = dens[q][b] > dmax ? dens[q][b] : dmax;
        fprintf(gp, "unset arrow\nset xlabel '%s'\n"
                    "set ylabel 'probability density'\nset xtics %.9g\n"
                    "set xrange [%.9g:%.9g]\nset yrange [0:%.9g]\n"
                    "set arrow from %.9g, graph 0 to %.9g, graph 1 nohead "
                    "dt 2 lw 1.5 lc rgb 'black'\n"
                    "plot 'plots/marginals.csv' skip 1 using %d:%d with "
                    "boxes lc rgb '#9ecae1' notitle\n",
                lab, rx_cli_nice_step((hi[q] - lo[q]) / 4), lo[q], hi[q],
                dmax > 0 ? dmax * 1.08 : 1.0, mean[q],
                mean[q], 2 * q + 1, 2 * q + 2);
    }
    fprintf(gp, "unset multiplot\n");
    rx__paramdraws_free(&d);
    return 2;
}

int rx_cli_plots(rx_ctx *ctx, const rx_config *cfg, const char *dir,
                 char *why, size_t cap)
{
    int pr = rx_cli_plots_dir(dir, why, cap);
    if (pr != 0)
        return pr;
    char path[4096];
    rx_results r;
    rx_get_results(ctx, &r);
    const int P = r.n_chains;
    FILE *gp = rx_cli_open_in(dir, "plots.gp", path, sizeof path);
    if (!gp) {
        snprintf(why, cap, "%s: cannot write", path);
        return -1;
    }
    fprintf(gp, "# The figures of this run, drawn by replex; to redraw them "
                "run `gnuplot plots/plots.gp` in the run directory.\n");
    int figs = fig_index(gp, dir, &r);
    csvtab t;
    snprintf(path, sizeof path, "%s/trace.csv", dir);
    if (rx_cli_csv_read(path, &t) == 0) {
        if (t.nr >= 2) {
            figs += fig_acceptance(gp, &t, P, cfg);
            figs += fig_ladder(gp, &t, P, cfg);
            figs += fig_correction(gp, &t, cfg);
            figs += fig_sigma2(gp, &t, P);
        }
        rx_cli_csv_free(&t);
    }
    figs += fig_density(gp, dir, ctx, cfg, &r);
    figs += fig_draws(gp, dir, ctx, &r);
    fclose(gp);
    return figs ? rx_cli_run_gnuplot(dir, "plots.gp", why, cap) : 0;
}

/* ---- the figures of a sweep ---- */
