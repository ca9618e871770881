"""``python3 -m libdag.dask``: ``dag walk --exec`` with each vertex's command run on a Dask cluster's workers.

The C++ ``dag`` program does not link Python, so the cluster form of its
walk lives here. Each vertex runs ``/bin/sh -c CMD`` in a subprocess on a
worker, with ``DAG_VERTEX`` set to its name (:mod:`libdag.dask_command`); a
non-zero exit fails the vertex with the exit status and the tail of its
standard error. The summary, ``--report``, ``--trace``, ``--progress`` and
``--output`` are those of ``dag walk``.
"""

from __future__ import annotations

import argparse
import contextlib
import logging
import os
import signal
import sys
import time
import uuid

from . import DagError, Graph
from . import dask as dag_dask
from . import dask_command
from .dask_progress import REDRAW_S, Progress
from .dask_report import summarize, write_report
from .dask_trace import trace_document, write_trace

_EXIT_AFTER = {signal.SIGINT: 130, signal.SIGTERM: 143}


def _at_least(least):
    def number(text):
        if not text.isdigit() or int(text) < least:
            raise argparse.ArgumentTypeError(f"{text!r} is not a whole number of at least {least}")
        return int(text)

    return number


def _seconds(text):
    try:
        seconds = float(text)
    except ValueError:
        seconds = -1.0
    if not 0 <= seconds <= 86400:
        raise argparse.ArgumentTypeError(f"{text!r} is not a number of seconds from 0 to 86400")
    return seconds


def _parser():
    parser = argparse.ArgumentParser(
        prog="python3 -m libdag.dask",
        description="Walk a graph with each vertex's command run on a Dask cluster's workers "
                    "(/bin/sh -c CMD with DAG_VERTEX set to the vertex's name).")
    parser.add_argument("--scheduler", "--dask", required=True, metavar="ADDRESS|local:N",
                        help="a Dask scheduler's address (tcp://host:8786), or local:N for a LocalCluster "
                             "of N worker processes on this machine")
    parser.add_argument("--exec", required=True, dest="command", metavar="CMD", help="the command each vertex runs")
    parser.add_argument("--parallelism", type=_at_least(1), default=10, metavar="N",
                        help="vertices submitted at once (10)")
    parser.add_argument("--reverse", action="store_true", help="dependents before their dependencies")
    parser.add_argument("--fail-fast", action="store_true", help="after a failure start nothing new")
    parser.add_argument("--retries", type=_at_least(0), default=0, metavar="N", help="reruns of a failed command (0)")
    parser.add_argument("--priority", choices=("critical-path", "name", "none"), default="critical-path",
                        help="which ready vertex is submitted first: the one with the longest chain still to run "
                             "through it (the default, as for dag walk), by name, or about as they became ready; "
                             "ties by name")
    parser.add_argument("--output", choices=("grouped", "none"), default="grouped",
                        help="grouped (each command's standard output and error, sent back from its worker, "
                             "printed whole when it ends, each line after \"vertex: \", a failed command's "
                             "too) or none (discarded; the tail of a failed command's standard "
                             "error still comes back in its message)")
    parser.add_argument("--progress", nargs="?", const="always", default="auto", choices=("auto", "always", "never"),
                        metavar="WHEN",
                        help="progress on standard error: auto (when it is a terminal), always (a bare "
                             "--progress) or never; on a terminal one status line redrawn in place, elsewhere "
                             "\"[done/total] name\" as each vertex finishes")
    parser.add_argument("--grace", type=_seconds, default=5.0, metavar="SECONDS",
                        help="on SIGINT or SIGTERM, how long running commands get to exit after SIGTERM before "
                             "they are killed; each one's process group is killed once it has exited (5)")
    parser.add_argument("--report", metavar="FILE", help="write the outcome of every vertex as JSON")
    parser.add_argument("--trace", metavar="FILE",
                        help="write the walk as Chrome trace-event JSON (Perfetto, chrome://tracing): a span per "
                             "command that ran, timed on its worker, a track per worker thread")
    parser.add_argument("file", help="the graph (DOT, JSON or text, as dag reads it)")
    return parser


def _cluster(scheduler):
    """(client, cluster or None) for --scheduler."""
    # Taking a cluster down races its own connections: now and then asyncio reports a
    # connection's timeout that nobody awaited any more ("Future exception was never
    # retrieved"), from this process or a worker's, between the walk's lines and its summary.
    # Read by distributed as it is imported, here and in the worker processes, which inherit
    # it; a setting of the caller's own wins.
    os.environ.setdefault("DASK_LOGGING__ASYNCIO", "critical")
    import distributed

    if scheduler.startswith("local:"):
        count = scheduler[len("local:"):]
        if not count.isdigit() or int(count) < 1:
            raise ValueError(f"--scheduler {scheduler}: local:N needs N, a number of workers, at least 1")
        # Errors only: the workers' warnings share this program's standard error, and each failed
        # command's ("Compute Failed" and its arguments) would come between the walk's own lines.
        with _interrupt_held():
            cluster = distributed.LocalCluster(n_workers=int(count), threads_per_worker=1, processes=True,
                                               host="127.0.0.1", dashboard_address="127.0.0.1:0",
                                               silence_logs=logging.ERROR)
        try:
            return distributed.Client(cluster), cluster
        except BaseException:
            cluster.close()
            raise
    return distributed.Client(scheduler, timeout=30), None


def _wait(running, progress, stop, received):
    """(report, the signal that stopped the walk or None), redrawing the status line meanwhile.

    `received` lists the signals caught so far (SIGINT, SIGTERM): they stop
    the walk instead of this program. Nothing new starts, and `stop` tells
    the running commands to end, which the walk waits for, so that no
    command outlives it (Dask would leave a cancelled task's command
    running).
    """
    report = None
    stopping = False
    while report is None:
        if received and not stopping:
            stopping = True
            stop.set()
            running.cancel(futures=False)
        report = running.wait(timeout=REDRAW_S)
        progress.tick()
    return report, received[0] if received else None


@contextlib.contextmanager
def _signals_caught():
    """Within it, SIGINT and SIGTERM are listed, in the list it yields, instead of stopping the program."""
    received = []
    handlers = {number: signal.signal(number, lambda number, _frame: received.append(number))
                for number in _EXIT_AFTER}
    try:
        yield received
    finally:
        for number, handler in handlers.items():
            signal.signal(number, handler)


@contextlib.contextmanager
def _interrupt_held():
    """Within it SIGINT waits, blocked, and arrives (to the handler of _signals_caught) as it ends.

    The threads and processes started meanwhile inherit the block: the
    worker processes of a LocalCluster then never see a Ctrl-C, which a
    terminal sends to the whole process group, and this program, which
    owns them, closes them instead. SIGTERM, sent to this program alone,
    needs no holding, and workers must keep it: their nannies stop them
    with it.
    """
    from multiprocessing import resource_tracker

    # Started later, from the cluster's thread, the tracker would unblock SIGINT there (it blocks
    # it around its own start, then unblocks it), and the workers started from there would see it.
    resource_tracker.ensure_running()
    signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGINT})
    try:
        yield
    finally:
        signal.pthread_sigmask(signal.SIG_UNBLOCK, {signal.SIGINT})


def _close(client, cluster):
    client.close()
    if cluster is not None:
        cluster.close()


def main(argv=None):
    options = _parser().parse_args(argv)
    # From here on SIGINT and SIGTERM stop the walk, or the cluster's start, instead of this
    # program, so that it leaves no worker process or command behind.
    with _signals_caught() as signals:
        return _walk(options, signals)


def _walk(options, signals):
    try:
        graph = Graph.from_file(options.file)
        if graph.cycles() or any(graph.has_edge(v, v) for v in graph.vertices()):
            raise ValueError(f"{options.file}: the graph has a cycle (dag cycles FILE lists them)")
        names = {v: graph.label(v) for v in graph.vertices()}
        client, cluster = _cluster(options.scheduler)
    except (OSError, ValueError, ImportError, DagError) as bad:
        print(f"python3 -m libdag.dask: {bad}", file=sys.stderr)
        return 2
    if signals:  # while the cluster started, or before: nothing has run
        _close(client, cluster)
        print(f"python3 -m libdag.dask: interrupted by {signal.Signals(signals[0]).name} before the walk began",
              file=sys.stderr)
        return _EXIT_AFTER[signals[0]]
    label = names.__getitem__
    vertex_of = {name: vertex for vertex, name in names.items()}
    show = options.progress == "always" or (options.progress == "auto" and sys.stderr.isatty())
    progress = Progress(label, show)
    runs = {}  # vertex -> (worker, thread, start, end) of its command, for --trace

    def received(name, outcome):
        """What a command sent back, as its vertex finishes (before the observer hears of it)."""
        progress.output(name, outcome.get("out", ""), outcome.get("err", ""))
        if "ran" in outcome:
            runs[vertex_of[name]] = outcome["ran"]

    def failed(name, error):
        """What a failed command sent back comes with its exception (on Dask's callback thread)."""
        outcome = getattr(error, "outcome", None)
        if outcome:
            received(name, outcome)

    try:
        # The workers need not have libdag: the command runner travels by value.
        import cloudpickle
        import distributed

        cloudpickle.register_pickle_by_value(dask_command)
        stop = distributed.Event(f"libdag-dask-stop-{uuid.uuid4().hex}", client=client)
        request = (options.command, options.output == "grouped", options.trace is not None, stop, options.grace)
        payload = {name: (name, *request) for name in names.values()}
        began_s, began = time.time(), time.monotonic()
        running = dag_dask.start(graph, dask_command.run_command, client, parallelism=options.parallelism,
                                 reverse=options.reverse, fail_fast=options.fail_fast, retries=options.retries,
                                 priority=options.priority,
                                 payload=payload, observer=progress.observe, on_result=received, on_error=failed)
        report, stopped_by = _wait(running, progress, stop, signals)
        elapsed_ms = (time.monotonic() - began) * 1000
        stop.clear()  # every command has ended: the scheduler may forget the event
    finally:
        _close(client, cluster)
    progress.erase()
    summarize(label, report, stopped_by)
    if options.report:
        write_report(options.report, label, report, elapsed_ms)
    if options.trace:
        write_trace(options.trace, trace_document(label, report, runs, began_s))
    if stopped_by is not None:
        return _EXIT_AFTER[stopped_by]
    return 0 if report.ok else 1
