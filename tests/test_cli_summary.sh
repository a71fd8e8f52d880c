#!/usr/bin/env bash
# `replex summary DIR`: the table `replex run` printed at the end, line
# for line, read back from a run, a replicates, a network (its test
# metrics) and a sweep directory; what is not a finished run directory
# refused with exit 2 and a message that says what it is; --json and
# --csv give the same rows for a program.
set -u
cd "$RX_SRCDIR"
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
pass=0; fail=0
ok() { pass=$((pass+1)); }
bad() { echo "FAIL: $*"; fail=$((fail+1)); }
R=$RX_REPLEX
gmm=tests/data/gmm10_four_modes.yaml

# The block of a run's stdout from its first table line ("test set" of a
# network, else "parameters (") to the end; the note naming the files
# without its directory (summary names DIR/summary.csv).
block() {
  sed -n '/^test set (\|^parameters (/,$p' "$1" |
    sed 's|every row is in .*summary\.csv and summary\.json|every row is in summary.csv and summary.json|'
}
# same_table NAME RUN_STDOUT DIR: summary DIR prints the run's block
same_table() {
  "$R" summary "$3" > "$tmp/$1.sum" 2> "$tmp/$1.err"; local rc=$?
  [ $rc -eq 0 ] && ok || bad "$1: summary exit $rc: $(cat "$tmp/$1.err")"
  block "$2" > "$tmp/$1.want"
  block "$tmp/$1.sum" > "$tmp/$1.got"
  [ -s "$tmp/$1.want" ] && ok || bad "$1: the run printed no table"
  if cmp -s "$tmp/$1.want" "$tmp/$1.got"; then ok
  else bad "$1: summary differs from the run's table:"
    diff "$tmp/$1.want" "$tmp/$1.got" | head -20; fi
}

# 1. a run: the rows, the coordinates note and both warnings
"$R" run $gmm -o "$tmp/run" --no-plots --threads 1 \
  --set iterations=6000 > "$tmp/run.out" 2>/dev/null || bad "run failed"
same_table run "$tmp/run.out" "$tmp/run"
grep -q "every row is in $tmp/run/summary.csv" "$tmp/run.sum" && ok ||
  bad "the note does not name $tmp/run/summary.csv"
[ "$(grep -c '^warning: ' "$tmp/run.sum")" -eq 2 ] && ok ||
  bad "expected the ESS and the R-hat warnings"

# 2. a replicates directory: the table over the copies
"$R" run $gmm -o "$tmp/rep" --no-plots --threads 1 --set iterations=3000 \
  --set replicates=3 > "$tmp/rep.out" 2>/dev/null || bad "replicates failed"
same_table rep "$tmp/rep.out" "$tmp/rep"
grep -q '^parameters (3 replicates x' "$tmp/rep.sum" && ok ||
  bad "replicates: no '3 replicates' header"

# 3. a network: its test metrics first, lp and the precisions judged
"$R" run yaml/mlp_synthetic.yaml -o "$tmp/net" --no-plots --threads 1 \
  --set iterations=400 --set record.burn_in=0 --set record.thin=10 \
  > "$tmp/net.out" 2>/dev/null || bad "network run failed"
same_table net "$tmp/net.out" "$tmp/net"
head -1 "$tmp/net.sum" | grep -q '^test set (100 examples, average of 40 models): RMSE' &&
  ok || bad "network: no test metrics line: $(head -1 "$tmp/net.sum")"
grep -q '^  noise_precision ' "$tmp/net.sum" && ok || bad "network: no noise_precision row"
grep -q '^  noise_sd ' "$tmp/net.sum" && ok || bad "network: no noise_sd row"
grep -q "not identifiable" "$tmp/net.sum" && ok || bad "network: no identifiability note"
# a classifier's metrics (accuracy, NLL, ECE), where the data are here
if [ -f data/uci/breast_cancer.csv ]; then
  "$R" run yaml/uci_breast_cancer.yaml -o "$tmp/cls" --no-plots --threads 1 \
    --set iterations=400 --set record.burn_in=0 --set record.thin=10 \
    > "$tmp/cls.out" 2>/dev/null || bad "classifier run failed"
  same_table cls "$tmp/cls.out" "$tmp/cls"
  grep -q '^test set (.*accuracy .*ECE' "$tmp/cls.sum" && ok || bad "classifier metrics"
fi

# a weighted sampler (CSGLD): its header says the weights are used
"$R" run yaml/csgld_gmm_1d.yaml -o "$tmp/cs" --no-plots --threads 1 \
  --set iterations=20000 > "$tmp/cs.out" 2>/dev/null || bad "csgld run failed"
same_table cs "$tmp/cs.out" "$tmp/cs"
grep -q '^parameters (2000 draws, weighted by the bias' "$tmp/cs.sum" && ok ||
  bad "csgld: header without the weights"

# 4. a sweep directory: each run's table under its sweep values
cat > "$tmp/s.yaml" <<'Y'
iterations: 2000
tempering: {n_chains: 4}
ladder: {eta: 0.003, tau: {min: 1, max: 10}}
record: {thin: 5}
sweep:
  seed: [5, 6]
  tempering.scheme: [deo]
Y
"$R" run "$tmp/s.yaml" -o "$tmp/sw" -q --no-plots || bad "sweep run failed"
"$R" summary "$tmp/sw" > "$tmp/sw.sum" 2> "$tmp/sw.err"; rc=$?
[ $rc -eq 0 ] && ok || bad "sweep: exit $rc: $(cat "$tmp/sw.err")"
grep -q "^$tmp/sw/run-001: seed=5 tempering.scheme=deo:\$" "$tmp/sw.sum" && ok ||
  bad "sweep: no run-001 heading"
grep -q "^$tmp/sw/run-002: seed=6 tempering.scheme=deo:\$" "$tmp/sw.sum" && ok ||
  bad "sweep: no run-002 heading"
[ "$(grep -c '^parameters (' "$tmp/sw.sum")" -eq 2 ] && ok || bad "sweep: expected 2 tables"
"$R" summary "$tmp/sw/run-002" > "$tmp/sw2.sum" 2>/dev/null
sed -n '/run-002: seed=6 tempering.scheme=deo:$/,$p' "$tmp/sw.sum" | tail -n +2 | cmp -s - "$tmp/sw2.sum" &&
  ok || bad "sweep: run-002's table differs from summary of run-002"

# 5. refused, exit 2, one line saying why
refuse() {  # WHAT PATTERN ARGS...
  local what=$1 pat=$2; shift 2
  "$R" summary "$@" > "$tmp/r.out" 2> "$tmp/r.err"; local rc=$?
  [ $rc -eq 2 ] && ok || bad "$what: exit $rc, want 2"
  grep -q -- "$pat" "$tmp/r.err" && ok || bad "$what: message '$(cat "$tmp/r.err")'"
  [ ! -s "$tmp/r.out" ] && ok || bad "$what: printed on stdout"
}
refuse "no operand" "summary: missing DIR"
refuse "two operands" "unexpected argument" "$tmp/run" "$tmp/rep"
refuse "no such dir" "summary: $tmp/nothing: No such file or directory" "$tmp/nothing"
mkdir "$tmp/plain"
refuse "not a run dir" "not a run directory (it has no .replex file)" "$tmp/plain"
refuse "a file" "not a directory" "$tmp/s.yaml"
mkdir "$tmp/gone.partial"
refuse "interrupted run" "gone.partial holds an interrupted run: finish it with .replex run --resume $tmp/gone." "$tmp/gone"
cp -r "$tmp/run" "$tmp/half" && rm "$tmp/half/summary.json"
refuse "half-written run" "$tmp/half: no summary.json: the run did not finish" "$tmp/half"
cp -r "$tmp/run" "$tmp/cut" && head -c 3000 "$tmp/run/summary.json" > "$tmp/cut/summary.json"
refuse "truncated summary" "$tmp/cut/summary.json:[0-9]*:[0-9]*: invalid YAML" "$tmp/cut"
cp -r "$tmp/run" "$tmp/old" && sed -i 's/"parameters":/"parameterz":/' "$tmp/old/summary.json"
refuse "no parameters block" "summary.json: no \"parameters\" block" "$tmp/old"
cp -r "$tmp/run" "$tmp/bent" && sed -i 's/"ess_tail": [0-9.e+-]*/"ess_tail": "x"/' "$tmp/bent/summary.json"
refuse "bad number" "$tmp/bent/summary.json:[0-9]*:[0-9]*: parameters.rows\[0\]: \"ess_tail\": expected a number" "$tmp/bent"
cp -r "$tmp/run" "$tmp/norow" && sed -i 's/"q50": [0-9.e+-]*, //' "$tmp/norow/summary.json"
refuse "missing column" "parameters.rows\[0\]: no \"q50\"" "$tmp/norow"
printf 'replex bench directory (--force may replace it)\n' > "$tmp/plain/.replex"
refuse "bench dir" "a bench directory: its table is $tmp/plain/bench.md" "$tmp/plain"

# 6. --csv and --json: the same rows for a program. --csv is summary.csv
# byte for byte (a sweep's rows led by run and its values); --json's
# "parameters" is summary.json's block, number for number, with the
# test metrics the table prints
for d in run rep net cs; do
  "$R" summary "$tmp/$d" --csv > "$tmp/$d.csv" 2> "$tmp/$d.err" && ok ||
    bad "$d: summary --csv failed: $(cat "$tmp/$d.err")"
  cmp -s "$tmp/$d.csv" "$tmp/$d/summary.csv" && ok ||
    bad "$d: summary --csv is not summary.csv"
  "$R" summary --json "$tmp/$d" > "$tmp/$d.json" 2> "$tmp/$d.err" && ok ||
    bad "$d: summary --json failed: $(cat "$tmp/$d.err")"
done
"$R" summary --csv "$tmp/sw" > "$tmp/sw.csv" 2> "$tmp/sw.err" && ok ||
  bad "sweep: summary --csv failed: $(cat "$tmp/sw.err")"
"$R" summary --json "$tmp/sw" > "$tmp/sw.json" 2> "$tmp/sw.err" && ok ||
  bad "sweep: summary --json failed: $(cat "$tmp/sw.err")"
[ -f data/uci/breast_cancer.csv ] && "$R" summary --json "$tmp/cls" > "$tmp/cls.json"
/usr/bin/python3 - "$tmp" <<'PY' || bad "the --json / --csv documents (above)"
import json, os, sys
t = sys.argv[1]
fails = []
def check(c, what):
    if not c:
        fails.append(what)
        print("FAIL: " + what)
def no(c):
    raise ValueError("not strict JSON: " + c)
def load(p):
    with open(p) as f:
        return json.loads(f.read(), parse_constant=no)
for d, kind in (("run", "run"), ("rep", "replicates"), ("net", "run"),
                ("cs", "run")):
    j = load(os.path.join(t, d + ".json"))
    s = load(os.path.join(t, d, "summary.json"))
    check(j["dir"] == os.path.join(t, d) and j["kind"] == kind,
          "%s: dir and kind (%r, %r)" % (d, j["dir"], j["kind"]))
    check(j["parameters"] == s["parameters"],
          "%s: parameters differ from summary.json's" % d)
    check(len(j["parameters"]["rows"]) >= 2, "%s: rows" % d)
    if d == "net":
        m = s["metrics"]
        check(j["metrics"] == {"models": m["models"],
                               "test_examples": m["test_examples"],
                               "rmse": m["rmse"], "nll": m["nll"]},
              "net: metrics %r" % j["metrics"])
    else:
        check(j["metrics"] is None, "%s: metrics not null" % d)
if os.path.exists(os.path.join(t, "cls.json")):
    j = load(os.path.join(t, "cls.json"))
    m = load(os.path.join(t, "cls", "summary.json"))["metrics"]
    check(j["metrics"] == {k: m[k] for k in ("models", "test_examples",
                                             "accuracy", "nll", "ece")},
          "cls: metrics %r" % j["metrics"])
# the sweep
j = load(os.path.join(t, "sw.json"))
check(j["kind"] == "sweep" and [r["run"] for r in j["runs"]] == [1, 2],
      "sweep: kind and runs")
for i, seed in ((0, 5), (1, 6)):
    r = j["runs"][i]
    rd = os.path.join(t, "sw", "run-%03d" % (i + 1))
    check(r["dir"] == rd, "sweep: run dir %r" % r["dir"])
    check(r["sweep"] == {"seed": seed, "tempering.scheme": "deo"},
          "sweep: values %r" % r["sweep"])
    check(r["parameters"] == load(os.path.join(rd, "summary.json"))
          ["parameters"], "sweep: run %d parameters" % (i + 1))
    check(r["metrics"] is None, "sweep: metrics")
with open(os.path.join(t, "sw.csv")) as f:
    lines = f.read().splitlines()
want = []
for i, seed in ((0, 5), (1, 6)):
    with open(os.path.join(t, "sw", "run-%03d" % (i + 1), "summary.csv")) as f:
        rows = f.read().splitlines()
    if i == 0:
        want.append("run,seed,tempering.scheme," + rows[0])
    want += ["%d,%d,deo,%s" % (i + 1, seed, x) for x in rows[1:]]
check(lines == want, "sweep: --csv is not the runs' summary.csv rows led "
      "by run,seed,tempering.scheme (first line %r)" % lines[:1])
sys.exit(1 if fails else 0)
PY
[ $? -eq 0 ] && ok
refuse "--json and --csv" "--json and --csv: give one of them" --json --csv "$tmp/run"
refuse "--json, half-written" "$tmp/half: no summary.json" --json "$tmp/half"
refuse "--csv, truncated" "invalid YAML" --csv "$tmp/cut"
# a sweep with one unfinished run: nothing on stdout (refuse checks it),
# where the text form prints the runs it can
cp -r "$tmp/sw" "$tmp/swhalf" && rm "$tmp/swhalf/run-002/summary.json"
refuse "--json, a sweep run unfinished" "run-002: no summary.json" --json "$tmp/swhalf"
refuse "--csv, a sweep run unfinished" "run-002: no summary.json" --csv "$tmp/swhalf"

echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]
