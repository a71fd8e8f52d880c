#!/usr/bin/env bash
# model.gemm on the Boston MLP in the engine (docs/performance.md, "Small
# matrix products"): P = 16, DEO, ziggurat, 3,000 iterations, 1 and 2
# threads under gemm blas and auto, ROUNDS interleaved rounds (default 7);
# k chain-steps/s, then medians and the 2/1 ratios per round.
# Usage: bash bench/mlp_gemm.sh [ROUNDS] [REPLEX]   (needs the data:
# bash scripts/fetch_data.sh)
set -u
R=${1:-7}
B=${2:-build/replex}
out=$(mktemp -d "${TMPDIR:-/tmp}/replex-mlpgemm.XXXXXX")
run() { # gemm threads
  "$B" run yaml/uci_boston.yaml -o "$out/r" --force -q --no-plots \
    --threads "$2" --set tempering.n_chains=16 --set iterations=3000 \
    --set tempering.scheme=deo --set rng.normal=ziggurat \
    --set model.gemm="$1" --set record.index_every=0 \
    --set record.trace_every=0 --set evaluate.final_ensemble=false ||
    exit 1
  grep -o '"chain_steps_per_s": [0-9.]*' "$out/r/summary.json" |
    awk '{printf "%.1f", $2 / 1e3}'; }
{
echo "round,blas_1t,blas_2t,auto_1t,auto_2t"
for r in $(seq 1 "$R"); do
  echo "$r,$(run blas 1),$(run blas 2),$(run auto 1),$(run auto 2)"
done
} | tee "$out/all.csv"
python3 "$(dirname "$0")/round_stats.py" "$out/all.csv" k \
  blas_2t/blas_1t auto_2t/auto_1t auto_2t/blas_2t auto_1t/blas_1t
rm -rf "$out"
