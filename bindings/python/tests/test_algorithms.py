"""Validation, orders and the other algorithms, with Terraform's semantics and wording."""

import unittest

import libdag
from support import build, names


class ValidationTest(unittest.TestCase):
    def test_valid_graph(self):
        g, ids = build([("a", "b"), ("b", "c")])
        v = g.validate()
        self.assertTrue(v.ok)
        self.assertTrue(v)
        self.assertEqual(v.status, 0)
        self.assertEqual(v.text, "")
        self.assertEqual(v.messages, [])
        self.assertEqual(v.cycles, [])
        self.assertEqual(v.self_references, [])
        v.raise_for_status()  # nothing to raise
        self.assertEqual(g.root(), ids["a"])

    def test_simple_cycle_text_is_terraforms(self):
        g, ids = build([("a", "b"), ("b", "c"), ("c", "a")])
        v = g.validate(single_root=False)
        self.assertFalse(v.ok)
        self.assertEqual(v.status, -8)
        self.assertEqual(v.status_name, "cycle")
        self.assertEqual(v.text, "Cycle:\n  a\n  b\n  c")
        self.assertEqual(v.messages, ["Cycle:\n  a\n  b\n  c"])
        self.assertEqual(v.cycles, [[ids["a"], ids["b"], ids["c"]]])
        with self.assertRaises(libdag.CycleError) as cm:
            v.raise_for_status()
        self.assertEqual(cm.exception.message, "Graph.validate: Cycle:\n  a\n  b\n  c")

    def test_cycle_starts_at_shortest_name_and_follows_dependencies(self):
        g, ids = build([("ccc", "bb"), ("bb", "a"), ("a", "ccc")])
        v = g.validate(single_root=False)
        # a depends on ccc, ccc on bb: each line depends on the next.
        self.assertEqual(v.text, "Cycle:\n  a\n  ccc\n  bb")
        self.assertEqual(names(g, v.cycles[0]), ["a", "ccc", "bb"])

    def test_every_problem_at_once_in_terraforms_order(self):
        g, ids = build(
            [("root", "x"), ("x", "yy"), ("yy", "x"), ("root", "c1"), ("c1", "b2"), ("b2", "a3"),
             ("a3", "c1"), ("s", "s"), ("root", "s")],
            vertices=["lonely"],
        )
        v = g.validate()
        self.assertEqual(v.status, -8)  # a cycle, whatever else is wrong
        self.assertEqual(
            v.messages,
            ["multiple roots: lonely, root", "Cycle:\n  x\n  yy", "Cycle:\n  a3\n  c1\n  b2", "Self reference: s"],
        )
        self.assertEqual(v.text, "\n".join(v.messages))
        self.assertEqual([names(g, c) for c in v.cycles], [["x", "yy"], ["a3", "c1", "b2"]])
        self.assertEqual(v.self_references, [ids["s"]])
        with self.assertRaises(libdag.CycleError):
            v.raise_for_status()
        # Without the single-root rule only the cycles remain.
        v = g.validate(single_root=False)
        self.assertEqual(v.status, -8)
        self.assertEqual(v.messages[0], "Cycle:\n  x\n  yy")

    def test_a_cycle_without_a_root_is_a_cycle_error(self):
        # Since libdag 1.2 a cycle that breaks the root rule too is a
        # CycleError, not the InvalidGraphError the docstrings named.
        g, ids = build([("a", "b"), ("b", "c"), ("c", "a")])
        with self.assertRaises(libdag.CycleError):
            g.validate().raise_for_status()

    def test_root_rule(self):
        empty = libdag.Graph()
        v = empty.validate()
        self.assertEqual((v.status, v.text), (-10, "no roots found"))
        with self.assertRaises(libdag.NoRootError) as cm:
            empty.root()
        self.assertEqual(cm.exception.message, "Graph.root: no roots found")
        self.assertTrue(empty.validate(single_root=False).ok)

        g, ids = build(vertices=["b", "a"])
        g.add_vertex()  # unnamed: printed as its id, 3
        v = g.validate()
        self.assertEqual((v.status, v.text), (-11, "multiple roots: 3, a, b"))
        with self.assertRaises(libdag.MultipleRootsError) as cm:
            g.root()
        self.assertEqual(cm.exception.message, "Graph.root: multiple roots: 3, a, b")
        with self.assertRaises(libdag.MultipleRootsError):
            v.raise_for_status()

    def test_self_reference(self):
        g, ids = build([("r", "a"), ("a", "a")])
        v = g.validate()
        self.assertEqual(v.status, -8)
        self.assertEqual(v.text, "Self reference: a")
        self.assertEqual(v.self_references, [ids["a"]])
        self.assertEqual(v.cycles, [])
        self.assertEqual(g.cycles(), [])  # a self reference is not a cycle here

    def test_repr(self):
        g, _ = build([("a", "a")])
        # a depends on itself, so nothing is free of dependents: no root either.
        self.assertEqual(repr(g.validate()), "<Validation cycle: 'no roots found\\nSelf reference: a'>")
        self.assertEqual(repr(build([("a", "b")])[0].validate()), "<Validation ok>")


class OrderTest(unittest.TestCase):
    def test_terraform_semantics_on_a_chain(self):
        # a depends on b, b on c.
        g, ids = build([("a", "b"), ("b", "c")])
        a, b, c = ids["a"], ids["b"], ids["c"]
        self.assertEqual(g.topological_order(), [a, b, c])  # dependents first
        self.assertEqual(g.reverse_topological_order(), [c, b, a])  # execution order
        self.assertEqual(g.ancestors([a]), [b, c])  # everything a depends on
        self.assertEqual(g.ancestors(c), [])
        self.assertEqual(g.ancestors([a, b]), [b, c])
        self.assertEqual(g.descendants([c]), [a, b])  # everything that depends on c
        self.assertEqual(g.descendants(a), [])
        self.assertEqual(g.root(), a)

    def test_dependency_comes_first_in_execution_order(self):
        g, ids = build([("web", "db"), ("web", "net"), ("db", "net"), ("app", "web")])
        order = g.reverse_topological_order()
        for source, target in g.edges():
            self.assertLess(order.index(target), order.index(source))
        self.assertEqual(names(g, order), ["net", "db", "web", "app"])

    def test_ties_broken_by_name_then_id(self):
        g, _ = build(vertices=["c", "a", "b"])
        self.assertEqual(names(g, g.topological_order()), ["a", "b", "c"])
        self.assertEqual(names(g, g.reverse_topological_order()), ["a", "b", "c"])
        u1 = g.add_vertex()
        u2 = g.add_vertex()
        # Unnamed vertices count as the empty name: first, by id.
        self.assertEqual(g.topological_order()[:2], [u1, u2])

    def test_orders_refuse_cycles(self):
        g, _ = build([("a", "b"), ("b", "a")])
        for fn in (g.topological_order, g.reverse_topological_order):
            with self.assertRaises(libdag.CycleError) as cm:
                fn()
            self.assertIn("Cycle:\n  a\n  b", cm.exception.message)
        g2, _ = build([("a", "a")])
        with self.assertRaises(libdag.CycleError) as cm:
            g2.topological_order()
        self.assertIn("Self reference: a", cm.exception.message)

    def test_empty_graph(self):
        g = libdag.Graph()
        self.assertEqual(g.topological_order(), [])
        self.assertEqual(g.reverse_topological_order(), [])
        self.assertEqual(g.strongly_connected(), [])
        self.assertEqual(g.ancestors([]), [])


class ComponentTest(unittest.TestCase):
    def test_strongly_connected(self):
        g, ids = build([("a", "b"), ("b", "a"), ("b", "c")])
        # Dependencies' components first; within one, Tarjan's pop order.
        self.assertEqual(g.strongly_connected(), [[ids["c"]], [ids["b"], ids["a"]]])

    def test_cycles(self):
        g, ids = build([("a", "b"), ("b", "a"), ("b", "c"), ("c", "d"), ("d", "c")])
        self.assertEqual([names(g, c) for c in g.cycles()], [["a", "b"], ["c", "d"]])
        self.assertEqual(build([("a", "b")])[0].cycles(), [])

    def test_transitive_reduction(self):
        g, ids = build([("a", "b"), ("b", "c"), ("a", "c")])
        self.assertEqual(g.transitive_reduction(), 1)
        self.assertFalse(g.has_edge(ids["a"], ids["c"]))
        self.assertEqual(g.edge_count(), 2)
        self.assertEqual(g.ancestors(ids["a"]), [ids["b"], ids["c"]])  # reachability kept
        self.assertEqual(g.transitive_reduction(), 0)

    def test_transitive_reduction_refuses_cycles_and_leaves_graph(self):
        g, ids = build([("a", "b"), ("b", "a"), ("a", "c"), ("b", "c")])
        with self.assertRaises(libdag.CycleError):
            g.transitive_reduction()
        self.assertEqual(g.edge_count(), 4)


class SearchTest(unittest.TestCase):
    def setUp(self):
        # a -> b -> c, a -> d
        self.g, self.ids = build([("a", "b"), ("b", "c"), ("a", "d")])

    def test_first_ancestors_with_ends_each_branch_at_its_match(self):
        a, b, c = self.ids["a"], self.ids["b"], self.ids["c"]
        calls = []

        def is_b_or_c(v):
            calls.append(v)
            return v in (b, c)

        self.assertEqual(self.g.first_ancestors_with([a], is_b_or_c), [b])
        self.assertNotIn(c, calls)  # reached only through b
        self.assertNotIn(a, calls)  # a start vertex is not its own ancestor
        self.assertEqual(self.g.first_ancestors_with(a, lambda v: False), [])

    def test_first_descendants_with(self):
        a, b, c = self.ids["a"], self.ids["b"], self.ids["c"]
        self.assertEqual(self.g.first_descendants_with([c], lambda v: v in (a, b)), [b])

    def test_match_ancestor_and_descendant(self):
        a, c, d = self.ids["a"], self.ids["c"], self.ids["d"]
        self.assertTrue(self.g.match_ancestor([a], lambda v: v == c))
        self.assertFalse(self.g.match_ancestor([a], lambda v: v == a))  # not its own ancestor
        self.assertTrue(self.g.match_descendant([c], lambda v: v == a))
        self.assertFalse(self.g.match_descendant([d], lambda v: v == c))

    def test_predicate_exception_propagates_unchanged(self):
        class Boom(Exception):
            pass

        def predicate(v):
            raise Boom(f"at {v}")

        for fn in (self.g.first_ancestors_with, self.g.match_ancestor):
            with self.assertRaises(Boom):
                fn([self.ids["a"]], predicate)
        # The graph is usable afterwards.
        self.assertEqual(len(self.g), 4)

    def test_predicate_may_read_but_not_change_the_graph(self):
        a = self.ids["a"]
        seen = []

        def predicate(v):
            seen.append(self.g.name(v))
            with self.assertRaises(libdag.BusyError):
                self.g.add_vertex("new")
            return False

        self.assertEqual(self.g.first_ancestors_with([a], predicate), [])
        self.assertEqual(sorted(seen), ["b", "c", "d"])
        self.assertEqual(len(self.g), 4)

    def test_unknown_start_ids(self):
        with self.assertRaises(libdag.UnknownVertexError):
            self.g.ancestors([99])
        with self.assertRaises(libdag.UnknownVertexError):
            self.g.descendants([-1])
        with self.assertRaises(libdag.UnknownVertexError):
            self.g.match_ancestor([0], lambda v: True)
        with self.assertRaises(TypeError):
            self.g.ancestors([1.5])
        self.assertEqual(self.g.ancestors(["a"]), self.g.ancestors([self.ids["a"]]))
        with self.assertRaises(libdag.NotFoundError):
            self.g.ancestors(["no such vertex"])
        with self.assertRaises(TypeError):
            self.g.first_ancestors_with([self.ids["a"]], None)


class SearchCallbackTest(unittest.TestCase):
    """Graph.search(): a callback that matches, skips, stops or aborts."""

    def setUp(self):
        # a -> b -> c, a -> d (ids in that order)
        self.g, self.ids = build([("a", "b"), ("b", "c"), ("a", "d")])
        self.a, self.b, self.c, self.d = (self.ids[n] for n in "abcd")

    def scripted(self, answers):
        seen = []

        def callback(v):
            seen.append(v)
            return answers.get(v)

        return callback, seen

    def test_each_action(self):
        S = libdag.Search
        a, b, c, d = self.a, self.b, self.c, self.d
        cases = [
            ({b: S.MATCH, c: True}, {}, [b, c], [d, b, c]),
            ({b: True, c: S.MATCH}, {"first_match": True}, [b], [d, b]),
            ({b: S.SKIP, c: S.MATCH, d: S.MATCH}, {}, [d], [d, b]),
            ({b: S.STOP, d: S.MATCH}, {}, [d], [d, b]),
            ({b: S.MATCH_AND_STOP, d: False}, {}, [b], [d, b]),
        ]
        for answers, options, found, seen_order in cases:
            callback, seen = self.scripted(answers)
            self.assertEqual(self.g.search([a], callback, **options), found, answers)
            self.assertEqual(seen, seen_order, answers)

    def test_towards_dependents(self):
        callback, seen = self.scripted({self.a: True, self.b: True})
        self.assertEqual(self.g.search([self.c], callback, dependents=True), [self.a, self.b])
        self.assertEqual(seen, [self.b, self.a])
        callback, seen = self.scripted({self.a: True, self.b: True})
        self.assertEqual(self.g.search(self.c, callback, dependents=True, first_match=True), [self.b])

    def test_stop_midway_keeps_what_was_found(self):
        g = libdag.Graph()
        chain = [g.add_vertex() for _ in range(50)]
        for x, y in zip(chain, chain[1:]):
            g.connect(x, y)
        calls = []

        def callback(v):
            calls.append(v)
            return libdag.Search.STOP if len(calls) == 20 else libdag.Search.MATCH

        self.assertEqual(g.search(chain[0], callback), chain[1:20])
        self.assertEqual(len(calls), 20)

    def test_abort_raises_cancelled_and_the_graph_stays_usable(self):
        callback, seen = self.scripted({self.b: libdag.Search.ABORT})
        with self.assertRaises(libdag.CancelledError) as cm:
            self.g.search([self.a], callback)
        self.assertIn("aborted", cm.exception.message)
        self.assertEqual(seen, [self.d, self.b])
        e = self.g.add_vertex("e")
        self.g.connect(self.c, e)
        self.assertEqual(self.g.search(self.a, lambda v: v == e), [e])

    def test_an_exception_aborts_at_once_and_propagates_unchanged(self):
        class Boom(Exception):
            pass

        for run in (
            lambda cb: self.g.search(self.a, cb),
            lambda cb: self.g.first_ancestors_with(self.a, cb),
            lambda cb: self.g.match_descendant(self.c, cb),
        ):
            calls = []

            def callback(v):
                calls.append(v)
                try:
                    {}[v]
                except KeyError as missing:
                    raise Boom(v) from missing

            with self.assertRaises(Boom) as raised:
                run(callback)
            self.assertEqual(len(calls), 1, "the search ends at the exception, not at the next match")
            # Its cause kept (it was replaced by None).
            self.assertIsInstance(raised.exception.__cause__, KeyError)

    def test_bad_answers(self):
        for answer in (6, -1, "yes", 1.0):
            with self.assertRaises(libdag.InvalidArgumentError):
                self.g.search(self.a, lambda v, answer=answer: answer)
        with self.assertRaises(TypeError):
            self.g.search(self.a, None)
        with self.assertRaises(libdag.UnknownVertexError):
            self.g.search([99], lambda v: True)

    def test_the_callback_may_not_change_the_graph(self):
        def callback(v):
            with self.assertRaises(libdag.BusyError):
                self.g.connect(v, v)
            return True

        self.assertEqual(self.g.search(self.a, callback), [self.b, self.c, self.d])
        self.assertEqual(self.g.edge_count(), 3)


class TraverseTest(unittest.TestCase):
    def test_depth_and_breadth_first(self):
        g, ids = build([("a", "b"), ("a", "c")])
        a, b, c = ids["a"], ids["b"], ids["c"]
        self.assertEqual(g.traverse([a]), [(a, 0), (c, 1), (b, 1)])
        self.assertEqual(g.traverse([a], breadth_first=True), [(a, 0), (b, 1), (c, 1)])

    def test_sorted_and_reverse(self):
        g, ids = build([("a", "c"), ("a", "b")])  # ids: a=1, c=2, b=3
        a = ids["a"]
        # Depth first takes the last of a batch first: by id, then by name.
        self.assertEqual(names(g, [v for v, _ in g.traverse(a)]), ["a", "b", "c"])
        self.assertEqual(names(g, [v for v, _ in g.traverse(a, sort=True)]), ["a", "c", "b"])
        self.assertEqual(g.traverse([ids["b"]], reverse=True), [(ids["b"], 0), (a, 1)])

    def test_start_vertex_reached_first_from_another(self):
        g, ids = build([("a", "b")])
        a, b = ids["a"], ids["b"]
        # Depth first from {b, a}: the stack takes a first, and b at depth 1.
        self.assertEqual(g.traverse([b, a]), [(a, 0), (b, 1)])

    def test_visitor_skip_and_stop(self):
        g, ids = build([("a", "b"), ("b", "c"), ("a", "d"), ("d", "e")])
        a, b, d = ids["a"], ids["b"], ids["d"]
        skipped = g.traverse(a, lambda v, depth: libdag.Visit.SKIP if v == b else None)
        self.assertEqual(names(g, [v for v, _ in skipped]), ["a", "d", "e", "b"])
        stopped = g.traverse(a, lambda v, depth: libdag.Visit.STOP if v == d else libdag.Visit.CONTINUE)
        self.assertEqual(names(g, [v for v, _ in stopped]), ["a", "d"])

    def test_visitor_errors(self):
        g, ids = build([("a", "b")])
        with self.assertRaises(ZeroDivisionError):
            g.traverse(ids["a"], lambda v, depth: 1 / 0)
        with self.assertRaises(libdag.InvalidArgumentError) as cm:
            g.traverse(ids["a"], lambda v, depth: "sideways")
        self.assertIn("'sideways'", cm.exception.message)
        for loose in (1.0, True, 7):
            with self.assertRaises(libdag.InvalidArgumentError) as cm:
                g.traverse(ids["a"], lambda v, depth: loose)
            self.assertIn(repr(loose), cm.exception.message)
        with self.assertRaises(libdag.UnknownVertexError):
            g.traverse([99])
        with self.assertRaises(TypeError):
            g.traverse(ids["a"], "not callable")
        self.assertEqual(g.traverse([]), [])


if __name__ == "__main__":
    unittest.main()
