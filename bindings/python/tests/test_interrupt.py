"""Ctrl-C delivered to a process in the middle of a walk."""

import json
import os
import signal
import subprocess
import sys
import time
import unittest

# Runs a walk of 40 slow callbacks, 4 at a time; says "started" once the
# first callback runs, then, on KeyboardInterrupt, prints what the report
# says about every vertex.
CHILD = r"""
import json, sys, threading, time
import libdag

g = libdag.Graph()
for i in range(40):
    g.add_vertex(f"v{i}")
first = threading.Event()

def slow(vertex):
    if not first.is_set():
        first.set()
        print("started", flush=True)
    time.sleep(0.2)

try:
    g.walk(slow, parallelism=4)
    print(json.dumps({"interrupted": False}), flush=True)
except KeyboardInterrupt as interrupt:
    report = interrupt.walk_report
    print(json.dumps({
        "interrupted": True,
        "cancelled": report.cancelled,
        "vertices": len(report),
        "statuses": {r.status.name: sum(1 for x in report if x.status == r.status) for r in report},
        "ran_ok": all(r.ok for r in report if r.ran),
    }), flush=True)
"""


class CtrlCTest(unittest.TestCase):
    def test_sigint_mid_walk_raises_within_a_second_with_every_vertex_reported(self):
        child = subprocess.Popen([sys.executable, "-c", CHILD], stdout=subprocess.PIPE, text=True,
                                 env=dict(os.environ))
        try:
            self.assertEqual(child.stdout.readline(), "started\n")
            sent = time.monotonic()
            child.send_signal(signal.SIGINT)
            line = child.stdout.readline()
            elapsed = time.monotonic() - sent
            self.assertEqual(child.wait(30), 0)
        finally:
            if child.poll() is None:
                child.kill()
                child.wait()
            child.stdout.close()
        result = json.loads(line)
        self.assertTrue(result["interrupted"])
        self.assertLess(elapsed, 1.0)
        self.assertTrue(result["cancelled"])
        self.assertEqual(result["vertices"], 40)
        statuses = result["statuses"]
        self.assertEqual(set(statuses), {"OK", "CANCELLED"})
        self.assertEqual(statuses["OK"] + statuses["CANCELLED"], 40)
        self.assertGreaterEqual(statuses["CANCELLED"], 40 - 8)  # at most two rounds of 4 ran
        self.assertTrue(result["ran_ok"])


if __name__ == "__main__":
    unittest.main()
