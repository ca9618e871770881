"""Names wherever ids go; graphlib's graph dict and, as in graphlib, a CycleError that is a ValueError."""

import threading
import unittest

import libdag
from support import build


class FromDictTest(unittest.TestCase):
    def test_graphlib_dict(self):
        plan = {"app": ["db", "net"], "db": ["net"], "dns": []}
        g = libdag.Graph.from_dict(plan)
        self.assertEqual(len(g), 4)
        self.assertEqual([g.name(v) for v in g], ["app", "db", "net", "dns"])
        self.assertEqual(sorted(g.name(v) for v in g.dependencies("app")), ["db", "net"])
        self.assertTrue(g.has_edge("db", "net"))
        self.assertFalse(g.has_edge("net", "db"))
        # Execution order puts each node after its predecessors, as graphlib's static_order() does.
        order = [g.name(v) for v in g.reverse_topological_order()]
        for name, needs in plan.items():
            for need in needs:
                self.assertLess(order.index(need), order.index(name))

    def test_bad_input(self):
        with self.assertRaises(TypeError):
            libdag.Graph.from_dict({"app": [1]})
        with self.assertRaises(TypeError):
            libdag.Graph.from_dict({"app": "db"})
        with self.assertRaises(libdag.InvalidArgumentError):
            libdag.Graph.from_dict({"app": [""]})

    def test_cycle_error_is_a_value_error_as_graphlibs_is(self):
        g = libdag.Graph.from_dict({"a": ["b"], "b": ["a"]})
        with self.assertRaises(ValueError) as cm:
            g.validate(single_root=False).raise_for_status()
        self.assertIsInstance(cm.exception, libdag.CycleError)
        self.assertTrue(cm.exception.message.startswith("Graph.validate: Cycle:"), cm.exception.message)


class NamesTest(unittest.TestCase):
    def test_names_where_ids_go(self):
        g, ids = build(vertices=["app", "db", "net"])
        g.connect("app", "db")
        g.connect(ids["db"], "net")
        self.assertIn("db", g)
        self.assertNotIn("cache", g)
        self.assertEqual(g.dependencies("app"), [ids["db"]])
        self.assertEqual(g.ancestors("app"), sorted([ids["db"], ids["net"]]))
        with self.assertRaises(libdag.NotFoundError) as cm:
            g.connect("app", "cache")
        self.assertEqual(str(cm.exception), 'Graph.connect: no vertex is named "cache"')
        g.disconnect("app", "db")
        self.assertFalse(g.has_edge("app", "db"))

    def test_names_in_walks(self):
        g = libdag.Graph.from_dict({"app": ["db"], "db": []})

        def fail_db(vertex):
            if g.name(vertex) == "db":
                raise RuntimeError("db down")

        report = g.walk(fail_db, always_run=["app"])
        self.assertEqual(report[g.find("db")].status, libdag.VertexStatus.FAILED)
        self.assertEqual(report[g.find("app")].status, libdag.VertexStatus.OK)

        called = {name: threading.Event() for name in ("app", "db")}

        def pending(vertex):
            called[g.name(vertex)].set()
            return libdag.PENDING

        with g.walker(pending) as walker:
            walker.start()
            self.assertTrue(called["db"].wait(10))
            # Both raised TypeError for a name.
            self.assertEqual(walker.name("db"), "db")
            self.assertEqual(walker.user_data("db"), 0)
            with self.assertRaises(libdag.NotFoundError):
                walker.name("nothing")
            walker.complete("db")
            self.assertTrue(called["app"].wait(10))
            walker.complete("app", error="app failed")
            report = walker.wait()
        self.assertEqual(report[g.find("app")].message, "app failed")
        self.assertEqual(report[g.find("db")].status, libdag.VertexStatus.OK)

if __name__ == "__main__":
    unittest.main()
