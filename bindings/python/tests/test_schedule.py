"""Schedule: named limits (pools) and retries, and each attempt's message in the report."""

import threading
import time
import unittest

import libdag
from libdag import Schedule, VertexStatus
from support import build

# Long enough never to pass on a busy machine unless something is wrong.
WAIT_S = 60


class PoolTest(unittest.TestCase):
    def test_a_pool_bounds_its_vertices_and_others_run_meanwhile(self):
        aws = [f"aws{i}" for i in range(8)]
        graph, ids = build(vertices=aws + ["free"])
        lock = threading.Lock()
        running = [0]
        peak = [0]
        free_ran = threading.Event()

        def callback(vertex):
            if vertex == ids["free"]:
                free_ran.set()
                return
            with lock:
                running[0] += 1
                peak[0] = max(peak[0], running[0])
            try:
                # Two aws vertices hold the pool until "free", which needs
                # no pool, has run: it must not queue behind the full pool.
                if not free_ran.wait(WAIT_S):
                    raise RuntimeError("free never ran while the aws pool was full")
            finally:
                with lock:
                    running[0] -= 1

        schedule = Schedule(pools={"aws": 2}, needs={name: "aws" for name in aws})
        report = graph.walk(callback, parallelism=8, schedule=schedule)
        self.assertTrue(report.ok, report.message)
        self.assertLessEqual(peak[0], 2)
        self.assertEqual(report.count(VertexStatus.OK), 9)

    def test_a_vertex_needing_two_pools_takes_both(self):
        graph, ids = build(vertices=["both", "a", "b"])
        lock = threading.Lock()
        held = {"p": 0, "q": 0}
        overfull = []
        needs = {"both": ["p", "q"], "a": ["p"], "b": ["q"]}

        def callback(vertex):
            pools = needs[graph.name(vertex)]
            with lock:
                for pool in pools:
                    held[pool] += 1
                    if held[pool] > 1:
                        overfull.append(pool)
            with lock:
                for pool in pools:
                    held[pool] -= 1

        report = graph.walk(callback, parallelism=3, schedule=Schedule(pools={"p": 1, "q": 1}, needs=needs))
        self.assertTrue(report.ok, report.message)
        self.assertEqual(overfull, [])

    def test_an_undeclared_pool_or_one_of_capacity_0_is_refused(self):
        graph, _ = build(vertices=["a"])
        with self.assertRaises(libdag.InvalidArgumentError):
            graph.walk(lambda v: None, schedule=Schedule(pools={"aws": 1}, needs={"a": "gcp"}))
        with self.assertRaises(libdag.InvalidArgumentError):
            graph.walk(lambda v: None, schedule=Schedule(pools={"aws": 0}, needs={"a": "aws"}))
        with self.assertRaises(libdag.UnknownVertexError):
            graph.walk(lambda v: None, schedule=Schedule(pools={"aws": 1}, needs={99: "aws"}))
        with self.assertRaises(TypeError):
            graph.walk(lambda v: None, schedule={"aws": 1})

    def test_a_pool_name_holding_a_nul_or_a_need_that_is_no_name_is_refused(self):
        graph, _ = build(vertices=["a"])
        # C would read "aws\0x" as "aws": the vertex would silently take aws's slot.
        with self.assertRaisesRegex(libdag.InvalidArgumentError, "NUL"):
            graph.walk(lambda v: None, schedule=Schedule(pools={"aws": 1}, needs={"a": "aws\0x"}))
        with self.assertRaisesRegex(libdag.InvalidArgumentError, "NUL"):
            graph.walk(lambda v: None, schedule=Schedule(pools={"aws": 1, "aws\0x": 5}))
        # A lone surrogate cannot be UTF-8: as a vertex name with one is refused (it was a TypeError).
        with self.assertRaisesRegex(libdag.BadUtf8Error, "^Graph.walk: pool name"):
            graph.walk(lambda v: None, schedule=Schedule(pools={"\ud800": 1}))
        for needed in (5, b"aws", [b"aws"]):
            with self.subTest(needed=needed), self.assertRaisesRegex(TypeError, "^Graph.walk: "):
                graph.walk(lambda v: None, schedule=Schedule(pools={"aws": 1}, needs={"a": needed}))

    def test_a_pull_walk_hands_out_only_what_the_pool_allows(self):
        graph, _ = build(vertices=["a", "b", "c"])
        schedule = Schedule(pools={"one": 1}, needs={"a": "one", "b": "one", "c": "one"})
        with graph.pull_walker(parallelism=3, schedule=schedule) as walker:
            walker.start()
            first = walker.next_ready(timeout=0)
            self.assertEqual(len(first), 1)
            self.assertIsNone(walker.next_ready(timeout=0))
            walker.complete(first[0])
            second = walker.next_ready(timeout=WAIT_S)
            self.assertEqual(len(second), 1)
            walker.complete(second[0])
            walker.complete(walker.next_ready(timeout=WAIT_S)[0])
            self.assertEqual(walker.next_ready(timeout=WAIT_S), [])
            self.assertTrue(walker.wait().ok)


class PriorityTest(unittest.TestCase):
    def order(self, graph, schedule):
        started = []
        graph.walk(lambda v: started.append(graph.name(v)), parallelism=1, schedule=schedule)
        return started

    def test_the_longest_weighted_chain_starts_first(self):
        graph, _ = build([("z3", "z2"), ("z2", "z1")], vertices=["a"])
        self.assertEqual(self.order(graph, Schedule(priority="critical-path")), ["z1", "z2", "a", "z3"])
        self.assertEqual(self.order(graph, Schedule(priority="name")), ["a", "z1", "z2", "z3"])
        # Weighed by expected duration, the lone vertex outweighs the chain.
        self.assertEqual(self.order(graph, Schedule(priority="critical-path", weights={"a": 10})),
                         ["a", "z1", "z2", "z3"])

    def test_an_unknown_priority_is_refused(self):
        graph, _ = build(vertices=["a"])
        with self.assertRaises(libdag.InvalidArgumentError):
            graph.walk(lambda v: None, schedule=Schedule(priority="fastest"))


class RetryTest(unittest.TestCase):
    def test_a_vertex_that_fails_twice_then_succeeds(self):
        graph, ids = build([("app", "db")])
        calls = []

        def callback(vertex):
            calls.append(graph.name(vertex))
            if vertex == ids["db"] and calls.count("db") < 3:
                raise RuntimeError(f"db try {calls.count('db')}")

        report = graph.walk(callback, parallelism=1, schedule=Schedule(retries=2, retry_delay=0.001,
                                                                       retry_doubling=True))
        self.assertTrue(report.ok, report.message)
        self.assertEqual(calls, ["db", "db", "db", "app"])
        db = report[ids["db"]]
        self.assertEqual(db.attempts, 3)
        self.assertEqual(db.attempt_messages, ("db try 1", "db try 2", ""))
        self.assertEqual(report[ids["app"]].attempts, 1)

    def test_a_cap_under_a_millisecond_still_caps_the_back_off(self):
        # 0.0004 s rounded to 0 ms, which libdag reads as no cap: the back-offs were 0.3 s and 0.6 s.
        graph, ids = build(vertices=["db"])
        calls = []

        def callback(vertex):
            calls.append(time.monotonic())
            raise RuntimeError("down")

        graph.walk(callback, schedule=Schedule(retries=2, retry_delay=0.3, retry_doubling=True,
                                               retry_max_delay=0.0004))
        self.assertEqual(len(calls), 3)
        self.assertLess(calls[-1] - calls[0], 0.3)

    def test_the_report_keeps_the_last_attempts_exception_only(self):
        graph, ids = build(vertices=["ok_later", "fails_twice"])
        tries = {}

        def callback(vertex):
            tries[vertex] = tries.get(vertex, 0) + 1
            if vertex == ids["ok_later"] and tries[vertex] == 1:
                raise ValueError("first")
            if vertex == ids["fails_twice"]:
                raise (ValueError if tries[vertex] == 1 else KeyError)(f"try {tries[vertex]}")

        report = graph.walk(callback, parallelism=1, schedule=Schedule(retries=1))
        self.assertEqual(report[ids["ok_later"]].status, VertexStatus.OK)
        self.assertIsNone(report[ids["ok_later"]].exception)
        self.assertIsInstance(report[ids["fails_twice"]].exception, KeyError)

    def test_a_pull_walks_report_keeps_the_last_attempts_exception_only(self):
        for poll in (False, True):  # next_ready waiting, and polling as the asyncio walk does
            with self.subTest(poll=poll):
                graph, ids = build(vertices=["a"])
                with graph.pull_walker(schedule=Schedule(retries=1)) as walker:
                    walker.start()
                    failures = [ValueError("attempt 1"), "attempt 2 quota"]
                    while True:
                        ready = walker.next_ready(timeout=0 if poll else WAIT_S)
                        if ready is None:
                            continue
                        if not ready:
                            break
                        walker.complete(ready[0], failures.pop(0))
                    report = walker.wait()
                self.assertEqual(report[ids["a"]].attempts, 2)
                self.assertIsNone(report[ids["a"]].exception)
                with self.assertRaises(libdag.WalkFailedError) as raised:
                    report.raise_for_status()
                self.assertIsNone(raised.exception.__cause__)

    def test_per_vertex_counts_and_dependents_skipped_after_the_last(self):
        graph, ids = build([("app", "db"), ("web", "cache")])

        def callback(vertex):
            if vertex in (ids["db"], ids["cache"]):
                raise RuntimeError("down")

        report = graph.walk(callback, schedule=Schedule(retry_counts={"db": 2}))
        self.assertEqual(report[ids["db"]].status, VertexStatus.FAILED)
        self.assertEqual(report[ids["db"]].attempt_messages, ("down", "down", "down"))
        self.assertEqual(report[ids["cache"]].attempts, 1)
        self.assertEqual(report[ids["app"]].status, VertexStatus.UPSTREAM_FAILED)
        self.assertEqual(report[ids["app"]].attempts, 0)

    def test_without_retries_each_vertex_that_ran_has_one_attempt(self):
        graph, ids = build([("b", "a")])
        report = graph.walk(lambda v: None)
        self.assertEqual([report[i].attempts for i in (ids["a"], ids["b"])], [1, 1])

    def test_bad_delays_are_refused(self):
        graph, _ = build(vertices=["a"])
        with self.assertRaises(libdag.InvalidArgumentError):
            graph.walk(lambda v: None, schedule=Schedule(retries=1, retry_delay=-1))


if __name__ == "__main__":
    unittest.main()
