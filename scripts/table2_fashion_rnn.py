#!/usr/bin/env python3
"""The replica-exchange Nose-Hoover paper's Table 2, Fashion-MNIST RNN
columns (label noise 0, 20, 30 %), at a small epoch budget.

usage: /usr/bin/python3 scripts/table2_fashion_rnn.py
           [--replex build/replex] [--out runs/table2] [--epochs 1]
           [--seeds 1 2 3] [--noise 0 0.2 0.3]
           [--methods renhd sghmc sgnht msgd] [--jobs 1] [--threads 1]
           [--dry-run] [--table-only]

Every cell runs yaml/fashion_rnn_renhd.yaml (`replex run FILE --set
...`, through argv under `nice`, no shell) once per seed:

  renhd  the file as it is: 12 SGNHT replicas (tau 1 .. 1.2^11), swaps
         under DEO with the bias-corrected rule and an estimated sigma^2;
  sgnht, sghmc, msgd
         one chain of that step rule at tau = 1 (tempering.n_chains=1,
         scheme none) with the file's step size eta = 5e-6; sghmc's
         friction 1 - rho and msgd's 1 - mu are 0.1 (step.momentum 0.9),
         SGNHT's c = 0.1 and mu = 1, so all four move with the same
         effective step eta / 0.1 per unit of the full-data gradient.

Budget: E epochs of every replica (an epoch is floor(60000 / 128) = 468
iterations of a particle), so a renhd run makes 12 x as many gradient
evaluations as a one-chain run. The samplers are scored as the paper
scores them, by the model average of 9 samples of position 1 evenly
spread over the second half of the run; msgd, an optimiser, by its final
model. Test accuracy is
on the 10,000 clean test images (label noise touches only the training
labels).

Runs already finished (their summary.json present) are read, not
repeated, so the script can be stopped and started again. Prints one
Markdown table: test accuracy mean +- sd over the seeds (in %), the mean
wall time of a run and its gradient evaluations (chain-steps). Needs only
the standard library.
"""
import argparse
import json
import math
import os
import resource
import subprocess
import sys
import time
from concurrent.futures import ThreadPoolExecutor

EPOCH = 60000 // 128  # iterations of one pass of a particle's batches
METHODS = ("renhd", "sghmc", "sgnht", "msgd")
# renhd_na (not in the default grid): RENHD with the paper's swaps, the
# noise-aware test on a growing exchange batch, on trajectories of 50 steps
# (the thermostat re-drawn at each start), a swap round at each end
OPTIONAL = ("renhd_na",)
NA_SETS = ["tempering.rule=noise_aware", "tempering.every=50",
           "step.reset_every=50"]
LABEL = {"renhd": "RENHD (12 SGNHT replicas, bias-corrected swaps)",
         "renhd_na": "RENHD (noise-aware swaps, trajectories of 50)",
         "sghmc": "SGHMC", "sgnht": "SGNHT", "msgd": "momentum SGD"}
# Table 2 of the paper, Fashion-MNIST RNN: 0 %, 20 %, 30 % label noise
PAPER = {"renhd": ("90.87 +- 0.12", "89.45 +- 0.17", "89.06 +- 0.16"),
         "renhd_na": ("90.87 +- 0.12", "89.45 +- 0.17", "89.06 +- 0.16"),
         "sghmc": ("89.12 +- 0.12", "88.23 +- 0.16", "87.79 +- 0.19"),
         "sgnht": ("89.23 +- 0.18", "88.26 +- 0.22", "87.74 +- 0.19"),
         "msgd": ("88.83 +- 0.11", "88.15 +- 0.19", "87.58 +- 0.20")}


def record_sets(method, iters):
    """What a run keeps: the samplers every iters // 18 iterations of the
    second half (9 models per run), msgd its last iterate."""
    if method == "msgd":
        return ["record.burn_in=%d" % (iters - 1), "record.thin=1"]
    half = iters // 2
    return ["record.burn_in=%d" % half,
            "record.thin=%d" % max(1, (iters - half) // 9)]


def command(args, method, noise, seed):
    iters = args.epochs * EPOCH
    out = os.path.join(args.out, method, "noise-%g" % noise, "seed-%d" % seed)
    sets = ["seed=%d" % seed, "iterations=%d" % iters,
            "data.label_noise=%g" % noise, "evaluate.final_ensemble=false",
            "record.trace_every=0", "record.index_every=0"]
    sets += record_sets(method, iters)
    if method == "renhd_na":
        sets += NA_SETS
    elif method != "renhd":
        sets += ["tempering.n_chains=1", "tempering.scheme=none",
                 "step.target=%s" % method, "step.others=%s" % method]
    cmd = ["nice", "-n", "10", args.replex, "run",
           os.path.join(args.src, "yaml", "fashion_rnn_renhd.yaml"),
           "-o", out, "--force", "--no-plots", "-q",
           "--threads", str(args.threads)]
    for s in sets:
        cmd += ["--set", s]
    return cmd, out


def read(out):
    """(accuracy, wall seconds, chain-steps) of a finished run, or None."""
    path = os.path.join(out, "summary.json")
    if not os.path.exists(path):
        return None
    with open(path) as f:
        s = json.load(f)
    acc = s.get("metrics", {}).get("accuracy")
    steps = s["iterations"] * s["n_chains"]
    return acc, s["timing"]["wall_s"], steps


def run_one(args, method, noise, seed):
    cmd, out = command(args, method, noise, seed)
    got = read(out)
    if got is not None:
        return got
    env = dict(os.environ)
    env.setdefault("OPENBLAS_CORETYPE", "SkylakeX")  # see `replex info`
    t0 = time.time()
    p = subprocess.run(cmd, env=env, stdout=subprocess.PIPE,
                       stderr=subprocess.PIPE, text=True)
    if p.returncode != 0:
        sys.stderr.write("failed (%d): %s\n%s" % (p.returncode,
                                                   " ".join(cmd), p.stderr))
        return None
    got = read(out)
    sys.stderr.write("%-6s noise %.1f seed %d: accuracy %.4f, %.0f s\n" % (
        method, noise, seed, got[0] if got and got[0] is not None else
        float("nan"), time.time() - t0))
    return got


def mean_sd(v):
    m = sum(v) / len(v)
    sd = math.sqrt(sum((x - m) ** 2 for x in v) / (len(v) - 1)) \
        if len(v) > 1 else float("nan")
    return m, sd


def main():
    here = os.path.dirname(os.path.abspath(__file__))
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--src", default=os.path.dirname(here))
    ap.add_argument("--replex", default=os.path.join(os.path.dirname(here),
                                                     "build", "replex"))
    ap.add_argument("--out", default="runs/table2")
    ap.add_argument("--epochs", type=int, default=1)
    ap.add_argument("--seeds", type=int, nargs="+", default=[1, 2, 3])
    ap.add_argument("--noise", type=float, nargs="+", default=[0, 0.2, 0.3])
    ap.add_argument("--methods", nargs="+", default=list(METHODS),
                    choices=METHODS + OPTIONAL)
    ap.add_argument("--jobs", type=int, default=1)
    ap.add_argument("--threads", type=int, default=1)
    ap.add_argument("--dry-run", action="store_true",
                    help="print the commands, run nothing")
    ap.add_argument("--table-only", action="store_true",
                    help="print the table of the finished runs")
    args = ap.parse_args()
    cells = [(m, x, s) for m in args.methods for x in args.noise
             for s in args.seeds]
    if args.dry_run:
        for c in cells:
            print(" ".join(command(args, *c)[0]))
        return 0
    if args.table_only:
        res = {c: read(command(args, *c)[1]) for c in cells}
    else:
        # the 12-replica runs first: the longest, so the pool ends level
        order = sorted(cells, key=lambda c: c[0] != "renhd")
        with ThreadPoolExecutor(max_workers=args.jobs) as ex:
            futs = {c: ex.submit(run_one, args, *c) for c in order}
            res = {c: f.result() for c, f in futs.items()}
    iters = args.epochs * EPOCH
    print("Fashion-MNIST RNN, %d epoch(s) of every replica (%d iterations), "
          "seeds %s; test accuracy %% (mean +- sd over seeds), paper's "
          "Table 2 beside it\n" % (args.epochs, iters,
                                   " ".join(map(str, args.seeds))))
    head = "| method | " + " | ".join(
        "%g %% noise | paper" % (100 * x) for x in args.noise) + \
        " | wall s / run | chain-steps / run |"
    print(head)
    print("|" + "---|" * (head.count("|") - 1))
    for m in args.methods:
        row, walls, steps = [], [], 0
        for x in args.noise:
            got = [res[(m, x, s)] for s in args.seeds
                   if res.get((m, x, s)) and res[(m, x, s)][0] is not None]
            if got:
                mu, sd = mean_sd([100 * g[0] for g in got])
                row.append("%.2f +- %.2f (%d)" % (mu, sd, len(got)))
                walls += [g[1] for g in got]
                steps = got[0][2]
            else:
                row.append("-")
            i = [0, 0.2, 0.3].index(x) if x in (0, 0.2, 0.3) else -1
            row.append(PAPER[m][i] if i >= 0 else "")
        wall = "%.0f" % (sum(walls) / len(walls)) if walls else "-"
        print("| %s | %s | %s | %d |" % (LABEL[m], " | ".join(row), wall,
                                        steps))
    ru = resource.getrusage(resource.RUSAGE_CHILDREN)
    if ru.ru_utime + ru.ru_stime > 0:
        print("\nCPU time of the runs made now: %.1f min" %
              ((ru.ru_utime + ru.ru_stime) / 60.0))
    return 0


if __name__ == "__main__":
    sys.exit(main())
