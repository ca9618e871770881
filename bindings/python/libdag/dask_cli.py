"""``python3 -m libdag.dask``: ``dag walk --exec`` with each vertex's command run on a Dask cluster's workers.

The C++ ``dag`` program does not link Python, so the cluster form of its
walk lives here. Each vertex runs ``/bin/sh -c CMD`` in a subprocess on a
worker, with ``DAG_VERTEX`` set to its name; a non-zero exit fails the
vertex with the exit status and the tail of its standard error. The
report file has the layout of ``dag walk --report``.
"""

from __future__ import annotations

import argparse
import json
import sys
import time

from . import DagError, Graph, VertexStatus
from . import dask as dag_dask

# How much of a failing command's standard error comes back in its vertex's message.
_STDERR_TAIL = 2000
_STATUS_NAMES = {VertexStatus.OK: "ok", VertexStatus.FAILED: "failed", VertexStatus.UPSTREAM_FAILED: "upstream_failed",
                 VertexStatus.CANCELLED: "cancelled", VertexStatus.NOT_RUN: "not_run"}


def run_command(argument):
    """Runs on a worker: the vertex's command, with DAG_VERTEX set; raises when it fails."""
    import os
    import subprocess

    vertex, command = argument
    env = dict(os.environ, DAG_VERTEX=vertex)
    done = subprocess.run(["/bin/sh", "-c", command], env=env, stdin=subprocess.DEVNULL,
                          stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, check=False)
    if done.returncode != 0:
        tail = done.stderr[-_STDERR_TAIL:].decode("utf-8", "replace").strip()
        how = f"exit status {done.returncode}" if done.returncode > 0 else f"killed by signal {-done.returncode}"
        raise RuntimeError(f"{how}: {tail}" if tail else how)


def _at_least(least):
    def number(text):
        if not text.isdigit() or int(text) < least:
            raise argparse.ArgumentTypeError(f"{text!r} is not a whole number of at least {least}")
        return int(text)

    return number


def _parser():
    parser = argparse.ArgumentParser(
        prog="python3 -m libdag.dask",
        description="Walk a graph with each vertex's command run on a Dask cluster's workers "
                    "(/bin/sh -c CMD with DAG_VERTEX set to the vertex's name).")
    parser.add_argument("--scheduler", required=True, metavar="ADDRESS|local:N",
                        help="a Dask scheduler's address (tcp://host:8786), or local:N for a LocalCluster "
                             "of N worker processes on this machine")
    parser.add_argument("--exec", required=True, dest="command", metavar="CMD", help="the command each vertex runs")
    parser.add_argument("--parallelism", type=_at_least(1), default=10, metavar="N",
                        help="vertices submitted at once (10)")
    parser.add_argument("--reverse", action="store_true", help="dependents before their dependencies")
    parser.add_argument("--fail-fast", action="store_true", help="after a failure start nothing new")
    parser.add_argument("--retries", type=_at_least(0), default=0, metavar="N", help="reruns of a failed command (0)")
    parser.add_argument("--report", metavar="FILE", help="write the outcome of every vertex as JSON")
    parser.add_argument("file", help="the graph (DOT, JSON or text, as dag reads it)")
    return parser


def _cluster(scheduler):
    """(client, cluster or None) for --scheduler."""
    import distributed

    if scheduler.startswith("local:"):
        count = scheduler[len("local:"):]
        if not count.isdigit() or int(count) < 1:
            raise ValueError(f"--scheduler {scheduler}: local:N needs N, a number of workers, at least 1")
        cluster = distributed.LocalCluster(n_workers=int(count), threads_per_worker=1, processes=True,
                                           host="127.0.0.1", dashboard_address="127.0.0.1:0")
        return distributed.Client(cluster), cluster
    return distributed.Client(scheduler, timeout=30), None


def _write_report(path, graph, report, elapsed_ms):
    vertices = []
    for result in report:
        ran = result.ran
        vertices.append({"name": graph.label(result.id), "status": _STATUS_NAMES[result.status],
                         "message": result.message,
                         "start_ms": result.start_ns / 1e6 if ran else None,
                         "end_ms": result.end_ns / 1e6 if ran else None})
    document = {"vertices": vertices}
    document.update({name: report.count(status) for status, name in _STATUS_NAMES.items()})
    document["elapsed_ms"] = elapsed_ms
    with open(path, "w") as out:
        json.dump(document, out, indent=2)
        out.write("\n")


def _summary(graph, report):
    counts = ", ".join(f"{report.count(s)} {name}" for s, name in _STATUS_NAMES.items())
    print(f"walk: {counts}", file=sys.stderr)
    for result in report:
        if result.status == VertexStatus.FAILED:
            print(f"  failed: {graph.label(result.id)}: {result.message}", file=sys.stderr)


def main(argv=None):
    options = _parser().parse_args(argv)
    try:
        graph = Graph.from_file(options.file)
        if graph.cycles() or any(graph.has_edge(v, v) for v in graph.vertices()):
            raise ValueError(f"{options.file}: the graph has a cycle (dag cycles FILE lists them)")
        client, cluster = _cluster(options.scheduler)
    except (OSError, ValueError, ImportError, DagError) as bad:
        print(f"python3 -m libdag.dask: {bad}", file=sys.stderr)
        return 2
    interrupted = None
    try:
        # The workers need not have libdag: the command runner travels by value.
        import cloudpickle

        cloudpickle.register_pickle_by_value(sys.modules[__name__])
        payload = {graph.label(v): (graph.label(v), options.command) for v in graph.vertices()}
        began = time.monotonic()
        try:
            report = dag_dask.walk(graph, run_command, client, parallelism=options.parallelism,
                                   reverse=options.reverse, fail_fast=options.fail_fast, retries=options.retries,
                                   payload=payload)
        except KeyboardInterrupt as stop:
            interrupted, report = stop, stop.walk_report
        elapsed_ms = (time.monotonic() - began) * 1000
    finally:
        client.close()
        if cluster is not None:
            cluster.close()
    _summary(graph, report)
    if options.report:
        _write_report(options.report, graph, report, elapsed_ms)
    if interrupted is not None:
        return 130
    return 0 if report.ok else 1
