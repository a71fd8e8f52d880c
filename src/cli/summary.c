/*
 * `replex summary DIR`: the table `replex run` printed at the end of a
 * run, read back from the directory's summary.json (rx__paramtab_read)
 * and printed by the same function (rx__paramtab_print); nothing runs.
 * A run or replicates directory gives its table; a sweep directory each
 * run's table in order, headed by the run's sweep values (sweep.csv).
 * With --json or --csv the same rows are written for a program to read
 * (summary.json's "parameters" block, summary.csv's columns; a sweep's
 * rows led by the run and its values), and only once every table has
 * been read. What is not a finished directory replex wrote is refused,
 * exit 2, saying what it is instead.
 */
#define _POSIX_C_SOURCE 200809L
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "../io/json.h"
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

/* The table of one run or replicates directory into t; 0, or the exit
 * status with the reason on stderr. */
static int load(const char *dir, rx__paramtab *t)
{
    char p[4200];
    snprintf(p, sizeof p, "%s/summary.json", dir);
    struct stat sb;
    if (stat(p, &sb) != 0) {
        fprintf(stderr, "replex: summary: %s: no summary.json: the run "
                "did not finish (an interrupted run is resumed with "
                "`replex run --resume`; replicates write it when all "
                "copies are done)\n", dir);
        return EXIT_BADINPUT;
    }
    rx_err err = {""};
    rx_status st = rx__paramtab_read(p, t, &err);
    if (st != RX_OK) {
        fprintf(stderr, "replex: summary: %s\n", err.msg);
        return st == RX_ENOMEM ? EXIT_RUNFAIL : EXIT_BADINPUT;
    }
    return EXIT_OK;
}

/* The table as `replex run` printed it; `dir` where its files are. */
static void print_text(const char *dir, const rx__paramtab *t)
{
    char files[8500];
    snprintf(files, sizeof files, "%s/summary.csv and summary.json", dir);
    if (t->n_rows == 0 && t->dim == 0)
        printf("parameters: none (the target has no parameters)\n");
    else if (t->n_rows == 0)
        printf("parameters: none (fewer than 4 target draws were kept: "
               "record.burn_in and record.thin leave too few of the "
               "iterations)\n");
    rx__paramtab_print(stdout, t, files); /* the verdict last */
}

/* The table of one run or replicates directory, printed. */
static int one_table(const char *dir)
{
    rx__paramtab t;
    const int rc = load(dir, &t);
    if (rc != EXIT_OK)
        return rc;
    print_text(dir, &t);
    rx__paramtab_free(&t);
    return EXIT_OK;
}

/* A sweep run's values: the columns of its sweep.csv line between "run"
 * and the first figure column. */
#define SWEEP_KEYS_MAX 64
typedef struct {
    int n;
    char key[SWEEP_KEYS_MAX][128];
    char val[SWEEP_KEYS_MAX][256];
} sweep_vals;

/* Line r (1-based, after the header) of dir/sweep.csv into v; none when
 * there is no such line. */
static void sweep_values(const char *dir, long r, sweep_vals *v)
{
    char p[4200], hdr[4096], line[4096];
    snprintf(p, sizeof p, "%s/sweep.csv", dir);
    v->n = 0;
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
    char *h = strtok_r(hdr, ",", &hs), *x = strtok_r(line, ",", &ls);
    /* skip "run"; stop at the first figure column */
    while ((h = strtok_r(NULL, ",", &hs)) && (x = strtok_r(NULL, ",", &ls)) &&
           strcmp(h, "a5_per_1000") && v->n < SWEEP_KEYS_MAX) {
        snprintf(v->key[v->n], sizeof v->key[0], "%s", h);
        snprintf(v->val[v->n], sizeof v->val[0], "%s", x);
        ++v->n;
    }
}

/* The run directories of a sweep, run-001 on; 0 when there is none. */
static long sweep_runs(const char *dir)
{
    long n = 0;
    for (;; ++n) {
        char run[4200];
        struct stat sb;
        snprintf(run, sizeof run, "%s/run-%03ld", dir, n + 1);
        if (stat(run, &sb) != 0 || !S_ISDIR(sb.st_mode))
            return n;
    }
}

/* Every run-NNN of a sweep directory, in order, printed. */
static int sweep_text(const char *dir, long n)
{
    int rc = EXIT_OK;
    for (long r = 1; r <= n; ++r) {
        char run[4200];
        sweep_vals v;
        snprintf(run, sizeof run, "%s/run-%03ld", dir, r);
        sweep_values(dir, r, &v);
        printf("%s%s%s", r > 1 ? "\n" : "", run, v.n ? ":" : "");
        for (int i = 0; i < v.n; ++i)
            printf(" %s=%s", v.key[i], v.val[i]);
        printf(":\n");
        fflush(stdout);
        const int one = one_table(run);
        if (one > rc)
            rc = one;
    }
    return rc;
}

/* A sweep value in JSON: a number where it reads as a finite one, else
 * the text as a string. */
static void json_value(FILE *f, const char *s)
{
    char *end = NULL;
    const double x = strtod(s, &end);
    if (s[0] && *end == '\0' && isfinite(x))
        rx__json_num(f, NULL, x);
    else
        rx__json_str(f, s);
}

/* One machine-readable document of n tables (n > 1 or v: a sweep's runs,
 * with their values v[i]); dirs[i] the table's directory. */
static void write_doc(FILE *f, int csv, const char *dir, const char *kind,
                      rx__paramtab *t, char (*dirs)[4200],
                      const sweep_vals *v, long n)
{
    if (csv) {
        char lead[SWEEP_KEYS_MAX * 260 + 32];
        size_t w = 0;
        lead[0] = '\0';
        if (v) {
            w += (size_t)snprintf(lead, sizeof lead, "run,");
            for (int i = 0; i < v[0].n && w < sizeof lead; ++i)
                w += (size_t)snprintf(lead + w, sizeof lead - w, "%s,",
                                      v[0].key[i]);
        }
        rx__paramtab_csv_head(f, lead);
        for (long r = 0; r < n; ++r) {
            w = 0;
            if (v) {
                w += (size_t)snprintf(lead, sizeof lead, "%ld,", r + 1);
                for (int i = 0; i < v[r].n && w < sizeof lead; ++i)
                    w += (size_t)snprintf(lead + w, sizeof lead - w, "%s,",
                                          v[r].val[i]);
            }
            rx__paramtab_csv_rows(f, &t[r], lead);
        }
        return;
    }
    fputs("{\n  \"dir\": ", f);
    rx__json_str(f, dir);
    fprintf(f, ",\n  \"kind\": \"%s\",\n", kind);
    if (!v) {
        rx__paramtab_json_at(f, &t[0], 2);
        rx__paramtab_verdict_json_at(f, &t[0], 2);
        fputs("  \"metrics\": ", f);
        rx__paramtab_metrics_json(f, &t[0]);
        fputs("\n}\n", f);
        return;
    }
    fputs("  \"runs\": [", f);
    for (long r = 0; r < n; ++r) {
        fprintf(f, "%s\n    {\"run\": %ld, \"dir\": ", r ? "," : "", r + 1);
        rx__json_str(f, dirs[r]);
        fputs(", \"sweep\": {", f);
        for (int i = 0; i < v[r].n; ++i) {
            fputs(i ? ", " : "", f);
            rx__json_str(f, v[r].key[i]);
            fputs(": ", f);
            json_value(f, v[r].val[i]);
        }
        fputs("},\n", f);
        rx__paramtab_json_at(f, &t[r], 4);
        rx__paramtab_verdict_json_at(f, &t[r], 6);
        fputs("      \"metrics\": ", f);
        rx__paramtab_metrics_json(f, &t[r]);
        fputc('}', f);
    }
    fputs("]\n}\n", f);
}

/* --json / --csv: every table read first, then one document on stdout
 * (nothing on stdout when a table cannot be read). */
static int machine(const char *dir, int sweep, long n, int csv)
{
    const long m = sweep ? n : 1;
    rx__paramtab *t = calloc((size_t)m, sizeof *t);
    char(*dirs)[4200] = calloc((size_t)m, sizeof *dirs);
    sweep_vals *v = sweep ? calloc((size_t)m, sizeof *v) : NULL;
    if (!t || !dirs || (sweep && !v)) {
        free(t);
        free(dirs);
        free(v);
        fprintf(stderr, "replex: summary: out of memory\n");
        return EXIT_RUNFAIL;
    }
    int rc = EXIT_OK;
    long got = 0;
    for (; got < m && rc == EXIT_OK; ++got) {
        if (sweep) {
            snprintf(dirs[got], sizeof dirs[0], "%s/run-%03ld", dir, got + 1);
            sweep_values(dir, got + 1, &v[got]);
        } else {
            snprintf(dirs[got], sizeof dirs[0], "%s", dir);
        }
        rc = load(dirs[got], &t[got]);
    }
    if (rc == EXIT_OK) {
        char m0[256];
        marker(dir, m0, sizeof m0);
        write_doc(stdout, csv, dir,
                  sweep ? "sweep"
                  : !strcmp(m0, RX_MARKER_REPLICATES) ? "replicates"
                                                      : "run",
                  t, dirs, v, m);
        if (fflush(stdout) != 0 || ferror(stdout)) {
            fprintf(stderr, "replex: summary: cannot write the output: "
                    "%s\n", strerror(errno));
            rc = EXIT_RUNFAIL;
        }
    }
    for (long r = 0; r < m; ++r) /* a zeroed or freed table: no-op */
        rx__paramtab_free(&t[r]);
    free(t);
    free(dirs);
    free(v);
    return rc;
}

int rx_cli_summary(const char *dir, rx_cli_summary_format format)
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
    const int sweep = !strcmp(m, RX_MARKER_SWEEP);
    if (sweep || !strcmp(m, RX_MARKER_RUN) ||
        !strcmp(m, RX_MARKER_REPLICATES)) {
        const long n = sweep ? sweep_runs(dir) : 1;
        if (n == 0) {
            fprintf(stderr, "replex: summary: %s: a sweep directory "
                    "without runs (no run-001)\n", dir);
            return EXIT_BADINPUT;
        }
        if (format != RX_CLI_SUMMARY_TEXT)
            return machine(dir, sweep, n, format == RX_CLI_SUMMARY_CSV);
        return sweep ? sweep_text(dir, n) : one_table(dir);
    }
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
