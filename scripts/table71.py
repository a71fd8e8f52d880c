#!/usr/bin/env python3
"""Deng 2021, Table 7.1: mean hitting iterations of AWSGLD (AW-10,
AW-100) and SGLD (tau, tau/10) on the test functions, over seeds.

usage: python3 scripts/table71.py [--replex build/replex] [--seeds 10]
                                  [--out runs/table71] [--only NAME]

Each cell runs yaml/table71_NAME.yaml once per seed (one chain, `replex
run ... --set seed=S`), reads summary.json's hit block and prints a
Markdown table: mean +- standard error of the hitting iteration (x 10^3)
over the seeds that hit, and how many hit within the budget (100,000
iterations). A run does not stop at its hit: where a chain diverges (a
non-finite energy) after it, the run is repeated with `iterations` set to
the iteration that failed, the same trajectory up to there, so its hit is
read all the same; a run that diverges before any hit counts as
"diverged". Needs only the standard library.
"""
import argparse
import json
import math
import os
import re
import subprocess
import sys

# name: (tau, (bins, bin width, zeta) of AW-10 and AW-100), Table F.1
FUNS = {
    "griewank20": (10.0, (10, 50, 10), (100, 5, 10)),
    "rosenbrock20": (10.0, (10, 30, 100), (100, 3, 10)),
    "powell24": (1.0, (10, 20, 500), (100, 2, 200)),
    "ackley30": (0.05, (10, 0.4, 0.2), (100, 0.04, 0.2)),
}
# Table 7.1 (x 10^3): SGLD low tau, SGLD high tau, AW-10, AW-100
PAPER = {
    "griewank20": ("32.6", "inf", "1.8", "1.7"),
    "rosenbrock20": ("29.2", "93.2", "0.15", "0.7"),
    "powell24": ("10.0", "inf", "0.3", "0.2"),
    "ackley30": ("66.2", "inf", "2.7", "4.3"),
}
COLS = ("SGLD tau/10", "SGLD tau", "AW-10", "AW-100")


def overrides(name, col):
    tau, aw10, aw100 = FUNS[name]
    if col == 0:
        return ["bias.kind=none", "ladder.tau=%g" % (tau / 10)]
    if col == 1:
        return ["bias.kind=none"]
    m, du, zeta = aw10 if col == 2 else aw100
    return ["bias.bins=%d" % m, "bias.bin_width=%g" % du,
            "bias.energy_min=%g" % -du, "bias.zeta=%g" % zeta]


def one(args, name, col, seed):
    """The hitting iteration of one run, None (no hit) or 'diverged'."""
    out = os.path.join(args.out, name, "col%d" % col, "seed-%d" % seed)
    cmd = [args.replex, "run", os.path.join(args.src, "yaml",
                                            "table71_%s.yaml" % name),
           "-o", out, "--force", "--no-plots", "-q", "--threads", "1"]
    for s in overrides(name, col) + ["seed=%d" % seed]:
        cmd += ["--set", s]
    r = subprocess.run(cmd, capture_output=True, text=True)
    if r.returncode != 0:
        m = re.search(r"iteration (\d+): non-finite", r.stderr)
        if not m:
            sys.exit("replex failed: %s\n%s" % (" ".join(cmd), r.stderr))
        if int(m.group(1)) == 0:
            return "diverged"
        r = subprocess.run(cmd + ["--set", "iterations=%s" % m.group(1)],
                           capture_output=True, text=True)
        if r.returncode != 0:
            sys.exit("replex failed: %s\n%s" % (" ".join(cmd), r.stderr))
        with open(os.path.join(out, "summary.json")) as f:
            h = json.load(f)["hit"]["iterations"][0]
        return h if h is not None else "diverged"
    with open(os.path.join(out, "summary.json")) as f:
        return json.load(f)["hit"]["iterations"][0]


def cell(vals):
    hits = [v for v in vals if isinstance(v, int)]
    div = sum(1 for v in vals if v == "diverged")
    n = len(vals)
    if not hits:
        s = "inf (0/%d)" % n
    else:
        mu = sum(hits) / len(hits) / 1e3
        se = (math.sqrt(sum((h / 1e3 - mu) ** 2 for h in hits) /
                        (len(hits) - 1) / len(hits))
              if len(hits) > 1 else 0.0)
        s = "%.2f +- %.2f (%d/%d)" % (mu, se, len(hits), n)
    return s + (", %d diverged" % div if div else "")


def main():
    ap = argparse.ArgumentParser()
    here = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    ap.add_argument("--replex", default=os.path.join(here, "build",
                                                     "replex"))
    ap.add_argument("--src", default=here)
    ap.add_argument("--seeds", type=int, default=10)
    ap.add_argument("--out", default="runs/table71")
    ap.add_argument("--only", default=None)
    args = ap.parse_args()
    print("| function | " + " | ".join(COLS) + " |")
    print("|---|" + "---|" * len(COLS))
    for name in FUNS:
        if args.only and name != args.only:
            continue
        row = []
        for col in range(len(COLS)):
            vals = [one(args, name, col, s)
                    for s in range(1, args.seeds + 1)]
            row.append(cell(vals))
        print("| %s | %s |" % (name, " | ".join(row)), flush=True)
        print("| (Table 7.1) | %s |" % " | ".join(PAPER[name]), flush=True)


if __name__ == "__main__":
    main()
