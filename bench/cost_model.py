#!/usr/bin/env python3
"""Cost model of docs/performance.md ("A cost model"), checked against a
replex bench CSV: for every 2-thread cell, the iteration time predicted
from its 1-thread cell's phases and the barrier latency,

    T_n = (S + R) / n + X + s_n

S = step + energy (all chains), R = record, X = exchange + adapt (every
thread pays its exchange), s_n = one barrier hand-off (bench_barrier),
all from phase-timed runs; compared with the measured phase-timed wall
time of the n-thread cell (timed_wall_us_per_iter).

With unequal CPUs (a virtual machine's vCPUs: bench/vcpu_asym.sh), the
chains split evenly run at the pace of the slowest CPU. With a = how far
the slowest CPU lags the fastest (0.05: 5 % slower) and the 1-thread
figures taken on a CPU of average speed, the parallel part becomes

    T_n = (S + R) / n * (1 - a / 2) / (1 - a) + X + s_n

(a = 0: the first form). Both predictions are printed.

The partner design (sync: auto, the default) has no barrier: a thread
exchanges its own pairs and hands off to its two neighbours only, so

    T_n = (S + R + X) / n + s_2

with s_2 the two-thread hand-off whatever n (column "partner us"; the
unequal-CPU factor applies to its first term too).
Usage: python3 bench/cost_model.py runs/issue6/grid/bench.csv [S_N] [a]
S_N: one hand-off in us, one figure for every n (0.27) or per thread
count, n:us,... (bench/many_cores.sh passes bench_barrier -t N's spin
barrier column, 1:0.0098,2:0.1830,... on the 16-vCPU machine).
"""
import csv
import sys

rows = list(csv.DictReader(open(sys.argv[1])))
sn_arg = sys.argv[2] if len(sys.argv) > 2 else "0.27"
try:
    if ":" in sn_arg:
        sn = {int(k): float(v) for k, v in
              (kv.split(":") for kv in sn_arg.split(","))}
    else:
        sn = None
        s2 = float(sn_arg)
except ValueError:
    sys.exit(f"cost_model.py: S_N {sn_arg!r}: expected a number of us or "
             "n:us,n:us,... (e.g. 2:0.18,4:0.42)")
a = float(sys.argv[3]) if len(sys.argv) > 3 else 0.0
slow = (1.0 - a / 2.0) / (1.0 - a)
key = lambda r: (r["target"], r["energy_noise_sd"], r["rule"], r["normal"],
                 r["scheme"], r["window"], r["chains"], r["iterations"])
one = {key(r): r for r in rows if r["threads"] == "1"}
print("| target | noise | normal | scheme | P | n | S us | R us | X us | "
      "predicted us | with a = %g | partner us | measured us | "
      "measured / predicted | measured / with a | measured / partner |" % a)
print("|:---|---:|:---|:---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|")
for r in rows:
    n = int(r["threads"])
    if n == 1 or key(r) not in one:
        continue
    b = one[key(r)]
    S = float(b["step_us"]) + float(b["energy_us"])
    R = float(b["record_us"])
    X = float(b["exchange_us"]) + float(b["adapt_us"])
    if sn is not None and n not in sn:
        sys.exit(f"cost_model.py: no hand-off time for {n} threads in {sn_arg}")
    s_n = sn[n] if sn is not None else s2
    pred = (S + R) / n + X + s_n
    preda = (S + R) / n * slow + X + s_n
    s_2 = sn.get(2, s_n) if sn is not None else s2
    predp = (S + R + X) / n * slow + s_2
    meas = float(r["timed_wall_us_per_iter"])
    tgt = r["target"].replace("yaml/", "")
    print(f"| {tgt} | {r['energy_noise_sd'] or '-'} | {r['normal']} | "
          f"{r['scheme']} | {r['chains']} | {n} | {S:.2f} | {R:.2f} | "
          f"{X:.2f} | {pred:.2f} | {preda:.2f} | {predp:.2f} | {meas:.2f} | "
          f"{meas / pred:.2f} | {meas / preda:.2f} | {meas / predp:.2f} |")
