"""What ``python3 -m libdag.dask`` runs on a worker for each vertex: its command, in a subprocess.

This module travels to the workers by value (cloudpickle), so they need not
have libdag installed; it imports nothing from the package.
"""

from __future__ import annotations

import os
import selectors
import signal
import subprocess
import threading
import time

# How much of a failing command's standard error comes back in its vertex's message.
STDERR_TAIL = 2000
# How long one wait for the stop event lasts (a long poll on the scheduler), at first and at most:
# a command's run ends once its watcher has noticed that the command has, at the end of the wait
# under way; the waits double from the first, so that this costs a short command little and a
# long one no more than one poll a second.
_FIRST_WATCH_S = 0.01
_WATCH_S = 1.0
# How late a command's exit is noticed while something it left running still holds its pipes.
_EXIT_POLL_S = 0.1


class CommandFailed(RuntimeError):
    """A vertex's command exited non-zero, was killed or was stopped; what run_command returns comes back with it.

    ``str()`` is the vertex's message: how it ended and the tail of its
    standard error. ``outcome`` is what run_command would have returned;
    ``cancelled`` is True for a command the walk's stop kept from starting
    or stopped, whose vertex then ends cancelled; ``started`` is False for
    the first, whose vertex never ran.
    """

    def __init__(self, message, outcome=None, cancelled=False, started=True):
        super().__init__(message, outcome, cancelled, started)
        self.outcome = outcome
        self.cancelled = cancelled
        self.started = started

    def __str__(self):
        return self.args[0]


def run_command(argument):
    """Runs `argument`'s command with DAG_VERTEX set; returns what the client asked to have back.

    argument is (vertex name, command, keep, timed, stop, grace, retries, kill,
    vertex id): the id comes back as the outcome's "id" (a name may be
    another vertex's label, an unnamed one's id written out); keep
    captures standard output and error ("out", "err") for the client to
    print, else standard output is discarded and only standard error's tail
    is kept, for the message; timed adds "ran": (worker address, thread,
    start, end), the command's run by this machine's clock (time.time());
    stop is a distributed.Event the client sets to stop the walk: a command
    not started by then is not started, and a running one's session (every
    process it started, in whatever process group) gets SIGTERM, then
    SIGKILL once it has exited or after grace seconds, or at once when the
    distributed.Event kill is set (the client's second signal, as a second
    Ctrl-C cuts ``dag walk``'s grace short). The command's exit
    ends it, even where a background process it started still holds its
    standard output or error; what it left running in its session then
    gets SIGTERM, and SIGKILL after grace seconds, before this returns, as
    ``dag walk`` does (a daemon that should outlive its command detaches
    with setsid -f). A failed command runs again, up to `retries` more times,
    unless the stop is set meanwhile; each run's output comes back (the
    earlier runs' as "earlier": [(out, err)]), and, where there was more
    than one run, "attempt_messages": each run's message ("" for one that
    succeeded), as dag walk's report keeps them. Output comes back as str with the bytes that are not
    UTF-8 kept as surrogates (surrogateescape), so that the client prints
    the bytes as they came. Raises CommandFailed when the command fails,
    so that Dask's retries apply.
    """
    vertex, command, keep, timed, stop, grace, retries, kill, vertex_id = argument
    if stop.is_set():
        raise CommandFailed("not started: the walk was stopped", {"id": vertex_id}, cancelled=True, started=False)
    earlier, messages = [], []
    while True:
        try:
            outcome = _run_once(vertex, command, keep, timed, stop, grace, kill) or {}
            messages.append("")
        except CommandFailed as failed:
            messages.append(str(failed))
            if failed.cancelled or len(messages) > retries or stop.is_set():
                failed.outcome = _with_attempts(dict(failed.outcome or {}, id=vertex_id), earlier, messages)
                failed.args = (failed.args[0], failed.outcome, *failed.args[2:])
                raise
            if failed.outcome and ("out" in failed.outcome or "err" in failed.outcome):
                earlier.append((failed.outcome.get("out", ""), failed.outcome.get("err", "")))
            continue
        return _with_attempts(dict(outcome, id=vertex_id), earlier, messages)


def _with_attempts(outcome, earlier, messages):
    if earlier:
        outcome["earlier"] = earlier
    if len(messages) > 1:
        outcome["attempt_messages"] = messages
    return outcome


def _run_once(vertex, command, keep, timed, stop, grace, kill):
    """One run of the command: what run_command describes, without the retries."""
    env = dict(os.environ, DAG_VERTEX=vertex)
    start = time.time()
    # A session of its own: stopping it reaches whatever it started.
    process = subprocess.Popen(["/bin/sh", "-c", command], env=env, stdin=subprocess.DEVNULL,
                               stdout=subprocess.PIPE if keep else subprocess.DEVNULL, stderr=subprocess.PIPE,
                               start_new_session=True)
    try:
        guard = _WorkerDeathGuard(process.pid)
    except BaseException:
        # Unwatched (no process left for the guard, say), it must not run at all.
        _signal_session(process.pid, signal.SIGKILL)
        process.wait()
        for stream in (process.stdout, process.stderr):
            if stream is not None:
                stream.close()
        raise
    try:
        stopped = []
        watcher = threading.Thread(target=_stop_when_asked, args=(process, stop, grace, kill, stopped), daemon=True)
        watcher.start()
        out, err = _drain(process)
        end = time.time()
        watcher.join()
        _empty_session(process.pid, grace, kill)
    finally:
        # Before the command is reaped, while its session's id is still its own.
        guard.release()
    process.wait()
    outcome = {}
    if keep and (out or err):
        outcome.update(out=out.decode("utf-8", "surrogateescape"), err=err.decode("utf-8", "surrogateescape"))
    if timed:
        from distributed import get_worker

        outcome["ran"] = (get_worker().address, threading.get_ident(), start, end)
    code = process.returncode
    # One that the stop's SIGTERM made exit 0 (it traps it) was stopped all
    # the same, as dag walk counts it: cancelled, not ok.
    if code != 0 or stopped:
        tail = err[-STDERR_TAIL:].decode("utf-8", "replace").strip()
        how = f"exit status {code}" if code >= 0 else f"killed by signal {-code}"
        if stopped:
            how = f"stopped by dag: {how}"
        raise CommandFailed(f"{how}: {tail}" if tail else how, outcome, bool(stopped))
    return outcome or None


class _WorkerDeathGuard:
    """Kills a command's session when the worker running it dies.

    A worker killed (out of memory, by its nanny, kill -9) runs no code of
    its own, and the command, in a session of its own, would keep running
    while Dask runs its task again elsewhere: the vertex's command twice at
    once, and one outliving the walk. A small shell in a session of its own
    holds the read end of a pipe only this process writes to; the end of
    the file without the word "done" means the writer is gone, and it sends
    SIGKILL to every process of the command's session (pkill -s; the
    leader's process group where pkill is missing).
    """

    # dash's kill takes no "--" before a negative process group.
    _SCRIPT = ('read -r word; [ "$word" = done ] && exit 0; '
               'command -v pkill >/dev/null && exec pkill -KILL -s "$1"; kill -KILL "-$1"')

    def __init__(self, session):
        read_end, self._write_end = os.pipe()
        try:
            self._shell = subprocess.Popen(["/bin/sh", "-c", self._SCRIPT, "sh", str(session)], stdin=read_end,
                                           stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                                           start_new_session=True)
        except BaseException:
            os.close(self._write_end)
            raise
        finally:
            os.close(read_end)

    def release(self):
        """The command is done with: the shell exits without a signal."""
        try:
            os.write(self._write_end, b"done\n")
        except BrokenPipeError:
            pass  # the shell was killed (by the OOM killer, say): nothing left to tell
        finally:
            os.close(self._write_end)
            self._shell.wait()


def _drain(process):
    """(standard output, standard error) of `process`: read until both pipes close, or until it has exited.

    Once it has exited, all it wrote is in the pipes: what is waiting there
    is read and the pipes are closed, as ``dag walk`` does. A background
    process it left behind may hold a write end open for ever; run_command
    stops it next (_empty_session).
    """
    captured = {}
    with selectors.DefaultSelector() as selector:
        for stream in (process.stdout, process.stderr):
            captured[stream] = bytearray()
            if stream is not None:
                os.set_blocking(stream.fileno(), False)
                selector.register(stream, selectors.EVENT_READ)
        while selector.get_map():
            ready = {key.fileobj for key, _ in selector.select(timeout=_EXIT_POLL_S)}
            gone = _exited(process.pid)
            for stream in list(selector.get_map().values()):
                stream = stream.fileobj
                if (stream in ready or gone) and not _read_available(stream, captured[stream]):
                    selector.unregister(stream)
            if gone:
                break
    for stream in (process.stdout, process.stderr):
        if stream is not None:
            stream.close()
    return bytes(captured[process.stdout]), bytes(captured[process.stderr])


def _exited(pid):
    """Whether the child `pid` has exited, without reaping it (its group stays signallable until it is)."""
    try:
        return os.waitid(os.P_PID, pid, os.WEXITED | os.WNOHANG | os.WNOWAIT) is not None
    except ChildProcessError:
        return True  # reaped already: only run_command reaps, after both readers are done


def _read_available(stream, into):
    """Reads what is waiting in `stream` into `into`; False once the other end has closed."""
    while True:
        try:
            chunk = os.read(stream.fileno(), 65536)
        except BlockingIOError:
            return True
        if not chunk:
            return False
        into += chunk


def _stop_when_asked(process, stop, grace, kill, stopped):
    """Until `process` exits: once `stop` is set, SIGTERM to its session, then SIGKILL to the session.

    The SIGKILL goes once the command has exited, or after `grace` seconds
    (at once once `kill` is set), as ``dag walk`` does: nothing the command started is left behind. The
    command is not reaped meanwhile (run_command reaps it after this
    returns), so its session's id cannot have been reused.
    """
    wait_s = _FIRST_WATCH_S
    while not _exited(process.pid):
        if not stop.wait(timeout=wait_s):
            wait_s = min(2 * wait_s, _WATCH_S)
            continue
        stopped.append(True)
        _signal_session(process.pid, signal.SIGTERM)
        deadline = time.monotonic() + grace
        while not _exited(process.pid) and time.monotonic() < deadline:
            if kill.wait(timeout=_EXIT_POLL_S):
                break
        _signal_session(process.pid, signal.SIGKILL)
        return


def _live_members(session):
    """[(pid, process group)] of the live processes but the leader in session `session`.

    A process the command moved to a process group of its own (``timeout``
    does) is still in its session. Linux has no call that lists a session:
    /proc is read whole.
    """
    members = []
    for entry in os.listdir("/proc"):
        if not entry.isdigit() or int(entry) == session:
            continue
        try:
            with open(f"/proc/{entry}/stat", "rb") as stat:
                # "pid (comm) state ppid pgrp session ...": comm may hold anything, the last ')' ends it.
                fields = stat.read().rsplit(b")", 1)[1].split()
        except (FileNotFoundError, ProcessLookupError, IndexError):
            continue
        if fields[0] != b"Z" and int(fields[3]) == session:
            members.append((int(entry), int(fields[2])))
    return members


def _empty_session(session, grace, kill):
    """SIGTERM to what the exited (unreaped) command left in its session, SIGKILL after `grace` seconds or once `kill` is set."""
    if not _live_members(session):
        return
    _signal_session(session, signal.SIGTERM)
    deadline = time.monotonic() + grace
    killed = False
    asked = time.monotonic()  # kill.is_set() is a round trip to the scheduler: asked every _EXIT_POLL_S
    while _live_members(session):
        now = time.monotonic()
        if not killed and (now >= deadline or (now - asked >= _EXIT_POLL_S and kill.is_set())):
            # Gone only once the kernel has delivered it: waited for too.
            _signal_session(session, signal.SIGKILL)
            killed = True
        if now - asked >= _EXIT_POLL_S:
            asked = now
        time.sleep(0.01)


def _signal_session(session, number):
    """`number` to the leader's process group and to each process of the session in another group."""
    others = [(os.kill, pid) for pid, group in _live_members(session) if group != session]
    for signal_one, target in [(os.killpg, session)] + others:
        try:
            signal_one(target, number)
        except ProcessLookupError:
            pass  # it has ended meanwhile
