/*
 * Plots of a finished run, drawn by gnuplot (an external, well-kept tool)
 * when it is on PATH: the index process with particle 1's path
 * highlighted, the condition rate of every pair over time, the ladder over
 * time, the buffer C over time, and for 2-D targets the sample histogram
 * beside the true density. Writes CSV data, plots.gp and SVG files into the run
 * directory's plots/. Part of the CLI: the library never starts programs.
 */
#define _GNU_SOURCE /* posix_spawn_file_actions_addchdir_np */
#include <errno.h>
#include <fcntl.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "plots.h"

extern char **environ;

/* Is an executable gnuplot in a directory of PATH? (No shell: the
 * directories are searched here, as execvp would.) */
int rx_cli_have_gnuplot(void)
{
    const char *path = getenv("PATH");
    if (!path || !path[0])
        path = "/usr/bin:/bin";
    char buf[4200];
    while (*path) {
        size_t n = strcspn(path, ":");
        snprintf(buf, sizeof buf, "%.*s/gnuplot", (int)(n ? n : 1),
                 n ? path : ".");
        if (access(buf, X_OK) == 0)
            return 1;
        path += n + (path[n] == ':');
    }
    return 0;
}

/* gnuplot SCRIPT (argv[1], no shell) with stderr to LOG, in directory CWD
 * (NULL: this process's). 0 when it exits 0. */
static int spawn_gnuplot(const char *cwd, const char *script,
                         const char *log)
{
    posix_spawn_file_actions_t fa;
    if (posix_spawn_file_actions_init(&fa) != 0)
        return -1;
    int bad = 0;
    if (cwd)
        bad |= posix_spawn_file_actions_addchdir_np(&fa, cwd);
    bad |= posix_spawn_file_actions_addopen(&fa, 2, log,
                                            O_WRONLY | O_CREAT | O_TRUNC,
                                            0666);
    bad |= posix_spawn_file_actions_addopen(&fa, 0, "/dev/null", O_RDONLY,
                                            0);
    pid_t pid;
    char *argv[] = {"gnuplot", (char *)script, NULL};
    if (!bad && posix_spawnp(&pid, "gnuplot", &fa, NULL, argv, environ) != 0)
        bad = 1;
    posix_spawn_file_actions_destroy(&fa);
    if (bad)
        return -1;
    int ws;
    while (waitpid(pid, &ws, 0) < 0)
        if (errno != EINTR)
            return -1;
    return WIFEXITED(ws) && WEXITSTATUS(ws) == 0 ? 0 : -1;
}

int rx_cli_run_gnuplot(const char *dir, const char *script, char *why,
                       size_t cap)
{
    char sp[4200], lp[4200];
    snprintf(sp, sizeof sp, "%s/plots/%s", dir, script);
    snprintf(lp, sizeof lp, "%s/plots/gnuplot.log", dir);
    if (spawn_gnuplot(NULL, sp, lp) != 0) {
        snprintf(why, cap, "gnuplot failed; see %s/plots/gnuplot.log", dir);
        return -1;
    }
    return 0;
}

/* gnuplot run inside DIR on plots/SCRIPT, whose paths are relative to DIR:
 * the directory's name never enters the script, whatever it holds. */
static int run_gnuplot_in(const char *dir, const char *script, char *why,
                          size_t cap)
{
    char sp[600];
    snprintf(sp, sizeof sp, "plots/%s", script);
    if (spawn_gnuplot(dir, sp, "plots/gnuplot.log") != 0) {
        snprintf(why, cap, "gnuplot failed; see %s/plots/gnuplot.log", dir);
        return -1;
    }
    return 0;
}

int rx_cli_mkdir_parents(const char *dir)
{
    char buf[4096];
    if (strlen(dir) >= sizeof buf) {
        errno = ENAMETOOLONG;
        return -1;
    }
    strcpy(buf, dir);
    for (char *p = buf + 1; *p; ++p) {
        if (*p != '/')
            continue;
        *p = '\0';
        if (mkdir(buf, 0777) != 0 && errno != EEXIST)
            return -1;
        *p = '/';
    }
    return 0;
}

void rx_cli_default_out(const char *file, char *buf, size_t cap)
{
    const char *base = strrchr(file, '/');
    base = base ? base + 1 : file;
    size_t bl = strlen(base);
    if (bl > 5 && !strcmp(base + bl - 5, ".yaml"))
        bl -= 5;
    else if (bl > 4 && !strcmp(base + bl - 4, ".yml"))
        bl -= 4;
    snprintf(buf, cap, "runs/%.*s", (int)bl, base);
}

int rx_cli_plots_dir(const char *dir, char *why, size_t cap)
{
    if (!rx_cli_have_gnuplot()) {
        snprintf(why, cap, "gnuplot not found; plots skipped (apt-get "
                 "install gnuplot-nox)");
        return 1;
    }
    char path[4096];
    snprintf(path, sizeof path, "%s/plots", dir);
    if (mkdir(path, 0777) != 0 && errno != EEXIST) {
        snprintf(why, cap, "%s: cannot create", path);
        return -1;
    }
    return 0;
}

static FILE *open_in(const char *dir, const char *name, char *path,
                     size_t cap)
{
    snprintf(path, cap, "%s/plots/%s", dir, name);
    return fopen(path, "w");
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
    FILE *gp = open_in(dir, "plots.gp", path, sizeof path);
    if (!gp) {
        snprintf(why, cap, "%s: cannot write", path);
        return -1;
    }
    fprintf(gp, "set terminal svg size 900,500 dynamic background rgb "
                "'white'\nset datafile separator ','\nset key off\n");

    /* index process: positions (1-based) of every particle over the last
     * 2000 stored rows; particle 1 drawn thick */
    if (r.n_index > 1 && P > 1) {
        FILE *f = open_in(dir, "index.csv", path, sizeof path);
        if (f) {
            int64_t first = r.n_index > 2000 ? r.n_index - 2000 : 0;
            int *pos = malloc(sizeof(int) * (size_t)P);
            for (int64_t k = first; pos && k < r.n_index; ++k) {
                const int32_t *row = r.index + (size_t)k * (size_t)P;
                for (int q = 0; q < P; ++q)
                    pos[row[q]] = q + 1;
                fprintf(f, "%lld", (long long)r.index_iter[k]);
                for (int i = 0; i < P; ++i)
                    fprintf(f, ",%d", pos[i]);
                fputc('\n', f);
            }
            free(pos);
            fclose(f);
            int shown = P < 32 ? P : 32;
            fprintf(gp, "set output 'plots/index.svg'\n");
            fprintf(gp, "set title 'index process: position of each "
                        "particle (particle 1 bold)'\n");
            fprintf(gp, "set xlabel 'iteration'; set ylabel 'position'\n");
            fprintf(gp, "set yrange [0.5:%d.5]\n", P);
            fprintf(gp, "plot for [i=3:%d] 'plots/index.csv' using 1:i "
                        "with steps lc rgb '#c0c0c0' lw 1, 'plots/"
                        "index.csv' using 1:2 with steps lc rgb '#d62728' "
                        "lw 3\n",
                    shown + 1);
            fprintf(gp, "unset yrange\n");
        }
    }
    /* trace columns: 1 k, 2 a5, 3 l1, 4 restarts, 5 mean_cond, 6 C,
     * 7.. cond_p (P-1), swaps_p (P-1), eta_q (P), tau_q (P) */
    const int c_cond = 7, c_eta = 7 + 2 * (P - 1), c_tau = c_eta + P;
    fprintf(gp, "set output 'plots/acceptance.svg'\n");
    fprintf(gp, "set title 'swap-condition rate of each pair per trace "
                "interval (thick: mean)'\nset xlabel 'iteration'; "
                "set ylabel 'rate'\n");
    fprintf(gp, "plot for [i=%d:%d] 'trace.csv' every ::1 using 1:i with "
                "lines lw 1, 'trace.csv' every ::1 using 1:5 with lines "
                "lw 3 lc rgb 'black'\n",
            c_cond, c_cond + P - 2);
    fprintf(gp, "set output 'plots/ladder.svg'\n");
    fprintf(gp, "set multiplot layout 1,2\nset logscale y\n");
    fprintf(gp, "set title 'learning rates'\nplot for [i=%d:%d] "
                "'trace.csv' every ::1 using 1:i with lines\n",
            c_eta, c_eta + P - 1);
    fprintf(gp, "set title 'temperatures'\nplot for [i=%d:%d] "
                "'trace.csv' every ::1 using 1:i with lines\n",
            c_tau, c_tau + P - 1);
    fprintf(gp, "unset multiplot\nunset logscale y\n");
    fprintf(gp, "set output 'plots/correction.svg'\n");
    fprintf(gp, "set title 'correction buffer C'\nset ylabel 'C'\n");
    fprintf(gp, "plot 'trace.csv' every ::1 using 1:6 with lines lw 2\n");

    /* 2-D: histogram of the target samples beside the true density */
    if (r.dim == 2) {
        {
            int B = cfg->record.grid_bins;
            double glow = cfg->record.grid_low, ghigh = cfg->record.grid_high;
            size_t n = (size_t)B * (size_t)B;
            double *pt = malloc(n * sizeof(double));
            double *pe = malloc(n * sizeof(double));
            FILE *f = open_in(dir, "density.csv", path, sizeof path);
            if (pt && pe && f && rx_density_grid(ctx, pt, pe) == RX_OK) {
                double h = (ghigh - glow) / B;
                for (int y = 0; y < B; ++y) {
                    for (int x = 0; x < B; ++x)
                        fprintf(f, "%.6g,%.6g,%.6g,%.6g\n",
                                glow + (x + 0.5) * h, glow + (y + 0.5) * h,
                                pt[x + y * B], pe[x + y * B]);
                    fputc('\n', f);
                }
                fprintf(gp, "set output 'plots/density.svg'\n");
                fprintf(gp, "set terminal svg size 1000,480\nset multiplot "
                            "layout 1,2\nset view map\nset size ratio 1\n"
                            "unset xlabel; unset ylabel\n");
                fprintf(gp, "set title 'true density (grid)'\nsplot "
                            "'plots/density.csv' using 1:2:3 with "
                            "image\n");
                fprintf(gp, "set title 'target-chain samples'\nsplot "
                            "'plots/density.csv' using 1:2:4 with "
                            "image\nunset multiplot\n");
            }
            if (f)
                fclose(f);
            free(pt);
            free(pe);
        }
    }
    fclose(gp);
    return run_gnuplot_in(dir, "plots.gp", why, cap);
}

int rx_cli_sweep_plots(const char *out, const rx_sweep *sw, char *why,
                       size_t cap)
{
    int pr = rx_cli_plots_dir(out, why, cap);
    if (pr != 0)
        return pr;
    char path[4096];
    FILE *gp = open_in(out, "sweep.gp", path, sizeof path);
    if (!gp) {
        snprintf(why, cap, "%s: cannot write", path);
        return -1;
    }
    fprintf(gp, "set terminal svg size 900,420 dynamic background rgb "
                "'white'\nset datafile separator ','\nset key below\n"
                "set y2tics\nset ytics nomirror\n");
    int ncol = 1 + sw->n_keys;
    for (int i = 0; i < sw->n_keys; ++i) {
        char name[128];
        snprintf(name, sizeof name, "%s", sw->keys[i]);
        for (char *c = name; *c; ++c)
            if (*c == '.')
                *c = '_';
        fprintf(gp, "set output 'plots/sweep_%s.svg'\n", name);
        fprintf(gp, "set title 'sweep of %s (every run a point)'\n",
                sw->keys[i]);
        fprintf(gp, "set xlabel '%s'\nset ylabel 'A.5 round trips per "
                    "1000'\nset y2label 'TV distance'\n",
                sw->keys[i]);
        fprintf(gp, "plot 'sweep.csv' every ::1 using %d:%d with points "
                    "pt 7 title 'round trips', '' every ::1 using %d:%d axes "
                    "x1y2 with points pt 5 title 'TV'\n",
                i + 2, ncol + 1, i + 2, ncol + 6);
    }
    fclose(gp);
    return run_gnuplot_in(out, "sweep.gp", why, cap);
}
