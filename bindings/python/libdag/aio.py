"""asyncio walks, built on the pull mode: ``async for vertex in walk`` and ``await run(walk, fn)``.

Nothing blocks the event loop: ready vertices are taken without waiting,
and while none is ready the loop awaits a future that the walk's next
completion (from this loop or any thread) resolves.
"""

from __future__ import annotations

import asyncio
import collections
import functools
import threading
from typing import TYPE_CHECKING, Awaitable, Callable, List

from .errors import StateError

if TYPE_CHECKING:
    from .pull import PullWalker
    from .walk import WalkReport

__all__ = ["ReadyVertices", "run"]

# Vertices taken per look.
_BATCH = 256


class ReadyVertices:
    """The asynchronous iterator of a :class:`PullWalker`: ``async for vertex in walk``.

    Yields each vertex once it is ready (handed out: complete it with
    ``walk.complete(vertex)``, from the loop or any thread); ends when the
    walk has ended.
    """

    def __init__(self, walker):
        self._walker = walker
        self._buffer = collections.deque()
        self._idle_at = None  # walker.changes when a look last found nothing ready

    def __aiter__(self):
        return self

    async def __anext__(self) -> int:
        if self._buffer:
            return self._buffer.popleft()
        walker = self._walker
        while True:
            # A look that finds nothing costs the library far more than one
            # that finds something: look only after a change.
            seen = walker.changes
            if seen != self._idle_at:
                batch = walker.next_ready(_BATCH, timeout=0)
                if batch is None or 0 < len(batch) < _BATCH:
                    self._idle_at = seen  # nothing more was ready
                if batch is not None:
                    break
            loop = asyncio.get_running_loop()
            changed = loop.create_future()
            walker.wake_on_change(functools.partial(_wake, loop, threading.get_ident(), changed))
            if walker.changes == seen:
                await changed
        if not batch:
            raise StopAsyncIteration
        self._buffer.extend(batch)
        return self._buffer.popleft()

    def take_buffered(self) -> List[int]:
        """The vertices handed out to this iterator and not yielded yet (emptying it)."""
        taken = list(self._buffer)
        self._buffer.clear()
        return taken


def _wake(loop, loop_thread, changed):
    if threading.get_ident() == loop_thread:
        _resolve(changed)
    else:
        loop.call_soon_threadsafe(_resolve, changed)


def _resolve(changed):
    if not changed.done():
        changed.set_result(None)


async def run(walker: PullWalker, fn: Callable[[int], Awaitable[object]]) -> WalkReport:
    """Awaits ``fn(vertex)`` (a coroutine function) for every vertex, each as its own task; returns the report.

    Starts the walk if it has not been started. A task that returns
    completes its vertex ok; one that raises fails it, the exception kept in
    the report. At most ``parallelism`` tasks run at once.

    When the coroutine running this is cancelled (or interrupted), the walk
    is cancelled, the tasks still running are cancelled and awaited (their
    vertices fail with the CancelledError), and the exception is re-raised
    with the walk's report as its ``walk_report`` attribute.
    """
    if not walker.started:
        walker.start()
    loop = asyncio.get_running_loop()
    tasks = set()
    ended = loop.create_future()
    stopping = False
    parallelism = walker.parallelism

    # Driven from the tasks' done callbacks, not from this coroutine: a
    # completion takes the vertices it made ready and starts their tasks
    # at once, one pass of the event loop per vertex.
    def launch():
        while not stopping and len(tasks) < parallelism:
            batch = walker.next_ready(_BATCH, timeout=0)
            if batch is None:
                return  # nothing ready: a completion calls again
            if not batch:
                if not ended.done():
                    ended.set_result(None)
                return
            completed = False
            for vertex in batch:
                try:
                    task = loop.create_task(fn(vertex))
                except BaseException as exc:  # noqa: B902 - the vertex is handed out: it must be completed
                    walker.complete(vertex, exc)
                    if not isinstance(exc, Exception):
                        raise
                    completed = True
                    continue
                tasks.add(task)
                task.add_done_callback(functools.partial(finish, vertex))
            if len(batch) < _BATCH and not completed:
                return  # that was everything ready, and nothing has changed since

    def finish(vertex, task):
        tasks.discard(task)
        if task.cancelled():
            error = asyncio.CancelledError(f"the task of vertex {vertex} was cancelled")
        else:
            error = task.exception()
        walker.complete(vertex, error)
        launch()

    try:
        launch()
        await ended
    except BaseException as stop:  # noqa: B902 - cancellation and Ctrl-C included
        stopping = True
        stop.walk_report = await _stop(walker, ReadyVertices(walker), tasks)
        raise
    # The walk has ended: every vertex is complete, every task has finished.
    return walker.wait()


async def _stop(walker, ready, tasks):
    """Cancels the walk and its tasks, waits for what is out, and returns the report."""
    try:
        walker.cancel()
    except StateError:
        pass  # it has ended already
    for vertex in ready.take_buffered():
        walker.complete(vertex, asyncio.CancelledError(f"vertex {vertex} was cancelled before its task started"))
    for task in list(tasks):
        task.cancel()
    if tasks:
        await asyncio.wait(list(tasks))
    # Completions from the tasks' done callbacks run on the loop: let them.
    async for vertex in ready:
        walker.complete(vertex, asyncio.CancelledError("the walk was cancelled"))
    return walker.wait()
