#!/usr/bin/env bash
# A careless or hostile user (issue 21; the table in docs/reliability.md):
# every case below must leave the user's files in place and be refused with
# exit 2 and a message, or be handled as documented.
set -u
cd "$RX_SRCDIR"
src=$PWD
tmp=$(mktemp -d); trap 'chmod -R u+w "$tmp" 2>/dev/null; rm -rf "$tmp"' EXIT
pass=0; fail=0
ok() { pass=$((pass+1)); }
bad() { echo "FAIL: $*"; fail=$((fail+1)); }
R=$RX_REPLEX
short=(--set iterations=300 -q)

# --- a path that reaches gnuplot: no shell, the plots still drawn ---
if grep -rnE '\b(system|popen)\s*\(' src; then
  bad "system() or popen() in src/"
else ok; fi
if command -v gnuplot >/dev/null 2>&1; then
  mkdir -p "$tmp/x"
  q="$tmp/x/q';touch $tmp/x/INJECTED;'"
  "$R" run yaml/default.yaml -o "$q" "${short[@]}" ||
    bad "run into a directory with an apostrophe failed"
  [ ! -e "$tmp/x/INJECTED" ] && ok || bad "the output path reached a shell"
  grep -q "<svg" "$q/plots/index.svg" 2>/dev/null && ok ||
    bad "no plots in a directory whose name has an apostrophe"
else
  echo "gnuplot not installed: the apostrophe case skipped"
fi

# --- bad arguments found before the run ---
"$R" run yaml/default.yaml -o "" -q 2>"$tmp/e.err"; rc=$?
[ $rc -eq 2 ] && grep -q "empty" "$tmp/e.err" && ok ||
  bad "-o '': exit $rc ($(head -c 200 "$tmp/e.err"))"
"$R" run --resume "" -q 2>"$tmp/e.err"; rc=$?
[ $rc -eq 2 ] && ok || bad "--resume '': exit $rc"
# a sweep whose data file is missing: exit 2, no directory (as one run)
"$R" run yaml/uci_boston_20splits.yaml -o "$tmp/deep/sw" -q \
  --set data.path="$tmp/nope.csv" 2>"$tmp/e.err"; rc=$?
[ $rc -eq 2 ] && grep -q "nope.csv" "$tmp/e.err" && ok ||
  bad "sweep with a missing data file: exit $rc ($(head -c 200 "$tmp/e.err"))"
[ ! -e "$tmp/deep" ] && ok || bad "sweep with a missing data file created a directory"
"$R" run yaml/uci_boston.yaml -o "$tmp/deep1/r" -q \
  --set data.path="$tmp/nope.csv" 2>/dev/null; rc=$?
[ $rc -eq 2 ] && [ ! -e "$tmp/deep1" ] && ok ||
  bad "run with a missing data file: exit $rc or created a directory"
# a gzip CSV that inflates beyond the bound (256 MiB): refused, named
python3 -c '
import gzip, sys
row = b"1.5,2.5,3.5\n"
with gzip.open(sys.argv[1], "wb", compresslevel=9) as f:
    blk = row * (1 << 20)
    for _ in range(300 * (1 << 20) // len(blk) + 1):
        f.write(blk)
' "$tmp/bomb.csv.gz"
"$R" run yaml/uci_boston.yaml -o "$tmp/gz" -q --set data.path="$tmp/bomb.csv.gz" \
  --set data.skip_rows=0 --set data.header=no --set data.target_column=2 \
  2>"$tmp/e.err"; rc=$?
[ $rc -eq 2 ] && grep -q "bomb.csv.gz: inflates to more than 256 MiB" "$tmp/e.err" &&
  ok || bad "gzip bomb: exit $rc ($(head -c 300 "$tmp/e.err"))"
[ ! -e "$tmp/gz" ] && ok || bad "gzip bomb: a directory was created"

# --- every output file is strict JSON: non-finite numbers, odd names ---
strict_json() { # file [expected source]
  python3 - "$@" <<'PY'
import json, sys
def no(c): raise ValueError("not JSON: " + c)
d = json.loads(open(sys.argv[1], encoding="utf-8").read(), parse_constant=no)
if len(sys.argv) > 2 and d["source"] != sys.argv[2]:
    raise SystemExit("source is %r, expected %r" % (d["source"], sys.argv[2]))
PY
}
"$R" run yaml/mlp_synthetic.yaml --set iterations=2000 --set ladder.eta=1 \
  --set faults.policy=rollback -o "$tmp/nan" -q --no-plots ||
  bad "the diverging rollback run failed"
grep -q '"nll": null, "nll_not_finite": "nan"' "$tmp/nan/summary.json" && ok ||
  bad "the diverging run's nll is not null with its reason"
strict_json "$tmp/nan/summary.json" && ok || bad "summary.json with a NaN is not JSON"
odd="$tmp/we\"ird\\name
.yaml"
cp yaml/default.yaml "$odd"
"$R" run "$odd" -o "$tmp/odd" "${short[@]}" --no-plots || bad "run of $odd failed"
strict_json "$tmp/odd/summary.json" "$odd" && ok ||
  bad "summary.json of a file name with a quote, backslash and newline"

# --- --force replaces only a directory replex wrote ---
mkdir -p "$tmp/p/work" "$tmp/p/userdir" "$tmp/p/home"
echo keep > "$tmp/p/beside"; echo keep > "$tmp/p/userdir/data"
echo keep > "$tmp/p/home/notes"
for o in . .. "$tmp/p/work" "$tmp/p/userdir" "$tmp/p/beside" "$tmp/p/home"; do
  (cd "$tmp/p/work" && HOME="$tmp/p/home" "$R" run "$src/yaml/default.yaml" \
     -o "$o" --force "${short[@]}" --no-plots 2>"$tmp/e.err"); rc=$?
  [ $rc -eq 2 ] && grep -q "force" "$tmp/e.err" && ok ||
    bad "-o $o --force: exit $rc ($(head -c 200 "$tmp/e.err"))"
  [ -f "$tmp/p/beside" ] && [ -f "$tmp/p/userdir/data" ] &&
    [ -f "$tmp/p/home/notes" ] && [ -d "$tmp/p/work" ] &&
    [ -z "$(ls -A "$tmp/p/work")" ] && ok || bad "-o $o --force touched files"
done
# a sweep with --force into a directory replex did not write
"$R" run yaml/sweep_s_2d.yaml -o "$tmp/p/userdir" --force "${short[@]}" \
  --no-plots 2>/dev/null; rc=$?
[ $rc -eq 2 ] && [ "$(ls -A "$tmp/p/userdir")" = data ] && ok ||
  bad "sweep --force into a user directory: exit $rc"
# a run directory replex wrote is still replaced
"$R" run yaml/default.yaml -o "$tmp/p/run" "${short[@]}" --no-plots &&
  touch "$tmp/p/run/old" &&
  "$R" run yaml/default.yaml -o "$tmp/p/run" --force "${short[@]}" --no-plots &&
  [ ! -e "$tmp/p/run/old" ] && [ -s "$tmp/p/run/summary.json" ] && ok ||
  bad "--force did not replace a replex run directory"

echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]
