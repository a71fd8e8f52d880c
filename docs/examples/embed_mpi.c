/*
 * Embedding replex in an MPI code: the host owns MPI (it calls
 * MPI_Init_thread and MPI_Finalize), hands replex a communicator, and
 * every rank ends with the whole result. Build against an installed
 * replex built with MPI:
 *   mpicc embed_mpi.c $(pkg-config --cflags --libs replex) -o embed_mpi
 *   mpirun -np 2 ./embed_mpi [THREADS]
 * (meson builds it and runs it as the test `example_embed_mpi` on 2
 * ranks of 1 thread: on a 2-core machine more would oversubscribe it).
 *
 * The program runs the same DEO* sampler on a 2-D double well twice: on
 * a communicator of all ranks (each steps a block of the 8 chains), and
 * on MPI_COMM_SELF (each rank alone, all 8 chains): the samples are the
 * same bits. It also shows what rx_set_comm refuses.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <mpi.h>
#include <replex/replex.h>
#include <replex/replex_mpi.h>

/* U(x) = (x0^2 - 4)^2 + x1^2 / 2: two modes at x0 = +-2. Called from
 * several threads of each rank at once; reads nothing mutable. */
static rx_status energy(void *user, const double *x, size_t d, double *e,
                        double *grad)
{
    (void)user;
    (void)d;
    const double a = x[0] * x[0] - 4.0;
    *e = a * a + 0.5 * x[1] * x[1];
    if (grad) {
        grad[0] = 4.0 * a * x[0];
        grad[1] = x[1];
    }
    return RX_OK;
}

/* The sampler, its keys by name as in a YAML file. */
static int make(rx_ctx **ctx, int chains, int ranks_key, int threads)
{
    rx_config cfg;
    rx_config_default(&cfg);
    cfg.target.kind = RX_TARGET_CALLBACK;
    cfg.iterations = 20000;
    cfg.threads = threads;
    cfg.tempering.n_chains = chains;
    cfg.record.burn_in = 1000;
    cfg.record.thin = 10;
    rx_err err;
    /* one chain: no exchange (scheme none) */
    const char *scheme = chains > 1 ? "deo_star" : "none";
    if (rx_config_set(&cfg, "tempering.scheme", scheme, &err) != RX_OK ||
        rx_config_set(&cfg, "ladder.eta", "0.005", &err) != RX_OK ||
        rx_config_set(&cfg, "ladder.tau", "{min: 1, max: 20}", &err) !=
            RX_OK ||
        rx_config_set_int(&cfg, "mpi.ranks", ranks_key, &err) != RX_OK) {
        fprintf(stderr, "embed_mpi: %s\n", err.msg);
        rx_config_free(&cfg);
        return 1;
    }
    rx_callback_target cb = {.dim = 2, .energy = energy, .user = NULL};
    rx_status st = rx_create(ctx, &cfg, &cb, (rx_logger){0}, &err);
    rx_config_free(&cfg);
    if (st != RX_OK) {
        fprintf(stderr, "embed_mpi: %s\n", err.msg);
        return 1;
    }
    return 0;
}

int main(int argc, char **argv)
{
    int level = 0, rank = 0, size = 1, fails = 0;
    /* threads inside each rank call nothing of MPI: FUNNELED suffices */
    MPI_Init_thread(&argc, &argv, MPI_THREAD_FUNNELED, &level);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    const int threads = argc > 1 && atoi(argv[1]) > 0 ? atoi(argv[1]) : 2;

    /* 1. the 8 chains on all ranks, then on this rank alone */
    rx_ctx *all = NULL, *self = NULL;
    if (make(&all, 8, 0, threads) || make(&self, 8, 0, threads))
        MPI_Abort(MPI_COMM_WORLD, 1); /* the host's choice, not replex's */
    if (rx_set_comm(all, MPI_COMM_WORLD) != RX_OK ||
        rx_set_comm(self, MPI_COMM_SELF) != RX_OK) {
        fprintf(stderr, "embed_mpi: %s%s\n", rx_errmsg(all), rx_errmsg(self));
        MPI_Abort(MPI_COMM_WORLD, 1);
    }
    if (rx_run(all) != RX_OK || rx_run(self) != RX_OK) {
        fprintf(stderr, "embed_mpi: run failed: %s%s\n", rx_errmsg(all),
                rx_errmsg(self));
        MPI_Abort(MPI_COMM_WORLD, 1);
    }
    rx_results ra, rs;
    rx_get_results(all, &ra);
    rx_get_results(self, &rs);
    const int same = ra.n_samples == rs.n_samples &&
                     memcmp(ra.samples, rs.samples,
                            sizeof(float) * (size_t)ra.n_samples * 2) == 0;
    long right = 0;
    for (int64_t i = 0; i < ra.n_samples; ++i)
        right += ra.samples[i * 2] > 0;
    if (rank == 0)
        printf("%d ranks x %d threads: %lld samples, right-well fraction "
               "%.3f (symmetric: 0.5), %lld round trips; the same bits as "
               "one rank: %s\n",
               size, ra.threads, (long long)ra.n_samples,
               (double)right / (double)ra.n_samples, (long long)ra.trips_a5,
               same ? "yes" : "NO");
    fails += !same;
    fails += fabs((double)right / (double)ra.n_samples - 0.5) > 0.1;
    /* after rx_run: too late to attach */
    fails += rx_set_comm(all, MPI_COMM_WORLD) != RX_EINVAL;
    rx_destroy(&all);
    rx_destroy(&self);

    /* 2. what rx_set_comm refuses, with a message (RX_EINVAL) */
    rx_ctx *c = NULL;
    if (make(&c, 8, 0, threads) == 0) {
        fails += rx_set_comm(c, MPI_COMM_NULL) != RX_EINVAL;
        rx_destroy(&c);
    }
    if (size > 1 && make(&c, 1, 0, threads) == 0) { /* more ranks than chains */
        fails += rx_set_comm(c, MPI_COMM_WORLD) != RX_EINVAL ||
                 !strstr(rx_errmsg(c), "ranks for 1 chains");
        rx_destroy(&c);
    }
    if (make(&c, 8, size + 1, threads) == 0) { /* mpi.ranks: a comm of
                                       * another size */
        fails += rx_set_comm(c, MPI_COMM_WORLD) != RX_EINVAL ||
                 !strstr(rx_errmsg(c), "mpi.ranks");
        if (rank == 0)
            printf("refused: %s\n", rx_errmsg(c));
        rx_destroy(&c);
    }
    /* replex never finalised MPI: the host still can communicate */
    int total = 0;
    MPI_Allreduce(&fails, &total, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    if (rank == 0)
        printf("%d failed\n", total);
    MPI_Finalize();
    return total != 0;
}
