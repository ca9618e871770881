"""A flag set once that Ctrl-C can interrupt a wait for, cleanly."""

import threading


class Latch:
    """A flag set once, waited for in slices: threading.Event without its Python-level Condition.

    Ctrl-C landing inside ``Condition.wait`` while it takes its lock back
    (Python 3.11) left the lock released, and the ``with`` around it then
    raised ``RuntimeError: release unlocked lock`` instead of the
    KeyboardInterrupt, so the walk was not cancelled. A plain lock's
    ``acquire(timeout=...)`` is one C call that a signal interrupts cleanly.
    """

    def __init__(self):
        self._set = False
        self._held = threading.Lock()
        self._held.acquire()
        self._guard = threading.Lock()

    def set(self):
        with self._guard:
            if not self._set:
                self._set = True
                self._held.release()

    def is_set(self):
        return self._set

    def wait(self, timeout=None):
        """True once set; False if `timeout` seconds (None: no limit) passed first."""
        if self._set:
            return True
        # A negative timeout is no time at all, not a Lock's "for ever"; one beyond what a lock can wait
        # (inf) is no limit, not OverflowError.
        forever = timeout is None or float(timeout) > threading.TIMEOUT_MAX
        if self._held.acquire(timeout=-1 if forever else max(0.0, float(timeout))):
            self._held.release()
        return self._set
