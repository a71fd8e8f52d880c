/*
 * The energy interface: one vtable for analytic targets and user callbacks.
 * Targets are immutable after creation and evaluated concurrently; they own
 * no per-call state. Injected Gaussian noise is drawn from counter streams
 * passed in by the caller, so results do not depend on the calling thread.
 */
#ifndef RX_TARGET_H
#define RX_TARGET_H

#include "../core/internal.h"

typedef struct rx__target rx__target;
typedef struct rx__netdata rx__netdata;
/* Per-thread scratch of targets that need one (network targets): created
 * by its thread for the particles [lo, hi) it owns. NULL for the others. */
typedef struct rx__tws rx__tws;

struct rx__target {
    size_t dim;
    /* Exact energy and (grad != NULL) gradient at theta. */
    rx_status (*eval)(const rx__target *t, const double *theta,
                      double *energy, double *grad);
    /* Minibatch targets instead: the batch of evaluation counter k of
     * particle `particle`, with the calling thread's scratch. */
    rx_status (*eval_ws)(const rx__target *t, rx__tws *w, uint32_t particle,
                         uint64_t k, const double *theta, double *energy,
                         double *grad, double *per_example);
    void (*destroy)(rx__target *t);
    /* Minibatch targets with their own scratch (NULL: the network's). */
    rx_status (*tws_create)(const rx__target *t, int lo, int hi,
                            uint64_t seed, rx__tws **out, rx_err *err);
    /* Control variates (src/estimate): targets with per-example losses
     * l_i set `losses`; NULL otherwise. The minibatch energy of eval_ws is
     * (N/bs) sum_{i in batch(k)} l_i(theta) + prior(theta); eval_ws writes
     * those bs l_i to per_example when it is not NULL. */
    struct {
        int64_t N; /* data points */
        int bs;    /* minibatch size n; losses takes at most bs rows */
        const int32_t *(*batch)(const rx__target *t, rx__tws *w,
                                uint32_t particle, uint64_t k);
        rx_status (*losses)(const rx__target *t, rx__tws *w,
                            const double *theta, const int32_t *idx, int n,
                            double *out);
        double (*prior)(const rx__target *t, const double *theta);
    } cv;
    double energy_noise_sd;
    double grad_noise_sd;
    double noise_model_sd; /* the configured energy noise, kept when the
                            * rule draws it (fresh_per_pair) */
    int normal;            /* rx_normal_method of the noise draws */
    /* ladder.path reference: the normalised reference U_0 (path.c);
     * eval NULL on the temperature path */
    struct {
        rx_status (*eval)(const rx__target *t, const double *theta,
                          double *u0, double *g0);
        double mean, inv_s2, lognorm; /* Gaussian reference */
        rx_energy_fn fn;              /* the callback's prior */
    } ref;
    int fused_m25;         /* the 25-mode energy: rx__m25_step applies */
    /* kind-specific data */
    union {
        struct {
            double confine_r2; /* < 0: none */
        } m25;
        struct {
            int n_comp;
            double *logw;   /* n_comp, log of normalised weights */
            double *means;  /* n_comp x dim */
            double *inv_s2; /* n_comp x dim */
            double *lognorm; /* n_comp: -sum log s - d/2 log 2 pi */
        } gmm;
        struct {
            rx_energy_fn fn;
            void *user;
        } cb;
        rx__netdata *net;
        struct {
            int64_t N;
            double *x;          /* N data points */
            double phi, s, prior_sd;
            int bs, shared;
        } mixd;
    } u;
};

rx_status rx__mixture25_init(rx__target *t, const rx_config *cfg);
/* One SGLD (sgld != 0) or SGD step of a 2-D particle under the 25-mode
 * target and its noisy evaluation at k + 1, fused, with ziggurat draws:
 * bitwise what rx__step_apply(RX_STEP_SGLD or RX_STEP_SGD, ..., stream
 * (seed, entity, STEP, k)) and rx__target_eval_noisy(..., k + 1) give with
 * rng.normal = ziggurat (tests/test_determinism.c checks it). RX_ENUMERIC
 * on a non-finite energy or gradient (stored all the same). */
rx_status rx__m25_step(const rx__target *t, double *theta, double *grad,
                       double *energy, int sgld, double eta, double tau,
                       uint64_t seed, uint32_t entity, uint64_t k);
/* The same step with the five normals rx__m25_draws gave for (seed,
 * entity, k), drawn ahead. */
rx_status rx__m25_step_pre(const rx__target *t, double *theta, double *grad,
                           double *energy, int sgld, double eta, double tau,
                           const double zpre[5]);
/* The normals rx__m25_step draws at k for chain `entity`, all five (the
 * step's two whether or not the position steps with SGLD). */
void rx__m25_draws(const rx__target *t, uint64_t seed, uint32_t entity,
                   uint64_t k, double z[5]);
rx_status rx__gmm_init(rx__target *t, const rx_config *cfg, rx_err *err);
/* A test function of target.kind (optfun.c): t->dim and t->eval;
 * RX_EINVAL for a kind that is none of them. */
rx_status rx__optfun_init(rx__target *t, const rx_config *cfg, rx_err *err);

rx_status rx__network_init(rx__target *t, const rx_config *cfg, rx_err *err);
rx_status rx__mixdata_init(rx__target *t, const rx_config *cfg, rx_err *err);
/* mixture_data: exact sum_i l_i(beta) + prior (Kahan); grad may be NULL. */
double rx__mixdata_full_energy(const rx__target *t, double beta,
                               double *grad);
/* mixture_data: the weight of beta > phi/2 under exp(-U/tau) (U the exact
 * energy, 4001-point grid on [lo, hi]) and in the n samples. */
rx_status rx__mixdata_mode_weight(const rx__target *t, double tau, double lo,
                                  double hi, const float *samples, int64_t n,
                                  double *w_true, double *w_est);
/* Sample variance (ddof 1) of J standard minibatch energies of a target
 * with per-example losses at theta, J batches drawn with replacement from
 * (seed, entity, VARIANCE, k). */
double rx__cv_batch_var(const rx__target *t, rx__tws *w, const double *theta,
                        int J, uint64_t seed, uint32_t entity, uint64_t k);

/* Sample variance (ddof 1) of J noisy energy draws at a frozen point: the
 * raw estimate of an SA step for sigma^2 (resgld_vr.md 1.5.1). Minibatch
 * targets draw J random batches at theta. */
double rx__target_noise_var(const rx__target *t, rx__tws *w,
                            const double *theta, int J, uint64_t seed,
                            uint32_t entity, uint64_t k);

/* Scratch for particles [lo, hi) of the calling thread (*out = NULL for
 * targets without one). */
rx_status rx__tws_create(const rx__target *t, int lo, int hi, uint64_t seed,
                         rx__tws **out, rx_err *err);
void rx__tws_destroy(rx__tws **w);

/* Draw particle i's initial point if the target has its own initialiser
 * (networks: PyTorch's default); returns 0 if the caller should use the
 * configured box. */
int rx__network_init_point(const rx__target *t, double *theta, uint64_t seed,
                           uint32_t particle, rx__tws *w);
double rx__network_batch_var(const rx__target *t, rx__tws *w,
                             const double *theta, int J, uint64_t seed,
                             uint32_t entity, uint64_t k);
void rx__network_mem(const rx__target *t, const rx__tws *w, double *data,
                     double *scratch);
/* Posterior predictive (predict.c; its scores: src/record/metrics.c). */
int64_t rx__network_rows(const rx__target *t, int set);
int rx__network_nout(const rx__target *t);
/* The training targets' standardisation sd (data.standardise_target):
 * a regression output or noise sd times it is in the units of y; 1 for
 * a classifier or unstandardised targets. */
double rx__network_y_sd(const rx__target *t);
/* Where train and test were split from one file (data.test_fraction):
 * the file's rows (0-based, after skipped lines and header) of the test
 * (set 0) or training (set 1) examples, in their order, in *rows, and
 * their count; 0 and NULL otherwise (a fixed test file). */
int64_t rx__network_split_rows(const rx__target *t, int set,
                               const int64_t **rows);
/* The test set's targets as the evaluation scores them (regression: in
 * original units; classification: the labels), rx__network_rows(t, 0)
 * into y; returns 1 for a classifier. */
int rx__network_test_y(const rx__target *t, double *y);
rx_status rx__network_predict(const rx__target *t, rx__tws *w,
                              const float *models, int64_t S, int set,
                              int64_t r0, int64_t r1, double *mean,
                              double *lmax, double *lsum);

/* Is t the network target (data, model, evaluation)? */
static inline int rx__target_is_network(const rx__target *t)
{
    return t->eval_ws && !t->tws_create;
}

/* ladder.path reference (path.c): set t->ref from the config (analytic
 * targets: the Gaussian reference), the network's prior, or the callback's
 * prior function; nothing on the temperature path. */
rx_status rx__target_ref_init(rx__target *t, const rx_config *cfg,
                              const rx_callback_target *cb, rx_err *err);
/* The reference energy U_0 = -log pi_0(theta) (pi_0 normalised) and, if
 * g0 != NULL, its gradient; RX_ENUMERIC when not finite. */
rx_status rx__target_ref(const rx__target *t, const double *theta,
                         double *u0, double *g0);
/* What U_0 of a draw from pi_0 has, where the reference is known: for a
 * Gaussian one of k coordinates (the gmm and mixture25 reference, the
 * network's fixed Gaussian prior) U_0 - lognorm is chi^2_k / 2, mean
 * lognorm + k/2, sd sqrt(k/2). Returns 0 where not known (a callback's
 * prior, the network's hierarchical prior or learnt noise precision). */
int rx__target_ref_law(const rx__target *t, double *mean, double *sd);
/* The exact likelihood term at theta for the estimate of log Z: U - U_0
 * without injected noise; networks: the sum of the per-example losses
 * over the whole training set (with w, the calling thread's scratch). */
rx_status rx__target_like_exact(const rx__target *t, rx__tws *w,
                                const double *theta, double *u_like);
/* network.c: the prior as a normalised reference, and the full-data
 * sum of the per-example losses. */
rx_status rx__network_prior(const rx__target *t, const double *theta,
                            double *u0, double *g0);
/* rx__target_ref_law of the network's prior: known for the fixed
 * Gaussian prior only (no hierarchical prior, no learnt precision). */
int rx__network_prior_law(const rx__target *t, double *mean, double *sd);
rx_status rx__network_like_full(const rx__target *t, rx__tws *w,
                                const double *theta, double *u_like);

/* Build the target a config describes (cb for RX_TARGET_CALLBACK). */
rx_status rx__target_create(rx__target **out, const rx_config *cfg,
                            const rx_callback_target *cb, rx_err *err);
void rx__target_destroy(rx__target **t);

/*
 * Energy (+ gradient) with the configured injected noise. Noise draws come
 * from the streams (seed, entity, ENERGYNOISE/GRADNOISE, k).
 */
rx_status rx__target_eval_noisy(const rx__target *t, rx__tws *w,
                                const double *theta,
                                double *energy, double *grad, uint64_t seed,
                                uint32_t entity, uint64_t k);
/* The same, also returning the per-example losses of the batch of k
 * (per_example: t->cv.bs values) for targets with control variates. */
rx_status rx__target_eval_pe(const rx__target *t, rx__tws *w,
                             const double *theta, double *energy,
                             double *grad, uint64_t seed, uint32_t entity,
                             uint64_t k, double *per_example);

#endif
