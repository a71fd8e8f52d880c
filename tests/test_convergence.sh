#!/usr/bin/env bash
# The convergence verdict (docs/yaml.md, "Convergence"): the last line a
# run prints ("NOT CONVERGED: ..." or "converged: ...") and summary.json's
# "convergence" block (converged true/false), from the bulk and tail ESS
# (at least 100 per chain) and R-hat (at most 1.01) of lp and the
# coordinates (Vehtari et al. 2021).
#  c1. A new 3-D target with three unequal modes on every default (1,000
#      iterations): not converged, exit 0; seed 2 fails on the ESS alone.
#  c2. yaml/gmm_2d.yaml at its shipped length, three seeds: converged (no
#      false alarm).
#  c3. The case one run cannot see: modes far apart, a ladder too cool to
#      cross them, so every draw of a run stays where its chains started
#      and each copy alone passes; 4 replicates from dispersed starts
#      (init.low/high -8..8) disagree, and their R-hat alone (the pooled
#      ESS passes) says not converged. replex summary prints the verdict.
#  c4. A target without parameters (none) is not judged.
#
# Environment (set by meson, see tests/meson.build):
#   RX_SRCDIR  project root;  RX_REPLEX  the replex binary
set -u
cd "$RX_SRCDIR" || exit 1
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
pass=0; fail=0
ok() { pass=$((pass+1)); }
bad() { echo "FAIL: $*"; fail=$((fail+1)); }
R=$RX_REPLEX
# field DIR EXPR: a Python expression on c = summary.json's convergence
field() {
  /usr/bin/python3 -c "import json, sys
c = json.load(open(sys.argv[1] + '/summary.json'))['convergence']
print($2)" "$1"
}

# --- c1. three unequal modes on the defaults ---
cat >"$tmp/three.yaml" <<'EOF'
target:
  kind: gmm
  weights: [0.5, 0.3, 0.2]
  means: [[0, 0, 0], [4, 4, 0], [-4, 0, 4]]
  scales: [[1, 1, 1], [0.8, 0.8, 0.8], [0.6, 0.6, 0.6]]
EOF
for s in 1 2 3; do
  "$R" run "$tmp/three.yaml" -o "$tmp/d$s" --no-plots --threads 1 \
    --set seed=$s >"$tmp/d$s.out" 2>"$tmp/d$s.err"; rc=$?
  [ $rc -eq 0 ] && ok || bad "c1 seed $s: exit $rc ($(head -c 300 "$tmp/d$s.err"))"
  tail -1 "$tmp/d$s.out" | grep -q "^NOT CONVERGED: .*: its means, quantiles, modes and densities are not reliable: run longer (iterations), and run replicates from dispersed starts" &&
    ok || bad "c1 seed $s: last line: $(tail -1 "$tmp/d$s.out" | head -c 300)"
  [ "$(field "$tmp/d$s" "c['converged'], c['verdict'], len(c['reasons']) > 0, c['ess_needed'], c['rhat_allowed']")" = \
    "False NOT CONVERGED True 100 1.01" ] && ok ||
    bad "c1 seed $s: summary.json: $(field "$tmp/d$s" c 2>&1 | head -c 400)"
done
# seed 2: the bulk ESS fails (about 20), R-hat passes
[ "$(field "$tmp/d2" "c['ess_bulk_min'] < 50, c['rhat_max'] <= 1.01")" = "True True" ] &&
  tail -1 "$tmp/d2.out" | grep -q "^NOT CONVERGED: the bulk ESS of [a-z0-9[]*]* is [0-9]*, below 100" &&
  ! tail -1 "$tmp/d2.out" | grep -q "R-hat" &&
  ok || bad "c1 seed 2 is not the ESS-only case: $(field "$tmp/d2" c | head -c 400)"

# --- c2. no false alarm on a well-mixed run ---
for s in 3 4 5; do
  "$R" run yaml/gmm_2d.yaml -o "$tmp/g$s" --no-plots --set seed=$s \
    >"$tmp/g$s.out" 2>"$tmp/g$s.err" || bad "c2 seed $s failed"
  tail -1 "$tmp/g$s.out" | grep -q "^converged: bulk and tail ESS >= 100 and R-hat <= 1.01 for lp and every coordinate listed (Vehtari et al. 2021); a mode that no draw visited cannot be seen from one run" &&
    ok || bad "c2 seed $s: last line: $(tail -1 "$tmp/g$s.out" | head -c 300)"
  [ "$(field "$tmp/g$s" "c['converged'], c['verdict'], c['reasons']")" = \
    "True converged []" ] && ok || bad "c2 seed $s: $(field "$tmp/g$s" c | head -c 400)"
done

# --- c3. replicates from dispersed starts see what one run cannot ---
cat >"$tmp/far.yaml" <<'EOF'
target:
  kind: gmm
  weights: [0.6, 0.3, 0.1]
  means: [[0, 0, 0], [6, 6, 0], [-6, 0, 6]]
  scales: [[1, 1, 1], [0.7, 0.7, 0.7], [0.5, 0.5, 0.5]]
iterations: 5000
seed: 5
ladder:
  eta: 0.05
  tau: {min: 1, max: 2}
init: {low: -8, high: 8}
replicates: 4
EOF
"$R" run "$tmp/far.yaml" -o "$tmp/rep" --no-plots --threads 1 \
  >"$tmp/rep.out" 2>"$tmp/rep.err"; rc=$?
[ $rc -eq 0 ] && ok || bad "c3: exit $rc ($(head -c 300 "$tmp/rep.err"))"
n=0
for r in 0 1 2 3; do
  [ "$(field "$tmp/rep/rep-0$r" "c['converged']")" = True ] && n=$((n+1))
done
[ $n -ge 3 ] && ok || bad "c3: only $n of the 4 copies pass alone (the case is meant to be one a run cannot see)"
[ "$(field "$tmp/rep" "c['converged'], c['ess_bulk_min'] >= 400, c['ess_tail_min'] >= 400, c['rhat_max'] > 1.015, c['rhat']")" = \
  "False True True True split, over the replicates" ] && ok ||
  bad "c3: the replicates' verdict: $(field "$tmp/rep" c | head -c 400)"
tail -1 "$tmp/rep.out" | grep -q "^NOT CONVERGED: the R-hat of theta\[[0-9]\] is 1\.0[0-9]*, above 1.01 (the replicates disagree): .*the replicates sample different modes" &&
  ok || bad "c3: last line: $(tail -1 "$tmp/rep.out" | head -c 300)"
"$R" summary "$tmp/rep" >"$tmp/sum.out" 2>&1 &&
  [ "$(tail -1 "$tmp/sum.out")" = "$(tail -1 "$tmp/rep.out")" ] && ok ||
  bad "c3: replex summary's last line: $(tail -1 "$tmp/sum.out" | head -c 300)"
"$R" summary --json "$tmp/rep" >"$tmp/sum.json" 2>&1 &&
  /usr/bin/python3 -c "import json, sys
assert json.load(open(sys.argv[1]))['convergence']['converged'] is False" "$tmp/sum.json" &&
  ok || bad "c3: replex summary --json has no convergence block: $(head -c 300 "$tmp/sum.json")"

# --- c4. a target without parameters is not judged (not "NOT CONVERGED") ---
"$R" run yaml/idealised_deo_w.yaml -o "$tmp/none" --no-plots --threads 1 \
  --set iterations=2000 >"$tmp/none.out" 2>&1 || bad "c4: target none failed"
[ "$(tail -1 "$tmp/none.out")" = "convergence: not judged (the target has no parameters)" ] &&
  [ "$(field "$tmp/none" "c['converged'], c['verdict']")" = "None not judged" ] &&
  ok || bad "c4: target none: $(tail -1 "$tmp/none.out" | head -c 300)"

echo "$pass passed, $fail failed"
[ $fail -eq 0 ]
