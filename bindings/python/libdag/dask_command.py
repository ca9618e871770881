"""What ``python3 -m libdag.dask`` runs on a worker for each vertex: its command, in a subprocess.

This module travels to the workers by value (cloudpickle), so they need not
have libdag installed; it imports nothing from the package.
"""

from __future__ import annotations

import os
import subprocess
import threading
import time

# How much of a failing command's standard error comes back in its vertex's message.
STDERR_TAIL = 2000


class CommandFailed(RuntimeError):
    """A vertex's command exited non-zero or was killed; what run_command returns comes back with it.

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

    argument is (vertex name, command, keep, timed): keep captures standard
    output and error ("out", "err") for the client to print, else standard
    output is discarded and only standard error's tail is kept, for the
    message; timed adds "ran": (worker address, thread, start, end), the
    command's run by this machine's clock (time.time()). Raises
    CommandFailed when the command fails, so that Dask's retries apply.
    """
    vertex, command, keep, timed = argument
    env = dict(os.environ, DAG_VERTEX=vertex)
    start = time.time()
    done = subprocess.run(["/bin/sh", "-c", command], env=env, stdin=subprocess.DEVNULL,
                          stdout=subprocess.PIPE if keep else subprocess.DEVNULL, stderr=subprocess.PIPE,
                          check=False)
    outcome = {}
    if keep and (done.stdout or done.stderr):
        outcome.update(out=done.stdout.decode("utf-8", "replace"), err=done.stderr.decode("utf-8", "replace"))
    if timed:
        from distributed import get_worker

        outcome["ran"] = (get_worker().address, threading.get_ident(), start, time.time())
    if done.returncode != 0:
        tail = done.stderr[-STDERR_TAIL:].decode("utf-8", "replace").strip()
        how = f"exit status {done.returncode}" if done.returncode > 0 else f"killed by signal {-done.returncode}"
        raise CommandFailed(f"{how}: {tail}" if tail else how, outcome)
    return outcome or None
