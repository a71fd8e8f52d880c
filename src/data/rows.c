/*
 * A file of test rows: the row numbers (0-based, counted as the CSV loader
 * counts them: after skip_rows and the header) of the examples held out
 * for testing, as in the published split files of the UCI protocol
 * (index_test_K.txt). Decimal integers separated by white space; '#'
 * starts a comment to the end of the line. Errors name file:line:col.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "data.h"

/* The n bytes at s as text for a message: bytes that do not print (a NUL,
 * a control character, non-ASCII) as \xNN, so the message shows what is
 * there. */
static void shown(const char *s, size_t n, char *out, size_t cap)
{
    size_t o = 0;
    for (size_t i = 0; i < n && o + 5 < cap; ++i) {
        unsigned char c = (unsigned char)s[i];
        if (c >= 0x20 && c < 0x7f && c != '"' && c != '\\')
            out[o++] = (char)c;
        else
            o += (size_t)snprintf(out + o, cap - o, "\\x%02x", c);
    }
    out[o] = '\0';
}

rx_status rx__data_read_rows(const char *path, int64_t n_rows,
                             unsigned char *in_test, int64_t *n_test,
                             rx_err *err)
{
    *n_test = 0;
    char *buf;
    size_t len;
    rx_status st = rx__data_read_file(path, &buf, &len, err);
    if (st != RX_OK)
        return st;
    long long line = 1;
    const char *ls = buf; /* start of the current line */
    int64_t nt = 0;
    for (size_t i = 0; i < len && st == RX_OK;) {
        const char c = buf[i];
        if (c == '\n') {
            ++line;
            ls = buf + ++i;
            continue;
        }
        if (c == ' ' || c == '\t' || c == '\r') {
            ++i;
            continue;
        }
        if (c == '#') {
            while (i < len && buf[i] != '\n')
                ++i;
            continue;
        }
        const long long col = (long long)(buf + i - ls) + 1;
        size_t j = i;
        int64_t v = 0;
        int big = 0;
        while (j < len && buf[j] >= '0' && buf[j] <= '9') {
            if (v > (INT64_MAX - 9) / 10)
                big = 1;
            else
                v = v * 10 + (buf[j] - '0');
            ++j;
        }
        const int sep = j >= len || buf[j] == ' ' || buf[j] == '\t' ||
                        buf[j] == '\r' || buf[j] == '\n' || buf[j] == '#';
        if (j == i || !sep) {
            size_t k = i;
            while (k < len && k - i < 20 && buf[k] != ' ' && buf[k] != '\t' &&
                   buf[k] != '\r' && buf[k] != '\n')
                ++k;
            char tok[100];
            shown(buf + i, k - i, tok, sizeof tok);
            st = rx__fail(err, RX_EDATA,
                          "%s:%lld:%lld: \"%s\" is not a row number (a "
                          "non-negative integer)", path, line, col, tok);
        } else if (big || v >= n_rows) {
            st = rx__fail(err, RX_EDATA,
                          "%s:%lld:%lld: row %.*s is outside the data file's "
                          "rows 0..%lld", path, line, col, (int)(j - i),
                          buf + i, (long long)n_rows - 1);
        } else if (in_test[v]) {
            st = rx__fail(err, RX_EDATA, "%s:%lld:%lld: row %lld is listed "
                          "twice", path, line, col, (long long)v);
        } else {
            in_test[v] = 1;
            ++nt;
        }
        i = j;
    }
    free(buf);
    if (st == RX_OK && nt == 0)
        st = rx__fail(err, RX_EDATA, "%s: lists no rows", path);
    if (st == RX_OK)
        *n_test = nt;
    return st;
}
