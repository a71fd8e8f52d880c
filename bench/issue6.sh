#!/usr/bin/env bash
# Every figure of docs/performance.md "Scaling across threads" (issue 6) in
# one run, into DIR (default runs/issue6): the barrier floor, the two
# synchronisation designs, the vectorisation candidates, the replex bench
# grid of bench/grid_issue6.yaml, the 8-chain CNN on 1 and 2 threads, and
# the machine's own ceiling for two CNN workers (two independent 1-thread
# processes of 4 chains each at the same time). Run it on a quiet machine
# (`uptime`); it takes about 5 minutes on 2 cores. Needs build/ (bash
# scripts/bootstrap.sh) and the data (bash scripts/fetch_data.sh).
# Usage: bash bench/issue6.sh [DIR]
set -euo pipefail
cd "$(dirname "$0")/.."
out=${1:-runs/issue6}
mkdir -p "$out"
B=build
{ echo "# $(date -u) $(git rev-parse --short HEAD) $(nproc) CPUs"; uptime; } \
  > "$out/machine.txt"
"$B/bench/bench_barrier" -n 200000 -r 5 > "$out/barrier.md"
"$B/bench/bench_sync" -k 100000 -n 5 > "$out/sync_deo.md"
"$B/bench/bench_sync" -k 100000 -n 5 -W 8 -s 2 > "$out/sync_deo8_noisy.md"
"$B/bench/bench_vec" -n 7 > "$out/vec.md"
"$B/replex" bench bench/grid_issue6.yaml -o "$out/grid" --force -q
# the two synchronisation designs of the engine on the same runs: the
# 25-mode target, P = 16, noisy energies and gradients (sd 2), DEO and
# DEO*, 100,000 iterations; rounds interleave every cell
for r in 1 2 3 4 5; do
  for sc in deo deo_star; do for sy in auto barrier; do for t in 1 2; do
    d="$out/sync_${sc}_${sy}_t$t"
    "$B/replex" run yaml/mixture25_deo.yaml -o "$d" --force -q --no-plots \
      --threads "$t" --set iterations=100000 --set tempering.scheme=$sc \
      --set sync=$sy --set target.energy_noise_sd=2 \
      --set target.grad_noise_sd=2 --set record.index_every=0 \
      --set record.trace_every=0 --set record.thin=100
    echo "$r $sc $sy $t $(grep -o '"chain_steps_per_s": [0-9.]*' "$d/summary.json" | awk '{print $2}') $(grep -o '"a5": [0-9]*' "$d/summary.json" | head -1 | awk '{print $2}')"
  done; done; done
done > "$out/sync_engine.txt"
# per-thread phases of the same cells (summary.json us_per_iter_by_thread)
for sc in deo deo_star; do for sy in auto barrier; do for t in 1 2; do
  "$B/replex" run yaml/mixture25_deo.yaml -o "$out/phases_${sc}_${sy}_t$t" \
    --force -q --no-plots --threads "$t" --set iterations=100000 \
    --set tempering.scheme=$sc --set sync=$sy \
    --set target.energy_noise_sd=2 --set target.grad_noise_sd=2 \
    --set record.phase_timing=true --set record.index_every=0 \
    --set record.trace_every=0 --set record.thin=100
done; done; done
# DEO* against DEO in round trips per second of wall time where the
# window matters: the default experiment (DEO*-SGD, P = 16, noisy energies,
# deterministic rule, adaptive ladder: the barrier design) and the idealised
# model (no target, Bernoulli swaps at 0.4: the partner design)
trips_block() {
  for r in 1 2 3; do for f in yaml/deo_star_sgd_2d.yaml yaml/idealised_deo_w.yaml; do
    for sc in deo deo_star; do for t in 1 2; do
      d="$out/trips_$(basename "$f" .yaml)_${sc}_t$t"
      "$B/replex" run "$f" -o "$d" --force -q --no-plots --threads "$t" \
        --set tempering.scheme=$sc --set tempering.window=auto \
        --set record.index_every=0
      a5=$(grep -o '"a5": [0-9]*' "$d/summary.json" | head -1 | awk '{print $2}')
      w=$(grep -o '"wall_s": [0-9.]*' "$d/summary.json" | awk '{print $2}')
      K=$(grep -o '"iterations": [0-9]*' "$d/summary.json" | head -1 | awk '{print $2}')
      echo "$r $(basename "$f" .yaml) $sc $t $a5 $K $w"
    done; done
  done; done
}
trips_block > "$out/trips.txt"
# the MLP of UCI Boston, P = 16, 2 threads: per-thread phases (exchange and
# waiting against the iteration)
for r in 1 2 3; do
  "$B/replex" run yaml/uci_boston.yaml -o "$out/mlp_phases_$r" --force -q \
    --no-plots --threads 2 --set tempering.n_chains=16 --set iterations=3000 \
    --set tempering.scheme=deo --set record.phase_timing=true \
    --set record.index_every=0 --set record.trace_every=0 \
    --set evaluate.final_ensemble=false
done
bash bench/cnn_scaling.sh 5 6 > "$out/cnn_scaling.txt"
# the ceiling: two independent 1-thread processes of 4 CNN chains
for r in 1 2 3 4 5; do
  for h in a b; do
    "$B/replex" run yaml/mnist_cnn.yaml -o "$out/cnn_ceiling_$h" --force -q \
      --no-plots --threads 1 --set tempering.n_chains=4 --set iterations=6 \
      --set record.burn_in=100000 --set evaluate.final_ensemble=false \
      --set record.index_every=0 &
  done
  wait
  for h in a b; do
    echo "round $r process $h $(grep -o '"chain_steps_per_s": [0-9.]*' \
      "$out/cnn_ceiling_$h/summary.json")"
  done
done > "$out/cnn_ceiling.txt"
{ echo "# end $(date -u)"; uptime; } >> "$out/machine.txt"
echo "bench/issue6.sh: results in $out"
