"""What ``python3 -m libdag.dask`` writes when a walk has ended: ``dag walk``'s summary and its ``--report`` file."""

from __future__ import annotations

import contextlib
import errno
import fcntl
import json
import os
import select
import signal
import stat
import sys
import tempfile
import time

from .walk import VertexStatus

# The spelling of each status in the result files, in the order the report file lists the totals.
STATUS_KEYS = {VertexStatus.OK: "ok", VertexStatus.FAILED: "failed", VertexStatus.UPSTREAM_FAILED: "upstream_failed",
               VertexStatus.CANCELLED: "cancelled", VertexStatus.NOT_RUN: "not_run"}


def descriptor_named(path):
    """The descriptor of this process's that `path` names through /proc/self/fd (/dev/stdout, /dev/fd/63), or None.

    As dag walk does, such a file is written through the descriptor itself: a rename would replace
    the file behind standard output (and what `>>` had written there), and a pipe's link names no
    path ("pipe:[123]").
    """
    own = f"/proc/{os.getpid()}/fd"
    at = path
    for _ in range(40):
        directory, name = os.path.split(at)
        if name.isdigit() and len(name) < 10 and os.path.realpath(directory or ".") == own:
            return int(name)
        if not os.path.islink(at):
            return None
        to = os.readlink(at)
        at = to if to.startswith("/") else os.path.join(directory or ".", to)
    return None


def _check_open_for_writing(path, fd):
    flags = fcntl.fcntl(fd, fcntl.F_GETFL)  # OSError(EBADF) when not open
    if flags & os.O_ACCMODE == os.O_RDONLY:
        raise OSError(errno.EBADF, os.strerror(errno.EBADF), path)


def check_writable(path):
    """Raises OSError if `path` (a result file; "-" is standard output) could not be written, as dag walk checks."""
    if path == "-":
        return
    fd = descriptor_named(path)
    if fd is not None:
        _check_open_for_writing(path, fd)
        return
    try:
        there = os.stat(path)
    except FileNotFoundError:
        directory = os.path.dirname(path) or "."
        if not os.path.isdir(directory):
            raise FileNotFoundError(errno.ENOENT, os.strerror(errno.ENOENT), path) from None
        if not os.access(directory, os.W_OK):
            raise PermissionError(errno.EACCES, os.strerror(errno.EACCES), path) from None
        return
    if stat.S_ISDIR(there.st_mode):
        raise IsADirectoryError(errno.EISDIR, os.strerror(errno.EISDIR), path)
    if not os.access(path, os.W_OK):
        raise PermissionError(errno.EACCES, os.strerror(errno.EACCES), path)


def same_file(a, b):
    """Whether two result paths name one file (the same path, one file through links, or through descriptors)."""
    fds = [1 if path == "-" else descriptor_named(path) for path in (a, b)]
    if fds[0] is not None and fds[0] == fds[1]:
        return True
    try:
        if any(fd is not None for fd in fds):
            there = [os.fstat(fd) if fd is not None else os.stat(path) for fd, path in zip(fds, (a, b))]
            return (there[0].st_dev, there[0].st_ino) == (there[1].st_dev, there[1].st_ino)
        if os.path.realpath(a) == os.path.realpath(b):
            return True
        return os.path.samefile(a, b)
    except OSError:
        return False


def _write_whole(fd, data, give_up):
    """`data` to `fd` whole. A pipe's reader may stop reading, and this program's signal handlers let a
    waiting write go on: with `give_up`, a pipe, FIFO or socket gets a pipe's atomic chunk at a time
    once poll says there is room, and give_up() is asked every few milliseconds while there is none.
    A descriptor shared with other processes is not made non-blocking for this: they would see it."""
    mode = os.fstat(fd).st_mode
    if give_up is None or stat.S_ISREG(mode) or stat.S_ISBLK(mode):
        while data:
            data = data[os.write(fd, data):]
        return
    room = select.poll()
    room.register(fd, select.POLLOUT)
    while data:
        if not room.poll(20):
            if give_up():
                raise InterruptedError(errno.EINTR, "interrupted while it waited for its reader to read")
            continue
        data = data[os.write(fd, data[:select.PIPE_BUF]):]


def _open_fifo(path, give_up):
    """A FIFO opened for writing once it has a reader; with `give_up`, waited for only while give_up() is false.

    A blocking open would wait on through every signal this program catches."""
    if give_up is None:
        return os.open(path, os.O_WRONLY | os.O_CLOEXEC)
    while True:
        try:
            fd = os.open(path, os.O_WRONLY | os.O_NONBLOCK | os.O_CLOEXEC)
        except OSError as error:
            if error.errno != errno.ENXIO:
                raise
            if give_up():
                raise InterruptedError(errno.EINTR, "interrupted while it waited for a reader") from None
            time.sleep(0.02)
            continue
        os.set_blocking(fd, True)
        return fd


def write_document(path, document, indent=None, give_up=None):
    """`document` as JSON to `path` ("-": standard output), a regular file replaced only by a complete one.

    give_up: asked every few milliseconds while a FIFO waits for a reader, or a pipe for its reader
    to read; once it says True, InterruptedError."""
    text = json.dumps(document, indent=indent) + "\n"
    fd = 1 if path == "-" else descriptor_named(path)
    if fd == 1:
        sys.stdout.write(text)
        sys.stdout.flush()
        return
    if fd is not None:
        _check_open_for_writing(path, fd)
        if fd == 2:
            sys.stderr.flush()
        _write_whole(fd, text.encode("utf-8", "surrogateescape"), give_up)
        return
    target = os.path.realpath(path)
    try:
        there = os.stat(target)
    except FileNotFoundError:
        there = None
    if there is not None and not stat.S_ISREG(there.st_mode):  # a FIFO, a device: in place
        if stat.S_ISFIFO(there.st_mode):
            fd = _open_fifo(path, give_up)
        else:
            fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC | os.O_CLOEXEC, 0o666)
        try:
            _write_whole(fd, text.encode("utf-8", "surrogateescape"), give_up)
        finally:
            os.close(fd)
        return
    # Written beside itself and renamed over it: a full disk or a signal leaves the old contents.
    fd, temporary = tempfile.mkstemp(dir=os.path.dirname(target) or ".", prefix=".dag.")
    try:
        with os.fdopen(fd, "w") as out:
            out.write(text)
        if there is not None:
            os.chmod(temporary, stat.S_IMODE(there.st_mode))
        else:
            umask = os.umask(0)
            os.umask(umask)
            os.chmod(temporary, 0o666 & ~umask)
        os.replace(temporary, target)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(temporary)
        raise


def write_report(path, key, report, elapsed_ms, never_started=(), attempts=None, give_up=None):
    """The outcome of every vertex (times in ms since the walk began, as libdag saw them) and the totals, as JSON.

    key: a vertex's "name" in the report (dag walk's: an unnamed vertex's id, a number).

    never_started: vertices handed to the cluster whose command the walk's
    stop kept from starting; they never ran, as in dag walk's report.
    attempts: vertex -> each run's message, for commands run more than
    once on their worker (libdag saw one attempt).
    give_up: as write_document's.
    """
    attempts = attempts or {}
    vertices = []
    for result in report:
        started = result.id not in never_started
        timed = started and result.ran and result.end_ns > 0
        entry = {"name": key(result.id), "status": STATUS_KEYS[result.status], "message": result.message,
                 "start_ms": result.start_ns / 1e6 if timed else None,
                 "end_ms": result.end_ns / 1e6 if timed else None,
                 "attempts": result.attempts if started else 0}
        messages = attempts.get(result.id) or (list(result.attempt_messages) if result.attempts > 1 else [])
        if len(messages) > 1:
            entry.update(attempts=len(messages), attempt_messages=messages)
        vertices.append(entry)
    document = {"vertices": vertices}
    document.update({key: report.count(status) for status, key in STATUS_KEYS.items()})
    document["elapsed_ms"] = elapsed_ms
    write_document(path, document, indent=2, give_up=give_up)


def summarize(label, report, stopped_by, err=None, never_started=()):
    """Totals, then each failed vertex, each whose command the stop ended and each that never ran, by name;
    then the signal that stopped the walk."""
    err = err or sys.stderr
    count = report.count
    line = (f"{count(VertexStatus.OK)} ok, {count(VertexStatus.FAILED)} failed, "
            f"{count(VertexStatus.UPSTREAM_FAILED)} upstream failed, {count(VertexStatus.NOT_RUN)} not run")
    if count(VertexStatus.CANCELLED):
        line += f", {count(VertexStatus.CANCELLED)} cancelled"
    err.write(line + "\n")
    failures = sorted((label(r.id), r.message) for r in report if r.status == VertexStatus.FAILED)
    never_ran = sorted(label(r.id) for r in report
                       if r.status == VertexStatus.NOT_RUN
                       or (r.status == VertexStatus.CANCELLED and (not r.ran or r.id in never_started)))
    stopped = sorted(label(r.id) for r in report
                     if r.status == VertexStatus.CANCELLED and r.ran and r.id not in never_started)
    for name, message in failures:
        err.write(f"failed: {name}: {message}\n" if message else f"failed: {name}\n")
    for name in stopped:
        err.write(f"stopped: {name}\n")
    for name in never_ran:
        err.write(f"never ran: {name}\n")
    if stopped_by is not None:
        err.write(f"interrupted by {signal.Signals(stopped_by).name}\n")
