"""How the walks' own messages name a vertex of a running walk."""

from .errors import DagError


def vertex_label(walker, vertex):
    """Its name, or its id when unnamed (or when the walk is gone, closed meanwhile)."""
    try:
        name = walker.name(vertex)
    except DagError:
        name = None
    return str(int(vertex)) if name is None else name
