#!/usr/bin/env bash
# The 25-mode 2 / 1 figure of issue 6 (P = 16, energy and gradient noise
# sd 2, ziggurat) against what the machine allows at that moment. Each
# round runs one thread pinned to CPU 0 (s0), one thread pinned to CPU 1
# (s1) and two threads (s2, the engine pins thread t to CPU t), in one
# order on odd rounds and the reverse on even ones; M chain-steps/s.
# Per round:
#   best = s2 / max(s0, s1)   the issue's figure against the faster CPU
#   ceil = (s0 + s1) / max    the most any 2-thread run could reach then:
#                             on a VM whose CPUs differ in speed, two
#                             threads together do at most the sum of the
#                             two
#   eff  = s2 / (s0 + s1)     how close the engine came to that
# Usage: bash bench/asym16.sh [ROUNDS] [SCHEME] [BUILD] [ITERATIONS]
#   defaults 7 deo_star build 400000
set -u
R=${1:-7}
S=${2:-deo_star}
B=${3:-build}
K=${4:-400000}
out=$(mktemp -d "${TMPDIR:-/tmp}/replex-asym16.XXXXXX")
eng() { # taskset-cpus threads
  taskset -c "$1" "$B/replex" run yaml/mixture25_deo.yaml -o "$out/e" \
    --force -q --no-plots --threads "$2" --set rng.normal=ziggurat \
    --set tempering.scheme="$S" --set iterations="$K" \
    --set target.energy_noise_sd=2 --set target.grad_noise_sd=2 \
    --set record.index_every=0 --set record.trace_every=0 \
    --set record.thin=100 || exit 1
  grep -o '"chain_steps_per_s": [0-9.]*' "$out/e/summary.json" |
    awk '{printf "%.3f", $2 / 1e6}'; }
{
echo "round,s0,s1,s2,best,ceil,eff"
for r in $(seq 1 "$R"); do
  if [ $((r % 2)) -eq 1 ]; then
    a=$(eng 0 1); b=$(eng 1 1); c=$(eng 0,1 2)
  else
    c=$(eng 0,1 2); b=$(eng 1 1); a=$(eng 0 1)
  fi
  echo "$r,$a,$b,$c" | awk -F, '{m = $2 > $3 ? $2 : $3;
    printf "%s,%.3f,%.3f,%.3f\n", $0, $4 / m, ($2 + $3) / m,
           $4 / ($2 + $3)}'
done
} | tee "$out/all.csv"
python3 "$(dirname "$0")/round_stats.py" "$out/all.csv" "(M or x)"
rm -rf "$out"
