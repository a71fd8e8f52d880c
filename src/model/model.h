/*
 * Feed-forward networks on ONE flat float32 parameter vector: dense,
 * conv2d (im2col lowering onto cblas_sgemm), 2-D max-pooling, ReLU, tanh,
 * flatten, an LSTM over the rows of its input; likelihoods softmax cross-entropy and Gaussian (fixed noise
 * variance or a learned log-precision as the last parameter).
 *
 * A net (rx__net) is immutable after creation and shared by all chains.
 * Each thread owns one workspace (rx__netws), allocated once for a maximum
 * batch; forward/backward allocate nothing. BLAS is called single-threaded
 * (the caller guarantees OpenBLAS runs with one thread inside a chain).
 * Results depend only on the inputs: same bits whichever thread calls.
 *
 * Activations are float32; the returned loss sums are accumulated in double.
 */
#ifndef RX_MODEL_H
#define RX_MODEL_H

#include "../core/internal.h"

typedef enum rx__layer_kind {
    RX_LAYER_DENSE = 1,   /* units                                  */
    RX_LAYER_CONV2D,      /* filters, ksize, stride, pad            */
    RX_LAYER_MAXPOOL,     /* ksize (window), stride                 */
    RX_LAYER_RELU,
    RX_LAYER_TANH,
    RX_LAYER_FLATTEN,     /* no-op on the flat layout, for clarity  */
    RX_LAYER_LSTM         /* units: hidden size; reads a one-channel
                             input as h steps of w features, gives the
                             last hidden state (lstm.c)              */
} rx__layer_kind;

typedef struct rx__layerspec {
    rx__layer_kind kind;
    int units;                       /* dense                        */
    int filters, ksize, stride, pad; /* conv2d; maxpool uses ksize/stride;
                                        stride 0 = 1 (conv), ksize (pool) */
} rx__layerspec;

/*
 * Parameter layout (the flat vector, layer after layer in spec order):
 *   dense   W [in x units] row-major (z = x W + b, x in PyTorch's flatten
 *           order c, h, w), then b [units];
 *   conv2d  W [filters x (c_in * k * k)] = PyTorch's [out][in][kh][kw],
 *           then b [filters];
 *   lstm    Wx [w x 4H], Wh [H x 4H] (gates = x_t Wx + h_{t-1} Wh + b,
 *           columns in PyTorch's gate order i, f, g, o: Wx is the
 *           transpose of its weight_ih_l0, Wh of weight_hh_l0), then
 *           b [4H] (PyTorch's bias_ih_l0 + bias_hh_l0);
 *   rho     last, when the precision is learned.
 * Conv and pool output sizes are floor((h + 2 pad - k) / stride) + 1
 * (pool: pad 0), as in PyTorch. A dense layer after a spatial layer
 * flattens implicitly.
 */

typedef enum rx__lik_kind {
    RX_LIK_SOFTMAX = 1,  /* l_i = logsumexp(z_i) - z_i[y_i]; y_i class index */
    RX_LIK_GAUSSIAN      /* l_i = (y_i - f_i)^2 / (2 s2) + 0.5 log(2 pi s2)  */
} rx__lik_kind;

/* How conv2d layers are computed (same function; results differ by float
 * rounding). AUTO: Winograd F(m x m, k x k) on 8x8 tiles where it pays
 * (stride 1, 3 <= k <= 7, at least RX__WINO_MIN_C input channels, a
 * workspace within RX__WINO_MAX_BYTES), direct for stride-1 layers with
 * fewer input channels where it fits (c k^2 <= 256, k <= 8, the same
 * workspace bound), im2col + sgemm elsewhere. The others force one
 * method wherever the shape allows
 * it (Winograd: stride 1, 2 <= k <= 7; direct: stride 1, k <= 8,
 * c k^2 <= 256) and use im2col elsewhere. */
typedef enum rx__conv_algo {
    RX_CONV_AUTO = 0,
    RX_CONV_IM2COL,
    RX_CONV_WINOGRAD,
    RX_CONV_DIRECT
} rx__conv_algo;
#define RX__WINO_MIN_C 8
/* auto: largest Winograd (or direct) workspace of one layer with its
 * input and output for a block of 16 images (3.9 MiB for the MNIST CNN's conv2,
 * ~430 MiB for a 64-channel 3x3 layer on 224x224 images, which stays on
 * im2col) */
#define RX__WINO_MAX_BYTES ((size_t)32 << 20)

/* Which GEMM small products use (the same function; results differ by
 * float rounding). AUTO: products of at most RX__GEMM_SMALL_MNK
 * multiply-adds (the UCI MLPs' layers, a CNN's last dense layer) run in
 * rx__gemm_own, which sums like the reference, and the rest in
 * cblas_sgemm; BLAS: cblas_sgemm for all. OpenBLAS 0.3.21 takes a
 * process-wide buffer (a mutex and a shared table) on every call outside
 * its small-matrix kernels, so threads calling it at once for small
 * products slow each other down (docs/performance.md). */
typedef enum rx__gemm_algo { RX_GEMM_AUTO = 0, RX_GEMM_BLAS } rx__gemm_algo;

typedef struct rx__netspec {
    int in_c, in_h, in_w;   /* input shape; a vector input is c = 1, h = 1, w = D */
    int n_layers;
    const rx__layerspec *layers;
    rx__lik_kind lik;
    int n_out;              /* outputs of the last layer (classes, or 1) */
    double noise_var;       /* gaussian, fixed: s2 > 0                    */
    int learn_precision;    /* gaussian: 1 = extra last parameter rho =
                               log(1 / s2), so s2 = exp(-rho)            */
    rx__conv_algo conv;     /* 0 = auto                                   */
    rx__gemm_algo gemm;     /* 0 = auto                                   */
} rx__netspec;

typedef struct rx__net rx__net;
typedef struct rx__netws rx__netws;

/* Validates shapes (message names the layer, e.g. "model.layers[2]: conv2d
 * kernel 5 larger than input 4x4"), computes parameter offsets. */
rx_status rx__net_create(rx__net **out, const rx__netspec *spec, rx_err *err);
void rx__net_destroy(rx__net **net);

size_t rx__net_nparams(const rx__net *net);  /* incl. rho if learned  */
size_t rx__net_in_dim(const rx__net *net);   /* c * h * w              */
int rx__net_out_dim(const rx__net *net);
/* Forward floating-point operations per example (multiply-add = 2; the
 * GEMM work of dense and conv layers only). */
double rx__net_flops_fwd(const rx__net *net);
/* The same for one loss_grad call: forward, weight gradients, and the
 * input gradients of every parameter layer but the first. */
double rx__net_flops_grad(const rx__net *net);

/* use_blas = 0 selects the plain-C reference path (same results within
 * float rounding; used by tests); 1 = the fast path: cblas_sgemm for every
 * product (see src/model/gemm.c for why small ones too) except the
 * Winograd products, which run in register-blocked fused multiply-adds
 * below BLAS's per-call cost (pgemm.c, the same bits on every CPU).
 * Returns NULL on bad arguments or out of memory. A batch runs
 * in blocks of rx__net_block images (net.c). */
rx__netws *rx__netws_create(const rx__net *net, int max_batch, int use_blas);
/* The same with blocks of `block` images (0 = rx__net_block; tests). */
rx__netws *rx__netws_create_block(const rx__net *net, int max_batch,
                                  int use_blas, int block);
/* Images per block of a workspace for up to max_batch: the most whose
 * activations, gradients and argmaxes fit in 2 MiB (a multiple of 16
 * where a conv runs by Winograd or direct) and whose lstm sequence states
 * fit in 4 MiB, at most max_batch. */
int rx__net_block(const rx__net *net, int max_batch);
void rx__netws_destroy(rx__netws **ws);
size_t rx__netws_bytes(const rx__netws *ws);
/* The message of the last failed loss_grad / predict on this workspace. */
const char *rx__netws_errmsg(const rx__netws *ws);

/* fan[q] = the fan-in of the layer that parameter q (a weight or a bias)
 * belongs to, for every parameter but rho (nparams, less 1 when the
 * precision is learned). */
void rx__net_fan_in(const rx__net *net, double *fan);

/* PyTorch's default initialisation: weights and biases of dense/conv layers
 * Uniform(-1/sqrt(fan_in), 1/sqrt(fan_in)), of lstm layers
 * Uniform(-1/sqrt(H), 1/sqrt(H)) (their fan_in is H); rho (if learned) = log(1/noise_var).
 * Draws from s. */
void rx__net_init_params(const rx__net *net, float *w, rx__stream *s);

/*
 * Loss and gradient on a batch of n <= max_batch examples: x is n x in_dim
 * row-major, y holds n targets (class index as float, or the regression
 * target). Returns loss_sum = sum_i l_i (double) and, if grad != NULL,
 * grad = scale * d(sum_i l_i)/dw (float, nparams, overwritten).
 * per_example (if not NULL) receives the n values l_i (for control variates).
 * The batch runs in blocks (rx__net_block: 5 images for the MNIST CNN
 * by im2col, 16 by Winograd) whose gradients accumulate in block order;
 * the bits of the result are a function of the inputs and the block
 * only, the same on every thread.
 * Errors (message in rx__netws_errmsg): RX_EINVAL (n outside 1..max_batch,
 * a label that is not a class index, NULL pointers; nothing written),
 * RX_ENUMERIC (the loss sum is not finite; grad is then unspecified).
 * Thread safety: any number of concurrent calls on one net, one workspace
 * per thread.
 */
rx_status rx__net_loss_grad(const rx__net *net, rx__netws *ws, const float *w,
                            const float *x, const float *y, int n,
                            double scale, double *loss_sum, float *grad,
                            double *per_example);

/* Forward only: out = n x n_out outputs (softmax probabilities for
 * RX_LIK_SOFTMAX, the mean f for gaussian). Errors as loss_grad. */
rx_status rx__net_predict(const rx__net *net, rx__netws *ws, const float *w,
                          const float *x, int n, float *out);

/* Sets OpenBLAS's thread count (openblas_set_num_threads) when it differs
 * from the current one; returns the previous one. The engine calls it with
 * 1 around a run: parallelism is across chains (src/model/blas_info.c). */
int rx__blas_set_threads(int n);

/* OpenBLAS's threading: 0 sequential, 1 pthreads (a pool of its own
 * threads, ended by rx_blas_single_thread), 2 OpenMP. */
int rx__blas_parallel(void);

/* The OPENBLAS_CORETYPE whose kernels a CPU with the given features runs
 * faster than those of `core` (OpenBLAS's corename), or NULL: "SkylakeX"
 * for Haswell or an older core on a CPU with AVX-512 (F, BW, DQ, VL),
 * "Haswell" for a pre-AVX2 core on a CPU with AVX2 and FMA. Debian's
 * OpenBLAS 0.3.21 does not recognise some newer CPUs: it ran its Haswell
 * kernels on a Sapphire Rapids under KVM (here) and its Prescott (SSE3)
 * kernels on an Emerald Rapids under Firecracker ("On 16 cores"). The
 * library cannot switch them itself: OpenBLAS picks its kernels when it
 * is loaded. */
const char *rx__blas_core_suggest(const char *core, int avx512, int avx2fma);

/* On this CPU and OpenBLAS: writes the note naming the better
 * OPENBLAS_CORETYPE into buf and returns 1, or returns 0 (replex info and
 * every network run print it). */
int rx__blas_core_hint(char *buf, size_t cap);

#endif
