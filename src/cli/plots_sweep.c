/*
 * The figures of a sweep (rx_cli_sweep_plots): one per swept key, the
 * round-trip rate and the TV distance or test metric against the key's
 * values, drawn by gnuplot from out/plots/sweep_data.csv. Part of the CLI.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "plotkit.h"
#include "plots.h"

/* Is every value of swept key I a number? */
static int key_numeric(const rx_sweep *sw, int i)
{
    for (int j = 0; j < sw->n_values[i]; ++j)
        if (isnan(rx_cli_csv_field(sw->values[i][j])))
            return 0;
    return 1;
}

/* Which value of key I run R (0-based) used: the last key varies fastest. */
static int run_value(const rx_sweep *sw, long r, int i)
{
    for (int k = sw->n_keys - 1; k > i; --k)
        r /= sw->n_values[k];
    return (int)(r % sw->n_values[i]);
}


/* The y2 quantity of the sweep figures: the TV distance where the target
 * has a density, else the network's test metric. */
static int sweep_y2(const csvtab *t, const char **label)
{
    static const struct {
        const char *col, *label;
    } Y2[] = {
        {"tv_distance", "TV distance to the true density"},
        {"accuracy", "test accuracy of the posterior average"},
        {"rmse", "test RMSE of the posterior average"},
    };
    for (size_t k = 0; k < sizeof Y2 / sizeof Y2[0]; ++k) {
        int c = rx_cli_csv_col(t, Y2[k].col);
        double lo, hi;
        if (c >= 0 && rx_cli_csv_range(t, c, 1, &lo, &hi)) {
            *label = Y2[k].label;
            return c;
        }
    }
    return -1;
}

/* sweep_data.csv: per run, the x of every key (its value, or its index
 * among the key's values when they are not numbers), the round trips and
 * the y2 quantity. */
static int sweep_data(const char *out, const rx_sweep *sw, const csvtab *t,
                      int crun, int ca, int c2)
{
    char path[4096];
    FILE *f = rx_cli_open_in(out, "sweep_data.csv", path, sizeof path);
    if (!f)
        return -1;
    for (long r = 0; r < t->nr; ++r) {
        double run = rx_cli_csv_at(t, r, crun);
        if (!(run >= 1))
            continue;
        for (int i = 0; i < sw->n_keys; ++i) {
            int j = run_value(sw, (long)run - 1, i);
            if (key_numeric(sw, i))
                fprintf(f, "%.17g,", rx_cli_csv_field(sw->values[i][j]));
            else
                fprintf(f, "%d,", j + 1);
        }
        fprintf(f, "%.9g,%.9g\n", rx_cli_csv_at(t, r, ca),
                c2 >= 0 ? rx_cli_csv_at(t, r, c2) : NAN);
    }
    return fclose(f) == 0 ? 0 : -1;
}

/* The x axis of key I: a tick at each value when there are at most 12
 * (the values as written in the file), a logarithmic scale for positive
 * numbers spanning a factor of 100 or more. */
static void sweep_xaxis(FILE *gp, const rx_sweep *sw, int i)
{
    const int n = sw->n_values[i];
    fprintf(gp, "set xlabel '%s'\n", sw->keys[i]);
    if (!key_numeric(sw, i)) {
        fprintf(gp, "set xrange [0.5:%d.5]\n", n);
    } else {
        double lo = 0, hi = 0;
        for (int j = 0; j < n; ++j) {
            double x = rx_cli_csv_field(sw->values[i][j]);
            lo = j == 0 || x < lo ? x : lo;
            hi = j == 0 || x > hi ? x : hi;
        }
        if (lo > 0 && hi / lo >= 100) {
            fprintf(gp, "set logscale x\nset xrange [%.9g:%.9g]\n",
                    lo / 1.5, hi * 1.5);
        } else {
            double pad = hi > lo ? (hi - lo) * 0.06
                                 : (lo != 0 ? fabs(lo) * 0.1 : 1);
            fprintf(gp, "set xrange [%.9g:%.9g]\n", lo - pad, hi + pad);
        }
    }
    if (n > 12)
        return;
    fprintf(gp, "set xtics (");
    for (int j = 0; j < n; ++j) {
        fprintf(gp, "%s'", j ? ", " : "");
        rx_cli_gp_quote(gp, sw->values[i][j]);
        if (key_numeric(sw, i))
            fprintf(gp, "' %.17g", rx_cli_csv_field(sw->values[i][j]));
        else
            fprintf(gp, "' %d", j + 1);
    }
    fprintf(gp, ")\n");
}

int rx_cli_sweep_plots(const char *out, const rx_sweep *sw, char *why,
                       size_t cap)
{
    int pr = rx_cli_plots_dir(out, why, cap);
    if (pr != 0)
        return pr;
    char path[4096];
    csvtab t;
    snprintf(path, sizeof path, "%s/sweep.csv", out);
    if (rx_cli_csv_read(path, &t) != 0) {
        snprintf(why, cap, "%s: cannot read", path);
        return -1;
    }
    const char *y2label = NULL;
    int crun = rx_cli_csv_col(&t, "run"), ca = rx_cli_csv_col(&t, "a5_per_1000");
    int c2 = sweep_y2(&t, &y2label);
    double alo = 0, ahi = 0, blo = 0, bhi = 0;
    int has_a = ca >= 0 && rx_cli_csv_range(&t, ca, 1, &alo, &ahi);
    int has_b = c2 >= 0 && rx_cli_csv_range(&t, c2, 1, &blo, &bhi);
    int rc = crun >= 0 && ca >= 0 ? sweep_data(out, sw, &t, crun, ca, c2)
                                  : -1;
    rx_cli_csv_free(&t);
    FILE *gp = rc == 0 ? rx_cli_open_in(out, "sweep.gp", path, sizeof path) : NULL;
    if (!gp) {
        snprintf(why, cap, "%s/plots: cannot write the sweep figures", out);
        return -1;
    }
    fprintf(gp, "# The figures of this sweep, drawn by replex; to redraw "
                "them run `gnuplot plots/sweep.gp` in the sweep directory.\n");
    int figs = 0;
    const int ya = sw->n_keys + 1, yb = sw->n_keys + 2;
    for (int i = 0; i < sw->n_keys && (has_a || has_b); ++i) {
        /* seeds repeat a setting: against them alone only when nothing
         * else is swept */
        if (!strcmp(sw->keys[i], "seed") && sw->n_keys > 1)
            continue;
        char name[160];
        snprintf(name, sizeof name, "sweep_%s", sw->keys[i]);
        for (char *c = name; *c; ++c)
            if (*c == '.')
                *c = '_';
        rx_cli_fig_begin(gp, name, 900, 500);
        fprintf(gp, "set title 'Sweep over %s: a point per run, lines "
                    "through the means%s'\n",
                sw->keys[i],
                sw->n_keys > 1 ? " (over the other swept keys)" : "");
        sweep_xaxis(gp, sw, i);
        if (has_a) {
            fprintf(gp, "set ylabel 'round trips per 1000 iterations'\n");
            rx_cli_value_axis(gp, "y", alo, ahi);
        }
        if (has_b) {
            fprintf(gp, "set %slabel '%s'\nset %stics\n", has_a ? "y2" : "y",
                    y2label, has_a ? "y2" : "y");
            rx_cli_value_axis(gp, has_a ? "y2" : "y", blo, bhi);
        }
        const char *sep = "plot ";
        if (has_a) {
            fprintf(gp, "plot 'plots/sweep_data.csv' using %d:%d with points "
                        "pt 7 ps 0.8 lc rgb '#2c7fb8' title 'round trips%s', "
                        "'' using %d:%d smooth unique with lines lw 2 "
                        "lc rgb '#2c7fb8' notitle",
                    i + 1, ya, has_b ? " (left axis)" : "", i + 1, ya);
            sep = ", ";
        }
        if (has_b)
            fprintf(gp, "%s'plots/sweep_data.csv' using %d:%d axes x1%s "
                        "with points pt 5 ps 0.8 lc rgb '#d95f02' "
                        "title '%s%s', '' using %d:%d axes x1%s smooth unique "
                        "with lines lw 2 dt 2 lc rgb '#d95f02' notitle",
                    sep, i + 1, yb, has_a ? "y2" : "y1", y2label,
                    has_a ? " (right axis)" : "", i + 1, yb,
                    has_a ? "y2" : "y1");
        fputc('\n', gp);
        ++figs;
    }
    fclose(gp);
    return figs ? rx_cli_run_gnuplot(out, "sweep.gp", why, cap) : 0;
}
