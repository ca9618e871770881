"""Changing a running walk: updates, expansion; and progress, user data, selection."""

import pickle
import threading
import unittest

import libdag
from libdag import VertexStatus


class UpdateTest(unittest.TestCase):
    def test_add_a_dependency_before_a_vertex_starts(self):
        g = libdag.Graph.from_dict({"app": ["db"], "db": []})
        ran = []
        added = {}

        def step(vertex):
            ran.append(walker.name(vertex))
            if g.name(vertex) == "db":
                update = libdag.WalkUpdate()
                migrate = update.add_vertex("migrate")
                update.connect(g.find("app"), migrate)
                update.connect(migrate, g.find("db"))
                added["ids"] = walker.apply(update)

        walker = g.walker(step)
        with walker:
            walker.start()
            report = walker.wait()
        self.assertTrue(report.ok)
        self.assertEqual(ran, ["db", "migrate", "app"])
        self.assertEqual(added["ids"], [g.find("migrate")])
        self.assertEqual(len(report), 3)

    def test_refused_updates(self):
        g = libdag.Graph.from_dict({"b": ["a"]})
        with g.pull_walker() as walk:
            walk.start()
            [a] = walk.next_ready(timeout=5)
            update = libdag.WalkUpdate()
            update.connect(a, g.find("b"))  # a cycle
            with self.assertRaises(libdag.CycleError) as cm:
                walk.apply(update)
            self.assertTrue(cm.exception.message.startswith("PullWalker.apply: "), cm.exception.message)
            removal = libdag.WalkUpdate()
            removal.remove_vertex(a)  # handed out: started
            with self.assertRaises(libdag.StateError):
                walk.apply(removal)
            b = g.find("b")
            removal = libdag.WalkUpdate()
            removal.remove_vertex(b)
            self.assertEqual(walk.apply(removal), [])
            walk.complete(a)
            self.assertEqual(walk.next_ready(timeout=5), [])
            report = walk.wait()
        self.assertEqual(report[b].status, VertexStatus.NOT_RUN)
        self.assertNotIn("b", g)
        with self.assertRaises(TypeError):
            libdag.WalkUpdate().connect("a", 1)


class ExpandTest(unittest.TestCase):
    def sub_graph(self):
        return libdag.Graph.from_dict({"step2": ["step1"], "step1": []})

    def test_callback_walk(self):
        g = libdag.Graph.from_dict({"app": ["module"], "module": []})
        sub = self.sub_graph()
        seen = []
        lock = threading.Lock()

        def step(vertex):
            with lock:
                seen.append((type(vertex).__name__, walker.name(vertex)))
            if not isinstance(vertex, libdag.SubwalkVertex) and g.name(vertex) == "module":
                walker.expand(vertex, sub)

        walker = g.walker(step)
        with walker:
            walker.start()
            report = walker.wait()
        self.assertTrue(report.ok)
        self.assertEqual(seen, [("int", "module"), ("SubwalkVertex", "step1"), ("SubwalkVertex", "step2"),
                                ("int", "app")])

    def test_the_observer_gets_sub_vertices_as_the_callback_does(self):
        # It got their bare ids, which name the main graph's vertices.
        g = libdag.Graph.from_dict({"app": ["module"], "module": []})
        sub = self.sub_graph()
        started = []

        def step(vertex):
            if not isinstance(vertex, libdag.SubwalkVertex) and g.name(vertex) == "module":
                walker.expand(vertex, sub)

        def observe(event, vertex, *_):
            if event == libdag.WalkEvent.STARTED:
                started.append((type(vertex).__name__, walker.name(vertex)))

        walker = g.walker(step, observer=observe, parallelism=1)
        with walker:
            walker.start()
            self.assertTrue(walker.wait().ok)
        self.assertEqual(sorted(started), [("SubwalkVertex", "step1"), ("SubwalkVertex", "step2"), ("int", "app"),
                                           ("int", "module")])

    def test_pull_walk_sub_failure_fails_the_vertex(self):
        g = libdag.Graph.from_dict({"app": ["module"], "module": []})
        with g.pull_walker() as walk:
            walk.start()
            [module] = walk.next_ready(timeout=5)
            walk.expand(module, self.sub_graph())
            [step1] = walk.next_ready(timeout=5)
            self.assertIsInstance(step1, libdag.SubwalkVertex)
            self.assertEqual(walk.name(step1), "step1")
            walk.complete(step1, error=RuntimeError("step1 broke"))
            self.assertEqual(walk.next_ready(timeout=5), [])
            report = walk.wait()
        self.assertEqual(report[module].status, VertexStatus.FAILED)
        self.assertIn("step1 broke", report[module].message)
        self.assertEqual(report[g.find("app")].status, VertexStatus.UPSTREAM_FAILED)
        self.assertIsNone(report[module].exception)  # the sub-vertex's exception is not the module's

    def test_a_sub_vertex_of_another_walk_is_refused(self):
        # Its address was used as it came: after its walker was closed, or on
        # another walker, that read freed or foreign memory (a crash).
        g = libdag.Graph.from_dict({"module": []})
        with g.pull_walker() as first:
            first.start()
            [module] = first.next_ready(timeout=5)
            first.expand(module, self.sub_graph())
            [step1] = first.next_ready(timeout=5)
            kept = step1
            first.complete(step1)
            [step2] = first.next_ready(timeout=5)
            first.complete(step2)
            self.assertTrue(first.wait().ok)
        other = libdag.Graph.from_dict({"x": []})
        with other.pull_walker() as second:
            second.start()
            for call in (second.name, second.user_data, second.complete,
                         lambda v: second.expand(v, self.sub_graph())):
                with self.assertRaises(libdag.UnknownVertexError):
                    call(kept)
            made = libdag.SubwalkVertex(int(kept), kept.walk)
            with self.assertRaises(libdag.UnknownVertexError):
                second.complete(made)
            # Nor is it a vertex of a graph, in a list either: its number would read as another vertex's.
            h = libdag.Graph.from_dict({"x": [], "y": []})
            self.assertTrue(h.has_vertex(int(kept)))
            for call in (lambda v: h.ancestors([v]), lambda v: h.traverse(v), lambda v: h.select([v]),
                         lambda v: h.connect_many([(v, v)]), lambda v: h.walk(lambda x: None, always_run=[v])):
                with self.assertRaises(libdag.UnknownVertexError):
                    call(kept)
            self.assertEqual(h.edge_count(), 0)
            unpickled = pickle.loads(pickle.dumps(kept))
            self.assertEqual(unpickled, kept)
            with self.assertRaises(libdag.UnknownVertexError):
                second.name(unpickled)
            [x] = second.next_ready(timeout=5)
            second.complete(x)
            self.assertTrue(second.wait().ok)

    def test_an_update_refuses_a_vertex_of_the_sub_graph(self):
        # Its number is the sub-graph's: the update removed or connected the
        # walked graph's own vertex of that number.
        g = libdag.Graph.from_dict({"module": [], "app": ["module"]})
        app = g.find("app")
        with g.pull_walker() as walk:
            walk.start()
            [module] = walk.next_ready(timeout=5)
            walk.expand(module, self.sub_graph())
            [step1] = walk.next_ready(timeout=5)
            self.assertIn(int(step1), g)
            with self.assertRaises(libdag.UnknownVertexError) as graph_refused:
                g.connect(step1, app)
            with libdag.WalkUpdate() as update:
                for who, change in (("WalkUpdate.remove_vertex", lambda: update.remove_vertex(step1)),
                                    ("WalkUpdate.connect", lambda: update.connect(step1, app)),
                                    ("WalkUpdate.connect", lambda: update.connect(app, step1)),
                                    ("WalkUpdate.disconnect", lambda: update.disconnect(app, step1))):
                    with self.assertRaises(libdag.UnknownVertexError) as refused:
                        change()
                    self.assertEqual(refused.exception.message,
                                     graph_refused.exception.message.replace("Graph.connect", who))
                self.assertEqual(walk.apply(update), [])
            walk.complete(step1)
            [step2] = walk.next_ready(timeout=5)
            walk.complete(step2)
            self.assertEqual(walk.next_ready(timeout=5), [app])
            walk.complete(app)
            report = walk.wait()
        self.assertTrue(report.ok)
        self.assertEqual(len(report), 2)

    def test_cyclic_sub_graph_is_refused(self):
        g = libdag.Graph.from_dict({"module": []})
        with g.pull_walker() as walk:
            walk.start()
            [module] = walk.next_ready(timeout=5)
            with self.assertRaises(libdag.CycleError):
                walk.expand(module, libdag.Graph.from_dict({"x": ["y"], "y": ["x"]}))
            walk.complete(module)
            self.assertTrue(walk.wait().ok)


class ProgressTest(unittest.TestCase):
    def test_progress_counts(self):
        g = libdag.Graph.from_dict({"b": ["a"], "c": []})
        with g.pull_walker(observer=lambda *event: None) as walk:
            walk.start()
            self.assertEqual(walk.progress(), (0, 3))
            for vertex in walk.next_ready(timeout=5):
                walk.complete(vertex)
            self.assertEqual(walk.progress(), (2, 3))
            [b] = walk.next_ready(timeout=5)
            walk.complete(b)
            self.assertEqual(walk.progress(), (3, 3))


class UserDataTest(unittest.TestCase):
    def test_round_trip_and_copies(self):
        g = libdag.Graph.from_dict({"b": ["a"]})
        self.assertEqual(g.user_data("a"), 0)
        g.set_user_data("a", 42)
        g.set_user_data(g.find("b"), (1 << 64) - 1)
        self.assertEqual(g.user_data("a"), 42)
        self.assertEqual(g.user_data("b"), (1 << 64) - 1)
        self.assertEqual(g.clone().user_data("a"), 42)
        with self.assertRaises(libdag.InvalidArgumentError):
            g.set_user_data("a", -1)
        with self.assertRaises(TypeError):
            g.set_user_data("a", "x")
        with self.assertRaises(libdag.UnknownVertexError):
            g.user_data(99)


class SelectTest(unittest.TestCase):
    def test_targets_and_excludes(self):
        # a -> b -> c: a depends on b, b on c.
        g = libdag.Graph.from_dict({"a": ["b"], "b": ["c"], "c": []})
        g.set_user_data("c", 7)

        def names(selected):
            return sorted(selected.name(v) for v in selected)

        self.assertEqual(names(g.select("b")), ["b", "c"])
        self.assertEqual(names(g.select(["b"], dependents=True)), ["a", "b"])
        self.assertEqual(names(g.select(exclude="b")), ["c"])
        self.assertEqual(names(g.select(exclude="b", dependents=True)), ["a"])
        selected = g.select("b")
        self.assertEqual(selected.find("c"), g.find("c"))
        self.assertEqual(selected.user_data("c"), 7)
        self.assertTrue(selected.has_edge("b", "c"))
        with self.assertRaises(libdag.NotFoundError):
            g.select("nope")
        with self.assertRaises(libdag.UnknownVertexError):
            g.select(exclude=[99])


if __name__ == "__main__":
    unittest.main()
