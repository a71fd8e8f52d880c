/*
 * `replex run` under an MPI launcher (src/cli/ranks_cli.h): the start and
 * end of MPI around a command, the ranks' go / no-go before a run, and a
 * plain run's ranks other than 0. A sweep's and the replicates' spread
 * over the ranks is in sweep.c and replicates.c.
 */
#define _POSIX_C_SOURCE 200809L
#include "ranks_cli.h"

#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "../config/config.h"
#include "../engine/ranks.h"
#include "opts.h"
#include "progress.h"

enum { EXIT_OK = 0, EXIT_RUNFAIL = 1, EXIT_BADINPUT = 2 };

int rx_cli_ranks_begin(rx_cli_ranks *k, int *argc, char ***argv)
{
    rx_err me = {""};
    k->mpi = rx__mpi_start(argc, argv, &k->rank, &k->nranks, &me);
    if (k->mpi < 0 || me.msg[0]) {
        fprintf(stderr, "replex: %s\n", me.msg);
        if (k->mpi > 0)
            rx__mpi_stop();
        return k->mpi < 0 ? EXIT_BADINPUT : EXIT_RUNFAIL;
    }
    if (k->mpi && k->rank != 0) {
        k->errfd = dup(2);
        if (!freopen("/dev/null", "w", stdout) ||
            !freopen("/dev/null", "w", stderr))
            k->errfd = k->errfd < 0 ? 2 : k->errfd;
    }
    return -1;
}

int rx_cli_ranks_end(rx_cli_ranks *k, int rc)
{
    if (!k->mpi)
        return rc;
    /* a rank that left before the go / no-go (its file, its data) says
     * no there, as the others wait for it */
    if (!k->agreed)
        rx__mpi_all_ok(0, NULL);
    rc = rx__mpi_max_int(rc);
    rx__mpi_stop();
    return rc;
}

int rx_cli_ranks_worker(const rx_cli_ranks *k)
{
    return k->mpi && k->rank != 0;
}

int rx_cli_ranks_go(rx_cli_ranks *k, int ok)
{
    if (!k->mpi)
        return 1;
    k->agreed = 1;
    return rx__mpi_all_ok(ok, NULL);
}

int rx_cli_no_go(rx_cli_ranks *k, int rc)
{
    if (k->mpi) {
        rx__mpi_all_ok(0, NULL);
        k->agreed = 1;
    }
    return rc;
}

int rx_cli_ranks_check(const rx_cli_ranks *k, const rx_config *cfg,
                       const char *file)
{
    /* mpi.ranks against the launch (rx_set_comm checks it against a
     * program's communicator) */
    const int want = rx__run_ranks(cfg);
    if (want <= 0 || want == k->nranks)
        return 0;
    fprintf(stderr, "replex: %s: mpi.ranks: the file asks for %d ranks; "
            "this run was started as %d (mpirun -np %d replex run ...)\n",
            file, want, k->nranks, want);
    return EXIT_BADINPUT;
}

int rx_cli_run_worker(rx_cli_ranks *k, rx_config *cfg, const char *ckpt,
                      int resuming)
{
    rx_ctx *ctx = NULL;
    rx_err err = {""};
    rx_status st = rx_create(&ctx, cfg, NULL, (rx_logger){0}, &err);
    if (st == RX_OK && (st = rx__ranks_attach_world(ctx)) != RX_OK)
        snprintf(err.msg, sizeof err.msg, "%s", rx_errmsg(ctx));
    if (st == RX_OK && resuming &&
        (st = rx_checkpoint_resume(ctx, ckpt)) != RX_OK)
        snprintf(err.msg, sizeof err.msg, "--resume: %s", rx_errmsg(ctx));
    if (st == RX_OK && (resuming || cfg->checkpoint.every > 0)) {
        rx_checkpoint_enable(ctx, ckpt, cfg->checkpoint.every);
        rx_set_stop_flag(ctx, rx_cli_signal_flag());
    }
    int rc = st == RX_OK ? EXIT_OK : rx_cli_create_exit(st);
    int root_ok = 1;
    const int go = rx__mpi_all_ok(st == RX_OK, &root_ok);
    k->agreed = 1;
    /* as rank 0 does: a signal stops the run at one iteration, never
     * kills this rank (mpirun passes SIGINT and SIGTERM on) */
    const int sig_ok = rx_cli_signals_install() == 0;
    if (!go) {
        /* rank 0 says what it saw; a failure of this rank's own, here */
        if (st != RX_OK && root_ok)
            dprintf(k->errfd, "replex: rank %d: %s\n", k->rank, err.msg);
        rc = rc == EXIT_OK ? EXIT_BADINPUT : rc;
    } else if (rx_run(ctx) != RX_OK) {
        rc = EXIT_RUNFAIL;
    }
    if (sig_ok)
        rx_cli_signals_restore();
    rx_config_free(cfg);
    rx_destroy(&ctx);
    return rc;
}

void rx_cli_ranks_unmute(const rx_cli_ranks *k)
{
    if (rx_cli_ranks_worker(k))
        dup2(k->errfd, 2);
}
