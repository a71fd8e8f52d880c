#!/usr/bin/env python3
"""Sampling floors of the 25-mode target's accuracy measures
(docs/reproduction.md section 1): the grid TV (30 x 30 cells over
[-3, 3]^2) and the mode-weight TV (nearest of the 25 centres) of N
independent draws from exp(-U) restricted to the grid, with the
notebook's confining term (R2 = 20); mean +- sd over SETS sets.
Standard library only. Usage: m25_floor.py [N [SETS]] (default 1991 20)."""
import bisect
import math
import random
import statistics
import sys

N = int(sys.argv[1]) if len(sys.argv) > 1 else 1991
SETS = int(sys.argv[2]) if len(sys.argv) > 2 else 20
LO, HI, BINS, FINE = -3.0, 3.0, 30, 300  # FINE points per axis (10 per bin)
h, hb = (HI - LO) / FINE, (HI - LO) / BINS
xs = [LO + (a + 0.5) * h for a in range(FINE)]
cs = [math.cos(2 * math.pi * x) for x in xs]


def mode(x, y):
    i = max(-2, min(2, round(x)))
    j = max(-2, min(2, round(y)))
    return (i + 2) + 5 * (j + 2)


def cell(x, y):
    return (min(BINS - 1, int((x - LO) / hb)) +
            BINS * min(BINS - 1, int((y - LO) / hb)))


w = []
for b in range(FINE):
    for a in range(FINE):
        r2 = xs[a] ** 2 + xs[b] ** 2
        u = 0.2 * r2 - 2 * (cs[a] + cs[b]) + max(0.0, r2 - 20)
        w.append(math.exp(-u - 4))
z = sum(w)
cum, acc = [], 0.0
ptrue, mtrue = [0.0] * BINS * BINS, [0.0] * 25
for k, wk in enumerate(w):
    acc += wk
    cum.append(acc / z)
    x, y = xs[k % FINE], xs[k // FINE]
    ptrue[cell(x, y)] += wk / z
    mtrue[mode(x, y)] += wk / z

rng = random.Random(1)
grid_tv, mode_tv = [], []
for _ in range(SETS):
    pe, me = [0] * BINS * BINS, [0] * 25
    for _ in range(N):
        k = min(len(cum) - 1, bisect.bisect_left(cum, rng.random()))
        x = xs[k % FINE] + (rng.random() - 0.5) * h
        y = xs[k // FINE] + (rng.random() - 0.5) * h
        pe[cell(x, y)] += 1
        me[mode(x, y)] += 1
    grid_tv.append(0.5 * sum(abs(pe[i] / N - ptrue[i]) for i in range(len(pe))))
    mode_tv.append(0.5 * sum(abs(me[i] / N - mtrue[i]) for i in range(25)))
outer = sum(m for i, m in enumerate(mtrue) if i % 5 in (0, 4) or i // 5 in (0, 4))
print(f"{SETS} sets of {N} independent draws: grid TV "
      f"{statistics.mean(grid_tv):.3f} +- {statistics.stdev(grid_tv):.3f}, "
      f"mode-weight TV {statistics.mean(mode_tv):.3f} +- "
      f"{statistics.stdev(mode_tv):.3f}; truth's outer-16 mass {outer:.3f}")
