"""Walks whose vertices run on a ``concurrent.futures.Executor``, built on the pull mode.

The calling thread takes ready vertices and submits them; each future's
completion finishes its vertex, from whichever thread the executor runs it
on. A thread pool, a process pool (``fn`` and the ids must pickle) or any
other Executor will do.
"""

from __future__ import annotations

import concurrent.futures
import functools
from typing import TYPE_CHECKING, Callable

from .errors import StateError

if TYPE_CHECKING:
    from .pull import PullWalker
    from .walk import WalkReport

__all__ = ["run_on"]


def run_on(walker: PullWalker, executor: concurrent.futures.Executor, fn: Callable[[int], object]) -> WalkReport:
    """Runs ``fn(vertex)`` on `executor` for every vertex of a :class:`PullWalker`; returns the report.

    Starts the walk if it has not been started. A call that returns
    completes its vertex ok; one that raises fails it, the exception kept
    in the report. At most ``parallelism`` calls are submitted at once.

    Ctrl-C (or any exception) while this waits cancels the walk, cancels
    the futures that have not started (their vertices fail with
    CancelledError), waits for the running ones, and re-raises with the
    walk's report as the exception's ``walk_report`` attribute.
    """
    if not walker.started:
        walker.start()
    futures = set()

    def finish(vertex, future):
        futures.discard(future)
        if future.cancelled():
            error = concurrent.futures.CancelledError(f"vertex {vertex} was cancelled before it ran")
        else:
            error = future.exception()
        walker.complete(vertex, error)

    unsubmitted = []
    try:
        while True:
            unsubmitted = walker.next_ready()
            if not unsubmitted:
                break
            while unsubmitted:
                vertex = unsubmitted[-1]
                future = executor.submit(fn, vertex)
                unsubmitted.pop()
                futures.add(future)
                future.add_done_callback(functools.partial(finish, vertex))
    except BaseException as stop:  # noqa: B902 - Ctrl-C included
        stop.walk_report = _stop(walker, unsubmitted, futures)
        raise
    return walker.wait()


def _stop(walker, unsubmitted, futures):
    """Cancels the walk and the futures not started, waits for the rest, and returns the report."""
    try:
        walker.cancel()
    except StateError:
        pass  # it has ended already
    for vertex in unsubmitted:
        walker.complete(vertex, concurrent.futures.CancelledError(f"vertex {vertex} was not submitted"))
    for future in list(futures):
        future.cancel()  # its done callback completes the vertex
    # The running calls end by themselves; the walk ends once they have.
    while walker.next_ready():
        pass  # a cancelled walk hands out nothing more
    return walker.wait()
