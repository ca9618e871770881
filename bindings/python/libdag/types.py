"""Type aliases of the public API, for annotations."""

from typing import TYPE_CHECKING, Callable, Iterable, Optional, Union

if TYPE_CHECKING:
    from .walk import VertexStatus, WalkEvent

#: A vertex: its id, or its name (str, or UTF-8 bytes).
Vertex = Union[int, str, bytes]

#: One vertex, or an iterable of them.
Vertices = Union[Vertex, Iterable[Vertex]]

#: A walk callback: called with the vertex id; returns None (ok) or PENDING, raises to fail.
WalkCallback = Callable[[int], object]

#: An observer: (event, vertex, status, running, done, total).
Observer = Optional[Callable[["WalkEvent", int, "VertexStatus", int, int, int], object]]

__all__ = ["Vertex", "Vertices", "WalkCallback", "Observer"]
