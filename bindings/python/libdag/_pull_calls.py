"""The two calls a pull-walk host makes per vertex, made cheaply: a look for ready vertices and a completion.

ctypes converts every argument through a function's ``argtypes`` on each
call: about half of what a call costs from Python (3.5 us of 7 for a look
and a completion on the project's VM). These prototypes take arguments
already in C form, and the buffers are made once, so a host that makes
these calls for every vertex (the asyncio and executor walks) pays for the
call alone. One thread at a time per instance.
"""

from __future__ import annotations

import ctypes
from ctypes import byref, c_int, c_size_t, c_uint64, c_void_p

from . import _native
from ._native import lib
from .errors import error_for, in_python_terms, status_name, take_error
from .walk import _COMPLETE, SubwalkVertex, _describe, _encode_message, _walk_of, expansion_key

__all__ = ["PullCalls"]

_LOOK = ctypes.CFUNCTYPE(c_int)(("dag_walk_next_ready", lib))
_ERROR_FREE = ctypes.CFUNCTYPE(None)(("dag_error_free", lib))
_OK = _native.OK
_TIMEOUT = _native.E_TIMEOUT
_STATE = _native.E_STATE


class PullCalls:
    """Looks and completions for one :class:`~libdag.pull.PullWalker`, on one thread at a time.

    Both take the walk's pointer, read by the caller under
    ``handle.read()``: one read may cover many calls. `who`, the method the
    caller called (next_ready, walk_async, run_on...), heads their refusals.
    """

    def __init__(self, walker, who, limit=256):
        self.who = who
        self.limit = limit
        self.busy = False  # in a look on its thread (PullWalker.next_ready's per-thread instance)
        self._main = walker._callbacks_main()
        self._callbacks = walker._callbacks
        self._expanded = walker._expanded
        self._vertices = (c_uint64 * limit)()
        self._walks = (c_void_p * limit)()
        self._count = c_size_t()
        # The dag_error * both calls fill: an address, reset in place once
        # read, so the arguments made here stay valid.
        self._err = c_void_p()
        self._err_ref = byref(self._err)
        self._look_args = (self._vertices, self._walks, c_size_t(limit), 0, byref(self._count), self._err_ref)

    def look(self, ptr):
        """The ready vertices, taken without waiting: a list, [] once the walk has ended, None when none is ready."""
        self._count.value = 0  # handed_out() tells this look's, not the last one's
        status = _LOOK(ptr, *self._look_args)
        if status == _TIMEOUT:
            # What a host polling finds most often: the error's message is
            # not needed, only freed.
            if self._err.value:
                _ERROR_FREE(self._err)
                self._err.value = None
            return None
        message = self._take_error() if self._err.value else ""
        if status != _OK:
            raise _error(status, message, "dag_walk_next_ready", self.who)
        n = self._count.value
        ready = self._vertices[:n]
        handed = self._walks[:n]
        main = self._main
        if handed.count(main) != n:
            ready = [v if w == main else SubwalkVertex(v, w, self._callbacks) for v, w in zip(ready, handed)]
        if self._callbacks is not None:
            self._callbacks.new_attempts(ready)
        return ready

    def forget_handed_out(self):
        """Makes handed_out() tell nothing until the next look: its vertices have reached their caller."""
        self._count.value = 0

    def handed_out(self):
        """(vertices, walks, count) of the last look: what a Ctrl-C kept from its caller."""
        return self._vertices, self._walks, self._count.value

    def complete(self, ptr, vertex, error=None, cancelled=False, started=True):
        """Completes a vertex handed out: ok for `error` None, else failed with it (kept for the report).

        `cancelled`: its work never started, or was stopped, because the
        walk was cancelled; it ends cancelled, `error` its message. Where
        the walk has not been cancelled (an executor shut down by its owner,
        a task cancelled by another), it fails with `error` instead. Not
        `started`: its work never began (the report says it never ran).

        A vertex expanded while it was out ends with its sub-walk: its task's
        end decides nothing (an exception is kept for the report, as a
        callback walk keeps one raised after expand()).
        """
        if self._expanded:
            key = expansion_key(vertex)
            if key in self._expanded:
                self._expanded.discard(key)
                if error is not None:
                    self._callbacks.keep_exception(vertex, error)
                return
        before = None
        if error is None:
            result, message = _native.WALK_OK, None
        else:
            result, message = _native.WALK_FAILED, _encode_message(_describe(error))
            before = self._callbacks.keep_exception(vertex, error)
        walk = ptr if type(vertex) is int else c_void_p(_walk_of(vertex, ptr, self._callbacks, self.who))  # noqa: E721 - a SubwalkVertex is an int too
        if cancelled:
            status = _COMPLETE(walk, c_uint64(vertex), _native.WALK_CANCELLED, message, self._err_ref)
            if status == _STATE:
                # Refused: the walk was not cancelled. Failed, then.
                self._take_error()
                status = _COMPLETE(walk, c_uint64(vertex), result, message, self._err_ref)
        else:
            status = _COMPLETE(walk, c_uint64(vertex), result, message, self._err_ref)
        if status != _OK:
            if error is not None:
                # Refused: the exception decided nothing.
                self._callbacks.restore_exception(vertex, before)
            raise _error(status, self._take_error() if self._err.value else "", "dag_walk_complete", self.who)
        if not started:
            self._callbacks.keep_never_started(vertex)

    def _take_error(self):
        # The error is freed: the next call must not find its address there.
        message = take_error(ctypes.cast(self._err, _native.error_p))
        self._err.value = None
        return message


def _error(status, message, c_name, who):
    return error_for(status, in_python_terms(message, c_name, who) or f"{who}: {status_name(status)}")
