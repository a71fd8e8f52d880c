#!/usr/bin/env python3
"""PyTorch CPU reference for bench_model --net lstm (docs/performance.md).

The Fashion-MNIST RNN of yaml/fashion_rnn_renhd.yaml: each 28x28 image
as 28 steps of 28 pixels into nn.LSTM(28, 128) (its last hidden state),
ReLU, dense 128-64, ReLU, dense 64-10; summed softmax cross-entropy.
One step = zero_grad, forward, backward, SGD update, on ONE thread
(torch.set_num_threads(1)), batch 128 of N(0, 1) inputs and uniform
labels. Prints the per-step time, best and median over the repetitions,
as wall time and as this thread's CPU time (which leaves out time other
processes hold the core on a shared machine).

torch.set_num_threads(1) does not reach the OpenBLAS that Debian's
PyTorch runs its matrix products on (nn.LSTM and nn.Linear): left alone,
OpenBLAS ran them on a second thread of its own, whose time this thread's
CPU clock leaves out (58 ms of thread CPU against 91 ms of process CPU
per step on 2 vCPUs). So OPENBLAS_NUM_THREADS is set to 1 before torch
loads, and the ratio of process to thread CPU time is printed as a check.

    python3 bench/torch_lstm.py [--batch 128] [--reps 20]
"""
import argparse
import os
import time

os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")
import torch  # noqa: E402  (after the environment is set)
import torch.nn as nn
import torch.nn.functional as F

import torch_procs  # noqa: E402


class RNN(nn.Module):
    def __init__(self):
        super().__init__()
        self.lstm = nn.LSTM(28, 128, batch_first=True)
        self.f1 = nn.Linear(128, 64)
        self.f2 = nn.Linear(64, 10)

    def forward(self, x):
        out, _ = self.lstm(x)
        return self.f2(F.relu(self.f1(F.relu(out[:, -1]))))


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--batch", type=int, default=128)
    ap.add_argument("--reps", type=int, default=20)
    a = ap.parse_args()
    torch.set_num_threads(1)
    torch.manual_seed(1)
    m = RNN()
    opt = torch.optim.SGD(m.parameters(), lr=1e-6)
    x = torch.randn(a.batch, 28, 28)
    y = torch.randint(0, 10, (a.batch,))

    def step():
        opt.zero_grad()
        loss = F.cross_entropy(m(x), y, reduction="sum")
        loss.backward()
        opt.step()

    p0, c0 = time.process_time(), time.thread_time()
    wall, cpu, _ = torch_procs.time_steps(step, a.reps, 3)
    share = (time.process_time() - p0) / (time.thread_time() - c0)
    print("torch %s, %d thread, mkldnn %s, batch %d, %d reps"
          % (torch.__version__, torch.get_num_threads(),
             torch.backends.mkldnn.is_available(), a.batch, a.reps))
    for name, ts in (("wall", wall), ("thread CPU", cpu)):
        b, med = ts[0], ts[len(ts) // 2]
        print("%s: step best %.3f ms median %.3f ms (%.0f / %.0f images/s)"
              % (name, b * 1e3, med * 1e3, a.batch / b, a.batch / med))
    print("process / thread CPU time %.3f (1: this thread did all the "
          "work)%s" % (share, "" if share < 1.05 else "; WARNING: other "
                       "threads worked too (OPENBLAS_NUM_THREADS?)"))


if __name__ == "__main__":
    main()
