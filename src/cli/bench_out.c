/*
 * `replex bench`'s outputs: statistics over the repetitions, bench.csv,
 * bench.md and the gnuplot figures (speed-up against threads, round trips
 * per second against the window).
 */
#define _DEFAULT_SOURCE
#define _POSIX_C_SOURCE 200809L
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "bench_int.h"
#include "plots.h"

const char *rx_cli_bench_scheme_label(int scheme)
{
    switch (scheme) {
    case RX_SCHEME_ADJ: return "ADJ";
    case RX_SCHEME_SEO: return "SEO";
    case RX_SCHEME_DEO: return "DEO";
    case RX_SCHEME_DEO_W: return "DEO_W";
    case RX_SCHEME_DEO_STAR: return "DEO*";
    case RX_SCHEME_APE: return "APE";
    default: return "?";
    }
}

/* ------------------------------------------------------------------------ */
/* Statistics.                                                               */
/* ------------------------------------------------------------------------ */

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* Median of n >= 1 values (sorts a copy). */
static double median_of(const double *v, int n)
{
    double tmp[MAX_REPS];
    memcpy(tmp, v, sizeof(double) * (size_t)n);
    qsort(tmp, (size_t)n, sizeof(double), cmp_double);
    return n % 2 ? tmp[n / 2] : 0.5 * (tmp[n / 2 - 1] + tmp[n / 2]);
}

static int same_noise(double a, double b)
{
    return (isnan(a) && isnan(b)) || a == b;
}

/* Same target, noise, rule, normal method, P and iterations: one figure's
 * cells (and the 1-thread reference of a cell is among them). */
int rx_cli_bench_same_group(const bcell *a, const bcell *b)
{
    return !strcmp(a->tg->name, b->tg->name) && same_noise(a->noise, b->noise)
           && a->rule == b->rule && a->normal == b->normal && a->P == b->P &&
           a->iterations == b->iterations;
}

void rx_cli_bench_derive(bcell *cells, int n,
                         double (*foreign)(const bcell *))
{
    for (int i = 0; i < n; ++i) {
        bcell *c = &cells[i];
        double K = (double)c->iterations, P = (double)c->P;
        double cps[MAX_REPS];
        c->wall_best = c->wall[0];
        for (int r = 0; r < c->nwall; ++r) {
            c->wall_best = c->wall[r] < c->wall_best ? c->wall[r]
                                                     : c->wall_best;
            cps[r] = P * K / c->wall[r];
        }
        c->wall_med = median_of(c->wall, c->nwall);
        c->cps_best = P * K / c->wall_best;
        c->cps_med = median_of(cps, c->nwall);
        c->foreign = foreign(c);
        c->wsh_med = c->nwsh > 0 ? median_of(c->wsh, c->nwsh) : -1.0;
        c->stl_med = c->nstl > 0 ? median_of(c->stl, c->nstl) : -1.0;
    }
    for (int i = 0; i < n; ++i) {
        bcell *c = &cells[i];
        c->base = -1;
        for (int j = 0; j < n && c->base < 0; ++j) {
            const bcell *o = &cells[j];
            if (o->threads == 1 && rx_cli_bench_same_group(c, o) &&
                o->scheme == c->scheme && o->window == c->window)
                c->base = j;
        }
        if (c->base >= 0) {
            c->speedup = c->cps_med / cells[c->base].cps_med;
            c->eff = c->speedup / (double)(c->threads_used > 0
                                               ? c->threads_used
                                               : c->threads);
        }
    }
}

/* ------------------------------------------------------------------------ */
/* Outputs.                                                                  */
/* ------------------------------------------------------------------------ */

static const char CSV_HEADER[] =
    "cell,grid,target,energy_noise_sd,rule,normal,scheme,window,chains,"
    "threads,"
    "threads_used,iterations,reps,wall_s_best,wall_s_median,"
    "wall_us_per_iter_best,wall_us_per_iter_median,chain_steps_per_s_best,"
    "chain_steps_per_s_median,trips_a5,trips_per_1000,trips_per_s,"
    "swap_rate,speedup,efficiency,timed_wall_us_per_iter,step_us,energy_us,"
    "wait_us,exchange_us,adapt_us,record_us,imbalance,peak_rss_kib,"
    "foreign_load,wait_share,steal_share\n";

static double trips_per_1000(const bcell *c)
{
    return 1000.0 * (double)c->trips / (double)c->iterations;
}

static double swap_rate(const bcell *c)
{
    return c->attempts ? (double)c->swaps / (double)c->attempts : 0.0;
}

int rx_cli_bench_write_csv(const char *path, const bcell *cells, int n)
{
    FILE *f = fopen(path, "w");
    if (!f)
        return -1;
    fputs(CSV_HEADER, f);
    for (int i = 0; i < n; ++i) {
        const bcell *c = &cells[i];
        const double K = (double)c->iterations;
        fprintf(f, "%d,%d,%s,", i + 1, c->grid, c->tg->name);
        if (!isnan(c->noise))
            fprintf(f, "%.6g", c->noise);
        fprintf(f, ",%s,%s,%s,%d,%d,%d,%d,%lld,%d,",
                rx__rule_name((rx_rule)c->rule),
                rx__names_of(rx__normal_names, c->normal),
                rx__scheme_name((rx_scheme)c->scheme), c->window_used,
                c->P, c->threads, c->threads_used, (long long)c->iterations,
                c->nwall);
        fprintf(f, "%.6g,%.6g,%.6g,%.6g,%.6g,%.6g,", c->wall_best,
                c->wall_med, 1e6 * c->wall_best / K, 1e6 * c->wall_med / K,
                c->cps_best, c->cps_med);
        fprintf(f, "%lld,%.6g,%.6g,%.6g,", (long long)c->trips,
                trips_per_1000(c), (double)c->trips / c->wall_med,
                swap_rate(c));
        if (c->base >= 0)
            fprintf(f, "%.6g,%.6g", c->speedup, c->eff);
        else
            fputc(',', f);
        fputc(',', f);
        if (c->timed) {
            fprintf(f, "%.6g", 1e6 * c->timed_wall / K);
            for (int j = 0; j < RX_NPHASES; ++j)
                fprintf(f, ",%.6g", 1e6 * c->phase[j] / K);
        } else {
            for (int j = 0; j < RX_NPHASES; ++j)
                fputc(',', f);
        }
        fputc(',', f);
        if (c->timed && c->has_imb)
            fprintf(f, "%.6g", c->imb);
        fprintf(f, ",%ld,", c->rss_kib);
        if (c->foreign >= 0.0)
            fprintf(f, "%.4f", c->foreign);
        fputc(',', f);
        if (c->wsh_med >= 0.0)
            fprintf(f, "%.4f", c->wsh_med);
        fputc(',', f);
        if (c->stl_med >= 0.0)
            fprintf(f, "%.4f", c->stl_med);
        fputc('\n', f);
    }
    return fclose(f) == 0 ? 0 : -1;
}

/* The SI-prefixed rate, e.g. "12.3M". */
static void si(char *buf, size_t cap, double v)
{
    if (v >= 1e9)
        snprintf(buf, cap, "%.3gG", v / 1e9);
    else if (v >= 1e6)
        snprintf(buf, cap, "%.3gM", v / 1e6);
    else if (v >= 1e3)
        snprintf(buf, cap, "%.3gk", v / 1e3);
    else
        snprintf(buf, cap, "%.3g", v);
}

void rx_cli_bench_write_md(FILE *f, const bcell *cells, int n)
{
    fputs("| cell | target | noise | rule | normal | scheme | W | P "
          "| threads "
          "| chain-steps/s median | best | us/iter median "
          "| step us | energy us | wait us | exchange us | adapt us "
          "| record us | trips/1000 | trips/s | swap rate | speed-up "
          "| efficiency | imbalance | RSS MiB | foreign % | wait % "
          "| steal % |\n",
          f);
    for (int j = 0; j < 28; ++j)
        fputs("|---", f);
    fputs("|\n", f);
    for (int i = 0; i < n; ++i) {
        const bcell *c = &cells[i];
        const double K = (double)c->iterations;
        char a[32], b[32], nz[32] = "";
        si(a, sizeof a, c->cps_med);
        si(b, sizeof b, c->cps_best);
        if (!isnan(c->noise))
            snprintf(nz, sizeof nz, "%g", c->noise);
        fprintf(f, "| %d | %s | %s | %s | %s | %s | %d | %d | %d | %s | %s "
                "| %.3g ", i + 1, c->tg->name, nz,
                rx__rule_name((rx_rule)c->rule),
                rx__names_of(rx__normal_names, c->normal),
                rx_cli_bench_scheme_label(c->scheme), c->window_used, c->P,
                c->threads_used, a, b, 1e6 * c->wall_med / K);
        for (int j = 0; j < RX_NPHASES; ++j) {
            if (c->timed)
                fprintf(f, "| %.3g ", 1e6 * c->phase[j] / K);
            else
                fputs("| ", f);
        }
        double tps = (double)c->trips / c->wall_med;
        fprintf(f, tps >= 100.0 ? "| %.2f | %.0f | %.3f " : "| %.2f | %.3g "
                "| %.3f ", trips_per_1000(c), tps, swap_rate(c));
        if (c->base >= 0)
            fprintf(f, "| %.2f | %.2f ", c->speedup, c->eff);
        else
            fputs("| | ", f);
        if (c->timed && c->has_imb)
            fprintf(f, "| %.3f ", c->imb);
        else
            fputs("| ", f);
        fprintf(f, "| %.1f ", (double)c->rss_kib / 1024.0);
        if (c->foreign >= 0.0)
            fprintf(f, "| %.1f ", 100.0 * c->foreign);
        else
            fputs("| ", f);
        if (c->wsh_med >= 0.0)
            fprintf(f, "| %.1f ", 100.0 * c->wsh_med);
        else
            fputs("| ", f);
        if (c->stl_med >= 0.0)
            fprintf(f, "| %.1f |\n", 100.0 * c->stl_med);
        else
            fputs("| |\n", f);
    }
}

/* A name for files: [A-Za-z0-9_] of the target's base name. */
static void file_tag(const char *name, char *out, size_t cap)
{
    const char *base = strrchr(name, '/');
    base = base ? base + 1 : name;
    size_t l = strlen(base);
    if (l > 5 && !strcmp(base + l - 5, ".yaml"))
        l -= 5;
    size_t o = 0;
    for (size_t i = 0; i < l && o + 1 < cap && o < 40; ++i) {
        char ch = base[i];
        int ok = (ch >= 'a' && ch <= 'z') || (ch >= 'A' && ch <= 'Z') ||
                 (ch >= '0' && ch <= '9');
        out[o++] = ok ? ch : '_';
    }
    out[o] = '\0';
}

static void group_title(const bcell *c, char *buf, size_t cap)
{
    char nz[48] = "";
    if (!isnan(c->noise))
        snprintf(nz, sizeof nz, c->noise > 0.0 ? ", noise sd %g"
                                               : ", exact energies", c->noise);
    snprintf(buf, cap, "%s%s, %s, %s normals, P = %d, %lld iterations",
             c->tg->name, nz, rx__rule_name((rx_rule)c->rule),
             rx__names_of(rx__normal_names, c->normal), c->P,
             (long long)c->iterations);
}

/* The speed-up figure of the group of cell h: series = (scheme, window)
 * with a multi-thread cell. Returns the series drawn, -1 on a write
 * failure. */
static int plot_speedup(FILE *gp, const char *dir, const bcell *cells, int n,
                        int h, int fig, const char *tag, const char *title)
{
    char dat[4400], rel[160], plot[8192] = "";
    int nser = 0, maxt = 1;
    snprintf(rel, sizeof rel, "plots/speedup-%d-%s-P%d.dat", fig, tag,
             cells[h].P);
    snprintf(dat, sizeof dat, "%s/%s", dir, rel);
    FILE *d = NULL;
    for (int i = h; i < n; ++i) {
        const bcell *s = &cells[i];
        int first = 1, multi = 0;
        for (int j = h; j < i && first; ++j)
            if (rx_cli_bench_same_group(s, &cells[j]) &&
                cells[j].scheme == s->scheme && cells[j].window == s->window)
                first = 0;
        for (int j = h; j < n; ++j)
            if (rx_cli_bench_same_group(s, &cells[j]) &&
                cells[j].scheme == s->scheme &&
                cells[j].window == s->window && cells[j].base >= 0 &&
                cells[j].threads > 1)
                multi = 1;
        if (!first || !multi || !rx_cli_bench_same_group(s, &cells[h]))
            continue;
        if (!d && !(d = fopen(dat, "w")))
            return -1;
        if (nser)
            fputs("\n\n", d);
        /* threads ascending */
        int last = 0;
        for (;;) {
            int best = -1;
            for (int j = h; j < n; ++j) {
                const bcell *o = &cells[j];
                if (rx_cli_bench_same_group(s, o) && o->scheme == s->scheme &&
                    o->window == s->window && o->base >= 0 &&
                    o->threads > last &&
                    (best < 0 || o->threads < cells[best].threads))
                    best = j;
            }
            if (best < 0)
                break;
            last = cells[best].threads;
            maxt = last > maxt ? last : maxt;
            fprintf(d, "%d %.6g\n", cells[best].threads_used,
                    cells[best].speedup);
        }
        char lbl[64];
        if (s->scheme == RX_SCHEME_DEO_W)
            snprintf(lbl, sizeof lbl, "DEO_W W=%d", s->window);
        else
            snprintf(lbl, sizeof lbl, "%s",
                     rx_cli_bench_scheme_label(s->scheme));
        size_t l = strlen(plot);
        snprintf(plot + l, sizeof plot - l, "%s'%s' index %d using 1:2 "
                 "with linespoints title '%s'", nser ? ", " : "", rel, nser,
                 lbl);
        ++nser;
    }
    if (d && fclose(d) != 0)
        return -1;
    if (nser) {
        fprintf(gp, "set output 'plots/speedup-%d-%s-P%d.svg'\n", fig, tag,
                cells[h].P);
        fputs("set title \"speed-up against threads\\n\".'", gp);
        rx_cli_gp_quote(gp, title);
        fputs("'\n", gp);
        fprintf(gp, "set xlabel 'threads'\nset ylabel 'speed-up "
                    "(chain-steps/s over 1 thread, medians)'\n");
        fprintf(gp, "set xrange [0.8:%d.2]\nset xtics 1\n", maxt);
        fprintf(gp, "plot %s, x with lines dt 2 lc rgb 'gray' title "
                    "'ideal'\nunset xrange\nset xtics autofreq\n", plot);
    }
    return nser;
}

/* DEO* cells (star) or DEO and DEO_W cells (!star). */
static int w_series(const bcell *c, int star)
{
    return star ? c->scheme == RX_SCHEME_DEO_STAR
                : c->scheme == RX_SCHEME_DEO_W || c->scheme == RX_SCHEME_DEO;
}

/* One block of the W figure's data: the cells of s's group and thread
 * count, window ascending. */
static void w_block(FILE *d, const bcell *cells, int n, int h,
                    const bcell *s, int star)
{
    int last = 0;
    for (;;) {
        int best = -1;
        for (int j = h; j < n; ++j) {
            const bcell *o = &cells[j];
            if (w_series(o, star) && rx_cli_bench_same_group(s, o) &&
                o->threads == s->threads && o->window_used > last &&
                (best < 0 || o->window_used < cells[best].window_used))
                best = j;
        }
        if (best < 0)
            break;
        last = cells[best].window_used;
        fprintf(d, "%d %.6g\n", last,
                (double)cells[best].trips / cells[best].wall_med);
    }
}

/* The round-trips-per-second-against-W figure of the group of cell h,
 * where it has deo_w cells. Returns 1 drawn, 0 none, -1 on a write
 * failure. */
static int plot_trips(FILE *gp, const char *dir, const bcell *cells, int n,
                      int h, int fig, const char *tag, const char *title)
{
    int nw = 0;
    for (int i = h; i < n; ++i)
        nw += rx_cli_bench_same_group(&cells[h], &cells[i]) &&
              cells[i].scheme == RX_SCHEME_DEO_W;
    if (!nw)
        return 0;
    char dat[4400], rel[160], plot[8192] = "";
    snprintf(rel, sizeof rel, "plots/trips_vs_W-%d-%s-P%d.dat", fig, tag,
             cells[h].P);
    snprintf(dat, sizeof dat, "%s/%s", dir, rel);
    FILE *d = fopen(dat, "w");
    if (!d)
        return -1;
    int blk = 0;
    for (int star = 0; star < 2; ++star)
        for (int i = h; i < n; ++i) {
            const bcell *s = &cells[i];
            if (!rx_cli_bench_same_group(s, &cells[h]) || !w_series(s, star))
                continue;
            int first = 1;
            for (int j = h; j < i && first; ++j)
                if (rx_cli_bench_same_group(s, &cells[j]) &&
                    cells[j].threads == s->threads &&
                    w_series(&cells[j], star))
                    first = 0;
            if (!first)
                continue;
            if (blk)
                fputs("\n\n", d);
            w_block(d, cells, n, h, s, star);
            size_t l = strlen(plot);
            snprintf(plot + l, sizeof plot - l,
                     "%s'%s' index %d using 1:2 with %s title "
                     "'%s%d thread%s'", blk ? ", " : "", rel, blk,
                     star ? "points pt 7 ps 1.5" : "linespoints",
                     star ? "DEO* (W*), " : "DEO / DEO_W, ", s->threads,
                     s->threads > 1 ? "s" : "");
            ++blk;
        }
    int bad = fclose(d) != 0;
    fprintf(gp, "set output 'plots/trips_vs_W-%d-%s-P%d.svg'\n", fig, tag,
            cells[h].P);
    fputs("set title \"round trips per second of wall time against the "
          "window W\\n\".'", gp);
    rx_cli_gp_quote(gp, title);
    fputs("'\n", gp);
    fprintf(gp, "set xlabel 'window W'\nset ylabel 'round trips "
                "(A.5) per second'\nset logscale x 2\n");
    fprintf(gp, "plot %s\nunset logscale x\n", plot);
    return bad ? -1 : 1;
}

/* The figures: speed-up against threads, one line per schedule (one
 * figure per target / noise / rule / normal method / P); round trips per
 * second against W from the DEO (W = 1) and DEO_W cells, one line per
 * thread count, DEO* as points. 0 written, 1 skipped (why), -1 failed (why). */
int rx_cli_bench_write_plots(const char *dir, const bcell *cells, int n,
                             char *why, size_t cap)
{
    int pd = rx_cli_plots_dir(dir, why, cap);
    if (pd != 0)
        return pd;
    char path[4400];
    snprintf(path, sizeof path, "%s/plots/bench.gp", dir);
    FILE *gp = fopen(path, "w");
    if (!gp) {
        snprintf(why, cap, "%s: cannot write", path);
        return -1;
    }
    fprintf(gp, "set terminal svg size 900,500 dynamic noenhanced "
                "background rgb 'white'\nset key below\nset grid\n"
                "set offsets graph 0.03, graph 0.03, graph 0.05, 0\n");
    int *done = calloc((size_t)n, sizeof(int));
    int nfig = 0, bad = !done;
    for (int h = 0; h < n && !bad; ++h) {
        if (done[h])
            continue;
        int members = 0;
        for (int i = h; i < n; ++i)
            if (!done[i] && rx_cli_bench_same_group(&cells[h], &cells[i]))
                done[i] = ++members;
        char tag[64], title[512];
        file_tag(cells[h].tg->name, tag, sizeof tag);
        group_title(&cells[h], title, sizeof title);
        int nser = plot_speedup(gp, dir, cells, n, h, nfig + 1, tag, title);
        int nw = nser < 0 ? -1
                          : plot_trips(gp, dir, cells, n, h, nfig + 1, tag,
                                       title);
        if (nser < 0 || nw < 0)
            bad = 1;
        else if (nser || nw)
            ++nfig;
    }
    free(done);
    if (fclose(gp) != 0 || bad) {
        snprintf(why, cap, "%s/plots: cannot write the figure data", dir);
        return -1;
    }
    if (nfig == 0) {
        snprintf(path, sizeof path, "%s/plots/bench.gp", dir);
        remove(path);
        snprintf(path, sizeof path, "%s/plots", dir);
        rmdir(path);
        snprintf(why, cap, "no figure to draw (speed-up needs cells with 1 "
                 "and more threads; the W figure needs deo_w cells)");
        return 1;
    }
    return rx_cli_run_gnuplot(dir, "bench.gp", why, cap);
}
