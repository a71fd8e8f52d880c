#!/usr/bin/env python3
"""inference.nc, the ArviZ InferenceData file of every run, read back.

Runs `replex run` (RX_REPLEX) on short versions of three example files and
opens each run's inference.nc with netCDF4 and with xarray
(xr.open_dataset(path, group=...), as arviz.from_netcdf does):

1. yaml/gmm_2d.yaml (12 chains, burn_in 100, thin 7): groups posterior and
   sample_stats only, netCDF-4 format, the group attributes; posterior theta
   (chain, draw, theta_dim_0) float32 equal to samples.npy bit for bit; the
   coordinates chain 0, draw 0..S-1, theta_dim_0 0..1 and iteration
   100 + 7 r along draw; sample_stats lp (chain, draw) = -U(theta) of the
   mixture computed here from the float32 draw (within float32 rounding of
   theta: 1e-4), swap_accept_prob and swap_rate (chain, pair) equal to
   summary.json's swaps.per_pair; the same file, byte for byte, on 1 and 2
   threads. The same run with record.all_positions: theta holds the target
   rows of samples.npy only (every 12th row).
2. yaml/csgld_gmm_1d.yaml (one chain, CSGLD weights): sample_stats
   log_weight equal to weights.npy bit for bit; no pair dimension.
3. yaml/mlp_synthetic.yaml (a network, 600 iterations): observed_data y
   (y_dim_0) and posterior_predictive y_mean (chain, y_dim_0), whose RMSE
   against y is summary.json's metrics.rmse (to 1e-12 relative); theta
   equal to samples.npy.

Every group also opens with engine="h5netcdf" (ArviZ's default reader)
to the same dataset. Needs numpy, netCDF4, xarray and h5netcdf (Debian:
python3-numpy, python3-netcdf4, python3-xarray, python3-h5netcdf;
scripts/test.sh installs them). Prints one line per
failed check; exits 1 if any failed.
"""
import json
import os
import subprocess
import sys
import tempfile

import netCDF4
import numpy as np
import xarray as xr

REPLEX = os.environ.get("RX_REPLEX", "build/replex")
SRC = os.environ.get("RX_SRCDIR", os.path.join(os.path.dirname(__file__), ".."))
failed = []
VERSION = None  # summary.json's replex_version


def check(cond, what):
    if not cond:
        failed.append(what)
        print("FAIL:", what)


def run(name, yaml, out, *sets, threads=1):
    cmd = [REPLEX, "run", os.path.join(SRC, "yaml", yaml), "-o", out, "-q",
           "--no-plots", "--threads", str(threads)]
    for s in sets:
        cmd += ["--set", s]
    r = subprocess.run(cmd, capture_output=True, text=True)
    if r.returncode != 0:
        print(r.stderr)
        raise SystemExit("FAIL: %s: replex run exited %d" % (name, r.returncode))
    return os.path.join(out, "inference.nc")


def groups(path):
    with netCDF4.Dataset(path) as nc:
        check(nc.data_model == "NETCDF4", "%s: format %s" % (path, nc.data_model))
        for g in nc.groups.values():
            check(g.getncattr("inference_library") == "replex",
                  "%s: %s inference_library" % (path, g.name))
            check(g.getncattr("inference_library_version") == VERSION,
                  "%s: %s inference_library_version" % (path, g.name))
        names = sorted(nc.groups)
    # ArviZ's default reader, h5netcdf (HDF5 through h5py), sees the same
    for g in names:
        a = xr.open_dataset(path, group=g, engine="netcdf4")
        b = xr.open_dataset(path, group=g, engine="h5netcdf")
        check(a.identical(b), "%s: group %s differs under h5netcdf" % (path, g))
        a.close()
        b.close()
    return names


def posterior(path, d, samples, S, burn_in, thin):
    post = xr.open_dataset(path, group="posterior")
    th = post["theta"]
    check(th.dims == ("chain", "draw", "theta_dim_0"), "theta dims %s" % (th.dims,))
    check(th.dtype == np.float32, "theta dtype %s" % th.dtype)
    check(th.shape == (1, S, d), "theta shape %s, want %s" % (th.shape, (1, S, d)))
    check(np.array_equal(th.values[0], samples), "theta differs from samples.npy")
    check(list(post["chain"].values) == [0], "chain coordinate")
    check(np.array_equal(post["draw"].values, np.arange(S)), "draw coordinate")
    check(np.array_equal(post["theta_dim_0"].values, np.arange(d)),
          "theta_dim_0 coordinate")
    check("iteration" in post.coords and post["iteration"].dims == ("draw",),
          "iteration is not a coordinate along draw")
    check(np.array_equal(post["iteration"].values, burn_in + thin * np.arange(S)),
          "iteration coordinate")
    post.close()


def gmm_logp(x):
    """log of 0.1..0.4 mixtures of yaml/gmm_2d.yaml at rows x (float64)."""
    w = np.array([0.1, 0.2, 0.3, 0.4])
    mu = np.array([[-4, -4], [-4, 4], [4, -4], [4, 4]], float)
    sd = np.array([[0.6, 0.9], [0.8, 0.6], [0.7, 0.7], [0.9, 0.5]])
    z = (x[:, None, :] - mu[None]) / sd[None]
    lk = (np.log(w)[None] - np.log(2 * np.pi) - np.log(sd).sum(1)[None]
          - 0.5 * (z * z).sum(2))
    m = lk.max(1)
    return m + np.log(np.exp(lk - m[:, None]).sum(1))


def case_gmm(tmp):
    sets = ("iterations=3000", "record.burn_in=100", "record.thin=7")
    p1 = run("gmm", "gmm_2d.yaml", os.path.join(tmp, "g1"), *sets)
    p2 = run("gmm", "gmm_2d.yaml", os.path.join(tmp, "g2"), *sets, threads=2)
    check(open(p1, "rb").read() == open(p2, "rb").read(),
          "gmm: inference.nc differs between 1 and 2 threads")
    global VERSION
    VERSION = json.load(open(os.path.join(tmp, "g1", "summary.json")))[
        "replex_version"]
    check(groups(p1) == ["posterior", "sample_stats"], "gmm: groups %s" % groups(p1))
    x = np.load(os.path.join(tmp, "g1", "samples.npy"))
    S = (3000 - 1 - 100) // 7 + 1
    posterior(p1, 2, x, S, 100, 7)
    st = xr.open_dataset(p1, group="sample_stats")
    lp = st["lp"]
    check(lp.dims == ("chain", "draw") and lp.dtype == np.float64,
          "gmm: lp %s %s" % (lp.dims, lp.dtype))
    err = np.abs(lp.values[0] - gmm_logp(x.astype(np.float64)))
    check(err.max() < 1e-4, "gmm: lp differs from log p(theta) by %g" % err.max())
    check("log_weight" not in st, "gmm: log_weight without a bias")
    summ = json.load(open(os.path.join(tmp, "g1", "summary.json")))
    pp = summ["swaps"]["per_pair"]
    check(st["swap_accept_prob"].dims == ("chain", "pair"), "gmm: swap dims")
    check(list(st["pair"].values) == [q["pair"] for q in pp], "gmm: pair coordinate")
    check(list(st["swap_accept_prob"].values[0]) ==
          [q["mean_accept_prob"] for q in pp], "gmm: swap_accept_prob")
    check(list(st["swap_rate"].values[0]) == [q["swap_rate"] for q in pp],
          "gmm: swap_rate")
    st.close()
    # every position recorded: theta keeps the target's rows
    p3 = run("gmm_all", "gmm_2d.yaml", os.path.join(tmp, "g3"), *sets,
             "record.all_positions=true")
    xa = np.load(os.path.join(tmp, "g3", "samples.npy"))
    check(xa.shape[0] == 12 * S, "gmm_all: samples.npy rows %d" % xa.shape[0])
    posterior(p3, 2, xa[::12], S, 100, 7)
    with netCDF4.Dataset(p3) as nc:
        lp3 = nc["sample_stats"]["lp"][:]
    check(np.array_equal(lp3, lp.values), "gmm_all: lp differs from the run "
          "that recorded the target only")


def case_csgld(tmp):
    p = run("csgld", "csgld_gmm_1d.yaml", os.path.join(tmp, "c"),
            "iterations=20000")
    d = os.path.join(tmp, "c")
    x = np.load(os.path.join(d, "samples.npy"))
    w = np.load(os.path.join(d, "weights.npy"))
    check(groups(p) == ["posterior", "sample_stats"], "csgld: groups")
    posterior(p, 1, x, 2000, 0, 10)
    st = xr.open_dataset(p, group="sample_stats")
    lw = st["log_weight"]
    check(lw.dims == ("chain", "draw") and lw.dtype == np.float64,
          "csgld: log_weight %s %s" % (lw.dims, lw.dtype))
    check(np.array_equal(lw.values[0], w), "csgld: log_weight differs from weights.npy")
    check("pair" not in st.dims, "csgld: a pair dimension with one chain")
    st.close()


def case_network(tmp):
    d = os.path.join(tmp, "n")
    p = run("network", "mlp_synthetic.yaml", d, "iterations=600",
            "record.burn_in=300")
    check(groups(p) == ["observed_data", "posterior", "posterior_predictive",
                        "sample_stats"], "network: groups %s" % groups(p))
    x = np.load(os.path.join(d, "samples.npy"))
    posterior(p, x.shape[1], x, 10, 300, 30)
    obs = xr.open_dataset(p, group="observed_data")
    pp = xr.open_dataset(p, group="posterior_predictive")
    y, ym = obs["y"], pp["y_mean"]
    check(y.dims == ("y_dim_0",) and y.shape == (100,), "network: y %s" % (y.dims,))
    check(ym.dims == ("chain", "y_dim_0") and ym.shape == (1, 100),
          "network: y_mean %s" % (ym.dims,))
    rmse = float(np.sqrt(np.mean((ym.values[0] - y.values) ** 2)))
    want = json.load(open(os.path.join(d, "summary.json")))["metrics"]["rmse"]
    check(abs(rmse - want) <= 1e-12 * want,
          "network: RMSE of y_mean %r, summary.json %r" % (rmse, want))
    obs.close()
    pp.close()


with tempfile.TemporaryDirectory() as tmp:
    case_gmm(tmp)
    case_csgld(tmp)
    case_network(tmp)
print("%s" % ("ok" if not failed else "%d failed" % len(failed)))
sys.exit(1 if failed else 0)
