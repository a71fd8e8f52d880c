#!/usr/bin/env bash
# Chain-steps per second of one run on R x T splits (MPI ranks x threads
# per rank), alternating the splits round by round so that a noisy host
# weighs on all of them alike. For docs/performance.md, "On MPI ranks".
# Usage (from anywhere; BUILD relative to the repository root):
#   bash bench/mpi_splits.sh FILE.yaml "RxT RxT ..." [ROUNDS] [BUILD] -- [--set k=v ...]
# e.g. bash bench/mpi_splits.sh yaml/mlp_synthetic.yaml "1x2 2x1" 5
# Prints, per split: the median of chain_steps_per_s (summary.json
# timing), of wall_s and wall_s per iteration, and of the share of rank
# 0's run spent in the iterations' allgathers (timing.ranks_sync_s /
# wall_s: waiting for the other ranks included) and that time per
# iteration, then each split's median chain-steps/s against the first
# split's. With `--set target.kind=none --set tempering.rule=bernoulli`
# an iteration has no step work: the exchange phase alone. Outputs are checked to be the same bits on every split.
# MPIRUN (default mpirun) launches; the script passes
# --allow-run-as-root, --oversubscribe and --bind-to none.
set -u
[ $# -ge 2 ] || { sed -n 2,14p "$0" >&2; exit 2; }
file=$1 splits=$2; shift 2
rounds=5 build=build
[ $# -gt 0 ] && [ "$1" != -- ] && { rounds=$1; shift; }
[ $# -gt 0 ] && [ "$1" != -- ] && { build=$1; shift; }
[ $# -gt 0 ] && [ "$1" = -- ] && shift
cd "$(dirname "$0")/.." || exit 1
B=$build/replex
[ -x "$B" ] || { echo "mpi_splits.sh: $B missing (build first)" >&2; exit 2; }
MPIRUN=${MPIRUN:-mpirun}
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
for r in $(seq 1 "$rounds"); do
  for s in $splits; do
    R=${s%x*} T=${s#*x}
    out=$tmp/$s.$r
    # --bind-to none: Open MPI would bind each of 2 or fewer ranks to one
    # core, and a rank's T threads would take turns on it
    "$MPIRUN" --allow-run-as-root --oversubscribe --bind-to none -np "$R" \
      "$B" run "$file" \
      -o "$out" -q --no-plots --threads "$T" "$@" ||
      { echo "mpi_splits.sh: $s failed" >&2; exit 1; }
    /usr/bin/python3 - "$out/summary.json" >>"$tmp/$s.txt" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
t, K = d["timing"], d["iterations"]
w = t["wall_s"]
print(t["chain_steps_per_s"], w, t.get("ranks_sync_s", 0.0) / w if w else 0,
      1e6 * w / K, 1e6 * t.get("ranks_sync_s", 0.0) / K)
PY
    cat "$out/samples.npy" "$out/index.npy" "$out/trace.csv" 2>/dev/null |
      sha256sum | cut -c1-16 >>"$tmp/digests"
  done
done
/usr/bin/python3 - "$tmp" $splits <<'PY'
import statistics, sys
d, splits = sys.argv[1], sys.argv[2:]
base = None
print("%-6s %14s %10s %10s %12s %14s %8s" % (
    "split", "chain-steps/s", "wall_s", "us/iter", "allgather",
    "allgather us", "ratio"))
for s in splits:
    rows = [list(map(float, l.split())) for l in open(f"{d}/{s}.txt")]
    cs = statistics.median(r[0] for r in rows)
    w = statistics.median(r[1] for r in rows)
    g = statistics.median(r[2] for r in rows)
    ui = statistics.median(r[3] for r in rows)
    ug = statistics.median(r[4] for r in rows)
    base = base or cs
    print("%-6s %14.0f %10.4f %10.2f %11.1f%% %14.2f %8.3f" % (
        s, cs, w, ui, 100 * g, ug, cs / base))
PY
n=$(sort -u "$tmp/digests" | wc -l)
[ "$n" -eq 1 ] && echo "outputs: the same bits on every split and round" ||
  { echo "outputs: DIFFER across splits ($n digests)"; exit 1; }
