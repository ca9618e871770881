"""libdag.dask.walk next to Dask alone and to libdag's local executor walk, on graphs of tiny tasks.

Usage: python3 dask_bench.py [--rounds K] [N...] (default 1000 10000). Starts a
LocalCluster of 2 worker processes (one thread each) on 127.0.0.1 and, for
each N, a random graph of N vertices each depending on up to 3 earlier
ones; prints wall seconds and microseconds per vertex for:

- dask: the same graph as a task dict, run by Dask's scheduler alone
  (``client.get`` of the vertices nothing depends on);
- libdag.dask pN: ``libdag.dask.walk`` with parallelism N (one future per
  vertex, submitted when its dependencies have finished);
- libdag.dask p1000 result: the same with every task returning its label
  and ``on_result`` given, so that each result comes back to the client
  (what expansion, and ``python3 -m libdag.dask`` with output or
  ``--trace``, pay);
- executor: ``Graph.walk_on`` on a local ThreadPoolExecutor of 2 threads.

With ``--rounds K`` (K > 1), then K more rounds of Dask alone and libdag.dask
p1000 only, the first of the two alternating, each round's ratio and their
median: Dask's own time moves by up to 2x between runs on a busy machine, so
one pair of runs says little about a 1.1x target.
"""

import argparse
import concurrent.futures
import itertools
import random
import resource
import statistics
import time

import distributed

import libdag
import libdag.dask


def tiny(*_dependencies):
    return None


def echo(label):
    return label


def random_graph(count, seed=7):
    rng = random.Random(seed)
    graph = libdag.Graph()
    ids = graph.add_vertices(f"v{i}" for i in range(count))
    edges = []
    for i in range(1, count):
        for j in rng.sample(range(i), min(i, rng.randint(0, 3))):
            edges.append((ids[i], ids[j]))
    graph.connect_many(edges)
    return graph


def task_dict(graph, prefix):
    """Dask's form of the graph: each key's task takes its dependencies' keys as arguments.

    Keys start with ``prefix``: a run that reused the last run's keys could
    find their results still held (Dask releases them after get() returns)
    and compute nothing.
    """
    key = lambda v: prefix + graph.label(v)  # noqa: E731
    return {key(v): (tiny, *(key(d) for d in graph.dependencies(v))) for v in graph.vertices()}


_faults = [0]  # the client process's minor page faults during the last timed run


def timed(run):
    faults = resource.getrusage(resource.RUSAGE_SELF).ru_minflt
    began = time.perf_counter()
    run()
    seconds = time.perf_counter() - began
    _faults[0] = resource.getrusage(resource.RUSAGE_SELF).ru_minflt - faults
    return seconds


def show(kind, count, seconds):
    """One row; faults and peak RSS are the client process's (with LocalCluster, the scheduler's too),
    not the workers'."""
    peak_mb = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    print(f"{kind:18} n={count:6}  {seconds:7.2f} s  {seconds / count * 1e6:8.0f} us/vertex  "
          f"{_faults[0]:8} faults  peak {peak_mb:6.0f} MB", flush=True)


def bench(client, count, rounds):
    graph = random_graph(count)
    runs = itertools.count()

    def dask_alone():
        # Built outside the time: each run has keys of its own.
        prefix = f"r{next(runs)}-"
        dsk = task_dict(graph, prefix)
        sinks = [prefix + graph.label(v) for v in graph.roots()]  # Terraform's roots: nothing depends on them
        return timed(lambda: client.get(dsk, sinks))

    def walk(parallelism=1000):
        libdag.dask.walk(graph, tiny, client, parallelism=parallelism).raise_for_status()

    show("dask", count, dask_alone())
    for parallelism in (10, 1000):
        show(f"libdag.dask p{parallelism}", count, timed(lambda: walk(parallelism)))
    received = []
    show("libdag.dask p1000 result", count,
         timed(lambda: libdag.dask.walk(graph, echo, client, parallelism=1000,
                                        on_result=lambda label, value: received.append(value)).raise_for_status()))
    assert len(received) == count
    with concurrent.futures.ThreadPoolExecutor(2) as pool:
        show("executor", count, timed(lambda: graph.walk_on(pool, tiny).raise_for_status()))
    if rounds > 1:
        ratios = []
        for k in range(rounds):
            if k % 2:
                ours, theirs = timed(walk), dask_alone()
            else:
                theirs, ours = dask_alone(), timed(walk)
            ratios.append(ours / theirs)
            print(f"round {k + 1:2}  n={count:6}  dask {theirs:6.2f} s  libdag.dask p1000 {ours:6.2f} s  "
                  f"{ratios[-1]:.2f}x", flush=True)
        print(f"median     n={count:6}  {statistics.median(ratios):.2f}x of Dask alone "
              f"({min(ratios):.2f}-{max(ratios):.2f}x, {rounds} rounds)", flush=True)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=1, help="alternated rounds of Dask alone and p1000")
    parser.add_argument("counts", type=int, nargs="*", help="graph sizes (default 1000 10000)")
    args = parser.parse_args()
    counts = args.counts or [1000, 10000]
    with distributed.LocalCluster(processes=True, n_workers=2, threads_per_worker=1, host="127.0.0.1",
                                  dashboard_address="127.0.0.1:0") as cluster, distributed.Client(cluster) as client:
        client.wait_for_workers(2)
        client.get({"warm": (tiny,)}, "warm")
        for count in counts:
            bench(client, count, args.rounds)


if __name__ == "__main__":
    main()
