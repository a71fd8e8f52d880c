/*
 * Replicates: `replicates: N >= 2` runs the experiment N times, copy r
 * with the seed rx_replicate_seed(seed, r) and `replicates: 1`, each a
 * normal run directory DIR/rep-00 ... (its config.yaml reruns it alone);
 * when all are done, replicates_finish gets every finished run at once
 * and writes DIR/summary.json with the split R-hat over them. The
 * directory is made and marked as a sweep's is (rx_cli_make_multi_dir).
 */
#define _POSIX_C_SOURCE 200809L
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../io/inference.h"
#include "../io/marker.h"
#include "../io/rundiag.h"
#include "outdir.h"
#include "../engine/ranks.h"
#include "plots.h"
#include "replicates.h"

enum { EXIT_RUNFAIL = 1, EXIT_BADINPUT = 2 };

/* Replicate r's configuration: cfg with its seed and replicates: 1. */
static rx_status rep_config(const rx_config *cfg, int r, rx_config *out)
{
    rx_status st = rx_config_copy(out, cfg);
    out->seed = rx_replicate_seed(cfg->seed, r);
    out->replicates = 1;
    return st;
}

/*
 * Everything that needs all N finished runs at once (runs[r] the context
 * of replicate r, dirs[r] its directory under out): DIR/summary.json with
 * R-hat per coordinate over the replicates and their ESS, and
 * DIR/inference.nc with one chain per replicate.
 * 0, or the exit status after printing why.
 */
static int replicates_finish(rx_ctx *const *runs, const char *const *dirs,
                             int n, const char *out, const char *source,
                             int quiet)
{
    char path[4200];
    snprintf(path, sizeof path, "%s/summary.json", out);
    rx__repdiag rd;
    rx_err err = {""};
    if (rx__replicates_summary(runs, dirs, n, path, source, &rd, &err) !=
        RX_OK) {
        fprintf(stderr, "replex: %s\n", err.msg);
        return EXIT_RUNFAIL;
    }
    snprintf(path, sizeof path, "%s/inference.nc", out);
    if (rx__write_inference((const rx_ctx *const *)runs, n, path, &err) !=
        RX_OK) {
        fprintf(stderr, "replex: %s\n", err.msg);
        rx__repdiag_free(&rd);
        return EXIT_RUNFAIL;
    }
    if (!quiet)
        rx__repdiag_print(stdout, &rd, n);
    rx__repdiag_free(&rd);
    return 0;
}

/* Runs replicate r into out/dir; its context is *ctx (made here unless
 * the caller made it) and is kept. */
static int run_rep(const rx_config *cfg, int r, int n, const char *out,
                   const char *dir, const char *source, int force, int quiet,
                   int plots, rx_cli_progress *pr, rx_ctx **ctx, int rank)
{
    rx_config c;
    rx_err err = {""};
    rx_status st = rep_config(cfg, r, &c);
    if (st == RX_OK && !*ctx) {
        st = rx_create(ctx, &c, NULL, (rx_logger){0}, &err);
        /* under a launcher: its chains spread over the ranks */
        if (st == RX_OK && (st = rx__ranks_attach_world(*ctx)) != RX_OK)
            snprintf(err.msg, sizeof err.msg, "%s", rx_errmsg(*ctx));
    }
    if (st != RX_OK) {
        fprintf(stderr, "replex: replicate %d: %s\n", r + 1,
                err.msg[0] ? err.msg : rx_strerror(st));
        rx_config_free(&c);
        return st == RX_ENOMEM ? EXIT_RUNFAIL : EXIT_BADINPUT;
    }
    char label[64], path[4200];
    snprintf(label, sizeof label, "replicate %d/%d", r + 1, n);
    snprintf(path, sizeof path, "%s/%s", out, dir);
    if (pr)
        st = rx_cli_progress_attach(pr, *ctx, label, c.iterations,
                                    c.tempering.n_chains);
    if (st == RX_OK && (st = rx_run(*ctx)) != RX_OK) {
        rx_cli_progress_break(pr);
        if (st == RX_EABORTED && rx_cli_interrupted())
            fprintf(stderr, "replex: interrupted in replicate %d/%d; "
                    "replicates 1 to %d are complete in %s (no summary)\n",
                    r + 1, n, r, out);
        else
            fprintf(stderr, "replex: replicate %d failed: %s\n", r + 1,
                    rx_errmsg(*ctx));
    } else if (st == RX_OK && rank == 0 &&
               (st = rx_write_rundir(*ctx, path, force, source)) != RX_OK) {
        fprintf(stderr, "replex: %s\n", rx_errmsg(*ctx));
    }
    if (st == RX_OK && plots && rank == 0) {
        char why[256];
        if (rx_cli_plots(*ctx, &c, path, why, sizeof why) != 0 && !quiet)
            fprintf(stderr, "replex: %s\n", why);
    }
    if (st == RX_OK && !quiet && rank == 0) {
        rx_results res;
        rx_get_results(*ctx, &res);
        printf("%s: seed %llu, round trips %lld (A.5)", path,
               (unsigned long long)c.seed, (long long)res.trips_a5);
        if (res.log_z.valid)
            printf(", log Z %.4f +- %.4f (se)", res.log_z.estimate,
                   res.log_z.se);
        printf(", %.3f s\n", res.wall_s);
    }
    rx_config_free(&c);
    return st == RX_OK ? 0 : EXIT_RUNFAIL;
}

int rx_cli_replicates(const char *file, const rx_config *cfg,
                      const char *out, int force, int quiet, int plots,
                      rx_cli_progress *pr, int rank, int nranks)
{
    const int n = cfg->replicates;
    rx_ctx **runs = calloc((size_t)n, sizeof *runs);
    char(*names)[16] = calloc((size_t)n, sizeof *names);
    const char **dirs = calloc((size_t)n, sizeof *dirs);
    if (!runs || !names || !dirs) {
        free(runs);
        free(names);
        free(dirs);
        fprintf(stderr, "replex: out of memory\n");
        return EXIT_RUNFAIL;
    }
    for (int r = 0; r < n; ++r) {
        snprintf(names[r], sizeof names[r], "rep-%0*d", n > 100 ? 3 : 2, r);
        dirs[r] = names[r];
    }
    /* the first replicate's context reads the data before any directory
     * is made: a missing or malformed file is bad input, nothing written */
    rx_config c0;
    rx_err err = {""};
    rx_status st = rep_config(cfg, 0, &c0);
    if (st == RX_OK)
        st = rx_create(&runs[0], &c0, NULL, (rx_logger){0}, &err);
    if (st == RX_OK && (st = rx__ranks_attach_world(runs[0])) != RX_OK)
        snprintf(err.msg, sizeof err.msg, "%s", rx_errmsg(runs[0]));
    rx_config_free(&c0);
    int rc = 0;
    if (st != RX_OK) {
        fprintf(stderr, "replex: %s: %s\n", file,
                err.msg[0] ? err.msg : rx_strerror(st));
        rc = st == RX_ENOMEM ? EXIT_RUNFAIL : EXIT_BADINPUT;
    }
    /* held to the end: a second replex writing out (replicates, a run,
     * --force or not) is refused, never mixed in */
    int lock = rc == 0 && rank == 0 ? rx_cli_lock_out(out) : -1;
    if (rc == 0 && rank == 0 && lock < 0)
        rc = EXIT_BADINPUT;
    if (rc == 0 && rank == 0 &&
        rx_cli_make_multi_dir(out, force, RX_MARKER_REPLICATES))
        rc = EXIT_BADINPUT;
    /* under a launcher every rank takes part in every replicate (its
     * chains spread over the ranks); rank 0 writes */
    if (nranks > 1 && !rx__mpi_all_ok(rc == 0, NULL) && rc == 0)
        rc = EXIT_BADINPUT;
    for (int r = 0; r < n && rc == 0; ++r) {
        rc = run_rep(cfg, r, n, out, dirs[r], file, force, quiet, plots, pr,
                     &runs[r], rank);
        /* rank 0 may fail writing a replicate the others ran: all go on
         * or all stop */
        if (nranks > 1)
            rc = rx__mpi_max_int(rc);
    }
    if (rc == 0 && rank == 0)
        rc = replicates_finish(runs, dirs, n, out, file, quiet);
    rx_cli_unlock_out(lock, out);
    for (int r = 0; r < n; ++r)
        rx_destroy(&runs[r]);
    free(runs);
    free(names);
    free(dirs);
    return rc;
}
