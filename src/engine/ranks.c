/*
 * A run on MPI ranks: the only file that calls MPI (ranks.h has the
 * design). Every call here is made by thread 0 of a rank, the thread that
 * entered rx_run (MPI_THREAD_FUNNELED), while the rank's other threads
 * wait at a barrier. Errors on the run's communicator return
 * (MPI_ERRORS_RETURN): a failed collective becomes the run's failure,
 * never an abort of the embedding program.
 *
 * What crosses ranks:
 *   each iteration  one allgather: per particle of the block its energy
 *                   and sigma^2 raw estimate (2 doubles), per rank its
 *                   failure and stop flags (2 doubles);
 *   checkpoints     the particles (allgather of the packed blocks) and
 *                   the kept rows (bitwise OR of the buffers, in which a
 *                   rank wrote only its own entries: zero | x = x);
 *                   rank 0's write status;
 *   the end         the same, then the earliest failure of all ranks.
 * Doubles cross as bytes of themselves: nothing is summed across ranks,
 * so no reduction order can change a bit.
 */
#define _GNU_SOURCE
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ranks.h"
#include "state.h"
#include "wing.h"

#ifndef RX_HAVE_MPI /* meson defines it; a build by hand has no MPI */
#define RX_HAVE_MPI 0
#endif

#if RX_HAVE_MPI
#include <mpi.h>
#include <replex/replex_mpi.h>
#endif

int rx__mpi_built(void) { return RX_HAVE_MPI; }

#if !RX_HAVE_MPI

/* A launcher's word for the job's size, set in each rank's environment
 * (Open MPI's mpirun, PMI launchers), or 1. */
static int launch_size(void)
{
    static const char *const vars[] = {"OMPI_COMM_WORLD_SIZE", "PMI_SIZE",
                                       NULL};
    for (int j = 0; vars[j]; ++j) {
        const char *v = getenv(vars[j]);
        if (v && atoi(v) > 1)
            return atoi(v);
    }
    return 1;
}

int rx__mpi_start(int *argc, char ***argv, int *rank, int *size,
                  rx_err *err)
{
    (void)argc;
    (void)argv;
    *rank = 0;
    *size = 1;
    const int n = launch_size();
    if (n > 1) {
        rx__fail(err, RX_EINVAL,
                 "started as one of %d ranks, but this replex was built "
                 "without MPI: every rank would run the whole run into the "
                 "same directory (install libopenmpi-dev and reconfigure: "
                 "meson setup --reconfigure -Dmpi=enabled)",
                 n);
        return -1;
    }
    return 0;
}
int rx__mpi_all_ok(int ok, int *root_ok)
{
    if (root_ok)
        *root_ok = ok != 0;
    return ok != 0;
}
int rx__mpi_max_int(int v) { return v; }
void rx__mpi_stop(void) {}
int rx__mpi_or_bytes(void *p, size_t n)
{
    (void)p;
    (void)n;
    return 0;
}
int rx__mpi_world_size(void) { return 1; }
rx_status rx__ranks_attach_world(rx_ctx *c)
{
    (void)c;
    return RX_OK;
}
int rx__ranks_rank(const rx_ctx *c)
{
    (void)c;
    return 0;
}
int rx__ranks_size(const rx_ctx *c)
{
    (void)c;
    return 1;
}
double rx__ranks_sync_s(const rx_ctx *c)
{
    (void)c;
    return 0.0;
}
void rx__ranks_free(rx_ctx *c) { (void)c; }
void rx__ranks_block(const rx_ctx *c, int *lo, int *hi)
{
    *lo = 0;
    *hi = c->P;
}
int rx__ranks_setup_sync(rx_ctx *c, rx__tstate *ts)
{
    (void)ts;
    return c->fail_flag[2];
}
rx_status rx__ranks_open(rx_ctx *c)
{
    (void)c;
    return RX_OK;
}
void rx__ranks_step_sync(rx_ctx *c, rx__tstate *ts, double *Ek, int64_t k,
                         int skip)
{
    (void)skip;
    (void)c;
    (void)ts;
    (void)Ek;
    (void)k;
}
int rx__ranks_stop(const rx_ctx *c)
{
    (void)c;
    return 0;
}
rx_status rx__ranks_gather(rx_ctx *c, int64_t k, char *err, size_t cap)
{
    (void)c;
    (void)k;
    (void)err;
    (void)cap;
    return RX_OK;
}
rx_status rx__ranks_ckpt_status(rx_ctx *c, rx_status st)
{
    (void)c;
    return st;
}
void rx__ranks_finish(rx_ctx *c, rx__tstate *ts, int64_t k)
{
    (void)c;
    (void)ts;
    (void)k;
}

#else /* RX_HAVE_MPI */

struct rx__ranks {
    MPI_Comm user;  /* the communicator given; duplicated by rx_run */
    MPI_Comm comm;  /* the run's own (MPI_COMM_NULL until rx_run) */
    int rank, size;
    int plo, phi; /* this rank's particles */
    int *cnt, *dsp; /* size each: allgatherv counts and displacements */
    double *sync;   /* the iteration's allgather: 2 P + 2 size doubles */
    int stop;       /* some rank has seen a stop request */
    double sync_s;  /* seconds in the iterations' allgathers */
};

/* The environment variables by which launchers tell a process it is one
 * rank of a job: Open MPI's mpirun, PMIx, PMI (MPICH's Hydra, Slurm). */
static int launched(void)
{
    static const char *const vars[] = {"OMPI_COMM_WORLD_SIZE", "PMIX_RANK",
                                       "PMI_SIZE", "PMI_RANK", NULL};
    for (int j = 0; vars[j]; ++j)
        if (getenv(vars[j]))
            return 1;
    return 0;
}

static int mpi_live(void)
{
    int on = 0, off = 0;
    MPI_Initialized(&on);
    MPI_Finalized(&off);
    return on && !off;
}

int rx__mpi_start(int *argc, char ***argv, int *rank, int *size,
                  rx_err *err)
{
    *rank = 0;
    *size = 1;
    if (!launched())
        return 0;
    int got = 0;
    if (MPI_Init_thread(argc, argv, MPI_THREAD_FUNNELED, &got) !=
        MPI_SUCCESS) {
        rx__fail(err, RX_EIO, "MPI_Init_thread failed");
        return -1;
    }
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    MPI_Comm_rank(MPI_COMM_WORLD, rank);
    MPI_Comm_size(MPI_COMM_WORLD, size);
    if (got < MPI_THREAD_FUNNELED) {
        rx__fail(err, RX_EIO,
                 "MPI_Init_thread: this MPI gives thread level %d, below "
                 "MPI_THREAD_FUNNELED, which a run with threads needs",
                 got);
        return 1; /* started: the caller stops it */
    }
    return 1;
}

int rx__mpi_all_ok(int ok, int *root_ok)
{
    if (root_ok)
        *root_ok = ok != 0;
    if (!mpi_live())
        return ok != 0;
    int in = ok != 0, out = 0, r0 = ok != 0;
    if (MPI_Allreduce(&in, &out, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD) !=
            MPI_SUCCESS ||
        MPI_Bcast(&r0, 1, MPI_INT, 0, MPI_COMM_WORLD) != MPI_SUCCESS)
        return 0;
    if (root_ok)
        *root_ok = r0;
    return out;
}

int rx__mpi_max_int(int v)
{
    if (!mpi_live())
        return v;
    int out = v;
    if (MPI_Allreduce(&v, &out, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD) !=
        MPI_SUCCESS)
        return v;
    return out;
}

void rx__mpi_stop(void)
{
    if (mpi_live())
        MPI_Finalize();
}

static int or_bytes_on(MPI_Comm comm, void *p, size_t n);

int rx__mpi_or_bytes(void *p, size_t n)
{
    if (!mpi_live())
        return 0;
    return or_bytes_on(MPI_COMM_WORLD, p, n) == MPI_SUCCESS ? 0 : -1;
}

int rx__mpi_world_size(void)
{
    int n = 1;
    if (mpi_live())
        MPI_Comm_size(MPI_COMM_WORLD, &n);
    return n;
}

/* The message of an MPI error code into the run's failure slot ts (or
 * the context's error with ts NULL). */
static void mpi_fail(rx_ctx *c, rx__tstate *ts, const char *what, int code)
{
    char s[MPI_MAX_ERROR_STRING];
    int n = 0;
    if (MPI_Error_string(code, s, &n) != MPI_SUCCESS)
        snprintf(s, sizeof s, "error %d", code);
    if (!ts) {
        rx__fail(&c->err, RX_EIO, "%s: %s", what, s);
        return;
    }
    rx__fail(&ts->err, RX_EIO, "%s on rank %d of %d: %s", what,
             c->mp->rank, c->mp->size, s);
    ts->fail_particle = RX_FAIL_SETUP;
    ts->fail_k = -1;
    ts->st = RX_EIO;
}

void rx__ranks_free(rx_ctx *c)
{
    rx__ranks *m = c->mp;
    if (!m)
        return;
    if (mpi_live() && m->comm != MPI_COMM_NULL)
        MPI_Comm_free(&m->comm);
    free(m->cnt);
    free(m->dsp);
    free(m->sync);
    free(m);
    c->mp = NULL;
}

/* Attaches comm after checking that the split fits the run; no
 * communication (rx_run duplicates comm: the run's messages never meet
 * the program's), so one rank refusing or leaving before rx_run leaves
 * no other rank waiting in here. */
static rx_status attach(rx_ctx *c, MPI_Comm comm, const char *fn)
{
    if (!c)
        return RX_EINVAL;
    if (c->ran)
        return rx__fail(&c->err, RX_EINVAL,
                        "%s: the run has already run; attach the "
                        "communicator before rx_run", fn);
    if (!mpi_live())
        return rx__fail(&c->err, RX_EINVAL,
                        "%s: MPI is not initialised (call MPI_Init_thread "
                        "first)", fn);
    if (comm == MPI_COMM_NULL)
        return rx__fail(&c->err, RX_EINVAL, "%s: comm is MPI_COMM_NULL",
                        fn);
    int size = 0, rank = 0, level = 0;
    if (MPI_Comm_size(comm, &size) != MPI_SUCCESS ||
        MPI_Comm_rank(comm, &rank) != MPI_SUCCESS)
        return rx__fail(&c->err, RX_EINVAL, "%s: not a valid communicator",
                        fn);
    const int want = rx__run_ranks(&c->cfg);
    if (want > 0 && size != want)
        return rx__fail(&c->err, RX_EINVAL,
                        "%s: mpi.ranks: the configuration asks for %d "
                        "ranks; the communicator has %d",
                        fn, want, size);
    if (size > c->P)
        return rx__fail(&c->err, RX_EINVAL,
                        "%s: %d ranks for %d chains (tempering.n_chains): "
                        "every rank needs at least one chain; run on at "
                        "most %d ranks",
                        fn, size, c->P, c->P);
    if (c->xc.paired && size > 1)
        return rx__fail(&c->err, RX_EINVAL,
                        "%s: tempering.rule: the %s rule on minibatch "
                        "energies runs on one rank (a pair's two parameter "
                        "vectors are evaluated together); this "
                        "communicator has %d: run without mpirun or with "
                        "-np 1",
                        fn, rx__xtest_row(c->xc.rule)->row.name, size);
    MPI_Query_thread(&level);
    if (c->nt_req > 1 && level < MPI_THREAD_FUNNELED)
        return rx__fail(&c->err, RX_EINVAL,
                        "%s: MPI runs at thread level SINGLE; %d threads "
                        "per rank need MPI_THREAD_FUNNELED "
                        "(MPI_Init_thread), or set threads: 1",
                        fn, c->nt_req);
    rx__ranks *m = calloc(1, sizeof *m);
    if (!m)
        return rx__fail(&c->err, RX_ENOMEM, "%s: out of memory", fn);
    m->user = comm;
    m->comm = MPI_COMM_NULL;
    m->rank = rank;
    m->size = size;
    m->plo = (int)((int64_t)rank * c->P / size);
    m->phi = (int)((int64_t)(rank + 1) * c->P / size);
    m->cnt = malloc(sizeof(int) * (size_t)size);
    m->dsp = malloc(sizeof(int) * (size_t)size);
    m->sync = malloc(sizeof(double) * (2 * (size_t)c->P + 2 * (size_t)size));
    rx__ranks_free(c);
    c->mp = m;
    if (!m->cnt || !m->dsp || !m->sync) {
        rx__ranks_free(c);
        return rx__fail(&c->err, RX_ENOMEM, "%s: out of memory", fn);
    }
    return RX_OK;
}

rx_status rx_set_comm(rx_ctx *c, MPI_Comm comm)
{
    return attach(c, comm, "rx_set_comm");
}

rx_status rx__ranks_attach_world(rx_ctx *c)
{
    if (!mpi_live())
        return RX_OK; /* mpi.ranks against 1: the tool's check */
    return attach(c, MPI_COMM_WORLD, "MPI ranks");
}

int rx__ranks_rank(const rx_ctx *c) { return c && c->mp ? c->mp->rank : 0; }
double rx__ranks_sync_s(const rx_ctx *c) { return c && c->mp ? c->mp->sync_s : 0.0; }
int rx__ranks_size(const rx_ctx *c) { return c && c->mp ? c->mp->size : 1; }

void rx__ranks_block(const rx_ctx *c, int *lo, int *hi)
{
    *lo = c->mp ? c->mp->plo : 0;
    *hi = c->mp ? c->mp->phi : c->P;
}

int rx__ranks_stop(const rx_ctx *c) { return c->mp && c->mp->stop; }

/* Rank r's particles. */
static void block_of(const rx__ranks *m, int P, int r, int *lo, int *hi)
{
    *lo = (int)((int64_t)r * P / m->size);
    *hi = (int)((int64_t)(r + 1) * P / m->size);
}

rx_status rx__ranks_open(rx_ctx *c)
{
    rx__ranks *m = c->mp;
    if (!m || m->comm != MPI_COMM_NULL)
        return RX_OK;
    int main_thread = 0;
    MPI_Is_thread_main(&main_thread);
    if (!main_thread)
        return rx__fail(&c->err, RX_EINVAL,
                        "rx_run: on ranks, rx_run must be called from the "
                        "thread that initialised MPI");
    const int rc = MPI_Comm_dup(m->user, &m->comm);
    if (rc != MPI_SUCCESS) {
        m->comm = MPI_COMM_NULL;
        mpi_fail(c, NULL, "rx_run: MPI_Comm_dup", rc);
        return RX_EIO;
    }
    MPI_Comm_set_errhandler(m->comm, MPI_ERRORS_RETURN);
    return RX_OK;
}

/* What every rank must agree on before the first iteration: a rank that
 * resumed, checkpoints or runs another length than the others would make
 * other collective calls than they do. */
typedef struct run_sig {
    int64_t K, k0, every, P, dim, resumed, setup_failed;
    uint64_t seed;
} run_sig;

int rx__ranks_setup_sync(rx_ctx *c, rx__tstate *ts)
{
    int f;
#pragma omp atomic read
    f = c->fail_flag[2];
    if (!c->mp)
        return f;
    rx__ranks *m = c->mp;
    run_sig mine = {c->cfg.iterations, c->k0, c->ckpt_fn ? c->ckpt_every : 0,
                    c->P, (int64_t)c->dim, c->resumed, f, c->cfg.seed};
    run_sig *all = malloc(sizeof(run_sig) * (size_t)m->size);
    int any = 0;
    const int rc = all ? MPI_Allgather(&mine, (int)sizeof mine, MPI_BYTE,
                                       all, (int)sizeof mine, MPI_BYTE,
                                       m->comm)
                       : MPI_ERR_NO_MEM;
    if (rc != MPI_SUCCESS) {
        if (ts->st == RX_OK)
            mpi_fail(c, ts, "MPI_Allgather (set-up)", rc);
        any = 1;
    }
    for (int r = 0; rc == MPI_SUCCESS && r < m->size; ++r) {
        any |= all[r].setup_failed != 0;
        run_sig a = all[r], b = mine;
        a.setup_failed = b.setup_failed = 0;
        if (memcmp(&a, &b, sizeof a) != 0 && ts->st == RX_OK) {
            rx__fail(&ts->err, RX_EINVAL,
                     "rx_run: rank %d and rank %d run different runs "
                     "(iterations %lld / %lld, resumed at %lld / %lld, "
                     "checkpoint every %lld / %lld, chains %lld / %lld, "
                     "seed %llu / %llu): every rank creates the same run, "
                     "resumes from the same checkpoint and enables the same "
                     "checkpoints",
                     m->rank, r, (long long)b.K, (long long)a.K,
                     (long long)b.k0, (long long)a.k0, (long long)b.every,
                     (long long)a.every, (long long)b.P, (long long)a.P,
                     (unsigned long long)b.seed,
                     (unsigned long long)a.seed);
            ts->st = RX_EINVAL;
            ts->fail_particle = RX_FAIL_SETUP;
            ts->fail_k = -1;
        }
    }
    free(all);
    /* a disagreement is seen alike by every rank: all leave */
    if (ts->st != RX_OK)
        any = 1;
    if (any) {
#pragma omp atomic write
        c->fail_flag[2] = 1;
    }
    return any;
}

void rx__ranks_step_sync(rx_ctx *c, rx__tstate *ts, double *Ek, int64_t k,
                         int skip)
{
    rx__ranks *m = c->mp;
    const int P = c->P, R = m->size;
    const int slot = (int)(k & 1);
    /* this rank's part, in place at its displacement */
    double *s = m->sync;
    for (int r = 0; r < R; ++r) {
        int lo, hi;
        block_of(m, P, r, &lo, &hi);
        m->cnt[r] = 2 * (hi - lo) + 2;
        m->dsp[r] = 2 * lo + 2 * r;
    }
    double *mine = s + m->dsp[m->rank];
    for (int i = m->plo; i < m->phi; ++i) {
        *mine++ = Ek[i];
        *mine++ = c->parts[i]->var_raw[slot];
    }
    int f;
#pragma omp atomic read
    f = c->fail_flag[slot];
    mine[0] = f ? 1.0 : 0.0;
    mine[1] = c->stop_flag && *c->stop_flag ? 1.0 : 0.0;
    const double t0 = rx__now();
    const int rc = MPI_Allgatherv(MPI_IN_PLACE, 0, MPI_DATATYPE_NULL, s,
                                  m->cnt, m->dsp, MPI_DOUBLE, m->comm);
    m->sync_s += rx__now() - t0;
    if (rc != MPI_SUCCESS) {
        if (ts->st == RX_OK)
            mpi_fail(c, ts, "MPI_Allgatherv (energies)", rc);
#pragma omp atomic write
        c->fail_flag[slot] = 1;
        return;
    }
    int any = 0;
    for (int r = 0; r < R; ++r) {
        int lo, hi;
        block_of(m, P, r, &lo, &hi);
        const double *in = s + m->dsp[r];
        for (int i = lo; i < hi; ++i, in += 2) {
            if (r == m->rank)
                continue;
            Ek[i] = in[0];
            c->parts[i]->energy = in[0];
            c->parts[i]->var_raw[slot] = in[1];
            if (!skip)
                rx__rec_hit(&c->rec, i, k, in[0]); /* as step_one does */
        }
        any |= in[0] != 0.0;
        m->stop |= in[1] != 0.0;
    }
    if (any) {
#pragma omp atomic write
        c->fail_flag[slot] = 1;
    }
}

/* The particles of every rank's block to every rank. */
static int share_particles(rx_ctx *c, rx__tstate *ts)
{
    rx__ranks *m = c->mp;
    const int P = c->P, R = m->size;
    const size_t stride = rx__part_stride(c);
    if ((double)P * (double)stride > (double)INT_MAX) {
        if (ts->st == RX_OK) {
            rx__fail(&ts->err, RX_ENOMEM,
                     "ranks: %d particles of %zu doubles exceed one MPI "
                     "message",
                     P, stride);
            ts->st = RX_ENOMEM;
            ts->fail_particle = RX_FAIL_SETUP;
        }
        return -1;
    }
    double *buf = malloc(sizeof(double) * stride * (size_t)P);
    if (!buf) {
        if (ts->st == RX_OK)
            mpi_fail(c, ts, "ranks: out of memory for the particles",
                     MPI_ERR_NO_MEM);
        return -1;
    }
    for (int r = 0; r < R; ++r) {
        int lo, hi;
        block_of(m, P, r, &lo, &hi);
        m->cnt[r] = (int)((size_t)(hi - lo) * stride);
        m->dsp[r] = (int)((size_t)lo * stride);
    }
    for (int i = m->plo; i < m->phi; ++i)
        if (c->parts[i])
            rx__part_pack(c->parts[i], c->dim, c->slen,
                          buf + (size_t)i * stride);
    const int rc = MPI_Allgatherv(MPI_IN_PLACE, 0, MPI_DATATYPE_NULL, buf,
                                  m->cnt, m->dsp, MPI_DOUBLE, m->comm);
    if (rc == MPI_SUCCESS) {
        for (int i = 0; i < P; ++i)
            if ((i < m->plo || i >= m->phi) && c->parts[i])
                rx__part_unpack(c->parts[i], c->dim, c->slen,
                                buf + (size_t)i * stride);
    } else if (ts->st == RX_OK) {
        mpi_fail(c, ts, "MPI_Allgatherv (particles)", rc);
    }
    free(buf);
    return rc == MPI_SUCCESS ? 0 : -1;
}

/* n bytes at p OR-ed over the ranks of comm, in pieces of at most 1 GiB. */
static int or_bytes_on(MPI_Comm comm, void *p, size_t n)
{
    unsigned char *b = p;
    while (n > 0) {
        const size_t piece = n < ((size_t)1 << 30) ? n : (size_t)1 << 30;
        const int rc = MPI_Allreduce(MPI_IN_PLACE, b, (int)piece, MPI_BYTE,
                                     MPI_BOR, comm);
        if (rc != MPI_SUCCESS)
            return rc;
        b += piece;
        n -= piece;
    }
    return MPI_SUCCESS;
}

static int or_bytes(rx__ranks *m, void *p, size_t n)
{
    return or_bytes_on(m->comm, p, n);
}

/* The rows kept before iteration k (all of them at k = K) merged: each
 * entry was written by the rank that stepped its particle, and is zero
 * (or already the same bytes, after an earlier merge) elsewhere. */
static int merge_rows(rx_ctx *c, rx__tstate *ts, int64_t k)
{
    rx__ranks *m = c->mp;
    rx__ckident id;
    rx__state_ident(c, k, &id);
    const size_t rows = (size_t)id.rows, per = (size_t)id.per;
    int rc = MPI_SUCCESS;
    if (rows > 0 && c->samples)
        rc = or_bytes(m, c->samples, sizeof(float) * rows * per * c->dim);
    if (rc == MPI_SUCCESS && rows > 0 && c->senergy)
        rc = or_bytes(m, c->senergy, sizeof(double) * rows * per);
    if (rc == MPI_SUCCESS && rows > 0 && c->logw)
        rc = or_bytes(m, c->logw, sizeof(double) * rows * per);
    if (rc == MPI_SUCCESS && rows > 0 && c->logz_u)
        rc = or_bytes(m, c->logz_u, sizeof(double) * rows * (size_t)c->P);
    /* and the beta = 0 position's reference energies, after all rows */
    if (rc == MPI_SUCCESS && rows > 0 && c->logz_u)
        rc = or_bytes(m, c->logz_u + (size_t)c->logz_rows * (size_t)c->P,
                      sizeof(double) * rows);
    if (rc != MPI_SUCCESS) {
        if (ts->st == RX_OK)
            mpi_fail(c, ts, "MPI_Allreduce (kept rows)", rc);
        return -1;
    }
    return 0;
}

rx_status rx__ranks_gather(rx_ctx *c, int64_t k, char *err, size_t cap)
{
    rx__tstate tmp;
    memset(&tmp, 0, sizeof tmp);
    tmp.st = RX_OK;
    if (share_particles(c, &tmp) != 0 || merge_rows(c, &tmp, k) != 0) {
        snprintf(err, cap, "%s", tmp.err.msg);
        return tmp.st != RX_OK ? tmp.st : RX_EIO;
    }
    return RX_OK;
}

rx_status rx__ranks_ckpt_status(rx_ctx *c, rx_status st)
{
    rx__ranks *m = c->mp;
    if (!m)
        return st;
    int v = (int)st;
    if (MPI_Bcast(&v, 1, MPI_INT, 0, m->comm) != MPI_SUCCESS ||
        MPI_Bcast(c->ckpt_err, (int)sizeof c->ckpt_err, MPI_CHAR, 0,
                  m->comm) != MPI_SUCCESS) {
        snprintf(c->ckpt_err, sizeof c->ckpt_err,
                 "rank 0's checkpoint status did not arrive");
        return RX_EIO;
    }
    return (rx_status)v;
}

/* A failure as it crosses ranks. */
typedef struct wire_fail {
    int32_t st, particle, q, coord;
    int64_t k;
    double last;
    char msg[512];
} wire_fail;

/* The rank's failure to report (report.c's choice over its threads). */
static void local_fail(const rx_ctx *c, wire_fail *w)
{
    memset(w, 0, sizeof *w);
    w->st = RX_OK;
    const int t = rx__pick_failure(c);
    if (t < 0)
        return;
    const rx__tstate *s = &c->ts[t];
    w->st = (int32_t)s->st;
    w->particle = s->fail_particle;
    w->q = s->fail_q;
    w->coord = s->fail_coord;
    w->k = s->fail_k;
    w->last = s->fail_last_energy;
    snprintf(w->msg, sizeof w->msg, "%.500s", s->err.msg);
}

/* Is a before b (a set-up failure first, then the earliest iteration,
 * then the lowest particle: report.c's order)? */
static int fail_before(const wire_fail *a, const wire_fail *b)
{
    if (b->st == RX_OK)
        return a->st != RX_OK;
    if (a->st == RX_OK)
        return 0;
    if ((a->particle < 0) != (b->particle < 0))
        return a->particle < 0;
    if (a->particle < 0)
        return 0; /* the lower rank's */
    return a->k < b->k || (a->k == b->k && a->particle < b->particle);
}

void rx__ranks_finish(rx_ctx *c, rx__tstate *ts, int64_t k)
{
    rx__ranks *m = c->mp;
    if (!m)
        return;
    /* the particles and rows even after a failure in the iterations: its
     * message reads the failing particle; after a set-up failure (agreed
     * by every rank) some particles may not exist */
    if (!c->fail_flag[2]) {
        share_particles(c, ts);
        merge_rows(c, ts, k);
    }
    wire_fail mine, *all = malloc(sizeof(wire_fail) * (size_t)m->size);
    local_fail(c, &mine);
    if (!all)
        return;
    if (MPI_Allgather(&mine, (int)sizeof mine, MPI_BYTE, all,
                      (int)sizeof mine, MPI_BYTE, m->comm) == MPI_SUCCESS) {
        int best = -1;
        for (int r = 0; r < m->size; ++r)
            if (all[r].st != RX_OK && (best < 0 || fail_before(&all[r],
                                                                &all[best])))
                best = r;
        if (best >= 0 && best != m->rank) {
            /* every rank reports the same failure, in its thread 0 */
            for (int t = 0; t < c->nt_req; ++t)
                c->ts[t].st = RX_OK;
            rx__tstate *d = &c->ts[0];
            d->st = (rx_status)all[best].st;
            d->fail_particle = all[best].particle;
            d->fail_q = all[best].q;
            d->fail_coord = all[best].coord;
            d->fail_k = all[best].k;
            d->fail_last_energy = all[best].last;
            snprintf(d->err.msg, sizeof d->err.msg, "%s", all[best].msg);
        }
    }
    free(all);
}

#endif /* RX_HAVE_MPI */
