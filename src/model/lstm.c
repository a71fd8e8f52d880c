/*
 * The lstm op: one LSTM layer over a sequence (PyTorch's nn.LSTM, one
 * layer, zero initial state), giving the last hidden state. Forward and
 * backward through time on the workspace's GEMM engine; the sequence
 * state of a block lives in the op's own buffer (ws->act[op->seq_buf])
 * from the forward to the backward. Allocates nothing; touches no
 * parameter but through w and gw.
 *
 * Per example the input is T = op->h steps of F = op->w features (row t
 * of a one-channel image is step t), H = op->ow units, and
 *   z_t = x_t Wx + h_{t-1} Wh + b            (4H: gates i, f, g, o)
 *   i, f, o = sigmoid(z), g = tanh(z)
 *   c_t = f c_{t-1} + i g,   h_t = o tanh(c_t),   h_{-1} = c_{-1} = 0.
 * Every sum runs in a fixed order (the GEMM engine's, then element-wise
 * loops in index order), so the bits depend on the inputs and the block
 * only, never on the thread.
 */
#include <string.h>

#include "gemm.h"
#include "lstm.h"
#include "vec.h"

size_t rx__lstm_state(int T, int H)
{
    return (size_t)6 * T * H + (size_t)2 * H;
}

/* The block's state for n examples, laid out over the block:
 * z  [n x T x 4H]  the gates (pre-activation, then activated; the
 *                  backward overwrites them with d(z));
 * hp [n x T x H]   h_{t-1} at step t (zero at t = 0);
 * cs [n x T x H]   c_t;
 * dh, dc [n x H]   the backward's running gradients. */
typedef struct seq {
    float *z, *hp, *cs, *dh, *dc;
} seq;

static seq seq_of(const rx__op *op, rx__netws *ws, int n)
{
    const size_t T = (size_t)op->h, H = (size_t)op->ow, N = (size_t)n;
    seq s;
    s.z = ws->act[op->seq_buf];
    s.hp = s.z + N * T * 4 * H;
    s.cs = s.hp + N * T * H;
    s.dh = s.cs + N * T * H;
    s.dc = s.dh + N * H;
    return s;
}

/*
 * The gates' non-linearities on 16 lanes at once (the scalar expf and
 * tanhf took over 40 % of a step): exp by Cephes' expf (range reduction
 * by ln 2 in two parts, a degree-6 polynomial, relative error ~1e-7) on
 * inputs clamped to [-88, 88]; sigmoid(v) = 1 / (1 + exp(-v)); tanh by
 * Cephes' tanhf (an odd polynomial below |v| = 0.625, 1 - 2 / (exp(2|v|)
 * + 1) above, the sign put back). Every lane runs the same IEEE
 * operations, no multiply-add is contracted (C11 mode), so the target
 * clones and the lanes of a short last vector give the same bits.
 */
/* lanes of a where m is all ones, of b elsewhere (a cast between vector
 * types of one size keeps the bits) */
#define RX__VSEL(m, a, b) \
    ((rx__vf)(((rx__vi)(a) & (m)) | ((rx__vi)(b) & ~(m))))

RX__VINL void vexp(rx__vf *v)
{
    rx__vf x = *v;
    x = RX__VSEL(x > 88.0f, (rx__vf){0} + 88.0f, x);
    x = RX__VSEL(x < -88.0f, (rx__vf){0} - 88.0f, x);
    const rx__vf fx = x * 1.44269504088896341f + 0.5f;
    rx__vi n = __builtin_convertvector(fx, rx__vi); /* toward zero */
    n -= (rx__vi)(__builtin_convertvector(n, rx__vf) > fx) & 1; /* floor */
    const rx__vf nf = __builtin_convertvector(n, rx__vf);
    x = x - nf * 0.693359375f;
    x = x - nf * -2.12194440e-4f;
    const rx__vf z = x * x;
    rx__vf y = (rx__vf){0} + 1.9875691500e-4f;
    y = y * x + 1.3981999507e-3f;
    y = y * x + 8.3334519073e-3f;
    y = y * x + 4.1665795894e-2f;
    y = y * x + 1.6666665459e-1f;
    y = y * x + 5.0000001201e-1f;
    y = y * z + x + 1.0f;
    *v = y * (rx__vf)((n + 127) << 23); /* 2^n, n in [-127, 128] */
}

RX__VINL void vsigm(rx__vf *v)
{
    rx__vf e = -*v;
    vexp(&e);
    *v = 1.0f / (1.0f + e);
}

RX__VINL void vtanh(rx__vf *v)
{
    const rx__vi neg = *v < 0.0f;
    const rx__vf a = RX__VSEL(neg, -*v, *v);
    const rx__vf z = a * a;
    rx__vf p = (rx__vf){0} - 5.70498872745e-3f;
    p = p * z + 2.06390887954e-2f;
    p = p * z - 5.37397155531e-2f;
    p = p * z + 1.33314422036e-1f;
    p = p * z - 3.33332819422e-1f;
    const rx__vf small = a + a * z * p;
    rx__vf e = a + a;
    vexp(&e);
    const rx__vf large = 1.0f - 2.0f / (e + 1.0f);
    const rx__vf t = RX__VSEL(a < 0.625f, small, large);
    *v = RX__VSEL(neg, -t, t);
}

/* k <= 16 floats from p into a vector (zeros past them), and back. */
RX__VINL void vload(rx__vf *v, const float *p, int k)
{
    if (k == RX__VW) { /* one move; a copy of k floats is a string move */
        memcpy(v, p, sizeof *v);
        return;
    }
    *v = (rx__vf){0};
    memcpy(v, p, sizeof(float) * (size_t)k);
}

RX__VINL void vstore(float *p, const rx__vf *v, int k)
{
    if (k == RX__VW)
        memcpy(p, v, sizeof *v);
    else
        memcpy(p, v, sizeof(float) * (size_t)k);
}

/* One example's step: the gates z (activated in place), the cell c from
 * the previous cell cp (NULL at t = 0), the hidden state into h. */
RX__CLONES
static void cell_forward(float *restrict z, const float *restrict cp,
                         float *restrict c, float *restrict h, int H)
{
    float *zi = z, *zf = z + H, *zg = z + 2 * H, *zo = z + 3 * H;
    for (int j = 0; j < H; j += RX__VW) {
        const int k = H - j < RX__VW ? H - j : RX__VW;
        rx__vf i, f, g, o, cn, tc;
        vload(&i, zi + j, k);
        vload(&f, zf + j, k);
        vload(&g, zg + j, k);
        vload(&o, zo + j, k);
        vsigm(&i);
        vsigm(&f);
        vtanh(&g);
        vsigm(&o);
        vstore(zi + j, &i, k);
        vstore(zf + j, &f, k);
        vstore(zg + j, &g, k);
        vstore(zo + j, &o, k);
        if (cp) {
            vload(&cn, cp + j, k);
            cn = f * cn + i * g;
        } else {
            cn = i * g;
        }
        vstore(c + j, &cn, k);
        tc = cn;
        vtanh(&tc);
        tc = o * tc;
        vstore(h + j, &tc, k);
    }
}

/* Its adjoint: from d(h_t) (dh) and the running d(c) (dc, updated to
 * d(c_{t-1})), the gates' d(z) over the activated gates z. */
RX__CLONES
static void cell_backward(float *restrict z, const float *restrict c,
                          const float *restrict cp, const float *restrict dh,
                          float *restrict dc, int H)
{
    float *zi = z, *zf = z + H, *zg = z + 2 * H, *zo = z + 3 * H;
    for (int j = 0; j < H; j += RX__VW) {
        const int k = H - j < RX__VW ? H - j : RX__VW;
        rx__vf i, f, g, o, d, tc, dct, df, r;
        vload(&i, zi + j, k);
        vload(&f, zf + j, k);
        vload(&g, zg + j, k);
        vload(&o, zo + j, k);
        vload(&d, dh + j, k);
        vload(&tc, c + j, k);
        vtanh(&tc);
        vload(&dct, dc + j, k);
        dct = dct + d * o * (1.0f - tc * tc);
        if (cp) {
            vload(&df, cp + j, k);
            df = dct * df;
        } else {
            df = (rx__vf){0};
        }
        r = dct * f;
        vstore(dc + j, &r, k);
        r = dct * g * i * (1.0f - i);
        vstore(zi + j, &r, k);
        r = df * f * (1.0f - f);
        vstore(zf + j, &r, k);
        r = dct * i * (1.0f - g * g);
        vstore(zg + j, &r, k);
        r = d * tc * o * (1.0f - o);
        vstore(zo + j, &r, k);
    }
}

void rx__lstm_forward(const rx__op *op, rx__netws *ws, const float *w,
                      const float *in, float *out, int n)
{
    const int T = op->h, F = op->w, H = op->ow, G4 = 4 * H;
    const seq s = seq_of(op, ws, n);
    const float *Wx = w + op->woff, *Wh = Wx + (size_t)F * G4;
    const float *bias = w + op->boff;
    const size_t rows = (size_t)n * T;
    for (size_t r = 0; r < rows; ++r)
        memcpy(s.z + r * G4, bias, sizeof(float) * (size_t)G4);
    /* the input's part of every step at once: rows (i, t) of x */
    rx__gemm(&ws->g, 0, 0, (int)rows, G4, F, 1.0f, in, F, Wx, G4, 1.0f,
             s.z, G4);
    for (int i = 0; i < n; ++i)
        memset(s.hp + (size_t)i * T * H, 0, sizeof(float) * (size_t)H);
    for (int t = 0; t < T; ++t) {
        if (t > 0)
            rx__gemm(&ws->g, 0, 0, n, G4, H, 1.0f, s.hp + (size_t)t * H,
                     T * H, Wh, G4, 1.0f, s.z + (size_t)t * G4, T * G4);
        for (int i = 0; i < n; ++i) {
            const size_t r = (size_t)i * T + t;
            float *c = s.cs + r * H;
            float *h = t + 1 < T ? s.hp + (r + 1) * H : out + (size_t)i * H;
            cell_forward(s.z + r * G4, t ? c - H : NULL, c, h, H);
        }
    }
}

void rx__lstm_backward(const rx__op *op, rx__netws *ws, const float *w,
                       const float *in, const float *dout, float *din,
                       float *gw, int n)
{
    const int T = op->h, F = op->w, H = op->ow, G4 = 4 * H;
    const seq s = seq_of(op, ws, n);
    const float *Wx = w + op->woff, *Wh = Wx + (size_t)F * G4;
    const size_t rows = (size_t)n * T;
    memcpy(s.dh, dout, sizeof(float) * (size_t)n * H);
    memset(s.dc, 0, sizeof(float) * (size_t)n * H);
    for (int t = T - 1; t >= 0; --t) {
        for (int i = 0; i < n; ++i) {
            const size_t r = (size_t)i * T + t;
            const float *c = s.cs + r * H;
            cell_backward(s.z + r * G4, c, t ? c - H : NULL,
                          s.dh + (size_t)i * H, s.dc + (size_t)i * H, H);
        }
        if (t > 0) /* d(h_{t-1}) = d(z_t) Wh^T */
            rx__gemm(&ws->g, 0, 1, n, H, G4, 1.0f, s.z + (size_t)t * G4,
                     T * G4, Wh, G4, 0.0f, s.dh, H);
    }
    /* the weights' gradients over all steps at once: the rows of hp at
     * t = 0 are zero and add nothing */
    float *gWx = gw + op->woff, *gWh = gWx + (size_t)F * G4;
    float *gb = gw + op->boff;
    rx__gemm(&ws->g, 1, 0, F, G4, (int)rows, 1.0f, in, F, s.z, G4, 1.0f, gWx,
             G4);
    rx__gemm(&ws->g, 1, 0, H, G4, (int)rows, 1.0f, s.hp, H, s.z, G4, 1.0f,
             gWh, G4);
    for (size_t r = 0; r < rows; ++r) {
        const float *d = s.z + r * G4;
        for (int j = 0; j < G4; ++j)
            gb[j] += d[j];
    }
    if (din)
        rx__gemm(&ws->g, 0, 1, (int)rows, F, G4, 1.0f, s.z, G4, Wx, G4, 0.0f,
                 din, F);
}
