/*
 * The test functions of optimisation benchmarks (Deng 2021, Table 7.1,
 * after the definitions of Surjanovic and Bingham's library, [LM05]) as
 * analytic targets: target.kind rastrigin, griewank, ... with target.dim.
 * Their names follow mixture_data in target.kind (values 6, 7, ...); the
 * public enum rx_target_kind gains no constants for them, as the step and
 * bias enums gain none for new rows. One list below gives the schema its
 * names and optfun.c its table, in the same order.
 */
#ifndef RX_TARGET_OPTFUN_H
#define RX_TARGET_OPTFUN_H

#include "replex/replex.h"

/* X(name, dimension of Table 7.1), in the table's order */
#define RX__OPTFUN_LIST(X)                                                   \
    X(rastrigin, 20) X(griewank, 20) X(sum_squares, 20) X(rosenbrock, 20)    \
    X(zakharov, 20) X(powell, 24) X(dixon_price, 25) X(levy, 30)             \
    X(sphere, 30) X(ackley, 30)
#define RX__OPTFUN_NAME(n, d) #n,

/* target.kind of the first function */
enum { RX__TARGET_OPTFUN0 = RX_TARGET_MIXTURE_DATA + 1 };

/* The function index of target.kind `kind` (0 = rastrigin), -1 for the
 * other kinds. */
int rx__optfun_index(int kind);
/* The dimension a configuration gives a function target: target.dim, or
 * the table's when 0; 0 for the other kinds. */
int rx__optfun_dim(const rx_config *c);
/* NULL when function `kind` is defined in dimension d, else why not. */
const char *rx__optfun_dim_error(int kind, int d);
/* The known minimiser x* (d values) and the minimum U(x*) (0 for all). */
void rx__optfun_xstar(int kind, int d, double *x);
double rx__optfun_umin(int kind);
/* The energy at x (d values) and, with g != NULL, its gradient. */
double rx__optfun_energy(int kind, int d, const double *x, double *g);

#endif
