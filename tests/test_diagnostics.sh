#!/usr/bin/env bash
# The diagnostics of a run (summary.json "diagnostics", the lines printed
# after `replex run`) and of replicate runs (DIR/summary.json with R-hat):
#  - the default experiment: ESS bulk/tail/tau per coordinate, Lambda
#    recomputed from the per-pair acceptance, the suggested chains
#    ceil(2 Lambda) + 1 (flagged as not applying under its deterministic
#    rule), the terminal lines;
#  - a Metropolis run: the suggestion applies and is printed;
#  - the barrier ladder: one Lambda per round, and (a run that ends with a
#    round) their length-weighted mean equals the run's Lambda; the
#    table of rounds printed at the end (the last 10 of more);
#  - CSGLD: the importance weights' ESS, as the bias block has it;
#  - record.all_positions: only the target position's rows count;
#  - replicates: 2: rep-00 (the file's seed) and rep-01 (a derived one),
#    DIR/summary.json with R-hat and pooled ESS per coordinate (checked
#    against the numpy implementation of tests/test_ess_numpy.py where
#    numpy is installed), per copy the chains suggested, log Z (reference
#    path: with their mean and sd) and weights ESS (CSGLD);
#    rep-01/config.yaml reruns it alone; replicates
#    with a sweep or with checkpoints are refused, and so is a sweep over
#    replicates; DIR/inference.nc holds one chain per replicate; --force
#    over replicates or a sweep leaves only the new runs.
set -u
cd "$RX_SRCDIR"
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
pass=0; fail=0
ok() { pass=$((pass+1)); }
bad() { echo "FAIL: $*"; fail=$((fail+1)); }
py() { python3 - "$@"; }
R="$RX_REPLEX"

# 1. the default experiment
"$R" run yaml/default.yaml -o "$tmp/def" --no-plots --threads 1 \
    > "$tmp/def.out" 2> /dev/null && ok || bad "default run failed"
py "$tmp/def/summary.json" <<'P' && ok || bad "default run's diagnostics"
import json, math, sys
s = json.load(open(sys.argv[1]))
d = s["diagnostics"]
e, b = d["ess"], d["barrier"]
assert d["draws"] == s["samples"]["count"] == 1991, d["draws"]
assert e["dim"] == 2 and e["coordinates"] == [0, 1], e
for k in ("bulk", "tail", "tau"):
    assert len(e[k]) == 2 and all(v > 0 for v in e[k]), (k, e[k])
assert e["bulk_min"] == min(e["bulk"]) and e["tau_max"] == max(e["tau"])
# ESS of 1991 kept draws of a well-mixed run: hundreds, not more than
# draws x log10(draws) (Geyer's cap)
assert 100 < e["bulk_min"] <= 1991 * math.log10(1991), e["bulk_min"]
lam = sum(1 - p["mean_accept_prob"] for p in s["swaps"]["per_pair"])
assert abs(b["lambda"] - lam) < 1e-9, (b["lambda"], lam)
assert b["suggested_chains"] == math.ceil(2 * lam) + 1, b
assert b["suggestion_applies"] is False and b["rule"] == "deterministic"
assert b["n_chains"] == 16 and "rounds" not in b
P
grep -q '^ESS (1991 target draws, 2 coordinates): bulk min [0-9]*, median [0-9]*; tail min [0-9]*; autocorrelation time max' "$tmp/def.out" \
    && ok || bad "ESS line: $(cat "$tmp/def.out")"
grep -q '^rejection summed over the 15 pairs [0-9.]* (no chain count suggested: the deterministic rule' "$tmp/def.out" \
    && ok || bad "Lambda line: $(cat "$tmp/def.out")"

# 2. Metropolis on exact energies: the suggestion applies
cat > "$tmp/m.yaml" <<'Y'
seed: 3
iterations: 4000
tempering: {n_chains: 8, scheme: deo}
ladder: {eta: 0.003, tau: {min: 1, max: 30}}
record: {thin: 2}
Y
"$R" run "$tmp/m.yaml" -o "$tmp/m" --no-plots --threads 1 > "$tmp/m.out" \
    2> /dev/null && ok || bad "metropolis run failed"
py "$tmp/m/summary.json" <<'P' && ok || bad "metropolis run's barrier"
import json, math, sys
s = json.load(open(sys.argv[1]))
b = s["diagnostics"]["barrier"]
lam = sum(1 - p["mean_accept_prob"] for p in s["swaps"]["per_pair"])
assert abs(b["lambda"] - lam) < 1e-9 and 0 < lam < 7, (b["lambda"], lam)
assert b["suggestion_applies"] is True and b["rule"] == "metropolis"
assert b["suggested_chains"] == max(2, math.ceil(2 * lam) + 1)
P
grep -q '^communication barrier Lambda [0-9.]* over 7 pairs: [0-9]* chains suggested (this run 8)$' "$tmp/m.out" \
    && ok || bad "Lambda line: $(cat "$tmp/m.out")"

# 3. the barrier ladder: rounds of 250, 500, 1000, 2000 iterations end
# at k = 3749 = K - 1, so the rounds cover the run exactly
"$R" run "$tmp/m.yaml" -o "$tmp/bar" --no-plots --threads 1 \
    --set iterations=3750 --set ladder.adapt=barrier \
    --set ladder.barrier_round=250 > "$tmp/bar.out" 2> /dev/null \
    && ok || bad "barrier run failed"
py "$tmp/bar/summary.json" "$tmp/bar.out" <<'P' && ok || bad "barrier rounds"
import json, sys
s = json.load(open(sys.argv[1]))
# the terminal's round table: one line per round, as summary.json has it
out = open(sys.argv[2]).read().splitlines()
i = out.index("barrier ladder, 4 adaptation rounds:")
assert out[i + 1].split() == ["round", "iterations", "Lambda", "chains", "suggested"]
rows = [l.split() for l in out[i + 2:i + 6]]
for x, l in zip(s["diagnostics"]["barrier"]["rounds"], rows):
    assert l == [str(x["round"]), str(x["iterations"]), "%.3f" % x["lambda"],
                 str(x["suggested_chains"])], (l, x)
b = s["diagnostics"]["barrier"]
r = b["rounds"]
assert [x["iterations"] for x in r] == [250, 500, 1000, 2000], r
assert [x["last_iteration"] for x in r] == [249, 749, 1749, 3749], r
assert all(0 < x["lambda"] < 7 for x in r), r
w = sum(x["iterations"] * x["lambda"] for x in r) / 3750
assert abs(w - b["lambda"]) < 1e-9, (w, b["lambda"])
P
# 12 rounds of 1, 2, ..., 2048 iterations: the last 10 are printed
"$R" run "$tmp/m.yaml" -o "$tmp/bar12" --no-plots --threads 1 \
    --set iterations=4095 --set ladder.adapt=barrier \
    --set ladder.barrier_round=1 > "$tmp/bar12.out" 2> /dev/null \
    && ok || bad "12-round barrier run failed"
py "$tmp/bar12/summary.json" "$tmp/bar12.out" <<'P' && ok || bad "12 rounds: $(cat "$tmp/bar12.out")"
import json, sys
r = json.load(open(sys.argv[1]))["diagnostics"]["barrier"]["rounds"]
assert len(r) == 12, len(r)
out = open(sys.argv[2]).read().splitlines()
i = out.index("barrier ladder, 12 adaptation rounds:")
assert out[i + 2].startswith("  (rounds 1 to 2 not shown"), out[i + 2]
rows = [l.split() for l in out[i + 3:i + 13]]
assert [l[0] for l in rows] == [str(k) for k in range(3, 13)], rows
assert rows[-1][1] == "2048" and rows[-1][2] == "%.3f" % r[-1]["lambda"]
P

# 4. CSGLD: the importance weights' ESS
"$R" run yaml/csgld_gmm_1d.yaml -o "$tmp/cs" --no-plots -q --threads 1 \
    --set iterations=20000 && ok || bad "csgld run failed"
py "$tmp/cs/summary.json" <<'P' && ok || bad "csgld weights"
import json, sys
s = json.load(open(sys.argv[1]))
d = s["diagnostics"]
w = d["weights"]
assert d["draws"] == 2000 and d["barrier"] is None, d
assert abs(w["ess"] - s["bias"]["weights"]["ess"]) < 1e-9 * w["ess"]
assert abs(w["ess_fraction"] - w["ess"] / 2000) < 1e-12
assert 0 < w["ess_fraction"] <= 1
P

# 5. all positions recorded: the diagnostics read the target's rows only
"$R" run "$tmp/m.yaml" -o "$tmp/all" --no-plots -q --threads 1 \
    --set record.all_positions=true && ok || bad "all_positions run failed"
py "$tmp/all/summary.json" "$tmp/m/summary.json" <<'P' && ok || bad "all_positions"
import json, sys
a, m = (json.load(open(p)) for p in sys.argv[1:3])
assert a["samples"]["count"] == 8 * a["diagnostics"]["draws"]
assert a["diagnostics"]["ess"] == m["diagnostics"]["ess"]
P

# 6. replicates
"$R" run "$tmp/m.yaml" -o "$tmp/rep" --no-plots --threads 1 \
    --set replicates=2 > "$tmp/rep.out" 2> /dev/null && ok || bad "replicates run failed"
[ -f "$tmp/rep/.replex" ] && [ -f "$tmp/rep/rep-00/.replex" ] && \
    [ -f "$tmp/rep/rep-01/summary.json" ] && [ ! -e "$tmp/rep/rep-02" ] \
    && ok || bad "replicate directories: $(ls -a "$tmp/rep")"
py "$tmp/rep" <<'P' && ok || bad "replicates summary"
import json, sys
d = sys.argv[1]
s = json.load(open(d + "/summary.json"))
r0, r1 = (json.load(open(d + "/rep-0%d/summary.json" % i)) for i in (0, 1))
assert s["replicates"] == 2 and [r["dir"] for r in s["runs"]] == ["rep-00", "rep-01"]
assert r0["seed"] == 3 and s["runs"][0]["seed"] == 3
assert r1["seed"] != 3 and s["runs"][1]["seed"] == r1["seed"]
g = s["diagnostics"]
assert g["chains"] == 2 and g["draws_per_chain"] == r0["diagnostics"]["draws"]
assert g["coordinates"] == [0, 1] and len(g["rhat"]) == 2
assert all(0.99 < x < 1.1 for x in g["rhat"]), g["rhat"]
assert g["rhat_max"] == max(g["rhat"])
assert s["runs"][1]["ess_bulk_min"] == r1["diagnostics"]["ess"]["bulk_min"]
for x, r in zip(s["runs"], (r0, r1)):
    b = r["diagnostics"]["barrier"]
    assert x["suggested_chains"] == b["suggested_chains"], (x, b)
    assert x["suggestion_applies"] is True is b["suggestion_applies"]
assert "log_z" not in s and "log_z" not in s["runs"][0]
P
# log Z of every copy (ladder.path reference), their mean and spread
"$R" run "$tmp/m.yaml" -o "$tmp/lz" --no-plots --threads 1 \
    --set ladder.path=reference --set replicates=3 > "$tmp/lz.out" \
    2> /dev/null && ok || bad "reference-path replicates failed"
py "$tmp/lz" "$tmp/lz.out" <<'P' && ok || bad "replicates' log Z: $(cat "$tmp/lz.out")"
import json, statistics, sys
d = sys.argv[1]
s = json.load(open(d + "/summary.json"))
out = open(sys.argv[2]).read().splitlines()
z = [json.load(open(d + "/rep-0%d/summary.json" % i))["log_z"] for i in range(3)]
for i, (x, r) in enumerate(zip(s["runs"], z)):
    assert r["valid"] and x["log_z"] == r["estimate"] and x["log_z_se"] == r["se"]
    assert ", log Z %.4f +- %.4f (se), " % (r["estimate"], r["se"]) in out[i], out[i]
e = [r["estimate"] for r in z]
g = s["log_z"]
assert abs(g["mean"] - statistics.mean(e)) < 1e-12, g
assert abs(g["sd"] - statistics.stdev(e)) < 1e-12, g
assert abs(g["se_mean"] - statistics.mean(r["se"] for r in z)) < 1e-12, g
assert ("log Z over the 3 replicates: mean %.4f, sd across them %.4f "
        "(their reported se %.4f on average)" % (g["mean"], g["sd"],
        g["se_mean"])) in out, out
P
# CSGLD copies: each one's importance weights' ESS
"$R" run yaml/csgld_gmm_1d.yaml -o "$tmp/csr" --no-plots -q --threads 1 \
    --set iterations=20000 --set replicates=2 && ok || bad "csgld replicates failed"
py "$tmp/csr" <<'P' && ok || bad "csgld replicates' weights ESS"
import json, sys
d = sys.argv[1]
s = json.load(open(d + "/summary.json"))
for i, x in enumerate(s["runs"]):
    w = json.load(open(d + "/rep-0%d/summary.json" % i))["diagnostics"]["weights"]
    assert x["weights_ess"] == w["ess"], (x, w)
    assert "suggested_chains" not in x  # one chain: no pair, no Lambda
P
grep -q '^over the 2 replicates: R-hat max [0-9.]* (coordinate [01]); pooled bulk ESS min [0-9]*$' "$tmp/rep.out" \
    && ok || bad "R-hat line: $(cat "$tmp/rep.out")"
# R-hat and pooled ESS against the numpy implementation (numpy needed)
if /usr/bin/python3 -c 'import numpy' 2> /dev/null; then
    /usr/bin/python3 - "$tmp/rep" "$RX_SRCDIR/tests" <<'P' && ok || bad "R-hat against numpy"
import json, sys
import numpy as np
sys.path.insert(0, sys.argv[2])
import test_ess_numpy as ref
d = sys.argv[1]
s = json.load(open(d + "/summary.json"))["diagnostics"]
x = np.stack([np.load(d + "/rep-0%d/samples.npy" % i).astype(float) for i in (0, 1)])
for j in (0, 1):
    r = ref.ref_rhat(x[:, :, j])
    b = ref.ref_ess(x[:, :, j])[0]
    assert abs(s["rhat"][j] - r) < 1e-9 * r, (s["rhat"][j], r)
    assert abs(s["ess_bulk"][j] - b) < 1e-6 * b, (s["ess_bulk"][j], b)
P
fi
# DIR/inference.nc: one chain per replicate, each the replicate's draws
if /usr/bin/python3 -c 'import xarray, netCDF4' 2> /dev/null; then
    /usr/bin/python3 - "$tmp/rep" <<'P' && ok || bad "replicates' inference.nc"
import sys
import numpy as np, xarray as xr
d = sys.argv[1]
p = xr.open_dataset(d + "/inference.nc", group="posterior")
assert p.theta.dims == ("chain", "draw", "theta_dim_0"), p.theta.dims
assert list(p.chain.values) == [0, 1], p.chain.values
for i in (0, 1):
    x = np.load(d + "/rep-0%d/samples.npy" % i)
    assert p.theta.shape[1:] == x.shape and (p.theta.values[i] == x).all(), i
P
else
    bad "xarray and netCDF4 (python3-xarray, python3-netcdf4) are needed"
fi
"$R" run "$tmp/rep/rep-01/config.yaml" -o "$tmp/one" --no-plots -q \
    --threads 1 && cmp -s "$tmp/one/samples.npy" "$tmp/rep/rep-01/samples.npy" \
    && ok || bad "rep-01/config.yaml does not rerun replicate 1"
# refused: replicates with a sweep, with checkpoints (exit 2, nothing made)
printf 'sweep:\n  seed: [1, 2]\n' | cat "$tmp/m.yaml" - > "$tmp/sw.yaml"
"$R" run "$tmp/sw.yaml" -o "$tmp/sw" -q --set replicates=2 2> "$tmp/err"
[ $? -eq 2 ] && [ ! -e "$tmp/sw" ] && grep -q 'replicates: 2 with a sweep' "$tmp/err" \
    && ok || bad "replicates with a sweep: $(cat "$tmp/err")"
grep -q 'remove the sweep: block (replicates: N runs N seeds and reports R-hat' "$tmp/err" \
    && ok || bad "replicates with a sweep hint: $(cat "$tmp/err")"
# replicates cannot be swept: each sweep run would be one run whose
# config.yaml says replicates: 2 (exit 2, located, nothing made)
printf 'sweep:\n  replicates: [2, 3]\n' | cat "$tmp/m.yaml" - > "$tmp/swr.yaml"
"$R" run "$tmp/swr.yaml" -o "$tmp/swr" -q 2> "$tmp/err"
[ $? -eq 2 ] && [ ! -e "$tmp/swr" ] && \
    grep -q "swr.yaml:7:3: sweep.replicates: cannot be swept" "$tmp/err" \
    && ok || bad "sweep over replicates: $(cat "$tmp/err")"
"$R" validate "$tmp/swr.yaml" > /dev/null 2>&1
[ $? -eq 2 ] && ok || bad "validate accepts a sweep over replicates"
# --force replaces: 3 replicates, then 2 into the same DIR leave no rep-02
# (and a sweep of 3 seeds, then of 2, no run-003)
"$R" run "$tmp/m.yaml" -o "$tmp/fr" -q --no-plots --threads 1 \
    --set iterations=400 --set replicates=3 && \
"$R" run "$tmp/m.yaml" -o "$tmp/fr" -q --no-plots --threads 1 \
    --set iterations=400 --set replicates=2 --force && \
    [ "$(cd "$tmp/fr" && ls -A | tr '\n' ' ')" = ".replex inference.nc rep-00 rep-01 summary.csv summary.json " ] \
    && ok || bad "--force over replicates: $(ls -A "$tmp/fr")"
printf 'sweep:\n  seed: [1, 2, 3]\n' | cat "$tmp/m.yaml" - > "$tmp/s3.yaml"
printf 'sweep:\n  seed: [1, 2]\n' | cat "$tmp/m.yaml" - > "$tmp/s2.yaml"
"$R" run "$tmp/s3.yaml" -o "$tmp/fs" -q --threads 1 --set iterations=400 && \
"$R" run "$tmp/s2.yaml" -o "$tmp/fs" -q --no-plots --threads 1 \
    --set iterations=400 --force && \
    [ "$(cd "$tmp/fs" && ls -A | tr '\n' ' ')" = ".replex run-001 run-002 sweep.csv sweep.md " ] \
    && ok || bad "--force over a sweep: $(ls -A "$tmp/fs")"
"$R" run "$tmp/m.yaml" -o "$tmp/ck" -q --set replicates=2 \
    --set checkpoint.every=100 2> "$tmp/err"
[ $? -eq 2 ] && [ ! -e "$tmp/ck" ] && grep -q 'replicates: checkpoints are per run' "$tmp/err" \
    && ok || bad "replicates with checkpoints: $(cat "$tmp/err")"
echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]
