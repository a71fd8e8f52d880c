/*
 * The result-affecting part of a configuration (src/io/digest.h). The
 * values come from rx__config_fwrite, the one writer of resolved configs, so
 * a key added to the schema is covered without a change here; a key that
 * cannot change results is named in MAY_DIFFER (docs/yaml.md, each key's
 * row: "results do not depend on it" or timing only).
 */
#define _POSIX_C_SOURCE 200809L /* getline, open_memstream, fmemopen */
#include "digest.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../core/internal.h"
#include "config.h"

static const char *const MAY_DIFFER[] = {
    "threads",          "sync",         "balance", "balance_noise",
    "checkpoint.every", "record.phase_timing", "mpi.ranks",
};

static int may_differ(const char *key)
{
    for (size_t i = 0; i < sizeof MAY_DIFFER / sizeof MAY_DIFFER[0]; ++i)
        if (!strcmp(key, MAY_DIFFER[i]))
            return 1;
    return 0;
}

/* Appends "sec.leaf: value\n" for each leaf line of the YAML the writer
 * made (sections one level deep, comments '#'). */
static int canon_from(FILE *f, char **out)
{
    size_t cap = 4096, n = 0;
    char *t = malloc(cap), *line = NULL, sec[256] = "";
    size_t lcap = 0;
    if (!t)
        return -1;
    t[0] = '\0';
    while (getline(&line, &lcap, f) > 0) {
        line[strcspn(line, "\n")] = '\0';
        if (line[0] == '#' || line[0] == '\0')
            continue;
        int nested = line[0] == ' ';
        const char *l = nested ? line + 2 : line;
        const char *colon = strstr(l, ": ");
        if (!nested && !colon && l[0] && l[strlen(l) - 1] == ':') {
            snprintf(sec, sizeof sec, "%.*s", (int)strlen(l) - 1, l);
            continue;
        }
        if (!colon)
            continue;
        char key[600];
        snprintf(key, sizeof key, "%s%s%.*s", nested ? sec : "",
                 nested ? "." : "", (int)(colon - l < 300 ? colon - l : 300),
                 l);
        if (may_differ(key))
            continue;
        size_t need = strlen(key) + strlen(colon) + 2;
        if (n + need + 1 > cap) {
            while (n + need + 1 > cap)
                cap *= 2;
            char *nt = realloc(t, cap);
            if (!nt) {
                free(t);
                free(line);
                return -1;
            }
            t = nt;
        }
        n += (size_t)snprintf(t + n, cap - n, "%s%s\n", key, colon);
    }
    free(line);
    *out = t;
    return 0;
}

rx_status rx__config_canon(const rx_config *c, char **text, rx_err *err)
{
    *text = NULL;
    /* in memory: a file beside the checkpoint would outlive a run killed
     * while writing one, and keep DIR.partial from being removed */
    char *yaml = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&yaml, &len);
    if (!f)
        return rx__fail(err, RX_ENOMEM, "out of memory");
    rx__config_fwrite(c, f, 2); /* an idle row's keys left out */
    int bad = fclose(f) != 0 || !yaml;
    FILE *r = bad ? NULL : fmemopen(yaml, len, "r");
    bad = !r || canon_from(r, text) != 0;
    if (r)
        fclose(r);
    free(yaml);
    return bad ? rx__fail(err, RX_ENOMEM, "out of memory") : RX_OK;
}

uint64_t rx__digest64(const void *p, size_t n)
{
    const unsigned char *b = p;
    uint64_t h = 14695981039346656037ull;
    for (size_t i = 0; i < n; ++i) {
        h ^= b[i];
        h *= 1099511628211ull;
    }
    return h;
}

/* The value of key in canonical text t ("" and 0 when absent). */
static int value_of(const char *t, const char *key, size_t kl,
                    const char **v, int *vl)
{
    for (const char *l = t; *l;) {
        const char *e = strchr(l, '\n');
        size_t ll = e ? (size_t)(e - l) : strlen(l);
        if (ll > kl + 1 && !strncmp(l, key, kl) && l[kl] == ':') {
            *v = l + kl + 2;
            *vl = (int)(ll - kl - 2);
            return 1;
        }
        l += ll + (e != NULL);
    }
    *v = "(absent)";
    *vl = 8;
    return 0;
}

/* Adds the keys of x that differ in y (when y_first, only keys absent
 * from y are added: the others were listed from the other side). */
static int diff_side(const char *x, const char *y, int x_is_ckpt,
                     int only_absent, char *msg, size_t cap, size_t *n)
{
    int cnt = 0;
    for (const char *l = x; *l;) {
        const char *e = strchr(l, '\n');
        size_t ll = e ? (size_t)(e - l) : strlen(l);
        const char *colon = memchr(l, ':', ll);
        if (colon) {
            size_t kl = (size_t)(colon - l);
            const char *yv;
            int yvl;
            int in_y = value_of(y, l, kl, &yv, &yvl);
            const char *xv = colon + 2;
            int xvl = (int)(ll - kl - 2);
            int differ = !in_y || yvl != xvl || strncmp(xv, yv, (size_t)xvl);
            if (differ && (!only_absent || !in_y)) {
                const char *a = x_is_ckpt ? xv : yv, *b = x_is_ckpt ? yv : xv;
                int al = x_is_ckpt ? xvl : yvl, bl = x_is_ckpt ? yvl : xvl;
                if (*n < cap)
                    *n += (size_t)snprintf(msg + *n, cap - *n,
                                           "%s%.*s: %.*s in the checkpoint, "
                                           "%.*s now", *n ? "; " : "",
                                           (int)kl, l, al, a, bl, b);
                ++cnt;
            }
        }
        l += ll + (e != NULL);
    }
    return cnt;
}

int rx__config_canon_diff(const char *a, const char *b, char *msg,
                          size_t cap)
{
    size_t n = 0;
    if (cap)
        msg[0] = '\0';
    int cnt = diff_side(a, b, 1, 0, msg, cap, &n);
    cnt += diff_side(b, a, 0, 1, msg, cap, &n);
    return cnt;
}
