/*
 * The keys the rows of the type tables declare (src/core/row.h), beside
 * the configuration's own (schema.c): their indices after rx__keys, the
 * key store of an rx_config that holds their values, the rows in use, and
 * the enum names that come from a table's rows. Nothing here names a row:
 * adding one to a table adds its keys and its name everywhere.
 */
#include <stdlib.h>
#include <string.h>

#include "../bias/bias.h"
#include "../exchange/xtest.h"
#include "../step/step.h"
#include "config.h"

/* The values of the rows' keys: slot j for row key j (in the order of
 * rx__key_at after rx__keys). */
struct rx_keystore {
    int n;
    rx__slot s[];
};

const rx__table *const rx__tables[] = {&rx__step_table, &rx__xtest_table,
                                       &rx__bias_table, &rx__run_table,
                                       NULL};

/* Row key j (0-based after rx__keys): its declaration, table and row. */
static const rx__keydef *row_key(int j, const rx__table **tp, int *rp)
{
    if (j < 0)
        return NULL;
    for (int t = 0; rx__tables[t]; ++t) {
        const rx__table *T = rx__tables[t];
        const int n = T->count();
        for (int r = 0; r < n; ++r) {
            const rx__rowdecl *d = T->at(r);
            if (j < d->nkeys) {
                if (tp)
                    *tp = T;
                if (rp)
                    *rp = r;
                return &d->keys[j];
            }
            j -= d->nkeys;
        }
    }
    return NULL;
}

static int n_row_keys(void)
{
    int n = 0;
    for (int t = 0; rx__tables[t]; ++t)
        for (int r = 0; r < rx__tables[t]->count(); ++r)
            n += rx__tables[t]->at(r)->nkeys;
    return n;
}

int rx__key_count(void) { return rx__nkeys + n_row_keys(); }

int rx__config_nkeys(void) { return rx__key_count(); }

rx__keyinfo rx__config_key(int i)
{
    rx__keyinfo k = {NULL, NULL, NULL, NULL};
    const rx__keydef *kd = rx__key_at(i);
    if (kd) {
        k.path = kd->path;
        k.type = rx__kind_name(kd->kind);
        k.deflt = kd->deflt;
        k.doc = kd->doc;
    }
    return k;
}

const rx__keydef *rx__key_at(int i)
{
    if (i < 0)
        return NULL;
    if (i < rx__nkeys)
        return &rx__keys[i];
    return row_key(i - rx__nkeys, NULL, NULL);
}

int rx__key_index(const char *path)
{
    const int n = rx__key_count();
    for (int i = 0; i < n; ++i)
        if (strcmp(rx__key_at(i)->path, path) == 0)
            return i;
    return -1;
}

int rx__key_row(int i, const rx__table **t, int *row)
{
    return i >= rx__nkeys && row_key(i - rx__nkeys, t, row) != NULL;
}

int rx__row_in_use(const rx_config *c, const rx__table *t, int r)
{
    if (t == &rx__step_table)
        return (int)c->step.target == r || (int)c->step.others == r;
    if (t == &rx__xtest_table)
        return c->tempering.scheme != RX_SCHEME_NONE &&
               (int)c->tempering.rule == r;
    if (t == &rx__bias_table)
        return r > 0 && (int)c->bias.kind == r;
    return t == &rx__run_table; /* picked by no key: always in use */
}

const rx__rowdecl *rx__row_of(const rx_config *c, const rx__table *t)
{
    int r = t == &rx__step_table    ? (int)c->step.target
            : t == &rx__xtest_table ? (int)c->tempering.rule
            : t == &rx__bias_table  ? (int)c->bias.kind
            : t == &rx__run_table   ? 0
                                    : -1;
    return t->at(r);
}

/* ---- enum names ----------------------------------------------------------*/

const rx__table *rx__key_table(const rx__keydef *kd)
{
    if (kd->kind != K_ENUM || kd->names)
        return NULL;
    for (int t = 0; rx__tables[t]; ++t)
        for (int k = 0; k < 3 && rx__tables[t]->select[k]; ++k)
            if (strcmp(rx__tables[t]->select[k], kd->path) == 0)
                return rx__tables[t];
    return NULL;
}

int rx__kd_nnames(const rx__keydef *kd)
{
    const rx__table *t = rx__key_table(kd);
    if (t)
        return t->count();
    return kd->names ? rx__names_count(kd->names) : 0;
}

const char *rx__kd_name(const rx__keydef *kd, int i)
{
    if (i < 0 || i >= rx__kd_nnames(kd))
        return "?";
    const rx__table *t = rx__key_table(kd);
    return t ? t->at(i)->name : kd->names[i];
}

int rx__kd_find(const rx__keydef *kd, const char *name)
{
    const int n = rx__kd_nnames(kd);
    for (int i = 0; i < n; ++i)
        if (strcmp(rx__kd_name(kd, i), name) == 0)
            return i;
    return -1;
}

/* ---- the key store ------------------------------------------------------*/

/* A row key's default into a slot (a list's default is empty; a list
 * default written as "[a, b]" is not supported: rows declare "[]"). */
static void slot_default(rx__slot *s, const rx__keydef *kd)
{
    memset(s, 0, sizeof *s);
    switch (kd->kind) {
    case K_REAL:
        s->d = strtod(kd->deflt, NULL);
        break;
    case K_INT:
        s->i = (int)strtol(kd->deflt, NULL, 10);
        break;
    case K_BOOL:
        s->i = strcmp(kd->deflt, "true") == 0;
        break;
    case K_ENUM: {
        int e = rx__kd_find(kd, kd->deflt);
        s->i = e > 0 ? e : 0;
        break;
    }
    default:
        break;
    }
    if (kd->kind != K_REAL && kd->kind != K_VEC)
        s->d = (double)s->i;
}

static void *slot_member(rx__slot *s, const rx__keydef *kd)
{
    return kd->kind == K_REAL  ? (void *)&s->d
           : kd->kind == K_VEC ? (void *)&s->v
                               : (void *)&s->i;
}

static struct rx_keystore *store_new(void)
{
    const int n = n_row_keys();
    struct rx_keystore *ks =
        calloc(1, sizeof *ks + sizeof(rx__slot) * (size_t)(n > 0 ? n : 1));
    if (!ks)
        return NULL;
    ks->n = n;
    for (int j = 0; j < n; ++j)
        slot_default(&ks->s[j], row_key(j, NULL, NULL));
    return ks;
}

void *rx__key_base(rx_config *c, int i)
{
    const rx__keydef *kd = rx__key_at(i);
    if (!kd)
        return NULL;
    if (i < rx__nkeys)
        return (char *)c + kd->off;
    if (!c->keys && !(c->keys = store_new()))
        return NULL;
    return slot_member(&c->keys->s[i - rx__nkeys], kd);
}

const void *rx__key_cbase(const rx_config *c, int i, rx__slot *tmp)
{
    const rx__keydef *kd = rx__key_at(i);
    if (!kd)
        return NULL;
    if (i < rx__nkeys)
        return (const char *)c + kd->off;
    if (c->keys)
        return slot_member(&c->keys->s[i - rx__nkeys], kd);
    slot_default(tmp, kd);
    return slot_member(tmp, kd);
}

void rx__key_wrote(rx_config *c, int i)
{
    const rx__keydef *kd = rx__key_at(i);
    if (i >= rx__nkeys && kd && c->keys && kd->kind != K_REAL &&
        kd->kind != K_VEC)
        c->keys->s[i - rx__nkeys].d = (double)c->keys->s[i - rx__nkeys].i;
}

void rx__row_values(const rx_config *c, const rx__table *t, int r,
                    rx__rowvals *out, rx__slot *tmp)
{
    memset(out, 0, sizeof *out);
    const rx__rowdecl *d = t->at(r);
    if (!d || !d->nkeys)
        return;
    const int i0 = rx__key_index(d->keys[0].path);
    for (int k = 0; k < d->nkeys && k < RX__ROW_MAX_KEYS; ++k) {
        const rx__keydef *kd = &d->keys[k];
        const rx__slot *s;
        if (c->keys && i0 >= rx__nkeys)
            s = &c->keys->s[i0 + k - rx__nkeys];
        else {
            slot_default(&tmp[k], kd);
            s = &tmp[k];
        }
        if (kd->kind == K_VEC) {
            out->k[k].v = s->v.v;
            out->k[k].n = s->v.n;
        } else {
            out->k[k].v = &s->d;
            out->k[k].n = 1;
        }
    }
}

rx_status rx__store_ensure(rx_config *c)
{
    if (!c->keys && !(c->keys = store_new()))
        return RX_ENOMEM;
    return RX_OK;
}

void rx__store_free(rx_config *c)
{
    if (!c->keys)
        return;
    for (int j = 0; j < c->keys->n; ++j)
        free(c->keys->s[j].v.v);
    free(c->keys);
    c->keys = NULL;
}

rx_status rx__store_copy(rx_config *dst, const rx_config *src)
{
    dst->keys = NULL;
    if (!src->keys)
        return RX_OK;
    const int n = src->keys->n;
    struct rx_keystore *ks =
        calloc(1, sizeof *ks + sizeof(rx__slot) * (size_t)(n > 0 ? n : 1));
    if (!ks)
        return RX_ENOMEM;
    ks->n = n;
    for (int j = 0; j < n; ++j) {
        ks->s[j] = src->keys->s[j];
        ks->s[j].v.v = NULL;
        const rx_vec *v = &src->keys->s[j].v;
        if (v->n > 0) {
            ks->s[j].v.v = malloc(sizeof(double) * (size_t)v->n);
            if (!ks->s[j].v.v) {
                dst->keys = ks;
                rx__store_free(dst);
                return RX_ENOMEM;
            }
            memcpy(ks->s[j].v.v, v->v, sizeof(double) * (size_t)v->n);
        }
    }
    dst->keys = ks;
    return RX_OK;
}
