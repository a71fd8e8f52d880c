/*
 * Defaults (straight from the schema's default texts), copy and free, the
 * resolved window, and located messages at a key path.
 */
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../core/internal.h"
#include "config.h"

/* ------------------------------------------------------------------------ */
/* Messages at a key path.                                                   */
/* ------------------------------------------------------------------------ */

/* Error at a key path, located through marks when available. */
rx_status rx__key_err(rx_err *err, const rx__marks *mk, const char *path,
                      const char *fmt, ...)
{
    if (err) {
        int w;
        int i = rx__key_index(path);
        int j = -1; /* a marked key of the same section, to point at */
        if (mk && i >= 0 && !mk->src[i]) {
            size_t sl = strcspn(path, ".");
            const int nk = rx__key_count();
            for (int t = 0; t < nk && t < RX__MAX_KEYS && j < 0; ++t)
                if (mk->src[t] &&
                    strncmp(rx__key_at(t)->path, path, sl) == 0 &&
                    rx__key_at(t)->path[sl] == '.')
                    j = t;
        }
        if (mk && i >= 0 && mk->src[i])
            w = snprintf(err->msg, sizeof err->msg, "%s:%d:%d: %s: ",
                         mk->src[i], mk->line[i], mk->col[i], path);
        else if (j >= 0)
            w = snprintf(err->msg, sizeof err->msg,
                         "%s:%d:%d: %s (not set): ", mk->src[j], mk->line[j],
                         mk->col[j], path);
        else if (mk && mk->file)
            w = snprintf(err->msg, sizeof err->msg, "%s: %s (not set): ",
                         mk->file, path);
        else
            w = snprintf(err->msg, sizeof err->msg, "%s: ", path);
        va_list ap;
        va_start(ap, fmt);
        rx__err_vappend(err, w, fmt, ap);
        va_end(ap);
    }
    return RX_ECONFIG;
}

void rx__key_where(const rx__marks *mk, const char *path, char *buf,
                   size_t cap)
{
    int i = rx__key_index(path);
    if (mk && i >= 0 && mk->src[i])
        snprintf(buf, cap, "%s:%d:%d: %s", mk->src[i], mk->line[i],
                 mk->col[i], path);
    else if (mk && mk->file)
        snprintf(buf, cap, "%s: %s", mk->file, path);
    else
        snprintf(buf, cap, "%s", path);
}

/* ------------------------------------------------------------------------ */
/* Defaults, copy, free.                                                     */
/* ------------------------------------------------------------------------ */

/* A number of a default text, or one of two words (their values given). */
static double default_real(const char *s, const char *w1, double v1,
                           const char *w2, double v2)
{
    if (w1 && strcmp(s, w1) == 0)
        return v1;
    if (w2 && strcmp(s, w2) == 0)
        return v2;
    return strtod(s, NULL);
}

void rx__key_default(rx_config *c, const rx__keydef *kd)
{
    char *base = (char *)c + kd->off;
    const char *s = kd->deflt;
    if (kd < rx__keys || kd >= rx__keys + rx__nkeys)
        return; /* a row's key: its default is the store's (rowkeys.c) */
    switch (kd->kind) {
    case K_U64:
        *(uint64_t *)(void *)base = strtoull(s, NULL, 10);
        break;
    case K_I64:
        *(int64_t *)(void *)base = strtoll(s, NULL, 10);
        break;
    case K_INT:
        *(int *)(void *)base = (int)strtol(s, NULL, 10);
        break;
    case K_REAL:
        *(double *)(void *)base = strtod(s, NULL);
        break;
    case K_BOOL:
        *(int *)(void *)base = strcmp(s, "true") == 0;
        break;
    case K_ENUM: {
        int e = rx__kd_find(kd, s);
        *(int *)(void *)base = e > 0 ? e : 0;
        break;
    }
    case K_WINDOW:
        *(int *)(void *)base = strcmp(s, "auto") == 0
                                   ? RX_WINDOW_AUTO
                                   : (int)strtol(s, NULL, 10);
        break;
    case K_WCORR:
        *(double *)(void *)base = default_real(s, "logW", RX_WCORR_LOGW,
                                               NULL, 0.0);
        break;
    case K_SIGMA2:
        *(double *)(void *)base = default_real(s, "auto", RX_SIGMA2_AUTO,
                                               "estimate",
                                               RX_SIGMA2_ESTIMATE);
        break;
    case K_COEF:
        *(double *)(void *)base = default_real(s, "adaptive", RX_VR_ADAPTIVE,
                                               NULL, 0.0);
        break;
    case K_LADDER: {
        /* a number (constant) or {min: a, max: b} (geometric) */
        rx_ladder_spec *L = (rx_ladder_spec *)(void *)base;
        free(L->values.v);
        memset(L, 0, sizeof *L);
        double a = 0.0, b = 0.0;
        if (sscanf(s, "{min: %lf, max: %lf}", &a, &b) == 2) {
            L->kind = RX_LADDER_GEOMETRIC;
            L->min = a;
            L->max = b;
        } else {
            L->kind = RX_LADDER_CONSTANT;
            L->min = L->max = strtod(s, NULL);
        }
        break;
    }
    case K_VEC: {
        rx_vec *v = (rx_vec *)(void *)base;
        free(v->v);
        memset(v, 0, sizeof *v);
        break;
    }
    case K_MAT: {
        rx_mat *m = (rx_mat *)(void *)base;
        free(m->v);
        memset(m, 0, sizeof *m);
        break;
    }
    case K_STR:
        base[0] = '\0'; /* every string key defaults to "" */
        break;
    case K_LAYERS:
        memset(base, 0, sizeof(rx__layer_list));
        break;
    }
}

void rx_config_default(rx_config *c)
{
    if (!c)
        return;
    memset(c, 0, sizeof *c);
    for (int i = 0; i < rx__nkeys; ++i)
        rx__key_default(c, &rx__keys[i]);
}

void rx_config_free(rx_config *c)
{
    if (!c)
        return;
    free(c->target.weights.v);
    free(c->target.means.v);
    free(c->target.scales.v);
    free(c->ladder.eta.values.v);
    free(c->ladder.tau.values.v);
    free(c->ladder.betas.v);
    free(c->data.classes.v);
    free(c->data.ood_classes.v);
    rx__store_free(c);
    rx_config_default(c);
}

static int dup_vec(rx_vec *d, const rx_vec *s)
{
    d->n = s->n;
    d->v = NULL;
    if (s->n > 0) {
        d->v = malloc(sizeof(double) * (size_t)s->n);
        if (!d->v)
            return -1;
        memcpy(d->v, s->v, sizeof(double) * (size_t)s->n);
    }
    return 0;
}

static int dup_mat(rx_mat *d, const rx_mat *s)
{
    rx_vec a = {s->v, s->rows * s->cols}, b;
    if (dup_vec(&b, &a))
        return -1;
    d->v = b.v;
    d->rows = s->rows;
    d->cols = s->cols;
    return 0;
}

rx_status rx_config_copy(rx_config *dst, const rx_config *src)
{
    if (!dst || !src)
        return RX_EINVAL;
    *dst = *src;
    dst->target.weights.v = dst->target.means.v = dst->target.scales.v = NULL;
    dst->ladder.eta.values.v = dst->ladder.tau.values.v = NULL;
    dst->ladder.betas.v = NULL;
    dst->data.classes.v = dst->data.ood_classes.v = NULL;
    dst->keys = NULL;
    if (dup_vec(&dst->target.weights, &src->target.weights) ||
        dup_mat(&dst->target.means, &src->target.means) ||
        dup_mat(&dst->target.scales, &src->target.scales) ||
        dup_vec(&dst->ladder.eta.values, &src->ladder.eta.values) ||
        dup_vec(&dst->ladder.tau.values, &src->ladder.tau.values) ||
        dup_vec(&dst->ladder.betas, &src->ladder.betas) ||
        dup_vec(&dst->data.classes, &src->data.classes) ||
        dup_vec(&dst->data.ood_classes, &src->data.ood_classes) ||
        rx__store_copy(dst, src) != RX_OK) {
        rx_config_free(dst);
        return RX_ENOMEM;
    }
    return RX_OK;
}


/* ------------------------------------------------------------------------ */
/* The window.                                                               */
/* ------------------------------------------------------------------------ */


int rx_optimal_window(int P, double S)
{
    if (P < 2 || !(S > 0.0) || !(S < 1.0))
        return 0;
    if (P <= 3)
        return 1;
    double lp = log((double)P);
    double w = ceil((lp + log(lp)) / (-log1p(-S)));
    if (!(w >= 1.0))
        return 1;
    return w > 1e9 ? 1000000000 : (int)w;
}

int rx__window_off(int P, int W, double r)
{
    if (W < 1 || !(r > 0.0))
        return 0;
    const int w = r >= 1.0 ? 1 : rx_optimal_window(P, r);
    if (w < 1 || (w < 2 * (long long)W && W < 2 * (long long)w))
        return 0;
    return w;
}

int rx_config_window(const rx_config *c)
{
    if (!c)
        return 0;
    switch (c->tempering.scheme) {
    case RX_SCHEME_DEO_W:
        if (c->tempering.window != RX_WINDOW_AUTO)
            return c->tempering.window;
        /* fallthrough */
    case RX_SCHEME_DEO_STAR:
        return rx_optimal_window(c->tempering.n_chains,
                                 c->tempering.target_swap_rate);
    default:
        return 1;
    }
}
