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
handle is a :class:`WalkerHandle`, whose reads take no gate: a pull walk's
host reads it twice a vertex (a look and a completion).

Ctrl-C (KeyboardInterrupt) may land wherever CPython checks for signals:
at the top of every Python function and after every C call (Python 3.10
also on a jump taken, 3.8 and 3.9 after almost any instruction). A call is
therefore counted as in progress by a lock of its own (a :class:`_Mark`)
that the ``with`` statement releases in C, never by a count a Python
``__exit__`` would have to undo, and whoever waits for a call waits by
taking its lock, never for a notification a Ctrl-C could skip: wherever one
Ctrl-C lands, nothing stays counted (tests/test_interrupt.py raises it at
each of those places in turn; on 3.8 and 3.9 but where a block ends, before
its ``__exit__`` or ``finally`` runs, a window CPython leaves open).
"""

import _thread
import collections
import threading
import time

from . import _native
from .errors import BusyError, ClosedError

_get_ident = threading.get_ident


class _Mark(_thread.RLock):
    """One read or change in progress: a lock its thread holds from the moment it counts.

    The ``with`` statement around a call ends it with the lock's own
    ``__exit__``, which is C: CPython raises a Ctrl-C's KeyboardInterrupt at
    the first instruction of any Python function and after C calls, so a
    Python ``__exit__`` could be cut off before its first line and leave the
    call counted for ever (measured: about one interrupt in 10,000 on a loop
    of reads). ``__enter__`` counts the call last, with stores that are not
    calls, and returns at once, so it is counted only if the ``with`` will
    end it. Others see that a call has ended when its lock is free
    (:func:`_released`) and wait for its end by taking the lock and giving
    it back (:func:`_wait_released`).
    """

    __slots__ = ("_gate", "_who")  # set by the handle's read() or write(): no __init__ to call


def _released(mark):
    """True when no thread holds `mark`, another thread's mark (this thread's own is never asked about)."""
    # Taken and given back inside the try: a mark left held by the wrong
    # thread would look like a call in progress. Not in a finally, whose
    # normal path runs after the try has ended: Python 3.10 raises a Ctrl-C
    # on the jump there, 3.8 and 3.9 before it.
    try:
        if mark.acquire(False):
            mark.release()
            return True
        return False
    except BaseException:  # noqa: B902 - Ctrl-C just after the acquire
        if mark._is_owned():
            mark.release()
        raise


def _wait_released(mark):
    """Waits until the thread holding `mark` lets it go; Ctrl-C interrupts the wait.

    Not ``with mark``: a mark's ``__enter__`` is the gate's own.
    """
    try:
        if mark.acquire():
            mark.release()
    except BaseException:  # noqa: B902 - Ctrl-C just after the acquire: as in _released()
        if mark._is_owned():
            mark.release()
        raise


def _drop_released(marks):
    """Drops the ended calls of this thread from the end of its marks (they end in reverse order).

    Only a mark's own thread changes its list: another thread removing an
    entry between this loop's test and its ``del`` would make it drop a
    call in progress.
    """
    while marks and not marks[-1]._is_owned():
        del marks[-1]


def _marks_of_this_thread(reads):
    """This thread's list in `reads` (made if new), its ended calls dropped: those in progress."""
    me = _get_ident()
    mine = reads.get(me)
    if mine is None:
        return reads.setdefault(me, [])
    if mine:
        _drop_released(mine)
    return mine


def _read_in_progress(reads, me):
    """A read of a thread other than `me` still in progress, or None."""
    for thread, marks in list(reads.items()):
        if thread != me:
            for read in list(marks):
                if not _released(read):
                    return read
    return None


def _uncount(mine, n, mark):
    """Undoes what a mark's ``__enter__`` interrupted by Ctrl-C had done: its entry at `n` in `mine`, its lock."""
    if len(mine) > n and mine[n] is mark:
        del mine[n:]
    if mark._is_owned():
        mark.release()


def _new_mark(kind, gate, who):
    mark = kind()
    mark._gate = gate
    mark._who = who
    return mark


class Handle:
    """A C pointer plus the gate that decides who may use it."""

    __slots__ = ("_ptr", "_free", "_kind", "_lock", "_reads", "_writer", "_writers_waiting", "_walks")

    def __init__(self, ptr, free, kind):
        self._ptr = ptr
        self._free = free
        self._kind = kind  # "graph" or "walker", for messages
        # Taken for the slow paths only: a read that meets no change takes
        # no lock. Reentrant: the garbage collector may run a finaliser (a
        # dropped Walker ending its walk of this graph) inside a section
        # under this lock on the same thread. Nobody waits under it: waits
        # are on marks, whose release (C) needs no notification, which a
        # Ctrl-C could skip.
        self._lock = threading.RLock()
        # thread id -> [_Read], in the order begun; a read is in progress
        # while its thread holds its mark. Ended ones are dropped by their
        # thread's next call.
        self._reads = {}
        self._writer = None  # the _Write of the latest change; in progress while held
        # Sets, changed by one C call each (add, discard), not counts: Python
        # 3.8 and 3.9 may raise a Ctrl-C between a count's update and the
        # store of the flag that says it was made.
        self._writers_waiting = set()  # the marks of the changes waiting for another
        self._walks = set()  # the _walk_token of each walker whose walk of the graph runs

    @property
    def closed(self):
        """True once close() has taken the pointer."""
        return self._ptr is None

    # -- reads -------------------------------------------------------------

    def read(self, who):
        """A context manager for a read: ``with handle.read("Graph.name") as ptr``."""
        return _new_mark(_Read, self, who)

    def _wait_for_changes(self, who):
        """Returns once no change runs or waits to (nothing counted yet: Ctrl-C may land anywhere)."""
        while True:
            with self._lock:
                self._check_open(who)
                writer = self._current_writer()
                if writer is None and not self._writers_waiting:
                    return
            if writer is None:
                # A change waiting for another is taking over (or giving up):
                # a moment, then it is waited for like any.
                time.sleep(0.0005)
            else:
                _wait_released(writer)

    def _current_writer(self):
        """The change in progress, or None (forgetting one that has ended); under the lock."""
        writer = self._writer
        if writer is not None and not writer._is_owned() and _released(writer):
            self._writer = writer = None
        return writer

    # -- changes -----------------------------------------------------------

    def write(self, who):
        """A context manager for a change: ``with handle.write("Graph.connect") as ptr``."""
        return _new_mark(_Write, self, who)

    def _begin_write(self, mark, me, who):
        """Makes `mark` the change in progress and returns the pointer once no other call runs.

        The caller undoes ``_writer`` if this raises after setting it.
        """
        with self._lock:
            self._check_write(who, me)
            taken = self._take_write(mark, me)
        if not taken:
            self._wait_to_write(mark, me, who)
        # Reads that began before this change was announced: new ones see it
        # and wait, or are nested in one of these.
        while True:
            read = _read_in_progress(self._reads, me)
            if read is None:
                return self._ptr
            _wait_released(read)

    def _check_write(self, who, me):
        self._check_open(who)
        self._check_not_reading(who, me)
        if self._walks:
            raise BusyError(_native.E_BUSY, f"{who}: the {self._kind} is being walked")

    def _take_write(self, mark, me):
        """Under the lock: makes `mark` the change in progress unless another one is."""
        if self._current_writer() is not None:
            return False
        if not mark._is_owned():  # held already by a build resuming (resume_write)
            mark.acquire()
        self._writer = mark
        return True

    def _wait_to_write(self, mark, me, who):
        """Waits for the change in progress, counted as waiting (new reads hold back), then takes it."""
        try:
            self._writers_waiting.add(mark)
            while True:
                with self._lock:
                    self._check_write(who, me)
                    if self._take_write(mark, me):
                        # Here as well: Python 3.8 and 3.9 may raise a
                        # Ctrl-C as the try ends, before its finally runs.
                        self._writers_waiting.discard(mark)
                        return
                    writer = self._writer
                _wait_released(writer)
        finally:
            self._writers_waiting.discard(mark)

    def _undo_write(self, mark):
        """Ends a change whose ``__enter__`` failed after it was announced.

        Without the lock: while `mark` is held nobody else sets ``_writer``,
        and it is cleared before the release lets anyone in.
        """
        if self._writer is mark:
            self._writer = None
            mark.release()

    def pause_write(self, mark):
        """Lets others in during a change: a build's Python step changes the graph through its methods.

        Releases `mark`, so that whoever waits for the change goes on;
        resume_write() takes it back for the ``with`` around the build to
        end as usual.
        """
        if self._writer is mark:
            self._writer = None
        if mark._is_owned():
            mark.release()

    def resume_write(self, mark, who):
        """Makes the paused `mark` the change in progress again, once no other call runs.

        On failure `mark` is held all the same, but not the change in
        progress: the build stops at the failed step and its ``with`` ends.
        """
        try:
            self._begin_write(mark, _get_ident(), who)
        except BaseException:
            if self._writer is mark:
                self._writer = None
            if not mark._is_owned():
                mark.acquire()
            raise

    # -- walks -------------------------------------------------------------

    def begin_walk(self, who, walker):
        """Marks the start of `walker`'s walk and returns the pointer; end_walk(walker) ends it.

        Counts the walk by the walker's token in one step, so a Ctrl-C
        anywhere leaves it counted or not, and end_walk() undoes exactly
        what was done.
        """
        me = _get_ident()
        while True:
            with self._lock:
                self._check_open(who)
                self._check_not_reading(who, me)
                writer = self._current_writer()
                if writer is None:
                    self._walks.add(walker._walk_token)
                    return self._ptr
            _wait_released(writer)

    def end_walk(self, walker):
        """Ends the walk begun by begin_walk(walker), if it is counted; idempotent."""
        self._walks.discard(walker._walk_token)

    # -- closing -----------------------------------------------------------

    def close(self, who):
        """Frees the pointer once; fails with BusyError while anything uses the handle. Idempotent.

        Announced as a change while it looks: reads take no lock, and one
        that begins after its thread was looked at backs off on seeing it.
        """
        mark = _new_mark(_Close, self, who)
        freed = False
        try:
            while True:
                with self._lock:
                    if self._ptr is None:
                        return
                    me = _get_ident()
                    writer = self._current_writer()
                    if type(writer) is not _Close or writer._is_owned():
                        if not (_marks_of_this_thread(self._reads) or writer is not None or self._walks):
                            mark.acquire()
                            self._writer = mark
                        break
                # Another close() is looking: it closes the handle, or finds it in use.
                _wait_released(writer)
            if self._writer is mark and _read_in_progress(self._reads, me) is None:
                ptr, self._ptr = self._ptr, None
                freed = True
                self._free(ptr)
        finally:
            # Inline, not _undo_write(): a Ctrl-C at the top of a call would
            # leave the mark held.
            if self._writer is mark:
                self._writer = None
                mark.release()
        if not freed:
            raise BusyError(
                _native.E_BUSY,
                f"{who}: the {self._kind} is in use (being walked, read or changed); "
                "close it once that has finished",
            )

    def _check_open(self, who):
        if self._ptr is None:
            raise ClosedError(_native.E_STATE, f"{who}: the {self._kind} is closed")

    def _check_not_reading(self, who, me):
        mine = self._reads.get(me)
        if mine:
            _drop_released(mine)
            if mine:
                raise BusyError(
                    _native.E_BUSY,
                    f"{who}: called from inside a read of the same {self._kind} "
                    "(a traversal visitor or predicate); it cannot be changed or walked from there",
                )
        writer = self._writer
        if writer is not None and writer._is_owned():
            # It would wait for itself.
            raise BusyError(
                _native.E_BUSY,
                f"{who}: called from inside a change of the same {self._kind} "
                "(a build's prune predicate or observer); it cannot be changed or walked from there",
            )


class _Read(_Mark):
    """``with handle.read(who) as ptr`` on a :class:`Handle`; ended by the lock's C ``__exit__``."""

    __slots__ = ()

    def __enter__(self):
        gate = self._gate
        mine = _marks_of_this_thread(gate._reads)
        # Inside a read or a change of this thread: it would wait for itself.
        writer = gate._writer
        nested = bool(mine) or (writer is not None and writer._is_owned())
        n = len(mine)
        while True:
            if not nested and (gate._writer is not None or gate._writers_waiting or gate._ptr is None):
                gate._wait_for_changes(self._who)
            try:
                self.acquire()
                # From here to the return: no call, so no Ctrl-C from Python
                # 3.10 on (a slice assignment appends without one); 3.8 and
                # 3.9 may raise one after any of these, hence the except.
                mine[n:] = (self,)
                if nested or (gate._writer is None and not gate._writers_waiting):
                    ptr = gate._ptr
                    if ptr is not None:
                        return ptr
                # A change was announced meanwhile (or the handle closed): let it go first.
                del mine[n:]
                self.release()
            except BaseException:  # noqa: B902 - Ctrl-C: not counted, as the with will not end it
                _uncount(mine, n, self)
                raise
            if nested:
                gate._check_open(self._who)


class _Write(_Mark):
    """``with handle.write(who) as ptr``; the change is in progress while its mark is held."""

    __slots__ = ()

    def __enter__(self):
        gate = self._gate
        try:
            ptr = gate._begin_write(self, _get_ident(), self._who)
        except BaseException:
            gate._undo_write(self)
            raise
        # Outside the try: no call, so no Ctrl-C (a return inside it is not covered by its except).
        return ptr


class WalkerHandle:
    """A walker's pointer: only read (any number of threads at once, also reentrantly) and closed.

    A read takes a mark of its own (:class:`_WalkerRead`), records it under
    its thread, then reads the pointer; close() clears the pointer, then
    frees it once every recorded mark is free. Each step is one bytecode
    under the interpreter's lock (or, without a GIL, under the dict's and
    the object's own), so either the read sees the pointer cleared or
    close() sees the read.
    """

    __slots__ = ("_ptr", "_free", "_reads", "_closing", "_pending")

    def __init__(self, ptr, free):
        self._ptr = ptr
        self._free = free
        self._reads = {}  # thread id -> [_WalkerRead], as Handle._reads
        self._closing = threading.Lock()  # one close() at a time takes the pointer
        self._pending = None  # (pointer, after) taken by close() and not freed yet

    @property
    def closed(self):
        """True once close() has taken the pointer."""
        return self._ptr is None

    def read(self, who):
        """A context manager for a read: ``with handle.read("Walker.cancel") as ptr``."""
        return _new_mark(_WalkerRead, self, who)

    def close(self, after=None):
        """Refuses new reads, frees the pointer once the reads in progress have left, then calls `after()`.

        Idempotent. Waits for those reads on this thread, unless this thread
        is inside one itself (a vertex function, waker or observer closing
        its own walker), which would wait for itself: then, and when the
        wait is interrupted (Ctrl-C, re-raised), the free and `after()`
        happen on a background thread as the last read leaves.

        The pointer taken and `after` wait in ``_pending``, which exactly
        one of this call and the background thread empties and frees: a
        Ctrl-C anywhere here leaves the walk to the background thread, and
        it is never freed twice.
        """
        pending = holder = ptr = None
        try:
            with self._closing:
                ptr = self._ptr
                if ptr is None:
                    return
                self._ptr = None
                self._pending = (ptr, after)
            mine = self._reads.get(_get_ident())
            if mine:
                _drop_released(mine)
                if mine:
                    self._free_later()
                    return
            self._wait_for_reads()
            pending, self._pending = self._pending, None
            if pending is None:
                return  # a background thread of an interrupted close() has it
            # Taken from `holder` and freed by one C call: a Ctrl-C after it
            # (by any Python) finds `holder` empty, one before it the walk
            # in `holder`, never freed twice nor lost.
            holder = [None, pending[0]]
            collections.deque(map(self._free, iter(holder.pop, None)), 0)
            if pending[1] is not None:
                pending[1]()
        except BaseException as exc:  # noqa: B902 - Ctrl-C, also just after the pointer was taken: still freed
            if pending is None:
                if ptr is not None and self._ptr is None and self._pending is None:
                    # Cleared, not yet pending (Python 3.8 and 3.9 raise a
                    # Ctrl-C between two stores): the background thread's.
                    self._pending = (ptr, after)
                self._free_later()
            elif holder is None or holder:
                self._pending = pending  # taken, not freed: the background thread's
                self._free_later()
            elif pending[1] is not None and isinstance(exc, KeyboardInterrupt):
                # Ctrl-C as it began (the walk freed, the graph not yet
                # let go): it is idempotent, so run it whole, then raise.
                pending[1]()
            raise

    def _wait_for_reads(self):
        me = _get_ident()
        while True:
            read = _read_in_progress(self._reads, me)
            if read is None:
                return
            _wait_released(read)

    def _free_later(self):
        def free():
            # On a thread of its own: no KeyboardInterrupt comes there.
            self._wait_for_reads()
            with self._closing:
                pending, self._pending = self._pending, None
            if pending is not None:
                self._free(pending[0])
                if pending[1] is not None:
                    pending[1]()

        threading.Thread(target=free, name="libdag-walker-free", daemon=True).start()


class _Close(_Write):
    """The change a Graph close() announces while it looks for reads: another close() waits for it."""

    __slots__ = ()


class _WalkerRead(_Mark):
    """``with handle.read(who) as ptr`` on a :class:`WalkerHandle`: no lock but the mark."""

    __slots__ = ()

    def __enter__(self):
        gate = self._gate
        mine = _marks_of_this_thread(gate._reads)
        n = len(mine)
        try:
            self.acquire()
            # From here to the return: no call, so no Ctrl-C from Python 3.10
            # on; 3.8 and 3.9 may raise one after any of these.
            mine[n:] = (self,)
            ptr = gate._ptr
            if ptr is not None:
                return ptr
            del mine[n:]
            self.release()
        except BaseException:  # noqa: B902 - Ctrl-C: not counted, as the with will not end it
            _uncount(mine, n, self)
            raise
        raise ClosedError(_native.E_STATE, f"{self._who}: the walker is closed")
