#!/usr/bin/env python3
"""PyTorch CPU reference for bench_model --net cnn (docs/performance.md).

The MNIST CNN of csgld.md 5.3 with 10 classes: conv5x5x32 pad 2, ReLU,
maxpool 2, conv5x5x64 pad 2, ReLU, maxpool 2, dense 3136-50 ReLU,
dense 50-10; summed softmax cross-entropy. One step = zero_grad, forward,
backward, SGD update, on ONE thread (torch.set_num_threads(1)). Prints the
per-step time, best and median over the repetitions, as wall time and as
this thread's CPU time (which leaves out time other processes hold the
core on a shared machine).

    python3 bench/torch_cnn.py [--batch 100] [--reps 20] [--procs N]

With --procs N, N such processes run at once (bench/torch_procs.py) and
the total steps/s is printed.
"""
import argparse

import torch
import torch.nn as nn
import torch.nn.functional as F

import torch_procs


class CNN(nn.Module):
    def __init__(self):
        super().__init__()
        self.c1 = nn.Conv2d(1, 32, 5, padding=2)
        self.c2 = nn.Conv2d(32, 64, 5, padding=2)
        self.f1 = nn.Linear(3136, 50)
        self.f2 = nn.Linear(50, 10)

    def forward(self, x):
        x = F.max_pool2d(F.relu(self.c1(x)), 2)
        x = F.max_pool2d(F.relu(self.c2(x)), 2)
        return self.f2(F.relu(self.f1(x.flatten(1))))


def measure(a, barrier=None):
    """Times a.reps steps on one thread: (wall, cpu, loop seconds)."""
    torch.set_num_threads(1)
    torch.manual_seed(1)
    m = CNN()
    opt = torch.optim.SGD(m.parameters(), lr=1e-6)
    x = torch.randn(a.batch, 1, 28, 28)
    y = torch.randint(0, 10, (a.batch,))

    def step():
        opt.zero_grad()
        loss = F.cross_entropy(m(x), y, reduction="sum")
        loss.backward()
        opt.step()

    return torch_procs.time_steps(step, a.reps, 3, barrier)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--batch", type=int, default=100)
    ap.add_argument("--reps", type=int, default=20)
    ap.add_argument("--procs", type=int, default=1,
                    help="N single-thread processes at once")
    a = ap.parse_args()
    if a.procs > 1:
        print("torch %s, batch %d, %d reps" % (torch.__version__, a.batch,
                                               a.reps))
        torch_procs.report(torch_procs.run(measure, a, a.procs), a.reps,
                           "ms", 1e3)
        return
    wall, cpu, _ = measure(a)
    flops = 2.0 * (32 * 25 * 784 + 64 * 800 * 196 + 3136 * 50 + 500)
    flops = (3 * flops - 2.0 * 32 * 25 * 784) * a.batch  # no input grad
    print("torch %s, %d thread, mkldnn %s, batch %d, %d reps"
          % (torch.__version__, torch.get_num_threads(),
             torch.backends.mkldnn.is_available(), a.batch, a.reps))
    for name, ts in (("wall", wall), ("thread CPU", cpu)):
        b, med = ts[0], ts[len(ts) // 2]
        print("%s: step best %.3f ms median %.3f ms (%.0f / %.0f images/s, "
              "%.2f / %.2f GFLOP/s)" % (name, b * 1e3, med * 1e3,
                                        a.batch / b, a.batch / med,
                                        flops / b * 1e-9, flops / med * 1e-9))


if __name__ == "__main__":
    main()
