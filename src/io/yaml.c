/*
 * YAML text -> a small tree with source marks, built from libyaml's events
 * (its document API would hold every node and alias reference at about 270
 * bytes each before we could count them). Bounds (docs/yaml.md): a file of
 * at most RX_YAML_MAX_BYTES, at most RX_YAML_MAX_NODES nodes with aliases
 * expanded, of which aliases add at most RX_YAML_MAX_ALIAS_NODES, nesting
 * at most 64 deep. Errors are "file:line:col: problem"
 * (1-based line and column); running out of memory is RX_ENOMEM.
 */
#define _POSIX_C_SOURCE 200809L
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
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
    if (m->n == m->cap) {
        int cap = m->cap ? 2 * m->cap : 4;
        ynode **it = realloc(m->items, sizeof(ynode *) * (size_t)cap);
        if (!it)
            return -1;
        m->items = it;
        if (m->type == YN_MAP) {
            ynode **ks = realloc(m->keys, sizeof(ynode *) * (size_t)cap);
            if (!ks)
                return -1;
            m->keys = ks;
        }
        m->cap = cap;
    }
    if (m->type == YN_MAP)
        m->keys[m->n] = key;
    m->items[m->n++] = val;
    return 0;
}

/* ------------------------------------------------------------------------ */
/* Events -> tree, within the bounds.                                        */
/* ------------------------------------------------------------------------ */

#define MAX_DEPTH 64

typedef struct anchor {
    char *name;
    ynode *node; /* NULL while its node is being read */
} anchor;

typedef struct builder {
    yaml_parser_t p;
    const unsigned char *buf;
    size_t len;
    const char *file;
    int col_off, set_line;
    long nodes;  /* made so far, aliases expanded */
    long alias_nodes; /* of those, made by expanding aliases */
    anchor *anc;
    int nanc, capanc;
    rx_err *err;
} builder;

static int mline(const builder *b, const yaml_mark_t *m)
{
    return b->set_line > 0 ? b->set_line : (int)m->line + 1;
}

static int mcol(const builder *b, const yaml_mark_t *m)
{
    return (int)m->column + 1 + b->col_off;
}

static rx_status oom_at(builder *b, const yaml_mark_t *m)
{
    return rx__fail(b->err, RX_ENOMEM, "%s:%d:%d: out of memory reading YAML",
                    b->file, mline(b, m), mcol(b, m));
}

/* The next event; libyaml's problem as "invalid YAML" otherwise. */
static rx_status next_event(builder *b, yaml_event_t *ev)
{
    if (yaml_parser_parse(&b->p, ev))
        return RX_OK;
    if (b->p.error == YAML_MEMORY_ERROR)
        return rx__fail(b->err, RX_ENOMEM, "%s: out of memory reading YAML",
                        b->file);
    const yaml_mark_t *m = &b->p.problem_mark;
    size_t at = m->index;
    int tab = at < b->len && b->buf[at] == '\t';
    return rx__fail(b->err, RX_ECONFIG, "%s:%d:%d: invalid YAML: %s%s%s%s",
                    b->file, mline(b, m), mcol(b, m),
                    b->p.problem ? b->p.problem : "syntax error",
                    b->p.context ? " " : "",
                    b->p.context ? b->p.context : "",
                    tab ? " (a tab: YAML indentation must use spaces)" : "");
}

/* Count `add` more nodes against the bound. */
static rx_status count_nodes(builder *b, const yaml_mark_t *m, long add,
                             int alias)
{
    b->nodes += add;
    if (b->nodes <= RX_YAML_MAX_NODES)
        return RX_OK;
    return rx__fail(b->err, RX_ECONFIG,
                    "%s:%d:%d: more than %d YAML nodes%s (the bound on a "
                    "file, docs/yaml.md)",
                    b->file, mline(b, m), mcol(b, m), RX_YAML_MAX_NODES,
                    alias ? " once its aliases are expanded" : "");
}

/* Remember an anchor (its node comes later for collections). */
static int anchor_open(builder *b, const yaml_char_t *name)
{
    if (!name)
        return 0;
    if (b->nanc == b->capanc) {
        int cap = b->capanc ? 2 * b->capanc : 8;
        anchor *na = realloc(b->anc, sizeof *na * (size_t)cap);
        if (!na)
            return -1;
        b->anc = na;
        b->capanc = cap;
    }
    anchor *a = &b->anc[b->nanc];
    if (!(a->name = strdup((const char *)name)))
        return -1;
    a->node = NULL;
    return b->nanc++ + 1; /* 1-based handle */
}

static long tree_size(const ynode *n)
{
    long s = 1;
    for (int i = 0; i < n->n; ++i)
        s += tree_size(n->items[i]) + (n->keys ? tree_size(n->keys[i]) : 0);
    return s;
}

static ynode *tree_copy(const ynode *n)
{
    ynode *c = rx__ynode_new(n->type, n->line, n->col, n->file);
    if (!c)
        return NULL;
    c->quoted = n->quoted;
    if (n->str && !(c->str = strdup(n->str))) {
        rx__ynode_free(c);
        return NULL;
    }
    for (int i = 0; i < n->n; ++i) {
        ynode *k = n->keys ? tree_copy(n->keys[i]) : NULL;
        ynode *v = tree_copy(n->items[i]);
        if (!v || (n->keys && !k) || rx__ynode_push(c, k, v)) {
            rx__ynode_free(k);
            rx__ynode_free(v);
            rx__ynode_free(c);
            return NULL;
        }
    }
    return c;
}

/* An alias: a copy of its anchor's node, counted against the bound. */
static rx_status alias_node(builder *b, const yaml_event_t *ev, ynode **out)
{
    const char *name = (const char *)ev->data.alias.anchor;
    const yaml_mark_t *m = &ev->start_mark;
    int i = b->nanc - 1;
    while (i >= 0 && strcmp(b->anc[i].name, name) != 0)
        --i;
    if (i < 0)
        return rx__fail(b->err, RX_ECONFIG,
                        "%s:%d:%d: invalid YAML: found undefined alias",
                        b->file, mline(b, m), mcol(b, m));
    if (!b->anc[i].node)
        return rx__fail(b->err, RX_ECONFIG,
                        "%s:%d:%d: the alias *%s stands inside the node it "
                        "names (a cycle)",
                        b->file, mline(b, m), mcol(b, m), name);
    const long size = tree_size(b->anc[i].node);
    b->alias_nodes += size;
    if (b->alias_nodes > RX_YAML_MAX_ALIAS_NODES)
        return rx__fail(b->err, RX_ECONFIG,
                        "%s:%d:%d: aliases expand to more than %d nodes (the "
                        "bound on a file, docs/yaml.md)",
                        b->file, mline(b, m), mcol(b, m),
                        RX_YAML_MAX_ALIAS_NODES);
    rx_status st = count_nodes(b, m, size, 1);
    if (st != RX_OK)
        return st;
    if (!(*out = tree_copy(b->anc[i].node)))
        return oom_at(b, m);
    return RX_OK;
}

static rx_status read_node(builder *b, yaml_event_t *ev, int depth,
                           ynode **out);

/* The items (or key/value pairs) of a collection up to its end event. */
static rx_status read_items(builder *b, ynode *n, yaml_event_type_t end,
                            int depth)
{
    for (;;) {
        yaml_event_t ev;
        rx_status st = next_event(b, &ev);
        if (st != RX_OK)
            return st;
        if (ev.type == end) {
            yaml_event_delete(&ev);
            return RX_OK;
        }
        ynode *k = NULL, *v = NULL;
        yaml_mark_t m = ev.start_mark;
        if (n->type == YN_MAP) {
            st = read_node(b, &ev, depth + 1, &k);
            if (st == RX_OK)
                st = next_event(b, &ev);
            if (st == RX_OK)
                m = ev.start_mark;
        }
        if (st == RX_OK)
            st = read_node(b, &ev, depth + 1, &v);
        if (st == RX_OK && rx__ynode_push(n, k, v))
            st = oom_at(b, &m);
        if (st != RX_OK) {
            rx__ynode_free(k);
            rx__ynode_free(v);
            return st;
        }
    }
}

/* The node that starts with event ev (deleted here); *out its tree. Deep
 * nesting is refused, never followed. */
static rx_status read_node(builder *b, yaml_event_t *ev, int depth,
                           ynode **out)
{
    const yaml_mark_t m = ev->start_mark;
    const int line = mline(b, &m), col = mcol(b, &m);
    *out = NULL;
    rx_status st = depth > MAX_DEPTH
                       ? rx__fail(b->err, RX_ECONFIG,
                                  "%s:%d:%d: nesting deeper than %d levels",
                                  b->file, line, col, MAX_DEPTH)
                       : count_nodes(b, &m, ev->type == YAML_ALIAS_EVENT
                                                ? 0 : 1, 0);
    if (st == RX_OK && ev->type == YAML_ALIAS_EVENT)
        st = alias_node(b, ev, out);
    if (st != RX_OK || ev->type == YAML_ALIAS_EVENT) {
        yaml_event_delete(ev);
        return st;
    }
    const int type = ev->type == YAML_SCALAR_EVENT ? YN_SCALAR
                     : ev->type == YAML_SEQUENCE_START_EVENT ? YN_SEQ
                                                             : YN_MAP;
    const yaml_char_t *aname = type == YN_SCALAR ? ev->data.scalar.anchor
                               : type == YN_SEQ
                                   ? ev->data.sequence_start.anchor
                                   : ev->data.mapping_start.anchor;
    ynode *n = rx__ynode_new(type, line, col, b->file);
    int ah = n ? anchor_open(b, aname) : -1;
    if (ah < 0) {
        rx__ynode_free(n);
        yaml_event_delete(ev);
        return oom_at(b, &m);
    }
    if (type == YN_SCALAR) {
        size_t len = ev->data.scalar.length;
        n->quoted = ev->data.scalar.style != YAML_PLAIN_SCALAR_STYLE;
        if (!(n->str = malloc(len + 1)))
            st = oom_at(b, &m);
        else {
            memcpy(n->str, ev->data.scalar.value, len);
            n->str[len] = '\0';
            if (strlen(n->str) != len)
                st = rx__fail(b->err, RX_ECONFIG,
                              "%s:%d:%d: NUL byte inside a scalar", b->file,
                              line, col);
        }
    }
    yaml_event_delete(ev);
    if (st == RX_OK && type != YN_SCALAR)
        st = read_items(b, n, type == YN_SEQ ? YAML_SEQUENCE_END_EVENT
                                             : YAML_MAPPING_END_EVENT,
                        depth);
    if (st != RX_OK) {
        rx__ynode_free(n);
        return st;
    }
    if (ah > 0)
        b->anc[ah - 1].node = n;
    *out = n;
    return RX_OK;
}

/* After the first document: another one that holds a node is an error
 * (experiments are one mapping); a problem past the first is ignored. */
static rx_status second_document(builder *b)
{
    yaml_event_t ev;
    rx_err scratch;
    rx_err *keep = b->err;
    b->err = &scratch;
    rx_status st = next_event(b, &ev);
    if (st == RX_OK && ev.type == YAML_DOCUMENT_START_EVENT) {
        yaml_event_delete(&ev);
        st = next_event(b, &ev);
        b->err = keep;
        if (st != RX_OK)
            return RX_OK;
        int has_root = ev.type != YAML_DOCUMENT_END_EVENT;
        yaml_mark_t m = ev.start_mark;
        yaml_event_delete(&ev);
        if (has_root)
            return rx__fail(b->err, RX_ECONFIG,
                            "%s:%d:%d: a second YAML document; an experiment "
                            "file holds exactly one",
                            b->file, (int)m.line + 1, (int)m.column + 1);
        return RX_OK;
    }
    if (st == RX_OK)
        yaml_event_delete(&ev);
    b->err = keep;
    return RX_OK;
}

/* Stream start, document start, the root node (NULL for an empty
 * document or stream), document end. */
static rx_status read_document(builder *b, ynode **root)
{
    yaml_event_t ev;
    rx_status st = next_event(b, &ev);
    for (int i = 0; st == RX_OK && i < 2; ++i) {
        /* stream start, then document start or stream end */
        int stop = ev.type == YAML_STREAM_END_EVENT;
        yaml_event_delete(&ev);
        if (stop)
            return RX_OK;
        st = next_event(b, &ev);
    }
    if (st != RX_OK)
        return st;
    if (ev.type == YAML_DOCUMENT_END_EVENT) {
        yaml_event_delete(&ev);
        return second_document(b);
    }
    st = read_node(b, &ev, 0, root);
    if (st == RX_OK)
        st = next_event(b, &ev); /* document end */
    if (st == RX_OK) {
        yaml_event_delete(&ev);
        st = second_document(b);
    }
    return st;
}

/* Parse YAML text (one document) into a tree. Empty input -> empty map. */
/* set_line > 0: parsing the value of --set number set_line: errors are
 * located at that argument, and an empty value is null (not a mapping). */
static rx_status parse_doc(const unsigned char *buf, size_t len,
                           const char *file, int col_off, int set_line,
                           ynode **out, int *empty, rx_err *err)
{
    *out = NULL;
    builder b;
    memset(&b, 0, sizeof b);
    b.buf = buf;
    b.len = len;
    b.file = file;
    b.col_off = col_off;
    b.set_line = set_line;
    b.err = err;
    if (!yaml_parser_initialize(&b.p))
        return rx__fail(err, RX_ENOMEM, "%s: out of memory", file);
    yaml_parser_set_input_string(&b.p, buf, len);
    rx_status st = read_document(&b, out);
    yaml_parser_delete(&b.p);
    for (int i = 0; i < b.nanc; ++i)
        free(b.anc[i].name);
    free(b.anc);
    if (st != RX_OK) {
        rx__ynode_free(*out);
        *out = NULL;
        return st;
    }
    if (!*out) {
        *empty = 1;
        *out = rx__ynode_new(set_line > 0 ? YN_SCALAR : YN_MAP, 1, 1, file);
        if (*out && set_line > 0 && !((*out)->str = calloc(1, 1))) {
            rx__ynode_free(*out);
            *out = NULL;
        }
        if (!*out)
            return rx__fail(err, RX_ENOMEM, "%s: out of memory", file);
    }
    return RX_OK;
}

/* Error at a tree node. */
rx_status rx__node_err(rx_err *err, const ynode *n, const char *path,
                          const char *fmt, ...)
{
    if (err) {
        int w = snprintf(err->msg, sizeof err->msg, "%s:%d:%d: %s: ",
                         n->file, n->line, n->col, path);
        va_list ap;
        va_start(ap, fmt);
        rx__err_vappend(err, w, fmt, ap);
        va_end(ap);
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

static rx_status too_large(const char *path, rx_err *err)
{
    return rx__fail(err, RX_ECONFIG,
                    "%s: larger than %ld MiB, the bound on a YAML file "
                    "(docs/yaml.md); not an experiment file",
                    path, RX_YAML_MAX_BYTES >> 20);
}

/* The whole file, refused before reading when larger than the bound. */
static rx_status read_file(const char *path, unsigned char **buf, size_t *len,
                           rx_err *err)
{
    *buf = NULL;
    FILE *f = fopen(path, "rb");
    if (!f)
        return rx__fail(err, RX_EIO, "%s: cannot open: %s", path,
                        strerror(errno));
    struct stat sb;
    if (fstat(fileno(f), &sb) == 0 && S_ISDIR(sb.st_mode)) {
        fclose(f);
        return rx__fail(err, RX_EIO, "%s: is a directory, not an experiment "
                        "file", path);
    }
    if (fstat(fileno(f), &sb) == 0 && S_ISREG(sb.st_mode) &&
        sb.st_size > RX_YAML_MAX_BYTES) {
        fclose(f);
        return too_large(path, err);
    }
    size_t cap = 4096, n = 0;
    unsigned char *b = malloc(cap);
    while (b) {
        size_t r = fread(b + n, 1, cap - n, f);
        n += r;
        if (n > (size_t)RX_YAML_MAX_BYTES) {
            free(b);
            fclose(f);
            return too_large(path, err); /* a pipe or a growing file */
        }
        if (r == 0)
            break;
        if (n == cap) {
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
    int bad = ferror(f), e = errno;
    fclose(f);
    if (!b)
        return rx__fail(err, RX_ENOMEM, "%s: out of memory", path);
    if (bad) {
        free(b);
        return rx__fail(err, RX_EIO, "%s: read error: %s", path,
                        e ? strerror(e) : "unknown");
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
