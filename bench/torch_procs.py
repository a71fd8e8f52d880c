"""N single-thread PyTorch processes at once (bench/torch_cnn.py and
bench/torch_mlp.py --procs N): the fairest PyTorch configuration for
many independent chains on a many-core machine (docs/performance.md).

Each process builds its own model, warms up, waits at a barrier so that
all of them time the same interval, runs its loop on one thread and
reports its per-step times and loop length. The total throughput is the
sum over the processes of reps / loop seconds.
"""
import multiprocessing as mp


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
