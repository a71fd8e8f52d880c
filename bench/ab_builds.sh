#!/usr/bin/env bash
# Two replex builds (or one against itself) on the noisy 25-mode run of
# bench/noisy16.sh (P = 16, energy and gradient noise sd 2, ziggurat,
# record.thin 100, index and trace rows off), ROUNDS pairs of `replex run`,
# M chain-steps/s; then the median B/A ratio per pair and how many pairs B
# won. ORDER=alternate (default) runs A-B on odd pairs and B-A on even
# ones; ORDER=fixed always runs A first: on this VM the second of two
# back-to-back runs is slower (A = B: 0.957, docs/performance.md).
# ITERS (default 400000) and EXTRA (more --set options, applied to both)
# come from the environment. Each pair's line also gives both runs'
# summary.json timing.steal_share (the host's steal, docs/performance.md
# "Steal"; "-" where unknown), and the summary repeats the ratio over the
# pairs in which neither run's steal reached 0.03.
# Usage: bash bench/ab_builds.sh ROUNDS THREADS deo|deo_star REPLEX_A REPLEX_B
set -u
[ $# -eq 5 ] || {
  echo "usage: bash bench/ab_builds.sh ROUNDS THREADS deo|deo_star A B" >&2
  exit 2; }
R=$1 T=$2 S=$3 A=$4 B=$5
out=$(mktemp -d "${TMPDIR:-/tmp}/replex-ab.XXXXXX")
one() { # replex
  # shellcheck disable=SC2086
  "$1" run yaml/mixture25_deo.yaml -o "$out/r" --force -q --no-plots \
    --threads "$T" --set rng.normal=ziggurat --set tempering.scheme="$S" \
    --set iterations="${ITERS:-400000}" --set target.energy_noise_sd=2 \
    --set target.grad_noise_sd=2 --set record.index_every=0 \
    --set record.trace_every=0 --set record.thin=100 ${EXTRA:-} || exit 1
  grep -o '"chain_steps_per_s": [0-9.]*' "$out/r/summary.json" |
    awk '{printf "%.3f", $2 / 1e6}'
  s=$(grep -o '"steal_share": [0-9][0-9.]*' "$out/r/summary.json" |
    awk '{printf "%.4f", $2}')
  printf ' %s' "${s:--}"; }
for r in $(seq 1 "$R"); do
  if [ "${ORDER:-alternate}" = fixed ] || [ $((r % 2)) -eq 1 ]; then
    a=$(one "$A"); b=$(one "$B")
  else
    b=$(one "$B"); a=$(one "$A")
  fi
  set -- $a $b # speed and steal of A, then of B
  echo "$1 $3 $2 $4"
done | tee "$out/pairs.txt"
python3 - "$out/pairs.txt" <<'PY'
import statistics as st, sys
def num(x):
    try:
        return float(x)
    except ValueError:
        return None  # "-": no steal share
rows = [[num(x) for x in l.split()] for l in open(sys.argv[1])]
r = [row[1] / row[0] for row in rows]
print("A median %.2f M, B median %.2f M; B/A median %.3f (%.3f-%.3f), "
      "B faster in %d of %d" % (st.median(row[0] for row in rows),
      st.median(row[1] for row in rows), st.median(r), min(r), max(r),
      sum(x > 1 for x in r), len(r)))
q = [x for x, row in zip(r, rows) if None not in row[2:4]
     and max(row[2:4]) < 0.03]
print("pairs with both runs' steal share below 0.03: %d%s" % (len(q),
      ", B/A median %.3f, B faster in %d" % (st.median(q), sum(x > 1 for x in q))
      if q else ""))
PY
rm -rf "$out"
