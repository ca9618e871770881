"""Walks whose vertices run on a ``concurrent.futures.Executor``, built on the pull mode.

Each future's completion finishes its vertex and submits the vertices that
made ready, from whichever thread the executor runs its done callbacks on.
A thread pool, a process pool (``fn`` and the ids must pickle) or any other
Executor will do.
"""

from __future__ import annotations

import concurrent.futures
import functools
import threading
import time
from typing import TYPE_CHECKING, Callable

from . import _native
from ._labels import vertex_label
from ._latch import Latch
from ._pull_calls import PullCalls
from .errors import ClosedError, StateError

if TYPE_CHECKING:
    from .pull import PullWalker
    from .walk import WalkReport

__all__ = ["run_on"]

_WAIT_SLICE_S = 0.1
# How often a walk with retries looks for one come due while calls run:
# libdag's timer makes it ready, and no completion says so.
_RETRY_LOOK_S = 0.005


def run_on(walker: PullWalker, executor: concurrent.futures.Executor, fn: Callable[[int], object],
           who: str = "PullWalker.run_on") -> WalkReport:
    """Runs ``fn(vertex)`` on `executor` for every vertex of a :class:`PullWalker`; returns the report.

    Starts the walk if it has not been started. A call that returns
    completes its vertex ok; one that raises fails it, the exception kept
    in the report. At most ``parallelism`` calls are submitted at once. A
    vertex added by :meth:`~libdag.pull.PullWalker.apply` (from `fn` or any
    thread) is submitted as soon as it is ready, not when a call next ends.

    :meth:`~libdag.pull.PullWalker.cancel` (from `fn` or any thread)
    cancels the futures that have not started; the running calls end by
    themselves. Ctrl-C (or any exception) while this waits does the same,
    waits for the running calls, and re-raises with the walk's report as
    the exception's ``walk_report`` attribute (None where the walker was
    closed meanwhile: the exception raised is still that one, not a
    ClosedError). A vertex whose call was
    cancelled before it started ends cancelled, the CancelledError its
    report's exception. A walker
    closed during the walk (by `fn` or another thread) raises ClosedError
    once the calls submitted have ended, its ``walk_report`` None.

    `who` heads the errors: the method the caller called.
    """
    if not callable(getattr(executor, "submit", None)):
        raise TypeError(f"{who}: an executor has a submit() method, {type(executor).__name__} has none")
    if not callable(fn):
        raise TypeError(f"{who}: fn must be callable, not {type(fn).__name__}")
    if not walker.started:
        walker._start(who)
    submitter = _Submitter(walker, executor, fn, who)
    # The first vertices are taken and submitted on a thread of their own,
    # the rest by whichever thread completes a vertex (see _Submitter):
    # Python raises KeyboardInterrupt only in the main thread, between any
    # two bytecodes, and one landing between taking a vertex and giving it
    # a future would lose it, leaving the cancelled walk waiting for it
    # forever. The calling thread only waits, in slices Ctrl-C gets through.
    thread = threading.Thread(target=submitter.run, name="libdag executor walk", daemon=True)
    thread.start()
    try:
        while not submitter.done.wait(_WAIT_SLICE_S):
            pass
    except BaseException as stop:  # noqa: B902 - Ctrl-C included
        stop.walk_report = submitter.stop(thread)
        raise
    finally:
        walker._forget_waker(submitter.waker)
    thread.join()
    # A walk stopped by an error (a refused completion, a submit that
    # raised) or a close ends without waiting for the calls still running,
    # one whose vertex fn expanded included: they end first, what they
    # raised kept for the report, as stop() has them do.
    submitter.wait_for_calls()
    if submitter.error is None and walker.closed:
        submitter.error = ClosedError(_native.E_STATE, f"{who}: the walker was closed during the walk")
    if submitter.error is not None:
        # A closed walk has no report to read.
        submitter.error.walk_report = _report_unless_closed(walker)
        raise submitter.error
    return walker.wait()


def _report_unless_closed(walker):
    """The walk's report; None where the walker is closed (by fn or another thread, at any moment).

    For an exception on its way out: the ClosedError that wait() would
    raise must not take its place.
    """
    try:
        return walker.wait()
    except ClosedError:
        return None


class _Submitter:
    """Completes vertices, takes those they made ready and submits them, until the walk ends or is stopped.

    The thread whose future ended does it, in the future's done callback:
    handing the next vertices back to one thread of our own would cost two
    thread switches a vertex. One thread at a time drains (``draining``);
    a completion that arrives meanwhile is left in ``finished`` for it, so
    a completion never waits, nor recurses through an executor that runs
    calls in ``submit()`` itself.
    """

    def __init__(self, walker, executor, fn, who):
        self.walker = walker
        self.executor = executor
        self.fn = fn
        self.calls = PullCalls(walker, who)
        self.who = who
        self.handle, _ = walker._started(who)
        self.futures = set()
        self.lock = threading.Lock()
        self.finished = []  # (vertex, error), completed by the thread draining
        self.outstanding = 0  # submitted, not finished
        self.draining = True  # the first drain() is the starting thread's
        self.stopping = threading.Event()
        self.done = Latch()
        self.error = None
        # A change made from outside (an apply() or cancel() from fn or
        # another thread) wakes the walk: poke() is registered with the
        # walker before each look. A drain under way looks again; else the
        # walk's own thread, woken by `wake`, drains.
        self.wake = threading.Event()
        self.armed = False
        self.poked = False
        self.cancelled = False  # the walker was cancelled and the futures not started were
        # One object, registered and passed as its own to walker._changed():
        # the drain's completions do not fire it.
        self.waker = self.poke

    def run(self):
        """The walk's own thread: the first drain, then one for each change nobody drains for.

        With retries, also a look now and then: libdag's timer makes a
        vertex ready again, and no change says so.
        """
        self.drain()
        look_every = _RETRY_LOOK_S if self.walker._retries else None
        while True:
            self.wake.wait(look_every)
            self.wake.clear()
            if self.done.is_set() or self.stopping.is_set():
                return
            with self.lock:
                if self.draining:
                    continue
                self.draining = True
            self.drain()

    def poke(self):
        with self.lock:
            self.armed = False
            self.poked = True
            if self.draining:
                return
        self.wake.set()

    def _label(self, vertex):
        return vertex_label(self.walker, vertex)

    def _end(self):
        self.done.set()
        self.wake.set()

    def finish(self, vertex, future):
        self.futures.discard(future)
        cancelled = future.cancelled()
        if cancelled:
            error = concurrent.futures.CancelledError(f"vertex {self._label(vertex)} was cancelled before it ran")
        else:
            error = future.exception()
        with self.lock:
            self.outstanding -= 1
            self.finished.append((vertex, error, cancelled, not cancelled))
            if self.draining:
                return
            self.draining = True
        self.drain()

    def drain(self):
        """Completes, takes and submits until nothing is left to do; the caller holds ``draining``."""
        unsubmitted = []
        try:
            with self.handle.read(self.who) as ptr:
                self._drain(ptr, unsubmitted)
        except BaseException as error:  # noqa: B902 - handed to the waiting thread
            with self.lock:
                self.draining = False
            if self.error is None:
                self.error = error
            self.stopping.set()
            try:
                self._cancel()
                for vertex in unsubmitted:
                    self.calls._callbacks.keep_never_started(vertex)
                    unsent = concurrent.futures.CancelledError(f"vertex {self._label(vertex)} was not submitted")
                    self.walker.complete(vertex, unsent, cancelled=True)
            except ClosedError:
                pass  # closed under the walk: its vertices ended with it
            finally:
                self._end()

    def _drain(self, ptr, unsubmitted):
        calls = self.calls
        look = True
        walker = self.walker
        while True:
            with self.lock:
                finished, self.finished = self.finished, []
                if self.poked:
                    look = True
                if not finished and not (look and not self.stopping.is_set()):
                    self.draining = False
                    return
                idle = not self.outstanding
            if finished:
                refused = None
                for vertex, error, cancelled, started in finished:
                    try:
                        calls.complete(ptr, vertex, error, cancelled, started)
                    except Exception as exc:  # noqa: B902 - one refused completion must not strand the rest
                        refused = refused or exc
                if refused is not None:
                    raise refused  # as fn's misuse: the walk stops with it (drain's except)
                walker._changed(self.waker)
                look = True
                continue
            if walker.cancel_asked and not self.cancelled:
                # Cancelled from fn or another thread: what waits in the
                # executor's queue is not started (cancel() refuses the
                # running ones); their done callbacks leave them in finished.
                self.cancelled = True
                for future in list(self.futures):
                    future.cancel()
                look = True
                continue
            with self.lock:
                arm = not self.armed
                self.armed = True
                self.poked = False  # the look below sees that change
            if arm:
                walker.wake_on_change(self.waker)
            look = False
            # What an async for left early stranded on the walker comes
            # first; then a look for what else is ready.
            batch = walker._take_undelivered(calls.limit) if walker._undelivered else None
            stranded = bool(batch)
            if not stranded:
                batch = calls.look(ptr)
            if batch is None and idle:
                # Nothing runs, yet the walk goes on: a failed vertex waits
                # for its retry, which no completion will announce.
                batch = self.walker.next_ready(calls.limit, timeout=_WAIT_SLICE_S)
                if batch is None:
                    look = True
                    continue
            if batch is None:
                continue
            if not batch:
                # The walk has ended; a call whose vertex fn expanded may
                # still run (the vertex ended with its sub-walk): its end,
                # which keeps what it raised for the report, ends the run.
                if idle:
                    self._end()
                continue
            unsubmitted[:] = reversed(batch)  # _submit takes from the end: the walk's order
            self._submit(unsubmitted)
            for vertex in unsubmitted:  # stop() or a cancel came first
                unsent = concurrent.futures.CancelledError(f"vertex {self._label(vertex)} was not submitted")
                calls.complete(ptr, vertex, unsent, True, False)
            if unsubmitted:
                unsubmitted.clear()
                self.walker._changed(self.waker)
            look = stranded or len(batch) == calls.limit

    def _submit(self, unsubmitted):
        while unsubmitted and not self.stopping.is_set() and not self.walker.cancel_asked:
            vertex = unsubmitted[-1]
            with self.lock:
                self.outstanding += 1
            try:
                future = self.executor.submit(self.fn, vertex)
            except BaseException:
                with self.lock:
                    self.outstanding -= 1
                raise
            unsubmitted.pop()
            self.futures.add(future)
            future.add_done_callback(functools.partial(self.finish, vertex))
            if self.stopping.is_set() or self.walker.cancel_asked:
                future.cancel()  # stop() or a cancel may have cancelled the futures before this one

    def _cancel(self):
        try:
            self.walker.cancel()
        except StateError:
            pass  # it has ended already
        for future in list(self.futures):
            future.cancel()  # its done callback completes the vertex

    def stop(self, thread):
        """Cancels the walk and the futures not started, waits for the rest; returns the report (None once closed).

        Called with an exception on its way out (a Ctrl-C): a walker closed
        meanwhile, by fn or another thread, must not turn it into a
        ClosedError.
        """
        self.stopping.set()
        self.wake.set()
        self._cancel()
        thread.join()
        # The running calls end by themselves; the walk ends once they have.
        try:
            while self.walker.next_ready():
                pass  # a cancelled walk hands out nothing more
        except ClosedError:
            pass  # its vertices ended with it; the calls still running are waited for below
        self.wait_for_calls()
        return _report_unless_closed(self.walker)

    def wait_for_calls(self):
        """Waits until every call submitted has ended.

        A call whose vertex fn expanded may outlive the walk's end: waited
        for too (by the count: the executor's futures need not be
        concurrent.futures').
        """
        while self.outstanding:
            time.sleep(0.005)
