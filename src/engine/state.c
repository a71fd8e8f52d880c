/*
 * The resumable state of a run (state.h): what a checkpoint holds and how
 * it is packed and restored, in one order for writing and reading. The
 * random streams are pure functions of (seed, entity, purpose, k) and the
 * minibatches of (seed, entity, k), so the iteration number restores
 * them: a resumed run continues to the same bits as an uninterrupted one,
 * with any thread count.
 */
#define _GNU_SOURCE
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "state.h"
#include "wing.h"

void rx__xstate_copy(rx__xstate *dst, const rx__xstate *src, int P)
{
    const size_t up = (size_t)P;
    memcpy(dst->at, src->at, sizeof(int32_t) * up);
    memcpy(dst->pos, src->pos, sizeof(int32_t) * up);
    memcpy(dst->gate, src->gate, up > 1 ? up - 1 : 0);
    memcpy(dst->eta, src->eta, sizeof(double) * up);
    memcpy(dst->tau, src->tau, sizeof(double) * up);
    memcpy(dst->beta, src->beta, sizeof(double) * up);
    memcpy(dst->s2hat, src->s2hat, sizeof(double) * up);
    memcpy(dst->acc_sum, src->acc_sum, sizeof(double) * up);
    dst->C = src->C;
    dst->sa_count = src->sa_count;
    dst->round = src->round;
    dst->round_end = src->round_end;
    memcpy(dst->round_lambda, src->round_lambda, sizeof dst->round_lambda);
    dst->nonadjacent_swaps = src->nonadjacent_swaps;
}

void rx__xstate_free_resumed(rx__xstate *x)
{
    free(x->at);
    free(x->pos);
    free(x->gate);
    free(x->eta);
    x->at = x->pos = NULL;
    x->gate = NULL;
    x->eta = NULL;
}

rx_err *rx__ctx_err(rx_ctx *c) { return &c->err; }

const rx__bias *rx__ctx_bias(const rx_ctx *c) { return &c->bias; }

/* Doubles of the bias block: P particle log-weights, then the states. */
static size_t bias_len(const rx_ctx *c)
{
    if (!c->bias.type)
        return 0;
    return (size_t)c->P +
           (size_t)c->bias.n * c->bias.type->pack_len(&c->bias.par);
}

int rx__ctx_ran(const rx_ctx *c) { return c->ran; }

const rx_config *rx__ctx_cfg(const rx_ctx *c) { return &c->cfg; }

/* Samples rows stored before the step phase of iteration k completes:
 * the kept iterations among 0..k-1. */
static int64_t rows_before(const rx_config *c, int64_t k)
{
    if (k - 1 < c->record.burn_in)
        return 0;
    return (k - 1 - c->record.burn_in) / c->record.thin + 1;
}

void rx__state_ident(const rx_ctx *c, int64_t k, rx__ckident *id)
{
    memset(id, 0, sizeof *id);
    id->seed = c->cfg.seed;
    id->K = c->cfg.iterations;
    id->burn_in = c->cfg.record.burn_in;
    id->thin = c->cfg.record.thin;
    id->index_every = c->rec.index_every;
    id->trace_every = c->rec.trace_every;
    id->dim = (int64_t)c->dim;
    id->k = k;
    id->rows = c->samples ? rows_before(&c->cfg, k) : 0;
    id->n_index = c->rec.n_index;
    id->n_trace = c->rec.n_trace;
    id->cap_index = c->rec.cap_index;
    id->cap_trace = c->rec.cap_trace;
    id->P = c->P;
    id->per = c->cfg.record.all_positions ? c->P : 1;
    id->n_cols = c->rec.n_trace_cols;
    id->stride = (int32_t)rx__part_stride(c);
}

/* The exchange state's blocks (P positions). */
static void xstate_io(rx__state_io f, void *u, rx__xstate *x, int P)
{
    const size_t up = (size_t)P;
    f(u, x->at, sizeof(int32_t) * up);
    f(u, x->pos, sizeof(int32_t) * up);
    f(u, x->gate, up - 1);
    f(u, x->eta, sizeof(double) * up);
    f(u, x->tau, sizeof(double) * up);
    f(u, x->beta, sizeof(double) * up);
    f(u, x->s2hat, sizeof(double) * up);
    f(u, x->acc_sum, sizeof(double) * up);
    f(u, &x->C, sizeof x->C);
    f(u, &x->sa_count, sizeof x->sa_count);
    f(u, &x->round, sizeof x->round);
    f(u, &x->round_end, sizeof x->round_end);
    f(u, x->round_lambda, sizeof x->round_lambda);
    f(u, &x->nonadjacent_swaps, sizeof x->nonadjacent_swaps);
}

/* The recorders' blocks (counts from id). */
static void rec_io(rx__state_io f, void *u, rx__recorder *r,
                   const rx__ckident *id)
{
    const size_t up = (size_t)id->P;
    f(u, &r->trips_a5, sizeof r->trips_a5);
    f(u, &r->trips_l1, sizeof r->trips_l1);
    f(u, &r->restarts, sizeof r->restarts);
    f(u, &r->total_swaps, sizeof r->total_swaps);
    f(u, &r->seen_nonadjacent, sizeof r->seen_nonadjacent);
    f(u, r->visited, up);
    f(u, r->last_end, up);
    f(u, r->l1_state, up);
    f(u, r->pairs, sizeof(rx_pair_stats) * (up - 1));
    f(u, r->win_cond, sizeof(int64_t) * (up - 1));
    f(u, r->win_eval, sizeof(int64_t) * (up - 1));
    f(u, r->win_swaps, sizeof(int64_t) * (up - 1));
    if (id->n_index > 0) {
        f(u, r->index, sizeof(int32_t) * (size_t)id->n_index * up);
        f(u, r->index_iter, sizeof(int64_t) * (size_t)id->n_index);
    }
    if (id->n_trace > 0)
        f(u, r->trace,
          sizeof(double) * (size_t)id->n_trace * (size_t)id->n_cols);
    if (r->hit) /* hit.rho, part of the configuration */
        f(u, r->hit, sizeof(rx__hitslot) * up);
    if (r->xb) /* the rule and the target, part of the configuration */
        f(u, r->xb, sizeof(rx__xbatch) * (up - 1));
}

rx_status rx__state_save(rx_ctx *c, const rx__ckident *id, rx__state_io put,
                         void *user)
{
    const size_t stride = rx__part_stride(c);
    double *buf = malloc(sizeof(double) * stride);
    if (!buf)
        return RX_ENOMEM;
    for (int i = 0; i < c->P; ++i) {
        rx__part_pack(c->parts[i], c->dim, c->slen, buf);
        put(user, buf, sizeof(double) * stride);
    }
    free(buf);
    xstate_io(put, user, &c->ts[0].x, c->P);
    rec_io(put, user, &c->rec, id);
    if (id->rows > 0) {
        put(user, c->samples,
            sizeof(float) * (size_t)id->rows * (size_t)id->per * c->dim);
        put(user, c->senergy,
            sizeof(double) * (size_t)id->rows * (size_t)id->per);
    }
    if (id->rows > 0 && c->logz_u) {
        put(user, c->logz_u,
            sizeof(double) * (size_t)id->rows * (size_t)id->P);
        put(user, c->logz_u + (size_t)c->logz_rows * (size_t)c->P,
            sizeof(double) * (size_t)id->rows);
    }
    const size_t nb = bias_len(c);
    if (nb > 0) {
        const rx__bias_type *T = c->bias.type;
        const size_t len = T->pack_len(&c->bias.par);
        double *b = malloc(sizeof(double) * nb);
        if (!b)
            return RX_ENOMEM;
        for (int i = 0; i < c->P; ++i)
            b[i] = c->parts[i]->logw;
        for (int s = 0; s < c->bias.n; ++s)
            T->pack(&c->bias.par, rx__bias_state(&c->bias, s),
                    b + c->P + (size_t)s * len);
        put(user, b, sizeof(double) * nb);
        free(b);
        if (id->rows > 0 && c->logw)
            put(user, c->logw,
                sizeof(double) * (size_t)id->rows * (size_t)id->per);
    }
    return RX_OK;
}

rx_status rx__state_load(rx_ctx *c, const rx__ckident *id, rx__state_io get,
                         void *user)
{
    const size_t stride = rx__part_stride(c);
    double *parts = malloc(sizeof(double) * stride * (size_t)c->P);
    if (!parts)
        return RX_ENOMEM;
    free(c->res_parts);
    c->res_parts = parts;
    get(user, parts, sizeof(double) * stride * (size_t)c->P);
    rx__xstate *x = &c->res_x;
    const size_t up = (size_t)c->P;
    rx__xstate_free_resumed(x);
    x->at = malloc(sizeof(int32_t) * up);
    x->pos = malloc(sizeof(int32_t) * up);
    x->gate = malloc(up);
    x->eta = malloc(sizeof(double) * 5 * up);
    if (!x->at || !x->pos || !x->gate || !x->eta) {
        rx__xstate_free_resumed(x);
        return RX_ENOMEM;
    }
    x->tau = x->eta + up;
    x->beta = x->tau + up;
    x->s2hat = x->beta + up;
    x->acc_sum = x->s2hat + up;
    xstate_io(get, user, x, c->P);
    rec_io(get, user, &c->rec, id);
    if (id->rows > 0 && c->samples) {
        get(user, c->samples,
            sizeof(float) * (size_t)id->rows * (size_t)id->per * c->dim);
        get(user, c->senergy,
            sizeof(double) * (size_t)id->rows * (size_t)id->per);
    }
    if (id->rows > 0 && c->samples && c->logz_u) {
        get(user, c->logz_u,
            sizeof(double) * (size_t)id->rows * (size_t)id->P);
        get(user, c->logz_u + (size_t)c->logz_rows * (size_t)c->P,
            sizeof(double) * (size_t)id->rows);
    }
    const size_t nb = bias_len(c);
    if (nb > 0) {
        free(c->res_bias);
        c->res_bias = malloc(sizeof(double) * nb);
        if (!c->res_bias)
            return RX_ENOMEM;
        get(user, c->res_bias, sizeof(double) * nb);
        if (id->rows > 0 && c->logw)
            get(user, c->logw,
                sizeof(double) * (size_t)id->rows * (size_t)id->per);
    }
    return RX_OK;
}

/* An integer-valued double in [lo, hi] (hi at most 2^62): safe to cast. */
static int int_in(double v, double lo, double hi)
{
    return v >= lo && v <= hi && v == floor(v);
}

static const char *check_particles(const rx_ctx *c)
{
    const int P = c->P;
    const size_t stride = rx__part_stride(c);
    const double big = 4611686018427387904.0; /* 2^62 */
    for (int i = 0; i < P; ++i) {
        const double *s = c->res_parts + (size_t)i * stride;
        if (!int_in(s[3], 0, P - 1))
            return "a particle has an invalid position";
        if (!(isfinite(s[4]) && s[4] > 0.0) ||
            !int_in(s[5], 0, 2147483647.0) || !int_in(s[6], -1, big))
            return "a particle has an invalid fault-policy state";
        if (c->vc.on) { /* the count fields among the VR scalars */
            const double *q = s + stride - RX__VRSCAL;
            for (int j = 2; j <= 6; ++j)
                if (!int_in(q[j], 0, big))
                    return "a particle has invalid variance-reduction counts";
        }
    }
    return NULL;
}

const char *rx__state_check(const rx_ctx *c, int64_t k)
{
    const int P = c->P;
    const char *why = check_particles(c);
    if (why)
        return why;
    const rx__xstate *x = &c->res_x;
    const rx__recorder *r = &c->rec;
    for (int q = 0; q < P; ++q) {
        if (x->at[q] < 0 || x->at[q] >= P || x->pos[x->at[q]] != q)
            return "the position maps are not a permutation";
        if (!(isfinite(x->eta[q]) && x->eta[q] > 0.0 &&
              isfinite(x->tau[q]) && x->tau[q] > 0.0 &&
              isfinite(x->beta[q]) &&
              (c->path ? x->beta[q] >= 0.0 : x->beta[q] > 0.0)))
            return "the ladder is not finite and positive";
    }
    for (int p = 0; p + 1 < P; ++p)
        if (x->gate[p] > 1 || !(isfinite(x->s2hat[p]) && x->s2hat[p] >= 0.0))
            return "a pair's gate or variance estimate is invalid";
    for (int j = 0; j < RX__MAX_ROUNDS; ++j)
        if (!(x->round_lambda[j] >= 0.0 && x->round_lambda[j] <= P - 1))
            return "a barrier round's Lambda is invalid";
    /* counters: at most P events per iteration so far, so that the run's
     * increments and sums cannot overflow */
    const double most = (double)k * P;
#define CK_CNT(v) ((v) >= 0 && (double)(v) <= most)
    if (!isfinite(x->C) || !CK_CNT(x->sa_count) ||
        !CK_CNT(x->nonadjacent_swaps) || x->round < 0 || x->round > 62 ||
        c->cfg.ladder.barrier_round > (INT64_MAX >> x->round))
        return "invalid exchange counters";
    if (!CK_CNT(r->trips_a5) || !CK_CNT(r->trips_l1) ||
        !CK_CNT(r->restarts) || !CK_CNT(r->total_swaps) ||
        !CK_CNT(r->seen_nonadjacent))
        return "invalid round-trip counters";
    for (int p = 0; p + 1 < P; ++p) {
        const rx_pair_stats *ps = &r->pairs[p];
        if (!CK_CNT(ps->conditions) || !CK_CNT(ps->evaluated) ||
            !CK_CNT(ps->attempts) || !CK_CNT(ps->swaps) ||
            !(ps->accept_sum >= 0.0 && ps->accept_sum <= most) ||
            !CK_CNT(r->win_cond[p]) || !CK_CNT(r->win_eval[p]) ||
            !CK_CNT(r->win_swaps[p]))
            return "invalid pair counters";
    }
#undef CK_CNT
    const char *bad = rx__rec_xbatch_check(r, k);
    return bad ? bad : rx__rec_hit_check(r, k);
}

int rx__state_resume(rx_ctx *c, const rx__ckident *id)
{
    const size_t stride = rx__part_stride(c);
    /* a packed particle's position: rx__part_pack's out[3] */
    for (int i = 0; i < c->P; ++i)
        if ((int32_t)c->res_parts[(size_t)i * stride + 3] < 0 ||
            (int32_t)c->res_parts[(size_t)i * stride + 3] >= c->P)
            return i;
    if (c->res_bias) {
        /* the states, checked by the row; the particles' log-weights go
         * to the particles as rx_run unpacks them */
        const rx__bias_type *T = c->bias.type;
        const size_t len = T->pack_len(&c->bias.par);
        for (int s = 0; s < c->bias.n; ++s)
            if (T->unpack(&c->bias.par, rx__bias_state(&c->bias, s),
                          c->res_bias + c->P + (size_t)s * len,
                          &c->err) != RX_OK)
                return c->P;
    }
    c->rec.n_index = id->n_index;
    c->rec.n_trace = id->n_trace;
    c->k0 = id->k;
    c->resumed = 1;
    return -1;
}

rx_status rx__ckpt_install(rx_ctx *c, const char *path, int64_t every,
                           rx__ckpt_writer fn)
{
    if (every < 0)
        every = c->cfg.checkpoint.every;
    char *p = malloc(strlen(path) + 1);
    if (!p)
        return RX_ENOMEM;
    memcpy(p, path, strlen(path) + 1);
    free(c->ckpt_path);
    c->ckpt_path = p;
    c->ckpt_every = every;
    c->ckpt_fn = fn;
    return RX_OK;
}
