#!/usr/bin/env bash
# replex run draws its figures with gnuplot: every expected SVG exists and
# is an SVG document; --no-plots leaves them out. Skipped (77) without
# gnuplot.
set -u
command -v gnuplot >/dev/null 2>&1 || { echo "gnuplot not installed"; exit 77; }
cd "$RX_SRCDIR"
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
pass=0; fail=0
"$RX_REPLEX" run yaml/deo_star_sgd_2d.yaml -o "$tmp/a" -q --set iterations=3000
for f in index acceptance ladder correction density; do
  if grep -q "<svg" "$tmp/a/plots/$f.svg" 2>/dev/null; then pass=$((pass+1))
  else echo "missing or not SVG: plots/$f.svg"; fail=$((fail+1)); fi
done
"$RX_REPLEX" run yaml/gmm_1d_two_modes.yaml -o "$tmp/b" -q --set iterations=3000
if [ -f "$tmp/b/plots/index.svg" ] && [ ! -f "$tmp/b/plots/density.svg" ]; then
  pass=$((pass+1)); else echo "1-D run: expected index.svg and no density.svg"; fail=$((fail+1)); fi
"$RX_REPLEX" run yaml/gmm_1d_two_modes.yaml -o "$tmp/c" -q --no-plots --set iterations=300
if [ ! -e "$tmp/c/plots" ]; then pass=$((pass+1)); else echo "--no-plots wrote plots"; fail=$((fail+1)); fi
echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]
