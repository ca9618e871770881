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

from . import CycleError, DagError, Graph, VertexStatus, _native
from . import dask as dag_dask
from . import dask_command
from .dask_progress import REDRAW_S, Progress
from .dask_report import check_writable, same_file, summarize, write_report
from .dask_trace import trace_document, write_trace
from .walk import VertexResult, WalkReport

# The signals that stop the walk, as dag walk's; after one the exit status is 128 + its number.
# SIGPIPE is not caught (Python ignores it): a reader of standard output gone stops the walk as
# it would. The others would end the program and leave the commands running.
_CAUGHT = (signal.SIGINT, signal.SIGTERM, signal.SIGHUP, signal.SIGQUIT, signal.SIGXCPU, signal.SIGALRM,
           signal.SIGUSR1, signal.SIGUSR2)


_FROM_THE_TERMINAL = {signal.SIGINT, signal.SIGQUIT}
# The most worker processes local:N starts, as --parallelism's most.
MAX_LOCAL_WORKERS = 1024


def _exit_after(number):
    return 128 + number


def _whole(least, most):
    def number(text):
        if not text.isdigit() or not least <= int(text) <= most:
            raise argparse.ArgumentTypeError(f"{text!r} is not a whole number from {least} to {most}")
        return int(text)

    return number


def _command(text):
    if not text.strip():
        raise argparse.ArgumentTypeError("the command is empty")
    return text


def _seconds(text):
    try:
        seconds = float(text)
    except ValueError:
        seconds = -1.0
    if not 0 <= seconds <= 86400:
        raise argparse.ArgumentTypeError(f"{text!r} is not a number of seconds from 0 to 86400")
    return seconds


_WHEN = ("auto", "always", "never")


def _parser():
    parser = argparse.ArgumentParser(
        prog="python3 -m libdag.dask",
        description="Walk a graph with each vertex's command run on a Dask cluster's workers "
                    "(/bin/sh -c CMD with DAG_VERTEX set to the vertex's name).")
    parser.add_argument("--scheduler", "--dask", required=True, metavar="ADDRESS|local:N",
                        help="a Dask scheduler's address (tcp://host:8786), or local:N for a LocalCluster "
                             "of N worker processes on this machine")
    parser.add_argument("--exec", required=True, dest="command", type=_command, metavar="CMD",
                        help="the command each vertex runs")
    parser.add_argument("--parallelism", type=_whole(1, 1024), default=10, metavar="N",
                        help="vertices submitted at once, 1 to 1024 (10)")
    parser.add_argument("--reverse", action="store_true", help="dependents before their dependencies")
    parser.add_argument("--fail-fast", action="store_true", help="after a failure start nothing new")
    parser.add_argument("--retries", type=_whole(0, 1000), default=0, metavar="N",
                        help="reruns of a failed command, 0 to 1000 (0)")
    parser.add_argument("--priority", choices=("critical-path", "name", "none"), default="critical-path",
                        help="which ready vertex is submitted first: the one with the longest chain still to run "
                             "through it (the default, as for dag walk), by name, or about as they became ready; "
                             "ties by name")
    parser.add_argument("--output", choices=("grouped", "none"), default="grouped",
                        help="grouped (each command's standard output and error, sent back from its worker, "
                             "printed whole when it ends, each line after \"vertex: \", a failed command's "
                             "too) or none (discarded; the tail of a failed command's standard "
                             "error still comes back in its message)")
    parser.add_argument("--progress", nargs="?", const="always", default="auto", choices=_WHEN, metavar="WHEN",
                        help="progress on standard error: auto (when it is a terminal), always (a bare "
                             "--progress; a word after it other than auto, always or never is the graph, as "
                             "for dag walk) or never; on a terminal one status line redrawn in place, elsewhere "
                             "\"[done/total] name\" as each vertex finishes")
    parser.add_argument("--grace", type=_seconds, default=5.0, metavar="SECONDS",
                        help="on a signal that stops the walk (SIGINT, SIGTERM, SIGHUP, SIGPIPE, SIGQUIT...), how long running "
                             "commands get to exit after "
                             "SIGTERM before they are killed; each one's session is killed once it has exited (5); "
                             "a second such signal kills them at once")
    parser.add_argument("--report", metavar="FILE",
                        help="write the outcome of every vertex as JSON (- for standard output, after the "
                             "commands' output)")
    parser.add_argument("--trace", metavar="FILE",
                        help="write the walk as Chrome trace-event JSON (Perfetto, chrome://tracing): a span per "
                             "command that ran, timed on its worker, a track per worker thread (- for standard "
                             "output)")
    parser.add_argument("file", help="the graph (DOT or JSON, as dag reads it; - for standard input)")
    return parser


def _cluster(scheduler):
    """(client, cluster or None) for --scheduler."""
    # Taking a cluster down races its own connections: now and then asyncio reports a
    # connection's timeout that nobody awaited any more ("Future exception was never
    # retrieved"), from this process or a worker's, between the walk's lines and its summary.
    # Read by distributed as it is imported, here and in the worker processes, which inherit
    # it; a setting of the caller's own wins.
    os.environ.setdefault("DASK_LOGGING__ASYNCIO", "critical")
    try:
        import distributed
    except ImportError as missing:
        if missing.name != "distributed":
            raise  # one of its own imports: said as it is
        # Often a Python other than the one Dask was installed for (a virtual environment, pyenv).
        raise ImportError(f"{missing}: Dask's distributed is not installed for {sys.executable} (on Debian: "
                          "apt install python3-distributed, then run /usr/bin/python3 -m libdag.dask)") from missing

    if scheduler.startswith("local:"):
        count = scheduler[len("local:"):]
        # A count such as 99999999999999 made LocalCluster fail with MemoryError, then hang.
        if not (count.isascii() and count.isdigit()) or not 1 <= int(count) <= MAX_LOCAL_WORKERS:
            raise ValueError(f"--scheduler {scheduler}: local:N needs N, a number of workers from 1 to "
                             f"{MAX_LOCAL_WORKERS}")
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


def _wait(running, progress, stop, kill, received):
    """(report, the signal that stopped the walk or None), redrawing the status line meanwhile.

    `received` lists the signals caught so far (SIGINT, SIGTERM): they stop
    the walk instead of this program. Nothing new starts, and `stop` tells
    the running commands to end, which the walk waits for, so that no
    command outlives it (Dask would leave a cancelled task's command
    running). A second signal sets `kill`: the commands' sessions get
    SIGKILL at once, without waiting out the grace, as dag walk's second
    Ctrl-C.
    """
    report = None
    stopping = killing = False
    while report is None:
        # A client that lost its scheduler cannot set the event: its futures are cancelled then,
        # once it is back, or their vertices end so once it has closed (DaskWalk.cancel).
        if received and not stopping:
            stopping = True
            try:
                stop.set()
            except Exception:  # noqa: B902 - distributed's, whatever the state of its client
                running.cancel()
            else:
                running.cancel(futures=False)
        if len(received) > 1 and not killing:
            killing = True
            with contextlib.suppress(Exception):
                kill.set()
        report = running.wait(timeout=REDRAW_S)
        progress.tick()
    return report, received[0] if received else None


@contextlib.contextmanager
def _signals_caught():
    """Within it, the signals of _CAUGHT are listed, in the list it yields, instead of stopping the program."""
    received = []
    handlers = {number: signal.signal(number, lambda number, _frame: received.append(number))
                for number in _CAUGHT}
    try:
        yield received
    finally:
        for number, handler in handlers.items():
            signal.signal(number, handler)


@contextlib.contextmanager
def _interrupt_held():
    """Within it SIGINT and SIGQUIT wait, blocked, and arrive (to the handler of _signals_caught) as it ends.

    The threads and processes started meanwhile inherit the block: the
    worker processes of a LocalCluster then never see a Ctrl-C or Ctrl-\\,
    which a terminal sends to the whole process group, and this program,
    which owns them, closes them instead. SIGTERM, sent to this program alone,
    needs no holding, and workers must keep it: their nannies stop them
    with it.
    """
    from multiprocessing import resource_tracker

    # Started later, from the cluster's thread, the tracker would unblock SIGINT there (it blocks
    # it around its own start, then unblocks it), and the workers started from there would see it.
    resource_tracker.ensure_running()
    signal.pthread_sigmask(signal.SIG_BLOCK, _FROM_THE_TERMINAL)
    try:
        yield
    finally:
        signal.pthread_sigmask(signal.SIG_UNBLOCK, _FROM_THE_TERMINAL)


def _close(client, cluster):
    client.close()
    if cluster is not None:
        cluster.close()


def _bare_progress(parser, argv):
    """`argv` with each --progress followed by a word other than a WHEN written --progress=always.

    dag walk takes the flag's value only after "=", so the word after a
    bare --progress is the graph; argparse would take it as the value and
    refuse it. A WHEN after a space is still the value, as it always was
    here. The flag as argparse knows it: also a prefix of it that names
    no other option.
    """
    argv = list(sys.argv[1:] if argv is None else argv)
    for index, word in enumerate(argv[:-1]):
        if word == "--":
            break
        if word.startswith("--") and "--progress".startswith(word) and argv[index + 1] not in _WHEN:
            if [option for option in parser._option_string_actions if option.startswith(word)] == ["--progress"]:
                argv[index] = "--progress=always"
    return argv


def main(argv=None):
    parser = _parser()
    options = parser.parse_args(_bare_progress(parser, argv))
    outputs = [path for path in (options.report, options.trace) if path is not None]
    if outputs.count("-") > 1:
        parser.error("--report - and --trace - would both write to standard output")
    if len(outputs) == 2 and same_file(*outputs):
        parser.error(f"--report and --trace name the same file ({outputs[1]})")
    # The commands' output is printed as the bytes they wrote (dask_command keeps the bytes that
    # are not UTF-8 as surrogates), as dag walk prints them; libdag's names are UTF-8.
    for stream in (sys.stdout, sys.stderr):
        stream.reconfigure(encoding="utf-8", errors="surrogateescape")
    # From here on SIGINT and SIGTERM stop the walk, or the cluster's start, instead of this
    # program, so that it leaves no worker process or command behind.
    with _signals_caught() as signals:
        return _walk(options, signals)


def _walk(options, signals):
    # As dag walk: a result file that cannot be written is told before anything runs.
    for path in (options.report, options.trace):
        try:
            if path is not None:
                check_writable(path)
        except OSError as error:
            print(f"python3 -m libdag.dask: cannot write \"{path}\": {error.strerror}", file=sys.stderr)
            return 2
    try:
        graph = Graph.from_text(sys.stdin.buffer.read()) if options.file == "-" else Graph.from_file(options.file)
        names = {v: graph.label(v) for v in graph.vertices()}
        # The report's "name", as dag walk's: an unnamed vertex is its id, a number, which no name is.
        keys = {v: names[v] if graph.name(v) is not None else int(v) for v in names}
        cycle = _cycle(graph)
        if cycle is not None:
            # As dag walk: the walk is refused, its files written with nothing run, and it exits 1.
            print(f"python3 -m libdag.dask: {cycle}", file=sys.stderr)
            unwritten = _write_files(options, names.__getitem__, keys.__getitem__, _unwalked(graph, cycle), {},
                                     time.time(), 0.0,
                                     set(), {}, lambda: None, lambda: bool(signals))
            if signals and unwritten:  # nothing ran: any signal ends a wait for a reader
                return _exit_after(signals[0])
            return 2 if unwritten else 1
        client, cluster = _cluster(options.scheduler)
    except (OSError, ValueError, ImportError, DagError) as bad:
        print(f"python3 -m libdag.dask: {bad}", file=sys.stderr)
        return 2
    if signals:  # while the cluster started, or before: nothing has run
        _close(client, cluster)
        print(f"python3 -m libdag.dask: interrupted by {signal.Signals(signals[0]).name} before the walk began",
              file=sys.stderr)
        return _exit_after(signals[0])
    label = names.__getitem__
    show = options.progress == "always" or (options.progress == "auto" and sys.stderr.isatty())
    # A reader of standard output gone stops the walk as SIGPIPE stops dag walk's.
    progress = Progress(label, show, on_reader_gone=lambda: signals.append(signal.SIGPIPE))
    runs = {}  # vertex -> (worker, thread, start, end) of its command, for --trace
    never_started = set()  # vertices whose command the walk's stop kept from starting
    # vertex -> each run's message, for a command run more than once: the worker retries it (libdag
    # and Dask see one task), so that each run's output and message come back, as in dag walk.
    attempts = {}

    def received(name, outcome):
        """What a command sent back, as its vertex finishes (before the observer hears of it)."""
        for out, err in outcome.get("earlier", ()):
            progress.output(name, out, err)
        progress.output(name, outcome.get("out", ""), outcome.get("err", ""))
        # By the id the command was given: a name may also be an unnamed vertex's label.
        vertex = outcome["id"]
        if "ran" in outcome:
            runs[vertex] = outcome["ran"]
        if "attempt_messages" in outcome:
            attempts[vertex] = outcome["attempt_messages"]

    def failed(name, error):
        """What a failed command sent back comes with its exception (on Dask's callback thread)."""
        outcome = getattr(error, "outcome", None)
        if not outcome:  # Dask's own failure (KilledWorker, a cancelled task): the command said nothing
            return
        received(name, outcome)
        if getattr(error, "started", True) is False:
            never_started.add(outcome["id"])

    try:
        # The workers need not have libdag: the command runner travels by value.
        import cloudpickle
        import distributed

        cloudpickle.register_pickle_by_value(dask_command)
        walk_id = uuid.uuid4().hex
        stop = distributed.Event(f"libdag-dask-stop-{walk_id}", client=client)
        kill = distributed.Event(f"libdag-dask-kill-{walk_id}", client=client)
        request = (options.command, options.output == "grouped", options.trace is not None, stop, options.grace,
                   options.retries, kill)

        # By id: an unnamed vertex's label is its id written out, which a named one may have too.
        def payload(vertex):
            return (names[vertex], *request, vertex)

        began_s, began = time.time(), time.monotonic()
        running = dag_dask.start(graph, dask_command.run_command, client, parallelism=options.parallelism,
                                 reverse=options.reverse, fail_fast=options.fail_fast,
                                 priority=options.priority,
                                 payload=payload, observer=progress.observe, on_result=received, on_error=failed)
        report, stopped_by = _wait(running, progress, stop, kill, signals)
        elapsed_ms = (time.monotonic() - began) * 1000
        # Every command has ended: the scheduler may forget the events. A client that lost its
        # scheduler would wait for it to come back (30 s), and the walk's outcome is still to be told.
        if getattr(client, "status", None) == "running":
            with contextlib.suppress(Exception):
                stop.clear()
            with contextlib.suppress(Exception):
                kill.clear()
    finally:
        with contextlib.suppress(Exception):
            _close(client, cluster)
    progress.erase()
    summarize(label, report, stopped_by, never_started=never_started)
    # A signal after those that stopped the walk ends a wait for a reader, and the exit says it.
    caught = len(signals)
    unwritten = _write_files(options, label, keys.__getitem__, report, runs, began_s, elapsed_ms, never_started,
                             attempts, progress.reader_gone, lambda: len(signals) > caught)
    if stopped_by is None and unwritten and len(signals) > caught:
        stopped_by = signals[caught]
    if stopped_by is None and progress.gone:
        stopped_by = signal.SIGPIPE
    if progress.gone:
        _quiet_standard_output()
    if stopped_by is not None:
        return _exit_after(stopped_by)
    if unwritten:
        return 2
    return 0 if report.ok else 1


def _cycle(graph):
    """libdag's message naming the graph's cycles ("Cycle:" and the names), or None when it has none."""
    try:
        with graph.pull_walker() as walker:
            walker.start()
    except CycleError as cycle:
        prefix = "PullWalker.start: "
        text = str(cycle)
        return text[len(prefix):] if text.startswith(prefix) else text
    return None


def _unwalked(graph, message):
    """The report of a walk refused: every vertex not run."""
    results = {v: VertexResult(v, VertexStatus.NOT_RUN, "", 0, 0, False, None) for v in sorted(graph.vertices())}
    counts = dict.fromkeys(VertexStatus, 0)
    counts[VertexStatus.NOT_RUN] = len(results)
    return WalkReport(_native.E_CYCLE, message, results, None, "", False, counts)


def _write_files(options, label, key, report, runs, began_s, elapsed_ms, never_started, attempts, reader_gone,
                 give_up):
    """Writes --report and --trace; says whether one could not be written (told on standard error).

    label: a vertex's name as people read it (the trace's); key: as the report writes it.
    give_up: once it says True, a FIFO's or pipe's wait for its reader ends (a signal caught by now)."""
    unwritten = False
    writers = ((options.report,
                lambda path: write_report(path, key, report, elapsed_ms, never_started, attempts, give_up)),
               (options.trace,
                lambda path: write_trace(path, trace_document(label, report, runs, began_s, attempts), give_up)))
    for path, write in writers:
        if path is None:
            continue
        try:
            write(path)
        except BrokenPipeError:
            reader_gone()
        except OSError as error:
            print(f"python3 -m libdag.dask: cannot write \"{path}\": {error.strerror}", file=sys.stderr)
            unwritten = True
    return unwritten


def _quiet_standard_output():
    """Standard output onto /dev/null: its reader is gone, and Python's flush at exit would complain."""
    devnull = os.open(os.devnull, os.O_WRONLY)
    os.dup2(devnull, sys.stdout.fileno())
    os.close(devnull)
