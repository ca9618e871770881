"""Named limits (pools), retries and priorities for a walk: dag_walk_options' 1.3 fields."""

from __future__ import annotations

import collections.abc
import ctypes
from dataclasses import dataclass, field
from typing import Iterable, List, Mapping

from . import _native
from .errors import BadUtf8Error, InvalidArgumentError
from .types import Vertex


@dataclass(frozen=True)
class Schedule:
    """What a walk limits beside ``parallelism``, and what it tries again; pass as ``schedule=``.

    Attributes:
        pools: pool name to capacity: at most that many vertices that need
            the pool run at once (a pending vertex counts as running).
        needs: vertex (id or name) to the names of the pools it needs, one
            slot in each. A vertex starts only with a slot in every pool it
            needs and in ``parallelism``, all taken at once; vertices waiting
            for a full pool do not hold up ready vertices that need others.
        retries: how many more times a failed vertex is tried before it
            counts as failed and its dependents are skipped.
        retry_delay: seconds before the first retry (rounded to milliseconds).
        retry_max_delay: the longest wait in seconds; 0 for no cap.
        retry_doubling: each retry waits twice as long as the one before.
        retry_counts: vertex (id or name) to its own retry count, instead
            of ``retries``.
        priority: which ready vertex starts first: "none" (the default,
            the fastest), "critical-path" (the longest remaining path to
            the end of the walk first, counted in `weights`) or "name";
            ties by name, then id, so a walk at parallelism 1 starts its
            vertices in the same order every time.
        weights: vertex (id or name) to its weight for "critical-path"
            (an expected duration, a non-negative int); others weigh 1.

    A pool a vertex needs that ``pools`` does not declare, or whose capacity
    is 0, is refused when the walk starts (InvalidArgumentError).
    """

    pools: Mapping[str, int] = field(default_factory=dict)
    needs: Mapping[Vertex, Iterable[str]] = field(default_factory=dict)
    retries: int = 0
    retry_delay: float = 0.0
    retry_max_delay: float = 0.0
    retry_doubling: bool = False
    retry_counts: Mapping[Vertex, int] = field(default_factory=dict)
    priority: str = "none"
    weights: Mapping[Vertex, int] = field(default_factory=dict)

    @property
    def has_retries(self) -> bool:
        """True when some vertex may be tried more than once."""
        return self.retries > 0 or any(count > 0 for count in self.retry_counts.values())


_PRIORITIES = {"none": _native.PRIORITY_NONE, "critical-path": _native.PRIORITY_CRITICAL_PATH,
               "name": _native.PRIORITY_NAME}


def _names(names: List[str], who):
    encoded = []
    for name in names:
        if not isinstance(name, str):
            raise TypeError(f"{who}: a pool name is a str, not {type(name).__name__} ({name!r})")
        try:
            data = name.encode("utf-8")
        except UnicodeEncodeError as exc:
            # As a vertex name that cannot be UTF-8 is refused.
            raise BadUtf8Error(_native.E_BAD_UTF8, f"{who}: pool name {name!r} is not UTF-8 ({exc})") from None
        if b"\0" in data:
            # C would read the name up to it: a different pool, or a clash.
            raise InvalidArgumentError(_native.E_INVALID_ARGUMENT,
                                       f"{who}: pool name {name!r} holds a NUL character")
        encoded.append(data)
    return (ctypes.c_char_p * len(encoded))(*encoded)


def _milliseconds(seconds, name, who):
    if not isinstance(seconds, (int, float)) or not 0 <= seconds < 1 << 53:
        raise InvalidArgumentError(_native.E_INVALID_ARGUMENT, f"{who}: {name} is {seconds!r}, not seconds >= 0")
    # A positive time under half a millisecond counts as one: libdag reads 0
    # as none (no wait, no cap), and a cap of 0.0004 s meant no cap at all.
    return max(round(seconds * 1000), 1 if seconds > 0 else 0)


def apply_schedule(graph, schedule, opts, who, count):
    """Fills opts' pool and retry fields from `schedule`; returns the arrays they point into (keep them alive).

    `count(value, name, who)` checks a non-negative int, as the walk's other counts are checked.
    """
    if schedule is None:
        return ()
    if not isinstance(schedule, Schedule):
        raise TypeError(f"{who}: schedule is a libdag.Schedule, not {type(schedule).__name__}")
    keep = []
    if schedule.pools:
        names = list(schedule.pools)
        keep += [_names(names, who), (ctypes.c_size_t * len(names))(
            *(count(schedule.pools[name], f"the capacity of pool {name!r}", who) for name in names))]
        opts.pool_names, opts.pool_capacities = keep[-2:]
        opts.pool_count = len(names)
    vertices, pools = [], []
    for vertex, needed in schedule.needs.items():
        if isinstance(needed, str):
            needed = (needed,)
        elif isinstance(needed, (bytes, bytearray)) or not isinstance(needed, collections.abc.Iterable):
            raise TypeError(f"{who}: the pools vertex {vertex!r} needs are a str or an iterable of str, "
                            f"not {type(needed).__name__}")
        for pool in needed:
            vertices.append(graph._vertex(vertex, who))
            pools.append(pool)
    if vertices:
        keep += [(ctypes.c_uint64 * len(vertices))(*vertices), _names(pools, who)]
        opts.pool_need_vertices, opts.pool_need_names = keep[-2:]
        opts.pool_need_count = len(vertices)
    opts.retries = count(schedule.retries, "retries", who)
    opts.retry_delay_ms = _milliseconds(schedule.retry_delay, "retry_delay", who)
    opts.retry_max_delay_ms = _milliseconds(schedule.retry_max_delay, "retry_max_delay", who)
    opts.retry_doubling = 1 if schedule.retry_doubling else 0
    if schedule.retry_counts:
        ids = [graph._vertex(vertex, who) for vertex in schedule.retry_counts]
        keep += [(ctypes.c_uint64 * len(ids))(*ids), (ctypes.c_size_t * len(ids))(
            *(count(n, "a retry count", who) for n in schedule.retry_counts.values()))]
        opts.retry_vertices, opts.retry_counts = keep[-2:]
        opts.retry_vertex_count = len(ids)
    if schedule.priority not in _PRIORITIES:
        raise InvalidArgumentError(_native.E_INVALID_ARGUMENT,
                                   f"{who}: priority is {schedule.priority!r}, not one of {', '.join(_PRIORITIES)}")
    opts.priority = _PRIORITIES[schedule.priority]
    if schedule.weights:
        ids = [graph._vertex(vertex, who) for vertex in schedule.weights]
        keep += [(ctypes.c_uint64 * len(ids))(*ids), (ctypes.c_uint64 * len(ids))(
            *(count(w, "a weight", who) for w in schedule.weights.values()))]
        opts.weight_vertices, opts.weights = keep[-2:]
        opts.weight_count = len(ids)
    return keep
