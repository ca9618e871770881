"""What ``python3 -m libdag.dask`` writes when a walk has ended: ``dag walk``'s summary and its ``--report`` file."""

from __future__ import annotations

import json
import signal
import sys

from .walk import VertexStatus

# The spelling of each status in the result files, in the order the report file lists the totals.
STATUS_KEYS = {VertexStatus.OK: "ok", VertexStatus.FAILED: "failed", VertexStatus.UPSTREAM_FAILED: "upstream_failed",
               VertexStatus.CANCELLED: "cancelled", VertexStatus.NOT_RUN: "not_run"}


def write_report(path, label, report, elapsed_ms):
    """The outcome of every vertex (times in ms since the walk began, as libdag saw them) and the totals, as JSON."""
    vertices = []
    for result in report:
        timed = result.ran and result.end_ns > 0
        entry = {"name": label(result.id), "status": STATUS_KEYS[result.status], "message": result.message,
                 "start_ms": result.start_ns / 1e6 if timed else None,
                 "end_ms": result.end_ns / 1e6 if timed else None, "attempts": result.attempts}
        if result.attempts > 1:
            entry["attempt_messages"] = list(result.attempt_messages)
        vertices.append(entry)
    document = {"vertices": vertices}
    document.update({key: report.count(status) for status, key in STATUS_KEYS.items()})
    document["elapsed_ms"] = elapsed_ms
    with open(path, "w") as out:
        json.dump(document, out, indent=2)
        out.write("\n")


def summarize(label, report, stopped_by, err=None):
    """Totals, then each failed vertex and each that never ran, by name; then the signal that stopped the walk."""
    err = err or sys.stderr
    count = report.count
    line = (f"{count(VertexStatus.OK)} ok, {count(VertexStatus.FAILED)} failed, "
            f"{count(VertexStatus.UPSTREAM_FAILED)} upstream failed, {count(VertexStatus.NOT_RUN)} not run")
    if count(VertexStatus.CANCELLED):
        line += f", {count(VertexStatus.CANCELLED)} cancelled"
    err.write(line + "\n")
    failures = sorted((label(r.id), r.message) for r in report if r.status == VertexStatus.FAILED)
    never_ran = sorted(label(r.id) for r in report
                       if r.status == VertexStatus.NOT_RUN or (r.status == VertexStatus.CANCELLED and not r.ran))
    for name, message in failures:
        err.write(f"failed: {name}: {message}\n" if message else f"failed: {name}\n")
    for name in never_ran:
        err.write(f"never ran: {name}\n")
    if stopped_by is not None:
        err.write(f"interrupted by {signal.Signals(stopped_by).name}\n")
