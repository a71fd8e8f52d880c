#!/usr/bin/env bash
# The MNIST CNN (yaml/mnist_cnn.yaml, batch 100) runs its batch in blocks
# of images that reuse one small scratch: the per-thread scratch that
# summary.json reports (memory_mb.scratch on one thread; half of it on
# two, where the file's one decimal resolves 0.05 MB a thread) is at most
# 8 MB with every conv method (it was ~45 MB when a thread held the
# activations of the whole batch, and 8.5 / 8.03 MB with winograd / auto
# before their first layers worked in bands of rows), and on two threads
# it is twice that of one (one workspace per thread).
set -u
cd "$RX_SRCDIR"
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
pass=0; fail=0
scratch() { sed -n 's/.*"scratch": \([0-9.]*\).*/\1/p' "$1/summary.json"; }
for conv in im2col direct auto winograd; do
  for t in 1 2; do
    d="$tmp/$conv.$t"
    "$RX_REPLEX" run yaml/mnist_cnn.yaml -o "$d" -q --no-plots --threads "$t" \
      --set iterations=2 --set record.burn_in=0 --set model.conv="$conv" ||
      { echo "run failed: $conv, $t threads"; fail=$((fail+1)); continue; }
  done
  s1=$(scratch "$tmp/$conv.1"); s2=$(scratch "$tmp/$conv.2")
  echo "conv $conv: scratch ${s1:-?} MB on 1 thread, ${s2:-?} MB on 2"
  if awk -v s="${s1:-99}" 'BEGIN { exit !(s > 0 && s <= 8.0) }'; then
    pass=$((pass+1)); else echo "conv $conv: scratch ${s1:-?} MB > 8 MB"
    fail=$((fail+1)); fi
  if awk -v s="${s2:-99}" 'BEGIN { exit !(s > 0 && s <= 16.0) }'; then
    pass=$((pass+1)); else echo "conv $conv: scratch ${s2:-?} MB on 2 threads > 2 x 8 MB"
    fail=$((fail+1)); fi
  if awk -v a="${s1:-0}" -v b="${s2:-0}" \
       'BEGIN { exit !(a > 0 && b >= 2 * a - 0.15 && b <= 2 * a + 0.15) }'; then
    pass=$((pass+1)); else echo "conv $conv: 2 threads ${s2:-?} MB, not 2 x ${s1:-?}"
    fail=$((fail+1)); fi
done
echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]
