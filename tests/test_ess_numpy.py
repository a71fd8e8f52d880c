#!/usr/bin/env python3
"""rx_ess and rx_rhat (libreplex.so, through ctypes) against a numpy
implementation of Vehtari, Gelman, Simpson, Carpenter and Buerkner (2021),
written here from the paper's description (split chains, rank
normalisation with offset 3/8, autocovariances by numpy's FFT, Geyer's
initial monotone sequence, the folded R-hat): the same figures to 1e-6
relative on AR(1) chains, heavy tails, ties, odd lengths and one chain.

Needs numpy (Debian's python3-numpy); exits 77 (skipped) without it.
Usage: test_ess_numpy.py [BUILD_DIR]  (default: $RX_BUILDDIR)
"""
import ctypes
import os
import statistics
import sys

try:
    import numpy as np
except ImportError:
    print("numpy not installed: skipped")
    sys.exit(77)

# ---------------------------------------------------------------- reference


def split_chains(x):
    """m x n -> 2m x floor(n/2): first and last halves."""
    h = x.shape[1] // 2
    return np.concatenate([x[:, :h], x[:, x.shape[1] - h:]], axis=0)


def average_ranks(v):
    """1-based ranks of a flat array, ties sharing their mean rank."""
    order = np.argsort(v, kind="mergesort")
    s = v[order]
    ranks = np.empty(len(v))
    i = 0
    while i < len(s):
        j = i
        while j + 1 < len(s) and s[j + 1] == s[i]:
            j += 1
        ranks[order[i:j + 1]] = 0.5 * ((i + 1) + (j + 1))
        i = j + 1
    return ranks


INV = statistics.NormalDist().inv_cdf


def z_scale(x):
    r = average_ranks(x.ravel())
    p = (r - 0.375) / (r.size + 0.25)
    return np.array([INV(q) for q in p]).reshape(x.shape)


def autocov(y):
    """Biased autocovariance of each row, by FFT (zero padded)."""
    n = y.shape[1]
    f = np.fft.rfft(y - y.mean(axis=1, keepdims=True), n=2 * n, axis=1)
    return np.fft.irfft(f * np.conj(f), n=2 * n, axis=1)[:, :n] / n


def ess(y):
    """ESS of chains y (rows) with Geyer's initial monotone sequence."""
    m, n = y.shape
    acov = autocov(y)
    mean_var = acov[:, 0].mean() * n / (n - 1)
    var_plus = mean_var * (n - 1) / n
    if m > 1:
        var_plus += y.mean(axis=1).var(ddof=1)
    rho = np.zeros(n)
    rho[0] = 1.0
    even, odd = 1.0, 1.0 - (mean_var - acov[:, 1].mean()) / var_plus
    rho[1] = odd
    t = 1
    while t < n - 3 and even + odd > 0:
        even = 1.0 - (mean_var - acov[:, t + 1].mean()) / var_plus
        odd = 1.0 - (mean_var - acov[:, t + 2].mean()) / var_plus
        if even + odd >= 0:
            rho[t + 1], rho[t + 2] = even, odd
        t += 2
    last = t - 2
    if even > 0:
        rho[last + 1] = even
    t = 1
    while t <= last - 2:
        if rho[t + 1] + rho[t + 2] > rho[t - 1] + rho[t]:
            rho[t + 1] = rho[t + 2] = (rho[t - 1] + rho[t]) / 2
        t += 2
    total = m * n
    tau = -1 + 2 * rho[:last + 1].sum() + rho[last + 1]
    tau = max(tau, 1 / np.log10(total))
    return total / tau


def ref_ess(x):
    y = split_chains(x)
    bulk = ess(z_scale(y))
    q05, q95 = np.quantile(x, [0.05, 0.95])
    tail = min(ess(split_chains((x <= q05).astype(float))),
               ess(split_chains((x <= q95).astype(float))))
    mean = ess(y)
    return bulk, tail, mean, y.size / mean


def rhat_plain(y):
    n = y.shape[1]
    w = y.var(axis=1, ddof=1).mean()
    b = n * y.mean(axis=1).var(ddof=1)
    return np.sqrt((b / w + n - 1) / n)


def ref_rhat(x):
    bulk = rhat_plain(z_scale(split_chains(x)))
    folded = rhat_plain(z_scale(split_chains(np.abs(x - np.median(x)))))
    return max(bulk, folded)

# ---------------------------------------------------------------- replex


class EssInfo(ctypes.Structure):
    _fields_ = [("ess_bulk", ctypes.c_double), ("ess_tail", ctypes.c_double),
                ("ess_mean", ctypes.c_double), ("tau", ctypes.c_double)]


class Err(ctypes.Structure):
    _fields_ = [("msg", ctypes.c_char * 1024)]


def asan_build(path):
    """True when the library is built with AddressSanitizer: its runtime
    must then come first in the process, which a python host cannot do
    without LD_PRELOAD (the normal build runs this comparison)."""
    with open(path, "rb") as f:
        return b"__asan_init" in f.read()


def load(build):
    lib = ctypes.CDLL(os.path.join(build, "libreplex.so"))
    dp = ctypes.POINTER(ctypes.c_double)
    lib.rx_ess.argtypes = [dp, ctypes.c_int, ctypes.c_int64,
                           ctypes.POINTER(EssInfo), ctypes.POINTER(Err)]
    lib.rx_rhat.argtypes = [dp, ctypes.c_int, ctypes.c_int64, dp,
                            ctypes.POINTER(Err)]
    lib.rx_ess.restype = lib.rx_rhat.restype = ctypes.c_int
    return lib


def c_ess(lib, x):
    x = np.ascontiguousarray(x, dtype=np.float64)
    out, err = EssInfo(), Err()
    st = lib.rx_ess(x.ctypes.data_as(ctypes.POINTER(ctypes.c_double)),
                    x.shape[0], x.shape[1], ctypes.byref(out),
                    ctypes.byref(err))
    if st != 0:
        raise RuntimeError(err.msg.decode())
    return out.ess_bulk, out.ess_tail, out.ess_mean, out.tau


def c_rhat(lib, x):
    x = np.ascontiguousarray(x, dtype=np.float64)
    r, err = ctypes.c_double(), Err()
    st = lib.rx_rhat(x.ctypes.data_as(ctypes.POINTER(ctypes.c_double)),
                     x.shape[0], x.shape[1], ctypes.byref(r),
                     ctypes.byref(err))
    if st != 0:
        raise RuntimeError(err.msg.decode())
    return r.value


def ar1(rng, m, n, rho, shift=None):
    x = np.empty((m, n))
    e = rng.standard_normal((m, n)) * np.sqrt(1 - rho * rho)
    x[:, 0] = rng.standard_normal(m)
    for t in range(1, n):
        x[:, t] = rho * x[:, t - 1] + e[:, t]
    if shift is not None:
        x += np.asarray(shift)[:, None]
    return x


def main():
    build = sys.argv[1] if len(sys.argv) > 1 else os.environ["RX_BUILDDIR"]
    if asan_build(os.path.join(build, "libreplex.so")) and \
            "LD_PRELOAD" not in os.environ:
        print("libreplex.so is built with AddressSanitizer: skipped")
        return 77
    lib = load(build)
    rng = np.random.default_rng(20240611)
    cases = {
        "ar1 rho 0.9, 4 x 2000": ar1(rng, 4, 2000, 0.9),
        "ar1 rho 0.5, 1 x 3001 (odd)": ar1(rng, 1, 3001, 0.5),
        "ar1 rho -0.6, 2 x 1000 (antithetic)": ar1(rng, 2, 1000, -0.6),
        "ar1 rho 0.99, 3 x 500": ar1(rng, 3, 500, 0.99),
        "iid t(2), 2 x 777": rng.standard_t(2, size=(2, 777)),
        "ties: rounded, 3 x 400": np.round(ar1(rng, 3, 400, 0.7)),
        "shifted chains, 4 x 800": ar1(rng, 4, 800, 0.8,
                                       shift=[0, 0, 1.5, -1]),
        "short, 2 x 9": rng.standard_normal((2, 9)),
    }
    fail = 0
    names = ("ess_bulk", "ess_tail", "ess_mean", "tau", "rhat")
    for name, x in cases.items():
        ref = list(ref_ess(x))
        got = list(c_ess(lib, x))
        if x.shape[0] >= 2:
            ref.append(ref_rhat(x))
            got.append(c_rhat(lib, x))
        for k, (a, b) in enumerate(zip(got, ref)):
            ok = abs(a - b) <= 1e-6 * abs(b) or (np.isnan(a) and np.isnan(b))
            print(f"{'ok  ' if ok else 'FAIL'} {name}: {names[k]} "
                  f"replex {a:.10g} numpy {b:.10g}")
            fail += not ok
    print(f"{fail} failed")
    return 1 if fail else 0


if __name__ == "__main__":
    sys.exit(main())
