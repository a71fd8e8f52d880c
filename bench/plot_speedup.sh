#!/usr/bin/env bash
# One figure of speed-up against threads for every (target, scheme, P) of
# a replex bench CSV (the median chain-steps/s against the 1-thread cell of
# the same run; its `speedup` column), with the ideal line: the figure of
# docs/performance.md "On 16 cores". Needs gnuplot.
# Usage: bash bench/plot_speedup.sh BENCH.csv OUT.svg [TITLE]
set -eu
csv=${1:?usage: bash bench/plot_speedup.sh BENCH.csv OUT.svg [TITLE]}
out=${2:?usage: bash bench/plot_speedup.sh BENCH.csv OUT.svg [TITLE]}
title=${3:-speed-up against one thread}
command -v gnuplot >/dev/null || { echo "plot_speedup: no gnuplot" >&2; exit 2; }
[ -r "$csv" ] || { echo "plot_speedup: $csv: cannot read" >&2; exit 2; }
head -1 "$csv" | grep -q ',speedup,' ||
  { echo "plot_speedup: $csv: not a replex bench CSV (no speedup column)" >&2; exit 2; }
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
# one block per series, a blank pair of lines between (gnuplot's index)
awk -F, 'NR == 1 {for (i = 1; i <= NF; i++) c[$i] = i; next}
  { t = $c["target"]; sub(/.*\//, "", t); sub(/\.yaml$/, "", t)
    k = t " " $c["scheme"] " P=" $c["chains"]
    if (!(k in seen)) { seen[k] = ++n; name[n] = k }
    row[seen[k]] = row[seen[k]] $c["threads_used"] " " $c["speedup"] "\n" }
  END { for (i = 1; i <= n; i++) { printf "%s\n\n", row[i] > "'"$tmp"'/d.dat"
                                   print name[i] > "'"$tmp"'/names" } }' "$csv"
n=$(wc -l <"$tmp/names")
max=$(awk -F, 'NR == 1 {for (i = 1; i <= NF; i++) if ($i == "threads_used") c = i; next}
  $c > m {m = $c} END {print m}' "$csv")
{
  echo "set terminal svg size 900,520 font 'sans,12' noenhanced"
  echo "set output '$out'"
  echo "set title '$title'"
  echo "set xlabel 'threads'; set ylabel 'speed-up'"
  echo "set key outside right top; set grid"
  echo "set logscale xy 2; set xrange [1:$max]; set yrange [0.8:$max]"
  printf "1 1\n%s %s\n" "$max" "$max" >"$tmp/ideal.dat"
  printf "plot '%s' using 1:2 with lines dt 2 lc rgb 'gray' title 'ideal'" \
    "$tmp/ideal.dat"
  i=0
  while IFS= read -r name; do
    printf ", '%s' index %d using 1:2 with linespoints lc %d pt %d dt %d title '%s'" \
      "$tmp/d.dat" "$i" "$((i % 8 + 1))" "$((i % 7 + 1))" "$((i / 8 + 1))" \
      "$name"
    i=$((i + 1))
  done <"$tmp/names"
  echo
} >"$tmp/p.gp"
gnuplot "$tmp/p.gp"
echo "plot_speedup: $n series into $out"
