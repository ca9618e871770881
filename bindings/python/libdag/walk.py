"""Walks: a Python callback per vertex, run on libdag's thread pool.

A callback runs as soon as every dependency of its vertex has finished
(every dependent, for a reverse walk), independent vertices in parallel on
the walk's own threads. ctypes takes the GIL for each call, so pure Python
work does not run in parallel, but callbacks that wait (I/O, subprocesses,
``time.sleep``, C extensions that release the GIL) do.

What the callback does decides the vertex's outcome:

- returning normally: the vertex succeeded (the return value is ignored,
  except :data:`PENDING`);
- raising any exception: the vertex failed, with ``str(exc)`` as its message
  (the exception's class name when that is empty); the exception object is
  kept in the report (:attr:`VertexResult.exception`);
- returning :data:`PENDING` (only in a :class:`Walker` walk): the vertex
  keeps its parallelism slot until :meth:`Walker.complete` finishes it,
  from any thread.
"""

from __future__ import annotations

import _thread
import atexit
import ctypes
import enum
import functools
import re
import threading
import time
import weakref
from ctypes import byref
from typing import TYPE_CHECKING, List, Optional, Tuple, TypeVar, Union

from . import _native
from .schedule import apply_schedule
from .errors import (
    ClosedError,
    InvalidArgumentError,
    StateError,
    UnknownVertexError,
    call,
    error_for,
    in_python_terms,
    status_name,
    take_error,
)
from ._closeable import Closeable
from ._handle import WalkerHandle
from ._outcomes import Outcomes
from ._owned import decode_name, encode_name, ids_result, vertex_id
from ._native import lib
from .types import Vertex

if TYPE_CHECKING:
    from .graph import Graph
    from .update import WalkUpdate

__all__ = ["PENDING", "SubwalkVertex", "VertexStatus", "WalkEvent", "VertexResult", "WalkReport", "Walker"]


def expansion_key(vertex):
    """What identifies a vertex among those a walk expanded: its id and its sub-walk (0: the walk's own)."""
    return int(vertex), getattr(vertex, "walk", 0)


class SubwalkVertex(int):
    """The id of a vertex of an expanded sub-graph (see :meth:`Walker.expand`), as walks hand it out.

    An int, the vertex's id in the sub-graph, that also knows its sub-walk:
    :meth:`Walker.complete`, :meth:`Walker.expand` and :meth:`Walker.name`
    take it as they take the walk's own ids. Its ``walk`` attribute is the
    sub-walk's handle, an address valid until the walker is closed. A walker
    takes only the ones its own walk handed out: another walk's, one made by
    hand or one unpickled raise :class:`UnknownVertexError` (a process pool's
    worker gets the id).
    """

    def __new__(cls, vertex, walk, owner=None):
        self = super().__new__(cls, vertex)
        self.walk = walk
        # The walk that handed it out (its callbacks' object, one per walk):
        # an identity, where the address could be a later walk's.
        self._owner = owner
        return self

    def __repr__(self):
        return f"SubwalkVertex({int(self)}, walk={self.walk:#x})"

    def __reduce__(self):
        # Without its walk: a process pool's worker gets the id, and a walker
        # refuses what comes back.
        return (SubwalkVertex, (int(self), self.walk))

    def __copy__(self):
        return self

    def __deepcopy__(self, memo):
        return self


# dag_walk_expand's NULL callback: the sub-walk runs the walk's own.
_NO_CALLBACK = _native.WALK_FN()

# dag_walk_complete without `argtypes`: its arguments go in C form, a
# completion being what a host calls once per vertex (ctypes' conversion
# through `argtypes` is about half of a call's cost).
_COMPLETE = ctypes.CFUNCTYPE(ctypes.c_int)(("dag_walk_complete", lib))


def not_of_this_graph(vertex, who):
    """The error for a :class:`SubwalkVertex` given where a vertex of the walked graph itself goes."""
    # Its number is a vertex of the sub-graph's copy: there it would name
    # whichever vertex of the walked graph has the same id.
    return UnknownVertexError(_native.E_UNKNOWN_VERTEX,
                              f"{who}: {vertex!r} is a vertex of an expanded sub-graph, not of this graph; "
                              "Walker.name and Walker.user_data take it")


def _id_in(graph, vertex, who):
    """The id of `vertex` in a walk's `graph` (dag_walk_graph), a name looked up there.

    Not through the Graph walked: once waited for, a walk outlives it (see
    Graph.close).
    """
    if isinstance(vertex, (str, bytes, bytearray)):
        out = ctypes.c_uint64()
        call(lib.dag_find_vertex, graph, encode_name(vertex, who, allow_none=False), byref(out), who=who)
        return out.value
    return vertex_id(vertex, who)


def _walk_of(vertex, ptr, callbacks, who):
    """The walk handle to pass to C for `vertex`: its sub-walk's, or the walk's own `ptr`.

    A :class:`SubwalkVertex` must come from this walk (`callbacks` its
    callbacks' object): another's address may be freed, or a later walk's.
    """
    if not isinstance(vertex, SubwalkVertex):
        return ptr
    if vertex._owner is not callbacks:
        raise UnknownVertexError(_native.E_UNKNOWN_VERTEX, f"{who}: {vertex!r} is not a vertex this walk handed out")
    return vertex.walk


class _Pending:
    """The type of :data:`PENDING`."""

    _instance = None

    def __new__(cls):
        if cls._instance is None:
            cls._instance = super().__new__(cls)
        return cls._instance

    def __repr__(self):
        return "libdag.PENDING"

    def __reduce__(self):
        return (_Pending, ())


#: Returned by a :class:`Walker` callback: the vertex's work goes on
#: elsewhere; finish it with :meth:`Walker.complete`.
PENDING = _Pending()


class VertexStatus(enum.IntEnum):
    """How a vertex ended in a walk (``dag_vertex_status``)."""

    #: Never started: fail fast stopped the walk first.
    NOT_RUN = 0
    OK = 1
    #: Its callback (or Walker.complete) failed.
    FAILED = 2
    #: Skipped because a dependency did not finish ok; not an error of its own.
    UPSTREAM_FAILED = 3
    #: Never started, or was pending, when the walk was cancelled.
    CANCELLED = 4

    @property
    def label(self):
        """The library's name for the status ("upstream-failed")."""
        return lib.dag_vertex_status_string(self.value).decode()


class WalkEvent(enum.IntEnum):
    """What an observer is told about (``dag_walk_event``)."""

    #: A vertex's callback is about to run.
    STARTED = 0
    #: A vertex that started has finished; the status says how.
    FINISHED = 1
    #: A vertex finished without running (upstream failed, cancelled, not run).
    SKIPPED = 2


class VertexResult:
    """One vertex's outcome in a :class:`WalkReport`.

    Attributes:
        id: the vertex id.
        status: a :class:`VertexStatus`.
        message: the failure message, or the walk's note for a vertex that
            did not finish by itself ("cancelled while pending"); "" if none.
        start_ns, end_ns: when its callback started and finished, in
            nanoseconds since the walk started; 0 when it never ran or
            timestamps were off.
        ran: True when its callback was called (in a pull walk: it was
            handed out, and its work started; False for a vertex whose
            executor call or asyncio task was cancelled before it started).
        exception: the exception its callback raised (or a pull walk's
            completion failed it with), or None; with retries, the last
            attempt's only (None when that attempt succeeded or failed
            with a message).
        attempts: how many times its callback was called: more than 1 when
            failed attempts were tried again (:class:`Schedule` retries).
        attempt_messages: each attempt's message, oldest first ("" for
            none); the last is `message` when the vertex ran.
    """

    __slots__ = ("id", "status", "message", "start_ns", "end_ns", "ran", "exception", "attempts",
                 "attempt_messages")

    def __init__(self, id, status, message, start_ns, end_ns, ran, exception,  # noqa: A002 - the C name
                 attempt_messages=None):
        self.id = id
        self.status = status
        self.message = message
        self.start_ns = start_ns
        self.end_ns = end_ns
        self.ran = ran
        self.exception = exception
        if attempt_messages is None:
            attempt_messages = (message,) if ran else ()
        self.attempt_messages = attempt_messages
        self.attempts = len(attempt_messages)

    @property
    def ok(self):
        """True when the vertex finished ok."""
        return self.status == VertexStatus.OK

    @property
    def duration_ns(self):
        """end_ns - start_ns (0 when it never ran or timestamps were off)."""
        return self.end_ns - self.start_ns

    def __repr__(self):
        extra = f", message={self.message!r}" if self.message else ""
        return f"<VertexResult {self.id} {self.status.name}{extra}>"


class WalkReport:
    """The outcome of a walk, vertex by vertex.

    Attributes:
        status: ``0`` when every vertex finished ok, ``DAG_E_WALK_FAILED``
            when at least one failed, ``DAG_E_CANCELLED`` when the walk was
            cancelled.
        status_name: the library's name for `status`.
        message: the walk's error message ("vertex a failed: boom"), "" when
            it succeeded.
        vertices: read-only mapping of vertex id to :class:`VertexResult`,
            ascending ids (each result is built when first read).
        first_error: the id of the first vertex that failed, or None.
        first_error_message: "vertex NAME failed: MESSAGE", "" if none failed.
        cancelled: True when the walk was cancelled.
    """

    __slots__ = ("status", "status_name", "message", "vertices", "first_error", "first_error_message",
                 "cancelled", "_counts")

    def __init__(self, status, message, vertices, first_error, first_error_message, cancelled, counts):
        self.status = status
        self.status_name = status_name(status)
        self.message = message
        self.vertices = vertices
        self.first_error = first_error
        self.first_error_message = first_error_message
        self.cancelled = cancelled
        self._counts = counts

    @property
    def ok(self):
        """True when every vertex finished ok."""
        return self.status == _native.OK

    def __bool__(self):
        return self.ok

    def __len__(self):
        return len(self.vertices)

    def __iter__(self):
        return iter(self.vertices.values())

    def __getitem__(self, vertex):
        """The :class:`VertexResult` of a vertex id (KeyError when it is not in the walk)."""
        return self.vertices[vertex]

    def __contains__(self, vertex):
        return vertex in self.vertices

    def count(self, status):
        """How many vertices ended with `status` (a :class:`VertexStatus`)."""
        return self._counts[VertexStatus(status)]

    @property
    def counts(self):
        """Dict of :class:`VertexStatus` to the number of vertices that ended so."""
        return dict(self._counts)

    def ids(self, status):
        """The ids of the vertices that ended with `status`, ascending."""
        status = VertexStatus(status)
        return [vertex for vertex, state in self.vertices.statuses() if state == status]

    def raise_for_status(self) -> None:
        """Raises WalkFailedError or CancelledError when the walk did not succeed.

        When exactly the first failure came from a Python exception, that
        exception is chained as the cause.
        """
        if self.ok:
            return
        error = error_for(self.status, self.message)
        cause = None
        if self.first_error is not None and self.first_error in self.vertices:
            cause = self.vertices[self.first_error].exception
        raise error from cause

    def __repr__(self):
        counts = ", ".join(f"{s.name.lower()}={n}" for s, n in self._counts.items() if n)
        return f"<WalkReport {self.status_name}: {counts or 'empty'}>"


def _message_text(data):
    return data.decode("utf-8", "replace") if data else ""


_STATUS_OF = tuple(VertexStatus)


def _result(vertex, status, message, start_ns, end_ns, ran, exception):
    return VertexResult(vertex, _STATUS_OF[status], message, start_ns, end_ns, ran, exception)


def _attempt_messages(report, vertices, who):
    """Vertex id to its attempts' messages, for the vertices tried more than once (the report is freed after)."""
    retried = {}
    attempts = ctypes.c_size_t()
    text = ctypes.c_char_p()
    for vertex, result in vertices.items():
        if not result.ran:
            continue
        call(lib.dag_walk_report_attempts, report, vertex, byref(attempts), who=who)
        if attempts.value > 1:
            messages = []
            for attempt in range(attempts.value):
                call(lib.dag_walk_report_attempt_message, report, vertex, attempt, byref(text), who=who)
                messages.append(_message_text(text.value))
            retried[vertex] = tuple(messages)
    return retried


def _read_report(report, status, message, exceptions, who, retries=False, never_started=frozenset()):
    """Copies a dag_walk_report into a WalkReport (the caller frees it); `who` heads the refusals.

    With `retries` (the walk could try a vertex again), each attempt's
    message is copied too: a call per vertex that ran, so only then.
    `never_started`: vertices a pull walk's host handed out but never ran
    (an executor's call cancelled in its queue), whose ``ran`` is False.
    """
    # Every outcome in one call (dag_walk_report_read).
    size = lib.dag_walk_report_size(report)
    outcomes = (_native.VertexOutcome * size)()
    written = ctypes.c_size_t()
    call(lib.dag_walk_report_read, report, 0, outcomes, size, ctypes.sizeof(_native.VertexOutcome), byref(written),
         who=who)
    vertices = Outcomes(outcomes, written.value, exceptions, _result)
    if retries:
        retried = _attempt_messages(report, vertices, who)

        def make(vertex, status, message, start_ns, end_ns, ran, exception):
            return VertexResult(vertex, _STATUS_OF[status], message, start_ns, end_ns, ran, exception,
                                retried.get(vertex))

        vertices = Outcomes(outcomes, written.value, exceptions, make)
    if never_started:
        made = vertices._make

        def unstarted(vertex, status, message, start_ns, end_ns, ran, exception):
            return made(vertex, status, message, start_ns, end_ns, ran and vertex not in never_started, exception)

        vertices = Outcomes(outcomes, written.value, exceptions, unstarted)
        message = _recount_cancelled(message, sum(1 for v in never_started if v in vertices
                                                  and vertices[v].status is VertexStatus.CANCELLED))
    first_message = ctypes.c_char_p()
    first = lib.dag_walk_report_first_error(report, byref(first_message))
    counts = {s: lib.dag_walk_report_count(report, s) for s in VertexStatus}
    return WalkReport(
        status=status,
        message=message,
        vertices=vertices,
        first_error=first or None,
        first_error_message=_message_text(first_message.value),
        cancelled=bool(lib.dag_walk_report_cancelled(report)),
        counts=counts,
    )


# libdag's message for a cancelled walk (capi/walk_api.cpp, cancelled_message).
_CANCELLED_MESSAGE = re.compile(r"the walk was cancelled; (\d+) vert(?:ex|ices) never ran"
                                r"(?: and (\d+) (?:was|were) cancelled after (?:its callback|their callbacks) ran)?")


def _recount_cancelled(message, moved):
    """The cancelled walk's message with `moved` vertices, counted by libdag as run, counted as never run.

    A pull walk's vertex counts as run once handed out; the host knows
    better when the call it queued for it was cancelled before it started.
    """
    found = _CANCELLED_MESSAGE.fullmatch(message)
    if not found or not moved:
        return message
    never_ran = int(found.group(1)) + moved
    ran = int(found.group(2) or 0) - moved
    text = f"the walk was cancelled; {never_ran} {'vertex' if never_ran == 1 else 'vertices'} never ran"
    if ran > 0:
        text += f" and {ran} {'was cancelled after its callback ran' if ran == 1 else 'were cancelled after their callbacks ran'}"
    return text


# Statuses with which a finished walk writes its report.
_FINISHED = (_native.OK, _native.E_WALK_FAILED, _native.E_CANCELLED)
# How long one wait for a walk may keep Ctrl-C from being noticed.
_WAIT_SLICE_MS = 100


def _encode_message(text):
    # C reads the message up to its first NUL; show one as "\0" rather than
    # cutting the message there.
    return text.encode("utf-8", "backslashreplace").replace(b"\0", b"\\0")


def _describe(exc):
    try:
        text = str(exc)
    except BaseException:  # noqa: B902 - a broken __str__ must not escape into C
        text = ""
    return text or type(exc).__name__


# ctypes gives every call into Python from a thread that Python did not
# start a fresh thread state, dropped when the call returns: threading.local
# would reset on each callback, and making the state costs microseconds. One
# PyGILState_Ensure more on each pool thread as it starts (released as it
# ends) keeps one state for the thread's life. Not on interpreters without
# the C API (PyPy).
_GIL_STATE = getattr(ctypes, "pythonapi", None)
if _GIL_STATE is not None:
    _GIL_STATE.PyGILState_Ensure.restype = ctypes.c_int
    _GIL_STATE.PyGILState_Ensure.argtypes = []
    _GIL_STATE.PyGILState_Release.restype = None
    _GIL_STATE.PyGILState_Release.argtypes = [ctypes.c_int]
_POOL_THREAD = threading.local()


def _keep_thread_state(_data):
    _POOL_THREAD.gil_state = _GIL_STATE.PyGILState_Ensure()


def _drop_thread_state(_data):
    _GIL_STATE.PyGILState_Release(_POOL_THREAD.gil_state)


# Callbacks that follow each other on a pool thread starve every other
# Python thread of the GIL: each callback's end releases it and wakes the
# waiter, which restarts its 5 ms wait before it may ask for the GIL, and
# the next callback has taken it again by then. The main thread then never
# ran between its waits for the walk, and Ctrl-C stayed unseen until the
# walk ended. So a pool thread, at least every _YIELD_EVERY_NS, sleeps for
# no time between callbacks: the GIL goes to a thread waiting for it.
_YIELD_EVERY_NS = 10_000_000
_monotonic_ns = time.monotonic_ns
_next_yield = [0]


def _yield_gil():
    _next_yield[0] = _monotonic_ns() + _YIELD_EVERY_NS
    time.sleep(0)


class _Callbacks:
    """The C callbacks of one walk and everything they must keep alive.

    The ctypes function pointers must outlive every call the library makes
    through them. A failure goes to the library with dag_walk_fail(), which
    copies its message at once, so no message is kept here.
    """

    def __init__(self, callback, observer, allow_pending):
        if observer is not None and not callable(observer):
            raise TypeError(f"an observer must be callable, not {type(observer).__name__}")
        self.callback = callback
        self.observer = observer
        self.allow_pending = allow_pending
        self.exceptions = {}
        # The walk's own handle, as the address callbacks receive: a call
        # with another address is for a vertex of an expanded sub-graph.
        self.main = None
        # Threads inside a callback or the observer right now; see Walker.close().
        self.calling = {}
        # A Ctrl-C the observer caught on the main thread; see raise_interrupted().
        self.interrupted = False
        # Vertices of a pull walk whose work never started (see keep_never_started).
        self.never_started = set()
        # Vertices of a pull walk with an attempt that ran and failed, retried (see new_attempts).
        self.ran_before = set()
        # Vertices of a pull walk failed by Walker.complete with a message, no exception to keep: their
        # attempt ran too (see new_attempts).
        self.failed_by_message = set()
        # Set once the Walker knows its handle: the library may call back
        # before dag_walk_start() has returned it, a callback that calls
        # walker.cancel() or walker.complete() must find the walk started,
        # and `main` must be known to tell sub-walk vertices apart. A lock
        # held until then, not an Event: Event.set() is Python code, which
        # a Ctrl-C can stop before its first line, and the callbacks would
        # wait for ever.
        self.ready = _thread.allocate_lock()
        self.ready.acquire()
        self.c_callback = _native.WALK_FN(self._call) if callback is not None else None
        self.c_thread_start = _native.THREAD_HOOK_FN(_keep_thread_state)
        self.c_thread_exit = _native.THREAD_HOOK_FN(_drop_thread_state)
        self.c_observer = _native.OBSERVER_FN(self._observe) if observer is not None else _native.OBSERVER_FN()

    def _enter(self):
        me = threading.get_ident()
        self.calling[me] = self.calling.get(me, 0) + 1

    def _leave(self):
        me = threading.get_ident()
        depth = self.calling[me] - 1
        if depth:
            self.calling[me] = depth
        else:
            del self.calling[me]
        if _monotonic_ns() >= _next_yield[0]:
            _yield_gil()

    def in_callback(self):
        """True on a thread that is running one of this walk's callbacks or its observer."""
        return threading.get_ident() in self.calling

    def keep_exception(self, vertex, exc):
        """Keeps `exc` for the report; a sub-walk vertex's id is not the report's.

        Returns what was kept for `vertex` before, for :meth:`restore_exception`.
        """
        if isinstance(vertex, SubwalkVertex):
            return None
        before = self.exceptions.get(vertex)
        self.exceptions[vertex] = exc
        return before

    def restore_exception(self, vertex, before):
        """Undoes keep_exception(), which returned `before`."""
        if isinstance(vertex, SubwalkVertex):
            return
        if before is None:
            self.exceptions.pop(vertex, None)
        else:
            self.exceptions[vertex] = before

    def keep_never_started(self, vertex):
        """Marks a pull walk's vertex, handed out and completed cancelled, as never run (its report's ``ran``).

        Not one an earlier attempt of which ran: it ran, whatever became of its retry.
        """
        if not isinstance(vertex, SubwalkVertex) and vertex not in self.ran_before:
            self.never_started.add(vertex)

    def keep_failed_by_message(self, vertex):
        """Notes that `vertex`'s attempt ran and failed with a message; whether it was noted before."""
        if isinstance(vertex, SubwalkVertex):
            return True  # nothing to note, nothing to undo
        before = vertex in self.failed_by_message
        self.failed_by_message.add(vertex)
        return before

    def new_attempts(self, vertices):
        """Forgets what earlier attempts of the walk's own `vertices` raised, as they start again (retries).

        The report keeps the last attempt's exception only: a vertex that
        succeeded on a retry, or last failed with a message, has none.
        """
        if self.exceptions or self.never_started or self.failed_by_message:
            never_started = self.never_started
            by_message = self.failed_by_message
            for vertex in vertices:
                if type(vertex) is int:  # noqa: E721 - a SubwalkVertex is an int too, of another graph
                    failed = self.exceptions.pop(vertex, None) is not None
                    if vertex in by_message:
                        by_message.discard(vertex)
                        failed = True
                    if failed and vertex not in never_started:
                        self.ran_before.add(vertex)  # the attempt that failed with it ran
                    # An attempt that never started was one attempt: this one may run.
                    never_started.discard(vertex)

    def _fail(self, walker, vertex, exc):
        self.keep_exception(vertex, exc)
        # Refused only where another thread completed the vertex while this
        # callback ran: returning FAILED still fails it then, without the
        # message (the report keeps the exception).
        lib.dag_walk_fail(walker, vertex, _encode_message(_describe(exc)), None)
        return _native.WALK_FAILED

    def _call(self, walker, vertex, _message_out, _user_data):
        self._enter()
        try:
            try:
                if self.ready.locked():
                    _wait_ready(self.ready)
                if walker != self.main:
                    vertex = SubwalkVertex(vertex, walker, self)
                elif self.exceptions:
                    self.exceptions.pop(vertex, None)  # an earlier attempt's (new_attempts)
                result = self.callback(vertex)
            except BaseException as exc:  # noqa: B902 - every exception must stop at the C boundary
                return self._fail(walker, vertex, exc)
            if result is PENDING:
                if self.allow_pending:
                    return _native.WALK_PENDING
                # Nothing could ever complete it: Graph.walk() hands out no
                # walker to call complete() on.
                return self._fail(walker, vertex, RuntimeError(
                    "the callback returned PENDING, which only a Walker (Graph.walker()) can complete"))
            return _native.WALK_OK
        except BaseException as exc:  # noqa: B902 - e.g. a MemoryError while recording a failure
            try:
                return self._fail(walker, vertex, exc)
            except BaseException:  # noqa: B902
                return _native.WALK_FAILED
        finally:
            self._leave()

    def _observe(self, _walker, event, vertex, status, running, done, total, _user_data):
        # An exception from the observer has no caller to go to: ctypes
        # reports it through sys.unraisablehook, and the walk goes on.
        try:
            self._enter()
            try:
                if self.ready.locked():
                    _wait_ready(self.ready)
                if _walker != self.main:
                    # A sub-graph's vertex, as the callback gets it: its bare id
                    # would read as the main graph's vertex of that number.
                    vertex = SubwalkVertex(vertex, _walker, self)
                self.observer(WalkEvent(event), vertex, VertexStatus(status), running, done, total)
            finally:
                self._leave()
        except KeyboardInterrupt:
            if threading.current_thread() is not threading.main_thread():
                raise
            # Ctrl-C landed in an observer the main thread runs (inside a
            # pull walk's complete() or next_ready()): ctypes would only
            # report it, and the Ctrl-C would be lost. The method that made
            # the C call raises it as the call returns (raise_interrupted).
            self.interrupted = True

    def take_interrupt(self):
        """Whether an observer on this (the main) thread caught a KeyboardInterrupt; forgets it."""
        if self.interrupted and threading.current_thread() is threading.main_thread():
            self.interrupted = False
            return True
        return False

    def raise_interrupted(self):
        """Raises the KeyboardInterrupt an observer on this (the main) thread caught, if one did."""
        if self.take_interrupt():
            raise KeyboardInterrupt


def _wait_ready(ready):
    """On a thread of the walk (no KeyboardInterrupt comes there): waits until start() has the handle."""
    with ready:
        pass


def _set_ready(ready):
    try:
        ready.release()
    except RuntimeError:  # released already
        pass


def _options(graph, parallelism, threads, reverse, fail_fast, always_run, timestamps, schedule, callbacks, who):
    opts = _native.WalkOptions()
    call(lib.dag_walk_options_init, byref(opts), ctypes.sizeof(opts), who=who)
    parallelism = _count(parallelism, "parallelism", who)
    opts.parallelism = parallelism
    # 0, libdag's default: one pool thread per slot of parallelism.
    opts.threads = 0 if threads is None else _count(threads, "threads", who)
    opts.reverse = 1 if reverse else 0
    opts.failure_policy = _native.FAILURE_FAIL_FAST if fail_fast else _native.FAILURE_CONTINUE
    opts.timestamps = 1 if timestamps else 0
    ids, count = graph._vertex_array(always_run, who)
    if count:
        opts.always_run = ctypes.cast(ids, _native.uint64_p)
        opts.always_run_count = count
    if callbacks.observer is not None:
        opts.observer = callbacks.c_observer
    if _GIL_STATE is not None:
        opts.thread_start = callbacks.c_thread_start
        opts.thread_exit = callbacks.c_thread_exit
    keep = [ids, apply_schedule(graph, schedule, opts, who, _count)]
    # `keep` must stay alive as long as `opts` is used: return it with them.
    return opts, keep


def _count(value, name, who):
    if isinstance(value, bool):
        # An int to Python, but True is a flag passed where a count goes, not 1.
        raise TypeError(f"{who}: {name} is an int, not bool")
    try:
        value = value.__index__()
    except AttributeError:
        raise TypeError(f"{who}: {name} is an int, not {type(value).__name__}") from None
    if value < 0 or value >= 1 << 64:
        # 0 goes on to the library, which explains it in its own words.
        raise InvalidArgumentError(_native.E_INVALID_ARGUMENT, f"{who}: {name} is {value}, out of range")
    return value


def _cancel_quietly(handle):
    """Cancels a walk whatever its state: one that has finished refuses with DAG_E_STATE, harmlessly."""
    try:
        with handle.read("Walker.close") as ptr:
            lib.dag_walk_cancel(ptr, None)
    except ClosedError:
        pass


def _closed_while_waiting(who):
    return ClosedError(_native.E_STATE, f"{who}: the walker was closed while this waited")


def _walk_message(message):
    prefix = "dag_walk_wait_for: "
    return message[len(prefix):] if message.startswith(prefix) else message


def _wait_in_slices(handle, who, pull=False):
    """Waits for a walk to end; returns (status, message, report), the report owned by the caller.

    In slices, so that the main thread runs its signal handlers between
    them: Ctrl-C raises KeyboardInterrupt here while the walk runs. A pull
    walk closed meanwhile raises ClosedError: its vertices handed out can no
    longer be completed, so it ends only as close() frees it, which waits
    for this read to leave.
    """
    report = _native.walk_report_p()
    err = _native.error_p()
    with handle.read(who) as ptr:
        while True:
            try:
                status = lib.dag_walk_wait_for(ptr, _WAIT_SLICE_MS, byref(report), byref(err))
            finally:
                message = take_error(err)
            if status != _native.E_TIMEOUT:
                break
            if pull and handle.closed:
                raise _closed_while_waiting(who)
    # The walk's outcome in its own words, not the C function's.
    return status, _walk_message(message), report


def _wait_for_end(handle):
    """Waits, in slices, for a walk to end; returns at once where a wait is refused (see dag_walk_wait_for)."""
    try:
        with handle.read("Walker.close") as ptr:
            while lib.dag_walk_wait_for(ptr, _WAIT_SLICE_MS, None, None) == _native.E_TIMEOUT:
                pass
    except ClosedError:
        pass


def run_walk(graph, callback, **options):
    """Graph.walk(): a Walker started, waited for and closed.

    Not dag_walk(): a blocking walk running on a daemon thread when the
    interpreter exits must be cancelled by the exit handler below (its
    callbacks could not run any more), and that takes a walker handle.
    """
    walker = Walker(graph, callback, _blocking=True, **options)
    try:
        walker.start()
        return walker.wait()
    finally:
        walker.close()


# Walkers whose walk may still run. At exit they are closed while the
# interpreter can still run their callbacks: once it is being torn down, a
# pool thread's callback could no longer take the GIL, and the walk, which
# the exit waits for, would never end.
_LIVE = weakref.WeakSet()


@atexit.register
def _close_live_walkers():
    for walker in list(_LIVE):
        try:
            walker.close()
        except Exception:  # noqa: BLE001 - the rest must still be closed
            pass


_W = TypeVar("_W", bound="Walker")


class Walker(Closeable):
    """A walk that runs in the background: start it, then wait, cancel or complete vertices.

    Made by :meth:`Graph.walker`; the walk begins with :meth:`start`, so a
    callback may refer to the walker (to cancel the walk, or to complete a
    vertex it returned :data:`PENDING` for) before any callback can run::

        with graph.walker(callback, parallelism=4) as walker:
            walker.start()
            report = walker.wait()

    The graph counts as walked, and refuses changes with BusyError, from
    start() until wait() has returned or the walker is closed. Closing a
    walker (or leaving its ``with`` block, or dropping the last reference to
    it) cancels a walk still running and waits for it to end.

    All methods are thread-safe.
    """

    # A pull walk (PullWalker) has no callback: the host takes the vertices.
    _PULL = False
    # What heads the refusals of its methods (start(), wait(), complete(), ...).
    _CLASS = "Walker"

    def __init__(self, graph, callback, *, parallelism=10, threads=None, reverse=False, fail_fast=False,
                 always_run=(), timestamps=True, observer=None, schedule=None, _blocking=False,
                 _who="Graph.walker"):
        # _who: the method that made this walker (Graph.walker, or one that
        # walks with it, such as Graph.walk_async), which heads its refusals.
        if _blocking:
            _who = "Graph.walk"
        # Now, not at start(): the docs promise ClosedError from every method
        # of a closed graph.
        graph._handle._check_open(_who)
        if not callable(callback) and not self._PULL:
            raise TypeError(f"a walk callback must be callable, not {type(callback).__name__}")
        self._graph = graph
        # For Graph.walk(), which hands the walker to no one: nothing could
        # complete a pending vertex, and errors name the method called.
        self._who = "Graph.walk" if _blocking else self._CLASS
        # Made once: a pull walk's host calls complete() for every vertex.
        self._complete_who = self._name("complete")
        self._callbacks = _Callbacks(callback, observer, allow_pending=not _blocking)
        self._opts, self._keep = _options(graph, parallelism, threads, reverse, fail_fast, always_run, timestamps,
                                          schedule, self._callbacks, _who)
        self._retries = schedule is not None and schedule.has_retries
        # (id, sub-walk) of the vertices expanded: a pull-walk host finishing
        # such a vertex's task leaves it to its sub-walk.
        self._expanded = set()
        self._handle = None
        self._lock = threading.Lock()  # held for short steps only, never across a wait
        # A second Ctrl-C stopped wait() waiting for the cancelled walk's
        # running callbacks: close() must not wait for them either.
        self._wait_abandoned = False
        # What the graph counts this walker's walk by (Handle.begin_walk):
        # its own, where an id() could be a later walker's.
        self._walk_token = object()

    def start(self: _W) -> _W:
        """Starts the walk and returns self.

        Raises:
            CycleError: the graph has a cycle or a self reference; nothing ran.
            UnknownVertexError: an ``always_run`` id is not in the graph.
            BusyError: the graph is being walked already.
            StateError: this walker was started before.
            ClosedError: the walker or the graph is closed.
        """
        return self._start(self._name("start"))

    def _start(self, who):
        """start(), its refusals headed by `who`: the method the caller called (Graph.walk_async, ...)."""
        with self._lock:
            if self._callbacks is None:
                raise ClosedError(_native.E_STATE, f"{who}: the walker is closed")
            if self._handle is not None:
                raise StateError(_native.E_STATE, f"{who}: a walker starts only once")
            graph_handle = self._graph._handle
            out = _native.walker_p()
            try:
                # Before the walk starts: once it runs, a Ctrl-C in
                # WeakSet.add (Python code) would keep it from the exit's close.
                _LIVE.add(self)
                # Inside the try: it counts the walk, which the except
                # clause's end_walk() undoes, wherever a Ctrl-C lands.
                ptr = graph_handle.begin_walk(who, self)
                if self._callbacks.callback is None:
                    call(lib.dag_walk_begin, ptr, byref(self._opts), byref(out), who=who)
                else:
                    call(lib.dag_walk_start, ptr, self._callbacks.c_callback, None, byref(self._opts), byref(out),
                         who=who)
                # Before the handle: a thread that finds the handle (read
                # without the lock, _started) must find this too.
                self._callbacks.main = ctypes.cast(out, ctypes.c_void_p).value
                self._handle = WalkerHandle(out, lib.dag_walk_free)
                # Inside the try, not in a finally clause: Python 3.8 and 3.9
                # may raise a Ctrl-C as the try ends, before a finally runs,
                # and after any instruction of a finally's own.
                self._callbacks.ready.release()  # C: whatever lands next, it is done
            except BaseException:
                # The callbacks of a walk that started wait for this; one
                # refused (a cycle, say) leaves it held for the next start().
                if out or self._handle is not None:
                    _set_ready(self._callbacks.ready)
                if self._handle is None:
                    if out:
                        # Started, but a Ctrl-C came before a handle owned
                        # the walk: nobody else could end it.
                        lib.dag_walk_cancel(out, None)
                        lib.dag_walk_free(out)
                    graph_handle.end_walk(self)
                raise
        return self

    def _name(self, method):
        return self._who if self._who == "Graph.walk" else f"{self._who}.{method}"

    def _started(self, who):
        """The walk's handle and callbacks, read together: close() may clear both at any moment."""
        # Without the lock, in this order: close() clears the callbacks
        # before the handle, so a handle read before it was cleared comes
        # with callbacks read after it, or with None (closed); and a handle
        # read as None with callbacks that are not is a walk not started.
        handle = self._handle
        callbacks = self._callbacks
        if callbacks is None:
            raise ClosedError(_native.E_STATE, f"{who}: the walker is closed")
        if handle is None:
            raise StateError(_native.E_STATE, f"{who}: the walk has not been started (call start())")
        return handle, callbacks

    def wait(self) -> WalkReport:
        """Blocks until the walk has finished and returns its :class:`WalkReport`.

        May be called again (each call gives a new report). Not from one of
        the walk's own callbacks or its observer: the walk cannot finish
        while they wait.

        Ctrl-C (SIGINT) while it waits cancels the walk, waits for the
        callbacks still running, and re-raises KeyboardInterrupt with the
        cancelled walk's report as its ``walk_report`` attribute. With
        callbacks that return within a second, that takes about as long.
        A second Ctrl-C stops that wait: its KeyboardInterrupt's
        ``walk_report`` is None (the walk has not ended, so there is no
        report), and :meth:`close` (``Graph.walk()``'s, or the ``with``
        block's) then does not wait for those callbacks either: the walk is
        freed, and the graph let go, on a background thread once they have
        returned.

        Raises:
            StateError: called from a callback or the observer of this walk,
                or before start().
            ClosedError: the walker is closed (a pull walk: also when
                another thread closes it while this waits).
            KeyboardInterrupt: see above.
        """
        who = self._name("wait")
        handle, callbacks = self._started(who)
        try:
            status, message, report = _wait_in_slices(handle, who, self._PULL)
        except KeyboardInterrupt as interrupt:
            # Ctrl-C cancels the walk and waits for the callbacks still
            # running; the report of the cancelled walk goes with the exception.
            try:
                _cancel_quietly(handle)
                status, message, report = _wait_in_slices(handle, who, self._PULL)
            except KeyboardInterrupt as again:
                again.walk_report = None
                # A pull walk's close() waits for no callback anyway, and
                # frees the walk before its close hooks run.
                if not self._PULL:
                    self._wait_abandoned = True
                raise
            interrupt.walk_report = self._report(report, status, message, callbacks, who)
            raise
        return self._report(report, status, message, callbacks, who)

    def _report(self, report, status, message, callbacks, who):
        try:
            if status not in _FINISHED or not report:
                # Not the walk's outcome but the call's refusal: told by the method called.
                raise error_for(status, f"{who}: {message}" if message else f"{who}: {status_name(status)}")
            self._release_graph()
            return _read_report(report, status, message, callbacks.exceptions, who, self._retries,
                                callbacks.never_started)
        finally:
            lib.dag_walk_report_free(report)

    def cancel(self) -> None:
        """Cancels the walk: nothing new starts, running callbacks finish, pending vertices end cancelled.

        Returns without waiting. From any thread, a callback included.

        Raises:
            StateError: the walk has already finished, or was not started.
            ClosedError: the walker is closed.
        """
        who = self._name("cancel")
        handle, callbacks = self._started(who)
        with handle.read(who) as ptr:
            call(lib.dag_walk_cancel, ptr, who=who)
        if not self._PULL:  # PullWalker.cancel() has more to do first
            callbacks.raise_interrupted()

    def complete(self, vertex: Vertex, error: Optional[Union[BaseException, str]] = None, *,
                 cancelled: bool = False) -> None:
        """Finishes a vertex whose callback returned :data:`PENDING`, from any thread.

        Args:
            vertex: the vertex id, or its name.
            error: None for success; otherwise the failure, as an exception
                (kept in the report) or a message string.
            cancelled: the work was stopped because the walk was cancelled
                (a task cancelled on a cluster, a process stopped): the
                vertex, and what waits for it, end cancelled instead of
                failed, `error` (if any) its message. Only once the walk has
                been cancelled (DAG_WALK_CANCELLED, libdag 1.3).

        Raises:
            StateError: the vertex is not pending (not started, already
                completed or finished), or the walk has finished; or
                `cancelled` and the walk has not been cancelled.
            CancelledError: the vertex was cancelled while pending.
            UnknownVertexError: the vertex is not in this walk.
            ClosedError: the walker is closed.
        """
        who = self._complete_who
        if type(vertex) is int and error is None and not cancelled and 0 <= vertex < 1 << 64:  # noqa: E721
            # The common case, a vertex of the walk's own completed ok: the
            # same call made with its arguments in C form.
            handle, callbacks = self._started(who)
            err = _native.error_p()
            with handle.read(who) as ptr:
                status = _COMPLETE(ptr, ctypes.c_uint64(vertex), _native.WALK_OK, None, byref(err))
            message = take_error(err) if err else ""
            if status != _native.OK:
                raise error_for(status, in_python_terms(message, "dag_walk_complete", who)
                                or f"{who}: {status_name(status)}")
            self._changed()
            if callbacks.interrupted:
                callbacks.raise_interrupted()
            return
        if type(vertex) is not int and not isinstance(vertex, SubwalkVertex):  # noqa: E721 - the common case, fast
            vertex = self._graph._vertex(vertex, who)
        elif not 0 <= vertex < 1 << 64:
            vertex = vertex_id(vertex, who)  # raises
        if cancelled:
            result = _native.WALK_CANCELLED
            message = None if error is None else _encode_message(error if isinstance(error, str) else _describe(error))
        elif error is None:
            result, message = _native.WALK_OK, None
        else:
            result = _native.WALK_FAILED
            message = _encode_message(error if isinstance(error, str) else _describe(error))
        handle, callbacks = self._started(who)
        kept = error is not None and not isinstance(error, str)
        if kept:
            # Recorded first: the report may be read as soon as the vertex is complete.
            before = callbacks.keep_exception(vertex, error)
        elif result == _native.WALK_FAILED:
            # Recorded first as well: a retry may hand it out again at once.
            failed_before = callbacks.keep_failed_by_message(vertex)
        try:
            with handle.read(who) as ptr:
                call(lib.dag_walk_complete, _walk_of(vertex, ptr, callbacks, who), vertex, result, message, who=who)
        except BaseException:
            # Refused: the exception decided nothing, and must not show in the report.
            if kept:
                callbacks.restore_exception(vertex, before)
            elif result == _native.WALK_FAILED and not failed_before:
                callbacks.failed_by_message.discard(vertex)
            raise
        self._changed()
        callbacks.raise_interrupted()

    def _changed(self):
        """Called after each change that may make vertices ready; a pull walk wakes its waiters."""

    def expand(self, vertex: Vertex, subgraph: Graph) -> None:
        """Walks `subgraph` as part of `vertex`, which finishes when that sub-walk does.

        Call it while the vertex's callback runs (normally from inside it),
        or in a pull walk while the vertex is handed out. The sub-graph is
        checked and copied; its vertices then run like the walk's own, with
        the walk's callback and options, and reach the callback (or
        :meth:`PullWalker.next_ready`) as :class:`SubwalkVertex` ids of the
        sub-graph. The vertex gives its parallelism slot back at once, and
        ends ok when every sub-vertex did, failed with the sub-walk's first
        error otherwise (cancelled if the walk was). What the callback
        returns or raises after this no longer decides the vertex (an
        exception raised then is kept as the report's ``exception`` of the
        vertex, whose status is the sub-walk's).

        Raises:
            CycleError: `subgraph` has a cycle; nothing changed.
            StateError: the vertex is not running (or handed out), was
                expanded already, or the walk has finished.
            UnknownVertexError, NotFoundError: no such vertex in this walk.
        """
        who = self._name("expand")
        from .graph import Graph  # noqa: F811 - graph.py imports this module

        if not isinstance(subgraph, Graph):
            raise TypeError(f"{who}: the sub-graph is a Graph, not {type(subgraph).__name__}")
        if not isinstance(vertex, SubwalkVertex):
            vertex = self._graph._vertex(vertex, who)
        handle, callbacks = self._started(who)
        with handle.read(who) as ptr, subgraph._handle.read(who) as sub:
            call(lib.dag_walk_expand, _walk_of(vertex, ptr, callbacks, who), vertex, sub, _NO_CALLBACK, None, who=who)
        self._expanded.add(expansion_key(vertex))
        self._changed()
        callbacks.raise_interrupted()

    def apply(self, update: WalkUpdate) -> List[int]:
        """Applies a :class:`WalkUpdate` to the running walk and its graph, all or nothing.

        Returns the ids of the vertices the update added, in the order added.

        Raises:
            CycleError: the update would make a cycle; nothing changed.
            StateError: a vertex that has started (or ended without
                starting: skipped or cancelled) would get a dependency
                (even one that has finished) or be removed, or the walk has
                finished.
            UnknownVertexError, DuplicateNameError, InvalidArgumentError: as
                the update's content says.
        """
        return self._apply(update, self._name("apply"))

    def _apply(self, update, who):
        from .update import WalkUpdate  # noqa: F811 - only for typing above

        if not isinstance(update, WalkUpdate):
            raise TypeError(f"{who}: the update is a WalkUpdate, not {type(update).__name__}")
        handle, callbacks = self._started(who)
        with handle.read(who) as ptr, update._handle.read(who) as batch:
            ids = ids_result(lib.dag_walk_apply, ptr, batch, who=who)
        self._changed()
        callbacks.raise_interrupted()
        return ids

    def progress(self) -> Tuple[int, int]:
        """(done, total): the walk's vertices finished so far and its vertex count.

        Without an observer, done may lag by up to 64 vertices per pool
        thread until the walk ends.
        """
        who = self._name("progress")
        handle, _ = self._started(who)
        done, total = ctypes.c_size_t(), ctypes.c_size_t()
        with handle.read(who) as ptr:
            call(lib.dag_walk_progress, ptr, byref(done), byref(total), who=who)
        return done.value, total.value

    def name(self, vertex: Vertex) -> Optional[str]:
        """The name of a vertex of this walk, a :class:`SubwalkVertex` included (None when unnamed).

        A vertex given by name is looked up in the walk's own graph: after
        :meth:`Graph.close` too.
        """
        who = self._name("name")
        handle, callbacks = self._started(who)
        out = ctypes.c_char_p()

        def read():
            with handle.read(who) as ptr:
                graph = lib.dag_walk_graph(_walk_of(vertex, ptr, callbacks, who))
                call(lib.dag_vertex_name, graph, _id_in(graph, vertex, who), byref(out), who=who)
                # Borrowed from the walk's graph: copied while nothing can change it (_in_graph).
                return decode_name(out.value)

        return self._in_graph(vertex, who, read)

    def user_data(self, vertex: Vertex) -> int:
        """The user data of a vertex of this walk, a :class:`SubwalkVertex` included (its sub-graph's copy of it).

        As :meth:`Graph.user_data`; for a host that indexes its own table
        with it, including for the vertices of sub-graphs it expanded.
        """
        who = self._name("user_data")
        handle, callbacks = self._started(who)
        out = ctypes.c_void_p()

        def read():
            with handle.read(who) as ptr:
                graph = lib.dag_walk_graph(_walk_of(vertex, ptr, callbacks, who))
                call(lib.dag_vertex_user_data, graph, _id_in(graph, vertex, who), byref(out), who=who)
            return out.value or 0

        return self._in_graph(vertex, who, read)

    def _in_graph(self, vertex, who, read):
        """``read()`` of the walked graph, under the :class:`Graph`'s read gate while it is open: once the
        walk has let go of it (its end), its changes run again beside this walker's reads, and a rename
        freed the name being copied (a crash). A closed Graph's graph lives on in the walk, which nobody
        else changes; a sub-graph is the walk's own copy."""
        if not isinstance(vertex, SubwalkVertex):
            try:
                with self._graph._handle.read(who):
                    return read()
            except ClosedError:
                if not self._graph._handle.closed:
                    raise  # the walker's, not the graph's
        return read()

    def close(self) -> None:
        """Cancels the walk if it still runs, waits for it to end, and frees it. Idempotent.

        Called from one of the walk's own callbacks (or its observer), or
        from inside another call on this walker (a waker, a vertex function
        an executor runs inside ``submit()``, an asyncio walk's vertex
        function), where waiting would wait for itself, it cancels the walk
        and returns; the walk is freed on a background thread once it has
        ended. Ctrl-C while it waits leaves the same to a background thread,
        and so does a close() after a second Ctrl-C stopped :meth:`wait`.
        """
        handle = None
        try:
            with self._lock:
                callbacks, handle = self._callbacks, self._handle
                if callbacks is None:
                    return
                # From here on every other method raises ClosedError.
                self._callbacks = None
                self._handle = None
            if handle is None:
                return
            if callbacks.in_callback() or self._wait_abandoned:
                _cancel_quietly(handle)
                self._free_later(handle, callbacks)
            else:
                self._free(handle, callbacks)
                callbacks.raise_interrupted()  # from an observer the free called
        except BaseException:
            # Ctrl-C once the walk was taken from this walker: nobody else
            # can free it now (and its callbacks must outlive it).
            if handle is not None:
                self._free_later(handle, callbacks)
            raise

    def _free_later(self, handle, callbacks):
        threading.Thread(target=self._free, args=(handle, callbacks), name="libdag-walker-close",
                         daemon=True).start()

    def _free(self, handle, callbacks):
        # A wait() in progress on another thread returns once the walk is
        # cancelled; dag_walk_free() then waits for the callbacks to return,
        # and joins the walk's threads, before `callbacks` may go (held by
        # the partial until then, wherever the handle frees the walk).
        _cancel_quietly(handle)
        if not self._PULL:
            # The callbacks still running are waited for here, in slices
            # Ctrl-C gets through (close() then leaves the free to a thread
            # of its own), not in dag_walk_free(), which nothing interrupts.
            # A pull walk's free waits for no callback.
            _wait_for_end(handle)
        handle.close(functools.partial(self._freed, callbacks))

    def _freed(self, callbacks):
        self._release_graph()
        del callbacks  # the walk is freed: nothing calls them any more

    def _release_graph(self):
        self._graph._handle.end_walk(self)

    @property
    def parallelism(self) -> int:
        """The most callbacks (or, in a pull walk, vertices handed out) in flight at once."""
        return self._opts.parallelism

    @property
    def started(self):
        """True once :meth:`start` has succeeded."""
        return self._handle is not None

    @property
    def closed(self):
        """True once :meth:`close` has been called."""
        return self._callbacks is None

    def __repr__(self):
        if self._callbacks is None:
            state = "closed"
        elif self._handle is None:
            state = "not started"
        else:
            state = "started"
        return f"<libdag.Walker {state}>"
