"""The Graph class: vertices, edges, algorithms, text forms and walks."""

from __future__ import annotations

import concurrent.futures
import copy
import os
from ctypes import byref, c_char_p, c_size_t, c_uint64, c_void_p, sizeof
from typing import TYPE_CHECKING, Awaitable, Callable, Iterable, List, Mapping, Optional, Tuple, Union

from . import _native, traversal, validation, walk
from ._closeable import Closeable
from ._handle import Handle
from ._native import lib
from ._owned import decode_name, encode_name, id_array, id_lists_result, ids_result, string_result, vertex_id
from .errors import ClosedError, InvalidArgumentError, call
from .formats import Format, to_format
from .schedule import Schedule
from .types import Observer, Vertex, Vertices, WalkCallback
from .validation import Validation
from .walk import Walker, WalkReport

if TYPE_CHECKING:
    from .pull import PullWalker

__all__ = ["Graph"]


def _not_one_name(names, who):
    """A str or bytes is one name, where a list of them is wanted: iterated, it would be its letters."""
    if isinstance(names, (str, bytes, bytearray)):
        raise TypeError(f"{who}: expected a list of names, got one name ({names!r}); wrap it in a list")


def _pointer_value(value, who):
    try:
        value = value.__index__()
    except AttributeError:
        raise TypeError(f"{who}: user data is an int, not {type(value).__name__}") from None
    if not 0 <= value < 1 << (8 * sizeof(c_void_p)):
        raise InvalidArgumentError(_native.E_INVALID_ARGUMENT, f"{who}: {value} does not fit a pointer")
    return value


def _adopt(cls, ptr):
    graph = cls.__new__(cls)
    graph._handle = Handle(ptr, lib.dag_free, "graph")
    return graph


def _pair(edge):
    """`edge` as a (source, target) tuple, or None when it is not a pair."""
    try:
        source, target = edge
    except (TypeError, ValueError):
        return None
    return source, target


class Graph(Closeable):
    """A directed graph with Terraform's ``internal/dag`` semantics.

    ``graph.connect(a, b)`` means **a depends on b**: b's work happens before
    a's. Vertices are ints (ids the graph assigns, never reused) with an
    optional unique name. Terraform's names are kept and mislead; with
    a -> b -> c:

    - ``ancestors([a]) == [b, c]``: everything a depends on;
    - ``descendants([c]) == [a, b]``: everything that depends on c;
    - ``root() == a``: the vertex nothing depends on;
    - ``topological_order() == [a, b, c]``: dependents first;
    - ``reverse_topological_order() == [c, b, a]``: execution order.

    A graph owns a C handle: close it with :meth:`close` or a ``with`` block
    (it is also freed when garbage collected). After that every method
    raises :class:`ClosedError`.

    Threads: read-only methods may run at once on several threads; a change
    waits for the reads in progress and they wait for it. While the graph is
    walked, reads go on (callbacks may read it) and changes raise BusyError.
    A change from inside a traversal visitor or predicate of the same graph
    raises BusyError as well.

    Errors: every method raises a :class:`DagError` subclass for the
    library's errors; the ones each method can raise are listed with it.
    Every method raises :class:`ClosedError` once the graph is closed, and
    every method taking vertex ids raises TypeError for a non-int and
    UnknownVertexError for an int outside uint64_t's range.
    """

    __slots__ = ("_handle", "__weakref__")

    def __init__(self):
        """Creates an empty graph.

        Raises:
            TypeError: called again on a graph made already (it would drop
                that graph from under its walks and readers).
        """
        if getattr(self, "_handle", None) is not None:
            raise TypeError("Graph.__init__: this graph exists already; make a new Graph()")
        ptr = _native.graph_p()
        call(lib.dag_new, byref(ptr), who="Graph()")
        self._handle = Handle(ptr, lib.dag_free, "graph")

    # -- lifetime ----------------------------------------------------------

    def close(self) -> None:
        """Frees the graph. Idempotent.

        A :class:`Walker` that has been waited for keeps working: the
        library frees the graph with the last walk that uses it.

        Raises:
            BusyError: the graph is being read, changed or walked right now
                (from another thread, or from a visitor, predicate or walk
                callback of this graph).
        """
        self._handle.close("Graph.close")

    @property
    def closed(self):
        """True once :meth:`close` has freed the graph."""
        return self._handle.closed

    def __enter__(self) -> "Graph":
        # As every method: a closed graph would otherwise enter, and fail at its first call.
        self._handle._check_open("Graph.__enter__")
        return self

    def clone(self) -> "Graph":
        """A deep copy: same ids, names and edges; later ids never collide with this graph's."""
        out = _native.graph_p()
        with self._handle.read("Graph.clone") as g:
            call(lib.dag_clone, g, byref(out), who="Graph.clone")
        return _adopt(type(self), out)

    def __copy__(self):
        twin = self.clone()
        state = getattr(self, "__dict__", None)
        if state:  # a subclass's own attributes come along, as copy.copy gives any object's
            twin.__dict__.update(state)
        return twin

    def __deepcopy__(self, memo):
        twin = self.clone()
        memo[id(self)] = twin
        state = getattr(self, "__dict__", None)
        if state:
            twin.__dict__.update(copy.deepcopy(state, memo))
        return twin

    def __reduce__(self):
        raise TypeError("a Graph owns a C object and cannot be pickled: send g.export('json') and read it back "
                        "with Graph.from_text(text, 'json')")

    # -- vertices ----------------------------------------------------------

    def add_vertex(self, name: Optional[Union[str, bytes]] = None) -> int:
        """Adds a vertex and returns its id.

        Args:
            name: None for an unnamed vertex (it prints as its id), or a
                non-empty name unique in the graph (str, or UTF-8 bytes).

        Raises:
            DuplicateNameError: another vertex has that name.
            InvalidArgumentError: the name is empty or holds a NUL character.
            BadUtf8Error: bytes (or a str with lone surrogates) that are not UTF-8.
            BusyError: the graph is being walked.
        """
        who = "Graph.add_vertex"
        data = encode_name(name, who)
        out = c_uint64()
        with self._handle.write(who) as g:
            call(lib.dag_add_vertex, g, data, None, byref(out), who=who)
        return out.value

    def add_vertices(self, names: Iterable[Optional[Union[str, bytes]]]) -> List[int]:
        """Adds a vertex per name (None for unnamed) and returns their ids, in order.

        One call into the library, all or nothing: on an error no vertex is
        added. The ids are consecutive. Faster than one :meth:`add_vertex`
        per name.

        Raises:
            as :meth:`add_vertex`; the message starts with the name's
            position ("vertex 3: ...").
        """
        who = "Graph.add_vertices"
        _not_one_name(names, who)
        data = [encode_name(name, who) for name in names]
        count = len(data)
        out = (c_uint64 * max(count, 1))()
        with self._handle.write(who) as g:
            call(lib.dag_add_vertices, g, (c_char_p * max(count, 1))(*data), None, count, out, who=who)
        return list(out[:count])

    def remove_vertex(self, vertex: Vertex) -> None:
        """Removes a vertex and every edge touching it; its name becomes free.

        Raises:
            UnknownVertexError: no such vertex.
            BusyError: the graph is being walked.
        """
        who = "Graph.remove_vertex"
        vertex = self._vertex(vertex, who)
        with self._handle.write(who) as g:
            call(lib.dag_remove_vertex, g, vertex, who=who)

    def replace_vertex(self, original: Vertex, replacement: Vertex) -> None:
        """Terraform's Replace: `replacement` takes over every edge of `original`, which is removed.

        Each dependency of original becomes one of replacement, each
        dependent of original depends on replacement instead. Replacing a
        vertex with itself does nothing. `replacement` must already exist.

        Raises:
            UnknownVertexError: either id is unknown.
            BusyError: the graph is being walked.
        """
        who = "Graph.replace_vertex"
        original = self._vertex(original, who)
        replacement = self._vertex(replacement, who)
        with self._handle.write(who) as g:
            call(lib.dag_replace_vertex, g, original, replacement, who=who)

    def has_vertex(self, vertex: object) -> bool:
        """True if `vertex` is a live vertex id, or the name of a vertex, of this graph."""
        try:
            vertex = self._vertex(vertex, "Graph.has_vertex")
        except (LookupError, ValueError, TypeError):  # not a vertex of any graph (None, 1.5, True)
            return False
        with self._handle.read("Graph.has_vertex") as g:
            return bool(lib.dag_has_vertex(g, vertex))

    def __contains__(self, vertex):
        """``vertex in graph``: whether `vertex` is a live vertex id or a vertex's name (False for other types)."""
        try:
            return self.has_vertex(vertex)
        except TypeError:
            return False

    def __len__(self):
        """The number of vertices."""
        with self._handle.read("Graph.__len__") as g:
            return lib.dag_vertex_count(g)

    def __bool__(self):
        # A graph is an object, not a collection to test for emptiness:
        # `if graph:` must not turn False for an empty one (or raise once closed).
        return True

    def __iter__(self):
        """Iterates over the vertex ids, ascending (a snapshot taken now)."""
        return iter(self.vertices())

    def find(self, name: Union[str, bytes]) -> int:
        """The id of the vertex named `name`.

        Raises:
            NotFoundError: no vertex has that name.
            InvalidArgumentError: the name is empty (no vertex can have it) or holds NUL.
            BadUtf8Error: the name is not UTF-8.
        """
        return self._find(name, "Graph.find")

    def _find(self, name, who):
        data = encode_name(name, who, allow_none=False)
        out = c_uint64()
        with self._handle.read(who) as g:
            call(lib.dag_find_vertex, g, data, byref(out), who=who)
        return out.value

    def find_vertices(self, names: Iterable[Union[str, bytes]]) -> List[Optional[int]]:
        """The id of the vertex named by each name, or None where no vertex has it.

        One call into the library: faster than one :meth:`find` per name on
        a large graph.

        Raises:
            InvalidArgumentError: a name is empty or holds NUL.
            BadUtf8Error: a name is not UTF-8.
        """
        who = "Graph.find_vertices"
        _not_one_name(names, who)
        data = [encode_name(name, who, allow_none=False) for name in names]
        count = len(data)
        out = (c_uint64 * max(count, 1))()
        with self._handle.read(who) as g:
            call(lib.dag_find_vertices, g, (c_char_p * max(count, 1))(*data), count, out, who=who)
        return [i or None for i in out[:count]]

    def _vertex(self, vertex, who):
        """The id of `vertex`: an id, checked to fit a uint64_t, or a vertex's name, looked up."""
        if isinstance(vertex, (str, bytes, bytearray)):
            return self._find(vertex, who)
        if isinstance(vertex, walk.SubwalkVertex):
            raise walk.not_of_this_graph(vertex, who)
        return vertex_id(vertex, who)

    def _vertex_array(self, vertices, who):
        """id_array() of one vertex or an iterable of them, names looked up (a SubwalkVertex refused, as by _vertex)."""
        if isinstance(vertices, (str, bytes, bytearray)) or hasattr(vertices, "__index__"):
            vertices = (vertices,)
        looked_up = (str, bytes, bytearray, walk.SubwalkVertex)
        return id_array([self._vertex(v, who) if isinstance(v, looked_up) else v for v in vertices], who)

    def name(self, vertex: Vertex) -> Optional[str]:
        """The name of a vertex, or None for an unnamed one.

        Raises:
            UnknownVertexError: no such vertex.
        """
        who = "Graph.name"
        vertex = self._vertex(vertex, who)
        out = c_char_p()
        with self._handle.read(who) as g:
            call(lib.dag_vertex_name, g, vertex, byref(out), who=who)
            # Copied while the read lasts: the C string is borrowed from the graph.
            return decode_name(out.value)

    def label(self, vertex: Vertex) -> str:
        """The name of a vertex as the library prints it: its name, or its decimal id when unnamed."""
        name = self.name(vertex)
        return str(vertex) if name is None else name

    def rename(self, vertex: Vertex, name: Optional[Union[str, bytes]]) -> None:
        """Renames a vertex; None makes it unnamed.

        Raises:
            UnknownVertexError: no such vertex.
            DuplicateNameError: another vertex has the name.
            InvalidArgumentError: the name is empty or holds NUL.
            BadUtf8Error: the name is not UTF-8.
            BusyError: the graph is being walked.
        """
        who = "Graph.rename"
        vertex = self._vertex(vertex, who)
        data = encode_name(name, who)
        with self._handle.write(who) as g:
            call(lib.dag_set_vertex_name, g, vertex, data, who=who)

    def user_data(self, vertex: Vertex) -> int:
        """The vertex's user data: a pointer-sized int stored with it (0 unless set).

        libdag keeps it as an opaque pointer and never reads it; from Python
        it is an int, e.g. an index into a list of your own. Copies of the
        graph (clone, select, subsume) copy it.
        """
        who = "Graph.user_data"
        vertex = self._vertex(vertex, who)
        out = c_void_p()
        with self._handle.read(who) as g:
            call(lib.dag_vertex_user_data, g, vertex, byref(out), who=who)
        return out.value or 0

    def set_user_data(self, vertex: Vertex, value: int) -> None:
        """Stores a pointer-sized int with the vertex (see :meth:`user_data`).

        Raises:
            UnknownVertexError, NotFoundError: no such vertex.
            InvalidArgumentError: `value` does not fit a pointer.
            BusyError: the graph is being walked.
        """
        who = "Graph.set_user_data"
        vertex = self._vertex(vertex, who)
        value = _pointer_value(value, who)
        with self._handle.write(who) as g:
            call(lib.dag_set_vertex_user_data, g, vertex, value, who=who)

    def vertices(self) -> List[int]:
        """Every vertex id, ascending."""
        with self._handle.read("Graph.vertices") as g:
            return ids_result(lib.dag_vertices, g, who="Graph.vertices")

    # -- edges -------------------------------------------------------------

    def connect(self, source: Vertex, target: Vertex) -> None:
        """Adds the edge source -> target: `source` depends on `target`.

        Connecting an existing edge again does nothing. A self edge is
        stored (validation reports it).

        Raises:
            UnknownVertexError: either id is unknown.
            BusyError: the graph is being walked.
        """
        who = "Graph.connect"
        source = self._vertex(source, who)
        target = self._vertex(target, who)
        with self._handle.write(who) as g:
            call(lib.dag_connect, g, source, target, who=who)

    def connect_many(self, edges: Iterable[Tuple[Vertex, Vertex]]) -> None:
        """Adds many edges at once, all or nothing: `edges` is an iterable of (source, target) pairs.

        Faster than one connect() per edge; existing edges and repeats are
        no-ops.

        Raises:
            UnknownVertexError: an id is unknown (the message gives the edge's
                index); the graph is then unchanged.
            ValueError: an element is not a pair.
            BusyError: the graph is being walked.
        """
        who = "Graph.connect_many"
        flat = []
        for index, edge in enumerate(edges):
            # A name of two letters would unpack as a pair of names.
            pair = None if isinstance(edge, (str, bytes, bytearray)) else _pair(edge)
            if pair is None:
                raise ValueError(f"{who}: edge {index} is {edge!r}, not a (source, target) pair")
            flat.extend(pair)
        pairs, count = self._vertex_array(flat, who)
        with self._handle.write(who) as g:
            call(lib.dag_connect_many, g, pairs, count // 2, who=who)

    def disconnect(self, source: Vertex, target: Vertex) -> None:
        """Removes the edge source -> target; nothing happens when there is none.

        Raises:
            UnknownVertexError: either id is unknown.
            BusyError: the graph is being walked.
        """
        who = "Graph.disconnect"
        source = self._vertex(source, who)
        target = self._vertex(target, who)
        with self._handle.write(who) as g:
            call(lib.dag_disconnect, g, source, target, who=who)

    def has_edge(self, source: object, target: object) -> bool:
        """True if the edge source -> target exists (False for unknown ids or names)."""
        who = "Graph.has_edge"
        try:
            source = self._vertex(source, who)
            target = self._vertex(target, who)
        except (LookupError, ValueError, TypeError):  # not a vertex of any graph (None, 1.5, True)
            return False
        with self._handle.read(who) as g:
            return bool(lib.dag_has_edge(g, source, target))

    def edge_count(self) -> int:
        """The number of edges."""
        with self._handle.read("Graph.edge_count") as g:
            return lib.dag_edge_count(g)

    def edges(self) -> List[Tuple[int, int]]:
        """Every edge as a (source, target) pair, sorted."""
        with self._handle.read("Graph.edges") as g:
            flat = ids_result(lib.dag_edges, g, who="Graph.edges")
        return list(zip(flat[0::2], flat[1::2]))

    def dependencies(self, vertex: Vertex) -> List[int]:
        """The direct dependencies of a vertex (targets of its edges, Terraform's DownEdges), ascending.

        Raises:
            UnknownVertexError: no such vertex.
        """
        who = "Graph.dependencies"
        vertex = self._vertex(vertex, who)
        with self._handle.read(who) as g:
            return ids_result(lib.dag_dependencies, g, vertex, who=who)

    def dependents(self, vertex: Vertex) -> List[int]:
        """The direct dependents of a vertex (sources of edges to it, Terraform's UpEdges), ascending.

        Raises:
            UnknownVertexError: no such vertex.
        """
        who = "Graph.dependents"
        vertex = self._vertex(vertex, who)
        with self._handle.read(who) as g:
            return ids_result(lib.dag_dependents, g, vertex, who=who)

    def roots(self) -> List[int]:
        """Every vertex nothing depends on (no dependents), ascending; root() succeeds when there is one.

        With a -> b and a -> c: roots() is [a], leaves() is [b, c]. A vertex
        with an edge to itself is neither.
        """
        with self._handle.read("Graph.roots") as g:
            return ids_result(lib.dag_roots, g, who="Graph.roots")

    def leaves(self) -> List[int]:
        """Every vertex that depends on nothing (no dependencies), ascending."""
        with self._handle.read("Graph.leaves") as g:
            return ids_result(lib.dag_leaves, g, who="Graph.leaves")

    def dependency_count(self, vertex: Vertex) -> int:
        """How many vertices `vertex` depends on directly (its out-degree): len(dependencies(vertex)), in O(1).

        Raises:
            UnknownVertexError: no such vertex.
        """
        return self._count(lib.dag_dependency_count, vertex, "Graph.dependency_count")

    def dependent_count(self, vertex: Vertex) -> int:
        """How many vertices depend on `vertex` directly (its in-degree): len(dependents(vertex)), in O(1).

        Raises:
            UnknownVertexError: no such vertex.
        """
        return self._count(lib.dag_dependent_count, vertex, "Graph.dependent_count")

    def _count(self, fn, vertex, who):
        vertex = self._vertex(vertex, who)
        out = c_size_t()
        with self._handle.read(who) as g:
            call(fn, g, vertex, byref(out), who=who)
        return out.value

    def select(self, targets: Vertices = (), *, exclude: Vertices = (), dependents: bool = False) -> "Graph":
        """A new graph with the part of this one that a partial run needs (Terraform's -target, -exclude).

        The targets and everything they depend on (with ``dependents``:
        everything that depends on them), less the excluded vertices and
        everything that depends on them (with ``dependents``: that they
        depend on). With a -> b -> c, ``select("b")`` keeps b and c;
        ``select(exclude="b")`` keeps c. No targets (the default) means
        every vertex is a target, so only `exclude` narrows the graph. Ids,
        names and user data are kept: an id names the same vertex in both.

        Raises:
            UnknownVertexError, NotFoundError: a target or excluded vertex is unknown.
        """
        who = "Graph.select"
        chosen, chosen_count = self._vertex_array(targets, who)
        excluded, excluded_count = self._vertex_array(exclude, who)
        flags = (_native.SELECT_DEPENDENTS if dependents else 0) | (0 if chosen_count else _native.SELECT_ALL)
        out = _native.graph_p()
        with self._handle.read(who) as g:
            call(lib.dag_select, g, chosen, chosen_count, excluded, excluded_count, flags, byref(out), who=who)
        return _adopt(type(self), out)

    def subsume(self, other: "Graph") -> None:
        """Terraform's Subsume: copies every vertex and edge of `other` into this graph.

        A named vertex of `other` whose name exists here is the same vertex
        (edges merged); every other vertex gets a new id. `other` is not
        changed. All or nothing.

        Raises:
            TypeError: `other` is not a Graph.
            InvalidArgumentError: `other` is this graph.
            BusyError: this graph is being walked.
            ClosedError: either graph is closed.
        """
        who = "Graph.subsume"
        if not isinstance(other, Graph):
            raise TypeError(f"{who}: expected a Graph, not {type(other).__name__}")
        if other is self:
            with self._handle.write(who) as g:
                call(lib.dag_subsume, g, g, who=who)  # the library's own error for g == other
            return
        # Two graphs, two gates: taken in one global order so that
        # a.subsume(b) and b.subsume(a) on two threads cannot deadlock.
        if id(self._handle) < id(other._handle):
            with self._handle.write(who) as g, other._handle.read(who) as o:
                call(lib.dag_subsume, g, o, who=who)
        else:
            with other._handle.read(who) as o, self._handle.write(who) as g:
                call(lib.dag_subsume, g, o, who=who)

    # -- text ----------------------------------------------------------------

    def __str__(self):
        """Terraform's String(): each vertex by name with its dependencies indented by two spaces."""
        with self._handle.read("Graph.__str__") as g:
            return string_result(lib.dag_to_string, g, who="str(Graph)")

    def __repr__(self):
        try:
            with self._handle.read("Graph.__repr__") as g:
                return f"<libdag.Graph {lib.dag_vertex_count(g)} vertices, {lib.dag_edge_count(g)} edges>"
        except ClosedError:
            return "<libdag.Graph closed>"

    def export(self, fmt: Union[str, Format]) -> str:
        """The graph as text in `fmt`: "text", "dot", "mermaid" or "json" (or a :class:`Format`).

        Output is deterministic. JSON round-trips exactly through
        :meth:`from_text` (ids, names, edges).

        Raises:
            InvalidArgumentError: an unknown format, or "auto"; DOT and a
                vertex name DOT cannot quote (one ending in a backslash).
        """
        who = "Graph.export"
        value = to_format(fmt, who)
        with self._handle.read(who) as g:
            return string_result(lib.dag_export_graph, g, value, who=who)

    @classmethod
    def from_dict(cls, dependencies: Mapping[str, Iterable[str]]) -> "Graph":
        """A new graph from a mapping of name to the names it depends on, as graphlib takes it.

        ``Graph.from_dict({"app": ["db", "net"], "db": ["net"]})`` has the
        named vertices app, db and net, app depending on db and net, db on
        net: graphlib.TopologicalSorter's graph, whose values are each
        node's predecessors. Vertices are added in the order first named.

        Raises:
            TypeError: a node is not a str (vertex names are strings), or a
                value is not an iterable of them.
            InvalidArgumentError, BadUtf8Error: a name libdag refuses.
        """
        who = "Graph.from_dict"
        graph = cls()
        try:
            ids = {}

            def vertex(name):
                if not isinstance(name, str):
                    raise TypeError(f"{who}: vertex names are str, not {type(name).__name__} ({name!r})")
                if name not in ids:
                    ids[name] = graph.add_vertex(name)
                return ids[name]

            edges = []
            for name, needs in dependencies.items():
                source = vertex(name)
                if isinstance(needs, str):
                    raise TypeError(f"{who}: the dependencies of {name!r} are an iterable of names, not a str")
                edges.extend((source, vertex(need)) for need in needs)
            graph.connect_many(edges)
        except BaseException:
            graph.close()
            raise
        return graph

    @classmethod
    def from_text(cls, data: Union[str, bytes], fmt: Union[str, Format] = "auto") -> "Graph":
        """A new graph read from `data` (str, or bytes) in "dot", "json" or "auto".

        "auto" reads JSON when the text starts with "{", DOT otherwise. A
        JSON import keeps the ids written in it; a DOT import names each
        vertex by its node ID, and every edge a -> b makes a depend on b.

        Raises:
            ParseError: malformed text (the message says where).
            BadUtf8Error: a DOT node ID that is not UTF-8.
            DuplicateNameError: JSON naming two vertices alike.
            InvalidArgumentError: format "text" or "mermaid" (export only);
                JSON with an empty name.
            TypeError: `data` is neither str nor bytes.
        """
        who = "Graph.from_text"
        value = to_format(fmt, who)
        if isinstance(data, str):
            raw = data.encode("utf-8", "surrogatepass")
        elif isinstance(data, (bytes, bytearray, memoryview)):
            raw = bytes(data)
        else:
            raise TypeError(f"{who}: data is str or bytes, not {type(data).__name__}")
        out = _native.graph_p()
        call(lib.dag_import_graph, value, raw, len(raw), byref(out), who=who)
        return _adopt(cls, out)

    @classmethod
    def from_file(cls, path: Union[str, bytes, "os.PathLike[str]"], fmt: Union[str, Format] = "auto") -> "Graph":
        """A new graph read from the file at `path` (str, bytes or os.PathLike), as from_text().

        "auto" looks at the content, not the file name.

        Raises:
            DagIOError: the file cannot be opened or read.
            and as :meth:`from_text`.
        """
        who = "Graph.from_file"
        value = to_format(fmt, who)
        raw = os.fsencode(path)
        if b"\0" in raw:
            raise InvalidArgumentError(_native.E_INVALID_ARGUMENT, f"{who}: a path cannot hold a NUL character")
        out = _native.graph_p()
        call(lib.dag_import_graph_file, value, raw, byref(out), who=who)
        return _adopt(cls, out)

    # -- checks --------------------------------------------------------------

    def root(self) -> int:
        """The single vertex nothing depends on (Terraform's Root()).

        Raises:
            NoRootError: no vertex is free of dependents (also for an empty graph).
            MultipleRootsError: several are; the message lists them.
        """
        out = c_uint64()
        with self._handle.read("Graph.root") as g:
            call(lib.dag_root, g, byref(out), who="Graph.root")
        return out.value

    def validate(self, single_root: bool = True) -> Validation:
        """Checks the graph and returns a :class:`Validation` listing every problem; never raises for them.

        Args:
            single_root: require exactly one root, as Terraform's Validate()
                did (newer Terraform dropped the rule: pass False).

        Use ``validate().raise_for_status()`` to raise CycleError (a cycle
        or a self reference, whatever else is wrong), NoRootError or
        MultipleRootsError instead.
        """
        with self._handle.read("Graph.validate") as g:
            return validation.validate(g, single_root)

    # -- algorithms ----------------------------------------------------------

    def strongly_connected(self) -> List[List[int]]:
        """Strongly connected components (Tarjan) as lists of ids, dependencies' components first."""
        with self._handle.read("Graph.strongly_connected") as g:
            return id_lists_result(lib.dag_strongly_connected, g, who="Graph.strongly_connected")

    def cycles(self) -> List[List[int]]:
        """Every cycle (component of more than one vertex) as a list of ids, as validate() orders them."""
        with self._handle.read("Graph.cycles") as g:
            return id_lists_result(lib.dag_cycles, g, who="Graph.cycles")

    def transitive_reduction(self) -> int:
        """Removes every edge a -> c that another path from a to c makes redundant; returns how many.

        Raises:
            CycleError: the graph has a cycle or self reference (it is unchanged).
            BusyError: the graph is being walked.
        """
        removed = c_size_t()
        with self._handle.write("Graph.transitive_reduction") as g:
            call(lib.dag_transitive_reduction, g, byref(removed), who="Graph.transitive_reduction")
        return removed.value

    def topological_order(self) -> List[int]:
        """Every vertex before its dependencies (dependents first); ties by name, then id.

        Raises:
            CycleError: the graph has a cycle or a self reference.
        """
        with self._handle.read("Graph.topological_order") as g:
            return ids_result(lib.dag_topological_order, g, who="Graph.topological_order")

    def reverse_topological_order(self) -> List[int]:
        """Every vertex after its dependencies: the order a sequential run executes them.

        Not simply topological_order() reversed: ties (by name, then id) are
        broken among the vertices free first in this direction.

        Raises:
            CycleError: the graph has a cycle or a self reference.
        """
        with self._handle.read("Graph.reverse_topological_order") as g:
            return ids_result(lib.dag_reverse_topological_order, g, who="Graph.reverse_topological_order")

    def ancestors(self, ids: Vertices) -> List[int]:
        """Everything the given vertices depend on, transitively (Terraform's Ancestors), ascending.

        `ids` is one id or an iterable of ids. A start vertex is included
        only when reachable from a start vertex.

        Raises:
            UnknownVertexError: a start id is unknown.
        """
        who = "Graph.ancestors"
        start = self._vertex_array(ids, who)
        with self._handle.read(who) as g:
            return ids_result(lib.dag_ancestors, g, *start, who=who)

    def descendants(self, ids: Vertices) -> List[int]:
        """Everything that depends on the given vertices, transitively (Terraform's Descendants), ascending.

        Raises:
            UnknownVertexError: a start id is unknown.
        """
        who = "Graph.descendants"
        start = self._vertex_array(ids, who)
        with self._handle.read(who) as g:
            return ids_result(lib.dag_descendants, g, *start, who=who)

    def first_ancestors_with(self, ids: Vertices, predicate: Callable[[int], object]) -> List[int]:
        """Terraform's FirstAncestorsWith: the first vertex matching `predicate` on each branch of the ancestors.

        `predicate(vertex_id)` is called once per vertex reached, on this
        thread; a truthy result collects the vertex and ends its branch. An
        exception from it stops the search and is raised here. Result ascending.

        Raises:
            UnknownVertexError: a start id is unknown.
        """
        who = "Graph.first_ancestors_with"
        start = self._vertex_array(ids, who)
        with self._handle.read(who) as g:
            return traversal.search(g, start, _native.SEARCH_FIRST_MATCH, predicate, who, traversal.FIRST_WITH)

    def first_descendants_with(self, ids: Vertices, predicate: Callable[[int], object]) -> List[int]:
        """FirstDescendantsWith: as first_ancestors_with(), towards dependents.

        Raises:
            UnknownVertexError: a start id is unknown.
        """
        who = "Graph.first_descendants_with"
        start = self._vertex_array(ids, who)
        with self._handle.read(who) as g:
            return traversal.search(g, start, _native.SEARCH_DEPENDENTS | _native.SEARCH_FIRST_MATCH, predicate, who,
                                    traversal.FIRST_WITH)

    def match_ancestor(self, ids: Vertices, predicate: Callable[[int], object]) -> bool:
        """Terraform's MatchAncestor: True when `predicate` is truthy for some ancestor of the start set.

        Stops at the first match. A start vertex counts only when it is its
        own ancestor (through a cycle, or from another start vertex).

        Raises:
            UnknownVertexError: a start id is unknown.
        """
        who = "Graph.match_ancestor"
        start = self._vertex_array(ids, who)
        with self._handle.read(who) as g:
            return bool(traversal.search(g, start, 0, predicate, who, traversal.MATCH_ANY))

    def match_descendant(self, ids: Vertices, predicate: Callable[[int], object]) -> bool:
        """MatchDescendant: as match_ancestor(), towards dependents.

        Raises:
            UnknownVertexError: a start id is unknown.
        """
        who = "Graph.match_descendant"
        start = self._vertex_array(ids, who)
        with self._handle.read(who) as g:
            return bool(traversal.search(g, start, _native.SEARCH_DEPENDENTS, predicate, who, traversal.MATCH_ANY))

    def search(self, ids: Vertices, callback: Callable[[int], object], *, dependents: bool = False,
               first_match: bool = False) -> List[int]:
        """Searches the ancestors of `ids` (with ``dependents=True``, the descendants); returns the matches, ascending.

        `callback(vertex_id)` is called once per vertex reached, depth first,
        on this thread, and returns a :class:`Search` value: ``MATCH`` (or
        True) collects the vertex, ``NO_MATCH`` (None, False) does not,
        ``SKIP`` does not go beyond it, ``STOP`` and ``MATCH_AND_STOP`` end
        the search with what it has found, ``ABORT`` ends it with
        CancelledError. With ``first_match=True`` a match ends its branch,
        as in first_ancestors_with(). An exception from the callback aborts
        the search and is raised here. A start vertex is reached only from a
        start vertex.

        Raises:
            UnknownVertexError: a start id is unknown.
            CancelledError: the callback returned ``Search.ABORT``.
            InvalidArgumentError: the callback returned something else.
        """
        who = "Graph.search"
        start = self._vertex_array(ids, who)
        flags = (_native.SEARCH_DEPENDENTS if dependents else 0) | (_native.SEARCH_FIRST_MATCH if first_match else 0)
        with self._handle.read(who) as g:
            return traversal.search(g, start, flags, callback, who)

    def traverse(self, start: Vertices, visitor: Optional[Callable[[int, int], object]] = None, *,
                 breadth_first: bool = False, reverse: bool = False, sort: bool = False) -> List[Tuple[int, int]]:
        """Terraform's Depth/BreadthFirstWalk (and Reverse...) from `start`; returns [(id, depth), ...].

        Every reachable vertex is visited once, in order, on this thread.
        `visitor(vertex_id, depth)`, when given, returns None or
        ``Visit.CONTINUE`` to go on, ``Visit.SKIP`` not to go beyond this
        vertex, ``Visit.STOP`` to end the traversal. An exception from it
        ends the traversal and is raised here.

        Args:
            start: one id or an iterable of ids.
            breadth_first: a queue instead of a stack.
            reverse: towards dependents instead of dependencies.
            sort: the start set and each batch of neighbours in name order
                (Terraform's deterministic test walk) instead of id order.

        Raises:
            UnknownVertexError: a start id is unknown (nothing is visited).
            InvalidArgumentError: the visitor returned something else.
        """
        who = "Graph.traverse"
        ids = self._vertex_array(start, who)
        flags = (
            (_native.TRAVERSE_BREADTH_FIRST if breadth_first else 0)
            | (_native.TRAVERSE_REVERSE if reverse else 0)
            | (_native.TRAVERSE_SORTED if sort else 0)
        )
        if visitor is not None and not callable(visitor):
            raise TypeError(f"{who}: a visitor must be callable, not {type(visitor).__name__}")
        with self._handle.read(who) as g:
            return traversal.traverse(g, ids, flags, visitor, who)

    # -- walks ---------------------------------------------------------------

    def walk(self, callback: WalkCallback, *, parallelism: int = 10, threads: Optional[int] = None, reverse: bool = False, fail_fast: bool = False,
             always_run: Vertices = (), timestamps: bool = True, observer: Observer = None,
             schedule: Optional[Schedule] = None) -> WalkReport:
        """Runs `callback(vertex_id)` once per vertex, each after its dependencies; blocks until done.

        The callback runs on libdag's pool threads. Returning normally means
        success; raising marks the vertex failed with ``str(exc)`` as its
        message, and every vertex depending on it, transitively, is skipped
        as UPSTREAM_FAILED. A failed walk does not raise: check the returned
        :class:`WalkReport` (``report.ok``, ``report.raise_for_status()``).

        Args:
            parallelism: the most callbacks running at once (at least 1).
            threads: threads in the walk's pool (at most 1024); None or 0
                (libdag's default) for one per slot of ``parallelism``.
            reverse: dependents before their dependencies (destroy order).
            fail_fast: after a failure start nothing new (the rest ends NOT_RUN).
            always_run: ids that run even when a dependency failed.
            timestamps: record start and end times per vertex.
            observer: None, or ``observer(event, vertex, status, running,
                done, total)`` called on start, finish and skip of each
                vertex (:class:`WalkEvent`, :class:`VertexStatus`), on the
                thread that caused it. Its exceptions go to
                ``sys.unraisablehook``; the walk goes on.
            schedule: None, or a :class:`Schedule`: named limits (pools)
                and retries (libdag 1.3). With retries, each vertex's
                :attr:`VertexResult.attempt_messages` are in the report.

        Raises:
            CycleError: the graph has a cycle or a self reference; nothing ran.
            UnknownVertexError: an always_run id, or a vertex of the
                schedule, is unknown.
            InvalidArgumentError: parallelism 0, parallelism or threads
                negative, threads above 1024; a vertex needs a pool the
                schedule does not declare or one of capacity 0.
            BusyError: the graph is already being walked.
        """
        return walk.run_walk(self, callback, parallelism=parallelism, threads=threads, reverse=reverse,
                             fail_fast=fail_fast, always_run=always_run, timestamps=timestamps, observer=observer,
                             schedule=schedule)

    def pull_walker(self, *, parallelism: int = 10, reverse: bool = False, fail_fast: bool = False,
                    always_run: Vertices = (), timestamps: bool = True, observer: Observer = None,
                    schedule: Optional[Schedule] = None) -> "PullWalker":
        """A :class:`PullWalker`: a walk whose ready vertices the caller takes and completes itself.

        Options as :meth:`walk` (a pull walk starts no thread: there is no
        ``threads``). Its ``run_on(executor, fn)`` runs the vertices on a
        ``concurrent.futures.Executor``, its ``run_async(fn)`` and ``async
        for`` on an asyncio event loop; see also :meth:`walk_on` and
        :meth:`walk_async`.

        Raises:
            ClosedError: the graph is closed.
            InvalidArgumentError, TypeError: bad options (checked here);
            the walk's own errors come from :meth:`Walker.start`.
        """
        from .pull import PullWalker

        return PullWalker(self, parallelism=parallelism, reverse=reverse, fail_fast=fail_fast,
                          always_run=always_run, timestamps=timestamps, observer=observer, schedule=schedule)

    def walk_on(self, executor: concurrent.futures.Executor, fn: Callable[[int], object], *, parallelism: int = 10,
                reverse: bool = False, fail_fast: bool = False, always_run: Vertices = (), timestamps: bool = True,
                observer: Observer = None, schedule: Optional[Schedule] = None) -> WalkReport:
        """Runs ``fn(vertex)`` for every vertex on a ``concurrent.futures.Executor``; returns the :class:`WalkReport`.

        Each vertex is submitted once its dependencies have finished; at
        most ``parallelism`` at once. Options as :meth:`pull_walker`. See
        :func:`libdag.executor.run_on` for failures, cancellation and Ctrl-C.
        """
        from .executor import run_on
        from .pull import PullWalker

        # Not pull_walker() and run_on(): refusals name the method called.
        with PullWalker(self, parallelism=parallelism, reverse=reverse, fail_fast=fail_fast, always_run=always_run,
                        timestamps=timestamps, observer=observer, schedule=schedule, _who="Graph.walk_on") as walker:
            return run_on(walker, executor, fn, "Graph.walk_on")

    async def walk_async(self, fn: Callable[[int], Awaitable[object]], *, parallelism: int = 10, reverse: bool = False,
                         fail_fast: bool = False, always_run: Vertices = (), timestamps: bool = True,
                         observer: Observer = None, schedule: Optional[Schedule] = None) -> WalkReport:
        """Awaits ``fn(vertex)`` (a coroutine function, or any awaitable it returns) for every vertex; returns the report.

        Options as :meth:`pull_walker`. See :func:`libdag.aio.run` for
        failures and cancellation.
        """
        from .aio import run
        from .pull import PullWalker

        # Not pull_walker() and run_async(): refusals name the method called.
        with PullWalker(self, parallelism=parallelism, reverse=reverse, fail_fast=fail_fast, always_run=always_run,
                        timestamps=timestamps, observer=observer, schedule=schedule, _who="Graph.walk_async") as walker:
            return await run(walker, fn, "Graph.walk_async")

    def walker(self, callback: WalkCallback, *, parallelism: int = 10, threads: Optional[int] = None, reverse: bool = False, fail_fast: bool = False,
               always_run: Vertices = (), timestamps: bool = True, observer: Observer = None,
               schedule: Optional[Schedule] = None) -> Walker:
        """A :class:`Walker` for a walk in the background: call its start(), then wait().

        Arguments as :meth:`walk`. Its callback may also return
        :data:`PENDING` and finish the vertex later with
        :meth:`Walker.complete`, from any thread.

        Raises:
            ClosedError: the graph is closed.
            InvalidArgumentError, TypeError: bad options (checked here);
            the walk's own errors come from :meth:`Walker.start`.
        """
        return walk.Walker(self, callback, parallelism=parallelism, threads=threads, reverse=reverse,
                           fail_fast=fail_fast, always_run=always_run, timestamps=timestamps, observer=observer,
                           schedule=schedule)
