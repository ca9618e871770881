"""Ctrl-C delivered to a process in the middle of a walk."""

import asyncio
import contextlib
import ctypes
import dis
import faulthandler
import gc
import json
import os
import signal
import subprocess
import sys
import threading
import time
import unittest
import weakref

import libdag
from support import walk_async_stopped_by_ctrl_c

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


@contextlib.contextmanager
def child_process(script, kind, watchdog_seconds):
    """`python3 -c script kind`, its output read as text. A child that hangs is
    killed after `watchdog_seconds`, so its reads end and the test fails
    instead of waiting forever; one left running is killed on the way out."""
    child = subprocess.Popen([sys.executable, "-c", script, kind], stdout=subprocess.PIPE, text=True,
                             env=dict(os.environ))
    watchdog = threading.Timer(watchdog_seconds, child.kill)
    watchdog.start()
    try:
        yield child
    finally:
        watchdog.cancel()
        if child.poll() is None:
            child.kill()
            child.wait()
        child.stdout.close()


class CtrlCTest(unittest.TestCase):
    def interrupt(self, kind):
        with child_process(CHILD, kind, 60) as child:
            self.assertEqual(child.stdout.readline(), "started\n")
            sent = time.monotonic()
            child.send_signal(signal.SIGINT)
            line = child.stdout.readline()
            self.assertEqual(child.stdout.readline(), "KeyboardInterrupt\n")
            elapsed = time.monotonic() - sent
            self.assertEqual(child.wait(30), 0)
        result = json.loads(line)
        # What shows the walk stopped early is the count of cancelled vertices below; the time
        # only catches an interrupt left waiting (the whole walk takes 2 s, a loaded CI more).
        self.assertLess(elapsed, 10.0)
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
        # not submitted yet, never ran: cancelled, not failed.
        self.assertEqual(set(self.interrupt("executor")), {"OK", "CANCELLED"})

    def test_asyncio_walk(self):
        # asyncio.run cancels the walking task: its running tasks end
        # cancelled, as does the rest of the walk (a task may fail with the
        # KeyboardInterrupt before Python 3.11, see CHILD).
        statuses = self.interrupt("asyncio")
        self.assertIn("CANCELLED", statuses)
        self.assertEqual(set(statuses) - {"OK", "FAILED"}, {"CANCELLED"})


# A walk whose one callback blocks for 30 s, waited for by Graph.walk() or in
# a walker's with block. Says "started" once the callback runs, "waiting"
# once wait() waits, and "cancelled" once the first Ctrl-C has cancelled the
# walk; on KeyboardInterrupt, says what came with it.
TWICE_CHILD = r"""
import json, sys, time
import libdag

g = libdag.Graph()
g.add_vertex("a")

def block(vertex):
    print("started\n", end="", flush=True)  # in one write: the main thread writes too
    time.sleep(30)

def saying_once(fn, line, after):
    said = []

    def say():
        if not said:
            said.append(True)
            print(line + "\n", end="", flush=True)

    def call(*args):
        if not after:
            say()
        result = fn(*args)
        if after:
            say()
        return result

    return call

# From inside wait()'s try: a Ctrl-C before it would not be wait()'s.
libdag.walk._wait_in_slices = saying_once(libdag.walk._wait_in_slices, "waiting", after=False)
libdag.walk._cancel_quietly = saying_once(libdag.walk._cancel_quietly, "cancelled", after=True)

try:
    if sys.argv[1] == "walk":
        g.walk(block)
    else:
        with g.walker(block) as walker:
            walker.start()
            walker.wait()
    print("not interrupted", flush=True)
except KeyboardInterrupt as interrupt:
    print(json.dumps({"walk_report": getattr(interrupt, "walk_report", "missing")}), flush=True)
"""


class SecondCtrlCTest(unittest.TestCase):
    """The second Ctrl-C stops waiting for the running callbacks: also the close that follows."""

    def twice(self, kind):
        with child_process(TWICE_CHILD, kind, 90) as child:
            self.assertEqual({child.stdout.readline(), child.stdout.readline()}, {"started\n", "waiting\n"})
            child.send_signal(signal.SIGINT)
            # Only once the first has been seen: two pending signals are one.
            self.assertEqual(child.stdout.readline(), "cancelled\n")
            sent = time.monotonic()
            child.send_signal(signal.SIGINT)
            line = child.stdout.readline()
            elapsed = time.monotonic() - sent
            self.assertEqual(child.wait(60), 0)
        # The callback still blocks for most of its 30 s.
        self.assertLess(elapsed, 15.0, "the close waited for the running callback again")
        # The walk has not ended: no report, and it says so.
        self.assertEqual(json.loads(line), {"walk_report": None})

    def test_graph_walk(self):
        self.twice("walk")

    def test_a_walkers_with_block(self):
        self.twice("walker")


class CtrlCWhileClosingTest(unittest.TestCase):
    def test_ctrl_c_while_close_waits_for_a_callback_is_raised_at_once(self):
        # close() waited in dag_walk_free for the callback to return, which
        # nothing interrupts: the Ctrl-C came out once it had.
        import _thread

        g = libdag.Graph.from_dict({"a": []})
        running, release, returned = threading.Event(), threading.Event(), threading.Event()

        def callback(vertex):
            running.set()
            release.wait(60)
            returned.set()

        walker = g.walker(callback)
        walker.start()
        self.assertTrue(running.wait(30))
        timer = threading.Timer(0.2, _thread.interrupt_main)
        timer.start()
        try:
            with self.assertRaises(KeyboardInterrupt):
                walker.close()
            self.assertFalse(returned.is_set(), "close() waited for the callback")
        finally:
            release.set()
            timer.join()
        self.assertTrue(walker.closed)
        # Freed in the background once the callback returned: the graph is free again.
        deadline = time.monotonic() + 30
        while True:
            try:
                g.add_vertex("b")
                break
            except libdag.BusyError:
                self.assertLess(time.monotonic(), deadline, "the walk was never freed")
                time.sleep(0.01)


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

    def blocking(self, run):
        # A visitor that waits (on I/O, a subprocess) is interrupted inside
        # its wait, as a plain Python loop would be.
        g = libdag.Graph()
        ids = g.add_vertices([None] * 3)
        g.connect_many(zip(ids[:-1], ids[1:]))
        interrupted_while_blocked(self, lambda wait: run(g, ids[0], wait), "the visitor")

    def test_traverse_with_a_visitor_that_blocks(self):
        self.blocking(lambda g, start, wait: g.traverse(start, wait))

    def test_search_with_a_callback_that_blocks(self):
        self.blocking(lambda g, start, wait: g.search(start, wait))

    def in_a_task(self, run):
        # While walk_async runs on the main thread it wraps Python's own
        # handler to count Ctrl-Cs. The traversal took the wrapper for a
        # handler of the program's own and left Ctrl-C to it: ctypes
        # swallowed it at a callback's first line, the traversal went on
        # without that vertex, and the walk ended ok.
        chain = libdag.Graph()
        ids = chain.add_vertices([None] * 300000)
        chain.connect_many(zip(ids[:-1], ids[1:]))
        g = libdag.Graph.from_dict({"traverses": [], "slow": [], "after": ["traverses", "slow"]})

        def busy(*_):
            sum(range(200))  # most signals land between two callbacks, as in check()

        async def fn(vertex):
            if g.name(vertex) == "traverses":
                timer = threading.Timer(0.2, os.kill, (os.getpid(), signal.SIGINT))
                timer.start()
                try:
                    run(chain, ids[0], busy)
                finally:
                    timer.cancel()
            elif g.name(vertex) == "slow":
                await asyncio.sleep(10)  # the walk's end, where the Ctrl-C is lost

        report = walk_async_stopped_by_ctrl_c(self, g, fn)
        # As for a Ctrl-C in any task's code: the walk is cancelled, the task's vertex failed with it.
        self.assertTrue(report.cancelled)
        self.assertEqual(report[g.find("traverses")].status, libdag.VertexStatus.FAILED)
        self.assertIsInstance(report[g.find("traverses")].exception, KeyboardInterrupt)
        self.assertEqual(report[g.find("slow")].status, libdag.VertexStatus.CANCELLED)

    def test_traverse_in_a_task_of_an_asyncio_walk(self):
        self.in_a_task(lambda g, start, busy: g.traverse(start, busy))

    def test_search_in_a_task_of_an_asyncio_walk(self):
        self.in_a_task(lambda g, start, busy: g.search(start, busy))


class CtrlCInBuildTest(unittest.TestCase):
    """Ctrl-C while a build calls Python back: raised, never swallowed by ctypes."""

    def check(self, add, vertices, calls_in_full):
        """`add(builder, tick)` adds what calls `tick` (calls_in_full times in a whole build) and
        returns build()'s keyword arguments."""
        g = libdag.Graph()
        g.add_vertices([None] * vertices)
        calls = [0]
        begun, sent = threading.Event(), threading.Event()

        def tick(*_):
            calls[0] += 1
            if calls[0] == 100:
                begun.set()
            sum(range(200))  # a little Python work a call: most signals land between two callbacks

        def interrupt():
            if begun.wait(60):
                os.kill(os.getpid(), signal.SIGINT)
                sent.set()

        with libdag.Builder(g) as b:
            options = add(b, tick)
            # The build ends only once the signal has been sent: it lands during the build.
            b.add_step("until interrupted", lambda graph: sent.wait(60))
            thread = threading.Thread(target=interrupt)
            thread.start()
            try:
                with self.assertRaises(KeyboardInterrupt):
                    b.build(validate=False, **options)
            finally:
                thread.join()
        self.assertIs(signal.getsignal(signal.SIGINT), signal.default_int_handler)
        # No Python was called once the Ctrl-C was seen.
        self.assertLess(calls[0], calls_in_full)

    def test_prune_predicate(self):
        def add(b, tick):
            b.add_prune(tick)
            return {}

        self.check(add, 300000, 300000)

    def test_steps_and_observer(self):
        def add(b, tick):
            for i in range(5000):
                b.add_step(f"step {i}", tick)
            return {"observer": tick}

        self.check(add, 0, 2 * 5000)

    def test_a_step_that_blocks(self):
        g = libdag.Graph()

        def build(wait):
            with libdag.Builder(g) as b:
                b.add_step("blocks", lambda graph: wait())
                b.build(validate=False)

        interrupted_while_blocked(self, build, "the step")


def interrupted_while_blocked(test, run, who):
    """Runs `run(wait)`, which calls `wait` from libdag, and sends Ctrl-C once
    `wait` blocks: the KeyboardInterrupt must come out of `run`, raised
    inside `wait` (which never returns)."""
    running, release = threading.Event(), threading.Event()
    returned = []

    def wait(*_):
        running.set()
        # In slices: a signal that comes just before a blocking wait begins
        # leaves it blocked (in plain Python too).
        while not release.wait(0.05):
            pass
        returned.append(True)

    def interrupt():
        if running.wait(60):
            os.kill(os.getpid(), signal.SIGINT)

    thread = threading.Thread(target=interrupt)
    thread.start()
    # Lets a callback that the Ctrl-C did not interrupt go on, so that the
    # test fails instead of hanging.
    unblock = threading.Timer(10, release.set)
    unblock.start()
    try:
        with test.assertRaises(KeyboardInterrupt):
            run(wait)
    finally:
        unblock.cancel()
        release.set()
        thread.join()
    test.assertEqual(returned, [], who + " was not interrupted")
    test.assertIs(signal.getsignal(signal.SIGINT), signal.default_int_handler)


# libdag's Python code and the standard library's it calls on the way
# (threading's Event, Thread and Condition, WeakSet).
_TRACED = (os.path.dirname(libdag.__file__), threading.__file__, weakref.__file__,
           os.path.join(os.path.dirname(threading.__file__), "_weakrefset.py"))
_EXTENDED_ARG = dis.opmap["EXTENDED_ARG"]


def _opcodes(*names):
    return {dis.opmap[name] for name in names if name in dis.opmap}


# Where CPython checks for a pending signal differs with the version; the
# rules before 3.11 match every check that a C probe (a pending call that
# logged where it ran) recorded in these tests' runs on 3.8, 3.9 and 3.10.
if sys.version_info >= (3, 11):
    # On entering a function, after a call, on a loop's jump back.
    _CALLS = {code for code, name in enumerate(dis.opname) if name.startswith("CALL")}
    _JUMP_BACK = {code for code, name in enumerate(dis.opname) if name.startswith("JUMP_BACKWARD")}
else:
    # At the top of the interpreter's loop, before an instruction, unless
    # that instruction is one of these.
    _NOT_BEFORE = _opcodes("SETUP_FINALLY", "SETUP_WITH", "BEFORE_ASYNC_WITH", "YIELD_FROM")
    if sys.version_info >= (3, 10):
        # 3.10 goes back to the top as it enters (or resumes) a frame,
        # catches an exception, after a call, after JUMP_ABSOLUTE and after
        # a conditional jump it took, but for JUMP_IF_*_OR_POP.
        _CHECK_AFTER = _opcodes("CALL_FUNCTION", "CALL_FUNCTION_KW", "CALL_FUNCTION_EX", "CALL_METHOD",
                                "JUMP_ABSOLUTE")
        _CHECK_IF_TAKEN = _opcodes("POP_JUMP_IF_FALSE", "POP_JUMP_IF_TRUE")
    else:
        # 3.8 and 3.9 go back to the top after every instruction but these
        # (FAST_DISPATCH): loads and stores of locals and constants, stack
        # moves, a bare `is` or `in`, a jump forward...
        _NO_CHECK_AFTER = _opcodes("NOP", "LOAD_FAST", "LOAD_CONST", "STORE_FAST", "POP_TOP", "ROT_TWO",
                                   "ROT_THREE", "ROT_FOUR", "DUP_TOP", "DUP_TOP_TWO", "JUMP_FORWARD",
                                   "BEGIN_FINALLY", "CALL_FINALLY", "END_FINALLY", "END_ASYNC_FOR", "IS_OP",
                                   "CONTAINS_OP")
        # ...and these when the condition they test is True or False itself
        # (not another object, whose truth costs a call).
        _BOOL_JUMPS = _opcodes("POP_JUMP_IF_FALSE", "POP_JUMP_IF_TRUE", "JUMP_IF_FALSE_OR_POP",
                               "JUMP_IF_TRUE_OR_POP")
        # They also check right after a try or with block's end, before its
        # finally clause, its __exit__ or the return from inside it runs (a
        # Ctrl-C there skips them: bpo-29988). No Python code can close that
        # window, so the binding does not promise anything about a Ctrl-C
        # landing there (README, "A Ctrl-C as a call enters or leaves a graph
        # or a walker"), and this does not raise one there.
        _BLOCK_END = dis.opmap["POP_BLOCK"]
    # A StopIteration that these end on is no exception caught.
    _ENDS_ON_STOP = _opcodes("FOR_ITER", "YIELD_FROM")


class _InterruptAt:
    """Delivers a Ctrl-C, on this thread, at the n-th place in the traced Python code where CPython
    runs a SIGINT handler (Python's own raises KeyboardInterrupt); which places those are depends on
    the version (above).

    Counting from 0; `fired` says whether the n-th place came. Where a real
    signal lands is chance; this makes each place happen, one run each.
    """

    def __init__(self, n, traced=_TRACED):
        self.n = n
        self.traced = traced
        self.seen = 0
        self.fired = False
        # Per frame, by id, forgotten on return (holding the frame would hold
        # its locals: a walker the test waits to see freed). 3.11 on: the
        # offset of the call just made, if the last instruction was a call.
        # Before: whether CPython checks before the frame's next instruction
        # (True, False, or that instruction's offset if it does unless the
        # next instruction is that one: a jump not taken).
        self.after_call = {}
        self.check_next = {}

    def __enter__(self):
        sys.settrace(self._call)
        return self

    def __exit__(self, *exc):
        sys.settrace(None)
        return False

    def _place(self, frame):
        if self.seen == self.n:
            self.fired = True
            sys.settrace(None)
            # What CPython does there: it calls the SIGINT handler. Python's
            # own raises KeyboardInterrupt; one a traversal or a build swaps
            # in for its C call marks it instead (Python 3.8 and 3.9 check
            # before the finally clause that swaps Python's back has done so).
            handler = signal.getsignal(signal.SIGINT)
            if handler is signal.default_int_handler:
                raise KeyboardInterrupt(f"injected at place {self.n}")
            if callable(handler):
                handler(signal.SIGINT, frame)
            return
        self.seen += 1

    def _call(self, frame, _event, _arg):
        if self.fired or not frame.f_code.co_filename.startswith(self.traced):
            return None
        frame.f_trace_opcodes = True
        if sys.version_info >= (3, 11):
            self._place(frame)
        else:
            # Before the frame's first instruction (or the one it resumes
            # at), which may be one the check skips: raised from there, not
            # from here, where CPython would leave a generator without
            # running its finally blocks.
            self.check_next[id(frame)] = True
        return self._opcode

    def _opcode(self, frame, event, arg):
        if event == "return":
            self.after_call.pop(id(frame), None)
            self.check_next.pop(id(frame), None)
        if self.fired:
            return self._opcode
        if sys.version_info < (3, 11):
            if event == "exception":
                self._exception(frame, arg)
            elif event == "opcode":
                self._opcode_before_311(frame)
            return self._opcode
        if event != "opcode":
            return self._opcode
        code, offset = frame.f_code, frame.f_lasti
        op = code.co_code[offset]
        # CPython checks at the end of a call, inside the call's own
        # exception range; this raises before the next instruction, so only
        # where that one has the same handler (a `return f()` inside a
        # `with` leaves the range between the two).
        call = self.after_call.get(id(frame))
        place = op in _JUMP_BACK or (call is not None and _handler(code, call) == _handler(code, offset))
        self.after_call[id(frame)] = offset if op in _CALLS else None
        if place:
            self._place(frame)
        return self._opcode

    def _exception(self, frame, arg):
        code = frame.f_code
        op, _ = _instruction(code, frame.f_lasti)
        if not (op in _ENDS_ON_STOP and issubclass(arg[0], StopIteration)):
            # Caught here (else "return" follows): CPython jumps to the
            # handler through the top of its loop.
            self.check_next[id(frame)] = True

    def _opcode_before_311(self, frame):
        code, offset = frame.f_code, frame.f_lasti
        due = self.check_next.get(id(frame), False)
        place = (due is True or (due is not False and offset != due)) and code.co_code[offset] not in _NOT_BEFORE
        op, end = _instruction(code, offset)
        if sys.version_info >= (3, 10):
            if op in _CHECK_AFTER:
                due = True
            elif op in _CHECK_IF_TAKEN:
                due = end
            else:
                due = False
        elif op in _BOOL_JUMPS:
            due = not _condition_is_a_bool(frame)
        else:
            due = op not in _NO_CHECK_AFTER and op != _BLOCK_END
        self.check_next[id(frame)] = due
        if place:
            self._place(frame)


def _instruction(code, offset):
    """The opcode of the instruction at `offset` (past its EXTENDED_ARG prefixes) and the offset after it."""
    while code.co_code[offset] == _EXTENDED_ARG:
        offset += 2
    return code.co_code[offset], offset + 2


def _condition_is_a_bool(frame):
    """Whether the value on top of `frame`'s stack is True or False itself (Python 3.8 and 3.9).

    CPython sets the frame's f_stacktop while it calls the trace function;
    PyFrameObject has f_back, f_code, f_builtins, f_globals, f_locals,
    f_valuestack and f_stacktop in a row, after the object's header.
    """
    words = ctypes.cast(id(frame), ctypes.POINTER(ctypes.c_void_p))
    back = id(frame.f_back) if frame.f_back is not None else None
    for i in range(3, 8):
        if words[i - 1] == back and words[i] == id(frame.f_code):
            bottom, top = words[i + 4], words[i + 5]
            if bottom and top and top > bottom:
                top_value = ctypes.cast(top, ctypes.POINTER(ctypes.c_void_p))[-1]
                return top_value == id(True) or top_value == id(False)
    raise AssertionError("not the frame layout of CPython 3.8 or 3.9")


def _handler(code, offset):
    """The exception handler covering `offset` in `code` (None if none; Python 3.11 on)."""
    for entry in dis._parse_exception_table(code):
        if entry.start <= offset < entry.end:
            return entry.target
    return None


def _run_on_a_loop_of_its_own(main):
    """As asyncio.run(main()) on 3.8 to 3.10, where Ctrl-C raises KeyboardInterrupt wherever it lands:
    a loop run without asyncio.run keeps that on 3.11 on (whose asyncio.run cancels the main task)."""
    loop = asyncio.new_event_loop()
    asyncio.set_event_loop(loop)
    try:
        return loop.run_until_complete(main())
    finally:
        try:
            tasks = asyncio.all_tasks(loop)
            for task in tasks:
                task.cancel()
            loop.run_until_complete(asyncio.gather(*tasks, return_exceptions=True))
            loop.run_until_complete(loop.shutdown_asyncgens())
        finally:
            asyncio.set_event_loop(None)
            loop.close()


def _polling_host(walker, held, done):
    while (batch := walker.next_ready(2, timeout=0)) != []:
        held.extend(batch or ())  # the host's once next_ready has returned it
        for vertex in batch or ():
            walker.complete(vertex)
            done.add(vertex)


class CtrlCAsTheAsyncDriverTakesTest(unittest.TestCase):
    def started_walker(self):
        """A pull walk of five vertices, two ready at first; a hang ends the test run."""
        faulthandler.dump_traceback_later(60, exit=True)
        self.addCleanup(faulthandler.cancel_dump_traceback_later)
        g = libdag.Graph.from_dict({"a": [], "b": [], "c": ["a"], "d": ["a", "b"], "e": []})
        walker = g.pull_walker(parallelism=2).start()
        self.addCleanup(g.close)
        self.addCleanup(walker.close)
        return walker

    def test_what_an_async_for_left_is_not_lost(self):
        # run_async's driver takes first what an async for left early; a Ctrl-C just after it took
        # them lost them, and the walk (and asyncio.run's cleanup, waiting for it) waited for ever.
        # Raised by hand here: where CPython raises it, the place is asyncio's own as much as ours.
        walker = self.started_walker()

        async def first_only():
            async for vertex in walker:
                walker.complete(vertex)
                return vertex

        first = asyncio.run(first_only())
        stranded = list(walker._undelivered)
        self.assertTrue(stranded, "the async for left a vertex on the walker")
        take = walker._take_undelivered

        def interrupted(limit, taken=None):
            taken = take(limit, taken)
            walker._take_undelivered = take
            raise KeyboardInterrupt("as the driver took them")

        walker._take_undelivered = interrupted

        async def work(vertex):
            pass

        with self.assertRaises(KeyboardInterrupt):
            asyncio.run(walker.run_async(work))
        report = walker.wait()
        self.assertEqual(report[first].status, libdag.VertexStatus.OK)
        for vertex in stranded:
            self.assertIn(report[vertex].status, (libdag.VertexStatus.OK, libdag.VertexStatus.CANCELLED))
        self.assertEqual(len(list(report)), 5)

    def test_what_its_look_handed_out_is_not_lost(self):
        # A Ctrl-C as the driver's look returned (Python 3.8 to 3.10 raise it there; 3.11's
        # asyncio.run cancels the walking task instead) lost what the look handed out: no task had
        # them, no stop completed them, and asyncio.run's cleanup waited for ever for the walk.
        walker = self.started_walker()
        look = libdag._pull_calls.PullCalls.look
        handed = []

        def interrupted(calls, ptr):
            batch = look(calls, ptr)
            if batch:
                libdag._pull_calls.PullCalls.look = look
                handed.extend(batch)
                raise KeyboardInterrupt("as the driver's look returned")
            return batch

        libdag._pull_calls.PullCalls.look = interrupted
        self.addCleanup(setattr, libdag._pull_calls.PullCalls, "look", look)
        ran = []

        async def work(vertex):
            ran.append(vertex)

        with self.assertRaises(KeyboardInterrupt):
            asyncio.run(walker.run_async(work))
        self.assertTrue(handed)
        self.assertEqual(ran, [])
        report = walker.wait()
        for vertex in handed:
            self.assertEqual((report[vertex].status, report[vertex].ran), (libdag.VertexStatus.CANCELLED, False))
        self.assertEqual(len(list(report)), 5)


    def test_an_abandoned_run_leaves_no_vertex_out(self):
        # run() closed (GeneratorExit: a Ctrl-C in a frame above it as its task resumed) after its
        # pass had made tasks that had not begun: cancelled, they never completed their vertices,
        # and the walk waited for ever.
        walker = self.started_walker()
        ran = []

        async def work(vertex):
            ran.append(vertex)

        async def main():
            run = walker.run_async(work)
            run.send(None)  # run() awaits the walk's end; its first pass is due
            await asyncio.sleep(0)  # the pass: a task for each ready vertex, none begun
            self.assertEqual(ran, [])
            run.close()

        asyncio.run(main())
        report = walker.wait()
        self.assertEqual(ran, [])
        self.assertEqual({result.status for result in report}, {libdag.VertexStatus.CANCELLED})
        self.assertFalse(any(result.ran for result in report))

    def test_a_task_made_as_the_ctrl_c_came_is_the_walks(self):
        # A Ctrl-C just after a vertex's task was made (3.11 on check after the C call that made
        # it): the driver never recorded the task, completed the vertex failed, and did not cancel
        # or await the task, which ran fn once run() had returned.
        walker = self.started_walker()
        ran = []

        async def work(vertex):
            ran.append(vertex)

        loop = asyncio.new_event_loop()
        self.addCleanup(loop.close)
        make = loop.create_task
        made = []

        def create_task(coroutine, **kwargs):
            task = make(coroutine, **kwargs)
            made.append(task)
            if len(made) == 2:
                libdag._sigint._on_sigint(signal.SIGINT, None)  # a Ctrl-C landing here
            return task

        loop.create_task = create_task
        walking = loop.create_task(walker.run_async(work))
        with self.assertRaises(KeyboardInterrupt):
            loop.run_until_complete(walking)
        # What a host catching the Ctrl-C does: cancel the walk's task and let it end.
        walking.cancel()
        with self.assertRaises(asyncio.CancelledError):
            loop.run_until_complete(walking)
        self.assertEqual([task for task in made[1:] if not task.done()], [], "a task outlived the walk")
        report = walker.wait()
        for result in report:
            self.assertEqual(result.ran, result.id in ran, result)


class CtrlCInTheGateTest(unittest.TestCase):
    """Ctrl-C at every place it can land in a call's bookkeeping (the gates of Graph and Walker):
    nothing stays counted, so the graph can still be changed, walked and closed from any thread."""

    def every_place(self, run, check, raised=(KeyboardInterrupt,), traced=_TRACED, wrapper_may_stay=False):
        # A call left counted can make the next change wait for ever: end
        # the test run then, with every thread's stack, rather than hang.
        faulthandler.dump_traceback_later(120, exit=True)
        try:
            return self._every_place(run, check, raised, traced, wrapper_may_stay)
        finally:
            faulthandler.cancel_dump_traceback_later()

    def _every_place(self, run, check, raised, traced, wrapper_may_stay):
        n = 0
        while True:
            # The collector stays out of the traced call: a finaliser run
            # there (the last run's garbage) would take the place.
            gc.collect()
            gc.disable()
            try:
                with _InterruptAt(n, traced) as interrupt:
                    try:
                        run()
                    except raised:
                        pass
            finally:
                gc.enable()
            check(n)
            handler = signal.getsignal(signal.SIGINT)
            if wrapper_may_stay and sys.version_info < (3, 10) and handler is libdag._sigint._on_sigint:
                # An asyncio walk's wrapper, left by a Ctrl-C as run()'s finally clause began (3.8
                # and 3.9 check there): no walk left may still rely on it, and the next Ctrl-C, or
                # the next walk, takes them and it away.
                walks = libdag._sigint._CtrlC.walks
                self.assertFalse([walk for walk in walks if walk.relies_on_wrapper()], f"place {n}")
                libdag._sigint._forget_ended_walks()
                self.assertFalse(walks, f"place {n}: an ended walk was kept")
                signal.signal(signal.SIGINT, signal.default_int_handler)
            else:
                self.assertIs(handler, signal.default_int_handler,
                              f"place {n}: Python's own SIGINT handler was not put back")
            if not interrupt.fired:
                return n
            n += 1

    def usable(self, g):
        def check(n):
            # From this thread: a read left counted makes a change "called
            # from inside a read"; from another, a change would wait for it.
            v = g.add_vertex()
            g.remove_vertex(v)
            changed = []
            other = threading.Thread(target=lambda: changed.append(g.add_vertex()), daemon=True)
            other.start()
            other.join(10)
            self.assertEqual(len(changed), 1, f"place {n}: a change from another thread waited for ever")
            g.remove_vertex(changed[0])
            g.walk(lambda vertex: None)
        return check

    def test_a_read(self):
        g = libdag.Graph()
        g.add_vertex("a")
        places = self.every_place(lambda: g.find("a"), self.usable(g))
        self.assertGreater(places, 3)
        g.close()

    def test_a_change(self):
        g = libdag.Graph()
        a = g.add_vertex("a")
        b = g.add_vertex("b")

        def change():
            g.connect(a, b)
            g.disconnect(a, b)

        places = self.every_place(change, self.usable(g))
        self.assertGreater(places, 3)
        self.assertEqual(g.edge_count(), 0)
        g.close()

    def test_a_build_with_a_python_step(self):
        # The step runs with the build's change paused, then resumes it.
        g = libdag.Graph()
        g.add_vertex("a")

        def run():
            with libdag.Builder(g) as b:
                b.add_transitive_reduction()
                b.add_step("read it", len)
                b.build(validate=False)

        # A Ctrl-C at the top of the step, called from C, is lost to ctypes
        # (printed, not raised): the build then fails as cancelled.
        places = self.every_place(run, self.usable(g), (KeyboardInterrupt, libdag.CancelledError))
        self.assertGreater(places, 3)
        g.close()

    def test_a_walk(self):
        g = libdag.Graph()
        g.add_vertices(["a", "b"])
        places = self.every_place(lambda: g.walk(lambda vertex: None), self.usable(g))
        self.assertGreater(places, 3)
        g.close()

    def test_closing_a_running_walk(self):
        # Ctrl-C as close() takes the walk from its walker: the walk must
        # still be cancelled and freed (else its callbacks, freed with the
        # walker, would be called: a crash), and the graph let go.
        g = libdag.Graph()
        g.add_vertices(["a", "b"])

        def run():
            with g.walker(lambda vertex: time.sleep(0.05)) as walker:
                walker.start()
            # The with statement closes it while the callbacks run.

        def check(n):
            deadline = time.monotonic() + 10
            while True:
                try:
                    g.add_vertex("x")
                    break
                except libdag.BusyError:
                    # A walk freed in the background ends a moment later. A
                    # Ctrl-C at the top of the with statement's __exit__
                    # (Python code) leaves the walker to its finaliser, as
                    # any object: it runs once the callbacks, which hold
                    # the walker, have returned and the collector runs.
                    self.assertLess(time.monotonic(), deadline, f"place {n}: the walk was never freed")
                    time.sleep(0.01)
                    gc.collect()
            g.remove_vertex(g.find("x"))

        places = self.every_place(run, check)
        self.assertGreater(places, 3)
        g.close()

    def a_pull_host(self, take, stranded=False, wrapper_may_stay=False, done_may_end=()):
        """Ctrl-C at each place while `take(walker, held, done)` takes and completes a pull walk's
        vertices: once the host has cancelled and completed what it holds, the walk ends, and what
        it completed is reported run and ok (or as one of `done_may_end`). `stranded`: an async for left early first (not
        interrupted), so that ready vertices it took wait on the walker for the next taker."""
        g = libdag.Graph.from_dict({"a": [], "b": [], "c": ["a"], "d": ["a", "b"], "e": []})
        host = {}

        async def first_only(walker, held, done):
            async for vertex in walker:
                held.append(vertex)
                walker.complete(vertex)
                done.add(vertex)
                break

        def prepare():
            host.update(walker=g.pull_walker(parallelism=2).start(), held=[], done=set())
            if stranded:
                asyncio.run(first_only(host["walker"], host["held"], host["done"]))
                self.assertTrue(host["walker"]._undelivered, "the async for left a vertex on the walker")

        def check(n):
            walker = host["walker"]
            try:
                walker.cancel()
            except libdag.StateError:
                pass  # it has ended
            for vertex in host["held"]:
                if vertex not in host["done"]:
                    try:
                        walker.complete(vertex, cancelled=True)
                    except libdag.DagError:
                        pass  # completed before the Ctrl-C
            reports = []
            waiting = threading.Thread(target=lambda: reports.append(walker.wait()), daemon=True)
            waiting.start()
            waiting.join(10)
            if waiting.is_alive():
                walker.close()
                self.fail(f"place {n}: the walk waited for ever for vertices no caller had")
            for vertex in host["done"]:
                result = reports[0][vertex]
                if (result.status, result.ran, type(result.exception)) not in done_may_end:
                    self.assertEqual((result.status, result.ran), (libdag.VertexStatus.OK, True), f"place {n}")
            walker.close()
            prepare()

        prepare()
        # libdag's code alone: asyncio's own (its WeakSet of tasks) is not what is tested.
        places = self.every_place(lambda: take(host["walker"], host["held"], host["done"]), check,
                                  traced=(os.path.dirname(libdag.__file__),), wrapper_may_stay=wrapper_may_stay)
        self.assertGreater(places, 30)
        host["walker"].close()
        g.close()

    def test_a_host_polling_a_pull_walk(self):
        self.a_pull_host(_polling_host)

    def test_a_host_polling_after_an_async_for_left_early(self):
        # next_ready hands out what the async for took first: one Ctrl-C as it does loses none.
        self.a_pull_host(_polling_host, stranded=True)

    def test_async_for_over_a_pull_walk(self):
        def take(walker, held, done):
            async def main():
                async for vertex in walker:
                    held.append(vertex)
                    walker.complete(vertex)
                    done.add(vertex)

            asyncio.run(main())

        self.a_pull_host(take)

    def test_run_async_over_a_pull_walk(self):
        # The driver's look, the start of each task, its completions, and its wrapping of the SIGINT
        # handler. Before 2026-12-06: a Ctrl-C as the look returned lost the vertices handed out
        # (the loop's cleanup waited for ever); one just after the wrapper went in, or as run()
        # noted it had, left it in place for good (3.11's asyncio.run then cancels no task for a
        # Ctrl-C); one as a task's cancel (3.11's asyncio.run, for a Ctrl-C) came between the
        # driver's look at whether the walk had ended and its ending it logged InvalidStateError.
        def take(walker, held, done):
            async def work(vertex):
                done.add(vertex)

            _run_on_a_loop_of_its_own(lambda: walker.run_async(work))

        # Python 3.8 and 3.9 also check for signals right as fn's coroutine returns to the task and
        # before the task's finally clause: a Ctrl-C there fails the vertex with it, or leaves the
        # task's end unrecorded (its vertex ends cancelled, as never run). Its work is done, then.
        interrupted = () if sys.version_info >= (3, 10) else (
            (libdag.VertexStatus.FAILED, True, KeyboardInterrupt),
            (libdag.VertexStatus.CANCELLED, False, asyncio.CancelledError))
        self.a_pull_host(take, wrapper_may_stay=True, done_may_end=interrupted)

    def test_walk_async(self):
        # As run_async, and the walker it makes and closes: the graph is let go whatever lands.
        g = libdag.Graph.from_dict({"a": [], "b": [], "c": ["a"], "d": ["a", "b"], "e": []})

        async def work(vertex):
            pass

        places = self.every_place(lambda: _run_on_a_loop_of_its_own(lambda: g.walk_async(work, parallelism=2)),
                                  self.usable(g), traced=(os.path.dirname(libdag.__file__),), wrapper_may_stay=True)
        self.assertGreater(places, 30)
        g.close()

    def test_a_read_of_a_walker(self):
        g = libdag.Graph()
        g.add_vertices(["a", "b"])
        walker = g.pull_walker().start()
        places = self.every_place(lambda: walker.next_ready(1, timeout=0), lambda n: None)
        self.assertGreater(places, 3)
        # A read left counted would make close() wait for ever.
        closer = threading.Thread(target=walker.close, daemon=True)
        closer.start()
        closer.join(10)
        self.assertFalse(closer.is_alive(), "close() waited for ever")
        self.usable(g)(places)
        g.close()


if __name__ == "__main__":
    unittest.main()
