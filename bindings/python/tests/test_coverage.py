"""Every function of include/dag/dag.h is bound, and called by the package unless listed here with why."""

import pathlib
import re
import unittest

import libdag
from libdag import _native

HEADER = pathlib.Path(__file__).resolve().parents[3] / "include" / "dag" / "dag.h"
PACKAGE = pathlib.Path(libdag.__file__).resolve().parent

# Declared for ctypes (reachable as libdag._native.lib.NAME with checked
# argument types) but not called by the package, each for a reason.
NOT_CALLED = {
    "dag_api": "the function table is for hosts that dlopen() libdag and look up one symbol; ctypes looks up "
               "each function by name",
    "dag_error_status": "every call's status is its return value, which stays right where the library hands "
                        "out a static out-of-memory error object",
    "dag_first_ancestors_with": "Graph.first_ancestors_with runs on dag_search, which also stops at an exception",
    "dag_first_descendants_with": "Graph.first_descendants_with runs on dag_search, as above",
    "dag_match_ancestor": "Graph.match_ancestor runs on dag_search, as above",
    "dag_match_descendant": "Graph.match_descendant runs on dag_search, as above",
    "dag_walk": "Graph.walk is dag_walk_start and dag_walk_wait_for in slices, so that Ctrl-C and the "
                "interpreter's exit can cancel it",
    "dag_walk_wait": "every wait is dag_walk_wait_for in slices, so that Ctrl-C is seen",
    "dag_walk_report_vertices": "a report is read whole with one dag_walk_report_read call",
    "dag_walk_report_vertex": "as above",
    "dag_walk_report_ran": "as above",
}


def header_functions():
    text = HEADER.read_text()
    return re.findall(r"^DAG_API\s[^;(]*?\b(dag_\w+)\s*\(", text, re.M)


def package_calls():
    text = "".join(p.read_text() for p in PACKAGE.glob("*.py") if p.name != "_native.py")
    return set(re.findall(r"\blib\.(dag_\w+)\b", text))


class CoverageTest(unittest.TestCase):
    def test_header_is_parsed(self):
        functions = header_functions()
        self.assertEqual(len(functions), len(set(functions)))
        self.assertEqual(len(functions), HEADER.read_text().count("\nDAG_API "))
        for name in ("dag_new", "dag_walk_next_ready", "dag_select", "dag_api", "dag_validation_cycle"):
            self.assertIn(name, functions)

    def test_every_function_is_declared(self):
        declared = set(_native._PROTOTYPES)
        missing = [f for f in header_functions() if f not in declared]
        self.assertEqual(missing, [], "functions of dag.h the binding does not declare")
        self.assertEqual(sorted(declared - set(header_functions())), [], "declared but not in dag.h")

    def test_every_function_is_called_or_listed_with_a_reason(self):
        calls = package_calls()
        uncalled = sorted(f for f in header_functions() if f not in calls)
        self.assertEqual(uncalled, sorted(NOT_CALLED), "update NOT_CALLED, or call the function")

    def test_declared_functions_resolve(self):
        for name in _native._PROTOTYPES:
            self.assertTrue(callable(getattr(_native.lib, name)), name)


if __name__ == "__main__":
    unittest.main()
