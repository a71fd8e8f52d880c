/*
 * Synchronisation designs for the exchange phase, measured side by side on
 * the same mathematics: P SGLD chains on the 25-mode
 * energy (optionally with N(0, s^2) energy noise), DEO_W swaps (W = 1 is
 * DEO) with the Metropolis rule, every draw keyed by (seed, chain label,
 * purpose, k) through the library's Philox streams.
 *
 *   barrier  the engine's design: thread t owns chain LABELS lo..hi (their
 *            state never moves); after the step phase one global barrier;
 *            then every thread updates its own replica of the label <->
 *            position maps from all energies (active, gate-open pairs
 *            only: the maps-only path of src/exchange).
 *   partner  thread t owns POSITIONS lo..hi; a swap copies the state
 *            (theta, gradient, energy, label). Pairs inside a thread's
 *            block need nobody; a boundary pair (hi-1, hi) joins exactly
 *            two threads, which meet through a two-slot mailbox only when
 *            that pair is active with its gate open. No global barrier.
 *
 * Both give bitwise the same chains (checked: final theta by label, swap
 * counts) for any thread count; the program exits 1 if they do not.
 *
 * Usage: bench_sync [-k ITERS] [-n REPS] [-P N] [-W W] [-s NOISE_SD]
 *                   [-t MAXTHREADS]
 * Prints one Markdown row per (design, threads): best and median chain-
 * steps/s over REPS runs (rounds interleaved), and the ratio to 1 thread.
 */
#define _POSIX_C_SOURCE 200809L
#include <math.h>
#include <omp.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "../src/core/internal.h"
#include "bench_util.h"

enum { MAXP = 1024, MAXT = 64, SPINS = 2000 };

typedef struct conf {
    int P, W;
    int64_t K;
    uint64_t seed;
    double eta, noise;
    double beta[MAXP];
} conf;

typedef struct chain { /* the state that travels with a label */
    double th[2], g[2], E;
    int32_t label;
} chain;

static void eval(const conf *cf, chain *c, int64_t k)
{
    const double tp = 6.283185307179586476925286766559;
    double s0 = sin(tp * c->th[0]), s1 = sin(tp * c->th[1]);
    c->E = 0.2 * (c->th[0] * c->th[0] + c->th[1] * c->th[1]) -
           2.0 * (cos(tp * c->th[0]) + cos(tp * c->th[1]));
    c->g[0] = 0.4 * c->th[0] + 2.0 * tp * s0;
    c->g[1] = 0.4 * c->th[1] + 2.0 * tp * s1;
    if (cf->noise > 0.0) {
        rx__stream s;
        rx__stream_init(&s, cf->seed, (uint32_t)c->label,
                        RX_STREAM_ENERGYNOISE, (uint64_t)k);
        c->E += cf->noise * rx__normal(&s);
    }
}

static void step(const conf *cf, chain *c, int q, int64_t k)
{
    rx__stream s;
    rx__stream_init(&s, cf->seed, (uint32_t)c->label, RX_STREAM_STEP,
                    (uint64_t)k);
    const double sd = sqrt(2.0 * cf->eta / cf->beta[q]);
    c->th[0] += -cf->eta * c->g[0] + sd * rx__normal(&s);
    c->th[1] += -cf->eta * c->g[1] + sd * rx__normal(&s);
    eval(cf, c, k + 1);
}

static void init_chain(const conf *cf, chain *c, int32_t label)
{
    rx__stream s;
    rx__stream_init(&s, cf->seed, (uint32_t)label, RX_STREAM_INIT, 0);
    c->label = label;
    c->th[0] = -1.0 + 2.0 * rx__uniform(&s);
    c->th[1] = -1.0 + 2.0 * rx__uniform(&s);
    eval(cf, c, 0);
}

/* pair p (positions p, p+1) active at k under DEO_W */
static inline int active(const conf *cf, int p, int64_t k)
{
    return ((p + 1) & 1) == (int)((k / cf->W) & 1);
}

static inline int accept(const conf *cf, int p, double Ea, double Eb,
                         int64_t k)
{
    double u4[4];
    rx__uniform4(cf->seed, 0, RX_STREAM_SWAP, (uint64_t)k, (uint32_t)(p / 4),
                 u4);
    double x = (cf->beta[p] - cf->beta[p + 1]) * (Ea - Eb);
    return x >= 0.0 || u4[p % 4] < exp(x);
}

typedef struct spin_barrier {
    _Alignas(64) atomic_int count;
    _Alignas(64) atomic_int sense;
    int n;
} spin_barrier;

static void bwait(spin_barrier *b, int *ls)
{
    int s = !*ls;
    *ls = s;
    if (atomic_fetch_add_explicit(&b->count, 1, memory_order_acq_rel) ==
        b->n - 1) {
        atomic_store_explicit(&b->count, 0, memory_order_relaxed);
        atomic_store_explicit(&b->sense, s, memory_order_release);
        return;
    }
    unsigned n = 0;
    while (atomic_load_explicit(&b->sense, memory_order_acquire) != s)
        if (++n > SPINS)
            sched_yield();
}

/* ---- design 1: global barrier, replicated maps ----------------------- */
static int64_t run_barrier(const conf *cf, int nt, chain *out)
{
    const int P = cf->P;
    chain *ch = aligned_alloc(64, sizeof(chain) * MAXP);
    double *E = aligned_alloc(64, sizeof(double) * 2 * MAXP);
    spin_barrier bar = {.n = nt};
    atomic_init(&bar.count, 0);
    atomic_init(&bar.sense, 0);
    int64_t swaps = 0;
#pragma omp parallel num_threads(nt) reduction(+ : swaps)
    {
        const int t = omp_get_thread_num();
        const int lo = t * P / nt, hi = (t + 1) * P / nt;
        int32_t at[MAXP], pos[MAXP];
        uint8_t gate[MAXP];
        int ls = 0;
        for (int i = 0; i < P; ++i)
            at[i] = pos[i] = i;
        for (int i = lo; i < hi; ++i)
            init_chain(cf, &ch[i], i);
#pragma omp barrier
        for (int64_t k = 0; k < cf->K; ++k) {
            double *Ek = E + (k & 1) * MAXP;
            for (int i = lo; i < hi; ++i) {
                step(cf, &ch[i], pos[i], k);
                Ek[i] = ch[i].E;
            }
            bwait(&bar, &ls);
            if (k % cf->W == 0)
                memset(gate, 1, (size_t)P);
            for (int p = active(cf, 0, k) ? 0 : 1; p + 1 < P; p += 2) {
                if (!gate[p])
                    continue;
                int32_t a = at[p], b = at[p + 1];
                if (accept(cf, p, Ek[a], Ek[b], k)) {
                    at[p] = b;
                    at[p + 1] = a;
                    pos[a] = p + 1;
                    pos[b] = p;
                    gate[p] = 0;
                    swaps += t == 0;
                }
            }
        }
#pragma omp barrier
        for (int i = lo; i < hi; ++i)
            out[i] = ch[i];
    }
    free(ch);
    free(E);
    return swaps;
}

/* ---- design 2: positions owned, partner-only mailboxes --------------- */
typedef struct mailbox {      /* what thread t offers its right neighbour */
    _Alignas(64) chain slot[2];
    _Alignas(64) atomic_llong stamp[2]; /* k + 1 when slot holds iteration k */
} mailbox;

static int64_t run_partner(const conf *cf, int nt, chain *out)
{
    const int P = cf->P;
    chain *ch = aligned_alloc(64, sizeof(chain) * MAXP);
    /* right[t]: t's position hi-1 for t+1; left[t]: t's position lo for
     * t-1 */
    mailbox *right = aligned_alloc(64, sizeof(mailbox) * MAXT);
    mailbox *left = aligned_alloc(64, sizeof(mailbox) * MAXT);
    for (int t = 0; t < MAXT; ++t)
        for (int j = 0; j < 2; ++j) {
            atomic_init(&right[t].stamp[j], 0);
            atomic_init(&left[t].stamp[j], 0);
        }
    int64_t swaps = 0;
#pragma omp parallel num_threads(nt) reduction(+ : swaps)
    {
        const int t = omp_get_thread_num();
        const int lo = t * P / nt, hi = (t + 1) * P / nt;
        uint8_t gate[MAXP];
        int64_t ev_l = 0, ev_r = 0; /* boundary meetings so far */
        for (int q = lo; q < hi; ++q)
            init_chain(cf, &ch[q], q);
        for (int64_t k = 0; k < cf->K; ++k) {
            for (int q = lo; q < hi; ++q)
                step(cf, &ch[q], q, k);
            if (k % cf->W == 0)
                for (int p = lo > 0 ? lo - 1 : 0; p < hi && p + 1 < P; ++p)
                    gate[p] = 1;
            /* boundary pairs first: publish, then meet */
            const int pl = lo - 1, pr = hi - 1; /* pair (lo-1, lo), (hi-1, hi) */
            const int do_l = t > 0 && active(cf, pl, k) && gate[pl];
            const int do_r = t + 1 < nt && active(cf, pr, k) && gate[pr];
            if (do_l) {
                int j = (int)(ev_l & 1);
                left[t].slot[j] = ch[lo];
                atomic_store_explicit(&left[t].stamp[j], k + 1,
                                      memory_order_release);
            }
            if (do_r) {
                int j = (int)(ev_r & 1);
                right[t].slot[j] = ch[hi - 1];
                atomic_store_explicit(&right[t].stamp[j], k + 1,
                                      memory_order_release);
            }
            /* inner pairs: nobody else involved */
            for (int p = active(cf, lo, k) ? lo : lo + 1; p + 1 < hi; p += 2) {
                if (!gate[p])
                    continue;
                if (accept(cf, p, ch[p].E, ch[p + 1].E, k)) {
                    chain tmp = ch[p];
                    ch[p] = ch[p + 1];
                    ch[p + 1] = tmp;
                    gate[p] = 0;
                    swaps += 1;
                }
            }
            if (do_l) {
                int j = (int)(ev_l++ & 1);
                mailbox *m = &right[t - 1];
                unsigned n = 0;
                while (atomic_load_explicit(&m->stamp[j],
                                            memory_order_acquire) != k + 1)
                    if (++n > SPINS)
                        sched_yield();
                if (accept(cf, pl, m->slot[j].E, ch[lo].E, k)) {
                    ch[lo] = m->slot[j];
                    gate[pl] = 0; /* counted once, by the right thread */
                }
            }
            if (do_r) {
                int j = (int)(ev_r++ & 1);
                mailbox *m = &left[t + 1];
                unsigned n = 0;
                while (atomic_load_explicit(&m->stamp[j],
                                            memory_order_acquire) != k + 1)
                    if (++n > SPINS)
                        sched_yield();
                if (accept(cf, pr, ch[hi - 1].E, m->slot[j].E, k)) {
                    ch[hi - 1] = m->slot[j];
                    gate[pr] = 0;
                    swaps += 1;
                }
            }
        }
#pragma omp barrier
        for (int q = lo; q < hi; ++q)
            out[ch[q].label] = ch[q];
    }
    free(ch);
    free(right);
    free(left);
    return swaps;
}

int main(int argc, char **argv)
{
    conf cf = {.P = 16, .W = 1, .K = 200000, .seed = 7, .eta = 0.003};
    int reps = 5, maxt = omp_get_max_threads();
    for (int a = 1; a + 1 < argc; a += 2) {
        if (!strcmp(argv[a], "-k"))
            cf.K = atoll(argv[a + 1]);
        else if (!strcmp(argv[a], "-n"))
            reps = atoi(argv[a + 1]);
        else if (!strcmp(argv[a], "-P"))
            cf.P = atoi(argv[a + 1]);
        else if (!strcmp(argv[a], "-W"))
            cf.W = atoi(argv[a + 1]);
        else if (!strcmp(argv[a], "-s"))
            cf.noise = atof(argv[a + 1]);
        else if (!strcmp(argv[a], "-t"))
            maxt = atoi(argv[a + 1]);
        else {
            fprintf(stderr, "bench_sync: unknown option %s\n", argv[a]);
            return 2;
        }
    }
    if (cf.P < 2 || cf.P > MAXP || cf.W < 1 || reps < 1 || reps > 99 ||
        maxt < 1 || maxt > MAXT || cf.K < 1) {
        fprintf(stderr, "bench_sync: bad arguments\n");
        return 2;
    }
    for (int q = 0; q < cf.P; ++q) /* geometric tau 1 .. 30 */
        cf.beta[q] = 1.0 / pow(30.0, (double)q / (double)(cf.P - 1));
    chain ref[MAXP], got[MAXP];
    int64_t ref_sw = run_barrier(&cf, 1, ref);
    int bad = 0;
    double best[2][MAXT + 1], rate[2][MAXT + 1][100];
    for (int r = 0; r < reps; ++r)
        for (int d = 0; d < 2; ++d)
            for (int nt = 1; nt <= maxt; ++nt) {
                double t0 = rxb_now();
                int64_t sw = d == 0 ? run_barrier(&cf, nt, got)
                                    : run_partner(&cf, nt, got);
                double w = rxb_now() - t0;
                rate[d][nt][r] = (double)cf.P * (double)cf.K / w;
                int diff = sw != ref_sw;
                for (int i = 0; i < cf.P; ++i)
                    diff |= got[i].label != ref[i].label ||
                            memcmp(got[i].th, ref[i].th, sizeof ref[i].th) ||
                            memcmp(&got[i].E, &ref[i].E, sizeof ref[i].E);
                if (diff) {
                    fprintf(stderr, "bench_sync: %s with %d threads differs "
                            "from the 1-thread barrier run\n",
                            d ? "partner" : "barrier", nt);
                    bad = 1;
                }
            }
    printf("P = %d, W = %d, K = %lld, energy noise sd %g, %d rounds; swaps "
           "%lld (identical in every run: %s)\n\n",
           cf.P, cf.W, (long long)cf.K, cf.noise, reps, (long long)ref_sw,
           bad ? "NO" : "yes");
    printf("| design | threads | best Msteps/s | median Msteps/s | median / "
           "1 thread |\n|:---|---:|---:|---:|---:|\n");
    for (int d = 0; d < 2; ++d)
        for (int nt = 1; nt <= maxt; ++nt) {
            double *x = rate[d][nt];
            qsort(x, (size_t)reps, sizeof(double), rxb_cmpd);
            best[d][nt] = x[reps / 2];
            printf("| %s | %d | %.2f | %.2f | %.2f |\n",
                   d ? "partner" : "barrier", nt, x[reps - 1] / 1e6,
                   x[reps / 2] / 1e6, x[reps / 2] / best[d][1]);
        }
    return bad;
}
