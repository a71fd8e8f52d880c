/*
 * CSV loader: one example per record, a target column chosen by header
 * name or index, everything else features. Reads the whole file (gzip
 * too) and tokenises it in place; errors name the file and the line.
 */
#include <float.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "data.h"

void rx__csvopts_default(rx__csvopts *o)
{
    memset(o, 0, sizeof *o);
    o->header = -1;
    o->target_name = NULL;
    o->target_index = -1;
    o->skip_rows = 0;
    o->delim = ',';
    o->classification = 0;
}

/* The input cursor. delim ' ' means "runs of blanks separate fields". */
typedef struct csvin {
    const char *path;
    const char *p, *end;
    int64_t line; /* 1-based line of *p */
    char delim;
} csvin;

/* One record: NUL-terminated field texts packed in buf, starts in off. */
typedef struct csvrec {
    char *buf;
    size_t len, cap;
    size_t *off;
    int nf, fcap;
    int64_t line; /* line the record starts on */
} csvrec;

static void rec_free(csvrec *r)
{
    free(r->buf);
    free(r->off);
    memset(r, 0, sizeof *r);
}

static int rec_putc(csvrec *r, char c)
{
    if (r->len == r->cap) {
        size_t c2 = r->cap ? r->cap * 2 : 256;
        char *nb = realloc(r->buf, c2);
        if (!nb)
            return 0;
        r->buf = nb;
        r->cap = c2;
    }
    r->buf[r->len++] = c;
    return 1;
}

static int rec_field(csvrec *r)
{
    if (r->nf == r->fcap) {
        int c2 = r->fcap ? r->fcap * 2 : 32;
        size_t *no = realloc(r->off, (size_t)c2 * sizeof *no);
        if (!no)
            return 0;
        r->off = no;
        r->fcap = c2;
    }
    r->off[r->nf++] = r->len;
    return 1;
}

static const char *field(const csvrec *r, int i) { return r->buf + r->off[i]; }

static int is_blank(char c) { return c == ' ' || c == '\t'; }

/* At a line end (\n, \r\n, lone \r) or the end of input. */
static int at_eol(const csvin *in)
{
    return in->p >= in->end || *in->p == '\n' || *in->p == '\r';
}

static void eat_eol(csvin *in)
{
    if (in->p < in->end && *in->p == '\r')
        ++in->p;
    if (in->p < in->end && *in->p == '\n')
        ++in->p;
    ++in->line;
}

/* Skips lines holding only blanks; returns 0 at the end of input. */
static int skip_blank_lines(csvin *in)
{
    for (;;) {
        const char *q = in->p;
        while (q < in->end && is_blank(*q))
            ++q;
        if (q >= in->end) {
            in->p = q;
            return 0;
        }
        if (*q != '\n' && *q != '\r')
            return 1;
        in->p = q;
        eat_eol(in);
    }
}

/* A quoted field at in->p ("" is a quote; newlines allowed inside). */
static rx_status quoted(csvin *in, csvrec *r, rx_err *err)
{
    int64_t start_line = in->line;
    ++in->p;
    for (;;) {
        if (in->p >= in->end)
            return rx__fail(err, RX_EDATA, "%s:%lld: unterminated "
                            "quoted field (column %d)", in->path,
                            (long long)start_line, r->nf);
        char c = *in->p;
        if (c == '"') {
            if (in->p + 1 < in->end && in->p[1] == '"') {
                if (!rec_putc(r, '"'))
                    return RX_ENOMEM;
                in->p += 2;
                continue;
            }
            ++in->p;
            break;
        }
        if (c == '\n' || (c == '\r' && (in->p + 1 >= in->end ||
                                        in->p[1] != '\n')))
            ++in->line;
        if (!rec_putc(r, c))
            return RX_ENOMEM;
        ++in->p;
    }
    while (in->p < in->end && is_blank(*in->p) && *in->p != in->delim)
        ++in->p;
    if (!at_eol(in) && *in->p != in->delim &&
        !(in->delim == ' ' && is_blank(*in->p)))
        return rx__fail(err, RX_EDATA, "%s:%lld: column %d: unexpected "
                        "'%c' after a closing quote", in->path,
                        (long long)in->line, r->nf, *in->p);
    return RX_OK;
}

/*
 * Reads the next non-blank record into r. Returns 1 for a record, 0 at the
 * end of input, or a negative rx_status (message in err).
 */
static int next_record(csvin *in, csvrec *r, rx_err *err)
{
    r->len = 0;
    r->nf = 0;
    if (!skip_blank_lines(in))
        return 0;
    r->line = in->line;
    const int ws = in->delim == ' ';
    for (;;) {
        if (ws) {
            while (in->p < in->end && is_blank(*in->p))
                ++in->p;
            if (at_eol(in))
                break;
        } else {
            while (in->p < in->end && is_blank(*in->p) &&
                   *in->p != in->delim)
                ++in->p;
        }
        if (!rec_field(r))
            return RX_ENOMEM;
        if (in->p < in->end && *in->p == '"') {
            rx_status st = quoted(in, r, err);
            if (st == RX_ENOMEM)
                return rx__fail(err, st, "%s: out of memory", in->path);
            if (st != RX_OK)
                return st;
        } else {
            size_t f0 = r->len;
            while (!at_eol(in) && *in->p != in->delim &&
                   !(ws && is_blank(*in->p))) {
                if (!rec_putc(r, *in->p))
                    return rx__fail(err, RX_ENOMEM, "%s: out of memory",
                                    in->path);
                ++in->p;
            }
            while (r->len > f0 && is_blank(r->buf[r->len - 1]))
                --r->len;
        }
        if (!rec_putc(r, 0))
            return rx__fail(err, RX_ENOMEM, "%s: out of memory", in->path);
        if (!ws && !at_eol(in) && *in->p == in->delim) {
            ++in->p;
            continue;
        }
        if (at_eol(in))
            break;
    }
    if (in->p < in->end)
        eat_eol(in);
    return 1;
}

/* A finite number filling the whole field. 0: empty, -1: not a number,
 * -2: not finite, -3: finite but beyond the float range (the values are
 * stored as float, where it would become infinite). */
static int parse_num(const char *s, double *v)
{
    if (!*s)
        return 0;
    char *e;
    double d = strtod(s, &e);
    if (e == s || *e)
        return -1;
    if (!isfinite(d))
        return -2;
    if (fabs(d) > FLT_MAX)
        return -3;
    *v = d;
    return 1;
}

/* Picks ',', ';' or tab (most frequent outside quotes on the first
 * non-blank line), else blanks. */
static char guess_delim(const csvin *in)
{
    csvin t = *in;
    skip_blank_lines(&t);
    int cnt[3] = {0, 0, 0}, q = 0;
    static const char cand[3] = {',', ';', '\t'};
    for (const char *p = t.p; p < t.end && (q || (*p != '\n' && *p != '\r'));
         ++p) {
        if (*p == '"')
            q = !q;
        for (int i = 0; i < 3 && !q; ++i)
            if (*p == cand[i])
                cnt[i]++;
    }
    int best = -1;
    for (int i = 0; i < 3; ++i)
        if (cnt[i] > 0 && (best < 0 || cnt[i] > cnt[best]))
            best = i;
    return best < 0 ? ' ' : cand[best];
}

/* Up to 40 characters of a field for a message. */
static void clip(char *dst, size_t cap, const char *s)
{
    size_t n = strlen(s);
    if (n + 1 <= cap && n <= 40) {
        memcpy(dst, s, n + 1);
        return;
    }
    snprintf(dst, cap, "%.37s...", s);
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* One load: the text, the record being read, what the first record told
 * (columns, header) and the rows read so far. */
typedef struct csvload {
    char *text;
    csvrec rec;
    char **names;  /* ncols header names, or NULL */
    int ncols;
    float *xs;     /* growable rows x (ncols - 1) */
    double *ys;
    size_t rows, rcap;
    int64_t first_line;  /* line of the first record (header or data) */
    int first_nf;        /* its fields                                */
    int64_t header_line; /* line of the header, 0 without one         */
} csvload;

static void load_free(csvload *L)
{
    free(L->text);
    rec_free(&L->rec);
    if (L->names) {
        for (int i = 0; i < L->ncols; ++i)
            free(L->names[i]);
        free(L->names);
    }
    free(L->xs);
    free(L->ys);
}

static int push_row(csvload *L)
{
    if (L->rows < L->rcap)
        return 1;
    size_t c = L->rcap ? L->rcap * 2 : 1024, nf = (size_t)L->ncols - 1;
    float *nx = realloc(L->xs, c * nf * sizeof *nx);
    if (!nx)
        return 0;
    L->xs = nx;
    double *ny = realloc(L->ys, c * sizeof *ny);
    if (!ny)
        return 0;
    L->ys = ny;
    L->rcap = c;
    return 1;
}

/* "column 3 (AGE)" or "column 3". */
static void colname(char *dst, size_t cap, const csvload *L, int c)
{
    if (L->names)
        snprintf(dst, cap, "column %d (%.60s)", c + 1, L->names[c]);
    else
        snprintf(dst, cap, "column %d", c + 1);
}

/* Remaps integer class values to 0..K-1 in ascending order. */
static rx_status classes(const char *path, csvload *L, int tcol,
                         int *n_classes, rx_err *err)
{
    for (size_t i = 0; i < L->rows; ++i)
        if (L->ys[i] != floor(L->ys[i]) || fabs(L->ys[i]) > 1e9) {
            char cn[96];
            colname(cn, sizeof cn, L, tcol);
            return rx__fail(err, RX_EDATA, "%s: data row %zu: %s: class "
                            "label %g is not an integer", path, i + 1, cn,
                            L->ys[i]);
        }
    double *u = malloc(L->rows * sizeof *u);
    if (!u)
        return rx__fail(err, RX_ENOMEM, "%s: out of memory", path);
    memcpy(u, L->ys, L->rows * sizeof *u);
    qsort(u, L->rows, sizeof *u, cmp_double);
    size_t k = 0;
    for (size_t i = 0; i < L->rows; ++i)
        if (k == 0 || u[i] != u[k - 1])
            u[k++] = u[i];
    if (k > 100000) {
        free(u);
        return rx__fail(err, RX_EDATA, "%s: %zu distinct class labels "
                        "(is the target a regression value?)", path, k);
    }
    for (size_t i = 0; i < L->rows; ++i) {
        size_t lo = 0, hi = k - 1;
        while (lo < hi) {
            size_t mid = (lo + hi) / 2;
            if (u[mid] < L->ys[i])
                lo = mid + 1;
            else
                hi = mid;
        }
        L->ys[i] = (double)lo;
    }
    free(u);
    *n_classes = (int)k;
    return RX_OK;
}

/* After the byte-order mark and skip_rows lines, with the delimiter
 * guessed where none is given. */
static rx_status start_text(csvin *in, const char *path,
                            const rx__csvopts *o, rx_err *err)
{
    const size_t len = (size_t)(in->end - in->p);
    if (len >= 3 && (unsigned char)in->p[0] == 0xef &&
        (unsigned char)in->p[1] == 0xbb && (unsigned char)in->p[2] == 0xbf)
        in->p += 3;
    for (int i = 0; i < o->skip_rows; ++i) {
        if (in->p >= in->end)
            return rx__fail(err, RX_EDATA, "%s: skip_rows = %d but the "
                            "file has only %lld lines", path, o->skip_rows,
                            (long long)in->line - 1);
        while (!at_eol(in))
            ++in->p;
        eat_eol(in);
    }
    if (in->delim == 0)
        in->delim = guess_delim(in);
    return RX_OK;
}

/* The first record: the column count, and the header's names where it is
 * one (header: yes, or auto and a field that is not a number). */
static rx_status first_record(csvload *L, csvin *in, const char *path,
                              const rx__csvopts *o, rx_err *err)
{
    int r = next_record(in, &L->rec, err);
    if (r < 0)
        return (rx_status)r;
    if (r == 0)
        return rx__fail(err, RX_EDATA, "%s: no data rows", path);
    L->ncols = L->rec.nf;
    L->first_line = L->rec.line;
    L->first_nf = L->rec.nf;
    int has_header = o->header == 1;
    if (o->header == -1) {
        double v;
        for (int i = 0; i < L->rec.nf && !has_header; ++i)
            if (parse_num(field(&L->rec, i), &v) != 1)
                has_header = 1;
    }
    if (has_header) {
        L->header_line = L->rec.line;
        L->names = calloc((size_t)L->ncols, sizeof *L->names);
        if (!L->names)
            return rx__fail(err, RX_ENOMEM, "%s: out of memory", path);
        for (int i = 0; i < L->ncols; ++i)
            if (!(L->names[i] = rx__data_strdup(field(&L->rec, i))))
                return rx__fail(err, RX_ENOMEM, "%s: out of memory", path);
    }
    return RX_OK;
}

/* The target column, by header name or by index (negative: from the
 * end), and at least one feature beside it. */
static rx_status target_column(const csvload *L, const char *path,
                               const rx__csvopts *o, int *tcol, rx_err *err)
{
    if (o->target_name) {
        if (!L->header_line)
            return rx__fail(err, RX_EINVAL, "%s: target column '%s' given "
                            "by name but the file has no header row%s", path,
                            o->target_name,
                            o->header == 0 ? " (header: no)" : "");
        *tcol = -1;
        for (int i = 0; i < L->ncols && *tcol < 0; ++i)
            if (strcmp(L->names[i], o->target_name) == 0)
                *tcol = i;
        if (*tcol < 0) {
            char list[400];
            size_t k = 0;
            list[0] = 0;
            for (int i = 0; i < L->ncols && k + 70 < sizeof list; ++i)
                k += (size_t)snprintf(list + k, sizeof list - k, "%s%.60s",
                                      i ? ", " : "", L->names[i]);
            if (k + 70 >= sizeof list)
                snprintf(list + k, sizeof list - k, ", ...");
            return rx__fail(err, RX_EDATA, "%s:%lld: no column named '%s' "
                            "in the header (columns: %s)", path,
                            (long long)L->header_line, o->target_name, list);
        }
    } else {
        *tcol = o->target_index < 0 ? L->ncols + o->target_index
                                    : o->target_index;
        if (*tcol < 0 || *tcol >= L->ncols)
            return rx__fail(err, RX_EINVAL, "%s:%lld: target column index "
                            "%d out of range for %d columns", path,
                            (long long)L->first_line, o->target_index,
                            L->ncols);
    }
    if (L->ncols < 2)
        return rx__fail(err, RX_EDATA, "%s:%lld: one column only: need at "
                        "least one feature and a target", path,
                        (long long)L->first_line);
    return RX_OK;
}

/* The record in L->rec as one more row (target to ys, the rest to xs);
 * hint ends its error messages. */
static rx_status push_record(csvload *L, const char *path, int tcol,
                             const char *hint, rx_err *err)
{
    if (L->rec.nf != L->ncols)
        return rx__fail(err, RX_EDATA, "%s:%lld: expected %d fields, "
                        "found %d%s", path, (long long)L->rec.line, L->ncols,
                        L->rec.nf, hint);
    if (!push_row(L))
        return rx__fail(err, RX_ENOMEM, "%s: out of memory", path);
    float *xr = L->xs + L->rows * (size_t)(L->ncols - 1);
    for (int c = 0, j = 0; c < L->ncols; ++c) {
        double v = 0.0;
        int pr = parse_num(field(&L->rec, c), &v);
        if (pr != 1) {
            char cn[96], txt[48];
            colname(cn, sizeof cn, L, c);
            clip(txt, sizeof txt, field(&L->rec, c));
            return rx__fail(err, RX_EDATA, "%s:%lld: %s: %s%s%s%s", path,
                            (long long)L->rec.line, cn,
                            pr == 0 ? "empty field" : pr == -2
                                ? "not a finite number: '"
                                : pr == -3
                                ? "beyond the float range (3.4e38): '"
                                : "not a number: '",
                            pr == 0 ? "" : txt, pr == 0 ? "" : "'", hint);
        }
        if (c == tcol)
            L->ys[L->rows] = v;
        else
            xr[j++] = (float)v;
    }
    L->rows++;
    return RX_OK;
}

/* Every data record, from the first record (without a header) or the one
 * after the header. */
static rx_status data_rows(csvload *L, csvin *in, const char *path,
                           const rx__csvopts *o, int tcol, rx_err *err)
{
    int r = 1;
    if (L->header_line) {
        r = next_record(in, &L->rec, err);
        if (r < 0)
            return (rx_status)r;
    }
    /* A first line that starts with two integers may be sklearn's count
     * line ("506,13,,..."): errors on the next record say so. */
    char hint[200] = "";
    {
        double v0, v1;
        if (o->skip_rows == 0 && L->names && L->first_nf >= 2 &&
            parse_num(L->names[0], &v0) == 1 &&
            parse_num(L->names[1], &v1) == 1 && v0 == floor(v0) &&
            v1 == floor(v1) && v0 > 0 && v1 > 0)
            snprintf(hint, sizeof hint, " (line %lld, \"%.20s,%.20s,...\", "
                     "may be a count line such as sklearn's: set skip_rows "
                     "= 1)", (long long)L->first_line, L->names[0],
                     L->names[1]);
    }
    int nrec = 1; /* records read so far, header included */
    while (r == 1) {
        rx_status st = push_record(L, path, tcol, nrec == 1 ? hint : "", err);
        if (st != RX_OK)
            return st;
        nrec++;
        r = next_record(in, &L->rec, err);
        if (r < 0)
            return (rx_status)r;
    }
    if (L->rows == 0)
        return rx__fail(err, RX_EDATA, "%s: no data rows after the header "
                        "(line %lld)", path, (long long)L->header_line);
    return RX_OK;
}

/* The rows into d (aligned copies; the feature names move); 0 when out of
 * memory. */
static int to_dataset(rx__dataset *d, csvload *L, int tcol, int n_classes)
{
    size_t nf = (size_t)L->ncols - 1;
    d->n = (int64_t)L->rows;
    d->nfeat = (int64_t)nf;
    d->n_classes = n_classes;
    d->y_sd = 1.0;
    d->x = rx__alloc_aligned(L->rows * nf * sizeof(float), 64);
    d->y = rx__alloc_aligned(L->rows * sizeof(float), 64);
    if (!d->x || !d->y)
        return 0;
    memcpy(d->x, L->xs, L->rows * nf * sizeof(float));
    for (size_t i = 0; i < L->rows; ++i)
        d->y[i] = (float)L->ys[i];
    if (L->names) {
        d->feat_names = calloc(nf, sizeof *d->feat_names);
        if (!d->feat_names)
            return 0;
        for (int c = 0, j = 0; c < L->ncols; ++c) {
            if (c == tcol)
                continue;
            d->feat_names[j++] = L->names[c];
            L->names[c] = NULL;
        }
    }
    return 1;
}

rx_status rx__data_load_csv(rx__dataset *d, const char *path,
                            const rx__csvopts *o, rx_err *err)
{
    if (!d)
        return rx__fail(err, RX_EINVAL, "csv: no output data set");
    memset(d, 0, sizeof *d);
    rx__csvopts def;
    if (!o) {
        rx__csvopts_default(&def);
        o = &def;
    }
    if (o->skip_rows < 0 || o->header < -1 || o->header > 1)
        return rx__fail(err, RX_EINVAL, "%s: bad CSV options (skip_rows %d, "
                        "header %d)", path ? path : "csv", o->skip_rows,
                        o->header);
    csvload L;
    memset(&L, 0, sizeof L);
    size_t len = 0;
    rx_status st = rx__data_read_file(path, &L.text, &len, err);
    if (st != RX_OK)
        return st;

    csvin in = {path, L.text, L.text + len, 1, o->delim};
    int tcol = -1, n_classes = 0;
    st = start_text(&in, path, o, err);
    if (st == RX_OK)
        st = first_record(&L, &in, path, o, err);
    if (st == RX_OK)
        st = target_column(&L, path, o, &tcol, err);
    if (st == RX_OK)
        st = data_rows(&L, &in, path, o, tcol, err);
    if (st == RX_OK && o->classification)
        st = classes(path, &L, tcol, &n_classes, err);
    if (st == RX_OK && !to_dataset(d, &L, tcol, n_classes))
        st = rx__fail(err, RX_ENOMEM, "%s: out of memory", path);
    load_free(&L);
    if (st != RX_OK)
        rx__data_free(d);
    return st;
}
