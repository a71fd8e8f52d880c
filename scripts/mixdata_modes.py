#!/usr/bin/env python3
"""Weighted mode masses on the large-N bimodal posterior (Deng 2021,
ch. 3 model, N = 10^5, minibatch energies): ICSGLD x P4 and CSGLD x T4
against SGLD, all started at beta0 = 30.

usage: /usr/bin/python3 scripts/mixdata_modes.py [--replex build/replex]
           [--seeds 5] [--out runs/mixdata_modes]

Runs yaml/icsgld_mixture_data.yaml once per seed and method (`replex run
... --set seed=S` plus the method's overrides below), reads samples.npy
and weights.npy with python/replex_reader.py and prints, per method, the
weighted mass of beta > 10 (the exact one is 0.5: summary.json
modes.weight_high_true), the unweighted one, the number of crossings of
beta = 10 between kept samples (summed over chains), and the effective
sample size of the weights. Needs numpy.
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
import replex_reader  # noqa: E402

# label, overrides of yaml/icsgld_mixture_data.yaml; every method makes
# 4e6 gradient evaluations of a minibatch, except SGLD at tau = 10
METHODS = (
    ("ICSGLD x P4, tau 1e4", []),
    ("CSGLD x T4, tau 1e4", ["bias.kind=csgld", "tempering.n_chains=1",
                             "record.all_positions=false",
                             "iterations=4000000", "record.burn_in=1000000"]),
    ("SGLD x T4, tau 1e4", ["bias.kind=none", "tempering.n_chains=1",
                            "record.all_positions=false",
                            "iterations=4000000", "record.burn_in=1000000"]),
    ("SGLD, tau 10, 1e6 its", ["bias.kind=none", "tempering.n_chains=1",
                               "record.all_positions=false",
                               "ladder.tau=10"]),
)


def run(args, i, label, sets, seed):
    out = os.path.join(args.out, "m%d" % i, "seed-%d" % seed)
    cmd = [args.replex, "run",
           os.path.join(HERE, "yaml", "icsgld_mixture_data.yaml"),
           "-o", out, "--force", "--no-plots", "-q", "--threads", "1",
           "--set", "seed=%d" % seed]
    for s in sets:
        cmd += ["--set", s]
    t0 = time.time()
    if not (args.reuse and os.path.exists(os.path.join(out,
                                                       "summary.json"))):
        r = subprocess.run(cmd, capture_output=True, text=True)
        if r.returncode != 0:
            sys.exit("replex failed: %s\n%s" % (" ".join(cmd), r.stderr))
    rd = replex_reader.read(out)
    s = rd.samples.to_numpy()[:, 0].astype(float)
    lw = rd.weights
    w = (np.exp(lw.to_numpy() - lw.to_numpy().max()) if lw is not None
         else np.ones(len(s)))
    P = (rd.config["tempering"]["n_chains"]
         if rd.config["record"]["all_positions"] else 1)
    cross = sum(int(np.sum(np.diff((s[p::P] > 10).astype(int)) != 0))
                for p in range(P))
    hi = s > 10
    h = len(s) // 2
    return dict(weighted=float(w[hi].sum() / w.sum()),
                late=float(w[h:][hi[h:]].sum() / w[h:].sum()),
                unweighted=float(hi.mean()), crossings=cross,
                ess=float(w.sum() ** 2 / (w * w).sum()), rows=len(s),
                truth=rd.summary["modes"]["weight_high_true"],
                wall=time.time() - t0)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--replex", default=os.path.join(HERE, "build",
                                                     "replex"))
    ap.add_argument("--seeds", type=int, default=5)
    ap.add_argument("--out", default="runs/mixdata_modes")
    ap.add_argument("--reuse", action="store_true",
                    help="read the runs already in --out")
    args = ap.parse_args()
    t0 = time.time()
    print("| method | seed | weighted mass beta > 10 | the same, second "
          "half of the samples | unweighted | crossings | ESS / rows |")
    print("|---|---|---|---|---|---|---|")
    rows = []
    for i, (label, sets) in enumerate(METHODS):
        res = [run(args, i, label, sets, s)
               for s in range(1, args.seeds + 1)]
        for s, r in enumerate(res, 1):
            print("| %s | %d | %.3f | %.3f | %.3f | %d | %.0f / %d |"
                  % (label, s, r["weighted"], r["late"], r["unweighted"],
                     r["crossings"], r["ess"], r["rows"]), flush=True)
        rows.append((label, res))
    print()
    print("| method | weighted mass beta > 10, mean +- se (range) | "
          "second half | crossings, mean | seeds within 0.1 of 0.5 |")
    print("|---|---|---|---|---|")
    n = args.seeds
    for label, res in rows:
        v = np.array([r["weighted"] for r in res])
        u = np.array([r["late"] for r in res])
        print("| %s | %.3f +- %.3f (%.3f-%.3f) | %.3f +- %.3f | %.0f | "
              "%d of %d |"
              % (label, v.mean(), v.std(ddof=1) / math.sqrt(n), v.min(),
                 v.max(), u.mean(), u.std(ddof=1) / math.sqrt(n),
                 np.mean([r["crossings"] for r in res]),
                 int(np.sum(np.abs(v - 0.5) <= 0.1)), n))
    print()
    print("exact mass of beta > 10: %.4f; wall time %.0f s"
          % (rows[0][1][0]["truth"], time.time() - t0))


if __name__ == "__main__":
    main()
