#!/usr/bin/env bash
# balance_noise on the Boston MLP (docs/performance.md, "Noise drawn ahead
# at the barrier"): P = 16, DEO, 2 threads, the ziggurat normals, 3,000
# iterations; ROUNDS interleaved rounds (default 10), each running the two
# settings (the order alternating) once phase-timed (the issue's share:
# (wait + exchange) / iteration, per thread) and once without the clock
# reads (chain-steps/s). Prints CSV, then medians.
# Usage: bash bench/balance_noise.sh [ROUNDS] [REPLEX] [EXTRA --set ...]
# (needs the data: bash scripts/fetch_data.sh)
set -u
R=${1:-10}
B=${2:-build/replex}
shift 2 2>/dev/null || shift $#
EXTRA=("$@")
out=$(mktemp -d "${TMPDIR:-/tmp}/replex-bnoise.XXXXXX")
run() { # on|off timing
  "$B" run yaml/uci_boston.yaml -o "$out/r" --force -q --no-plots \
    --threads 2 --set tempering.n_chains=16 --set iterations=3000 \
    --set tempering.scheme=deo --set rng.normal=ziggurat \
    --set balance_noise="$1" --set record.phase_timing="$2" \
    --set record.index_every=0 --set record.trace_every=0 \
    --set evaluate.final_ensemble=false ${EXTRA[@]+"${EXTRA[@]}"} >/dev/null ||
    exit 1
  python3 - "$out/r/summary.json" "$2" <<'PY'
import json, sys
m = json.load(open(sys.argv[1]))['timing']
if sys.argv[2] == 'true':
    sh = [100 * (x[2] + x[3]) / sum(x) for x in m['us_per_iter_by_thread']]
    print('%.1f,%.1f,%d' % (sh[0], sh[1], m.get('noise_helped', 0)), end='')
else:
    print('%.0f' % m['chain_steps_per_s'], end='')
PY
}
{
echo "round,balance_noise,share_t0_pct,share_t1_pct,noise_helped,chain_steps_per_s"
for r in $(seq 1 "$R"); do
  if [ $((r % 2)) = 1 ]; then order="false true"; else order="true false"; fi
  for on in $order; do
    s=$(run "$on" true); c=$(run "$on" false)
    echo "$r,$on,$s,$c"
  done
done
} | tee "$out/all.csv"
python3 - "$out/all.csv" <<'PY'
import csv, statistics as st, sys
rows = list(csv.DictReader(open(sys.argv[1])))
for on in ('false', 'true'):
    r = [x for x in rows if x['balance_noise'] == on]
    sh = [max(float(x['share_t0_pct']), float(x['share_t1_pct'])) for x in r]
    cs = [float(x['chain_steps_per_s']) for x in r]
    print('balance_noise=%s: worse thread share median %.1f%% (%.1f-%.1f), '
          'chain-steps/s median %.0f (%.0f-%.0f)' % (on, st.median(sh),
          min(sh), max(sh), st.median(cs), min(cs), max(cs)))
on = {x['round']: float(x['chain_steps_per_s']) for x in rows if x['balance_noise'] == 'true'}
off = {x['round']: float(x['chain_steps_per_s']) for x in rows if x['balance_noise'] == 'false'}
rat = sorted(on[k] / off[k] for k in on)
print('on/off chain-steps/s per round: median %.3f, on faster in %d of %d'
      % (st.median(rat), sum(x > 1 for x in rat), len(rat)))
PY
rm -rf "$out"
