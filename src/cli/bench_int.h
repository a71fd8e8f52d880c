/*
 * `replex bench` inside: the grid (bench_grid.c, read through the same YAML
 * loader as experiment files), the cells and their runs (bench.c) and the
 * outputs (bench_out.c).
 */
#ifndef RX_CLI_BENCH_INT_H
#define RX_CLI_BENCH_INT_H

#include <stdint.h>
#include <stdio.h>

#include "../io/yaml.h"
#include "replex/replex.h"

enum { EXIT_OK = 0, EXIT_RUNFAIL = 1, EXIT_BADINPUT = 2 };
enum { MAX_CELLS = 20000, MAX_REPS = 1000 };

typedef enum bt_kind {
    BT_FILE,
    BT_MIXTURE25,
    BT_GMM_CHEAP,
    BT_GMM_EXPENSIVE,
    BT_NONE
} bt_kind;


typedef struct btarget {
    bt_kind kind;
    const char *name; /* built-in name or file path */
    int line, col;   /* in the grid file; 0 for a command-line value */
    char where[96];  /* key path, e.g. "grids[2].targets[1]" */
} btarget;

/* One grid: lists are borrowed from the pool (a grids: entry starts as
 * a copy of the top level and replaces what it names). */
typedef struct bgrid {
    int index;       /* 1-based grids: entry, 0 = the top level */
    int line, col;   /* its mapping */
    int *schemes, n_schemes;
    int *windows, n_windows;
    int *chains, n_chains;
    int *threads, n_threads;
    btarget *targets;
    int n_targets;
    int *rules, n_rules;
    int *normals, n_normals; /* rx_normal_method values */
    double *noise;
    int n_noise;
    int64_t iterations;
    int reps;
    uint64_t seed;
    int timing;
} bgrid;

/* Every allocation of the parse, freed together. */
typedef struct bpool {
    void **p;
    int n, cap;
} bpool;

typedef struct bparse {
    const char *file;
    bpool *pool;
    int ncpu;
    char msg[1400];
    int oom;
} bparse;

typedef struct bcell {
    int grid;              /* bgrid.index */
    const btarget *tg;
    double noise;          /* built-in targets; NAN for files and none */
    int rule, normal, scheme, window, P, threads;
    int64_t iterations;
    int reps;
    uint64_t seed;
    int timing;
    /* measured */
    double *wall;          /* reps sampling seconds (wall_s - eval_s) */
    int nwall;
    int64_t trips, swaps, attempts;
    int64_t conds, evals; /* the pairs' swap conditions and evaluations */
    int window_used, threads_used, nondet;
    int timed;
    double timed_wall, phase[RX_NPHASES], imb;
    int has_imb;
    long rss_kib;
    double fg_cpu, fg_span; /* others' CPU seconds, wall seconds: sums */
    int fg_bad;            /* a run without a reading */
    double foreign;        /* fg_cpu / (fg_span x CPUs); -1 unknown */
    double *wsh;           /* reps: the sampling runs' mean wait shares */
    int nwsh;
    double *stl;           /* reps: the sampling runs' steal shares */
    int nstl;
    /* derived */
    double wall_best, wall_med, cps_best, cps_med, speedup, eff;
    double wsh_med;        /* median of wsh, -1 when none (1 thread) */
    double stl_med;        /* median of stl, -1 when unknown */
    int base;              /* the 1-thread cell, or -1 */
} bcell;

/* What a child sends back through its pipe. */
typedef struct bres {
    int status;      /* rx_status of the run */
    int setup;       /* 1: rx_create failed */
    char msg[1100];
    double wall, eval;
    int64_t iterations, trips, swaps, attempts, conds, evals;
    int window, threads;
    double phase[RX_NPHASES];
    int has_threads;
    double wait_min, wait_max;
    double wshare;   /* mean over threads of rx_results.wait_share; -1 */
    double steal;    /* rx_results.steal_share (-1 unknown) */
} bres;

/* ---- bench_grid.c ---- */
void *rx_cli_bench_alloc(bpool *pl, size_t size);
void rx_cli_bench_pool_free(bpool *pl);
/* Strict integer in [lo, hi]; 0 or -1. */
int rx_cli_bench_to_ll(const char *s, long long lo, long long hi,
                       long long *out);
/* Reads the grid file b->file into *grids (pool) / *ngrids. 0, or -1 with
 * b->msg (b->oom set when memory ran out). */
int rx_cli_bench_load_grid(bparse *b, bgrid **grids, int *ngrids);
/* --threads / --chains: "1,2,4" (threads also "all", or "all" items).
 * 0, -1 out of memory, -2 bad value (message printed). */
int rx_cli_bench_cli_list(const char *opt, const char *s, int lo, int hi,
                          int allow_all, int ncpu, bpool *pl, int **out,
                          int *count);
/* Expands the grids into cells (order: target, noise, rule, normal,
 * scheme, W, P, threads; threads innermost). -1 past MAX_CELLS. */
int rx_cli_bench_expand(const bgrid *grids, int ng, bcell *cells,
                        int *ncells);

/* ---- bench_out.c ---- */
const char *rx_cli_bench_scheme_label(int scheme);
/* Same target, noise, rule, normal method, P and iterations. */
int rx_cli_bench_same_group(const bcell *a, const bcell *b);
/* Medians, rates, speed-ups (foreign: a cell's foreign load, bench.c). */
void rx_cli_bench_derive(bcell *cells, int n, double (*foreign)(const bcell *));
int rx_cli_bench_write_csv(const char *path, const bcell *cells, int n);
void rx_cli_bench_write_md(FILE *f, const bcell *cells, int n);
/* 0 written, 1 skipped (why), -1 failed (why). */
int rx_cli_bench_write_plots(const char *dir, const bcell *cells, int n,
                             char *why, size_t cap);

#endif
