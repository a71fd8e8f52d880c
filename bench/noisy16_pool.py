#!/usr/bin/env python3
"""Pool the rounds of several `bash bench/noisy16.sh` outputs (the CSV
rows "round,baseline,deo_1t,deo_2t,deo_star_1t,deo_star_2t" they print,
other lines ignored) and ask whether the 2 / 1 ratio depends on how fast
the machine ran at the time: the plain loop's speed (the `baseline`
column, M chain-steps/s) is the yardstick of the machine's state.

Prints the number of rounds, the correlation of each ratio with the
loop's speed and with the 1-thread speed, and the median ratio with the
share of rounds at or above 1.7 for the loop slower than 3, 3 to 3.8,
and 3.8 M or faster. A round with a cell at 0 (a run that printed no
speed) is left out and counted. Rows with the steal columns (st_*, the
host's steal share of each engine run, files from 2026-11-23 on) also
give each ratio by steal: the rounds where both of its runs had a steal
share below 0.03, and those where one had 0.10 or more. Rows with the
start columns (ss_*, the 2-thread runs' timing.start_s) in files that
give their iterations (a "# ITERS=K" line, printed by bench/noisy16.sh
since they were added) also give each ratio with the 2-thread run's
threads' start taken out of its wall time.

With --table first, prints instead one Markdown row per file (in the
order given): rounds, the loop's and one DEO* thread's median speed, the
DEO* 2 / 1 median with its range and the rounds at or above 1.7, and the
DEO 2 / 1 median.

Usage: python3 bench/noisy16_pool.py [--table] FILE...
"""
import math
import re
import signal
import statistics
import sys

ITERS = re.compile(r"^# ITERS=(\d+)")
ROW = re.compile(r"^\d+,([\d.]+),([\d.]+),([\d.]+),([\d.]+),([\d.]+)"
                 r"(?:,([\d.]*),([\d.]*),([\d.]*),([\d.]*))?"
                 r"(?:,([\d.]*),([\d.]*))?$")
STEAL_LOW, STEAL_HIGH = 0.03, 0.10
BANDS = ((0.0, 3.0, "below 3 M"), (3.0, 3.8, "3-3.8 M"),
         (3.8, math.inf, "3.8 M or faster"))


def share(x):
    """A steal column's value, None where empty or not a number."""
    try:
        return float(x)
    except (TypeError, ValueError):
        return None


def corr(a, b):
    ma, mb = statistics.mean(a), statistics.mean(b)
    num = sum((x - ma) * (y - mb) for x, y in zip(a, b))
    den = math.sqrt(sum((x - ma) ** 2 for x in a) *
                    sum((y - mb) ** 2 for y in b))
    return num / den if den > 0 else float("nan")


def table(per_file):
    print("| file | rounds | loop (M) | DEO* 1 thread (M) | DEO* 2 / 1 "
          "| rounds >= 1.7 | DEO 2 / 1 |")
    print("|:---|---:|---:|---:|---:|---:|---:|")
    med = statistics.median
    for p, rs in per_file:
        if not rs:
            continue
        star = [r[4] / r[3] for r in rs]
        deo = [r[2] / r[1] for r in rs]
        print(f"| `{p}` | {len(rs)} | {med(r[0] for r in rs):.2f} "
              f"| {med(r[3] for r in rs):.2f} "
              f"| **{med(star):.2f}** ({min(star):.2f}-{max(star):.2f}) "
              f"| {sum(x >= 1.7 for x in star)} | {med(deo):.2f} |")


def main(paths, as_table=False):
    rows, files, zero, per_file = [], 0, 0, []
    for p in dict.fromkeys(paths):  # each file once
        n0 = len(rows)
        iters = None  # the runs' iterations, where the file says
        try:
            with open(p, encoding="utf-8") as f:
                for line in f:
                    it = ITERS.match(line.strip())
                    if it:
                        iters = int(it.group(1))
                    m = ROW.match(line.strip())
                    if not m:
                        continue
                    r = [float(x) for x in m.groups()[:5]]
                    # the steal shares and the 2-thread runs' starts (None
                    # where not recorded), then the runs' iterations
                    r += [share(x) for x in m.groups()[5:]]
                    r.append(iters)
                    if min(r[:5]) > 0.0:
                        rows.append(r)
                    else:
                        zero += 1
        except (OSError, UnicodeDecodeError) as e:
            why = e.strerror if isinstance(e, OSError) else "not UTF-8 text"
            print(f"noisy16_pool.py: {p}: {why}", file=sys.stderr)
            return 2
        files += len(rows) > n0
        per_file.append((p, rows[n0:]))
    if as_table:
        table(per_file)
        return 0
    if len(rows) < 3:
        print("noisy16_pool.py: fewer than 3 rounds in the files",
              file=sys.stderr)
        return 2
    loop = [r[0] for r in rows]
    print(f"{len(rows)} rounds from {files} files"
          + (f" ({zero} rounds with a cell at 0 left out)" if zero else ""))
    for name, i1, i2 in (("DEO*", 3, 4), ("DEO", 1, 2)):
        ratio = [r[i2] / r[i1] for r in rows]
        one = [r[i1] for r in rows]
        print(f"{name}: 2/1 median {statistics.median(ratio):.2f}, "
              f"{sum(x >= 1.7 for x in ratio)} of {len(ratio)} rounds "
              f">= 1.7; corr with the loop's speed {corr(loop, ratio):+.2f},"
              f" with 1 thread's {corr(one, ratio):+.2f}")
        for lo, hi, label in BANDS:
            sel = [x for x, b in zip(ratio, loop) if lo <= b < hi]
            if sel:
                print(f"  loop {label}: {len(sel)} rounds, "
                      f"median {statistics.median(sel):.2f}, "
                      f"{sum(x >= 1.7 for x in sel)} >= 1.7")
        # columns 5..8: steal of deo_1t, deo_2t, deo_star_1t, deo_star_2t
        s1, s2 = (7, 8) if i1 == 3 else (5, 6)
        st = [(x, r[s1], r[s2]) for x, r in zip(ratio, rows)
              if r[s1] is not None and r[s2] is not None]
        for label, keep in (
                (f"both runs' steal below {STEAL_LOW}",
                 lambda a, b: max(a, b) < STEAL_LOW),
                (f"a run's steal {STEAL_HIGH} or more",
                 lambda a, b: max(a, b) >= STEAL_HIGH)):
            sel = [x for x, a, b in st if keep(a, b)]
            if sel:
                print(f"  {label}: {len(sel)} of {len(st)} rounds, "
                      f"median {statistics.median(sel):.2f}, "
                      f"{sum(x >= 1.7 for x in sel)} >= 1.7")
        # columns 9, 10: timing.start_s of deo_2t, deo_star_2t; 11: the
        # iterations. The 2-thread run's speed without its threads' start:
        # 16 K chain-steps over its wall time less start_s
        # (an upper bound: thread 0 may already iterate during the start)
        ss = 10 if i1 == 3 else 9
        sub = [r for r in rows if r[ss] is not None and r[11]
               and 16 * r[11] / (r[i2] * 1e6) > r[ss]]
        wo = [16 * r[11] / (16 * r[11] / (r[i2] * 1e6) - r[ss]) / 1e6 / r[i1]
              for r in sub]
        if wo:
            wi = [r[i2] / r[i1] for r in sub]
            print(f"  the {len(wo)} rounds with the 2-thread run's start "
                  f"(timing.start_s): median {statistics.median(wi):.2f} "
                  f"({sum(x >= 1.7 for x in wi)} >= 1.7), without the "
                  f"start {statistics.median(wo):.2f} "
                  f"({sum(x >= 1.7 for x in wo)} >= 1.7)")
    return 0


if __name__ == "__main__":
    signal.signal(signal.SIGPIPE, signal.SIG_DFL)  # quiet under `| head`
    args = sys.argv[1:]
    tab = bool(args) and args[0] == "--table"
    if tab:
        args = args[1:]
    if not args:
        print("usage: python3 bench/noisy16_pool.py [--table] FILE...",
              file=sys.stderr)
        sys.exit(2)
    sys.exit(main(args, tab))
