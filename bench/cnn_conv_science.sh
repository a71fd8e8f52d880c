#!/usr/bin/env bash
# Same science under both conv methods: yaml/mnist_cnn_small.yaml (1,000
# training digits, 8/16-map CNN) with model.conv im2col and auto over seeds
# 1..S; prints test accuracy, NLL and ECE of the sample average per run.
# Usage: bash bench/cnn_conv_science.sh [S]
set -euo pipefail
cd "$(dirname "$0")/.."
S=${1:-5}
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
for s in $(seq 1 "$S"); do
  for conv in im2col auto; do
    build/replex run yaml/mnist_cnn_small.yaml -o "$tmp/$conv$s" -q --no-plots \
      --set seed="$s" --set model.conv="$conv"
    grep -o '"metrics": {[^}]*}' "$tmp/$conv$s/summary.json" |
      awk -v s="$s" -v c="$conv" -F'[:,]' '{printf "seed %s %-6s accuracy %.3f nll %.4f ece %.4f\n", s, c, $7, $9, $11}'
  done
done
