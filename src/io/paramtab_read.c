/*
 * The per-parameter table read back from a finished run's summary.json
 * (paramtab.h, rx__paramtab_read), for `replex summary DIR`: the
 * "parameters" block rx__paramtab_json wrote and a network's "metrics"
 * block, into the struct rx__paramtab_get fills, so the same printer
 * prints it. The file is JSON, which the YAML front end reads (a JSON
 * document is a YAML flow document), with its bounds and its
 * file:line:col marks.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "paramtab.h"
#include "yaml.h"

/* Map m's value under key, or NULL (m not a mapping, or no such key). */
static const ynode *get(const ynode *m, const char *key)
{
    if (!m || m->type != YN_MAP)
        return NULL;
    for (int i = 0; i < m->n; ++i)
        if (m->keys[i]->str && !strcmp(m->keys[i]->str, key))
            return m->items[i];
    return NULL;
}

/* A number of map m under key: finite, or null with "key_not_finite"
 * ("nan", "inf", "-inf") beside it (rx__json_kv). */
static rx_status num(const ynode *m, const char *path, const char *key,
                     double *out, rx_err *err)
{
    const ynode *n = get(m, key);
    if (!n)
        return rx__node_err(err, m, path, "no \"%s\"", key);
    if (n->type == YN_SCALAR && !n->quoted && rx__ynode_null(n)) {
        char nf[64];
        snprintf(nf, sizeof nf, "%s_not_finite", key);
        const ynode *w = get(m, nf);
        const char *s = w && w->type == YN_SCALAR && w->str ? w->str : "";
        *out = !strcmp(s, "inf") ? INFINITY
               : !strcmp(s, "-inf") ? -INFINITY : NAN;
        return RX_OK;
    }
    char *end = NULL;
    if (n->type == YN_SCALAR && !n->quoted && n->str && n->str[0]) {
        *out = strtod(n->str, &end);
        if (*end == '\0')
            return RX_OK;
    }
    return rx__node_err(err, n, path, "\"%s\": expected a number or null, "
                        "found %s", key, rx__ynode_type(n));
}

/* An integer field of map m in [lo, hi]. */
static rx_status integer(const ynode *m, const char *path, const char *key,
                         double lo, double hi, int64_t *out, rx_err *err)
{
    double v;
    rx_status st = num(m, path, key, &v, err);
    if (st != RX_OK)
        return st;
    if (!(v >= lo && v <= hi) || v != floor(v))
        return rx__node_err(err, get(m, key), path, "\"%s\": expected an "
                            "integer from %.0f to %.0f", key, lo, hi);
    *out = (int64_t)v;
    return RX_OK;
}

/* A true/false field of map m (absent: dflt). */
static rx_status boolean(const ynode *m, const char *path, const char *key,
                         int dflt, int *out, rx_err *err)
{
    const ynode *n = get(m, key);
    *out = dflt;
    if (!n)
        return RX_OK;
    if (n->type == YN_SCALAR && !n->quoted && n->str &&
        (!strcmp(n->str, "true") || !strcmp(n->str, "false"))) {
        *out = n->str[0] == 't';
        return RX_OK;
    }
    return rx__node_err(err, n, path, "\"%s\": expected true or false", key);
}

/* The columns of a row, in rx__param_stats order. */
static const char *const COLS[] = {
    "mean", "sd", "q5", "q50", "q95", "mcse_mean", "ess_mean",
    "ess_batch_means", "ess_bulk", "ess_tail", "rhat"};
#define NCOLS ((int)(sizeof COLS / sizeof COLS[0]))

static rx_status row(const ynode *r, int i, rx__paramtab *t, rx_err *err)
{
    char path[48];
    snprintf(path, sizeof path, "parameters.rows[%d]", i);
    if (r->type != YN_MAP)
        return rx__node_err(err, r, path, "expected a mapping, found %s",
                            rx__ynode_type(r));
    const ynode *nm = get(r, "name");
    if (!nm || nm->type != YN_SCALAR || !nm->str || !nm->str[0] ||
        strlen(nm->str) >= sizeof t->name[0])
        return rx__node_err(err, nm ? nm : r, path, "\"name\": expected a "
                            "name of 1 to %d characters",
                            (int)sizeof t->name[0] - 1);
    memcpy(t->name[i], nm->str, strlen(nm->str) + 1);
    double c[NCOLS];
    for (int k = 0; k < NCOLS; ++k) {
        rx_status st = num(r, path, COLS[k], &c[k], err);
        if (st != RX_OK)
            return st;
    }
    rx__param_stats *s = &t->row[i];
    s->mean = c[0];
    s->sd = c[1];
    s->q5 = c[2];
    s->q50 = c[3];
    s->q95 = c[4];
    s->mcse_mean = c[5];
    s->ess_mean = c[6];
    s->ess_bm = c[7];
    s->ess_bulk = c[8];
    s->ess_tail = c[9];
    s->rhat = c[10];
    s->raw_bulk = s->raw_tail = NAN; /* not stored */
    return RX_OK;
}

/* A run's "metrics" block (the model average of a network) into m. */
static rx_status metrics(const ynode *b, rx_metrics *m, rx_err *err)
{
    int64_t v;
    rx_status st;
    memset(m, 0, sizeof *m);
    if (b->type != YN_MAP)
        return rx__node_err(err, b, "metrics", "expected a mapping, found "
                            "%s", rx__ynode_type(b));
    if ((st = integer(b, "metrics", "models", 0, 9e15, &v, err)) != RX_OK)
        return st;
    m->n_models = v;
    if ((st = integer(b, "metrics", "test_examples", 0, 9e15, &v, err)) !=
        RX_OK)
        return st;
    m->n_test = v;
    m->classification = get(b, "accuracy") != NULL;
    if ((st = num(b, "metrics", "nll", &m->nll, err)) != RX_OK)
        return st;
    if (m->classification) {
        if ((st = num(b, "metrics", "accuracy", &m->accuracy, err)) !=
                RX_OK ||
            (st = num(b, "metrics", "ece", &m->ece, err)) != RX_OK)
            return st;
    } else if ((st = num(b, "metrics", "rmse", &m->rmse, err)) != RX_OK) {
        return st;
    }
    m->valid = 1;
    return RX_OK;
}

static rx_status fill(const ynode *root, const char *file, rx__paramtab *t,
                      rx_err *err)
{
    const ynode *p = get(root, "parameters");
    if (root->type != YN_MAP || !p)
        return rx__fail(err, RX_ECONFIG, "%s: no \"parameters\" block: not "
                        "the summary of a finished run (or written by a "
                        "replex without the per-parameter table; run it "
                        "again)", file);
    if (p->type != YN_MAP)
        return rx__node_err(err, p, "parameters", "expected a mapping, "
                            "found %s", rx__ynode_type(p));
    int64_t v;
    rx_status st;
    if ((st = integer(p, "parameters", "chains", 1, 1e6, &v, err)) != RX_OK)
        return st;
    t->chains = (int)v;
    if ((st = integer(p, "parameters", "draws", 0, 9e15, &v, err)) != RX_OK)
        return st;
    t->draws = v;
    if ((st = integer(p, "parameters", "coordinates", 0, 9e15, &v, err)) !=
        RX_OK)
        return st;
    t->dim = (size_t)v;
    if ((st = boolean(p, "parameters", "weighted", 0, &t->weighted, err)) !=
            RX_OK ||
        (st = boolean(p, "parameters", "network", 0, &t->network, err)) !=
            RX_OK)
        return st;
    const ynode *rows = get(p, "rows");
    if (!rows || rows->type != YN_SEQ)
        return rx__node_err(err, rows ? rows : p, "parameters.rows",
                            "expected a list of rows");
    const double cap = (double)RX__PARAM_COORDS_MAX + RX__PARAM_NAMED_MAX;
    if ((st = integer(p, "parameters", "coordinates_listed", 0,
                      rows->n < cap ? rows->n : cap, &v, err)) != RX_OK)
        return st;
    t->n_named = rows->n - (int)v;
    if (rows->n > 0) {
        t->name = calloc((size_t)rows->n, sizeof *t->name);
        t->row = calloc((size_t)rows->n, sizeof *t->row);
        if (!t->name || !t->row)
            return rx__fail(err, RX_ENOMEM, "%s: out of memory", file);
    }
    for (int i = 0; i < rows->n; ++i)
        if ((st = row(rows->items[i], i, t, err)) != RX_OK)
            return st;
    t->n_rows = rows->n;
    const ynode *m = get(root, "metrics");
    if (m && t->chains == 1 && (st = metrics(m, &t->bma, err)) != RX_OK)
        return st;
    rx__paramtab_judge(t);
    return RX_OK;
}

rx_status rx__paramtab_read(const char *path, rx__paramtab *t, rx_err *err)
{
    memset(t, 0, sizeof *t);
    t->ess_min = t->rhat_max = NAN;
    t->ess_min_row = t->rhat_max_row = -1;
    ynode *root = NULL;
    rx_status st = rx__yaml_load(path, &root, NULL, err);
    if (st == RX_OK)
        st = fill(root, path, t, err);
    rx__ynode_free(root);
    if (st != RX_OK)
        rx__paramtab_free(t);
    return st;
}
