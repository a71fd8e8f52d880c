#!/usr/bin/env python3
"""Deng 2021, App. E.4.2 (Fig. E.2): KL divergence to the 25-mode target
over iterations for ICSGLD x P5, reSGLD x P5, cycSGLD x T5 and SGLD x P5.

usage: /usr/bin/python3 scripts/m25_kl.py [--replex build/replex]
           [--seeds 5] [--out runs/m25_kl] [--svg docs/m25_kl.svg]

Runs yaml/icsgld_m25_p5.yaml, yaml/resgld_m25_p5.yaml,
yaml/cycsgld_m25_t5.yaml and yaml/sgld_m25_p5.yaml once per seed
(`replex run ... --set seed=S`), reads each run's samples.npy (and the
ICSGLD run's weights.npy) with python/replex_reader.py and computes, at
every 2,000 steps s, KL(p || q_s) on a 40 x 40 grid over [-5, 5]^2: p the
target's mass per cell (exp(-U) with the confining term, integrated on
10 x 10 points per cell), q_s the samples kept up to step s binned on the
grid (ICSGLD: weighted by exp(log-weight)), with half a sample's weight
added to every cell (the Krichevsky-Trofimov estimate, so q > 0). A step
is one iteration of each of the five chains; the single cycSGLD chain's
step s is its iteration 5 s. The floor line is the same estimate from
exact independent draws, as many as ICSGLD x P5 holds at s (20 sets).
Prints a Markdown table (mean +- standard error over seeds) and writes
the SVG plot. Needs numpy.
"""
import argparse
import math
import os
import subprocess
import sys
import time

import numpy as np

HERE = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(HERE, "python"))
sys.path.insert(0, os.path.join(HERE, "scripts"))
import replex_reader  # noqa: E402
import svgplot  # noqa: E402

# label, yaml, chains per step (rows per kept iteration), iterations/step
METHODS = (
    ("ICSGLD x P5", "icsgld_m25_p5", 5, 1),
    ("reSGLD x P5", "resgld_m25_p5", 1, 1),
    ("cycSGLD x T5", "cycsgld_m25_t5", 1, 5),
    ("SGLD x P5", "sgld_m25_p5", 5, 1),
)
# name: (low, high, cells per axis); "grid": cells of 0.25; "modes":
# unit cells centred on the integer points, one mode each
GRIDS = {"grid": (-5.0, 5.0, 40), "modes": (-5.5, 5.5, 11)}
WHAT = {"grid": "cells of 0.25", "modes": "unit cells around the modes"}
FINE = 20
STEPS = np.arange(2000, 80001, 2000)
TABLE_STEPS = (4000, 10000, 20000, 40000, 80000)


def energy(x, y):
    r2 = x * x + y * y
    return (0.2 * r2 - 2 * (np.cos(2 * np.pi * x) + np.cos(2 * np.pi * y))
            + np.where(r2 > 20, r2 - 20, 0.0))


def grid_density(g):
    lo, hi, bins = GRIDS[g]
    h = (hi - lo) / (bins * FINE)
    c = lo + (np.arange(bins * FINE) + 0.5) * h
    X, Y = np.meshgrid(c, c, indexing="ij")
    w = np.exp(-energy(X, Y) - 4.0)
    p = w.reshape(bins, FINE, bins, FINE).sum(axis=(1, 3))
    return p.ravel() / p.sum()


def cells(g, s):
    lo, hi, bins = GRIDS[g]
    i = np.floor((s[:, 0] - lo) / (hi - lo) * bins).astype(int)
    j = np.floor((s[:, 1] - lo) / (hi - lo) * bins).astype(int)
    ok = (i >= 0) & (i < bins) & (j >= 0) & (j < bins)
    return np.where(ok, i * bins + j, -1)


def kl(p, cell, w):
    """KL(p || q), q the weighted histogram plus half a mean weight per
    cell; samples outside the grid count in the normalisation."""
    K = len(p)
    inside = cell >= 0
    h = np.bincount(cell[inside], weights=w[inside], minlength=K)
    a = 0.5 * w.mean()
    q = (h + a) / (w.sum() + a * K)
    return float(np.sum(p * np.log(p / q)))


def run(args, name, seed):
    out = os.path.join(args.out, name, "seed-%d" % seed)
    cmd = [args.replex, "run", os.path.join(HERE, "yaml", name + ".yaml"),
           "-o", out, "--force", "--no-plots", "-q", "--threads", "1",
           "--set", "seed=%d" % seed]
    r = subprocess.run(cmd, capture_output=True, text=True)
    if r.returncode != 0:
        sys.exit("replex failed: %s\n%s" % (" ".join(cmd), r.stderr))
    return replex_reader.read(out)


def counts(rd, chains, per_step):
    """Per kept row: its step; and the samples and weights."""
    s = rd.samples.to_numpy().astype(float)
    lw = rd.weights
    w = (np.exp(lw.to_numpy() - np.max(lw.to_numpy()))
         if lw is not None else np.ones(len(s)))
    rec = rd.config["record"]
    it = rec["burn_in"] + rec["thin"] * (np.arange(len(s)) // chains)
    return s, w, it / per_step


def curve(p, g, s, w, step):
    cell = cells(g, s)
    return np.array([kl(p, cell[step <= st], w[step <= st])
                     for st in STEPS])


def floor_curve(p, step, sets=20):
    """The same estimate from exact draws, as many as step <= s holds."""
    rng = np.random.default_rng(2021)
    vals = np.zeros((sets, len(STEPS)))
    for k in range(sets):
        for i, st in enumerate(STEPS):
            m = int(np.sum(step <= st))
            vals[k, i] = kl(p, rng.choice(len(p), size=m, p=p), np.ones(m))
    return vals.mean(0)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--replex", default=os.path.join(HERE, "build",
                                                     "replex"))
    ap.add_argument("--seeds", type=int, default=5)
    ap.add_argument("--out", default="runs/m25_kl")
    ap.add_argument("--svg", default=os.path.join(HERE, "docs",
                                                  "m25_kl.svg"))
    args = ap.parse_args()
    t0 = time.time()
    ps = {g: grid_density(g) for g in GRIDS}
    res = {g: {} for g in GRIDS}
    floors = {g: {} for g in GRIDS}
    for label, name, chains, per_step in METHODS:
        for seed in range(1, args.seeds + 1):
            rd = run(args, name, seed)
            s, w, step = counts(rd, chains, per_step)
            for g in GRIDS:
                res[g].setdefault(label, []).append(
                    curve(ps[g], g, s, w, step))
                key = "exact draws, %s samples" % (
                    "5-chain" if chains == 5 else "1-chain")
                if key not in floors[g] and per_step == 1:
                    floors[g][key] = floor_curve(ps[g], step)
    n = args.seeds
    idx = [int(np.where(STEPS == t)[0][0]) for t in TABLE_STEPS]
    for g, (lo, hi, bins) in GRIDS.items():
        print("KL(p || q), %s: %d x %d cells over [%g, %g]^2, mean +- se "
              "over %d seeds (steps: iterations per chain; x T5: "
              "iterations / 5)" % (g, bins, bins, lo, hi, n))
        print()
        print("| method | " + " | ".join("%dk steps" % (t // 1000)
                                        for t in TABLE_STEPS) + " |")
        print("|---|" + "---|" * len(TABLE_STEPS))
        series = []
        for label, cs in res[g].items():
            c = np.array(cs)
            print("| %s | %s |" % (label, " | ".join(
                "%.3f +- %.3f" % (c[:, i].mean(), c[:, i].std(ddof=1) /
                                  math.sqrt(n)) for i in idx)))
            m, se = c.mean(0), c.std(0, ddof=1) / math.sqrt(n)
            series.append((label, STEPS, m, m - se, m + se))
        for key, fl in floors[g].items():
            print("| (%s) | %s |" % (key, " | ".join("%.3f" % fl[i]
                                                   for i in idx)))
            series.append(("(%s)" % key.replace(" samples", ""), STEPS, fl,
                           None, None))
        print()
        path = args.svg.replace(".svg", "_%s.svg" % g)
        svgplot.lines(path, series,
                      title="25-mode target: KL(p || q) on %s, mean +- se, "
                            "%d seeds" % (WHAT[g], n),
                      xlabel="steps (iterations per chain; x T5: "
                             "iterations / 5)",
                      ylabel="KL(p || q)", logy=True)
        print("wrote %s" % path)
        print()
    print("wall time %.0f s" % (time.time() - t0))


if __name__ == "__main__":
    main()
