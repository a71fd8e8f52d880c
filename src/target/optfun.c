/*
 * The optimisation test functions of Deng 2021, Table 7.1, in d
 * dimensions, each with its exact gradient and its known minimiser; the
 * definitions are the standard ones of Surjanovic and Bingham's library
 * (www.sfu.ca/~ssurjano, after [LM05]), with i = 1..d below:
 *
 *   rastrigin    10 d + sum (x_i^2 - 10 cos(2 pi x_i))              x* = 0
 *   griewank     1 + sum x_i^2 / 4000 - prod cos(x_i / sqrt(i))      x* = 0
 *   sum_squares  sum i x_i^2                                         x* = 0
 *   rosenbrock   sum_{i<d} 100 (x_{i+1} - x_i^2)^2 + (x_i - 1)^2     x* = 1
 *   zakharov     sum x_i^2 + s^2 + s^4, s = sum i x_i / 2            x* = 0
 *   powell       sum over blocks (a, b, c, e) of four: (a + 10 b)^2 +
 *                5 (c - e)^2 + (b - 2 c)^4 + 10 (a - e)^4 (d % 4 = 0) x* = 0
 *   dixon_price  (x_1 - 1)^2 + sum_{i>=2} i (2 x_i^2 - x_{i-1})^2
 *                                            x*_i = 2^-(1 - 2^(1 - i))
 *   levy         w = 1 + (x - 1)/4: sin^2(pi w_1) + sum_{i<d} (w_i -
 *                1)^2 (1 + 10 sin^2(pi w_i + 1)) + (w_d - 1)^2 (1 +
 *                sin^2(2 pi w_d))                                    x* = 1
 *   sphere       sum x_i^2                                           x* = 0
 *   ackley       20 + e - 20 exp(-0.2 sqrt(sum x_i^2 / d)) -
 *                exp(sum cos(2 pi x_i) / d)                          x* = 0
 *
 * Every minimum is 0. The dissertation's code deviates from these in a
 * few places (Powell's indices, Levy, Zakharov and Dixon-Price weights);
 * replex uses the library's definitions. Owns no state: a function is
 * its table row; t->eval is the row's function.
 */
#include <math.h>
#include <string.h>

#include "optfun.h"
#include "target.h"

#define PI 3.14159265358979323846

typedef double (*optfun_fn)(const double *x, int d, double *g);
typedef void (*optfun_xs)(int d, double *x);

static double f_rastrigin(const double *x, int d, double *g)
{
    double u = 10.0 * d;
    for (int i = 0; i < d; ++i) {
        u += x[i] * x[i] - 10.0 * cos(2.0 * PI * x[i]);
        if (g)
            g[i] = 2.0 * x[i] + 20.0 * PI * sin(2.0 * PI * x[i]);
    }
    return u;
}

/* The product's gradient without dividing by a cosine that may be 0:
 * g[i] first holds the product of the cosines before i, then a backward
 * sweep multiplies in those after i. */
static double f_griewank(const double *x, int d, double *g)
{
    double s = 0.0, prod = 1.0;
    for (int i = 0; i < d; ++i) {
        const double r = 1.0 / sqrt((double)(i + 1));
        s += x[i] * x[i];
        if (g)
            g[i] = prod;
        prod *= cos(x[i] * r);
    }
    if (g) {
        double after = 1.0;
        for (int i = d - 1; i >= 0; --i) {
            const double r = 1.0 / sqrt((double)(i + 1));
            const double others = g[i] * after;
            g[i] = x[i] / 2000.0 + others * sin(x[i] * r) * r;
            after *= cos(x[i] * r);
        }
    }
    return 1.0 + s / 4000.0 - prod;
}

static double f_sum_squares(const double *x, int d, double *g)
{
    double u = 0.0;
    for (int i = 0; i < d; ++i) {
        u += (i + 1) * x[i] * x[i];
        if (g)
            g[i] = 2.0 * (i + 1) * x[i];
    }
    return u;
}

static double f_rosenbrock(const double *x, int d, double *g)
{
    double u = 0.0;
    if (g)
        memset(g, 0, sizeof(double) * (size_t)d);
    for (int i = 0; i + 1 < d; ++i) {
        const double a = x[i + 1] - x[i] * x[i], b = x[i] - 1.0;
        u += 100.0 * a * a + b * b;
        if (g) {
            g[i] += -400.0 * x[i] * a + 2.0 * b;
            g[i + 1] += 200.0 * a;
        }
    }
    return u;
}

static double f_zakharov(const double *x, int d, double *g)
{
    double s1 = 0.0, s = 0.0;
    for (int i = 0; i < d; ++i) {
        s1 += x[i] * x[i];
        s += 0.5 * (i + 1) * x[i];
    }
    if (g) {
        const double ds = 2.0 * s + 4.0 * s * s * s;
        for (int i = 0; i < d; ++i)
            g[i] = 2.0 * x[i] + ds * 0.5 * (i + 1);
    }
    return s1 + s * s + s * s * s * s;
}

static double f_powell(const double *x, int d, double *g)
{
    double u = 0.0;
    for (int i = 0; i + 3 < d; i += 4) {
        const double a = x[i], b = x[i + 1], c = x[i + 2], e = x[i + 3];
        const double p = a + 10.0 * b, q = c - e, r = b - 2.0 * c,
                     s = a - e;
        u += p * p + 5.0 * q * q + r * r * r * r + 10.0 * s * s * s * s;
        if (g) {
            g[i] = 2.0 * p + 40.0 * s * s * s;
            g[i + 1] = 20.0 * p + 4.0 * r * r * r;
            g[i + 2] = 10.0 * q - 8.0 * r * r * r;
            g[i + 3] = -10.0 * q - 40.0 * s * s * s;
        }
    }
    return u;
}

static double f_dixon_price(const double *x, int d, double *g)
{
    double u = (x[0] - 1.0) * (x[0] - 1.0);
    if (g) {
        memset(g, 0, sizeof(double) * (size_t)d);
        g[0] = 2.0 * (x[0] - 1.0);
    }
    for (int i = 1; i < d; ++i) {
        const double w = (double)(i + 1), r = 2.0 * x[i] * x[i] - x[i - 1];
        u += w * r * r;
        if (g) {
            g[i] += 8.0 * w * r * x[i];
            g[i - 1] -= 2.0 * w * r;
        }
    }
    return u;
}

static double f_levy(const double *x, int d, double *g)
{
    const double w1 = 1.0 + (x[0] - 1.0) / 4.0;
    double u = sin(PI * w1) * sin(PI * w1);
    if (g) { /* d/dx = (d/dw) / 4 throughout */
        memset(g, 0, sizeof(double) * (size_t)d);
        g[0] = PI * sin(2.0 * PI * w1) / 4.0;
    }
    for (int i = 0; i + 1 < d; ++i) {
        const double w = 1.0 + (x[i] - 1.0) / 4.0, sn = sin(PI * w + 1.0);
        const double h = 1.0 + 10.0 * sn * sn;
        u += (w - 1.0) * (w - 1.0) * h;
        if (g)
            g[i] += (2.0 * (w - 1.0) * h + (w - 1.0) * (w - 1.0) * 10.0 *
                                               PI * sin(2.0 * (PI * w + 1.0))) /
                    4.0;
    }
    const double wd = 1.0 + (x[d - 1] - 1.0) / 4.0, sd = sin(2.0 * PI * wd);
    u += (wd - 1.0) * (wd - 1.0) * (1.0 + sd * sd);
    if (g)
        g[d - 1] += (2.0 * (wd - 1.0) * (1.0 + sd * sd) +
                     (wd - 1.0) * (wd - 1.0) * 2.0 * PI * sin(4.0 * PI * wd)) /
                    4.0;
    return u;
}

static double f_sphere(const double *x, int d, double *g)
{
    double u = 0.0;
    for (int i = 0; i < d; ++i) {
        u += x[i] * x[i];
        if (g)
            g[i] = 2.0 * x[i];
    }
    return u;
}

/* At x = 0 the first term's gradient has no limit: 0 there (the
 * subgradient of least norm). */
static double f_ackley(const double *x, int d, double *g)
{
    const double a = 20.0, b = 0.2, c = 2.0 * PI;
    double s1 = 0.0, s2 = 0.0;
    for (int i = 0; i < d; ++i) {
        s1 += x[i] * x[i];
        s2 += cos(c * x[i]);
    }
    const double r = sqrt(s1 / d), e1 = exp(-b * r), e2 = exp(s2 / d);
    if (g)
        for (int i = 0; i < d; ++i)
            g[i] = (r > 0.0 ? a * b * e1 * x[i] / (d * r) : 0.0) +
                   e2 * c * sin(c * x[i]) / d;
    return a + exp(1.0) - a * e1 - e2;
}

static void xs_zero(int d, double *x)
{
    for (int i = 0; i < d; ++i)
        x[i] = 0.0;
}

static void xs_one(int d, double *x)
{
    for (int i = 0; i < d; ++i)
        x[i] = 1.0;
}

static void xs_dixon_price(int d, double *x)
{
    for (int i = 0; i < d; ++i) /* 2^-(2^i - 2)/2^i without 2^i */
        x[i] = exp2(-(1.0 - exp2(-(double)i)));
}

#define xs_rastrigin xs_zero
#define xs_griewank xs_zero
#define xs_sum_squares xs_zero
#define xs_rosenbrock xs_one
#define xs_zakharov xs_zero
#define xs_powell xs_zero
#define xs_levy xs_one
#define xs_sphere xs_zero
#define xs_ackley xs_zero

static const struct {
    int dim; /* Table 7.1's */
    optfun_fn fn;
    optfun_xs xs;
} FUNS[] = {
#define ROW(n, d) {d, f_##n, xs_##n},
    RX__OPTFUN_LIST(ROW)
#undef ROW
};
#define NFUN ((int)(sizeof FUNS / sizeof FUNS[0]))

int rx__optfun_index(int kind)
{
    const int i = kind - RX__TARGET_OPTFUN0;
    return i >= 0 && i < NFUN ? i : -1;
}

int rx__optfun_dim(const rx_config *c)
{
    const int i = rx__optfun_index((int)c->target.kind);
    if (i < 0)
        return 0;
    return c->target.dim > 0 ? c->target.dim : FUNS[i].dim;
}

const char *rx__optfun_dim_error(int kind, int d)
{
    const int i = rx__optfun_index(kind);
    if (i < 0)
        return "not a test function";
    if (d < 1)
        return "must be an integer >= 1";
    if (FUNS[i].fn == f_powell && d % 4 != 0)
        return "powell needs a multiple of 4 (blocks of four coordinates)";
    if ((FUNS[i].fn == f_rosenbrock || FUNS[i].fn == f_dixon_price) && d < 2)
        return "rosenbrock and dixon_price need at least 2 dimensions";
    return NULL;
}

void rx__optfun_xstar(int kind, int d, double *x)
{
    const int i = rx__optfun_index(kind);
    if (i >= 0)
        FUNS[i].xs(d, x);
}

double rx__optfun_umin(int kind)
{
    return rx__optfun_index(kind) >= 0 ? 0.0 : NAN;
}

double rx__optfun_energy(int kind, int d, const double *x, double *g)
{
    const int i = rx__optfun_index(kind);
    return i >= 0 ? FUNS[i].fn(x, d, g) : NAN;
}

/* Each kind has its own eval: the row's function at t->dim. */
#define EVAL(n, dd)                                                          \
    static rx_status eval_##n(const rx__target *t, const double *x,          \
                              double *energy, double *grad)                  \
    {                                                                        \
        *energy = f_##n(x, (int)t->dim, grad);                               \
        return RX_OK;                                                        \
    }
RX__OPTFUN_LIST(EVAL)
#undef EVAL

static rx_status (*const EVALS[])(const rx__target *, const double *,
                                  double *, double *) = {
#define ROW(n, d) eval_##n,
    RX__OPTFUN_LIST(ROW)
#undef ROW
};

rx_status rx__optfun_init(rx__target *t, const rx_config *cfg, rx_err *err)
{
    const int i = rx__optfun_index((int)cfg->target.kind);
    const int d = rx__optfun_dim(cfg);
    const char *why = rx__optfun_dim_error((int)cfg->target.kind, d);
    if (i < 0)
        return rx__fail(err, RX_EINVAL, "target: unknown kind %d",
                        (int)cfg->target.kind);
    if (why)
        return rx__fail(err, RX_EINVAL, "target.dim: %d: %s", d, why);
    t->dim = (size_t)d;
    t->eval = EVALS[i];
    return RX_OK;
}
