"""Pull walks: the host takes ready vertices and completes them, from its own threads or event loop.

libdag's pull mode (``dag_walk_begin``) runs no thread of its own: each
vertex is handed out once its dependencies have finished, holds one of the
walk's ``parallelism`` slots until it is completed, and every rule of a
callback walk (failure, fail fast, always-run, cancel, updates, expansion,
the report) holds unchanged. The asyncio walk (:mod:`libdag.aio`) and the
executor walk (:mod:`libdag.executor`) are built on it.
"""

from __future__ import annotations

import collections
import concurrent.futures
import ctypes
import itertools
import math
import numbers
import threading
from ctypes import byref
from typing import TYPE_CHECKING, Awaitable, Callable, List, Optional

from . import _native
from ._native import lib
from ._pull_calls import PullCalls
from .errors import ClosedError, InvalidArgumentError, error_for, in_python_terms, take_error
from .walk import (_COMPLETE, SubwalkVertex, Walker, WalkReport, _WAIT_SLICE_MS, _cancel_quietly,
                   _closed_while_waiting, _count, _wait_in_slices, _walk_of)

if TYPE_CHECKING:
    from .aio import ReadyVertices

__all__ = ["PullWalker", "NEXT_READY_MAX"]

#: The most vertices one :meth:`PullWalker.next_ready` call takes.
NEXT_READY_MAX = 1 << 16
_POPLEFT = collections.deque.popleft


class PullWalker(Walker):
    """A walk whose vertices the caller takes with :meth:`next_ready` and finishes with :meth:`complete`.

    Made by :meth:`Graph.pull_walker`. ``start()`` begins the walk; then::

        with graph.pull_walker(parallelism=4) as walk:
            walk.start()
            while batch := walk.next_ready():     # [] once the walk has ended
                for vertex in batch:
                    run_somewhere(vertex, done=walk.complete)
            report = walk.wait()

    :meth:`run_on` runs the vertices on a ``concurrent.futures.Executor``;
    ``async for vertex in walk`` and :meth:`run_async` do it on an asyncio
    event loop. Cancelling hands out nothing more; the vertices already
    handed out are the caller's running work and end as it completes them.
    """

    _PULL = True
    _CLASS = "PullWalker"

    def __init__(self, graph, *, parallelism=10, reverse=False, fail_fast=False, always_run=(), timestamps=True,
                 observer=None, schedule=None, _who="Graph.pull_walker"):
        super().__init__(graph, None, parallelism=parallelism, reverse=reverse, fail_fast=fail_fast,
                         always_run=always_run, timestamps=timestamps, observer=observer, schedule=schedule, _who=_who)
        self._wake_lock = threading.Lock()
        self._wakers = []  # called once after the next change; see wake_on_change()
        # Counts the changes made through this walker (complete, cancel,
        # expand, apply): only they, and a retry's timer, can make a vertex
        # ready, so a host whose last look found none need not look again
        # until it moves (or, with retries, a while later).
        self.changes = 0
        self._polls = threading.local()  # each thread's PullCalls for next_ready(timeout=0)
        self._close_hooks = []  # called once close() has freed or handed off the walk (asyncio runs)
        # Vertices an ``async for`` took in a batch and has not yielded: left
        # early, it strands them here, where the next ``async for`` or
        # next_ready() takes them first and cancel() completes them.
        self._undelivered = collections.deque()
        # Set by cancel(): a host running vertices on an executor cancels
        # what it queued there and has not started.
        self.cancel_asked = False

    def next_ready(self, limit: int = 256, timeout: Optional[float] = None) -> Optional[List[int]]:
        """Takes up to `limit` ready vertices, waiting up to `timeout` seconds while none is ready.

        One call takes at most :data:`libdag.pull.NEXT_READY_MAX` (65,536), whatever
        `limit` says: a larger limit means "as many as are ready", not
        buffers that large.

        Returns a list of vertex ids (:class:`SubwalkVertex` ids for the
        vertices of an expanded sub-graph): each is now handed out and must
        be completed with :meth:`complete` (or expanded). Vertices an
        ``async for`` over this walker took and did not yield (it was left
        early) come first. An empty list means
        the walk has ended: every vertex finished, or the walk was cancelled
        and what was handed out has been completed. None means `timeout`
        passed with nothing ready. `timeout` (any real number of seconds)
        None or ``math.inf`` waits as long as it takes, in slices that let
        Ctrl-C through; 0 only looks.

        Raises:
            StateError: the walk has not been started.
            ClosedError: the walker is closed, or was closed by another
                thread while this waited.
            InvalidArgumentError: `limit` is 0.
            TypeError: `timeout` is not a real number or None.
            ValueError: `timeout` is NaN.
            KeyboardInterrupt: Ctrl-C while this waited: the walk is
                cancelled (nothing more is handed out). Its report is the
                exception's ``walk_report`` when no vertex is still handed
                out, else None: complete those, then :meth:`wait` gives it.
        """
        who = "PullWalker.next_ready"
        # Buffers of `limit` entries are made for the call: a huge limit,
        # meant as "all of them", would be a huge allocation (as in Rust's
        # next_ready_many).
        limit = min(_count(limit, "limit", who), NEXT_READY_MAX)
        if limit == 0:
            # libdag's words would name its own argument (capacity).
            raise InvalidArgumentError(_native.E_INVALID_ARGUMENT, f"{who}: limit is 0; one vertex at least")
        if timeout is not None:
            if isinstance(timeout, bool) or not isinstance(timeout, numbers.Real):
                raise TypeError(f"{who}: timeout is a number of seconds or None, not {type(timeout).__name__}")
            timeout = float(timeout)
            if math.isnan(timeout):
                raise ValueError(f"{who}: timeout is NaN")
            if math.isinf(timeout) and timeout > 0:
                timeout = None
            elif timeout < 0:
                timeout = 0.0  # no time at all (-inf too): only looks
        handle, _ = self._started(who)
        if self._undelivered:
            # Into a list of this call's: a Ctrl-C up to the return puts them back.
            taken = []
            try:
                self._take_undelivered(limit, taken)
                if taken:
                    return taken
            except BaseException:  # noqa: B902 - Ctrl-C: not lost, still the walker's
                self._undelivered.extendleft(reversed(taken))
                raise
        if timeout == 0:
            # A poll, what a host without a thread to block makes per vertex
            # or batch (``async for``): through this thread's PullCalls, its
            # buffers made once and its arguments in C form.
            calls = self._poll_calls(limit)
            if calls is not None:
                # Not a finally: a Ctrl-C landing there would lose the
                # batch that the try returns.
                try:
                    with handle.read(who) as ptr:
                        batch = calls.look(ptr)
                    if self._callbacks is not None and self._callbacks.interrupted:
                        self._callbacks.raise_interrupted()
                    calls.busy = False
                    return batch
                except KeyboardInterrupt as interrupt:
                    calls.busy = False
                    # As in the waits below: what this look handed out
                    # reaches no caller, so it is completed cancelled.
                    interrupt.walk_report = self._stop_for_interrupt(handle, *calls.handed_out(), who)
                    raise
                except BaseException:
                    calls.busy = False
                    raise
        vertices = (ctypes.c_uint64 * limit)()
        walks = (ctypes.c_void_p * limit)()
        count = ctypes.c_size_t()
        forever = timeout is None
        left_ms = 0 if forever else max(0, int(timeout * 1000))
        err = _native.error_p()
        try:
            with handle.read(who) as ptr:
                while True:
                    slice_ms = _WAIT_SLICE_MS if forever else min(left_ms, _WAIT_SLICE_MS)
                    status = lib.dag_walk_next_ready(ptr, vertices, walks, limit, slice_ms, byref(count), byref(err))
                    message = take_error(err)
                    if status != _native.E_TIMEOUT:
                        break
                    if handle.closed:
                        # Closed by another thread: close() waits for this read
                        # to leave before it frees the walk.
                        raise _closed_while_waiting(who)
                    if not forever:
                        left_ms -= slice_ms
                        if left_ms <= 0:
                            return None
            if status != _native.OK:
                raise error_for(status, in_python_terms(message, "dag_walk_next_ready", who))
            # Inside the try: Ctrl-C up to the return must not lose what was handed out.
            n = count.value
            ready = vertices[:n]
            callbacks = self._callbacks
            main = callbacks.main if callbacks is not None else None
            handed = walks[:n]
            if handed.count(main) != n:
                ready = [v if w == main else SubwalkVertex(v, w, callbacks) for v, w in zip(ready, handed)]
            if callbacks is not None:
                callbacks.new_attempts(ready)
                # A Ctrl-C an observer caught: what this call handed out is
                # completed cancelled below, as for any Ctrl-C here.
                callbacks.raise_interrupted()
            return ready
        except KeyboardInterrupt as interrupt:
            # Ctrl-C cancels the walk, as in the other waits. Vertices
            # handed out by a call that returned just before it reach no
            # caller: nobody else could ever complete them.
            interrupt.walk_report = self._stop_for_interrupt(handle, vertices, walks, count.value, who)
            raise

    def _stop_for_interrupt(self, handle, vertices, walks, n, who):
        """Ctrl-C in a look: cancels the walk, completes cancelled what reaches no caller; the report if ended.

        The first `n` of `vertices` (each on its `walks[i]`) were handed out
        by the look. The report waits for the vertices handed out, which
        only the host can complete: None while one is out.
        """
        _cancel_quietly(handle)
        self.cancel_asked = True
        self._complete_cancelled(handle, vertices, walks, n, who)
        try:
            self._complete_undelivered(who)
        except ClosedError:
            pass
        return self._report_if_ended(handle, who)

    def _take_undelivered(self, limit, taken=None):
        """Up to `limit` of the vertices an ``async for`` took and did not yield, oldest first.

        Moved into `taken` (a new list if None), which is returned, by one C
        call: a Ctrl-C raised after it (by any Python) finds them there, for
        a caller that passed its own list to put back.
        """
        if taken is None:
            taken = []
        undelivered = self._undelivered
        try:
            taken.extend(map(_POPLEFT, itertools.repeat(undelivered, min(limit, len(undelivered)))))
        except IndexError:
            pass  # another thread took the rest
        return taken

    def _complete_undelivered(self, who):
        """Completes as cancelled what ``async for`` took and never yielded: no caller has it to complete."""
        undelivered = self._undelivered
        if not undelivered:
            return
        handle, callbacks = self._started(who)
        with handle.read(who) as ptr:
            while True:
                try:
                    vertex = undelivered.popleft()
                except IndexError:
                    return
                walk = ptr if type(vertex) is int else ctypes.c_void_p(_walk_of(vertex, ptr, callbacks, who))  # noqa: E721
                callbacks.keep_never_started(vertex)
                _COMPLETE(walk, ctypes.c_uint64(vertex), _native.WALK_CANCELLED, None, None)

    def _complete_cancelled(self, handle, vertices, walks, n, who):
        """Completes as cancelled, never run, the first `n` vertices a look handed out (each on its walks[i])."""
        if n == 0:
            return
        callbacks = self._callbacks
        main = self._callbacks_main()
        try:
            with handle.read(who):
                for i in range(n):
                    if callbacks is not None and walks[i] == main:
                        callbacks.keep_never_started(vertices[i])
                    _COMPLETE(ctypes.c_void_p(walks[i]), ctypes.c_uint64(vertices[i]), _native.WALK_CANCELLED, None, None)
        except ClosedError:
            return
        self._changed()

    def _report_if_ended(self, handle, who):
        """The report of the cancelled walk if it has ended, else None (vertices are still out).

        A second Ctrl-C while this waits for an observer call (below) is
        raised, its ``walk_report`` None, as in :meth:`wait`.
        """
        vertices = (ctypes.c_uint64 * 1)()
        walks = (ctypes.c_void_p * 1)()
        count = ctypes.c_size_t()
        try:
            # Whether it has ended, told by a look: dag_walk_wait_for(0) also
            # times out once it has, while an observer call of another
            # thread (for an event just before the end) still runs. The walk
            # is cancelled, so the look hands nothing out.
            with handle.read(who) as ptr:
                status = lib.dag_walk_next_ready(ptr, vertices, walks, 1, 0, byref(count), None)
            if status != _native.OK:
                return None
            # Ended: this waits for that observer call alone.
            status, message, report = _wait_in_slices(handle, who, pull=True)
        except ClosedError:
            return None
        except KeyboardInterrupt as again:
            again.walk_report = None
            raise
        return self._report(report, status, message, self._callbacks, who)

    def _poll_calls(self, limit):
        """This thread's PullCalls for `limit`, marked busy; None while a look of this thread's is under way."""
        polls = self._polls
        calls = getattr(polls, "calls", None)
        if calls is not None and calls.busy:
            return None  # an observer of that look polls: it gets buffers of its own
        if calls is None or calls.limit != limit:
            calls = polls.calls = PullCalls(self, "PullWalker.next_ready", limit)
        calls.busy = True
        calls.forget_handed_out()  # a Ctrl-C before the look must not complete the last look's
        return calls

    def _callbacks_main(self):
        callbacks = self._callbacks
        return callbacks.main if callbacks is not None else None

    def wake_on_change(self, waker: Callable[[], object]) -> None:
        """Calls `waker()` once, after the next complete(), cancel(), expand() or apply() through this walker.

        For a host that waits for vertices without blocking a thread: read
        :attr:`changes`, take with ``next_ready(timeout=0)``, and when that
        gives None, register a waker; if :attr:`changes` has moved since it
        was read, look again, else wait for the waker. Every change that can
        make a vertex ready goes through these methods, and bumps
        :attr:`changes` before it calls the wakers, except a retry coming
        due: libdag's timer makes it ready after its delay, and a host of a
        walk with retries looks again now and then as well (``async for``,
        :meth:`run_async` and :meth:`run_on` do, every 5 ms). Every waker is called
        even when one raises; the first exception is then raised by the
        method that made the change (the change itself has happened).
        """
        with self._wake_lock:
            self._wakers.append(waker)

    def _forget_waker(self, waker):
        """Takes back a waker registered with wake_on_change() and not called yet."""
        with self._wake_lock:
            if waker in self._wakers:
                self._wakers.remove(waker)

    def _changed(self, own=None):
        """Bumps changes and calls the wakers; `own`, the waker of the host that made the change, stays registered.

        That host looks again after its own changes anyway: firing its
        waker would only cost it a registration and a look per change.
        """
        self.changes += 1
        wakers = self._wakers
        # Read without the lock: a waker added meanwhile looks again itself.
        if not wakers or (own is not None and len(wakers) == 1 and wakers[0] is own):
            return
        with self._wake_lock:
            wakers = self._wakers
            if own is not None and any(waker is own for waker in wakers):
                self._wakers = [own]
                wakers = [waker for waker in wakers if waker is not own]
            else:
                self._wakers = []
        # Each is called, whatever another raises: a waker skipped would
        # leave its iterator waiting for ever.
        first = None
        for waker in wakers:
            try:
                waker()
            except BaseException as exc:  # noqa: B902 - raised again below, once all are called
                if first is None:
                    first = exc
        if first is not None:
            raise first

    def cancel(self) -> None:
        """Cancels the walk: nothing more is handed out; what is out ends as it is completed.

        What an ``async for`` took and did not yield (it was left early) is
        completed cancelled here: no caller has it to complete. A
        :meth:`run_on` under way cancels the calls it queued on its executor
        and that have not started.
        """
        super().cancel()
        # Before what async for strands is completed: a look that hands out
        # a batch as this runs strands it after, and then sees this.
        self.cancel_asked = True
        try:
            self._complete_undelivered("PullWalker.cancel")
        finally:
            self._changed()
        callbacks = self._callbacks
        if callbacks is not None:
            callbacks.raise_interrupted()

    def close(self) -> None:
        """Cancels the walk, frees it (what is handed out and not completed ends cancelled). Idempotent.

        A :meth:`next_ready` or :meth:`wait` waiting on another thread
        raises ClosedError within a tenth of a second, and ``async for``
        over the walk raises it at its next step.
        """
        super().close()
        try:
            self._changed()  # wakes the asynchronous iterators, whose next look finds the walker closed
        finally:
            # Also when a waker raised: a run still waiting for its tasks ends at once.
            with self._wake_lock:
                hooks, self._close_hooks = self._close_hooks, []
            for hook in hooks:
                hook()

    def _on_close(self, hook):
        """Calls `hook()` once close() has run (an asyncio run ends at once, not when a task ends)."""
        with self._wake_lock:
            self._close_hooks.append(hook)

    def _forget_close_hook(self, hook):
        with self._wake_lock:
            if hook in self._close_hooks:
                self._close_hooks.remove(hook)

    def run_on(self, executor: concurrent.futures.Executor, fn: Callable[[int], object]) -> WalkReport:
        """Runs ``fn(vertex)`` for each vertex on `executor` and returns the :class:`WalkReport`.

        See :func:`libdag.executor.run_on`.
        """
        from .executor import run_on

        return run_on(self, executor, fn, "PullWalker.run_on")

    async def run_async(self, fn: Callable[[int], Awaitable[object]]) -> WalkReport:
        """Awaits ``fn(vertex)`` for each vertex as an asyncio task and returns the :class:`WalkReport`.

        See :func:`libdag.aio.run`.
        """
        from .aio import run

        return await run(self, fn, "PullWalker.run_async")

    def __aiter__(self) -> "ReadyVertices":
        from .aio import ReadyVertices

        return ReadyVertices(self)

    def __repr__(self):
        return super().__repr__().replace("libdag.Walker", "libdag.PullWalker")
