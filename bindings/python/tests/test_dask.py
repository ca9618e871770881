"""libdag.dask: walks whose vertices run on a Dask cluster of two local worker processes (loopback only)."""

import asyncio
import gc
import importlib
import logging
import os
import random
import signal
import sys
import tempfile
import threading
import time
import unittest
import unittest.mock
import _thread

import libdag
from libdag import VertexStatus

try:
    import cloudpickle
    import distributed
    import libdag.dask as dag_dask
except ImportError as missing:  # the only reason to skip: Debian's python3-distributed is not installed
    distributed = None
    WHY = f"distributed cannot be imported ({missing}); install python3-distributed"

# Every wait on the cluster is bounded so that a broken walk fails instead of hanging.
BOUND_S = 60


def task(argument):
    """Runs on a worker: records when it started and ended, and behaves as told.

    argument is (label, folder, behaviour): "ok"; "fail" raises; "fail-once"
    raises on its first run only; "block" says it started and waits for
    folder/release; "die-once" says its pid and waits until that worker is
    killed, and on its second run returns; "after-told" waits for
    folder/told, says its pid and returns, and on its second run waits for
    folder/release; ("return", value) returns value.
    """
    label, folder, behaviour = argument
    start = time.monotonic_ns()
    path = os.path.join(folder, label)
    marker = path + ".started"
    if behaviour == "fail":
        raise ValueError(f"task {label} broke")
    if behaviour == "fail-once" and not os.path.exists(path + ".failed"):
        open(path + ".failed", "w").close()
        raise ValueError(f"task {label} broke once")
    if behaviour == "after-told":
        if os.path.exists(marker):
            wait_for_release(folder)
        else:
            wait_for_file(os.path.join(folder, "told"))
            say_pid(marker)
    if behaviour in ("block", "die-once") and (behaviour == "block" or not os.path.exists(marker)):
        say_pid(marker)
        wait_for_release(folder)
    end = time.monotonic_ns()
    with open(path, "a") as out:
        out.write(f"{start} {end} {os.getpid()}\n")
    return behaviour[1] if isinstance(behaviour, tuple) else None


def identity(argument):
    """Runs on a worker: returns what it was given."""
    return argument


# A module that only the workers can import: the client cannot unpickle its classes.
WORKER_ONLY = "libdag_test_worker_only"


def worker_only(argument):
    """Runs on a worker: returns, or raises, an instance of a class the client cannot import.

    argument is (folder, what): the class's module is written to
    folder/worker_only, which only the worker processes put on their path;
    what is "return" (a value of the class), "raise" (an exception of it)
    or anything else, returned as it is.
    """
    folder, what = argument
    if what not in ("return", "raise"):
        return what
    where = os.path.join(folder, "worker_only")
    os.makedirs(where, exist_ok=True)
    path = os.path.join(where, WORKER_ONLY + ".py")
    with open(f"{path}.{os.getpid()}", "w") as out:
        out.write("class Plan:\n    pass\n\n\nclass WorkerOnlyError(Exception):\n    pass\n")
    os.replace(f"{path}.{os.getpid()}", path)
    if where not in sys.path:
        sys.path.insert(0, where)
    module = importlib.import_module(WORKER_ONLY)
    if what == "raise":
        raise module.WorkerOnlyError("only the workers know this class")
    return module.Plan()


class Stop(BaseException):
    """Raised where a Ctrl-C could land on a thread other than the main one."""


def random_graph(count, seed):
    """A graph of `count` vertices v0..v{count-1}; each depends on a few earlier ones."""
    rng = random.Random(seed)
    graph = libdag.Graph()
    ids = graph.add_vertices(f"v{i}" for i in range(count))
    for i in range(1, count):
        for j in rng.sample(range(i), min(i, rng.randint(0, 3))):
            graph.connect(ids[i], ids[j])
    return graph


def say_pid(marker):
    with open(marker + ".tmp", "w") as out:
        out.write(str(os.getpid()))
    os.replace(marker + ".tmp", marker)


def wait_for_release(folder):
    deadline = time.monotonic() + BOUND_S
    while not os.path.exists(os.path.join(folder, "release")) and time.monotonic() < deadline:
        time.sleep(0.01)


def wait_for_file(path):
    deadline = time.monotonic() + BOUND_S
    while not os.path.exists(path):
        if time.monotonic() > deadline:
            raise AssertionError(f"{path} did not appear within {BOUND_S} s")
        time.sleep(0.01)


def in_frame(frame, function):
    """True when `function` is on the stack that `frame` tops."""
    while frame is not None:
        if frame.f_code.co_name == function:
            return True
        frame = frame.f_back
    return False


@unittest.skipIf(distributed is None, WHY if distributed is None else "")
class DaskWalkTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        # The tasks are pickled whole: the workers need not import this file.
        cloudpickle.register_pickle_by_value(sys.modules[__name__])
        # Loopback only, the dashboard included (on a free port). Each worker has one "slot".
        cls.cluster = distributed.LocalCluster(processes=True, n_workers=2, threads_per_worker=1,
                                               host="127.0.0.1", dashboard_address="127.0.0.1:0",
                                               resources={"slot": 1})
        cls.client = distributed.Client(cls.cluster)
        cls.client.wait_for_workers(2, timeout=BOUND_S)

    @classmethod
    def tearDownClass(cls):
        cls.client.close()
        cls.cluster.close()
        cloudpickle.unregister_pickle_by_value(sys.modules[__name__])

    def setUp(self):
        self.folder = tempfile.mkdtemp()
        self.addCleanup(self.release)

    def release(self):
        """Lets every blocked task end, so the next test finds both workers free."""
        open(os.path.join(self.folder, "release"), "w").close()

    def payload(self, graph, behaviours=None):
        behaviours = behaviours or {}
        return {graph.label(v): (graph.label(v), self.folder, behaviours.get(graph.label(v), "ok"))
                for v in graph.vertices()}

    def runs(self, label):
        """[(start, end, pid)] recorded by the task of `label`, one per run."""
        try:
            with open(os.path.join(self.folder, label)) as records:
                return [tuple(int(x) for x in line.split()) for line in records]
        except FileNotFoundError:
            return []

    def assert_edges_respected(self, graph, reruns=False):
        """Each dependent started after its dependencies ended, each vertex run once.

        With `reruns`, a task may have run more than once: a worker that dies
        loses the results it held, and Dask computes them again. Every run of
        a dependent must then start after some run of each dependency ended.
        """
        for source, target in graph.edges():
            dependent, dependency = self.runs(graph.label(source)), self.runs(graph.label(target))
            if not reruns:
                self.assertEqual((len(dependent), len(dependency)), (1, 1))
            self.assertTrue(dependent and dependency)
            self.assertGreaterEqual(min(start for start, _, _ in dependent), min(end for _, end, _ in dependency),
                                    f"{graph.label(source)} started before {graph.label(target)} ended")

    def test_every_edge_respected(self):
        for seed in (1, 2):
            with self.subTest(seed=seed), random_graph(300, seed) as graph:
                self.folder = tempfile.mkdtemp()
                report = dag_dask.walk(graph, task, self.client, parallelism=8, payload=self.payload(graph))
                self.assertTrue(report.ok, report.message)
                self.assertEqual(report.count(VertexStatus.OK), 300)
                self.assert_edges_respected(graph)

    def test_a_walk_is_one_task_prefix_and_each_vertex_its_own_task_group(self):
        # Dask's scheduler sums an estimate over the task prefixes of what
        # runs with every task it places, and holds back a big task group
        # without dependencies to hand it out one task at a time: one prefix
        # a vertex made the walk slow to place, one group for the walk would
        # starve the workers.
        with libdag.Graph() as graph:
            graph.add_vertices(f"v{i}" for i in range(10))
            # A resource no worker has: every task stays on the scheduler until cancelled.
            running = dag_dask.start(graph, task, self.client, parallelism=10, payload=self.payload(graph),
                                     resources=lambda label: {"absent": 1})
            keys = running.keys
            self.assertEqual(len(keys), 10)

            def groups(dask_scheduler):
                return {key: (state.prefix.name, state.group.name)
                        for key, state in dask_scheduler.tasks.items() if key in keys}

            seen = {}
            deadline = time.monotonic() + BOUND_S
            while len(seen) < len(keys) and time.monotonic() < deadline:
                seen = self.client.run_on_scheduler(groups)
            running.cancel()
            self.assertEqual(running.wait().count(VertexStatus.CANCELLED), 10)
            for key, vertex in keys.items():
                self.assertIn(repr(graph.label(vertex)), key, "a key names its vertex")
        self.assertEqual(len(seen), len(keys))
        self.assertEqual({prefix for prefix, _ in seen.values()}, {"task"}, "the function's name")
        self.assertEqual(len({group for _, group in seen.values()}), len(keys))

    def test_priority_chooses_which_ready_vertex_is_submitted_first(self):
        # z1 heads the longest chain, though "a" sorts first by name.
        with libdag.Graph.from_dict({"z3": ["z2"], "z2": ["z1"], "z1": [], "a": []}) as graph:
            for priority, expected in (("critical-path", ["z1", "z2", "a", "z3"]), ("name", ["a", "z1", "z2", "z3"])):
                with self.subTest(priority=priority):
                    self.folder = tempfile.mkdtemp()
                    report = dag_dask.walk(graph, task, self.client, parallelism=1, priority=priority,
                                           payload=self.payload(graph))
                    self.assertTrue(report.ok, report.message)
                    started = sorted(("z1", "z2", "z3", "a"), key=lambda label: self.runs(label)[0][0])
                    self.assertEqual(started, expected)
            with self.assertRaisesRegex(libdag.InvalidArgumentError, "priority is 'fastest'"):
                dag_dask.start(graph, task, self.client, priority="fastest")

    def test_no_thread_of_the_walk_outlives_it(self):
        def submitters():
            return [t for t in threading.enumerate() if t.name == "libdag.dask submitter"]

        with random_graph(30, 4) as graph:
            self.assertTrue(dag_dask.walk(graph, task, self.client, payload=self.payload(graph)).ok)
            self.assertEqual(submitters(), [])
            running = dag_dask.start(graph, task, self.client, payload=self.payload(graph, {"v0": "block"}))
            self.assertEqual(len(submitters()), 1)
            running.cancel()
            self.release()
            running.wait()
            self.assertEqual(submitters(), [])

    def test_wait_from_two_threads_and_a_negative_timeout(self):
        with random_graph(10, 5) as graph:
            running = dag_dask.start(graph, task, self.client, payload=self.payload(graph, {"v0": "block"}))
            # -1 was a Lock's "for ever": it waited for the walk to end.
            began = time.monotonic()
            self.assertIsNone(running.wait(timeout=-1))
            self.assertLess(time.monotonic() - began, 5)
            with self.assertRaises(TypeError):
                running.wait(timeout="1")
            with self.assertRaises(ValueError):
                running.wait(timeout=float("nan"))
            # Both waiters get the report: the second closed the walk again
            # and got ClosedError.
            got = []
            waiters = [threading.Thread(target=lambda: got.append(running.wait(timeout=BOUND_S))) for _ in range(2)]
            for waiter in waiters:
                waiter.start()
            self.release()
            for waiter in waiters:
                waiter.join(BOUND_S)
            self.assertEqual(len(got), 2)
            self.assertTrue(all(report is not None and report.ok for report in got), got)

    def test_an_infinite_timeout_is_no_limit(self):
        # It raised OverflowError inside wait(), which cancelled the walk.
        with random_graph(10, 6) as graph:
            for timeout in (float("inf"), 1e10):
                with self.subTest(timeout=timeout):
                    running = dag_dask.start(graph, task, self.client, payload=self.payload(graph))
                    report = running.wait(timeout=timeout)
                    self.assertTrue(report is not None and report.ok, report)

    def closing_client_walk(self):
        """A walk through a client of its own whose two slots' tasks block, and eight vertices more
        ready; returns (graph, running, client) once both blocked tasks have started."""
        own = distributed.Client(self.cluster)
        self.addCleanup(own.close)
        graph = libdag.Graph()
        self.addCleanup(graph.close)
        graph.add_vertices(f"v{i}" for i in range(10))
        behaviours = {"v0": "block", "v1": "block"}
        running = dag_dask.start(graph, task, own, parallelism=2, priority="name",
                                 payload=self.payload(graph, behaviours))
        for label in behaviours:
            wait_for_file(os.path.join(self.folder, label + ".started"))
        return graph, running, own

    def assert_none_ran(self, graph, report, statuses):
        for v in graph.vertices():
            self.assertIn(report[v].status, statuses, (graph.label(v), report[v].message))
        self.assertEqual(self.runs("v0") + self.runs("v1"), [])

    def test_a_client_closed_during_the_walk_ends_it(self):
        """Closing the client while vertices are ready ended nothing: a closing client dropped what was
        submitted to it without a word, and the futures it had never reported. The walk hung."""
        graph, running, own = self.closing_client_walk()
        own.close()
        report = running.wait(timeout=BOUND_S)
        self.assertIsNotNone(report, "the walk did not end once its client had closed")
        self.assert_none_ran(graph, report, (VertexStatus.FAILED,))
        for v in graph.vertices():
            self.assertIn("Dask client", report[v].message, graph.label(v))

    def test_cancelling_a_walk_whose_client_has_closed(self):
        """cancel() raised AttributeError from distributed once the client had closed, and the walk,
        whose futures would never report, did not end."""
        graph, running, own = self.closing_client_walk()
        own.close()
        running.cancel()
        report = running.wait(timeout=BOUND_S)
        self.assertIsNotNone(report, "the walk did not end once its client had closed")
        # Cancelled, or failed with the client by the time the cancel came.
        self.assert_none_ran(graph, report, (VertexStatus.CANCELLED, VertexStatus.FAILED))

    def test_a_walk_started_while_its_client_reconnects_runs_once_it_is_back(self):
        """A client that lost its scheduler keeps what is submitted to it while it reconnects, and sends
        it once it is back: the walk must submit then, not fail the vertices as it does for a closed one."""
        own = distributed.Client(self.cluster)
        self.addCleanup(own.close)
        reconnect = own._ensure_connected

        async def slowly(timeout=None):  # a scheduler that takes a moment to be reached again
            await asyncio.sleep(1)
            return await reconnect(timeout=timeout)

        own._ensure_connected = slowly
        own.loop.add_callback(lambda: own.scheduler_comm.comm.abort())  # the connection lost
        deadline = time.monotonic() + BOUND_S
        while own.status != "connecting" and time.monotonic() < deadline:
            time.sleep(0.01)
        self.assertEqual(own.status, "connecting")
        with libdag.Graph.from_dict({"a": [], "b": ["a"]}) as graph:
            report = dag_dask.start(graph, task, own, payload=self.payload(graph)).wait(timeout=BOUND_S)
            self.assertIsNotNone(report, "the walk did not end")
            self.assertTrue(report.ok, report.message)
            self.assertEqual(len(self.runs("a") + self.runs("b")), 2)
        self.assertEqual(own.status, "running")

    def test_a_report_kept_does_not_keep_the_futures(self):
        """An on_result that raised kept, through its exception's traceback, the frame that held the
        fetched futures: the task's value stayed on its worker for as long as the report lived."""
        with libdag.Graph.from_dict({"a": [], "b": ["a"]}) as graph:
            running = dag_dask.start(graph, identity, self.client, payload={"a": "a", "b": "b"},
                                     on_result=lambda label, value: 1 / 0)
            report = running.wait(timeout=BOUND_S)
            self.assertIsNotNone(report)
            self.assertIsInstance(report[graph.find("a")].exception, ZeroDivisionError)
            keys = set(running.keys)
            del running
            # A future's release reaches the client through its event loop: a moment after the last
            # reference goes, which it never did.
            deadline = time.monotonic() + 10
            while keys & set(self.client.futures) and time.monotonic() < deadline:
                gc.collect()
                time.sleep(0.01)
            self.assertEqual(keys & set(self.client.futures), set(), "a future outlived the walk")
            self.assertIsNotNone(report[graph.find("a")].exception.__traceback__)

    def test_the_dashboard_records_the_callers_code_not_libdags(self):
        """distributed records the source of each submit's caller; libdag's own frames are not the caller."""
        import dask.config

        option = "distributed.diagnostics.computations.ignore-modules"
        scheduler = self.cluster.scheduler
        with dask.config.set({option: ["distributed", "dask", "mine"]}), random_graph(40, 3) as graph:
            report = dag_dask.walk(graph, task, self.client, parallelism=4, payload=self.payload(graph))
            self.assertTrue(report.ok, report.message)
            listed = dask.config.get(option)
        # The scheduler keeps its last computations (a deque, 100 by default): all of them, for
        # every walk of this suite ran as this one.
        recorded = set()
        for computation in list(scheduler.computations):
            recorded.update(computation.code)
        # The vertices submitted from this thread record this test; those
        # submitted from Dask's callback thread have no caller's code.
        self.assertTrue(any("test_the_dashboard_records_the_callers_code" in code for code in recorded), recorded)
        # Spelled in pieces, so that this test's own source, recorded above, has neither.
        libdags, thread_pools = "self._client" + ".submit(", "work_queue" + ".get("
        self.assertFalse([code for code in recorded if libdags in code or thread_pools in code])
        self.assertEqual(listed[:3], ["distributed", "dask", "mine"])  # kept, and added to
        self.assertIn("libdag", listed)

    def test_failure_skips_exactly_its_dependents(self):
        with random_graph(200, 3) as graph:
            broken = graph.find("v40")
            dependents, todo = set(), [broken]
            while todo:
                for d in graph.dependents(todo.pop()):
                    if d not in dependents:
                        dependents.add(d)
                        todo.append(d)
            self.assertTrue(dependents, "the chosen vertex has dependents")
            report = dag_dask.walk(graph, task, self.client, payload=self.payload(graph, {"v40": "fail"}))
            self.assertFalse(report.ok)
            failed = report[broken]
            self.assertEqual(failed.status, VertexStatus.FAILED)
            self.assertIsInstance(failed.exception, ValueError)
            self.assertEqual(str(failed.exception), "task v40 broke")
            self.assertIn("task v40 broke", report.first_error_message)
            self.assertEqual(set(report.ids(VertexStatus.UPSTREAM_FAILED)), dependents)
            for result in report:
                if result.id != broken and result.id not in dependents:
                    self.assertEqual(result.status, VertexStatus.OK, graph.label(result.id))
                self.assertEqual(len(self.runs(graph.label(result.id))), int(result.ok), graph.label(result.id))

    def test_on_error_hears_each_failure_before_its_vertex_completes(self):
        graph = libdag.Graph.from_dict({"a": [], "b": ["a"], "c": []})
        with graph:
            finished, heard = [], []
            lock = threading.Lock()

            def observe(event, vertex, *_):
                if event == libdag.WalkEvent.FINISHED:
                    with lock:
                        finished.append(graph.label(vertex))

            def on_error(label, error):
                with lock:
                    heard.append((label, type(error), str(error), list(finished)))

            report = dag_dask.walk(graph, task, self.client, payload=self.payload(graph, {"a": "fail", "c": "fail"}),
                                   observer=observe, on_error=on_error)
            self.assertEqual(report.count(VertexStatus.FAILED), 2)
            self.assertEqual(sorted((label, kind, text) for label, kind, text, _ in heard),
                             [("a", ValueError, "task a broke"), ("c", ValueError, "task c broke")])
            for label, _, _, seen in heard:
                self.assertNotIn(label, seen)  # heard before its vertex finished

            def refuse(label, error):
                raise RuntimeError(f"on_error refused {label}")

            with self.assertRaisesRegex(RuntimeError, "on_error refused a") as raised:
                dag_dask.walk(graph, task, self.client, payload=self.payload(graph, {"a": "fail"}), on_error=refuse)
            self.assertEqual(raised.exception.walk_report[graph.find("a")].status, VertexStatus.FAILED)
            with self.assertRaisesRegex(TypeError, "on_error is None or a callable"):
                dag_dask.walk(graph, task, self.client, on_error=3)

    def scheduler_restrictions(self, key):
        """The resource restrictions of task `key` once the scheduler has it (the client sends in batches)."""
        def read(dask_scheduler):
            state = dask_scheduler.tasks.get(key)
            return None if state is None else state.resource_restrictions

        deadline = time.monotonic() + BOUND_S
        while time.monotonic() < deadline:
            restrictions = self.client.run_on_scheduler(read)
            if restrictions is not None:
                return restrictions
            time.sleep(0.01)
        raise AssertionError(f"the scheduler never had {key}")

    def test_cancel_cancels_outstanding_futures(self):
        # "blocked" runs until released; "unplaceable" asks for a resource no
        # worker has, so it waits in the scheduler; each has dependents.
        # "queued" shares a pool of one with "unplaceable", so it waits here.
        edges = [("after_blocked", "blocked"), ("after_unplaceable", "unplaceable"), ("last", "after_blocked"),
                 ("last", "after_unplaceable")]
        graph = libdag.Graph()
        ids = {name: graph.add_vertex(name) for name in
               ["blocked", "unplaceable", "after_blocked", "after_unplaceable", "last", "free1", "free2", "queued"]}
        for source, target in edges:
            graph.connect(ids[source], ids[target])
        running = dag_dask.start(graph, task, self.client, payload=self.payload(graph, {"blocked": "block"}),
                                 resources={"unplaceable": {"absent": 1}}, limits={"gate": 1},
                                 pool={"unplaceable": "gate", "queued": "gate"})
        wait_for_file(os.path.join(self.folder, "blocked.started"))
        outstanding = running.futures
        self.assertLessEqual({ids["blocked"], ids["unplaceable"]}, set(outstanding))
        self.assertNotIn(ids["queued"], outstanding)
        key = outstanding[ids["unplaceable"]].key
        self.assertEqual(self.scheduler_restrictions(key), {"absent": 1})

        running.cancel()
        report = running.wait(timeout=BOUND_S)
        self.assertIsNotNone(report, "the cancelled walk ended")
        self.assertTrue(report.cancelled)
        self.assertEqual(running.futures, {})
        self.assertEqual(outstanding[ids["blocked"]].status, "cancelled")
        self.assertEqual(outstanding[ids["unplaceable"]].status, "cancelled")
        self.assertEqual(len(report), len(ids), "every vertex is in the report")
        self.assertEqual(sum(report.counts.values()), len(ids))
        # What the cancel stopped ends cancelled, handed out or not, and so
        # does what waits for it (DAG_WALK_CANCELLED), as on one machine.
        for name in ("blocked", "unplaceable", "after_blocked", "after_unplaceable", "last"):
            self.assertEqual(report[ids[name]].status, VertexStatus.CANCELLED, name)
        for name in ("after_blocked", "after_unplaceable", "last"):
            self.assertFalse(report[ids[name]].ran, name)
        for name in ("blocked", "unplaceable"):
            # Named, as every other message names a vertex (it said "vertex 3").
            self.assertIn(f"vertex {name} was cancelled on the cluster", report[ids[name]].message, name)
        # libdag handed "queued" out (so the report says it ran); it never reached the cluster.
        self.assertEqual(report[ids["queued"]].status, VertexStatus.CANCELLED)
        self.assertIn("vertex queued was not submitted", report[ids["queued"]].message)
        self.assertEqual(self.runs("queued"), [])

    def interrupt_main_in_wait(self):
        """Ctrl-C for the main thread once v0 runs and the main thread waits in DaskWalk.wait().

        Sent any earlier, it would land in whatever the main thread does
        before it waits (starting this thread, say) and test nothing.
        """
        wait_for_file(os.path.join(self.folder, "v0.started"))
        main = threading.main_thread().ident
        deadline = time.monotonic() + BOUND_S
        while not in_frame(sys._current_frames().get(main), "_wait_ended"):
            if time.monotonic() > deadline:
                raise AssertionError(f"the main thread did not wait within {BOUND_S} s")
            time.sleep(0.01)
        _thread.interrupt_main()

    def test_ctrl_c_cancels_and_reports(self):
        with random_graph(30, 4) as graph:
            root = graph.find("v0")
            interrupter = threading.Thread(target=self.interrupt_main_in_wait)
            running = dag_dask.start(graph, task, self.client, payload=self.payload(graph, {"v0": "block"}))
            interrupter.start()
            with self.assertRaises(KeyboardInterrupt) as stopped:
                running.wait()
            interrupter.join()
            report = stopped.exception.walk_report
            self.assertTrue(report.cancelled)
            self.assertEqual(len(report), 30)
            self.assertNotEqual(report[root].status, VertexStatus.OK)
            for d in graph.dependents(root):
                self.assertFalse(report[d].ran)

    def test_always_run_fail_fast_and_reverse(self):
        # cleanup depends on broken, which fails; cleanup runs anyway. With fail_fast, after
        # broken fails nothing new starts: "later" (after "slow", which blocks until then) never runs.
        graph = libdag.Graph.from_dict({"cleanup": ["broken"], "broken": [], "later": ["slow"], "slow": []})
        report = dag_dask.walk(graph, task, self.client, always_run=[graph.find("cleanup")],
                               payload=self.payload(graph, {"broken": "fail"}))
        self.assertEqual(report[graph.find("cleanup")].status, VertexStatus.OK)
        self.assertEqual(len(self.runs("cleanup")), 1)
        self.assertEqual(report[graph.find("later")].status, VertexStatus.OK)

        self.folder = tempfile.mkdtemp()
        running = dag_dask.start(graph, task, self.client, fail_fast=True, parallelism=2,
                                 payload=self.payload(graph, {"broken": "fail", "slow": "block"}))
        wait_for_file(os.path.join(self.folder, "slow.started"))
        # slow runs while broken fails; release it only once the failure is in.
        deadline = time.monotonic() + BOUND_S
        while graph.find("broken") in {v for v in running.futures}:
            self.assertLess(time.monotonic(), deadline, "broken never finished")
            time.sleep(0.01)
        self.release()
        report = running.wait(timeout=BOUND_S)
        self.assertIsNotNone(report, "the walk ended")
        self.assertEqual(report[graph.find("broken")].status, VertexStatus.FAILED)
        self.assertEqual(report[graph.find("later")].status, VertexStatus.NOT_RUN)
        self.assertEqual(self.runs("later"), [])

        self.folder = tempfile.mkdtemp()
        report = dag_dask.walk(graph, task, self.client, reverse=True, payload=self.payload(graph))
        self.assertTrue(report.ok, report.message)
        (_, later_end, _), = self.runs("later")
        (slow_start, _, _), = self.runs("slow")
        self.assertGreaterEqual(slow_start, later_end, "reverse: a dependency runs after its dependents")

    def test_retries(self):
        for retries, ok in ((0, False), (1, True)):
            with self.subTest(retries=retries), random_graph(20, 6) as graph:
                self.folder = tempfile.mkdtemp()
                report = dag_dask.walk(graph, task, self.client, retries=retries,
                                       payload=self.payload(graph, {"v3": "fail-once"}))
                self.assertEqual(report.ok, ok, report.message)
                self.assertEqual(len(self.runs("v3")), int(ok))
                if not ok:
                    self.assertEqual(str(report[graph.find("v3")].exception), "task v3 broke once")

    def test_payload_from_user_data_and_resources_by_callable(self):
        with random_graph(20, 7) as graph:
            arguments = [(f"item{i}", self.folder, "ok") for i in range(20)]
            for v in graph.vertices():
                graph.set_user_data(v, 19 - int(graph.label(v)[1:]))
            asked = []
            report = dag_dask.walk(graph, task, self.client, payload=arguments,
                                   resources=lambda label: asked.append(label) or {"slot": 1})
            self.assertTrue(report.ok, report.message)
            self.assertEqual(sorted(asked), sorted(graph.label(v) for v in graph.vertices()))
            for v in graph.vertices():
                self.assertEqual(len(self.runs(f"item{19 - int(graph.label(v)[1:])}")), 1)
            self.assertEqual(len(os.listdir(self.folder)), 20)

    def test_a_payload_that_reads_as_a_dask_task_reaches_fn_as_it_is(self):
        # Dask ran a tuple whose first item is callable (also in a list) and gave fn what it returned.
        graph = libdag.Graph.from_dict({"a": [], "b": [], "c": [], "d": [], "e": []})
        payload = {"a": (str.upper, "abc"), "b": [1, [(len, "xyz")]], "c": {"k": (max, 1, 2)}, "d": "plain"}
        # Dask still resolves the futures in an argument with nothing to run in it.
        future = self.client.submit(identity, 42)
        payload["e"] = [future, {"k": future}]
        for parallelism in (1, 10):  # one client.submit a vertex; one client.map for them all
            with self.subTest(parallelism=parallelism):
                got = {}
                report = dag_dask.walk(graph, identity, self.client, payload=payload, parallelism=parallelism,
                                       on_result=lambda label, value: got.__setitem__(label, value))
                self.assertTrue(report.ok, report.message)
                self.assertEqual(got, {**payload, "e": [42, {"k": 42}]})

    def test_a_vertex_an_update_adds_has_no_user_data_to_index_a_sequence_payload(self):
        # It was given payload[0], the argument of the vertex whose user data is 0, and ran as that one.
        graph = libdag.Graph.from_dict({"a": [], "b": ["a"]})
        graph.set_user_data(graph.find("a"), 0)
        graph.set_user_data(graph.find("b"), 1)
        running = dag_dask.start(graph, task, self.client,
                                 payload=[("a", self.folder, "block"), ("b", self.folder, "ok")])
        wait_for_file(os.path.join(self.folder, "a.started"))
        update = libdag.WalkUpdate()
        update.add_vertex("late")
        late, = running.apply(update)
        update.close()
        self.release()
        report = running.wait(timeout=BOUND_S)
        self.assertIsNotNone(report, "the walk ended")
        self.assertEqual(report.count(VertexStatus.OK), 2)
        self.assertEqual(report[late].status, VertexStatus.FAILED)
        self.assertIsInstance(report[late].exception, KeyError)
        self.assertIn("give payload as a mapping or a callable", report[late].message)
        self.assertEqual(len(self.runs("a")), 1)

    def test_apply_refusals_name_the_method_called(self):
        # They named the pull walker inside (PullWalker.apply), which the caller never called.
        graph = libdag.Graph.from_dict({"a": [], "b": ["a"]})
        running = dag_dask.start(graph, task, self.client, payload={"a": ("a", self.folder, "block"),
                                                                    "b": ("b", self.folder, "ok")})
        wait_for_file(os.path.join(self.folder, "a.started"))
        with self.assertRaises(TypeError) as cm:
            running.apply(5)
        self.assertEqual(str(cm.exception), "DaskWalk.apply: the update is a WalkUpdate, not int")
        update = libdag.WalkUpdate()
        self.addCleanup(update.close)
        update.connect(graph.find("a"), graph.find("b"))  # a cycle
        with self.assertRaises(libdag.CycleError) as cm:
            running.apply(update)
        self.assertTrue(cm.exception.message.startswith("DaskWalk.apply: "), cm.exception.message)
        self.release()
        report = running.wait(timeout=BOUND_S)
        self.assertIsNotNone(report, "the walk ended")
        self.assertEqual(report.count(VertexStatus.OK), 2)

    def test_a_value_whose_type_the_client_cannot_unpickle_fails_its_vertex(self):
        # The client has no type for it, as for a task that returned None: on_result never saw it,
        # and the vertex was ok.
        quiet = logging.getLogger("distributed.protocol.core")  # its CRITICAL traceback of the failed unpickle
        self.addCleanup(quiet.setLevel, quiet.level)
        quiet.setLevel(logging.CRITICAL + 1)
        graph = libdag.Graph.from_dict({"a": [], "b": [], "c": ["a"]})
        seen = []
        report = dag_dask.walk(graph, worker_only, self.client,
                               payload={"a": (self.folder, "return"), "b": (self.folder, "plain"),
                                        "c": (self.folder, None)},
                               on_result=lambda label, value: seen.append((label, value)))
        self.assertEqual(seen, [("b", "plain")])
        failed = report[graph.find("a")]
        self.assertEqual(failed.status, VertexStatus.FAILED)
        self.assertIsInstance(failed.exception, ImportError)
        self.assertIn(WORKER_ONLY, failed.message)
        self.assertEqual(report[graph.find("b")].status, VertexStatus.OK)
        self.assertEqual(report[graph.find("c")].status, VertexStatus.UPSTREAM_FAILED)

    def test_on_result_is_not_given_a_none_fetched_for_a_completion_without_its_type(self):
        # Dask leaves the type out of some completions; the value is then fetched, and a None among
        # them reached on_result, which the walk promises only values that are not None.
        graph = libdag.Graph.from_dict({"a": [], "b": ["a"]})
        seen = []
        with unittest.mock.patch.object(dag_dask.DaskWalk, "_wants_value",
                                        lambda walk, future: walk._fetcher is not None):
            report = dag_dask.walk(graph, lambda kind: None if kind == "none" else kind, self.client,
                                   payload={"a": "none", "b": "plain"},
                                   on_result=lambda label, value: seen.append((label, value)))
        self.assertTrue(report.ok)
        self.assertEqual(seen, [("b", "plain")])

    def test_an_exception_the_client_cannot_unpickle_fails_its_vertex_with_a_message_saying_so(self):
        # Its message was the exception's pickle, 1.5 KB of bytes written out.
        graph = libdag.Graph.from_dict({"a": [], "b": ["a"]})
        heard = []
        report = dag_dask.walk(graph, worker_only, self.client,
                               payload={"a": (self.folder, "raise"), "b": (self.folder, None)},
                               on_error=lambda label, error: heard.append((label, error)))
        failed = report[graph.find("a")]
        self.assertEqual(failed.status, VertexStatus.FAILED)
        self.assertEqual(failed.message, "the task raised an exception this machine cannot unpickle, its class "
                                         f"most likely not importable here (ModuleNotFoundError: No module named "
                                         f"'{WORKER_ONLY}')")
        self.assertIsInstance(failed.exception.__cause__, ImportError)
        self.assertEqual(heard, [("a", failed.exception)])
        self.assertEqual(report[graph.find("b")].status, VertexStatus.UPSTREAM_FAILED)

    def break_submits(self, stop, main_thread_only):
        """Makes the client's submit and map raise `stop` (on the main thread only, or on any)."""
        def breaking(method):
            def broken(*args, **kwargs):
                if not main_thread_only or threading.current_thread() is threading.main_thread():
                    raise stop
                return method(*args, **kwargs)
            return broken

        for name in ("submit", "map"):
            setattr(self.client, name, breaking(getattr(self.client, name)))
            self.addCleanup(delattr, self.client, name)

    def test_apply_submits_nothing_on_the_callers_thread(self):
        # It did: a Ctrl-C there, between taking a vertex and giving it a future, lost the vertex,
        # and the walk never ended, cancelled or not.
        graph = libdag.Graph.from_dict({"a": []})
        payload = self.payload(graph, {"a": "block"})
        payload["late"] = ("late", self.folder, "ok")
        running = dag_dask.start(graph, task, self.client, payload=payload)
        wait_for_file(os.path.join(self.folder, "a.started"))
        self.break_submits(KeyboardInterrupt, main_thread_only=True)
        update = libdag.WalkUpdate()
        update.add_vertex("late")
        try:
            late, = running.apply(update)
        except KeyboardInterrupt:
            self.fail("apply() submitted on the caller's thread")
        update.close()
        self.release()
        report = running.wait(timeout=BOUND_S)
        self.assertIsNotNone(report, "the walk ended")
        self.assertTrue(report.ok, report.message)
        self.assertEqual(report[late].status, VertexStatus.OK)
        self.assertEqual(len(self.runs("late")), 1)

    def test_an_exception_that_cuts_a_submit_short_loses_no_vertex(self):
        # Vertices taken from the walker and left without a future were never completed: the walk
        # did not end, and its cancel waited for them.
        graph = libdag.Graph.from_dict({"a": []})
        payload = self.payload(graph, {"a": "block"})
        payload.update({late: (late, self.folder, "ok") for late in ("late1", "late2")})
        running = dag_dask.start(graph, task, self.client, payload=payload)
        wait_for_file(os.path.join(self.folder, "a.started"))
        self.break_submits(Stop, main_thread_only=False)
        update = libdag.WalkUpdate()
        update.add_vertex("late1")
        update.add_vertex("late2")
        added = running.apply(update)
        update.close()
        with self.assertRaises(Stop) as stopped:  # it cancels the walk, as any failure of the walk's own thread
            running.wait(timeout=BOUND_S)
        report = stopped.exception.walk_report
        self.assertEqual(len(report), 3)
        self.assertEqual(report[graph.find("a")].status, VertexStatus.CANCELLED)
        for late, name in zip(added, ("late1", "late2")):
            self.assertEqual(report[late].status, VertexStatus.FAILED)
            self.assertIn(f"vertex {name} was not submitted: Stop interrupted its submission", report[late].message)
        self.assertEqual(self.runs("late1") + self.runs("late2"), [])

    def test_bad_options(self):
        with random_graph(5, 8) as graph:
            with self.assertRaisesRegex(KeyError, "payload has no entry for vertex v1"):
                dag_dask.walk(graph, task, self.client, payload={"v0": 1})
            with self.assertRaisesRegex(KeyError, "resources names no vertex of the graph: 'v9'"):
                dag_dask.walk(graph, task, self.client, resources={"v9": {"slot": 1}})
            with self.assertRaisesRegex(TypeError, "payload is None, a mapping"):
                dag_dask.walk(graph, task, self.client, payload=3)
            with self.assertRaisesRegex(libdag.InvalidArgumentError, "parallelism"):
                dag_dask.walk(graph, task, self.client, parallelism=0)
            # Dask took these, its scheduler failed on them, and every task
            # ended as if cancelled on the cluster.
            with self.assertRaisesRegex(TypeError, "retries is an int"):
                dag_dask.walk(graph, task, self.client, retries="x")
            with self.assertRaisesRegex(libdag.InvalidArgumentError, "retries is -1"):
                dag_dask.walk(graph, task, self.client, retries=-1)
            with self.assertRaisesRegex(TypeError, "resource 'slot' of v0 is a number"):
                dag_dask.walk(graph, task, self.client, resources={"v0": {"slot": "GPU"}})
            with self.assertRaisesRegex(TypeError, "resources of v1 are a mapping"):
                dag_dask.walk(graph, task, self.client, resources=lambda label: "GPU" if label == "v1" else None)
            graph.add_vertex("after")  # the graph is not left busy

    def test_refusals_name_the_function_called(self):
        # They were headed Walker.start, which the caller never called.
        with libdag.Graph.from_dict({"a": ["b"], "b": ["a"]}) as cyclic:
            for who, call in (("libdag.dask.walk", dag_dask.walk), ("libdag.dask.start", dag_dask.start)):
                with self.subTest(who):
                    with self.assertRaises(libdag.CycleError) as cm:
                        call(cyclic, task, self.client)
                    self.assertTrue(cm.exception.message.startswith(f"{who}: Cycle:"), cm.exception.message)
            with self.assertRaisesRegex(libdag.InvalidArgumentError, "^libdag.dask.walk: parallelism"):
                dag_dask.walk(cyclic, task, self.client, parallelism=-1)

    def test_a_closed_client_fails_what_it_was_given(self):
        """Submitting through a closed client fails those vertices with its error; the walk still ends."""
        closed = distributed.Client(self.cluster)
        closed.close()
        with libdag.Graph() as graph:
            a, b, c = graph.add_vertices(["a", "b", "c"])
            graph.connect(c, a)  # c needs a; a and b are submitted together
            report = dag_dask.walk(graph, task, closed, parallelism=8, payload=self.payload(graph))
            self.assertEqual([report[v].status for v in (a, b, c)],
                             [VertexStatus.FAILED, VertexStatus.FAILED, VertexStatus.UPSTREAM_FAILED])
            self.assertEqual(type(report[a].exception), type(report[b].exception))
            self.assertIn("closed", report[a].message.lower())
            self.assertEqual(self.runs("a") + self.runs("b"), [])

    def test_parallelism_respected(self):
        graph = libdag.Graph()
        graph.add_vertices(f"v{i}" for i in range(24))
        report = dag_dask.walk(graph, task, self.client, parallelism=1, payload=self.payload(graph))
        self.assertTrue(report.ok, report.message)
        spans = sorted(run for v in graph.vertices() for run in self.runs(graph.label(v)))
        self.assertEqual(len(spans), 24)
        for (_, end, _), (start, _, _) in zip(spans, spans[1:]):
            self.assertGreaterEqual(start, end, "two tasks overlapped with parallelism 1")

    def test_named_limit_respected(self):
        graph = libdag.Graph()
        graph.add_vertices([f"db{i}" for i in range(8)] + [f"web{i}" for i in range(8)])
        report = dag_dask.walk(graph, task, self.client, parallelism=10, payload=self.payload(graph),
                               limits={"db": 1}, pool=lambda label: "db" if label.startswith("db") else None)
        self.assertTrue(report.ok, report.message)
        spans = sorted(run for i in range(8) for run in self.runs(f"db{i}"))
        self.assertEqual(len(spans), 8)
        for (_, end, _), (start, _, _) in zip(spans, spans[1:]):
            self.assertGreaterEqual(start, end, "two vertices of pool db overlapped with its limit 1")
        self.assertEqual(sum(len(self.runs(f"web{i}")) for i in range(8)), 8)
        with self.assertRaisesRegex(ValueError, "pool 'cache', which limits does not name"):
            dag_dask.walk(graph, task, self.client, limits={"db": 1}, pool={"web0": "cache"})
        with self.assertRaisesRegex(ValueError, "limit 'db' is 0"):
            dag_dask.walk(graph, task, self.client, limits={"db": 0})
        with self.assertRaisesRegex(ValueError, "limit 'db' is True"):
            dag_dask.walk(graph, task, self.client, limits={"db": True})

    def test_expansion(self):
        # "servers" finds on its worker that it stands for three instances, two after one, and
        # returns them; on_result expands it. "app" depends on "servers", so on every instance.
        graph = libdag.Graph.from_dict({"app": ["servers"], "servers": ["network"], "network": []})
        instances = {"servers[0]": [], "servers[1]": ["servers[0]"], "servers[2]": ["servers[0]"]}
        seen = []
        behaviours = {"servers": ("return", instances), "network": ("return", None)}
        arguments = {name: (name, self.folder, "block" if name == "servers[0]" else "ok") for name in instances}
        running = dag_dask.start(graph, task, self.client, payload=self.payload(graph, behaviours),
                                 resources={"servers": {"slot": 1}},
                                 on_result=lambda label, value: seen.append((label, value)) or (value, arguments))
        wait_for_file(os.path.join(self.folder, "servers[0].started"))
        # The first instance runs, as a task that asked for what the vertex it expands asked for.
        (slot, future), = running.futures.items()
        self.assertIsInstance(slot, tuple, "an instance's future is under (sub-walk, id)")
        self.assertIsInstance(running.keys[future.key], libdag.SubwalkVertex)
        self.assertEqual(self.scheduler_restrictions(future.key), {"slot": 1})
        self.release()
        report = running.wait(timeout=BOUND_S)
        self.assertIsNotNone(report, "the walk ended")
        self.assertTrue(report.ok, report.message)
        self.assertEqual(seen, [("servers", instances)], "on_result sees only values that are not None")
        self.assertEqual(len(report), 3, "the report has the graph's vertices")
        for name in instances:
            self.assertEqual(len(self.runs(name)), 1, name)
        (_, servers_end, _), = self.runs("servers")
        (first_start, first_end, _), = self.runs("servers[0]")
        self.assertGreaterEqual(first_start, servers_end, "an instance started before its vertex's task ended")
        for name in ("servers[1]", "servers[2]"):
            self.assertGreaterEqual(self.runs(name)[0][0], first_end, f"{name} started before servers[0] ended")
        (app_start, _, _), = self.runs("app")
        self.assertGreaterEqual(app_start, max(self.runs(name)[0][1] for name in instances),
                                "app started before every instance had ended")
        self.assertEqual(sum(isinstance(v, libdag.SubwalkVertex) for v in running.keys.values()), 3)
        self.assertEqual(len(running.keys), 6, "one task for each vertex and each instance")

    def test_expansion_failures(self):
        graph = libdag.Graph.from_dict({"after": ["nested"], "nested": [], "refused": [], "broken": []})
        # nested expands into a sub-graph one of whose vertices expands again, into one that fails;
        # refused returns a sub-graph with a cycle; broken's on_result raises.
        def on_result(label, value):
            if label == "broken":
                raise LookupError("no such plan")
            if label == "inner":
                return value, {"deep": ("deep", self.folder, "fail")}
            return value

        behaviours = {"nested": ("return", ({"inner": [], "outer": ["inner"]},
                                            {"inner": ("inner", self.folder, ("return", {"deep": []})),
                                             "outer": ("outer", self.folder, "ok")})),
                      "refused": ("return", {"a": ["b"], "b": ["a"]}),
                      "broken": ("return", 1)}
        report = dag_dask.walk(graph, task, self.client, payload=self.payload(graph, behaviours),
                               on_result=on_result)
        self.assertFalse(report.ok)
        nested = report[graph.find("nested")]
        self.assertEqual(nested.status, VertexStatus.FAILED)
        self.assertIn("task deep broke", nested.message)
        self.assertEqual(self.runs("outer"), [], "outer depends on inner, whose sub-graph failed")
        self.assertEqual(report[graph.find("after")].status, VertexStatus.UPSTREAM_FAILED)
        self.assertIsInstance(report[graph.find("refused")].exception, libdag.CycleError)
        self.assertIsInstance(report[graph.find("broken")].exception, LookupError)
        self.assertEqual(str(report[graph.find("broken")].exception), "no such plan")
        self.assertEqual(report[graph.find("after")].status, VertexStatus.UPSTREAM_FAILED)

    def test_semaphore_limit_shared_by_two_walks(self):
        # One lease for the db vertices of both walks, which run at once; the web ones have no pool.
        semaphore = distributed.Semaphore(max_leases=1, name=f"db-{os.path.basename(self.folder)}")
        walks = []
        for walk in ("a", "b"):
            graph = libdag.Graph()
            graph.add_vertices([f"{walk}-db{i}" for i in range(4)] + [f"{walk}-web{i}" for i in range(4)])
            walks.append((graph, dag_dask.start(graph, task, self.client, payload=self.payload(graph),
                                                limits={"db": semaphore},
                                                pool=lambda label: "db" if "-db" in label else None)))
        for graph, running in walks:
            report = running.wait(timeout=BOUND_S)
            self.assertIsNotNone(report, "the walk ended")
            self.assertTrue(report.ok, report.message)
            graph.close()
        spans = sorted(run for walk in "ab" for i in range(4) for run in self.runs(f"{walk}-db{i}"))
        self.assertEqual(len(spans), 8)
        for (_, end, _), (start, _, _) in zip(spans, spans[1:]):
            self.assertGreaterEqual(start, end, "two db vertices overlapped under one lease")
        self.assertEqual(sum(len(self.runs(f"{walk}-web{i}")) for walk in "ab" for i in range(4)), 8)
        with self.assertRaisesRegex(ValueError, "or a distributed.Semaphore"), libdag.Graph() as graph:
            dag_dask.walk(graph, task, self.client, limits={"db": "one"})

    def start_two_blocking_on_one_lease(self, graph, semaphore):
        """Starts db0 and db1, both blocking, on the one lease of `semaphore`; once one has started,
        returns the walk, the one holding the lease and the other (whose task may wait for it)."""
        running = dag_dask.start(graph, task, self.client,
                                 payload=self.payload(graph, {"db0": "block", "db1": "block"}),
                                 limits={"db": semaphore}, pool=lambda label: "db")
        started = [os.path.join(self.folder, label + ".started") for label in ("db0", "db1")]
        deadline = time.monotonic() + BOUND_S
        while not any(os.path.exists(path) for path in started):
            self.assertLess(time.monotonic(), deadline, "neither db task started")
            time.sleep(0.01)
        holder, waiter = ("db0", "db1") if os.path.exists(started[0]) else ("db1", "db0")
        return running, holder, waiter

    def test_cancel_stops_tasks_waiting_for_a_lease(self):
        # Whichever of db0 and db1 takes the only lease first holds it until
        # released; the other's task waits for it on a worker.
        semaphore = distributed.Semaphore(max_leases=1, name=f"db-{os.path.basename(self.folder)}")
        graph = libdag.Graph()
        graph.add_vertices(["db0", "db1"])
        running, holder, waiter = self.start_two_blocking_on_one_lease(graph, semaphore)
        running.cancel()
        self.release()
        report = running.wait(timeout=BOUND_S)
        self.assertIsNotNone(report, "the cancelled walk ended")
        self.assertTrue(report.cancelled)
        # The lease comes free once db0 has ended and db1, if it got the lease, gave it back unused.
        self.assertTrue(semaphore.acquire(timeout=BOUND_S))
        semaphore.release()
        self.assertEqual(self.runs(waiter), [], f"{waiter} ran after the walk was cancelled")
        self.assertEqual(len(self.runs(holder)), 1)

    def test_a_walk_with_a_semaphore_leaves_no_event_on_the_scheduler(self):
        # A cancelled walk left the event it set for its tasks waiting for a lease.
        def events(dask_scheduler):
            return {name for name in dask_scheduler.extensions["events"]._events if "libdag" in str(name)}

        semaphore = distributed.Semaphore(max_leases=1, name=f"db-{os.path.basename(self.folder)}")
        graph = libdag.Graph.from_dict({"db0": [], "db1": []})
        before = self.client.run_on_scheduler(events)
        report = dag_dask.walk(graph, task, self.client, payload=self.payload(graph), limits={"db": semaphore},
                               pool=lambda label: "db")
        self.assertTrue(report.ok, report.message)
        self.assertEqual(self.client.run_on_scheduler(events), before)

        # Whichever takes the only lease first holds it; the other's task may wait for it on a worker,
        # and must still not run once it has it, with the event gone.
        self.folder = tempfile.mkdtemp()
        running, holder, waiter = self.start_two_blocking_on_one_lease(graph, semaphore)
        running.cancel()
        report = running.wait(timeout=BOUND_S)
        self.assertIsNotNone(report, "the cancelled walk ended")
        self.assertEqual(self.client.run_on_scheduler(events), before)
        self.release()
        self.assertTrue(semaphore.acquire(timeout=BOUND_S))  # both tasks are done with the lease
        semaphore.release()
        self.assertEqual(self.runs(waiter), [], f"{waiter} ran after the walk was cancelled")
        self.assertEqual(len(self.runs(holder)), 1)
        # A walk nobody waits for: its event leaves once its last vertex has ended.
        self.folder = tempfile.mkdtemp()
        running = dag_dask.start(graph, task, self.client, payload=self.payload(graph), limits={"db": semaphore},
                                 pool=lambda label: "db")
        deadline = time.monotonic() + BOUND_S
        while not (running.done and self.client.run_on_scheduler(events) == before):
            self.assertLess(time.monotonic(), deadline, "the event of a walk that ended stayed on the scheduler")
            time.sleep(0.05)
        self.assertTrue(running.wait(timeout=BOUND_S).ok)

    def test_update_adds_vertices_mid_walk(self):
        graph = libdag.Graph.from_dict({"a": [], "z": []})
        payload = self.payload(graph, {"a": "block"})
        payload["b"] = ("b", self.folder, "ok")  # for the vertex the update adds; "orphan" has none
        running = dag_dask.start(graph, task, self.client, payload=payload)
        wait_for_file(os.path.join(self.folder, "a.started"))
        update = libdag.WalkUpdate()
        b = update.add_vertex("b")
        update.connect(b, graph.find("a"))  # b depends on a, which is running
        update.add_vertex("orphan")
        added = running.apply(update)
        update.close()
        self.assertEqual(len(added), 2)
        self.assertEqual(self.runs("b"), [], "b waits for a")
        self.release()
        report = running.wait(timeout=BOUND_S)
        self.assertIsNotNone(report, "the walk ended")
        (_, a_end, _), = self.runs("a")
        (b_start, _, _), = self.runs("b")
        self.assertGreaterEqual(b_start, a_end)
        self.assertEqual(report[added[0]].status, VertexStatus.OK)
        orphan = report[added[1]]
        self.assertEqual(orphan.status, VertexStatus.FAILED)
        self.assertIsInstance(orphan.exception, KeyError)
        self.assertIn("payload has no entry for vertex orphan", orphan.message)
        self.assertEqual(len(report), 4)

    def test_worker_killed_mid_walk(self):
        with random_graph(60, 5) as graph:
            victim = "v10"
            running = dag_dask.start(graph, task, self.client, parallelism=4,
                                     payload=self.payload(graph, {victim: "die-once"}))
            marker = os.path.join(self.folder, victim + ".started")
            wait_for_file(marker)
            with open(marker) as pid:
                os.kill(int(pid.read()), signal.SIGKILL)
            report = running.wait(timeout=BOUND_S)
            self.assertIsNotNone(report, "the walk ended after the worker died")
            self.assertTrue(report.ok, report.message)
            self.assertEqual(len(self.runs(victim)), 1, "the killed run recorded nothing; the rerun did")
            self.assert_edges_respected(graph, reruns=True)
        self.client.wait_for_workers(2, timeout=BOUND_S)  # the nanny restarts the killed worker

    def test_a_result_lost_with_its_worker_before_its_callback_ran_still_counts(self):
        # Dask runs done-callbacks on one thread: while on_error holds it, y finishes on a worker
        # that is then killed, so that y's future reads "lost" when its callback runs. y ran to its end.
        graph = libdag.Graph.from_dict({"x": [], "y": []})
        resume = threading.Event()
        self.addCleanup(resume.set)

        def on_error(label, error):
            open(os.path.join(self.folder, "told"), "w").close()
            resume.wait(BOUND_S)

        running = dag_dask.start(graph, task, self.client, on_error=on_error,
                                 payload=self.payload(graph, {"x": "fail", "y": "after-told"}))
        marker = os.path.join(self.folder, "y.started")
        wait_for_file(marker)
        y, = [state for key, state in self.client.futures.items() if str(key).endswith(", 'y')")]
        self.wait_for_status(y, "finished")
        with open(marker) as pid:
            os.kill(int(pid.read()), signal.SIGKILL)
        self.wait_for_status(y, "lost")
        resume.set()
        report = running.wait(timeout=BOUND_S)
        self.assertIsNotNone(report, "the walk ended")
        self.assertEqual(report[graph.find("x")].status, VertexStatus.FAILED)
        self.assertEqual(report[graph.find("y")].status, VertexStatus.OK, report[graph.find("y")].message)
        self.release()
        self.client.wait_for_workers(2, timeout=BOUND_S)

    def wait_for_status(self, state, status):
        deadline = time.monotonic() + BOUND_S
        while state.status != status:
            self.assertLess(time.monotonic(), deadline, f"the future did not become {status}: {state.status}")
            time.sleep(0.01)


if __name__ == "__main__":
    unittest.main()
