#!/usr/bin/env bash
# The 8 M chain-steps/s figure of issue 6 against its own yardstick
# (docs/performance.md, "The issue's figures"): the 25-mode target, P = 16,
# energy and gradient noise sd 2, as a straightforward single-threaded C
# loop (bench/baseline_loop.c -s 2: xorshift64* + Box-Muller with libm)
# and as the engine (ziggurat, the default) under DEO and DEO* on 1 and 2
# threads; ROUNDS interleaved rounds (default 7), M chain-steps/s, then
# medians and the per-round ratios. NOISE (environment, default 2) sets
# both noise sds, in the loop too: NOISE=0 runs the exact energies and
# gradients (cheaper chain-steps, so the 2 / 1 ratio is lower).
# The last four columns (st_*) are each engine run's summary.json
# timing.steal_share: the part of its threads' time the hypervisor gave to
# other guests (10 ms clock ticks: about +-0.02 on these runs; empty where
# the run could not read /proc/stat). docs/performance.md, "Steal".
# The last two (ss_*) are the 2-thread runs' summary.json timing.start_s,
# seconds: the part of their wall time before the second thread started.
# ITERS (environment, default 200000) sets each run's iterations, the
# loop's too: a 2-thread run's wall time includes the threads' start
# (summary.json timing.start_s: 1.8-14.4 ms on this VM, up to 7 % of a 200000-
# iteration run; docs/performance.md, "Cache lines between cores, and the
# threads' start"), which longer runs spread thinner.
# Usage: bash bench/noisy16.sh [ROUNDS] [BUILD]   (BUILD default build)
set -u
R=${1:-7}
B=${2:-build}
N=${NOISE:-2}
K=${ITERS:-200000}
if ! [[ $K =~ ^[0-9]+$ ]] || [ "$K" -lt 1000 ]; then
  echo "noisy16.sh: ITERS=$K: want an integer >= 1000" >&2
  exit 2
fi
if ! [[ $N =~ ^[0-9]+(\.[0-9]+)?$ ]]; then
  echo "noisy16.sh: NOISE=$N: want a number >= 0 (the noise sd)" >&2
  exit 2
fi
out=$(mktemp -d "${TMPDIR:-/tmp}/replex-noisy16.XXXXXX")
eng() { # threads scheme: prints M chain-steps/s; the steal share into
  # st, the threads' start (timing.start_s, seconds) into ss
  rm -f "$out/st" "$out/ss"
  "$B/replex" run yaml/mixture25_deo.yaml -o "$out/e" --force -q --no-plots \
    --threads "$1" --set rng.normal=ziggurat --set tempering.scheme="$2" \
    --set iterations="$K" --set target.energy_noise_sd="$N" \
    --set target.grad_noise_sd="$N" --set record.index_every=0 \
    --set record.trace_every=0 --set record.thin=100 || exit 1
  num steal_share 1 %.4f > "$out/st"
  num start_s 1 %.4f > "$out/ss"
  num chain_steps_per_s 1e-6 %.3f; }
num() { # KEY SCALE FORMAT: summary.json's KEY x SCALE (nothing for null)
  grep -o "\"$1\": [0-9][0-9.e-]*" "$out/e/summary.json" |
    awk -v s="$2" -v f="$3" '{printf f, $2 * s}'; }
base() {
  "$B/bench/baseline_loop" -n 1 -k "$K" -s "$N" 16 |
    awk -F'|' '$2 + 0 == 16 {printf "%.3f", $3 + 0}'; }
# The cells of a round run in one order on odd rounds and in the reverse
# order on even ones: on this VM the second of two back-to-back runs is
# slower (one build against itself, `ORDER=fixed bash bench/ab_builds.sh
# 10 1 deo_star B B`: 0.957, the second faster in 1 of 10), so a fixed
# order would always put one cell behind another.
{
echo "# ITERS=$K NOISE=$N: $R rounds of $K iterations"
echo "round,baseline,deo_1t,deo_2t,deo_star_1t,deo_star_2t,st_deo_1t,st_deo_2t,st_deo_star_1t,st_deo_star_2t,ss_deo_2t,ss_deo_star_2t"
# each cell's steal share and start go through files: $(...) runs in a
# subshell
cell() { # name threads scheme
  eval "$1=\$(eng $2 $3)"; eval "st_$1=\$(cat \"\$out/st\" 2>/dev/null)"
  eval "ss_$1=\$(cat \"\$out/ss\" 2>/dev/null)"; }
for r in $(seq 1 "$R"); do
  if [ $((r % 2)) -eq 1 ]; then
    b=$(base); cell d1 1 deo; cell d2 2 deo
    cell s1 1 deo_star; cell s2 2 deo_star
  else
    cell s2 2 deo_star; cell s1 1 deo_star; cell d2 2 deo
    cell d1 1 deo; b=$(base)
  fi
  echo "$r,$b,$d1,$d2,$s1,$s2,$st_d1,$st_d2,$st_s1,$st_s2,$ss_d2,$ss_s2"
done
} | tee "$out/all.csv"
grep -v '^#' "$out/all.csv" > "$out/rows.csv"
python3 "$(dirname "$0")/round_stats.py" "$out/rows.csv" M \
  deo_2t/deo_1t deo_star_2t/deo_star_1t deo_2t/baseline \
  deo_star_2t/baseline deo_1t/baseline
rm -rf "$out"
