/*
 * The partner design (config sync): threads wait only for their
 * neighbours. The design, its rings and offers, the recorder's local
 * form, the boundary decisions and the loop of one thread.
 */
#define _GNU_SOURCE
#include <stdlib.h>
#include <string.h>

#include "chain.h"
#include "wing.h"

/*
 * The partner design. Thread t owns POSITIONS lo..hi-1 (a contiguous
 * block) and the pairs inside it plus the boundary pair to its right; a
 * swap exchanges map entries, so a particle moves to the thread of its new
 * position (its state stays where it is in memory; the new owner reads it
 * after the offer that announced it, release/acquire). Each boundary
 * position offers (particle, energy) of every iteration to the neighbour
 * through a ring of RX_RING slots. Both sides wait for the other's offer
 * only when the pair is attempted (active with an open gate), and then
 * one iteration later (partner_decide, after the inner positions' steps);
 * the owner (the left thread) records the statistics of the other
 * iterations later, in order of k, once the offer is there (rx__pend). No
 * thread waits for any other except its two neighbours, and only on those
 * iterations. Each thread writes the index rows of its positions (their
 * boundary pairs decided at once there); everything global (trace rows,
 * progress, stop requests, failures) happens at a full barrier every
 * c->partner_gevery iterations (adapted to the iteration time: at most
 * about RX_PERIOD_SECONDS apart) and wherever a trace row or progress
 * report is due; there thread 0 assembles the map and sums the counters. While
 * it waits for an offer, a thread draws its inner particles' normals
 * ahead (rx__bank, the fused 2-D step). Decisions are the same pure
 * functions of energies, ladder, seed and k as in the barrier design, so
 * both give bitwise the same runs for any thread count.
 *
 * Load balance (config balance): each thread counts its busy CPU seconds
 * (its thread CPU clock less the time it waited on rings and barriers);
 * every RX_PLB_WINDOW iterations, at a full barrier, thread 0 moves the
 * cuts towards the less busy threads (rx__lb_plan, as in the barrier
 * design: while the difference exceeds 1.25 times the busier thread's mean
 * cost per position), hands the moved pairs' statistics to their new owner
 * (partner_sync.c), and every thread takes its block's part of the
 * assembled map and the gates of its new pairs. CPU time, not wall time: a
 * thread the system deschedules holds its neighbours up whatever it owns,
 * so those spells must not move positions.
 */
enum { RX_RING = 64, RX_GLOBAL_EVERY = 256, RX_CONSUMED_EVERY = 8,
       RX_PEND_BATCH = 16, RX_PEND_AHEAD = 4, RX_PLB_WINDOW = 1024 };
/* (The full barriers' period adapts to the iteration time, rx__pace_period:
 * stop requests and failures wait for a full barrier; RX_GLOBAL_EVERY
 * under balance: rotate.) */

/* One slot per cache line: a thread that reads the neighbour's offer of k
 * (or prefetches it) does not take the line the neighbour writes k + 1 to. */
typedef struct rx__offer {
    alignas(RX_CACHELINE) atomic_llong stamp; /* k + 1 once (id, E) of
                                               * iteration k are written */
    int32_t id;
    double E;
} rx__offer;

typedef struct rx__edge {
    rx__offer o[RX_RING];
    alignas(RX_CACHELINE) atomic_llong consumed; /* reader done below it */
    alignas(RX_CACHELINE) long long seen;        /* writer's cached copy */
} rx__edge;

/* The neighbour's particle that a boundary swap may hand over: start
 * loading its lines (written by the other core) while the exchange and the
 * recorder run, before the next step reads them, without loading the
 * header first: the header's first line (all a fused 2-D chain-step
 * touches, ctx.h) or, for other steps, the whole header (hdr bytes), then
 * the first lines of theta and grad, which rx__particle_alloc puts right after
 * the header (vec bytes each; all of them on the 2-D target). */
static inline void prefetch_particle(const rx__particle *p, size_t hdr,
                                     size_t vec, int fused)
{
#if defined(__GNUC__)
    const char *b = (const char *)p;
    for (size_t o = 0; o < (fused ? RX_CACHELINE : hdr); o += RX_CACHELINE)
        __builtin_prefetch(b + o, 1);
    __builtin_prefetch(b + hdr, 1);       /* theta's first line */
    __builtin_prefetch(b + hdr + vec, 1); /* grad's */
#else
    (void)p;
    (void)hdr;
    (void)vec;
    (void)fused;
#endif
}

static inline void prefetch_offer(const rx__offer *o)
{
#if defined(__GNUC__)
    __builtin_prefetch(o, 0);
#else
    (void)o;
#endif
}

/*
 * Waiting made useful (the fused 2-D chain-step under the partner design):
 * while a thread waits for a neighbour's offer it draws the normals of its
 * inner positions' particles for the coming iterations into the particles
 * (rx__particle.zb, up to RX_ZB iterations each, round robin over the
 * particles, one particle-iteration per call between two looks at the
 * offer); the step then takes them instead of drawing. The draws are keyed
 * by (seed, chain, iteration), so the numbers are the same. Only inner
 * positions: their particles stay with this thread at least until after
 * its next offer, which orders these writes before any other thread's
 * reads of the particle (the boundary positions' particles may cross now).
 */
typedef struct rx__bank {
    const rx_ctx *c;
    const int32_t *at; /* the thread's map */
    int q0, q1, q;     /* inner positions q0..q1-1, the next one to fill */
    int64_t k1;        /* the iteration every particle steps next */
} rx__bank;

/* One particle-iteration of normals drawn ahead; 0 when every inner
 * particle's buffer is full (or there is none). */
static int bank_one(rx__bank *b)
{
    for (int n = b->q1 - b->q0; n > 0; --n) {
        rx__particle *p = b->c->parts[b->at[b->q]];
        if (++b->q >= b->q1)
            b->q = b->q0;
        if (p->zb_n >= RX_ZB)
            continue;
        if (p->zb_n == 0)
            p->zb_k = b->k1;
        const int64_t j = p->zb_k + p->zb_n;
        rx__m25_draws(b->c->target, b->c->cfg.seed, (uint32_t)p->id,
                      (uint64_t)j, p->zb + 5 * (j % RX_ZB));
        p->zb_n++;
        return 1;
    }
    return 0;
}

/* offer and take return the seconds they waited (0 when they did not:
 * the clock is read only then), for the load balance; take draws ahead
 * into bk (when not NULL) while it waits. */
static double offer(rx__edge *e, int64_t k, int32_t id, double E)
{
    double w = 0.0;
    if (k >= RX_RING && e->seen < k - RX_RING + 1) {
        e->seen = atomic_load_explicit(&e->consumed, memory_order_acquire);
        if (e->seen < k - RX_RING + 1) {
            const double t0 = rx__now();
            spin_until(&e->consumed, k - RX_RING + 1, 0);
            w = rx__now() - t0;
            e->seen =
                atomic_load_explicit(&e->consumed, memory_order_acquire);
        }
    }
    rx__offer *o = &e->o[k % RX_RING];
    o->id = id;
    o->E = E;
    atomic_store_explicit(&o->stamp, k + 1, memory_order_release);
    return w;
}

static double take(rx__edge *e, int64_t k, int32_t *id, double *E,
                   rx__bank *bk)
{
    rx__offer *o = &e->o[k % RX_RING];
    double w = 0.0;
    if (atomic_load_explicit(&o->stamp, memory_order_acquire) != k + 1) {
        const double t0 = rx__now();
        while (bk &&
               atomic_load_explicit(&o->stamp, memory_order_acquire) !=
                   k + 1 &&
               bank_one(bk))
            ;
        spin_until(&o->stamp, k + 1, 1);
        w = rx__now() - t0;
    }
    *id = o->id;
    *E = o->E;
    return w;
}

/* Does the run allow the partner design? Everything it leaves out needs
 * all pairs or all chains in every iteration. */
static int partner_applies(const rx_ctx *c)
{
    const rx__xconf *xc = &c->xc;
    /* auto: analytic targets, where it measured faster; on the networks
     * the two designs measured level (docs/performance.md), partner asks
     * for it there too */
    if (c->cfg.sync == 1 || (c->cfg.sync == 0 && c->target->eval_ws))
        return 0;
    /* from the kinds' declared needs: the schedule's row says whether
     * its pairs are disjoint and decided from the pre-swap state; no kind
     * in use may need a global step every iteration (the test's buffer C
     * or sigma^2 adapted from all pairs, a ladder adapted, a bias updated
     * from all chains); checkpoints, resumption, variance reduction and
     * cyclical step sizes run on the barrier design */
    const unsigned xneeds = rx__xtest_row(c->cfg.tempering.rule)->row.props;
    const int global_x = ((xneeds & RX__XT_BUFFER_C) && c->ac.adapt_c) ||
                         ((xneeds & RX__XT_SIGMA2) && c->s2_estimate);
    /* a bias's swap shift reads two positions' states after step 3: the
     * barrier loop's order */
    const int global_b =
        c->bias.type && ((c->bias.type->needs & RX__BIAS_NEEDS_GLOBAL_UPDATE) ||
                         c->bias.type->swap_shift);
    return c->P >= 2 && rx__exchange_local(xc) && !global_x && !global_b &&
           c->ac.adapt == RX_ADAPT_NONE && !c->vc.on && !c->ckpt_fn &&
           !c->resumed && !c->mp && /* ranks: the barrier loop */
           !c->xc.paired && /* a global phase of paired estimates */
           c->cfg.step.cyclical_cycles == 0;
}

/* A.5 check of particle i at position q (record.c's rule, local form;
 * the marks live in the particle, which only its current owner touches). */
static inline void partner_a5(rx_ctx *c, rx__tstate *ts, int32_t i, int q)
{
    rx__particle *p = c->parts[i];
    if (p->vis == (RX_VIS_LOW | RX_VIS_HIGH) && q == i) {
        ts->pc_a5++;
        p->vis = 0;
    }
}

/* One pair event into this thread's statistics and trace window. */
static inline void pair_account(rx__tstate *ts, int np, int p,
                                const rx__pairev *e)
{
    rx_pair_stats *st = &ts->pst[p];
    st->evaluated += e->evaluated;
    st->conditions += e->cond;
    st->attempts += e->attempt;
    st->swaps += e->swapped;
    st->accept_sum += e->prob;
    ts->pwin[np + p] += e->evaluated;
    ts->pwin[p] += e->cond;
    ts->pwin[2 * np + p] += e->swapped;
    ts->pc_sw += e->swapped;
}

/* The right boundary pair's iterations whose statistics wait for the
 * neighbour's offer (the pair was not attempted: nothing to decide), with
 * the energy of this side's occupant; recorded in order of k. */
typedef struct rx__pend {
    int64_t k[RX_RING];
    double E[RX_RING];
    double U[RX_RING]; /* the pair's uniform of k (rx__exchange_range) */
    int head, n;
} rx__pend;

static void pend_drain(rx_ctx *c, rx__tstate *ts, rx__edge *nb, int pr,
                       rx__pend *q, int block, rx__bank *bk)
{
    while (q->n > 0) {
        const int64_t kk = q->k[q->head];
        rx__offer *o = &nb->o[kk % RX_RING];
        if (!block &&
            atomic_load_explicit(&o->stamp, memory_order_acquire) != kk + 1)
            break;
        int32_t id;
        double E;
        ts->lb_wait += take(nb, kk, &id, &E, bk);
        rx__pairev e;
        rx__pair_stat(&c->xc, &ts->x, pr, q->E[q->head], E, kk,
                      &q->U[q->head], &e);
        pair_account(ts, c->P - 1, pr, &e);
        q->head = (q->head + 1) % RX_RING;
        q->n--;
    }
}

/* The recorder's per-iteration work for the inner pairs lo..pin_hi and
 * the positions lo..hi-1 of thread t (the boundary pairs: partner_decide). */
static void partner_record(rx_ctx *c, rx__tstate *ts, int lo, int hi,
                           int pin_hi)
{
    const rx__xstate *xs = &ts->x;
    const int P = c->P, np = P - 1;
    for (int p = lo; p <= pin_hi; ++p)
        pair_account(ts, np, p, &xs->ev[p]);
    rx__particle *a = lo == 0 ? c->parts[xs->at[0]] : NULL;
    rx__particle *b = hi == P ? c->parts[xs->at[P - 1]] : NULL;
    if (a)
        a->vis |= RX_VIS_LOW;
    if (b)
        b->vis |= RX_VIS_HIGH;
    if (a)
        partner_a5(c, ts, xs->at[0], 0);
    if (b)
        partner_a5(c, ts, xs->at[P - 1], P - 1);
    for (int p = lo; p <= pin_hi; ++p)
        if (xs->ev[p].swapped) {
            partner_a5(c, ts, xs->at[p], p);
            partner_a5(c, ts, xs->at[p + 1], p + 1);
        }
    if (a) {
        if (a->last_end == RX_VIS_HIGH)
            ts->pc_rs++;
        a->last_end = RX_VIS_LOW;
        if (a->l1_state == 2)
            ts->pc_l1++;
        a->l1_state = 1;
    }
    if (b) {
        b->last_end = RX_VIS_HIGH;
        if (b->l1_state == 1)
            b->l1_state = 2;
    }
}

/*
 * The boundary pairs attempted at iteration kk (dl: the left one, dr: the
 * right one), decided one iteration later, once this thread has stepped
 * its inner positions (or at once where the map or the counters are read
 * at kk): the neighbour's offer of kk, then the same decision on both
 * sides (El, Er: this side's energies at kk). The right pair's owner (this
 * thread) records it after the queued statistics of its earlier
 * iterations, so every pair's sums run in order of k.
 */
static void partner_decide(rx_ctx *c, rx__tstate *ts, int lo, int hi,
                           rx__edge *nb_left, rx__edge *nb_right,
                           rx__pend *pend, int64_t kk, int dl, int dr,
                           double El, double Er, double Ur, double *Eloc,
                           rx__bank *bk)
{
    rx__xstate *xs = &ts->x;
    int32_t id;
    double E;
    rx__pairev e;
    if (dl) {
        ts->lb_wait += take(nb_left, kk, &id, &E, bk);
        prefetch_particle(c->parts[id], c->part_hdr, c->part_vec, c->fused);
        xs->at[lo - 1] = id;
        Eloc[id] = E;
        if (rx__exchange_boundary(&c->xc, xs, lo - 1, E, El, kk, NULL, &e))
            partner_a5(c, ts, xs->at[lo], lo);
    }
    if (dr) {
        const int pr = hi - 1;
        pend_drain(c, ts, nb_right, pr, pend, 1, bk);
        atomic_store_explicit(&nb_right->consumed, kk, memory_order_release);
        ts->lb_wait += take(nb_right, kk, &id, &E, bk);
        prefetch_particle(c->parts[id], c->part_hdr, c->part_vec, c->fused);
        xs->at[hi] = id;
        Eloc[id] = E;
        if (rx__exchange_boundary(&c->xc, xs, pr, Er, E, kk, &Ur, &e))
            partner_a5(c, ts, xs->at[pr], pr);
        pair_account(ts, c->P - 1, pr, &e);
    }
}

/* The first iteration j >= from that ends a period (j + 1 a multiple of
 * every, every > 0). */
static inline int64_t next_end(int64_t from, int64_t every)
{
    return (from / every + 1) * every - 1;
}

/* The partner design's next full barrier at or after iteration `from`:
 * the last iteration, every c->partner_gevery-th, trace rows, progress
 * (with every > 0; every = 0 reports at these full barriers). */
static int64_t next_global(const rx_ctx *c, int64_t from)
{
    /* hit.stop: a full barrier every iteration, where every thread
     * reads whether a chain hit (the run ends there, as in the barrier
     * design) */
    if (c->rec.hit_stop)
        return from;
    int64_t g = c->cfg.iterations - 1, e = next_end(from, c->partner_gevery);
    if (e < g)
        g = e;
    if (c->rec.trace_every > 0 && (e = next_end(from, c->rec.trace_every)) < g)
        g = e;
    if (c->progress_fn && c->progress_every > 0 &&
        (e = next_end(from, c->progress_every)) < g)
        g = e;
    return g;
}

/* The order in which thread t steps its positions lo..hi-1: the inner ones
 * (n_inner), then those at its boundaries (nbl, nbr: it has a left, a
 * right neighbour). */
static void partner_order(int lo, int hi, int nbl, int nbr, int *ord,
                          int *n_inner, int *n_ord)
{
    int n = 0;
    for (int q = lo + nbl; q < hi - nbr; ++q)
        ord[n++] = q;
    *n_inner = n;
    if (nbl)
        ord[n++] = lo;
    if (nbr && !(nbl && hi - 1 == lo))
        ord[n++] = hi - 1;
    *n_ord = n;
}

rx_status rx__partner_prepare(rx_ctx *c, rx__run *R)
{
    /* the first full barrier comes after one iteration under the measured
     * balance, so the period adapts at once */
    c->partner = partner_applies(c);
    c->partner_gevery = c->cfg.balance == 2 ? RX_GLOBAL_EVERY : 1;
    c->partner_pace = (rx__pace){-1, rx__now()};
    R->edges = NULL;
    R->gmap = NULL;
    R->ggate = NULL;
    if (!c->partner)
        return RX_OK;
    R->edges = rx__calloc_aligned(sizeof(rx__edge) * 2 * (size_t)c->nt_req,
                                  RX_CACHELINE);
    R->gmap = malloc(sizeof(int32_t) * (size_t)c->P);
    R->ggate = malloc((size_t)c->P);
    if (!R->edges || !R->gmap || !R->ggate) {
        rx__partner_free(R);
        return RX_ENOMEM;
    }
    for (int e = 0; e < 2 * c->nt_req; ++e) {
        for (int j = 0; j < RX_RING; ++j)
            atomic_init(&R->edges[e].o[j].stamp, 0);
        atomic_init(&R->edges[e].consumed, 0);
        R->edges[e].seen = 0;
    }
    return RX_OK;
}

void rx__partner_free(rx__run *R)
{
    rx__free_aligned(R->edges);
    free(R->gmap);
    free(R->ggate);
    R->edges = NULL;
    R->gmap = NULL;
    R->ggate = NULL;
}

/* Thread t's block of positions under the cuts and what follows from it;
 * ord: the order of its positions in the step phase (partner_order). */
typedef struct rx__pblk {
    int lo, hi;         /* positions lo..hi-1 */
    int phi;            /* the last pair it owns */
    int glo;            /* the first pair its schedule covers */
    int pr;             /* the right boundary pair, or -1 */
    int can_defer;      /* boundary pairs may be decided one iteration
                         * later */
    int n_inner, n_ord; /* ord: the inner positions, all of them */
} rx__pblk;

static inline rx__pblk pblk_make(const rx_ctx *c, const int *cuts, int t,
                                 int nthr, int nbl, int nbr, int *ord)
{
    rx__pblk b;
    b.lo = cuts[t];
    b.hi = cuts[t + 1];
    b.phi = t + 1 < nthr ? b.hi - 1 : b.hi - 2;
    b.glo = b.lo > 0 ? b.lo - 1 : 0;
    b.pr = nbr ? b.hi - 1 : -1;
    /* a single position at an end of the ladder decides at once: its
     * occupant's marks (position 0 or P - 1) are taken every iteration */
    b.can_defer = !c->no_defer &&
                  !(b.hi - b.lo == 1 && (b.lo == 0 || b.hi == c->P));
    int n_inner = 0, n_ord = 0;
    partner_order(b.lo, b.hi, nbl, nbr, ord, &n_inner, &n_ord);
    b.n_inner = n_inner;
    b.n_ord = n_ord;
    return b;
}

/* The full barrier after iteration k (block B): this thread's statistics
 * queued for its right pair, its part of the map and gates, its busy
 * seconds where the cuts are checked; thread 0 assembles between the two
 * barriers. *t_gw: the seconds waited at the second one. */
static void partner_global(rx_ctx *c, rx__tstate *ts, int t, int nthr,
                           rx__run *R, int *sense, int64_t k, rx__pblk B,
                           rx__edge *nb_right, rx__pend *pend, double *t_gw)
{
    const int P = c->P;
    const int64_t K = c->cfg.iterations;
    const rx__xstate *xs = &ts->x;
    if (nb_right) {
        pend_drain(c, ts, nb_right, B.pr, pend, 1, NULL);
        atomic_store_explicit(&nb_right->consumed, k + 1,
                              memory_order_release);
    }
    int32_t *const gmap = R->gmap;
    uint8_t *const ggate = R->ggate;
    for (int q = B.lo; q < B.hi; ++q)
        gmap[q] = xs->at[q];
    for (int p = B.lo; p <= B.phi; ++p)
        ggate[p] = xs->gate[p];
    /* a cut check: this thread's busy seconds since the last one */
    const int plb = c->cfg.balance && nthr > 1;
    const int check = plb && k + 1 < K &&
                      (c->cfg.balance == 2 || (k + 1) % RX_PLB_WINDOW == 0);
    double tq = rx__now();
    if (check) { /* CPU time: a descheduled spell is no work */
        const double b = rx__thread_cpu() - ts->lb_t0 - ts->lb_wait;
        ts->lb_pub = b > 0.0 ? b : 0.0;
    }
    rx__barrier_wait(R->bar, sense);
    ts->lb_wait += rx__now() - tq;
    if (t == 0)
        rx__partner_assemble(c, ts, nthr, R, k, check);
    double tgw = rx__now();
    rx__barrier_wait(R->bar, sense);
    const double tge = rx__now();
    *t_gw = tge - tgw;
    ts->lb_wait += tge - tgw;
    if (check) {
        ts->lb_t0 = rx__thread_cpu();
        ts->wait_s += ts->lb_wait;
        ts->lb_wait = 0.0;
    }
    if (c->rec.trace_every > 0 && (k + 1) % c->rec.trace_every == 0)
        memset(ts->pwin, 0, sizeof(int64_t) * 3 * (size_t)(P - 1));
}

/* After a full barrier that moved the cuts: thread t's new block, its part
 * of the assembled map (the rest of gmap is not ordered against the
 * neighbours' writes at the next full barrier, and the other entries this
 * thread reads, at[lo - 1] and at[hi], come from offers), the gates of its
 * pairs, and the inner positions it draws ahead for. */
static rx__pblk partner_reblock(const rx_ctx *c, rx__tstate *ts, int t,
                                int nthr, const rx__run *R, int nbl, int nbr,
                                int *ord, rx__bank *bk)
{
    rx__xstate *xs = &ts->x;
    const rx__pblk B = pblk_make(c, R->cuts, t, nthr, nbl, nbr, ord);
    bk->q0 = bk->q = B.lo + nbl;
    bk->q1 = B.hi - nbr;
    const int32_t *const gmap = R->gmap;
    const uint8_t *const ggate = R->ggate;
    for (int q = B.lo; q < B.hi; ++q) {
        xs->at[q] = gmap[q];
        xs->pos[gmap[q]] = q;
    }
    for (int p = B.glo; p <= B.phi; ++p)
        xs->gate[p] = ggate[p];
    return B;
}

/* The neighbours' offers of k - 1, which the decisions after the inner
 * steps read (usually written by now; where the neighbour is behind, the
 * line comes over early), and the right neighbour's offer of k -
 * RX_PEND_AHEAD: each slot of that ring warmed a few iterations after it
 * was written, for the queued statistics (pend_drain) that read it later;
 * a slot per line, so this takes no line the neighbour writes. */
static inline void prefetch_offers(const rx__edge *nb_left,
                                   const rx__edge *nb_right, int64_t k,
                                   int dl, int dr)
{
    if (dl)
        prefetch_offer(&nb_left->o[(k - 1) % RX_RING]);
    if (dr)
        prefetch_offer(&nb_right->o[(k - 1) % RX_RING]);
    if (nb_right && k >= RX_PEND_AHEAD)
        prefetch_offer(&nb_right->o[(k - RX_PEND_AHEAD) % RX_RING]);
}

/* The right boundary pair pr = hi - 1 in iteration k: drain a batch of
 * queued statistics; where the pair is not attempted (!open), queue k with
 * this side's energy (draining first when the queue is full; *t_w the
 * seconds that waited). Returns k's entry in the queue, or -1. */
static inline int pend_push(rx_ctx *c, rx__tstate *ts, rx__edge *nb_right,
                            int pr, rx__pend *pend, int64_t k,
                            const double *Eloc, int open, rx__bank *bkp,
                            int timing, double *t_w)
{
    if (pend->n >= RX_PEND_BATCH)
        pend_drain(c, ts, nb_right, pr, pend, 0, NULL);
    if (open)
        return -1;
    if (pend->n == RX_RING) {
        double tw = timing ? rx__now() : 0.0;
        pend_drain(c, ts, nb_right, pr, pend, 1, bkp);
        if (timing)
            *t_w += rx__now() - tw;
    }
    const int jq = (pend->head + pend->n) % RX_RING;
    pend->k[jq] = k;
    pend->E[jq] = Eloc[ts->x.at[pr]];
    pend->n++;
    return jq;
}

/* What this thread has read of the neighbours' rings after iteration k
 * (dl, dr: the boundary pairs of k still to decide). */
static inline void consumed(rx__edge *nb_left, rx__edge *nb_right,
                            const rx__pend *pend, int64_t k, int dl, int dr)
{
    if (nb_right)
        atomic_store_explicit(&nb_right->consumed,
                              pend->n ? pend->k[pend->head] : k + 1 - dr,
                              memory_order_release);
    if (nb_left && (k + 1) % RX_CONSUMED_EVERY == 0)
        atomic_store_explicit(&nb_left->consumed, k + 1 - dl,
                              memory_order_release);
}

/* record.phase_timing: one iteration's phases from its clock reads (ta
 * start, tb steps done, tx exchange done, te end) and the time spent
 * evaluating (t_en) and waiting (t_w0 in the steps, t_w in the decisions,
 * t_gw at a full barrier). */
static void add_phases(rx__tstate *ts, double ta, double tb, double tx,
                       double te, double t_en, double t_w0, double t_w,
                       double t_gw)
{
    ts->tph[RX_PHASE_STEP] += tb - ta - t_en - t_w0;
    ts->tph[RX_PHASE_ENERGY] += t_en;
    ts->tph[RX_PHASE_WAIT] += t_w0 + t_w + t_gw;
    ts->tph[RX_PHASE_EXCHANGE] += tx - tb - t_w;
    ts->tph[RX_PHASE_RECORD] += te - tx - t_gw;
}

/* The index row `row` (iteration k) of P positions: each thread its own
 * (P by value: a load of r->P could not move out of the copy). */
static inline void index_row(const rx__recorder *r, const rx__xstate *xs,
                             rx__pblk B, int P, int t, int64_t k,
                             int64_t row)
{
    if (row >= r->cap_index)
        return;
    for (int q = B.lo; q < B.hi; ++q)
        r->index[row * P + q] = xs->at[q];
    if (t == 0)
        r->index_iter[row] = k;
}

int rx__partner_loop(rx_ctx *c, rx__tstate *ts, int t, int nthr,
                     rx__run *R, int *sense, double *Eloc, int64_t *kout)
{
    const int P = c->P;
    const int64_t K = c->cfg.iterations;
    const int timing = c->cfg.record.phase_timing;
    rx__edge *edges = R->edges;
    rx__edge *my_left = t > 0 ? &edges[2 * t] : NULL;
    rx__edge *my_right = t + 1 < nthr ? &edges[2 * t + 1] : NULL;
    rx__edge *nb_left = t > 0 ? &edges[2 * (t - 1) + 1] : NULL;
    rx__edge *nb_right = t + 1 < nthr ? &edges[2 * (t + 1)] : NULL;
    const int nbl = nb_left != NULL, nbr = nb_right != NULL;
    const rx__recorder *r = &c->rec;
    rx__xstate *xs = &ts->x;
    /* the order of the positions in the step phase: inner ones, then the
     * boundary ones (one call site keeps step_one inlined); the caller
     * allocates P ints after Eloc */
    int *ord = (int *)(Eloc + P);
    /* the block moves with the cuts at full barriers (load balance) */
    rx__pblk B = pblk_make(c, R->cuts, t, nthr, nbl, nbr, ord);
    ts->lb_wait = 0.0;
    ts->lb_t0 = rx__thread_cpu();
    rx__pend pend;
    pend.head = pend.n = 0;
    /* the normals drawn ahead while waiting (the fused 2-D step) */
    rx__bank bk = {c, xs->at, B.lo + nbl, B.hi - nbr, B.lo + nbl, 0};
    rx__bank *bkp = c->bank && bk.q0 < bk.q1 ? &bk : NULL;
    /* iterations of the next full barrier and the next index row, counted
     * down instead of dividing in every iteration */
    int64_t glob_k = next_global(c, 0), idx_k = 0, idx_row = 0;
    int failed = 0;
    int64_t k;
    /* the boundary pairs attempted at k - 1, decided at k (below) */
    int dl = 0, dr = 0;
    double El = 0.0, Er = 0.0; /* this side's energies of those pairs */
    double Ur = 0.0; /* the right pair's uniform of k - 1 */
    const int prefetch = !c->no_prefetch;
    for (k = 0; k < K; ++k) {
        double ta = timing ? rx__now() : 0.0, t_en = 0.0, t_w = 0.0;
        const int64_t row =
            k > 0 && c->samples ? sample_row(&c->cfg, k - 1) : -1;
        bk.k1 = k + 1; /* every wait of k comes after the inner steps */
        /* the inner positions first (no decision of k - 1 is left open
         * for them: the neighbours' offers of k - 1 get that long to
         * arrive), then the decisions, then the boundary positions */
        double t_w0 = 0.0; /* the part of t_w inside the step phase */
        if (prefetch)
            prefetch_offers(nb_left, nb_right, k, dl, dr);
        for (int j = 0; j < B.n_ord; ++j) {
            if (j == B.n_inner && (dl | dr)) {
                double tw = timing ? rx__now() : 0.0;
                partner_decide(c, ts, B.lo, B.hi, nb_left, nb_right, &pend,
                               k - 1, dl, dr, El, Er, Ur, Eloc, bkp);
                dl = dr = 0;
                if (timing)
                    t_w0 = rx__now() - tw;
            }
            const int q = ord[j];
            step_one(c, ts, xs->at[q], q, k, 1.0, row, Eloc, 0, timing,
                     &t_en);
        }
        double tb = timing ? rx__now() : 0.0;
        if (bkp && c->bank_mode > 0)
            while (bank_one(bkp))
                ;
        if (my_left)
            ts->lb_wait +=
                offer(my_left, k, xs->at[B.lo], Eloc[xs->at[B.lo]]);
        if (my_right)
            ts->lb_wait +=
                offer(my_right, k, xs->at[B.hi - 1], Eloc[xs->at[B.hi - 1]]);
        const int par = rx__exchange_sched(&c->xc, xs, k, B.glo, B.phi);
        /* a boundary pair is decided only when it is attempted (active
         * with an open gate); the right one's other iterations only add
         * statistics, which wait in `pend` for the neighbour's energy */
        const int pr = B.pr;
        const int right_open = nbr && ((pr + 1) & 1) == par && xs->gate[pr];
        const int left_open =
            nbl && ((B.lo - 1 + 1) & 1) == par && xs->gate[B.lo - 1];
        const int jq = nbr ? pend_push(c, ts, nb_right, pr, &pend, k, Eloc,
                                       right_open, bkp, timing, &t_w)
                           : -1; /* this iteration's entry in pend */
        /* this side's energies before the inner swaps (an attempted
         * boundary pair's inner neighbour pair is not active) */
        El = left_open ? Eloc[xs->at[B.lo]] : 0.0;
        Er = right_open ? Eloc[xs->at[B.hi - 1]] : 0.0;
        const int pin_hi = nbr ? B.hi - 2 : B.phi; /* the inner pairs */
        /* with the uniform of the right boundary pair: its statistics and
         * decision of k use it later (one Philox block fewer per
         * iteration where it shares a block with the inner pairs) */
        rx__exchange_range(&c->xc, xs, Eloc, k, par, B.lo, pin_hi, pr);
        if (nbr) {
            Ur = xs->u[pr];
            if (jq >= 0)
                pend.U[jq] = Ur;
        }
        const int global = k == glob_k;
        const int idx_now = r->index_every > 0 && k == idx_k;
        if (left_open | right_open) {
            if (global || idx_now || !B.can_defer) {
                /* the map and the counters are read now */
                double tw = timing ? rx__now() : 0.0;
                partner_decide(c, ts, B.lo, B.hi, nb_left, nb_right, &pend,
                               k, left_open, right_open, El, Er, Ur, Eloc,
                               bkp);
                if (timing)
                    t_w += rx__now() - tw;
            } else {
                dl = left_open;
                dr = right_open;
            }
        }
        consumed(nb_left, nb_right, &pend, k, dl, dr);
        double tx = timing ? rx__now() : 0.0;
        partner_record(c, ts, B.lo, B.hi, pin_hi);
        if (idx_now) {
            index_row(r, xs, B, P, t, k, idx_row++);
            idx_k += r->index_every;
        }
        double t_gw = 0.0;
        if (global) {
            partner_global(c, ts, t, nthr, R, sense, k, B, nb_right, &pend,
                           &t_gw);
            /* every thread reads the period thread 0 set between the
             * barriers, so all agree on the next full barrier */
            glob_k = next_global(c, k + 1);
            if (c->partner_recut) {
                B = partner_reblock(c, ts, t, nthr, R, nbl, nbr, ord, &bk);
                bkp = c->bank && bk.q0 < bk.q1 ? &bk : NULL;
            }
            if (c->partner_stop) {
                failed = 1;
                break;
            }
            if (c->rec.hit_stop && rx__rec_hit_by(r, k)) {
                ++k; /* a completed run of k + 1 iterations */
                break;
            }
        }
        if (timing)
            add_phases(ts, ta, tb, tx, rx__now(), t_en, t_w0, t_w, t_gw);
    }
    ts->wait_s += ts->lb_wait;
    ts->lb_wait = 0.0;
    *kout = failed ? k + 1 : k;
    return failed;
}
