"""Fetches the values of finished Dask tasks for :mod:`libdag.dask`, many in one round trip.

A value stays on its worker until asked for, and asking costs a round trip
(milliseconds on a loaded machine). Dask runs done-callbacks one at a time
on one thread, so fetching there would add a round trip per task to the
walk's critical path; this thread instead takes every value waiting at
once with one ``client.gather``.
"""

from __future__ import annotations

import threading
import traceback


class ResultFetcher:
    """A thread that gathers finished futures' values and hands each to `deliver(item, value, error)`."""

    def __init__(self, client, deliver):
        self._client = client
        self._deliver = deliver
        self._ready = threading.Condition()
        self._pending = []  # (item, future)
        self._thread = None
        self._closed = False

    def add(self, item, future) -> None:
        """Fetches `future`'s value (it has finished ok), then delivers it with `item`."""
        with self._ready:
            self._pending.append((item, future))
            if self._thread is None:
                self._thread = threading.Thread(target=self._run, name="libdag-dask-results", daemon=True)
                self._thread.start()
            self._ready.notify()

    def close(self) -> None:
        """Ends the thread once what was added has been delivered."""
        with self._ready:
            self._closed = True
            self._ready.notify()
            thread = self._thread
        if thread is not None and thread is not threading.current_thread():
            thread.join()

    def _run(self):
        while True:
            with self._ready:
                while not self._pending and not self._closed:
                    self._ready.wait()
                if not self._pending:
                    return
                batch, self._pending = self._pending, []
            outcomes = self._gather([future for _, future in batch])
            items = [item for item, _ in batch]
            # An exception that a delivery's vertex keeps in the walk's report (on_result's) holds this
            # frame through its traceback: it must not hold the futures, each keeping its value on its
            # worker while it lives, nor the values, once delivered.
            batch = None
            for index, item in enumerate(items):
                value, error = outcomes[index]
                outcomes[index] = None
                self._deliver(item, value, error)
                value = error = None

    def _gather(self, futures):
        """[(value, None) or (None, error)] for `futures`, in one round trip unless one of them fails."""
        try:
            return [(value, None) for value in self._client.gather(futures)]
        except Exception:  # noqa: B902 - e.g. a value lost with its worker: each on its own, to say which
            outcomes = []
            for future in futures:
                try:
                    outcomes.append((future.result(), None))
                except Exception as error:  # noqa: B902
                    # Kept in the walk's report: its traceback's frames (this one, distributed's) must
                    # not keep the futures alive.
                    traceback.clear_frames(error.__traceback__)
                    outcomes.append((None, error))
            futures = future = None
            return outcomes
