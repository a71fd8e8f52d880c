#!/usr/bin/env bash
# The run directory of a CSGLD run (yaml/csgld_gmm_1d.yaml shortened):
# weights.npy (float64, one log-weight per row of samples.npy, finite or
# -inf), samples_resampled.npy (every row a row of samples.npy; the row
# count within 5 standard deviations of n, residual resampling keeping n
# rows in expectation), the summary's bias block (ESS in [1, n], the
# states' updates), all of them byte-identical on 1 and 3 threads and for
# the same seed; another seed gives other weights; bias.resample: false
# writes no resampled set.
set -u
cd "$RX_SRCDIR"
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
pass=0; fail=0
ok() { pass=$((pass+1)); }
bad() { echo "FAIL: $*"; fail=$((fail+1)); }
run() { # name threads extra-sets...
  local n=$1 t=$2; shift 2
  "$RX_REPLEX" run yaml/csgld_gmm_1d.yaml -o "$tmp/$n" -q --no-plots \
    --threads "$t" --set iterations=200000 "$@" || bad "run $n failed"
}
run a 1
run b 3
run c 1 --set seed=2
run d 1 --set bias.resample=false
for x in samples.npy weights.npy samples_resampled.npy; do
  cmp -s "$tmp/a/$x" "$tmp/b/$x" && ok || bad "$x differs between 1 and 3 threads"
done
grep -v '"timing"' "$tmp/a/summary.json" > "$tmp/a.s"
grep -v '"timing"' "$tmp/b/summary.json" > "$tmp/b.s"
cmp -s "$tmp/a.s" "$tmp/b.s" && ok || bad "summary.json differs between 1 and 3 threads"
cmp -s "$tmp/a/weights.npy" "$tmp/c/weights.npy" && bad "seed 2 gave the same weights" || ok
[ -e "$tmp/d/weights.npy" ] && ok || bad "bias.resample: false: no weights.npy"
[ -e "$tmp/d/samples_resampled.npy" ] && bad "bias.resample: false wrote a resampled set" || ok
python3 - "$tmp/a" <<'PY' && ok || bad "run directory checks (above)"
import array, ast, json, math, sys
d = sys.argv[1]
def load(p):
    b = open(p, 'rb').read()
    assert b[:6] == b'\x93NUMPY', p
    hl = b[8] | (b[9] << 8)
    h = ast.literal_eval(b[10:10 + hl].decode())
    a = array.array({'<f4': 'f', '<f8': 'd'}[h['descr']])
    a.frombytes(b[10 + hl:])
    return a, h['shape']
x, sx = load(d + '/samples.npy')
w, sw = load(d + '/weights.npy')
r, sr = load(d + '/samples_resampled.npy')
n = sx[0]
errs = []
if sw != (n,): errs.append('weights.npy shape %s for %d samples' % (sw, n))
if any(math.isnan(v) or v == math.inf for v in w): errs.append('a NaN or +inf log-weight')
if sr[1] != 1 or abs(sr[0] - n) > 5 * math.sqrt(n) / 2:
    errs.append('samples_resampled.npy shape %s for n = %d' % (sr, n))
rows = set(x)
if any(v not in rows for v in r): errs.append('a resampled row not in samples.npy')
s = json.load(open(d + '/summary.json'))['bias']
if s['kind'] != 'csgld' or s['bins'] != 50: errs.append('bias kind/bins %s' % s)
if not (1 <= s['weights']['ess'] <= n): errs.append('ESS %s' % s['weights']['ess'])
m = max(w); e = [math.exp(v - m) for v in w]
ess = sum(e) ** 2 / sum(v * v for v in e)
if abs(ess - s['weights']['ess']) > 1e-6 * ess: errs.append('ESS %g vs %g' % (ess, s['weights']['ess']))
if s['states'][0]['updates'] < 190000: errs.append('updates %s' % s['states'][0]['updates'])
if s['resampled']['rows'] != sr[0]: errs.append('resampled rows %s vs %s' % (s['resampled']['rows'], sr[0]))
for v in errs: print('  ' + v)
print('  n %d, ESS %.1f, resampled rows %d' % (n, ess, sr[0]))
sys.exit(1 if errs else 0)
PY
echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]
