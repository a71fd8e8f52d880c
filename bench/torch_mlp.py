#!/usr/bin/env python3
"""PyTorch CPU reference for bench_model --net mlp (docs/performance.md).

The UCI regression MLP 13-50-1 (ReLU) with a Gaussian likelihood of fixed
variance 1 (summed squared error / 2). One step = zero_grad, forward,
backward, SGD update, on ONE thread. Prints the per-step time, best and
median, as wall time and as this thread's CPU time.

    python3 bench/torch_mlp.py [--batch 50] [--reps 20000] [--procs N]

With --procs N, N such processes run at once (bench/torch_procs.py) and
the total steps/s is printed.
"""
import argparse

import torch
import torch.nn as nn

import torch_procs


def measure(a, barrier=None):
    """Times a.reps steps on one thread: (wall, cpu, loop seconds)."""
    torch.set_num_threads(1)
    torch.manual_seed(1)
    m = nn.Sequential(nn.Linear(13, 50), nn.ReLU(), nn.Linear(50, 1))
    opt = torch.optim.SGD(m.parameters(), lr=1e-6)
    x = torch.randn(a.batch, 13)
    y = torch.randn(a.batch, 1)

    def step():
        opt.zero_grad()
        loss = 0.5 * ((m(x) - y) ** 2).sum()
        loss.backward()
        opt.step()

    return torch_procs.time_steps(step, a.reps, 100, barrier)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--batch", type=int, default=50)
    ap.add_argument("--reps", type=int, default=20000)
    ap.add_argument("--procs", type=int, default=1,
                    help="N single-thread processes at once")
    a = ap.parse_args()
    if a.procs > 1:
        print("torch %s, batch %d, %d reps" % (torch.__version__, a.batch,
                                               a.reps))
        torch_procs.report(torch_procs.run(measure, a, a.procs), a.reps,
                           "us", 1e6)
        return
    wall, cpu, _ = measure(a)
    print("torch %s, %d thread, batch %d, %d reps"
          % (torch.__version__, torch.get_num_threads(), a.batch, a.reps))
    for name, ts in (("wall", wall), ("thread CPU", cpu)):
        print("%s: step best %.2f us median %.2f us"
              % (name, ts[0] * 1e6, ts[len(ts) // 2] * 1e6))


if __name__ == "__main__":
    main()
