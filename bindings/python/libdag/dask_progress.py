"""What ``python3 -m libdag.dask`` shows while a walk runs: progress and each command's output.

The same as ``dag walk``'s (tools/dag/status_line.cpp): on a terminal one
status line, ``[done/total] running N, failed F, elapsed, rate: a running
vertex``, redrawn in place; elsewhere ``[done/total] name`` as each vertex
finishes. "Running" here means handed to the cluster (submitted, or waiting
for its pool). Each command's output, kept whole, is printed when its vertex
finishes, each line after ``name: ``.
"""

from __future__ import annotations

import os
import sys
import threading
import time

from .walk import VertexStatus, WalkEvent

# Often enough for the clock to move, not so often that drawing costs.
REDRAW_S = 0.1
# The statuses in the summary line's words, as `dag walk`'s progress lines say them.
_WORDS = {
    VertexStatus.OK: "ok",
    VertexStatus.FAILED: "failed",
    VertexStatus.UPSTREAM_FAILED: "upstream failed",
    VertexStatus.CANCELLED: "cancelled",
    VertexStatus.NOT_RUN: "not run",
}
_CLEAR_TO_END = "\x1b[K"


def can_redraw(stream) -> bool:
    """True when `stream` is a terminal that understands the line's escape codes."""
    return stream.isatty() and os.environ.get("TERM") != "dumb"


def fit(line: str, columns: int) -> str:
    """`line` cut to `columns` characters."""
    return line[:max(columns, 0)]


def prefixed(name: str, text: str) -> str:
    """Each line of `text` after "name: ", a missing last newline added."""
    lines = text.split("\n")  # only at newlines, as dag walk does
    if lines[-1] == "":
        lines.pop()
    return "".join(f"{name}: {line}\n" for line in lines)


class Progress:
    """The walk's observer and the one writer of its output: every line goes out under one lock, whole."""

    def __init__(self, label, show: bool, out=None, err=None, on_reader_gone=None):
        self._label = label  # vertex id -> name
        # Called once when standard output's reader has gone (EPIPE); output is dropped from then on.
        self._on_reader_gone = on_reader_gone
        self.gone = False
        self._out = out or sys.stdout
        self._err = err or sys.stderr
        self._show = show
        self._redraw = show and can_redraw(self._err)
        self._lock = threading.Lock()
        self._began = time.monotonic()
        self._drawn = 0.0
        self._running = {}  # vertex -> name, in the order they started: the line names the longest running
        self._finished = 0
        self._failed = 0
        self._total = 0
        self._shown = False
        # name -> [(out, err)]: a command's output, held for its vertex's finish line so that the two
        # go out together (another vertex's line could come between them otherwise).
        self._held = {}

    def observe(self, event, vertex, status, _running, _done, total):
        """A walk observer (``observer=`` of :func:`libdag.dask.start`)."""
        if not self._show or (event == WalkEvent.STARTED and not self._redraw):
            return
        name = self._label(vertex)
        with self._lock:
            self._total = total
            if event == WalkEvent.STARTED:
                self._running[vertex] = name
                self._tick()
                return
            self._running.pop(vertex, None)
            self._write_held(name)
            # libdag's own `done` may arrive out of order; a count taken under the lock goes up by one a line.
            self._finished += 1
            if status == VertexStatus.FAILED:
                self._failed += 1
            if self._redraw:
                self._draw()
            elif status == VertexStatus.OK:
                self._err.write(f"[{self._finished}/{total}] {name}\n")
            else:
                self._err.write(f"[{self._finished}/{total}] {name} ({_WORDS[status]})\n")

    def output(self, name: str, out: str, err: str) -> None:
        """Prints what a vertex's command wrote, each line after "name: "."""
        if not out and not err:
            return
        with self._lock:
            self._held.setdefault(name, []).append((out, err))
            if not self._show:  # no finish line to go with
                self._write_held(name)

    def reader_gone(self) -> None:
        """Standard output's reader has gone: nothing more is written there, and the walk is told once."""
        if not self.gone:
            self.gone = True
            if self._on_reader_gone:
                self._on_reader_gone()

    def _write_held(self, name):
        for out, err in self._held.pop(name, ()):
            self._erase()
            if not self.gone:
                try:
                    self._out.write(prefixed(name, out))
                    self._out.flush()
                except BrokenPipeError:
                    self.reader_gone()
            self._err.write(prefixed(name, err))
            self._err.flush()

    def tick(self) -> None:
        """Redraws the status line if the last draw is older than REDRAW_S."""
        if self._redraw:
            with self._lock:
                self._tick()

    def erase(self) -> None:
        """Before anything else is written to the terminal, and at the end (with any output still held)."""
        with self._lock:
            for name in list(self._held):
                self._write_held(name)
            self._erase()

    def _tick(self):
        if time.monotonic() - self._drawn >= REDRAW_S:
            self._draw()

    def _erase(self):
        if self._shown:
            self._err.write("\r" + _CLEAR_TO_END)
            self._err.flush()
            self._shown = False

    def _draw(self):
        self._drawn = time.monotonic()
        seconds = self._drawn - self._began
        rate = self._finished / seconds if seconds > 0 else 0.0
        line = (f"[{self._finished}/{self._total}] running {len(self._running)}, failed {self._failed}, "
                f"{seconds:.1f} s, {rate:.0f}/s")
        if self._running:
            line += ": " + next(iter(self._running.values()))
        try:
            columns = os.get_terminal_size(self._err.fileno()).columns
        except (OSError, ValueError):
            columns = 0
        columns = columns or 80  # a terminal that says nothing of its size (0), or not one at all
        # One column short of the width: a line that fills it makes some terminals wrap.
        self._err.write("\r" + fit(line, columns - 1) + _CLEAR_TO_END)
        self._err.flush()
        self._shown = True
