#!/usr/bin/env bash
# replex run draws its figures with gnuplot, and they can be read: every
# expected SVG exists and is an SVG document; gnuplot printed no warning;
# every figure of every script sets its x and y labels; a figure of several
# lines has a key naming them; the two density panels share one colour
# range and one colour box; a quantity the run does not adapt (a fixed
# ladder, a fixed buffer C) gets no flat figure; a run without trace.csv
# still draws its other figures; sweep figures (numeric and named values)
# pass the same checks; a 10-D and a network run get the trace and the
# marginals of their draws (checked against samples.npy and numpy's
# histogram); --no-plots leaves them out. Skipped (77) without gnuplot.
set -u
command -v gnuplot >/dev/null 2>&1 || { echo "gnuplot not installed"; exit 77; }
cd "$RX_SRCDIR"
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
pass=0; fail=0
ok() { pass=$((pass+1)); }
bad() { echo "FAIL: $*"; fail=$((fail+1)); }

# The figures of gnuplot script $1, checked one by one (a figure runs from
# its `set output` to the next): it sets a non-empty xlabel and ylabel; a
# plot of several lines (a `for [...]` loop or several clauses) is drawn
# with the key on (gnuplot's default after `reset`) and titles its lines.
# Prints one line per problem.
check_script() {
  awk '
    function fig_end() {
      if (fig == "") return
      if (!xl) print fig ": no xlabel"
      if (!yl) print fig ": no ylabel"
    }
    {
      n = split($0, part, /; */)
      for (k = 1; k <= n; ++k) {
        s = part[k]; sub(/^[ \t]+/, "", s)
        if (s ~ /^reset/) key = 1
        if (s ~ /^set output /) { fig_end(); fig = s; xl = 0; yl = 0 }
        if (s ~ /^set xlabel \x27[^\x27]+\x27/) xl = 1
        if (s ~ /^set ylabel \x27[^\x27]+\x27/) yl = 1
        if (s ~ /^unset xlabel/) xl = 0
        if (s ~ /^unset ylabel/) yl = 0
        if (s ~ /^(set key off|unset key)/) key = 0
        else if (s ~ /^set key/) key = 1
        if (s ~ /^s?plot /) {
          lines = gsub(/ with /, "&", s)
          if ((s ~ /for \[/ || lines > 1) && (!key || s !~ / title /))
            print fig ": several lines but no key naming them"
        }
      }
    }
    END { fig_end() }
    BEGIN { key = 1 }' "$1"
}

# The run or sweep directory $1: gnuplot.log without warnings, its scripts
# checked. $2 names the case in messages.
check_dir() {
  local d=$1 name=$2 out
  if [ -f "$d/plots/gnuplot.log" ] && grep -qi warning "$d/plots/gnuplot.log"; then
    bad "$name: gnuplot warned: $(grep -i -m3 warning "$d/plots/gnuplot.log")"
  else ok; fi
  for gp in "$d"/plots/*.gp; do
    out=$(check_script "$gp")
    if [ -n "$out" ]; then bad "$name: $(basename "$gp"): $out"; else ok; fi
  done
}

# The lines of plots.gp from `set output 'plots/$2.svg'` to the next
# figure, of run directory $1.
figure_block() {
  awk -v f="set output 'plots/$2.svg'" '
    /^set output / { on = index($0, f) == 1 }
    on' "$1/plots/plots.gp"
}

svgs() { # dir, then the expected figures
  local d=$1; shift
  for f in "$@"; do
    if grep -q "<svg" "$d/plots/$f.svg" 2>/dev/null; then ok
    else bad "missing or not SVG: $d/plots/$f.svg"; fi
  done
}
absent() { # dir, then figures that must not be drawn
  local d=$1; shift
  for f in "$@"; do
    if [ -e "$d/plots/$f.svg" ] || grep -q "plots/$f.svg" "$d/plots/plots.gp"; then
      bad "$d: $f.svg drawn for a quantity the run does not adapt"
    else ok; fi
  done
}

# (a) 2-D, the learning-rate ladder and the buffer C adapted
"$RX_REPLEX" run yaml/deo_star_sgd_2d.yaml -o "$tmp/a" -q --set iterations=3000
svgs "$tmp/a" index acceptance ladder correction density
check_dir "$tmp/a" "2-D adaptive run"
# the ladder figure: the learning rates only (the temperatures are fixed)
lad=$(figure_block "$tmp/a" ladder)
if [ "$(grep -c '^plot ' <<<"$lad")" = 1 ] && ! grep -qi temperature <<<"$lad"; then ok
else bad "ladder.svg of a run that adapts eta only: expected one panel, no temperatures"; fi
# the density figure: one cbrange set before both panels, never changed,
# and one colour box among the two images
den=$(figure_block "$tmp/a" density)
read -r ncb cb_before boxes images < <(awk '
  /^set cbrange/ { ++ncb; if (!plots) ++before }
  /^unset colorbox/ { box = 0 } /^set colorbox/ { box = 1 }
  /^s?plot .* with image/ { ++plots; boxes += box }
  BEGIN { box = 1 }
  END { print ncb + 0, before + 0, boxes + 0, plots + 0 }' <<<"$den")
if [ "$images" = 2 ] && [ "$ncb" = 1 ] && [ "$cb_before" = 1 ] && [ "$boxes" = 1 ]; then ok
else bad "density.svg: $images images, $ncb cbrange ($cb_before before the panels), $boxes colour boxes; want 2, 1 (1), 1"; fi

# (b) 1-D, fixed ladder, Metropolis rule (no buffer C)
"$RX_REPLEX" run yaml/gmm_1d_two_modes.yaml -o "$tmp/b" -q --set iterations=3000
svgs "$tmp/b" index acceptance density
absent "$tmp/b" ladder correction
check_dir "$tmp/b" "1-D fixed-ladder run"

# (c) the 2-D run with nothing adapted: no ladder, no C figure
"$RX_REPLEX" run yaml/deo_star_sgd_2d.yaml -o "$tmp/c" -q --set iterations=2000 \
  --set ladder.adapt=none --set correction.adapt=false
svgs "$tmp/c" index acceptance density
absent "$tmp/c" ladder correction
check_dir "$tmp/c" "2-D fixed run"

# (d) no trace.csv: the index and density figures all the same
if "$RX_REPLEX" run yaml/deo_star_sgd_2d.yaml -o "$tmp/d" --set iterations=2000 \
     --set record.trace_every=0 >"$tmp/d.out" 2>&1 && ! grep -q "gnuplot failed" "$tmp/d.out"; then ok
else bad "run without trace.csv: $(cat "$tmp/d.out")"; fi
svgs "$tmp/d" index density
check_dir "$tmp/d" "run without trace"

# (e) sweeps: a numeric key, and a key whose values are names
{ grep -v '^ *sweep:' yaml/gmm_1d_two_modes.yaml
  printf 'sweep:\n  tempering.scheme: [deo, seo]\n  ladder.eta: [0.01, 0.05]\n'; } >"$tmp/sw.yaml"
"$RX_REPLEX" run "$tmp/sw.yaml" -o "$tmp/e" -q --set iterations=2000
svgs "$tmp/e" sweep_tempering_scheme sweep_ladder_eta
check_dir "$tmp/e" "sweep"

# (g) trace and marginals: a 10-D run (lp and the first coordinates) and
# a network (lp and the noise sd in the units of y); 1-D and 2-D runs have
# density.svg instead
"$RX_REPLEX" run tests/data/gmm10_four_modes.yaml -o "$tmp/g" -q \
  --set iterations=6000 --threads 1
svgs "$tmp/g" index acceptance trace marginals
check_dir "$tmp/g" "10-D run"
[ "$(head -1 "$tmp/g/plots/draws.csv")" = "iteration,lp,theta[0],theta[1],theta[2]" ] &&
  ok || bad "10-D: draws.csv columns: $(head -1 "$tmp/g/plots/draws.csv")"
# the draws of theta[0] are samples.npy's column 0, at burn_in + r thin
/usr/bin/python3 - "$tmp/g" <<'PY' && ok || bad "10-D: draws.csv or marginals.csv (above)"
import sys, numpy as np
d = sys.argv[1]
x = np.load(d + "/samples.npy").astype(float)
t = np.genfromtxt(d + "/plots/draws.csv", delimiter=",", names=True)
assert len(t) == len(x), (len(t), len(x))
assert np.array_equal(t["iteration"], 2000 + 10 * np.arange(len(x)))
assert np.allclose(t["theta0"], x[:, 0], rtol=1e-7, atol=0), "theta[0]"
m = np.genfromtxt(d + "/plots/marginals.csv", delimiter=",", skip_header=1)
for q in range(4):  # each histogram is a density: it integrates to 1
    c, h = m[:, 2 * q], m[:, 2 * q + 1]
    assert abs((h * (c[1] - c[0])).sum() - 1) < 1e-6, q
    if q:  # and counts the draws per bin of the column's range
        lo, hi = x[:, q - 1].min(), x[:, q - 1].max()
        n, _ = np.histogram(x[:, q - 1], bins=40, range=(lo, hi))
        assert np.allclose(h * len(x) * (hi - lo) / 40, n, atol=1e-6), q
PY
"$RX_REPLEX" run yaml/mlp_synthetic.yaml -o "$tmp/n" -q --threads 1 \
  --set iterations=600 --set record.burn_in=300 --set record.thin=10
svgs "$tmp/n" trace marginals
check_dir "$tmp/n" "network run"
[ "$(head -1 "$tmp/n/plots/draws.csv")" = "iteration,lp,noise_sd" ] &&
  ok || bad "network: draws.csv columns: $(head -1 "$tmp/n/plots/draws.csv")"
figure_block "$tmp/n" trace | grep -q "set ylabel 'noise sd (units of y)'" &&
  ok || bad "network: the trace has no noise sd panel in the units of y"
figure_block "$tmp/n" marginals | grep -q "weights are not identifiable" &&
  ok || bad "network: the marginals do not say why the weights are left out"
# a weighted sampler (CSGLD) on the 10-D target: the marginals say so
"$RX_REPLEX" run tests/data/gmm10_four_modes.yaml -o "$tmp/w" -q --threads 1 \
  --set iterations=6000 --set bias.kind=csgld --set tempering.n_chains=1 \
  --set tempering.scheme=none
svgs "$tmp/w" trace marginals
check_dir "$tmp/w" "weighted 10-D run"
grep -q "Marginals of the 400 kept target draws, weighted by the bias's importance weights" \
  "$tmp/w/plots/marginals.svg" && ok ||
  bad "weighted: the marginals do not say they are weighted"
for d in a b c; do
  if [ -e "$tmp/$d/plots/trace.svg" ] || [ -e "$tmp/$d/plots/marginals.svg" ]; then
    bad "$d: trace or marginals drawn for a 1-D or 2-D target"
  else ok; fi
done

# (f) --no-plots
"$RX_REPLEX" run yaml/gmm_1d_two_modes.yaml -o "$tmp/f" -q --no-plots --set iterations=300 \
  --set record.burn_in=0
if [ ! -e "$tmp/f/plots" ]; then ok; else bad "--no-plots wrote plots"; fi
echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]
