/*
 * The `replex` program: run, validate, keys, info. Exit status: 0 success,
 * 1 the run failed, 2 bad input (usage, file, YAML, key, value).
 */
#define _POSIX_C_SOURCE 200809L
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "../io/config.h"
#include "plots.h"
#include "sweep.h"
#include "replex/replex.h"

enum { EXIT_RUNFAIL = 1, EXIT_BADINPUT = 2 };

static void usage(FILE *f)
{
    fputs("usage: replex <command> [options]\n"
          "\n"
          "commands:\n"
          "  run FILE.yaml [-o DIR] [--threads N] [--set key=value ...]\n"
          "                [--force] [--quiet] [--no-plots]\n"
          "      run the experiment; outputs go to DIR (default\n"
          "      runs/<file name without .yaml>), which must not exist\n"
          "      unless --force is given\n"
          "  validate FILE.yaml [--set key=value ...]\n"
          "      check a file and print the resolved configuration\n"
          "  keys\n"
          "      list every configuration key with type and default\n"
          "  info\n"
          "      version, OpenMP threads, BLAS, CPU\n"
          "\n"
          "exit status: 0 ok, 1 run failed, 2 bad input\n",
          f);
}

static void log_stderr(void *user, int level, const char *msg)
{
    (void)user;
    static const char *const lv[] = {"error", "warning", "info", "debug"};
    fprintf(stderr, "replex: %s: %s\n", lv[level & 3], msg);
}

static int mkdir_parents(const char *dir)
{
    char buf[4096];
    if (strlen(dir) >= sizeof buf)
        return -1;
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

static int cmd_info(void)
{
    char buf[1024];
    rx_build_info(buf, sizeof buf);
    fputs(buf, stdout);
    FILE *f = fopen("/proc/cpuinfo", "r");
    char line[512], model[256] = "unknown";
    int ncpu = 0;
    if (f) {
        while (fgets(line, sizeof line, f)) {
            if (strncmp(line, "model name", 10) == 0) {
                char *c = strchr(line, ':');
                if (c && ncpu == 0) {
                    snprintf(model, sizeof model, "%s", c + 2);
                    model[strcspn(model, "\n")] = '\0';
                }
                ncpu++;
            }
        }
        fclose(f);
    }
    printf("CPU: %s (%d logical cpus)\n", model, ncpu);
    return 0;
}

static int cmd_keys(void)
{
    int n = rx__config_nkeys();
    for (int i = 0; i < n; ++i) {
        rx__keyinfo k = rx__config_key(i);
        printf("%-28s %-26s default %-18s %s\n", k.path, k.type, k.deflt,
               k.doc);
    }
    return 0;
}

int main(int argc, char **argv)
{
    if (argc < 2) {
        usage(stderr);
        return EXIT_BADINPUT;
    }
    const char *cmd = argv[1];
    if (!strcmp(cmd, "-h") || !strcmp(cmd, "--help") || !strcmp(cmd, "help")) {
        usage(stdout);
        return 0;
    }
    if (!strcmp(cmd, "--version")) {
        printf("replex %s\n", rx_version());
        return 0;
    }
    if (!strcmp(cmd, "info"))
        return cmd_info();
    if (!strcmp(cmd, "keys"))
        return cmd_keys();
    int is_run = !strcmp(cmd, "run");
    if (!is_run && strcmp(cmd, "validate")) {
        fprintf(stderr, "replex: unknown command '%s'\n", cmd);
        usage(stderr);
        return EXIT_BADINPUT;
    }
    const char *file = NULL, *out = NULL;
    int threads = -1, force = 0, quiet = 0, no_plots = 0;
    const char **sets = calloc((size_t)argc, sizeof *sets);
    int nsets = 0;
    if (!sets)
        return EXIT_RUNFAIL;
    for (int i = 2; i < argc; ++i) {
        const char *a = argv[i];
        if ((!strcmp(a, "-o") || !strcmp(a, "--out")) && i + 1 < argc && is_run)
            out = argv[++i];
        else if (!strcmp(a, "--threads") && i + 1 < argc && is_run) {
            char *end;
            long v = strtol(argv[++i], &end, 10);
            if (*end || end == argv[i] || v < 0 || v > 4096) {
                fprintf(stderr,
                        "replex: --threads: expected an integer in "
                        "[0, 4096], got '%s'\n",
                        argv[i]);
                free(sets);
                return EXIT_BADINPUT;
            }
            threads = (int)v;
        } else if (!strcmp(a, "--set") && i + 1 < argc)
            sets[nsets++] = argv[++i];
        else if (!strncmp(a, "--set=", 6))
            sets[nsets++] = a + 6;
        else if (!strcmp(a, "--force") && is_run)
            force = 1;
        else if (!strcmp(a, "--no-plots") && is_run)
            no_plots = 1;
        else if (!strcmp(a, "--quiet") || !strcmp(a, "-q"))
            quiet = 1;
        else if (a[0] == '-' && a[1]) {
            fprintf(stderr, "replex %s: unknown or incomplete option '%s'\n",
                    cmd, a);
            usage(stderr);
            free(sets);
            return EXIT_BADINPUT;
        } else if (!file)
            file = a;
        else {
            fprintf(stderr, "replex %s: one experiment file only ('%s')\n",
                    cmd, a);
            free(sets);
            return EXIT_BADINPUT;
        }
    }
    if (!file) {
        fprintf(stderr, "replex %s: missing FILE.yaml\n", cmd);
        usage(stderr);
        free(sets);
        return EXIT_BADINPUT;
    }
    rx_config cfg;
    rx_err err = {""};
    rx_status st = rx_config_load(file, sets, nsets, &cfg, &err);
    const char **sets_kept = sets; /* a sweep adds its own overrides */
    if (st != RX_OK) {
        fprintf(stderr, "replex: %s\n", err.msg);
        free(sets_kept);
        return st == RX_ENOMEM ? EXIT_RUNFAIL : EXIT_BADINPUT;
    }
    if (threads >= 0)
        cfg.threads = threads;
    if (!is_run) {
        char tmpl[] = "/tmp/replex-validate-XXXXXX";
        /* print the resolved config through the same writer */
        int fd = mkstemp(tmpl);
        if (fd >= 0) {
            FILE *tf = fdopen(fd, "r");
            if (rx_config_write(&cfg, tmpl, &err) == RX_OK && tf) {
                char line[1024];
                while (fgets(line, sizeof line, tf))
                    fputs(line, stdout);
            }
            if (tf)
                fclose(tf);
            remove(tmpl);
        }
        fprintf(stderr, "%s: valid\n", file);
        rx_config_free(&cfg);
        free(sets_kept);
        return 0;
    }
    rx_sweep sw;
    if (rx_sweep_load(file, &sw, &err) != RX_OK) {
        fprintf(stderr, "replex: %s\n", err.msg);
        rx_config_free(&cfg);
        free(sets_kept);
        return EXIT_BADINPUT;
    }
    char dflt[4096];
    if (!out) {
        const char *base = strrchr(file, '/');
        base = base ? base + 1 : file;
        size_t bl = strlen(base);
        if (bl > 5 && !strcmp(base + bl - 5, ".yaml"))
            bl -= 5;
        else if (bl > 4 && !strcmp(base + bl - 4, ".yml"))
            bl -= 4;
        snprintf(dflt, sizeof dflt, "runs/%.*s", (int)bl, base);
        out = dflt;
    }
    if (sw.n_keys > 0) {
        rx_config_free(&cfg);
        if (mkdir_parents(out) != 0) {
            fprintf(stderr, "replex: %s: cannot create parent directories\n",
                    out);
            rx_sweep_free(&sw);
            free(sets_kept);
            return EXIT_RUNFAIL;
        }
        int rc = rx_cli_sweep(file, (const char *const *)sets_kept, nsets,
                              &sw, out, threads, force, quiet, !no_plots);
        rx_sweep_free(&sw);
        free(sets_kept);
        return rc;
    }
    struct stat sb;
    if (!force && stat(out, &sb) == 0) {
        fprintf(stderr,
                "replex: %s: already exists; choose another -o or pass "
                "--force\n",
                out);
        rx_config_free(&cfg);
        free(sets_kept);
        return EXIT_BADINPUT;
    }
    rx_logger lg = {NULL, quiet ? NULL : log_stderr};
    rx_ctx *ctx = NULL;
    st = rx_create(&ctx, &cfg, NULL, lg, &err);
    if (st != RX_OK) {
        rx_config_free(&cfg);
        fprintf(stderr, "replex: %s: %s\n", file, err.msg);
        free(sets_kept);
        return st == RX_ECONFIG || st == RX_EINVAL ? EXIT_BADINPUT
                                                   : EXIT_RUNFAIL;
    }
    st = rx_run(ctx);
    if (st == RX_OK && mkdir_parents(out) != 0) {
        fprintf(stderr, "replex: %s: cannot create parent directories: %s\n",
                out, strerror(errno));
        st = RX_EIO;
    } else if (st != RX_OK) {
        fprintf(stderr, "replex: run failed: %s\n", rx_errmsg(ctx));
    } else if ((st = rx_write_rundir(ctx, out, force, file)) != RX_OK) {
        fprintf(stderr, "replex: %s\n", rx_errmsg(ctx));
    }
    if (st != RX_OK) {
        rx_destroy(&ctx);
        rx_config_free(&cfg);
        free(sets_kept);
        return EXIT_RUNFAIL;
    }
    if (!no_plots) {
        char why[256];
        int pr = rx_cli_plots(ctx, &cfg, out, why, sizeof why);
        if (pr != 0 && !quiet)
            fprintf(stderr, "replex: %s\n", why);
    }
    rx_config_free(&cfg);
    if (!quiet) {
        rx_results r;
        rx_get_results(ctx, &r);
        double tv;
        printf("%s: %lld iterations x %d chains (W = %d) on %d threads in "
               "%.3f s\n",
               out, (long long)r.iterations, r.n_chains, r.window, r.threads,
               r.wall_s);
        printf("round trips: %lld (A.5), %lld (1->P->1), restarts %lld; "
               "swaps %lld\n",
               (long long)r.trips_a5, (long long)r.trips_l1,
               (long long)r.restarts, (long long)r.total_swaps);
        if (rx_density_tv(ctx, &tv) == RX_OK)
            printf("TV distance to the true density on the grid: %.4f\n", tv);
    }
    rx_destroy(&ctx);
    free(sets_kept);
    return 0;
}
