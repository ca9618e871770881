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
- close() frees the pointer only when nothing uses it, and fails with
  BusyError otherwise. Every later call raises ClosedError.

A walker is never changed through its handle, only read and closed, so its
handle is a :class:`WalkerHandle`, whose reads take no lock: a pull walk's
host reads it twice a vertex (a look and a completion), where the full
gate cost 1.6 us a read on the project's VM.
"""

import threading

from . import _native
from ._latch import Latch
from .errors import BusyError, ClosedError

_get_ident = threading.get_ident


class Handle:
    """A C pointer plus the gate that decides who may use it."""

    __slots__ = ("_ptr", "_free", "_kind", "_lock", "_cond", "_waiting", "_readers", "_reading", "_writer",
                 "_writers_waiting", "_walks")

    def __init__(self, ptr, free, kind):
        self._ptr = ptr
        self._free = free
        self._kind = kind  # "graph" or "walker", for messages
        # Every call enters the condition's lock directly: a Condition's own
        # __enter__ and notify_all are Python code, and a read is made for
        # every call. Reentrant: the garbage collector may run a finaliser
        # (a dropped Walker ending its walk of this graph) inside a section
        # under this lock on the same thread; and a Condition over an RLock
        # takes it back after a wait in one C call that Ctrl-C cannot cut in
        # two (over a Lock, an interrupt there left it released, and the
        # section's exit then released another thread's hold).
        self._lock = threading.RLock()
        self._cond = threading.Condition(self._lock)
        self._waiting = 0  # threads in _wait(): nobody to notify while 0
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

    def enter(self, who):
        """Begins a read and returns the pointer; pair with leave() (read() does both)."""
        me = _get_ident()
        with self._lock:
            if self._ptr is None or self._writers_waiting or (self._writer is not None and self._writer != me):
                while True:
                    self._check_open(who)
                    if self._writer == me or me in self._reading:
                        break
                    if self._writer is None and not self._writers_waiting:
                        break
                    self._wait()
            self._readers += 1
            reading = self._reading
            reading[me] = reading.get(me, 0) + 1
            return self._ptr

    def leave(self):
        """Ends a read begun with enter() on this thread."""
        me = _get_ident()
        with self._lock:
            self._readers -= 1
            reading = self._reading
            depth = reading[me] - 1
            if depth:
                reading[me] = depth
            else:
                del reading[me]
            if self._waiting and self._readers == 0:
                self._cond.notify_all()

    # -- changes -----------------------------------------------------------

    def write(self, who):
        """A context manager for a change: ``with handle.write("Graph.connect") as ptr``."""
        return _Write(self, who)

    def _begin_write(self, who):
        me = threading.get_ident()
        with self._lock:
            self._writers_waiting += 1
            try:
                while True:
                    self._check_open(who)
                    self._check_not_reading(who, me)
                    if self._walks:
                        raise BusyError(_native.E_BUSY, f"{who}: the {self._kind} is being walked")
                    if self._writer is None and self._readers == 0:
                        break
                    self._wait()
            finally:
                self._writers_waiting -= 1
                # Readers held back for this change may go on if it gave up.
                self._notify()
            self._writer = me
            return self._ptr

    def _end_write(self):
        with self._lock:
            self._writer = None
            self._notify()

    # -- walks -------------------------------------------------------------

    def begin_walk(self, who):
        """Marks the start of a walk and returns the pointer; pair with end_walk()."""
        me = threading.get_ident()
        with self._lock:
            while True:
                self._check_open(who)
                self._check_not_reading(who, me)
                if self._writer is None:
                    break
                self._wait()
            self._walks += 1
            # A change waiting for reads must see the walk and give up.
            self._notify()
            return self._ptr

    def end_walk(self):
        """Marks the end of a walk begun with begin_walk()."""
        with self._lock:
            self._walks -= 1
            self._notify()

    # -- closing -----------------------------------------------------------

    def close(self, who):
        """Frees the pointer once; fails with BusyError while anything uses the handle. Idempotent."""
        with self._lock:
            if self._ptr is None:
                return
            if self._readers or self._writer is not None or self._walks:
                raise BusyError(
                    _native.E_BUSY,
                    f"{who}: the {self._kind} is in use (being walked, read or changed); "
                    "close it once that has finished",
                )
            ptr, self._ptr = self._ptr, None
        self._free(ptr)

    def _wait(self):
        self._waiting += 1
        try:
            self._cond.wait()
        finally:
            self._waiting -= 1

    def _notify(self):
        if self._waiting:
            self._cond.notify_all()

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
        if self._writer == me:
            # It would wait for itself.
            raise BusyError(
                _native.E_BUSY,
                f"{who}: called from inside a change of the same {self._kind} "
                "(a build's prune predicate or observer); it cannot be changed or walked from there",
            )


class _Read:
    """``with handle.read(who) as ptr``, for both kinds of handle."""

    __slots__ = ("_handle", "_who")

    def __init__(self, handle, who):
        self._handle = handle
        self._who = who

    def __enter__(self):
        return self._handle.enter(self._who)

    def __exit__(self, *exc):
        self._handle.leave()
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


class WalkerHandle:
    """A walker's pointer: only read (any number of threads at once, also reentrantly) and closed.

    A read marks itself with its thread's id, appended to a list, then reads
    the pointer; close() clears the pointer, then frees it once the list is
    empty. Each is one step under the interpreter's lock (or, without a GIL,
    under the list's and the object's own), so either the read sees the
    pointer cleared or close() sees the read. The last read to leave a
    cleared handle sets ``_drained``, which close() waits for.
    """

    __slots__ = ("_ptr", "_free", "_reads", "_drained", "_closing")

    def __init__(self, ptr, free):
        self._ptr = ptr
        self._free = free
        self._reads = []  # the thread id of each read in progress
        self._drained = None  # a Latch, made by close()
        self._closing = threading.Lock()  # one close() at a time takes the pointer

    @property
    def closed(self):
        """True once close() has taken the pointer."""
        return self._ptr is None

    def read(self, who):
        """A context manager for a read: ``with handle.read("Walker.cancel") as ptr``."""
        return _Read(self, who)

    def enter(self, who):
        """Begins a read and returns the pointer; pair with leave() (read() does both)."""
        self._reads.append(_get_ident())
        ptr = self._ptr
        if ptr is None:
            self.leave()
            raise ClosedError(_native.E_STATE, f"{who}: the walker is closed")
        return ptr

    def leave(self):
        """Ends a read begun with enter() on this thread."""
        reads = self._reads
        reads.remove(_get_ident())
        if not reads and self._ptr is None:
            drained = self._drained
            if drained is not None:
                drained.set()

    def close(self, after=None):
        """Refuses new reads, frees the pointer once the reads in progress have left, then calls `after()`.

        Idempotent. Waits for those reads on this thread, unless this thread
        is inside one itself (a vertex function, waker or observer closing
        its own walker), which would wait for itself: then, and when the
        wait is interrupted (Ctrl-C, re-raised), the free and `after()`
        happen on a background thread as the last read leaves.
        """
        with self._closing:
            ptr = self._ptr
            if ptr is None:
                return
            drained = self._drained = Latch()
            self._ptr = None
        if _get_ident() in self._reads:
            self._free_later(ptr, drained, after)
            return
        try:
            if self._reads:
                drained.wait()
        except BaseException:  # noqa: B902 - Ctrl-C: the walk is still freed
            self._free_later(ptr, drained, after)
            raise
        self._release(ptr, after)

    def _free_later(self, ptr, drained, after):
        def free():
            if self._reads:
                drained.wait()
            self._release(ptr, after)

        threading.Thread(target=free, name="libdag-walker-free", daemon=True).start()

    def _release(self, ptr, after):
        self._free(ptr)
        if after is not None:
            after()
