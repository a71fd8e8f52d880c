/*
 * The data layer: CSV / IDX / mnist-JSON loaders on good and bad files
 * (exact messages naming file and line or byte), the minibatch sampler,
 * seeded splits, class filters and standardisation; and, when data/ has
 * been provisioned (scripts/fetch_data.sh), the real files' sizes.
 */
#define _GNU_SOURCE
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zlib.h>

#include "../src/data/data.h"
#include "check.h"

static char tmpdir[256];
static const char *srcdir;

/* Path of a scratch file (in a static ring of buffers). */
static const char *tpath(const char *name)
{
    static char buf[8][512];
    static int i;
    char *p = buf[i++ % 8];
    snprintf(p, 512, "%s/%s", tmpdir, name);
    return p;
}

static const char *fixture(const char *name)
{
    static char buf[8][512];
    static int i;
    char *p = buf[i++ % 8];
    snprintf(p, 512, "%s/tests/data/%s", srcdir, name);
    return p;
}

static void write_bytes(const char *path, const void *b, size_t n)
{
    FILE *f = fopen(path, "wb");
    if (!f) {
        perror(path);
        exit(1);
    }
    fwrite(b, 1, n, f);
    fclose(f);
}

static void write_text(const char *path, const char *s)
{
    write_bytes(path, s, strlen(s));
}

static void write_gz(const char *path, const void *b, size_t n)
{
    gzFile g = gzopen(path, "wb");
    if (!g) {
        perror(path);
        exit(1);
    }
    gzwrite(g, b, (unsigned)n);
    gzclose(g);
}

static int contains(const char *s, const char *sub)
{
    return strstr(s, sub) != NULL;
}

/* Expects status st_want and a message equal to / containing ... */
#define CHECK_ERR_EQ(call, st_want, want)                                    \
    do {                                                                     \
        err.msg[0] = 0;                                                      \
        rx_status s_ = (call);                                               \
        CHECK_MSG(s_ == (st_want), "status %d", (int)s_);                    \
        CHECK_MSG(strcmp(err.msg, (want)) == 0, "message '%s' != '%s'",      \
                  err.msg, (want));                                          \
    } while (0)

#define CHECK_ERR_HAS(call, st_want, sub1, sub2)                             \
    do {                                                                     \
        rx_status s_ = (call);                                               \
        CHECK_MSG(s_ == (st_want), "status %d (%s)", (int)s_, err.msg);      \
        CHECK_MSG(contains(err.msg, (sub1)) && contains(err.msg, (sub2)),    \
                  "message '%s' lacks '%s' or '%s'", err.msg, (sub1),        \
                  (sub2));                                                   \
    } while (0)

static int is_empty(const rx__dataset *d)
{
    return d->n == 0 && d->x == NULL && d->y == NULL && !d->feat_names;
}

/* ---- CSV --------------------------------------------------------------- */
static void test_csv_good(void)
{
    rx_err err;
    rx__dataset d;
    rx__csvopts o;

    /* quoted header, CRLF, blanks around fields, blank trailing line */
    rx__csvopts_default(&o);
    o.target_name = "y";
    CHECK(rx__data_load_csv(&d, fixture("csv_header.csv"), &o, &err) ==
          RX_OK);
    CHECK(d.n == 3 && d.nfeat == 2 && d.n_classes == 0);
    CHECK(d.feat_names && strcmp(d.feat_names[0], "a") == 0 &&
          strcmp(d.feat_names[1], "b, c") == 0);
    CHECK(d.x[0] == 1.5f && d.x[1] == 2.0f && d.x[2] == -3.0f &&
          d.x[3] == 40.0f && d.x[4] == 0.0f && d.x[5] == 7.0f);
    CHECK(d.y[0] == 10.0f && d.y[1] == 20.0f && d.y[2] == 30.0f);
    CHECK(d.y_mean == 0.0 && d.y_sd == 1.0);
    CHECK(((uintptr_t)d.x & 63) == 0 && ((uintptr_t)d.y & 63) == 0);
    rx__data_free(&d);
    CHECK(is_empty(&d));

    /* target by index 0 and by -2 (from the end) */
    o.target_name = NULL;
    o.target_index = 0;
    CHECK(rx__data_load_csv(&d, fixture("csv_header.csv"), &o, &err) ==
          RX_OK);
    CHECK(d.n == 3 && d.nfeat == 2 && d.y[1] == -3.0f && d.x[0] == 2.0f &&
          d.x[1] == 10.0f && strcmp(d.feat_names[0], "b, c") == 0);
    rx__data_free(&d);
    o.target_index = -2;
    CHECK(rx__data_load_csv(&d, fixture("csv_header.csv"), &o, &err) ==
          RX_OK);
    CHECK(d.y[1] == 40.0f && d.x[2] == -3.0f && d.x[3] == 20.0f);
    rx__data_free(&d);

    /* no header (auto and explicit), default target: the last column */
    CHECK(rx__data_load_csv(&d, fixture("csv_noheader.csv"), NULL, &err) ==
          RX_OK);
    CHECK(d.n == 3 && d.nfeat == 3 && !d.feat_names && d.y[2] == 2.5f &&
          d.x[3] == 4.0f && d.x[8] == 9.0f);
    rx__data_free(&d);
    rx__csvopts_default(&o);
    o.header = 0;
    o.target_index = 1;
    CHECK(rx__data_load_csv(&d, fixture("csv_noheader.csv"), &o, &err) ==
          RX_OK);
    CHECK(d.n == 3 && d.nfeat == 3 && d.y[0] == 2.0f && d.x[1] == 3.0f &&
          d.x[2] == 0.5f);
    rx__data_free(&d);
    /* header: yes on a numeric first row takes it as names */
    o.header = 1;
    o.target_name = "3";
    CHECK(rx__data_load_csv(&d, fixture("csv_noheader.csv"), &o, &err) ==
          RX_OK);
    CHECK(d.n == 2 && d.y[0] == 6.0f && strcmp(d.feat_names[2], "0.5") == 0);
    rx__data_free(&d);

    /* sklearn: a count line, then the quoted header (boston layout) */
    rx__csvopts_default(&o);
    o.skip_rows = 1;
    o.target_name = "MEDV";
    CHECK(rx__data_load_csv(&d, fixture("csv_sklearn_counts.csv"), &o,
                            &err) == RX_OK);
    CHECK(d.n == 3 && d.nfeat == 2 && strcmp(d.feat_names[1], "F2") == 0);
    CHECK(d.y[1] == 21.6f && d.x[4] == 0.3f);
    rx__data_free(&d);

    /* sklearn: count line, no header, class labels remapped 3,5,7 ->
     * 0,1,2 (iris / wine / breast cancer layout) */
    rx__csvopts_default(&o);
    o.skip_rows = 1;
    o.header = 0;
    o.classification = 1;
    CHECK(rx__data_load_csv(&d, fixture("csv_sklearn_classes.csv"), &o,
                            &err) == RX_OK);
    CHECK(d.n == 4 && d.nfeat == 2 && d.n_classes == 3);
    CHECK(d.y[0] == 2.0f && d.y[1] == 0.0f && d.y[2] == 1.0f &&
          d.y[3] == 0.0f);
    rx__data_free(&d);

    /* delimiter auto: ';' and whitespace (sklearn's diabetes raw file),
     * and a gzipped CSV */
    write_text(tpath("semi.csv"), "p;q;t\n1;2;3\n4;5;6\n");
    rx__csvopts_default(&o);
    o.delim = 0;
    CHECK(rx__data_load_csv(&d, tpath("semi.csv"), &o, &err) == RX_OK);
    CHECK(d.n == 2 && d.nfeat == 2 && d.y[1] == 6.0f && d.x[2] == 4.0f);
    rx__data_free(&d);
    write_text(tpath("ws.txt"), "59 2 32.1\n  48 1\t21.6  \n\n");
    CHECK(rx__data_load_csv(&d, tpath("ws.txt"), &o, &err) == RX_OK);
    CHECK(d.n == 2 && d.nfeat == 2 && d.y[1] == 21.6f && d.x[2] == 48.0f);
    rx__data_free(&d);
    const char *gzcsv = "a,b\n1,2\n3,4\n";
    write_gz(tpath("g.csv.gz"), gzcsv, strlen(gzcsv));
    CHECK(rx__data_load_csv(&d, tpath("g.csv.gz"), NULL, &err) == RX_OK);
    CHECK(d.n == 2 && d.nfeat == 1 && d.y[1] == 4.0f);
    rx__data_free(&d);
    /* quoted field with an embedded quote and newline; no final newline */
    write_text(tpath("q.csv"), "\"x \"\"1\"\"\",\"t\nt\"\n1,2");
    CHECK(rx__data_load_csv(&d, tpath("q.csv"), NULL, &err) == RX_OK);
    CHECK(d.n == 1 && strcmp(d.feat_names[0], "x \"1\"") == 0 &&
          d.y[0] == 2.0f);
    rx__data_free(&d);
}

static void test_csv_bad(void)
{
    rx_err err;
    rx__dataset d;
    rx__csvopts o;
    char want[1024];
    const char *p;

    /* wrong field count, row named by its line */
    p = tpath("fields.csv");
    write_text(p, "a,b,c\n1,2,3\n4,5,6\n7,8\n9,10,11\n");
    snprintf(want, sizeof want, "%s:4: expected 3 fields, found 2", p);
    CHECK_ERR_EQ(rx__data_load_csv(&d, p, NULL, &err), RX_EDATA, want);
    CHECK(is_empty(&d));

    /* a non-number: line and column (with its header name) */
    p = tpath("nan.csv");
    write_text(p, "a,b,c\n1,2,3\n4,abc,6\n");
    snprintf(want, sizeof want, "%s:3: column 2 (b): not a number: 'abc'",
             p);
    CHECK_ERR_EQ(rx__data_load_csv(&d, p, NULL, &err), RX_EDATA, want);
    p = tpath("nan2.csv");
    write_text(p, "1,2,3\n\n4,5,\n");
    snprintf(want, sizeof want, "%s:3: column 3: empty field", p);
    CHECK_ERR_EQ(rx__data_load_csv(&d, p, NULL, &err), RX_EDATA, want);
    p = tpath("inf.csv");
    write_text(p, "1,2,3\n4,1e999,6\n");
    snprintf(want, sizeof want, "%s:2: column 2: not a finite number: "
             "'1e999'", p);
    CHECK_ERR_EQ(rx__data_load_csv(&d, p, NULL, &err), RX_EDATA, want);

    /* missing target column name: header line and the columns */
    rx__csvopts_default(&o);
    o.target_name = "PRICE";
    o.skip_rows = 1;
    p = fixture("csv_sklearn_counts.csv");
    snprintf(want, sizeof want, "%s:2: no column named 'PRICE' in the "
             "header (columns: F1, F2, MEDV)", p);
    CHECK_ERR_EQ(rx__data_load_csv(&d, p, &o, &err), RX_EDATA, want);
    /* by name without a header */
    o.header = 0;
    CHECK_ERR_HAS(rx__data_load_csv(&d, p, &o, &err), RX_EINVAL, p,
                  "no header row");
    /* index out of range */
    rx__csvopts_default(&o);
    o.target_index = 5;
    CHECK_ERR_HAS(rx__data_load_csv(&d, fixture("csv_noheader.csv"), &o,
                                    &err), RX_EINVAL, "csv_noheader.csv:1:",
                  "target column index 5 out of range for 4 columns");

    /* the sklearn count line not skipped: the hint says so */
    p = fixture("csv_sklearn_classes.csv");
    CHECK_ERR_HAS(rx__data_load_csv(&d, p, NULL, &err), RX_EDATA,
                  "csv_sklearn_classes.csv:2: expected 5 fields, found 3",
                  "skip_rows = 1");

    p = fixture("csv_sklearn_counts.csv");
    snprintf(want, sizeof want, "%s:2: expected 4 fields, found 3 (line 1, "
             "\"3,2,...\", may be a count line such as sklearn's: set "
             "skip_rows = 1)", p);
    CHECK_ERR_EQ(rx__data_load_csv(&d, p, NULL, &err), RX_EDATA, want);
    write_text(tpath("cnt.csv"), "4,2,x,y\na,b,c,d\n1,2,3,4\n");
    CHECK_ERR_HAS(rx__data_load_csv(&d, tpath("cnt.csv"), NULL, &err),
                  RX_EDATA, "cnt.csv:2: column 1 (4): not a number: 'a'",
                  "set skip_rows = 1");

    /* unterminated quote, text after a quote, missing file, empty file */
    p = tpath("quote.csv");
    write_text(p, "a,b\n1,\"2\n3,4\n");
    snprintf(want, sizeof want, "%s:2: unterminated quoted field (column "
             "2)", p);
    CHECK_ERR_EQ(rx__data_load_csv(&d, p, NULL, &err), RX_EDATA, want);
    p = tpath("quote2.csv");
    write_text(p, "a,b\n1,\"2\"x\n");
    CHECK_ERR_HAS(rx__data_load_csv(&d, p, NULL, &err), RX_EDATA,
                  "quote2.csv:2: column 2: unexpected 'x'", "closing quote");
    p = tpath("missing.csv");
    CHECK_ERR_HAS(rx__data_load_csv(&d, p, NULL, &err), RX_EIO, p,
                  "cannot open");
    p = tpath("empty.csv");
    write_text(p, "\n\n");
    snprintf(want, sizeof want, "%s: no data rows", p);
    CHECK_ERR_EQ(rx__data_load_csv(&d, p, NULL, &err), RX_EDATA, want);
    p = tpath("onlyhdr.csv");
    write_text(p, "a,b\n");
    CHECK_ERR_HAS(rx__data_load_csv(&d, p, NULL, &err), RX_EDATA, p,
                  "no data rows after the header");
    p = tpath("onecol.csv");
    write_text(p, "1\n2\n");
    CHECK_ERR_HAS(rx__data_load_csv(&d, p, NULL, &err), RX_EDATA,
                  "onecol.csv:1: one column only", "target");
    /* skip_rows beyond the file */
    rx__csvopts_default(&o);
    o.skip_rows = 9;
    CHECK_ERR_HAS(rx__data_load_csv(&d, p, &o, &err), RX_EDATA,
                  "skip_rows = 9", "only 2 lines");
    /* a non-integer class label */
    rx__csvopts_default(&o);
    o.classification = 1;
    o.header = 0;
    CHECK_ERR_HAS(rx__data_load_csv(&d, fixture("csv_noheader.csv"), &o,
                                    &err), RX_EDATA,
                  "csv_noheader.csv: data row 1: column 4",
                  "class label 0.5 is not an integer");
    CHECK(is_empty(&d));
}

/* ---- IDX --------------------------------------------------------------- */
static size_t idx_images(unsigned char *b, uint32_t magic, uint32_t n,
                         uint32_t r, uint32_t c)
{
    uint32_t h[4] = {magic, n, r, c};
    for (int i = 0; i < 4; ++i)
        for (int k = 0; k < 4; ++k)
            b[4 * i + k] = (unsigned char)(h[i] >> (24 - 8 * k));
    size_t np = (size_t)n * r * c;
    for (size_t i = 0; i < np; ++i)
        b[16 + i] = (unsigned char)(i * 37 % 256);
    return 16 + np;
}

static size_t idx_labels(unsigned char *b, uint32_t magic, uint32_t n)
{
    uint32_t h[2] = {magic, n};
    for (int i = 0; i < 2; ++i)
        for (int k = 0; k < 4; ++k)
            b[4 * i + k] = (unsigned char)(h[i] >> (24 - 8 * k));
    for (uint32_t i = 0; i < n; ++i)
        b[8 + i] = (unsigned char)(i % 4);
    return 8 + n;
}

static void test_idx(void)
{
    rx_err err;
    rx__dataset d;
    unsigned char img[4096], lab[64];
    char want[1024];

    /* good: 5 images of 3 x 4, plain and gzipped, labels 0..3 */
    size_t ni = idx_images(img, 0x803, 5, 3, 4);
    size_t nl = idx_labels(lab, 0x801, 5);
    write_bytes(tpath("i.idx"), img, ni);
    write_bytes(tpath("l.idx"), lab, nl);
    write_gz(tpath("i.idx.gz"), img, ni);
    write_gz(tpath("l.idx.gz"), lab, nl);
    CHECK(rx__data_load_idx(&d, tpath("i.idx"), tpath("l.idx"), &err) ==
          RX_OK);
    CHECK(d.n == 5 && d.nfeat == 12 && d.c == 1 && d.h == 3 && d.w == 4 &&
          d.n_classes == 4);
    CHECK(d.x[1] == 37.0f / 255.0f && d.x[59] == (float)(59 * 37 % 256) /
          255.0f && d.y[4] == 0.0f && d.y[3] == 3.0f);
    rx__dataset g;
    CHECK(rx__data_load_idx(&g, tpath("i.idx.gz"), tpath("l.idx.gz"),
                            &err) == RX_OK);
    CHECK(g.n == 5 && memcmp(g.x, d.x, 60 * sizeof(float)) == 0 &&
          memcmp(g.y, d.y, 5 * sizeof(float)) == 0);
    rx__data_free(&g);
    rx__data_free(&d);

    /* wrong magic (4 dims), labels given for images, type not uint8 */
    const char *p = tpath("m.idx");
    idx_images(img, 0x804, 5, 3, 4);
    write_bytes(p, img, ni);
    snprintf(want, sizeof want, "%s: wrong magic 0x00000804 (expected "
             "0x00000803 for images)", p);
    CHECK_ERR_EQ(rx__data_load_idx(&d, p, tpath("l.idx"), &err),
                 RX_EDATA, want);
    CHECK(is_empty(&d));
    CHECK_ERR_HAS(rx__data_load_idx(&d, tpath("l.idx"), tpath("l.idx"),
                                    &err), RX_EDATA,
                  "wrong magic 0x00000801 (expected 0x00000803 for images)",
                  "a label file given for images");
    CHECK_ERR_HAS(rx__data_load_idx(&d, tpath("i.idx"), tpath("i.idx"),
                                    &err), RX_EDATA,
                  "i.idx: wrong magic 0x00000803 (expected 0x00000801 for "
                  "labels)", "an image file given for labels");
    idx_images(img, 0xD03, 5, 3, 4);
    write_bytes(p, img, ni);
    CHECK_ERR_HAS(rx__data_load_idx(&d, p, tpath("l.idx"), &err),
                  RX_EDATA, "m.idx: wrong magic 0x00000d03",
                  "not uint8");

    /* sizes: fewer pixels than the header says, more, a zero dimension,
     * a short header */
    p = tpath("s.idx");
    ni = idx_images(img, 0x803, 5, 3, 4);
    write_bytes(p, img, ni - 7);
    snprintf(want, sizeof want, "%s: truncated: the header says 5 x 3 x 4 "
             "images (60 data bytes after byte 16), the file has 53", p);
    CHECK_ERR_EQ(rx__data_load_idx(&d, p, tpath("l.idx"), &err),
                 RX_EDATA, want);
    write_bytes(p, img, ni + 3);
    CHECK_ERR_HAS(rx__data_load_idx(&d, p, tpath("l.idx"), &err),
                  RX_EDATA, "s.idx: 3 bytes after the 5 x 3 x 4 images",
                  "expected 76");
    idx_images(img, 0x803, 5, 0, 4);
    write_bytes(p, img, 16);
    CHECK_ERR_HAS(rx__data_load_idx(&d, p, tpath("l.idx"), &err),
                  RX_EDATA, "s.idx: dimension 1 is 0", "byte 8");
    idx_images(img, 0x803, 5, 3, 4);
    write_bytes(p, img, 10);
    CHECK_ERR_HAS(rx__data_load_idx(&d, p, tpath("l.idx"), &err),
                  RX_EDATA, "s.idx: truncated IDX header",
                  "10 of 16 bytes");

    /* truncated .gz: a valid gzip file cut in half */
    unsigned char big[16 + 40 * 28 * 28];
    ni = idx_images(big, 0x803, 40, 28, 28);
    write_gz(tpath("full.gz"), big, ni);
    {
        FILE *f = fopen(tpath("full.gz"), "rb");
        unsigned char gz[sizeof big + 1024];
        size_t gn = fread(gz, 1, sizeof gz, f);
        fclose(f);
        CHECK(gn > 100);
        p = tpath("half.gz");
        write_bytes(p, gz, gn / 2);
        CHECK_ERR_HAS(rx__data_load_idx(&d, p, tpath("l.idx"), &err),
                      RX_EDATA, p, ": truncated gzip stream");
        /* the trailer only (CRC / size) missing */
        write_bytes(p, gz, gn - 4);
        CHECK_ERR_HAS(rx__data_load_idx(&d, p, tpath("l.idx"), &err),
                      RX_EDATA, p, ": truncated gzip stream");
        /* corrupt: a flipped byte in the deflate data */
        gz[gn / 2] ^= 0x55;
        gz[gn / 2 + 1] ^= 0xaa;
        write_bytes(p, gz, gn);
        CHECK_ERR_HAS(rx__data_load_idx(&d, p, tpath("l.idx"), &err),
                      RX_EDATA, p, "gzip stream");
    }

    /* counts disagree */
    nl = idx_labels(lab, 0x801, 4);
    write_bytes(tpath("l4.idx"), lab, nl);
    snprintf(want, sizeof want, "%s has 5 images but %s has 4 labels",
             tpath("i.idx"), tpath("l4.idx"));
    CHECK_ERR_EQ(rx__data_load_idx(&d, tpath("i.idx"), tpath("l4.idx"),
                                   &err), RX_EDATA, want);
    CHECK(is_empty(&d));
    CHECK_ERR_HAS(rx__data_load_idx(&d, tpath("nothere.idx"), tpath("l.idx"),
                                    &err), RX_EIO, "nothere.idx",
                  "cannot open");
}

/* ---- mnist JSON ----------------------------------------------------------- */
/* Writes dir/<digit>.json with `count` images whose pixels are
 * (digit * 10 + image) / 100 at pixel 0 and 0 elsewhere. */
static void write_digit(const char *dir, int digit, int count)
{
    char path[512];
    snprintf(path, sizeof path, "%s/%d.json", dir, digit);
    FILE *f = fopen(path, "wb");
    fputs("{ \"data\": [", f);
    for (int i = 0; i < count; ++i)
        for (int px = 0; px < 784; ++px)
            fprintf(f, "%s%g", i + px ? "," : "",
                    px ? 0.0 : (digit * 10 + i) / 100.0);
    fputs("]}", f);
    fclose(f);
}

static void test_mnist_json(void)
{
    rx_err err;
    rx__dataset d;
    char dir[512], want[1024];
    snprintf(dir, sizeof dir, "%s/mnist", tmpdir);
    mkdir(dir, 0755);
    for (int k = 0; k < 10; ++k)
        write_digit(dir, k, k % 3 + 1);
    CHECK(rx__data_load_mnist_json(&d, dir, &err) == RX_OK);
    int64_t want_n = 0;
    for (int k = 0; k < 10; ++k)
        want_n += k % 3 + 1;
    CHECK(d.n == want_n && d.nfeat == 784 && d.h == 28 && d.w == 28 &&
          d.c == 1 && d.n_classes == 10);
    /* digit 0: 1 image, digit 1: 2 images -> row 1 is digit 1 image 0 */
    CHECK(d.y[0] == 0.0f && d.y[1] == 1.0f && d.y[2] == 1.0f &&
          d.y[3] == 2.0f && d.y[d.n - 1] == 9.0f);
    CHECK(d.x[784] == 0.1f && d.x[2 * 784] == 0.11f && d.x[785] == 0.0f);
    rx__data_free(&d);

    /* other members and whitespace are fine */
    char path[600];
    snprintf(path, sizeof path, "%s/3.json", dir);
    {
        FILE *f = fopen(path, "wb");
        fputs("\n{\"name\" : \"three\", \"meta\": {\"a\": [1, true, null]},"
              "\n \"data\" :\n[", f);
        for (int px = 0; px < 784; ++px)
            fprintf(f, "%s%s", px ? " , " : "", px ? "0" : "1e-1");
        fputs(" ] }\n", f);
        fclose(f);
    }
    CHECK(rx__data_load_mnist_json(&d, dir, &err) == RX_OK);
    CHECK(d.n == want_n && d.y[6] == 3.0f && d.x[6 * 784] == 0.1f);
    rx__data_free(&d);

    /* malformed: a missing comma, with the byte offset */
    write_text(path, "{\"data\": [0, 0.5 0.25]}");
    snprintf(want, sizeof want, "%s: byte 17: expected ',' or ']', found "
             "'0'", path);
    CHECK_ERR_EQ(rx__data_load_mnist_json(&d, dir, &err), RX_EDATA,
                 want);
    CHECK(is_empty(&d));
    write_text(path, "{\"data\": [0, 0.5");
    snprintf(want, sizeof want, "%s: byte 16: expected ',' or ']', found "
             "the end of the file", path);
    CHECK_ERR_EQ(rx__data_load_mnist_json(&d, dir, &err), RX_EDATA,
                 want);
    write_text(path, "{\"data\": [0, 1.5]}");
    snprintf(want, sizeof want, "%s: byte 13: value 1.5 outside [0, 1]",
             path);
    CHECK_ERR_EQ(rx__data_load_mnist_json(&d, dir, &err), RX_EDATA,
                 want);
    write_text(path, "{\"data\": [0, x]}");
    CHECK_ERR_HAS(rx__data_load_mnist_json(&d, dir, &err), RX_EDATA,
                  path, ": byte 13: expected a number, found 'x'");
    write_text(path, "{\"data\": [0, 0.5]}");
    CHECK_ERR_HAS(rx__data_load_mnist_json(&d, dir, &err), RX_EDATA,
                  path, "2 values in \"data\" is not a whole number of 28 x "
                  "28 images");
    write_text(path, "{\"pixels\": []}");
    CHECK_ERR_HAS(rx__data_load_mnist_json(&d, dir, &err), RX_EDATA,
                  path, "no \"data\" member");
    write_text(path, "[0, 1]");
    CHECK_ERR_HAS(rx__data_load_mnist_json(&d, dir, &err), RX_EDATA,
                  path, "byte 0: expected '{', found '['");
    write_text(path, "{\"data\": []} x");
    CHECK_ERR_HAS(rx__data_load_mnist_json(&d, dir, &err), RX_EDATA,
                  path, "byte 13: expected the end of the file");
    write_text(path, "{\"data: [0]}");
    CHECK_ERR_HAS(rx__data_load_mnist_json(&d, dir, &err), RX_EDATA,
                  path, "byte 1: unterminated string");
    unlink(path);
    CHECK_ERR_HAS(rx__data_load_mnist_json(&d, dir, &err), RX_EIO, path,
                  "cannot open");
    CHECK(is_empty(&d));
    write_digit(dir, 3, 1);
}

/* ---- batcher ------------------------------------------------------------ */
static void test_batcher(void)
{
    rx_err err;
    rx__batcher b, c;

    /* n divisible by bs: every index exactly once per epoch */
    CHECK(rx__batcher_init(&b, 100, 10, 7, 3, &err) == RX_OK);
    CHECK(b.nb == 10);
    for (int e = 0; e < 4; ++e) {
        int seen[100] = {0};
        for (int j = 0; j < 10; ++j) {
            const int32_t *ix = rx__batcher_get(&b, e * 10 + j);
            for (int i = 0; i < 10; ++i)
                if (ix[i] >= 0 && ix[i] < 100)
                    seen[ix[i]]++;
        }
        int ok = 1;
        for (int i = 0; i < 100; ++i)
            ok &= seen[i] == 1;
        CHECK_MSG(ok, "epoch %d", e);
    }
    /* epochs differ */
    int32_t e0[10], e1[10];
    memcpy(e0, rx__batcher_get(&b, 0), sizeof e0);
    memcpy(e1, rx__batcher_get(&b, 10), sizeof e1);
    CHECK(memcmp(e0, e1, sizeof e0) != 0);
    rx__batcher_free(&b);

    /* n = 103, bs = 10: 10 batches, 100 distinct indices, 3 dropped */
    CHECK(rx__batcher_init(&b, 103, 10, 7, 3, &err) == RX_OK);
    CHECK(b.nb == 10);
    {
        int seen[103] = {0}, distinct = 0, dup = 0;
        for (int j = 0; j < 10; ++j) {
            const int32_t *ix = rx__batcher_get(&b, 20 + j);
            for (int i = 0; i < 10; ++i) {
                if (seen[ix[i]]++)
                    dup++;
                else
                    distinct++;
            }
        }
        CHECK(dup == 0 && distinct == 100);
    }

    /* determinism: a second sampler visiting k in another order */
    CHECK(rx__batcher_init(&c, 103, 10, 7, 3, &err) == RX_OK);
    static const int64_t ks[] = {0, 57, 3, 1000000007, 9, 10, 11, 57, 0};
    int32_t ref[9][10];
    for (int i = 0; i < 9; ++i)
        memcpy(ref[i], rx__batcher_get(&b, ks[i]), sizeof ref[i]);
    int same = 1;
    for (int i = 8; i >= 0; --i)
        same &= memcmp(ref[i], rx__batcher_get(&c, ks[i]),
                       sizeof ref[i]) == 0;
    CHECK(same);
    rx__batcher_free(&c);
    /* another entity or seed: other batches */
    CHECK(rx__batcher_init(&c, 103, 10, 7, 4, &err) == RX_OK);
    CHECK(memcmp(ref[0], rx__batcher_get(&c, 0), sizeof ref[0]) != 0);
    rx__batcher_free(&c);
    CHECK(rx__batcher_init(&c, 103, 10, 8, 3, &err) == RX_OK);
    CHECK(memcmp(ref[0], rx__batcher_get(&c, 0), sizeof ref[0]) != 0);
    rx__batcher_free(&c);
    CHECK(rx__batcher_get(&b, -1) == NULL);
    rx__batcher_free(&b);
    CHECK(rx__batcher_get(&b, 0) == NULL);

    /* bs == n: one batch, the whole permutation */
    CHECK(rx__batcher_init(&b, 5, 5, 1, 0, &err) == RX_OK);
    CHECK(b.nb == 1 && rx__batcher_get(&b, 3) != NULL);
    rx__batcher_free(&b);

    /* a data set smaller than the batch */
    CHECK_ERR_EQ(rx__batcher_init(&b, 50, 64, 1, 0, &err), RX_EINVAL,
                 "data set of 50 rows is smaller than the batch size 64");
    CHECK(b.perm == NULL && rx__batcher_get(&b, 0) == NULL);
    CHECK_ERR_HAS(rx__batcher_init(&b, 50, 0, 1, 0, &err), RX_EINVAL,
                  "batch size 0", "at least 1");
}

/* ---- split / filter / standardise ---------------------------------------- */
/* n rows, 3 features: (r, 2 r + 1 + r % 5, 4) and y = r. */
static void make_set(rx__dataset *d, int64_t n, int classes)
{
    memset(d, 0, sizeof *d);
    d->n = n;
    d->nfeat = 3;
    d->x = rx__alloc_aligned((size_t)n * 3 * sizeof(float), 64);
    d->y = rx__alloc_aligned((size_t)n * sizeof(float), 64);
    for (int64_t r = 0; r < n; ++r) {
        d->x[3 * r] = (float)r;
        d->x[3 * r + 1] = (float)(2 * r + 1 + r % 5);
        d->x[3 * r + 2] = 4.0f;
        d->y[r] = classes ? (float)(r % classes) : (float)r;
    }
    d->n_classes = classes;
    d->y_sd = 1.0;
}

/* A file of test rows: exactly those rows test, the rest train, both in
 * file order; comments, tabs and CRLF read; bad files refused with
 * file:line:col. */
static void test_split_rows(void)
{
    rx_err err;
    rx__dataset all, tr, te;
    make_set(&all, 12, 0);
    write_text(tpath("rows.txt"), "# held out\r\n7\t2 # two\r\n\n11\n0");
    CHECK(rx__data_split_rows(&all, tpath("rows.txt"), &tr, &te, &err) ==
          RX_OK);
    CHECK(te.n == 4 && tr.n == 8);
    const float want_te[4] = {0, 2, 7, 11};
    int ok = te.n == 4;
    for (int64_t i = 0; ok && i < te.n; ++i)
        ok = te.y[i] == want_te[i] && te.row[i] == (int64_t)want_te[i];
    CHECK_MSG(ok, "test rows 0 2 7 11 in file order");
    ok = tr.n == 8;
    for (int64_t i = 0, r = 0; ok && i < tr.n; ++i, ++r) {
        while (r == 0 || r == 2 || r == 7 || r == 11)
            ++r;
        ok = tr.y[i] == (float)r && tr.row[i] == r;
    }
    CHECK_MSG(ok, "training rows: the others, in file order");
    rx__data_free(&tr);
    rx__data_free(&te);
    /* bad files: the text, the status and two parts of the message */
    static const struct {
        const char *text, *sub1, *sub2;
    } bad[] = {
        {"3\n12\n", "rows.txt:2:1: row 12",
         "outside the data file's rows 0..11"},
        {"3 5\n  3", "rows.txt:2:3:", "row 3 is listed twice"},
        {"3\n-1\n", "rows.txt:2:1:", "\"-1\" is not a row number"},
        {"4.0", "rows.txt:1:1:", "\"4.0\""},
        {"99999999999999999999999", "rows.txt:1:1:", "is outside"},
        {"# none\n", "rows.txt", "lists no rows"},
        {"0 1 2 3 4 5 6 7 8 9 10 11", "all 12 rows", "no training rows"},
    };
    for (size_t b = 0; b < sizeof bad / sizeof bad[0]; ++b) {
        write_text(tpath("rows.txt"), bad[b].text);
        CHECK_ERR_HAS(rx__data_split_rows(&all, tpath("rows.txt"), &tr, &te,
                                          &err),
                      RX_EDATA, bad[b].sub1, bad[b].sub2);
    }
    CHECK_ERR_HAS(rx__data_split_rows(&all, tpath("no_such.txt"), &tr, &te,
                                      &err), RX_EIO, "no_such.txt", "open");
    CHECK(is_empty(&tr) && is_empty(&te));
    rx__data_free(&all);
}

static void test_split(void)
{
    rx_err err;
    rx__dataset all, tr, te, tr2, te2;
    make_set(&all, 101, 0);
    CHECK(rx__data_split(&all, 0.2, 11, 0, &tr, &te, &err) == RX_OK);
    CHECK(te.n == 20 && tr.n == 81 && tr.nfeat == 3);
    int seen[101] = {0}, order = 1;
    for (int64_t i = 0; i < tr.n; ++i) {
        seen[(int)tr.y[i]]++;
        CHECK(tr.x[3 * i] == tr.y[i]);
        if (i && tr.y[i] <= tr.y[i - 1])
            order = 0;
    }
    for (int64_t i = 0; i < te.n; ++i) {
        seen[(int)te.y[i]]++;
        if (i && te.y[i] <= te.y[i - 1])
            order = 0;
    }
    int ok = 1;
    for (int i = 0; i < 101; ++i)
        ok &= seen[i] == 1;
    CHECK_MSG(ok, "train and test disjoint, union complete");
    CHECK(order);
    /* same split id: same split; another: a different test set */
    CHECK(rx__data_split(&all, 0.2, 11, 0, &tr2, &te2, &err) == RX_OK);
    CHECK(memcmp(te.y, te2.y, 20 * sizeof(float)) == 0);
    rx__data_free(&tr2);
    rx__data_free(&te2);
    int differ = 0;
    for (uint32_t id = 1; id < 20; ++id) {
        CHECK(rx__data_split(&all, 0.2, 11, id, &tr2, &te2, &err) == RX_OK);
        differ += memcmp(te.y, te2.y, 20 * sizeof(float)) != 0;
        rx__data_free(&tr2);
        rx__data_free(&te2);
    }
    CHECK(differ == 19);
    CHECK(rx__data_split(&all, 0.2, 12, 0, &tr2, &te2, &err) == RX_OK);
    CHECK(memcmp(te.y, te2.y, 20 * sizeof(float)) != 0);
    rx__data_free(&tr2);
    rx__data_free(&te2);
    /* bad fractions */
    CHECK_ERR_HAS(rx__data_split(&all, 0.001, 1, 0, &tr2, &te2, &err),
                  RX_EINVAL, "0.001 of 101 rows", "empty test set");
    CHECK_ERR_HAS(rx__data_split(&all, 1.0, 1, 0, &tr2, &te2, &err),
                  RX_EINVAL, "test fraction 1", "(0, 1)");
    CHECK(is_empty(&tr2) && is_empty(&te2));

    /* standardise: train mean 0, sd 1 per feature; test with train stats;
     * a constant feature is centred only */
    rx__dataset te_raw;
    CHECK(rx__data_subset(&te_raw, &te, NULL, te.n, &err) == RX_OK);
    double mu[3] = {0}, sd[3] = {0};
    for (int j = 0; j < 3; ++j) {
        for (int64_t i = 0; i < tr.n; ++i)
            mu[j] += tr.x[3 * i + j];
        mu[j] /= (double)tr.n;
        for (int64_t i = 0; i < tr.n; ++i)
            sd[j] += (tr.x[3 * i + j] - mu[j]) * (tr.x[3 * i + j] - mu[j]);
        sd[j] = sqrt(sd[j] / (double)tr.n);
    }
    double ym = mu[0], ys = sd[0]; /* y = feature 0 */
    rx__dataset *sets[2] = {&tr, &te};
    CHECK(rx__data_standardise(sets, 2, &tr, 1, 1, 0, 0, &err) == RX_OK);
    for (int j = 0; j < 3; ++j) {
        double m = 0, v = 0;
        for (int64_t i = 0; i < tr.n; ++i)
            m += tr.x[3 * i + j];
        m /= (double)tr.n;
        for (int64_t i = 0; i < tr.n; ++i)
            v += (tr.x[3 * i + j] - m) * (tr.x[3 * i + j] - m);
        v /= (double)tr.n;
        CHECK_NEAR(m, 0.0, 1e-6);
        CHECK_NEAR(v, j == 2 ? 0.0 : 1.0, 1e-5);
    }
    int test_ok = 1;
    for (int64_t i = 0; i < te.n; ++i)
        for (int j = 0; j < 3; ++j) {
            double want = (te_raw.x[3 * i + j] - mu[j]) / (j == 2 ? 1 : sd[j]);
            test_ok &= fabs(te.x[3 * i + j] - want) < 1e-5;
        }
    CHECK_MSG(test_ok, "test set uses the train statistics");
    CHECK_NEAR(tr.y_mean, ym, 1e-9);
    CHECK_NEAR(tr.y_sd, ys, 1e-9);
    CHECK(te.y_mean == tr.y_mean && te.y_sd == tr.y_sd);
    CHECK_NEAR(te.y[0] * te.y_sd + te.y_mean, te_raw.y[0], 1e-4);
    /* twice on the targets is refused; mismatched features too */
    CHECK_ERR_HAS(rx__data_standardise(sets, 2, &tr, 0, 1, 0, 0, &err),
                  RX_EINVAL, "set 0", "already standardised");
    rx__data_free(&te_raw);

    /* fixed pixel statistics */
    rx__dataset px;
    make_set(&px, 4, 2);
    rx__dataset *one[1] = {&px};
    CHECK(rx__data_standardise(one, 1, &px, 1, 0, 0.5, 0.25, &err) ==
          RX_OK);
    CHECK(px.x[0] == -2.0f && px.x[3] == 2.0f && px.x[2] == 14.0f);
    CHECK_ERR_HAS(rx__data_standardise(one, 1, &px, 0, 1, 0, 0, &err),
                  RX_EINVAL, "targets of a classification set", "2 classes");
    rx__data_free(&px);

    /* class filter: classes {2, 0} of 0..3 -> 2 becomes 0, 0 becomes 1 */
    rx__dataset cl, f;
    make_set(&cl, 10, 4);
    int want_cls[2] = {2, 0};
    CHECK(rx__data_filter_classes(&f, &cl, want_cls, 2, &err) == RX_OK);
    CHECK(f.n == 5 && f.n_classes == 2); /* rows 0, 2, 4, 6, 8 */
    CHECK(f.y[0] == 1.0f && f.y[1] == 0.0f && f.y[2] == 1.0f &&
          f.x[3] == 2.0f && f.x[12] == 8.0f);
    rx__data_free(&f);
    int bad_cls[2] = {1, 1};
    CHECK_ERR_HAS(rx__data_filter_classes(&f, &cl, bad_cls, 2, &err),
                  RX_EINVAL, "class 1", "twice");
    bad_cls[1] = 4;
    CHECK_ERR_HAS(rx__data_filter_classes(&f, &cl, bad_cls, 2, &err),
                  RX_EINVAL, "class 4", "0..3");
    CHECK_ERR_HAS(rx__data_filter_classes(&f, &all, want_cls, 2, &err),
                  RX_EINVAL, "class filter", "regression");

    /* subset: chosen rows in the given order, names copied */
    int64_t rows[3] = {9, 0, 9};
    CHECK(rx__data_subset(&f, &cl, rows, 3, &err) == RX_OK);
    CHECK(f.n == 3 && f.x[0] == 9.0f && f.x[3] == 0.0f && f.y[2] == 1.0f &&
          f.n_classes == 4);
    rx__data_free(&f);
    rows[1] = 10;
    CHECK_ERR_HAS(rx__data_subset(&f, &cl, rows, 3, &err), RX_EINVAL,
                  "row 10", "outside 0..9");
    rx__data_free(&cl);

    rx__data_free(&all);
    rx__data_free(&tr);
    rx__data_free(&te);
}

/* ---- the provisioned data/ ------------------------------------------------- */
static int exists(const char *p)
{
    struct stat st;
    return stat(p, &st) == 0;
}

static void test_real(void)
{
    char a[600], b[600];
    rx_err err;
    rx__dataset d;
    rx__csvopts o;
    int ran = 0;

    snprintf(a, sizeof a, "%s/data/fashion-mnist/train-images-idx3-ubyte.gz",
             srcdir);
    snprintf(b, sizeof b, "%s/data/fashion-mnist/train-labels-idx1-ubyte.gz",
             srcdir);
    if (exists(a) && exists(b)) {
        ran++;
        rx_status st = rx__data_load_idx(&d, a, b, &err);
        CHECK_MSG(st == RX_OK, "%s", err.msg);
        CHECK(d.n == 60000 && d.nfeat == 784 && d.h == 28 && d.w == 28 &&
              d.n_classes == 10);
        rx__data_free(&d);
        snprintf(a, sizeof a,
                 "%s/data/fashion-mnist/t10k-images-idx3-ubyte.gz", srcdir);
        snprintf(b, sizeof b,
                 "%s/data/fashion-mnist/t10k-labels-idx1-ubyte.gz", srcdir);
        st = rx__data_load_idx(&d, a, b, &err);
        CHECK_MSG(st == RX_OK, "%s", err.msg);
        CHECK(d.n == 10000 && d.nfeat == 784 && d.n_classes == 10);
        rx__data_free(&d);
    }
    snprintf(a, sizeof a, "%s/data/mnist", srcdir);
    snprintf(b, sizeof b, "%s/data/mnist/0.json", srcdir);
    if (exists(b)) {
        ran++;
        rx_status st = rx__data_load_mnist_json(&d, a, &err);
        CHECK_MSG(st == RX_OK, "%s", err.msg);
        CHECK(d.n == 10000 && d.nfeat == 784 && d.n_classes == 10);
        int64_t zeros = 0;
        for (int64_t i = 0; i < d.n; ++i)
            zeros += d.y[i] == 0.0f;
        CHECK(zeros == 1001 && d.y[d.n - 1] == 9.0f);
        rx__data_free(&d);
    }
    static const struct {
        const char *file, *target;
        int skip, header, cls;
        int64_t n, nfeat;
        int K;
    } uci[] = {
        {"boston_house_prices.csv", "MEDV", 1, 1, 0, 506, 13, 0},
        {"diabetes.csv", "target", 0, 1, 0, 442, 10, 0},
        {"wine_data.csv", NULL, 1, 0, 1, 178, 13, 3},
        {"breast_cancer.csv", NULL, 1, 0, 1, 569, 30, 2},
        {"iris.csv", NULL, 1, 0, 1, 150, 4, 3},
        {"digits.csv.gz", NULL, 0, 0, 1, 1797, 64, 10},
    };
    for (size_t i = 0; i < sizeof uci / sizeof uci[0]; ++i) {
        snprintf(a, sizeof a, "%s/data/uci/%s", srcdir, uci[i].file);
        if (!exists(a))
            continue;
        ran++;
        rx__csvopts_default(&o);
        o.skip_rows = uci[i].skip;
        o.header = uci[i].header;
        o.target_name = uci[i].target;
        o.classification = uci[i].cls;
        rx_status st = rx__data_load_csv(&d, a, &o, &err);
        CHECK_MSG(st == RX_OK, "%s", err.msg);
        CHECK_MSG(d.n == uci[i].n && d.nfeat == uci[i].nfeat &&
                  d.n_classes == uci[i].K, "%s: %lld x %lld, %d classes",
                  uci[i].file, (long long)d.n, (long long)d.nfeat,
                  d.n_classes);
        if (i == 0)
            CHECK(d.feat_names && strcmp(d.feat_names[0], "CRIM") == 0 &&
                  strcmp(d.feat_names[12], "LSTAT") == 0 && d.y[0] == 24.0f);
        rx__data_free(&d);
    }
    if (!ran)
        printf("note: %s/data/ not provisioned (scripts/fetch_data.sh): "
               "real-file checks skipped\n", srcdir);
    else
        printf("real data: %d sets checked\n", ran);
}

/* ---- inputs found by the libFuzzer harnesses (fuzz/fuzz_*.c) ---------- */
/* Each file of tests/data/fuzz-regressions/ once crashed a harness; it must
 * now give the clean error below and an empty data set. */
static void test_fuzz_regressions(void)
{
    rx__dataset d;
    rx_err err;
    char want[700];
    /* a value finite as a double but beyond the float range became an
     * infinite feature (fuzz_csv, property "finite features") */
    const char *p = fixture("fuzz-regressions/csv_float_overflow.csv");
    snprintf(want, sizeof want, "%s:6: column 2 (x2): beyond the float "
             "range (3.4e38): '", p);
    CHECK_ERR_HAS(rx__data_load_csv(&d, p, NULL, &err), RX_EDATA, want,
                  "44444");
    CHECK(is_empty(&d));
    /* the same as the target: no infinite y either */
    rx__csvopts o;
    rx__csvopts_default(&o);
    o.target_index = 1;
    CHECK_ERR_HAS(rx__data_load_csv(&d, p, &o, &err), RX_EDATA, want,
                  "44444");
    CHECK(is_empty(&d));
}

int main(void)
{
    srcdir = getenv("RX_SRCDIR");
    if (!srcdir)
        srcdir = ".";
    const char *t = getenv("TMPDIR");
    snprintf(tmpdir, sizeof tmpdir, "%s/rx_test_data_XXXXXX", t ? t : "/tmp");
    if (!mkdtemp(tmpdir)) {
        perror("mkdtemp");
        return 1;
    }
    test_csv_good();
    test_csv_bad();
    test_idx();
    test_mnist_json();
    test_batcher();
    test_split();
    test_split_rows();
    test_real();
    test_fuzz_regressions();

    char cmd[600];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", tmpdir);
    if (system(cmd) != 0)
        fprintf(stderr, "could not remove %s\n", tmpdir);
    return check_done();
}
