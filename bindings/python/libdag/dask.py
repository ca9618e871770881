"""Walks whose vertices run as tasks on a Dask cluster (``distributed``), built on the pull mode.

libdag decides what runs when (Terraform's semantics: a failure skips only
its dependents, always-run, fail fast, cancel, the report); Dask's scheduler
places each vertex's task on a worker. Each ready vertex is submitted as one
future; the future's done-callback completes the vertex and submits what
that made ready, so no thread waits per vertex and none drives the walk.
``distributed`` is imported only when a walk starts: the rest of libdag
works without it.

Run as ``python3 -m libdag.dask`` for the command-line form
(:mod:`libdag.dask_cli`).
"""

from __future__ import annotations

import collections
import threading
import uuid
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any, Callable, Dict, Optional, Union

from .errors import StateError

if TYPE_CHECKING:
    from .graph import Graph
    from .walk import WalkReport

__all__ = ["DaskWalk", "start", "walk"]

# How long one wait may keep Ctrl-C from being noticed.
_WAIT_SLICE_S = 0.1

Payload = Union[None, Mapping, Sequence, Callable[[int], Any]]
Resources = Union[None, Mapping, Callable[[str], Optional[Dict[str, float]]]]
Pools = Union[None, Mapping, Callable[[str], Optional[str]]]


def walk(graph: Graph, fn: Callable[[Any], object], client: Any, **options: Any) -> WalkReport:
    """Runs ``fn(argument)`` on `client`'s cluster for every vertex, each after its dependencies; returns the report.

    Options as :func:`start`. A task that returns completes its vertex ok;
    one that raises fails it, the remote exception (its type and message,
    as Dask sends it back) kept in the report, and the vertices depending
    on it are skipped. A failed walk does not raise: read the report.

    Ctrl-C (or any exception) while this waits cancels the walk and the
    outstanding futures, and re-raises with the report, which accounts for
    every vertex, as the exception's ``walk_report`` attribute.
    """
    return start(graph, fn, client, **options).wait()


def start(graph: Graph, fn: Callable[[Any], object], client: Any, *, parallelism: int = 10, reverse: bool = False,
          fail_fast: bool = False, always_run=(), retries: int = 0, resources: Resources = None,
          payload: Payload = None, limits: Optional[Mapping] = None, pool: Pools = None, timestamps: bool = True,
          observer=None) -> "DaskWalk":
    """Starts a walk on `client`'s cluster and returns its :class:`DaskWalk` (``cancel()``, ``wait()``).

    Args:
        graph: the graph; it stays busy (no changes) until wait() returns.
        fn: called on a worker with the vertex's argument; must pickle.
        client: a ``distributed.Client``.
        parallelism: the most vertices submitted at once.
        reverse, fail_fast, always_run, timestamps, observer: as
            :meth:`Graph.walk` (timestamps are taken on this machine, at
            submission and completion).
        retries: Dask's ``retries=``: how many times a failed task is run
            again before its vertex fails.
        resources: Dask worker resources per vertex: a mapping from vertex
            name (or id) to a dict such as ``{"GPU": 1}``, or a callable
            given the vertex's label that returns one (or None).
        payload: what `fn` is given: None for the vertex's label (its name,
            or its decimal id); a mapping from name (or id) to argument; a
            sequence indexed by the vertex's user data
            (:meth:`Graph.user_data`); or a callable given the vertex id.
        limits: named limits, a mapping from a pool's name to the most of
            its vertices submitted at once (at least 1).
        pool: which pool a vertex is in: a mapping from vertex name (or id)
            to a name of `limits`, or a callable given the vertex's label
            that returns one (or None for no pool). A vertex whose pool is
            full waits on this machine, holding its slot of `parallelism`,
            and is submitted as one of its pool's tasks ends.

    Raises:
        ImportError: ``distributed`` is not installed.
        ValueError: a vertex's pool is not in `limits`, or a limit is below 1.
        KeyError: `payload` has no entry for a vertex, or `resources` or
            `pool` names one the graph does not have.
        CycleError, UnknownVertexError, InvalidArgumentError, BusyError:
            as :meth:`Graph.pull_walker`.
    """
    import distributed  # noqa: F401 - fails here, before the walk starts, when it is missing

    tasks = _tasks(graph, payload, resources, pool, _limits(limits))
    walker = graph.pull_walker(parallelism=parallelism, reverse=reverse, fail_fast=fail_fast,
                               always_run=always_run, timestamps=timestamps, observer=observer)
    running = DaskWalk(walker, fn, client, tasks, retries, limits)
    try:
        running._begin()
    except BaseException:
        running.cancel()  # the futures already submitted; closing the walker cancels the rest
        walker.close()
        raise
    return running


def _limits(limits):
    limits = dict(limits or {})
    for name, most in limits.items():
        if not isinstance(most, int) or most < 1:
            raise ValueError(f"libdag.dask: limit {name!r} is {most!r}; a limit is an int, at least 1")
    return limits


def _tasks(graph, payload, resources, pool, limits):
    """{vertex: (key, argument, resources, pool)} for every vertex, read before the walk makes the graph busy."""
    token = uuid.uuid4().hex[:12]
    tasks = {}
    known = set()
    for vertex in graph.vertices():
        name = graph.name(vertex)
        label = str(vertex) if name is None else name
        known.update((vertex, name))
        tasks[vertex] = (f"{label}-{token}-{vertex}", _argument(graph, vertex, name, label, payload),
                         _resources(vertex, name, label, resources), _pool(vertex, name, label, pool, limits))
    for option, mapping in (("resources", resources), ("pool", pool)):
        if isinstance(mapping, Mapping):
            unknown = [key for key in mapping if key not in known]
            if unknown:  # most likely a misspelt name, which would silently lose its setting
                raise KeyError(f"libdag.dask: {option} names no vertex of the graph: {unknown[0]!r}")
    return tasks


def _lookup(mapping, vertex, name):
    if name is not None and name in mapping:
        return True, mapping[name]
    if vertex in mapping:
        return True, mapping[vertex]
    return False, None


def _argument(graph, vertex, name, label, payload):
    if payload is None:
        return label
    if isinstance(payload, Mapping):
        found, value = _lookup(payload, vertex, name)
        if not found:
            raise KeyError(f"libdag.dask: payload has no entry for vertex {label}")
        return value
    if isinstance(payload, Sequence) and not isinstance(payload, (str, bytes)):
        index = graph.user_data(vertex)
        if index >= len(payload):
            raise IndexError(f"libdag.dask: vertex {label} has user data {index}, past the payload's {len(payload)}")
        return payload[index]
    if callable(payload):
        return payload(vertex)
    raise TypeError(f"libdag.dask: payload is None, a mapping, a sequence or a callable, not {type(payload).__name__}")


def _resources(vertex, name, label, resources):
    if resources is None:
        return None
    if isinstance(resources, Mapping):
        return _lookup(resources, vertex, name)[1]
    if callable(resources):
        return resources(label)
    raise TypeError(f"libdag.dask: resources is None, a mapping or a callable, not {type(resources).__name__}")


def _pool(vertex, name, label, pool, limits):
    if pool is None:
        return None
    if isinstance(pool, Mapping):
        found = _lookup(pool, vertex, name)[1]
    elif callable(pool):
        found = pool(label)
    else:
        raise TypeError(f"libdag.dask: pool is None, a mapping or a callable, not {type(pool).__name__}")
    if found is not None and found not in limits:
        raise ValueError(f"libdag.dask: vertex {label} is in pool {found!r}, which limits does not name")
    return found


class _Pool:
    """A named limit: how many of its vertices are submitted, and those waiting for room."""

    __slots__ = ("room", "waiting")

    def __init__(self, most):
        self.room = most
        self.waiting = collections.deque()


class DaskWalk:
    """A walk running on a Dask cluster, made by :func:`start`.

    Its vertices are submitted as they become ready, from the thread that
    calls :func:`start` and then from Dask's callback thread; call
    :meth:`wait` for the report (it closes the walk) or :meth:`cancel`.
    """

    def __init__(self, walker, fn, client, tasks, retries, limits):
        self._walker = walker
        self._fn = fn
        self._client = client
        self._tasks = tasks
        self._retries = retries
        self._lock = threading.Lock()  # guards _futures and _cancelled against cancel() from another thread
        self._futures = {}  # vertex -> its outstanding future
        self._pools = {name: _Pool(most) for name, most in (limits or {}).items()}
        self._cancelled = False
        self._ended = threading.Event()
        self._failure = None  # an exception raised inside a done-callback, re-raised by wait()
        self._report = None

    @property
    def futures(self) -> Dict[int, Any]:
        """The outstanding futures, by vertex id (a copy)."""
        with self._lock:
            return dict(self._futures)

    @property
    def done(self) -> bool:
        """True once every vertex has finished (or the walk was cancelled and all is accounted for)."""
        return self._ended.is_set()

    def _begin(self):
        self._walker.start()
        self._submit_ready()

    def _submit_ready(self):
        """Submits every vertex ready now; sets _ended when the walk has ended."""
        while True:
            ready = self._walker.next_ready(timeout=0)
            if ready is None:
                return
            if not ready:
                self._ended.set()
                return
            self._submit(ready)

    def _submit(self, vertices):
        submitted, error, rest = [], None, []
        with self._lock:
            for index, vertex in enumerate(vertices):
                if self._cancelled:
                    rest = vertices[index:]  # each fails with its own CancelledError
                    break
                pool = self._pools.get(self._tasks[vertex][3])
                if pool is not None:
                    if not pool.room:
                        pool.waiting.append(vertex)  # submitted as one of its pool's tasks ends
                        continue
                    pool.room -= 1
                try:
                    submitted.append((vertex, self._submit_one(vertex)))
                except Exception as refused:  # e.g. a closed client: the vertex fails with it
                    if pool is not None:
                        pool.room += 1
                    error, rest = refused, vertices[index:]
                    break
        for vertex, future in submitted:
            future.add_done_callback(lambda done, vertex=vertex: self._finished(vertex, done))
        for vertex in rest:
            why = error if error is not None else _cancelled_error(vertex, "was not submitted: the walk was cancelled")
            self._walker.complete(vertex, why)

    def _submit_one(self, vertex):
        key, argument, resources, _ = self._tasks[vertex]
        future = self._client.submit(self._fn, argument, key=key, pure=False, retries=self._retries,
                                     resources=resources)
        self._futures[vertex] = future
        return future

    def _finished(self, vertex, future):
        """The done-callback: completes the vertex from the future's outcome, then submits what is ready."""
        with self._lock:
            self._futures.pop(vertex, None)
        pool = self._pools.get(self._tasks[vertex][3])
        if pool is not None:
            with self._lock:
                pool.room += 1
                waiting = [pool.waiting.popleft()] if pool.waiting else []
            if waiting:
                self._submit(waiting)
        try:
            error = _outcome(vertex, future)
        except Exception as unreadable:  # e.g. the client closed meanwhile: the vertex fails with it
            error = unreadable
        try:
            self._walker.complete(vertex, error)
            self._submit_ready()
        except BaseException as failure:  # noqa: B902 - Dask would only log it; wait() raises it
            self._failure = failure
            self.cancel()

    def cancel(self) -> None:
        """Cancels the walk: nothing more is submitted, and the outstanding futures are cancelled.

        Their vertices end as cancelled once Dask reports them so (a task
        already running on a worker runs to its end there; its result is
        dropped). Safe from any thread, and more than once.
        """
        if self._ended.is_set():
            return
        with self._lock:
            self._cancelled = True
            futures = list(self._futures.values())
            parked = [vertex for pool in self._pools.values() for vertex in pool.waiting]
            for pool in self._pools.values():
                pool.waiting.clear()
        try:
            self._walker.cancel()
            if futures:
                self._client.cancel(futures)
            for vertex in parked:
                self._walker.complete(vertex, _cancelled_error(vertex, "was not submitted: the walk was cancelled"))
            # With nothing outstanding no callback is left to see the end.
            self._submit_ready()
        except StateError:  # ClosedError included
            pass  # it has ended already (and wait() may have closed it)

    def wait(self, timeout: Optional[float] = None) -> Optional[WalkReport]:
        """Waits for the walk to end and returns its :class:`WalkReport`; None if `timeout` seconds pass first.

        The walk is closed once its report is read. Ctrl-C (or any
        exception) while this waits cancels the walk, waits until every
        vertex is accounted for, and re-raises with the report as the
        exception's ``walk_report`` attribute.
        """
        if self._report is not None:
            return self._report
        try:
            if not self._wait_ended(timeout):
                return None
        except BaseException as stop:  # noqa: B902 - Ctrl-C included
            self.cancel()
            self._ended.wait()
            stop.walk_report = self._close()
            raise
        report = self._close()
        if self._failure is not None:
            self._failure.walk_report = report
            raise self._failure
        return report

    def _wait_ended(self, timeout):
        if timeout is not None:
            return self._ended.wait(timeout)
        while not self._ended.wait(_WAIT_SLICE_S):
            pass
        return True

    def _close(self):
        with self._walker as walker:
            self._report = walker.wait()
        return self._report

    def __repr__(self):
        state = "done" if self.done else f"{len(self._futures)} outstanding"
        return f"<libdag.dask.DaskWalk {state}>"


def _cancelled_error(vertex, why):
    from concurrent.futures import CancelledError

    return CancelledError(f"vertex {vertex} {why}")


def _outcome(vertex, future):
    """None when the task finished ok, else the error its vertex fails with."""
    status = future.status
    if status == "finished":
        return None
    if status == "cancelled":
        return _cancelled_error(vertex, "was cancelled on the cluster")
    if status == "error":
        return future.exception()
    return f"the task ended {status} on the cluster"


if __name__ == "__main__":
    import sys

    from libdag.dask_cli import main

    sys.exit(main())
