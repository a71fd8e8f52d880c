#!/usr/bin/env python3
"""Deng 2021, Sec. 6.3.3 (Cor. 1): ICSGLD with P interacting chains
against one chain with the same scalable field run P times as long.

usage: /usr/bin/python3 scripts/icsgld_efficiency.py [--replex build/replex]
           [--seeds 30] [--k 250000] [--P 4] [--out runs/icsgld_eff]

For each seed S in 1..seeds it runs yaml/icsgld_efficiency.yaml twice
(`replex run ... --set seed=S`): P chains for k iterations, and one chain
(`tempering.n_chains=1`) for P k iterations, and reads theta from
summary.json (bias.states[0].log_theta_visited over visited_range). Over
the bins every run visited it forms the across-seed covariance matrix of
theta in each arm and prints the ratio of Frobenius norms
||Var(theta_{Pk})||_F / ||Var(theta_k^P)||_F, which the corollary puts at
P^(1 - alpha) (1.74 for P = 4, alpha = 0.6), with a bootstrap interval
over seeds, and the per-bin variance ratios of the lowest bins. Needs
numpy.
"""
import argparse
import json
import os
import subprocess
import sys
import time

import numpy as np


def run(args, seed, chains, iters):
    out = os.path.join(args.out, "P%d" % chains, "seed-%d" % seed)
    cmd = [args.replex, "run", os.path.join(args.src, "yaml",
                                            "icsgld_efficiency.yaml"),
           "-o", out, "--force", "--no-plots", "-q", "--threads", "1",
           "--set", "seed=%d" % seed,
           "--set", "tempering.n_chains=%d" % chains,
           "--set", "iterations=%d" % iters]
    for s in args.set:
        cmd += ["--set", s]
    r = subprocess.run(cmd, capture_output=True, text=True)
    if r.returncode != 0:
        sys.exit("replex failed: %s\n%s" % (" ".join(cmd), r.stderr))
    with open(os.path.join(out, "summary.json")) as f:
        st = json.load(f)["bias"]["states"][0]
    lo, hi = st["visited_range"]
    return lo, np.exp(np.array(st["log_theta_visited"]))


def frob_cov(th):
    return np.linalg.norm(np.cov(th, rowvar=False), "fro")


def main():
    ap = argparse.ArgumentParser()
    here = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    ap.add_argument("--replex", default=os.path.join(here, "build",
                                                     "replex"))
    ap.add_argument("--src", default=here)
    ap.add_argument("--seeds", type=int, default=30)
    ap.add_argument("--k", type=int, default=250000)
    ap.add_argument("--P", type=int, default=4)
    ap.add_argument("--alpha", type=float, default=0.6)
    ap.add_argument("--out", default="runs/icsgld_eff")
    ap.add_argument("--set", action="append", default=[],
                    help="extra KEY=VALUE for both arms")
    args = ap.parse_args()
    t0 = time.time()
    arms = {}
    for name, chains, iters in (("ICSGLD P=%d, k" % args.P, args.P, args.k),
                                ("one chain, %d k" % args.P, 1,
                                 args.P * args.k)):
        arms[name] = [run(args, s, chains, iters)
                      for s in range(1, args.seeds + 1)]
    # bins every run visited
    lo = max(l for a in arms.values() for l, _ in a)
    hi = min(l + len(t) - 1 for a in arms.values() for l, t in a)
    mats = {n: np.array([t[lo - l:hi - l + 1] for l, t in a])
            for n, a in arms.items()}
    (n_p, th_p), (n_1, th_1) = mats.items()
    ratio = frob_cov(th_1) / frob_cov(th_p)
    rng = np.random.default_rng(1)
    boot = []
    for _ in range(2000):
        i = rng.integers(0, args.seeds, args.seeds)
        j = rng.integers(0, args.seeds, args.seeds)
        boot.append(frob_cov(th_1[i]) / frob_cov(th_p[j]))
    q = np.quantile(boot, [0.05, 0.95])
    print("seeds %d, k = %d, P = %d, bins %d-%d (visited by every run)"
          % (args.seeds, args.k, args.P, lo, hi))
    for n, th in mats.items():
        print("  %-18s mean theta[0..3] %s  ||Var||_F %.3e"
              % (n, np.array2string(th.mean(0)[:4], precision=4),
                 frob_cov(th)))
    print("ratio ||Var(theta_Pk)||_F / ||Var(theta_k^P)||_F = %.3f "
          "(90%% bootstrap %.2f-%.2f); P^(1-alpha) = %.3f"
          % (ratio, q[0], q[1], args.P ** (1 - args.alpha)))
    vr = th_1.var(0, ddof=1) / th_p.var(0, ddof=1)
    print("per-bin variance ratio, bins %d-%d: %s"
          % (lo, lo + 7, np.array2string(vr[:8], precision=2)))
    print("wall time %.0f s" % (time.time() - t0))


if __name__ == "__main__":
    main()
