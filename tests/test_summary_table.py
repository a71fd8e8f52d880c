#!/usr/bin/env python3
"""The per-parameter table (summary.csv, summary.json "parameters")
against an independent computation in numpy:

 - one run of a 10-D four-mode mixture: mean, sd, 5/50/95 % quantiles
   against numpy; bulk, tail and mean ESS and split R-hat against the
   numpy implementation of Vehtari et al. (2021) in test_ess_numpy.py;
   the batch-means ESS against its formula; mcse = sd / sqrt(the smaller);
 - 4 replicates of it: R-hat over the copies against the formula;
 - a CSGLD run: the weighted mean and sd against numpy with weights.npy;
 - a network with a learnt noise precision on targets in large units:
   its noise_sd row against s_y / sqrt(e^rho) computed from samples.npy
   and the training rows' targets (train_rows.npy into the CSV);
 - the same table printed after the run, with the ESS warning when the
   draws are few.

Needs numpy (Debian's python3-numpy); exits 77 (skipped) without it.
Environment: RX_REPLEX (the binary), RX_SRCDIR.
"""
import csv
import json
import os
import subprocess
import sys
import tempfile

try:
    import numpy as np
except ImportError:
    print("numpy not installed: skipped")
    sys.exit(77)

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
from test_ess_numpy import ref_ess, ref_rhat  # noqa: E402

REPLEX = os.environ["RX_REPLEX"]
SRC = os.environ.get("RX_SRCDIR", os.path.dirname(HERE))
CFG = os.path.join(SRC, "tests", "data", "gmm10_four_modes.yaml")
fails = []


def check(cond, what):
    print(("ok   " if cond else "FAIL ") + what)
    if not cond:
        fails.append(what)


def near(a, b, rel, what):
    ok = abs(a - b) <= rel * max(abs(a), abs(b), 1e-300)
    check(ok, "%s: %.10g vs %.10g (rel %.1e)" % (what, a, b, rel))


def run(out, *args):
    r = subprocess.run([REPLEX, "run", CFG, "-o", out, "--force",
                        "--no-plots", "--threads", "1", *args],
                       capture_output=True, text=True)
    if r.returncode != 0:
        print(r.stdout, r.stderr)
        sys.exit(1)
    return r.stdout


def table(path):
    with open(path) as f:
        return {row["name"]: {k: float(v) for k, v in row.items()
                              if k != "name"} for row in csv.DictReader(f)}


def batch_ess(x):
    """m x n draws: N var / (b var(batch means about the mean))."""
    m, n = x.shape
    b = int(np.floor(np.sqrt(n)))
    a = n // b
    z = x - x.mean()
    means = z[:, n - a * b:].reshape(m, a, b).mean(axis=2).ravel()
    return x.size * x.var() / (b * (means ** 2).sum() / (m * a - 1))


def row_checks(x, row, name, rel=1e-6):
    """x: m x n draws of one quantity; row: its table row."""
    flat = x.ravel()
    near(row["mean"], flat.mean(), 1e-9, name + " mean")
    near(row["sd"], flat.std(), 1e-9, name + " sd")
    for q, k in ((0.05, "q5"), (0.5, "q50"), (0.95, "q95")):
        near(row[k], np.quantile(flat, q), 1e-9, "%s %s" % (name, k))
    bulk, tail, ess_mean, _ = ref_ess(x)
    near(row["ess_bulk"], bulk, rel, name + " ess_bulk")
    near(row["ess_tail"], tail, rel, name + " ess_tail")
    near(row["ess_mean"], ess_mean, rel, name + " ess_mean")
    near(row["ess_batch_means"], batch_ess(x), 1e-6,
         name + " ess_batch_means")
    near(row["mcse_mean"],
         flat.std() / np.sqrt(min(ess_mean, batch_ess(x))), rel,
         name + " mcse_mean")
    near(row["rhat"], ref_rhat(x), rel, name + " rhat")


def network_noise_sd(tmp):
    """The noise sd in the units of y: the network sees standardised
    targets, so its precision e^rho is of y / s_y; the row is s_y e^(-rho/2)
    at each draw, s_y the training targets' sd (n in the denominator, as
    data.standardise_target divides by)."""
    rng = np.random.RandomState(7)
    n = 300
    x = rng.normal(size=(n, 2))
    y = 1000.0 + 40.0 * x[:, 0] - 25.0 * x[:, 1] + 15.0 * rng.normal(size=n)
    csvp = os.path.join(tmp, "big_units.csv")
    with open(csvp, "w") as f:
        f.write("x1,x2,y\n")
        for r in range(n):
            f.write("%.6f,%.6f,%.4f\n" % (x[r, 0], x[r, 1], y[r]))
    cfg = os.path.join(tmp, "net.yaml")
    with open(cfg, "w") as f:
        f.write("seed: 3\niterations: 3000\ntarget: {kind: network}\n"
                "data: {format: csv, path: %s, batch_size: 50}\n"
                "model: {layers: [{dense: 8}, relu, {dense: 1}], "
                "learn_precision: true}\n"
                "tempering: {n_chains: 1, scheme: none}\n"
                "ladder: {eta: 1.0e-4, tau: 1}\n"
                "record: {burn_in: 1000, thin: 10}\n" % csvp)
    d = os.path.join(tmp, "net")
    r = subprocess.run([REPLEX, "run", cfg, "-o", d, "--force", "--no-plots",
                        "--threads", "1"], capture_output=True, text=True)
    check(r.returncode == 0, "the network run (%s)" % r.stderr.strip())
    if r.returncode != 0:
        return
    rho = np.load(os.path.join(d, "samples.npy")).astype(float)[:, -1]
    rows = np.load(os.path.join(d, "train_rows.npy"))
    with open(csvp) as f:
        yf = np.array([float(line.split(",")[2])
                       for line in f.read().splitlines()[1:]])
    ytr = yf[rows].astype(np.float32).astype(float)  # read as float
    s_y = ytr.std()
    check(abs(s_y - 1.0) > 10.0, "the targets' sd is far from 1 (%.4g)"
          % s_y)
    t = table(os.path.join(d, "summary.csv"))
    check(list(t)[:3] == ["lp", "noise_precision", "noise_sd"],
          "rows: lp, noise_precision, noise_sd (%s)" % list(t)[:3])
    sd = s_y * np.exp(-0.5 * rho)
    row_checks(sd[None, :], t["noise_sd"], "noise_sd")
    row_checks(np.exp(rho)[None, :], t["noise_precision"],
               "noise_precision")
    # in the units of y: the noise put in was 15, and the test RMSE of the
    # model average is of the same size
    with open(os.path.join(d, "summary.json")) as f:
        rmse = json.load(f)["metrics"]["rmse"]
    m = t["noise_sd"]["mean"]
    check(5.0 < m < 45.0 and 0.5 < m / rmse < 2.0,
          "noise_sd %.4g near the noise put in (15) and the test RMSE %.4g"
          % (m, rmse))
    check("\n  noise_sd " in r.stdout, "the run prints the noise_sd row")


def main():
    tmp = tempfile.mkdtemp(prefix="rx_table_")
    # one run
    d = os.path.join(tmp, "one")
    out = run(d)
    x = np.load(os.path.join(d, "samples.npy")).astype(float)
    t = table(os.path.join(d, "summary.csv"))
    check(list(t)[:3] == ["lp", "theta[0]", "theta[1]"],
          "rows: lp first, then the coordinates (%s)" % list(t)[:3])
    check(len(t) == 11, "every coordinate has a row (%d)" % len(t))
    for j in (0, 1, 5):
        row_checks(x[None, :, j], t["theta[%d]" % j], "theta[%d]" % j)
    with open(os.path.join(d, "summary.json")) as f:
        s = json.load(f)
    p = s["parameters"]
    check(p["chains"] == 1 and p["draws"] == x.shape[0] and
          not p["weighted"], "summary.json parameters header")
    check([r["name"] for r in p["rows"]] == list(t),
          "summary.json has the rows of summary.csv")
    near(p["rows"][1]["ess_mean"], t["theta[0]"]["ess_mean"], 1e-9,
         "summary.json and summary.csv agree")
    check("parameters (%d draws; R-hat of the run's two halves):"
          % x.shape[0] in out, "the table is printed after the run")
    check("\n  theta[7] " in out and "\n  theta[8] " not in out and
          "2 more coordinates: every row is in summary.csv" in out,
          "the printed table stops after 8 coordinates and says so")
    check("warning:" not in out, "no warning on a well-mixed run")

    # four replicates: R-hat over the copies
    d = os.path.join(tmp, "rep")
    out = run(d, "--set", "replicates=4")
    xs = np.array([np.load(os.path.join(d, "rep-%02d" % i, "samples.npy"))
                   for i in range(4)]).astype(float)
    t = table(os.path.join(d, "summary.csv"))
    for j in (0, 1):
        row_checks(xs[:, :, j], t["theta[%d]" % j], "replicates theta[%d]"
                   % j)
    check("parameters (4 replicates x %d draws; R-hat over the "
          "replicates):" % xs.shape[1] in out,
          "the replicates' table is printed")

    # a short run: the warning
    d = os.path.join(tmp, "short")
    out = run(d, "--set", "iterations=2400")
    check("warning: the smallest ESS is" in out and "below 100" in out,
          "the ESS warning on 40 draws")
    with open(os.path.join(d, "summary.json")) as f:
        w = json.load(f)["parameters"]["warnings"]
    check(len(w) >= 1 and "below 100" in w[0], "the warning in summary.json")

    # CSGLD: the weights
    d = os.path.join(tmp, "csgld")
    r = subprocess.run([REPLEX, "run",
                        os.path.join(SRC, "yaml", "csgld_gmm_1d.yaml"),
                        "-o", d, "--force", "--no-plots", "--threads", "1"],
                       capture_output=True, text=True)
    check(r.returncode == 0, "the CSGLD run")
    x = np.load(os.path.join(d, "samples.npy")).astype(float)[:, 0]
    lw = np.load(os.path.join(d, "weights.npy"))
    w = np.exp(lw - lw.max())
    mu = (w * x).sum() / w.sum()
    t = table(os.path.join(d, "summary.csv"))
    near(t["theta[0]"]["mean"], mu, 1e-9, "CSGLD weighted mean")
    near(t["theta[0]"]["sd"], np.sqrt((w * (x - mu) ** 2).sum() / w.sum()),
         1e-9, "CSGLD weighted sd")
    check(abs(t["theta[0]"]["mean"] - x.mean()) > 1e-6,
          "the weighted mean is not the plain one")
    check("weighted by the bias's importance weights" in r.stdout,
          "the printed table says it is weighted")
    network_noise_sd(tmp)
    print("%d failure(s)" % len(fails))
    return 1 if fails else 0


if __name__ == "__main__":
    sys.exit(main())
