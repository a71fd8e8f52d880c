/*
 * `replex summary DIR`: the table `replex run` printed at the end of a
 * run, read back from the directory's summary.json (rx__paramtab_read)
 * and printed by the same function (rx__paramtab_print); nothing runs.
 * A run or replicates directory gives its table; a sweep directory each
 * run's table in order, headed by the run's sweep values (sweep.csv).
 * What is not a finished directory replex wrote is refused, exit 2,
 * saying what it is instead.
 */
#define _POSIX_C_SOURCE 200809L
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "../io/marker.h"
#include "../io/paramtab.h"
#include "summary.h"

enum { EXIT_OK = 0, EXIT_RUNFAIL = 1, EXIT_BADINPUT = 2 };

/* What the .replex file of dir says; "" when it has none. */
static void marker(const char *dir, char *buf, size_t cap)
{
    char p[4200];
    snprintf(p, sizeof p, "%s/" RX_MARKER_FILE, dir);
    buf[0] = '\0';
    FILE *f = fopen(p, "r");
    if (!f)
        return;
    size_t n = fread(buf, 1, cap - 1, f);
    buf[n] = '\0';
    fclose(f);
}

/* The table of one run or replicates directory; `files` the place the
 * printed note sends the reader to. */
static int one_table(const char *dir)
{
    char p[4200], files[8500];
    snprintf(p, sizeof p, "%s/summary.json", dir);
    struct stat sb;
    if (stat(p, &sb) != 0) {
        fprintf(stderr, "replex: summary: %s: no summary.json: the run "
                "did not finish (an interrupted run is resumed with "
                "`replex run --resume`; replicates write it when all "
                "copies are done)\n", dir);
        return EXIT_BADINPUT;
    }
    rx__paramtab t;
    rx_err err = {""};
    rx_status st = rx__paramtab_read(p, &t, &err);
    if (st != RX_OK) {
        fprintf(stderr, "replex: summary: %s\n", err.msg);
        return st == RX_ENOMEM ? EXIT_RUNFAIL : EXIT_BADINPUT;
    }
    snprintf(files, sizeof files, "%s/summary.csv and summary.json", dir);
    rx__paramtab_print(stdout, &t, files);
    if (t.n_rows == 0)
        printf("parameters: none (fewer than 4 target draws were kept: "
               "record.burn_in and record.thin leave too few of the "
               "iterations)\n");
    rx__paramtab_free(&t);
    return EXIT_OK;
}

/* Line r (1-based, after the header) of dir/sweep.csv: the sweep's
 * "key=value" pairs (the columns between "run" and "a5_per_1000") into
 * buf; "" when there is no such line. */
static void sweep_values(const char *dir, long r, char *buf, size_t cap)
{
    char p[4200], hdr[4096], line[4096];
    snprintf(p, sizeof p, "%s/sweep.csv", dir);
    buf[0] = '\0';
    FILE *f = fopen(p, "r");
    if (!f || !fgets(hdr, sizeof hdr, f)) {
        if (f)
            fclose(f);
        return;
    }
    int found = 0;
    for (long i = 0; i < r && (found = fgets(line, sizeof line, f) != NULL);
         ++i)
        ;
    fclose(f);
    if (!found)
        return;
    hdr[strcspn(hdr, "\r\n")] = '\0';
    line[strcspn(line, "\r\n")] = '\0';
    char *hs = NULL, *ls = NULL;
    char *h = strtok_r(hdr, ",", &hs), *v = strtok_r(line, ",", &ls);
    size_t w = 0;
    /* skip "run"; stop at the first figure column */
    while ((h = strtok_r(NULL, ",", &hs)) && (v = strtok_r(NULL, ",", &ls)) &&
           strcmp(h, "a5_per_1000") && w < cap)
        w += (size_t)snprintf(buf + w, cap - w, "%s%s=%s", w ? " " : "", h,
                              v);
}

/* Every run-NNN of a sweep directory, in order. */
static int sweep_tables(const char *dir)
{
    int rc = EXIT_OK, any = 0;
    for (long r = 1;; ++r) {
        char run[4200], vals[1024];
        struct stat sb;
        snprintf(run, sizeof run, "%s/run-%03ld", dir, r);
        if (stat(run, &sb) != 0 || !S_ISDIR(sb.st_mode))
            break;
        sweep_values(dir, r, vals, sizeof vals);
        printf("%s%s%s%s:\n", any ? "\n" : "", run, vals[0] ? ": " : "",
               vals);
        fflush(stdout);
        any = 1;
        const int one = one_table(run);
        if (one > rc)
            rc = one;
    }
    if (!any) {
        fprintf(stderr, "replex: summary: %s: a sweep directory without "
                "runs (no run-001)\n", dir);
        return EXIT_BADINPUT;
    }
    return rc;
}

int rx_cli_summary(const char *dir)
{
    struct stat sb;
    char p[4200];
    if (stat(dir, &sb) != 0) {
        const int e = errno;
        snprintf(p, sizeof p, "%s.partial", dir);
        if (stat(p, &sb) == 0)
            fprintf(stderr, "replex: summary: %s: no such directory; %s "
                    "holds an interrupted run: finish it with `replex run "
                    "--resume %s`\n", dir, p, dir);
        else
            fprintf(stderr, "replex: summary: %s: %s\n", dir, strerror(e));
        return EXIT_BADINPUT;
    }
    if (!S_ISDIR(sb.st_mode)) {
        fprintf(stderr, "replex: summary: %s: not a directory (give the "
                "directory `replex run -o` wrote)\n", dir);
        return EXIT_BADINPUT;
    }
    char m[256];
    marker(dir, m, sizeof m);
    if (!strcmp(m, RX_MARKER_RUN) || !strcmp(m, RX_MARKER_REPLICATES))
        return one_table(dir);
    if (!strcmp(m, RX_MARKER_SWEEP))
        return sweep_tables(dir);
    if (!strcmp(m, RX_MARKER_BENCH))
        fprintf(stderr, "replex: summary: %s: a bench directory: its "
                "table is %s/bench.md\n", dir, dir);
    else
        fprintf(stderr, "replex: summary: %s: not a run directory (%s); "
                "give the directory `replex run -o` wrote\n", dir,
                m[0] ? "its " RX_MARKER_FILE " file is not a run's"
                     : "it has no " RX_MARKER_FILE " file");
    return EXIT_BADINPUT;
}
