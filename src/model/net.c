/*
 * Networks on one flat float32 parameter vector: the spec is validated and
 * compiled into an op list (layout changes inserted where a conv or dense
 * needs them), per-thread workspaces, initialisation, and the loss /
 * gradient / prediction drivers with the two likelihoods. The net is
 * immutable after rx__net_create; everything a call writes is in its
 * workspace or its output arguments.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "direct.h"
#include "layers.h"
#include "lstm.h"
#include "pgemm.h"
#include "vec.h"
#include "winograd.h"

#define RX__LOG_2PI 1.8378770664093454836

/*
 * A batch runs in blocks of images (ws->micro each): the forward and
 * backward passes of one block reuse one small scratch and their weight
 * gradients accumulate. A block's activations, their gradients and the
 * pool argmaxes take at most RX__BLOCK_BYTES (half a core's L2 here, all
 * of it on the 16-core Xeon of docs/performance.md), so a chain's working
 * set stays in its core's cache instead of streaming ~45 MB per step
 * through memory (the MNIST CNN at batch 100 unblocked). Where a conv
 * runs on 16-image vector lanes (Winograd, direct) a block is a multiple
 * of RX__VW images: fewer would leave lanes empty (8 images made the
 * MNIST CNN's step 1.4x slower).
 */
#define RX__BLOCK_BYTES ((size_t)2 << 20)
/*
 * An lstm's sequence state (lstm.c) is walked one step at a time, a slice
 * of a few hundred KiB, so it has a budget of its own: 4 MiB, blocks of 48
 * images for the Fashion-MNIST RNN (87 KiB each). Every step's recurrent
 * GEMMs pack Wh once per block: blocks of 23 (the state under the 2 MiB
 * budget) made the RNN's step 1.3x slower; 48 to 128 images ran within
 * 3 % of each other (bench_model --net lstm --block, docs/performance.md).
 */
#define RX__LSTM_BLOCK_BYTES ((size_t)4 << 20)

/* Shape and bookkeeping while compiling. */
typedef struct build {
    rx__net *net;
    int c, h, w, layout, cur_buf, cur_producer;
    size_t nparams;
    rx__conv_algo conv;
} build;

static int new_buf(build *b, size_t per_example)
{
    rx__net *net = b->net;
    net->buf_sz[net->n_bufs] = per_example;
    if (per_example > net->max_act)
        net->max_act = per_example;
    return net->n_bufs++;
}

static rx__op *push_op(build *b, rx__opkind kind, int layer)
{
    rx__op *op = &b->net->ops[b->net->n_ops++];
    memset(op, 0, sizeof *op);
    op->kind = kind;
    op->layer = layer;
    op->c = b->c;
    op->h = b->h;
    op->w = b->w;
    op->in_sz = (size_t)b->c * b->h * b->w;
    op->in_buf = b->cur_buf;
    op->pool_idx = -1;
    return op;
}

static void finish_op(build *b, rx__op *op, int oc, int oh, int ow,
                      int inplace)
{
    op->oc = oc;
    op->oh = oh;
    op->ow = ow;
    op->out_sz = (size_t)oc * oh * ow;
    op->out_buf = inplace ? op->in_buf : new_buf(b, op->out_sz);
    b->c = oc;
    b->h = oh;
    b->w = ow;
    b->cur_buf = op->out_buf;
    b->cur_producer = b->net->n_ops - 1;
}

/* A layout change, made only when the bytes differ (c > 1). */
static void want_layout(build *b, int layout, int layer)
{
    if (b->layout == layout)
        return;
    if (b->c > 1) {
        rx__op *op = push_op(b, layout == RX__NF ? RX__OP_TO_NF
                                                 : RX__OP_TO_CNHW, layer);
        finish_op(b, op, b->c, b->h, b->w, 0);
    }
    b->layout = layout;
}

/* dense: a weight matrix in x units and a bias. */
static rx_status compile_dense(build *b, const rx__layerspec *ls, int li,
                               rx_err *err)
{
    if (ls->units < 1)
        return rx__fail(err, RX_EINVAL,
                        "model.layers[%d]: dense units must be >= 1 "
                        "(got %d)", li, ls->units);
    want_layout(b, RX__NF, li);
    rx__op *op = push_op(b, RX__OP_DENSE, li);
    op->fan_in = (int)op->in_sz;
    op->woff = b->nparams;
    op->nw = op->in_sz * (size_t)ls->units;
    op->boff = op->woff + op->nw;
    op->nb = (size_t)ls->units;
    b->nparams += op->nw + op->nb;
    op->flops = 2.0 * (double)op->nw;
    finish_op(b, op, 1, 1, ls->units, 0);
    return RX_OK;
}

/* A conv op's algorithm: model.conv, or under auto Winograd for 3x3 and
 * larger kernels on many channels and direct on few, each only while its
 * buffers fit; im2col otherwise. */
static void conv_algo(build *b, rx__op *op, int k, int s)
{
    const int wino = rx__wino_fits(k, s);
    const int direct =
        s == 1 && k <= RX__WA && op->c * k * k <= RX__DIRECT_TAPS;
    op->algo = RX_CONV_IM2COL;
    if (b->conv == RX_CONV_WINOGRAD && wino)
        rx__wino_setup(op);
    else if (b->conv == RX_CONV_DIRECT && direct)
        rx__direct_setup(op);
    else if (b->conv == RX_CONV_AUTO && wino && k >= 3 &&
             op->c >= RX__WINO_MIN_C) {
        /* its buffers and the blocks hold 16 images (rx__net_block):
         * large planes stay on im2col, whose blocks shrink to fit */
        rx__wino_setup(op);
        op->need_dx = 1; /* the most it can need; set below */
        size_t v, m, u, pf;
        rx__wino_sizes(op, &v, &m, &u, &pf);
        const size_t act = (size_t)RX__VW * (op->in_sz + op->out_sz);
        if (sizeof(float) * (v + m + 2 * u + pf + act) >
            RX__WINO_MAX_BYTES)
            op->algo = RX_CONV_IM2COL;
        op->need_dx = 0;
    } else if (b->conv == RX_CONV_AUTO && direct &&
               op->c < RX__WINO_MIN_C) {
        /* few input channels (a first layer): direct, whose 16-image
         * buffers are small unless the planes are large */
        rx__direct_setup(op);
        size_t pf, dy, dwl;
        rx__direct_sizes(op, &pf, &dy, &dwl);
        const size_t act = (size_t)RX__VW * (op->in_sz + op->out_sz);
        if (sizeof(float) * (2 * pf + dy + dwl + act) >
            RX__WINO_MAX_BYTES)
            op->algo = RX_CONV_IM2COL;
    }
}

/* conv2d: the op, and its algorithm (model.conv; auto by buffer size). */
static rx_status compile_conv(build *b, const rx__layerspec *ls, int li,
                              rx_err *err)
{
    const int k = ls->ksize, s = ls->stride ? ls->stride : 1;
    if (ls->filters < 1 || k < 1 || s < 1 || ls->pad < 0)
        return rx__fail(err, RX_EINVAL,
                        "model.layers[%d]: conv2d needs filters >= 1, "
                        "kernel >= 1, stride >= 1, pad >= 0 (got %d, "
                        "%d, %d, %d)", li, ls->filters, k, ls->stride,
                        ls->pad);
    if (k > b->h + 2 * ls->pad || k > b->w + 2 * ls->pad)
        return rx__fail(err, RX_EINVAL,
                        "model.layers[%d]: conv2d kernel %d larger than "
                        "input %dx%d (pad %d)", li, k, b->h, b->w,
                        ls->pad);
    want_layout(b, RX__CNHW, li);
    rx__op *op = push_op(b, RX__OP_CONV, li);
    op->k = k;
    op->stride = s;
    op->pad = ls->pad;
    const int oh = (b->h + 2 * ls->pad - k) / s + 1;
    const int ow = (b->w + 2 * ls->pad - k) / s + 1;
    op->fan_in = b->c * k * k;
    op->woff = b->nparams;
    op->nw = (size_t)ls->filters * op->fan_in;
    op->boff = op->woff + op->nw;
    op->nb = (size_t)ls->filters;
    b->nparams += op->nw + op->nb;
    op->flops = 2.0 * (double)op->nw * oh * ow;
    finish_op(b, op, ls->filters, oh, ow, 0);
    conv_algo(b, op, k, s);
    return RX_OK;
}

/* maxpool: its window and stride (the stride defaults to the window). */
static rx_status compile_pool(build *b, const rx__layerspec *ls, int li,
                              rx_err *err)
{
    const int k = ls->ksize, s = ls->stride ? ls->stride : ls->ksize;
    if (k < 1 || s < 1)
        return rx__fail(err, RX_EINVAL,
                        "model.layers[%d]: maxpool needs kernel >= 1 "
                        "and stride >= 1 (got %d, %d)", li, k,
                        ls->stride);
    if (k > b->h || k > b->w)
        return rx__fail(err, RX_EINVAL,
                        "model.layers[%d]: maxpool window %d larger "
                        "than input %dx%d", li, k, b->h, b->w);
    if (k > RX__POOL_MAX_K) /* its offsets are 16-bit */
        return rx__fail(err, RX_EINVAL,
                        "model.layers[%d]: maxpool window %d larger "
                        "than %d", li, k, RX__POOL_MAX_K);
    rx__op *op = push_op(b, RX__OP_POOL, li);
    op->k = k;
    op->stride = s;
    op->pool_idx = b->net->n_pools++;
    finish_op(b, op, b->c, (b->h - k) / s + 1, (b->w - k) / s + 1, 0);
    return RX_OK;
}

/* relu, tanh. */
static rx_status compile_act(build *b, const rx__layerspec *ls, int li)
{
    /* In place unless the input is the caller's x or the output of
     * another activation (whose backward reads that output). */
    int inplace = b->cur_buf >= 0;
    if (inplace) {
        rx__opkind pk = b->net->ops[b->cur_producer].kind;
        if (pk == RX__OP_RELU || pk == RX__OP_TANH)
            inplace = 0;
    }
    rx__op *op = push_op(b, ls->kind == RX_LAYER_RELU ? RX__OP_RELU
                                                      : RX__OP_TANH, li);
    finish_op(b, op, b->c, b->h, b->w, inplace);
    return RX_OK;
}

/* lstm: four gates over the h steps of w features (PyTorch's nn.LSTM,
 * one bias vector), its last hidden state out. */
static rx_status compile_lstm(build *b, const rx__layerspec *ls, int li,
                              rx_err *err)
{
    const int T = b->h, F = b->w, H = ls->units;
    if (H < 1)
        return rx__fail(err, RX_EINVAL,
                        "model.layers[%d]: lstm units must be >= 1 "
                        "(got %d)", li, H);
    if (b->c != 1)
        return rx__fail(err, RX_EINVAL,
                        "model.layers[%d]: lstm reads a one-channel "
                        "input as h steps of w features; its input is "
                        "%dx%dx%d (c x h x w)", li, b->c, b->h, b->w);
    if (rx__lstm_state(T, H) > (size_t)INT32_MAX / 4)
        return rx__fail(err, RX_EINVAL,
                        "model.layers[%d]: lstm of %d units over %d "
                        "steps: its state of %zu floats per example is "
                        "too large", li, H, T, rx__lstm_state(T, H));
    want_layout(b, RX__NF, li); /* c = 1: the same bytes */
    rx__op *op = push_op(b, RX__OP_LSTM, li);
    op->fan_in = H; /* PyTorch: U(-1/sqrt(H), 1/sqrt(H)) */
    op->woff = b->nparams;
    op->nw = (size_t)(F + H) * 4 * H;
    op->boff = op->woff + op->nw;
    op->nb = (size_t)4 * H;
    b->nparams += op->nw + op->nb;
    op->flops_rec = 2.0 * (T - 1) * H * 4.0 * H;
    op->flops = 2.0 * T * F * 4.0 * H + op->flops_rec;
    finish_op(b, op, 1, 1, H, 0);
    op->seq_buf = new_buf(b, rx__lstm_state(T, H));
    return RX_OK;
}

/* One layer of model.layers onto the ops: its shape checked against its
 * input, its parameters placed in the flat vector. */
static rx_status compile_layer(build *b, const rx__layerspec *ls, int li,
                               rx_err *err)
{
    switch (ls->kind) {
    case RX_LAYER_DENSE:
        return compile_dense(b, ls, li, err);
    case RX_LAYER_CONV2D:
        return compile_conv(b, ls, li, err);
    case RX_LAYER_MAXPOOL:
        return compile_pool(b, ls, li, err);
    case RX_LAYER_RELU:
    case RX_LAYER_TANH:
        return compile_act(b, ls, li);
    case RX_LAYER_LSTM:
        return compile_lstm(b, ls, li, err);
    case RX_LAYER_FLATTEN:
        want_layout(b, RX__NF, li);
        b->w = b->c * b->h * b->w;
        b->c = b->h = 1;
        return RX_OK;
    }
    return rx__fail(err, RX_EINVAL, "model.layers[%d]: unknown layer kind %d",
                    li, (int)ls->kind);
}

/* Floats per example of the two backward gradient buffers: the
 * likelihood writes d(output) into dbuf[0], then each op reads dbuf[cur]
 * and writes its input's gradient into the other one, as backward() walks
 * them. */
static void dbuf_sizes(const rx__net *net, size_t sz[2])
{
    int cur = 0;
    sz[0] = (size_t)net->n_out;
    sz[1] = 0;
    for (int j = net->n_ops - 1; j >= 0; --j) {
        const rx__op *op = &net->ops[j];
        if (!op->need_dx && !op->nw)
            break;
        if (op->out_sz > sz[cur])
            sz[cur] = op->out_sz;
        if (op->need_dx && op->in_buf != op->out_buf) {
            cur = 1 - cur;
            if (op->in_sz > sz[cur])
                sz[cur] = op->in_sz;
        }
    }
}

/* The relu/pool folds (ops.h), then where each buffer lives: the
 * buffers the backward reads (a dense or conv input, an activation's
 * output, a masking pool's output) and the net's output get buffers of
 * their own; the others are read only during the forward and share the
 * arena, first fit by lifetime; the backward's gradient buffers take the
 * arena after the forward. */
static rx_status plan_buffers(rx__net *net)
{
    const int nb = net->n_bufs;
    net->buf_off = malloc(sizeof(size_t) * (size_t)(nb + 1));
    int *last = malloc(sizeof(int) * (size_t)(3 * nb + 1));
    size_t *slot_sz = calloc((size_t)nb + 1, sizeof *slot_sz);
    if (!net->buf_off || !last || !slot_sz) {
        free(last);
        free(slot_sz);
        return RX_ENOMEM;
    }
    /* last[b]: the last op reading buffer b in the forward; slot[b]: its
     * arena slot; slot_end[q]: the last reader of slot q's buffer */
    int *slot = last + nb, *slot_end = last + 2 * nb;
    for (int j = 0; j + 1 < net->n_ops; ++j) {
        rx__op *op = &net->ops[j], *nx = &net->ops[j + 1];
        if (op->kind == RX__OP_RELU && op->in_buf == op->out_buf &&
            nx->kind == RX__OP_POOL && nx->in_buf == op->out_buf) {
            op->relu_folded = 1;
            nx->relu_mask = 1;
        }
    }
    for (int b = 0; b < nb; ++b)
        net->buf_off[b] = 0; /* 0: in the arena, SIZE_MAX: its own */
    if (net->ops[net->n_ops - 1].out_buf >= 0)
        net->buf_off[net->ops[net->n_ops - 1].out_buf] = SIZE_MAX;
    for (int j = net->n_ops - 1; j >= 0; --j) {
        const rx__op *op = &net->ops[j];
        if (!op->need_dx && !op->nw)
            break; /* backward() stops here */
        int rd = -1;
        if (op->kind == RX__OP_DENSE || op->kind == RX__OP_CONV ||
            op->kind == RX__OP_LSTM)
            rd = op->in_buf;
        else if ((op->kind == RX__OP_POOL && op->relu_mask) ||
                 ((op->kind == RX__OP_RELU || op->kind == RX__OP_TANH) &&
                  !op->relu_folded))
            rd = op->out_buf;
        if (rd >= 0)
            net->buf_off[rd] = SIZE_MAX;
    }
    for (int j = 0; j < net->n_ops; ++j) /* read by its backward */
        if (net->ops[j].kind == RX__OP_LSTM)
            net->buf_off[net->ops[j].seq_buf] = SIZE_MAX;
    for (int b = 0; b < nb; ++b)
        last[b] = -1;
    for (int j = 0; j < net->n_ops; ++j) {
        const rx__op *op = &net->ops[j];
        if (op->in_buf >= 0)
            last[op->in_buf] = j;
        if (last[op->out_buf] < j)
            last[op->out_buf] = j;
    }
    int nslots = 0;
    for (int j = 0; j < net->n_ops; ++j) {
        const rx__op *op = &net->ops[j];
        const int b = op->out_buf;
        if (b == op->in_buf || net->buf_off[b] == SIZE_MAX)
            continue;
        int q = 0;
        while (q < nslots && slot_end[q] >= j)
            ++q;
        if (q == nslots)
            ++nslots;
        slot_end[q] = last[b];
        slot[b] = q;
        if (net->buf_sz[b] > slot_sz[q])
            slot_sz[q] = net->buf_sz[b];
    }
    size_t off = 0;
    for (int q = 0; q < nslots; ++q) { /* sizes to offsets */
        const size_t o = off;
        off += slot_sz[q];
        slot_sz[q] = o;
    }
    for (int b = 0; b < nb; ++b)
        if (net->buf_off[b] != SIZE_MAX)
            net->buf_off[b] = slot_sz[slot[b]];
    dbuf_sizes(net, net->db_sz);
    const size_t dsum = net->db_sz[0] + net->db_sz[1];
    net->arena_sz = off > dsum ? off : dsum;
    free(last);
    free(slot_sz);
    return RX_OK;
}

rx_status rx__net_create(rx__net **out, const rx__netspec *spec, rx_err *err)
{
    rx_status st = RX_OK;
    if (!out || !spec)
        return rx__fail(err, RX_EINVAL, "model: NULL argument");
    *out = NULL;
    if (spec->in_c < 1 || spec->in_h < 1 || spec->in_w < 1)
        return rx__fail(err, RX_EINVAL,
                        "model: input shape %dx%dx%d must be positive",
                        spec->in_c, spec->in_h, spec->in_w);
    if (spec->n_layers < 0 || (spec->n_layers > 0 && !spec->layers))
        return rx__fail(err, RX_EINVAL, "model: bad layer list (%d layers)",
                        spec->n_layers);
    if (spec->lik != RX_LIK_SOFTMAX && spec->lik != RX_LIK_GAUSSIAN)
        return rx__fail(err, RX_EINVAL, "model: unknown likelihood %d",
                        (int)spec->lik);
    if (spec->lik == RX_LIK_GAUSSIAN && !(spec->noise_var > 0.0) )
        return rx__fail(err, RX_EINVAL,
                        "model: gaussian noise_var must be > 0 (got %g)",
                        spec->noise_var);

    rx__net *net = calloc(1, sizeof *net);
    if (!net)
        return rx__fail(err, RX_ENOMEM, "model: out of memory");
    const int cap = 2 * spec->n_layers + 2;
    net->ops = calloc((size_t)cap, sizeof *net->ops);
    net->buf_sz = calloc((size_t)cap, sizeof *net->buf_sz);
    if (!net->ops || !net->buf_sz) {
        st = rx__fail(err, RX_ENOMEM, "model: out of memory");
        goto fail;
    }
    build b = {net,    spec->in_c, spec->in_h, spec->in_w, RX__NF,
               -1,     -1,         0,          spec->conv};
    for (int li = 0; li < spec->n_layers; ++li) {
        st = compile_layer(&b, &spec->layers[li], li, err);
        if (st != RX_OK)
            goto fail;
    }
    want_layout(&b, RX__NF, spec->n_layers - 1);
    const int outdim = b.c * b.h * b.w;
    if (spec->n_out < 1 || outdim != spec->n_out) {
        st = rx__fail(err, RX_EINVAL,
                      "model.layers[%d]: the last layer gives %d outputs, "
                      "n_out is %d", spec->n_layers - 1, outdim,
                      spec->n_out);
        goto fail;
    }
    if (spec->lik == RX_LIK_GAUSSIAN && spec->n_out != 1) {
        st = rx__fail(err, RX_EINVAL,
                      "model: the gaussian likelihood needs 1 output "
                      "(got %d)", spec->n_out);
        goto fail;
    }
    if (spec->lik == RX_LIK_SOFTMAX && spec->n_out < 2) {
        st = rx__fail(err, RX_EINVAL,
                      "model: softmax needs >= 2 classes (got %d)",
                      spec->n_out);
        goto fail;
    }
    int seen_params = 0;
    for (int j = 0; j < net->n_ops; ++j) {
        rx__op *op = &net->ops[j];
        op->need_dx = seen_params;
        if (op->nw)
            seen_params = 1;
        net->flops_fwd += op->flops;
        if (op->nw) /* lstm: d(h) through time too */
            net->flops_grad +=
                (2.0 + op->need_dx) * op->flops + op->flops_rec;
    }
    if (plan_buffers(net) != RX_OK) {
        st = rx__fail(err, RX_ENOMEM, "model: out of memory");
        goto fail;
    }
    net->lik = spec->lik;
    net->noise_var = spec->noise_var;
    net->gemm = spec->gemm;
    net->learn_precision = spec->lik == RX_LIK_GAUSSIAN &&
                           spec->learn_precision;
    net->nparams = b.nparams + (size_t)net->learn_precision;
    net->in_dim = (size_t)spec->in_c * spec->in_h * spec->in_w;
    net->n_out = spec->n_out;
    if (net->nparams == 0 || net->nparams > (size_t)INT32_MAX) {
        st = rx__fail(err, RX_EINVAL,
                      "model: %zu parameters (need 1 .. 2^31-1)",
                      net->nparams);
        goto fail;
    }
    *out = net;
    return RX_OK;
fail:
    rx__net_destroy(&net);
    return st;
}

void rx__net_destroy(rx__net **net)
{
    if (!net || !*net)
        return;
    free((*net)->ops);
    free((*net)->buf_sz);
    free((*net)->buf_off);
    free(*net);
    *net = NULL;
}

size_t rx__net_nparams(const rx__net *net) { return net->nparams; }
size_t rx__net_in_dim(const rx__net *net) { return net->in_dim; }
int rx__net_out_dim(const rx__net *net) { return net->n_out; }
double rx__net_flops_fwd(const rx__net *net) { return net->flops_fwd; }
double rx__net_flops_grad(const rx__net *net) { return net->flops_grad; }

int rx__net_block(const rx__net *net, int max_batch)
{
    size_t per = net->arena_sz, seq = 0;
    int lanes = 0;
    for (int j = 0; j < net->n_bufs; ++j)
        if (net->buf_off[j] == SIZE_MAX)
            per += net->buf_sz[j];
    for (int j = 0; j < net->n_ops; ++j) {
        const rx__op *op = &net->ops[j];
        if (op->kind == RX__OP_POOL)
            per += op->out_sz; /* its argmax (2 bytes; counted as 4) */
        if (op->kind == RX__OP_CONV && op->algo != RX_CONV_IM2COL)
            lanes = 1;
        if (op->kind == RX__OP_LSTM) { /* its own budget */
            per -= net->buf_sz[op->seq_buf];
            seq += net->buf_sz[op->seq_buf];
        }
    }
    size_t b = RX__BLOCK_BYTES / (sizeof(float) * (per ? per : 1));
    if (seq && RX__LSTM_BLOCK_BYTES / (sizeof(float) * seq) < b)
        b = RX__LSTM_BLOCK_BYTES / (sizeof(float) * seq);
    if (lanes)
        b = b < RX__VW ? RX__VW : b / RX__VW * RX__VW;
    if (b < 1)
        b = 1;
    return b > (size_t)max_batch ? max_batch : (int)b;
}

rx__netws *rx__netws_create(const rx__net *net, int max_batch, int use_blas)
{
    return rx__netws_create_block(net, max_batch, use_blas, 0);
}

rx__netws *rx__netws_create_block(const rx__net *net, int max_batch,
                                  int use_blas, int block)
{
    if (!net || max_batch < 1 || block < 0)
        return NULL;
    rx__netws *ws = rx__calloc_aligned(sizeof *ws, RX_CACHELINE);
    if (!ws)
        return NULL;
    ws->net = net;
    ws->max_batch = max_batch;
    ws->bytes = sizeof *ws;
    ws->g.use_blas = use_blas != 0;
    ws->g.small = ws->g.use_blas && net->gemm == RX_GEMM_AUTO;
    ws->g.isa = rx__pgemm_isa();
    if (ws->g.small) {
        ws->g.scratch = rx__alloc_aligned(sizeof(float) * RX__GEMM_SCRATCH,
                                          RX_CACHELINE);
        if (!ws->g.scratch) {
            rx__free_aligned(ws);
            return NULL;
        }
        ws->g.scratch_n = RX__GEMM_SCRATCH;
        ws->bytes += sizeof(float) * RX__GEMM_SCRATCH;
    }
    ws->micro = block == 0           ? rx__net_block(net, max_batch)
                : block > max_batch ? max_batch
                                    : block;
    const size_t mb = (size_t)ws->micro;
    ws->act = calloc((size_t)net->n_bufs + 1, sizeof *ws->act);
    ws->arg = calloc((size_t)net->n_pools + 1, sizeof *ws->arg);
    if (!ws->act || !ws->arg)
        goto fail;
    {
        const size_t by = sizeof(float) * mb * net->arena_sz;
        ws->arena = rx__alloc_aligned(by, RX_CACHELINE);
        if (!ws->arena)
            goto fail;
        ws->bytes += by;
        ws->dbuf[0] = ws->arena;
        ws->dbuf[1] = ws->arena + mb * net->db_sz[0];
    }
    for (int j = 0; j < net->n_bufs; ++j) {
        if (net->buf_off[j] != SIZE_MAX) {
            ws->act[j] = ws->arena + mb * net->buf_off[j];
            continue;
        }
        const size_t by = sizeof(float) * mb * net->buf_sz[j];
        ws->act[j] = rx__alloc_aligned(by, RX_CACHELINE);
        if (!ws->act[j])
            goto fail;
        ws->bytes += by;
    }
    /* Winograd buffers (direct: wmo and wdu), floats */
    size_t wv = 0, wmo = 0, wu = 0, wdu = 0;
    for (int j = 0; j < net->n_ops; ++j) {
        const rx__op *op = &net->ops[j];
        if (op->kind == RX__OP_POOL) {
            const size_t by = sizeof(uint16_t) * mb * op->out_sz;
            ws->arg[op->pool_idx] = rx__alloc_aligned(by, RX_CACHELINE);
            if (!ws->arg[op->pool_idx])
                goto fail;
            ws->bytes += by;
        }
        if (op->kind == RX__OP_CONV && op->algo == RX_CONV_DIRECT) {
            size_t pf, dy, dwl;
            rx__direct_sizes(op, &pf, &dy, &dwl);
            wmo = dy > wmo ? dy : wmo;
            wdu = dwl > wdu ? dwl : wdu;
            if (pf > ws->pad_floats)
                ws->pad_floats = pf;
        } else if (op->kind == RX__OP_CONV &&
                   op->algo == RX_CONV_WINOGRAD) {
            size_t v, m, u, pf;
            rx__wino_sizes(op, &v, &m, &u, &pf);
            wv = v > wv ? v : wv;
            wmo = m > wmo ? m : wmo;
            wu = u > wu ? u : wu;
            wdu = u > wdu ? u : wdu;
            if (pf > ws->pad_floats)
                ws->pad_floats = pf;
        } else if (op->kind == RX__OP_CONV) {
            const size_t ch = (size_t)rx__conv_chunk(op, ws);
            const size_t f = ch * op->c * op->k * op->k * op->oh * op->ow;
            const size_t pf = ch * op->c * (size_t)(op->h + 2 * op->pad) *
                              (size_t)(op->w + 2 * op->pad);
            if (f > ws->col_floats)
                ws->col_floats = f;
            if (pf > ws->pad_floats)
                ws->pad_floats = pf;
        }
    }
    if (ws->pad_floats) {
        const size_t cb = sizeof(float) * (ws->col_floats + RX__SLACK);
        const size_t pb = sizeof(float) * (ws->pad_floats + RX__SLACK);
        ws->col = rx__calloc_aligned(cb, RX_CACHELINE);
        ws->pad = rx__calloc_aligned(pb, RX_CACHELINE);
        if (!ws->col || !ws->pad)
            goto fail;
        ws->bytes += cb + pb;
    }
    {
        float **bufs[4] = {&ws->wv, &ws->wmo, &ws->wu, &ws->wdu};
        const size_t fl[4] = {wv, wmo, wu, wdu};
        for (int j = 0; j < 4; ++j) {
            if (!fl[j])
                continue;
            *bufs[j] = rx__calloc_aligned(sizeof(float) * fl[j], RX_CACHELINE);
            if (!*bufs[j])
                goto fail;
            ws->bytes += sizeof(float) * fl[j];
        }
    }
    return ws;
fail:
    rx__netws_destroy(&ws);
    return NULL;
}

void rx__netws_destroy(rx__netws **wsp)
{
    if (!wsp || !*wsp)
        return;
    rx__netws *ws = *wsp;
    if (ws->act)
        for (int j = 0; j < ws->net->n_bufs; ++j)
            if (ws->net->buf_off[j] == SIZE_MAX)
                rx__free_aligned(ws->act[j]);
    if (ws->arg)
        for (int j = 0; j < ws->net->n_pools; ++j)
            rx__free_aligned(ws->arg[j]);
    free(ws->act);
    free(ws->arg);
    rx__free_aligned(ws->arena);
    rx__free_aligned(ws->col);
    rx__free_aligned(ws->pad);
    rx__free_aligned(ws->wv);
    rx__free_aligned(ws->wmo);
    rx__free_aligned(ws->wu);
    rx__free_aligned(ws->wdu);
    rx__free_aligned(ws->g.scratch);
    rx__free_aligned(ws);
    *wsp = NULL;
}

size_t rx__netws_bytes(const rx__netws *ws) { return ws->bytes; }
const char *rx__netws_errmsg(const rx__netws *ws) { return ws->err.msg; }

void rx__net_fan_in(const rx__net *net, double *fan)
{
    for (int j = 0; j < net->n_ops; ++j) {
        const rx__op *op = &net->ops[j];
        for (size_t q = 0; q < op->nw + op->nb; ++q)
            fan[op->woff + q] = (double)op->fan_in;
    }
}

void rx__net_init_params(const rx__net *net, float *w, rx__stream *s)
{
    for (int j = 0; j < net->n_ops; ++j) {
        const rx__op *op = &net->ops[j];
        if (!op->nw)
            continue;
        const double bound = 1.0 / sqrt((double)op->fan_in);
        for (size_t q = 0; q < op->nw + op->nb; ++q)
            w[op->woff + q] = (float)((2.0 * rx__uniform(s) - 1.0) * bound);
    }
    if (net->learn_precision)
        w[net->nparams - 1] = (float)log(1.0 / net->noise_var);
}

/* Forward through every op; returns the n x n_out output. */
static const float *forward(const rx__net *net, rx__netws *ws,
                            const float *w, const float *x, int n)
{
    const float *cur = x;
    for (int j = 0; j < net->n_ops; ++j) {
        const rx__op *op = &net->ops[j];
        const float *in = op->in_buf < 0 ? x : ws->act[op->in_buf];
        rx__op_forward(op, ws, w, in, ws->act[op->out_buf], n);
        cur = ws->act[op->out_buf];
    }
    return cur;
}

static rx_status check_call(const rx__net *net, rx__netws *ws,
                            const float *w, const float *x, int n)
{
    if (!net || !ws || ws->net != net)
        return ws ? rx__fail(&ws->err, RX_EINVAL,
                             "model: workspace belongs to another net")
                  : RX_EINVAL;
    if (!w || !x)
        return rx__fail(&ws->err, RX_EINVAL, "model: NULL parameters or x");
    if (n < 1 || n > ws->max_batch)
        return rx__fail(&ws->err, RX_EINVAL,
                        "model: batch of %d outside 1 .. %d (the workspace "
                        "maximum)", n, ws->max_batch);
    return RX_OK;
}

/* Losses of the n outputs z against y; the scaled gradient of their sum
 * w.r.t. z into dz (if dz); the rho derivative sum into *grho. */
static double likelihood(const rx__net *net, const float *w, const float *z,
                         const float *y, int n, double scale, float *dz,
                         double *per_example, double *grho)
{
    const int C = net->n_out;
    double total = 0.0;
    if (net->lik == RX_LIK_SOFTMAX) {
        for (int i = 0; i < n; ++i) {
            const float *zi = z + (size_t)i * C;
            const int yi = (int)y[i];
            float m = zi[0];
            for (int c = 1; c < C; ++c)
                if (zi[c] > m)
                    m = zi[c];
            double se = 0.0;
            for (int c = 0; c < C; ++c)
                se += exp((double)zi[c] - m);
            const double li = (double)m + log(se) - zi[yi];
            total += li;
            if (per_example)
                per_example[i] = li;
            if (dz) {
                float *d = dz + (size_t)i * C;
                for (int c = 0; c < C; ++c)
                    d[c] = (float)(scale * (exp((double)zi[c] - m) / se -
                                            (c == yi)));
            }
        }
        return total;
    }
    const double rho = net->learn_precision ? (double)w[net->nparams - 1]
                                            : -log(net->noise_var);
    const double prec = exp(rho), c0 = 0.5 * (RX__LOG_2PI - rho);
    for (int i = 0; i < n; ++i) {
        const double r = (double)z[i] - y[i];
        const double li = 0.5 * prec * r * r + c0;
        total += li;
        if (per_example)
            per_example[i] = li;
        if (dz) {
            dz[i] = (float)(scale * prec * r);
            *grho += 0.5 * prec * r * r - 0.5;
        }
    }
    return total;
}

/* Backward of one pass from d(output) in dbuf[0]; accumulates into grad. */
static void backward(const rx__net *net, rx__netws *ws, const float *w,
                     const float *x, int n, float *grad)
{
    int cur = 0; /* dbuf holding the gradient of the current output */
    for (int j = net->n_ops - 1; j >= 0; --j) {
        const rx__op *op = &net->ops[j];
        if (!op->need_dx && !op->nw)
            break; /* nothing at or before j has parameters */
        if (op->relu_folded)
            continue; /* in place; the next op's backward masked it */
        const float *in = op->in_buf < 0 ? x : ws->act[op->in_buf];
        const int inplace = op->in_buf == op->out_buf;
        float *dout = ws->dbuf[cur];
        float *din = !op->need_dx ? NULL
                     : inplace    ? dout
                                  : ws->dbuf[1 - cur];
        rx__op_backward(op, ws, w, in, ws->act[op->out_buf], dout, din, grad,
                        n);
        if (din && !inplace)
            cur = 1 - cur;
    }
}

rx_status rx__net_loss_grad(const rx__net *net, rx__netws *ws, const float *w,
                            const float *x, const float *y, int n,
                            double scale, double *loss_sum, float *grad,
                            double *per_example)
{
    rx_status st = check_call(net, ws, w, x, n);
    if (st != RX_OK)
        return st;
    if (!y || !loss_sum)
        return rx__fail(&ws->err, RX_EINVAL, "model: NULL targets or loss");
    if (net->lik == RX_LIK_SOFTMAX)
        for (int i = 0; i < n; ++i) {
            /* range first: converting a huge float to int is undefined */
            if (!(y[i] >= 0.0f && y[i] < (float)net->n_out) ||
                (float)(int)y[i] != y[i])
                return rx__fail(&ws->err, RX_EINVAL,
                                "model: label %g of example %d is not a "
                                "class in 0 .. %d", (double)y[i], i,
                                net->n_out - 1);
        }
    if (grad)
        memset(grad, 0, sizeof(float) * net->nparams);
    ++ws->call; /* new weights, maybe */
    double total = 0.0, grho = 0.0;
    for (int i0 = 0; i0 < n; i0 += ws->micro) {
        const int m = n - i0 < ws->micro ? n - i0 : ws->micro;
        const float *xp = x + (size_t)i0 * net->in_dim;
        const float *z = forward(net, ws, w, xp, m);
        total += likelihood(net, w, z, y + i0, m, scale,
                            grad ? ws->dbuf[0] : NULL,
                            per_example ? per_example + i0 : NULL, &grho);
        if (grad)
            backward(net, ws, w, xp, m, grad);
    }
    *loss_sum = total;
    if (!isfinite(total))
        return rx__fail(&ws->err, RX_ENUMERIC,
                        "model: non-finite loss (%g) on a batch of %d",
                        total, n);
    if (grad && net->learn_precision)
        grad[net->nparams - 1] = (float)(scale * grho);
    return RX_OK;
}

static void probs(const rx__net *net, const float *z, int n, float *out);

rx_status rx__net_predict(const rx__net *net, rx__netws *ws, const float *w,
                          const float *x, int n, float *out)
{
    rx_status st = check_call(net, ws, w, x, n);
    if (st != RX_OK)
        return st;
    if (!out)
        return rx__fail(&ws->err, RX_EINVAL, "model: NULL output");
    ++ws->call;
    const int C = net->n_out;
    for (int i0 = 0; i0 < n; i0 += ws->micro) {
        const int m = n - i0 < ws->micro ? n - i0 : ws->micro;
        const float *z = forward(net, ws, w, x + (size_t)i0 * net->in_dim, m);
        probs(net, z, m, out + (size_t)i0 * C);
    }
    return RX_OK;
}

/* Softmax probabilities (or the gaussian mean) of n outputs z. */
static void probs(const rx__net *net, const float *z, int n, float *out)
{
    const int C = net->n_out;
    if (net->lik == RX_LIK_GAUSSIAN) {
        memcpy(out, z, sizeof(float) * (size_t)n * C);
        return;
    }
    for (int i = 0; i < n; ++i) {
        const float *zi = z + (size_t)i * C;
        float *o = out + (size_t)i * C;
        float m = zi[0];
        for (int c = 1; c < C; ++c)
            if (zi[c] > m)
                m = zi[c];
        double se = 0.0;
        for (int c = 0; c < C; ++c)
            se += exp((double)zi[c] - m);
        for (int c = 0; c < C; ++c)
            o[c] = (float)(exp((double)zi[c] - m) / se);
    }
}
