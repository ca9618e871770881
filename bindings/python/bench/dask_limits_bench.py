"""A named limit kept by libdag on the client next to one kept by a ``distributed.Semaphore`` on the workers.

Usage: python3 dask_limits_bench.py [N] (default 40). Starts a LocalCluster
of 2 worker processes with 2 threads each on 127.0.0.1 and walks a graph of
N "db" vertices (pool db, limit 1) and N "web" vertices (no pool), no
edges, every task sleeping 20 ms (its work), parallelism 100, two ways:

- client: ``limits={"db": 1}``: a db vertex is submitted only once the one
  before it has ended;
- semaphore: ``limits={"db": distributed.Semaphore(max_leases=1)}``: every
  vertex submitted at once, each db task taking the lease on its worker.

Prints the wall time and when the last web task ended, both from the
walk's start.
"""

import sys
import time

import distributed

import libdag
import libdag.dask

WORK_S = 0.02


def work(_label):
    """The vertex's work; returns when it ended (time.time())."""
    time.sleep(WORK_S)
    return time.time()


def walk(client, count, limit):
    graph = libdag.Graph()
    graph.add_vertices([f"db{i}" for i in range(count)] + [f"web{i}" for i in range(count)])
    ends = {}
    began = time.time()
    report = libdag.dask.walk(graph, work, client, parallelism=100, limits={"db": limit},
                              pool=lambda label: "db" if label.startswith("db") else None,
                              on_result=lambda label, end: ends.__setitem__(label, end))
    wall = time.time() - began
    assert report.ok, report.message
    return wall, max(end for label, end in ends.items() if label.startswith("web")) - began


def main():
    count = int(sys.argv[1]) if len(sys.argv) > 1 else 40
    with distributed.LocalCluster(n_workers=2, threads_per_worker=2, processes=True, host="127.0.0.1",
                                  dashboard_address="127.0.0.1:0") as cluster, distributed.Client(cluster) as client:
        client.wait_for_workers(2)
        semaphore = distributed.Semaphore(max_leases=1, name="db")
        for kind, limit in (("client", 1), ("semaphore", semaphore)) * 2:
            wall, last_web = walk(client, count, limit)
            print(f"{kind:10} n={count}+{count}  wall {wall:6.2f} s  last web ended {last_web:6.2f} s", flush=True)


if __name__ == "__main__":
    main()
