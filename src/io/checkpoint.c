/*
 * Checkpoints: the whole resumable state of a run in one binary file.
 *
 * The engine calls the writer (installed by rx_checkpoint_enable) on
 * thread 0 after the step phase of iteration k, while every other thread
 * waits at a barrier: particles (theta, gradient, optimiser state, energy,
 * fault-policy state), the exchange state (maps, gates, ladders, buffer C,
 * sigma^2 estimates, barrier-ladder rounds), the recorders (round trips,
 * pair counters, index process, trace) and the samples kept so far (with
 * their energies). The random streams are pure functions of (seed,
 * entity, purpose, k) and the minibatches of (seed, entity, k), so the
 * iteration number restores them.
 * A resumed run therefore continues to the same bits as an uninterrupted
 * one, with any thread count.
 *
 * File: "RXCKPT" 0x00 0x01, version, byte-order mark, the run's identity
 * (seed, K, P, dim, record settings), k, the result-affecting configuration
 * (a digest, then every such key's value: src/io/digest.h, and a digest
 * of each data file a network reads; a resume with other values is
 * refused, naming them), the blocks, and a CRC-32 (zlib) of
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

#include "../data/data.h"
#include "../engine/state.h"
#include "digest.h"

static const char MAGIC[8] = {'R', 'X', 'C', 'K', 'P', 'T', 0, 1};
#define CK_VERSION 5u /* 3: samples' energies; 4: rounds' Lambda, log Z;
                        * 5: U_0 of the beta = 0 rows */
#define CK_CFG_MAX (1u << 20) /* bytes of configuration text */
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

static void fill_hdr(const rx_ctx *c, int64_t k, ckhdr *h)
{
    rx__ckident id;
    rx__state_ident(c, k, &id);
    memset(h, 0, sizeof *h);
    memcpy(h->magic, MAGIC, 8);
    h->version = CK_VERSION;
    h->bom = CK_BOM;
    h->seed = id.seed;
    h->K = id.K;
    h->burn_in = id.burn_in;
    h->thin = id.thin;
    h->index_every = id.index_every;
    h->trace_every = id.trace_every;
    h->dim = id.dim;
    h->k = k;
    h->rows = id.rows;
    h->n_index = id.n_index;
    h->n_trace = id.n_trace;
    h->P = id.P;
    h->per = id.per;
    h->n_cols = id.n_cols;
    h->stride_pscal = id.stride;
}

/* FNV-1a 64 and length of the bytes of the file at path, streamed; 0 when
 * it cannot be opened or read as a file (a directory: the JSON format). */
static int file_digest(const char *path, uint64_t *dig, uint64_t *len)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return 0;
    uint64_t h = 14695981039346656037ull, n = 0;
    unsigned char buf[1 << 16];
    size_t got;
    while ((got = fread(buf, 1, sizeof buf, f)) > 0) {
        for (size_t i = 0; i < got; ++i) {
            h ^= buf[i];
            h *= 1099511628211ull;
        }
        n += got;
    }
    int bad = ferror(f);
    fclose(f);
    *dig = h;
    *len = n;
    return !bad;
}

/* Appends line to *text. */
static rx_status add_line(char **text, const char *line, rx_err *err)
{
    size_t a = strlen(*text), b = strlen(line);
    char *t = realloc(*text, a + b + 1);
    if (!t)
        return rx__fail(err, RX_ENOMEM, "out of memory");
    memcpy(t + a, line, b + 1);
    *text = t;
    return RX_OK;
}

/* "KEY contents: digest D (N bytes)" of the file at path, or that it is
 * not a readable file, into line. */
static void digest_line(const char *key, const char *path, char *line,
                        size_t cap)
{
    uint64_t d = 0, n = 0;
    if (file_digest(path, &d, &n))
        snprintf(line, cap, "%s contents: digest %016llx (%llu bytes)\n",
                 key, (unsigned long long)d, (unsigned long long)n);
    else
        snprintf(line, cap, "%s contents: not a readable file\n", key);
}

/*
 * Appends to the canonical text one line per data file of a network run,
 * "data.KEY contents: digest D (N bytes)": the configuration names the
 * files, these pin what they held, so a resume after the data file or the
 * test-rows file was edited is refused (the first half would have trained
 * on rows that are now test rows). A directory data set (mnist_json) gets
 * a line per file it is read from, "data.path 3.json contents: ...". Read
 * at every checkpoint: the files are at most what the run already holds
 * in memory.
 */
static rx_status data_lines(const rx_config *cfg, char **text, rx_err *err)
{
    if (cfg->target.kind != RX_TARGET_NETWORK)
        return RX_OK;
    const int json_dir = cfg->data.format == RX_DATA_MNIST_JSON;
    const struct {
        const char *key, *path;
    } F[] = {
        {"data.path", cfg->data.path},
        {"data.labels_path", cfg->data.labels_path},
        {"data.test_path", cfg->data.test_path},
        {"data.test_labels_path", cfg->data.test_labels_path},
        {"data.test_rows", cfg->data.test_rows},
    };
    char line[160];
    rx_status st = RX_OK;
    for (size_t i = 0; i < sizeof F / sizeof F[0] && st == RX_OK; ++i) {
        if (!F[i].path[0])
            continue;
        if (json_dir && i == 0) {
            for (int digit = 0; digit < 10 && st == RX_OK; ++digit) {
                char path[4200], key[48];
                rx__data_mnist_json_file(F[i].path, digit, path, sizeof path);
                snprintf(key, sizeof key, "%s %d.json", F[i].key, digit);
                digest_line(key, path, line, sizeof line);
                st = add_line(text, line, err);
            }
            continue;
        }
        digest_line(F[i].key, F[i].path, line, sizeof line);
        st = add_line(text, line, err);
    }
    return st;
}

/* The result-affecting configuration of c as text, with its data files'
 * digests. */
static rx_status ckpt_canon(const rx_ctx *c, char **text, rx_err *err)
{
    rx_status st = rx__config_canon(rx__ctx_cfg(c), text, err);
    if (st == RX_OK && (st = data_lines(rx__ctx_cfg(c), text, err)) != RX_OK) {
        free(*text);
        *text = NULL;
    }
    if (st == RX_OK && strlen(*text) > CK_CFG_MAX) {
        free(*text);
        *text = NULL;
        st = rx__fail(err, RX_ECONFIG, "the configuration is longer than "
                      "a checkpoint holds (%u bytes)", CK_CFG_MAX);
    }
    return st;
}

/* The engine's blocks after the header (rx__state_save, rx__state_load)
 * go through these, with the sizes the header gives. */
static void put_cb(void *u, void *p, size_t n) { put(u, p, n); }

static void get_cb(void *u, void *p, size_t n) { get(u, p, n); }

static void hdr_ident(const ckhdr *h, rx__ckident *id)
{
    memset(id, 0, sizeof *id);
    id->seed = h->seed;
    id->K = h->K;
    id->burn_in = h->burn_in;
    id->thin = h->thin;
    id->index_every = h->index_every;
    id->trace_every = h->trace_every;
    id->dim = h->dim;
    id->k = h->k;
    id->rows = h->rows;
    id->n_index = h->n_index;
    id->n_trace = h->n_trace;
    id->P = h->P;
    id->per = h->per;
    id->n_cols = h->n_cols;
    id->stride = h->stride_pscal;
}

static rx_status write_ckpt(rx_ctx *c, int64_t k, const char *path,
                            char *err, size_t cap)
{
    char tmp[4200];
    snprintf(tmp, sizeof tmp, "%s.tmp", path);
    ckio w = {fopen(tmp, "wb"), crc32(0L, Z_NULL, 0), 0};
    if (!w.f) {
        snprintf(err, cap, "%s: cannot create: %s", tmp, strerror(errno));
        return RX_EIO;
    }
    ckhdr h;
    fill_hdr(c, k, &h);
    put(&w, &h, sizeof h);
    char *canon = NULL;
    rx_err cerr = {""};
    if (ckpt_canon(c, &canon, &cerr) != RX_OK) {
        fclose(w.f);
        remove(tmp);
        snprintf(err, cap, "cannot record the configuration: %s", cerr.msg);
        return RX_EIO;
    }
    uint32_t clen = (uint32_t)strlen(canon);
    uint64_t dig = rx__digest64(canon, clen);
    put(&w, &dig, sizeof dig);
    put(&w, &clen, sizeof clen);
    put(&w, canon, clen);
    free(canon);
    rx__ckident id;
    hdr_ident(&h, &id);
    if (rx__state_save(c, &id, put_cb, &w) != RX_OK) {
        fclose(w.f);
        remove(tmp);
        snprintf(err, cap, "out of memory");
        return RX_ENOMEM;
    }
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
        snprintf(err, cap, "%s: write failed: %s", tmp,
                 err_no ? strerror(err_no) : "short write");
        return RX_EIO;
    }
    if (rename(tmp, path) != 0) {
        snprintf(err, cap, "%s: rename to %s: %s", tmp, path,
                 strerror(errno));
        remove(tmp);
        return RX_EIO;
    }
    return RX_OK;
}

rx_status rx_checkpoint_enable(rx_ctx *c, const char *path, int64_t every)
{
    if (!c)
        return RX_EINVAL;
    if (!path || !path[0])
        return rx__fail(rx__ctx_err(c), RX_EINVAL, "rx_checkpoint_enable: "
                        "the path is %s", path ? "empty" : "NULL");
    if (rx__ckpt_install(c, path, every, write_ckpt) != RX_OK)
        return rx__fail(rx__ctx_err(c), RX_ENOMEM, "rx_checkpoint_enable: "
                        "out of memory");
    return RX_OK;
}

/* The header fields that differ, "name: A in the checkpoint, B now; ...";
 * 0 when none does. */
static int header_diff(const ckhdr *h, const ckhdr *w, char *msg, size_t cap)
{
    const struct {
        const char *name;
        long long a, b;
    } f[] = {
        {"seed", (long long)h->seed, (long long)w->seed},
        {"iterations", h->K, w->K},
        {"chains", h->P, w->P},
        {"parameter dimension", h->dim, w->dim},
        {"record.burn_in", h->burn_in, w->burn_in},
        {"record.thin", h->thin, w->thin},
        {"index rows every", h->index_every, w->index_every},
        {"trace rows every", h->trace_every, w->trace_every},
        {"positions kept per sample", h->per, w->per},
        {"trace columns", h->n_cols, w->n_cols},
        {"sample rows", h->rows, w->rows},
        {"doubles per particle", h->stride_pscal, w->stride_pscal},
    };
    size_t n = 0;
    int cnt = 0;
    msg[0] = '\0';
    for (size_t i = 0; i < sizeof f / sizeof f[0]; ++i)
        if (f[i].a != f[i].b) {
            if (n < cap)
                n += (size_t)snprintf(msg + n, cap - n,
                                      "%s%s %lld in the checkpoint, %lld now",
                                      cnt ? "; " : "", f[i].name, f[i].a,
                                      f[i].b);
            ++cnt;
        }
    return cnt;
}

/* Reads the recorded configuration and refuses a resume whose
 * result-affecting keys differ, naming them with both values. */
static rx_status check_config(rx_ctx *c, const char *path, ckio *r)
{
    uint64_t dig = 0;
    uint32_t len = 0;
    get(r, &dig, sizeof dig);
    get(r, &len, sizeof len);
    if (r->bad)
        return rx__fail(rx__ctx_err(c), RX_EDATA, "%s: truncated checkpoint", path);
    if (len > CK_CFG_MAX)
        return rx__fail(rx__ctx_err(c), RX_EDATA, "%s: inconsistent header "
                        "(configuration of %u bytes)", path, len);
    char *then = malloc((size_t)len + 1), *now = NULL;
    if (!then)
        return rx__fail(rx__ctx_err(c), RX_ENOMEM, "%s: out of memory", path);
    get(r, then, len);
    then[len] = '\0';
    rx_status st = RX_OK;
    rx_err cerr = {""};
    if (r->bad)
        st = rx__fail(rx__ctx_err(c), RX_EDATA, "%s: truncated checkpoint", path);
    else if (rx__digest64(then, len) != dig || strlen(then) != len)
        st = rx__fail(rx__ctx_err(c), RX_EDATA, "%s: checksum mismatch (the file "
                      "is corrupt)", path);
    else if ((st = ckpt_canon(c, &now, &cerr)) != RX_OK)
        st = rx__fail(rx__ctx_err(c), st, "%s: %s", path, cerr.msg);
    else if (rx__digest64(now, strlen(now)) != dig) {
        char msg[800];
        int n = rx__config_canon_diff(then, now, msg, sizeof msg);
        st = rx__fail(rx__ctx_err(c), RX_ECONFIG, "%s: the configuration differs "
                      "from the interrupted run's in %d key%s: %s; a resume "
                      "continues the same configuration (only threads, sync, "
                      "balance, balance_noise, checkpoint.every and "
                      "record.phase_timing may change, and the data files "
                      "must hold what they held)", path, n,
                      n == 1 ? "" : "s", msg);
    }
    free(then);
    free(now);
    return st;
}

#define CK_FAIL(...)                                                         \
    do {                                                                     \
        st = rx__fail(rx__ctx_err(c), RX_EDATA, __VA_ARGS__);                \
        goto out;                                                            \
    } while (0)

/* On failure the context's recorders may be half restored: destroy it. */
rx_status rx_checkpoint_resume(rx_ctx *c, const char *path)
{
    if (!c)
        return RX_EINVAL;
    if (!path || !path[0])
        return rx__fail(rx__ctx_err(c), RX_EINVAL, "rx_checkpoint_resume: "
                        "the path is %s", path ? "empty" : "NULL");
    if (rx__ctx_ran(c))
        return rx__fail(rx__ctx_err(c), RX_EINVAL, "rx_checkpoint_resume: "
                        "this context has already run");
    ckio r = {fopen(path, "rb"), crc32(0L, Z_NULL, 0), 0};
    if (!r.f)
        return rx__fail(rx__ctx_err(c), RX_EIO, "%s: cannot open: %s", path,
                        strerror(errno));
    rx_status st = RX_OK;
    ckhdr h, want;
    char diff[768];
    rx__ckident run, file; /* this run's limits; the file's blocks */
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
    if ((st = check_config(c, path, &r)) != RX_OK)
        goto out;
    if (h.k < 1 || h.k >= h.K) /* before fill_hdr: its row count uses k */
        CK_FAIL("%s: inconsistent header (iteration %lld of %lld)", path,
                (long long)h.k, (long long)h.K);
    fill_hdr(c, h.k, &want);
    rx__state_ident(c, h.k, &run);
    want.n_index = h.n_index;
    want.n_trace = h.n_trace;
    if (header_diff(&h, &want, diff, sizeof diff))
        CK_FAIL("%s: written by a different run: %s", path, diff);
    if (h.k < 1 || h.k >= h.K || h.n_index < 0 ||
        h.n_index > run.cap_index || h.n_trace < 0 ||
        h.n_trace > run.cap_trace)
        CK_FAIL("%s: inconsistent header (iteration %lld of %lld)", path,
                (long long)h.k, (long long)h.K);
    hdr_ident(&h, &file);
    if (rx__state_load(c, &file, get_cb, &r) != RX_OK) {
        st = rx__fail(rx__ctx_err(c), RX_ENOMEM, "%s: out of memory", path);
        goto out;
    }
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
    const char *wrong = rx__state_check(c, h.k);
    if (wrong)
        CK_FAIL("%s: inconsistent checkpoint: %s", path, wrong);
    const int bad = rx__state_resume(c, &file);
    if (bad == h.P) { /* the bias states: the row's message */
        char why[sizeof rx__ctx_err(c)->msg];
        snprintf(why, sizeof why, "%s", rx__ctx_err(c)->msg);
        CK_FAIL("%s: the bias state: %s", path, why);
    }
    if (bad >= 0)
        CK_FAIL("%s: particle %d has an invalid position", path, bad);
out:
    fclose(r.f);
    return st;
}
