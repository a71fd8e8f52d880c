#!/usr/bin/env python3
"""Medians of interleaved benchmark rounds (bench/noisy16.sh,
bench/mlp_gemm.sh): CSV with a `round` column and one column per cell;
prints every cell's median (range) in UNIT and, for each A/B given, the
median (range) of the per-round ratios A / B (cells measured minutes
apart drift with the machine; ratios within a round do not). Columns
named st_* are shares (bench/noisy16.sh: the host's steal) and print
without the unit, ss_* seconds (its 2-thread runs' timing.start_s); a
column with an empty value is left out.
Usage: python3 bench/round_stats.py CSV UNIT [A/B ...]
"""
import csv
import statistics as st
import sys

rows = list(csv.DictReader(open(sys.argv[1])))
unit = sys.argv[2]
cells = [k for k in rows[0] if k != 'round']
for k in cells:
    if any(x[k] in (None, '') for x in rows):
        continue
    v = [float(x[k]) for x in rows]
    # the number format and unit by the column's kind
    f, u = {'st_': ('%.3f', ''), 'ss_': ('%.4f', ' s')}.get(
        k[:3], ('%.2f', ' ' + unit))
    print(('%-12s median ' + f + u + ' (' + f + '-' + f + ')') %
          (k, st.median(v), min(v), max(v)))
for pair in sys.argv[3:]:
    a, b = pair.split('/')
    r = [float(x[a]) / float(x[b]) for x in rows]
    print('%s / %s per round: median %.2f (%.2f-%.2f)' % (a, b, st.median(r),
                                                          min(r), max(r)))
