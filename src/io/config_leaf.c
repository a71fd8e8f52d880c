/*
 * One leaf of the schema: a tree node -> the field of rx_config its row
 * names, with the row's type and range; messages at the node.
 */
#define _POSIX_C_SOURCE 200809L
#include <errno.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../core/internal.h"
#include "../core/num.h"
#include "yaml.h"

static rx_status get_real(const ynode *n, const char *path, double *out,
                          rx_err *err)
{
    if (n->type != YN_SCALAR || n->quoted || rx__ynode_null(n))
        return rx__node_err(err, n, path, "expected a number, got %s",
                        rx__ynode_null(n) ? "null" : rx__ynode_type(n));
    const char *s = n->str;
    if (strcmp(s, ".inf") == 0 || strcmp(s, "-.inf") == 0 ||
        strcmp(s, ".nan") == 0)
        return rx__node_err(err, n, path, "expected a finite number, got '%s'",
                        s);
    char *end;
    errno = 0;
    double v = strtod(s, &end);
    if (end == s || *end != '\0')
        return rx__node_err(err, n, path, "expected a number, got '%s'", s);
    if (errno == ERANGE || !isfinite(v))
        return rx__node_err(err, n, path, "number '%s' is out of range", s);
    *out = v;
    return RX_OK;
}

static rx_status get_int(const ynode *n, const char *path, int64_t *out,
                         rx_err *err)
{
    if (n->type != YN_SCALAR || n->quoted || rx__ynode_null(n))
        return rx__node_err(err, n, path, "expected an integer, got %s",
                        rx__ynode_null(n) ? "null" : rx__ynode_type(n));
    const char *s = n->str;
    char *end;
    errno = 0;
    long long v = strtoll(s, &end, 10);
    if (end == s || *end != '\0') {
        /* accept integral reals written like 1e5 */
        double d = strtod(s, &end);
        if (end != s && *end == '\0' && isfinite(d) && d == floor(d) &&
            fabs(d) < 9e15) {
            *out = (int64_t)d;
            return RX_OK;
        }
        return rx__node_err(err, n, path, "expected an integer, got '%s'", s);
    }
    if (errno == ERANGE)
        return rx__node_err(err, n, path, "integer '%s' is out of range", s);
    *out = v;
    return RX_OK;
}

/* Shortest text that reads back as v (integers without exponent). */
static const char *fmt_num(double v, char *buf, size_t cap)
{
    if (v == floor(v) && fabs(v) < 1e16) {
        snprintf(buf, cap, "%.0f", v);
        return buf;
    }
    for (int prec = 1; prec <= 17; ++prec) {
        snprintf(buf, cap, "%.*g", prec, v);
        if (strtod(buf, NULL) == v)
            break;
    }
    return buf;
}

static rx_status check_range(const ynode *n, const rx__keydef *kd, double v,
                             rx_err *err)
{
    int bad = (kd->lo_open ? v <= kd->lo : v < kd->lo) ||
              (kd->hi_open ? v >= kd->hi : v > kd->hi);
    if (!bad)
        return RX_OK;
    char lo[40], hi[40], vs[40];
    fmt_num(kd->lo, lo, sizeof lo);
    fmt_num(kd->hi, hi, sizeof hi);
    fmt_num(v, vs, sizeof vs);
    if (isinf(kd->hi))
        return rx__node_err(err, n, kd->path, "value %s out of range: must be "
                        "%s %s", vs, kd->lo_open ? ">" : ">=", lo);
    if (isinf(kd->lo))
        return rx__node_err(err, n, kd->path, "value %s out of range: must be "
                        "%s %s", vs, kd->hi_open ? "<" : "<=", hi);
    return rx__node_err(err, n, kd->path, "value %s out of range: must be in "
                    "%s%s, %s%s", vs, kd->lo_open ? "(" : "[", lo, hi,
                    kd->hi_open ? ")" : "]");
}

static rx_status get_vec(const ynode *n, const rx__keydef *kd, rx_vec *out,
                         rx_err *err)
{
    if (n->type != YN_SEQ)
        return rx__node_err(err, n, kd->path, "expected a list of numbers, got %s",
                        rx__ynode_type(n));
    double *v = n->n ? malloc(sizeof(double) * (size_t)n->n) : NULL;
    if (n->n && !v) {
        rx__node_err(err, n, kd->path, "out of memory");
        return RX_ENOMEM;
    }
    for (int i = 0; i < n->n; ++i) {
        char p[160];
        snprintf(p, sizeof p, "%s[%d]", kd->path, i);
        rx_status st = get_real(n->items[i], p, &v[i], err);
        if (st == RX_OK) {
            rx__keydef k2 = *kd;
            k2.path = p;
            st = check_range(n->items[i], &k2, v[i], err);
        }
        if (st != RX_OK) {
            free(v);
            return st;
        }
    }
    free(out->v);
    out->v = v;
    out->n = n->n;
    return RX_OK;
}

static rx_status get_mat(const ynode *n, const rx__keydef *kd, rx_mat *out,
                         rx_err *err)
{
    if (n->type != YN_SEQ)
        return rx__node_err(err, n, kd->path,
                        "expected a list of lists of numbers, got %s",
                        rx__ynode_type(n));
    int rows = n->n, cols = -1;
    for (int i = 0; i < rows; ++i) {
        const ynode *r = n->items[i];
        char p[160];
        snprintf(p, sizeof p, "%s[%d]", kd->path, i);
        if (r->type != YN_SEQ)
            return rx__node_err(err, r, p, "expected a list of numbers, got %s",
                            rx__ynode_type(r));
        if (cols >= 0 && r->n != cols)
            return rx__node_err(err, r, p, "row has %d numbers, row 0 has %d",
                            r->n, cols);
        cols = r->n;
    }
    if (rows > 0 && cols == 0)
        return rx__node_err(err, n, kd->path, "rows must not be empty");
    size_t total = (size_t)rows * (size_t)(cols > 0 ? cols : 0);
    double *v = total ? malloc(sizeof(double) * total) : NULL;
    if (total && !v) {
        rx__node_err(err, n, kd->path, "out of memory");
        return RX_ENOMEM;
    }
    for (int i = 0; i < rows; ++i)
        for (int j = 0; j < cols; ++j) {
            char p[160];
            snprintf(p, sizeof p, "%s[%d][%d]", kd->path, i, j);
            const ynode *e = n->items[i]->items[j];
            double *d = &v[(size_t)i * (size_t)cols + (size_t)j];
            rx_status st = get_real(e, p, d, err);
            if (st == RX_OK) {
                rx__keydef k2 = *kd;
                k2.path = p;
                st = check_range(e, &k2, *d, err);
            }
            if (st != RX_OK) {
                free(v);
                return st;
            }
        }
    free(out->v);
    out->v = v;
    out->rows = rows;
    out->cols = cols > 0 ? cols : 0;
    return RX_OK;
}

static rx_status get_enum(const ynode *n, const rx__keydef *kd, int *out,
                          rx_err *err)
{
    if (n->type != YN_SCALAR)
        return rx__node_err(err, n, kd->path, "expected a name, got %s",
                        rx__ynode_type(n));
    const int found = rx__kd_find(kd, n->str);
    if (found >= 0) {
        *out = found;
        return RX_OK;
    }
    const char *names[64];
    int cnt = rx__kd_nnames(kd);
    if (cnt > 64)
        cnt = 64;
    char all[256] = "";
    for (int i = 0; i < cnt; ++i) {
        names[i] = rx__kd_name(kd, i);
        strncat(all, i ? ", " : "", sizeof all - strlen(all) - 1);
        strncat(all, names[i], sizeof all - strlen(all) - 1);
    }
    const char *sug = rx__closest_name(n->str, names, cnt);
    if (sug)
        return rx__node_err(err, n, kd->path,
                        "unknown value '%s'; did you mean '%s'? (one of %s)",
                        n->str, sug, all);
    return rx__node_err(err, n, kd->path, "unknown value '%s' (one of %s)",
                    n->str, all);
}

static rx_status get_ladder(const ynode *n, const rx__keydef *kd,
                            rx_ladder_spec *out, rx_err *err)
{
    rx_ladder_spec L = {RX_LADDER_CONSTANT, 0, 0, {NULL, 0}};
    rx_status st = RX_OK;
    char p[160];
    if (n->type == YN_SCALAR) {
        st = get_real(n, kd->path, &L.min, err);
        if (st == RX_OK)
            st = check_range(n, kd, L.min, err);
        L.max = L.min;
    } else if (n->type == YN_SEQ) {
        L.kind = RX_LADDER_LIST;
        st = get_vec(n, kd, &L.values, err);
        if (st == RX_OK && L.values.n < 2)
            st = rx__node_err(err, n, kd->path,
                          "a ladder list needs one value per chain (>= 2)");
        for (int i = 1; st == RX_OK && i < L.values.n; ++i)
            if (L.values.v[i] < L.values.v[i - 1]) {
                snprintf(p, sizeof p, "%s[%d]", kd->path, i);
                st = rx__node_err(err, n->items[i], p,
                              "ladder must be non-decreasing: %s < %s",
                              RX_NUM(L.values.v[i]),
                              RX_NUM(L.values.v[i - 1]));
            }
        if (st == RX_OK) {
            L.min = L.values.v[0];
            L.max = L.values.v[L.values.n - 1];
        }
    } else {
        L.kind = RX_LADDER_GEOMETRIC;
        int have_min = 0, have_max = 0;
        static const char *const sub[] = {"min", "max"};
        for (int i = 0; st == RX_OK && i < n->n; ++i) {
            const ynode *k = n->keys[i], *v = n->items[i];
            if (k->type != YN_SCALAR) {
                st = rx__node_err(err, k, kd->path, "keys must be names");
                break;
            }
            snprintf(p, sizeof p, "%s.%s", kd->path, k->str);
            double *dst = NULL;
            if (strcmp(k->str, "min") == 0) {
                dst = &L.min;
                have_min++;
            } else if (strcmp(k->str, "max") == 0) {
                dst = &L.max;
                have_max++;
            } else {
                const char *sug = rx__closest_name(k->str, sub, 2);
                st = sug ? rx__node_err(err, k, p,
                                    "unknown key '%s'; did you mean '%s'?",
                                    k->str, sug)
                         : rx__node_err(err, k, p,
                                    "unknown key '%s' (a geometric ladder "
                                    "has min and max)",
                                    k->str);
                break;
            }
            if (have_min > 1 || have_max > 1) {
                st = rx__node_err(err, k, p, "duplicate key");
                break;
            }
            st = get_real(v, p, dst, err);
            if (st == RX_OK) {
                rx__keydef k2 = *kd;
                k2.path = p;
                st = check_range(v, &k2, *dst, err);
            }
        }
        if (st == RX_OK && (!have_min || !have_max))
            st = rx__node_err(err, n, kd->path,
                          "a geometric ladder needs both min and max");
        if (st == RX_OK && L.max < L.min)
            st = rx__node_err(err, n, kd->path,
                          "ladder ends are not ordered: max %s < min "
                          "%s",
                          RX_NUM(L.max), RX_NUM(L.min));
    }
    if (st != RX_OK) {
        free(L.values.v);
        return st;
    }
    free(out->values.v);
    *out = L;
    return RX_OK;
}

/* A number in the key's range, or one of the words (each mapped to a
 * sentinel value). */
static rx_status real_or_word(const ynode *n, const rx__keydef *kd, double *out,
                              const char *const *words, const double *vals,
                              const char *expect, rx_err *err)
{
    if (n->type == YN_SCALAR && !n->quoted)
        for (int i = 0; words[i]; ++i)
            if (strcmp(n->str, words[i]) == 0) {
                *out = vals[i];
                return RX_OK;
            }
    double dv = 0.0;
    if (get_real(n, kd->path, &dv, err) != RX_OK)
        return rx__node_err(err, n, kd->path, "expected %s, got %s%s%s", expect,
                        n->type == YN_SCALAR ? "'" : rx__ynode_type(n),
                        n->type == YN_SCALAR ? n->str : "",
                        n->type == YN_SCALAR ? "'" : "");
    rx_status st = check_range(n, kd, dv, err);
    if (st == RX_OK)
        *out = dv;
    return st;
}

/* A string value (plain or quoted scalar; null = empty). */
static rx_status get_str(const ynode *n, const rx__keydef *kd, char *out,
                         rx_err *err)
{
    if (rx__ynode_null(n)) {
        out[0] = '\0';
        return RX_OK;
    }
    if (n->type != YN_SCALAR)
        return rx__node_err(err, n, kd->path, "expected a string, got %s",
                        rx__ynode_type(n));
    size_t l = strlen(n->str);
    if (l >= RX_PATH_MAX)
        return rx__node_err(err, n, kd->path,
                        "string of %zu bytes is too long (at most %d)", l,
                        RX_PATH_MAX - 1);
    memcpy(out, n->str, l + 1);
    return RX_OK;
}

/* A positive integer field of a layer. */
static rx_status layer_int(const ynode *n, const char *path, int lo, int *out,
                           rx_err *err)
{
    int64_t v = 0;
    rx_status st = get_int(n, path, &v, err);
    if (st != RX_OK)
        return st;
    if (v < lo || v > 1000000)
        return rx__node_err(err, n, path, "must be in [%d, 1000000], got %lld",
                        lo, (long long)v);
    *out = (int)v;
    return RX_OK;
}

/* {filters: 32, kernel: 5, stride: 1, pad: 2} or {kernel: 2, stride: 2} */
static rx_status layer_fields(const ynode *m, const char *path, rx_layer *L,
                              int conv, rx_err *err)
{
    static const char *const conv_f[] = {"filters", "kernel", "stride", "pad",
                                         NULL};
    static const char *const pool_f[] = {"kernel", "stride", NULL};
    const char *const *fields = conv ? conv_f : pool_f;
    int have_filters = 0, have_kernel = 0;
    for (int i = 0; i < m->n; ++i) {
        const ynode *k = m->keys[i];
        char p[200];
        snprintf(p, sizeof p, "%s.%s", path,
                 k->type == YN_SCALAR ? k->str : "?");
        int f = -1;
        for (int j = 0; k->type == YN_SCALAR && fields[j]; ++j)
            if (strcmp(k->str, fields[j]) == 0)
                f = j;
        if (f < 0) {
            int nf = 0;
            while (fields[nf])
                ++nf;
            const char *sug = k->type == YN_SCALAR
                                  ? rx__closest_name(k->str, fields, nf) : NULL;
            if (sug)
                return rx__node_err(err, k, p,
                                "unknown field; did you mean '%s'?", sug);
            return rx__node_err(err, k, p, "unknown field (valid: %s)",
                            conv ? "filters, kernel, stride, pad"
                                 : "kernel, stride");
        }
        for (int j = 0; j < i; ++j)
            if (m->keys[j]->type == YN_SCALAR &&
                strcmp(m->keys[j]->str, k->str) == 0)
                return rx__node_err(err, k, p, "duplicate field");
        const char *fn = fields[f];
        rx_status st;
        if (strcmp(fn, "filters") == 0) {
            st = layer_int(m->items[i], p, 1, &L->filters, err);
            have_filters = 1;
        } else if (strcmp(fn, "kernel") == 0) {
            st = layer_int(m->items[i], p, 1, &L->kernel, err);
            have_kernel = 1;
        } else if (strcmp(fn, "stride") == 0)
            st = layer_int(m->items[i], p, 1, &L->stride, err);
        else
            st = layer_int(m->items[i], p, 0, &L->pad, err);
        if (st != RX_OK)
            return st;
    }
    if (conv && !have_filters)
        return rx__node_err(err, m, path, "conv2d needs filters");
    if (!have_kernel)
        return rx__node_err(err, m, path, "%s needs kernel",
                        conv ? "conv2d" : "maxpool");
    return RX_OK;
}

static rx_status get_layers(const ynode *n, const rx__keydef *kd, rx__layer_list *out,
                            rx_err *err)
{
    if (n->type != YN_SEQ)
        return rx__node_err(err, n, kd->path, "expected a list of layers, got %s",
                        rx__ynode_type(n));
    if (n->n > RX_MAX_LAYERS)
        return rx__node_err(err, n, kd->path, "%d layers, at most %d", n->n,
                        RX_MAX_LAYERS);
    rx__layer_list ll;
    memset(&ll, 0, sizeof ll);
    int chans = 0; /* channels into layer i where the layers fix them */
    for (int i = 0; i < n->n; ++i) {
        const ynode *it = n->items[i];
        char p[160];
        snprintf(p, sizeof p, "%s[%d]", kd->path, i);
        rx_layer *L = &ll.l[i];
        const ynode *name = it, *arg = NULL;
        if (it->type == YN_MAP) {
            if (it->n != 1)
                return rx__node_err(err, it, p,
                                "a layer is a name (relu) or a one-key "
                                "mapping ({dense: 50}), got %d keys",
                                it->n);
            name = it->keys[0];
            arg = it->items[0];
        }
        if (name->type != YN_SCALAR)
            return rx__node_err(err, name, p,
                            "expected a layer name or a one-key mapping, "
                            "got %s", rx__ynode_type(name));
        int kind = 0;
        for (int j = 0; rx__layer_names[j]; ++j)
            if (strcmp(name->str, rx__layer_names[j]) == 0)
                kind = j + 1;
        if (!kind) {
            const char *sug = rx__closest_name(
                name->str, rx__layer_names, rx__names_count(rx__layer_names));
            if (sug)
                return rx__node_err(err, name, p,
                                "unknown layer '%s'; did you mean '%s'?",
                                name->str, sug);
            return rx__node_err(err, name, p,
                            "unknown layer '%s' (valid: dense, conv2d, "
                            "maxpool, relu, tanh, flatten, lstm)",
                            name->str);
        }
        L->kind = (rx_layer_kind)kind;
        L->stride = 1;
        rx_status st = RX_OK;
        switch (L->kind) {
        case RX_L_DENSE:
            if (!arg)
                return rx__node_err(err, it, p, "dense needs units: {dense: 50}");
            st = layer_int(arg, p, 1, &L->units, err);
            break;
        case RX_L_LSTM:
            if (!arg)
                return rx__node_err(err, it, p,
                                "lstm needs units: {lstm: 128}");
            st = layer_int(arg, p, 1, &L->units, err);
            break;
        case RX_L_CONV2D:
            if (!arg || arg->type != YN_MAP)
                return rx__node_err(err, arg ? arg : it, p,
                                "conv2d needs {filters, kernel, stride, "
                                "pad}, e.g. {conv2d: {filters: 32, kernel: "
                                "5, pad: 2}}");
            st = layer_fields(arg, p, L, 1, err);
            break;
        case RX_L_MAXPOOL:
            L->kernel = 2;
            if (arg && arg->type == YN_MAP) {
                L->stride = 0; /* 0 = not given: the window */
                st = layer_fields(arg, p, L, 0, err);
                if (L->stride == 0)
                    L->stride = L->kernel;
            } else {
                if (arg)
                    st = layer_int(arg, p, 1, &L->kernel, err);
                L->stride = L->kernel;
            }
            break;
        default:
            if (arg && !rx__ynode_null(arg))
                return rx__node_err(err, arg, p, "%s takes no arguments",
                                name->str);
            L->stride = 0;
        }
        if (st != RX_OK)
            return st;
        /* the rest of the shape checks need the data (src/model/net.c) */
        if (L->kind == RX_L_LSTM && chans > 1)
            return rx__node_err(err, it, p,
                            "lstm reads a one-channel input as h steps of w "
                            "features; the conv2d before it gives %d "
                            "channels (an lstm after a conv2d needs "
                            "filters: 1)", chans);
        if (L->kind == RX_L_CONV2D)
            chans = L->filters;
        else if (L->kind == RX_L_DENSE || L->kind == RX_L_FLATTEN ||
                 L->kind == RX_L_LSTM)
            chans = 1;
    }
    ll.n = n->n;
    *out = ll;
    return RX_OK;
}

/* Parse one leaf value into the field at base. */
static rx_status set_leaf_at(char *base, const rx__keydef *kd,
                             const ynode *n, rx_err *err)
{
    rx_status st;
    int64_t iv = 0;
    double dv = 0.0;
    switch (kd->kind) {
    case K_U64:
        if (n->type != YN_SCALAR || n->quoted || rx__ynode_null(n) ||
            n->str[0] == '-')
            return rx__node_err(err, n, kd->path,
                            "expected an unsigned integer, got %s",
                            n->type == YN_SCALAR && !n->quoted && !rx__ynode_null(n)
                                ? "a negative number"
                                : rx__ynode_type(n));
        {
            char *end;
            errno = 0;
            unsigned long long v = strtoull(n->str, &end, 10);
            if (end == n->str || *end || errno == ERANGE)
                return rx__node_err(err, n, kd->path,
                                "expected an unsigned 64-bit integer, got "
                                "'%s'",
                                n->str);
            *(uint64_t *)(void *)base = v;
        }
        return RX_OK;
    case K_I64:
    case K_INT:
        st = get_int(n, kd->path, &iv, err);
        if (st != RX_OK)
            return st;
        st = check_range(n, kd, (double)iv, err);
        if (st != RX_OK)
            return st;
        if (kd->kind == K_I64)
            *(int64_t *)(void *)base = iv;
        else
            *(int *)(void *)base = (int)iv;
        return RX_OK;
    case K_REAL:
        st = get_real(n, kd->path, &dv, err);
        if (st != RX_OK)
            return st;
        st = check_range(n, kd, dv, err);
        if (st != RX_OK)
            return st;
        *(double *)(void *)base = dv;
        return RX_OK;
    case K_BOOL: {
        static const char *const t[] = {"true", "True", "TRUE", "yes", "on",
                                        NULL};
        static const char *const f[] = {"false", "False", "FALSE", "no",
                                        "off", NULL};
        if (n->type == YN_SCALAR && !n->quoted) {
            for (int i = 0; t[i]; ++i)
                if (strcmp(n->str, t[i]) == 0) {
                    *(int *)(void *)base = 1;
                    return RX_OK;
                }
            for (int i = 0; f[i]; ++i)
                if (strcmp(n->str, f[i]) == 0) {
                    *(int *)(void *)base = 0;
                    return RX_OK;
                }
        }
        return rx__node_err(err, n, kd->path, "expected true or false, got %s%s%s",
                        n->type == YN_SCALAR ? "'" : rx__ynode_type(n),
                        n->type == YN_SCALAR ? n->str : "",
                        n->type == YN_SCALAR ? "'" : "");
    }
    case K_ENUM: {
        int e = 0;
        st = get_enum(n, kd, &e, err);
        if (st == RX_OK)
            *(int *)(void *)base = e;
        return st;
    }
    case K_STR:
        return get_str(n, kd, base, err);
    case K_LAYERS:
        return get_layers(n, kd, (rx__layer_list *)(void *)base, err);
    case K_VEC:
        return get_vec(n, kd, (rx_vec *)(void *)base, err);
    case K_MAT:
        return get_mat(n, kd, (rx_mat *)(void *)base, err);
    case K_LADDER:
        return get_ladder(n, kd, (rx_ladder_spec *)(void *)base, err);
    case K_SIGMA2: {
        static const char *const w[] = {"auto", "estimate", NULL};
        static const double v[] = {RX_SIGMA2_AUTO, RX_SIGMA2_ESTIMATE};
        return real_or_word(n, kd, (double *)(void *)base, w, v,
                            "a number >= 0, auto or estimate", err);
    }
    case K_COEF: {
        static const char *const w[] = {"adaptive", NULL};
        static const double v[] = {RX_VR_ADAPTIVE};
        return real_or_word(n, kd, (double *)(void *)base, w, v,
                            "a number in [-2, 2] or adaptive", err);
    }
    case K_WCORR: {
        static const char *const w[] = {"logW", NULL};
        static const double v[] = {RX_WCORR_LOGW};
        return real_or_word(n, kd, (double *)(void *)base, w, v,
                            "a number >= 0 or logW", err);
    }
    case K_WINDOW:
        if (n->type == YN_SCALAR && !n->quoted &&
            strcmp(n->str, "auto") == 0) {
            *(int *)(void *)base = RX_WINDOW_AUTO;
            return RX_OK;
        }
        if (n->type != YN_SCALAR || n->quoted)
            return rx__node_err(err, n, kd->path,
                            "expected a positive integer or auto, got %s",
                            rx__ynode_type(n));
        {
            char *end;
            errno = 0;
            long long v = strtoll(n->str, &end, 10);
            if (end == n->str || *end || errno == ERANGE)
                return rx__node_err(err, n, kd->path,
                                "expected a positive integer or auto, got "
                                "'%s'",
                                n->str);
            if (v < 1 || v > 1000000000)
                return rx__node_err(err, n, kd->path,
                                "window must be >= 1 (or auto), got %lld", v);
            *(int *)(void *)base = (int)v;
        }
        return RX_OK;
    }
    return RX_EINVAL;
}

/* Parse one leaf value into key ki of the config (its field, or its slot
 * in the key store). */
rx_status rx__set_leaf(rx_config *c, int ki, const ynode *n, rx_err *err)
{
    const rx__keydef *kd = rx__key_at(ki);
    char *base = rx__key_base(c, ki);
    if (!base) {
        rx__node_err(err, n, kd->path, "out of memory");
        return RX_ENOMEM;
    }
    rx_status st = set_leaf_at(base, kd, n, err);
    if (st == RX_OK)
        rx__key_wrote(c, ki);
    return st;
}
