"""What ``python3 -m libdag.dask`` runs on a worker for each vertex: its command, in a subprocess.

This module travels to the workers by value (cloudpickle), so they need not
have libdag installed; it imports nothing from the package.
"""

from __future__ import annotations

import os
import signal
import subprocess
import threading
import time

# How much of a failing command's standard error comes back in its vertex's message.
STDERR_TAIL = 2000
# How long one wait for the stop event lasts (a long poll on the scheduler): the watcher of a
# command that has ended notices within this.
_WATCH_S = 1.0


class CommandFailed(RuntimeError):
    """A vertex's command exited non-zero, was killed or was stopped; what run_command returns comes back with it.

    ``str()`` is the vertex's message: how it ended and the tail of its
    standard error. ``outcome`` is what run_command would have returned.
    """

    def __init__(self, message, outcome=None):
        super().__init__(message, outcome)
        self.outcome = outcome

    def __str__(self):
        return self.args[0]


def run_command(argument):
    """Runs `argument`'s command with DAG_VERTEX set; returns what the client asked to have back, or None.

    argument is (vertex name, command, keep, timed, stop, grace): keep
    captures standard output and error ("out", "err") for the client to
    print, else standard output is discarded and only standard error's tail
    is kept, for the message; timed adds "ran": (worker address, thread,
    start, end), the command's run by this machine's clock (time.time());
    stop is a distributed.Event the client sets to stop the walk: a command
    not started by then is not started, and a running one's process group
    gets SIGTERM, and SIGKILL after grace seconds. Raises CommandFailed when
    the command fails, so that Dask's retries apply.
    """
    vertex, command, keep, timed, stop, grace = argument
    if stop.is_set():
        raise CommandFailed("not started: the walk was stopped")
    env = dict(os.environ, DAG_VERTEX=vertex)
    start = time.time()
    # A session of its own: stopping it reaches whatever it started.
    process = subprocess.Popen(["/bin/sh", "-c", command], env=env, stdin=subprocess.DEVNULL,
                               stdout=subprocess.PIPE if keep else subprocess.DEVNULL, stderr=subprocess.PIPE,
                               start_new_session=True)
    stopped = []
    watcher = threading.Thread(target=_stop_when_asked, args=(process, stop, grace, stopped), daemon=True)
    watcher.start()
    out, err = process.communicate()
    watcher.join()
    outcome = {}
    if keep and (out or err):
        outcome.update(out=out.decode("utf-8", "replace"), err=err.decode("utf-8", "replace"))
    if timed:
        from distributed import get_worker

        outcome["ran"] = (get_worker().address, threading.get_ident(), start, time.time())
    code = process.returncode
    if code != 0:
        tail = err[-STDERR_TAIL:].decode("utf-8", "replace").strip()
        how = f"exit status {code}" if code > 0 else f"killed by signal {-code}"
        if stopped:
            how = f"stopped by dag: {how}"
        raise CommandFailed(f"{how}: {tail}" if tail else how, outcome)
    return outcome or None


def _stop_when_asked(process, stop, grace, stopped):
    """Until `process` ends: once `stop` is set, SIGTERM to its process group, and SIGKILL after `grace` s."""
    while process.poll() is None:
        if not stop.wait(timeout=_WATCH_S):
            continue
        stopped.append(True)
        _signal_group(process, signal.SIGTERM)
        try:
            process.wait(timeout=grace)
        except subprocess.TimeoutExpired:
            _signal_group(process, signal.SIGKILL)
        return


def _signal_group(process, number):
    try:
        os.killpg(process.pid, number)
    except ProcessLookupError:
        pass  # it has ended meanwhile
