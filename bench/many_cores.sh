#!/usr/bin/env bash
# Scaling on a machine with more than two cores (docs/performance.md,
# "On 16 cores"), everything in one go, files into OUT:
#   machine.txt   nproc, lscpu
#   barrier.txt   bench_barrier up to the largest thread count (s_n of
#                 the cost model)
#   grid/         replex bench bench/grid_many.yaml on THREADS
#                 (bench.csv, bench.md)
#   model.md      bench/cost_model.py on that grid with the s_n measured
#   noisy16.txt   bash bench/noisy16.sh 7: the 25-mode P = 16 figure,
#                 1 and 2 threads, and the plain C loop
#   asym16.txt    bash bench/asym16.sh 5: one thread pinned to CPU 0, one
#                 to CPU 1, two threads
#   engine_ab.txt 1 thread against n in one process, DEO and DEO*
#   coupled.txt   bench/coupled -i 8: the 2 / 1 ceiling of two coupled
#                 threads of fixed arithmetic
# Takes 3-4 minutes on 16 cores, 2.5 on 2. BUILD is relative to the
# repository root; every step runs even when one fails, the exit status is
# 1 then. Usage:
#   bash bench/many_cores.sh OUT [BUILD] [THREADS]   (build, 1,2,4,8,16;
#   THREADS must include 1: the speed-ups and the cost model need it)
set -u
O=${1:?usage: bash bench/many_cores.sh OUT [BUILD] [THREADS]}
B=${2:-build}
T=${3:-1,2,4,8,16}
mkdir -p "$O" && O=$(cd "$O" && pwd) || exit 1
cd "$(dirname "$0")/.." || exit 1
[ -x "$B/replex" ] && [ -x "$B/bench/bench_barrier" ] ||
  { echo "many_cores.sh: $B/replex or $B/bench/bench_barrier missing (build first)" >&2; exit 2; }
rc=0
{ nproc; lscpu; } >"$O/machine.txt" 2>&1
max=$(echo "$T" | tr , '\n' | sort -n | tail -1)
"$B/bench/bench_barrier" -n 200000 -r 3 -t "$max" >"$O/barrier.txt" || exit 1
"$B/replex" bench bench/grid_many.yaml -o "$O/grid" --force --threads "$T" \
  --no-plots -q || exit 1
# s_n per thread count: the spin barrier's ns per barrier, in us
sn=$(awk -F'|' '$2 + 0 > 0 {printf "%s%d:%.4f", c, $2, $4 / 1000; c = ","}' \
  "$O/barrier.txt")
python3 bench/cost_model.py "$O/grid/bench.csv" "${sn:-0.3}" >"$O/model.md" || rc=1
bash bench/noisy16.sh 7 "$B" >"$O/noisy16.txt" 2>&1 || rc=1
bash bench/asym16.sh 5 deo_star "$B" >"$O/asym16.txt" 2>&1 || rc=1
for t in $(echo "$T" | tr , ' '); do
  [ "$t" -gt 1 ] || continue
  for s in deo deo_star; do "$B/bench/engine_ab" threads 12 "$t" "$s" || rc=1; done
done >"$O/engine_ab.txt" 2>&1
"$B/bench/coupled" -n 5 -i 8 >"$O/coupled.txt" 2>&1 || rc=1
exit $rc
