#!/usr/bin/env bash
# Summed throughput of 8 CNN chains (yaml/mnist_cnn.yaml: 32/64 maps,
# dense 50, batch 100) on 1 and 2 threads, alternating, R rounds. Two
# figures per run:
#   chain_steps_per_s  summary.json: P K / wall of rx_run, which includes
#                      the set-up (workspaces, weight initialisation, the
#                      initial energies; about one iteration's worth, and
#                      it does not scale as well): short runs understate
#                      the steady state
#   iter_ms            the steady state: thread 0's phases summed per
#                      iteration (record.phase_timing; a clock read per
#                      chain-step, nothing next to a 180 ms CNN step)
# and peak RSS against data + particles + samples + scratch.
# Usage: [CONV=auto] [THREADS="1 2 4 8"] [BUILD=dir] bash bench/cnn_scaling.sh
#   [ROUNDS] [ITERATIONS]
# (CONV: model.conv, default im2col as the file pins it; THREADS default
# "1 2"; BUILD default build)
set -euo pipefail
cd "$(dirname "$0")/.."
R=${1:-3}; K=${2:-6}
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
for r in $(seq 1 "$R"); do
  for t in ${THREADS:-1 2}; do
    "${BUILD:-build}/replex" run yaml/mnist_cnn.yaml -o "$tmp/r$r.t$t" -q --no-plots \
      --set model.conv="${CONV:-im2col}" \
      --threads "$t" --set tempering.n_chains=8 --set iterations="$K" \
      --set record.burn_in=100000 --set evaluate.final_ensemble=false \
      --set record.index_every=0 --set record.phase_timing=true
    f="$tmp/r$r.t$t/summary.json"
    s=$(grep -o '"chain_steps_per_s": [0-9.]*' "$f" | awk '{print $2}')
    it=$(grep -o '"us_per_iter": {[^}]*}' "$f" | grep -o '[0-9.]*' |
         awk '{s += $1} END {printf "%.1f", s / 1000}')
    m=$(grep -o '"memory_mb": {[^}]*}' "$f")
    echo "round $r threads $t chain_steps_per_s $s iter_ms $it $m"
  done
done
