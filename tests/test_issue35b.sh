#!/usr/bin/env bash
# More faults of the hostile pass (docs/reliability.md, "Faults and figures
# that mislead"), each the reproduction of a defect that fails without its
# fix: betas of ladder.beta_exponent that coincide, the cost of
# bias.bins, two benches into one directory, a directory data set edited
# before a resume, the after-run table, and "|theta| = -nan".
#
# Environment (set by meson, see tests/meson.build):
#   RX_SRCDIR  project root;  RX_REPLEX  the replex binary
set -u
cd "$RX_SRCDIR" || exit 1
src=$PWD
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
pass=0; fail=0
ok() { pass=$((pass+1)); }
bad() { echo "FAIL: $*"; fail=$((fail+1)); }
R=$RX_REPLEX

# --- b1. ladder.beta_exponent: betas that coincide are refused, betas ---
# too close to matter are warned about (the reference path)
cat >"$tmp/ref.yaml" <<'EOF'
target:
  kind: gmm
  weights: [0.5, 0.5]
  means: [[-2], [2]]
  scales: [[0.5], [0.5]]
tempering: {n_chains: 12}
ladder:
  path: reference
  reference_sd: 5
  beta_exponent: 1e300
EOF
"$R" validate "$tmp/ref.yaml" >/dev/null 2>"$tmp/e.err"; rc=$?
[ $rc -eq 2 ] && grep -q "ref.yaml:10:18: ladder.beta_exponent: 1e+300 gives betas (1 - q/(P-1))^a, P = n_chains = 12, that are not distinct in double precision: beta 3 (0) is not below beta 2 (0)" "$tmp/e.err" &&
  ok || bad "beta_exponent 1e300: exit $rc ($(head -c 300 "$tmp/e.err"))"
for a in 1e-300 400; do
  "$R" run "$tmp/ref.yaml" -o "$tmp/r$a" -q --no-plots --set iterations=2000 \
    --set ladder.beta_exponent=$a >/dev/null 2>"$tmp/e.err"; rc=$?
  [ $rc -eq 2 ] && grep -q "ladder.beta_exponent: $a gives betas .* not distinct" "$tmp/e.err" &&
    [ ! -e "$tmp/r$a" ] && ok || bad "beta_exponent $a: exit $rc ($(head -c 300 "$tmp/e.err"))"
done
"$R" validate "$tmp/ref.yaml" --set ladder.beta_exponent=100 >/dev/null \
  2>"$tmp/e.err"; rc=$?
[ $rc -eq 0 ] && grep -q "warning: --set:1:22: ladder.beta_exponent: 8 neighbouring pairs of positions between 4 and 12 differ in beta by less than 1e-12" "$tmp/e.err" &&
  ok || bad "beta_exponent 100 (betas below 1e-12): exit $rc ($(head -c 300 "$tmp/e.err"))"
"$R" validate "$tmp/ref.yaml" --set ladder.beta_exponent=3 >/dev/null \
  2>"$tmp/e.err" && ! grep -q warning "$tmp/e.err" && ok ||
  bad "the default exponent warned: $(head -c 300 "$tmp/e.err")"

# --- b2. bias.bins: what many bins cost, refused where absurd ---
"$R" validate yaml/csgld_gmm_1d.yaml --set bias.bins=4194304 >/dev/null \
  2>"$tmp/e.err"; rc=$?
[ $rc -eq 0 ] && grep -q "warning: --set:1:11: bias.bins: 4194304 bins: every update of bias.kind csgld touches every bin, 4.19e+06 bins an iteration and 4.19e+13 in all: about 11.7 h at a nanosecond a bin" "$tmp/e.err" &&
  ok || bad "bias.bins 4194304 at 1e7 iterations: exit $rc ($(head -c 300 "$tmp/e.err"))"
timeout -s KILL 60 "$R" run yaml/csgld_gmm_1d.yaml -o "$tmp/bb" --no-plots \
  --set bias.bins=4194304 --set iterations=1e8 >/dev/null 2>"$tmp/e.err"; rc=$?
[ $rc -eq 2 ] && grep -q -- "--set:1:11: bias.bins: 4194304 bins: .* over 1e+14: about 117 h" "$tmp/e.err" &&
  [ ! -e "$tmp/bb" ] && ok || bad "bias.bins 4194304 at 1e8 iterations: exit $rc ($(head -c 300 "$tmp/e.err"))"
"$R" validate yaml/csgld_gmm_1d.yaml >/dev/null 2>"$tmp/e.err" &&
  ! grep -q "bias.bins" "$tmp/e.err" && ok || bad "the shipped CSGLD file warned about bins"
"$R" validate yaml/wte_gauss_50d.yaml --set bias.bins=4194304 >/dev/null \
  2>"$tmp/e.err" && ! grep -q "bias.bins" "$tmp/e.err" && ok ||
  bad "wte (one bin an update) warned about bins"

# --- b3. bench takes the lock run takes: no second writer of DIR ---
G=$src/bench/grid_tiny.yaml
cd "$tmp" || exit 1
"$R" bench "$G" -o bd -q --no-plots --iterations 150000 2>"$tmp/a.err" & pa=$!
for _ in $(seq 1 400); do [ -s bd.partial/lock ] && break; sleep 0.05; done
"$R" bench "$G" -o bd -q --no-plots --force --iterations 1000 2>"$tmp/b.err"; rb=$?
"$R" run "$src/yaml/gmm_1d_two_modes.yaml" -o bd -q --no-plots --force \
  --set iterations=300 --set record.burn_in=0 2>>"$tmp/b.err"; rr=$?
wait $pa; ra=$?
[ $rb -eq 2 ] && [ $rr -eq 2 ] &&
  [ "$(grep -c "bd.partial is in use by a running replex (process $pa)" "$tmp/b.err")" -eq 2 ] &&
  ok || bad "a second writer beside a bench: exit $rb/$rr ($(head -c 300 "$tmp/b.err"))"
[ $ra -eq 0 ] && [ -s bd/bench.csv ] && [ ! -e bd.partial ] && ok ||
  bad "the first bench: exit $ra, $(ls bd bd.partial 2>&1 | head -c 200)"
cd "$src" || exit 1

# --- b4. --resume refuses a directory data set (mnist_json) edited ---
mkdir -p "$tmp/mj" && cd "$tmp" || exit 1
for d in 0 1 2 3 4 5 6 7 8 9; do
  awk -v d=$d 'BEGIN { printf "{\"data\": [0"; s = d + 1
    for (i = 1; i < 6 * 784; ++i) { s = (s * 69069 + 1) % 4294967296
      printf ",%s", (s % 7 == 0) ? (s % 100) / 100 : 0 }
    printf "]}" }' >mj/$d.json
done
cat >mj.yaml <<'EOF'
target: {kind: network}
data: {format: mnist_json, path: mj, task: classification, test_fraction: 0.2, batch_size: 8}
model:
  layers: [{dense: 8}, relu, {dense: 10}]
  weight_decay: 0.0005
tempering: {n_chains: 2, rule: deterministic}
iterations: 2000000
record: {thin: 1000, index_every: 0, trace_every: 0}
checkpoint: {every: 200}
EOF
"$R" run mj.yaml -o m1 -q --no-plots --threads 1 2>/dev/null & p=$!
for _ in $(seq 1 200); do [ -s m1.partial/checkpoint.bin ] && break; sleep 0.05; done
kill -INT $p; wait $p
sed -i 's/^{"data": \[0,/{"data": [0.5,/' mj/3.json
timeout -s INT 30 "$R" run --resume m1 -q --no-plots --threads 1 2>"$tmp/e.err"; rc=$?
[ $rc -eq 2 ] && grep -q "data.path 3.json contents: digest [0-9a-f]* (.* bytes) in the checkpoint, digest" "$tmp/e.err" &&
  ok || bad "resume after a digit file changed: exit $rc ($(head -c 400 "$tmp/e.err"))"
sed -i 's/^{"data": \[0.5,/{"data": [0,/' mj/3.json
"$R" run --resume m1 -q --no-plots --threads 1 2>"$tmp/e.err" & p=$!
sleep 1; kill -INT $p 2>/dev/null; wait $p; rc=$?
[ $rc -le 1 ] && ! grep -q "differs" "$tmp/e.err" && ok ||
  bad "resume with the same digit files refused: exit $rc ($(head -c 400 "$tmp/e.err"))"
cd "$src" || exit 1

# --- b5. the table printed after a run is the one summary.json holds ---
# (now handed over, not computed a second time): the same lines as
# `replex summary` prints from the file
"$R" run yaml/wte_gauss_50d.yaml -o "$tmp/w" --no-plots --set iterations=100000 \
  --set record.burn_in=50000 >"$tmp/run.out" 2>/dev/null
"$R" summary "$tmp/w" >"$tmp/sum.out" 2>&1
sed -n '/^parameters/,$p' "$tmp/run.out" | grep -v "more coordinates" >"$tmp/run.tab"
sed -n '/^parameters/,$p' "$tmp/sum.out" | grep -v "more coordinates" >"$tmp/sum.tab"
[ -s "$tmp/run.tab" ] && cmp -s "$tmp/run.tab" "$tmp/sum.tab" && ok ||
  bad "the printed table differs from summary.json's: $(diff "$tmp/run.tab" "$tmp/sum.tab" | head -5)"

# --- b6. a NaN coordinate in a fault message: "nan" and why, not "-nan" ---
"$R" run yaml/gmm_1d_two_modes.yaml -o "$tmp/nan" -q --no-plots \
  --set ladder.eta=1e308 2>"$tmp/e.err"; rc=$?
[ $rc -eq 1 ] && grep -q "|theta| = nan (a coordinate is not a number)" "$tmp/e.err" &&
  ! grep -q -- "-nan" "$tmp/e.err" && ok ||
  bad "a NaN theta in the fault message: exit $rc ($(head -c 300 "$tmp/e.err"))"

echo "issue 35 (b): $pass passed, $fail failed"
[ $fail -eq 0 ]
