#!/usr/bin/env bash
# How unequal the machine's CPUs are (docs/performance.md, "Why 2 threads
# stay below 1.7x here"): the same single-threaded run (the 25-mode target,
# P = 8, noise sd 2, ziggurat, 300,000 iterations) pinned to CPU 0 alone,
# to CPU 1 alone, then on both at once as two independent processes;
# ROUNDS rounds (default 5), M chain-steps/s. A 2-thread run of P = 16
# splits its chains 8 / 8, so it runs at the pace of the slower CPU.
# Usage: bash bench/vcpu_asym.sh [ROUNDS] [REPLEX]   (Linux, taskset)
set -u
R=${1:-5}
B=${2:-build/replex}
out=$(mktemp -d "${TMPDIR:-/tmp}/replex-asym.XXXXXX")
run1() { # cpu dir
  taskset -c "$1" "$B" run yaml/mixture25_deo.yaml -o "$2" --force -q \
    --no-plots --threads 1 --set rng.normal=ziggurat \
    --set tempering.n_chains=8 --set iterations=300000 \
    --set target.energy_noise_sd=2 --set target.grad_noise_sd=2 \
    --set record.index_every=0 --set record.trace_every=0 \
    --set record.thin=100 || exit 1
  grep -o '"chain_steps_per_s": [0-9.]*' "$2/summary.json" |
    awk '{printf "%.3f", $2 / 1e6}'; }
echo "round,cpu0_alone,cpu1_alone,cpu0_both,cpu1_both,asym_alone,asym_both"
for r in $(seq 1 "$R"); do
  a0=$(run1 0 "$out/a"); a1=$(run1 1 "$out/b")
  run1 0 "$out/c" > "$out/c.txt" & run1 1 "$out/d" > "$out/d.txt"; wait
  b0=$(cat "$out/c.txt"); b1=$(cat "$out/d.txt")
  echo "$r,$a0,$a1,$b0,$b1,$(awk -v x="$a0" -v y="$a1" -v u="$b0" -v v="$b1" \
    'function asym(p, q) { return (p > q ? p - q : q - p) / (p > q ? p : q) }
     BEGIN { printf "%.3f,%.3f", asym(x, y), asym(u, v) }')"
done
rm -rf "$out"
