#!/usr/bin/env bash
# One-thread step of the Fashion-MNIST RNN (LSTM 128, batch 128) in
# replex against PyTorch's: rounds of `bench_model --net lstm` and
# `bench/torch_lstm.py`, alternating (the order reversed every other
# round); each run reports its median step in thread CPU time (which
# leaves out time other processes hold the core). Prints per round both
# medians and the ratio PyTorch / replex, then the median and range of
# each over the rounds (docs/performance.md, "Networks").
#
#   bench/lstm_torch.sh [BENCH_MODEL] [ROUNDS] [bench_model options...]
#   bench/lstm_torch.sh build/bench/bench_model 8 --reps 20
# PYTHON (default /usr/bin/python3, Debian's python3-torch) runs the
# PyTorch side with --reps 20.
set -u
bm=${1:-build/bench/bench_model}; rounds=${2:-8}; shift 2 2>/dev/null
opts=("$@"); [ ${#opts[@]} -eq 0 ] && opts=(--reps 20)
py=${PYTHON:-/usr/bin/python3}
here=$(cd "$(dirname "$0")" && pwd)
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
rmed() { sed -n 's/^thread CPU time: step best [0-9.]* us median \([0-9.]*\) us.*/\1/p' "$1"; }
tmed() { sed -n 's/^thread CPU: step best [0-9.]* ms median \([0-9.]*\) ms.*/\1/p' "$1"; }
for r in $(seq 1 "$rounds"); do
  if [ $((r % 2)) -eq 1 ]; then
    "$bm" --net lstm --peak 64 "${opts[@]}" > "$tmp/r" 2>&1
    "$py" "$here/torch_lstm.py" --reps 20 > "$tmp/t" 2>&1
  else
    "$py" "$here/torch_lstm.py" --reps 20 > "$tmp/t" 2>&1
    "$bm" --net lstm --peak 64 "${opts[@]}" > "$tmp/r" 2>&1
  fi
  a=$(rmed "$tmp/r"); t=$(tmed "$tmp/t")
  [ -n "$a" ] && [ -n "$t" ] || { echo "round $r: no result"; cat "$tmp/r" "$tmp/t"; exit 1; }
  a=$(awk -v x="$a" 'BEGIN { printf "%.2f", x / 1000 }')
  q=$(awk -v a="$a" -v t="$t" 'BEGIN { printf "%.3f", t / a }')
  printf 'round %d: replex %s ms, PyTorch %.2f ms, ratio %s\n' "$r" "$a" "$t" "$q"
  echo "$a $t $q" >> "$tmp/all"
done
for c in 1 2 3; do
  awk -v c="$c" '{ print $c }' "$tmp/all" | sort -n | awk -v c="$c" '
    { v[NR] = $1 } END {
      m = NR % 2 ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2
      split("replex (ms)|PyTorch (ms)|ratio PyTorch / replex", nm, "|")
      printf "median %s %.3f (min %.3f, max %.3f) over %d rounds\n",
             nm[c], m, v[1], v[NR], NR }'
done
