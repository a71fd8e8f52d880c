#!/usr/bin/env python3
"""replex's LSTM against torch.nn.LSTM with the same weights.

The Fashion-MNIST RNN of yaml/fashion_rnn_renhd.yaml (28 rows of 28
pixels into an LSTM of 128, ReLU, dense 64, ReLU, dense 10, summed
softmax cross-entropy) built in PyTorch, its weights written into
replex's flat parameter vector (src/model/model.h: Wx = weight_ih_l0^T,
Wh = weight_hh_l0^T, one bias b = bias_ih_l0 with bias_hh_l0 = 0, gate
blocks i, f, g, o in both; a dense layer's W = weight^T, then its bias),
and a batch of 128 run through tests/rnn_io.c (BLAS and reference
paths). Its loss, logits and gradient are compared with PyTorch's, and
both with PyTorch in float64 on the same weights.

Tolerance. Both sides compute in float32 (unit roundoff u = 2^-24 =
6.0e-8) and differ in summation order and in their exp/tanh (replex: a
polynomial, relative error ~1e-7). A gate is a dot product of 156 terms
(28 inputs, 128 hidden units), carried through 28 steps; a weight
gradient entry sums 3,584 (example, step) products; the loss sums 128
terms. A float32 sum of K terms with random rounding errors is about
sqrt(K) u off: 7.5e-7 for a gate, 3.6e-6 for a gradient entry. Limits,
against PyTorch in float64: logits and loss 2e-6 relative (to the
largest logit, to the loss), each gradient tensor 1e-5 relative in
2-norm, about ten times what either side's float32 result gave here
(replex's and PyTorch's own errors are printed side by side). Two weight
sets: PyTorch's default initialisation, and the same with every LSTM
weight tripled (saturated gates).

Negative control: the same run with the gate blocks f and g swapped in
the mapping must miss the limits by far (the check can fail).

Needs PyTorch (Debian's python3-torch); exits 77 (skipped) without it.
Usage: test_lstm_torch.py RNN_IO
"""
import os
import struct
import subprocess
import sys
import tempfile

os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")  # before torch loads
try:
    import torch
    import torch.nn as nn
    import torch.nn.functional as F
except ImportError:
    print("skipped: no torch (apt-get install python3-torch)")
    sys.exit(77)

T, FEAT, H, N = 28, 28, 128, 128
D = 4 * H * (FEAT + H) + 4 * H + (H * 64 + 64) + (64 * 10 + 10)  # 89,290
LIM_OUT, LIM_GRAD = 2e-6, 1e-5


class RNN(nn.Module):
    def __init__(self):
        super().__init__()
        self.lstm = nn.LSTM(FEAT, H, batch_first=True)
        self.f1 = nn.Linear(H, 64)
        self.f2 = nn.Linear(64, 10)

    def forward(self, x):
        out, _ = self.lstm(x.view(-1, T, FEAT))
        return self.f2(F.relu(self.f1(F.relu(out[:, -1]))))


def gate_perm(swap):
    """Row order of the 4H gate rows: identity, or f and g swapped."""
    idx = torch.arange(4 * H)
    if swap:
        idx = torch.cat([idx[:H], idx[2 * H:3 * H], idx[H:2 * H],
                         idx[3 * H:]])
    return idx


def flat(m, grads=False, swap=False, dtype=torch.float32):
    """replex's flat vector of m's weights (or of their gradients) in
    dtype; swap = the broken mapping (negative control)."""
    p = gate_perm(swap)
    L = m.lstm

    def get(t):
        return t.grad if grads else t.data

    parts = [get(L.weight_ih_l0)[p].t(), get(L.weight_hh_l0)[p].t(),
             get(L.bias_ih_l0)[p],
             get(m.f1.weight).t(), get(m.f1.bias),
             get(m.f2.weight).t(), get(m.f2.bias)]
    v = torch.cat([q.contiguous().reshape(-1) for q in parts])
    assert v.numel() == D
    return v.to(dtype)


TENSORS = [("weight_ih", 4 * H * FEAT), ("weight_hh", 4 * H * H),
           ("bias", 4 * H), ("dense1.W", 64 * H), ("dense1.b", 64),
           ("dense2.W", 640), ("dense2.b", 10)]


def torch_run(m, x, y, dtype):
    """loss, logits and flat gradient (float64) of m in dtype on x, y."""
    mm = RNN()
    mm.load_state_dict(m.state_dict())
    mm.to(dtype)
    z = mm(x.to(dtype))
    loss = F.cross_entropy(z, y, reduction="sum")
    loss.backward()
    return float(loss), z.detach().double(), flat(mm, True,
                                                  dtype=torch.float64)


def replex_run(exe, wflat, x, y, ref, tmp):
    inp, out = os.path.join(tmp, "in.bin"), os.path.join(tmp, "out.bin")
    with open(inp, "wb") as f:
        f.write(struct.pack("=ii", N, D))
        f.write(wflat.numpy().tobytes())
        f.write(x.to(torch.float32).numpy().tobytes())
        f.write(y.to(torch.float32).numpy().tobytes())
    cmd = [exe, inp, out] + (["--ref"] if ref else [])
    r = subprocess.run(cmd, capture_output=True, text=True)
    if r.returncode != 0:
        print(r.stdout + r.stderr)
        raise SystemExit("FAIL: %s exited %d" % (" ".join(cmd), r.returncode))
    print("  " + r.stdout.strip())
    with open(out, "rb") as f:
        raw = f.read()
    loss = struct.unpack("=d", raw[:8])[0]
    z = torch.frombuffer(bytearray(raw[8:8 + 4 * N * 10]),
                         dtype=torch.float32).view(N, 10).double()
    g = torch.frombuffer(bytearray(raw[8 + 4 * N * 10:]),
                         dtype=torch.float32).double()
    assert g.numel() == D
    return loss, z, g


def errors(res, ref):
    """relative errors of (loss, logits, per-tensor gradients) of res
    against ref."""
    loss, z, g = res
    rloss, rz, rg = ref
    e = {"loss": abs(loss - rloss) / abs(rloss),
         "logits": float((z - rz).abs().max() / rz.abs().max())}
    off = 0
    for name, k in TENSORS:
        a, b = g[off:off + k], rg[off:off + k]
        e[name] = float((a - b).norm() / b.norm())
        off += k
    return e


def limit(key):
    return LIM_OUT if key in ("loss", "logits") else LIM_GRAD


def main():
    if len(sys.argv) != 2:
        raise SystemExit("usage: test_lstm_torch.py RNN_IO")
    exe = sys.argv[1]
    torch.set_num_threads(1)
    torch.manual_seed(20190601)
    bad = 0
    with tempfile.TemporaryDirectory() as tmp:
        for scale in (1.0, 3.0):
            m = RNN()
            with torch.no_grad():
                L = m.lstm
                L.bias_ih_l0 += L.bias_hh_l0  # replex has one bias vector
                L.bias_hh_l0.zero_()
                L.weight_ih_l0 *= scale
                L.weight_hh_l0 *= scale
            # standardised uniform pixels (the file's pixel_mean, _sd)
            x = (torch.rand(N, T * FEAT) - 0.2860) / 0.3530
            y = torch.randint(0, 10, (N,))
            ref = torch_run(m, x, y, torch.float64)
            t32 = torch_run(m, x, y, torch.float32)
            print("weights: PyTorch's initialisation, LSTM weights x %g; "
                  "loss (float64) %.9g" % (scale, ref[0]))
            et = errors(t32, ref)
            runs = [("blas", False, False), ("reference", True, False),
                    ("gates f, g swapped (must fail)", False, True)]
            for name, use_ref, swap in runs:
                res = replex_run(exe, flat(m, swap=swap), x, y, use_ref,
                                 tmp)
                er = errors(res, ref)
                if swap:
                    worst = max(er[k] / limit(k) for k in er)
                    ok = worst > 100.0
                    print("  %s replex, %s: worst error %.3g x its limit "
                          "(must exceed 100)" % ("ok  " if ok else "FAIL",
                                                 name, worst))
                    bad += not ok
                    continue
                # replex against PyTorch float32 as well, for the record
                e32 = errors(res, t32)
                for k in er:
                    ok = er[k] <= limit(k)
                    bad += not ok
                    print("  %s replex %-9s %-9s vs float64 %.2e (limit "
                          "%.0e); PyTorch float32 %.2e; replex vs PyTorch "
                          "float32 %.2e" % ("ok  " if ok else "FAIL", name,
                                            k, er[k], limit(k), et[k],
                                            e32[k]))
    print("%d failure(s)" % bad)
    sys.exit(1 if bad else 0)


if __name__ == "__main__":
    main()
