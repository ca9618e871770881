"""Traversals and predicate searches that call Python back synchronously.

dag_traverse() and the first_*_with / match_* searches call a C function
pointer for each vertex, on the calling thread. A Python exception cannot
cross the C frames in between, so the trampolines here catch it, tell the
library to stop as soon as it can, and re-raise it, unchanged, once the C
call has returned.
"""

import enum
from ctypes import byref, c_int

from . import _native
from .errors import InvalidArgumentError, call
from ._owned import ids_result
from ._native import lib

__all__ = ["Visit"]


class Visit(enum.IntEnum):
    """What a traversal visitor returns to steer the traversal (``dag_visit``)."""

    #: Go on, beyond this vertex too (returning None means the same).
    CONTINUE = 0
    #: Do not go beyond this vertex; go on elsewhere (Terraform's errStopWalkBranch).
    SKIP = 1
    #: End the traversal now (Terraform's errStopWalk); it still returns normally.
    STOP = 2


class _Visitor:
    """Calls a Python visitor from dag_traverse() and records what was visited."""

    def __init__(self, visitor, who):
        self.visitor = visitor
        self.who = who
        self.visited = []
        self.error = None
        self.c_fn = _native.VISIT_FN(self._call)

    def _call(self, vertex, depth, _user_data):
        if self.error is not None:
            return Visit.STOP
        self.visited.append((vertex, depth))
        if self.visitor is None:
            return Visit.CONTINUE
        try:
            answer = self.visitor(vertex, depth)
            if answer is None:
                return Visit.CONTINUE
            if answer in (Visit.CONTINUE, Visit.SKIP, Visit.STOP) and not isinstance(answer, bool):
                return int(answer)
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
    call(lib.dag_traverse, ptr, ids, count, flags, trampoline.c_fn, None)
    if trampoline.error is not None:
        error, trampoline.error = trampoline.error, None  # no cycle through the traceback
        raise error
    return trampoline.visited


class _Predicate:
    """Calls a Python predicate from the first_*_with / match_* searches."""

    def __init__(self, predicate):
        if not callable(predicate):
            raise TypeError(f"a predicate must be callable, not {type(predicate).__name__}")
        self.predicate = predicate
        self.error = None
        self.c_fn = _native.PREDICATE_FN(self._call)

    def _call(self, vertex, _user_data):
        if self.error is not None:
            # A match ends each branch (first_*_with) or the whole search
            # (match_*): the quickest way back to the caller.
            return 1
        try:
            return 1 if self.predicate(vertex) else 0
        except BaseException as exc:  # noqa: B902 - every exception must stop at the C boundary
            self.error = exc
            return 1

    def reraise(self):
        """Raises the predicate's exception, if it raised one."""
        if self.error is not None:
            error, self.error = self.error, None
            raise error


def first_with(fn, ptr, start, predicate):
    """dag_first_ancestors_with / dag_first_descendants_with; returns the matching ids."""
    ids, count = start
    trampoline = _Predicate(predicate)
    try:
        result = ids_result(fn, ptr, ids, count, trampoline.c_fn, None)
    except BaseException:
        trampoline.reraise()  # the predicate's own exception explains best
        raise
    trampoline.reraise()
    return result


def match(fn, ptr, start, predicate):
    """dag_match_ancestor / dag_match_descendant; returns True when some vertex matched."""
    ids, count = start
    trampoline = _Predicate(predicate)
    found = c_int()
    try:
        call(fn, ptr, ids, count, trampoline.c_fn, None, byref(found))
    except BaseException:
        trampoline.reraise()
        raise
    trampoline.reraise()
    return bool(found.value)
