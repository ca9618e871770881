"""Walks whose vertices run on a ``concurrent.futures.Executor``, built on the pull mode.

The calling thread takes ready vertices and submits them; each future's
completion finishes its vertex, from whichever thread the executor runs it
on. A thread pool, a process pool (``fn`` and the ids must pickle) or any
other Executor will do.
"""

from __future__ import annotations

import concurrent.futures
import functools
import threading
from typing import TYPE_CHECKING, Callable

from .errors import StateError

if TYPE_CHECKING:
    from .pull import PullWalker
    from .walk import WalkReport

__all__ = ["run_on"]

_WAIT_SLICE_S = 0.1


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
    submitter = _Submitter(walker, executor, fn)
    # The vertices are taken and submitted on a thread of their own: Python
    # raises KeyboardInterrupt only in the main thread, between any two
    # bytecodes, and one landing between taking a vertex and giving it a
    # future would lose it, leaving the cancelled walk waiting for it
    # forever. The calling thread only waits, in slices Ctrl-C gets through.
    thread = threading.Thread(target=submitter.run, name="libdag executor walk", daemon=True)
    thread.start()
    try:
        while not submitter.done.wait(_WAIT_SLICE_S):
            pass
    except BaseException as stop:  # noqa: B902 - Ctrl-C included
        stop.walk_report = submitter.stop(thread)
        raise
    thread.join()
    if submitter.error is not None:
        submitter.error.walk_report = walker.wait()
        raise submitter.error
    return walker.wait()


class _Submitter:
    """Takes ready vertices and submits them until the walk ends or is stopped."""

    def __init__(self, walker, executor, fn):
        self.walker = walker
        self.executor = executor
        self.fn = fn
        self.futures = set()
        self.stopping = threading.Event()
        self.done = threading.Event()
        self.error = None

    def finish(self, vertex, future):
        self.futures.discard(future)
        if future.cancelled():
            error = concurrent.futures.CancelledError(f"vertex {vertex} was cancelled before it ran")
        else:
            error = future.exception()
        self.walker.complete(vertex, error)

    def run(self):
        unsubmitted = []
        try:
            while not self.stopping.is_set():
                unsubmitted = self.walker.next_ready()
                if not unsubmitted:
                    break
                while unsubmitted and not self.stopping.is_set():
                    vertex = unsubmitted[-1]
                    future = self.executor.submit(self.fn, vertex)
                    unsubmitted.pop()
                    self.futures.add(future)
                    future.add_done_callback(functools.partial(self.finish, vertex))
        except BaseException as error:  # noqa: B902 - handed to the waiting thread
            self.error = error
            self._cancel()
        finally:
            try:
                for vertex in unsubmitted:
                    self.walker.complete(vertex, concurrent.futures.CancelledError(f"vertex {vertex} was not submitted"))
            finally:
                self.done.set()

    def _cancel(self):
        try:
            self.walker.cancel()
        except StateError:
            pass  # it has ended already
        for future in list(self.futures):
            future.cancel()  # its done callback completes the vertex

    def stop(self, thread):
        """Cancels the walk and the futures not started, waits for the rest, and returns the report."""
        self.stopping.set()
        self._cancel()
        thread.join()
        # Submitted after the cancel above, while the thread was between
        # its check and the submit.
        self._cancel()
        # The running calls end by themselves; the walk ends once they have.
        while self.walker.next_ready():
            pass  # a cancelled walk hands out nothing more
        return self.walker.wait()
