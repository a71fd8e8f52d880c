"""N single-thread PyTorch processes at once (bench/torch_cnn.py and
bench/torch_mlp.py --procs N): the fairest PyTorch configuration for
many independent chains on a many-core machine (docs/performance.md).

Each process builds its own model, warms up, waits at a barrier so that
all of them time the same interval, runs its loop on one thread and
reports its per-step times and loop length. The total throughput is the
sum over the processes of reps / loop seconds.
"""
import multiprocessing as mp
import time


def time_steps(step, reps, warmup, barrier=None):
    """Runs step() warmup times, waits at the barrier (if any), then times
    reps steps: (wall, cpu, loop seconds), wall and cpu sorted per-step
    seconds (cpu: this thread's CPU time)."""
    for _ in range(warmup):
        step()
    if barrier is not None:
        barrier.wait()
    wall, cpu = [], []
    t0 = time.perf_counter()
    for _ in range(reps):
        t, c = time.perf_counter(), time.thread_time()
        step()
        wall.append(time.perf_counter() - t)
        cpu.append(time.thread_time() - c)
    return sorted(wall), sorted(cpu), time.perf_counter() - t0


def _child(measure, a, barrier, queue):
    queue.put(measure(a, barrier))


def run(measure, a, n):
    """measure(a, barrier) -> (wall, cpu, loop_s), wall and cpu sorted
    per-step seconds; returns the n results."""
    ctx = mp.get_context("spawn")
    barrier, queue = ctx.Barrier(n), ctx.Queue()
    ps = [ctx.Process(target=_child, args=(measure, a, barrier, queue))
          for _ in range(n)]
    for p in ps:
        p.start()
    res = [queue.get() for _ in ps]
    for p in ps:
        p.join()
    return res


def report(res, reps, unit, scale):
    """Prints the per-process medians and the summed throughput."""
    med = sorted(r[1][len(r[1]) // 2] * scale for r in res)
    total = sum(reps / r[2] for r in res)
    print("%d processes at once: thread CPU median step %.3f %s (processes "
          "%.3f-%.3f); total %.1f steps/s"
          % (len(res), med[len(med) // 2], unit, med[0], med[-1], total))
