/*
 * The run directory's bias outputs (bias.kind other than none): the
 * summary's "bias" block, weights.npy (the samples' log-weights, float64,
 * one per row of samples.npy) and samples_resampled.npy (the target
 * position's weighted samples resampled into an unweighted set,
 * residual-stochastic rounding, csgld.md 2.5, from the run's seed: the
 * same file for the same (config, seed)).
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../bias/bias.h"
#include "../engine/state.h"
#include "../record/diag.h"
#include "json.h"
#include "rundir_bias.h"

/* The target position's rows of the samples: rows r * per, r < n. */
typedef struct tgt_rows {
    int64_t n, per;
    const float *x;     /* samples, rows of dim */
    const double *logw; /* log-weights, one per row */
    size_t dim;
} tgt_rows;

static int tgt_get(const rx_ctx *c, tgt_rows *t)
{
    rx_results r;
    if (rx_get_results(c, &r) != RX_OK || !r.log_weights || !r.samples)
        return 0;
    const rx_config *cfg = rx__ctx_cfg(c);
    t->per = cfg->record.all_positions ? r.n_chains : 1;
    t->n = r.n_samples / t->per;
    t->x = r.samples;
    t->logw = r.log_weights;
    t->dim = r.dim;
    return t->n > 0;
}

/* The target rows' log-weights, contiguous (malloc'd), or NULL. */
static double *tgt_logw(const tgt_rows *t)
{
    double *w = malloc(sizeof(double) * (size_t)t->n);
    for (int64_t i = 0; w && i < t->n; ++i)
        w[i] = t->logw[i * t->per];
    return w;
}

double *rx__sample_weights(const rx_ctx *c)
{
    rx_results r;
    if (rx_get_results(c, &r) != RX_OK || !r.log_weights || !r.samples ||
        r.n_samples <= 0)
        return NULL;
    double mx = -INFINITY;
    for (int64_t i = 0; i < r.n_samples; ++i)
        mx = r.log_weights[i] > mx ? r.log_weights[i] : mx;
    if (!isfinite(mx))
        return NULL;
    double *w = malloc(sizeof(double) * (size_t)r.n_samples);
    for (int64_t i = 0; w && i < r.n_samples; ++i)
        w[i] = exp(r.log_weights[i] - mx);
    return w;
}

int rx__density_tv_weighted(const rx_ctx *c, double *tv)
{
    double *w = rx__sample_weights(c);
    if (!w)
        return 0;
    rx__runview v;
    rx__run_view(c, &v);
    const rx__diag_in in = {v.target, v.cfg, v.res.samples, v.res.n_samples,
                            v.res.dim};
    int ok = rx__density_tv_w(&in, w, tv) == RX_OK;
    free(w);
    return ok;
}

int rx__target_weights_ess(const rx_ctx *c, double *ess, int64_t *n)
{
    tgt_rows t;
    if (!tgt_get(c, &t))
        return 0;
    double *w = tgt_logw(&t);
    *ess = w ? rx__weights_ess(w, t.n) : 0.0;
    *n = t.n;
    free(w);
    return 1;
}

/* Copies of each target row under residual-stochastic resampling with the
 * run's seed (malloc'd, n entries), *M their sum; NULL when the weights
 * cannot be resampled (all zero) or no memory. */
static int64_t *resample(const rx_ctx *c, const tgt_rows *t, int64_t *M,
                         double *ess)
{
    double *w = tgt_logw(t);
    int64_t *copies = malloc(sizeof(int64_t) * (size_t)t->n);
    rx__stream s;
    rx__stream_init(&s, rx__ctx_cfg(c)->seed, 0, RX_STREAM_RESAMPLE, 0);
    if (!w || !copies ||
        rx__resample_residual(w, t->n, &s, copies, ess, NULL) != RX_OK) {
        free(w);
        free(copies);
        return NULL;
    }
    free(w);
    *M = 0;
    for (int64_t i = 0; i < t->n; ++i)
        *M += copies[i];
    return copies;
}

/* One position's state: SA updates, the visited bins and their theta. */
static void summary_state(FILE *f, const rx__bias *b, int s)
{
    const double *curve, *visits;
    int64_t updates;
    b->type->view(&b->par, rx__bias_state(b, s), &curve, &visits, &updates);
    const int m = b->par.bins;
    int lo = -1, hi = -1, nv = 0;
    for (int j = 0; j < m; ++j)
        if (visits[j] > 0.0) {
            lo = lo < 0 ? j : lo;
            hi = j;
            nv++;
        }
    fprintf(f, "{\"updates\": %lld, \"bins_visited\": %d, "
            "\"visited_range\": [%d, %d]",
            (long long)updates, nv, lo, hi);
    if (lo >= 0 && hi - lo < 1000) { /* log theta over the visited range */
        double *lt = malloc(sizeof(double) * (size_t)(hi - lo + 1));
        for (int j = lo; lt && j <= hi; ++j)
            lt[j - lo] = log(curve[j]);
        if (lt) {
            fputs(", ", f);
            rx__json_kvec(f, "log_theta_visited", lt, hi - lo + 1);
        }
        free(lt);
    }
    fputs("}", f);
}

void rx__summary_bias(FILE *f, rx_ctx *c)
{
    const rx__bias *b = rx__ctx_bias(c);
    if (!b->type)
        return;
    fprintf(f, "  \"bias\": {\"kind\": ");
    rx__json_str(f, b->type->row.name);
    fprintf(f, ", \"bins\": %d, ", b->par.bins);
    rx__json_kv(f, "energy_min", b->par.energy_min);
    fputs(", ", f);
    rx__json_kv(f, "bin_width", b->par.bin_width);
    fputs(", ", f);
    rx__json_kv(f, "zeta", b->par.zeta);
    fprintf(f, ",\n    \"states\": [");
    for (int s = 0; s < b->n; ++s) {
        fputs(s ? ",\n      " : "", f);
        summary_state(f, b, s);
    }
    fprintf(f, "]");
    tgt_rows t;
    if (tgt_get(c, &t)) {
        double *w = tgt_logw(&t);
        double ess = w ? rx__weights_ess(w, t.n) : 0.0;
        fprintf(f, ",\n    \"weights\": {\"file\": \"weights.npy\", "
                "\"target_rows\": %lld, ",
                (long long)t.n);
        rx__json_kv(f, "ess", ess);
        fputs(", ", f);
        rx__json_kv(f, "ess_fraction", ess / (double)t.n);
        fputs("}", f);
        /* the weighted mean of the target's samples */
        double mx = -INFINITY;
        for (int64_t i = 0; w && i < t.n; ++i)
            mx = fmax(mx, w[i]);
        if (w && t.dim > 0 && t.dim <= 64 && isfinite(mx)) {
            double mean[64] = {0}, sw = 0.0;
            for (int64_t i = 0; i < t.n; ++i) {
                const double wi = exp(w[i] - mx);
                sw += wi;
                for (size_t j = 0; j < t.dim; ++j)
                    mean[j] += wi * t.x[(size_t)(i * t.per) * t.dim + j];
            }
            for (size_t j = 0; j < t.dim; ++j)
                mean[j] /= sw;
            fputs(", ", f);
            rx__json_kvec(f, "weighted_mean", mean, (int)t.dim);
        }
        free(w);
        int64_t M = 0;
        double e2;
        int64_t *cp = rx__ctx_cfg(c)->bias.resample
                          ? resample(c, &t, &M, &e2)
                          : NULL;
        if (cp)
            fprintf(f, ",\n    \"resampled\": {\"file\": "
                    "\"samples_resampled.npy\", \"scheme\": "
                    "\"residual\", \"rows\": %lld}",
                    (long long)M);
        free(cp);
    }
    fprintf(f, "},\n");
}

/* .npy v1.0 with the shape text `shape` ("(12,)", "(3, 2)"). */
static int npy_write(const char *path, const char *descr, const char *shape,
                     const void *data, size_t esize, size_t n)
{
    FILE *f = fopen(path, "wb");
    if (!f)
        return -1;
    char dict[160];
    int len = snprintf(dict, sizeof dict,
                       "{'descr': '%s', 'fortran_order': False, 'shape': "
                       "%s, }",
                       descr, shape);
    size_t total = 10 + (size_t)len + 1;
    size_t pad = (64 - total % 64) % 64;
    size_t hlen = (size_t)len + pad + 1;
    unsigned char pre[10] = {0x93, 'N', 'U', 'M', 'P', 'Y', 1, 0,
                             (unsigned char)(hlen & 0xff),
                             (unsigned char)(hlen >> 8)};
    int bad = fwrite(pre, 1, 10, f) != 10 ||
              fwrite(dict, 1, (size_t)len, f) != (size_t)len;
    for (size_t i = 0; i < pad && !bad; ++i)
        bad = fputc(' ', f) == EOF;
    bad = bad || fputc('\n', f) == EOF ||
          (n && fwrite(data, esize, n, f) != n);
    return (fclose(f) != 0 || bad) ? -1 : 0;
}

static rx_status io_err(rx_ctx *c, const char *path)
{
    return rx__fail(rx__ctx_err(c), RX_EIO, "%s: write failed: %s", path,
                    strerror(errno));
}

/* The resampled target rows as float32 rows into path. */
static rx_status write_resampled(rx_ctx *c, const tgt_rows *t,
                                 const char *path)
{
    int64_t M = 0;
    double ess;
    int64_t *cp = resample(c, t, &M, &ess);
    if (!cp)
        return RX_OK; /* every weight 0: no set (the summary says so) */
    float *out = malloc(sizeof(float) * (size_t)(M > 0 ? M : 1) * t->dim);
    if (!out) {
        free(cp);
        return rx__fail(rx__ctx_err(c), RX_ENOMEM,
                        "%s: out of memory for %lld rows", path,
                        (long long)M);
    }
    size_t r = 0;
    for (int64_t i = 0; i < t->n; ++i)
        for (int64_t u = 0; u < cp[i]; ++u, ++r)
            memcpy(out + r * t->dim, t->x + (size_t)(i * t->per) * t->dim,
                   sizeof(float) * t->dim);
    char shape[64];
    snprintf(shape, sizeof shape, "(%lld, %zu)", (long long)M, t->dim);
    int bad = npy_write(path, "<f4", shape, out, sizeof(float),
                        (size_t)M * t->dim);
    free(out);
    free(cp);
    return bad ? io_err(c, path) : RX_OK;
}

rx_status rx__rundir_bias_files(rx_ctx *c, const char *dir)
{
    const rx__bias *b = rx__ctx_bias(c);
    if (!b->type)
        return RX_OK;
    rx_results r;
    rx_get_results(c, &r);
    size_t L = strlen(dir) + 32;
    char *p = malloc(L);
    if (!p)
        return rx__fail(rx__ctx_err(c), RX_ENOMEM, "out of memory");
    snprintf(p, L, "%s/weights.npy", dir);
    char shape[32];
    const int64_t n = r.log_weights ? r.n_samples : 0;
    snprintf(shape, sizeof shape, "(%lld,)", (long long)n);
    rx_status st = npy_write(p, "<f8", shape, r.log_weights, sizeof(double),
                             (size_t)n)
                       ? io_err(c, p)
                       : RX_OK;
    tgt_rows t;
    if (st == RX_OK && rx__ctx_cfg(c)->bias.resample && tgt_get(c, &t)) {
        snprintf(p, L, "%s/samples_resampled.npy", dir);
        st = write_resampled(c, &t, p);
    }
    free(p);
    return st;
}
