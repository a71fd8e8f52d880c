#!/usr/bin/env bash
# The many-core table of docs/performance.md ("On 16 cores") in one go,
# on a machine where the project is NOT built: it runs binaries built
# elsewhere (bench/device_kit.sh packs them with their libraries).
# Files into OUT:
#   machine.txt  nproc, lscpu
#   grid/        replex bench bench/grid_cores.yaml on 1 and N threads
#                (bench.csv, bench.md)
#   torch.txt    bench/torch_cnn.py and torch_mlp.py: one process, then N
#                single-thread processes at once (--procs N)
#   identity.txt samples/index/trace bytes on 1 and N threads: same or
#                DIFFERS, for the 25-mode target, the MLP and the CNN
#   table.md     chain-steps/s on 1 and N threads and the speed-up per
#                grid cell, and PyTorch's totals
# Usage (from anywhere; BUILD relative to the repository root):
#   bash bench/many_cores.sh OUT [BUILD] [N]      (build, nproc)
# RX_RUN, if set, prefixes every replex call (a carried loader:
# "DIR/ld-linux-x86-64.so.2 --library-path DIR"); PYTHON (python3) runs
# the PyTorch side; GRID (bench/grid_cores.yaml) is the grid. Every step
# runs even when one fails; the exit status is 1 then. About 5 minutes on
# 16 cores.
set -u
[ $# -ge 1 ] && [ -n "$1" ] ||
  { echo "usage: bash bench/many_cores.sh OUT [BUILD] [N]" >&2; exit 2; }
O=$1
B=${2:-build}
N=${3:-$(nproc)}
case $N in '' | *[!0-9]* | 0 | 1)
  echo "many_cores.sh: N must be a thread count above 1, not '$N'" >&2; exit 2 ;;
esac
PY=${PYTHON:-python3}
mkdir -p "$O" && O=$(cd "$O" && pwd) || exit 1
cd "$(dirname "$0")/.." || exit 1
[ -x "$B/replex" ] ||
  { echo "many_cores.sh: $B/replex missing (build first)" >&2; exit 2; }
# shellcheck disable=SC2086
rx() { ${RX_RUN:-} "$B/replex" "$@"; }
rc=0
{ nproc; lscpu; } >"$O/machine.txt" 2>&1
rx bench "${GRID:-bench/grid_cores.yaml}" -o "$O/grid" --force --threads "1,$N" \
  --no-plots -q 2>"$O/grid.log" || rc=1
{
  "$PY" bench/torch_cnn.py --reps 10
  "$PY" bench/torch_cnn.py --reps 10 --procs "$N"
  "$PY" bench/torch_mlp.py --reps 5000
  "$PY" bench/torch_mlp.py --reps 5000 --procs "$N"
} >"$O/torch.txt" 2>&1 || rc=1
for f in yaml/default.yaml bench/boston_mlp_auto.yaml bench/cnn_auto.yaml; do
  case $f in *cnn*) it=6 ;; *mlp*) it=2000 ;; *) it=20000 ;; esac
  for t in 1 "$N"; do
    rx run "$f" -o "$O/id.$t" --force -q --no-plots --threads "$t" \
      --set iterations=$it --set tempering.n_chains=16 \
      --set record.burn_in=0 --set record.thin=2 2>>"$O/grid.log" || rc=1
  done
  for x in samples.npy index.npy trace.csv; do
    if cmp -s "$O/id.1/$x" "$O/id.$N/$x"; then s=same; else s=DIFFERS; rc=1; fi
    echo "$f $x 1 vs $N threads: $s"
  done
  rm -rf "$O/id.1" "$O/id.$N"
done >"$O/identity.txt"
"$PY" - "$O" >"$O/table.md" 2>>"$O/grid.log" <<'PYEOF' || rc=1
import csv, sys
o = sys.argv[1]
rows = list(csv.DictReader(open(o + "/grid/bench.csv")))
key = lambda r: (r["target"], r["scheme"], r["chains"])
one = {key(r): float(r["chain_steps_per_s_median"]) for r in rows
       if r["threads"] == "1"}
print("| target | scheme | P | threads | chain-steps/s | speed-up |")
print("|---|---|---:|---:|---:|---:|")
for r in rows:
    v = float(r["chain_steps_per_s_median"])
    b = one.get(key(r))
    print("| %s | %s | %s | %s | %.4g | %s |" % (
        r["target"], r["scheme"], r["chains"], r["threads"], v,
        "%.2fx" % (v / b) if b else ""))
print()
for line in open(o + "/torch.txt"):
    if "processes at once" in line or line.startswith("thread CPU"):
        print("    " + line.rstrip())
PYEOF
exit $rc
