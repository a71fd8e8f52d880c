#!/usr/bin/env bash
# A sweep: block runs the grid of values: one run directory per
# combination, sweep.csv / sweep.md with one row each (values in the key
# columns), and bad sweeps are refused before anything is written.
set -u
cd "$RX_SRCDIR"
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
pass=0; fail=0
ok() { pass=$((pass+1)); }
bad() { echo "FAIL: $*"; fail=$((fail+1)); }
cat > "$tmp/s.yaml" <<'Y'
iterations: 500
tempering: {n_chains: 4, scheme: deo_w}
ladder: {eta: 0.003, tau: {min: 1, max: 10}}
sweep:
  tempering.window: [1, 3]
  seed: [5, 6, 7]
Y
"$RX_REPLEX" run "$tmp/s.yaml" -o "$tmp/out" -q --no-plots && ok || bad "sweep run failed"
[ "$(ls -d "$tmp"/out/run-* 2>/dev/null | wc -l)" -eq 6 ] && ok || bad "expected 6 run directories"
[ "$(wc -l < "$tmp/out/sweep.csv")" -eq 7 ] && ok || bad "sweep.csv should have 7 lines"
head -1 "$tmp/out/sweep.csv" | grep -q '^run,tempering.window,seed,a5_per_1000' && ok || bad "sweep.csv header"
awk -F, 'NR==6 {exit !($2 == 3 && $3 == 6)}' "$tmp/out/sweep.csv" && ok || bad "row 5 should be window 3, seed 6"
grep -q '"window": 3' "$tmp/out/run-005/summary.json" && ok || bad "run-005 did not use W = 3"
grep -q '"seed": 6' "$tmp/out/run-005/summary.json" && ok || bad "run-005 did not use seed 6"
grep -q '^| 5 | 3 | 6 |' "$tmp/out/sweep.md" && ok || bad "sweep.md row 5"
# a bad value anywhere in the grid: exit 2, nothing written
sed 's/\[1, 3\]/[1, 0]/' "$tmp/s.yaml" > "$tmp/b.yaml"
"$RX_REPLEX" run "$tmp/b.yaml" -o "$tmp/bad" -q 2> "$tmp/err"; rc=$?
[ $rc -eq 2 ] && ok || bad "bad sweep value: exit $rc"
[ ! -e "$tmp/bad" ] && ok || bad "bad sweep value wrote $tmp/bad"
grep -q 'sweep run 4: .*tempering.window: window must be >= 1' "$tmp/err" && ok || bad "message: $(cat "$tmp/err")"
sed 's/tempering.window:/tempering.windw:/' "$tmp/s.yaml" > "$tmp/c.yaml"
"$RX_REPLEX" run "$tmp/c.yaml" -o "$tmp/bad2" -q 2> "$tmp/err"; rc=$?
[ $rc -eq 2 ] && ok || bad "unknown sweep key: exit $rc"
grep -q "did you mean 'tempering.window'" "$tmp/err" && ok || bad "message: $(cat "$tmp/err")"
echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]
