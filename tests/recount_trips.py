#!/usr/bin/python3
"""Recount the round trips and restarts of a run from its index process.

Usage: recount_trips.py RUNDIR
Reads RUNDIR/index.npy (int32, one row per iteration: the particle at each
position after the iteration's exchange; record.index_every must be 1) and
RUNDIR/summary.json, recounts with the definitions of docs/deo.md 4.2
(particle i starts at position i, its home):
  a5: a particle that has been at position 1 and at position P since its
      last trip and is back home completes a trip;
  l1: a particle at position 1 whose last end was P, after a visit to 1
      before that (complete 1 -> P -> 1 cycles, not a first half trip);
  restarts: arrivals at position 1 whose last end was P.
Prints both counts; exit 0 when every counter equals summary.json's, 1 if
not, 2 on a bad run directory. The standard library only (no numpy).
"""
import ast
import json
import struct
import sys
from array import array


def read_index(path):
    with open(path, 'rb') as f:
        data = f.read()
    if data[:6] != b'\x93NUMPY':
        raise ValueError(f'{path}: not a .npy file')
    major = data[6]
    if major == 1:
        hlen = struct.unpack('<H', data[8:10])[0]
        start = 10
    else:
        hlen = struct.unpack('<I', data[8:12])[0]
        start = 12
    header = ast.literal_eval(data[start:start + hlen].decode('latin1'))
    if header['descr'] != '<i4' or header['fortran_order']:
        raise ValueError(f'{path}: expected C-order <i4, got {header}')
    rows, cols = header['shape']
    values = array('i')
    values.frombytes(data[start + hlen:])
    if sys.byteorder != 'little':
        values.byteswap()
    if len(values) != rows * cols:
        raise ValueError(f'{path}: {len(values)} values for shape '
                         f'{rows} x {cols}')
    return rows, cols, values


def recount(rows, P, at_rows):
    LOW, HIGH = 1, 2
    visited = [0] * P
    last_end = [0] * P
    seen_low = [False] * P   # has been at position 1 (for l1)
    a5 = l1 = restarts = 0
    for r in range(rows):
        at = at_rows[r * P:(r + 1) * P]
        if sorted(at) != list(range(P)):
            raise ValueError(f'row {r} is not a permutation: {list(at)}')
        pos = [0] * P
        for q, i in enumerate(at):
            pos[i] = q
        lo, hi = at[0], at[P - 1]
        visited[lo] |= LOW
        visited[hi] |= HIGH
        for i in range(P):
            if visited[i] == LOW | HIGH and pos[i] == i:
                a5 += 1
                visited[i] = 0
        if last_end[lo] == HIGH:
            restarts += 1
            if seen_low[lo]:
                l1 += 1
        last_end[lo] = LOW
        seen_low[lo] = True
        last_end[hi] = HIGH
    return a5, l1, restarts


def main():
    if len(sys.argv) != 2:
        print('usage: recount_trips.py RUNDIR', file=sys.stderr)
        return 2
    d = sys.argv[1]
    try:
        rows, P, at = read_index(f'{d}/index.npy')
        with open(f'{d}/summary.json') as f:
            s = json.load(f)
    except (OSError, ValueError, KeyError, SyntaxError) as e:
        print(f'recount_trips.py: {e}', file=sys.stderr)
        return 2
    if rows != s['iterations'] or P != s['n_chains']:
        print(f'recount_trips.py: {rows} index rows of {P} for '
              f'{s["iterations"]} iterations of {s["n_chains"]} chains '
              '(needs record.index_every: 1)', file=sys.stderr)
        return 2
    a5, l1, rs = recount(rows, P, at)
    rt = s['round_trips']
    print(f'recount a5 {a5} l1 {l1} restarts {rs}; summary.json a5 '
          f'{rt["a5"]} l1 {rt["l1"]} restarts {rt["restarts"]}')
    return 0 if (a5, l1, rs) == (rt['a5'], rt['l1'], rt['restarts']) else 1


if __name__ == '__main__':
    sys.exit(main())
