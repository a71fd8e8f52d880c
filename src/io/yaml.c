/*
 * YAML text -> a small tree with source marks (libyaml's document API).
 * Errors are "file:line:col: problem" (1-based line and column).
 */
#define _POSIX_C_SOURCE 200809L
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <yaml.h>

#include "../core/internal.h"
#include "yaml.h"

void rx__ynode_free(ynode *n)
{
    if (!n)
        return;
    for (int i = 0; i < n->n; ++i) {
        rx__ynode_free(n->items[i]);
        if (n->keys)
            rx__ynode_free(n->keys[i]);
    }
    free(n->items);
    free(n->keys);
    free(n->str);
    free(n);
}

ynode *rx__ynode_new(int type, int line, int col, const char *file)
{
    ynode *n = calloc(1, sizeof *n);
    if (n) {
        n->type = type;
        n->line = line;
        n->col = col;
        n->file = file;
    }
    return n;
}

int rx__ynode_push(ynode *m, ynode *key, ynode *val)
{
    ynode **it = realloc(m->items, sizeof(ynode *) * (size_t)(m->n + 1));
    if (!it)
        return -1;
    m->items = it;
    if (m->type == YN_MAP) {
        ynode **ks = realloc(m->keys, sizeof(ynode *) * (size_t)(m->n + 1));
        if (!ks)
            return -1;
        m->keys = ks;
        m->keys[m->n] = key;
    }
    m->items[m->n++] = val;
    return 0;
}

#define MAX_DEPTH 64

/* Convert a libyaml document node; returns NULL on OOM or excessive depth
 * (deep nesting or alias cycles are refused, never followed). */
static ynode *convert(yaml_document_t *doc, yaml_node_t *yn, const char *file,
                      int depth, rx_err *err)
{
    int line = (int)yn->start_mark.line + 1, col = (int)yn->start_mark.column + 1;
    if (depth > MAX_DEPTH) {
        rx__fail(err, RX_ECONFIG, "%s:%d:%d: nesting deeper than %d levels",
                 file, line, col, MAX_DEPTH);
        return NULL;
    }
    ynode *n = NULL;
    switch (yn->type) {
    case YAML_SCALAR_NODE:
        n = rx__ynode_new(YN_SCALAR, line, col, file);
        if (!n)
            break;
        n->str = malloc(yn->data.scalar.length + 1);
        if (!n->str) {
            rx__ynode_free(n);
            return NULL;
        }
        memcpy(n->str, yn->data.scalar.value, yn->data.scalar.length);
        n->str[yn->data.scalar.length] = '\0';
        if (strlen(n->str) != yn->data.scalar.length) {
            rx__fail(err, RX_ECONFIG, "%s:%d:%d: NUL byte inside a scalar",
                     file, line, col);
            rx__ynode_free(n);
            return NULL;
        }
        n->quoted = yn->data.scalar.style != YAML_PLAIN_SCALAR_STYLE;
        return n;
    case YAML_SEQUENCE_NODE:
        n = rx__ynode_new(YN_SEQ, line, col, file);
        if (!n)
            break;
        for (yaml_node_item_t *it = yn->data.sequence.items.start;
             it < yn->data.sequence.items.top; ++it) {
            ynode *c = convert(doc, yaml_document_get_node(doc, *it), file,
                               depth + 1, err);
            if (!c || rx__ynode_push(n, NULL, c)) {
                rx__ynode_free(c);
                rx__ynode_free(n);
                return NULL;
            }
        }
        return n;
    case YAML_MAPPING_NODE:
        n = rx__ynode_new(YN_MAP, line, col, file);
        if (!n)
            break;
        for (yaml_node_pair_t *pr = yn->data.mapping.pairs.start;
             pr < yn->data.mapping.pairs.top; ++pr) {
            ynode *k = convert(doc, yaml_document_get_node(doc, pr->key),
                               file, depth + 1, err);
            ynode *v = k ? convert(doc, yaml_document_get_node(doc, pr->value),
                                   file, depth + 1, err)
                         : NULL;
            if (!k || !v || rx__ynode_push(n, k, v)) {
                rx__ynode_free(k);
                rx__ynode_free(v);
                rx__ynode_free(n);
                return NULL;
            }
        }
        return n;
    default:
        rx__fail(err, RX_ECONFIG, "%s:%d:%d: empty node", file, line, col);
        return NULL;
    }
    rx__fail(err, RX_ENOMEM, "%s: out of memory reading YAML", file);
    return NULL;
}

/* Parse YAML text (one document) into a tree. Empty input -> empty map. */
/* set_line > 0: parsing the value of --set number set_line: errors are
 * located at that argument, and an empty value is null (not a mapping). */
static rx_status parse_doc(const unsigned char *buf, size_t len,
                           const char *file, int col_off, int set_line,
                           ynode **out, int *empty, rx_err *err)
{
    *out = NULL;
    yaml_parser_t p;
    yaml_document_t doc;
    if (!yaml_parser_initialize(&p))
        return rx__fail(err, RX_ENOMEM, "%s: out of memory", file);
    yaml_parser_set_input_string(&p, buf, len);
    if (!yaml_parser_load(&p, &doc)) {
        int line = set_line > 0 ? set_line : (int)p.problem_mark.line + 1;
        int col = (int)p.problem_mark.column + 1 + col_off;
        size_t at = p.problem_mark.index;
        int tab = at < len && buf[at] == '\t';
        rx_status st = rx__fail(err, RX_ECONFIG,
                                "%s:%d:%d: invalid YAML: %s%s%s%s", file, line,
                                col, p.problem ? p.problem : "syntax error",
                                p.context ? " " : "",
                                p.context ? p.context : "",
                                tab ? " (a tab: YAML indentation must use "
                                      "spaces)"
                                    : "");
        yaml_parser_delete(&p);
        return st;
    }
    yaml_node_t *root = yaml_document_get_root_node(&doc);
    rx_status st = RX_OK;
    if (!root) {
        *empty = 1;
        *out = rx__ynode_new(set_line > 0 ? YN_SCALAR : YN_MAP, 1, 1, file);
        if (*out && set_line > 0 && !((*out)->str = calloc(1, 1))) {
            rx__ynode_free(*out);
            *out = NULL;
        }
        if (!*out)
            st = rx__fail(err, RX_ENOMEM, "%s: out of memory", file);
    } else {
        *out = convert(&doc, root, file, 0, err);
        if (!*out)
            st = RX_ECONFIG;
    }
    /* a second document is an error: experiments are one mapping */
    if (st == RX_OK) {
        yaml_document_t doc2;
        if (yaml_parser_load(&p, &doc2)) {
            if (yaml_document_get_root_node(&doc2)) {
                yaml_node_t *r2 = yaml_document_get_root_node(&doc2);
                st = rx__fail(err, RX_ECONFIG,
                              "%s:%d:%d: a second YAML document; an "
                              "experiment file holds exactly one",
                              file, (int)r2->start_mark.line + 1,
                              (int)r2->start_mark.column + 1);
            }
            yaml_document_delete(&doc2);
        }
    }
    yaml_document_delete(&doc);
    yaml_parser_delete(&p);
    if (st != RX_OK) {
        rx__ynode_free(*out);
        *out = NULL;
    }
    return st;
}

/* Error at a tree node. */
rx_status rx__node_err(rx_err *err, const ynode *n, const char *path,
                          const char *fmt, ...)
{
    if (err) {
        int w = snprintf(err->msg, sizeof err->msg, "%s:%d:%d: %s: ",
                         n->file, n->line, n->col, path);
        if (w < 0)
            w = 0;
        if ((size_t)w < sizeof err->msg) {
            va_list ap;
            va_start(ap, fmt);
            vsnprintf(err->msg + w, sizeof err->msg - (size_t)w, fmt, ap);
            va_end(ap);
        }
    }
    return RX_ECONFIG;
}

const char *rx__ynode_type(const ynode *n)
{
    if (n->type == YN_MAP)
        return "a mapping";
    if (n->type == YN_SEQ)
        return "a list";
    if (n->quoted)
        return "a quoted string";
    return "a plain scalar";
}

int rx__ynode_null(const ynode *n)
{
    return n->type == YN_SCALAR && !n->quoted &&
           (n->str[0] == '\0' || strcmp(n->str, "~") == 0 ||
            strcmp(n->str, "null") == 0 || strcmp(n->str, "Null") == 0 ||
            strcmp(n->str, "NULL") == 0);
}

static rx_status read_file(const char *path, unsigned char **buf, size_t *len,
                           rx_err *err)
{
    *buf = NULL;
    FILE *f = fopen(path, "rb");
    if (!f)
        return rx__fail(err, RX_EIO, "%s: cannot open: %s", path,
                        strerror(errno));
    size_t cap = 4096, n = 0;
    unsigned char *b = malloc(cap);
    while (b) {
        size_t r = fread(b + n, 1, cap - n, f);
        n += r;
        if (r == 0)
            break;
        if (n == cap) {
            if (cap > ((size_t)64 << 20)) {
                free(b);
                fclose(f);
                return rx__fail(err, RX_ECONFIG,
                                "%s: larger than 64 MiB; not an experiment "
                                "file",
                                path);
            }
            unsigned char *nb = realloc(b, cap * 2);
            if (!nb) {
                free(b);
                b = NULL;
                break;
            }
            b = nb;
            cap *= 2;
        }
    }
    int bad = ferror(f);
    fclose(f);
    if (!b)
        return rx__fail(err, RX_ENOMEM, "%s: out of memory", path);
    if (bad) {
        free(b);
        return rx__fail(err, RX_EIO, "%s: read error", path);
    }
    *buf = b;
    *len = n;
    return RX_OK;
}

/* Read and parse a whole experiment file into a tree. */
rx_status rx__yaml_parse(const unsigned char *buf, size_t len,
                         const char *file, int col_off, int set_line,
                         ynode **out, rx_err *err)
{
    int empty = 0;
    return parse_doc(buf, len, file, col_off, set_line, out, &empty, err);
}

rx_status rx__yaml_load(const char *path, ynode **root, int *empty,
                        rx_err *err)
{
    int e = 0;
    unsigned char *buf;
    size_t len = 0;
    rx_status st = read_file(path, &buf, &len, err);
    if (st != RX_OK)
        return st;
    st = parse_doc(buf, len, path, 0, 0, root, &e, err);
    free(buf);
    if (empty)
        *empty = e;
    return st;
}
