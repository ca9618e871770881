"""Ownership of a C handle, shared safely between Python threads.

ctypes releases the GIL around every C call, so two Python threads can be
inside libdag on the same graph at once. The C API allows concurrent reads
(``const dag_graph *``) but a change needs exclusive access, and freeing a
handle while another thread uses it is a use after free. A Python program
must not be able to crash the interpreter that way, so every call goes
through a :class:`Handle`, a readers-writer gate around the pointer:

- reads run together; they wait for a change in progress or waiting to
  start (so that a stream of reads cannot starve a change), except on a
  thread already reading the same handle, which would wait for itself;
- a change waits until no read is in progress;
- while a walk of the graph runs, reads go on (callbacks read the graph)
  and a change fails at once with BusyError, as the library itself would
  answer; waiting for the walk could deadlock a walk callback;
- a change or a walk started from inside a read on the same thread (a
  traversal visitor or predicate changing the graph it is called for) fails
  with BusyError instead of waiting for itself;
- close() frees the pointer only when nothing uses it: for a graph it
  fails with BusyError otherwise; for a walker (whose users only wait for
  the walk or make short calls) it refuses new users and frees the pointer
  when the last one has left. Every later call raises ClosedError.
"""

import threading

from . import _native
from .errors import BusyError, ClosedError


class Handle:
    """A C pointer plus the gate that decides who may use it."""

    __slots__ = ("_ptr", "_free", "_kind", "_cond", "_readers", "_reading", "_writer", "_writers_waiting",
                 "_walks")

    def __init__(self, ptr, free, kind):
        self._ptr = ptr
        self._free = free
        self._kind = kind  # "graph" or "walker", for messages
        self._cond = threading.Condition(threading.Lock())
        self._readers = 0
        self._reading = {}  # thread ident -> reads it has in progress
        self._writer = None  # thread ident of the change in progress
        self._writers_waiting = 0
        self._walks = 0

    @property
    def closed(self):
        """True once close() has taken the pointer."""
        return self._ptr is None

    # -- reads -------------------------------------------------------------

    def read(self, who):
        """A context manager for a read: ``with handle.read("Graph.name") as ptr``."""
        return _Read(self, who)

    def _begin_read(self, who):
        me = threading.get_ident()
        with self._cond:
            while True:
                self._check_open(who)
                if self._writer == me or me in self._reading:
                    break
                if self._writer is None and not self._writers_waiting:
                    break
                self._cond.wait()
            self._readers += 1
            self._reading[me] = self._reading.get(me, 0) + 1
            return self._ptr

    def _end_read(self):
        me = threading.get_ident()
        with self._cond:
            self._readers -= 1
            depth = self._reading[me] - 1
            if depth:
                self._reading[me] = depth
            else:
                del self._reading[me]
            if self._readers == 0:
                self._cond.notify_all()

    # -- changes -----------------------------------------------------------

    def write(self, who):
        """A context manager for a change: ``with handle.write("Graph.connect") as ptr``."""
        return _Write(self, who)

    def _begin_write(self, who):
        me = threading.get_ident()
        with self._cond:
            self._writers_waiting += 1
            try:
                while True:
                    self._check_open(who)
                    self._check_not_reading(who, me)
                    if self._walks:
                        raise BusyError(_native.E_BUSY, f"{who}: the {self._kind} is being walked")
                    if self._writer is None and self._readers == 0:
                        break
                    self._cond.wait()
            finally:
                self._writers_waiting -= 1
                # Readers held back for this change may go on if it gave up.
                self._cond.notify_all()
            self._writer = me
            return self._ptr

    def _end_write(self):
        with self._cond:
            self._writer = None
            self._cond.notify_all()

    # -- walks -------------------------------------------------------------

    def begin_walk(self, who):
        """Marks the start of a walk and returns the pointer; pair with end_walk()."""
        me = threading.get_ident()
        with self._cond:
            while True:
                self._check_open(who)
                self._check_not_reading(who, me)
                if self._writer is None:
                    break
                self._cond.wait()
            self._walks += 1
            # A change waiting for reads must see the walk and give up.
            self._cond.notify_all()
            return self._ptr

    def end_walk(self):
        """Marks the end of a walk begun with begin_walk()."""
        with self._cond:
            self._walks -= 1
            self._cond.notify_all()

    # -- closing -----------------------------------------------------------

    def close(self, who, wait=False):
        """Frees the pointer once. Idempotent.

        With ``wait=False`` (graphs) it fails with BusyError while anything
        uses the handle. With ``wait=True`` (walkers, whose users only wait
        for the walk or make short calls) it refuses new users at once and
        frees the pointer when the last one has left.
        """
        with self._cond:
            if self._ptr is None:
                return
            if wait:
                ptr, self._ptr = self._ptr, None
                while self._readers or self._writer is not None:
                    self._cond.wait()
            elif self._readers or self._writer is not None or self._walks:
                raise BusyError(
                    _native.E_BUSY,
                    f"{who}: the {self._kind} is in use (being walked, read or changed); "
                    "close it once that has finished",
                )
            else:
                ptr, self._ptr = self._ptr, None
        self._free(ptr)

    def _check_open(self, who):
        if self._ptr is None:
            raise ClosedError(_native.E_STATE, f"{who}: the {self._kind} is closed")

    def _check_not_reading(self, who, me):
        if me in self._reading:
            raise BusyError(
                _native.E_BUSY,
                f"{who}: called from inside a read of the same {self._kind} "
                "(a traversal visitor or predicate); it cannot be changed or walked from there",
            )


class _Read:
    __slots__ = ("_handle", "_who")

    def __init__(self, handle, who):
        self._handle = handle
        self._who = who

    def __enter__(self):
        return self._handle._begin_read(self._who)

    def __exit__(self, *exc):
        self._handle._end_read()
        return False


class _Write:
    __slots__ = ("_handle", "_who")

    def __init__(self, handle, who):
        self._handle = handle
        self._who = who

    def __enter__(self):
        return self._handle._begin_write(self._who)

    def __exit__(self, *exc):
        self._handle._end_write()
        return False
