/*
 * YAML experiment files -> validated rx_config: the tree is walked against
 * the schema (src/config/), --set values are grafted into it first, the
 * sweep block is checked; and the resolved-config writer. Errors are
 * "file:line:col: key.path: problem" (1-based line and column).
 */
#define _POSIX_C_SOURCE 200809L
#include <errno.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../bias/bias.h"
#include "../core/internal.h"
#include "../config/applies.h"
#include "../core/num.h"
#include "config.h"
#include "yaml.h"

/* ------------------------------------------------------------------------ */
/* Walking the tree against the schema.                                      */
/* ------------------------------------------------------------------------ */

/* Is `path` a section (a proper prefix of some key path)? */
static int is_section(const char *path)
{
    size_t l = strlen(path);
    const int nk = rx__key_count();
    for (int i = 0; i < nk; ++i)
        if (strncmp(rx__key_at(i)->path, path, l) == 0 &&
            rx__key_at(i)->path[l] == '.')
            return 1;
    return 0;
}

/* The child names directly under prefix ("" = top level). */
static int children(const char *prefix, const char **out, int cap)
{
    size_t l = strlen(prefix);
    int n = 0;
    const int nk = rx__key_count();
    for (int i = 0; i < nk; ++i) {
        const char *p = rx__key_at(i)->path;
        if (l) {
            if (strncmp(p, prefix, l) != 0 || p[l] != '.')
                continue;
            p += l + 1;
        }
        size_t cl = strcspn(p, ".");
        int dup = 0;
        for (int j = 0; j < n; ++j)
            if (strcspn(out[j], ".") == cl && strncmp(out[j], p, cl) == 0)
                dup = 1;
        if (!dup && n < cap)
            out[n++] = p; /* terminated at '.' or '\0': compare with cl */
    }
    return n;
}

/* The sweep block: key path -> non-empty list of scalars. */
static rx_status check_sweep(const ynode *v, rx_err *err)
{
    if (v->type != YN_MAP || v->n == 0)
        return rx__node_err(err, v, "sweep",
                        "expected a mapping of key paths to lists of values, "
                        "got %s", v->type == YN_MAP ? "an empty mapping"
                                                    : rx__ynode_type(v));
    double runs = 1.0;
    for (int i = 0; i < v->n; ++i) {
        const ynode *k = v->keys[i], *l = v->items[i];
        if (k->type != YN_SCALAR)
            return rx__node_err(err, k, "sweep", "keys must be key paths");
        char p[300];
        snprintf(p, sizeof p, "sweep.%s", k->str);
        if (rx__key_index(k->str) < 0) {
            const char *names[RX__MAX_KEYS];
            int nk = rx__key_count();
            if (nk > RX__MAX_KEYS)
                nk = RX__MAX_KEYS;
            for (int j = 0; j < nk; ++j)
                names[j] = rx__key_at(j)->path;
            const char *sug = rx__closest_name(k->str, names, nk);
            if (sug)
                return rx__node_err(err, k, p,
                                "'%s' is not a key; did you mean '%s'?",
                                k->str, sug);
            return rx__node_err(err, k, p, "'%s' is not a key (see replex keys)",
                            k->str);
        }
        if (strcmp(k->str, "replicates") == 0)
            return rx__node_err(err, k, p,
                                "cannot be swept: every sweep run is one "
                                "run; set replicates: N at the top level "
                                "of a file without a sweep: block instead");
        for (int j = 0; j < i; ++j)
            if (strcmp(v->keys[j]->str, k->str) == 0)
                return rx__node_err(err, k, p, "swept twice");
        if (l->type != YN_SEQ || l->n == 0 || l->n > 10000)
            return rx__node_err(err, l, p,
                            "expected a list of 1 to 10000 values, got %s",
                            l->type == YN_SEQ ? "an empty list" : rx__ynode_type(l));
        for (int j = 0; j < l->n; ++j)
            if (l->items[j]->type != YN_SCALAR)
                return rx__node_err(err, l->items[j], p,
                                "sweep values must be scalars, got %s",
                                rx__ynode_type(l->items[j]));
        runs *= l->n;
        if (runs > RX_SWEEP_MAX_RUNS)
            return rx__node_err(err, l, p,
                                "the sweep would make more than %d runs "
                                "(%.0f with the keys so far)",
                                RX_SWEEP_MAX_RUNS, runs);
    }
    return RX_OK;
}

static rx_status walk(rx_config *c, rx__marks *mk, const ynode *map,
                      const char *prefix, rx_err *err)
{
    if (prefix[0] && rx__ynode_null(map))
        return RX_OK; /* an empty section: every key keeps its default */
    if (map->type != YN_MAP)
        return rx__node_err(err, map, prefix[0] ? prefix : "(top level)",
                        "expected a mapping of keys, got %s", rx__ynode_type(map));
    for (int i = 0; i < map->n; ++i) {
        const ynode *k = map->keys[i], *v = map->items[i];
        if (k->type != YN_SCALAR)
            return rx__node_err(err, k, prefix[0] ? prefix : "(top level)",
                            "keys must be plain names, got %s", rx__ynode_type(k));
        for (int j = 0; j < i; ++j)
            if (map->keys[j]->type == YN_SCALAR &&
                strcmp(map->keys[j]->str, k->str) == 0) {
                char p[256];
                snprintf(p, sizeof p, "%s%s%s", prefix, prefix[0] ? "." : "",
                         k->str);
                return rx__node_err(err, k, p,
                                "duplicate key (first given at line %d)",
                                map->keys[j]->line);
            }
        if (!prefix[0] && strcmp(k->str, "sweep") == 0) {
            rx_status st = check_sweep(v, err);
            if (st != RX_OK)
                return st;
            continue;
        }
        char path[256];
        if (strchr(k->str, '.') || !k->str[0])
            return rx__node_err(err, k, prefix[0] ? prefix : "(top level)",
                            "key '%s' is not a plain name; nest sections "
                            "(tempering: {n_chains: 8}) instead of dotted keys",
                            k->str);
        int w = snprintf(path, sizeof path, "%s%s%s", prefix,
                         prefix[0] ? "." : "", k->str);
        if (w < 0 || (size_t)w >= sizeof path)
            return rx__node_err(err, k, prefix, "key path too long");
        int ki = rx__key_index(path);
        if (ki >= 0) {
            rx_status st = rx__set_leaf(c, ki, v, err);
            if (st != RX_OK)
                return st;
            mk->src[ki] = v->file;
            mk->line[ki] = v->line;
            mk->col[ki] = v->col;
            continue;
        }
        if (is_section(path)) {
            rx_status st = walk(c, mk, v, path, err);
            if (st != RX_OK)
                return st;
            continue;
        }
        /* unknown: suggest the closest sibling */
        const char *kids[64];
        char names[64][64];
        const char *np[64];
        int nk = children(prefix, kids, 64);
        for (int j = 0; j < nk; ++j) {
            size_t cl = strcspn(kids[j], ".");
            if (cl > 63)
                cl = 63;
            memcpy(names[j], kids[j], cl);
            names[j][cl] = '\0';
            np[j] = names[j];
        }
        const char *sug = rx__closest_name(k->str, np, nk);
        if (sug)
            return rx__node_err(err, k, path,
                            "unknown key '%s'; did you mean '%s'?", k->str,
                            sug);
        char all[512] = "";
        for (int j = 0; j < nk; ++j) {
            strncat(all, j ? ", " : "", sizeof all - strlen(all) - 1);
            strncat(all, np[j], sizeof all - strlen(all) - 1);
        }
        return rx__node_err(err, k, path, "unknown key '%s' (valid here: %s)",
                        k->str, all);
    }
    return RX_OK;
}

/* Insert a --set value at a dotted path, creating mappings as needed. */
static rx_status tree_set(ynode *root, const char *path, ynode *val,
                          rx_err *err, const char *origin)
{
    ynode *cur = root;
    char buf[256];
    if (strlen(path) >= sizeof buf || !path[0])
        return rx__fail(err, RX_ECONFIG, "%s: bad key path '%s'", origin,
                        path);
    strcpy(buf, path);
    size_t pl = strlen(path);
    if (path[0] == '.' || path[pl - 1] == '.' || strstr(path, ".."))
        return rx__fail(err, RX_ECONFIG,
                        "%s:%d:1: %s: empty part in the key path", origin,
                        val->line, path);
    char *save = NULL;
    char *tok = strtok_r(buf, ".", &save);
    while (tok) {
        char *next = strtok_r(NULL, ".", &save);
        if (cur->type != YN_MAP)
            return rx__fail(err, RX_ECONFIG,
                            "%s:%d:1: %s: cannot set '%s' inside a value that "
                            "is not a mapping",
                            origin, val->line, path, tok);
        int found = -1;
        for (int i = 0; i < cur->n; ++i)
            if (cur->keys[i]->type == YN_SCALAR &&
                strcmp(cur->keys[i]->str, tok) == 0)
                found = i;
        if (!next) {
            if (found >= 0) {
                rx__ynode_free(cur->items[found]);
                cur->items[found] = val;
                return RX_OK;
            }
            ynode *k = rx__ynode_new(YN_SCALAR, val->line, 1, val->file);
            if (!k || !(k->str = strdup(tok)) || rx__ynode_push(cur, k, val)) {
                rx__ynode_free(k);
                return rx__fail(err, RX_ENOMEM, "out of memory");
            }
            return RX_OK;
        }
        if (found < 0) {
            ynode *k = rx__ynode_new(YN_SCALAR, val->line, 1, val->file);
            ynode *m = rx__ynode_new(YN_MAP, val->line, 1, val->file);
            if (!k || !m || !(k->str = strdup(tok)) || rx__ynode_push(cur, k, m)) {
                rx__ynode_free(k);
                rx__ynode_free(m);
                return rx__fail(err, RX_ENOMEM, "out of memory");
            }
            found = cur->n - 1;
        }
        cur = cur->items[found];
        tok = next;
    }
    return RX_OK;
}

/* ------------------------------------------------------------------------ */
/* Loading.                                                                  */
/* ------------------------------------------------------------------------ */

/* Graft the --set values into the tree. */
static rx_status apply_sets(ynode *root, const char *const *sets,
                            int n_sets, rx_err *err)
{
    rx_status st = RX_OK;
    for (int i = 0; i < n_sets && st == RX_OK; ++i) {
        const char *s = sets[i];
        const char *eq = s ? strchr(s, '=') : NULL;
        if (!eq || eq == s)
            return rx__fail(err, RX_ECONFIG,
                            "--set '%s': expected key.path=value",
                            s ? s : "(null)");
        char key[256];
        size_t kl = (size_t)(eq - s);
        if (kl >= sizeof key)
            return rx__fail(err, RX_ECONFIG, "--set: key path too long");
        memcpy(key, s, kl);
        key[kl] = '\0';
        ynode *val = NULL;
        st = rx__yaml_parse((const unsigned char *)eq + 1, strlen(eq + 1),
                            "--set", (int)kl + 1, i + 1, &val, err);
        if (st != RX_OK)
            break;
        /* locate --set values by argument: line = index, col = offset */
        val->line = i + 1;
        val->col = (int)kl + 2;
        st = tree_set(root, key, val, err, "--set");
        if (st != RX_OK)
            rx__ynode_free(val);
    }
    return st;
}

rx_status rx__config_load_log(const char *path, const char *const *sets,
                              int n_sets, rx_config *out, rx_logger log,
                              rx_err *err)
{
    if (!path || !out || n_sets < 0 || (n_sets > 0 && !sets))
        return rx__fail(err, RX_EINVAL,
                        "rx_config_load: %s is NULL or negative",
                        !path ? "path" : !out ? "out" : "sets / n_sets");
    for (int i = 0; i < n_sets; ++i)
        if (!sets[i])
            return rx__fail(err, RX_EINVAL,
                            "rx_config_load: sets[%d] is NULL", i);
    rx_config_default(out);
    ynode *root = NULL;
    int empty = 0;
    rx_status st = rx__yaml_load(path, &root, &empty, err);
    if (st != RX_OK)
        return st;
    if (root->type != YN_MAP) {
        st = rx__node_err(err, root, "(top level)",
                          "an experiment file is a mapping of keys, got %s",
                          rx__ynode_type(root));
        rx__ynode_free(root);
        return st;
    }
    st = apply_sets(root, sets, n_sets, err);
    rx__marks *mk = NULL;
    if (st == RX_OK) {
        mk = calloc(1, sizeof *mk);
        if (!mk)
            st = rx__fail(err, RX_ENOMEM, "%s: out of memory", path);
    }
    if (st == RX_OK) {
        mk->file = path;
        st = walk(out, mk, root, "", err);
    }
    if (st == RX_OK)
        st = rx__config_check(out, mk, err);
    if (st == RX_OK) { /* bias.*: the bias module's own checks */
        rx__bias_params bp;
        rx__bias_params_from(&bp, out);
        const char *key = "bias.kind";
        rx_err be;
        if (rx__bias_check(&bp, &key, &be) != RX_OK)
            st = rx__key_err(err, mk, key, "%s", be.msg);
    }
    if (st == RX_OK && out->target.kind == RX_TARGET_CALLBACK)
        st = rx__key_err(err, mk, "target.kind",
                         "callback targets are set up through the C API "
                         "(rx_create with an rx_callback_target), not in a "
                         "file");
    if (st == RX_OK && log.fn) {
        if (empty && n_sets == 0) {
            char msg[RX_PATH_MAX + 160];
            snprintf(msg, sizeof msg,
                     "%s: the file is empty (or only comments): every key "
                     "takes its default",
                     path);
            log.fn(log.user, RX_LOG_WARN, msg);
        }
        rx__config_warnings(out, mk, log);
    }
    free(mk);
    rx__ynode_free(root);
    if (st != RX_OK)
        rx_config_free(out);
    return st;
}

rx_status rx_config_load(const char *path, const char *const *sets,
                         int n_sets, rx_config *out, rx_err *err)
{
    return rx__config_load_log(path, sets, n_sets, out, (rx_logger){0}, err);
}

/* ------------------------------------------------------------------------ */
/* Writing the resolved config.                                              */
/* ------------------------------------------------------------------------ */

/* A double-quoted YAML scalar that reads back as the same bytes: '"' and
 * '\\' escaped, and the characters a YAML reader would fold or refuse
 * inside quotes (control characters and the line breaks NEL, LS, PS)
 * as escapes. */
static void put_quoted(FILE *f, const char *s)
{
    fputc('"', f);
    for (const unsigned char *q = (const unsigned char *)s; *q; ++q) {
        if (*q == '"' || *q == '\\') {
            fputc('\\', f);
            fputc(*q, f);
        } else if (*q < 0x20 || *q == 0x7f) {
            fprintf(f, "\\x%02x", *q);
        } else if (q[0] == 0xc2 && q[1] == 0x85) {
            fputs("\\N", f);
            ++q;
        } else if (q[0] == 0xe2 && q[1] == 0x80 &&
                   (q[2] == 0xa8 || q[2] == 0xa9)) {
            fputs(q[2] == 0xa8 ? "\\L" : "\\P", f);
            q += 2;
        } else {
            fputc(*q, f);
        }
    }
    fputc('"', f);
}

static void put_real(FILE *f, double v) { fputs(RX_NUM(v), f); }

static void put_vec(FILE *f, const double *v, int n)
{
    fputc('[', f);
    for (int i = 0; i < n; ++i) {
        if (i)
            fputs(", ", f);
        put_real(f, v[i]);
    }
    fputc(']', f);
}

void rx__key_fput(FILE *f, const rx_config *c, int ki)
{
    const rx__keydef *kd = rx__key_at(ki);
    rx__slot tmp;
    const char *base = rx__key_cbase(c, ki, &tmp);
    switch (kd->kind) {
    case K_U64:
        fprintf(f, "%llu", (unsigned long long)*(const uint64_t *)(const void *)base);
        break;
    case K_I64:
        fprintf(f, "%lld", (long long)*(const int64_t *)(const void *)base);
        break;
    case K_INT:
        fprintf(f, "%d", *(const int *)(const void *)base);
        break;
    case K_REAL:
        put_real(f, *(const double *)(const void *)base);
        break;
    case K_BOOL:
        fputs(*(const int *)(const void *)base ? "true" : "false", f);
        break;
    case K_ENUM:
        fputs(rx__kd_name(kd, *(const int *)(const void *)base), f);
        break;
    case K_VEC: {
        const rx_vec *v = (const rx_vec *)(const void *)base;
        put_vec(f, v->v, v->n);
        break;
    }
    case K_MAT: {
        const rx_mat *m = (const rx_mat *)(const void *)base;
        fputc('[', f);
        for (int i = 0; i < m->rows; ++i) {
            if (i)
                fputs(", ", f);
            put_vec(f, m->v + (size_t)i * (size_t)m->cols, m->cols);
        }
        fputc(']', f);
        break;
    }
    case K_LADDER: {
        const rx_ladder_spec *L = (const rx_ladder_spec *)(const void *)base;
        if (L->kind == RX_LADDER_CONSTANT)
            put_real(f, L->min);
        else if (L->kind == RX_LADDER_LIST)
            put_vec(f, L->values.v, L->values.n);
        else {
            fputs("{min: ", f);
            put_real(f, L->min);
            fputs(", max: ", f);
            put_real(f, L->max);
            fputc('}', f);
        }
        break;
    }
    case K_SIGMA2:
    case K_COEF:
    case K_WCORR: {
        double v = *(const double *)(const void *)base;
        const char *word = v == RX_VR_ADAPTIVE && kd->kind == K_COEF
                               ? "adaptive"
                           : v == RX_SIGMA2_AUTO && kd->kind == K_SIGMA2 ? "auto"
                           : v == RX_SIGMA2_ESTIMATE && kd->kind == K_SIGMA2
                               ? "estimate"
                           : v == RX_WCORR_LOGW && kd->kind == K_WCORR ? "logW"
                                                                       : NULL;
        if (word)
            fputs(word, f);
        else
            put_real(f, v);
        break;
    }
    case K_STR:
        put_quoted(f, base);
        break;
    case K_LAYERS: {
        const rx__layer_list *ll = (const rx__layer_list *)(const void *)base;
        fputc('[', f);
        for (int i = 0; i < ll->n; ++i) {
            const rx_layer *L = &ll->l[i];
            if (i)
                fputs(", ", f);
            switch (L->kind) {
            case RX_L_DENSE:
                fprintf(f, "{dense: %d}", L->units);
                break;
            case RX_L_LSTM:
                fprintf(f, "{lstm: %d}", L->units);
                break;
            case RX_L_CONV2D:
                fprintf(f, "{conv2d: {filters: %d, kernel: %d, stride: %d, "
                        "pad: %d}}", L->filters, L->kernel, L->stride,
                        L->pad);
                break;
            case RX_L_MAXPOOL:
                fprintf(f, "{maxpool: {kernel: %d, stride: %d}}", L->kernel,
                        L->stride);
                break;
            default:
                fputs(rx__layer_names[(int)L->kind - 1], f);
            }
        }
        fputc(']', f);
        break;
    }
    case K_WINDOW: {
        int w = *(const int *)(const void *)base;
        if (w == RX_WINDOW_AUTO)
            fputs("auto", f);
        else
            fprintf(f, "%d", w);
        break;
    }
    }
}

/* How many leading characters of a and b are whole sections they share
 * ("step.precond" and "step.momentum": 5, "step."). */
static size_t shared_sections(const char *a, const char *b)
{
    size_t n = 0;
    for (size_t i = 0; a[i] && a[i] == b[i]; ++i)
        if (a[i] == '.')
            n = i + 1;
    return n;
}

/* The order the writer walks the keys in: the schema's own keys in their
 * order, each row key (rx__key_at after rx__nkeys) right after the last
 * own key of the deepest section it shares with it, so that a section
 * is written once (a row's step.precond inside `step:`, not in a second
 * `step:` mapping, which YAML readers refuse or merge wrongly); a row
 * key that shares no section with an own key comes last. */
int rx__key_write_order(int *order, int nk)
{
    int anchor[RX__MAX_KEYS], n = 0;
    if (nk > RX__MAX_KEYS) { /* not reached (test_contract checks it) */
        for (int i = 0; i < RX__MAX_KEYS; ++i)
            order[i] = i;
        return RX__MAX_KEYS;
    }
    for (int j = rx__nkeys; j < nk; ++j) {
        size_t best = 0;
        anchor[j] = -1;
        for (int o = 0; o < rx__nkeys; ++o) {
            const size_t l =
                shared_sections(rx__key_at(j)->path, rx__key_at(o)->path);
            if (l > 0 && l >= best) {
                best = l;
                anchor[j] = o;
            }
        }
    }
    for (int i = 0; i < rx__nkeys; ++i) {
        order[n++] = i;
        for (int j = rx__nkeys; j < nk; ++j)
            if (anchor[j] == i)
                order[n++] = j;
    }
    for (int j = rx__nkeys; j < nk; ++j)
        if (anchor[j] < 0)
            order[n++] = j;
    return n;
}

void rx__config_fwrite(const rx_config *c, FILE *f, int all)
{
    if (all)
        fprintf(f, "# resolved by replex %s: every key, defaults spelled "
                "out\n", RX_VERSION_STRING);
    else
        fprintf(f, "# resolved by replex %s: the keys that apply, defaults "
                "spelled out\n", RX_VERSION_STRING);
    const char *prev = "";
    int hidden = 0;
    int order[RX__MAX_KEYS];
    const int nk = rx__key_write_order(order, rx__key_count());
    for (int w = 0; w < nk; ++w) {
        const int i = order[w];
        if (!all && !rx__key_applies(c, i)) {
            ++hidden;
            continue;
        }
        const rx__table *T;
        int r;
        if (all == 2 && rx__key_row(i, &T, &r) && !rx__row_in_use(c, T, r))
            continue; /* the canonical text: an idle row's keys */
        const char *p = rx__key_at(i)->path;
        /* open the sections (any depth: bias.sa.a) that the previous key
         * did not share, each at its depth */
        int depth = 0;
        size_t same = 0; /* the previous key's sections shared so far */
        for (const char *q = p, *dot; (dot = strchr(q, '.')) != NULL;
             q = dot + 1, ++depth) {
            size_t end = (size_t)(dot - p);
            if (same == (size_t)(q - p) && strncmp(prev, p, end + 1) == 0)
                same = end + 1;
            else
                fprintf(f, "%*s%.*s:\n", 2 * depth, "", (int)(dot - q), q);
        }
        prev = p;
        const char *leaf = strrchr(p, '.');
        fprintf(f, "%*s%s: ", 2 * depth, "", leaf ? leaf + 1 : p);
        rx__key_fput(f, c, i);
        fputc('\n', f);
    }
    fprintf(f, "# resolved window W = %d\n", rx_config_window(c));
    if (hidden)
        fprintf(f, "# %d keys that do not apply are not shown (every key: "
                "replex validate --all)\n", hidden);
}

rx_status rx_config_write(const rx_config *c, const char *path, rx_err *err)
{
    if (!c || !path)
        return rx__fail(err, RX_EINVAL, "rx_config_write: %s is NULL",
                        !c ? "the config" : "path");
    FILE *f = fopen(path, "w");
    if (!f)
        return rx__fail(err, RX_EIO, "%s: cannot write: %s", path,
                        strerror(errno));
    rx__config_fwrite(c, f, 1);
    if (fclose(f) != 0)
        return rx__fail(err, RX_EIO, "%s: write failed: %s", path,
                        strerror(errno));
    return RX_OK;
}

/* ------------------------------------------------------------------------ */
/* Sweeps.                                                                   */
/* ------------------------------------------------------------------------ */

void rx_sweep_free(rx_sweep *s)
{
    if (!s)
        return;
    for (int i = 0; i < s->n_keys; ++i) {
        free(s->keys ? s->keys[i] : NULL);
        if (s->values && s->values[i]) {
            for (int j = 0; j < s->n_values[i]; ++j)
                free(s->values[i][j]);
            free(s->values[i]);
        }
    }
    free(s->keys);
    free(s->values);
    free(s->n_values);
    memset(s, 0, sizeof *s);
}

rx_status rx_sweep_load(const char *path, rx_sweep *out, rx_err *err)
{
    if (!path || !out)
        return rx__fail(err, RX_EINVAL, "rx_sweep_load: invalid argument");
    memset(out, 0, sizeof *out);
    ynode *root = NULL;
    rx_status st = rx__yaml_load(path, &root, NULL, err);
    if (st != RX_OK)
        return st;
    const ynode *sw = NULL;
    if (root->type == YN_MAP)
        for (int i = 0; i < root->n; ++i)
            if (root->keys[i]->type == YN_SCALAR &&
                strcmp(root->keys[i]->str, "sweep") == 0)
                sw = root->items[i];
    if (sw) {
        st = check_sweep(sw, err);
        int n = sw->n;
        if (st == RX_OK) {
            out->keys = calloc((size_t)n, sizeof(char *));
            out->values = calloc((size_t)n, sizeof(char **));
            out->n_values = calloc((size_t)n, sizeof(int));
            if (!out->keys || !out->values || !out->n_values)
                st = rx__fail(err, RX_ENOMEM, "out of memory");
        }
        for (int i = 0; st == RX_OK && i < n; ++i) {
            out->n_keys = i + 1;
            const ynode *l = sw->items[i];
            out->keys[i] = strdup(sw->keys[i]->str);
            out->values[i] = calloc((size_t)l->n, sizeof(char *));
            out->n_values[i] = l->n;
            if (!out->keys[i] || !out->values[i])
                st = rx__fail(err, RX_ENOMEM, "out of memory");
            for (int j = 0; st == RX_OK && j < l->n; ++j)
                if (!(out->values[i][j] = strdup(l->items[j]->str)))
                    st = rx__fail(err, RX_ENOMEM, "out of memory");
        }
    }
    rx__ynode_free(root);
    if (st != RX_OK)
        rx_sweep_free(out);
    return st;
}
