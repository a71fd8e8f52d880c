/*
 * Replicates: `replicates: N >= 2` runs the experiment N times, copy r
 * with the seed rx_replicate_seed(seed, r) and `replicates: 1`, each a
 * normal run directory DIR/rep-00 ... (its config.yaml reruns it alone);
 * when all are done, replicates_finish gets every finished run at once
 * and writes DIR/summary.json with the split R-hat over them. The
 * directory is made and marked as a sweep's is (rx_cli_make_multi_dir).
 *
 * Under a launcher (R ranks) the copies run in rounds: in round j copy
 * j R + w runs on rank w alone, with its threads (its context on no
 * communicator: a one-process run), and writes its own directory (DIR is
 * on a file system every rank sees, as a sweep's). After each round the
 * ranks merge one note per copy (its status, message and the figures of
 * its line) by OR, so every rank knows the round's first failure and
 * rank 0 prints what one process prints. A worker's copy also writes its
 * state after the step phase of its last iteration (a checkpoint of
 * iteration K - 1, DIR/.rep-NN.state); rank 0 resumes it and finishes
 * the run to the same bits, which gives the summary every copy's run in
 * its memory, then removes the file.
 */
#define _POSIX_C_SOURCE 200809L
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../io/inference.h"
#include "../io/marker.h"
#include "../io/rundiag.h"
#include "outdir.h"
#include "../engine/ranks.h"
#include "plots.h"
#include "replicates.h"

enum { EXIT_RUNFAIL = 1, EXIT_BADINPUT = 2 };

/* What the run of one copy reports: on ranks every rank's notes of a
 * round are merged by OR (each slot written by the one rank that ran
 * that copy into zeroed memory). */
typedef struct {
    int32_t rc;        /* 0, or the exit status of its failure */
    int32_t rank;      /* the rank that ran it */
    int32_t has_log_z; /* its line's log Z */
    int32_t pad;
    int64_t trips;     /* round trips (A.5) */
    double wall_s, log_z, log_z_se;
    char msg[1024];    /* the failure, printed after "replex: " */
} rep_note;

/* Replicate r's configuration: cfg with its seed and replicates: 1. */
static rx_status rep_config(const rx_config *cfg, int r, rx_config *out)
{
    rx_status st = rx_config_copy(out, cfg);
    out->seed = rx_replicate_seed(cfg->seed, r);
    out->replicates = 1;
    return st;
}

/* DIR/.rep-NN.state: a worker's copy's last state, for rank 0. */
static void state_path(const char *out, const char *dir, char *p, size_t cap)
{
    snprintf(p, cap, "%s/.%s.state", out, dir);
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
 * the caller made it) and is kept. state (may be NULL): where the run
 * also writes its state after the step phase of its last iteration.
 * The outcome goes into *nt, nothing is printed but the plots' trouble. */
static void run_rep(const rx_config *cfg, int r, const rx_cli_reps *o,
                    const char *dir, const char *state, rx_ctx **ctx,
                    rep_note *nt)
{
    const int n = cfg->replicates;
    rx_config c;
    rx_err err = {""};
    rx_status st = rep_config(cfg, r, &c);
    nt->rank = o->rank;
    if (st == RX_OK && !*ctx)
        st = rx_create(ctx, &c, NULL, (rx_logger){0}, &err);
    if (st != RX_OK) {
        snprintf(nt->msg, sizeof nt->msg, "replicate %d: %s", r + 1,
                 err.msg[0] ? err.msg : rx_strerror(st));
        rx_config_free(&c);
        nt->rc = st == RX_ENOMEM ? EXIT_RUNFAIL : EXIT_BADINPUT;
        return;
    }
    char label[64], path[4200];
    snprintf(label, sizeof label, "replicate %d/%d", r + 1, n);
    snprintf(path, sizeof path, "%s/%s", o->out, dir);
    if (o->pr)
        st = rx_cli_progress_attach(o->pr, *ctx, label, c.iterations,
                                    c.tempering.n_chains);
    if (st == RX_OK && state)
        st = rx_checkpoint_enable(*ctx, state, c.iterations - 1);
    if (st != RX_OK || (st = rx_run(*ctx)) != RX_OK) {
        rx_cli_progress_break(o->pr);
        if (st == RX_EABORTED && rx_cli_interrupted())
            snprintf(nt->msg, sizeof nt->msg, "interrupted in replicate "
                     "%d/%d; replicates 1 to %d are complete in %s (no "
                     "summary)", r + 1, n, r, o->out);
        else
            snprintf(nt->msg, sizeof nt->msg, "replicate %d failed: %s",
                     r + 1, rx_errmsg(*ctx));
    } else if ((st = rx_write_rundir(*ctx, path, o->force, o->file)) !=
               RX_OK) {
        snprintf(nt->msg, sizeof nt->msg, "%s", rx_errmsg(*ctx));
    }
    if (st == RX_OK && o->plots) {
        char why[256];
        if (rx_cli_plots(*ctx, &c, path, why, sizeof why) != 0 && !o->quiet)
            fprintf(stderr, "replex: %s\n", why);
    }
    if (st == RX_OK) {
        rx_results res;
        rx_get_results(*ctx, &res);
        nt->trips = res.trips_a5;
        nt->wall_s = res.wall_s;
        nt->has_log_z = res.log_z.valid != 0;
        nt->log_z = res.log_z.estimate;
        nt->log_z_se = res.log_z.se;
    }
    rx_config_free(&c);
    nt->rc = st == RX_OK ? 0 : EXIT_RUNFAIL;
}

/* The line of a completed copy r (its note nt), on stdout. */
static void rep_line(const rx_config *cfg, int r, const rx_cli_reps *o,
                     const char *dir, const rep_note *nt)
{
    printf("%s/%s: seed %llu, round trips %lld (A.5)", o->out, dir,
           (unsigned long long)rx_replicate_seed(cfg->seed, r),
           (long long)nt->trips);
    if (nt->has_log_z)
        printf(", log Z %.4f +- %.4f (se)", nt->log_z, nt->log_z_se);
    printf(", %.3f s", nt->wall_s);
    if (o->nranks > 1)
        printf(" on rank %d", nt->rank);
    printf("\n");
}

/* Rank 0: the context of copy r that a worker ran, finished from its
 * state at iteration K - 1 (or, for K = 1, run again); 0 or the exit
 * status after printing why. */
static int rep_rebuild(const rx_config *cfg, int r, const char *state,
                       rx_ctx **ctx)
{
    rx_config c;
    rx_err err = {""};
    rx_status st = rep_config(cfg, r, &c);
    if (st == RX_OK &&
        (st = rx_create(ctx, &c, NULL, (rx_logger){0}, &err)) != RX_OK) {
        fprintf(stderr, "replex: replicate %d: %s\n", r + 1,
                err.msg[0] ? err.msg : rx_strerror(st));
    } else if (st == RX_OK &&
               ((c.iterations >= 2 &&
                 (st = rx_checkpoint_resume(*ctx, state)) != RX_OK) ||
                (st = rx_run(*ctx)) != RX_OK)) {
        fprintf(stderr, "replex: replicate %d: reading its run back: %s\n",
                r + 1, rx_errmsg(*ctx));
    }
    rx_config_free(&c);
    return st == RX_OK ? 0 : EXIT_RUNFAIL;
}

/* The rounds of copies (one round without ranks: every copy on rank 0,
 * one after the other). runs[r] keeps rank 0's copies' contexts; the
 * exit status, the same on every rank. */
static int rep_rounds(const rx_config *cfg, const rx_cli_reps *o,
                      rx_ctx **runs, const char *const *dirs,
                      rep_note *notes)
{
    const int n = cfg->replicates, R = o->nranks;
    const int iters = cfg->iterations >= 2;
    int rc = 0;
    for (int j0 = 0; j0 < n && rc == 0; j0 += R) {
        for (int r = j0; r < j0 + R && r < n; ++r) {
            rep_note *nt = &notes[R > 1 ? r - j0 : 0];
            if (R > 1 && r != j0 + o->rank)
                continue;
            memset(nt, 0, sizeof *nt);
            char state[4200];
            state_path(o->out, dirs[r], state, sizeof state);
            rx_ctx *mine = NULL;
            run_rep(cfg, r, o, dirs[r], o->rank != 0 && iters ? state : NULL,
                    o->rank == 0 ? &runs[r] : &mine, nt);
            rx_destroy(&mine); /* rank 0 rebuilds it from its state */
            if (R > 1)
                continue;
            if (nt->rc) {
                fprintf(stderr, "replex: %s\n", nt->msg);
                return nt->rc;
            }
            if (!o->quiet)
                rep_line(cfg, r, o, dirs[r], nt);
        }
        if (R == 1)
            continue;
        if (rx__mpi_or_bytes(notes, sizeof *notes * (size_t)R) != 0) {
            if (o->rank == 0)
                fprintf(stderr, "replex: replicates: the ranks could not "
                        "exchange their outcomes\n");
            return EXIT_RUNFAIL;
        }
        /* in copy order, as one process: the lines up to the first
         * failure, then its message */
        for (int r = j0; r < j0 + R && r < n && rc == 0; ++r) {
            const rep_note *nt = &notes[r - j0];
            if (nt->rc && o->rank == 0)
                fprintf(stderr, "replex: %s\n", nt->msg);
            else if (!nt->rc && o->rank == 0 && !o->quiet)
                rep_line(cfg, r, o, dirs[r], nt);
            rc = nt->rc;
        }
        fflush(stdout);
        memset(notes, 0, sizeof *notes * (size_t)R);
    }
    return rc;
}

int rx_cli_replicates(const rx_config *cfg, const rx_cli_reps *o0)
{
    rx_cli_reps ob = *o0;
    if (ob.nranks < 2) {
        ob.rank = 0;
        ob.nranks = 1;
    }
    const rx_cli_reps *o = &ob;
    const int n = cfg->replicates, R = o->nranks;
    rx_ctx **runs = calloc((size_t)n, sizeof *runs);
    char(*names)[16] = calloc((size_t)n, sizeof *names);
    const char **dirs = calloc((size_t)n, sizeof *dirs);
    rep_note *notes = calloc((size_t)R, sizeof *notes);
    if (!runs || !names || !dirs || !notes) {
        free(runs);
        free(names);
        free(dirs);
        free(notes);
        fprintf(stderr, "replex: out of memory\n");
        return EXIT_RUNFAIL;
    }
    for (int r = 0; r < n; ++r) {
        snprintf(names[r], sizeof names[r], "rep-%0*d", n > 100 ? 3 : 2, r);
        dirs[r] = names[r];
    }
    /* the first replicate's context reads the data before any directory
     * is made: a missing or malformed file is bad input, nothing written
     * (every rank checks; rank 0 runs that copy) */
    rx_config c0;
    rx_err err = {""};
    rx_status st = rep_config(cfg, 0, &c0);
    if (st == RX_OK)
        st = rx_create(&runs[0], &c0, NULL, (rx_logger){0}, &err);
    rx_config_free(&c0);
    int rc = 0;
    char why[sizeof err.msg + 8] = "";
    if (st != RX_OK) {
        snprintf(why, sizeof why, "%s", err.msg[0] ? err.msg
                                                   : rx_strerror(st));
        if (o->rank == 0)
            fprintf(stderr, "replex: %s: %s\n", o->file, why);
        rc = st == RX_ENOMEM ? EXIT_RUNFAIL : EXIT_BADINPUT;
    }
    /* held to the end: a second replex writing out (replicates, a run,
     * --force or not) is refused, never mixed in */
    int lock = rc == 0 && o->rank == 0 ? rx_cli_lock_out(o->out) : -1;
    if (rc == 0 && o->rank == 0 && lock < 0)
        rc = EXIT_BADINPUT;
    if (rc == 0 && o->rank == 0 &&
        rx_cli_make_multi_dir(o->out, o->force, RX_MARKER_REPLICATES))
        rc = EXIT_BADINPUT;
    /* under a launcher: every rank ready, or none starts */
    int root_ok = 1;
    if (R > 1 && !rx__mpi_all_ok(rc == 0, &root_ok)) {
        if (rc != 0 && o->rank != 0 && root_ok)
            dprintf(o->errfd, "replex: rank %d: %s: %s\n", o->rank, o->file,
                    why);
        else if (rc == 0 && o->rank == 0)
            fprintf(stderr, "replex: another rank could not start the "
                    "replicates (its message is above)\n");
        rc = rc ? rc : EXIT_BADINPUT;
    }
    if (o->rank != 0)
        rx_destroy(&runs[0]); /* copy 0 is rank 0's */
    if (rc == 0)
        rc = rep_rounds(cfg, o, runs, dirs, notes);
    for (int r = 0; r < n && rc == 0 && o->rank == 0; ++r) {
        char state[4200];
        state_path(o->out, dirs[r], state, sizeof state);
        if (!runs[r])
            rc = rep_rebuild(cfg, r, state, &runs[r]);
    }
    for (int r = 0; r < n && R > 1 && o->rank == 0; ++r) {
        char state[4200];
        state_path(o->out, dirs[r], state, sizeof state);
        remove(state); /* and a stopped copy's */
        snprintf(state + strlen(state), sizeof state - strlen(state), ".tmp");
        remove(state);
    }
    if (rc == 0 && o->rank == 0)
        rc = replicates_finish(runs, dirs, n, o->out, o->file, o->quiet);
    rx_cli_unlock_out(lock, o->out);
    for (int r = 0; r < n; ++r)
        rx_destroy(&runs[r]);
    free(runs);
    free(names);
    free(dirs);
    free(notes);
    return rc;
}
