"""libdag.dask.walk next to Dask alone and to libdag's local executor walk, on graphs of tiny tasks.

Usage: python3 dask_bench.py [N...] (default 1000 10000). Starts a
LocalCluster of 2 worker processes (one thread each) on 127.0.0.1 and, for
each N, a random graph of N vertices each depending on up to 3 earlier
ones; prints wall seconds and microseconds per vertex for:

- dask: the same graph as a task dict, run by Dask's scheduler alone
  (``client.get`` of the vertices nothing depends on);
- libdag.dask pN: ``libdag.dask.walk`` with parallelism N (one future per
  vertex, submitted when its dependencies have finished);
- executor: ``Graph.walk_on`` on a local ThreadPoolExecutor of 2 threads.
"""

import concurrent.futures
import random
import sys
import time

import distributed

import libdag
import libdag.dask


def tiny(*_dependencies):
    return None


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


def task_dict(graph):
    """Dask's form of the graph: each key's task takes its dependencies' keys as arguments."""
    return {graph.label(v): (tiny, *(graph.label(d) for d in graph.dependencies(v))) for v in graph.vertices()}


def timed(run):
    began = time.perf_counter()
    run()
    return time.perf_counter() - began


def show(kind, count, seconds):
    print(f"{kind:18} n={count:6}  {seconds:7.2f} s  {seconds / count * 1e6:8.0f} us/vertex", flush=True)


def bench(client, count):
    graph = random_graph(count)
    dsk = task_dict(graph)
    sinks = [graph.label(v) for v in graph.roots()]  # Terraform's roots: nothing depends on them
    show("dask", count, timed(lambda: client.get(dsk, sinks)))
    for parallelism in (10, 1000):
        def walk(parallelism=parallelism):
            libdag.dask.walk(graph, tiny, client, parallelism=parallelism).raise_for_status()

        show(f"libdag.dask p{parallelism}", count, timed(walk))
    with concurrent.futures.ThreadPoolExecutor(2) as pool:
        show("executor", count, timed(lambda: graph.walk_on(pool, tiny).raise_for_status()))


def main():
    counts = [int(arg) for arg in sys.argv[1:]] or [1000, 10000]
    with distributed.LocalCluster(processes=True, n_workers=2, threads_per_worker=1, host="127.0.0.1",
                                  dashboard_address="127.0.0.1:0") as cluster, distributed.Client(cluster) as client:
        client.wait_for_workers(2)
        client.get({"warm": (tiny,)}, "warm")
        for count in counts:
            bench(client, count)


if __name__ == "__main__":
    main()
