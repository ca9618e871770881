"""``python3 -m libdag.dask --trace FILE``: the walk as Chrome trace-event JSON, as ``dag walk --trace`` writes it.

One complete event ("ph": "X", microseconds since the walk began) per
command that ran, named by its vertex, on a track per worker thread, with
the vertex's status and message in args (tools/dag/trace_file.cpp). Each
command times itself on its worker (time.time()), so the spans are the
commands' own runs, on the workers' clocks: they line up with this
machine's only as well as the clocks agree (NTP). Dask's task stream is not
used: it shifts each worker's times by an estimate of its clock's offset
that, on a loaded machine, is off by as much as a heartbeat's delay.
"""

from __future__ import annotations

from .dask_report import STATUS_KEYS, write_document

_PID = 1  # one process: the walk


def trace_document(label, report, runs, began_s, attempts=None):
    """The trace of a walk.

    label: vertex id -> name; report: its WalkReport; runs: vertex ->
    (worker address, thread, start, end) of its command, in time.time()
    seconds; began_s: when the walk began, in time.time() seconds;
    attempts: vertex -> each run's message, for a command run more than
    once (its span is its last run's).
    """
    attempts = attempts or {}
    events, tracks = [], {}
    for vertex, (worker, thread, start, end) in sorted(runs.items(), key=lambda item: item[1][2]):
        track = tracks.setdefault((worker, thread), len(tracks) + 1)
        result = report[vertex]
        args = {"status": STATUS_KEYS[result.status], "message": result.message}
        if len(attempts.get(vertex, ())) > 1:
            args.update(attempts=len(attempts[vertex]), attempt_messages=attempts[vertex])
        events.append({"name": label(vertex), "cat": "vertex", "ph": "X", "ts": (start - began_s) * 1e6,
                       "dur": (end - start) * 1e6, "pid": _PID, "tid": track, "args": args})
    # Metadata events give the tracks their names in the viewers.
    events.append({"name": "process_name", "ph": "M", "pid": _PID, "args": {"name": "dag walk on Dask"}})
    for (worker, thread), track in tracks.items():
        events.append({"name": "thread_name", "ph": "M", "pid": _PID, "tid": track,
                       "args": {"name": f"worker {worker} thread {thread}"}})
    return {"traceEvents": events, "displayTimeUnit": "ms"}


def write_trace(path, document, give_up=None):
    """`document` to `path` ("-": standard output), as write_report writes."""
    write_document(path, document, give_up=give_up)
