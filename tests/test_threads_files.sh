#!/usr/bin/env bash
# `replex run --threads 1|2|3` writes byte-identical samples.npy, index.npy,
# trace.csv, config.yaml (but its threads line) and summary.json (but its
# "timing" line); for a CNN and an LSTM RNN, samples.npy, index.npy and
# trace.csv.
set -u
cd "$RX_SRCDIR"
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
pass=0; fail=0
for f in deo_star_sgd_2d.yaml mixture25_deo_star.yaml gmm_2d.yaml; do
  for t in 1 2 3; do
    "$RX_REPLEX" run "yaml/$f" -o "$tmp/$f.$t" -q --no-plots --threads "$t" \
      --set iterations=4000 || { echo "run failed: $f threads $t"; fail=$((fail+1)); }
    grep -v '"timing"' "$tmp/$f.$t/summary.json" > "$tmp/$f.$t/summary.notiming"
    grep -v '^threads:' "$tmp/$f.$t/config.yaml" > "$tmp/$f.$t/config.nothreads"
  done
  for t in 2 3; do
    for x in samples.npy index.npy trace.csv config.nothreads summary.notiming; do
      if cmp -s "$tmp/$f.1/$x" "$tmp/$f.$t/$x"; then pass=$((pass+1)); else
        echo "$f: $x differs between 1 and $t threads"; fail=$((fail+1)); fi
    done
  done
  grep -q '"threads": 2' "$tmp/$f.2/summary.json" && pass=$((pass+1)) ||
    { echo "$f: the 2-thread run did not use 2 threads"; fail=$((fail+1)); }
done
# A CNN (Winograd, direct and blocked passes under conv: auto) on 4 chains:
# the same bytes on 1, 2 and 3 threads.
f=mnist_cnn_small.yaml
for t in 1 2 3; do
  "$RX_REPLEX" run "yaml/$f" -o "$tmp/cnn.$t" -q --no-plots --threads "$t" \
    --set iterations=12 --set record.burn_in=0 --set record.thin=2 \
    --set tempering.n_chains=4 --set model.conv=auto --set model.gemm=auto ||
    { echo "run failed: $f threads $t"; fail=$((fail+1)); }
done
for t in 2 3; do
  for x in samples.npy index.npy trace.csv; do
    if cmp -s "$tmp/cnn.1/$x" "$tmp/cnn.$t/$x"; then pass=$((pass+1)); else
      echo "$f (conv auto): $x differs between 1 and $t threads"; fail=$((fail+1)); fi
  done
done
# The Fashion-MNIST RNN's file with a small LSTM (blocked passes: batch
# 40 in blocks, 4 SGNHT chains, bias-corrected swaps): the same bytes on 1
# and 3 threads.
f=fashion_rnn_renhd.yaml
for t in 1 3; do
  "$RX_REPLEX" run "yaml/$f" -o "$tmp/rnn.$t" -q --no-plots --threads "$t" \
    --set iterations=6 --set data.max_train=300 --set data.max_test=100 \
    --set tempering.n_chains=4 --set data.batch_size=40 \
    --set 'model.layers=[{lstm: 16}, relu, {dense: 10}]' \
    --set record.burn_in=0 --set record.thin=2 --set record.trace_every=1 ||
    { echo "run failed: $f threads $t"; fail=$((fail+1)); }
done
for x in samples.npy index.npy trace.csv; do
  if cmp -s "$tmp/rnn.1/$x" "$tmp/rnn.3/$x"; then pass=$((pass+1)); else
    echo "$f (lstm): $x differs between 1 and 3 threads"; fail=$((fail+1)); fi
done
echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]
