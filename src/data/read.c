/*
 * Whole-file reader for the data loaders: plain bytes, or gunzipped when
 * the file starts with the gzip magic. Owns nothing after it returns; the
 * caller frees the buffer. The only place in src/data/ that includes zlib.
 */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

#include "data.h"

/* The most bytes a data file may hold as read (docs/yaml.md data.path):
 * what is not a regular file (/dev/zero, a FIFO that never ends) would
 * otherwise be read until memory runs out. */
#define RAW_MAX ((size_t)1 << 30)

/* Reads the raw bytes of path, at most RAW_MAX, into a malloc'd buffer
 * with one spare byte. */
static rx_status read_raw(const char *path, unsigned char **out, size_t *len,
                          rx_err *err)
{
    *out = NULL;
    *len = 0;
    FILE *f = fopen(path, "rb");
    if (!f) {
        const int e = errno;
        /* the shipped files name the data sets as data/...: those come
         * from scripts/fetch_data.sh, run in the repository's root */
        const int shipped = e == ENOENT && !strncmp(path, "data/", 5);
        return rx__fail(err, RX_EIO, "%s: cannot open: %s%s", path,
                        strerror(e),
                        shipped ? " (the data sets under data/ are "
                                  "fetched by scripts/fetch_data.sh, run "
                                  "in the repository's root; paths are "
                                  "relative to the working directory)"
                                : "");
    }
    size_t cap = 1 << 16, n = 0;
    unsigned char *b = malloc(cap);
    if (!b) {
        fclose(f);
        return rx__fail(err, RX_ENOMEM, "%s: out of memory", path);
    }
    for (;;) {
        if (n > RAW_MAX) {
            free(b);
            fclose(f);
            return rx__fail(err, RX_EDATA, "%s: more than %zu MiB, the "
                            "bound for a data file", path, RAW_MAX >> 20);
        }
        if (n + 1 >= cap) {
            if (cap > SIZE_MAX / 2) {
                free(b);
                fclose(f);
                return rx__fail(err, RX_ENOMEM, "%s: file too large", path);
            }
            size_t nc = cap * 2 < RAW_MAX + 2 ? cap * 2 : RAW_MAX + 2;
            unsigned char *nb = realloc(b, nc);
            if (!nb) {
                free(b);
                fclose(f);
                return rx__fail(err, RX_ENOMEM, "%s: out of memory", path);
            }
            b = nb;
            cap = nc;
        }
        size_t got = fread(b + n, 1, cap - 1 - n, f);
        n += got;
        if (got == 0)
            break;
    }
    if (ferror(f)) {
        int e = errno;
        free(b);
        fclose(f);
        return rx__fail(err, RX_EIO, "%s: read error: %s", path,
                        e ? strerror(e) : "unknown");
    }
    fclose(f);
    *out = b;
    *len = n;
    return RX_OK;
}

/* Grows *buf to at least need bytes (doubling). */
static int grow(unsigned char **buf, size_t *cap, size_t need)
{
    if (need <= *cap)
        return 1;
    size_t c = *cap ? *cap : 4096;
    while (c < need) {
        if (c > SIZE_MAX / 2)
            return 0;
        c *= 2;
    }
    unsigned char *nb = realloc(*buf, c);
    if (!nb)
        return 0;
    *buf = nb;
    *cap = c;
    return 1;
}

/* The most bytes a gzip data file may inflate to (docs/yaml.md data.path):
 * a small file that would inflate without end is refused, not read. */
#define GZIP_MAX ((size_t)256 << 20)

/*
 * Inflates every gzip member of in[0..n), to at most GZIP_MAX bytes. The output capacity starts at
 * the last member's ISIZE trailer (the whole size for the usual single
 * member) so that a 47 MB image file is not copied by repeated doubling.
 * Returns RX_EDATA for a truncated or corrupt stream, naming the
 * compressed byte offset where it stopped.
 */
static rx_status gunzip(const char *path, const unsigned char *in, size_t n,
                        char **out, size_t *outlen, rx_err *err)
{
    size_t cap = 0, used = 0;
    unsigned char *o = NULL;
    size_t hint = 0;
    if (n >= 18)
        hint = (size_t)in[n - 4] | (size_t)in[n - 3] << 8 |
               (size_t)in[n - 2] << 16 | (size_t)in[n - 1] << 24;
    if (hint / 1032 > n) /* beyond deflate's largest ratio: not trusted */
        hint = 0;
    size_t first = hint > n ? hint : 4 * n;
    if (!grow(&o, &cap, (first < GZIP_MAX ? first : GZIP_MAX) + 1))
        return rx__fail(err, RX_ENOMEM, "%s: out of memory", path);

    z_stream zs;
    memset(&zs, 0, sizeof zs);
    if (inflateInit2(&zs, 15 + 16) != Z_OK) {
        free(o);
        return rx__fail(err, RX_ENOMEM, "%s: cannot start zlib", path);
    }
    size_t pos = 0; /* compressed bytes consumed */
    rx_status st = RX_OK;
    for (;;) {
        size_t lim = cap - 1 < GZIP_MAX ? cap - 1 : GZIP_MAX;
        if (used >= lim && lim == GZIP_MAX) {
            st = rx__fail(err, RX_EDATA,
                          "%s: inflates to more than %zu MiB, the bound for "
                          "a gzip data file (gunzip it and give the plain "
                          "file)", path, GZIP_MAX >> 20);
            break;
        }
        if (used >= lim && !grow(&o, &cap, cap * 2)) {
            st = rx__fail(err, RX_ENOMEM, "%s: out of memory", path);
            break;
        }
        lim = cap - 1 < GZIP_MAX ? cap - 1 : GZIP_MAX;
        size_t in_chunk = n - pos < (size_t)1 << 30 ? n - pos
                                                     : (size_t)1 << 30;
        size_t out_chunk = lim - used < (size_t)1 << 30
                               ? lim - used
                               : (size_t)1 << 30;
        zs.next_in = (Bytef *)(uintptr_t)(in + pos);
        zs.avail_in = (uInt)in_chunk;
        zs.next_out = o + used;
        zs.avail_out = (uInt)out_chunk;
        int r = inflate(&zs, Z_NO_FLUSH);
        pos += in_chunk - zs.avail_in;
        used += out_chunk - zs.avail_out;
        if (r == Z_STREAM_END) {
            if (pos == n)
                break;
            if (n - pos >= 2 && in[pos] == 0x1f && in[pos + 1] == 0x8b) {
                inflateReset(&zs);
                continue;
            }
            size_t z = pos;
            while (z < n && in[z] == 0)
                ++z;
            if (z == n) /* zero padding, as gzip(1) accepts */
                break;
            st = rx__fail(err, RX_EDATA,
                          "%s: trailing garbage after the gzip stream at "
                          "byte %zu", path, pos);
            break;
        }
        if (r == Z_DATA_ERROR || r == Z_NEED_DICT || r == Z_STREAM_ERROR) {
            st = rx__fail(err, RX_EDATA,
                          "%s: corrupt gzip stream at byte %zu: %s", path,
                          pos, zs.msg ? zs.msg : "invalid data");
            break;
        }
        if (r == Z_MEM_ERROR) {
            st = rx__fail(err, RX_ENOMEM, "%s: out of memory in zlib", path);
            break;
        }
        /* Z_OK or Z_BUF_ERROR: out of input with the stream unfinished */
        if (pos == n && zs.avail_out > 0) {
            st = rx__fail(err, RX_EDATA,
                          "%s: truncated gzip stream (input ends at byte "
                          "%zu, %zu bytes inflated)", path, n, used);
            break;
        }
    }
    inflateEnd(&zs);
    if (st != RX_OK) {
        free(o);
        return st;
    }
    o[used] = 0;
    *out = (char *)o;
    *outlen = used;
    return RX_OK;
}

rx_status rx__data_read_file(const char *path, char **buf, size_t *len,
                             rx_err *err)
{
    *buf = NULL;
    *len = 0;
    if (!path)
        return rx__fail(err, RX_EINVAL, "data file: no path given");
    unsigned char *raw;
    size_t n;
    rx_status st = read_raw(path, &raw, &n, err);
    if (st != RX_OK)
        return st;
    if (n >= 2 && raw[0] == 0x1f && raw[1] == 0x8b) {
        st = gunzip(path, raw, n, buf, len, err);
        free(raw);
        return st;
    }
    raw[n] = 0;
    *buf = (char *)raw;
    *len = n;
    return RX_OK;
}

char *rx__data_strdup(const char *s)
{
    size_t n = strlen(s) + 1;
    char *c = malloc(n);
    if (c)
        memcpy(c, s, n);
    return c;
}
