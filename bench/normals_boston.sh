#!/usr/bin/env bash
# rng.normal on the Boston MLP (yaml/uci_boston.yaml, DEO*, 8 chains):
# model-average test RMSE and NLL over splits 0..N-1 (default 10) under
# both methods, mean +- standard error. Usage: bash bench/normals_boston.sh
# [N] [REPLEX]   (needs the data: bash scripts/fetch_data.sh)
set -u
N=${1:-10}
B=${2:-build/replex}
out=$(mktemp -d "${TMPDIR:-/tmp}/replex-nboston.XXXXXX")
for m in box_muller ziggurat; do
  for s in $(seq 0 $((N - 1))); do
    "$B" run yaml/uci_boston.yaml -o "$out/r" --force -q --no-plots \
      --set data.split="$s" --set rng.normal="$m" || exit 1
    python3 -c "
import json; m = json.load(open('$out/r/summary.json'))['metrics']
print('$m', m['rmse'], m['nll'])"
  done
done > "$out/all.txt"
python3 - "$out/all.txt" <<'PY'
import sys, statistics as st
rows = [l.split() for l in open(sys.argv[1])]
print("| rng.normal | splits | test RMSE | test NLL |")
print("|:---|---:|---:|---:|")
for m in ("box_muller", "ziggurat"):
    r = [x for x in rows if x[0] == m]
    def ms(j):
        v = [float(x[j]) for x in r]
        return "%.3f +- %.3f" % (st.mean(v), st.stdev(v) / len(v) ** 0.5)
    print("| %s | %d | %s | %s |" % (m, len(r), ms(1), ms(2)))
PY
rm -rf "$out"
