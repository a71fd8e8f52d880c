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
# the split's rows: 51 test rows (int64) beside the run's samples
"$R" run yaml/uci_boston.yaml -o "$tmp/rows" -q --threads 1 \
  --set iterations=20 --set record.burn_in=10 --set record.thin=1 \
  2>/dev/null && [ -s "$tmp/rows/test_rows.npy" ] &&
  [ "$(python3 -c 'import sys; b=open(sys.argv[1],"rb").read(); print(b[10:10+b[8]].decode().split("shape")[1].strip()[3:10])' \
      "$tmp/rows/test_rows.npy")" = "(51, 1)" ] &&
  [ -s "$tmp/rows/train_rows.npy" ] && ok || bad "test_rows.npy of a split run"
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
  --set faults.policy=rollback --set record.burn_in=0 -o "$tmp/nan" -q \
  --no-plots ||
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

# --- a live run's DIR.partial is locked; a dead run's temporaries go ---
live=(yaml/mixture25_deo_star.yaml -q --no-plots --set iterations=4000000
      --set checkpoint.every=20000)
"$R" run "${live[@]}" -o "$tmp/l/run" &
pid=$!
for _ in $(seq 1 3000); do [ -f "$tmp/l/run.partial/checkpoint.bin" ] && break; sleep 0.01; done
for how in "" --force --resume; do
  if [ "$how" = --resume ]; then args=(run --resume "$tmp/l/run" -q --no-plots)
  else args=(run "${live[@]}" -o "$tmp/l/run" $how); fi
  timeout 30 "$R" "${args[@]}" 2>"$tmp/e.err"; rc=$?
  [ $rc -eq 2 ] && grep -q "in use by a running replex (process $pid)" "$tmp/e.err" &&
    ok || bad "second owner ($how): exit $rc ($(head -c 300 "$tmp/e.err"))"
done
kill -0 "$pid" 2>/dev/null && ok || bad "the first run did not survive a second owner"
kill -9 "$pid" 2>/dev/null; wait "$pid" 2>/dev/null
# the killed run's temporaries: its PID is gone and its lock free
mkdir "$tmp/l/run.tmp-$pid" "$tmp/l/run.probe-$pid" "$tmp/l/run.tmp-$$" \
  "$tmp/l/run.tmp-999999999"
touch "$tmp/l/run.tmp-$pid/.replex" "$tmp/l/run.tmp-$pid/samples.npy" \
  "$tmp/l/run.tmp-$$/.replex" "$tmp/l/run.tmp-999999999/mine"
"$R" run --resume "$tmp/l/run" -q --no-plots 2>"$tmp/e.err" &
pid2=$!
# (both: the resume removes them one after the other)
for _ in $(seq 1 3000); do
  [ ! -e "$tmp/l/run.tmp-$pid" ] && [ ! -e "$tmp/l/run.probe-$pid" ] && break
  sleep 0.01
done
kill -9 "$pid2" 2>/dev/null; wait "$pid2" 2>/dev/null
[ ! -e "$tmp/l/run.tmp-$pid" ] && [ ! -e "$tmp/l/run.probe-$pid" ] && ok ||
  bad "resume left a dead run's temporaries: $(ls -d "$tmp"/l/run.* | tr '\n' ' ')"
[ -d "$tmp/l/run.tmp-$$" ] && [ -f "$tmp/l/run.tmp-999999999/mine" ] && ok ||
  bad "a live process's temporary or a directory replex did not write was removed"
# and a new run beside them (no checkpoint) removes them too
mkdir "$tmp/l/two.tmp-$pid2"; touch "$tmp/l/two.tmp-$pid2/.replex"
"$R" run yaml/default.yaml -o "$tmp/l/two" "${short[@]}" --no-plots &&
  [ ! -e "$tmp/l/two.tmp-$pid2" ] && ok || bad "a run left a dead run's temporary"
# the very first checkpoint fails: no claim of a previous one
( ulimit -f 8; trap '' XFSZ
  "$R" run yaml/mixture25_deo_star.yaml -o "$tmp/l/fx" -q --no-plots \
    --set iterations=400000 --set checkpoint.every=20000 2>"$tmp/e.err" ); rc=$?
[ $rc -eq 1 ] && ! grep -q "previous checkpoint is intact" "$tmp/e.err" &&
  grep -q "no checkpoint had been written yet" "$tmp/e.err" && ok ||
  bad "first checkpoint failed: exit $rc ($(head -c 300 "$tmp/e.err"))"

# --- a resume refuses a changed configuration, naming keys and values ---
"$R" run yaml/mixture25_deo_star.yaml -o "$tmp/c/run" -q --no-plots \
  --set iterations=400000 --set checkpoint.every=20000 &
pid=$!
for _ in $(seq 1 3000); do [ -f "$tmp/c/run.partial/checkpoint.bin" ] && break; sleep 0.01; done
kill -9 "$pid" 2>/dev/null; wait "$pid" 2>/dev/null
cf=$tmp/c/run.partial/config.yaml
cp "$cf" "$tmp/c/orig.yaml"
edit() { # sed-expression expected-message
  cp "$tmp/c/orig.yaml" "$cf"; sed -i "$1" "$cf"
  timeout 60 "$R" run --resume "$tmp/c/run" -q --no-plots 2>"$tmp/e.err"; rc=$?
  [ $rc -eq 2 ] && grep -qF "$2" "$tmp/e.err" && [ ! -e "$tmp/c/run" ] && ok ||
    bad "resume after '$1': exit $rc ($(head -c 400 "$tmp/e.err"))"
}
edit 's/^  rule: metropolis/  rule: deterministic/' \
  "tempering.rule: metropolis in the checkpoint, deterministic now"
edit 's/^  scheme: deo_star/  scheme: deo/' \
  "tempering.scheme: deo_star in the checkpoint, deo now"
edit 's/^  tau: {min: 1, max: 30}/  tau: {min: 1, max: 20}/' \
  "ladder.tau: {min: 1, max: 30} in the checkpoint, {min: 1, max: 20} now"
edit 's/^  energy_noise_sd: 0$/  energy_noise_sd: 0.5/' \
  "target.energy_noise_sd: 0 in the checkpoint, 0.5 now"
edit 's/^  thin: 10$/  thin: 5/' "record.thin: 10 in the checkpoint, 5 now"
edit 's/^  scheme: deo_star/  scheme: deo/; s/^  rule: metropolis/  rule: bernoulli/' \
  "in 2 keys: tempering.scheme: deo_star in the checkpoint, deo now; tempering.rule: metropolis in the checkpoint, bernoulli now"
# -o elsewhere with --resume
cp "$tmp/c/orig.yaml" "$cf"
"$R" run --resume "$tmp/c/run" -o "$tmp/c/other" -q --no-plots 2>"$tmp/e.err"; rc=$?
[ $rc -eq 2 ] && grep -q "not allowed" "$tmp/e.err" && [ ! -e "$tmp/c/other" ] &&
  ok || bad "--resume DIR -o OTHER: exit $rc ($(head -c 200 "$tmp/e.err"))"
# keys that do not change results may differ: threads, checkpoint.every
sed -i 's/^threads: 0/threads: 1/; s/^  every: 20000/  every: 40000/' "$cf"
"$R" run --resume "$tmp/c/run" -q --no-plots --threads 2 --set iterations=1 \
  2>/dev/null && bad "--resume with --set was accepted"
"$R" run --resume "$tmp/c/run" -q --no-plots --threads 2 &
pid=$!
for _ in $(seq 1 300); do
  [ -f "$tmp/c/run.partial/lock" ] && grep -q "^$pid$" "$tmp/c/run.partial/lock" 2>/dev/null &&
    break; sleep 0.01; done
sleep 0.5
if kill -0 "$pid" 2>/dev/null; then ok; kill -9 "$pid"; wait "$pid" 2>/dev/null
else wait "$pid"; rc=$?; [ $rc -eq 0 ] && ok || bad "resume with other threads and checkpoint.every: exit $rc"; fi

echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]
