#!/usr/bin/env python3
"""Deng 2021, Table 7.1: mean hitting iterations of AWSGLD (AW-10,
AW-100) and SGLD (tau, tau/10) on the test functions, over seeds.

usage: python3 scripts/table71.py [--replex build/replex] [--seeds 10]
                                  [--out runs/table71] [--only NAME,...]
                                  [--jobs N]

Each cell runs yaml/table71_NAME.yaml once per seed (one chain, `replex
run ... --set seed=S`), reads summary.json's hit block and prints a
Markdown table: mean +- standard error of the hitting iteration (x 10^3)
over the seeds that hit, and how many hit within the budget (100,000
iterations). The files set hit.stop, so a run ends at its hit; a run
that diverges (a non-finite energy) before any hit counts as
"diverged" (without hit.stop, one that diverges after its hit is
repeated with `iterations` set to the iteration that failed, the same
trajectory up to there, and its hit read from that). --jobs N runs N
replex processes at once (one thread each). Needs only the standard
library.
"""
import argparse
import concurrent.futures
import json
import math
import os
import re
import subprocess
import sys

# name: (tau, (bins, bin width, zeta) of AW-10 and AW-100), Table F.1, in
# the table's order
FUNS = {
    "rastrigin20": (5.0, (10, 30, 0.02), (100, 3, 0.02)),
    "griewank20": (10.0, (10, 50, 10), (100, 5, 10)),
    "sumsquares20": (0.01, (10, 10, 1), (100, 1, 1)),
    "rosenbrock20": (10.0, (10, 30, 100), (100, 3, 10)),
    "zakharov20": (1e4, (10, 500, 1), (100, 50, 0.5)),
    "powell24": (1.0, (10, 20, 500), (100, 2, 200)),
    "dixonprice25": (10.0, (10, 20, 100), (100, 2, 20)),
    "levy30": (100.0, (10, 600, 100), (100, 60, 10)),
    "sphere30": (1e-4, (10, 20, 1), (100, 2, 1)),
    "ackley30": (0.05, (10, 0.4, 0.2), (100, 0.04, 0.2)),
}
# Table 7.1 (x 10^3): SGLD low tau, SGLD high tau, AW-10, AW-100
PAPER = {
    "rastrigin20": ("4.3", "inf", "5.1", "3.6"),
    "griewank20": ("32.6", "inf", "1.8", "1.7"),
    "sumsquares20": ("0.07", "0.07", "0.07", "0.06"),
    "rosenbrock20": ("29.2", "93.2", "0.15", "0.7"),
    "zakharov20": ("20.3", "6.9", "1.4", "0.9"),
    "powell24": ("10.0", "inf", "0.3", "0.2"),
    "dixonprice25": ("47.9", "87.5", "0.2", "0.3"),
    "levy30": ("inf", "22.5", "0.1", "0.3"),
    "sphere30": ("0.3", "0.4", "0.4", "0.4"),
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
    ap.add_argument("--only", default=None,
                    help="comma-separated names (e.g. levy30,sphere30)")
    ap.add_argument("--jobs", type=int, default=1)
    args = ap.parse_args()
    only = set(args.only.split(",")) if args.only else None
    pool = concurrent.futures.ThreadPoolExecutor(max(1, args.jobs))
    print("| function | " + " | ".join(COLS) + " |")
    print("|---|" + "---|" * len(COLS))
    for name in FUNS:
        if only and name not in only:
            continue
        futs = [[pool.submit(one, args, name, col, s)
                 for s in range(1, args.seeds + 1)]
                for col in range(len(COLS))]
        row = [cell([f.result() for f in fc]) for fc in futs]
        print("| %s | %s |" % (name, " | ".join(row)), flush=True)
        print("| (Table 7.1) | %s |" % " | ".join(PAPER[name]), flush=True)


if __name__ == "__main__":
    main()
