/*
 * The YAML front end of every file replex reads (experiment files, --set
 * values, bench grids): a small tree with source marks, built by libyaml,
 * with the bounds on input size and alias expansion (docs/yaml.md), and the
 * parsing of one schema leaf. Only src/io/ includes <yaml.h>.
 */
#ifndef RX_IO_YAML_H
#define RX_IO_YAML_H

#include "../config/config.h"

enum { YN_SCALAR, YN_SEQ, YN_MAP };

/* The bounds on a file (docs/yaml.md "Size bounds"): its bytes, its nodes
 * once aliases are expanded, and the nodes the aliases add (an alias is a
 * copy of its anchor's node, so nested aliases multiply: the last bound
 * stops that early and cheaply). */
#define RX_YAML_MAX_BYTES ((long)16 << 20)
#define RX_YAML_MAX_NODES 1048576
#define RX_YAML_MAX_ALIAS_NODES 65536

typedef struct ynode ynode;
struct ynode {
    int type;
    char *str;   /* scalar text */
    int quoted;  /* scalar was quoted (a string, never a number) */
    int n, cap;
    ynode **items;  /* seq items / map values */
    ynode **keys;   /* map keys (scalars) */
    int line, col;  /* 1-based */
    const char *file;
};

void rx__ynode_free(ynode *n);
ynode *rx__ynode_new(int type, int line, int col, const char *file);
int rx__ynode_push(ynode *m, ynode *key, ynode *val);
/* "a mapping", "a list", "a quoted string", "a plain scalar" */
const char *rx__ynode_type(const ynode *n);
/* A plain empty, ~ or null scalar. */
int rx__ynode_null(const ynode *n);

/* Parse YAML text (one document) into a tree; empty input -> an empty
 * mapping. set_line > 0: the value of --set number set_line (errors are
 * located at that argument, col_off added; an empty value is null). */
rx_status rx__yaml_parse(const unsigned char *buf, size_t len,
                         const char *file, int col_off, int set_line,
                         ynode **out, rx_err *err);
/* Read and parse a whole file. *empty (may be NULL) is set when the file
 * holds no document (empty or only comments). */
rx_status rx__yaml_load(const char *path, ynode **root, int *empty,
                        rx_err *err);

/* "file:line:col: path: ..." at a node; returns RX_ECONFIG. */
rx_status rx__node_err(rx_err *err, const ynode *n, const char *path,
                       const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 4, 5)))
#endif
    ;

/* Parse one leaf value into the config through its schema row. */
rx_status rx__set_leaf(rx_config *c, int ki, const ynode *n, rx_err *err);

#endif
