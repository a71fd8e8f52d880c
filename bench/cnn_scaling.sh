#!/usr/bin/env bash
# Summed throughput of 8 CNN chains (yaml/mnist_cnn.yaml: 32/64 maps,
# dense 50, batch 100) on 1 and 2 threads, alternating, best of R rounds;
# chain-steps/s from summary.json (excludes data loading and scoring), and
# peak RSS against data + particles + samples + scratch.
# Usage: bash bench/cnn_scaling.sh [ROUNDS] [ITERATIONS]
set -euo pipefail
cd "$(dirname "$0")/.."
R=${1:-3}; K=${2:-6}
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
for r in $(seq 1 "$R"); do
  for t in 1 2; do
    build/replex run yaml/mnist_cnn.yaml -o "$tmp/r$r.t$t" -q --no-plots \
      --threads "$t" --set tempering.n_chains=8 --set iterations="$K" \
      --set record.burn_in=100000 --set evaluate.final_ensemble=false \
      --set record.index_every=0
    s=$(grep -o '"chain_steps_per_s": [0-9.]*' "$tmp/r$r.t$t/summary.json" | awk '{print $2}')
    m=$(grep -o '"memory_mb": {[^}]*}' "$tmp/r$r.t$t/summary.json")
    echo "round $r threads $t chain_steps_per_s $s $m"
  done
done
