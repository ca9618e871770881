"""Traversals and searches that call Python back synchronously.

dag_traverse() and dag_search() (which the first_*_with / match_* searches
use too) call a C function pointer for each vertex, on the calling thread. A
Python exception cannot cross the C frames in between, so the trampolines
here catch it, stop the traversal or abort the search, and re-raise it,
unchanged, once the C call has returned.
"""

import enum
import signal
import threading

from . import _native
from .errors import InvalidArgumentError, call
from ._owned import ids_result
from ._native import lib
from ._sigint import _pythons_own

__all__ = ["Search", "Visit"]


class Visit(enum.IntEnum):
    """What a traversal visitor returns to steer the traversal (``dag_visit``)."""

    #: Go on, beyond this vertex too (returning None means the same).
    CONTINUE = 0
    #: Do not go beyond this vertex; go on elsewhere (Terraform's errStopWalkBranch).
    SKIP = 1
    #: End the traversal now (Terraform's errStopWalk); it still returns normally.
    STOP = 2


def _calling_back(trampoline, run):
    """Runs `run()` (a C call that calls `trampoline` back), Ctrl-C included.

    A KeyboardInterrupt lands at the next bytecode the main thread runs, which
    during these calls is most often the first line of a trampoline, before
    its ``try``: ctypes then prints and swallows it, and the C call goes on
    as if the callback had answered 0 (continue, or no match), the vertex
    unrecorded. So on the main thread, while Python's own handler is the one
    installed (or an asyncio walk's wrapper around it: the call may run in
    one of its tasks), Ctrl-C marks the trampoline, whose next call stops
    the C call, and is raised once it has returned. While the user's
    function runs (`trampoline.in_user`, set inside the trampoline's
    ``try``) it is raised there too, as plain Python would, so that a
    function that blocks is interrupted: it becomes that callback's error.

    The trampoline has the attributes ``interrupted``, ``in_user`` and
    ``error`` (the first exception a callback raised).
    """
    previous = signal.getsignal(signal.SIGINT)
    if threading.current_thread() is not threading.main_thread() or not _pythons_own(previous):
        return run()

    def mark(signum, frame):
        trampoline.interrupted = True
        try:
            # A walk's wrapper counts the Ctrl-C first: the KeyboardInterrupt
            # raised in its task, here or once the C call has returned, then
            # stops the walk rather than failing the task's vertex.
            previous(signum, frame)
        except KeyboardInterrupt:
            if trampoline.in_user:
                raise

    try:
        # Inside the try: whatever lands after the swap, the handler found
        # comes back.
        signal.signal(signal.SIGINT, mark)
        result = run()
    except BaseException:
        # The C call failed for the interrupt (a search aborted, a build's
        # step failed): the interrupt is what to raise.
        if not trampoline.interrupted:
            raise
    finally:
        signal.signal(signal.SIGINT, previous)
    if trampoline.interrupted:
        # The one raised in the user's function, where it shows where the
        # function was; no cycle through the traceback.
        error, trampoline.error = trampoline.error, None
        raise error if isinstance(error, KeyboardInterrupt) else KeyboardInterrupt
    return result


class _Visitor:
    """Calls a Python visitor from dag_traverse() and records what was visited."""

    def __init__(self, visitor, who):
        self.visitor = visitor
        self.who = who
        self.visited = []
        self.error = None
        self.interrupted = False  # Ctrl-C: see _calling_back()
        self.in_user = False
        self.c_fn = _native.VISIT_FN(self._call)

    def _call(self, vertex, depth, _user_data):
        if self.error is not None or self.interrupted:
            return Visit.STOP
        self.visited.append((vertex, depth))
        if self.visitor is None:
            return Visit.CONTINUE
        try:
            self.in_user = True
            try:
                answer = self.visitor(vertex, depth)
            finally:
                self.in_user = False
            if answer is None:
                return Visit.CONTINUE
            # Only ints compare as Visit values: 1.0 == Visit.SKIP too.
            if isinstance(answer, int) and not isinstance(answer, bool):
                try:
                    return int(Visit(answer))
                except ValueError:
                    pass
            raise InvalidArgumentError(
                _native.E_INVALID_ARGUMENT,
                f"{self.who}: the visitor returned {answer!r}; expected None or a Visit value",
            )
        except BaseException as exc:  # noqa: B902 - every exception must stop at the C boundary
            self.error = exc
            return Visit.STOP


def traverse(ptr, start, flags, visitor, who):
    """Runs dag_traverse(); returns [(id, depth), ...] in visiting order."""
    ids, count = start
    trampoline = _Visitor(visitor, who)
    _calling_back(trampoline, lambda: call(lib.dag_traverse, ptr, ids, count, flags, trampoline.c_fn, None, who=who))
    if trampoline.error is not None:
        error, trampoline.error = trampoline.error, None  # no cycle through the traceback
        raise error
    return trampoline.visited


class Search(enum.IntEnum):
    """What a Graph.search() callback returns about a vertex (``dag_search_action``)."""

    #: Not a match; search on beyond it (returning None or False means the same).
    NO_MATCH = 0
    #: A match; search on beyond it unless ``first_match`` (returning True means the same).
    MATCH = 1
    #: A match, and the last: the search ends and returns every match so far.
    MATCH_AND_STOP = 2
    #: Not a match; the search ends and returns every earlier match.
    STOP = 3
    #: The search ends with CancelledError.
    ABORT = 4
    #: Not a match, and nothing beyond it is searched.
    SKIP = 5


class _Searcher:
    """Calls a Python callback from dag_search(); an exception aborts the search."""

    def __init__(self, callback, who, answers=None):
        if not callable(callback):
            raise TypeError(f"a search callback must be callable, not {type(callback).__name__}")
        self.callback = callback
        self.who = who
        # How a predicate's truth maps to an answer (first_*_with, match_*),
        # or None for a Search-returning callback.
        self.answers = answers
        self.error = None
        self.interrupted = False  # Ctrl-C: see _calling_back()
        self.in_user = False
        self.c_fn = _native.SEARCH_FN(self._call)

    def _call(self, vertex, _user_data):
        if self.interrupted:
            return Search.ABORT
        try:
            self.in_user = True
            try:
                answer = self.callback(vertex)
            finally:
                self.in_user = False
            if self.answers is not None:
                return self.answers[1 if answer else 0]
            if answer is None or answer is False:
                return Search.NO_MATCH
            if answer is True:
                return Search.MATCH
            if isinstance(answer, int):
                try:
                    return int(Search(answer))
                except ValueError:
                    pass
            raise InvalidArgumentError(
                _native.E_INVALID_ARGUMENT,
                f"{self.who}: the callback returned {answer!r}; expected None, a bool or a Search value",
            )
        except BaseException as exc:  # noqa: B902 - every exception must stop at the C boundary
            self.error = exc
            return Search.ABORT


def search(ptr, start, flags, callback, who, answers=None):
    """Runs dag_search(); returns the matching ids, ascending."""
    ids, count = start
    trampoline = _Searcher(callback, who, answers)
    error = None
    try:
        result = _calling_back(
            trampoline, lambda: ids_result(lib.dag_search, ptr, ids, count, flags, trampoline.c_fn, None, who=who))
    except BaseException:
        if trampoline.error is None:
            raise
        # The callback's own exception explains best (the library only
        # says it was aborted).
        error, trampoline.error = trampoline.error, None  # no cycle through the traceback
    if error is not None:
        # Raised outside the except block: its cause and context stay the callback's own.
        raise error
    return result


# A predicate's falsy and truthy answers, as dag_first_*_with and
# dag_match_* read them.
FIRST_WITH = (Search.NO_MATCH, Search.MATCH)
MATCH_ANY = (Search.NO_MATCH, Search.MATCH_AND_STOP)
