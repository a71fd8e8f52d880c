#!/usr/bin/env bash
# Does rng.normal change the science? The default experiment (DEO*-SGD x
# P16 on the 25-mode target, yaml/default.yaml) and DEO-SGD
# (yaml/deo_sgd_2d.yaml) over seeds 1..N (default 20) under both methods:
# mean and standard error of A.5 round trips per 1000 iterations, the mean
# condition rate and the TV distance to the true density. Prints a
# Markdown table. Usage: bash bench/normals_stats.sh [N] [REPLEX]
set -u
N=${1:-20}
B=${2:-build/replex}
out=$(mktemp -d "${TMPDIR:-/tmp}/replex-nstats.XXXXXX")
for y in default deo_sgd_2d; do
  for m in box_muller ziggurat; do
    for s in $(seq 1 "$N"); do
      "$B" run "yaml/$y.yaml" -o "$out/r" --force -q --no-plots --threads 1 \
        --set seed="$s" --set rng.normal="$m" || exit 1
      python3 -c "
import json; m = json.load(open('$out/r/summary.json'))
print('$y', '$m', m['round_trips']['a5_per_1000'],
      m['swaps']['condition_rate_mean'], m['density']['tv_distance'])"
    done
  done
done > "$out/all.txt"
python3 - "$out/all.txt" <<'PY'
import sys, statistics as st
rows = [l.split() for l in open(sys.argv[1])]
print("| experiment | rng.normal | runs | A.5 trips / 1000 | condition rate | TV distance |")
print("|:---|:---|---:|---:|---:|---:|")
for y in ("default", "deo_sgd_2d"):
    for m in ("box_muller", "ziggurat"):
        r = [x for x in rows if x[0] == y and x[1] == m]
        def ms(j):
            v = [float(x[j]) for x in r]
            return "%.3f +- %.3f" % (st.mean(v), st.stdev(v) / len(v) ** 0.5)
        print("| %s | %s | %d | %s | %s | %s |" % (y, m, len(r), ms(2), ms(3), ms(4)))
PY
rm -rf "$out"
