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

struct rx__target {
    size_t dim;
    /* Exact energy and (grad != NULL) gradient at theta. */
    rx_status (*eval)(const rx__target *t, const double *theta,
                      double *energy, double *grad);
    void (*destroy)(rx__target *t);
    double energy_noise_sd;
    double grad_noise_sd;
    double noise_model_sd; /* the configured energy noise, kept when the
                            * rule draws it (fresh_per_pair) */
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
    } u;
};

rx_status rx__mixture25_init(rx__target *t, const rx_config *cfg);
rx_status rx__gmm_init(rx__target *t, const rx_config *cfg, rx_err *err);

/* Sample variance (ddof 1) of J noisy energy draws at a frozen point: the
 * raw estimate of an SA step for sigma^2 (resgld_vr.md 1.5.1). */
double rx__target_noise_var(const rx__target *t, int J, uint64_t seed,
                            uint32_t entity, uint64_t k);

/* Build the target a config describes (cb for RX_TARGET_CALLBACK). */
rx_status rx__target_create(rx__target **out, const rx_config *cfg,
                            const rx_callback_target *cb, rx_err *err);
void rx__target_destroy(rx__target **t);

/*
 * Energy (+ gradient) with the configured injected noise. Noise draws come
 * from the streams (seed, entity, ENERGYNOISE/GRADNOISE, k).
 */
rx_status rx__target_eval_noisy(const rx__target *t, const double *theta,
                                double *energy, double *grad, uint64_t seed,
                                uint32_t entity, uint64_t k);

#endif
