"""Exceptions raised by libdag, one class per C status code.

Every failure of a C call is raised as a :class:`DagError` subclass chosen by
its ``dag_status``; the exception carries the status, its name and the
library's message, headed by the Python method that failed
(``"Graph.root: no roots found"``), as are the binding's own checks made
before calling C (a closed graph, an id that cannot be a uint64_t, a name
holding a NUL character). :class:`CycleError`, like graphlib's, is a
:class:`ValueError`.
"""

from ctypes import byref

from . import _native
from ._native import lib

__all__ = [
    "DagError",
    "NullArgumentError",
    "InvalidArgumentError",
    "OutOfMemoryError",
    "UnknownVertexError",
    "NotFoundError",
    "DuplicateNameError",
    "BadUtf8Error",
    "CycleError",
    "BusyError",
    "NoRootError",
    "MultipleRootsError",
    "InvalidGraphError",
    "StateError",
    "ClosedError",
    "CancelledError",
    "ParseError",
    "DagIOError",
    "InternalError",
    "WalkFailedError",
    "CallbackError",
    "status_name",
]


def status_name(status):
    """The library's short English name of a status code ("unknown vertex")."""
    return lib.dag_status_string(status).decode("utf-8", "replace")


class DagError(Exception):
    """A libdag call failed.

    Attributes:
        status: the ``dag_status`` code (a negative int, e.g. -8 for a cycle).
        status_name: the library's name for it (``dag_status_string``).
        message: the detailed message (``dag_error_message``).
    """

    #: The status this class stands for; DagError itself takes any.
    STATUS = None

    def __init__(self, status, message):
        super().__init__(message)
        self.status = status
        self.status_name = status_name(status)
        self.message = message

    def __str__(self):
        return self.message

    def __repr__(self):
        return f"{type(self).__name__}(status={self.status}, message={self.message!r})"

    def __reduce__(self):
        # Exceptions cross process boundaries (multiprocessing) by pickling;
        # the default would call __init__ with the message alone.
        return (_rebuild, (type(self), self.status, self.message))


def _rebuild(cls, status, message):
    return cls(status, message)


class NullArgumentError(DagError):
    """A required argument was NULL (DAG_E_NULL_ARGUMENT)."""

    STATUS = _native.E_NULL_ARGUMENT


class InvalidArgumentError(DagError, ValueError):
    """An argument is out of range or malformed (DAG_E_INVALID_ARGUMENT)."""

    STATUS = _native.E_INVALID_ARGUMENT


class OutOfMemoryError(DagError, MemoryError):
    """The library ran out of memory (DAG_E_NOMEM)."""

    STATUS = _native.E_NOMEM


class UnknownVertexError(DagError, LookupError):
    """A vertex id is 0, was never issued by the graph, or was removed (DAG_E_UNKNOWN_VERTEX)."""

    STATUS = _native.E_UNKNOWN_VERTEX


class NotFoundError(DagError, LookupError):
    """A lookup by name found nothing (DAG_E_NOT_FOUND)."""

    STATUS = _native.E_NOT_FOUND


class DuplicateNameError(DagError, ValueError):
    """The name is already used by another vertex (DAG_E_DUPLICATE_NAME)."""

    STATUS = _native.E_DUPLICATE_NAME


class BadUtf8Error(DagError, ValueError):
    """A string is not valid UTF-8 (DAG_E_BAD_UTF8)."""

    STATUS = _native.E_BAD_UTF8


class CycleError(DagError, ValueError):
    """The graph has a cycle or a self reference; the message lists each (DAG_E_CYCLE)."""

    STATUS = _native.E_CYCLE


class BusyError(DagError):
    """The graph is being walked or traversed and cannot be changed or closed now (DAG_E_BUSY)."""

    STATUS = _native.E_BUSY


class NoRootError(DagError):
    """The graph has no root (DAG_E_NO_ROOT)."""

    STATUS = _native.E_NO_ROOT


class MultipleRootsError(DagError):
    """The graph has more than one root (DAG_E_MULTIPLE_ROOTS)."""

    STATUS = _native.E_MULTIPLE_ROOTS


class InvalidGraphError(DagError):
    """DAG_E_INVALID_GRAPH, which libdag no longer returns.

    Before libdag 1.2 validation returned it for root problems and cycles at
    once; since 1.2 a cycle or a self reference is a :class:`CycleError`,
    whatever else is wrong. Kept so that the status maps to a class.
    """

    STATUS = _native.E_INVALID_GRAPH


class StateError(DagError):
    """The call is not allowed in the current state (DAG_E_STATE)."""

    STATUS = _native.E_STATE


class ClosedError(StateError):
    """The graph or walker was closed; its methods can no longer be used.

    Raised by the binding, with status DAG_E_STATE, instead of passing a
    freed handle to the library.
    """


class CancelledError(DagError):
    """A walk was cancelled (DAG_E_CANCELLED)."""

    STATUS = _native.E_CANCELLED


class ParseError(DagError, ValueError):
    """Input text (JSON, DOT) could not be parsed; the message says where (DAG_E_PARSE)."""

    STATUS = _native.E_PARSE


class DagIOError(DagError):
    """A file could not be read or written (DAG_E_IO)."""

    STATUS = _native.E_IO


class InternalError(DagError):
    """A bug inside libdag (DAG_E_INTERNAL); please report the message."""

    STATUS = _native.E_INTERNAL


class WalkFailedError(DagError):
    """A walk ran to its end but at least one vertex failed (DAG_E_WALK_FAILED).

    :meth:`Graph.walk` returns a report instead of raising this; see
    :meth:`WalkReport.raise_for_status`.
    """

    STATUS = _native.E_WALK_FAILED


class CallbackError(DagError):
    """A C++ exception escaped a function libdag called back (DAG_E_CALLBACK, libdag 1.2).

    This binding's own callbacks never let one escape: an exception raised by
    Python code in a walk callback fails its vertex instead.
    """

    STATUS = _native.E_CALLBACK


_BY_STATUS = {
    cls.STATUS: cls
    for cls in (
        NullArgumentError, InvalidArgumentError, OutOfMemoryError, UnknownVertexError, NotFoundError,
        DuplicateNameError, BadUtf8Error, CycleError, BusyError, NoRootError, MultipleRootsError,
        InvalidGraphError, StateError, CancelledError, ParseError, DagIOError, InternalError,
        WalkFailedError, CallbackError,
    )
}


def error_for(status, message):
    """The exception object for `status`: its own class, or DagError for a code this binding does not know."""
    return _BY_STATUS.get(status, DagError)(status, message)


def take_error(err):
    """Reads and frees a ``dag_error *``; returns its message ("" for NULL)."""
    if not err:
        return ""
    try:
        return lib.dag_error_message(err).decode("utf-8", "replace")
    finally:
        lib.dag_error_free(err)


def call(fn, *args, who):
    """Calls a fallible C function with a trailing ``dag_error **`` and raises on failure.

    `who` is the Python name of the operation ("Graph.connect"); it replaces
    the C function's name at the head of the library's message.

    The status comes from the return value, not from the error object: when
    the library cannot allocate the error object it hands out a static
    out-of-memory error whatever the failure was.
    """
    err = _native.error_p()
    try:
        status = fn(*args, byref(err))
    finally:
        message = take_error(err)
    if status != _native.OK:
        raise error_for(status, in_python_terms(message, fn.__name__, who) or f"{who}: {status_name(status)}")


# The C names libdag's messages use for what a Python caller set or called,
# and this binding's names for them.
_C_TERMS = (
    ("opts->threads", "threads"),
    ("opts->parallelism", "parallelism"),
    ("more than DAG_WALK_MAX_THREADS (1024)", "more than 1024"),
    ("DAG_FORMAT_AUTO", "Format.AUTO"),
    ("only a vertex dag_walk_next_ready() handed out", "only a vertex next_ready() handed out"),
    ("failed by dag_walk_fail()", "failed"),
    ("completed by dag_walk_complete()", "completed"),
)


def in_python_terms(message, c_name, who):
    """`message` with a leading "C_NAME: " replaced by "WHO: ", and C's names for arguments in Python's."""
    prefix = c_name + ": "
    if message.startswith(prefix):
        message = f"{who}: {message[len(prefix):]}"
    for c_term, python_term in _C_TERMS:
        message = message.replace(c_term, python_term)
    return message
