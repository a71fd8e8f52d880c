#!/usr/bin/env bash
# VR at the paper's size (docs/reproduction.md section 4): VR-reSGLD
# (F = 1) against the standard-estimator reSGLD (F = 100) on the
# Gaussian-mixture data model of Deng et al. 2021 (ICLR; Deng 2021, ch. 3,
# Sec. 3.5.1, Fig. 3.2), with N = 10^5 and eta = 1e-7
# (yaml/vr_mixture_paper.yaml), one run per seed and method.
# Prints a Markdown table per method: swaps (total and at the pair
# tau 10 <-> 1000; with two chains they are the same pair), the estimated
# and the exact weight of the mode beta > 10 in the tau = 10 chain, the
# mode-weight error, mean +- standard error over the seeds, and how many
# seeds recovered the posterior: mode-weight error below RECOVERED (0.1).
#
# Usage: bash scripts/repro_vr.sh [--set key=value ...]   (from anywhere)
#   The --set options go to every run (e.g. --set data.batch_size=1000).
#   OUT=dir      run directories (default runs/vr_mixture_paper)
#   SEEDS="..."  default 1 .. 10
#   REPLEX=path  binary (default build/replex)
#   RECOVERED=x  error threshold of "recovered" (default 0.1)
#   FILE=yaml    the configuration (default yaml/vr_mixture_paper.yaml;
#                yaml/vr_mixture_data.yaml is the same model at N = 10^4)
# Idempotent: a run directory that holds summary.json is not run again.
# Single-threaded, one run at a time. On a shared 2-core VM: 17 minutes
# (8 of CPU) for the 20 runs; with --set data.batch_size=1000, 18 (13 of
# CPU). About 30 s of every run is the exact mode weight (4001 full-data
# energies of 10^5 terms).
set -euo pipefail
cd "$(dirname "$0")/.."
REPLEX=${REPLEX:-build/replex}
OUT=${OUT:-runs/vr_mixture_paper}
SEEDS=${SEEDS:-"1 2 3 4 5 6 7 8 9 10"}
RECOVERED=${RECOVERED:-0.1}
FILE=${FILE:-yaml/vr_mixture_paper.yaml}
mkdir -p "$OUT"

for s in $SEEDS; do
  for m in vr std; do
    d=$OUT/$m.$s
    [ -f "$d/summary.json" ] && continue
    rm -rf "$d"
    if [ $m = vr ]; then
      "$REPLEX" run "$FILE" -o "$d" -q --no-plots --threads 1 --set seed="$s" "$@"
    else
      "$REPLEX" run "$FILE" -o "$d" -q --no-plots --threads 1 --set seed="$s" \
        --set variance_reduction.enabled=false \
        --set tempering.sigma2_factor=100 "$@"
    fi
  done
done

field() { # field FILE KEY -> first number after "KEY":
  grep -o "\"$2\": \[\?[-0-9.eE+]*" "$1" | head -1 | sed 's/.*: \[\?//'
}
mse() { # mean +- standard error of stdin numbers
  awk -v f="${1:-%.3f}" '{s+=$1; q+=$1*$1; n++} END {m=s/n; v=(n>1)?(q-n*m*m)/(n-1):0;
       if (v<0) v=0; printf f " +- " f, m, sqrt(v/n)}'
}
for m in vr std; do
  if [ $m = vr ]; then
    echo "### VR-reSGLD (F = 1), $OUT"
  else
    echo "### reSGLD, standard estimator (F = 100), $OUT"
  fi
  echo
  echo "| seed | swaps (total) | swaps (pair 1) | weight beta > 10 | exact | error | sigma^2 | wall s |"
  echo "|---|---|---|---|---|---|---|---|"
  for s in $SEEDS; do
    f=$OUT/$m.$s/summary.json
    pair=$(grep -o '"attempts": [0-9]*, "swaps": [0-9]*' "$f" | head -1 | sed 's/.*: //')
    printf '| %s | %s | %s | %.3f | %.3f | %.3f | %.4g | %.1f |\n' "$s" \
      "$(field "$f" total)" "$pair" "$(field "$f" weight_high_est)" \
      "$(field "$f" weight_high_true)" "$(field "$f" abs_error)" \
      "$(field "$f" sigma2)" "$(field "$f" wall_s)"
  done
  sw=$(for s in $SEEDS; do field "$OUT/$m.$s/summary.json" total; done)
  er=$(for s in $SEEDS; do field "$OUT/$m.$s/summary.json" abs_error; done)
  ok=$(echo "$er" | awk -v t="$RECOVERED" '$1 < t {k++} END {print k+0}')
  n=$(echo "$er" | wc -l)
  echo "| mean +- se | $(echo "$sw" | mse %.1f) | | | | $(echo "$er" | mse) | | |"
  echo
  echo "swaps in all: $(echo "$sw" | awk '{s+=$1} END {print s}'); seeds with both" \
    "modes visited (0 < weight < 1): $(for s in $SEEDS; do field "$OUT/$m.$s/summary.json" weight_high_est; done |
    awk '$1 > 0 && $1 < 1 {k++} END {print k+0}') of $n; recovered the posterior" \
    "(mode-weight error < $RECOVERED): $ok of $n"
  echo
done
