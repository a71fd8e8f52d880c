/*
 * What every energy-histogram bias shares: the table of rows, parameter
 * defaults and validation, the SA step schedule, the energy partition and
 * its piecewise-continuous interpolation, and the states of a run. Owns no
 * run state; the rows (csgld.c) own their update rules.
 */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "../core/num.h"
#include "../exchange/xtest.h"
#include "bias.h"

/* bias.kind none: a row with a name and no functions */
static const rx__bias_type none_row = {
    .row = {.name = "none", .doc = "no bias (default)"},
};

/* A test binary may define this row: it then joins the table after the
 * built-in rows, known to no other file. */
extern const rx__bias_type rx__bias_test_row __attribute__((weak));

/* The table: a row's index is its bias.kind value. A new bias is its file
 * and one line here (before the test row). */
extern const rx__bias_type rx__bias_icsgld_row; /* icsgld.c */
extern const rx__bias_type rx__bias_awsgld_row, rx__bias_iawsgld_row;
extern const rx__bias_type rx__bias_wte_row; /* wte.c */

const rx__bias_type *const rx__bias_types[RX__BIAS_MAX] = {
    &none_row,
    &rx__bias_csgld_row,
    &rx__bias_icsgld_row,
    &rx__bias_awsgld_row, &rx__bias_iawsgld_row, /* awsgld.c */
    &rx__bias_wte_row,
    &rx__bias_test_row, /* NULL unless a test defines it */
};

int rx__bias_count(void)
{
    int n = 0;
    while (n < RX__BIAS_MAX && rx__bias_types[n])
        ++n;
    return n;
}

static const rx__rowdecl *bias_at(int i)
{
    return i >= 0 && i < rx__bias_count() ? &rx__bias_types[i]->row : NULL;
}

const rx__table rx__bias_table = {"bias", {"bias.kind", NULL, NULL},
                                  rx__bias_count, bias_at};

const rx__bias_type *rx__bias_find(rx_bias_kind kind)
{
    if ((int)kind <= 0 || (int)kind >= rx__bias_count())
        return NULL;
    return rx__bias_types[kind];
}

const char *rx__bias_kind_name(rx_bias_kind kind)
{
    if ((int)kind < 0 || (int)kind >= rx__bias_count())
        return NULL;
    return rx__bias_types[kind]->row.name;
}

void rx__bias_params_default(rx__bias_params *par)
{
    memset(par, 0, sizeof *par);
    par->kind = RX_BIAS_NONE;
    par->bins = 100;
    par->energy_min = 0.0;
    par->bin_width = 1.0;
    par->zeta = 0.75;
    par->sa.a = 1.0;
    par->sa.b = 100.0;
    par->sa.alpha = 0.6;
    par->sa.cap = 1.0;
    par->sa.constant = 0.0;
    par->theta_init = RX_BIAS_THETA_UNIFORM;
    par->difference = RX_BIAS_DIFF_BACKWARD;
    par->mult_clamp = 0.0;
    par->overflow_guard = 1;
    par->theta_floor = 1e-300;
}

void rx__bias_params_from(rx__bias_params *par, const rx_config *cfg)
{
    rx__bias_params_default(par);
    par->kind = cfg->bias.kind;
    par->bins = cfg->bias.bins;
    par->energy_min = cfg->bias.energy_min;
    par->bin_width = cfg->bias.bin_width;
    par->zeta = cfg->bias.zeta;
    par->sa.a = cfg->bias.sa.a;
    par->sa.b = cfg->bias.sa.b;
    par->sa.alpha = cfg->bias.sa.alpha;
    par->sa.cap = cfg->bias.sa.cap;
    par->sa.constant = cfg->bias.sa.constant;
    par->theta_init = cfg->bias.theta_init;
    par->difference = cfg->bias.difference;
    par->mult_clamp = cfg->bias.mult_clamp;
    par->overflow_guard = cfg->bias.overflow_guard;
    par->theta_floor = cfg->bias.theta_floor;
}

double rx__bias_bin_work(const rx_config *cfg)
{
    const rx__bias_type *t = rx__bias_find(cfg->bias.kind);
    if (!t || !(t->needs & RX__BIAS_UPDATE_ALL_BINS))
        return 0.0;
    const double per_iter =
        t->share == RX__BIAS_SHARED ? 1.0 : (double)cfg->tempering.n_chains;
    return (double)cfg->bias.bins * per_iter * (double)cfg->iterations;
}

/* err->msg = the formatted text, *key = k; returns RX_ECONFIG. */
static rx_status bad(const char **key, rx_err *err, const char *k,
                     const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 4, 5)))
#endif
    ;
static rx_status bad(const char **key, rx_err *err, const char *k,
                     const char *fmt, ...)
{
    if (key)
        *key = k;
    if (err) {
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(err->msg, sizeof err->msg, fmt, ap);
        va_end(ap);
    }
    return RX_ECONFIG;
}

/* The SA schedule: positive, non-increasing, omega_1 < 1 (so c = omega
 * theta[J]^zeta < 1 and theta stays positive, csgld.md 1.4). */
static rx_status check_sa(const rx__bias_sa *sa, const char **key,
                          rx_err *err)
{
    if (sa->constant != 0.0) {
        if (!(sa->constant > 0.0 && sa->constant < 1.0))
            return bad(key, err, "bias.sa.constant",
                       "must be in (0, 1), or 0 for the decreasing "
                       "schedule, got %s",
                       RX_NUM(sa->constant));
        return RX_OK;
    }
    if (!(sa->a > 0.0) || !isfinite(sa->a))
        return bad(key, err, "bias.sa.a", "must be a finite number > 0, "
                   "got %s", RX_NUM(sa->a));
    if (!(sa->b >= 0.0) || !isfinite(sa->b))
        return bad(key, err, "bias.sa.b", "must be a finite number >= 0, "
                   "got %s", RX_NUM(sa->b));
    if (!(sa->alpha > 0.5 && sa->alpha <= 1.0))
        return bad(key, err, "bias.sa.alpha",
                   "must be in (0.5, 1] (sum of omega_k infinite, of "
                   "omega_k^2 finite), got %s",
                   RX_NUM(sa->alpha));
    if (!(sa->cap > 0.0 && sa->cap <= 1.0))
        return bad(key, err, "bias.sa.cap", "must be in (0, 1], got %s",
                   RX_NUM(sa->cap));
    double w1 = rx__bias_omega(sa, 1);
    if (!(w1 < 1.0))
        return bad(key, err, "bias.sa.a",
                   "omega_1 = min(cap, a / (1 + b)) = %s must be < 1 "
                   "(theta would lose every bin but one)",
                   RX_NUM(w1));
    return RX_OK;
}

static rx_status check_partition(const rx__bias_params *p, const char **key,
                                 rx_err *err)
{
    if (p->bins < 2 || p->bins > RX_BIAS_MAX_BINS)
        return bad(key, err, "bias.bins", "must be an integer in [2, %d], "
                   "got %d", RX_BIAS_MAX_BINS, p->bins);
    if (!isfinite(p->energy_min))
        return bad(key, err, "bias.energy_min", "must be a finite number, "
                   "got %s", RX_NUM(p->energy_min));
    double du = p->bin_width;
    if (!(du > 0.0) || !isfinite(du))
        return bad(key, err, "bias.bin_width", "must be a finite number > "
                   "0 (an empty energy range), got %s", RX_NUM(du));
    double top = p->energy_min + (double)p->bins * du;
    if (!isfinite(top))
        return bad(key, err, "bias.bin_width",
                   "energy_min + bins * bin_width = %s is not finite",
                   RX_NUM(top));
    /* every edge e_min + i du must be a distinct double */
    double big = fmax(fabs(p->energy_min), fabs(top));
    if (du < 64.0 * 2.220446049250313e-16 * big)
        return bad(key, err, "bias.bin_width",
                   "%s is below the resolution of energies near %.6g "
                   "(bin edges would coincide)",
                   RX_NUM(du), big);
    return RX_OK;
}

rx_status rx__bias_check(const rx__bias_params *p, const char **key,
                         rx_err *err)
{
    if ((int)p->kind == 0)
        return RX_OK;
    if (!rx__bias_find(p->kind))
        return bad(key, err, "bias.kind", "unknown bias kind %d",
                   (int)p->kind);
    rx_status st = check_partition(p, key, err);
    if (st != RX_OK)
        return st;
    if (!(p->zeta >= 0.0) || !isfinite(p->zeta))
        return bad(key, err, "bias.zeta", "must be a finite number >= 0, "
                   "got %s", RX_NUM(p->zeta));
    st = check_sa(&p->sa, key, err);
    if (st != RX_OK)
        return st;
    if ((unsigned)p->theta_init > RX_BIAS_THETA_LINEAR)
        return bad(key, err, "bias.theta_init", "unknown theta_init %d",
                   (int)p->theta_init);
    if ((unsigned)p->difference > RX_BIAS_DIFF_FORWARD)
        return bad(key, err, "bias.difference", "unknown difference %d",
                   (int)p->difference);
    double c = p->mult_clamp;
    if (!(c == 0.0 || (c >= 1.0 && isfinite(c))))
        return bad(key, err, "bias.multiplier_clamp",
                   "must be 0 (no clamp) or a finite number >= 1 (the "
                   "clamp [-c, c] keeps g = 1), got %s",
                   RX_NUM(c));
    if (p->overflow_guard != 0 && p->overflow_guard != 1)
        return bad(key, err, "bias.overflow_guard", "must be true or false");
    double fl = p->theta_floor;
    if (!(fl > 0.0 && fl * (double)p->bins < 1.0))
        return bad(key, err, "bias.theta_floor",
                   "must be in (0, 1/bins) = (0, %.6g), got %s",
                   1.0 / (double)p->bins, RX_NUM(fl));
    return RX_OK;
}

/* Does an exchange test take a bias's shift exactly? */
static int takes_shift(unsigned props)
{
    const unsigned need = RX__XT_ENERGY | RX__XT_LADDER | RX__XT_EXACT;
    return (props & need) == need &&
           !(props & (RX__XT_NOISE | RX__XT_SIGMA2));
}

rx_status rx__bias_swap_check(const rx__rowrun *run, const char *name,
                              const char **key, rx_err *err)
{
    const rx_config *c = run->cfg;
    if (!c || run->P < 2 || c->tempering.scheme == RX_SCHEME_NONE)
        return RX_OK;
    const rx__rowdecl *r = &rx__xtest_row(c->tempering.rule)->row;
    if (takes_shift(r->props))
        return RX_OK;
    /* the rules that take it: "a", "a or b", "a, b or c" */
    const char *names[RX__XTEST_MAX];
    int m = 0;
    for (int i = 0, n = rx__xtest_count(); i < n; ++i)
        if (takes_shift(rx__xtest_types[i]->row.props))
            names[m++] = rx__xtest_types[i]->row.name;
    char ok[200];
    size_t len = 0;
    ok[0] = '\0';
    for (int i = 0; i < m && len < sizeof ok; ++i) {
        int w = snprintf(ok + len, sizeof ok - len, "%s%s",
                         i == 0 ? "" : i == m - 1 ? " or " : ", ", names[i]);
        len += w > 0 ? (size_t)w : 0;
    }
    *key = "tempering.rule";
    if (r->props & (RX__XT_NOISE | RX__XT_SIGMA2))
        return rx__fail(err, RX_ECONFIG,
                        "bias %s adds its shift to the exchange test's "
                        "exponent, and rule %s corrects the exponent for "
                        "the energies' noise with a variance that leaves "
                        "out the shift's own noise (not built): use %s",
                        name, r->name, ok);
    return rx__fail(err, RX_ECONFIG,
                    "bias %s adds its shift to the exchange test's "
                    "log-acceptance, and rule %s does not accept with the "
                    "exact ratio of the tempered densities: use %s",
                    name, r->name, ok);
}

double rx__bias_omega(const rx__bias_sa *sa, int64_t k)
{
    if (sa->constant > 0.0)
        return sa->constant;
    double w = sa->a / (pow((double)k, sa->alpha) + sa->b);
    return w < sa->cap ? w : sa->cap;
}

rx_status rx__bias_bin(const rx__bias_params *p, double U, int *j)
{
    if (!isfinite(U))
        return RX_ENUMERIC;
    /* +-inf quotients (U far from e_min) clamp like any other */
    double t = floor((U - p->energy_min) / p->bin_width);
    if (!(t > 0.0))
        *j = 0;
    else if (t >= (double)(p->bins - 1))
        *j = p->bins - 1;
    else
        *j = (int)t;
    return RX_OK;
}

double rx__bias_log_psi(const rx__bias_params *p, const double *theta,
                        double u)
{
    int j;
    if (rx__bias_bin(p, u, &j) != RX_OK)
        return NAN;
    if (j == 0)
        return log(theta[0]);
    double lo = log(theta[j - 1]), hi = log(theta[j]);
    double frac = (u - (p->energy_min + (double)j * p->bin_width)) /
                  p->bin_width;
    return lo + (hi - lo) * frac;
}

rx_status rx__bias_create(rx__bias *b, const rx__bias_params *par, int P,
                          rx_err *err)
{
    memset(b, 0, sizeof *b);
    b->par = *par;
    if (par->kind == RX_BIAS_NONE)
        return RX_OK;
    const char *key = NULL;
    rx_err e;
    if (rx__bias_check(par, &key, &e) != RX_OK)
        return rx__fail(err, RX_EINVAL, "%s: %s", key, e.msg);
    if (P < 1)
        return rx__fail(err, RX_EINVAL, "bias: %d chains", P);
    b->type = rx__bias_find(par->kind);
    if (b->type->share == RX__BIAS_SHARED &&
        !(b->type->needs & RX__BIAS_NEEDS_GLOBAL_UPDATE)) {
        /* the engine decides its design from the declared needs */
        const char *name = b->type->row.name;
        b->type = NULL;
        return rx__fail(err, RX_EINVAL, "bias %s: a shared state must "
                        "declare RX__BIAS_NEEDS_GLOBAL_UPDATE", name);
    }
    b->n = b->type->share == RX__BIAS_SHARED ? 1 : P;
    size_t sz = b->type->size(par);
    b->stride = (sz + RX_CACHELINE - 1) / RX_CACHELINE * RX_CACHELINE;
    b->mem = rx__alloc_aligned((size_t)b->n * b->stride, RX_CACHELINE);
    if (!b->mem) {
        b->type = NULL;
        return rx__fail(err, RX_ENOMEM, "bias: %d states of %zu bytes",
                        b->n, sz);
    }
    for (int i = 0; i < b->n; ++i)
        b->type->init(par, rx__bias_state(b, i));
    return RX_OK;
}

void rx__bias_destroy(rx__bias *b)
{
    rx__free_aligned(b->mem);
    b->mem = NULL;
    b->type = NULL;
    b->n = 0;
}
