"""Pull walks: next_ready by hand, on an Executor, and on asyncio; failure and cancel in each."""

import _thread
import asyncio
import collections
import concurrent.futures
import contextvars
import gc
import linecache
import signal
import sys
import threading
import time
import unittest
import unittest.mock
import warnings

import libdag
from libdag import VertexStatus
from support import walk_async_stopped_by_ctrl_c


# Bounds every wait of a test that could hang: long enough never to pass on a busy machine by chance.
WAIT_S = 30


def deployment():
    """app -> web -> {db, net}, db -> net, and an independent dns."""
    return libdag.Graph.from_dict({"app": ["web"], "web": ["db", "net"], "db": ["net"], "dns": []})


def statuses(g, report):
    return {g.name(r.id): r.status for r in report}


def changeable(g):
    """Whether the graph takes a change: no walk holds it."""
    try:
        g.add_vertex()
        return True
    except libdag.BusyError:
        return False


def wait_for(condition, seconds=5):
    deadline = time.monotonic() + seconds
    while not condition():
        if time.monotonic() > deadline:
            return False
        time.sleep(0.01)
    return True


def in_c_wait(thread):
    """Whether `thread` is in libdag's wait for a pull walk (dag_walk_next_ready or dag_walk_wait_for)."""
    frame = sys._current_frames().get(thread.ident)
    line = linecache.getline(frame.f_code.co_filename, frame.f_lineno) if frame is not None else ""
    return "lib.dag_walk_next_ready(" in line or "lib.dag_walk_wait_for(" in line

def bounded_wait(test, walker):
    """walker.wait(), on a thread of its own: a test fails, rather than hangs, where vertices stay handed out."""
    reports = []
    thread = threading.Thread(target=lambda: reports.append(walker.wait()), daemon=True)
    thread.start()
    thread.join(WAIT_S)
    if thread.is_alive():
        walker.close()  # the wait raises ClosedError
        thread.join(WAIT_S)
        test.fail("wait() did not return: vertices were left handed out")
    return reports[0]


class Inline(concurrent.futures.Executor):
    """An executor that runs each call inside submit()."""

    def submit(self, fn, *args, **kwargs):
        future = concurrent.futures.Future()
        try:
            future.set_result(fn(*args, **kwargs))
        except BaseException as error:  # noqa: B902 - the future carries it
            future.set_exception(error)
        return future


class HandPulledTest(unittest.TestCase):
    def test_order_and_parallelism(self):
        g = deployment()
        with g.pull_walker(parallelism=2) as walk:
            walk.start()
            done = []
            while True:
                batch = walk.next_ready(timeout=5)
                self.assertIsNotNone(batch)
                if not batch:
                    break
                self.assertLessEqual(len(batch), 2)
                for vertex in batch:
                    for dependency in g.dependencies(vertex):
                        self.assertIn(dependency, done)
                    done.append(vertex)
                    walk.complete(vertex)
            report = walk.wait()
        self.assertTrue(report.ok)
        self.assertEqual(sorted(done), sorted(g))

    def test_nothing_ready_times_out_with_none(self):
        g = libdag.Graph.from_dict({"b": ["a"]})
        with g.pull_walker() as walk:
            walk.start()
            self.assertEqual(walk.next_ready(timeout=0), [g.find("a")])
            self.assertIsNone(walk.next_ready(timeout=0))
            self.assertIsNone(walk.next_ready(timeout=0.01))
            walk.complete("a", error="a broke")
            self.assertEqual(walk.next_ready(timeout=0), [])  # b is skipped: the walk has ended
            report = walk.wait()
        self.assertEqual(statuses(g, report), {"a": VertexStatus.FAILED, "b": VertexStatus.UPSTREAM_FAILED})

    def test_a_huge_limit_takes_what_is_ready_without_buffers_that_large(self):
        # A limit meant as "all of them" made two zero-filled buffers of
        # that many entries per call: 10**12 raised a bare MemoryError.
        g = libdag.Graph.from_dict({"b": [], "c": [], "a": ["b", "c"]})
        with g.pull_walker(parallelism=4) as walk:
            walk.start()
            for timeout in (0, None):
                got = walk.next_ready(limit=10**12, timeout=timeout)
                if timeout == 0:
                    self.assertEqual(sorted(got), sorted([g.find("b"), g.find("c")]))
                    for v in got:
                        walk.complete(v)
                else:
                    self.assertEqual(got, [g.find("a")])
                    walk.complete(got[0])
            self.assertEqual(walk.next_ready(limit=2**64 - 1), [])
            self.assertTrue(walk.wait().ok)
        self.assertEqual(libdag.pull.NEXT_READY_MAX, 65536)

    def test_a_poll_from_the_observer_of_a_poll_is_refused_and_the_outer_poll_keeps_its_vertices(self):
        # Polls reuse a buffer per thread; the observer runs on the polling
        # thread, inside the outer poll, and must not write over its buffers.
        g = libdag.Graph.from_dict({"b": [], "a": []})
        inner = []

        def observer(event, vertex, status, running, done, total):
            if event == libdag.WalkEvent.STARTED:
                try:
                    inner.append(walk.next_ready(timeout=0))
                except libdag.StateError as e:
                    inner.append(e)

        with g.pull_walker(parallelism=2, observer=observer) as walk:
            walk.start()
            self.assertEqual(sorted(walk.next_ready(timeout=0)), sorted([g.find("a"), g.find("b")]))
            self.assertEqual(len(inner), 2)
            for refused in inner:
                self.assertIsInstance(refused, libdag.StateError)
                self.assertTrue(refused.message.startswith("PullWalker.next_ready: "), refused.message)
            for vertex in ("a", "b"):
                walk.complete(vertex)
            self.assertEqual(walk.next_ready(timeout=0), [])
            self.assertTrue(walk.wait().ok)

    def test_work_the_cancel_stopped_ends_cancelled(self):
        g = libdag.Graph.from_dict({"b": ["a"]})
        with g.pull_walker() as walk:
            walk.start()
            self.assertEqual(walk.next_ready(timeout=0), [g.find("a")])
            with self.assertRaises(libdag.StateError):  # not before the walk is cancelled
                walk.complete("a", "stopped", cancelled=True)
            walk.cancel()
            walk.complete("a", "stopped", cancelled=True)
            self.assertEqual(walk.next_ready(timeout=0), [])
            report = walk.wait()
        self.assertEqual(statuses(g, report), {"a": VertexStatus.CANCELLED, "b": VertexStatus.CANCELLED})
        self.assertEqual(report[g.find("a")].message, "stopped")
        self.assertTrue(report[g.find("a")].ran)

    def test_misuse(self):
        g = deployment()
        walk = g.pull_walker()
        with self.assertRaises(libdag.StateError):
            walk.next_ready()
        walk.start()
        # In the binding's words: libdag's named its own argument (capacity).
        with self.assertRaisesRegex(libdag.InvalidArgumentError, "^PullWalker.next_ready: limit is 0"):
            walk.next_ready(0)
        walk.close()
        with self.assertRaises(libdag.ClosedError):
            walk.next_ready()
        with self.assertRaises(TypeError):
            g.walker(None)


    def test_closing_the_walker_ends_the_waits_of_other_threads(self):
        # A vertex is out and never completed, so the walk cannot end by
        # itself: the waits below last until the close reaches them.
        g = libdag.Graph.from_dict({"b": ["a"]})
        walk = g.pull_walker()
        walk.start()
        self.assertEqual(walk.next_ready(timeout=0), [g.find("a")])
        raised = {}
        waiting = threading.Barrier(3)

        def wait_in(name, call):
            waiting.wait()
            try:
                call()
            except libdag.ClosedError as error:
                raised[name] = error.message

        waiters = [threading.Thread(target=wait_in, args=("next_ready", lambda: walk.next_ready(timeout=None)),
                                    daemon=True),
                   threading.Thread(target=wait_in, args=("wait", walk.wait), daemon=True)]
        for waiter in waiters:
            waiter.start()
        waiting.wait()
        # Both inside their waits (a thread that had not got there yet would be told "the walker is
        # closed" instead): each is in the C call it waits in.
        deadline = time.monotonic() + 30
        while not all(in_c_wait(waiter) for waiter in waiters):
            self.assertLess(time.monotonic(), deadline, "the waits did not begin")
            time.sleep(0.01)
        closer = threading.Thread(target=walk.close, daemon=True)
        closer.start()
        closer.join(5)
        self.assertFalse(closer.is_alive(), "close() waited for the other threads' waits")
        for waiter in waiters:
            waiter.join(5)
            self.assertFalse(waiter.is_alive())
        self.assertEqual(raised, {
            "next_ready": "PullWalker.next_ready: the walker was closed while this waited",
            "wait": "PullWalker.wait: the walker was closed while this waited",
        })
        g.add_vertex("the walk is over")

    def test_calls_racing_a_close_either_run_or_raise_closed_error(self):
        # The walker's handle takes no lock for a call: a call must either
        # see the close (ClosedError) or be waited for by it (the walk is
        # freed only after), never use the freed walk.
        g = libdag.Graph.from_dict({f"v{i}": [] for i in range(64)})
        unexpected = []
        for _ in range(40):
            walk = g.pull_walker(parallelism=64)
            walk.start()
            go = threading.Barrier(4)

            def hammer():
                go.wait()
                try:
                    while True:
                        for vertex in walk.next_ready(8, timeout=0) or []:
                            walk.complete(vertex)
                except libdag.ClosedError:
                    pass
                except BaseException as error:  # noqa: B902 - reported below
                    unexpected.append(error)

            threads = [threading.Thread(target=hammer) for _ in range(3)]
            for thread in threads:
                thread.start()
            go.wait()
            walk.close()
            for thread in threads:
                thread.join(5)
                self.assertFalse(thread.is_alive())
        self.assertEqual(unexpected, [])

    def test_a_waker_may_close_its_walker(self):
        # Wakers run inside the call that made the change, which holds a read
        # of the walker: a close there must not wait for that read.
        g = libdag.Graph.from_dict({"b": ["a"]})
        walk = g.pull_walker()
        walk.start()
        closed = threading.Event()
        walk.wake_on_change(lambda: (walk.close(), closed.set()))
        with concurrent.futures.ThreadPoolExecutor(2) as pool:
            with self.assertRaises(libdag.ClosedError):
                walk.run_on(pool, lambda vertex: None)
        self.assertTrue(closed.is_set())
        self.assertTrue(wait_for(lambda: changeable(g)), "the closed walk was never freed")

    def test_a_poll_racing_start_sees_the_walks_own_vertices(self):
        # start() publishes the walk's handle; a poll that finds it must also
        # find which walk is the main one, or its vertices look like a
        # sub-walk's (their exceptions then missing from the report). The
        # window is widened by slowing the step between the two.
        g = libdag.Graph.from_dict({"a": []})
        walk = g.pull_walker()
        taken = []
        real_cast = libdag.walk.ctypes.cast

        def slow_cast(obj, typ):
            time.sleep(0.2)
            return real_cast(obj, typ)

        def poll():
            while not taken:
                try:
                    batch = walk.next_ready(timeout=0)
                except libdag.StateError:
                    continue  # not started yet
                for vertex in batch or []:
                    taken.append(vertex)
                    walk.complete(vertex, ValueError("boom"))

        poller = threading.Thread(target=poll, daemon=True)
        poller.start()
        with unittest.mock.patch.object(libdag.walk.ctypes, "cast", slow_cast):
            walk.start()
        poller.join(5)
        report = walk.wait()
        walk.close()
        self.assertEqual([type(vertex) for vertex in taken], [int])
        self.assertIsInstance(report[g.find("a")].exception, ValueError)

    def test_closing_the_walker_ends_async_for_waiting_for_a_vertex(self):
        g = libdag.Graph.from_dict({"b": ["a"]})

        async def main():
            walk = g.pull_walker()
            walk.start()
            taken = []

            async def take():
                async for vertex in walk:
                    taken.append(vertex)  # never completed: b never comes

            taker = asyncio.ensure_future(take())
            while not taken:
                await asyncio.sleep(0.01)
            await asyncio.sleep(0.05)
            walk.close()
            with self.assertRaises(libdag.ClosedError):
                await asyncio.wait_for(taker, 5)
            return taken

        self.assertEqual(asyncio.run(main()), [g.find("a")])

    def test_a_vertex_failed_with_a_message_whose_retry_never_started_says_it_ran(self):
        # complete(vertex, "message") keeps no exception; its retry, taken by
        # an async for left early, was completed cancelled by cancel(): the
        # report said it never ran (ran False, counted among those that
        # "never ran"), as for an exception only a vertex that never ran.
        g = libdag.Graph.from_dict({"a": [], "b": []})
        with g.pull_walker(schedule=libdag.Schedule(retries=1)) as walk:
            walk.start()
            for vertex in walk.next_ready():
                walk.complete(vertex, "boom")

            async def take_one():
                async for vertex in walk:
                    return vertex  # the other stays with the walker

            taken = asyncio.run(asyncio.wait_for(take_one(), WAIT_S))
            walk.cancel()
            walk.complete(taken, cancelled=True)
            report = walk.wait()
        for result in report:
            self.assertTrue(result.ran, result)
            self.assertEqual(result.attempt_messages, ("boom", ""))
        self.assertEqual(report.message, "the walk was cancelled; 0 vertices never ran and 2 were cancelled after "
                                         "their callbacks ran")

    def ctrl_c_once_the_walk_has_ended(self, wait_for):
        """next_ready(timeout=0) with Ctrl-C in its look, once the walk has ended while an observer call runs.

        a's observer call, on a thread of its own, outlives the walk's end
        (b's completion, the last, ends it) until `release` is set.
        `wait_for(release, real, *args)` stands in for dag_walk_wait_for.
        Returns the KeyboardInterrupt and the walk's report from wait().
        """
        g = libdag.Graph.from_dict({"a": [], "b": []})
        a, b = g.find("a"), g.find("b")
        observing, release = threading.Event(), threading.Event()

        def observer(event, vertex, status, running, done, total):
            if event == libdag.WalkEvent.FINISHED and vertex == a:
                observing.set()
                release.wait(WAIT_S)

        real = libdag._native.lib.dag_walk_wait_for
        with g.pull_walker(parallelism=2, observer=observer) as walker:
            walker.start()
            self.assertEqual(sorted(walker.next_ready()), sorted([a, b]))
            completing = threading.Thread(target=walker.complete, args=(a,))
            completing.start()
            try:
                self.assertTrue(observing.wait(WAIT_S))
                walker.complete(b)
                self.assertEqual(walker.next_ready(timeout=0), [])
                with unittest.mock.patch.object(libdag._native.lib, "dag_walk_wait_for",
                                                lambda *args: wait_for(release, real, *args)), \
                        unittest.mock.patch("libdag._pull_calls.PullCalls.look", side_effect=KeyboardInterrupt):
                    with self.assertRaises(KeyboardInterrupt) as cm:
                        walker.next_ready(timeout=0)
            finally:
                release.set()
                completing.join(WAIT_S)
            return cm.exception, walker.wait()

    def test_ctrl_c_once_the_walk_has_ended_comes_with_its_report_while_an_observer_call_runs(self):
        # The look's dag_walk_wait_for(0) timed out for that observer call:
        # walk_report was None, though no vertex was out.
        def wait_for(release, real, ptr, timeout_ms, *out):
            if timeout_ms != 0:
                release.set()  # a wait that lasts: the observer call may end now
            return real(ptr, timeout_ms, *out)

        interrupt, report = self.ctrl_c_once_the_walk_has_ended(wait_for)
        self.assertIsNotNone(interrupt.walk_report)
        self.assertTrue(interrupt.walk_report.ok)
        self.assertEqual(len(interrupt.walk_report), 2)
        self.assertTrue(report.ok)

    def test_a_second_ctrl_c_while_that_observer_call_is_waited_for_comes_without_a_report(self):
        def wait_for(release, real, ptr, timeout_ms, *out):
            if timeout_ms != 0:
                raise KeyboardInterrupt  # before the observer call can end
            return real(ptr, timeout_ms, *out)

        interrupt, report = self.ctrl_c_once_the_walk_has_ended(wait_for)
        self.assertIsNone(interrupt.walk_report)
        self.assertTrue(report.ok)

class ExecutorTest(unittest.TestCase):
    def test_an_unknown_option_is_refused_naming_the_method_called(self):
        # It named PullWalker.__init__, which the caller never called.
        g = deployment()
        with concurrent.futures.ThreadPoolExecutor(1) as pool:
            with self.assertRaisesRegex(TypeError, r"walk_on\(\) got an unexpected keyword argument 'threads'"):
                g.walk_on(pool, lambda vertex: None, threads=2)
        with self.assertRaisesRegex(TypeError, r"walk_async\(\) got an unexpected keyword argument 'threads'"):
            asyncio.run(g.walk_async(lambda vertex: asyncio.sleep(0), threads=2))

    def test_failing_vertex(self):
        g = deployment()
        ran = []

        def deploy(vertex):
            ran.append(g.name(vertex))
            if g.name(vertex) == "db":
                raise RuntimeError("db: quota exceeded")

        with concurrent.futures.ThreadPoolExecutor(4) as pool:
            report = g.walk_on(pool, deploy, parallelism=3)
        self.assertEqual(statuses(g, report), {
            "app": VertexStatus.UPSTREAM_FAILED, "web": VertexStatus.UPSTREAM_FAILED,
            "db": VertexStatus.FAILED, "net": VertexStatus.OK, "dns": VertexStatus.OK,
        })
        self.assertIsInstance(report[g.find("db")].exception, RuntimeError)
        self.assertEqual(report[g.find("db")].message, "db: quota exceeded")
        self.assertEqual(sorted(ran), ["db", "dns", "net"])
        with self.assertRaises(libdag.WalkFailedError) as cm:
            report.raise_for_status()
        self.assertIsInstance(cm.exception.__cause__, RuntimeError)

    def test_ctrl_c_while_next_ready_waits_cancels_the_walk(self):
        # It raised KeyboardInterrupt and left the walk running: b was handed
        # out once a was complete.
        g = libdag.Graph.from_dict({"b": ["a"], "a": []})
        a, b = g.find("a"), g.find("b")
        with g.pull_walker() as walk:
            walk.start()
            self.assertEqual(walk.next_ready(), [a])
            timer = threading.Timer(0.2, _thread.interrupt_main)
            timer.start()
            with self.assertRaises(KeyboardInterrupt) as cm:
                walk.next_ready()  # b waits for a, which this thread holds
            timer.join()
            self.assertIsNone(cm.exception.walk_report)  # a is still out
            walk.complete(a)
            self.assertEqual(walk.next_ready(), [])
            report = walk.wait()
        self.assertTrue(report.cancelled)
        self.assertEqual(report[a].status, VertexStatus.OK)
        self.assertEqual(report[b].status, VertexStatus.CANCELLED)

    def test_ctrl_c_just_after_vertices_were_handed_out_completes_them(self):
        # Ctrl-C landing after dag_walk_next_ready handed a out, before
        # next_ready returned it: nobody held a, so the walk never ended.
        self.ctrl_c_once_after(libdag.pull, "take_error", timeout=None)

    def test_ctrl_c_just_after_a_poll_handed_vertices_out_completes_them(self):
        # The same through next_ready(timeout=0), a poll: a was lost there.
        self.ctrl_c_once_after(libdag._pull_calls, "_LOOK", timeout=0)

    def ctrl_c_once_after(self, module, name, timeout):
        """next_ready(timeout) with Ctrl-C landing as module.name first returns: a and b end cancelled."""
        g = libdag.Graph.from_dict({"b": ["a"], "a": []})
        a, b = g.find("a"), g.find("b")
        real = getattr(module, name)
        pressed = []

        def interrupted(*args):
            result = real(*args)
            if not pressed:
                pressed.append(True)
                raise KeyboardInterrupt
            return result

        with g.pull_walker() as walk:
            walk.start()
            with unittest.mock.patch.object(module, name, interrupted):
                with self.assertRaises(KeyboardInterrupt) as cm:
                    walk.next_ready(timeout=timeout)
            report = cm.exception.walk_report
            self.assertIsNotNone(report)
            self.assertEqual(walk.next_ready(timeout=timeout), [])
        self.assertTrue(report.cancelled)
        self.assertEqual(report[a].status, VertexStatus.CANCELLED)
        self.assertEqual(report[b].status, VertexStatus.CANCELLED)

    def test_cancel_from_a_vertex(self):
        g = libdag.Graph()
        chain = g.add_vertices([f"v{i}" for i in range(20)])
        g.connect_many(zip(chain[1:], chain))
        walk = g.pull_walker()

        def step(vertex):
            if vertex == chain[3]:
                walk.cancel()

        with walk, concurrent.futures.ThreadPoolExecutor(2) as pool:
            report = walk.run_on(pool, step)
        self.assertTrue(report.cancelled)
        self.assertEqual(report.ids(VertexStatus.OK), chain[:4])
        self.assertEqual(report.ids(VertexStatus.CANCELLED), chain[4:])

    def test_a_retry_after_a_delay_with_nothing_else_running(self):
        # Nothing is out while the failed vertex waits: no completion says when it is ready again.
        g = libdag.Graph.from_dict({"b": ["a"]})
        tries = []

        def flaky(vertex):
            tries.append(g.name(vertex))
            if len(tries) == 1:
                raise RuntimeError("a: try again")

        with concurrent.futures.ThreadPoolExecutor(2) as pool:
            report = g.walk_on(pool, flaky, schedule=libdag.Schedule(retries=1, retry_delay=0.05))
        self.assertTrue(report.ok)
        self.assertEqual(tries, ["a", "a", "b"])
        self.assertEqual(report[g.find("a")].attempts, 2)

    def test_a_retry_comes_due_while_another_call_runs(self):
        # "long" runs 3 s; "flaky"'s retry is due 0.05 s after its failure. It waited for "long" to end.
        g = libdag.Graph.from_dict({"long": [], "flaky": []})
        release, retried = threading.Event(), threading.Event()
        tries = []

        def fn(vertex):
            if g.name(vertex) == "long":
                release.wait(30)
            elif not tries:
                tries.append(vertex)
                raise RuntimeError("flaky: try again")
            else:
                retried.set()

        in_time = []

        def end_long():
            in_time.append(retried.wait(3))
            release.set()

        threading.Thread(target=end_long, daemon=True).start()
        with concurrent.futures.ThreadPoolExecutor(2) as pool:
            report = g.walk_on(pool, fn, schedule=libdag.Schedule(retries=1, retry_delay=0.05))
        self.assertEqual(in_time, [True], "the retry waited for the other call to end")
        self.assertTrue(report.ok)
        self.assertEqual(report[g.find("flaky")].attempts, 2)

    def test_a_retry_that_ran_after_an_attempt_that_never_started_says_it_ran(self):
        # The first attempt's future was cancelled by its executor (not by
        # the walk): failed, never run. The retry ran and succeeded, and the
        # report said it never ran.
        g = libdag.Graph.from_dict({"a": []})
        a = g.find("a")
        calls = []

        class CancelsTheFirst(Inline):
            def submit(self, fn, *args, **kwargs):
                calls.append(args)
                if len(calls) == 1:
                    future = concurrent.futures.Future()
                    future.cancel()
                    return future
                return super().submit(fn, *args, **kwargs)

        report = g.walk_on(CancelsTheFirst(), lambda vertex: None, schedule=libdag.Schedule(retries=1))
        self.assertTrue(report.ok)
        self.assertEqual(report[a].attempts, 2)
        # By its name, as every other message names a vertex (it said "vertex 1").
        self.assertEqual(report[a].attempt_messages[0], "vertex a was cancelled before it ran")
        self.assertTrue(report[a].ran)
        self.assertEqual(len(calls), 2)

    def test_a_vertex_that_ran_and_whose_retry_never_started_says_it_ran(self):
        # Its first attempt ran and failed; the cancel came as its retry
        # waited in the executor's queue: the report said it never ran.
        g = libdag.Graph.from_dict({"x": []})
        x = g.find("x")
        walker = g.pull_walker(schedule=libdag.Schedule(retries=1))

        class CancelsAtTheRetry(Inline):
            calls = 0

            def submit(self, fn, *args, **kwargs):
                CancelsAtTheRetry.calls += 1
                if CancelsAtTheRetry.calls == 1:
                    return super().submit(fn, *args, **kwargs)
                walker.cancel()
                return concurrent.futures.Future()  # queued, not started: run_on cancels it

        def fn(vertex):
            raise RuntimeError("boom")

        with walker:
            report = walker.run_on(CancelsAtTheRetry(), fn)
        self.assertEqual(CancelsAtTheRetry.calls, 2)
        self.assertTrue(report[x].ran)
        self.assertEqual(report[x].attempts, 2)
        self.assertTrue(report.message.startswith("the walk was cancelled; 0 vertices never ran"), report.message)

    def test_ready_vertices_are_submitted_in_the_walks_order(self):
        # More ready than the executor has workers: they start in the order the walk hands them out.
        g = libdag.Graph.from_dict({name: [] for name in "fedcba"})
        started = []
        with concurrent.futures.ThreadPoolExecutor(1) as pool:
            report = g.walk_on(pool, lambda v: started.append(g.name(v)), parallelism=6,
                               schedule=libdag.Schedule(priority="name"))
        self.assertTrue(report.ok)
        self.assertEqual(started, list("abcdef"))

    def test_a_vertex_expanded_by_its_call_ends_with_its_sub_walk(self):
        g = libdag.Graph.from_dict({"b": ["a"], "a": []})
        sub = libdag.Graph.from_dict({"s2": ["s1"], "s1": []})
        ran = []
        walker = g.pull_walker()

        def fn(vertex):
            ran.append(walker.name(vertex))
            if walker.name(vertex) == "a":
                walker.expand(vertex, sub)

        with walker, concurrent.futures.ThreadPoolExecutor(2) as pool:
            report = walker.run_on(pool, fn)
        self.assertTrue(report.ok, report.message)
        self.assertEqual(ran, ["a", "s1", "s2", "b"])

    def test_run_on_waits_for_the_call_of_a_vertex_it_expanded(self):
        # The walk ends with the sub-walk, which may be before the call that
        # expanded the vertex returns: run_on returned then, the call still
        # running and what it raised after expand() missing from the report.
        g = libdag.Graph.from_dict({"a": []})
        sub = libdag.Graph.from_dict({"s": []})
        walker = g.pull_walker()
        ended = threading.Event()

        def fn(vertex):
            if not isinstance(vertex, libdag.SubwalkVertex):
                walker.expand(vertex, sub)
                time.sleep(0.3)
                ended.set()
                raise RuntimeError("raised after expand")

        with walker, concurrent.futures.ThreadPoolExecutor(2) as pool:
            report = walker.run_on(pool, fn)
            self.assertTrue(ended.is_set())
        self.assertTrue(report.ok, report.message)
        self.assertIsInstance(report[g.find("a")].exception, RuntimeError)

    def test_run_on_stopped_by_an_error_waits_for_the_call_of_a_vertex_it_expanded(self):
        # As above, on the error path: b's own completion is refused, which
        # stops the walk; run_on raised at once, a's call still running and
        # what it raised missing from walk_report.
        g = libdag.Graph.from_dict({"a": [], "b": []})
        sub = libdag.Graph.from_dict({"s": []})
        walker = g.pull_walker()
        ended = threading.Event()

        def fn(vertex):
            if isinstance(vertex, libdag.SubwalkVertex):
                return
            if g.name(vertex) == "a":
                walker.expand(vertex, sub)
                time.sleep(0.3)
                ended.set()
                raise RuntimeError("raised after expand")
            time.sleep(0.05)
            walker.complete(vertex)  # the run's own completion is then refused

        with walker, concurrent.futures.ThreadPoolExecutor(2) as pool:
            with self.assertRaises(libdag.StateError) as caught:
                walker.run_on(pool, fn)
            self.assertTrue(ended.is_set())
        self.assertIsInstance(caught.exception.walk_report[g.find("a")].exception, RuntimeError)

    def test_ctrl_c_is_raised_and_not_closed_error_when_fn_closes_the_walker_as_the_walk_stops(self):
        # The Ctrl-C's stop waited for a's call in next_ready(), which
        # raised ClosedError once fn closed the walker: that replaced the
        # KeyboardInterrupt, and the call was not waited for.
        g = libdag.Graph.from_dict({"a": []})
        walker = g.pull_walker()
        running, cancelled = threading.Event(), threading.Event()
        ended = []

        def on_change():
            if walker.cancel_asked:
                cancelled.set()
            else:
                walker.wake_on_change(on_change)

        def fn(vertex):
            walker.wake_on_change(on_change)
            running.set()
            if cancelled.wait(WAIT_S):  # by the Ctrl-C's stop, which then waits for this call
                walker.close()
                ended.append(vertex)

        real_wait = libdag._latch.Latch.wait

        def ctrl_c_once_running(latch, timeout=None):
            # Ctrl-C in run_on's wait, as _thread.interrupt_main() would raise it, but never before.
            if threading.current_thread() is threading.main_thread() and running.is_set():
                raise KeyboardInterrupt
            return real_wait(latch, timeout)

        with concurrent.futures.ThreadPoolExecutor(1) as pool:
            with unittest.mock.patch.object(libdag._latch.Latch, "wait", ctrl_c_once_running):
                with self.assertRaises(BaseException) as cm:
                    walker.run_on(pool, fn)
        self.assertIsInstance(cm.exception, KeyboardInterrupt)
        self.assertIsNone(cm.exception.walk_report)  # a closed walk has no report to read
        self.assertEqual(ended, [g.find("a")])


class ChangesFromOutsideTest(unittest.TestCase):
    """apply() and cancel() made while an executor or asyncio walk waits for its calls to end."""

    def side_job_graph(self):
        # a's work adds "side", which depends on nothing, then waits for it:
        # side must start while a runs, not once a ends.
        return libdag.Graph.from_dict({"a": []})

    def test_a_vertex_an_update_adds_is_submitted_while_the_other_calls_run(self):
        # It waited for a call to end: a waited for side, and the walk for a.
        g = self.side_job_graph()
        side_ran = threading.Event()
        walker = g.pull_walker(parallelism=4)

        def fn(vertex):
            if walker.name(vertex) == "a":
                update = libdag.WalkUpdate()
                update.add_vertex("side")
                walker.apply(update)
                self.assertTrue(side_ran.wait(WAIT_S), "side did not start while a ran")
            else:
                side_ran.set()

        with walker, concurrent.futures.ThreadPoolExecutor(2) as pool:
            report = walker.run_on(pool, fn)
        self.assertTrue(report.ok)
        self.assertEqual(len(report), 2)

    def run_async_adding_side(self, add_side_from_a):
        """run_async over the side job graph: a's task calls add_side_from_a(add_side), then waits for side."""
        g = self.side_job_graph()

        async def main():
            side_ran = asyncio.Event()
            with g.pull_walker(parallelism=4) as walker:
                def add_side():
                    update = libdag.WalkUpdate()
                    update.add_vertex("side")
                    walker.apply(update)

                async def fn(vertex):
                    if walker.name(vertex) == "a":
                        finish = add_side_from_a(add_side)
                        await side_ran.wait()
                        finish()
                    else:
                        side_ran.set()

                return await asyncio.wait_for(walker.run_async(fn), WAIT_S)

        report = asyncio.run(main())
        self.assertTrue(report.ok)
        self.assertEqual(len(report), 2)

    def test_a_vertex_an_update_adds_starts_while_the_other_tasks_run(self):
        def from_the_task(add_side):
            add_side()
            return lambda: None

        self.run_async_adding_side(from_the_task)

    def test_an_update_from_another_thread_starts_its_vertex_while_the_tasks_run(self):
        def from_a_thread(add_side):
            thread = threading.Thread(target=add_side)
            thread.start()
            return thread.join

        self.run_async_adding_side(from_a_thread)

    def test_a_cancel_cancels_the_calls_queued_and_not_started(self):
        # On a pool of one thread, b, c and d waited in its queue behind a,
        # which cancels the walk: they ran all the same, and ended ok.
        g = libdag.Graph.from_dict({name: [] for name in "abcd"})
        called = []
        walker = g.pull_walker(parallelism=4, schedule=libdag.Schedule(priority="name"))

        def fn(vertex):
            called.append(walker.name(vertex))
            if len(called) == 1:
                walker.cancel()

        with walker, concurrent.futures.ThreadPoolExecutor(1) as pool:
            report = walker.run_on(pool, fn)
        self.assertEqual(called, ["a"])
        self.assertTrue(report.cancelled)
        self.assertEqual(statuses(g, report), {"a": VertexStatus.OK, "b": VertexStatus.CANCELLED,
                                               "c": VertexStatus.CANCELLED, "d": VertexStatus.CANCELLED})
        for name in "bcd":
            result = report[g.find(name)]
            self.assertFalse(result.ran, name)
            self.assertIsInstance(result.exception, concurrent.futures.CancelledError)
        self.assertEqual(report.message, "the walk was cancelled; 3 vertices never ran")

    def test_ctrl_c_cancels_the_calls_queued_and_they_end_cancelled_not_failed(self):
        # a runs on the pool's one thread until the Ctrl-C has cancelled x
        # and y, which wait in its queue.
        g = libdag.Graph.from_dict({"a": [], "x": [], "y": [], "after_y": ["y"]})
        a = g.find("a")
        queued = {g.find("x"), g.find("y")}
        cancelled = set()
        release = threading.Event()

        def fn(vertex):
            if vertex == a:
                release.wait(WAIT_S)

        def observer(event, vertex, status, running, done, total):
            # a ends once both queued calls are cancelled: released at the
            # first, the pool's thread could take the other before its cancel.
            if vertex in queued and status == VertexStatus.CANCELLED:
                cancelled.add(vertex)
                if cancelled == queued:
                    release.set()

        timer = threading.Timer(0.2, _thread.interrupt_main)
        with concurrent.futures.ThreadPoolExecutor(1) as pool:
            timer.start()
            with self.assertRaises(KeyboardInterrupt) as cm:
                g.walk_on(pool, fn, parallelism=4, schedule=libdag.Schedule(priority="name"), observer=observer)
        timer.join()
        self.assertTrue(release.is_set())
        report = cm.exception.walk_report
        self.assertEqual(statuses(g, report), {"a": VertexStatus.OK, "x": VertexStatus.CANCELLED,
                                               "y": VertexStatus.CANCELLED, "after_y": VertexStatus.CANCELLED})
        self.assertEqual([g.name(r.id) for r in report if r.ran], ["a"])


class LeavingAsyncForEarlyTest(unittest.TestCase):
    """``async for`` takes ready vertices in batches: breaking out of it strands none."""

    def run_after_a_break(self, then):
        g = libdag.Graph.from_dict({"a": [], "b": [], "c": []})

        async def main():
            with g.pull_walker(parallelism=10) as walker:
                walker.start()
                async for first in walker:
                    break  # b and c were taken in the same batch
                walker.complete(first)
                return g, first, await asyncio.wait_for(then(walker), WAIT_S)

        return asyncio.run(main())

    def test_a_second_async_for_gets_the_rest(self):
        # It waited for ever: b and c were handed out to the first loop.
        async def again(walker):
            seen = []
            async for vertex in walker:
                seen.append(vertex)
                walker.complete(vertex)
            return seen, walker.wait()

        g, first, (seen, report) = self.run_after_a_break(again)
        self.assertEqual(sorted([first] + seen), sorted(g.find(name) for name in "abc"))
        self.assertTrue(report.ok)

    def test_next_ready_gets_them_first(self):
        async def by_hand(walker):
            taken = walker.next_ready(timeout=0)
            for vertex in taken:
                walker.complete(vertex)
            return taken, walker.next_ready(timeout=0), walker.wait()

        g, first, (taken, after, report) = self.run_after_a_break(by_hand)
        self.assertEqual(sorted([first] + taken), sorted(g.find(name) for name in "abc"))
        self.assertEqual(after, [])
        self.assertTrue(report.ok)

    def test_run_async_gets_them(self):
        # It waited for ever: run_async looked only for vertices not handed out.
        async def run_async(walker):
            ran = []

            async def fn(vertex):
                ran.append(vertex)

            return ran, await walker.run_async(fn)

        g, first, (ran, report) = self.run_after_a_break(run_async)
        self.assertEqual(sorted([first] + ran), sorted(g.find(name) for name in "abc"))
        self.assertTrue(report.ok)

    def stranded_then_ready(self):
        """A walker whose async for left b and c stranded, with d, ready, still to be handed out."""
        g = libdag.Graph.from_dict({name: [] for name in "abcd"})
        walker = g.pull_walker(parallelism=3)
        walker.start()

        async def leave_early():
            async for vertex in walker:
                walker.complete(vertex)  # a: its slot goes to d, not taken yet
                break

        asyncio.run(leave_early())
        self.assertEqual(len(walker._undelivered), 2)
        return walker

    def test_run_async_also_starts_what_else_is_ready(self):
        # It started b and c, the stranded ones, and looked for d only once
        # one of them ended: three that wait for each other waited for ever.
        with self.stranded_then_ready() as walker:
            async def main():
                all_three = asyncio.Event()
                running = set()

                async def fn(vertex):
                    running.add(vertex)
                    if len(running) == 3:
                        all_three.set()
                    await asyncio.wait_for(all_three.wait(), 5)

                return await walker.run_async(fn)

            report = asyncio.run(main())
        self.assertTrue(report.ok, report.message)

    def test_run_on_also_starts_what_else_is_ready(self):
        with self.stranded_then_ready() as walker:
            all_three = threading.Barrier(3, timeout=5)
            with concurrent.futures.ThreadPoolExecutor(3) as pool:
                report = walker.run_on(pool, lambda vertex: all_three.wait())
        self.assertTrue(report.ok, report.message)

    def test_a_cancel_during_the_look_leaves_nothing_to_yield_or_strand(self):
        # The observer of the look's first hand-out cancels the walk: the
        # cancel found no batch to complete, the loop then yielded a and left,
        # and b and c stayed handed out: wait() waited for ever.
        g = libdag.Graph.from_dict({"a": [], "b": [], "c": []})
        walker = None

        def observer(event, vertex, status, running, done, total):
            if event == libdag.WalkEvent.STARTED and done == 0 and running == 1:
                walker.cancel()

        async def main():
            yielded = []
            async for vertex in walker:
                yielded.append(vertex)
                break
            return yielded

        with g.pull_walker(parallelism=10, observer=observer) as walker:
            walker.start()
            yielded = asyncio.run(main())
            report = bounded_wait(self, walker)
        self.assertEqual(yielded, [])
        self.assertTrue(report.cancelled)
        self.assertEqual(statuses(g, report), dict.fromkeys("abc", VertexStatus.CANCELLED))
        self.assertFalse(any(result.ran for result in report))

    def test_cancel_completes_them(self):
        # wait() waited for ever: nobody could complete b and c.
        async def cancel(walker):
            walker.cancel()
            # On a thread of its own: the wait is bounded.
            return await asyncio.get_running_loop().run_in_executor(None, walker.wait)

        g, first, report = self.run_after_a_break(cancel)
        self.assertTrue(report.cancelled)
        self.assertEqual(report[first].status, VertexStatus.OK)
        others = [v for v in (g.find(name) for name in "abc") if v != first]
        self.assertEqual([report[v].status for v in others], [VertexStatus.CANCELLED] * 2)
        self.assertFalse(any(report[v].ran for v in others))


class ObserverCtrlCTest(unittest.TestCase):
    """Ctrl-C in an observer the main thread runs (a pull walk's complete() or next_ready() calls it there)."""

    def test_ctrl_c_in_the_observer_of_a_completion_is_raised_by_complete(self):
        # ctypes reported it as unraisable, and the walk went on to its end.
        g = libdag.Graph.from_dict({"b": ["a"], "a": []})
        a, b = g.find("a"), g.find("b")

        def observer(event, vertex, status, running, done, total):
            if event == libdag.WalkEvent.FINISHED and vertex == a:
                raise KeyboardInterrupt

        with g.pull_walker(observer=observer) as walker:
            walker.start()
            self.assertEqual(walker.next_ready(), [a])
            with self.assertRaises(KeyboardInterrupt):
                walker.complete(a)
            # The completion happened; the next call raises nothing more.
            self.assertEqual(walker.next_ready(), [b])
            walker.complete(b)
            self.assertTrue(walker.wait().ok)

    def test_ctrl_c_in_the_observer_of_a_hand_out_cancels_as_next_ready_does(self):
        g = libdag.Graph.from_dict({"b": ["a"], "a": []})
        a, b = g.find("a"), g.find("b")

        def observer(event, vertex, status, running, done, total):
            if event == libdag.WalkEvent.STARTED and vertex == a:
                raise KeyboardInterrupt

        with g.pull_walker(observer=observer) as walker:
            walker.start()
            with self.assertRaises(KeyboardInterrupt) as cm:
                walker.next_ready()
            report = cm.exception.walk_report
        # a, handed out by the call Ctrl-C stopped, reached no caller: completed cancelled.
        self.assertTrue(report.cancelled)
        self.assertEqual(report[a].status, VertexStatus.CANCELLED)
        self.assertEqual(report[b].status, VertexStatus.CANCELLED)

    def run_async_interrupted_at(self, names, parallelism, nth_finished):
        """run_async over independent vertices, the observer raising Ctrl-C at the nth FINISHED event;
        returns the KeyboardInterrupt and the vertices finished."""
        g = libdag.Graph.from_dict({name: [] for name in names})
        finished = []

        def observer(event, vertex, status, running, done, total):
            if event == libdag.WalkEvent.FINISHED:
                finished.append(vertex)
                if len(finished) == nth_finished:
                    raise KeyboardInterrupt

        async def fn(vertex):
            await asyncio.sleep(0)

        async def main():
            with g.pull_walker(parallelism=parallelism, observer=observer) as walker:
                return await walker.run_async(fn)

        with self.assertRaises(KeyboardInterrupt) as cm:
            asyncio.run(main())
        return cm.exception, finished

    def test_ctrl_c_in_an_observer_ends_an_asyncio_walk(self):
        _, finished = self.run_async_interrupted_at([f"v{i}" for i in range(5)], 1, 2)
        self.assertLess(len(finished), 5)

    def test_ctrl_c_in_the_observer_of_a_hand_out_to_async_for_cancels_as_next_ready_does(self):
        # The batch the look handed out was lost with the exception: no
        # report came with it, and the walk waited for them for ever.
        g = libdag.Graph.from_dict({"a": [], "b": [], "after": ["a", "b"]})

        def observer(event, vertex, status, running, done, total):
            if event == libdag.WalkEvent.STARTED and running == 1:
                raise KeyboardInterrupt

        yielded = []

        async def main():
            with g.pull_walker(parallelism=10, observer=observer) as walker:
                walker.start()
                async for vertex in walker:
                    yielded.append(vertex)

        with self.assertRaises(KeyboardInterrupt) as cm:
            asyncio.run(main())
        self.assertEqual(yielded, [])
        report = cm.exception.walk_report
        self.assertTrue(report.cancelled)
        self.assertEqual(statuses(g, report), dict.fromkeys(["a", "b", "after"], VertexStatus.CANCELLED))
        self.assertFalse(any(result.ran for result in report))

    def test_ctrl_c_in_an_observer_ends_the_running_tasks_cancelled_not_failed(self):
        # asyncio.run cancelled the tasks before the walk was cancelled, so
        # the running vertex's completion as cancelled was refused: FAILED.
        g = libdag.Graph.from_dict({"quick": [], "slow": []})
        quick, slow = g.find("quick"), g.find("slow")
        reports = []

        def observer(event, vertex, status, running, done, total):
            if event == libdag.WalkEvent.FINISHED and vertex == quick:
                raise KeyboardInterrupt

        async def fn(vertex):
            if vertex == slow:
                await asyncio.sleep(WAIT_S)

        async def main():
            with g.pull_walker(parallelism=2, observer=observer) as walker:
                try:
                    return await walker.run_async(fn)
                except BaseException as stop:  # noqa: B902 - the report comes with it
                    reports.append(stop.walk_report)
                    raise

        with self.assertRaises(KeyboardInterrupt):
            asyncio.run(main())
        report, = reports
        self.assertTrue(report.cancelled)
        self.assertEqual(report[quick].status, VertexStatus.OK)
        self.assertEqual(report[slow].status, VertexStatus.CANCELLED)
        self.assertTrue(report[slow].ran)

    def test_ctrl_c_in_the_observer_of_the_last_event_of_an_asyncio_walk_comes_with_its_report(self):
        # The walk had ended: run_async returned its report to a task that
        # had finished, and asyncio.run raised the loop's KeyboardInterrupt
        # with no report anywhere.
        interrupt, _ = self.run_async_interrupted_at(["a", "b"], 2, 2)
        report = interrupt.walk_report
        self.assertTrue(report.ok)
        self.assertEqual(len(report), 2)


class CtrlCBeforeALookTest(unittest.TestCase):
    """A Ctrl-C as a look begins, before libdag is called: what the last look handed out is the host's."""

    def setUp(self):
        self.g = libdag.Graph.from_dict({"a": [], "b": [], "c": ["a", "b"]})
        self.a, self.b, self.c = (self.g.find(name) for name in "abc")

    def check(self, walker, interrupted):
        # b, which the last look handed out and the host runs, was completed
        # cancelled by the Ctrl-C (with the stale count of that look): the
        # host's complete(b) then failed, and the report said b never ran.
        with self.assertRaises(KeyboardInterrupt):
            interrupted()
        walker.complete(self.b)
        report = walker.wait()
        self.assertTrue(report.cancelled)
        self.assertEqual((report[self.b].status, report[self.b].ran), (VertexStatus.OK, True))
        self.assertEqual(report[self.c].status, VertexStatus.CANCELLED)

    def test_in_a_poll(self):
        with self.g.pull_walker(parallelism=2) as walker:
            walker.start()
            self.assertEqual(sorted(walker.next_ready(timeout=0)), sorted([self.a, self.b]))
            walker.complete(self.a)
            with unittest.mock.patch("libdag._pull_calls.PullCalls.look", side_effect=KeyboardInterrupt):
                self.check(walker, lambda: walker.next_ready(timeout=0))

    def test_in_async_for(self):
        with self.g.pull_walker(parallelism=2) as walker:
            walker.start()

            async def to_b():
                ready = walker.__aiter__()
                while (vertex := await ready.__anext__()) != self.b:
                    walker.complete(vertex)  # a: the next step looks again
                return ready

            ready = asyncio.run(to_b())
            with unittest.mock.patch("libdag._pull_calls.PullCalls.look", side_effect=KeyboardInterrupt):
                self.check(walker, lambda: asyncio.run(ready.__anext__()))


class CtrlCAfterALookTest(unittest.TestCase):
    """A Ctrl-C as async for's look returns, before its batch is kept: nothing is lost."""

    def test_the_batch_is_completed_cancelled_and_the_report_comes_with_it(self):
        # The batch was lost with the exception: no report, and wait()
        # waited for ever even after a cancel().
        class Interrupting(collections.deque):
            def extend(self, items):
                raise KeyboardInterrupt

        g = libdag.Graph.from_dict({"a": [], "b": [], "after": ["a", "b"]})
        with g.pull_walker(parallelism=10) as walker:
            walker.start()
            walker._undelivered = Interrupting()

            async def main():
                async for vertex in walker:
                    self.fail(f"yielded {vertex}")

            with self.assertRaises(KeyboardInterrupt) as cm:
                asyncio.run(main())
            report = cm.exception.walk_report
            self.assertIsNotNone(report)
            self.assertTrue(report.cancelled)
            self.assertEqual(statuses(g, report), dict.fromkeys(["a", "b", "after"], VertexStatus.CANCELLED))
            self.assertFalse(any(result.ran for result in report))


class RefusedCompletionTest(unittest.TestCase):
    def test_a_refused_completion_does_not_strand_the_rest_of_its_batch(self):
        # fn completes its own vertex, which run_on's completion then finds done: that one is
        # refused, and the other vertices finished with it were dropped, the walk waiting for ever.
        g = libdag.Graph.from_dict({"a": [], "b": [], "c": []})
        with g.pull_walker() as walk:
            def fn(vertex):
                if g.name(vertex) == "a":
                    walk.complete(vertex)

            done = []
            runner = threading.Thread(target=lambda: done.append(self._run(walk, fn)), daemon=True)
            runner.start()
            runner.join(WAIT_S)
            self.assertFalse(runner.is_alive(), "run_on waited for ever")
        self.assertIsInstance(done[0], libdag.StateError)

    @staticmethod
    def _run(walk, fn):
        try:
            return walk.run_on(Inline(), fn)
        except libdag.DagError as error:
            return error

    def test_a_waker_that_raises_does_not_keep_close_from_ending_a_run(self):
        g = libdag.Graph.from_dict({"slow": []})
        walk = g.pull_walker()
        started = threading.Event()

        async def fn(vertex):
            started.set()
            await asyncio.sleep(WAIT_S)

        def close_later():
            started.wait(WAIT_S)
            walk.wake_on_change(lambda: 1 / 0)
            with self.assertRaises(ZeroDivisionError):
                walk.close()

        async def main():
            closer = threading.Thread(target=close_later)
            closer.start()
            began = time.monotonic()
            with self.assertRaises(libdag.ClosedError):
                await walk.run_async(fn)
            closer.join()
            return time.monotonic() - began

        self.assertLess(asyncio.run(asyncio.wait_for(main(), WAIT_S)), WAIT_S / 2)


class ClosingFromInsideTest(unittest.TestCase):
    """A walker closed by code its own walk runs: the close must not wait for the walk's call it is inside."""

    def test_a_function_run_inside_submit_may_close_its_walker(self):
        g = libdag.Graph.from_dict({"b": ["a"]})
        walk = g.pull_walker()
        ran = []

        def fn(vertex):
            ran.append(g.name(vertex))
            walk.close()

        with self.assertRaises(libdag.ClosedError) as caught:
            walk.run_on(Inline(), fn)
        self.assertIsNone(caught.exception.walk_report)
        self.assertEqual(ran, ["a"])
        self.assertTrue(wait_for(lambda: changeable(g)), "the closed walk was never freed")

    def test_an_asyncio_vertex_function_may_close_its_walker(self):
        g = libdag.Graph.from_dict({"b": ["a"]})

        async def main():
            walk = g.pull_walker()

            def fn(vertex):
                walk.close()  # before its coroutine exists: inside the driver's pass
                return asyncio.sleep(0)

            with self.assertRaises(libdag.ClosedError):
                await walk.run_async(fn)

        asyncio.run(asyncio.wait_for(main(), 10))
        self.assertTrue(wait_for(lambda: changeable(g)), "the closed walk was never freed")

    def test_an_asyncio_task_closing_its_walker_ends_run_and_the_other_tasks(self):
        g = libdag.Graph.from_dict({"slow": [], "closer": []})
        cancelled = []

        async def main():
            walk = g.pull_walker()

            async def fn(vertex):
                if g.name(vertex) == "closer":
                    await asyncio.sleep(0.05)
                    walk.close()
                    return
                try:
                    await asyncio.sleep(30)
                except asyncio.CancelledError:
                    cancelled.append(g.name(vertex))
                    raise

            with self.assertRaises(libdag.ClosedError) as caught:
                await walk.run_async(fn)
            self.assertIsNone(caught.exception.walk_report)

        asyncio.run(asyncio.wait_for(main(), 10))
        self.assertEqual(cancelled, ["slow"])
        self.assertTrue(wait_for(lambda: changeable(g)), "the closed walk was never freed")


    def test_closing_an_asyncio_walk_from_another_thread_ends_it_at_once(self):
        g = libdag.Graph.from_dict({"slow": []})
        started = threading.Event()

        async def main():
            walk = g.pull_walker()

            async def fn(vertex):
                started.set()
                await asyncio.sleep(30)

            threading.Thread(target=lambda: (started.wait(5), walk.close()), daemon=True).start()
            began = time.monotonic()
            with self.assertRaises(libdag.ClosedError):
                await walk.run_async(fn)
            return time.monotonic() - began

        self.assertLess(asyncio.run(asyncio.wait_for(main(), 20)), 5)


class AsyncioTest(unittest.TestCase):
    def test_a_look_cancelled_on_a_closed_loop_does_not_fail_a_completion(self):
        # Its waker stayed registered, and a completion from another thread
        # then raised RuntimeError("Event loop is closed"), skipping the
        # wakers after it.
        g = libdag.Graph.from_dict({"b": ["a"]})
        with g.pull_walker() as walk:
            walk.start()
            [a] = walk.next_ready(timeout=5)

            async def look():
                with self.assertRaises(asyncio.TimeoutError):
                    await asyncio.wait_for(walk.__aiter__().__anext__(), 0.05)

            asyncio.run(look())
            woken = []
            walk.wake_on_change(lambda: woken.append(True))
            outcome = []
            completing = threading.Thread(target=lambda: outcome.append(walk.complete(a)))
            completing.start()
            completing.join(10)
            self.assertEqual(outcome, [None])
            self.assertEqual(woken, [True])
            [b] = walk.next_ready(timeout=5)
            self.assertEqual(g.name(b), "b")
            walk.complete(b)
            self.assertTrue(walk.wait().ok)

    def test_every_waker_is_called_when_one_raises(self):
        g = libdag.Graph.from_dict({"b": ["a"]})
        with g.pull_walker() as walk:
            walk.start()
            [a] = walk.next_ready(timeout=5)
            woken = []

            def broken():
                raise ValueError("a waker of the host's")

            walk.wake_on_change(broken)
            walk.wake_on_change(lambda: woken.append(True))
            with self.assertRaisesRegex(ValueError, "a waker of the host's"):
                walk.complete(a)
            self.assertEqual(woken, [True])
            [b] = walk.next_ready(timeout=5)
            walk.complete(b)
            self.assertTrue(walk.wait().ok)

    def test_a_retry_after_a_delay_with_nothing_else_running(self):
        g = libdag.Graph.from_dict({"b": ["a"]})
        tries = []

        async def flaky(vertex):
            tries.append(g.name(vertex))
            if len(tries) == 1:
                raise RuntimeError("a: try again")

        walk = g.walk_async(flaky, schedule=libdag.Schedule(retries=1, retry_delay=0.05))
        report = asyncio.run(asyncio.wait_for(walk, 20))
        self.assertTrue(report.ok)
        self.assertEqual(tries, ["a", "a", "b"])
        self.assertEqual(report[g.find("a")].attempts, 2)

    def test_a_retry_comes_due_while_another_task_runs(self):
        g = libdag.Graph.from_dict({"long": [], "flaky": []})
        tries = []

        async def fn(vertex):
            if g.name(vertex) == "long":
                for _ in range(300):  # until the retry has run, 3 s at most
                    if len(tries) == 2:
                        return
                    await asyncio.sleep(0.01)
                return
            tries.append(vertex)
            if len(tries) == 1:
                raise RuntimeError("flaky: try again")

        walk = g.walk_async(fn, schedule=libdag.Schedule(retries=1, retry_delay=0.05))
        report = asyncio.run(asyncio.wait_for(walk, 20))
        self.assertTrue(report.ok)
        self.assertEqual(len(tries), 2)
        self.assertLess(report[g.find("long")].end_ns - report[g.find("long")].start_ns, 2_000_000_000,
                        "the retry waited for the other task to end")

    def test_async_for_yields_a_retried_vertex_again(self):
        g = libdag.Graph.from_dict({"a": []})

        async def main():
            taken = []
            with g.pull_walker(schedule=libdag.Schedule(retries=1, retry_delay=0.05)) as walk:
                walk.start()
                async for vertex in walk:
                    taken.append(vertex)
                    walk.complete(vertex, RuntimeError("try again") if len(taken) == 1 else None)
                return taken, walk.wait()

        taken, report = asyncio.run(asyncio.wait_for(main(), 20))
        self.assertEqual(taken, [g.find("a")] * 2)
        self.assertTrue(report.ok)

    def test_async_for_keeps_one_waker_across_timed_out_waits(self):
        g = libdag.Graph.from_dict({"b": ["a"]})

        async def main():
            with g.pull_walker() as walk:
                walk.start()
                ready = walk.__aiter__()
                a = await ready.__anext__()
                for _ in range(50):  # b waits for a: each wait times out
                    with self.assertRaises(asyncio.TimeoutError):
                        await asyncio.wait_for(ready.__anext__(), 0.001)
                wakers = len(walk._wakers)
                walk.complete(a)
                self.assertEqual(await ready.__anext__(), g.find("b"))
                return wakers

        self.assertEqual(asyncio.run(asyncio.wait_for(main(), 20)), 1)

    def test_a_vertex_expanded_by_its_task_ends_with_its_sub_walk(self):
        g = libdag.Graph.from_dict({"b": ["a"], "a": []})
        sub = libdag.Graph.from_dict({"s2": ["s1"], "s1": []})
        ran, errors = [], []

        async def main():
            asyncio.get_running_loop().set_exception_handler(lambda _, context: errors.append(context))
            with g.pull_walker() as walker:
                async def fn(vertex):
                    ran.append(walker.name(vertex))
                    if walker.name(vertex) == "a":
                        walker.expand(vertex, sub)

                return await walker.run_async(fn)

        report = asyncio.run(asyncio.wait_for(main(), 20))
        self.assertTrue(report.ok, report.message)
        self.assertEqual(ran, ["a", "s1", "s2", "b"])
        self.assertEqual(errors, [])

    def test_run_async_waits_for_the_task_of_a_vertex_it_expanded(self):
        # As run_on: run_async returned once the sub-walk ended, the task
        # still running (left pending by the loop) and what it raised after
        # expand() missing from the report.
        g = libdag.Graph.from_dict({"a": []})
        sub = libdag.Graph.from_dict({"s": []})
        ended = []

        async def main():
            with g.pull_walker() as walker:
                async def fn(vertex):
                    if not isinstance(vertex, libdag.SubwalkVertex):
                        walker.expand(vertex, sub)
                        await asyncio.sleep(0.3)
                        ended.append(vertex)
                        raise RuntimeError("raised after expand")

                report = await walker.run_async(fn)
                return report, list(ended)

        report, ended_at_return = asyncio.run(asyncio.wait_for(main(), WAIT_S))
        self.assertEqual(ended_at_return, [g.find("a")])
        self.assertTrue(report.ok, report.message)
        self.assertIsInstance(report[g.find("a")].exception, RuntimeError)

    def test_failing_vertex(self):
        g = deployment()

        async def deploy(vertex):
            await asyncio.sleep(0)
            if g.name(vertex) == "db":
                raise RuntimeError("db: quota exceeded")

        report = asyncio.run(g.walk_async(deploy))
        self.assertEqual(statuses(g, report), {
            "app": VertexStatus.UPSTREAM_FAILED, "web": VertexStatus.UPSTREAM_FAILED,
            "db": VertexStatus.FAILED, "net": VertexStatus.OK, "dns": VertexStatus.OK,
        })
        self.assertIsInstance(report[g.find("db")].exception, RuntimeError)

    def test_a_task_raising_system_exit_or_keyboard_interrupt_fails_its_vertex(self):
        # They escaped the walk (asyncio.run raised them, no report, "Task
        # exception was never retrieved") where walk() and walk_on() fail the
        # vertex: no Ctrl-C came, so they are the task's own.
        g = libdag.Graph.from_dict({"app": ["db"], "db": []})
        for raised in (SystemExit(3), KeyboardInterrupt()):
            async def in_task(vertex):
                if g.name(vertex) == "db":
                    raise raised

            def before_task(vertex):
                if g.name(vertex) == "db":
                    raise raised
                return asyncio.sleep(0)

            for fn in (in_task, before_task):
                with self.subTest(raised=raised, fn=fn.__name__):
                    try:
                        report = asyncio.run(g.walk_async(fn))
                    except BaseException as escaped:  # noqa: B902 - the failure to show
                        self.fail(f"{escaped!r} escaped the walk")
                    self.assertEqual(statuses(g, report), {"db": VertexStatus.FAILED,
                                                           "app": VertexStatus.UPSTREAM_FAILED})
                    self.assertIs(report[g.find("db")].exception, raised)

    def test_a_task_raising_keyboard_interrupt_off_the_main_thread_fails_its_vertex(self):
        g = libdag.Graph.from_dict({"app": ["db"], "db": []})

        async def fn(vertex):
            if g.name(vertex) == "db":
                raise KeyboardInterrupt

        outcome = []

        def walk():
            try:
                outcome.append(asyncio.run(g.walk_async(fn)))
            except BaseException as escaped:  # noqa: B902 - the failure to show
                outcome.append(escaped)

        thread = threading.Thread(target=walk)
        thread.start()
        thread.join(WAIT_S)
        report, = outcome
        self.assertIsInstance(report, libdag.WalkReport)
        self.assertEqual(statuses(g, report), {"db": VertexStatus.FAILED, "app": VertexStatus.UPSTREAM_FAILED})

    def test_ctrl_c_in_a_tasks_code_still_stops_the_walk(self):
        # With Python's own SIGINT handler (before Python 3.11's asyncio.run
        # turned Ctrl-C into a cancel, or in a loop run without it) the
        # KeyboardInterrupt lands in whatever task runs: no failure of that
        # task's vertex, but the user's Ctrl-C.
        g = libdag.Graph.from_dict({"a": [], "slow": [], "c": ["a", "slow"]})

        async def fn(vertex):
            if g.name(vertex) == "a":
                await asyncio.sleep(0.05)
                signal.raise_signal(signal.SIGINT)
            elif g.name(vertex) == "slow":
                await asyncio.sleep(WAIT_S)

        report = walk_async_stopped_by_ctrl_c(self, g, fn)
        self.assertTrue(report.cancelled)
        self.assertEqual(report[g.find("slow")].status, VertexStatus.CANCELLED)
        self.assertFalse(report[g.find("c")].ran)

    def test_refusals_name_the_method_called(self):
        # They were headed Walker.start, which the caller never called.
        cyclic = libdag.Graph.from_dict({"a": ["b"], "b": ["a"]})

        async def fn(vertex):
            pass

        async def run_async():
            with cyclic.pull_walker() as walker:
                await walker.run_async(fn)

        def run_on():
            with cyclic.pull_walker() as walker:
                walker.run_on(Inline(), lambda vertex: None)

        for who, call in (("Graph.walk_async", lambda: asyncio.run(cyclic.walk_async(fn))),
                          ("PullWalker.run_async", lambda: asyncio.run(run_async())),
                          ("Graph.walk_on", lambda: cyclic.walk_on(Inline(), lambda vertex: None)),
                          ("PullWalker.run_on", run_on),
                          ("PullWalker.start", lambda: cyclic.pull_walker().start()),
                          ("Walker.start", lambda: cyclic.walker(lambda vertex: None).start())):
            with self.subTest(who):
                with self.assertRaises(libdag.CycleError) as cm:
                    call()
                self.assertTrue(cm.exception.message.startswith(f"{who}: Cycle:"), cm.exception.message)
        g = libdag.Graph.from_dict({"a": []})
        with g.pull_walker() as walking:
            walking.start()
            with self.assertRaises(libdag.BusyError) as cm:
                asyncio.run(g.walk_async(fn))
            self.assertEqual(cm.exception.message, "Graph.walk_async: the graph is already being walked")
            with self.assertRaises(libdag.BusyError) as cm:
                g.pull_walker().start()
            self.assertEqual(cm.exception.message, "PullWalker.start: the graph is already being walked")
        g.close()
        with self.assertRaises(libdag.ClosedError) as cm:
            asyncio.run(g.walk_async(fn))
        self.assertEqual(cm.exception.message, "Graph.walk_async: the graph is closed")

    def test_refusals_of_inherited_methods_name_the_pull_walker(self):
        # They were headed Walker.complete, Walker.cancel... (the class they
        # are written in), and a host's own completion Walker.complete.
        g = libdag.Graph.from_dict({"a": [], "b": ["a"]})
        b = g.find("b")
        cycle = libdag.WalkUpdate()
        cycle.connect(g.find("a"), b)
        calls = (("complete", lambda walk: walk.complete(b)),  # the fast path: a vertex ok
                 ("complete", lambda walk: walk.complete(b, "failed")),
                 ("complete", lambda walk: walk.complete("nowhere")),
                 ("cancel", lambda walk: walk.cancel()),
                 ("expand", lambda walk: walk.expand(b, libdag.Graph())),
                 ("apply", lambda walk: walk.apply(cycle)),
                 ("progress", lambda walk: walk.progress()),
                 ("name", lambda walk: walk.name(b)),
                 ("user_data", lambda walk: walk.user_data(b)))
        for state in ("not started", "started", "closed"):
            for method, call in calls:
                if state == "started" and method in ("cancel", "progress", "name", "user_data"):
                    continue  # nothing to refuse
                with self.subTest(state=state, method=method):
                    walk = g.pull_walker()
                    try:
                        if state != "not started":
                            walk.start()
                        if state == "closed":
                            walk.close()
                        with self.assertRaises(libdag.DagError) as cm:
                            call(walk)
                    finally:
                        walk.close()
                    self.assertTrue(cm.exception.message.startswith(f"PullWalker.{method}: "), cm.exception.message)
        # A callback walk's keep their own class.
        with g.walker(lambda vertex: None) as walker:
            with self.assertRaises(libdag.StateError) as cm:
                walker.complete(b)
        self.assertTrue(cm.exception.message.startswith("Walker.complete: "), cm.exception.message)

    def test_a_hosts_refused_completion_names_the_method_called(self):
        # fn completes its own vertex: the host's completion, refused, was headed Walker.complete.
        g = libdag.Graph.from_dict({"a": []})

        def run_on():
            with g.pull_walker() as walk:
                with self.assertRaises(libdag.StateError) as cm:
                    walk.run_on(Inline(), walk.complete)
            return cm.exception.message

        def run_async():
            refused = []

            async def main():
                asyncio.get_running_loop().set_exception_handler(
                    lambda loop, context: refused.append(context["exception"].message))
                with g.pull_walker() as walk:
                    async def fn(vertex):
                        walk.complete(vertex)

                    await walk.run_async(fn)

            asyncio.run(main())
            return refused[0]

        for who, call in (("PullWalker.run_on", run_on), ("PullWalker.run_async", run_async)):
            with self.subTest(who):
                self.assertEqual(call(), f"{who}: vertex {g.find('a')} has already finished")

    def test_not_a_coroutine_fails_its_vertex(self):
        g = libdag.Graph.from_dict({"b": ["a"]})
        report = asyncio.run(g.walk_async(lambda vertex: None))
        self.assertEqual(statuses(g, report), {"a": VertexStatus.FAILED, "b": VertexStatus.UPSTREAM_FAILED})
        self.assertIsInstance(report[g.find("a")].exception, TypeError)

    def test_dependencies_first_and_parallelism(self):
        g = deployment()
        running = 0
        most = 0
        finished = []

        async def deploy(vertex):
            nonlocal running, most
            for dependency in g.dependencies(vertex):
                self.assertIn(dependency, finished)
            running += 1
            most = max(most, running)
            await asyncio.sleep(0.01)
            running -= 1
            finished.append(vertex)

        self.assertTrue(asyncio.run(g.walk_async(deploy, parallelism=2)).ok)
        self.assertEqual(most, 2)  # net and dns at once, never three
        self.assertEqual(len(finished), 5)

    def test_cancelling_the_walking_task_before_a_started_task_first_ran(self):
        # The walking task is cancelled as b's task is made (by fn, which
        # makes b's coroutine): cancelled before it first ran, its vertex was
        # never completed and the cancelled walk waited for it for ever.
        g = libdag.Graph()
        chain = g.add_vertices(["a", "b", "c"])
        g.connect_many(zip(chain[1:], chain))

        async def main():
            walking = asyncio.current_task()

            async def body():
                pass

            def work(vertex):
                if vertex == chain[1]:
                    walking.cancel()
                return body()

            try:
                await g.walk_async(work)
            except asyncio.CancelledError as cancelled:
                return cancelled.walk_report
            self.fail("the walk was not cancelled")

        async def bounded():
            return await asyncio.wait_for(main(), 20)

        # b's coroutine, never awaited, is closed: else a RuntimeWarning when
        # it is collected, which only a record of warnings sees (an "error"
        # filter's exception in a finalizer goes unraisable).
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            report = asyncio.run(bounded())
            gc.collect()
        self.assertEqual([str(w.message) for w in caught if "never awaited" in str(w.message)], [])
        self.assertTrue(report.cancelled)
        self.assertEqual(report[chain[0]].status, VertexStatus.OK)
        # Its task never ran: cancelled by the walk's cancel, not failed.
        self.assertEqual(report[chain[1]].status, VertexStatus.CANCELLED)
        self.assertIsInstance(report[chain[1]].exception, asyncio.CancelledError)
        self.assertEqual(report[chain[2]].status, VertexStatus.CANCELLED)

    def test_no_task_is_made_once_the_walking_task_is_cancelled(self):
        # a's task cancels the walking task; the pass its end runs made b's
        # task all the same, a step before run() saw the cancel (and a walk
        # made so counted no more Ctrl-Cs: its task's was a failure).
        g = libdag.Graph()
        chain = g.add_vertices(["a", "b", "c"])
        g.connect_many(zip(chain[1:], chain))
        made = []

        async def main():
            walking = asyncio.current_task()

            async def work(vertex):
                made.append(vertex)
                if vertex == chain[0]:
                    walking.cancel()

            try:
                await g.walk_async(work)
            except asyncio.CancelledError as cancelled:
                return cancelled.walk_report
            self.fail("the walk was not cancelled")

        report = asyncio.run(asyncio.wait_for(main(), 20))
        self.assertEqual(made, [chain[0]])
        self.assertTrue(report.cancelled)
        self.assertEqual(report[chain[0]].status, VertexStatus.OK)
        for vertex in chain[1:]:
            self.assertEqual((report[vertex].status, report[vertex].ran, report[vertex].exception),
                             (VertexStatus.CANCELLED, False, None))

    def test_cancelling_the_walking_task(self):
        g = libdag.Graph()
        chain = g.add_vertices([f"v{i}" for i in range(5)])
        g.connect_many(zip(chain[1:], chain))

        async def main():
            second_started = asyncio.Event()

            async def work(vertex):
                if vertex == chain[1]:
                    second_started.set()
                    await asyncio.sleep(30)

            async def walk():
                # The report comes with the CancelledError raised here (one
                # re-raised by the awaiting task is a new one before 3.9).
                try:
                    await g.walk_async(work)
                except asyncio.CancelledError as cancelled:
                    return cancelled.walk_report
                self.fail("the walk was not cancelled")

            walking = asyncio.ensure_future(walk())
            await second_started.wait()
            walking.cancel()
            return await walking

        report = asyncio.run(asyncio.wait_for(main(), 20))
        self.assertTrue(report.cancelled)
        self.assertEqual(report[chain[0]].status, VertexStatus.OK)
        # Its task was stopped by the walk's cancel: it ends cancelled, as
        # does what depends on it, the task's CancelledError kept.
        self.assertEqual(report[chain[1]].status, VertexStatus.CANCELLED)
        self.assertIsInstance(report[chain[1]].exception, asyncio.CancelledError)
        self.assertEqual(report.ids(VertexStatus.CANCELLED), chain[1:])
        self.assertFalse(any(report[v].ran for v in chain[2:]))
        g.add_vertex("the graph is free again")

    def test_cancelled_twice_the_walk_still_waits_for_its_tasks(self):
        # The second cancel came while the tasks were cancelled and awaited: walk_async raised at once,
        # without a report, its tasks still running after it.
        g = libdag.Graph.from_dict({"a": [], "b": []})
        running, cleaning = set(), set()
        stops = []

        async def work(vertex):
            running.add(vertex)
            try:
                await asyncio.sleep(30)
            finally:
                cleaning.add(vertex)
                await release.wait()  # a slow clean-up, until the second cancel has come
                running.discard(vertex)

        async def walk():
            # The report comes with the CancelledError walk_async raises:
            # from Python 3.11 on the task re-raises that one to whoever
            # awaits it; before, a new one (3.9 and 3.10 chain ours as its
            # __context__, 3.8 drops it).
            try:
                await g.walk_async(work)
            except asyncio.CancelledError as cancelled:
                stops.append(cancelled)
                raise
            self.fail("the walk was not cancelled")

        async def main():
            walking = asyncio.ensure_future(walk())
            while len(running) < 2:
                await asyncio.sleep(0.01)
            walking.cancel()
            while len(cleaning) < 2:  # the walk has cancelled its tasks, which clean up
                await asyncio.sleep(0.01)
            walking.cancel()
            # The second cancel reaches walk_async at the loop's next step.
            for _ in range(20):
                await asyncio.sleep(0)
            self.assertFalse(walking.done(), "walk_async returned before its tasks")
            release.set()
            with self.assertRaises(asyncio.CancelledError) as raised:
                await walking
            return raised.exception, set(running)

        async def bounded():
            nonlocal release
            release = asyncio.Event()  # made on the loop: 3.8 and 3.9 bind an Event to the loop it is made on
            return await asyncio.wait_for(main(), 20)

        release = None
        awaited, still_running = asyncio.run(bounded())
        self.assertEqual(still_running, set())
        stop, = stops
        self.assertTrue(stop.walk_report.cancelled)
        if sys.version_info >= (3, 11):
            self.assertIs(awaited, stop)
        g.add_vertex("the graph is free again")

    def test_a_waker_that_raises_does_not_stall_the_walk(self):
        g = libdag.Graph.from_dict({"b": ["a"]})
        errors = []

        async def main():
            asyncio.get_running_loop().set_exception_handler(lambda _, context: errors.append(context["exception"]))
            with g.pull_walker() as walk:
                walk.wake_on_change(lambda: 1 / 0)  # a progress hook's bug
                return await walk.run_async(asyncio.sleep)

        report = asyncio.run(asyncio.wait_for(main(), 20))
        self.assertTrue(report.ok)
        self.assertEqual([type(e) for e in errors], [ZeroDivisionError])

    def test_fn_may_return_any_awaitable(self):
        g = libdag.Graph.from_dict({"b": ["a"]})
        ran = []

        async def main():
            loop = asyncio.get_running_loop()
            return await g.walk_async(lambda vertex: loop.run_in_executor(None, ran.append, vertex))

        report = asyncio.run(asyncio.wait_for(main(), 20))
        self.assertTrue(report.ok, report.message)
        self.assertEqual(ran, [g.find("a"), g.find("b")])

    def test_each_vertex_its_own_task_and_context(self):
        # Each task starts the next vertices as it ends: they must not see its task or its context variables.
        g = libdag.Graph()
        chain = g.add_vertices([f"v{i}" for i in range(300)])
        g.connect_many(zip(chain[1:], chain))
        seen = contextvars.ContextVar("seen", default=None)
        tasks = set()
        leaked = []

        async def step(vertex):
            tasks.add(asyncio.current_task())
            if seen.get() is not None:
                leaked.append(vertex)
            seen.set(vertex)

        async def main():
            walking = asyncio.current_task()
            report = await g.walk_async(step)
            return report, walking

        report, walking = asyncio.run(main())
        self.assertTrue(report.ok)
        self.assertEqual(leaked, [])
        self.assertEqual(len(tasks), len(chain))
        self.assertNotIn(walking, tasks)

    def test_async_for_completed_from_another_thread(self):
        g = deployment()

        async def main():
            order = []
            with g.pull_walker(parallelism=4) as walk:
                walk.start()
                async for vertex in walk:
                    order.append(vertex)
                    threading.Thread(target=walk.complete, args=(vertex,)).start()
                return order, walk.wait()

        order, report = asyncio.run(asyncio.wait_for(main(), 20))
        self.assertTrue(report.ok)
        self.assertEqual(sorted(order), sorted(g))
        self.assertLess(order.index(g.find("net")), order.index(g.find("db")))


if __name__ == "__main__":
    unittest.main()
