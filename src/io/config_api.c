/*
 * Keyed access to a configuration for embedding programs: any key of
 * `replex keys` (the configuration's own and those the rows of the type
 * tables declare) set from YAML text or a typed value, and read back,
 * through the same schema, parser and range checks as an experiment file.
 */
#define _POSIX_C_SOURCE 200809L
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../core/internal.h"
#include "config.h"
#include "yaml.h"

/* The key of path, or RX_EINVAL naming the closest key. */
static rx_status find_key(const char *fn, const char *path, int *ki,
                          rx_err *err)
{
    if (!path)
        return rx__fail(err, RX_EINVAL, "%s: NULL key path", fn);
    *ki = rx__key_index(path);
    if (*ki >= 0)
        return RX_OK;
    const char *names[RX__MAX_KEYS];
    int n = rx__key_count();
    if (n > RX__MAX_KEYS)
        n = RX__MAX_KEYS;
    for (int i = 0; i < n; ++i)
        names[i] = rx__key_at(i)->path;
    const char *sug = rx__closest_name(path, names, n);
    if (sug)
        return rx__fail(err, RX_EINVAL,
                        "%s: %s: unknown key; did you mean '%s'?", fn, path,
                        sug);
    return rx__fail(err, RX_EINVAL, "%s: %s: unknown key (see replex keys)",
                    fn, path);
}

/* "fn:1:1: path: what" of the parser -> "fn: path: what". */
static void relocate(rx_err *err, const char *fn, const char *path)
{
    if (!err)
        return;
    char key[300];
    snprintf(key, sizeof key, ": %s: ", path);
    char *p = strstr(err->msg, key);
    const size_t fl = strlen(fn);
    if (!p || (size_t)(p - err->msg) < fl + 2)
        return;
    /* the message is "fn:L:C: path: ..." and p is at ": path": keep fn */
    memmove(err->msg + fl, p, strlen(p) + 1);
}

static rx_status set_text(const char *fn, rx_config *c, const char *path,
                          const char *value, rx_err *err)
{
    if (!c)
        return rx__fail(err, RX_EINVAL, "%s: NULL config", fn);
    if (!value)
        return rx__fail(err, RX_EINVAL, "%s: %s: NULL value", fn,
                        path ? path : "(null)");
    int ki = -1;
    rx_status st = find_key(fn, path, &ki, err);
    if (st != RX_OK)
        return st;
    ynode *val = NULL;
    st = rx__yaml_parse((const unsigned char *)value, strlen(value), fn, 0,
                        1, &val, err);
    if (st == RX_OK && !val)
        st = rx__fail(err, RX_ECONFIG, "%s: %s: empty value", fn, path);
    if (st == RX_OK) {
        st = rx__set_leaf(c, ki, val, err);
        relocate(err, fn, path);
    }
    rx__ynode_free(val);
    return st == RX_ECONFIG ? RX_EINVAL : st;
}

rx_status rx_config_set(rx_config *c, const char *path, const char *value,
                        rx_err *err)
{
    return set_text("rx_config_set", c, path, value, err);
}

rx_status rx_config_set_real(rx_config *c, const char *path, double v,
                             rx_err *err)
{
    char buf[64];
    if (!isfinite(v))
        return rx__fail(err, RX_EINVAL,
                        "rx_config_set_real: %s: expected a finite number",
                        path ? path : "(null)");
    snprintf(buf, sizeof buf, "%.17g", v);
    return set_text("rx_config_set_real", c, path, buf, err);
}

rx_status rx_config_set_int(rx_config *c, const char *path, int64_t v,
                            rx_err *err)
{
    char buf[32];
    snprintf(buf, sizeof buf, "%" PRId64, v);
    return set_text("rx_config_set_int", c, path, buf, err);
}

rx_status rx_config_set_vec(rx_config *c, const char *path, const double *v,
                            int n, rx_err *err)
{
    if (n < 0 || (n > 0 && !v))
        return rx__fail(err, RX_EINVAL,
                        "rx_config_set_vec: %s: %d values from %s",
                        path ? path : "(null)", n, v ? "an array" : "NULL");
    size_t cap = 3 + (size_t)n * 26, len = 0;
    char *buf = malloc(cap);
    if (!buf)
        return rx__fail(err, RX_ENOMEM, "rx_config_set_vec: out of memory");
    buf[len++] = '[';
    for (int i = 0; i < n; ++i) {
        if (!isfinite(v[i])) {
            free(buf);
            return rx__fail(err, RX_EINVAL,
                            "rx_config_set_vec: %s: value %d is not a "
                            "finite number", path ? path : "(null)", i + 1);
        }
        len += (size_t)snprintf(buf + len, cap - len, "%s%.17g",
                                i ? ", " : "", v[i]);
    }
    snprintf(buf + len, cap - len, "]");
    rx_status st = set_text("rx_config_set_vec", c, path, buf, err);
    free(buf);
    return st;
}

/* ---- reading ------------------------------------------------------------*/

rx_status rx_config_get(const rx_config *c, const char *path, char *buf,
                        size_t cap, rx_err *err)
{
    if (!c || !buf || cap == 0)
        return rx__fail(err, RX_EINVAL, "rx_config_get: NULL %s",
                        !c ? "config" : "buffer");
    int ki = -1;
    rx_status st = find_key("rx_config_get", path, &ki, err);
    if (st != RX_OK)
        return st;
    char *text = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&text, &len);
    if (!f)
        return rx__fail(err, RX_ENOMEM, "rx_config_get: out of memory");
    rx__key_fput(f, c, ki);
    if (fclose(f) != 0 || !text) {
        free(text);
        return rx__fail(err, RX_ENOMEM, "rx_config_get: out of memory");
    }
    if (len >= cap) {
        free(text);
        return rx__fail(err, RX_EINVAL,
                        "rx_config_get: %s: the value needs %zu bytes, the "
                        "buffer has %zu",
                        path, len + 1, cap);
    }
    memcpy(buf, text, len + 1);
    free(text);
    return RX_OK;
}

/* The field (or slot) of a key for reading, with its kind. */
static rx_status read_key(const char *fn, const rx_config *c,
                          const char *path, const rx__keydef **kd,
                          const void **base, rx__slot *tmp, rx_err *err)
{
    if (!c)
        return rx__fail(err, RX_EINVAL, "%s: NULL config", fn);
    int ki = -1;
    rx_status st = find_key(fn, path, &ki, err);
    if (st != RX_OK)
        return st;
    *kd = rx__key_at(ki);
    *base = rx__key_cbase(c, ki, tmp);
    return RX_OK;
}

/* An integer-valued key's value (integers, booleans, names' indices, the
 * window): 1 and *v, else 0. */
static int int_value(const rx__keydef *kd, const void *b, int64_t *v)
{
    switch (kd->kind) {
    case K_INT:
    case K_BOOL:
    case K_ENUM:
    case K_WINDOW:
        *v = *(const int *)b;
        return 1;
    case K_I64:
        *v = *(const int64_t *)b;
        return 1;
    case K_U64:
        *v = (int64_t)*(const uint64_t *)b;
        return 1;
    default:
        return 0;
    }
}

rx_status rx_config_get_real(const rx_config *c, const char *path,
                             double *out, rx_err *err)
{
    const rx__keydef *kd = NULL;
    const void *b = NULL;
    rx__slot tmp;
    rx_status st = read_key("rx_config_get_real", c, path, &kd, &b, &tmp,
                            err);
    if (st != RX_OK)
        return st;
    if (!out)
        return rx__fail(err, RX_EINVAL, "rx_config_get_real: NULL out");
    int64_t iv;
    if (kd->kind == K_U64) /* above 2^63 too */
        *out = (double)*(const uint64_t *)b;
    else if (int_value(kd, b, &iv))
        *out = (double)iv;
    else if (kd->kind == K_REAL || kd->kind == K_WCORR ||
             kd->kind == K_SIGMA2 || kd->kind == K_COEF)
        *out = *(const double *)b;
    else
        return rx__fail(err, RX_EINVAL,
                        "rx_config_get_real: %s: is a %s, not a number "
                        "(rx_config_get gives it as text)",
                        path, rx__kind_name(kd->kind));
    return RX_OK;
}

rx_status rx_config_get_int(const rx_config *c, const char *path,
                            int64_t *out, rx_err *err)
{
    const rx__keydef *kd = NULL;
    const void *b = NULL;
    rx__slot tmp;
    rx_status st = read_key("rx_config_get_int", c, path, &kd, &b, &tmp,
                            err);
    if (st != RX_OK)
        return st;
    if (!out)
        return rx__fail(err, RX_EINVAL, "rx_config_get_int: NULL out");
    if (!int_value(kd, b, out))
        return rx__fail(err, RX_EINVAL,
                        "rx_config_get_int: %s: is a %s, not an integer "
                        "(rx_config_get_real or rx_config_get)",
                        path, rx__kind_name(kd->kind));
    return RX_OK;
}

rx_status rx_config_get_vec(const rx_config *c, const char *path,
                            const double **v, int *n, rx_err *err)
{
    const rx__keydef *kd = NULL;
    const void *b = NULL;
    rx__slot tmp;
    rx_status st = read_key("rx_config_get_vec", c, path, &kd, &b, &tmp,
                            err);
    if (st != RX_OK)
        return st;
    if (!v || !n)
        return rx__fail(err, RX_EINVAL, "rx_config_get_vec: NULL out");
    if (kd->kind != K_VEC)
        return rx__fail(err, RX_EINVAL,
                        "rx_config_get_vec: %s: is a %s, not a list of "
                        "numbers (rx_config_get gives it as text)",
                        path, rx__kind_name(kd->kind));
    const rx_vec *x = b;
    *v = x->v;
    *n = x->n;
    return RX_OK;
}
