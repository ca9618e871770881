"""A batch of changes to a running walk: vertices and edges added or removed, all or nothing."""

from __future__ import annotations

import ctypes
from ctypes import byref
from typing import Optional, Union

from . import _native
from ._closeable import Closeable
from ._handle import Handle
from ._native import lib
from ._owned import encode_name, vertex_id
from .errors import call
from .walk import SubwalkVertex, not_of_this_graph

__all__ = ["WalkUpdate"]


class WalkUpdate(Closeable):
    """Changes for :meth:`Walker.apply`, collected here and applied to the walk in one step.

    ``add_vertex()`` returns a provisional id that stands for the new vertex
    in this batch's ``connect()``; ``Walker.apply()`` returns the real ids.
    Build a batch on one thread at a time. Ids are checked when the batch
    is applied, not here (names are not known here: give ids); a
    :class:`SubwalkVertex` is refused here, with UnknownVertexError, as
    Graph refuses it: the batch changes the walked graph, not a sub-graph.

    Example, adding a step that the walk must run before `app`::

        update = libdag.WalkUpdate()
        migrate = update.add_vertex("migrate")
        update.connect(app, migrate)            # app now depends on migrate
        [migrate_id] = walker.apply(update)
    """

    def __init__(self):
        out = _native.walk_update_p()
        call(lib.dag_walk_update_new, byref(out), who="WalkUpdate()")
        self._handle = Handle(out, lib.dag_walk_update_free, "update")

    def add_vertex(self, name: Optional[Union[str, bytes]] = None, *, always_run: bool = False) -> int:
        """Adds a new vertex (named, or not) to the batch; returns its provisional id."""
        who = "WalkUpdate.add_vertex"
        data = encode_name(name, who)
        out = ctypes.c_uint64()
        with self._handle.write(who) as update:
            call(lib.dag_walk_update_add_vertex, update, data, None, 1 if always_run else 0, byref(out), who=who)
        return out.value

    def connect(self, source: int, target: int) -> None:
        """Adds the edge source -> target (source depends on target); either id may be provisional.

        Applying refuses it when source has started (even if target has
        finished: the walk could not honour the edge).
        """
        self._edge(lib.dag_walk_update_connect, source, target, "WalkUpdate.connect")

    def disconnect(self, source: int, target: int) -> None:
        """Removes the edge source -> target."""
        self._edge(lib.dag_walk_update_disconnect, source, target, "WalkUpdate.disconnect")

    def remove_vertex(self, vertex: int) -> None:
        """Removes a vertex that has not started (nor was skipped or cancelled), with its edges; then reported NOT_RUN."""
        who = "WalkUpdate.remove_vertex"
        vertex = _vertex_id(vertex, who)
        with self._handle.write(who) as update:
            call(lib.dag_walk_update_remove_vertex, update, vertex, who=who)

    def _edge(self, fn, source, target, who):
        source = _vertex_id(source, who)
        target = _vertex_id(target, who)
        with self._handle.write(who) as update:
            call(fn, update, source, target, who=who)

    def close(self) -> None:
        """Frees the batch (also done when it is garbage collected). Idempotent."""
        self._handle.close("WalkUpdate.close")


def _vertex_id(vertex, who):
    """A vertex of the walked graph, or a provisional id: a sub-graph's vertex refused, as Graph refuses it."""
    if isinstance(vertex, SubwalkVertex):
        raise not_of_this_graph(vertex, who)
    return vertex_id(vertex, who)
