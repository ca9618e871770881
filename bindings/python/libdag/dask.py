"""Walks whose vertices run as tasks on a Dask cluster (``distributed``), built on the pull mode.

libdag decides what runs when (Terraform's semantics: a failure skips only
its dependents, always-run, fail fast, cancel, the report); Dask's scheduler
places each vertex's task on a worker. Each ready vertex is submitted as one
future; the future's done-callback completes the vertex, and one thread of
the walk's own submits, in one ``client.map``, all that the completions
since its last submit made ready, so no thread waits per vertex.
``distributed`` is imported only when a walk starts: the rest of libdag
works without it.

Run as ``python3 -m libdag.dask`` for the command-line form
(:mod:`libdag.dask_cli`).
"""

from __future__ import annotations

import collections
import contextlib
import itertools
import math
import numbers
import re
import threading
import uuid
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any, Callable, Dict, List, NamedTuple, Optional, Union

from . import _native
from ._labels import vertex_label
from ._latch import Latch
from .dask_results import ResultFetcher
from .errors import InvalidArgumentError, StateError
from .pull import PullWalker
from .schedule import Schedule
from .walk import SubwalkVertex

if TYPE_CHECKING:
    from .graph import Graph
    from .update import WalkUpdate
    from .walk import WalkReport

__all__ = ["DaskWalk", "start", "walk"]

# How long one wait may keep Ctrl-C from being noticed.
_WAIT_SLICE_S = 0.1
# How often the submitter looks whether the client has closed, while nothing else wakes it.
_CLIENT_LOOK_S = 0.5

Payload = Union[None, Mapping, Sequence, Callable[[int], Any]]
Resources = Union[None, Mapping, Callable[[str], Optional[Dict[str, float]]]]
Pools = Union[None, Mapping, Callable[[str], Optional[str]]]
OnResult = Optional[Callable[[str, Any], Any]]
OnError = Optional[Callable[[str, BaseException], Any]]


class _Task(NamedTuple):
    """What a vertex's Dask task is: its key, the vertex's label, `fn`'s argument, resources and pool."""

    key: str
    label: str
    argument: Any
    resources: Optional[Dict[str, float]]
    pool: Optional[str]


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
    return start(graph, fn, client, _who="libdag.dask.walk", **options).wait()


def start(graph: Graph, fn: Callable[[Any], object], client: Any, *, parallelism: int = 10, reverse: bool = False,
          fail_fast: bool = False, always_run=(), retries: int = 0, resources: Resources = None,
          payload: Payload = None, limits: Optional[Mapping] = None, pool: Pools = None, on_result: OnResult = None,
          on_error: OnError = None, timestamps: bool = True, observer=None, priority: str = "none",
          _who: str = "libdag.dask.start") -> "DaskWalk":
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
            again before its vertex fails (an int, 0 or more).
        resources: Dask worker resources per vertex: a mapping from vertex
            name (or id) to a dict such as ``{"GPU": 1}``, or a callable
            given the vertex's label that returns one (or None); each
            quantity a number.
        payload: what `fn` is given: None for the vertex's label (its name,
            or its decimal id); a mapping from name (or id) to argument; a
            sequence indexed by the vertex's user data
            (:meth:`Graph.user_data`); or a callable given the vertex id.
        limits: named limits, a mapping from a pool's name to the most of
            its vertices submitted at once (an int, at least 1), kept by
            this walk on this machine; or to a ``distributed.Semaphore``,
            kept on the cluster, whose leases may be shared with other
            walks and clients: each of the pool's tasks takes a lease on
            its worker before `fn` runs, out of the worker's thread pool
            while it waits (``distributed.secede``), and gives it back
            when `fn` returns (or, if the walk was cancelled meanwhile,
            without calling `fn`).
        pool: which pool a vertex is in: a mapping from vertex name (or id)
            to a name of `limits`, or a callable given the vertex's label
            that returns one (or None for no pool). A vertex whose pool is
            full waits on this machine (or, for a semaphore, on a worker),
            holding its slot of `parallelism`, and is submitted as one of
            its pool's tasks ends.
        on_result: called on this machine as ``on_result(label, value)``
            with what a vertex's task returned, when that is not None,
            before the vertex completes: to use the value here, or to
            expand the vertex. Values are fetched from the workers in
            batches, and on_result is called one value at a time, on a
            thread of the walk's own. It returns None (the
            vertex completes ok), or a sub-graph the vertex expands into,
            as :meth:`Walker.expand` in a local walk: a :class:`Graph`, a
            dict of graphlib's form (``{name: [dependencies]}``), or a
            pair of one of those and a mapping from each sub-vertex's name
            to its argument (else a sub-vertex is given its name). The
            sub-graph's vertices then run `fn` on the cluster like the
            graph's own, with the expanded vertex's resources and pool, and
            may expand in turn; the vertex ends when they all have (failed
            with the first failure among them). An exception raised by
            `on_result` fails the vertex. The report has the graph's own
            vertices. Without on_result, values stay on the workers and
            are dropped.
        priority: which ready vertex is submitted first when more are ready
            than `parallelism` lets go, as :class:`libdag.Schedule`'s:
            "none" (the default, as for every walk), "critical-path" (the
            vertex with the longest chain still to run through it) or
            "name"; ties by name. Vertices an update or an expansion adds
            have no rank and go after the ranked ones.
        on_error: called on this machine as ``on_error(label, exception)``
            with the exception a vertex's task raised (after Dask's
            retries), before the vertex completes failed with it, on
            Dask's callback thread: to show what a failed task sent back
            as it fails rather than after the walk. An exception it raises
            cancels the walk and is raised by wait().

    Raises:
        ImportError: ``distributed`` is not installed.
        ValueError: a vertex's pool is not in `limits`, or a limit is below 1
            (or neither an int nor a ``distributed.Semaphore``).
        KeyError: `payload` has no entry for a vertex, or `resources` or
            `pool` names one the graph does not have.
        TypeError: `retries` is not an int, or a vertex's resources are not
            a mapping of numbers.
        InvalidArgumentError: `retries` is below 0.
        CycleError, UnknownVertexError, InvalidArgumentError, BusyError:
            as :meth:`Graph.pull_walker`.
    """
    import dask.config
    import distributed  # fails here, before the walk starts, when it is missing

    _skip_in_code_capture(dask.config)

    for option, given in (("on_result", on_result), ("on_error", on_error)):
        if given is not None and not callable(given):
            raise TypeError(f"libdag.dask: {option} is None or a callable, not {type(given).__name__}")
    # Dask takes anything here, and its scheduler fails on what is not a
    # count: the tasks then end as if cancelled on the cluster.
    if isinstance(retries, bool) or not isinstance(retries, int):
        raise TypeError(f"libdag.dask: retries is an int, not {type(retries).__name__}")
    if retries < 0:
        raise InvalidArgumentError(_native.E_INVALID_ARGUMENT, f"libdag.dask: retries is {retries}, below 0")
    token = f"{_prefix(fn)}-{uuid.uuid4().hex[:12]}"
    limits = _limits(limits, distributed.Semaphore)
    tasks = _tasks(graph, token, payload, resources, pool, limits)
    # Not graph.pull_walker(): the walk's refusals name the function called.
    walker = PullWalker(graph, parallelism=parallelism, reverse=reverse, fail_fast=fail_fast,
                        always_run=always_run, timestamps=timestamps, observer=observer,
                        schedule=None if priority == "none" else Schedule(priority=priority), _who=_who)
    running = DaskWalk(walker, fn, client, tasks, retries, limits, on_result, on_error, token,
                       lambda vertex: _task_of(walker, vertex, token, payload, resources, pool, limits, added=True))
    try:
        running._begin(_who)
    except BaseException:
        try:
            running.cancel()  # the futures already submitted; closing the walker cancels the rest
        finally:
            running._stop_submitter()
            walker.close()
        raise
    return running


# What distributed's option below should list besides its own defaults.
# With every submit, distributed records the source of the innermost calling
# frame whose module the option does not list (its dashboard shows it), and
# finding that source costs 100-340 us a submit on the project's VM (inspect
# scans sys.modules, then tokenizes the function): more than a tiny task's
# run, paid once per vertex. libdag's own frames say nothing to a user; on
# the walk's submitter thread, which submits most vertices, the frames outside
# them are threading's (the thread pool's on Dask's callback thread, which
# submits what a pool's room lets go), so listing those too ends the
# search without reading any source, and for what the user's thread submits
# the record is the user's code, as the option intends.
_IGNORE_MODULES = "distributed.diagnostics.computations.ignore-modules"
_NOT_THE_CALLERS_CODE = ("libdag", "concurrent", "threading")


def _skip_in_code_capture(config):
    """Adds libdag and the submitting threads' modules to distributed's ignore-modules, keeping what is there."""
    listed = config.get(_IGNORE_MODULES, default=None)
    if not isinstance(listed, list):
        return  # unset or malformed: distributed reports that itself
    missing = [module for module in _NOT_THE_CALLERS_CODE if module not in listed]
    if missing:
        config.set({_IGNORE_MODULES: listed + missing})


def _limits(limits, semaphore):
    limits = dict(limits or {})
    for name, most in limits.items():
        if isinstance(most, semaphore):
            continue
        if not isinstance(most, int) or isinstance(most, bool) or most < 1:
            raise ValueError(f"libdag.dask: limit {name!r} is {most!r}; a limit is an int, at least 1, "
                             f"or a distributed.Semaphore")
    return limits


def _tasks(graph, token, payload, resources, pool, limits):
    """{vertex: _Task} for every vertex, read before the walk makes the graph busy."""
    tasks = {}
    known = set()
    for vertex in graph.vertices():
        tasks[vertex] = _task_of(graph, vertex, token, payload, resources, pool, limits)
        known.update((vertex, graph.name(vertex)))
    for option, mapping in (("resources", resources), ("pool", pool)):
        if isinstance(mapping, Mapping):
            unknown = [key for key in mapping if key not in known]
            if unknown:  # most likely a misspelt name, which would silently lose its setting
                raise KeyError(f"libdag.dask: {option} names no vertex of the graph: {unknown[0]!r}")
    return tasks


def _task_of(source, vertex, token, payload, resources, pool, limits, added=False):
    """The _Task of a vertex of `source`, the graph or (for a vertex an update `added`) the walk."""
    name = source.name(vertex)
    label = str(vertex) if name is None else name
    return _Task(_key(f"{token}-{vertex}", label), label, _argument(source, vertex, name, label, payload, added),
                 _resources(vertex, name, label, resources), _pool(vertex, name, label, pool, limits))


def _key(name, label):
    """A task's Dask key: ``('fn-token-vertex', 'label')`` as the string Dask makes of such a tuple.

    Dask's scheduler groups tasks twice over, by the key's first element
    (a task group) and by that element's leading word (a task prefix). The
    prefix must be the walk's alone: with every task it places the
    scheduler sums an estimate over the prefixes of what runs (a key that
    began with the vertex's label made one a vertex, and at 10,000
    vertices that sum took 9.5 s of the 12.5 s its graph updates cost),
    and it learns a prefix's task duration. The group must be the vertex's
    alone: a group of thousands of tasks without dependencies is held back
    on the scheduler and handed to workers one at a time as others end
    (3,000 vertices took 2.5x as long so). The string, not the tuple:
    ``client.map`` of distributed 2022.12 fails on tuple keys.
    """
    return str((name, label))


def _prefix(fn):
    """What a walk's keys begin with: the name of the function it runs, as in client.submit's own keys."""
    fn = getattr(fn, "func", fn)  # a functools.partial
    name = getattr(fn, "__name__", None) or type(fn).__name__
    return re.sub(r"[^0-9A-Za-z_]", "", name) or "libdag"


def _lookup(mapping, vertex, name):
    if name is not None and name in mapping:
        return True, mapping[name]
    if vertex in mapping:
        return True, mapping[vertex]
    return False, None


def _argument(source, vertex, name, label, payload, added):
    if payload is None:
        return label
    if isinstance(payload, Mapping):
        found, value = _lookup(payload, vertex, name)
        if not found:
            raise KeyError(f"libdag.dask: payload has no entry for vertex {label}")
        return value
    if isinstance(payload, Sequence) and not isinstance(payload, (str, bytes)):
        if added:  # WalkUpdate.add_vertex gives no user data: its 0 would pick another vertex's argument
            raise KeyError(f"libdag.dask: payload is a sequence, indexed by user data, which vertex {label}, added "
                           f"by an update, does not have; give payload as a mapping or a callable")
        index = source.user_data(vertex)
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
        needs = _lookup(resources, vertex, name)[1]
    elif callable(resources):
        needs = resources(label)
    else:
        raise TypeError(f"libdag.dask: resources is None, a mapping or a callable, not {type(resources).__name__}")
    # Checked here, where the vertex is known: Dask's scheduler fails on a
    # quantity that is not a number, and the task ends as if cancelled.
    if needs is not None:
        if not isinstance(needs, Mapping):
            raise TypeError(f"libdag.dask: the resources of {label} are a mapping, not {type(needs).__name__}")
        for resource, amount in needs.items():
            if isinstance(amount, bool) or not isinstance(amount, (int, float)):
                raise TypeError(f"libdag.dask: resource {resource!r} of {label} is a number, "
                                f"not {type(amount).__name__}")
    return needs


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
    calls :func:`start` and then from a thread of the walk's own, which
    ends with the walk; call
    :meth:`wait` for the report (it closes the walk) or :meth:`cancel`.
    """

    def __init__(self, walker, fn, client, tasks, retries, limits, on_result, on_error, token, task_of):
        self._walker = walker
        self._fn = fn
        self._client = client
        self._tasks = tasks
        self._task_of = task_of  # the _Task of a vertex an update added
        # The tasks of expanded sub-graphs' vertices, indexed by the user data
        # each sub-vertex is given before its expansion: a sub-vertex's id
        # alone does not say which expansion it came from.
        self._sub_tasks = []
        self._sub_keys = itertools.count()
        self._token = token
        self._retries = retries
        self._on_result = on_result
        self._on_error = on_error
        self._fetcher = ResultFetcher(client, self._delivered) if on_result is not None else None
        self._lock = threading.Lock()  # guards _futures, _keys, _cancelled and the pools against other threads
        self._futures = {}  # _slot(vertex) -> its outstanding future
        self._keys = {}  # task key -> vertex, for every task submitted
        self._pools = {name: _Pool(most) for name, most in limits.items() if isinstance(most, int)}
        # A pool kept by a semaphore: its tasks run `fn` under a lease, unless the walk was cancelled
        # while they waited for it (Dask lets a cancelled task that has started run on). The event
        # is set while the walk runs, not once it is cancelled: the scheduler keeps an event only
        # while it is set, and one set for the cancel could never be cleared, as a task may still
        # be waiting to read it.
        leases = {name: lease for name, lease in limits.items() if not isinstance(lease, int)}
        self._live = None
        if leases:
            import distributed

            self._live = distributed.Event(f"libdag-dask-live-{token}", client=client)
        self._leased = {name: _leased(lease, fn, self._live) for name, lease in leases.items()}
        self._cancelled = False
        self._uncancelled = []  # futures a cancel() left to cancel once the client is back (see cancel())
        self._ended = Latch()  # not threading.Event: see Latch
        # What completions make ready is taken and submitted by a thread of the walk's own, not by
        # Dask's callback thread after each completion: a submit costs the client and the
        # scheduler about a millisecond whatever its size, and while one is under way the
        # completions that arrive only mark one due, so that the next takes what they all made
        # ready (1,241 submits for 3,000 vertices, most of one task, took as much CPU as the
        # tasks themselves).
        self._due = threading.Condition(threading.Lock())
        self._submit_due = False
        self._closed = False
        self._submitter = threading.Thread(target=self._submitting, name="libdag.dask submitter", daemon=True)
        self._failure = None  # an exception raised inside a done-callback, re-raised by wait()
        self._report = None
        self._closing = threading.Lock()  # one closer; the other waiters get its report

    @property
    def futures(self) -> Dict[Any, Any]:
        """The outstanding futures (a copy): by vertex id, and by (sub-walk, id) for an expanded sub-graph's vertex."""
        with self._lock:
            return dict(self._futures)

    @property
    def keys(self) -> Dict[str, int]:
        """The Dask key of every task submitted so far, mapped to its vertex (a copy).

        A vertex of an expanded sub-graph appears as its
        :class:`SubwalkVertex`. For matching what the cluster says about
        a task (e.g. ``distributed.get_task_stream``) to its vertex.
        """
        with self._lock:
            return dict(self._keys)

    @property
    def done(self) -> bool:
        """True once every vertex has finished (or the walk was cancelled and all is accounted for)."""
        return self._ended.is_set()

    def _label(self, vertex):
        return vertex_label(self._walker, vertex)

    def _task(self, vertex):
        if isinstance(vertex, SubwalkVertex):
            return self._sub_tasks[self._walker.user_data(vertex)]
        task = self._tasks.get(vertex)
        if task is None:
            task = self._tasks[vertex] = self._task_of(vertex)
        return task

    def apply(self, update: WalkUpdate) -> List[int]:
        """Applies a :class:`WalkUpdate` to the running walk, as :meth:`Walker.apply`; returns the added ids.

        A vertex the update adds gets its argument, resources and pool from
        `payload`, `resources` and `pool` as the graph's own did, read when
        it is submitted: one they have no entry for fails with that error
        (so does one, with a sequence `payload`: an added vertex has no user
        data to index it with).
        """
        added = self._walker._apply(update, "DaskWalk.apply")
        # The walk's own thread submits what the update made ready: a Ctrl-C landing on the caller's
        # between taking a vertex and giving it a future would lose the vertex, and the walk with it.
        self._wake()
        return added

    def _begin(self, who):
        self._walker._start(who)
        if self._live is not None:
            self._live.set()  # before any task can read it
        self._submitter.start()
        self._submit_ready()

    def _submit_ready(self):
        """Submits every vertex ready now; sets _ended when the walk has ended."""
        while True:
            ready = self._walker.next_ready(timeout=0)
            if ready is None:
                return
            if not ready:
                # Every task has ended: the event leaves the scheduler now, also for a walk that is
                # never waited on.
                self._clear_live()
                self._ended.set()
                self._wake()  # the submitter ends with the walk
                return
            self._submit(ready)

    def _wake(self):
        with self._due:
            self._submit_due = True
            self._due.notify()

    def _submitting(self):
        """The submitter thread: submits what is ready each time a completion marks it due, until the walk
        ends; in between, it looks at the client: once it has closed, see _abandon; once it is back
        from a reconnection, it cancels what a cancel() meanwhile left (see cancel())."""
        while True:
            with self._due:
                if not self._submit_due:
                    self._due.wait(_CLIENT_LOOK_S)
                due, self._submit_due = self._submit_due, False
            if self._ended.is_set() or self._closed:
                return
            try:
                if due:
                    self._submit_ready()
                elif self._client_closed():
                    self._abandon(self._client_gone())
                elif self._uncancelled and self._client_gone() is None:
                    with self._lock:
                        uncancelled, self._uncancelled = self._uncancelled, []
                    self._client.cancel(uncancelled)
            except BaseException as failure:  # noqa: B902 - wait() raises it
                self._fail(failure)

    def _clear_live(self):
        """Clears the leases' event, if any, where the scheduler can hear it: a client that lost its
        scheduler would wait for it to come back (30 s and more), and the walk ends all the same."""
        if self._live is not None and self._client_gone() is None:
            with contextlib.suppress(Exception):
                self._live.clear()

    def _client_closed(self):
        """Whether the client has closed (or is closing): what it was given will never report, and what
        is submitted to it now is dropped without a word. One reconnecting keeps what is submitted and
        sends it once it is back, and its futures still report."""
        return getattr(self._client, "status", "running") in ("closing", "closed")

    def _client_gone(self):
        """None while the client runs; else what became of it, for the vertices it fails."""
        status = getattr(self._client, "status", "running")
        if status == "running":
            return None
        if status == "connecting":
            return "the Dask client lost its scheduler (it is reconnecting)"
        return f"the Dask client is {status} (closed by its owner, or after losing its scheduler)"

    def _abandon(self, why):
        """The client has closed: the outstanding futures will never report (their callbacks do not run,
        and a closing client drops what is submitted to it without a word), so each of their vertices
        ends here, as does each waiting in a pool: cancelled if the walk was, else
        failed, with `why`. What that makes ready then fails in _submit_group."""
        with self._lock:
            vertices = [self._keys[future.key] for future in self._futures.values()]
            self._futures.clear()  # their callbacks, should they run, find them taken (_finished)
            self._uncancelled = []
            vertices += [vertex for pool in self._pools.values() for vertex in pool.waiting]
            for pool in self._pools.values():
                pool.waiting.clear()
        for vertex in vertices:
            try:
                self._complete(vertex, _cancelled_error(self._label(vertex), f"never reported: {why}"))
            except StateError:
                pass  # it has ended already
        self._wake()

    def _submit(self, vertices):
        placed, submitted, unready, cancelled, refused, error = [], [], [], [], [], None
        first = given = 0  # of placed, the first not submitted; of submitted, how many have their callback
        try:
            with self._lock:
                for index, vertex in enumerate(vertices):
                    if self._cancelled:
                        cancelled = vertices[index:]  # each fails with its own CancelledError
                        break
                    try:
                        task = self._task(vertex)
                    except Exception as bad:  # an added vertex that payload, resources or pool cannot place
                        unready.append((vertex, bad))
                        continue
                    pool = self._pools.get(task.pool)
                    if pool is not None:
                        if not pool.room:
                            pool.waiting.append(vertex)  # submitted as one of its pool's tasks ends
                            continue
                        pool.room -= 1
                    placed.append((vertex, task, pool))
                while first < len(placed):
                    fn, resources = self._fn_of(placed[first][1]), placed[first][1].resources
                    end = first + 1
                    while (end < len(placed) and self._fn_of(placed[end][1]) is fn
                           and placed[end][1].resources == resources):
                        end += 1
                    try:
                        submitted.extend(self._submit_group(placed[first:end], fn, resources))
                    except Exception as failed:  # e.g. a closed client: these vertices and the rest fail with it
                        for _, _, pool in placed[first:]:
                            if pool is not None:
                                pool.room += 1
                        error, refused = failed, [vertex for vertex, _, _ in placed[first:]]
                        break
                    first = end
            for vertex, future in submitted:
                future.add_done_callback(lambda done, vertex=vertex: self._finished(vertex, done))
                given += 1
            for vertex, bad in unready:
                self._walker.complete(vertex, bad)
            for vertex in refused:
                self._complete(vertex, error)
            for vertex in cancelled:
                self._complete(vertex, _cancelled_error(self._label(vertex), "was not submitted: the walk was cancelled"))
        except BaseException as stop:  # noqa: B902 - Ctrl-C included, raised again once no vertex is lost
            self._settle(vertices, submitted, given, [] if refused else placed[first:], stop)
            raise

    def _settle(self, vertices, submitted, given, unsubmitted, stop):
        """After `stop` cut _submit short: each of `vertices` gets its future's callback, waits in its
        pool, or ends here (failed, or cancelled if the walk was), so that the walk can still end.

        `submitted` are the (vertex, future) submitted, the first `given`
        with their callback; `unsubmitted` the (vertex, task, pool) placed
        after them, each holding its pool's room unless it has a future.
        """
        uncalled = submitted[given:]
        with self._lock:
            kept = {_slot(vertex) for pool in self._pools.values() for vertex in pool.waiting}
            kept.update(_slot(vertex) for vertex, _ in submitted)
            for vertex, _, pool in unsubmitted:
                slot = _slot(vertex)
                if slot in kept:
                    continue
                future = self._futures.get(slot)  # _submit_group made it before the stop
                if future is not None:
                    uncalled.append((vertex, future))
                    kept.add(slot)
                elif pool is not None:
                    pool.room += 1
        for vertex, future in uncalled:
            future.add_done_callback(lambda done, vertex=vertex: self._finished(vertex, done))
        why = f"was not submitted: {type(stop).__name__} interrupted its submission"
        for vertex in vertices:
            if _slot(vertex) not in kept:
                try:
                    self._complete(vertex, _cancelled_error(self._label(vertex), why))
                except StateError:
                    pass  # _submit had completed it (as unready, refused or cancelled)

    def _fn_of(self, task):
        return self._leased.get(task.pool, self._fn)

    def _submit_group(self, group, fn, resources):
        """Submits the tasks of `group` ((vertex, task, pool), same fn and resources) in one call: one
        graph update for the scheduler instead of one a vertex (a graph's first wave is most of it)."""
        if self._client_closed():
            # It would take the tasks and drop them, and the walk wait for ever for what they never report.
            raise RuntimeError(f"cannot submit: {self._client_gone()}")
        if len(group) == 1:
            task = group[0][1]
            futures = [self._client.submit(fn, *_as_they_are([task.argument]), key=task.key, pure=False,
                                           retries=self._retries, resources=resources)]
        else:
            futures = self._client.map(fn, _as_they_are([task.argument for _, task, _ in group]),
                                       key=[task.key for _, task, _ in group], pure=False, retries=self._retries,
                                       resources=resources)
        for (vertex, task, _), future in zip(group, futures):
            self._futures[_slot(vertex)] = future
            self._keys[task.key] = vertex
        return [(vertex, future) for (vertex, _, _), future in zip(group, futures)]

    def _finished(self, vertex, future):
        """The done-callback: completes (or expands) the vertex from the future's outcome; submits what is ready."""
        with self._lock:
            if future.status == "lost" and self._wants_value(future) and not self._cancelled:
                # Its worker died with the result before this ran; Dask computes a result again for as
                # long as a future holds it, and on_result needs it: wait for that run.
                future.add_done_callback(lambda done: self._finished(vertex, done))
                return
            if self._futures.pop(_slot(vertex), None) is None:
                return  # its client had closed, and _abandon ended the vertex
        task = self._task(vertex)
        pool = self._pools.get(task.pool)
        if pool is not None:
            with self._lock:
                pool.room += 1
                waiting = [pool.waiting.popleft()] if pool.waiting else []
            if waiting:
                try:
                    self._submit(waiting)
                except BaseException as failure:  # noqa: B902 - Dask would log it, and this vertex not end
                    self._fail(failure)
        raised = False
        try:
            error = _outcome(lambda: self._label(vertex), future)
            raised = future.status == "error"
            gone = self._client_gone() if future.status == "cancelled" and not self._cancelled else None
            if gone is not None:
                error = _cancelled_error(self._label(vertex), f"was cancelled on the cluster: {gone}")
            if error is None and self._wants_value(future):
                # Dask sends a result's type with its completion, not the result: fetch it first.
                self._fetcher.add((vertex, task), future)
                return
        except Exception as unreadable:  # e.g. the client closed meanwhile: the vertex fails with it
            error = unreadable
        if raised and self._on_error is not None:
            self._tell(task.label, error)
        self._end(vertex, task, error)

    def _wants_value(self, future):
        # No type is not NoneType: it is what the client has when it cannot unpickle the value's type,
        # and then fetching fails the vertex with the reason.
        return self._fetcher is not None and future.type is not type(None)

    def _tell(self, label, error):
        """on_error, whose own exception, like any other raised on Dask's callback thread, wait() raises."""
        try:
            self._on_error(label, error)
        except BaseException as failure:  # noqa: B902 - Dask would only log it
            self._fail(failure)

    def _delivered(self, item, value, error):
        """A fetched value (on the fetcher's thread): on_result decides whether the vertex expands."""
        vertex, task = item
        expanded = False
        # A completion that came without the value's type (Dask leaves it out of some messages) may
        # have fetched a None, which on_result is not given.
        if error is None and value is not None:
            try:
                sub = self._on_result(task.label, value)
                if sub is not None:
                    self._expand(vertex, task, sub)
                    expanded = True
            except BaseException as failed:  # noqa: B902 - on_result raised, or the expansion was refused
                error = failed
        self._end(vertex, task, error, expanded)

    def _end(self, vertex, task, error, expanded=False):
        """Completes the vertex (unless it was expanded); the submitter submits what that made ready."""
        try:
            if not expanded:
                self._complete(vertex, error)
        except BaseException as failure:  # noqa: B902 - Dask would only log it; wait() raises it
            self._fail(failure)
        finally:
            self._wake()

    def _fail(self, failure):
        """Keeps `failure` for wait() to raise and cancels the walk; raises nothing, on whichever thread."""
        self._failure = failure
        try:
            self.cancel()
        except BaseException:  # noqa: B902 - the failure that led here is the one wait() raises
            pass

    def _complete(self, vertex, error):
        """Completes a vertex; work the walk's cancel stopped (a cancelled future, a task that says
        it was stopped) ends it cancelled, as in a walk on one machine."""
        stopped = self._cancelled and (_is_cancel(error) or getattr(error, "cancelled", False) is True)
        self._walker.complete(vertex, error, cancelled=stopped)

    def _expand(self, vertex, task, sub):
        """Expands `vertex` into `sub`, what on_result returned; raises (and changes nothing) when it cannot."""
        from .graph import Graph

        arguments = None
        if isinstance(sub, tuple) and len(sub) == 2:
            sub, arguments = sub
            if not isinstance(arguments, Mapping):
                raise TypeError(f"on_result: a sub-graph's arguments are a mapping, not {type(arguments).__name__}")
        if isinstance(sub, Graph):
            copy = sub.clone()
        elif isinstance(sub, Mapping):
            copy = Graph.from_dict(sub)
        else:
            raise TypeError(f"on_result returns None, a Graph, a dict of dependencies or (sub-graph, arguments), "
                            f"not {type(sub).__name__}")
        with copy:
            with self._lock:
                first = len(self._sub_tasks)
                for sub_vertex in copy.vertices():
                    label = copy.label(sub_vertex)
                    if arguments is not None and label not in arguments:
                        del self._sub_tasks[first:]
                        raise KeyError(f"on_result: the arguments of {task.label}'s sub-graph have none for {label}")
                    argument = label if arguments is None else arguments[label]
                    key = _key(f"{self._token}-x{next(self._sub_keys)}", label)
                    copy.set_user_data(sub_vertex, len(self._sub_tasks))
                    self._sub_tasks.append(_Task(key, label, argument, task.resources, task.pool))
            self._walker.expand(vertex, copy)

    def cancel(self, *, futures: bool = True) -> None:
        """Cancels the walk: nothing more is submitted, and the outstanding futures are cancelled.

        Their vertices end cancelled once Dask reports them cancelled ("was
        cancelled on the cluster"; a task already running on a worker runs
        to its end there, its result dropped), as does a vertex handed out
        that waited here for room in its pool ("was not submitted"), and a
        task that raises an exception whose ``cancelled`` attribute is True
        (``python3 -m libdag.dask``'s commands stopped by the cancel);
        what waits for them ends cancelled too. With `futures` False the
        outstanding tasks are left to run, and their vertices end as they
        do: for tasks that stop themselves when told (as ``python3 -m
        libdag.dask``'s do, on a ``distributed.Event``), so that the walk
        ends once they have. Once the client has closed no outstanding
        task can report: their vertices end cancelled here ("never
        reported"), whatever `futures` says; while it reconnects to a
        lost scheduler they are cancelled once it is back (or end so,
        should it close instead).
        Safe from any thread, and more than once.
        """
        if self._ended.is_set():
            return
        try:
            # libdag's walk first: _submit completes what it holds as cancelled once it sees
            # _cancelled, which libdag refuses (and the vertex was lost) before its walk is cancelled.
            self._walker.cancel()
        except StateError:  # ClosedError included
            return  # it has ended already (and wait() may have closed it)
        with self._lock:
            self._cancelled = True
            outstanding = list(self._futures.values()) if futures else []
            parked = [vertex for pool in self._pools.values() for vertex in pool.waiting]
            for pool in self._pools.values():
                pool.waiting.clear()
        try:
            self._clear_live()
            if outstanding and not self._client_closed():
                if self._client_gone() is not None:
                    # Reconnecting: a cancel would wait for the scheduler (30 s and more). The submitter
                    # cancels them once the client is back, or ends them once it has closed.
                    with self._lock:
                        self._uncancelled += outstanding
                else:
                    try:
                        self._client.cancel(outstanding)
                    except Exception:  # noqa: B902 - the client went meanwhile: its futures will not report
                        if not self._client_closed():
                            raise
            if self._client_closed():
                # Whether or not `futures`: no outstanding task can report through it now.
                self._abandon(self._client_gone())
            for vertex in parked:
                self._complete(vertex, _cancelled_error(self._label(vertex), "was not submitted: the walk was cancelled"))
            # With nothing outstanding no callback is left to see the end. The walk's own thread
            # looks, as it submits: see apply().
            self._wake()
        except StateError:  # ClosedError included
            pass  # it has ended already (and wait() may have closed it)

    def wait(self, timeout: Optional[float] = None) -> Optional[WalkReport]:
        """Waits for the walk to end and returns its :class:`WalkReport`; None if `timeout` seconds pass first.

        The walk is closed once its report is read. Ctrl-C (or any
        exception) while this waits cancels the walk, waits until every
        vertex is accounted for, and re-raises with the report as the
        exception's ``walk_report`` attribute.
        """
        if timeout is not None:
            if isinstance(timeout, bool) or not isinstance(timeout, numbers.Real):
                raise TypeError(f"DaskWalk.wait: timeout is a number of seconds or None, not {type(timeout).__name__}")
            if math.isnan(timeout):
                raise ValueError("DaskWalk.wait: timeout is NaN")
        if self._report is not None:
            return self._report
        try:
            if not self._wait_ended(timeout):
                return None
        except BaseException as stop:  # noqa: B902 - Ctrl-C included
            try:
                self.cancel()
            except BaseException:  # noqa: B902 - e.g. the client closed: the walk cannot end, but no thread is left
                self._stop_submitter()
                raise
            self._ended.wait()
            stop.walk_report = self._close()
            raise
        report = self._close()
        if self._failure is not None:
            self._failure.walk_report = report
            raise self._failure
        return report

    def _wait_ended(self, timeout):
        # Beyond what a lock can wait (inf, 1e10) is no limit; it raised OverflowError, which cancelled the walk.
        if timeout is not None and timeout <= threading.TIMEOUT_MAX:
            return self._ended.wait(timeout)
        while not self._ended.wait(_WAIT_SLICE_S):
            pass
        return True

    def _stop_submitter(self):
        self._closed = True
        self._wake()
        if self._submitter.ident is not None and self._submitter is not threading.current_thread():
            self._submitter.join()

    def _close(self):
        with self._closing:
            if self._report is not None:
                return self._report  # another thread's wait() closed it
            self._stop_submitter()
            if self._fetcher is not None:
                self._fetcher.close()
            with self._walker as walker:
                self._report = walker.wait()
            # Every task has ended, or was cancelled on the cluster and will not run fn once it has a
            # lease: cleared, the event leaves the scheduler (a cancel has cleared it already).
            self._clear_live()
            return self._report

    def __repr__(self):
        state = "done" if self.done else f"{len(self._futures)} outstanding"
        return f"<libdag.dask.DaskWalk {state}>"


def _leased(semaphore, fn, live):
    """`fn` under a lease of `semaphore`, on the worker, unless the `live` event is no longer set by then.

    A closure, so that cloudpickle sends it by value: the workers need no
    more than `fn` needs.
    """
    def run(argument):
        from concurrent.futures import CancelledError

        from distributed import rejoin, secede

        secede()  # the thread runs other tasks while this one waits for a lease
        try:
            semaphore.acquire()
        finally:
            rejoin()
        try:
            if not live.is_set():
                raise CancelledError("the walk was cancelled while this task waited for a lease")
            return fn(argument)
        finally:
            semaphore.release()

    return run


def _as_they_are(arguments):
    """`arguments` (a list) as they are to reach fn through Dask, which runs what reads as a task in one.

    Dask runs a tuple whose first item is callable as a task, also one in
    a list, and would give fn what that returned: such an argument goes
    as a literal, as ``dask.core.quote`` makes one. Any other goes as it is,
    not as quote would send a list or dict, inside which Dask would then
    no longer resolve futures, as it does for an argument's.
    """
    from dask.core import istask, literal

    def runs(item):  # as the workers read an argument
        return istask(item) or (isinstance(item, list) and any(map(runs, item)))

    return [(literal(argument),) if runs(argument) else argument for argument in arguments]


def _slot(vertex):
    """A vertex's key among the outstanding futures: a sub-vertex's id alone may equal a vertex's of the graph."""
    return (vertex.walk, int(vertex)) if isinstance(vertex, SubwalkVertex) else vertex


def _cancelled_error(label, why):
    from concurrent.futures import CancelledError

    return CancelledError(f"vertex {label} {why}")


def _is_cancel(error):
    from concurrent.futures import CancelledError

    return isinstance(error, CancelledError)


def _outcome(label, future):
    """None when the task finished ok, else the error its vertex, named by calling `label`, fails with."""
    status = future.status
    if status in ("finished", "lost"):  # lost: it finished, and its worker then died with the result
        return None
    if status == "cancelled":
        return _cancelled_error(label(), "was cancelled on the cluster")
    if status == "error":
        return _readable(future.exception())
    return f"the task ended {status} on the cluster"


def _readable(error):
    """The exception a task raised; for one the client could not unpickle, an exception that says why.

    Dask hands such an exception over as ``Exception(its pickle)``: its
    class is not importable here (or not the workers' own), and a message of
    a kilobyte and more of pickle bytes says nothing.
    """
    pickled = error.args[0] if type(error) is Exception and len(error.args) == 1 else None
    if not isinstance(pickled, (bytes, bytearray)):
        return error
    from distributed.protocol import pickle

    try:
        pickle.loads(pickled)
    except Exception as why:  # noqa: B902 - whatever stopped Dask stops this
        readable = Exception(f"the task raised an exception this machine cannot unpickle, its class most "
                             f"likely not importable here ({type(why).__name__}: {why})")
        readable.__cause__ = why
        return readable
    return error


if __name__ == "__main__":
    import sys

    from libdag.dask_cli import main

    sys.exit(main())
