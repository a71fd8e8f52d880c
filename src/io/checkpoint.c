/*
 * Checkpoints: the whole resumable state of a run in one binary file.
 *
 * The engine calls the writer (installed by rx_checkpoint_enable) on
 * thread 0 after the step phase of iteration k, while every other thread
 * waits at a barrier: particles (theta, gradient, optimiser state, energy,
 * fault-policy state), the exchange state (maps, gates, ladders, buffer C,
 * sigma^2 estimates, barrier-ladder rounds), the recorders (round trips,
 * pair counters, index process, trace) and the samples kept so far. The
 * random streams are pure functions of (seed, entity, purpose, k) and the
 * minibatches of (seed, entity, k), so the iteration number restores them.
 * A resumed run therefore continues to the same bits as an uninterrupted
 * one, with any thread count.
 *
 * File: "RXCKPT" 0x00 0x01, version, byte-order mark, the run's identity
 * (seed, K, P, dim, record settings), k, the blocks, and a CRC-32 (zlib) of
 * everything before it. Written to PATH.tmp, flushed, fsync'ed and renamed
 * over PATH, so a crash (even SIGKILL) mid-write leaves the previous
 * checkpoint intact. Native byte order: resume on the same architecture.
 */
#define _POSIX_C_SOURCE 200809L
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <zlib.h>

#include "../engine/ctx.h"

static const char MAGIC[8] = {'R', 'X', 'C', 'K', 'P', 'T', 0, 1};
#define CK_VERSION 1u
#define CK_BOM 0x01020304u

typedef struct ckhdr {
    char magic[8];
    uint32_t version, bom;
    uint64_t seed;
    int64_t K, burn_in, thin, index_every, trace_every;
    int64_t dim, k, rows, n_index, n_trace;
    int32_t P, per, n_cols, stride_pscal; /* doubles per particle */
} ckhdr;

/* A writer or reader that keeps a running CRC. */
typedef struct ckio {
    FILE *f;
    uLong crc;
    int bad;
} ckio;

static void put(ckio *w, const void *p, size_t n)
{
    if (w->bad || n == 0)
        return;
    if (fwrite(p, 1, n, w->f) != n)
        w->bad = 1;
    w->crc = crc32(w->crc, (const Bytef *)p, (uInt)n);
}

static void get(ckio *r, void *p, size_t n)
{
    if (r->bad || n == 0)
        return;
    if (fread(p, 1, n, r->f) != n)
        r->bad = 1;
    else
        r->crc = crc32(r->crc, (const Bytef *)p, (uInt)n);
}

/* Samples rows stored before the step phase of iteration k completes:
 * the kept iterations among 0..k-1. */
static int64_t rows_before(const rx_config *c, int64_t k)
{
    if (k - 1 < c->record.burn_in)
        return 0;
    return (k - 1 - c->record.burn_in) / c->record.thin + 1;
}

static void fill_hdr(const rx_ctx *c, int64_t k, ckhdr *h)
{
    memset(h, 0, sizeof *h);
    memcpy(h->magic, MAGIC, 8);
    h->version = CK_VERSION;
    h->bom = CK_BOM;
    h->seed = c->cfg.seed;
    h->K = c->cfg.iterations;
    h->burn_in = c->cfg.record.burn_in;
    h->thin = c->cfg.record.thin;
    h->index_every = c->rec.index_every;
    h->trace_every = c->rec.trace_every;
    h->dim = (int64_t)c->dim;
    h->k = k;
    h->rows = c->samples ? rows_before(&c->cfg, k) : 0;
    h->n_index = c->rec.n_index;
    h->n_trace = c->rec.n_trace;
    h->P = c->P;
    h->per = c->cfg.record.all_positions ? c->P : 1;
    h->n_cols = c->rec.n_trace_cols;
    h->stride_pscal = (int32_t)rx__part_stride(c);
}

/* The blocks after the header, in one order for writing and reading. */
static void xstate_io(ckio *io, rx__xstate *x, int P, int wr)
{
    void (*f)(ckio *, void *, size_t) =
        wr ? (void (*)(ckio *, void *, size_t))put : get;
    const size_t up = (size_t)P;
    f(io, x->at, sizeof(int32_t) * up);
    f(io, x->pos, sizeof(int32_t) * up);
    f(io, x->gate, up - 1);
    f(io, x->eta, sizeof(double) * up);
    f(io, x->tau, sizeof(double) * up);
    f(io, x->beta, sizeof(double) * up);
    f(io, x->s2hat, sizeof(double) * up);
    f(io, x->acc_sum, sizeof(double) * up);
    f(io, &x->C, sizeof x->C);
    f(io, &x->sa_count, sizeof x->sa_count);
    f(io, &x->round, sizeof x->round);
    f(io, &x->round_end, sizeof x->round_end);
    f(io, &x->nonadjacent_swaps, sizeof x->nonadjacent_swaps);
}

static void rec_io(ckio *io, rx__recorder *r, const ckhdr *h, int wr)
{
    void (*f)(ckio *, void *, size_t) =
        wr ? (void (*)(ckio *, void *, size_t))put : get;
    const size_t up = (size_t)h->P;
    f(io, &r->trips_a5, sizeof r->trips_a5);
    f(io, &r->trips_l1, sizeof r->trips_l1);
    f(io, &r->restarts, sizeof r->restarts);
    f(io, &r->total_swaps, sizeof r->total_swaps);
    f(io, &r->seen_nonadjacent, sizeof r->seen_nonadjacent);
    f(io, r->visited, up);
    f(io, r->last_end, up);
    f(io, r->l1_state, up);
    f(io, r->pairs, sizeof(rx_pair_stats) * (up - 1));
    f(io, r->win_cond, sizeof(int64_t) * (up - 1));
    f(io, r->win_eval, sizeof(int64_t) * (up - 1));
    f(io, r->win_swaps, sizeof(int64_t) * (up - 1));
    if (h->n_index > 0) {
        f(io, r->index, sizeof(int32_t) * (size_t)h->n_index * up);
        f(io, r->index_iter, sizeof(int64_t) * (size_t)h->n_index);
    }
    if (h->n_trace > 0)
        f(io, r->trace,
          sizeof(double) * (size_t)h->n_trace * (size_t)h->n_cols);
}

static rx_status write_ckpt(rx_ctx *c, int64_t k)
{
    char tmp[4200];
    snprintf(tmp, sizeof tmp, "%s.tmp", c->ckpt_path);
    ckio w = {fopen(tmp, "wb"), crc32(0L, Z_NULL, 0), 0};
    if (!w.f) {
        snprintf(c->ckpt_err, sizeof c->ckpt_err, "%s: cannot create: %s",
                 tmp, strerror(errno));
        return RX_EIO;
    }
    ckhdr h;
    fill_hdr(c, k, &h);
    put(&w, &h, sizeof h);
    const size_t stride = rx__part_stride(c);
    double *buf = malloc(sizeof(double) * stride);
    if (!buf) {
        fclose(w.f);
        remove(tmp);
        snprintf(c->ckpt_err, sizeof c->ckpt_err, "out of memory");
        return RX_ENOMEM;
    }
    for (int i = 0; i < c->P; ++i) {
        rx__part_pack(c->parts[i], c->dim, buf);
        put(&w, buf, sizeof(double) * stride);
    }
    free(buf);
    xstate_io(&w, &c->ts[0].x, c->P, 1);
    rec_io(&w, &c->rec, &h, 1);
    if (h.rows > 0)
        put(&w, c->samples,
            sizeof(float) * (size_t)h.rows * (size_t)h.per * c->dim);
    uint32_t crc = (uint32_t)w.crc;
    if (!w.bad && fwrite(&crc, sizeof crc, 1, w.f) != 1)
        w.bad = 1;
    int err_no = w.bad ? errno : 0;
    if (!w.bad && (fflush(w.f) != 0 || fsync(fileno(w.f)) != 0)) {
        w.bad = 1;
        err_no = errno;
    }
    if (fclose(w.f) != 0 && !w.bad) {
        w.bad = 1;
        err_no = errno;
    }
    if (w.bad) {
        remove(tmp);
        snprintf(c->ckpt_err, sizeof c->ckpt_err, "%s: write failed: %s",
                 tmp, err_no ? strerror(err_no) : "short write");
        return RX_EIO;
    }
    if (rename(tmp, c->ckpt_path) != 0) {
        snprintf(c->ckpt_err, sizeof c->ckpt_err, "%s: rename to %s: %s",
                 tmp, c->ckpt_path, strerror(errno));
        remove(tmp);
        return RX_EIO;
    }
    return RX_OK;
}

rx_status rx_checkpoint_enable(rx_ctx *c, const char *path, int64_t every)
{
    if (!c || !path || !path[0])
        return RX_EINVAL;
    if (every < 0)
        every = c->cfg.checkpoint.every;
    char *p = strdup(path);
    if (!p)
        return rx__fail(&c->err, RX_ENOMEM, "rx_checkpoint_enable: out of "
                        "memory");
    free(c->ckpt_path);
    c->ckpt_path = p;
    c->ckpt_every = every;
    c->ckpt_fn = write_ckpt;
    return RX_OK;
}

#define CK_FAIL(...)                                                         \
    do {                                                                     \
        st = rx__fail(&c->err, RX_EDATA, __VA_ARGS__);                       \
        goto out;                                                            \
    } while (0)

/* On failure the context's recorders may be half restored: destroy it. */
rx_status rx_checkpoint_resume(rx_ctx *c, const char *path)
{
    if (!c || !path)
        return RX_EINVAL;
    if (c->ran)
        return rx__fail(&c->err, RX_EINVAL, "rx_checkpoint_resume: this "
                        "context has already run");
    ckio r = {fopen(path, "rb"), crc32(0L, Z_NULL, 0), 0};
    if (!r.f)
        return rx__fail(&c->err, RX_EIO, "%s: cannot open: %s", path,
                        strerror(errno));
    rx_status st = RX_OK;
    double *parts = NULL;
    ckhdr h, want;
    get(&r, &h, sizeof h);
    if (r.bad)
        CK_FAIL("%s: not a replex checkpoint (too short)", path);
    if (memcmp(h.magic, MAGIC, 8) != 0)
        CK_FAIL("%s: not a replex checkpoint (bad magic)", path);
    if (h.bom != CK_BOM)
        CK_FAIL("%s: written on a machine of the other byte order", path);
    if (h.version != CK_VERSION)
        CK_FAIL("%s: checkpoint format %u, this replex reads %u", path,
                h.version, CK_VERSION);
    fill_hdr(c, h.k, &want);
    want.n_index = h.n_index;
    want.n_trace = h.n_trace;
    if (h.seed != want.seed || h.K != want.K || h.P != want.P ||
        h.dim != want.dim || h.burn_in != want.burn_in ||
        h.thin != want.thin || h.index_every != want.index_every ||
        h.trace_every != want.trace_every || h.per != want.per ||
        h.n_cols != want.n_cols || h.rows != want.rows ||
        h.stride_pscal != want.stride_pscal)
        CK_FAIL("%s: written by a different run (seed %llu, %lld iterations, "
                "%d chains, dim %lld; this run: seed %llu, %lld, %d, %lld)",
                path, (unsigned long long)h.seed, (long long)h.K, (int)h.P,
                (long long)h.dim, (unsigned long long)want.seed,
                (long long)want.K, (int)want.P, (long long)want.dim);
    if (h.k < 1 || h.k >= h.K || h.n_index < 0 ||
        h.n_index > c->rec.cap_index || h.n_trace < 0 ||
        h.n_trace > c->rec.cap_trace)
        CK_FAIL("%s: inconsistent header (iteration %lld of %lld)", path,
                (long long)h.k, (long long)h.K);
    const size_t stride = rx__part_stride(c);
    parts = malloc(sizeof(double) * stride * (size_t)c->P);
    if (!parts) {
        st = rx__fail(&c->err, RX_ENOMEM, "%s: out of memory", path);
        goto out;
    }
    get(&r, parts, sizeof(double) * stride * (size_t)c->P);
    {
        rx__xstate *x = &c->res_x;
        const size_t up = (size_t)c->P;
        rx__xstate_free_resumed(x);
        x->at = malloc(sizeof(int32_t) * up);
        x->pos = malloc(sizeof(int32_t) * up);
        x->gate = malloc(up);
        x->eta = malloc(sizeof(double) * 5 * up);
        if (!x->at || !x->pos || !x->gate || !x->eta) {
            rx__xstate_free_resumed(x);
            st = rx__fail(&c->err, RX_ENOMEM, "%s: out of memory", path);
            goto out;
        }
        x->tau = x->eta + up;
        x->beta = x->tau + up;
        x->s2hat = x->beta + up;
        x->acc_sum = x->s2hat + up;
        xstate_io(&r, x, c->P, 0);
    }
    rec_io(&r, &c->rec, &h, 0);
    if (h.rows > 0 && c->samples)
        get(&r, c->samples,
            sizeof(float) * (size_t)h.rows * (size_t)h.per * c->dim);
    uint32_t crc_file = 0;
    uLong crc_calc = r.crc;
    if (!r.bad && fread(&crc_file, sizeof crc_file, 1, r.f) != 1)
        r.bad = 1;
    if (r.bad)
        CK_FAIL("%s: truncated checkpoint", path);
    if ((uint32_t)crc_calc != crc_file)
        CK_FAIL("%s: checksum mismatch (the file is corrupt)", path);
    if (fgetc(r.f) != EOF)
        CK_FAIL("%s: trailing bytes after the checksum", path);
    for (int i = 0; i < c->P; ++i)
        if ((int32_t)parts[(size_t)i * stride + 3] < 0 ||
            (int32_t)parts[(size_t)i * stride + 3] >= c->P)
            CK_FAIL("%s: particle %d has an invalid position", path, i);
    free(c->res_parts);
    c->res_parts = parts;
    parts = NULL;
    c->rec.n_index = h.n_index;
    c->rec.n_trace = h.n_trace;
    c->k0 = h.k;
    c->resumed = 1;
out:
    free(parts);
    fclose(r.f);
    return st;
}
