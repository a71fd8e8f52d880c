/*
 * inference.nc: the kept samples of one or more finished runs as ArviZ
 * InferenceData, a netCDF-4 file with one group per InferenceData group,
 * written through libnetcdf (a real netCDF-4/HDF5 file that xarray,
 * netCDF4 and ArviZ read). Run i is chain i. The runs are read through
 * the engine's view (state.h); the values are those of the run directory's
 * .npy files: theta = samples.npy's target rows (float32), lp = -U of each
 * of them, log_weight = weights.npy's target rows (float64).
 */
#include <errno.h>
#include <netcdf.h>
#include <netcdf_mem.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../engine/state.h"
#include "../target/target.h"
#include "inference.h"

/* The file being written. The first failure keeps its message and status;
 * every later step sees st != RX_OK and does nothing. */
typedef struct ncw {
    int id;            /* the file's ncid */
    const char *path;  /* the final path, named in messages */
    rx_err *err;
    rx_status st;
} ncw;

/* The runs as the file sees them (all agree: check_runs). */
typedef struct ncruns {
    int n;
    rx__runview *v;    /* n views */
    int64_t S;         /* draws: target rows per run */
    int64_t per;       /* samples rows per kept iteration (all_positions) */
    size_t d;          /* theta's length */
    int P;             /* chains of each run (pairs P - 1) */
    int weights;       /* log-weights (bias) */
    int64_t rows;      /* test rows of a network's prediction, else 0 */
    int nout;          /* outputs per test row */
} ncruns;

/* rc of a netCDF call on group/name: 1 when it and every call before it
 * succeeded; else the message "path: group/name: nc_strerror". */
static int ok(ncw *w, int rc, const char *grp, const char *name)
{
    if (rc != NC_NOERR && w->st == RX_OK)
        w->st = rx__fail(w->err, RX_EIO, "%s: %s%s%s: %s", w->path, grp,
                         name[0] ? "/" : "", name, nc_strerror(rc));
    return w->st == RX_OK;
}

static int nomem(ncw *w, const char *grp, const char *name)
{
    if (w->st == RX_OK)
        w->st = rx__fail(w->err, RX_ENOMEM, "%s: %s/%s: out of memory",
                         w->path, grp, name);
    return 0;
}

static int put_text(ncw *w, int gid, const char *grp, const char *var,
                    int vid, const char *key, const char *text)
{
    return ok(w, nc_put_att_text(gid, vid, key, strlen(text), text), grp,
              var[0] ? var : key);
}

/*
 * A group (or, name NULL, the root) with the attributes ArviZ gives each
 * group, inference_library and inference_library_version, but not
 * created_at: the file is a function of (config, seed) only, bit for bit
 * (HDF5 checksums the attribute's header too, so a date would change more
 * than its own bytes). ArviZ reads a group without it.
 */
static int group(ncw *w, const char *name, int *gid)
{
    if (w->st != RX_OK)
        return 0;
    if (!name)
        *gid = w->id;
    else if (!ok(w, nc_def_grp(w->id, name, gid), name, ""))
        return 0;
    const char *g = name ? name : "/";
    return put_text(w, *gid, g, "", NC_GLOBAL, "inference_library",
                    "replex") &&
           put_text(w, *gid, g, "", NC_GLOBAL, "inference_library_version",
                    RX_VERSION_STRING);
}

/* Variable vid stored in chunks with the shuffle filter and deflate level
 * 1: the integer coordinates (draw, iteration: arithmetic sequences of
 * int64) then take a few bytes per thousand draws instead of 8 per draw
 * each, and the float data shrink somewhat; plain zlib, which every
 * netCDF-4 / HDF5 reader has. The file stays a function of the draws. */
static int squeeze(ncw *w, int gid, const char *grp, const char *name,
                   int vid)
{
    return ok(w, nc_def_var_deflate(gid, vid, 1, 1, 1), grp, name);
}

/* A dimension of len and its coordinate variable of the same name, with
 * the values v0, v0 + step, ... (a dimension of length 0 is netCDF's
 * unlimited one, holding no records). */
static int coord(ncw *w, int gid, const char *grp, const char *name,
                 int64_t len, int64_t v0, int64_t step, int *dimid)
{
    int vid;
    if (w->st != RX_OK ||
        !ok(w, nc_def_dim(gid, name, (size_t)len, dimid), grp, name) ||
        !ok(w, nc_def_var(gid, name, NC_INT64, 1, dimid, &vid), grp, name) ||
        (len > 0 && !squeeze(w, gid, grp, name, vid)))
        return 0;
    if (len == 0)
        return 1;
    long long *x = malloc(sizeof *x * (size_t)len);
    if (!x)
        return nomem(w, grp, name);
    for (int64_t i = 0; i < len; ++i)
        x[i] = (long long)(v0 + i * step);
    int r = ok(w, nc_put_var_longlong(gid, vid, x), grp, name);
    free(x);
    return r;
}

/* The iteration of each draw, a coordinate along draw that is not a
 * dimension (variables over draw name it in their "coordinates"). */
static int iteration(ncw *w, int gid, const char *grp, int draw,
                     const ncruns *R)
{
    const rx_config *cfg = R->v[0].cfg;
    int vid;
    if (w->st != RX_OK ||
        !ok(w, nc_def_var(gid, "iteration", NC_INT64, 1, &draw, &vid), grp,
            "iteration") ||
        (R->S > 0 && !squeeze(w, gid, grp, "iteration", vid)) ||
        !put_text(w, gid, grp, "iteration", vid, "long_name",
                  "iteration (0-based) after which the draw was kept"))
        return 0;
    if (R->S == 0)
        return 1;
    long long *x = malloc(sizeof *x * (size_t)R->S);
    if (!x)
        return nomem(w, grp, "iteration");
    for (int64_t r = 0; r < R->S; ++r)
        x[r] = (long long)(cfg->record.burn_in + r * cfg->record.thin);
    int rc = ok(w, nc_put_var_longlong(gid, vid, x), grp, "iteration");
    free(x);
    return rc;
}

/* A variable of type over nd dimensions, with its long_name (and the
 * draw coordinate iteration where it runs over draws). */
static int var(ncw *w, int gid, const char *grp, const char *name,
               nc_type type, int nd, const int *dims, int over_draws,
               const char *long_name, int *vid)
{
    return w->st == RX_OK &&
           ok(w, nc_def_var(gid, name, type, nd, dims, vid), grp, name) &&
           (!over_draws || squeeze(w, gid, grp, name, *vid)) &&
           put_text(w, gid, grp, name, *vid, "long_name", long_name) &&
           (!over_draws ||
            put_text(w, gid, grp, name, *vid, "coordinates", "iteration"));
}

/* posterior: theta (chain, draw, theta_dim_0), float32 as samples.npy. */
static void posterior(ncw *w, const ncruns *R)
{
    const char *g = "posterior";
    int gid, dims[3], vid;
    if (!group(w, g, &gid) ||
        !coord(w, gid, g, "chain", R->n, 0, 1, &dims[0]) ||
        !coord(w, gid, g, "draw", R->S, 0, 1, &dims[1]) ||
        !coord(w, gid, g, "theta_dim_0", (int64_t)R->d, 0, 1, &dims[2]) ||
        !iteration(w, gid, g, dims[1], R) ||
        !var(w, gid, g, "theta", NC_FLOAT, 3, dims, 1,
             "the target chain's position (samples.npy)", &vid))
        return;
    if (R->S == 0 || R->d == 0)
        return;
    float *buf = R->per > 1 ? malloc(sizeof(float) * (size_t)R->S * R->d)
                            : NULL;
    if (R->per > 1 && !buf) {
        nomem(w, g, "theta");
        return;
    }
    for (int i = 0; i < R->n && w->st == RX_OK; ++i) {
        const float *x = R->v[i].res.samples;
        if (buf) {
            for (int64_t r = 0; r < R->S; ++r)
                memcpy(buf + (size_t)r * R->d,
                       x + (size_t)(r * R->per) * R->d,
                       sizeof(float) * R->d);
            x = buf;
        }
        const size_t start[3] = {(size_t)i, 0, 0};
        const size_t count[3] = {1, (size_t)R->S, R->d};
        ok(w, nc_put_vara_float(gid, vid, start, count, x), g, "theta");
    }
    free(buf);
}

/* One value per draw of run i into vid: sign * x[r * per], r < S. */
static void put_draws(ncw *w, int gid, const char *g, const char *name,
                      int vid, const ncruns *R, int i, const double *x,
                      double sign, double *buf)
{
    for (int64_t r = 0; r < R->S; ++r)
        buf[r] = sign * x[r * R->per];
    const size_t start[2] = {(size_t)i, 0};
    const size_t count[2] = {1, (size_t)R->S};
    ok(w, nc_put_vara_double(gid, vid, start, count, buf), g, name);
}

/* lp of run i on the reference path, where the run's energy at the target
 * is U_like = U - U_ref (what the swaps and log Z use): the log target
 * density -U = -(U_like + U_ref), U_ref the reference's -log density at
 * the draw. */
static void put_lp_reference(ncw *w, int gid, const char *g, int vid,
                             const ncruns *R, int i, double *buf)
{
    const rx__runview *v = &R->v[i];
    double *th = malloc(sizeof(double) * (R->d ? R->d : 1));
    if (!th) {
        nomem(w, g, "lp");
        return;
    }
    for (int64_t r = 0; r < R->S && w->st == RX_OK; ++r) {
        const float *x = v->res.samples + (size_t)(r * R->per) * R->d;
        for (size_t j = 0; j < R->d; ++j)
            th[j] = x[j];
        double u0 = 0.0;
        if (rx__target_ref(v->target, th, &u0, NULL) != RX_OK) {
            w->st = rx__fail(w->err, RX_ENUMERIC, "%s: %s/lp: the "
                             "reference density fails at draw %lld of run "
                             "%d", w->path, g, (long long)r, i);
            break;
        }
        buf[r] = -(v->energy[r * R->per] + u0);
    }
    free(th);
    if (w->st != RX_OK)
        return;
    const size_t start[2] = {(size_t)i, 0};
    const size_t count[2] = {1, (size_t)R->S};
    ok(w, nc_put_vara_double(gid, vid, start, count, buf), g, "lp");
}

/* The per-pair swap figures of summary.json's swaps.per_pair: the mean
 * acceptance probability of the evaluated swaps and swaps per iteration,
 * (chain, pair), run i's into row i. */
static void put_pairs(ncw *w, int gid, const char *g, int vacc, int vrate,
                      const ncruns *R)
{
    const int np = R->P - 1;
    double *a = malloc(sizeof(double) * (size_t)R->n * (size_t)np);
    double *s = malloc(sizeof(double) * (size_t)R->n * (size_t)np);
    if (!a || !s) {
        nomem(w, g, "swap_accept_prob");
    } else {
        for (int i = 0; i < R->n; ++i)
            for (int p = 0; p < np; ++p) {
                const rx_pair_stats *q = &R->v[i].res.pairs[p];
                const int64_t K = R->v[i].res.iterations;
                a[i * np + p] =
                    q->accept_sum /
                    (q->evaluated ? (double)q->evaluated : 1.0);
                s[i * np + p] = K ? (double)q->swaps / (double)K : 0.0;
            }
        if (ok(w, nc_put_var_double(gid, vacc, a), g, "swap_accept_prob"))
            ok(w, nc_put_var_double(gid, vrate, s), g, "swap_rate");
    }
    free(a);
    free(s);
}

/* sample_stats: lp = -U (chain, draw), log_weight (chain, draw) with a
 * bias, swap_accept_prob and swap_rate (chain, pair) with P > 1. */
static void sample_stats(ncw *w, const ncruns *R)
{
    const char *g = "sample_stats";
    int gid, dims[2], pd[2], vlp, vlw = -1, vacc = -1, vrate = -1;
    if (!group(w, g, &gid) ||
        !coord(w, gid, g, "chain", R->n, 0, 1, &dims[0]) ||
        !coord(w, gid, g, "draw", R->S, 0, 1, &dims[1]) ||
        !iteration(w, gid, g, dims[1], R) ||
        !var(w, gid, g, "lp", NC_DOUBLE, 2, dims, 1,
             "log density up to a constant: -U, the energy the run computed "
             "at the draw (a minibatch estimate on data targets)",
             &vlp) ||
        (R->weights &&
         !var(w, gid, g, "log_weight", NC_DOUBLE, 2, dims, 1,
              "importance log-weight of the draw (weights.npy)", &vlw)))
        return;
    pd[0] = dims[0];
    if (R->P > 1 &&
        (!coord(w, gid, g, "pair", R->P - 1, 1, 1, &pd[1]) ||
         !var(w, gid, g, "swap_accept_prob", NC_DOUBLE, 2, pd, 0,
              "mean acceptance probability of the swaps of positions "
              "(pair, pair + 1)",
              &vacc) ||
         !var(w, gid, g, "swap_rate", NC_DOUBLE, 2, pd, 0,
              "executed swaps of positions (pair, pair + 1) per iteration",
              &vrate)))
        return;
    if (R->P > 1)
        put_pairs(w, gid, g, vacc, vrate, R);
    if (R->S == 0 || w->st != RX_OK)
        return;
    double *buf = malloc(sizeof(double) * (size_t)R->S);
    if (!buf) {
        nomem(w, g, "lp");
        return;
    }
    for (int i = 0; i < R->n && w->st == RX_OK; ++i) {
        if (R->v[i].cfg->ladder.path == RX_PATH_REFERENCE) {
            put_lp_reference(w, gid, g, vlp, R, i, buf);
            continue;
        }
        put_draws(w, gid, g, "lp", vlp, R, i, R->v[i].energy, -1.0, buf);
        if (R->weights)
            put_draws(w, gid, g, "log_weight", vlw, R, i,
                      R->v[i].res.log_weights, 1.0, buf);
    }
    free(buf);
}

/*
 * A network's test set: observed_data y (y_dim_0) holds the targets the
 * evaluation scores (regression in original units, classification the
 * labels), posterior_predictive y_mean the predictive mean of each run's
 * draws (chain, y_dim_0, regression: the mean output; classification:
 * (chain, y_dim_0, class) the class probabilities). Per-draw predictions
 * are not kept (draws x rows x classes), so y_mean has no draw dimension.
 */
static void predictive(ncw *w, const ncruns *R)
{
    const char *g = "observed_data";
    int gid, dy, vid;
    double *y = malloc(sizeof(double) * (size_t)R->rows);
    if (!y) {
        nomem(w, g, "y");
        return;
    }
    const int classify = rx__network_test_y(R->v[0].target, y);
    if (group(w, g, &gid) &&
        coord(w, gid, g, "y_dim_0", R->rows, 0, 1, &dy) &&
        var(w, gid, g, "y", NC_DOUBLE, 1, &dy, 0,
            classify ? "test-set labels"
                     : "test-set targets in original units",
            &vid))
        ok(w, nc_put_var_double(gid, vid, y), g, "y");
    free(y);
    g = "posterior_predictive";
    int dims[3];
    const int nd = classify ? 3 : 2;
    if (!group(w, g, &gid) ||
        !coord(w, gid, g, "chain", R->n, 0, 1, &dims[0]) ||
        !coord(w, gid, g, "y_dim_0", R->rows, 0, 1, &dims[1]) ||
        (classify &&
         !coord(w, gid, g, "class", R->nout, 0, 1, &dims[2])) ||
        !var(w, gid, g, "y_mean", NC_DOUBLE, nd, dims, 0,
             classify ? "posterior-predictive class probabilities: the "
                        "mean over the chain's draws"
                      : "posterior-predictive mean: the mean over the "
                        "chain's draws",
             &vid))
        return;
    for (int i = 0; i < R->n && w->st == RX_OK; ++i) {
        const size_t start[3] = {(size_t)i, 0, 0};
        const size_t count[3] = {1, (size_t)R->rows, (size_t)R->nout};
        ok(w, nc_put_vara_double(gid, vid, start, count, R->v[i].pred_mean),
           g, "y_mean");
    }
}

/* The runs' views into R, checked to fit one file (RX_EINVAL, the
 * message in err, where they do not). */
static rx_status check_runs(const rx_ctx *const *runs, int n, ncruns *R,
                            const char *path, rx_err *err)
{
    memset(R, 0, sizeof *R);
    if (!runs || n < 1)
        return rx__fail(err, RX_EINVAL, "%s: no runs to write", path);
    R->v = calloc((size_t)n, sizeof *R->v);
    if (!R->v)
        return rx__fail(err, RX_ENOMEM, "%s: out of memory", path);
    R->n = n;
    for (int i = 0; i < n; ++i) {
        rx__run_view(runs[i], &R->v[i]);
        const rx__runview *v = &R->v[i];
        const int64_t per = v->cfg->record.all_positions ? v->res.n_chains
                                                         : 1;
        const int64_t S = v->res.samples ? v->res.n_samples / per : 0;
        const int64_t rows =
            v->pred_mean ? rx__network_rows(v->target, 0) : 0;
        const int nout = v->pred_mean ? rx__network_nout(v->target) : 0;
        if (i == 0) {
            R->S = S;
            R->per = per;
            R->d = v->res.dim;
            R->P = v->res.n_chains;
            R->weights = v->res.log_weights != NULL;
            R->rows = rows;
            R->nout = nout;
        }
        if (S != R->S || v->res.dim != R->d || v->res.n_chains != R->P ||
            (v->res.log_weights != NULL) != R->weights || rows != R->rows ||
            nout != R->nout)
            return rx__fail(err, RX_EINVAL,
                            "%s: run %d does not match run 0 (draws %lld "
                            "vs %lld, dimension %zu vs %zu, chains %d vs "
                            "%d, or weights or predictions): one file "
                            "holds runs of one configuration",
                            path, i, (long long)S, (long long)R->S,
                            v->res.dim, R->d, v->res.n_chains, R->P);
        if (S > 0 && !v->energy)
            return rx__fail(err, RX_EINVAL, "%s: run %d has no energies",
                            path, i);
    }
    return RX_OK;
}

/* Where the HDF5 file in image (size bytes) ends: base address plus
 * end-of-file address of its superblock (versions 0 to 3). The in-memory
 * driver hands back its whole buffer, which grows in 64 KiB steps; the
 * bytes past the end are not part of the file. size when the superblock
 * is not one read here. */
static size_t hdf5_end(const unsigned char *image, size_t size)
{
    static const unsigned char SIG[8] = {0x89, 'H', 'D', 'F',
                                         '\r', '\n', 0x1a, '\n'};
    if (size < 48 || memcmp(image, SIG, 8) != 0)
        return size;
    const int ver = image[8];
    const size_t o = ver <= 1 ? image[13] : image[9];
    const size_t at = ver == 0 ? 24 : ver == 1 ? 28 : ver <= 3 ? 12 : 0;
    if (!at || o != 8 || at + 3 * o > size)
        return size;
    uint64_t base = 0, eof = 0;
    for (int i = 7; i >= 0; --i) {
        base = base << 8 | image[at + (size_t)i];
        eof = eof << 8 | image[at + 2 * o + (size_t)i];
    }
    return eof <= size && base <= size - eof ? (size_t)(base + eof) : size;
}

/* The file image (size bytes) to tmp: RX_OK, or RX_EIO naming path with
 * the reason (errno of the write, the flush or the close). */
static rx_status write_image(const char *tmp, const char *path,
                             const void *image, size_t size, rx_err *err)
{
    FILE *f = fopen(tmp, "wb");
    if (!f)
        return rx__fail(err, RX_EIO, "%s: cannot create: %s (%s)", path,
                        strerror(errno), tmp);
    int bad = size && fwrite(image, 1, size, f) != size;
    int e = errno;
    if (fflush(f) != 0 && !bad) {
        bad = 1;
        e = errno;
    }
    if (fclose(f) != 0 && !bad) {
        bad = 1;
        e = errno;
    }
    if (bad)
        return rx__fail(err, RX_EIO, "%s: cannot write (%zu bytes): %s",
                        path, size, strerror(e));
    return RX_OK;
}

rx_status rx__write_inference(const rx_ctx *const *runs, int n,
                              const char *path, rx_err *err)
{
    ncruns R;
    rx_status st = check_runs(runs, n, &R, path, err);
    if (st != RX_OK) {
        free(R.v);
        return st;
    }
    size_t L = strlen(path) + 8;
    char *tmp = malloc(L);
    if (!tmp) {
        free(R.v);
        return rx__fail(err, RX_ENOMEM, "%s: out of memory", path);
    }
    snprintf(tmp, L, "%s.tmp", path);
    ncw w = {0, path, err, RX_OK};
    /* Built in memory, then written with plain writes: HDF5 on a file
     * it cannot write (a full disk, a file-size limit) says only "HDF
     * error" and keeps the file open, and its exit handler then crashes
     * on it. A failed write here is an ordinary one, with its reason. */
    size_t guess = 65536 + R.d * (size_t)R.n * (size_t)R.S * sizeof(float) +
                   2 * sizeof(double) * (size_t)R.n * (size_t)R.S;
    NC_memio mem = {0, NULL, 0};
    if (ok(&w, nc_create_mem(tmp, NC_NETCDF4, guess, &w.id),
           "cannot create", "")) {
        int root;
        group(&w, NULL, &root);
        posterior(&w, &R);
        sample_stats(&w, &R);
        if (R.rows > 0)
            predictive(&w, &R);
        ok(&w, nc_close_memio(w.id, &mem), "closing the file", "");
    }
    if (w.st == RX_OK)
        w.st = write_image(tmp, path, mem.memory,
                           hdf5_end(mem.memory, mem.size), err);
    free(mem.memory);
    if (w.st == RX_OK && rename(tmp, path) != 0)
        w.st = rx__fail(err, RX_EIO, "%s: cannot rename %s to it: %s", path,
                        tmp, strerror(errno));
    if (w.st != RX_OK)
        remove(tmp);
    free(tmp);
    free(R.v);
    return w.st;
}
