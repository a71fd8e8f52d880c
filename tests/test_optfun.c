/*
 * The optimisation test functions (src/target/optfun.c, Deng 2021, Table
 * 7.1) and the hitting-time record (hit.rho):
 *
 *  1. Every function's gradient against a central finite difference at
 *     random points of its benchmark domain, in Table 7.1's dimension and
 *     in 4 dimensions; U(x*) = 0 at the known minimiser with a zero
 *     gradient there, and U > 0 at every random point.
 *  2. Through the engine (yaml/table71_griewank20.yaml on a ladder of 4
 *     positions with DEO swaps, AWSGLD per position): summary.json's hit
 *     block and trace.csv are the same bytes on 1, 2 and 3 threads, under
 *     the barrier and the partner design, and after a stop (after the
 *     first hit) and resume.
 *  3. The first hit is the first: a run of first_iteration - 1 iterations
 *     has no hit and every chain's lowest energy above the threshold; a
 *     chain that hit has its lowest energy at or below it.
 *  4. hit.stop: the run ends after the first hitting iteration of 2 (the
 *     trace's last row is that iteration, the first with hits > 0), as a
 *     completed run of that many iterations: samples.npy and trace.csv
 *     are the bytes of a run of first_iteration iterations without the
 *     stop, the same on 1, 2 and 3 threads under both designs, and after
 *     a stop and resume; summary.json says it stopped.
 *  5. target.box (Ackley-30, SGLD, 4 independent chains up to tau = 0.5,
 *     every chain's rows): no coordinate ever leaves [-1, 1] and none sits
 *     on its edge (a clamp would put it there); a step is rejected whole
 *     (consecutive rows of a chain are equal in every coordinate or in
 *     none), rejections happen, the same bits on 1 and 3 threads; the
 *     same run without the box leaves it.
 */
#define _POSIX_C_SOURCE 200809L
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "replex/replex.h"
#include "../src/target/optfun.h"
#include "check.h"
#include "stop_run.h"

static char src[1024], tmp[1024];

/* Philox-free LCG: the test's own points, reproducible. */
static double unif(uint64_t *s)
{
    *s = *s * 6364136223846793005ULL + 1442695040888963407ULL;
    return (double)(*s >> 11) * 0x1.0p-53;
}

static void gradients(int kind, int d, double lo, double hi)
{
    double *x = malloc(sizeof(double) * (size_t)d * 3);
    double *g = x + d, *xs = g + d;
    uint64_t s = 12345u + (uint64_t)kind;
    double worst = 0.0;
    int positive = 1;
    for (int rep = 0; rep < 20; ++rep) {
        for (int i = 0; i < d; ++i)
            x[i] = lo + (hi - lo) * unif(&s);
        const double u = rx__optfun_energy(kind, d, x, g);
        positive &= u > 0.0;
        for (int i = 0; i < d; ++i) {
            const double h = 1e-6 * (1.0 + fabs(x[i])), keep = x[i];
            x[i] = keep + h;
            const double up = rx__optfun_energy(kind, d, x, NULL);
            x[i] = keep - h;
            const double dn = rx__optfun_energy(kind, d, x, NULL);
            x[i] = keep;
            const double fd = (up - dn) / (2.0 * h);
            const double err = fabs(fd - g[i]) / (1.0 + fabs(g[i]));
            if (err > worst)
                worst = err;
        }
    }
    rx__optfun_xstar(kind, d, xs);
    const double u0 = rx__optfun_energy(kind, d, xs, g);
    double gmax = 0.0;
    for (int i = 0; i < d; ++i)
        gmax = fmax(gmax, fabs(g[i]));
    CHECK_MSG(worst < 1e-5, "kind %d d %d: gradient off by %.3g", kind, d,
              worst);
    CHECK_MSG(fabs(u0 - rx__optfun_umin(kind)) < 1e-12,
              "kind %d d %d: U(x*) = %.3g", kind, d, u0);
    CHECK_MSG(gmax < 1e-9, "kind %d d %d: |grad U(x*)| = %.3g", kind, d,
              gmax);
    CHECK_MSG(positive, "kind %d d %d: U <= 0 at a random point", kind, d);
    free(x);
}

static void functions(void)
{
    /* the domains of the dissertation's code (csgld.md 4.3.4) */
    static const double dom[][2] = {{-2.56, 5.12}, {-300, 600}, {-5, 10},
                                    {-5, 10},      {-5, 10},    {-4, 5},
                                    {-10, 10},     {-10, 10},   {-2.56, 5.12},
                                    {-1, 1}};
    static const int dims[] = {20, 20, 20, 20, 20, 24, 25, 30, 30, 30};
    for (int f = 0; f < 10; ++f) {
        const int kind = RX__TARGET_OPTFUN0 + f;
        CHECK(rx__optfun_index(kind) == f);
        rx_config c;
        rx_config_default(&c);
        c.target.kind = (rx_target_kind)kind;
        CHECK(rx__optfun_dim(&c) == dims[f]);
        gradients(kind, dims[f], dom[f][0], dom[f][1]);
        gradients(kind, 4, dom[f][0], dom[f][1]);
        rx_config_free(&c);
    }
    CHECK(rx__optfun_index(RX__TARGET_OPTFUN0 + 10) < 0);
    CHECK(rx__optfun_dim_error(RX__TARGET_OPTFUN0 + 5, 6) != NULL);
}

static char *slurp(const char *path)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return NULL;
    fseek(f, 0, SEEK_END);
    long n = ftell(f);
    fseek(f, 0, SEEK_SET);
    char *b = malloc((size_t)n + 1);
    size_t r = fread(b, 1, (size_t)n, f);
    b[r] = 0;
    fclose(f);
    return b;
}

/* summary.json's hit line (malloc'd) and trace.csv of run directory dir */
static char *hit_line(const char *dir)
{
    char p[1400];
    snprintf(p, sizeof p, "%s/summary.json", dir);
    char *s = slurp(p);
    char *h = s ? strstr(s, "\n  \"hit\": {") : NULL;
    char *out = NULL;
    if (h) {
        char *e = strchr(h + 1, '\n');
        out = strndup(h + 1, (size_t)(e - h - 1));
    }
    free(s);
    return out;
}

static long num_after(const char *line, const char *key)
{
    const char *p = line ? strstr(line, key) : NULL;
    return p ? strtol(p + strlen(key), NULL, 10) : -2;
}

static int load(const char *const *sets, int n, rx_config *cfg)
{
    char path[1200];
    rx_err err = {0};
    snprintf(path, sizeof path, "%s/yaml/table71_griewank20.yaml", src);
    rx_status st = rx_config_load(path, sets, n, cfg, &err);
    CHECK_MSG(st == RX_OK, "%s", err.msg);
    return st == RX_OK;
}

/* One run into dir: threads, optional resume and stop (as test_resume). */
static void run_to(const rx_config *cfg, int threads, const char *from,
                   int64_t stop_at, const char *ck, const char *dir)
{
    stopper s;
    rx_status st;
    rx_ctx *c = stop_run(cfg, threads, from, stop_at, ck, &s, &st);
    if (c && stop_at < 0) {
        CHECK_MSG(st == RX_OK, "rx_run: %s", rx_errmsg(c));
        st = rx_write_rundir(c, dir, 1, "test_optfun");
        CHECK_MSG(st == RX_OK, "rundir: %s", rx_errmsg(c));
    }
    rx_destroy(&c);
}

static const char *const LADDER[] = {
    "tempering.n_chains=4", "tempering.scheme=deo",
    "ladder.tau={min: 10, max: 40}", "record.trace_every=50",
    "iterations=2500", "checkpoint.every=0", "hit.stop=false", NULL, NULL};

static long engine(void)
{
    const char *sets[8];
    int n = 0;
    for (; LADDER[n]; ++n)
        sets[n] = LADDER[n];
    char ref[1200], dir[1200], ck[1200];
    snprintf(ref, sizeof ref, "%s/ref", tmp);
    char *want = NULL, *want_tr = NULL;
    static const char *const sync[] = {"sync=barrier", "sync=partner"};
    for (int y = 0; y < 2; ++y)
        for (int t = 1; t <= 3; ++t) {
            rx_config cfg;
            sets[n] = sync[y];
            if (!load(sets, n + 1, &cfg))
                return -1;
            snprintf(dir, sizeof dir, "%s/run-%d-%d", tmp, y, t);
            run_to(&cfg, t, NULL, -1, NULL, dir);
            rx_config_free(&cfg);
            char *h = hit_line(dir), p[1300];
            snprintf(p, sizeof p, "%s/trace.csv", dir);
            char *tr = slurp(p);
            CHECK_MSG(h && tr, "no hit block or trace in %s", dir);
            if (!want) {
                want = h;
                want_tr = tr;
                printf("hit: %s\n", h ? h : "(none)");
                continue;
            }
            CHECK_MSG(h && !strcmp(h, want), "%s: %s vs %s", dir, h, want);
            CHECK_MSG(tr && !strcmp(tr, want_tr), "%s: trace differs", dir);
            free(h);
            free(tr);
        }
    CHECK(want_tr && strstr(want_tr, ",hits\n"));
    const long first = num_after(want, "\"first_iteration\": ");
    const long nhit = num_after(want, "\"chains_hit\": ");
    CHECK_MSG(first > 1 && nhit >= 1, "first %ld, chains %ld", first, nhit);
    /* resume: stopped after the first hit with a checkpoint, resumed on 2
     * threads (the hits so far travel in the checkpoint) */
    snprintf(ck, sizeof ck, "%s/ck.bin", tmp);
    rx_config cfg;
    sets[n] = "sync=barrier";
    if (first > 1 && first + 50 < 2500 && load(sets, n + 1, &cfg)) {
        run_to(&cfg, 3, NULL, first + 50, ck, NULL);
        snprintf(dir, sizeof dir, "%s/resumed", tmp);
        run_to(&cfg, 2, ck, -1, NULL, dir);
        char *h = hit_line(dir);
        CHECK_MSG(h && want && !strcmp(h, want), "resumed: %s", h);
        free(h);
        rx_config_free(&cfg);
    }
    /* the first hit is the first: one iteration less, no hit */
    char kset[64];
    snprintf(kset, sizeof kset, "iterations=%ld", first - 1);
    sets[n] = kset;
    if (first > 1 && load(sets, n + 1, &cfg)) {
        snprintf(dir, sizeof dir, "%s/short", tmp);
        run_to(&cfg, 2, NULL, -1, NULL, dir);
        char *h = hit_line(dir);
        CHECK_MSG(num_after(h, "\"chains_hit\": ") == 0, "%s", h);
        /* every lowest energy above the threshold 25 */
        const char *m = h ? strstr(h, "\"min_energy\": [") : NULL;
        for (int i = 0; m && i < 4; ++i) {
            m = strpbrk(m + (i ? 1 : 15), "0123456789");
            const double e = m ? strtod(m, (char **)&m) : 0.0;
            CHECK_MSG(e > 25.0, "chain %d: lowest energy %g", i, e);
        }
        free(h);
        rx_config_free(&cfg);
    }
    free(want);
    free(want_tr);
    return first;
}

/* The bytes of a file (malloc'd), *n its length; NULL if unreadable. */
static char *bytes(const char *dir, const char *name, long *n)
{
    char p[1400];
    snprintf(p, sizeof p, "%s/%s", dir, name);
    FILE *f = fopen(p, "rb");
    if (!f)
        return NULL;
    fseek(f, 0, SEEK_END);
    *n = ftell(f);
    fseek(f, 0, SEEK_SET);
    char *b = malloc((size_t)*n + 1);
    *n = (long)fread(b, 1, (size_t)*n, f);
    fclose(f);
    return b;
}

static int same_file(const char *a, const char *b, const char *name)
{
    long na = -1, nb = -2;
    char *x = bytes(a, name, &na), *y = bytes(b, name, &nb);
    const int same = x && y && na == nb && !memcmp(x, y, (size_t)na);
    free(x);
    free(y);
    return same;
}

/* The hit line without its "stop" and "stopped" fields. */
static void strip_stop(char *h)
{
    char *p = h ? strstr(h, ", \"stop\": ") : NULL;
    char *e = p ? strstr(p, ", \"chains\": ") : NULL;
    if (p && e)
        memmove(p, e, strlen(e) + 1);
}

/* summary.json's "iterations" */
static long run_iterations(const char *dir)
{
    long n = 0;
    char *s = bytes(dir, "summary.json", &n);
    long v = s ? num_after(s, "\n  \"iterations\": ") : -2;
    free(s);
    return v;
}

/* trace.csv's last two rows: their iterations and hits (last column) */
static void trace_tail(const char *dir, long it[2], long hits[2])
{
    long n = 0;
    char *s = bytes(dir, "trace.csv", &n);
    it[0] = it[1] = hits[0] = hits[1] = -3;
    if (!s || n < 2)
        return;
    s[n] = 0;
    char *end = s + n - 1; /* the last newline */
    for (int r = 1; r >= 0; --r) {
        char *b = end;
        while (b > s && b[-1] != '\n')
            --b;
        it[r] = strtol(b, NULL, 10);
        const char *c = end;
        while (c > b && c[-1] != ',')
            --c;
        hits[r] = strtol(c, NULL, 10);
        end = b - 1;
        if (end <= s)
            break;
    }
    free(s);
}

static void hitstop(long first)
{
    if (first < 100)
        return;
    const char *sets[12];
    int n = 0;
    for (; LADDER[n]; ++n)
        sets[n] = LADDER[n];
    sets[n++] = "record.thin=7";
    const int n0 = n; /* the reference: first_iteration iterations */
    char kset[64];
    snprintf(kset, sizeof kset, "iterations=%ld", first);
    sets[n0] = kset;
    char ref[1200], dir[1200], ck[1200], first_dir[1200];
    snprintf(ref, sizeof ref, "%s/stop-ref", tmp);
    rx_config cfg;
    if (!load(sets, n0 + 1, &cfg))
        return;
    run_to(&cfg, 1, NULL, -1, NULL, ref);
    rx_config_free(&cfg);
    char *want = hit_line(ref);
    strip_stop(want);
    sets[n++] = "hit.stop=true";
    static const char *const sync[] = {"sync=barrier", "sync=partner"};
    first_dir[0] = 0;
    for (int y = 0; y < 2; ++y)
        for (int t = 1; t <= 3; ++t) {
            sets[n] = sync[y];
            if (!load(sets, n + 1, &cfg))
                return;
            snprintf(dir, sizeof dir, "%s/stop-%d-%d", tmp, y, t);
            run_to(&cfg, t, NULL, -1, NULL, dir);
            rx_config_free(&cfg);
            CHECK_MSG(run_iterations(dir) == first,
                      "%s: %ld iterations, the first hit at %ld", dir,
                      run_iterations(dir), first);
            char *h = hit_line(dir);
            CHECK_MSG(h && strstr(h, "\"stop\": true, \"stopped\": true"),
                      "%s: %s", dir, h);
            strip_stop(h);
            CHECK_MSG(h && want && !strcmp(h, want), "%s: %s vs %s", dir, h,
                      want);
            free(h);
            CHECK_MSG(same_file(ref, dir, "samples.npy"),
                      "%s: samples.npy differs from the run of %ld", dir,
                      first);
            CHECK_MSG(same_file(ref, dir, "trace.csv"),
                      "%s: trace.csv differs from the run of %ld", dir,
                      first);
            if (!first_dir[0])
                snprintf(first_dir, sizeof first_dir, "%s", dir);
        }
    /* a trace row every iteration: the last one is the first with a hit
     * (trace rows every 50 above: the partner design then has full
     * barriers only where hit.stop puts them) */
    sets[n] = "record.trace_every=1";
    if (load(sets, n + 1, &cfg)) {
        snprintf(dir, sizeof dir, "%s/stop-trace", tmp);
        run_to(&cfg, 2, NULL, -1, NULL, dir);
        rx_config_free(&cfg);
        long it[2], hits[2];
        trace_tail(dir, it, hits);
        CHECK_MSG(it[1] == first - 1 && it[0] == first - 2 &&
                      hits[1] >= 1 && hits[0] == 0,
                  "trace tail: iterations %ld %ld, hits %ld %ld", it[0],
                  it[1], hits[0], hits[1]);
    }
    /* resume: stopped (flag) 30 iterations before the hit, resumed on 2
     * threads: it stops at the same hit with the same bytes */
    snprintf(ck, sizeof ck, "%s/stop-ck.bin", tmp);
    sets[n] = "sync=barrier";
    if (load(sets, n + 1, &cfg)) {
        run_to(&cfg, 3, NULL, first - 30, ck, NULL);
        snprintf(dir, sizeof dir, "%s/stop-resumed", tmp);
        run_to(&cfg, 2, ck, -1, NULL, dir);
        rx_config_free(&cfg);
        CHECK_MSG(run_iterations(dir) == first, "resumed: %ld iterations",
                  run_iterations(dir));
        CHECK(same_file(first_dir, dir, "samples.npy"));
        CHECK(same_file(first_dir, dir, "trace.csv"));
    }
    free(want);
}

/* The samples of the Ackley-30 run of part 5 (malloc'd), *rows rows of
 * 4 chains x 30. */
static float *box_run(int box, int threads, int64_t *rows)
{
    char path[1200];
    snprintf(path, sizeof path, "%s/yaml/table71_ackley30.yaml", src);
    const char *sets[] = {"bias.kind=none", "tempering.n_chains=4",
                          "ladder.tau=[0.05, 0.1, 0.2, 0.5]",
                          "record.all_positions=true", "record.thin=1",
                          "iterations=3000", "hit.stop=false", "hit.rho=-1",
                          box ? "target.box=true" : "target.box=false"};
    rx_config cfg;
    rx_err err = {0};
    *rows = 0;
    rx_status st = rx_config_load(path, sets, 9, &cfg, &err);
    CHECK_MSG(st == RX_OK, "%s", err.msg);
    if (st != RX_OK)
        return NULL;
    cfg.threads = threads;
    rx_ctx *c = NULL;
    st = rx_create(&c, &cfg, NULL, (rx_logger){0}, &err);
    rx_config_free(&cfg);
    CHECK_MSG(st == RX_OK, "%s", err.msg);
    float *out = NULL;
    if (st == RX_OK && (st = rx_run(c)) == RX_OK) {
        rx_results r;
        rx_get_results(c, &r);
        CHECK(r.dim == 30 && r.n_samples == 3000 * 4);
        out = malloc(sizeof(float) * (size_t)r.n_samples * r.dim);
        memcpy(out, r.samples, sizeof(float) * (size_t)r.n_samples * r.dim);
        *rows = r.n_samples / 4;
    }
    CHECK_MSG(st == RX_OK, "rx_run: %s", c ? rx_errmsg(c) : "");
    rx_destroy(&c);
    return out;
}

static void box(void)
{
    int64_t n = 0, n3 = 0, nf = 0;
    float *s = box_run(1, 1, &n), *s3 = box_run(1, 3, &n3),
          *f = box_run(0, 1, &nf);
    if (!s || !s3 || !f) {
        free(s), free(s3), free(f);
        return;
    }
    CHECK(n3 == n && !memcmp(s, s3, sizeof(float) * (size_t)n * 120));
    long out = 0, edge = 0, mixed = 0, rejected[4] = {0};
    for (int64_t k = 0; k < n * 120; ++k) {
        out += s[k] < -1.0f || s[k] > 1.0f;
        edge += s[k] == -1.0f || s[k] == 1.0f;
    }
    for (int64_t k = 1; k < n; ++k)
        for (int q = 0; q < 4; ++q) {
            const float *a = s + (k * 4 + q) * 30, *b = a - 120;
            int eq = 0;
            for (int j = 0; j < 30; ++j)
                eq += a[j] == b[j];
            rejected[q] += eq == 30;
            mixed += eq > 0 && eq < 30;
        }
    CHECK_MSG(out == 0 && edge == 0, "%ld coordinates out of [-1, 1], %ld "
              "on its edge", out, edge);
    CHECK_MSG(mixed == 0, "%ld steps moved some coordinates only", mixed);
    /* the hotter the chain, the more it is turned back */
    CHECK_MSG(rejected[0] > 0 && rejected[3] > rejected[0],
              "rejected steps by chain: %ld %ld %ld %ld", rejected[0],
              rejected[1], rejected[2], rejected[3]);
    long fout = 0;
    for (int64_t k = 0; k < nf * 120; ++k)
        fout += f[k] < -1.0f || f[k] > 1.0f;
    CHECK_MSG(fout > 0, "without the box no coordinate left [-1, 1]");
    printf("box: rejected steps by chain %ld %ld %ld %ld of %lld; without "
           "it %ld coordinates out\n", rejected[0], rejected[1],
           rejected[2], rejected[3], (long long)n - 1, fout);
    free(s);
    free(s3);
    free(f);
}

int main(void)
{
    const char *s = getenv("RX_SRCDIR");
    snprintf(src, sizeof src, "%s", s ? s : ".");
    snprintf(tmp, sizeof tmp, "/tmp/rx_test_optfun_%ld", (long)getpid());
    if (mkdir(tmp, 0700) != 0) {
        perror(tmp);
        return 1;
    }
    functions();
    /* the run directories stay in tmp, for inspection */
    hitstop(engine());
    box();
    return check_done();
}
