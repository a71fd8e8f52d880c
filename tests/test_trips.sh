#!/usr/bin/env bash
# Round-trip counters recounted from the index process (issue 21, item 14):
# for every scheme (adj, seo, deo, deo_w, deo_star, ape; the deterministic
# rule with adaptive C and ladder too), on 1 to 3 threads, in both
# designs (sync: barrier, where the recorder of src/record/ counts, and
# sync: partner, where each thread counts its end positions in the
# engine), tests/recount_trips.py recounts trips_a5, trips_l1 and restarts
# from index.npy (every iteration) with the definitions of deo.md 4.2 and
# requires summary.json's counts. It also checks that each run used the
# design asked for (timing.sync) and that the runs made trips at all.
set -u
cd "$RX_SRCDIR"
py=/usr/bin/python3
[ -x "$py" ] || py=python3
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
pass=0; fail=0
ok() { pass=$((pass+1)); }
bad() { echo "FAIL: $*"; fail=$((fail+1)); }

check() { # label file sync threads sets...
  local label=$1 file=$2 sync=$3 t=$4; shift 4
  local d="$tmp/run"
  rm -rf "$d"
  "$RX_REPLEX" run "$file" -o "$d" -q --no-plots --threads "$t" \
    --set sync="$sync" --set record.index_every=1 "$@" ||
    { bad "$label: run failed"; return; }
  local used
  used=$(grep -o '"sync": "[a-z]*"' "$d/summary.json" | cut -d'"' -f4)
  [ "$used" = "$sync" ] && ok || bad "$label: sync $used, asked for $sync"
  local out
  out=$("$py" tests/recount_trips.py "$d" 2>&1) && ok ||
    bad "$label ($sync, $t threads): $out"
  # no trips would make the comparison empty
  echo "$out" | grep -q 'summary.json a5 [1-9]' && ok ||
    bad "$label: no round trips ($out)"
  echo "$label $sync $t: $out"
}

m25=(yaml/mixture25_deo_star.yaml --set iterations=5000)
for scheme in seo deo deo_star; do
  for t in 1 3; do
    check "$scheme" "${m25[@]:0:1}" barrier "$t" "${m25[@]:1}" \
      --set tempering.scheme="$scheme"
  done
  for t in 2 3; do
    check "$scheme" "${m25[@]:0:1}" partner "$t" "${m25[@]:1}" \
      --set tempering.scheme="$scheme"
  done
done
# a window of 4 on 3 threads in both designs; adj and ape (barrier only)
check deo_w yaml/mixture25_deo_star.yaml barrier 3 --set iterations=5000 \
  --set tempering.scheme=deo_w --set tempering.window=4
check deo_w yaml/mixture25_deo_star.yaml partner 3 --set iterations=5000 \
  --set tempering.scheme=deo_w --set tempering.window=4
for scheme in adj ape; do
  check "$scheme" yaml/mixture25_deo_star.yaml barrier 2 \
    --set iterations=5000 --set tempering.scheme="$scheme"
done
# the deterministic rule, adaptive C and ladder (the barrier design)
check deo_sgd yaml/deo_sgd_2d.yaml barrier 2 --set iterations=5000

echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]
