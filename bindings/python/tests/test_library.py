"""Loading the library, versions, the error classes, and that nothing the library hands out leaks."""

import os
import pickle
import subprocess
import sys
import textwrap
import unittest

import libdag
from libdag import errors
from support import build

PACKAGE_DIR = os.path.dirname(os.path.dirname(os.path.abspath(libdag.__file__)))


def run_python(code, **env_changes):
    """Runs `code` in a fresh interpreter with the environment changed; returns the CompletedProcess."""
    env = dict(os.environ)
    env["PYTHONPATH"] = PACKAGE_DIR
    env["PYTHONDONTWRITEBYTECODE"] = "1"
    for key, value in env_changes.items():
        if value is None:
            env.pop(key, None)
        else:
            env[key] = value
    return subprocess.run([sys.executable, "-c", textwrap.dedent(code)], env=env, capture_output=True, text=True,
                          timeout=60)


class LoadingTest(unittest.TestCase):
    def test_versions(self):
        self.assertEqual(libdag.library_version_number // 10000, 1)
        major, minor, patch = (int(p) for p in libdag.library_version.split("."))
        self.assertEqual(major * 10000 + minor * 100 + patch, libdag.library_version_number)
        self.assertTrue(libdag.library_path)

    def test_libdag_path_is_used(self):
        result = run_python("import libdag; print(libdag.library_path)")
        self.assertEqual(result.returncode, 0, result.stderr)
        self.assertEqual(result.stdout.strip(), os.environ["LIBDAG_PATH"])

    def test_a_wrong_libdag_path_is_an_import_error(self):
        result = run_python("import libdag", LIBDAG_PATH="/nonexistent/libdag.so.1")
        self.assertNotEqual(result.returncode, 0)
        self.assertIn("ImportError: cannot load libdag; tried /nonexistent/libdag.so.1", result.stderr)

    def test_another_library_is_refused(self):
        result = run_python("import libdag", LIBDAG_PATH="libc.so.6")
        self.assertNotEqual(result.returncode, 0)
        self.assertIn("has no dag_version: it is not libdag", result.stderr)

    def test_soname_through_the_loader_path(self):
        # Without LIBDAG_PATH (and with no libdag known to ldconfig) the
        # soname is resolved by the dynamic loader.
        libdir = os.path.dirname(os.environ["LIBDAG_PATH"])
        result = run_python(
            "import libdag, os; print(os.path.basename(libdag.library_path)); print(len(libdag.Graph()))",
            LIBDAG_PATH=None,
            LD_LIBRARY_PATH=libdir,
        )
        self.assertEqual(result.returncode, 0, result.stderr)
        self.assertEqual(result.stdout.split(), ["libdag.so.1", "0"])

    def test_exit_with_a_walk_still_running(self):
        # The interpreter exits while a background walk's callbacks still
        # run Python code: the walk is cancelled and waited for at exit.
        result = run_python(
            """
            import time, libdag
            g = libdag.Graph()
            for i in range(200):
                g.add_vertex(f"v{i}")
            walker = g.walker(lambda v: time.sleep(0.01), parallelism=4).start()
            time.sleep(0.05)
            print("leaving")
            """
        )
        self.assertEqual(result.returncode, 0, result.stderr)
        self.assertEqual(result.stdout, "leaving\n")
        self.assertEqual(result.stderr, "")

    def test_exit_with_a_blocking_walk_on_a_daemon_thread(self):
        result = run_python(
            """
            import threading, time, libdag
            g = libdag.Graph()
            for i in range(200):
                g.add_vertex(f"v{i}")
            threading.Thread(target=g.walk, args=(lambda v: time.sleep(0.01),), daemon=True).start()
            time.sleep(0.05)
            print("leaving")
            """
        )
        self.assertEqual(result.returncode, 0, result.stderr)
        self.assertEqual(result.stdout, "leaving\n")


class ErrorClassTest(unittest.TestCase):
    def test_every_status_has_its_class(self):
        expected = {
            -1: libdag.NullArgumentError, -2: libdag.InvalidArgumentError, -3: libdag.OutOfMemoryError,
            -4: libdag.UnknownVertexError, -5: libdag.NotFoundError, -6: libdag.DuplicateNameError,
            -7: libdag.BadUtf8Error, -8: libdag.CycleError, -9: libdag.BusyError, -10: libdag.NoRootError,
            -11: libdag.MultipleRootsError, -12: libdag.InvalidGraphError, -13: libdag.StateError,
            -14: libdag.CancelledError, -15: libdag.ParseError, -16: libdag.DagIOError,
            -17: libdag.InternalError, -18: libdag.WalkFailedError, -19: libdag.CallbackError,
        }
        for status, cls in expected.items():
            e = errors.error_for(status, "m")
            self.assertIs(type(e), cls)
            self.assertIsInstance(e, libdag.DagError)
            self.assertEqual(e.status, status)
            self.assertNotEqual(e.status_name, "unrecognised status")
        unknown = errors.error_for(-999, "from the future")
        self.assertIs(type(unknown), libdag.DagError)
        self.assertEqual(unknown.status_name, "unrecognised status")
        self.assertEqual(libdag.status_name(-9), "graph is being walked or traversed")

    def test_error_attributes_str_repr_pickle(self):
        g, ids = build([("a", "b")])
        with self.assertRaises(libdag.CycleError) as cm:
            g.connect(ids["b"], ids["a"])
            g.topological_order()
        e = cm.exception
        self.assertEqual(str(e), e.message)
        self.assertEqual(repr(e), f"CycleError(status=-8, message={e.message!r})")
        back = pickle.loads(pickle.dumps(e))
        self.assertIs(type(back), libdag.CycleError)
        self.assertEqual((back.status, back.message, back.status_name), (e.status, e.message, e.status_name))

    def test_messages_use_pythons_names_not_cs(self):
        g, ids = build([("a", "b")])
        with self.assertRaises(libdag.InvalidArgumentError) as cm:
            g.walk(lambda v: None, threads=5000)
        self.assertEqual(cm.exception.message, "Graph.walk: threads is 5000, more than 1024")
        with self.assertRaises(libdag.InvalidArgumentError) as cm:
            g.export(libdag.Format.AUTO)
        self.assertEqual(cm.exception.message, "Graph.export: Format.AUTO is for reading; name the format to write")
        walker = g.pull_walker()
        walker.start()
        try:
            with self.assertRaises(libdag.StateError) as cm:
                walker.complete(ids["a"])
            self.assertEqual(cm.exception.message,
                             f"PullWalker.complete: vertex {ids['a']} has not been handed out; "
                             "only a vertex next_ready() handed out can be completed")
        finally:
            walker.cancel()
            walker.close()


def resident_bytes():
    with open("/proc/self/statm") as f:
        return int(f.read().split()[1]) * os.sysconf("SC_PAGE_SIZE")


class NoLeakTest(unittest.TestCase):
    """Repeats calls that hand out owned objects; a missed free would grow the process by megabytes."""

    LIMIT = 2 * 1024 * 1024

    def assert_flat(self, fn, times):
        for _ in range(100):  # let caches and free lists settle first
            fn()
        before = resident_bytes()
        for _ in range(times):
            fn()
        grown = resident_bytes() - before
        self.assertLess(grown, self.LIMIT, f"{fn.__name__} grew the process by {grown} bytes")

    def test_errors_results_and_graphs(self):
        g, ids = build([("a", "b"), ("b", "c"), ("c", "a")], vertices=["x"])

        def failing_call():
            try:
                g.find("a name long enough to need its own allocation")
            except libdag.NotFoundError:
                pass

        def results():
            g.validate()
            g.cycles()
            g.vertices()
            g.export("json")

        def graphs():
            with libdag.Graph() as h:
                h.add_vertex("a")
            g.clone().close()

        self.assert_flat(failing_call, 50000)
        self.assert_flat(results, 20000)
        self.assert_flat(graphs, 30000)

    def test_walk_reports(self):
        g, _ = build([(f"v{i}", f"v{i + 1}") for i in range(30)])

        def walk():
            g.walk(lambda v: 1 / 0 if v % 3 == 0 else None, parallelism=2)

        self.assert_flat(walk, 2000)


if __name__ == "__main__":
    unittest.main()
