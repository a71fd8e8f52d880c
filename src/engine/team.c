/*
 * The team: the threads of a run's one parallel region, their barrier,
 * their placement on CPUs, each thread's exchange state, and the load
 * balance of the barrier design (which chains each thread steps).
 */
#define _GNU_SOURCE /* sched_yield, CPU sets */
#include <math.h>
#include <sched.h>
#include <stdlib.h>
#include <string.h>

#include "wing.h"

void rx__barrier_wait(rx__barrier *b, int *local_sense)
{
    int s;
    if (!barrier_arrive(b, local_sense, &s))
        barrier_spin(b, s);
}

/*
 * Thread placement. Started from one CPU, the team's threads can share it
 * for a whole short run (measured: 1.7 M chain-steps/s instead of 5 M on 2
 * cores), so when the run uses every CPU the process may run on and the
 * user has not chosen a binding (OMP_PROC_BIND unset), thread t is pinned
 * to the t-th CPU of that set for the run and its previous mask restored
 * afterwards. Placement never changes results, only speed.
 */
int rx__pin_wanted(int nthreads)
{
#if defined(__linux__)
    if (getenv("OMP_PROC_BIND") || getenv("OMP_PLACES"))
        return 0;
    cpu_set_t m;
    if (sched_getaffinity(0, sizeof m, &m) != 0)
        return 0;
    return CPU_COUNT(&m) == nthreads && nthreads > 1;
#else
    (void)nthreads;
    return 0;
#endif
}

void rx__pin_thread(rx__pin *pn, int t)
{
    pn->pinned = 0;
#if defined(__linux__)
    if (sched_getaffinity(0, sizeof pn->saved, &pn->saved) != 0)
        return;
    int seen = 0;
    for (int cpu = 0; cpu < CPU_SETSIZE; ++cpu)
        if (CPU_ISSET(cpu, &pn->saved) && seen++ == t) {
            cpu_set_t one;
            CPU_ZERO(&one);
            CPU_SET(cpu, &one);
            pn->pinned = sched_setaffinity(0, sizeof one, &one) == 0;
            return;
        }
#else
    (void)t;
#endif
}

void rx__unpin_thread(rx__pin *pn)
{
#if defined(__linux__)
    if (pn->pinned)
        sched_setaffinity(0, sizeof pn->saved, &pn->saved);
#endif
    pn->pinned = 0;
}

/* One block per thread: at, pos (P each), ev, u, gate (P-1 each; u is
 * rounded up to a multiple of 4 for the 4-uniform Philox blocks), and the
 * thread's copy of the adaptive state: eta, tau, scratch (P each), C. */
rx_status rx__tstate_alloc(const rx_ctx *c, rx__tstate *ts, int P)
{
    size_t up = (size_t)P;
    size_t off_pos = up * sizeof(int32_t);
    size_t off_ev = (off_pos + up * sizeof(int32_t) + 7) & ~(size_t)7;
    size_t off_u = off_ev + up * sizeof(rx__pairev);
    size_t off_lad = off_u + (up + 4) * sizeof(double);
    size_t off_gate = off_lad + 8 * up * sizeof(double);
    size_t total = off_gate + up;
    char *b = rx__calloc_aligned(total, RX_CACHELINE);
    if (!b)
        return RX_ENOMEM;
    ts->x.at = (int32_t *)b;
    ts->x.pos = (int32_t *)(b + off_pos);
    ts->x.ev = (rx__pairev *)(b + off_ev);
    ts->x.u = (double *)(b + off_u);
    ts->x.eta = (double *)(b + off_lad);
    ts->x.tau = ts->x.eta + up;
    ts->x.tmp = ts->x.tau + up;
    ts->x.s2hat = ts->x.tmp + 3 * up; /* tmp holds 3P for the barrier */
    ts->x.acc_sum = ts->x.s2hat + up;
    ts->x.beta = ts->x.acc_sum + up;
    for (int p = 0; p < P; ++p)
        ts->x.acc_sum[p] = 0.0;
    ts->x.round = 0;
    for (int r = 0; r < RX__MAX_ROUNDS; ++r)
        ts->x.round_lambda[r] = 0.0;
    ts->x.round_end = c->cfg.ladder.barrier_round - 1;
    {
        const rx_config *cf = &c->cfg;
        double s2 = cf->tempering.sigma2 == RX_SIGMA2_AUTO
                        ? cf->target.energy_noise_sd *
                              cf->target.energy_noise_sd
                    : cf->tempering.sigma2 == RX_SIGMA2_ESTIMATE
                        ? cf->variance.init
                        : cf->tempering.sigma2;
        if (cf->variance.difference &&
            cf->tempering.sigma2 == RX_SIGMA2_AUTO)
            s2 *= 2.0; /* Var(U~p - U~p+1) = 2 sd^2 */
        for (int p = 0; p < P; ++p)
            ts->x.s2hat[p] = s2;
        ts->x.sa_count = 0;
    }
    ts->x.gate = (uint8_t *)(b + off_gate);
    memcpy(ts->x.eta, c->eta, sizeof(double) * up);
    memcpy(ts->x.tau, c->tau, sizeof(double) * up);
    for (int q = 0; q < P; ++q)
        ts->x.beta[q] = c->path ? c->pbeta[q] : 1.0 / ts->x.tau[q];
    ts->x.C = c->cfg.correction.init;
    for (int q = 0; q < P; ++q)
        ts->x.at[q] = ts->x.pos[q] = q;
    for (int p = 0; p < P - 1; ++p)
        ts->x.gate[p] = 1;
    ts->x.nonadjacent_swaps = 0;
    return RX_OK;
}

/*
 * Load balance (barrier design, more than one thread). Chains are
 * contiguous index ranges per thread, cut[t] .. cut[t+1]. Every
 * RX_LB_SAMPLE-th iteration each thread times its busy span (from leaving
 * one barrier to arriving at the next: its chains' steps plus its exchange,
 * and on thread 0 the recorder); every RX_LB_WINDOW iterations thread 0
 * moves each cut towards the less busy neighbour, one chain at a time
 * while the difference (less twice the chain's cost per move) exceeds
 * 1.25 times the busier thread's mean cost per chain (so a move does not
 * make it worse).
 * Which thread steps a chain never changes a result: every draw is keyed by
 * the chain, never by the thread.
 */

int rx__lb_plan(int *cut, const rx__tstate *ts, int nthr, int rotate,
                int64_t k)
{
    if (rotate) {
        /* testing aid: one boundary moves every window, back and forth */
        int t = (int)((k / RX_LB_WINDOW) % (nthr - 1)) + 1;
        int dir = (int)((k / RX_LB_WINDOW / (nthr - 1)) & 1) ? 1 : -1;
        int c = cut[t] + dir;
        if (c > cut[t - 1] && c < cut[t + 1])
            cut[t] = c;
        return 1;
    }
    /* a chain that moves is the donor's last or first one: its cost is
     * taken as the donor's mean m (the smallest mean over all threads
     * moved costly chains off a thread of cheap ones, and back); each
     * move narrows the difference d by about 2 m, and chains move while
     * it stays above 1.25 m */
    int moved = 0;
    for (int t = 0; t + 1 < nthr; ++t) {
        const double d = ts[t].lb_pub - ts[t + 1].lb_pub;
        const int na = cut[t + 1] - cut[t], nb = cut[t + 2] - cut[t + 1];
        const int from_a = d > 0.0, n = from_a ? na : nb;
        const double m = (from_a ? ts[t].lb_pub : ts[t + 1].lb_pub) / n;
        int j = 0;
        while (n - j > 1 && fabs(d) - 2.0 * j * m > 1.25 * m)
            ++j;
        cut[t + 1] += from_a ? -j : j;
        moved |= j > 0;
    }
    return moved;
}
