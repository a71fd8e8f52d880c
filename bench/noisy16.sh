#!/usr/bin/env bash
# The 8 M chain-steps/s figure of issue 6 against its own yardstick
# (docs/performance.md, "The issue's figures"): the 25-mode target, P = 16,
# energy and gradient noise sd 2, as a straightforward single-threaded C
# loop (bench/baseline_loop.c -s 2: xorshift64* + Box-Muller with libm)
# and as the engine (ziggurat, the default) under DEO and DEO* on 1 and 2
# threads; ROUNDS interleaved rounds (default 7), M chain-steps/s, then
# medians and the per-round ratios.
# Usage: bash bench/noisy16.sh [ROUNDS] [BUILD]   (BUILD default build)
set -u
R=${1:-7}
B=${2:-build}
out=$(mktemp -d "${TMPDIR:-/tmp}/replex-noisy16.XXXXXX")
eng() { # threads scheme
  "$B/replex" run yaml/mixture25_deo.yaml -o "$out/e" --force -q --no-plots \
    --threads "$1" --set rng.normal=ziggurat --set tempering.scheme="$2" \
    --set iterations=200000 --set target.energy_noise_sd=2 \
    --set target.grad_noise_sd=2 --set record.index_every=0 \
    --set record.trace_every=0 --set record.thin=100 || exit 1
  grep -o '"chain_steps_per_s": [0-9.]*' "$out/e/summary.json" |
    awk '{printf "%.3f", $2 / 1e6}'; }
base() {
  "$B/bench/baseline_loop" -n 1 -k 200000 -s 2 16 |
    awk -F'|' '$2 + 0 == 16 {printf "%.3f", $3 + 0}'; }
{
echo "round,baseline,deo_1t,deo_2t,deo_star_1t,deo_star_2t"
for r in $(seq 1 "$R"); do
  echo "$r,$(base),$(eng 1 deo),$(eng 2 deo),$(eng 1 deo_star),$(eng 2 deo_star)"
done
} | tee "$out/all.csv"
python3 "$(dirname "$0")/round_stats.py" "$out/all.csv" M \
  deo_2t/deo_1t deo_star_2t/deo_star_1t deo_2t/baseline \
  deo_star_2t/baseline deo_1t/baseline
rm -rf "$out"
