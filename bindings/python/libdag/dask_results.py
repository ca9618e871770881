"""Fetches the values of finished Dask tasks for :mod:`libdag.dask`, many in one round trip.

A value stays on its worker until asked for, and asking costs a round trip
(milliseconds on a loaded machine). Dask runs done-callbacks one at a time
on one thread, so fetching there would add a round trip per task to the
walk's critical path; this thread instead takes every value waiting at
once with one ``client.gather``.
"""

from __future__ import annotations

import threading


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
            for (item, _), (value, error) in zip(batch, self._gather([future for _, future in batch])):
                self._deliver(item, value, error)

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
                    outcomes.append((None, error))
            return outcomes
