#!/usr/bin/env bash
# One-thread CNN step of replex against PyTorch's: rounds of
# `bench_model --net cnn` and `bench/torch_cnn.py`, alternating (the order
# reversed every other round); each run reports its median step in
# thread CPU time (which leaves out time other processes hold the core).
# Prints per round the ratio PyTorch / replex and the median ratio over
# the rounds with its range (docs/performance.md, "Networks").
#
#   bench/cnn_torch.sh [BENCH_MODEL] [ROUNDS] [bench_model options...]
#   bench/cnn_torch.sh build/bench/bench_model 8 --reps 10
# PYTHON (default /usr/bin/python3, Debian's python3-torch) runs the
# PyTorch side with --reps 10.
set -u
bm=${1:-build/bench/bench_model}; rounds=${2:-8}; shift 2 2>/dev/null
opts=("$@"); [ ${#opts[@]} -eq 0 ] && opts=(--reps 10)
py=${PYTHON:-/usr/bin/python3}
here=$(cd "$(dirname "$0")" && pwd)
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
rmed() { sed -n 's/^thread CPU time: step best [0-9.]* us median \([0-9.]*\) us.*/\1/p' "$1"; }
tmed() { sed -n 's/^thread CPU: step best [0-9.]* ms median \([0-9.]*\) ms.*/\1/p' "$1"; }
ratios=()
for r in $(seq 1 "$rounds"); do
  if [ $((r % 2)) -eq 1 ]; then
    "$bm" --net cnn --peak 64 "${opts[@]}" > "$tmp/r" 2>&1
    "$py" "$here/torch_cnn.py" --reps 10 > "$tmp/t" 2>&1
  else
    "$py" "$here/torch_cnn.py" --reps 10 > "$tmp/t" 2>&1
    "$bm" --net cnn --peak 64 "${opts[@]}" > "$tmp/r" 2>&1
  fi
  a=$(rmed "$tmp/r"); t=$(tmed "$tmp/t")
  [ -n "$a" ] && [ -n "$t" ] || { echo "round $r: no result"; cat "$tmp/r" "$tmp/t"; exit 1; }
  q=$(awk -v a="$a" -v t="$t" 'BEGIN { printf "%.3f", t * 1000 / a }')
  ratios+=("$q")
  printf 'round %d: replex %.1f ms, PyTorch %.1f ms, ratio %s\n' \
    "$r" "$(awk -v x="$a" 'BEGIN{print x/1000}')" "$t" "$q"
done
printf '%s\n' "${ratios[@]}" | sort -n | awk '{ v[NR] = $1 } END {
  m = NR % 2 ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2
  printf "median ratio PyTorch / replex %.3f (min %.3f, max %.3f) over %d rounds\n",
         m, v[1], v[NR], NR }'
