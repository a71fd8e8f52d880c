"""python/replex_reader.py against the files replex wrote, standard
library only (the numpy cross-checks run where numpy is installed).

usage: test_py_reader.py WORK   (WORK: the runs tests/test_py_reader.sh
made: run, rep, cs, net, sw, and bad/ for the refusals)
Environment: RX_REPLEX (the binary), RX_SRCDIR.
"""
import json
import math
import os
import shutil
import struct
import subprocess
import sys

SRC = os.environ["RX_SRCDIR"]
sys.path.insert(0, os.path.join(SRC, "python"))
import replex_reader as rr  # noqa: E402

W = sys.argv[1]
fails = []


def check(cond, what):
    print(("ok   " if cond else "FAIL ") + what)
    if not cond:
        fails.append(what)


def near(a, b, rel, what):
    ok = a == b or abs(a - b) <= rel * max(abs(a), abs(b))
    check(ok, "%s: %.17g vs %.17g (rel %.0e)" % (what, a, b, rel))


def quantile(xs, q):
    """numpy's default (linear) quantile."""
    s = sorted(xs)
    h = (len(s) - 1) * q
    lo = math.floor(h)
    return s[lo] + (h - lo) * (s[min(lo + 1, len(s) - 1)] - s[lo])


def npy_body(path):
    with open(path, "rb") as f:
        raw = f.read()
    return raw[10 + struct.unpack("<H", raw[8:10])[0]:]


try:
    import numpy
except ImportError:
    numpy = None
print("python %s, numpy %s" % (sys.version.split()[0],
                                numpy.__version__ if numpy else "absent"))

# ---- a run: 10-D mixture, 6000 iterations, 400 draws
run = rr.read(os.path.join(W, "run"))
check(isinstance(run, rr.Run) and run.kind == "run", "run: a Run")
info = run.table_info
check(info["chains"] == 1 and info["draws"] == 400 and
      info["coordinates"] == 10 and info["network"] is False,
      "run: table header %r" % info)
names = [r["name"] for r in run.parameters]
check(names == ["lp"] + ["theta[%d]" % j for j in range(10)],
      "run: rows %s" % names)
S = run.samples
check(S.shape == (400, 10) and S.dtype == "<f4", "run: samples %r" % S)
check(len(run.warnings) == 2, "run: two warnings")
# the draws byte for byte: the reader's values packed back are the file
body = npy_body(run.file("samples.npy"))
check(struct.pack("<%df" % len(S.data), *S.data) == body,
      "run: samples.npy byte for byte (%d bytes)" % len(body))
ix = run.index
check(struct.pack("<%di" % len(ix.data), *ix.data) ==
      npy_body(run.file("index.npy")) and ix.ncols == 8,
      "run: index.npy byte for byte, %r" % ix)
# the per-coordinate means replex summed in double, in draw order: the
# same bits from the reader's draws summed the same way
for j in range(10):
    col = S.column(j)
    s = 0.0
    for v in col:
        s += v
    m = s / len(col)
    check(m == run.summary["samples"]["mean"][j],
          "run: mean of column %d equals summary.json samples.mean" % j)
    row = run.parameter("theta[%d]" % j)
    near(row["mean"], m, 1e-12, "run: theta[%d] mean" % j)
    for q, key in ((0.05, "q5"), (0.5, "q50"), (0.95, "q95")):
        near(row[key], quantile(col, q), 1e-12, "run: theta[%d] %s" % (j, key))
# the table from summary.json against summary.csv (10 digits)
csvrows = run.read_csv()
check(len(csvrows) == len(run.parameters), "run: csv rows")
for a, b in zip(run.parameters, csvrows):
    for k in ("mean", "sd", "q5", "q95", "mcse_mean", "ess_mean",
              "ess_batch_means", "ess_bulk", "ess_tail", "rhat"):
        if not (a[k] == b[k] or abs(a[k] - b[k]) <= 1e-9 * abs(a[k])):
            check(False, "run: %s %s json %r csv %r" % (a["name"], k, a[k],
                                                       b[k]))
check(all(a["name"] == b["name"] for a, b in zip(run.parameters, csvrows)),
      "run: json and csv tables agree to 10 digits")
# config.yaml: every key of `replex keys`, the values given
cfg = run.config
keys = subprocess.run([os.environ["RX_REPLEX"], "keys"], check=True,
                      capture_output=True, text=True).stdout.splitlines()
missing = []
for line in keys:
    if not line or line[0] == " ":
        continue
    node = cfg
    for part in line.split()[0].split("."):
        node = node.get(part) if isinstance(node, dict) else None
    if node is None:  # config.yaml gives every key a value, none null
        missing.append(line.split()[0])
check(not missing and len(keys) > 100, "config: every key of `replex keys` "
      "(%d) is in config.yaml; missing %s" % (len(keys), missing[:5]))
check(cfg["seed"] == 11 and cfg["iterations"] == 6000 and
      cfg["tempering"]["n_chains"] == 8, "config: seed, iterations, n_chains")
check(cfg["ladder"]["tau"] == {"min": 1, "max": 20} and
      cfg["ladder"]["eta"] == 0.05, "config: ladder %r" % cfg["ladder"])
check(cfg["target"]["means"][1] == [-3, 3] + [0] * 8 and
      len(cfg["target"]["means"]) == 4, "config: a matrix")
check(cfg["data"]["target_column"] == 'a "b" \\ c: #d, [x] \u00e9',
      "config: a quoted string %r" % cfg["data"]["target_column"])
check(cfg["data"]["standardise"] is True and cfg["data"]["path"] == "",
      "config: booleans and an empty string")
tr = run.trace
check(len(tr) > 2 and len(set(len(v) for v in tr.values())) == 1,
      "trace.csv: %d columns of equal length" % len(tr))
check(run.weights is None, "run: no weights without a bias")
if numpy is not None:
    for name, arr in (("samples.npy", S), ("index.npy", ix)):
        ref = numpy.load(run.file(name))
        check(ref.dtype == arr.to_numpy().dtype and
              numpy.array_equal(ref, numpy.asarray(arr)),
              "numpy: %s equals numpy.load" % name)

# ---- a weighted run (CSGLD): weights, the weighted mean
cs = rr.read(os.path.join(W, "cs"))
w = cs.weights
check(w is not None and w.shape == (cs.samples.shape[0],) and
      w.dtype == "<f8", "csgld: weights %r" % w)
check(cs.table_info["weighted"] is True, "csgld: table weighted")
lw = list(w.data)
mx = max(lw)
e = [math.exp(v - mx) for v in lw]
col = cs.samples.column(0)
wm = sum(a * b for a, b in zip(e, col)) / sum(e)
near(cs.parameter("theta[0]")["mean"], wm, 1e-9, "csgld: weighted mean")
if numpy is not None:
    check(numpy.array_equal(numpy.load(cs.file("weights.npy")),
                            numpy.asarray(w)), "numpy: weights.npy")

# ---- replicates: the table over the copies, the copies
rep = rr.read(os.path.join(W, "rep"))
check(isinstance(rep, rr.Replicates), "replicates: a Replicates")
check(rep.table_info["chains"] == 3 and len(rep.runs) == 3 and
      all(isinstance(r, rr.Run) for r in rep.runs), "replicates: 3 copies")
d = rep.table_info["draws"]
check(all(r.samples.shape == (d, 10) for r in rep.runs),
      "replicates: each copy has %d draws" % d)
pooled = [v for r in rep.runs for v in r.samples.column(2)]
near(rep.parameter("theta[2]")["mean"], sum(pooled) / len(pooled), 1e-12,
     "replicates: pooled mean of theta[2]")
check(len(set(r.config["seed"] for r in rep.runs)) == 3,
      "replicates: three seeds")

# ---- a network: its precisions, metrics
net = rr.read(os.path.join(W, "net"))
check(net.table_info["network"] is True, "network: flagged")
check(net.parameter("noise_precision")["mean"] > 0, "network: noise_precision")
check(net.summary["metrics"]["rmse"] > 0, "network: metrics.rmse")
check(net.config["model"]["layers"] == [{"dense": 50}, "relu", {"dense": 1}],
      "network: layers %r" % net.config["model"]["layers"])

# ---- a sweep
sw = rr.read(os.path.join(W, "sw"))
check(isinstance(sw, rr.Sweep) and len(sw.runs) == 2, "sweep: 2 runs")
check(sw.keys == ["seed"] and sw.values == [{"seed": 5}, {"seed": 6}],
      "sweep: values %r" % sw.values)
check([r.config["seed"] for r in sw.runs] == [5, 6], "sweep: runs' seeds")

# ---- non-finite figures: null with "_not_finite" beside it
bad = os.path.join(W, "bad")
os.makedirs(bad, exist_ok=True)
nf = os.path.join(bad, "nf")
shutil.copytree(run.path, nf)
with open(os.path.join(nf, "summary.json")) as f:
    j = json.load(f)
r0 = j["parameters"]["rows"][1]
r0["ess_tail"], r0["ess_tail_not_finite"] = None, "inf"
r0["rhat"], r0["rhat_not_finite"] = None, "nan"
with open(os.path.join(nf, "summary.json"), "w") as f:
    json.dump(j, f)
row = rr.read(nf).parameter("theta[0]")
check(row["ess_tail"] == math.inf and math.isnan(row["rhat"]) and
      "rhat_not_finite" not in row, "null + _not_finite: inf and nan")

# ---- refused with ReplexReadError, saying what it is
def refused(path, want, what):
    try:
        rr.read(path)
    except rr.ReplexReadError as e:
        check(want in str(e), "%s: %s" % (what, e))
        return
    check(False, "%s: read without an error" % what)


refused(os.path.join(bad, "none"), "no such directory", "missing dir")
os.makedirs(os.path.join(bad, "plain"), exist_ok=True)
refused(os.path.join(bad, "plain"), "it has no .replex file", "plain dir")
refused(os.path.join(W, "run", "config.yaml"), "not a directory", "a file")
half = os.path.join(bad, "half")
shutil.copytree(run.path, half)
os.remove(os.path.join(half, "summary.json"))
refused(half, "no summary.json: the run did not finish", "half-written")
os.makedirs(os.path.join(bad, "gone.partial"), exist_ok=True)
refused(os.path.join(bad, "gone"), "interrupted run", "partial")
cut = os.path.join(bad, "cut")
shutil.copytree(run.path, cut)
with open(os.path.join(cut, "samples.npy"), "r+b") as f:
    f.truncate(1000)
try:
    rr.read(cut).samples
    check(False, "truncated samples.npy read")
except rr.ReplexReadError as e:
    check("cut short" in str(e), "truncated samples.npy: %s" % e)

# run(): a small config from Python, the same bytes as the CLI's run of
# it (tests/test_py_reader.sh made W/run_cli with the same arguments)
small = os.path.join(W, "small.yaml")
mine = os.path.join(bad, "from_python")
r2 = rr.run(small, mine, sets={"seed": 7, "record.thin": 5}, threads=1)
check(isinstance(r2, rr.Run), "run(): a Run")
for f in ("samples.npy", "index.npy", "trace.csv"):
    with open(os.path.join(mine, f), "rb") as a, \
            open(os.path.join(W, "run_cli", f), "rb") as b:
        check(a.read() == b.read(), "run(): %s as the CLI's" % f)
check(r2.config["seed"] == 7, "run(): --set reached the run")
try:
    rr.run(small, os.path.join(bad, "bad_set"), sets={"tempering.n_chains": 0})
    check(False, "run(): a bad value did not raise")
except rr.ReplexReadError as e:
    check("exit 2" in str(e) and "tempering.n_chains" in str(e),
          "run(): bad input raises with replex's message: %s" % e)
try:
    rr.run(small, mine, sets={"seed": 7})
    check(False, "run(): an existing directory did not raise")
except rr.ReplexReadError as e:
    check("already exists" in str(e), "run(): DIR exists: %s" % e)

print("%d failed" % len(fails))
sys.exit(1 if fails else 0)
