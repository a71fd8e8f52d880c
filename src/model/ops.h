/*
 * Private to src/model/: the compiled op list of a net, the net itself and
 * the per-thread workspace (with its GEMM engine). Types only: the
 * functions that work on them are declared by the header of the file that
 * defines them (gemm.h, vec.h, layers.h, winograd.h, direct.h). Nothing
 * here is seen outside src/model/ (but by the model's tests and benches).
 */
#ifndef RX_MODEL_OPS_H
#define RX_MODEL_OPS_H

#include "model.h"

/*
 * Activation layouts inside a workspace, for an actual batch of n:
 *   RX__NF    n x features, row-major (the caller's layout; features in
 *             PyTorch's c, h, w order);
 *   RX__CNHW  channel-major over the batch: element (c, i, y, x) at
 *             ((c * n + i) * h + y) * w + x. A conv layer then maps a
 *             chunk of images with ONE sgemm whose column count is
 *             chunk * out_h * out_w.
 * For c == 1 the two are the same bytes, and no conversion is made.
 */
enum { RX__NF = 0, RX__CNHW = 1 };

typedef enum rx__opkind {
    RX__OP_DENSE = 1,
    RX__OP_CONV,
    RX__OP_POOL,
    RX__OP_RELU,
    RX__OP_TANH,
    RX__OP_TO_NF,  /* CNHW -> NF (flatten after a spatial layer)  */
    RX__OP_TO_CNHW, /* NF -> CNHW (a conv after a multi-channel input) */
    RX__OP_LSTM    /* h steps of w features -> last hidden state ow */
} rx__opkind;

/* Largest max-pool window edge (the argmax is a 16-bit window offset). */
#define RX__POOL_MAX_K 256

/* Winograd tile edge (input side): F(m, k) with m = RX__WA - k + 1. */
#define RX__WA 8

typedef struct rx__op {
    rx__opkind kind;
    int layer;              /* index in the spec (for messages)      */
    int c, h, w;            /* input shape per example               */
    int oc, oh, ow;         /* output shape per example              */
    int k, stride, pad;     /* conv / pool                           */
    size_t in_sz, out_sz;   /* floats per example                    */
    size_t woff, boff;      /* parameter offsets (dense, conv)       */
    size_t nw, nb;
    int fan_in;             /* dense: c*h*w; conv: c*k*k             */
    int in_buf, out_buf;    /* activation buffer; -1 = the input x   */
    int pool_idx;           /* pool: index of its argmax buffer      */
    int need_dx;            /* backward must produce d(input)        */
    /* an in-place ReLU followed by a max-pool of its output: the pool's
     * backward applies the ReLU's mask (pool output > 0, which holds
     * exactly where the ReLU passed the window's maximum), so the ReLU's
     * backward is nothing and its output is not read after the forward */
    int relu_folded;        /* relu: its backward is the pool's      */
    int relu_mask;          /* pool: mask d(output) by output > 0    */
    double flops;           /* forward GEMM flops per example        */
    double flops_rec;       /* lstm: the recurrent part of flops     */
    int seq_buf;            /* lstm: its buffer of the sequence state
                             * (lstm.c), kept from forward to backward */
    /* Winograd: F(wm x wm, k x k) on RX__WA x RX__WA tiles; th x tw tiles
     * cover the output. Winograd and direct: the zero-bordered input
     * plane is wh x ww. */
    int algo;               /* RX_CONV_IM2COL, _WINOGRAD or _DIRECT */
    int wm, th, tw, wh, ww;
    int tg;                 /* Winograd: tiles per GEMM group         */
    int gr;                 /* Winograd: tile rows per output block;
                             * direct: output rows per band          */
    float wat[RX__WA * RX__WA]; /* A^T: wm x RX__WA (row stride RX__WA) */
    float wg[RX__WA * RX__WA];  /* G:   RX__WA x k  (row stride RX__WA) */
    float wbt[RX__WA * RX__WA]; /* B^T: RX__WA x RX__WA                 */
} rx__op;

struct rx__net {
    int n_ops;
    rx__op *ops;
    int n_bufs;             /* activation buffers                    */
    size_t *buf_sz;         /* floats per example, per buffer        */
    int n_pools;
    rx__lik_kind lik;
    double noise_var;
    int learn_precision;
    size_t nparams;
    size_t in_dim;
    int n_out;
    size_t max_act;         /* largest activation, floats/example    */
    /* Buffer plan (net.c plan_buffers), floats per example: a buffer the
     * backward never reads lives in the shared arena at buf_off (SIZE_MAX:
     * a buffer of its own); the backward's two gradient buffers, of db_sz
     * floats, take the arena once the forward is done with it. */
    size_t *buf_off;
    size_t arena_sz, db_sz[2];
    double flops_fwd, flops_grad;
    rx__gemm_algo gemm;     /* the spec's                            */
};

/* A GEMM engine: use_blas 0 = plain-C reference loops, 1 = cblas_sgemm;
 * with use_blas and small, products of at most RX__GEMM_SMALL_MNK
 * multiply-adds go to rx__gemm_own instead (the reference's sums, fast),
 * with scratch (scratch_n floats) for a transposed operand; a product
 * whose transposed operand is larger goes to cblas_sgemm. 64 KiB holds
 * those of the MNIST CNN (8 KiB) and of the UCI MLPs (a few KiB) and
 * keeps out of the way of the block's working set (net.c). */
typedef struct rx__gemmctx {
    int use_blas;
    int small;
    float *scratch;
    size_t scratch_n;
    int isa; /* the Winograd products' version (pgemm.h; tests change it) */
} rx__gemmctx;
#define RX__GEMM_SMALL_MNK ((int64_t)1 << 18)
#define RX__GEMM_SCRATCH ((size_t)1 << 14)

struct rx__netws {
    const rx__net *net;
    int max_batch;
    int micro;              /* images per block (buffers sized for it) */
    rx__gemmctx g;
    float **act;            /* n_bufs buffers, micro * buf_sz        */
    float *arena;           /* micro * arena_sz: transient buffers   */
    float *dbuf[2];         /* backward ping-pong, in the arena      */
    uint16_t **arg;         /* per pool op, micro * out_sz: the window
                             * offset ky k + kx of each output's max */
    float *col;             /* im2col / dcol scratch (+ RX__SLACK)   */
    float *pad;             /* zero-bordered input chunk (+ RX__SLACK) */
    size_t col_floats, pad_floats;
    int chunk_cap;          /* tests: fewer images per im2col chunk  */
    /* Winograd: transformed input V / its gradient (RX__WA^2 x c x ldT),
     * transformed output M / gradient (RX__WA^2 x oc x ldT), transformed
     * weights U and their gradient dU (RX__WA^2 x oc x c); the
     * zero-bordered input plane goes in pad. */
    float *wv, *wmo, *wu, *wdu;
    /* U is that of op wu_op for the weights of call wu_call: the blocks of
     * one loss_grad / predict call (call) transform the weights once */
    const rx__op *wu_op;
    uint64_t wu_call, call;
    size_t bytes;
    rx_err err;             /* last message of a failed call         */
};

#endif
