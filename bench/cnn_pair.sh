#!/usr/bin/env bash
# One CNN chain-step alone against the same step with both cores busy:
# rounds of `bench_model --net cnn` alone, then two copies at once (one
# per core), alternating; each run reports its median step in thread CPU
# time (which leaves out time other processes hold the core). Prints per
# round the ratio (mean of the pair's medians) / (the lone median) and
# the median ratio over the rounds (docs/performance.md, "CNN working
# set").
#
#   bench/cnn_pair.sh [BENCH_MODEL] [ROUNDS] [bench_model options...]
#   bench/cnn_pair.sh build/bench/bench_model 7 --conv auto --reps 10
set -u
bm=${1:-build/bench/bench_model}; rounds=${2:-7}; shift 2 2>/dev/null
opts=("$@"); [ ${#opts[@]} -eq 0 ] && opts=(--reps 10)
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
med() { sed -n 's/^thread CPU time: step best [0-9.]* us median \([0-9.]*\) us.*/\1/p' "$1"; }
ratios=()
for r in $(seq 1 "$rounds"); do
  "$bm" --net cnn --peak 64 "${opts[@]}" > "$tmp/a" 2>&1
  "$bm" --net cnn --peak 64 "${opts[@]}" > "$tmp/b1" 2>&1 &
  p=$!
  "$bm" --net cnn --peak 64 "${opts[@]}" > "$tmp/b2" 2>&1
  wait "$p"
  a=$(med "$tmp/a"); b1=$(med "$tmp/b1"); b2=$(med "$tmp/b2")
  q=$(awk -v a="$a" -v b="$b1" -v c="$b2" 'BEGIN { printf "%.3f", (b + c) / 2 / a }')
  ratios+=("$q")
  printf 'round %d: alone %.1f ms, both cores %.1f / %.1f ms, ratio %s\n' \
    "$r" "$(awk -v x="$a" 'BEGIN{print x/1000}')" \
    "$(awk -v x="$b1" 'BEGIN{print x/1000}')" \
    "$(awk -v x="$b2" 'BEGIN{print x/1000}')" "$q"
done
printf '%s\n' "${ratios[@]}" | sort -n | awk '{ v[NR] = $1 } END {
  printf "median ratio %.3f (min %.3f, max %.3f) over %d rounds\n",
         v[int((NR + 1) / 2)], v[1], v[NR], NR }'
