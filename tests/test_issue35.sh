#!/usr/bin/env bash
# Faults found by a hostile pass over bench, replicates, inference.nc and
# locks (docs/reliability.md, "Faults and figures that mislead"): each case
# is the reproduction of a defect and fails without its fix.
#
# Environment (set by meson, see tests/meson.build):
#   RX_SRCDIR  project root;  RX_REPLEX  the replex binary
set -u
cd "$RX_SRCDIR" || exit 1
src=$PWD
tmp=$(mktemp -d); trap 'chmod -R u+w "$tmp" 2>/dev/null; rm -rf "$tmp"' EXIT
pass=0; fail=0
ok() { pass=$((pass+1)); }
bad() { echo "FAIL: $*"; fail=$((fail+1)); }
R=$RX_REPLEX
G=$src/bench/grid_tiny.yaml

# --- 1. no name given to bench -o becomes gnuplot code ---
if command -v gnuplot >/dev/null 2>&1; then
  mkdir -p "$tmp/g1" && cd "$tmp/g1" || exit 1
  "$R" bench "$G" -q -o "b'; system('touch INJ'); print '" 2>/dev/null ||
    bad "bench -o with an apostrophe failed"
  "$R" bench "$G" -q -o "$(printf "n\nsystem('touch INJ2')\n")" \
    2>/dev/null || bad "bench -o with a newline failed"
  [ ! -e INJ ] && [ ! -e INJ2 ] && [ ! -e "b/INJ" ] && ok ||
    bad "bench -o reached gnuplot as code"
  ls "b'; system('touch INJ'); print '/plots/"*.svg >/dev/null 2>&1 && ok ||
    bad "bench drew no figure into a directory with an apostrophe"
  cd "$src" || exit 1
else
  echo "gnuplot not installed: defect 1 skipped"
fi

# --- 2. bench --force writes through no link, needs the marker ---
mkdir -p "$tmp/g2" && cd "$tmp/g2" || exit 1
echo victim >victim.txt
"$R" bench "$G" -q -o D 2>/dev/null && [ -f D/.replex ] && ok ||
  bad "bench wrote no marker"
rm -f D/bench.md D/bench.csv; mkdir -p D/plots; rm -f D/plots/bench.gp
ln -s ../victim.txt D/bench.md; ln -s ../victim.txt D/bench.csv
ln -s ../../victim.txt D/plots/bench.gp
"$R" bench "$G" -q -o D --force 2>/dev/null || bad "bench --force failed"
[ "$(cat victim.txt)" = victim ] && ok ||
  bad "bench --force wrote through a link placed in DIR"
[ -f D/bench.md ] && [ ! -L D/bench.md ] && ok || bad "bench.md not replaced"
mkdir E; echo keep >E/mine.txt
"$R" bench "$G" -q -o E --force 2>"$tmp/e.err"; rc=$?
[ $rc -eq 2 ] && grep -q "E is not a directory replex wrote" "$tmp/e.err" &&
  [ "$(cat E/mine.txt)" = keep ] && ok ||
  bad "bench --force on a directory without the marker: exit $rc"
ln -s E L
"$R" bench "$G" -q -o L --force 2>/dev/null; rc=$?
[ $rc -eq 2 ] && [ -f E/mine.txt ] && ok || bad "bench --force on a link: exit $rc"
cd "$src" || exit 1

echo "issue 35: $pass passed, $fail failed"
[ $fail -eq 0 ]
