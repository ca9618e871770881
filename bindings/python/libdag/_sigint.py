"""Python's own SIGINT handler as libdag's calls find it on the main thread: alone, or wrapped by an asyncio walk.

Two kinds of call replace it for a while: an asyncio walk wraps it to count
Ctrl-Cs, and a traversal, search or build swaps in a handler that marks the
C call (traversal._calling_back). One may run inside the other (a traversal
in a walk's task), so both know the wrapper here.
"""

import signal


class _CtrlC:
    """Tells a Ctrl-C from a KeyboardInterrupt (or SystemExit) that a task raises itself.

    walk() and walk_on() run the user's code on threads a Ctrl-C never
    reaches, so whatever it raises fails its vertex, and Ctrl-C comes to the
    waiting thread alone. A task runs on the loop's thread: on the main
    thread, with Python's own SIGINT handler (before Python 3.11, whose
    asyncio.run cancels the main task instead; a loop run without
    asyncio.run), Ctrl-C may land in a task's code, and must then stop the
    walk, not fail one vertex. Nothing in the exception tells them apart,
    so while walks run there the handler is wrapped to count the Ctrl-Cs it
    raised for. Only Python's own handler is wrapped, as in traversal.py:
    asyncio.run (3.11 on) restores Python's only if its own is still in
    place as its main task ends, and an interrupted walk still runs then.
    A traversal in a task calls the wrapper for each Ctrl-C it marks, so
    the one it raises once its C call has returned is counted too.
    """

    count = 0  # Ctrl-Cs raised while wrapped
    # The drivers of the walks on the main thread relying on the wrapper:
    # each added and removed by one C call, which a Ctrl-C cannot cut in two.
    walks = set()


def _forget_ended_walks():
    """Drops the walks that have ended and never left (3.8 and 3.9 check for signals as run()'s
    finally clause begins, before anything in it runs)."""
    for walk in list(_CtrlC.walks):
        if not walk.relies_on_wrapper():
            _CtrlC.walks.discard(walk)


def _on_sigint(signum, frame):
    _CtrlC.count += 1
    _forget_ended_walks()
    if not _CtrlC.walks and signal.getsignal(signal.SIGINT) is _on_sigint:
        # No walk relies on it: a Ctrl-C came as the last walk left, before
        # it took the wrapper away. It goes now.
        signal.signal(signal.SIGINT, signal.default_int_handler)
    signal.default_int_handler(signum, frame)


def _pythons_own(handler):
    """Whether `handler` is Python's own SIGINT handler, or an asyncio walk's wrapper around it."""
    return handler is signal.default_int_handler or handler is _on_sigint
