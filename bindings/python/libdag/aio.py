"""asyncio walks, built on the pull mode: ``async for vertex in walk`` and ``await run(walk, fn)``.

Nothing blocks the event loop: ready vertices are taken without waiting,
and while none is ready the loop awaits a future that the walk's next
completion (from this loop or any thread) resolves.
"""

from __future__ import annotations

import asyncio
import collections
import contextvars
import functools
import inspect
import signal
import threading
import types
from typing import TYPE_CHECKING, Awaitable, Callable

from ._pull_calls import PullCalls
from ._sigint import _CtrlC, _forget_ended_walks, _on_sigint
from .errors import ClosedError, StateError

if TYPE_CHECKING:
    from .pull import PullWalker
    from .walk import WalkReport

__all__ = ["ReadyVertices", "run"]

# Vertices taken per look.
_BATCH = 256
# Tasks one pass starts at most before it lets the loop run.
_PASS_VERTICES = 1024
# While nothing runs and nothing is ready, how often the walk looks again.
_IDLE_LOOK_S = 0.005
_WHO = "PullWalker.next_ready"
# What an `async def` returns: checked before asyncio.iscoroutine, which costs far more.
_COROUTINE = types.CoroutineType
_POPLEFT = collections.deque.popleft


class ReadyVertices:
    """The asynchronous iterator of a :class:`PullWalker`: ``async for vertex in walk``.

    Yields each vertex once it is ready (handed out: complete it with
    ``walk.complete(vertex)``, from the loop or any thread); ends when the
    walk has ended. It takes ready vertices in batches: those it has not
    yielded when the loop is left early stay with the walker, for the next
    ``async for`` or :meth:`~libdag.pull.PullWalker.next_ready` to take
    first, or for :meth:`~libdag.pull.PullWalker.cancel` to complete.
    """

    def __init__(self, walker):
        self._walker = walker
        self._idle_at = None  # walker.changes when a look last found nothing ready
        self._calls = None  # made by the first look, once the walk has started
        # The future the registered waker resolves: one waker at a time, also
        # when a wait for it is cancelled (asyncio.wait_for's timeout).
        self._changed = None

    def __aiter__(self):
        return self

    async def __anext__(self) -> int:
        walker = self._walker
        undelivered = walker._undelivered
        while True:
            if undelivered:
                # Moved to a list of its own in one C call, then returned from
                # there: a Ctrl-C raised after the C call (any Python) finds
                # it in `taken`, and puts it back.
                taken = []
                try:
                    taken.extend(map(_POPLEFT, (undelivered,)))
                    return taken[0]
                except IndexError:
                    pass  # another iterator took the last one
                except BaseException:  # noqa: B902 - Ctrl-C: not lost, still the walker's
                    undelivered.extendleft(taken)
                    raise
            # A look that finds nothing costs the library far more than one
            # that finds something: look only after a change.
            seen = walker.changes
            if seen != self._idle_at:
                batch = self._look()  # what it takes joins undelivered
                if batch is None or 0 < len(batch) < _BATCH:
                    self._idle_at = seen  # nothing more was ready
                if batch is not None:
                    if not batch:
                        raise StopAsyncIteration
                    if walker.cancel_asked:
                        # A cancel() that ran during the look found none of
                        # these to complete: no caller is to get them now.
                        walker._complete_undelivered(_WHO)
                    continue
            loop = asyncio.get_running_loop()
            changed = self._changed
            if changed is None or changed.done() or changed.get_loop() is not loop:
                changed = self._changed = loop.create_future()
                walker.wake_on_change(functools.partial(_wake, loop, threading.get_ident(), changed))
            if walker.changes == seen:
                if walker._retries:
                    # A retry comes due on libdag's timer, which no change
                    # announces: look again soon.
                    await asyncio.wait([changed], timeout=_IDLE_LOOK_S)
                    self._idle_at = None
                else:
                    await asyncio.shield(changed)

    def _look(self):
        # As walker.next_ready(_BATCH, timeout=0), through buffers of the
        # iterator's own: it runs on its loop's thread alone. What it takes
        # joins the walker's undelivered, which __anext__ yields from.
        walker = self._walker
        handle, _ = walker._started(_WHO)
        if self._calls is None:
            self._calls = PullCalls(walker, _WHO, _BATCH)
        calls = self._calls
        calls.forget_handed_out()  # a Ctrl-C before the look must not complete the last look's
        try:
            with handle.read(_WHO) as ptr:
                batch = calls.look(ptr)
            if batch:
                # Inside the try: a Ctrl-C up to here must not lose them.
                # Once with the walker, they are cancel()'s to complete.
                walker._undelivered.extend(batch)
                calls.forget_handed_out()
            callbacks = calls._callbacks
            if callbacks is not None and callbacks.interrupted:
                callbacks.raise_interrupted()
            return batch
        except KeyboardInterrupt as interrupt:
            # An observer's Ctrl-C (or the signal itself) as the look
            # returned: as in next_ready(), the walk is cancelled and what
            # the look handed out, which no caller gets, completed cancelled.
            interrupt.walk_report = walker._stop_for_interrupt(handle, *calls.handed_out(), _WHO)
            raise


async def _awaiting(awaitable):
    return await awaitable


def _wake(loop, loop_thread, changed):
    if threading.get_ident() == loop_thread:
        _resolve(changed)
        return
    try:
        loop.call_soon_threadsafe(_resolve, changed)
    except RuntimeError:
        pass  # the loop has closed: a look cancelled there (wait_for's timeout) left its waker behind


def _step_soon(loop, driver):
    try:
        loop.call_soon_threadsafe(driver.step)
    except RuntimeError:
        pass  # the loop has closed: the run is over


def _retrieve(task):
    if not task.cancelled():
        task.exception()


def _raise_interrupt():
    raise KeyboardInterrupt


def _resolve(changed):
    if not changed.done():
        changed.set_result(None)


def _watch_ctrl_c(driver):
    """Counts Ctrl-Cs for `driver`'s walk until run() takes it out of _CtrlC.walks (see _CtrlC)."""
    if threading.current_thread() is not threading.main_thread():
        return
    current = signal.getsignal(signal.SIGINT)
    if current is not _on_sigint and current is not signal.default_int_handler:
        return
    _forget_ended_walks()
    # Counted before the wrapper is put in place: a Ctrl-C after either
    # leaves the walk counted, which run()'s finally undoes (a walk counted
    # after, or by a flag set after the call, was left out by one landing
    # between, and the wrapper stayed for good).
    _CtrlC.walks.add(driver)
    if current is not _on_sigint:
        try:
            signal.signal(signal.SIGINT, _on_sigint)
        except ValueError:  # not the main interpreter's main thread
            _CtrlC.walks.discard(driver)


def _unwatch_ctrl_c():
    """Puts Python's own SIGINT handler back once no walk relies on the wrapper."""
    # Not once the handler was replaced meanwhile: that one is someone's.
    if threading.current_thread() is threading.main_thread():
        _forget_ended_walks()
    if (not _CtrlC.walks and threading.current_thread() is threading.main_thread()
            and signal.getsignal(signal.SIGINT) is _on_sigint):
        signal.signal(signal.SIGINT, signal.default_int_handler)


async def run(walker: PullWalker, fn: Callable[[int], Awaitable[object]],
              who: str = "PullWalker.run_async") -> WalkReport:
    """Awaits ``fn(vertex)`` for every vertex, each as its own task; returns the report.

    `fn` is a coroutine function, or returns any awaitable (a future, such
    as ``loop.run_in_executor``'s, or a task).

    Starts the walk if it has not been started. A task that returns
    completes its vertex ok; one that raises fails it, the exception kept in
    the report. At most ``parallelism`` tasks run at once.

    A vertex added by :meth:`~libdag.pull.PullWalker.apply` (from a task or
    any thread) starts as soon as it is ready, not when a task next ends.

    A task raising KeyboardInterrupt or SystemExit fails its vertex like any
    other exception, as a callback of Graph.walk() does; one that Ctrl-C
    raised in a task's code (see _CtrlC) interrupts the walk instead.

    When the coroutine running this is cancelled (or interrupted), the walk
    is cancelled, the tasks still running are cancelled and awaited (their
    vertices end cancelled, the CancelledError kept as their exception, as
    do those whose task had not started), and the exception is re-raised
    with the walk's report as its ``walk_report`` attribute. When the walker
    is closed meanwhile (by a task or another thread), the tasks still
    running are cancelled and awaited the same way and ClosedError is
    raised, its ``walk_report`` None (a closed walk has no report to read).

    `who` heads the errors: the method the caller called.
    """
    if not walker.started:
        walker._start(who)
    loop = asyncio.get_running_loop()
    driver = _Driver(walker, fn, loop, who)
    # A close from anywhere ends the walk's pass at once (the pass finds the
    # walker closed), not when the next task ends.
    on_close = functools.partial(_step_soon, loop, driver)
    try:
        # Inside the try: a Ctrl-C before it leaves no hook behind.
        walker._on_close(on_close)
        driver.watch_ctrl_c()
        driver.schedule()
        await driver.ended
    except BaseException as stop:  # noqa: B902 - cancellation and Ctrl-C included
        driver.stopping = True
        if isinstance(stop, GeneratorExit):
            # Closed, not cancelled: abandoned by a frame above it (a Ctrl-C
            # landed there as the task resumed), it can await nothing more.
            # Its tasks, cancelled, complete their vertices as they end, but
            # those that never began, whose vertices are completed here.
            _begin_stop(walker, driver)
            _end_unbegun(driver, lambda token, task: inspect.getcoroutinestate(task.get_coro()) == inspect.CORO_CREATED)
            driver.step()
            raise
        ready = ReadyVertices(walker)
        stopping = asyncio.ensure_future(_end_stop(walker, ready, driver, *_begin_stop(walker, driver)))
        while True:
            try:
                stop.walk_report = await asyncio.shield(stopping)
                break
            except asyncio.CancelledError:
                # Cancelled again while its tasks are cancelled and awaited:
                # the stop goes on (walk_async raised with its tasks still
                # running, and no report).
                if stopping.done():
                    stop.walk_report = stopping.result()
                    break
        raise
    finally:
        # First, and by one C call: a Ctrl-C landing in what follows leaves
        # no walk counted, and at worst the wrapper, which takes itself away.
        _CtrlC.walks.discard(driver)
        _unwatch_ctrl_c()
        walker._forget_close_hook(on_close)
        walker._forget_waker(driver.waker)
    # The walk has ended: every vertex is complete, every task has finished.
    report = walker.wait()
    if driver.interrupted_at_end:
        interrupt = KeyboardInterrupt()
        interrupt.walk_report = report
        raise interrupt
    return report


class _Driver:
    """Takes ready vertices, starts their tasks and completes them, on the loop's thread.

    Per vertex the walk costs a task, one pass of the event loop, a look and
    a completion: a task completes its vertex as it ends and, unless a pass
    is under way, takes and starts the vertices that made ready in the same
    step (a pass), rather than in a done callback a pass of the loop later.
    A pass starts at most _PASS_VERTICES tasks, so that a walk whose tasks
    end at once (under an eager task factory, say) lets the loop run other
    work, a cancel included.
    """

    def __init__(self, walker, fn, loop, who):
        self.walker = walker
        self.fn = fn
        self.loop = loop
        self.who = who
        self.calls = PullCalls(walker, who, _BATCH)
        self.handle, _ = walker._started(who)
        # Each task starts from a copy of the walking task's context, not of
        # the task whose end started it.
        self.context = contextvars.copy_context()
        self.tasks = {}  # a token of each task's own -> (the task, its vertex, fn's coroutine)
        self.ended = loop.create_future()
        # Its exception is run()'s to raise; one set while run() is not
        # awaiting it (a Ctrl-C came first) is no exception lost.
        self.ended.add_done_callback(_retrieve)
        self.stopping = False
        # (vertex, error, cancelled, started, token) of the tasks that ended,
        # not completed yet: each leaves tasks for here by one C call, and
        # leaves here once completed, so a Ctrl-C between any two calls (3.11
        # on, a loop run without asyncio.run) leaves it in one place or both.
        self.finished = collections.deque()
        # What a pass has taken and not yet given a task: starting[next_start:],
        # completed cancelled by _begin_stop. Changed one assignment at a
        # time, each leaving them there or with a task (Ctrl-C can land
        # between any two on 3.8 to 3.10): starting goes back to () before
        # next_start to 0.
        self.starting = ()
        self.next_start = 0
        self.passing = False
        self.scheduled = False
        self.idle_look = False  # a look is due after _IDLE_LOOK_S
        # A change made from outside a pass (an apply() from a task or
        # another thread) may make vertices ready while every task runs on:
        # wake() is registered with the walker before each look, and starts
        # a pass (or, called inside one, has it look again).
        self.thread = threading.get_ident()
        self.armed = False
        self.poked = False
        self.interrupted_at_end = False  # an observer's Ctrl-C came as the walk ended
        # One object, registered and passed as its own to walker._changed():
        # the driver's completions do not fire it.
        self.waker = self.wake
        self.ctrl_c_before = 0

    def watch_ctrl_c(self):
        self.ctrl_c_before = _CtrlC.count
        _watch_ctrl_c(self)

    def relies_on_wrapper(self):
        """Whether a task of this walk may still run, or one be made: its Ctrl-Cs are to be counted."""
        return not (self.ended.done() and not self.tasks)

    def ctrl_c(self, exc):
        """Whether `exc`, raised in a task or by fn, is a Ctrl-C's: the walk is to stop, not the vertex to fail."""
        return not isinstance(exc, Exception) and self in _CtrlC.walks and _CtrlC.count != self.ctrl_c_before

    def _cancel_for_ctrl_c(self):
        # Before the loop raises it: asyncio.run then cancels the running
        # tasks, whose vertices must end cancelled, not failed (as for an
        # observer's Ctrl-C in step()).
        try:
            self.walker.cancel()
        except (StateError, ClosedError):
            pass  # closed, or ended: nothing is left to cancel

    def wake(self):
        self.armed = False  # before the step below, which must see it to register again
        if self.ended.done():
            return
        if threading.get_ident() != self.thread:
            _step_soon(self.loop, self)
        elif self.passing:
            self.poked = True
        else:
            self.schedule()

    def schedule(self):
        if not self.scheduled:
            self.scheduled = True
            self.loop.call_soon(self.run_pass)

    def run_pass(self):
        self.scheduled = False
        self.step()

    def look_again(self):
        self.idle_look = False
        self.schedule()

    def step(self):
        """Completes what has ended, takes what is ready and starts it, until nothing changes."""
        if self.passing:
            return  # the pass under way completes what this ended
        try:
            # Inside the try: a Ctrl-C just after it (3.8 and 3.9 check
            # there) left it set, and no pass ran again.
            self.passing = True
            with self.handle.read(self.who) as ptr:
                self._pass(ptr)
            callbacks = self.calls._callbacks
            if callbacks is not None and callbacks.interrupted and callbacks.take_interrupt():
                # An observer's Ctrl-C: raised by the loop, as asyncio raises
                # one, not by the task whose end made this pass. The walk is
                # cancelled first: asyncio.run cancels the tasks as the
                # exception leaves the loop, and their vertices must end
                # cancelled, not failed.
                try:
                    self.walker.cancel()
                except StateError:
                    # The walk has ended (the Ctrl-C came with its last
                    # event): run() raises it, with the report.
                    self.interrupted_at_end = True
                except ClosedError:
                    self.loop.call_soon(_raise_interrupt)
                    raise
                else:
                    self.loop.call_soon(_raise_interrupt)
        except ClosedError as closed:
            # Closed under the walk (by a task, or another thread): nothing
            # more can be taken or completed, so run() ends with it.
            self._end(closed)
        except Exception as exc:  # noqa: B902 - a pass runs from the loop; the walk goes on
            self.loop.call_exception_handler({"message": "libdag asyncio walk", "exception": exc})
        finally:
            self.passing = False

    def _pass(self, ptr):
        calls = self.calls
        budget = _PASS_VERTICES
        look = True
        while True:
            if self.finished:
                finished = self.finished
                while finished:
                    vertex, error, cancelled, started, token = finished[0]
                    self._complete(ptr, vertex, error, cancelled, started)
                    self.tasks.pop(token, None)
                    finished.popleft()
                self._announce()
                look = True
            if self.poked:
                look = True
            if not look or self.stopping or self.ended.done():
                # Ended, or its task cancelled (stopping comes a step
                # later): no new task, and relies_on_wrapper() holds.
                return
            if budget <= 0:
                self.schedule()
                return
            if not self.armed:
                self.armed = True
                self.walker.wake_on_change(self.waker)
            self.poked = False  # the look below sees that change
            # What an async for left early stranded on the walker comes
            # first; then a look for what else is ready.
            batch = None
            first = self.next_start
            if first < len(self.starting):
                # A Ctrl-C cut the last start short, and the walk went on:
                # what it did not start comes first, where it is.
                batch = self.starting
            else:
                first = 0
                self.starting = ()
                self.next_start = 0
                if self.walker._undelivered:
                    # Into the driver's own list, by one C call: a Ctrl-C
                    # from here on finds them in starting.
                    self.starting = batch = []
                    self.walker._take_undelivered(calls.limit, batch)
            stranded = True if batch else False  # no call: no Ctrl-C here from 3.11 on
            if not stranded:
                # A Ctrl-C as the look returns finds its vertices in
                # handed_out() until they are in starting.
                batch = calls.look(ptr)
                self.starting = batch or ()
                calls.forget_handed_out()
            look = False
            if batch is None:
                if (not self.tasks or self.walker._retries) and not self.finished and not self.idle_look:
                    # A failed vertex may wait for its retry, which no
                    # completion announces (libdag's timer makes it ready):
                    # look again soon when nothing runs, or the walk retries.
                    self.idle_look = True
                    self.loop.call_later(_IDLE_LOOK_S, self.look_again)
                continue
            if not batch:
                # The walk has ended; a task whose vertex fn expanded may
                # still run (the vertex ended with its sub-walk): its end,
                # which keeps what it raised for the report, ends the run.
                if not self.tasks:
                    self._end()
                return
            budget -= len(batch) - first
            # A vertex that failed to start is complete already: look again.
            look = self._start(ptr, batch, first) or stranded or len(batch) == calls.limit

    def _start(self, ptr, batch, first):
        """Starts a task for each vertex of batch[first:]; says whether any failed to start (and is complete)."""
        create_task = self.loop.create_task
        run_in_context = self.context.run
        failed = False
        for i in range(first, len(batch)):
            vertex = batch[i]
            body = None
            try:
                coroutine = self.fn(vertex)
                if type(coroutine) is not _COROUTINE and not asyncio.iscoroutine(coroutine):
                    if not inspect.isawaitable(coroutine):
                        raise TypeError(f"an awaitable was expected, got {coroutine!r}")
                    # A future (loop.run_in_executor's), a task: awaited by a coroutine of ours.
                    coroutine = _awaiting(coroutine)
                token = object()  # not the coroutine: fn may hand the same one out twice
                body = self._task(vertex, coroutine, token)
                task = run_in_context(create_task, body)
                if not task.done():  # under an eager task factory it may have ended already
                    self.tasks[token] = (task, vertex, coroutine)
                self.next_start = i + 1
            except BaseException as exc:  # noqa: B902 - the vertex is handed out: it must be completed
                if body is not None and self._adopt(body, vertex, coroutine, token):
                    # A Ctrl-C as its task was made: the task has the vertex.
                    self.next_start = i + 1
                    if self.ctrl_c(exc):
                        self._cancel_for_ctrl_c()
                    raise
                if body is not None:
                    body.close()  # no task has it
                self._complete(ptr, vertex, exc, False, True)
                self.next_start = i + 1
                self._announce()
                if self.ctrl_c(exc):
                    self._cancel_for_ctrl_c()
                    raise
                failed = True
                continue
        self.starting = ()
        return failed

    def _adopt(self, body, vertex, coroutine, token):
        """Whether a task was made of `body` (a Ctrl-C came just after): then it is in tasks, or has ended."""
        for task in asyncio.all_tasks(self.loop):
            if task.get_coro() is body:
                self.tasks[token] = (task, vertex, coroutine)
                return True
        # Run at once and ended (an eager task factory): its end is in finished.
        return inspect.getcoroutinestate(body) != inspect.CORO_CREATED

    async def _task(self, vertex, coroutine, token):
        error = None
        cancelled = False
        try:
            await coroutine
        except asyncio.CancelledError:
            error = asyncio.CancelledError(f"the task of vertex {vertex} was cancelled")
            cancelled = True
            raise
        except BaseException as exc:  # noqa: B902 - kept in the report; a Ctrl-C re-raised
            error = exc
            if self.ctrl_c(exc):
                self._cancel_for_ctrl_c()
                if isinstance(exc, (KeyboardInterrupt, SystemExit)):
                    # asyncio raises these out of the loop as well: not an
                    # exception lost, as "never retrieved" would say.
                    asyncio.current_task().add_done_callback(_retrieve)
                raise
        finally:
            self.finished.append((vertex, error, cancelled, True, token))
            try:
                self.step()
            except BaseException:  # noqa: B902 - a Ctrl-C in the pass, which the loop raises too
                asyncio.current_task().add_done_callback(_retrieve)
                raise

    def _end(self, error=None):
        try:
            if error is None:
                self.ended.set_result(None)
            else:
                self.ended.set_exception(error)
        except asyncio.InvalidStateError:
            # Done already: by a close, or cancelled with the walking task
            # (as 3.11's asyncio.run does for a Ctrl-C, between any two calls).
            pass

    def _announce(self):
        """Wakes the walker's wakers; one that raises is told to the loop, and the pass goes on
        (it ended the pass, and nothing started another: the walk stalled)."""
        try:
            self.walker._changed(self.waker)
        except Exception as exc:  # noqa: B902 - a waker's; every waker has been called
            self.loop.call_exception_handler({"message": "libdag asyncio walk: a waker raised", "exception": exc})

    def _complete(self, ptr, vertex, error, cancelled, started):
        try:
            self.calls.complete(ptr, vertex, error, cancelled, started)
        except Exception as exc:  # noqa: B902 - one refused completion must not strand the rest
            if self.stopping and isinstance(exc, StateError):
                return  # a second completion: a Ctrl-C came before the first one's entry left finished
            self.loop.call_exception_handler({"message": f"libdag asyncio walk: vertex {vertex}", "exception": exc})


def _begin_stop(walker, driver):
    """Cancels the walk and its tasks, at once: before any task runs again. Returns (the tasks, closed)."""
    closed = False
    try:
        try:
            walker.cancel()
        except ClosedError:
            raise
        except StateError:
            pass  # it has ended already
        # Taken by a pass that a Ctrl-C ended before their tasks were made.
        # A vertex may be in two of these places for a moment, or already
        # completed (by _start, as it failed to start): the second
        # completion is refused, and that is all.
        walker._complete_cancelled(driver.handle, *driver.calls.handed_out(), driver.who)
        with_task = {id(vertex) for _, vertex, _ in driver.tasks.values()}
        for vertex in driver.starting[driver.next_start:]:
            if id(vertex) in with_task:
                continue
            try:
                walker.complete(vertex, asyncio.CancelledError(
                    f"vertex {vertex} was cancelled before its task started"), cancelled=True)
            except StateError:
                continue
            driver.calls._callbacks.keep_never_started(vertex)
    except ClosedError:
        closed = True  # its tasks are still to be cancelled and awaited
    tasks = [task for task, _, _ in driver.tasks.values()]
    for task in tasks:
        task.cancel()
    return tasks, closed


def _end_unbegun(driver, unbegun):
    """Puts in finished, cancelled, the vertices of the tasks `unbegun(token, task)` says never entered _task.

    A task cancelled before it first ran never enters _task, whose end
    completes the vertex: its vertex is still out, and fn's coroutine was
    never awaited.
    """
    for token, (task, vertex, coroutine) in list(driver.tasks.items()):
        if not unbegun(token, task):
            continue
        del driver.tasks[token]
        if inspect.iscoroutine(coroutine) and inspect.getcoroutinestate(coroutine) == inspect.CORO_CREATED:
            coroutine.close()
        driver.finished.append((vertex, asyncio.CancelledError(
            f"the task of vertex {vertex} was cancelled before it started"), True, False, token))


async def _end_stop(walker, ready, driver, tasks, closed):
    """Waits for the cancelled tasks and what is out; returns the report (None once closed)."""
    if tasks:
        await asyncio.wait(tasks)
    # One whose end is in finished, not yet completed, has entered _task (a
    # Ctrl-C came before the pass forgot its task).
    ended = {entry[4] for entry in driver.finished}
    _end_unbegun(driver, lambda token, task: token not in ended)
    if closed:
        return None
    try:
        driver.step()  # completes what the tasks' ends left to a pass under way
        async for vertex in ready:
            walker.complete(vertex, asyncio.CancelledError("the walk was cancelled"), cancelled=True)
        return walker.wait()
    except ClosedError:
        return None
