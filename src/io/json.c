/*
 * JSON output: one escaper and one number writer for every file replex
 * writes (src/io/json.h).
 */
#include "json.h"

#include <math.h>
#include <string.h>

#include "../core/num.h"

/* Length of the valid UTF-8 sequence at s (1-4), or 0 when it is not. */
static int utf8_len(const unsigned char *s)
{
    unsigned c = s[0];
    int n = c < 0x80 ? 1 : (c >> 5) == 6 ? 2 : (c >> 4) == 14 ? 3
            : (c >> 3) == 30 ? 4 : 0;
    for (int i = 1; i < n; ++i)
        if ((s[i] & 0xC0) != 0x80)
            return 0;
    if (n == 2 && c < 0xC2)
        return 0; /* overlong */
    if (n == 3) {
        unsigned cp = (c & 0xF) << 12 | (s[1] & 0x3Fu) << 6 | (s[2] & 0x3Fu);
        if (cp < 0x800 || (cp >= 0xD800 && cp <= 0xDFFF))
            return 0;
    }
    if (n == 4) {
        unsigned cp = (c & 7) << 18 | (s[1] & 0x3Fu) << 12 |
                      (s[2] & 0x3Fu) << 6 | (s[3] & 0x3Fu);
        if (cp < 0x10000 || cp > 0x10FFFF)
            return 0;
    }
    return n;
}

void rx__json_str(FILE *f, const char *s)
{
    const unsigned char *p = (const unsigned char *)(s ? s : "");
    fputc('"', f);
    while (*p) {
        unsigned c = *p;
        if (c == '"' || c == '\\') {
            fputc('\\', f);
            fputc((int)c, f);
        } else if (c == '\n') {
            fputs("\\n", f);
        } else if (c == '\t') {
            fputs("\\t", f);
        } else if (c == '\r') {
            fputs("\\r", f);
        } else if (c < 0x20 || c == 0x7F) {
            fprintf(f, "\\u%04x", c);
        } else if (c >= 0x80) {
            int n = utf8_len(p);
            if (n == 0) {
                fputs("\\ufffd", f);
                n = 1;
            } else {
                fwrite(p, 1, (size_t)n, f);
            }
            p += n;
            continue;
        } else {
            fputc((int)c, f);
        }
        ++p;
    }
    fputc('"', f);
}

int rx__json_num(FILE *f, const char *fmt, double v)
{
    if (!isfinite(v)) {
        fputs("null", f);
        return 1;
    }
    if (fmt)
        fprintf(f, fmt, v);
    else
        fputs(RX_NUM(v), f);
    return 0;
}

void rx__json_kv(FILE *f, const char *key, double v)
{
    fprintf(f, "\"%s\": ", key);
    if (rx__json_num(f, NULL, v))
        fprintf(f, ", \"%s_not_finite\": \"%s\"", key,
                isnan(v) ? "nan" : v > 0 ? "inf" : "-inf");
}

void rx__json_kvec(FILE *f, const char *key, const double *v, int n)
{
    int bad = 0;
    fprintf(f, "\"%s\": [", key);
    for (int i = 0; i < n; ++i) {
        if (i)
            fputs(", ", f);
        bad += rx__json_num(f, NULL, v[i]);
    }
    fputc(']', f);
    if (bad)
        fprintf(f, ", \"%s_not_finite\": \"%d of %d values are nan or "
                "infinite\"", key, bad, n);
}
