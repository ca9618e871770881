"""Builder: Terraform-like declarations through the built-in steps, Python steps, the observer and errors."""

import copy
import pickle
import threading
import time
import unittest

import libdag
from libdag import Action, Builder
from support import race_in_a_child


def named_edges(graph):
    return {(graph.name(a), graph.name(b)) for a, b in graph.edges()}


AWS = 'provider["registry.terraform.io/hashicorp/aws"]'


def within(test, seconds, fn):
    """Runs fn on a thread of its own; fails the test if it has not returned in time (it waited for itself)."""
    outcome = []

    def run():
        try:
            outcome.append(("returned", fn()))
        except BaseException as error:  # noqa: B902 - handed to the test
            outcome.append(("raised", error))

    thread = threading.Thread(target=run, daemon=True)
    thread.start()
    thread.join(seconds)
    test.assertFalse(thread.is_alive(), "it never returned")
    return outcome[0]


class BuilderTest(unittest.TestCase):
    def test_a_builder_walker_or_update_cannot_be_copied_or_pickled(self):
        # A copy shared the C object, and each copy's close() freed it (a crash).
        g = libdag.Graph.from_dict({"a": [], "b": []})
        with Builder(g) as b, g.walker(lambda v: None) as w, libdag.WalkUpdate() as u:
            for obj in (b, w, u):
                for attempt in (copy.copy, copy.deepcopy, pickle.dumps):
                    with self.assertRaises(TypeError):
                        attempt(obj)
            b.add_root("root")
            b.build()
        self.assertEqual(len(g), 3)

    def test_declarations_are_reads_of_the_graph(self):
        """A declaration looks its vertex up in the graph: without the graph's gate it ran beside a
        change on another thread (a crash)."""
        race_in_a_child(self, """
graph = libdag.Graph()
ids = graph.add_vertices([None] * 8)
builder = libdag.Builder(graph)
def change():
    for v in graph.add_vertices([None] * 64):
        graph.remove_vertex(v)
def read():
    for v in ids:
        builder.set_action(v, "update")
        builder.provide(v, "aws_instance.web")
""")

    def test_a_builder_closed_by_its_own_step_finishes_the_build(self):
        g = libdag.Graph()
        g.add_vertex("a")
        b = Builder(g)
        b.add_step("close", lambda graph: b.close())
        b.add_root()
        self.assertEqual(b.build(validate=False), [])
        with self.assertRaises(libdag.ClosedError):
            b.build()

    def test_the_prune_predicate_and_the_observer_cannot_change_or_walk_the_graph(self):
        # The build holds the graph's write gate while they run: a change,
        # a walk or another build from there must be refused, not wait for
        # the build.
        attempts = {
            "change": lambda g, b: g.add_vertex(),
            "walk": lambda g, b: g.walk(lambda vertex: None),
            "build": lambda g, b: b.build(validate=False),
        }
        for where in ("predicate", "observer"):
            for what, attempt in attempts.items():
                with self.subTest(where=where, what=what):
                    g = libdag.Graph()
                    g.add_vertex("a")
                    b = Builder(g)
                    refused = []

                    def call(*_, g=g, b=b, attempt=attempt, refused=refused):
                        try:
                            attempt(g, b)
                        except libdag.BusyError as error:
                            refused.append(error.message)
                        return False

                    if where == "predicate":
                        b.add_prune(call)
                        result = within(self, 10, lambda b=b: b.build(validate=False))
                    else:
                        b.add_root()
                        result = within(self, 10, lambda b=b, call=call: b.build(validate=False, observer=call))
                    self.assertEqual(result[0], "returned", result)
                    self.assertEqual(len(refused), 1, refused)
                    self.assertIn("called from inside a change of the same graph", refused[0])
                    g.add_vertex("the build is over")


    def test_references_providers_root_and_reduction(self):
        with libdag.Graph() as g, Builder(g) as b:
            vpc = g.add_vertex("aws_vpc.main")
            subnet = g.add_vertex("aws_subnet.public")
            out = g.add_vertex("output.subnet")
            b.provide(vpc, "aws_vpc.main")
            b.provide(subnet, "aws_subnet.public")
            b.reference(subnet, "aws_vpc.main.id")
            b.reference(out, "aws_subnet.public[0].id")
            b.need(vpc, AWS)
            b.need("aws_subnet.public", AWS)
            b.add_references()
            b.add_destroy_order()
            b.add_shared(close=True)
            b.add_root()
            b.add_transitive_reduction()
            seen = []
            self.assertEqual(b.build(observer=seen.append), [])
            self.assertEqual(named_edges(g), {
                ("aws_subnet.public", "aws_vpc.main"),
                ("aws_vpc.main", AWS),
                ("output.subnet", "aws_subnet.public"),
                (AWS + " (close)", "aws_subnet.public"),
                ("root", "output.subnet"),
                ("root", AWS + " (close)"),
            })
            self.assertEqual([s.name for s in seen],
                             ["references", "destroy order", "shared", "root", "transitive reduction"])
            self.assertEqual([s.index for s in seen], list(range(5)))
            for before, after in zip(seen, seen[1:]):
                self.assertEqual((after.vertices_before, after.edges_before),
                                 (before.vertices_after, before.edges_after))
            self.assertEqual(seen[-1].vertices_after, len(g))

    def test_unresolved_references_fail_naming_the_step_or_warn(self):
        with libdag.Graph() as g:
            web = g.add_vertex("web")
            with Builder(g) as strict:
                strict.reference(web, "var.region")
                strict.add_references()
                with self.assertRaises(libdag.NotFoundError) as caught:
                    strict.build()
                self.assertIn("step 'references': 1 unresolved reference:\n  web: nothing provides \"var.region\"",
                              str(caught.exception))
            with Builder(g) as lenient:
                lenient.reference(web, "var.region")
                lenient.add_references(warn=True)
                self.assertEqual(lenient.build(), ['web: nothing provides "var.region"'])
                self.assertEqual(lenient.warnings(), ['web: nothing provides "var.region"'])

    def test_python_step_changes_the_graph_and_its_exception_is_raised(self):
        with libdag.Graph() as g, Builder(g) as b:
            def config(graph):
                a = graph.add_vertex("a")
                graph.connect(a, graph.add_vertex("b"))

            b.add_step("config", config)
            b.build()
            self.assertEqual(named_edges(g), {("a", "b")})

        class Locked(Exception):
            pass

        with libdag.Graph() as g, Builder(g) as b:
            def lock(graph):
                raise Locked("state is locked")

            b.add_step("lock", lock)
            with self.assertRaises(Locked):
                b.build()
            g.add_vertex("still changeable")

    def test_a_change_waiting_for_a_build_goes_on_during_its_python_step(self):
        # Another thread's change that began waiting for the build must get
        # in while a Python step has the graph, and the step must be able to
        # read it meanwhile: neither waits for the other.
        with libdag.Graph() as g, Builder(g) as b:
            g.add_vertex("root")
            waiting = threading.Event()
            changed = threading.Event()
            seen = []

            def change():
                waiting.set()
                g.add_vertex("from another thread")  # waits for the build
                changed.set()

            def observer(step):
                if not waiting.is_set():
                    threading.Thread(target=change, daemon=True).start()
                    waiting.wait(10)
                    time.sleep(0.1)  # it waits for the build now

            def step(graph):
                self.assertTrue(changed.wait(10), "the waiting change never got in during the step")
                seen.append(len(graph))

            b.add_transitive_reduction()  # the observer hears of it before the Python step runs
            b.add_step("mine", step)
            b.build(validate=False, observer=observer)
            self.assertEqual(seen, [2])

    def test_destroy_order_and_prune(self):
        with libdag.Graph() as g, Builder(g) as b:
            out, web, db = (g.add_vertex(n) for n in ("output.ip", "web", "db"))
            g.connect(out, web)
            g.connect(web, db)
            b.set_action(db, Action.REPLACE)
            b.set_action(web, "update")
            b.add_prune(lambda v: g.name(v).startswith("output."))
            b.add_destroy_order()
            b.build()
            self.assertEqual(named_edges(g), {("web", "db"), ("web", "db (destroy)"), ("db", "db (destroy)")})
            with self.assertRaises(ValueError):
                b.set_action(db, "destroy")
            for loose in (1.5, True):
                with self.assertRaises(TypeError):
                    b.set_action(db, loose)
            with self.assertRaises(libdag.InvalidArgumentError):
                b.set_action(db, 1 << 32)

    def test_validation_at_the_end(self):
        with libdag.Graph() as g, Builder(g) as b:
            g.add_vertex("a")
            g.add_vertex("b")
            with self.assertRaises(libdag.MultipleRootsError):
                b.build()
            self.assertEqual(b.build(single_root=False), [])
            self.assertEqual(b.build(validate=False), [])

    def test_closed_builder_and_bad_input(self):
        with libdag.Graph() as g:
            b = Builder(g)
            v = g.add_vertex("v")
            with self.assertRaises(libdag.InvalidArgumentError):
                b.provide(v, "")
            with self.assertRaises(libdag.UnknownVertexError):
                b.provide(99, "x")
            with self.assertRaises(TypeError):
                b.add_step("s", None)
            with self.assertRaises(TypeError):
                Builder("not a graph")
            b.close()
            b.close()
            with self.assertRaises(libdag.ClosedError):
                b.add_root()


if __name__ == "__main__":
    unittest.main()
