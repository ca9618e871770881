"""Helpers shared by the tests."""

import libdag


def build(edges=(), vertices=()):
    """A graph with the named `vertices` and every name in `edges`, plus those edges.

    `edges` is an iterable of (source, target) names: source depends on
    target. Returns (graph, {name: id}); vertices are added in the order
    first named, `vertices` first.
    """
    graph = libdag.Graph()
    ids = {}
    for name in list(vertices) + [n for edge in edges for n in edge]:
        if name not in ids:
            ids[name] = graph.add_vertex(name)
    for source, target in edges:
        graph.connect(ids[source], ids[target])
    return graph, ids


def names(graph, ids):
    """The names of `ids`, in order."""
    return [graph.label(i) for i in ids]


def alive(pid):
    """Whether `pid` runs (a zombie waiting for its reaper does not)."""
    try:
        with open(f"/proc/{pid}/stat") as stat:
            return stat.read().rsplit(")", 1)[1].split()[0] != "Z"
    except FileNotFoundError:
        return False
