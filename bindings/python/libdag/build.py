"""Building a graph in named steps, as Terraform's graph builder runs its transformers (``dag_builder``).

A :class:`Builder` works on a :class:`~libdag.Graph` in place: declare what
each vertex provides, references, needs and plans to do, add steps (the
built-in ones and Python functions), then :meth:`Builder.build`::

    with libdag.Graph() as g, libdag.Builder(g) as b:
        vpc, subnet = g.add_vertex("aws_vpc.main"), g.add_vertex("aws_subnet.public")
        b.provide(vpc, "aws_vpc.main")
        b.reference(subnet, "aws_vpc.main.id")
        b.add_references()
        b.add_root()
        b.build()                      # subnet -> vpc

The C library calls steps, the prune predicate and the observer on the
thread that called build(); a Python exception raised in one is raised,
unchanged, from build(). One raised in a step stops the build there; the
predicate and the observer return no status to C, so the built-in steps
after one that raised still run (the predicate then counts as false, the
observer is not called again, and the next Python step stops the build).

Ctrl-C during build() on the main thread (Python's own SIGINT handler
installed) is raised in the step, predicate or observer running then, as
plain Python would raise it, and is not lost where it lands between two
calls: from then on no Python runs (a step fails, the predicate counts as
false, the observer is not called), and build() raises KeyboardInterrupt
once the C build has returned.
"""

from __future__ import annotations

import enum
import threading
from ctypes import byref, c_char_p, sizeof
from typing import TYPE_CHECKING, Callable, List, Optional, Union

from . import _native
from ._closeable import Closeable
from ._native import lib
from ._owned import encode_name, string_result
from .errors import ClosedError, InvalidArgumentError, call
from .traversal import _calling_back
from .types import Vertex

if TYPE_CHECKING:
    from .graph import Graph

__all__ = ["Action", "Builder", "BuildStep"]


class Action(enum.IntEnum):
    """A vertex's planned change (``dag_action``), read by the destroy order step."""

    NONE = _native.ACTION_NONE
    CREATE = _native.ACTION_CREATE
    UPDATE = _native.ACTION_UPDATE
    #: The vertex becomes ``NAME (destroy)``.
    DELETE = _native.ACTION_DELETE
    #: ``NAME (destroy)`` runs before ``NAME``.
    REPLACE = _native.ACTION_REPLACE
    #: ``NAME`` runs before ``NAME (destroy)``.
    CREATE_BEFORE_DESTROY = _native.ACTION_CREATE_BEFORE_DESTROY


class BuildStep:
    """What the build observer hears after each step that succeeded."""

    __slots__ = ("name", "index", "duration_ns", "vertices_before", "edges_before", "vertices_after",
                 "edges_after")

    def __init__(self, info):
        self.name = info.name.decode("utf-8")
        self.index = info.index
        self.duration_ns = info.duration_ns
        self.vertices_before = info.vertices_before
        self.edges_before = info.edges_before
        self.vertices_after = info.vertices_after
        self.edges_after = info.edges_after

    def __repr__(self):
        return (f"BuildStep({self.name!r}, vertices {self.vertices_before} -> {self.vertices_after}, "
                f"edges {self.edges_before} -> {self.edges_after}, {self.duration_ns} ns)")


class _Callbacks:
    """The Python functions the C build calls, and the first exception one of them raised."""

    def __init__(self, graph):
        self.graph = graph
        self.error = None
        # Ctrl-C during the build: see traversal._calling_back(). Once
        # interrupted, no Python runs: steps fail, the predicate is false.
        self.interrupted = False
        self.in_user = False
        # The graph's change (Handle.write) the running build holds.
        self.change = None
        self.keep = []  # ctypes function objects must outlive every build

    def step(self, fn):
        def call_step(_graph, _message, _user_data):
            if self.error is not None or self.interrupted:
                return 1
            # The build holds the graph's write gate; a step changes the graph
            # through the Graph's own methods, which take it themselves.
            handle = self.graph._handle
            status = 0
            try:
                handle.pause_write(self.change)
                self.in_user = True
                try:
                    fn(self.graph)
                finally:
                    self.in_user = False
            except BaseException as exc:  # noqa: B902 - every exception must stop at the C boundary
                self.error = exc
                status = 1
            try:
                handle.resume_write(self.change, "Builder.build")
            except BaseException as exc:  # noqa: B902 - closed or walked by another thread meanwhile
                if self.error is None:
                    self.error = exc
                status = 1
            return status

        c_fn = _native.BUILD_STEP_FN(call_step)
        self.keep.append(c_fn)
        return c_fn

    def predicate(self, fn):
        def call_predicate(vertex, _user_data):
            if self.error is not None or self.interrupted:
                return 0
            try:
                self.in_user = True
                try:
                    answer = fn(vertex)
                finally:
                    self.in_user = False
                return 1 if answer else 0
            except BaseException as exc:  # noqa: B902
                self.error = exc
                return 0

        c_fn = _native.PREDICATE_FN(call_predicate)
        self.keep.append(c_fn)
        return c_fn


class Builder(Closeable):
    """Declarations and steps that build `graph` in place (``dag_builder``).

    The builder keeps the graph's C object alive until it is closed. Use it
    from one thread at a time; calls from another thread wait.
    """

    __slots__ = ("_ptr", "_graph", "_lock", "_callbacks", "__weakref__")

    def __init__(self, graph):
        from .graph import Graph

        who = "Builder"
        if not isinstance(graph, Graph):
            raise TypeError(f"{who}: expected a Graph, not {type(graph).__name__}")
        self._ptr = None
        self._graph = graph
        self._lock = threading.RLock()
        self._callbacks = _Callbacks(graph)
        out = _native.builder_p()
        with graph._handle.write(who) as g:
            call(lib.dag_builder_new, g, byref(out), who=who)
        self._ptr = out

    @property
    def graph(self):
        """The graph the steps change."""
        return self._graph

    def close(self) -> None:
        """Frees the builder; the graph stays as the steps left it. Idempotent."""
        with self._lock:
            ptr, self._ptr = self._ptr, None
            if ptr is not None:
                lib.dag_builder_free(ptr)

    def _builder(self, who):
        if self._ptr is None:
            raise ClosedError(_native.E_STATE, f"{who}: the builder is closed")
        return self._ptr

    def _declare(self, fn, vertex, texts, who):
        with self._lock:
            b = self._builder(who)
            vertex = self._graph._vertex(vertex, who)
            # libdag looks the vertex up in the graph: a read, under the graph's gate, or a change on
            # another thread runs beside it (a crash).
            with self._graph._handle.read(who):
                for text in texts:
                    call(fn, b, vertex, encode_name(text, who, allow_none=False), who=who)

    def provide(self, vertex: Vertex, *addresses: Union[str, bytes]) -> None:
        """Declares that `vertex` provides each address (``aws_instance.web``): references under it resolve to it."""
        self._declare(lib.dag_builder_provide, vertex, addresses, "Builder.provide")

    def reference(self, vertex: Vertex, *addresses: Union[str, bytes]) -> None:
        """Declares that `vertex` references each address; the references step connects it to the
        vertex providing the longest prefix (cut before ``.`` and ``[``; a prefix with a bracketed
        key is also tried without its keys, so ``module.net[0].x`` finds ``module.net.x`` before
        ``module.net[0]``, as Terraform resolves it; see ``dag_builder_reference``)."""
        self._declare(lib.dag_builder_reference, vertex, addresses, "Builder.reference")

    def need(self, vertex: Vertex, *keys: Union[str, bytes]) -> None:
        """Declares that `vertex` needs each shared vertex (a provider), see :meth:`add_shared`."""
        self._declare(lib.dag_builder_need, vertex, keys, "Builder.need")

    def set_action(self, vertex: Vertex, action: Union[Action, str]) -> None:
        """Sets the planned change of `vertex`: an :class:`Action` or its name ("replace")."""
        who = "Builder.set_action"
        if isinstance(action, str):
            try:
                action = Action[action.upper()]
            except KeyError:
                raise ValueError(f"{who}: unknown action {action!r}") from None
        elif isinstance(action, bool) or not hasattr(action, "__index__"):
            raise TypeError(f"{who}: an action is an Action or its name, not {type(action).__name__}")
        elif not -(1 << 31) <= action.__index__() < (1 << 31):  # ctypes would wrap it into some other int
            raise InvalidArgumentError(_native.E_INVALID_ARGUMENT, f"{who}: action {action} is not a dag_action")
        with self._lock:
            b = self._builder(who)
            vertex = self._graph._vertex(vertex, who)
            with self._graph._handle.read(who):  # a read of the graph, as in _declare
                call(lib.dag_builder_set_action, b, vertex, action.__index__(), who=who)

    def add_step(self, name: str, fn: Callable[["Graph"], object]) -> None:
        """Appends a step of your own: ``fn(graph)`` may read and change the graph; an exception stops the build."""
        who = "Builder.add_step"
        if not callable(fn):
            raise TypeError(f"{who}: the step is not callable")
        with self._lock:
            b = self._builder(who)
            call(lib.dag_builder_add_step, b, encode_name(name, who, allow_none=False), self._callbacks.step(fn),
                 None, who=who)

    def add_references(self, warn: bool = False) -> None:
        """Appends the step "references": unresolved references fail the build, or with `warn` become warnings."""
        with self._lock:
            call(lib.dag_builder_add_references, self._builder("Builder.add_references"),
                 _native.REFERENCES_WARN if warn else 0, who="Builder.add_references")

    def add_shared(self, close: bool = False) -> None:
        """Appends the step "shared": each needed key's vertex, created on demand; with `close`, ``KEY (close)``."""
        with self._lock:
            call(lib.dag_builder_add_shared, self._builder("Builder.add_shared"),
                 _native.SHARED_CLOSE if close else 0, who="Builder.add_shared")

    def add_root(self, name: Optional[str] = None) -> None:
        """Appends the step "root": a vertex (``root`` by default) depending on every vertex nothing depends on."""
        who = "Builder.add_root"
        with self._lock:
            call(lib.dag_builder_add_root, self._builder(who), encode_name(name, who), who=who)

    def add_destroy_order(self) -> None:
        """Appends the step "destroy order": the apply graph of the actions (see dag.h for the rules)."""
        with self._lock:
            call(lib.dag_builder_add_destroy_order, self._builder("Builder.add_destroy_order"),
                 who="Builder.add_destroy_order")

    def add_transitive_reduction(self) -> None:
        """Appends the step "transitive reduction"."""
        with self._lock:
            call(lib.dag_builder_add_transitive_reduction, self._builder("Builder.add_transitive_reduction"),
                 who="Builder.add_transitive_reduction")

    def add_prune(self, predicate: Callable[[int], object]) -> None:
        """Appends the step "prune": removes, repeatedly, vertices nothing depends on for which `predicate(id)` is true."""
        who = "Builder.add_prune"
        if not callable(predicate):
            raise TypeError(f"{who}: the predicate is not callable")
        with self._lock:
            call(lib.dag_builder_add_prune, self._builder(who), self._callbacks.predicate(predicate), None, who=who)

    def build(self, *, validate: bool = True, single_root: bool = True,
              observer: Optional[Callable[[BuildStep], None]] = None) -> List[str]:
        """Runs the steps in order, then validates unless `validate` is false; returns the warnings.

        Raises:
            the failing step's error (its message names the step), or the
            exception a Python step, predicate or observer raised (after
            the predicate's or the observer's, the built-in steps still run:
            see the module's documentation).
        KeyboardInterrupt: Ctrl-C during the build (see the module's documentation).
        """
        who = "Builder.build"
        with self._lock:
            b = self._builder(who)
            options = _native.BuildOptions()
            call(lib.dag_build_options_init, byref(options), sizeof(options), who=who)
            options.validate = 1 if validate else 0
            options.single_root = 1 if single_root else 0
            callbacks = self._callbacks
            callbacks.error = None
            callbacks.interrupted = False
            if observer is not None:
                def call_observer(info, _user_data):
                    if callbacks.error is None and not callbacks.interrupted:
                        try:
                            step = BuildStep(info.contents)
                            callbacks.in_user = True
                            try:
                                observer(step)
                            finally:
                                callbacks.in_user = False
                        except BaseException as exc:  # noqa: B902
                            callbacks.error = exc

                options.observer = _native.BUILD_OBSERVER_FN(call_observer)
            change = self._graph._handle.write(who)
            with change:
                callbacks.change = change
                try:
                    _calling_back(callbacks, lambda: call(lib.dag_build, b, byref(options), who=who))
                except Exception:
                    if callbacks.error is None:
                        raise
                finally:
                    callbacks.change = None
                    # A step whose resume_write() a Ctrl-C stopped at its
                    # first line left the mark released: the with's exit
                    # releases it.
                    if not change._is_owned():
                        change.acquire()
            if callbacks.error is not None:
                error, callbacks.error = callbacks.error, None
                raise error
            if self._ptr is None:
                return []  # closed by one of its own steps: freed as the build returned
            return self.warnings()

    def warnings(self) -> List[str]:
        """The last build's warnings (unresolved references under ``add_references(warn=True)``)."""
        who = "Builder.warnings"
        with self._lock:
            text = string_result(lib.dag_builder_warnings, self._builder(who), who=who)
        return text.split("\n") if text else []
