"""Ctrl-C delivered to a process in the middle of a walk."""

import json
import os
import signal
import subprocess
import sys
import threading
import time
import unittest

import libdag

# Runs a walk of 40 slow vertices, 4 at a time, as a callback walk, on a
# thread pool of two (so that two submitted vertices wait in its queue) or on
# asyncio; says "started" once the fifth vertex runs, then, on
# KeyboardInterrupt, prints what the report says about every vertex.
CHILD = r"""
import asyncio, concurrent.futures, json, sys, threading, time
import libdag

g = libdag.Graph()
for i in range(40):
    g.add_vertex(f"v{i}")
starts = 0
starts_lock = threading.Lock()

# Said when the fifth vertex starts: with 4 at a time, one has finished ok by
# then, so every kind of walk has an ok vertex when the interrupt lands.
def started():
    global starts
    with starts_lock:
        starts += 1
        if starts == 5:
            print("started", flush=True)

def slow(vertex):
    started()
    time.sleep(0.2)

async def slow_async(vertex):
    started()
    await asyncio.sleep(0.2)

def show(report):
    print(json.dumps({
        "cancelled": report.cancelled,
        "vertices": len(report),
        "statuses": {s.name: report.count(s) for s in libdag.VertexStatus if report.count(s)},
        "ran_ok": all(r.ok for r in report if r.ran and r.exception is None),
        # Before 3.11 asyncio.run lets Ctrl-C raise KeyboardInterrupt in whatever task runs.
        "failed_cancelled": all(isinstance(r.exception, (asyncio.CancelledError, concurrent.futures.CancelledError,
                                                         KeyboardInterrupt))
                                for r in report if r.status == libdag.VertexStatus.FAILED),
    }), flush=True)

async def walk_async():
    # asyncio.run (3.11 on) turns Ctrl-C into cancelling this task, then
    # raises a KeyboardInterrupt of its own: the report comes with the
    # CancelledError. Before 3.11 the KeyboardInterrupt comes here itself.
    try:
        await g.walk_async(slow_async, parallelism=4)
    except (asyncio.CancelledError, KeyboardInterrupt) as stopped:
        show(stopped.walk_report)
        raise

try:
    if sys.argv[1] == "callback":
        g.walk(slow, parallelism=4)
    elif sys.argv[1] == "executor":
        with concurrent.futures.ThreadPoolExecutor(2) as pool:
            g.walk_on(pool, slow, parallelism=4)
    else:
        asyncio.run(walk_async())
    print("not interrupted", flush=True)
except KeyboardInterrupt as interrupt:
    if sys.argv[1] != "asyncio":
        show(interrupt.walk_report)
    print("KeyboardInterrupt", flush=True)
"""


class CtrlCTest(unittest.TestCase):
    def interrupt(self, kind):
        child = subprocess.Popen([sys.executable, "-c", CHILD, kind], stdout=subprocess.PIPE, text=True,
                                 env=dict(os.environ))
        # A child that hangs is killed, so its reads end and the test fails
        # instead of waiting forever.
        watchdog = threading.Timer(60, child.kill)
        watchdog.start()
        try:
            self.assertEqual(child.stdout.readline(), "started\n")
            sent = time.monotonic()
            child.send_signal(signal.SIGINT)
            line = child.stdout.readline()
            self.assertEqual(child.stdout.readline(), "KeyboardInterrupt\n")
            elapsed = time.monotonic() - sent
            self.assertEqual(child.wait(30), 0)
        finally:
            watchdog.cancel()
            if child.poll() is None:
                child.kill()
                child.wait()
            child.stdout.close()
        result = json.loads(line)
        self.assertLess(elapsed, 1.0)
        self.assertTrue(result["cancelled"])
        self.assertEqual(result["vertices"], 40)
        self.assertEqual(sum(result["statuses"].values()), 40)
        # The interrupt lands in the second round of 4 on an idle machine; a
        # busy one may start a few more rounds before the child sees it.
        self.assertGreaterEqual(result["statuses"]["CANCELLED"], 40 - 20)
        self.assertTrue(result["ran_ok"])
        self.assertTrue(result["failed_cancelled"])
        return result["statuses"]

    def test_callback_walk(self):
        self.assertEqual(set(self.interrupt("callback")), {"OK", "CANCELLED"})

    def test_executor_walk(self):
        # The vertices queued behind the pool's two threads, or taken and
        # not submitted yet, are cancelled before they ran: failed with
        # CancelledError (checked in interrupt()); never more than the
        # parallelism.
        statuses = self.interrupt("executor")
        self.assertLessEqual(statuses.get("FAILED", 0), 4)
        self.assertEqual(set(statuses) - {"FAILED"}, {"OK", "CANCELLED"})

    def test_asyncio_walk(self):
        # asyncio.run cancels the walking task: its running tasks fail with
        # CancelledError and the rest of the walk is cancelled.
        statuses = self.interrupt("asyncio")
        self.assertIn("CANCELLED", statuses)
        self.assertEqual(set(statuses) - {"OK", "FAILED"}, {"CANCELLED"})

if __name__ == "__main__":
    unittest.main()


class CtrlCInTraversalTest(unittest.TestCase):
    """Ctrl-C while a traversal or search calls Python back: raised, never swallowed by ctypes."""

    def check(self, run):
        g = libdag.Graph()
        ids = g.add_vertices([None] * 300000)
        g.connect_many(zip(ids[:-1], ids[1:]))

        def busy(*_):
            sum(range(200))  # a little Python work a vertex: most signals land between two callbacks

        timer = threading.Timer(0.2, os.kill, (os.getpid(), signal.SIGINT))
        timer.start()
        try:
            with self.assertRaises(KeyboardInterrupt):
                run(g, ids[0], busy)
        finally:
            timer.cancel()
        self.assertIs(signal.getsignal(signal.SIGINT), signal.default_int_handler)
        self.assertEqual(len(g.traverse(ids[0], busy)), 300000)  # and the next one runs whole

    def test_traverse(self):
        self.check(lambda g, start, busy: g.traverse(start, busy))

    def test_search(self):
        self.check(lambda g, start, busy: g.search(start, busy))

