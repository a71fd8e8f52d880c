#!/usr/bin/env bash
# rng.normal in the engine (docs/performance.md, "Normal draws"): the
# 25-mode target, P = 16, energy and gradient noise sd 2 (the issue-6
# setting), 1 and 2 threads, and the Boston MLP (P = 8, 1 thread), under
# both methods; ROUNDS interleaved rounds (default 5), chain-steps/s.
# Usage: bash bench/normals_engine.sh [ROUNDS] [REPLEX]   (needs the data:
# bash scripts/fetch_data.sh)
set -u
R=${1:-5}
B=${2:-build/replex}
out=$(mktemp -d "${TMPDIR:-/tmp}/replex-normals.XXXXXX")
cs() { grep -o '"chain_steps_per_s": [0-9.]*' "$1/summary.json" | awk '{print $2}'; }
m25() { # threads method
  "$B" run yaml/mixture25_deo.yaml -o "$out/m" --force -q --no-plots \
    --threads "$1" --set rng.normal="$2" --set iterations=100000 \
    --set target.energy_noise_sd=2 --set target.grad_noise_sd=2 \
    --set record.index_every=0 --set record.trace_every=0 \
    --set record.thin=100 && cs "$out/m"; }
mlp() { # method
  "$B" run yaml/uci_boston.yaml -o "$out/n" --force -q --no-plots \
    --threads 1 --set rng.normal="$1" --set tempering.n_chains=8 \
    --set iterations=3000 --set record.index_every=0 \
    --set record.trace_every=0 --set evaluate.final_ensemble=false &&
    cs "$out/n"; }
echo "round,method,m25_1t,m25_2t,ratio_2_1,mlp_1t"
for r in $(seq 1 "$R"); do
  for m in ziggurat box_muller; do
    a=$(m25 1 $m); b=$(m25 2 $m); c=$(mlp $m)
    echo "$r,$m,$a,$b,$(awk -v a="$a" -v b="$b" 'BEGIN{printf "%.2f", b/a}'),$c"
  done
done
rm -rf "$out"
