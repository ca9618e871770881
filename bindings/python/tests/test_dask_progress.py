"""What python3 -m libdag.dask shows while it walks (libdag.dask_progress); needs no Dask."""

import io
import os
import unittest
from unittest import mock

from libdag import VertexStatus, WalkEvent
from libdag.dask_progress import Progress, fit, prefixed

NAMES = {0: "db", 1: "web", 2: "cache"}


class Terminal(io.StringIO):
    """Standard error on a terminal (80 columns: it has no file descriptor to ask)."""

    def isatty(self):
        return True


class DaskProgressTest(unittest.TestCase):
    def test_lines_when_not_a_terminal(self):
        out, err = io.StringIO(), io.StringIO()
        progress = Progress(NAMES.__getitem__, True, out, err)
        progress.observe(WalkEvent.STARTED, 0, VertexStatus.NOT_RUN, 1, 0, 3)
        progress.output("db", "created\n", "slow disk")
        progress.observe(WalkEvent.FINISHED, 0, VertexStatus.OK, 0, 1, 3)
        progress.observe(WalkEvent.FINISHED, 1, VertexStatus.FAILED, 0, 2, 3)
        progress.observe(WalkEvent.SKIPPED, 2, VertexStatus.UPSTREAM_FAILED, 0, 3, 3)
        progress.tick()
        progress.erase()
        self.assertEqual(out.getvalue(), "db: created\n")
        self.assertEqual(err.getvalue(), "db: slow disk\n[1/3] db\n[2/3] web (failed)\n[3/3] cache (upstream failed)\n")

    def test_a_commands_output_goes_out_with_its_own_finish_line(self):
        # The output arrives on one thread and the vertex's finish on another; a line of another
        # vertex that finishes in between must not separate them.
        out, err = io.StringIO(), io.StringIO()
        progress = Progress(NAMES.__getitem__, True, out, err)
        progress.output("db", "", "broke\n")
        progress.observe(WalkEvent.FINISHED, 1, VertexStatus.OK, 0, 1, 3)
        progress.observe(WalkEvent.FINISHED, 0, VertexStatus.FAILED, 0, 2, 3)
        progress.output("cache", "late\n", "")  # no finish line comes: the end prints it
        progress.erase()
        self.assertEqual(err.getvalue(), "[1/3] web\ndb: broke\n[2/3] db (failed)\n")
        self.assertEqual(out.getvalue(), "cache: late\n")

    def test_nothing_when_not_shown(self):
        out, err = io.StringIO(), Terminal()
        progress = Progress(NAMES.__getitem__, False, out, err)
        progress.observe(WalkEvent.STARTED, 0, VertexStatus.NOT_RUN, 1, 0, 3)
        progress.observe(WalkEvent.FINISHED, 0, VertexStatus.OK, 0, 1, 3)
        progress.output("db", "", "")
        progress.tick()
        self.assertEqual((out.getvalue(), err.getvalue()), ("", ""))

    def test_status_line_on_a_terminal(self):
        out, err = io.StringIO(), Terminal()
        with mock.patch.dict(os.environ, {"TERM": "xterm"}):
            progress = Progress(NAMES.__getitem__, True, out, err)
        progress.observe(WalkEvent.STARTED, 0, VertexStatus.NOT_RUN, 1, 0, 3)
        progress.observe(WalkEvent.STARTED, 1, VertexStatus.NOT_RUN, 2, 0, 3)
        progress.observe(WalkEvent.FINISHED, 0, VertexStatus.FAILED, 1, 1, 3)
        drawn = err.getvalue()
        self.assertTrue(drawn.startswith("\r[0/3] running 1, failed 0, "), drawn)
        # The last draw: one finished and failed, the longest running named.
        last = drawn.rsplit("\r", 1)[1]
        self.assertRegex(last, r"^\[1/3\] running 1, failed 1, \d+\.\d s, \d+/s: web\x1b\[K$")
        self.assertNotIn("\n", drawn)
        # A command's output waits for its vertex's finish, then first clears the line; the end
        # clears it for good.
        progress.output("web", "", "refused\n")
        self.assertEqual(err.getvalue(), drawn)
        progress.observe(WalkEvent.FINISHED, 1, VertexStatus.FAILED, 0, 2, 3)
        self.assertTrue(err.getvalue()[len(drawn):].startswith("\r\x1b[Kweb: refused\n\r[2/3] "), err.getvalue())
        progress.erase()
        progress.erase()
        self.assertEqual(out.getvalue(), "")

    def test_a_terminal_without_a_size_has_80_columns(self):
        reading, writing = os.openpty()
        self.addCleanup(os.close, reading)
        with os.fdopen(writing, "w") as err, mock.patch.dict(os.environ, {"TERM": "xterm"}):
            self.assertEqual(os.get_terminal_size(err.fileno()).columns, 0)
            progress = Progress({0: "v" * 200}.__getitem__, True, io.StringIO(), err)
            progress.observe(WalkEvent.STARTED, 0, VertexStatus.NOT_RUN, 1, 0, 1)
            err.flush()
            drawn = os.read(reading, 4096).decode()
        self.assertTrue(drawn.startswith("\r[0/1] running 1, failed 0, "), drawn)
        self.assertEqual(len(drawn), len("\r") + 79 + len("\x1b[K"))

    def test_dumb_terminal_gets_lines(self):
        err = Terminal()
        with mock.patch.dict(os.environ, {"TERM": "dumb"}):
            progress = Progress(NAMES.__getitem__, True, io.StringIO(), err)
        progress.observe(WalkEvent.STARTED, 0, VertexStatus.NOT_RUN, 1, 0, 1)
        progress.observe(WalkEvent.FINISHED, 0, VertexStatus.OK, 0, 1, 1)
        self.assertEqual(err.getvalue(), "[1/1] db\n")

    def test_prefixed_and_fit(self):
        self.assertEqual(prefixed("a", "one\ntwo"), "a: one\na: two\n")
        self.assertEqual(prefixed("a", "one\r\n\n"), "a: one\r\na: \n")
        self.assertEqual(prefixed("a", ""), "")
        self.assertEqual(fit("[1/3] running", 5), "[1/3]")
        self.assertEqual(fit("ab", 0), "")


if __name__ == "__main__":
    unittest.main()
