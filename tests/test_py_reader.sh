#!/usr/bin/env bash
# python/replex_reader.py (standard library only) on a run, a weighted
# run, replicates, a network and a sweep made here, under Debian's
# /usr/bin/python3 and under the first python3 on the PATH where that is
# another interpreter (tests/test_py_reader.py).
set -u
export PYTHONDONTWRITEBYTECODE=1  # nothing written into python/
cd "$RX_SRCDIR"
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
R=$RX_REPLEX
gmm=tests/data/gmm10_four_modes.yaml
q() { "$@" > /dev/null 2>&1 || { echo "FAIL: $*"; exit 1; }; }
q "$R" run $gmm -o "$tmp/run" --no-plots --threads 1 --set iterations=6000 \
  --set "data.target_column='a \"b\" \\ c: #d, [x] é'"
q "$R" run yaml/csgld_gmm_1d.yaml -o "$tmp/cs" --no-plots --threads 1 \
  --set iterations=20000
q "$R" run $gmm -o "$tmp/rep" --no-plots --threads 1 --set iterations=3000 \
  --set replicates=3
q "$R" run yaml/mlp_synthetic.yaml -o "$tmp/net" --no-plots --threads 1 \
  --set iterations=400 --set record.burn_in=0 --set record.thin=10
cat > "$tmp/s.yaml" <<'Y'
iterations: 2000
tempering: {n_chains: 4}
ladder: {eta: 0.003, tau: {min: 1, max: 10}}
record: {thin: 5}
sweep:
  seed: [5, 6]
Y
q "$R" run "$tmp/s.yaml" -o "$tmp/sw" --no-plots
# for run() from Python: the same config run here by the CLI
cat > "$tmp/small.yaml" <<'Y'
iterations: 1000
tempering: {n_chains: 4}
ladder: {eta: 0.003, tau: {min: 1, max: 10}}
Y
q "$R" run "$tmp/small.yaml" -o "$tmp/run_cli" --no-plots --threads 1 \
  --set seed=7 --set record.thin=5
pys=()
[ -x /usr/bin/python3 ] && pys+=(/usr/bin/python3)
first=$(command -v python3 || true)
if [ -n "$first" ]; then
  a=$("$first" -c 'import os, sys; print(os.path.realpath(sys.executable))' 2>/dev/null)
  b=$(/usr/bin/python3 -c 'import os, sys; print(os.path.realpath(sys.executable))' 2>/dev/null)
  [ -n "$a" ] && [ "$a" != "$b" ] && pys+=("$first")
fi
[ ${#pys[@]} -gt 0 ] || { echo "no python3: skipped"; exit 77; }
fail=0
for py in "${pys[@]}"; do
  echo "== $py"
  rm -rf "$tmp/bad"
  "$py" tests/test_py_reader.py "$tmp" || fail=$((fail + 1))
done
# installable with Debian's pip from the checkout (a copy: pip builds in
# the source tree), offline, and importable from where it went
if /usr/bin/python3 -c 'import setuptools' 2>/dev/null &&
   /usr/bin/python3 -m pip --version > /dev/null 2>&1; then
  cp -r python "$tmp/src"
  if /usr/bin/python3 -m pip install -q --no-build-isolation --no-index \
       --no-deps --target "$tmp/site" "$tmp/src" > "$tmp/pip.log" 2>&1 &&
     (cd "$tmp" && PYTHONPATH="$tmp/site" /usr/bin/python3 -c '
import replex_reader, sys
assert replex_reader.__file__.startswith(sys.argv[1]), replex_reader.__file__
print("pip-installed:", replex_reader.read(sys.argv[2]).parameter("lp")["mean"])
' "$tmp/site" "$tmp/run"); then echo "ok: pip install ./python"
  else cat "$tmp/pip.log"; echo "FAIL: pip install ./python"; fail=$((fail + 1)); fi
fi
echo "${#pys[@]} interpreters, $fail failed"
[ $fail -eq 0 ]
