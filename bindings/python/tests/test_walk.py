"""Walks: order, parallelism, failures, exceptions, options, observers, background walkers."""

import fractions
import math
import os
import queue
import signal
import sys
import threading
import time
import unittest
import unittest.mock

import libdag
from libdag import VertexStatus
from support import build, race_in_a_child


class Recorder:
    """A walk callback that records, under a lock, when each vertex starts and ends."""

    def __init__(self, graph, sleep=0.0, fail=(), during=None):
        self.graph = graph
        self.sleep = sleep
        self.during = during  # called with the vertex while it runs, instead of sleeping
        self.fail = set(fail)
        self.lock = threading.Lock()
        self.clock = 0
        self.started = {}
        self.ended = {}
        self.running = 0
        self.max_running = 0
        self.threads = set()

    def _tick(self):
        self.clock += 1
        return self.clock

    def __call__(self, vertex):
        with self.lock:
            self.started[vertex] = self._tick()
            self.running += 1
            self.max_running = max(self.max_running, self.running)
            self.threads.add(threading.get_ident())
        try:
            if self.during is not None:
                self.during(vertex)
            elif self.sleep:
                time.sleep(self.sleep)
            if self.graph.name(vertex) in self.fail:
                raise RuntimeError(f"{self.graph.name(vertex)} broke")
        finally:
            with self.lock:
                self.running -= 1
                self.ended[vertex] = self._tick()

    def start_order(self):
        return [self.graph.label(v) for v in sorted(self.started, key=self.started.get)]


def deployment():
    """A small Terraform-like graph: app -> web -> {db, net}, db -> net, plus an independent dns."""
    return build([("app", "web"), ("web", "db"), ("web", "net"), ("db", "net")], vertices=["dns"])


class WalkOrderTest(unittest.TestCase):
    def test_dependencies_finish_before_dependents_start(self):
        g, ids = deployment()
        rec = Recorder(g, sleep=0.01)
        report = g.walk(rec, parallelism=4)
        self.assertTrue(report.ok)
        self.assertEqual(report.status, 0)
        self.assertEqual(report.message, "")
        self.assertEqual(len(report), 5)
        for source, target in g.edges():
            # source depends on target: target's work happens first.
            self.assertLess(rec.ended[target], rec.started[source], (g.name(source), g.name(target)))
        self.assertEqual(rec.start_order()[-1], "app")
        self.assertEqual(report.count(VertexStatus.OK), 5)

    def test_sequential_walk_runs_in_execution_order(self):
        g, ids = build([("a", "b"), ("b", "c")])
        rec = Recorder(g)
        g.walk(rec, parallelism=1)
        self.assertEqual(rec.start_order(), ["c", "b", "a"])
        self.assertEqual(rec.max_running, 1)

    def test_reverse_walk_runs_dependents_first(self):
        g, ids = build([("a", "b"), ("b", "c")])
        rec = Recorder(g)
        report = g.walk(rec, parallelism=3, reverse=True)
        self.assertTrue(report.ok)
        self.assertEqual(rec.start_order(), ["a", "b", "c"])

    def test_parallelism_bounds_callbacks_in_flight(self):
        g = libdag.Graph()
        for i in range(12):
            g.add_vertex(f"v{i}")
        # The first four wait for each other: they can only all arrive if four run at once (sleeps
        # alone let a busy machine finish one before the fourth started).
        first_four = threading.Barrier(4, timeout=30)
        arrivals = iter(range(12))  # next() on it is atomic under the GIL
        rec = Recorder(g, during=lambda _: first_four.wait() if next(arrivals) < 4 else time.sleep(0.005))
        report = g.walk(rec, parallelism=4)
        self.assertTrue(report.ok, report.message)
        self.assertEqual(rec.max_running, 4)
        self.assertGreater(len(rec.threads), 1)
        rec = Recorder(g, sleep=0.005)
        g.walk(rec, parallelism=3, threads=1)
        self.assertEqual(rec.max_running, 1)  # one thread can run one callback at a time

    def test_many_vertices(self):
        g = libdag.Graph()
        ids = [g.add_vertex() for _ in range(2000)]
        g.connect_many((ids[i], ids[i // 2]) for i in range(1, len(ids)))
        seen = []
        report = g.walk(seen.append, parallelism=8)
        self.assertTrue(report.ok)
        self.assertEqual(sorted(seen), ids)
        position = {v: i for i, v in enumerate(seen)}
        for source, target in g.edges():
            self.assertLess(position[target], position[source])

    def test_empty_graph(self):
        report = libdag.Graph().walk(lambda v: None)
        self.assertTrue(report.ok)
        self.assertEqual(len(report), 0)


class WalkFailureTest(unittest.TestCase):
    def test_failure_skips_dependents_and_independent_work_goes_on(self):
        g, ids = deployment()
        rec = Recorder(g, fail={"db"})
        report = g.walk(rec)
        self.assertFalse(report.ok)
        self.assertFalse(report)
        self.assertEqual(report.status, -18)
        self.assertEqual(report.status_name, "walk failed")
        status = {g.name(r.id): r.status for r in report}
        self.assertEqual(status, {
            "net": VertexStatus.OK, "dns": VertexStatus.OK, "db": VertexStatus.FAILED,
            "web": VertexStatus.UPSTREAM_FAILED, "app": VertexStatus.UPSTREAM_FAILED,
        })
        self.assertNotIn(ids["web"], rec.started)
        self.assertNotIn(ids["app"], rec.started)
        db = report[ids["db"]]
        self.assertEqual(db.message, "db broke")
        self.assertIsInstance(db.exception, RuntimeError)
        self.assertTrue(db.ran)
        self.assertFalse(report[ids["web"]].ran)
        self.assertEqual(report[ids["web"]].message, "")  # upstream failure is not an error of its own
        self.assertEqual(report.first_error, ids["db"])
        self.assertEqual(report.first_error_message, "vertex db failed: db broke")
        self.assertEqual(report.message, "vertex db failed: db broke")
        self.assertEqual(report.count(VertexStatus.UPSTREAM_FAILED), 2)
        self.assertEqual(report.ids(VertexStatus.FAILED), [ids["db"]])
        self.assertEqual(report.counts[VertexStatus.OK], 2)
        self.assertFalse(report.cancelled)
        with self.assertRaises(libdag.WalkFailedError) as cm:
            report.raise_for_status()
        self.assertIs(cm.exception.__cause__, db.exception)

    def test_exception_messages(self):
        g, ids = build(vertices=["empty", "nul", "unicode", "custom"])

        class Custom(Exception):
            def __str__(self):
                return "custom text"

        def callback(vertex):
            name = g.name(vertex)
            if name == "empty":
                raise KeyboardInterrupt()  # not an Exception: must not escape into C either
            if name == "nul":
                raise ValueError("before\0after")
            if name == "unicode":
                raise ValueError("échec ✗")
            raise Custom()

        report = g.walk(callback)
        self.assertEqual(report.count(VertexStatus.FAILED), 4)
        self.assertEqual(report[ids["empty"]].message, "KeyboardInterrupt")
        self.assertEqual(report[ids["nul"]].message, "before\\0after")
        self.assertEqual(report[ids["unicode"]].message, "échec ✗")
        self.assertEqual(report[ids["custom"]].message, "custom text")
        self.assertIsInstance(report[ids["empty"]].exception, KeyboardInterrupt)

    def test_failure_messages_from_eight_threads_at_once(self):
        # Every message goes to libdag (dag_walk_fail) as a temporary
        # buffer; each vertex must still report its own.
        g = libdag.Graph()
        vertices = [g.add_vertex() for _ in range(64)]
        barrier = threading.Barrier(8, timeout=60)
        lock = threading.Lock()
        entered = [0]

        def callback(vertex):
            with lock:
                entered[0] += 1
                first = entered[0] <= 8
            if first:
                barrier.wait()  # the first eight callbacks at once, on eight threads
            if vertex % 2 == 0:
                raise RuntimeError(f"vertex {vertex} " + "x" * vertex)

        report = g.walk(callback, parallelism=8)
        self.assertEqual(report.count(VertexStatus.FAILED), 32)
        for v in vertices:
            if v % 2 == 0:
                self.assertEqual(report[v].message, f"vertex {v} " + "x" * v)
            else:
                self.assertEqual(report[v].status, VertexStatus.OK)

    def test_fail_fast_starts_nothing_new(self):
        g, ids = build([("b", "a"), ("c", "b")], vertices=["a"])
        independent = [g.add_vertex(f"x{i}") for i in range(5)]
        for x in independent:
            g.connect(x, ids["a"])  # everything waits for a, which fails
        report = g.walk(lambda v: 1 / 0 if v == ids["a"] else None, fail_fast=True, parallelism=1)
        self.assertEqual(report[ids["a"]].status, VertexStatus.FAILED)
        self.assertEqual(report[ids["a"]].message, "division by zero")
        self.assertEqual(report.count(VertexStatus.OK), 0)
        self.assertEqual(report.count(VertexStatus.FAILED), 1)
        for x in independent:
            self.assertIn(report[x].status, (VertexStatus.NOT_RUN, VertexStatus.UPSTREAM_FAILED))
            self.assertFalse(report[x].ran)

    def test_fail_fast_leaves_unstarted_independent_vertices_not_run(self):
        g, ids = build(vertices=["a", "b", "c"])
        report = g.walk(lambda v: 1 / 0, fail_fast=True, parallelism=1, threads=1)
        self.assertEqual(report.count(VertexStatus.FAILED), 1)
        self.assertEqual(report.count(VertexStatus.NOT_RUN), 2)

    def test_always_run(self):
        g, ids = build([("cleanup", "work"), ("report", "cleanup")])
        ran = []

        def callback(vertex):
            ran.append(g.name(vertex))
            if g.name(vertex) == "work":
                raise RuntimeError("work failed")

        report = g.walk(callback, always_run=[ids["cleanup"]])
        self.assertEqual(ran, ["work", "cleanup", "report"])
        self.assertEqual(report[ids["cleanup"]].status, VertexStatus.OK)
        # cleanup's own result decides its dependents.
        self.assertEqual(report[ids["report"]].status, VertexStatus.OK)
        self.assertEqual(report.first_error, ids["work"])

    def test_pending_is_refused_in_a_blocking_walk(self):
        g, ids = build(vertices=["a"])
        report = g.walk(lambda v: libdag.PENDING)
        self.assertEqual(report[ids["a"]].status, VertexStatus.FAILED)
        self.assertIn("PENDING", report[ids["a"]].message)


class WalkErrorTest(unittest.TestCase):
    def test_cycle_is_refused_before_anything_runs(self):
        g, _ = build([("a", "b"), ("b", "c"), ("c", "a")])
        calls = []
        with self.assertRaises(libdag.CycleError) as cm:
            g.walk(calls.append)
        self.assertEqual(cm.exception.message, "Graph.walk: Cycle:\n  a\n  b\n  c")
        self.assertEqual(calls, [])
        g2, _ = build([("a", "a")])
        with self.assertRaises(libdag.CycleError):
            g2.walk(calls.append)
        self.assertEqual(calls, [])

    def test_bad_options(self):
        g, ids = build([("a", "b")])
        with self.assertRaises(libdag.InvalidArgumentError) as cm:
            g.walk(lambda v: None, parallelism=0)
        self.assertTrue(cm.exception.message.startswith("Graph.walk: "))
        with self.assertRaises(libdag.InvalidArgumentError):
            g.walk(lambda v: None, parallelism=-1)
        with self.assertRaises(libdag.InvalidArgumentError):
            g.walk(lambda v: None, threads=-1)
        # 0 is libdag's default: a thread per slot of parallelism.
        self.assertTrue(g.walk(lambda v: None, threads=0).ok)
        with self.assertRaises(libdag.InvalidArgumentError) as cm:
            g.walk(lambda v: None, threads=2000)
        self.assertEqual(cm.exception.message, "Graph.walk: threads is 2000, more than 1024")
        with self.assertRaises(libdag.UnknownVertexError):
            g.walk(lambda v: None, always_run=[99])
        with self.assertRaises(libdag.UnknownVertexError):
            g.walk(lambda v: None, always_run=[-3])
        with self.assertRaises(TypeError):
            g.walk(None)
        with self.assertRaises(TypeError):
            g.walk(lambda v: None, parallelism="many")
        # A flag where a count goes is a mistake, not parallelism 1 (it walked).
        with self.assertRaisesRegex(TypeError, "parallelism is an int, not bool"):
            g.walk(lambda v: None, parallelism=True)
        with self.assertRaisesRegex(TypeError, "retries is an int, not bool"):
            g.walk(lambda v: None, schedule=libdag.Schedule(retries=True))
        with self.assertRaises(TypeError):
            g.walk(lambda v: None, observer=42)

    def test_graph_is_busy_but_readable_during_a_walk(self):
        g, ids = build([("a", "b")])
        outcomes = {}

        def callback(vertex):
            outcomes[vertex] = {"name": g.name(vertex), "deps": g.dependencies(vertex)}
            for attempt in (lambda: g.add_vertex("new"), lambda: g.connect(ids["b"], ids["a"]),
                            g.close, lambda: g.rename(vertex, "x")):
                try:
                    attempt()
                except libdag.BusyError:
                    continue
                raise AssertionError("a change during the walk was allowed")
            with self.assertRaises(libdag.BusyError):
                g.walk(lambda v: None)  # the graph is already being walked

        report = g.walk(callback)
        report.raise_for_status()
        self.assertEqual(outcomes[ids["a"]], {"name": "a", "deps": [ids["b"]]})
        g.add_vertex("after")  # free again once the walk is over
        self.assertEqual(len(g), 3)


class TimestampObserverTest(unittest.TestCase):
    def test_timestamps(self):
        g, ids = build([("a", "b")])
        report = g.walk(lambda v: time.sleep(0.002))
        a, b = report[ids["a"]], report[ids["b"]]
        self.assertGreater(b.end_ns, b.start_ns)
        self.assertGreaterEqual(b.duration_ns, 1_000_000)
        self.assertGreaterEqual(a.start_ns, b.end_ns)
        report = g.walk(lambda v: None, timestamps=False)
        self.assertEqual([(r.start_ns, r.end_ns) for r in report], [(0, 0), (0, 0)])

    def test_observer_sees_every_event(self):
        g, ids = deployment()
        events = []
        lock = threading.Lock()

        def observer(event, vertex, status, running, done, total):
            with lock:
                events.append((event, g.name(vertex), status, running, done, total))

        report = g.walk(Recorder(g, fail={"web"}), observer=observer)
        self.assertEqual(report.count(VertexStatus.FAILED), 1)
        started = {name for e, name, *_ in events if e == libdag.WalkEvent.STARTED}
        finished = {name: s for e, name, s, *_ in events if e == libdag.WalkEvent.FINISHED}
        skipped = {name: s for e, name, s, *_ in events if e == libdag.WalkEvent.SKIPPED}
        self.assertEqual(started, {"net", "db", "dns", "web"})
        self.assertEqual(finished, {"net": VertexStatus.OK, "db": VertexStatus.OK, "dns": VertexStatus.OK,
                                    "web": VertexStatus.FAILED})
        self.assertEqual(skipped, {"app": VertexStatus.UPSTREAM_FAILED})
        self.assertTrue(all(total == 5 for *_, total in events))
        self.assertEqual(max(done for *_, done, _ in events), 5)

    def test_observer_exception_goes_to_unraisablehook(self):
        g, ids = build([("a", "b")])
        caught = []
        old_hook = sys.unraisablehook
        sys.unraisablehook = lambda unraisable: caught.append(unraisable.exc_value)
        try:
            report = g.walk(lambda v: None, observer=lambda *args: 1 / 0)
        finally:
            sys.unraisablehook = old_hook
        self.assertTrue(report.ok)
        self.assertTrue(caught)
        self.assertTrue(all(isinstance(e, ZeroDivisionError) for e in caught))


class WalkerTest(unittest.TestCase):
    def test_start_and_wait(self):
        g, ids = deployment()
        rec = Recorder(g, sleep=0.01)
        with g.walker(rec, parallelism=2) as walker:
            self.assertIs(walker.start(), walker)
            report = walker.wait()
            self.assertTrue(report.ok)
            again = walker.wait()  # may be called again
            self.assertEqual(again.counts, report.counts)
        self.assertTrue(walker.closed)
        self.assertEqual(len(rec.started), 5)
        with self.assertRaises(libdag.ClosedError):
            walker.wait()
        with self.assertRaises(libdag.ClosedError):
            walker.start()

    def test_name_and_user_data_after_the_walk_are_reads_of_the_graph(self):
        """Once the walk has ended the graph takes changes again: Walker.name and user_data read it
        without its gate, beside a rename on another thread (garbage names, or a crash)."""
        race_in_a_child(self, """
graph = libdag.Graph()
a = graph.add_vertex("a")
graph.set_user_data(a, 7)
walker = graph.walker(lambda v: None)
walker.start()
walker.wait()
turn = [0]
def change():
    turn[0] += 1
    graph.rename(a, "x" * (1 + turn[0] % 300))
    graph.add_vertex(None)
def read():
    name = walker.name(a)
    return set(name) == {"x"} or name == "a" if walker.user_data(a) == 7 else False
""")

    def test_other_threads_run_while_quick_callbacks_follow_each_other(self):
        # Each callback's end released the GIL and woke a thread waiting for
        # it, which then waited its 5 ms again while the next callback took
        # the GIL: such a thread ran only once the walk had ended (the main
        # thread too, so Ctrl-C went unseen). Here a timer cancels the walk.
        g = libdag.Graph()
        g.add_vertices([f"v{i}" for i in range(50000)])

        def busy(_vertex):
            total = 0
            for i in range(20000):
                total += i

        with g.walker(busy, parallelism=1) as walker:
            cancelled = []

            def cancel():
                try:
                    walker.cancel()
                    cancelled.append(True)
                except libdag.StateError:
                    cancelled.append(False)  # the walk had ended first

            timer = threading.Timer(1.0, cancel)
            timer.start()
            walker.start()
            report = walker.wait()
            timer.join()
        # 25 s of callbacks: the cancel at 1 s finds most of them to come.
        self.assertEqual(cancelled, [True])
        self.assertGreater(report.count(VertexStatus.CANCELLED), 25000)

    def test_arguments_of_the_wrong_type(self):
        # AttributeError for the objects, and a text timeout repeated a
        # thousand times into a number of seconds.
        g = libdag.Graph.from_dict({"b": ["a"], "a": []})
        with g.pull_walker() as walk:
            walk.start()
            for timeout in ("1", True, [1]):
                with self.assertRaises(TypeError):
                    walk.next_ready(timeout=timeout)
            (a,) = walk.next_ready()
            with self.assertRaises(TypeError):
                walk.expand(a, None)
            with self.assertRaises(TypeError):
                walk.apply(None)
            walk.complete(a)
            self.assertEqual(len(walk.next_ready(timeout=10)), 1)
        with self.assertRaises(TypeError):
            g.walk_on(None, lambda v: None)

    def test_a_timeout_may_be_any_real_number(self):
        # A Fraction (any numbers.Real) was refused as not a number; NaN is
        # no time at all, and an infinite one waits as None does.
        g = libdag.Graph.from_dict({"b": ["a"], "a": []})
        with g.pull_walker() as walk:
            walk.start()
            self.assertEqual(walk.next_ready(timeout=fractions.Fraction(1, 2)), [g.find("a")])
            self.assertIsNone(walk.next_ready(timeout=fractions.Fraction(1, 100)))
            with self.assertRaises(ValueError):
                walk.next_ready(timeout=math.nan)
            self.assertIsNone(walk.next_ready(timeout=-math.inf))  # OverflowError before
            walk.complete(g.find("a"))
            self.assertEqual(walk.next_ready(timeout=math.inf), [g.find("b")])

    def test_misuse(self):
        g, ids = build([("a", "b")])
        walker = g.walker(lambda v: None)
        with self.assertRaises(libdag.StateError):
            walker.wait()  # not started
        with self.assertRaises(libdag.StateError):
            walker.cancel()
        walker.start()
        with self.assertRaises(libdag.StateError):
            walker.start()
        walker.wait()
        with self.assertRaises(libdag.StateError):
            walker.cancel()  # the walk has finished
        with self.assertRaises(libdag.StateError):
            walker.complete(ids["a"])  # not pending
        walker.close()
        walker.close()  # idempotent
        cyclic, _ = build([("a", "b"), ("b", "a")])
        with self.assertRaises(libdag.CycleError):
            cyclic.walker(lambda v: None).start()
        cyclic.add_vertex("not busy after a refused start")

    def test_a_walker_refused_at_start_starts_once_the_cause_is_gone(self):
        # The second start() raised RuntimeError (release unlocked lock) with the walk running; and
        # its callbacks did not wait for start() to record the walk (a vertex came as a sub-walk's).
        g, ids = build([("a", "b"), ("b", "a"), ("c", "b")])
        seen = []
        walker = g.walker(seen.append)
        with self.assertRaises(libdag.CycleError):
            walker.start()
        g.disconnect(ids["b"], ids["a"])
        walker.start()
        report = walker.wait()
        walker.close()
        self.assertTrue(report.ok, report.message)
        self.assertEqual(sorted(seen), sorted(ids.values()))
        self.assertTrue(all(type(vertex) is int for vertex in seen), seen)

    def test_wait_from_its_own_callback_is_refused(self):
        g, ids = build(vertices=["a"])
        holder = {}
        outcome = []

        def callback(vertex):
            try:
                holder["walker"].wait()
            except libdag.StateError as exc:
                outcome.append(exc.message)

        walker = holder["walker"] = g.walker(callback)
        with walker:
            self.assertTrue(walker.start().wait().ok)
        self.assertEqual(len(outcome), 1)
        self.assertTrue(outcome[0].startswith("Walker.wait: cannot wait for a walk from inside its own callback"),
                        outcome[0])

    def test_graph_is_busy_until_waited(self):
        g, ids = build([("a", "b")])
        gate = threading.Event()
        walker = g.walker(lambda v: gate.wait(5)).start()
        with self.assertRaises(libdag.BusyError):
            g.add_vertex("c")
        with self.assertRaises(libdag.BusyError):
            g.close()
        self.assertEqual(g.name(ids["a"]), "a")  # reads go on
        gate.set()
        self.assertTrue(walker.wait().ok)
        g.add_vertex("c")
        g.close()  # the walker still works: the library keeps the graph for it
        self.assertTrue(walker.wait().ok)
        walker.close()

    def test_names_after_the_graph_is_closed(self):
        # A waited walk outlives its Graph: a name is looked up in the
        # walk's own graph, as an id is read there (bytearray too, as Graph.name takes it).
        g, ids = build(vertices=["a"])
        g.set_user_data("a", 7)
        walker = g.walker(lambda v: None).start()
        self.assertTrue(walker.wait().ok)
        names = ("a", b"a", bytearray(b"a"), ids["a"])
        for vertex in names:
            self.assertEqual((walker.name(vertex), walker.user_data(vertex)), ("a", 7))
        g.close()
        for vertex in names:
            self.assertEqual((walker.name(vertex), walker.user_data(vertex)), ("a", 7))
        with self.assertRaises(libdag.NotFoundError):
            walker.name("b")
        walker.close()

    def test_cancel_from_a_callback(self):
        g = libdag.Graph()
        chain = [g.add_vertex(f"v{i}") for i in range(10)]
        for dependent, dependency in zip(chain[1:], chain):
            g.connect(dependent, dependency)
        holder = {}

        def callback(vertex):
            if vertex == chain[3]:
                holder["walker"].cancel()

        walker = g.walker(callback)
        holder["walker"] = walker
        with walker:
            walker.start()
            report = walker.wait()
        self.assertTrue(report.cancelled)
        self.assertEqual(report.status, -14)
        self.assertIn("cancelled", report.message)
        self.assertEqual([report[v].status for v in chain[:4]], [VertexStatus.OK] * 4)
        self.assertEqual(report.count(VertexStatus.CANCELLED), 6)
        self.assertFalse(report[chain[4]].ran)
        with self.assertRaises(libdag.CancelledError):
            report.raise_for_status()

    def test_pending_and_complete_from_another_thread(self):
        g, ids = build([("top", "left"), ("top", "right")])
        handed_over = queue.Queue()
        walker = g.walker(lambda v: (handed_over.put(v), libdag.PENDING)[1], parallelism=2)

        def engine():
            for _ in range(2):
                vertex = handed_over.get(timeout=5)
                if g.name(vertex) == "left":
                    walker.complete(vertex)
                else:
                    walker.complete(vertex, ValueError("remote failure"))

        worker = threading.Thread(target=engine)
        worker.start()
        with walker:
            walker.start()
            worker.join()
            report = walker.wait()
        self.assertEqual(report[ids["left"]].status, VertexStatus.OK)
        self.assertEqual(report[ids["right"]].status, VertexStatus.FAILED)
        self.assertEqual(report[ids["right"]].message, "remote failure")
        self.assertIsInstance(report[ids["right"]].exception, ValueError)
        self.assertEqual(report[ids["top"]].status, VertexStatus.UPSTREAM_FAILED)

    def test_a_refused_completion_leaves_no_exception_in_the_report(self):
        # The exception was recorded before libdag refused the completion,
        # and showed in the report of a vertex it never decided.
        g = libdag.Graph.from_dict({"a": ["b"], "b": []})
        a, b = g.find("a"), g.find("b")
        started = threading.Event()

        def pend(vertex):
            started.set()
            return libdag.PENDING

        with g.walker(pend) as walker:
            walker.start()
            self.assertTrue(started.wait(5))
            with self.assertRaises(libdag.StateError):
                walker.complete(a, ValueError("a has not started"))
            walker.complete(b)
            with self.assertRaises(libdag.StateError):
                walker.complete(b, ValueError("b is complete already"))
            deadline = time.monotonic() + 5
            while True:
                try:
                    walker.complete(a)
                    break
                except libdag.StateError:
                    self.assertLess(time.monotonic(), deadline)  # a's callback has not started yet
                    time.sleep(0.001)
            report = walker.wait()
        self.assertTrue(report.ok)
        self.assertIsNone(report[a].exception)
        self.assertIsNone(report[b].exception)

    def test_graph_methods_refuse_a_vertex_of_an_expanded_sub_graph(self):
        # Its id is the sub-graph's: Graph.name answered with the name of
        # the graph's own vertex of the same number.
        g = libdag.Graph.from_dict({"deploy": ["servers"], "servers": []})
        sub = libdag.Graph.from_dict({"server-0": [], "server-1": ["server-0"]})
        seen = []

        def step(vertex):
            if isinstance(vertex, libdag.SubwalkVertex):
                try:
                    g.name(vertex)
                    seen.append("answered")
                except libdag.UnknownVertexError:
                    seen.append(walker.name(vertex))
            elif g.name(vertex) == "servers":
                walker.expand(vertex, sub)

        subwalk_vertices = []
        seen_step = step

        def step(vertex):  # noqa: F811 - the one above, keeping the sub-walk's vertices
            if isinstance(vertex, libdag.SubwalkVertex):
                subwalk_vertices.append(vertex)
            seen_step(vertex)

        with g.walker(step) as walker:
            walker.start()
            report = walker.wait()
            self.assertTrue(report.ok)
        self.assertEqual(sorted(seen), ["server-0", "server-1"])
        # Nor is one a vertex of the report (it answered for the graph's own vertex 0 or 1), nor True.
        self.assertEqual(len(subwalk_vertices), 2)
        for vertex in subwalk_vertices + [True]:
            self.assertNotIn(vertex, report)
            with self.assertRaises(KeyError):
                report[vertex]

    def test_a_report_takes_any_integer_type_the_graph_takes(self):
        # numpy's integers are not int but have __index__, as the graph's
        # calls accept them: the report answered KeyError for them.
        class Index:
            def __init__(self, value):
                self.value = value

            def __index__(self):
                return self.value

        g, ids = build(vertices=["a", "b"])
        report = g.walk(lambda v: None)
        self.assertEqual(report[Index(ids["b"])].id, ids["b"])
        self.assertIn(Index(ids["a"]), report)
        self.assertNotIn(Index(12345), report)
        for bad in ("a", 1.0, None):
            self.assertNotIn(bad, report)

    def test_complete_with_a_message_string(self):
        g, ids = build(vertices=["a"])
        walker = g.walker(lambda v: libdag.PENDING)
        with walker:
            walker.start()
            with self.assertRaises(libdag.UnknownVertexError):
                walker.complete(99)
            deadline = time.monotonic() + 5
            while True:
                try:
                    walker.complete(ids["a"], "plain message")
                    break
                except libdag.StateError:
                    # The callback has not started yet.
                    self.assertLess(time.monotonic(), deadline)
                    time.sleep(0.001)
            report = walker.wait()
            with self.assertRaises(libdag.StateError):
                walker.complete(ids["a"])  # already finished
        self.assertEqual(report[ids["a"]].message, "plain message")
        self.assertIsNone(report[ids["a"]].exception)

    def test_ctrl_c_cancels_the_walk_and_waits_for_running_callbacks(self):
        # The callback holds the walk until the main thread has seen the
        # interrupt: a wait that ignored Ctrl-C until the walk ended would
        # only raise after b had run.
        g, ids = build([("b", "a")])
        ran = []
        cancelled = threading.Event()
        cancel = libdag.walk._cancel_quietly

        def cancel_and_say(handle):
            cancel(handle)
            cancelled.set()

        def callback(vertex):
            ran.append(vertex)
            if vertex == ids["a"]:
                os.kill(os.getpid(), signal.SIGINT)
                # Until the interrupted wait has cancelled the walk (a sleep lost that race on a busy machine).
                cancelled.wait(30)

        with g.walker(callback, parallelism=2).start() as walker, \
                unittest.mock.patch.object(libdag.walk, "_cancel_quietly", cancel_and_say):
            with self.assertRaises(KeyboardInterrupt) as caught:
                walker.wait()
        self.assertTrue(cancelled.is_set())
        report = caught.exception.walk_report
        self.assertTrue(report.cancelled)
        self.assertEqual(ran, [ids["a"]])
        self.assertEqual(report[ids["a"]].status, VertexStatus.OK)
        self.assertEqual(report[ids["b"]].status, VertexStatus.CANCELLED)
        g.add_vertex("the walk has ended: the graph may change")

    def test_close_cancels_a_running_walk(self):
        g = libdag.Graph()
        for i in range(50):
            g.add_vertex(f"v{i}")
        started = threading.Event()

        def callback(vertex):
            started.set()
            time.sleep(0.01)

        walker = g.walker(callback, parallelism=1).start()
        self.assertTrue(started.wait(5))
        walker.close()  # cancels, waits, frees
        self.assertTrue(walker.closed)
        g.add_vertex("free again")

    def test_ctrl_c_while_close_waits_still_frees_the_walk(self):
        # close() waits for another thread's wait() to leave the walker; a
        # Ctrl-C there used to leave the walk unfreed and the graph walked.
        def threads():
            return len(os.listdir("/proc/self/task"))

        g = libdag.Graph()
        g.add_vertex("a")
        started = threading.Event()
        before = threads()

        def callback(vertex):
            started.set()
            time.sleep(1.5)

        walker = g.walker(callback).start()
        self.assertTrue(started.wait(5))
        waiter = threading.Thread(target=walker.wait, daemon=True)
        waiter.start()
        time.sleep(0.1)  # inside its wait
        threading.Timer(0.3, os.kill, (os.getpid(), signal.SIGINT)).start()
        with self.assertRaises(KeyboardInterrupt):
            walker.close()
        self.assertTrue(walker.closed)
        deadline = time.monotonic() + 10
        # Freed in the background once the callback and the wait have
        # returned: the walk's pool threads are joined then.
        while threads() > before:
            self.assertLess(time.monotonic(), deadline, "the walk was never freed")
            time.sleep(0.01)
        g.add_vertex("after")

    def test_a_walker_finalised_inside_the_graphs_gate_ends_its_walk(self):
        # The garbage collector may run a dropped Walker's finaliser on a
        # thread that is inside a section under the graph's gate lock (an
        # allocation there); ending the walk of that graph from there must
        # not wait for the lock its own thread holds.
        g = libdag.Graph()
        g.add_vertex("a")
        walker = g.walker(lambda vertex: None).start()

        def finalise_inside_the_gate():
            with g._handle._lock:
                walker.close()

        thread = threading.Thread(target=finalise_inside_the_gate, daemon=True)
        thread.start()
        thread.join(10)
        self.assertFalse(thread.is_alive(), "closing the walker waited for its own thread's lock")
        g.add_vertex("the walk is over")

    def test_pending_vertex_cancelled(self):
        g, ids = build([("b", "a")])
        holder = {}

        def callback(vertex):
            holder["walker"].cancel()
            return libdag.PENDING

        walker = holder["walker"] = g.walker(callback)
        with walker:
            walker.start()
            report = walker.wait()
            # As documented: a vertex cancelled while pending says so; one
            # that never started is not pending.
            with self.assertRaises(libdag.CancelledError) as cm:
                walker.complete(ids["a"])
            self.assertNotIsInstance(cm.exception, libdag.StateError)
            self.assertTrue(cm.exception.message.startswith("Walker.complete: "), cm.exception.message)
            with self.assertRaises(libdag.StateError):
                walker.complete(ids["b"])
        self.assertEqual(report[ids["a"]].status, VertexStatus.CANCELLED)
        self.assertTrue(report[ids["a"]].ran)
        self.assertEqual(report[ids["a"]].message, "cancelled while pending")
        self.assertEqual(report[ids["b"]].status, VertexStatus.CANCELLED)
        self.assertFalse(report[ids["b"]].ran)

    def test_close_from_its_own_callback(self):
        g = libdag.Graph()
        chain = [g.add_vertex() for _ in range(20)]
        for dependent, dependency in zip(chain[1:], chain):
            g.connect(dependent, dependency)
        holder = {}
        closed = threading.Event()

        def callback(vertex):
            if vertex == chain[2]:
                holder["walker"].close()  # cancels; the walk is freed in the background
                closed.set()

        walker = holder["walker"] = g.walker(callback)
        walker.start()
        self.assertTrue(closed.wait(5))
        self.assertTrue(walker.closed)
        deadline = time.monotonic() + 5
        while True:  # the graph is released once the walk has ended
            try:
                g.add_vertex("after")
                break
            except libdag.BusyError:
                self.assertLess(time.monotonic(), deadline)
                time.sleep(0.005)


if __name__ == "__main__":
    unittest.main()
