"""Building and changing graphs: vertices, names, edges, copies, errors, lifetime."""

import copy
import gc
import pickle
import sys
import threading
import unittest
import weakref

import libdag
from support import build, names


class VertexTest(unittest.TestCase):
    def setUp(self):
        self.g = libdag.Graph()
        self.addCleanup(self.g.close)

    def test_ids_are_issued_from_one_and_never_reused(self):
        a = self.g.add_vertex("a")
        b = self.g.add_vertex("b")
        self.assertEqual((a, b), (1, 2))
        self.g.remove_vertex(b)
        c = self.g.add_vertex("b")  # the name is free again, the id is not
        self.assertEqual(c, 3)
        self.assertEqual(self.g.vertices(), [1, 3])
        self.assertEqual(len(self.g), 2)

    def test_add_vertices_is_one_call_all_or_nothing(self):
        first = self.g.add_vertex("taken")
        ids = self.g.add_vertices(["a", None, b"c", "module.m.r[0]"])
        self.assertEqual(ids, [first + 1, first + 2, first + 3, first + 4])
        self.assertEqual([self.g.name(i) for i in ids], ["a", None, "c", "module.m.r[0]"])
        self.assertEqual(self.g.add_vertices([]), [])
        with self.assertRaises(libdag.DuplicateNameError) as caught:
            self.g.add_vertices(["x", "y", "x"])
        self.assertIn("vertex 2:", str(caught.exception))
        with self.assertRaises(libdag.DuplicateNameError):
            self.g.add_vertices(["z", "taken"])
        with self.assertRaises(libdag.InvalidArgumentError):
            self.g.add_vertices(["w", ""])
        self.assertEqual(len(self.g), 5)
        self.assertEqual(self.g.add_vertices(["x", "y", "z", "w"]), [6, 7, 8, 9])

    def test_find_vertices_answers_as_find_does(self):
        ids = self.g.add_vertices([f"v{i}" for i in range(600)])
        self.g.remove_vertex(ids[3])
        asked = [f"v{i}" for i in range(0, 600, 3)] + ["absent", b"v5"]
        found = self.g.find_vertices(asked)
        self.assertEqual(found[0], ids[0])
        self.assertIsNone(found[1])  # v3 was removed
        self.assertEqual(found[-1], ids[5])
        self.assertIsNone(found[-2])
        for name, vid in zip(asked, found):
            if vid is None:
                with self.assertRaises(libdag.NotFoundError):
                    self.g.find(name)
            else:
                self.assertEqual(self.g.find(name), vid)
        self.assertEqual(self.g.find_vertices([]), [])
        with self.assertRaises(libdag.InvalidArgumentError):
            self.g.find_vertices(["v1", ""])
        with self.assertRaises(libdag.BadUtf8Error):
            self.g.find_vertices([b"\xff"])

    def test_names(self):
        a = self.g.add_vertex("aws_instance.web")
        u = self.g.add_vertex()
        self.assertEqual(self.g.name(a), "aws_instance.web")
        self.assertIsNone(self.g.name(u))
        self.assertEqual(self.g.label(u), str(u))
        self.assertEqual(self.g.find("aws_instance.web"), a)
        self.g.rename(a, "renamed")
        self.assertEqual(self.g.find("renamed"), a)
        with self.assertRaises(libdag.NotFoundError):
            self.g.find("aws_instance.web")
        self.g.rename(a, None)
        self.assertIsNone(self.g.name(a))

    def test_unicode_names_and_bytes(self):
        a = self.g.add_vertex("módulo.ñ.🚀")
        b = self.g.add_vertex("plain".encode())
        self.assertEqual(self.g.name(a), "módulo.ñ.🚀")
        self.assertEqual(self.g.find("módulo.ñ.🚀".encode()), a)
        self.assertEqual(self.g.name(b), "plain")

    def test_duplicate_name(self):
        self.g.add_vertex("a")
        b = self.g.add_vertex("b")
        with self.assertRaises(libdag.DuplicateNameError) as cm:
            self.g.add_vertex("a")
        e = cm.exception
        self.assertEqual(e.status, -6)
        self.assertEqual(e.status_name, "duplicate name")
        self.assertTrue(e.message.startswith("Graph.add_vertex: "), e.message)
        self.assertIsInstance(e, ValueError)
        with self.assertRaises(libdag.DuplicateNameError):
            self.g.rename(b, "a")
        self.assertEqual(len(self.g), 2)  # unchanged by the failures

    def test_bad_names(self):
        with self.assertRaises(libdag.InvalidArgumentError) as cm:
            self.g.add_vertex("")
        self.assertEqual(cm.exception.status, -2)
        with self.assertRaises(libdag.BadUtf8Error) as cm:
            self.g.add_vertex(b"\xff\xfe")
        self.assertEqual(cm.exception.status, -7)
        with self.assertRaises(libdag.BadUtf8Error):
            self.g.add_vertex("lone \udc80 surrogate")
        with self.assertRaises(libdag.InvalidArgumentError) as cm:
            self.g.add_vertex("nul\0inside")
        self.assertIn("NUL", cm.exception.message)
        with self.assertRaises(TypeError):
            self.g.add_vertex(42)
        with self.assertRaises(libdag.InvalidArgumentError):
            self.g.find("")
        with self.assertRaises(TypeError):
            self.g.find(None)
        self.assertEqual(len(self.g), 0)

    def test_unknown_vertex_ids(self):
        a = self.g.add_vertex("a")
        for bad in (0, 99, a + 1):
            with self.assertRaises(libdag.UnknownVertexError) as cm:
                self.g.name(bad)
            self.assertEqual(cm.exception.status, -4)
            self.assertIsInstance(cm.exception, LookupError)
        with self.assertRaises(libdag.UnknownVertexError):
            self.g.remove_vertex(99)
        with self.assertRaises(libdag.UnknownVertexError):
            self.g.dependencies(99)
        with self.assertRaises(libdag.UnknownVertexError):
            self.g.dependents(0)
        with self.assertRaises(libdag.UnknownVertexError):
            self.g.rename(99, "x")
        # Ids ctypes would wrap around are refused before reaching C.
        for bad in (-1, 1 << 64, -(1 << 70)):
            with self.assertRaises(libdag.UnknownVertexError) as cm:
                self.g.name(bad)
            self.assertTrue(cm.exception.message.startswith("Graph.name: "))
        with self.assertRaises(libdag.NotFoundError) as cm:
            self.g.name("b")
        self.assertTrue(cm.exception.message.startswith("Graph.name: "), cm.exception.message)
        with self.assertRaises(TypeError):
            self.g.name(None)
        with self.assertRaises(TypeError):
            self.g.connect(a, 1.0)

    def test_has_vertex_and_contains(self):
        a = self.g.add_vertex("a")
        self.assertTrue(self.g.has_vertex(a))
        self.assertIn(a, self.g)
        for other in (0, 2, -1, 1 << 64):
            self.assertFalse(self.g.has_vertex(other))
            self.assertNotIn(other, self.g)
        self.assertIn("a", self.g)
        self.assertTrue(self.g.has_vertex("a"))
        self.assertIn(b"a", self.g)
        for other in ("b", "", "a\0"):
            self.assertFalse(self.g.has_vertex(other))
            self.assertNotIn(other, self.g)
        self.assertNotIn(None, self.g)
        # Any object, as annotated: they raised TypeError.
        for other in (None, 1.5, True, object()):
            self.assertFalse(self.g.has_vertex(other))
            self.assertFalse(self.g.has_edge(a, other))
            self.assertFalse(self.g.has_edge(other, a))
        self.assertEqual(list(self.g), [a])
        self.assertTrue(bool(libdag.Graph()))  # an empty graph is still a graph

    def test_replace_vertex(self):
        g, ids = build([("a", "old"), ("old", "c")], vertices=["new"])
        g.replace_vertex(ids["old"], ids["new"])
        self.assertFalse(g.has_vertex(ids["old"]))
        self.assertEqual(g.dependencies(ids["a"]), [ids["new"]])
        self.assertEqual(g.dependencies(ids["new"]), [ids["c"]])
        g.replace_vertex(ids["new"], ids["new"])  # itself: nothing happens
        self.assertEqual(g.edge_count(), 2)
        with self.assertRaises(libdag.UnknownVertexError):
            g.replace_vertex(ids["old"], ids["a"])


class EdgeTest(unittest.TestCase):
    def test_connect_means_depends_on(self):
        g, ids = build([("a", "b"), ("a", "c"), ("d", "b")])
        a, b, c, d = (ids[n] for n in "abcd")
        self.assertEqual(g.dependencies(a), [b, c])
        self.assertEqual(g.dependencies(b), [])
        self.assertEqual(g.dependents(b), [a, d])
        self.assertEqual(g.dependents(a), [])
        self.assertTrue(g.has_edge(a, b))
        self.assertFalse(g.has_edge(b, a))
        self.assertFalse(g.has_edge(a, 99))
        self.assertFalse(g.has_edge(-5, a))
        self.assertEqual(g.edges(), [(a, b), (a, c), (d, b)])
        self.assertEqual(g.edge_count(), 3)

    def test_connect_twice_and_disconnect(self):
        g, ids = build([("a", "b")])
        a, b = ids["a"], ids["b"]
        g.connect(a, b)
        self.assertEqual(g.edge_count(), 1)
        g.disconnect(a, b)
        g.disconnect(a, b)  # no such edge: nothing happens
        self.assertEqual(g.edges(), [])
        with self.assertRaises(libdag.UnknownVertexError):
            g.disconnect(a, 99)
        with self.assertRaises(libdag.UnknownVertexError):
            g.connect(99, a)

    def test_self_edge_is_stored(self):
        g, ids = build(vertices=["a"])
        g.connect(ids["a"], ids["a"])
        self.assertEqual(g.edges(), [(ids["a"], ids["a"])])

    def test_remove_vertex_drops_its_edges(self):
        g, ids = build([("a", "b"), ("b", "c")])
        g.remove_vertex(ids["b"])
        self.assertEqual(g.edges(), [])
        self.assertEqual(names(g, g.vertices()), ["a", "c"])

    def test_connect_many(self):
        g, ids = build(vertices="abcd")
        a, b, c, d = (ids[n] for n in "abcd")
        g.connect_many([(a, b), (b, c), (a, b), (c, d)])
        self.assertEqual(g.edges(), [(a, b), (b, c), (c, d)])
        g.connect_many([])
        g.connect_many(iter([(d, d)]))
        self.assertEqual(g.edge_count(), 4)

    def test_connect_many_is_all_or_nothing(self):
        g, ids = build(vertices="abc")
        with self.assertRaises(libdag.UnknownVertexError) as cm:
            g.connect_many([(ids["a"], ids["b"]), (ids["b"], 99)])
        self.assertIn("edge 1", cm.exception.message)
        self.assertEqual(g.edge_count(), 0)
        with self.assertRaises(libdag.UnknownVertexError):
            g.connect_many([(ids["a"], -1)])
        with self.assertRaises(ValueError):
            g.connect_many([(ids["a"], ids["b"], ids["a"])])
        with self.assertRaises(TypeError):
            g.connect_many([(ids["a"], 2.0)])
        with self.assertRaises(libdag.NotFoundError):
            g.connect_many([("a", "b"), ("b", "nowhere")])
        self.assertEqual(g.edge_count(), 0)
        g.connect_many([("a", "b"), (ids["b"], "c")])
        self.assertEqual(g.edges(), [(ids["a"], ids["b"]), (ids["b"], ids["c"])])

    def test_connect_many_takes_only_pairs(self):
        # "ab" unpacked as the pair of names "a" and "b": a silent wrong edge.
        g, ids = build(vertices=["a", "b", "ab"])
        for bad in (["ab"], [b"ab"], [1], [None], [("a",)]):
            with self.subTest(edges=bad), self.assertRaises(ValueError) as cm:
                g.connect_many(bad)
            self.assertEqual(str(cm.exception), f"Graph.connect_many: edge 0 is {bad[0]!r}, not a (source, target) pair")
        self.assertEqual(g.edge_count(), 0)

    def test_ids_given_as_objects_with_index_are_checked_in_lists_too(self):
        class VertexRef:
            def __init__(self, number):
                self.number = number

            def __index__(self):
                return self.number

        g, ids = build(vertices="a")
        for bad in (-1, 2 ** 64):
            for call in (lambda v: g.ancestors([v]), lambda v: g.select([v]),
                         lambda v: g.walk(lambda vertex: None, always_run=[v])):
                with self.subTest(id=bad), self.assertRaises(libdag.UnknownVertexError) as cm:
                    call(VertexRef(bad))
                self.assertIn(f"{bad} is not a vertex id", str(cm.exception))
        self.assertEqual(g.ancestors([VertexRef(ids["a"])]), [])


class DegreeTest(unittest.TestCase):
    def test_roots_leaves_and_degrees(self):
        # a -> b, a -> c: a depends on b and c.
        g, ids = build([("a", "b"), ("a", "c")], vertices=["lone", "self"])
        a, b, c, lone, me = ids["a"], ids["b"], ids["c"], ids["lone"], ids["self"]
        g.connect(me, me)
        self.assertEqual(g.roots(), sorted([a, lone]))
        self.assertEqual(g.leaves(), sorted([b, c, lone]))
        self.assertEqual((g.dependency_count(a), g.dependent_count(a)), (2, 0))
        self.assertEqual((g.dependency_count(b), g.dependent_count(b)), (0, 1))
        self.assertEqual((g.dependency_count(me), g.dependent_count(me)), (1, 1))
        g.remove_vertex(a)
        self.assertEqual(g.roots(), sorted([b, c, lone]))
        self.assertEqual(g.dependent_count(b), 0)
        with self.assertRaises(libdag.UnknownVertexError):
            g.dependency_count(a)
        with self.assertRaises(libdag.UnknownVertexError):
            g.dependent_count(0)
        self.assertEqual(g.dependency_count("self"), 1)
        with self.assertRaises(TypeError):
            g.dependent_count(2.0)

    def test_empty_graph(self):
        g = libdag.Graph()
        self.assertEqual(g.roots(), [])
        self.assertEqual(g.leaves(), [])


class CopyTest(unittest.TestCase):
    def test_clone_is_deep_and_continues_ids(self):
        g, ids = build([("a", "b")])
        removed = g.add_vertex("removed")
        g.remove_vertex(removed)
        c = g.clone()
        self.assertEqual(c.edges(), g.edges())
        self.assertEqual(c.find("a"), ids["a"])
        self.assertEqual(c.find("b"), ids["b"])
        # The copy issues ids after the original's, removed ones included.
        self.assertEqual(c.add_vertex("only-in-c"), removed + 1)
        g.add_vertex("only-in-g")
        self.assertEqual(len(g), 3)
        self.assertEqual(len(c), 3)
        with self.assertRaises(libdag.NotFoundError):
            g.find("only-in-c")
        with self.assertRaises(libdag.NotFoundError):
            c.find("only-in-g")
        self.assertEqual(str(copy.copy(g)), str(g))
        self.assertEqual(str(copy.deepcopy(c)), str(c))

    def test_a_graph_does_not_pickle_but_its_copy_is_a_clone(self):
        g, _ = build([("a", "b")])
        with self.assertRaisesRegex(TypeError, "export"):
            pickle.dumps(g)
        c = copy.copy(g)
        c.add_vertex("only-in-c")
        self.assertNotIn("only-in-c", g)

    def test_a_copy_of_a_subclass_keeps_its_attributes(self):
        class Tagged(libdag.Graph):
            pass

        g = Tagged()
        g.add_vertex("a")
        g.tags = ["x"]
        shallow, deep = copy.copy(g), copy.deepcopy(g)
        self.assertIs(type(shallow), Tagged)
        self.assertIs(shallow.tags, g.tags)
        self.assertEqual(deep.tags, ["x"])
        self.assertIsNot(deep.tags, g.tags)
        self.assertEqual(deep.find("a"), 1)

    def test_init_again_is_refused(self):
        g, ids = build([("a", "b")])
        with self.assertRaises(TypeError):
            g.__init__()
        self.assertEqual(g.find("a"), ids["a"])

    def test_one_name_where_a_list_of_names_goes_is_a_type_error(self):
        # Iterated, "web" was three vertices "w", "e" and "b".
        g = libdag.Graph()
        for call in (g.add_vertices, g.find_vertices):
            for one in ("web", b"web"):
                with self.assertRaises(TypeError):
                    call(one)
        self.assertEqual(len(g), 0)
        self.assertEqual(g.add_vertices(["web"]), [1])

    def test_a_bool_is_not_a_vertex_id(self):
        g, ids = build([("a", "b")])
        self.assertNotIn(True, g)
        for call in (g.name, g.dependencies, g.remove_vertex):
            with self.assertRaises(TypeError):
                call(True)
        with self.assertRaises(TypeError):
            g.connect_many([(True, False)])
        self.assertEqual(len(g), 2)

    def test_subsume_merges_named_vertices(self):
        g, ids = build([("a", "b")])
        other, oids = build([("b", "c")])
        other.add_vertex()
        g.subsume(other)
        self.assertEqual(len(g), 4)  # a, b (merged), c, and the unnamed one
        c = g.find("c")
        self.assertNotIn(c, ids.values())
        self.assertEqual(g.dependencies(ids["b"]), [c])
        self.assertEqual(g.dependencies(ids["a"]), [ids["b"]])
        self.assertEqual(sum(1 for v in g.vertices() if g.name(v) is None), 1)
        self.assertEqual(len(other), 3)  # other is not changed
        self.assertEqual(other.edges(), [(oids["b"], oids["c"])])

    def test_subsume_misuse(self):
        g = libdag.Graph()
        with self.assertRaises(libdag.InvalidArgumentError):
            g.subsume(g)
        with self.assertRaises(TypeError):
            g.subsume(None)
        other = libdag.Graph()
        other.close()
        with self.assertRaises(libdag.ClosedError):
            g.subsume(other)


class StringTest(unittest.TestCase):
    def test_terraform_string_layout(self):
        g = libdag.Graph()
        one, two, three = (g.add_vertex(n) for n in ("1", "2", "3"))
        g.connect(one, three)
        self.assertEqual(str(g), "1\n  3\n2\n3\n")
        self.assertEqual(str(libdag.Graph()), "")

    def test_repr(self):
        g, _ = build([("a", "b")])
        self.assertEqual(repr(g), "<libdag.Graph 2 vertices, 1 edges>")
        g.close()
        self.assertEqual(repr(g), "<libdag.Graph closed>")


class LifetimeTest(unittest.TestCase):
    def test_closed_graph_raises_instead_of_crashing(self):
        g, ids = build([("a", "b")])
        g.close()
        g.close()  # idempotent
        self.assertTrue(g.closed)
        calls = [
            lambda: g.add_vertex("c"),
            lambda: g.connect(ids["a"], ids["b"]),
            lambda: g.name(ids["a"]),
            lambda: len(g),
            lambda: str(g),
            lambda: g.vertices(),
            lambda: g.validate(),
            lambda: g.topological_order(),
            lambda: g.export("json"),
            lambda: g.walk(lambda v: None),
            lambda: g.clone(),
            lambda: g.traverse([ids["a"]]),
        ]
        for fn in calls:
            with self.assertRaises(libdag.ClosedError) as cm:
                fn()
            self.assertIsInstance(cm.exception, libdag.StateError)
            self.assertIn("closed", cm.exception.message)

    def test_a_closed_graph_refuses_walkers_and_with(self):
        # walker() and pull_walker() returned a walker that failed only at
        # start(), and "with g:" entered: the docs promise ClosedError from
        # every method.
        g, _ = build([("a", "b")])
        g.close()
        for what, fn in (("Graph.walker", lambda: g.walker(lambda v: None)),
                         ("Graph.pull_walker", g.pull_walker),
                         ("Graph.__enter__", g.__enter__)):
            with self.assertRaises(libdag.ClosedError) as cm:
                fn()
            self.assertEqual(cm.exception.message, f"{what}: the graph is closed")
        with self.assertRaises(libdag.ClosedError):
            with g:
                self.fail("entered a closed graph")

    def test_context_manager_closes(self):
        with libdag.Graph() as g:
            g.add_vertex("a")
        self.assertTrue(g.closed)
        with self.assertRaises(libdag.ClosedError):
            g.add_vertex("b")

    def test_garbage_collection_frees(self):
        g = libdag.Graph()
        ref = weakref.ref(g)
        del g
        gc.collect()
        self.assertIsNone(ref())

    def test_close_refused_while_traversing(self):
        g, ids = build([("a", "b")])
        seen = []

        def visitor(vertex, depth):
            with self.assertRaises(libdag.BusyError):
                g.close()
            seen.append(vertex)

        g.traverse([ids["a"]], visitor)
        self.assertEqual(seen, [ids["a"], ids["b"]])
        self.assertFalse(g.closed)

    def test_two_threads_closing_a_graph_both_return(self):
        # Each close() announces itself while it looks for reads; one that
        # finds the other looking waits for it and finds the graph closed.
        switch = sys.getswitchinterval()
        sys.setswitchinterval(1e-6)
        try:
            for _ in range(400):
                g = libdag.Graph()
                g.add_vertex("a")
                # Reads ended on other threads: each close() looks at them.
                readers = [threading.Thread(target=len, args=(g,)) for _ in range(3)]
                for t in readers:
                    t.start()
                for t in readers:
                    t.join()
                errors = []

                def close():
                    try:
                        g.close()
                    except BaseException as exc:  # noqa: B902
                        errors.append(exc)

                threads = [threading.Thread(target=close) for _ in range(2)]
                for t in threads:
                    t.start()
                for t in threads:
                    t.join()
                self.assertEqual(errors, [])
                self.assertTrue(g.closed)
        finally:
            sys.setswitchinterval(switch)

    def test_concurrent_reads_and_writes_do_not_race(self):
        # Readers and writers on several threads: the binding serialises
        # each change against the reads, so every read sees a whole graph.
        g = libdag.Graph()
        first = g.add_vertex()
        errors = []
        stop = threading.Event()

        def writer():
            try:
                previous = first
                for _ in range(2000):
                    v = g.add_vertex()
                    g.connect(v, previous)
                    previous = v
            except BaseException as exc:  # noqa: B902
                errors.append(exc)
            finally:
                stop.set()

        def reader():
            try:
                while not stop.is_set():
                    # A chain, each vertex depending on the one before:
                    # execution order is ascending ids, a vertex not yet
                    # connected (free from the start) included.
                    order = g.reverse_topological_order()
                    self.assertEqual(order[0], first)
                    self.assertEqual(order, sorted(order))
                    for source, target in g.edges():
                        self.assertLess(target, source)
            except BaseException as exc:  # noqa: B902
                errors.append(exc)

        threads = [threading.Thread(target=writer)] + [threading.Thread(target=reader) for _ in range(3)]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        self.assertEqual(errors, [])
        self.assertEqual(len(g), 2001)
        self.assertEqual(g.edge_count(), 2000)


if __name__ == "__main__":
    unittest.main()


class AnnotationsTest(unittest.TestCase):
    """py.typed: the annotations name what the functions take and return (they said object where a
    step gets a Graph and an observer a WalkEvent and a VertexStatus, and `with` lost the type)."""

    def hints(self, fn):
        import typing

        names = {"Graph": libdag.Graph, "WalkEvent": libdag.WalkEvent, "VertexStatus": libdag.VertexStatus}
        return typing.get_type_hints(fn, localns=names)

    def test_steps_observers_and_with_blocks_keep_their_types(self):
        import typing
        from libdag import _closeable, types

        # Forward references in a Callable stay unresolved before Python 3.9: compared by name.
        step = self.hints(libdag.Builder.add_step)["fn"]
        self.assertEqual([self.named(arg) for arg in step.__args__], ["Graph", "object"])
        self.assertEqual(self.named(self.hints(libdag.Graph.__enter__)["return"]), "Graph")
        for fn in (_closeable.Closeable.__enter__, libdag.Walker.start):
            with self.subTest(fn=fn.__qualname__):
                hints = self.hints(fn)
                self.assertIsInstance(hints["return"], typing.TypeVar)  # the class it is called on
                self.assertIs(hints["return"], hints["self"])
        observer = [arg for arg in types.Observer.__args__ if arg is not type(None)][0]
        self.assertEqual([self.named(arg) for arg in observer.__args__[:3]], ["WalkEvent", "int", "VertexStatus"])

    @staticmethod
    def named(annotation):
        return getattr(annotation, "__forward_arg__", None) or annotation.__name__
