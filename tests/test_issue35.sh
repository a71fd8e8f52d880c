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

# wait_lock DIR.partial: until a live run has written its PID in the lock
wait_lock() {
  for _ in $(seq 1 200); do
    [ -s "$1/lock" ] && return 0; sleep 0.05
  done; return 1
}
long=(--no-plots -q --threads 1 --set iterations=600000)

# --- 3. a run without checkpoints honours a live run's lock ---
cd "$tmp" || exit 1
"$R" run "$src/yaml/default.yaml" -o c "${long[@]}" \
  --set checkpoint.every=50000 2>"$tmp/a.err" & pa=$!
wait_lock c.partial || bad "the checkpointing run took no lock"
"$R" run "$src/yaml/default.yaml" -o c --no-plots -q --set iterations=300 \
  --set checkpoint.every=0 2>"$tmp/b.err"; rb=$?
"$R" run "$src/yaml/default.yaml" -o c --no-plots -q --set iterations=300 \
  --set checkpoint.every=0 --force 2>>"$tmp/b.err"; rf=$?
wait $pa; ra=$?
[ $rb -eq 2 ] && [ $rf -eq 2 ] &&
  grep -q "c.partial is in use by a running replex (process $pa)" "$tmp/b.err" &&
  ok || bad "a plain run beside a checkpointing one: exit $rb/$rf ($(head -c 300 "$tmp/b.err"))"
[ $ra -eq 0 ] && [ -s c/summary.json ] && [ ! -e c.partial ] && ok ||
  bad "the checkpointing run lost its output: exit $ra ($(head -c 300 "$tmp/a.err"))"
grep -q '"iterations": 600000' c/config.yaml c/summary.json 2>/dev/null ||
  grep -q 'iterations: 600000' c/config.yaml && ok ||
  bad "c holds another run's output"
# and the other way round, two plain runs: the second is refused, named
"$R" run "$src/yaml/default.yaml" -o p "${long[@]}" 2>"$tmp/a.err" & pa=$!
wait_lock p.partial || bad "a plain run took no lock"
"$R" run "$src/yaml/default.yaml" -o p --force --no-plots -q \
  --set iterations=300 2>"$tmp/b.err"; rb=$?
wait $pa; ra=$?
[ $rb -eq 2 ] && grep -q "in use by a running replex (process $pa)" "$tmp/b.err" &&
  [ $ra -eq 0 ] && [ -s p/summary.json ] && [ ! -e p.partial ] && ok ||
  bad "two plain runs: exit $ra/$rb ($(head -c 300 "$tmp/b.err"))"
# a plain run killed leaves a lock no one holds: the next run goes on
"$R" run "$src/yaml/default.yaml" -o k "${long[@]}" 2>/dev/null & pa=$!
wait_lock k.partial; kill -9 $pa; wait $pa 2>/dev/null
"$R" run "$src/yaml/default.yaml" -o k --no-plots -q --set iterations=300 \
  --set checkpoint.every=100 2>"$tmp/b.err" && [ -s k/summary.json ] &&
  [ ! -e k.partial ] && ok ||
  bad "a killed plain run's lock blocked the next run ($(head -c 300 "$tmp/b.err"))"

# (second pass) DIR.partial or its lock a link: refused, never written
# through (the lock file is truncated and removed)
mkdir -p "$tmp/victim" && echo precious >"$tmp/victim/lock"
ln -s "$tmp/victim" "$tmp/l1.partial"
"$R" run "$src/yaml/gmm_1d_two_modes.yaml" -o "$tmp/l1" -q --no-plots \
  --set iterations=3000 2>"$tmp/e.err"; rc=$?
[ $rc -eq 2 ] && grep -q "l1.partial is a symbolic link" "$tmp/e.err" &&
  [ "$(cat "$tmp/victim/lock")" = precious ] && ok ||
  bad "a linked DIR.partial: exit $rc, victim/lock: $(cat "$tmp/victim/lock" 2>&1)"
mkdir -p "$tmp/l2.partial" && ln -s ../victim/lock "$tmp/l2.partial/lock"
"$R" run "$src/yaml/gmm_1d_two_modes.yaml" -o "$tmp/l2" -q --no-plots \
  --set iterations=3000 --set checkpoint.every=100 2>/dev/null; rc=$?
[ $rc -eq 2 ] && [ "$(cat "$tmp/victim/lock")" = precious ] && ok ||
  bad "a linked DIR.partial/lock: exit $rc"

# --- 4. concurrent --force replicates never mix their outputs ---
"$R" run "$src/yaml/default.yaml" -o cc --force "${long[@]}" \
  --set iterations=150000 --set replicates=4 2>"$tmp/a.err" & pa=$!
wait_lock cc.partial || bad "replicates took no lock"
"$R" run "$src/yaml/default.yaml" -o cc --force --no-plots -q \
  --set iterations=300 --set replicates=2 --set seed=7 2>"$tmp/b.err"; rb=$?
"$R" run "$src/yaml/default.yaml" -o cc --force --no-plots -q \
  --set iterations=300 2>>"$tmp/b.err"; rc1=$?
wait $pa; ra=$?
[ $rb -eq 2 ] && [ $rc1 -eq 2 ] &&
  grep -q "cc.partial is in use by a running replex (process $pa)" "$tmp/b.err" &&
  ok || bad "concurrent --force replicates: exit $rb/$rc1 ($(head -c 300 "$tmp/b.err"))"
[ $ra -eq 0 ] && [ "$(ls -d cc/rep-* | wc -l)" -eq 4 ] &&
  grep -qx "seed: 12345" cc/rep-00/config.yaml && [ ! -e cc.partial ] && ok ||
  bad "the first replicates run lost or mixed its output: exit $ra"
cd "$src" || exit 1

# --- 5. inference.nc that cannot be written: a message, no crash ---
cd "$tmp" || exit 1
for f in 8 16 24; do
  (trap '' XFSZ; ulimit -f $f; exec "$R" run "$src/yaml/gmm_1d_two_modes.yaml" \
     -o u$f --no-plots -q --threads 1 --set iterations=3000 \
     --set record.index_every=0) 2>"$tmp/e.err"; rc=$?
  [ $rc -eq 1 ] && grep -q "inference.nc: .*File too large" "$tmp/e.err" &&
    [ ! -e u$f ] && ok ||
    bad "inference.nc over a $f KiB file-size limit: exit $rc ($(head -c 300 "$tmp/e.err"))"
done
cd "$src" || exit 1

# --- 6. SIGINT/SIGTERM just after a periodic checkpoint: no hang ---
# (40 tries on 1-3 threads here; scripts/signal_loop.sh runs any number)
bash "$src/scripts/signal_loop.sh" "$R" "${RX_SIGNAL_TRIES:-40}" >"$tmp/sig.log" 2>&1 && ok ||
  bad "signal loop: $(tail -3 "$tmp/sig.log")"

# --- 8. --resume refuses changed data: the data file, the test rows ---
cd "$tmp" || exit 1
cp "$src/data/uci/boston_house_prices.csv" d.csv
printf '0 5 10 15 20 25 30 35 40 45\n' >rows.txt
net=(--no-plots -q --threads 1 --set data.path="$tmp/d.csv"
     --set checkpoint.every=200 --set iterations=2000000)
interrupt_run() { # DIR [sets...]: a run stopped by SIGINT after a checkpoint
  local d=$1; shift
  "$R" run "$src/yaml/uci_boston.yaml" -o "$d" "${net[@]}" "$@" 2>/dev/null & local p=$!
  for _ in $(seq 1 200); do [ -s "$d.partial/checkpoint.bin" ] && break; sleep 0.05; done
  kill -INT $p; wait $p
}
interrupt_run n1
sed -i '5s/^[^,]*,/0.5,/' d.csv
timeout -s INT 30 "$R" run --resume n1 -q --no-plots --threads 1 2>"$tmp/e.err"; rc=$?
[ $rc -eq 2 ] && grep -q "data.path contents: digest [0-9a-f]* (.* bytes) in the checkpoint, digest" "$tmp/e.err" &&
  ok || bad "resume after the data file changed: exit $rc ($(head -c 400 "$tmp/e.err"))"
cp "$src/data/uci/boston_house_prices.csv" d.csv
interrupt_run n2 --set data.test_rows="$tmp/rows.txt"
printf '1 5 10 15 20 25 30 35 40 45\n' >rows.txt
timeout -s INT 30 "$R" run --resume n2 -q --no-plots --threads 1 2>"$tmp/e.err"; rc=$?
[ $rc -eq 2 ] && grep -q "data.test_rows contents: digest" "$tmp/e.err" &&
  ok || bad "resume after the test rows changed: exit $rc ($(head -c 400 "$tmp/e.err"))"
# the same files: the resume is accepted (and runs on: stopped again)
printf '0 5 10 15 20 25 30 35 40 45\n' >rows.txt
"$R" run --resume n2 -q --no-plots --threads 1 2>"$tmp/e.err" & p=$!
sleep 1; kill -INT $p 2>/dev/null; wait $p; rc=$?
[ $rc -le 1 ] && ! grep -q "differs" "$tmp/e.err" && ok ||
  bad "resume with unchanged data refused: exit $rc ($(head -c 400 "$tmp/e.err"))"
cd "$src" || exit 1

# --- 9. sweep values are passed as they were written ---
mkdir -p "$tmp/sw" && cd "$tmp/sw" || exit 1
cp "$src/data/uci/boston_house_prices.csv" d.csv
head -300 d.csv >"d.csv #2"
sed -e 's|^iterations:.*|iterations: 200|' -e 's|^  path: .*|  path: d.csv|' \
    -e 's|^  burn_in: .*|  burn_in: 10|' "$src/yaml/uci_boston.yaml" >s.yaml
printf 'sweep: {data.path: ["d.csv #2", "d.csv"]}\n' >>s.yaml
"$R" run s.yaml -o out -q --no-plots --threads 1 --set data.batch_size=50 \
  2>"$tmp/e.err" || bad "the sweep failed ($(head -c 300 "$tmp/e.err"))"
grep -q '^  path: "d.csv #2"' out/run-001/config.yaml 2>/dev/null && ok ||
  bad "a sweep value with '#' was cut at its comment"
cd "$src" || exit 1

# --- 10. log Z is not valid when the beta = 0 chain cannot sample its
# reference: the 2-D gmm (log Z = 0) with reference sd 100 and 1000 gave
# 1.20 +- 0.28 and 5.85 +- 0.28, "valid"; sd 3 is right and stays valid ---
for sd in 3 100 1000; do
  "$R" run yaml/gmm_2d.yaml -o "$tmp/lz$sd" --no-plots --set ladder.path=reference \
    --set ladder.reference_sd=$sd >"$tmp/lz.out" 2>/dev/null ||
    bad "the reference-path run with reference_sd $sd failed"
  if [ $sd = 3 ]; then
    grep -q '"log_z": {"valid": true, "estimate"' "$tmp/lz$sd/summary.json" &&
      grep -q '^log Z (stepping stone): -\{0,1\}[0-9.]* +- [0-9.]* (se)$' \
        "$tmp/lz.out" && ok || bad "reference sd 3: log Z not valid"
  else
    why='the beta = 0 chain does not sample its reference: the mean of its U_0'
    grep -q "\"log_z\": {\"valid\": false, \"reason\": \"$why" \
      "$tmp/lz$sd/summary.json" &&
      grep -q "^log Z (stepping stone): not valid: $why .*narrower than the reference" \
        "$tmp/lz.out" && ok ||
      bad "reference sd $sd: log Z valid: $(grep '^log Z' "$tmp/lz.out")"
  fi
done

# --- 11. lp in inference.nc is the log target density on both paths ---
pync=python3; /usr/bin/python3 -c 'import netCDF4, yaml' 2>/dev/null && pync=/usr/bin/python3
for path in reference temperature; do
  "$R" run yaml/gmm_2d.yaml -o "$tmp/lp-$path" -q --no-plots \
    --set ladder.path=$path --set iterations=20000 --set ladder.reference_sd=5 \
    2>/dev/null
  out=$("$pync" "$src/tests/check_lp_gmm.py" "$tmp/lp-$path"); rc=$?
  if [ $rc -eq 77 ]; then echo "numpy/netCDF4/yaml missing: lp check skipped"
  elif [ $rc -eq 0 ]; then ok
  else bad "lp on the $path path is not the log target density ($out)"; fi
done

# --- 12. a CSGLD run's figures: weighted beside the unweighted draws' ---
"$R" run yaml/csgld_gmm_1d.yaml -o "$tmp/cs" -q --no-plots --set seed=201 \
  --set iterations=2000000 2>/dev/null
python3 - "$tmp/cs/summary.json" <<'P' && ok || bad "CSGLD figures from unweighted draws"
import json, sys
d = json.load(open(sys.argv[1]))
m, g = d["modes"], d["density"]
assert m["weights_est_draws"] == "unweighted" and g["tv_distance_draws"] == "unweighted"
assert m["max_abs_error_weighted"] < 0.04 < m["max_abs_error"], m
assert g["tv_distance_weighted"] < 0.15 < g["tv_distance"], g
P
# (16) its inference.nc no larger than its data: theta, lp, log_weight
nc=$(stat -c %s "$tmp/cs/inference.nc"); smp=$(stat -c %s "$tmp/cs/samples.npy")
wts=$(stat -c %s "$tmp/cs/weights.npy")
[ "$nc" -le $((smp + 2 * wts)) ] && ok ||
  bad "inference.nc of $nc bytes for $((smp + 2 * wts)) bytes of data"

# --- 14. a run on the default length says when it has not converged ---
printf 'target:\n  kind: gmm\n  weights: [0.6, 0.3, 0.1]\n  means: [[-3, -3, -3], [3, 3, 3], [0, 5, 0]]\n  scales: [[0.5, 0.5, 0.5], [0.5, 0.5, 0.5], [0.5, 0.5, 0.5]]\n' \
  >"$tmp/mix3.yaml"
"$R" run "$tmp/mix3.yaml" -o "$tmp/m3" --no-plots >/dev/null 2>"$tmp/e.err"
grep -q "warning: not converged: the smallest bulk ESS is [0-9]* and the smallest tail ESS [0-9]*" "$tmp/e.err" &&
  grep -q '"enough": false' "$tmp/m3/summary.json" && ok ||
  bad "a default-length run of a 3-mode target did not say it has not converged"
"$R" run "$tmp/mix3.yaml" -o "$tmp/m3l" --no-plots --set iterations=100000 \
  >/dev/null 2>"$tmp/e.err"
! grep -q "not converged" "$tmp/e.err" && grep -q '"enough": true' "$tmp/m3l/summary.json" &&
  ok || bad "a long run of the 3-mode target called unconverged"

# --- 15. validate refuses what run refuses: replicates beside a sweep ---
{ cat yaml/gmm_1d_two_modes.yaml; printf 'replicates: 3\nsweep: {seed: [1, 2]}\n'; } \
  >"$tmp/rs.yaml"
"$R" validate "$tmp/rs.yaml" >/dev/null 2>"$tmp/e.err"; rc=$?
[ $rc -eq 2 ] && grep -q "replicates: 3 with a sweep: block" "$tmp/e.err" && ok ||
  bad "validate of replicates with a sweep: exit $rc"

# --- 16. messages that say what is there ---
mkdir -p "$tmp/dir.yaml"
"$R" validate "$tmp/dir.yaml" 2>"$tmp/e.err"; rc=$?
[ $rc -eq 2 ] && grep -q "dir.yaml: is a directory" "$tmp/e.err" && ok ||
  bad "a directory as the YAML file: exit $rc ($(head -c 200 "$tmp/e.err"))"
printf '1 2\0003 4\n' >"$tmp/nul.txt"
"$R" validate yaml/uci_boston.yaml --set data.test_rows="$tmp/nul.txt" \
  >/dev/null 2>"$tmp/e.err"; rc=$?
[ $rc -eq 2 ] && grep -qF 'nul.txt:1:3: "2\x003" is not a row number' "$tmp/e.err" &&
  ok || bad "a NUL byte in a test-rows file: exit $rc ($(head -c 200 "$tmp/e.err"))"
"$R" run yaml/gmm_1d_two_modes.yaml -o "$tmp/rep" -q --no-plots \
  --set iterations=3000 --set replicates=2 2>/dev/null
python3 - "$tmp/rep/summary.json" <<'P' && ok || bad "replicates' ess_*_min not in the shortest exact form"
import re, sys
t = open(sys.argv[1]).read()
digits = lambda s: len(re.sub(r"e.*|[^0-9]", "", s).strip("0"))
n = 0
for m in re.finditer(r'"ess_(bulk|tail)_min": ([-0-9.e+]+)', t):
    n += 1
    if digits(m.group(2)) > digits(repr(float(m.group(2)))):
        raise SystemExit("ess min printed as " + m.group(2))
if n < 4:
    raise SystemExit("ess minima missing")
P
# SIGKILL of bench: its forked cell goes too, and no DIR is left
cd "$tmp" || exit 1
"$R" bench "$G" -o bk -q --iterations 20000000 2>/dev/null & p=$!
sleep 1.5; kill -9 $p; wait $p 2>/dev/null; sleep 0.5
if pgrep -f -- "-o bk -q --iterations 20000000" >/dev/null; then
  bad "a killed bench left its cell running"
  pkill -9 -f -- "-o bk -q --iterations 20000000"
else ok; fi
[ ! -e bk ] && ok || bad "a killed bench left an empty DIR"
cd "$src" || exit 1

# --- 7. memory bounds: the trace, data files that never end ---
"$R" validate yaml/gmm_2d.yaml --set iterations=1e9 \
  --set tempering.n_chains=64 --set record.index_every=0 \
  --set record.thin=100000 >/dev/null 2>"$tmp/e.err"; rc=$?
[ $rc -eq 2 ] && grep -q "record.trace_every.*the trace would take 24.3 GiB in memory (limit 8 GiB)" "$tmp/e.err" &&
  ok || bad "an unbounded trace: validate exit $rc ($(head -c 300 "$tmp/e.err"))"
for key in data.path data.test_rows; do
  (ulimit -v 3000000; exec "$R" run yaml/uci_boston.yaml -o "$tmp/z" -q \
     --no-plots --set $key=/dev/zero) 2>"$tmp/e.err"; rc=$?
  [ $rc -eq 2 ] && grep -q "/dev/zero: more than 1024 MiB, the bound for a data file" "$tmp/e.err" &&
    [ ! -e "$tmp/z" ] && ok ||
    bad "$key on /dev/zero: exit $rc ($(head -c 300 "$tmp/e.err"))"
done

echo "issue 35: $pass passed, $fail failed"
[ $fail -eq 0 ]
