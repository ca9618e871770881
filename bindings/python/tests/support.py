"""Helpers shared by the tests."""

import asyncio
import signal
import subprocess
import sys

import libdag


def build(edges=(), vertices=()):
    """A graph with the named `vertices` and every name in `edges`, plus those edges.

    `edges` is an iterable of (source, target) names: source depends on
    target. Returns (graph, {name: id}); vertices are added in the order
    first named, `vertices` first.
    """
    graph = libdag.Graph()
    ids = {}
    for name in list(vertices) + [n for edge in edges for n in edge]:
        if name not in ids:
            ids[name] = graph.add_vertex(name)
    for source, target in edges:
        graph.connect(ids[source], ids[target])
    return graph, ids


def names(graph, ids):
    """The names of `ids`, in order."""
    return [graph.label(i) for i in ids]


def alive(pid):
    """Whether `pid` runs (a zombie waiting for its reaper does not)."""
    try:
        with open(f"/proc/{pid}/stat") as stat:
            return stat.read().rsplit(")", 1)[1].split()[0] != "Z"
    except FileNotFoundError:
        return False


def walk_async_stopped_by_ctrl_c(test, graph, fn):
    """Runs graph.walk_async(fn) on a loop of its own under Python's own SIGINT handler, as before
    Python 3.11 or in a loop run without asyncio.run; the walk must end in KeyboardInterrupt, and
    the walk's wrapper around the handler must be gone after it. Returns the walk's report.
    """
    reports = []

    async def main():
        try:
            return await graph.walk_async(fn)
        except BaseException as stop:  # noqa: B902 - the report comes with it
            reports.append(stop.walk_report)
            raise

    previous = signal.signal(signal.SIGINT, signal.default_int_handler)
    loop = asyncio.new_event_loop()
    try:
        walking = loop.create_task(main())
        with test.assertRaises(KeyboardInterrupt):
            loop.run_until_complete(walking)
        # What asyncio.run does on its way out.
        walking.cancel()
        loop.run_until_complete(asyncio.gather(walking, return_exceptions=True))
        test.assertIs(signal.getsignal(signal.SIGINT), signal.default_int_handler)
    finally:
        loop.close()
        signal.signal(signal.SIGINT, previous)
    report, = reports
    return report


def race_in_a_child(test, program, seconds=2):
    """Runs `program` (Python text defining `change()` and `read()`, each one step of a loop, with
    `libdag` imported) in a child Python, the two in threads for `seconds`: a crash (a read of memory
    a change freed) fails the test there, not this process. The child prints how many reads came
    back wrong, which `read()` says by returning False."""
    text = f"""
import faulthandler, threading, time
import libdag
faulthandler.enable()
{program}
stop = threading.Event()
wrong = []
def changing():
    while not stop.is_set():
        change()
def reading():
    while not stop.is_set():
        if read() is False:
            wrong.append(1)
threads = [threading.Thread(target=changing), threading.Thread(target=reading)]
for t in threads:
    t.start()
time.sleep({seconds})
stop.set()
for t in threads:
    t.join()
print("wrong reads:", len(wrong))
"""
    done = subprocess.run([sys.executable, "-c", text], capture_output=True, text=True, timeout=120)
    test.assertEqual((done.returncode, done.stdout), (0, "wrong reads: 0\n"), done.stderr[-2000:])
