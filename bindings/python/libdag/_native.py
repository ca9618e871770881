"""Loading libdag and declaring its C functions for ctypes.

Nothing here is public: the rest of the package calls ``lib.dag_*`` with the
prototypes below, so that ctypes converts and checks every argument instead
of guessing (an undeclared uint64_t argument would be passed as a C int).

The library is looked for, in this order:

1. ``$LIBDAG_PATH``: a full path to ``libdag.so.1`` (or ``libdag.so``). When
   it is set, it is the only place tried, so that a wrong setting is an
   error rather than a silent fall-back to some other copy.
2. ``ctypes.util.find_library("dag")``: the system's search (ldconfig).
3. ``"libdag.so.1"``: the soname, resolved by the dynamic loader
   (``LD_LIBRARY_PATH``, rpath, the default directories).
4. ``libdag.so.1`` in the ``libdir`` that ``pkg-config`` gives for libdag
   (``PKG_CONFIG_PATH`` included): an install under another prefix.

The loaded library must have ABI major version 1 (``dag_version() // 10000``).
"""

import ctypes
import ctypes.util
import os
import subprocess
from ctypes import (
    CFUNCTYPE,
    POINTER,
    Structure,
    c_char_p,
    c_int,
    c_int64,
    c_size_t,
    c_uint,
    c_uint64,
    c_void_p,
)

ABI_MAJOR = 1

# dag_status values (pinned by the ABI).
OK = 0
E_NULL_ARGUMENT = -1
E_INVALID_ARGUMENT = -2
E_NOMEM = -3
E_UNKNOWN_VERTEX = -4
E_NOT_FOUND = -5
E_DUPLICATE_NAME = -6
E_BAD_UTF8 = -7
E_CYCLE = -8
E_BUSY = -9
E_NO_ROOT = -10
E_MULTIPLE_ROOTS = -11
E_INVALID_GRAPH = -12
E_STATE = -13
E_CANCELLED = -14
E_PARSE = -15
E_IO = -16
E_INTERNAL = -17
E_WALK_FAILED = -18
E_CALLBACK = -19
E_TIMEOUT = -20

# dag_walk_result
WALK_OK = 0
WALK_FAILED = 1
WALK_PENDING = 2
WALK_CANCELLED = 3

# dag_failure_policy
FAILURE_CONTINUE = 0
FAILURE_FAIL_FAST = 1

# dag_walk_priority (1.3)
PRIORITY_NONE = 0
PRIORITY_CRITICAL_PATH = 1
PRIORITY_NAME = 2

# dag_traverse flags
TRAVERSE_BREADTH_FIRST = 1
TRAVERSE_REVERSE = 2
TRAVERSE_SORTED = 4

# dag_search flags (1.2)
SEARCH_DEPENDENTS = 1
SEARCH_FIRST_MATCH = 2

# dag_select flags (1.3)
SELECT_DEPENDENTS = 1
SELECT_ALL = 2

# dag_action (1.3)
ACTION_NONE = 0
ACTION_CREATE = 1
ACTION_UPDATE = 2
ACTION_DELETE = 3
ACTION_REPLACE = 4
ACTION_CREATE_BEFORE_DESTROY = 5

# dag_builder_add_references and dag_builder_add_shared flags (1.3)
REFERENCES_WARN = 1
SHARED_CLOSE = 1

WALK_MAX_THREADS = 1024


class dag_error(Structure):
    """Opaque."""


class dag_ids(Structure):
    """Opaque."""


class dag_graph(Structure):
    """Opaque."""


class dag_validation(Structure):
    """Opaque."""


class dag_id_lists(Structure):
    """Opaque."""


class dag_walker(Structure):
    """Opaque."""


class dag_walk_report(Structure):
    """Opaque."""


class dag_walk_update(Structure):
    """Opaque."""


class dag_builder(Structure):
    """Opaque."""


error_p = POINTER(dag_error)
ids_p = POINTER(dag_ids)
graph_p = POINTER(dag_graph)
validation_p = POINTER(dag_validation)
id_lists_p = POINTER(dag_id_lists)
walker_p = POINTER(dag_walker)
walk_report_p = POINTER(dag_walk_report)
walk_update_p = POINTER(dag_walk_update)
builder_p = POINTER(dag_builder)
uint64_p = POINTER(c_uint64)
size_p = POINTER(c_size_t)

VISIT_FN = CFUNCTYPE(c_int, c_uint64, c_size_t, c_void_p)
PREDICATE_FN = CFUNCTYPE(c_int, c_uint64, c_void_p)
SEARCH_FN = CFUNCTYPE(c_int, c_uint64, c_void_p)
# The walker and message arguments are kept as raw addresses: the callback
# writes *message itself, and the walker handle is never turned into an object.
WALK_FN = CFUNCTYPE(c_int, c_void_p, c_uint64, c_void_p, c_void_p)
OBSERVER_FN = CFUNCTYPE(None, c_void_p, c_int, c_uint64, c_int, c_size_t, c_size_t, c_size_t, c_void_p)


THREAD_HOOK_FN = CFUNCTYPE(None, c_void_p)


class WalkEventInfo(Structure):
    """dag_walk_event_info (1.2)."""

    _fields_ = [
        ("size", c_size_t),
        ("event", c_int),
        ("vertex", c_uint64),
        ("status", c_int),
        ("running", c_size_t),
        ("done", c_size_t),
        ("total", c_size_t),
        ("sequence", c_uint64),
    ]


EVENT_FN = CFUNCTYPE(None, c_void_p, POINTER(WalkEventInfo), c_void_p)


class VertexOutcome(Structure):
    """dag_vertex_outcome (1.2)."""

    _fields_ = [
        ("vertex", c_uint64),
        ("status", c_int),
        ("ran", c_int),
        ("start_ns", c_int64),
        ("end_ns", c_int64),
        ("message", c_char_p),
    ]


class ValidateOptions(Structure):
    """dag_validate_options."""

    _fields_ = [("size", c_size_t), ("single_root", c_int)]


class WalkOptions(Structure):
    """dag_walk_options."""

    _fields_ = [
        ("size", c_size_t),
        ("parallelism", c_size_t),
        ("threads", c_size_t),
        ("reverse", c_int),
        ("failure_policy", c_int),
        ("timestamps", c_int),
        ("always_run", uint64_p),
        ("always_run_count", c_size_t),
        ("observer", OBSERVER_FN),
        ("observer_data", c_void_p),
        # 1.2
        ("thread_start", THREAD_HOOK_FN),
        ("thread_exit", THREAD_HOOK_FN),
        ("thread_hook_data", c_void_p),
        ("event_observer", EVENT_FN),
        ("event_observer_data", c_void_p),
        # 1.3
        ("pool_names", POINTER(c_char_p)),
        ("pool_capacities", POINTER(c_size_t)),
        ("pool_count", c_size_t),
        ("pool_need_vertices", uint64_p),
        ("pool_need_names", POINTER(c_char_p)),
        ("pool_need_count", c_size_t),
        ("retries", c_size_t),
        ("retry_delay_ms", c_uint64),
        ("retry_max_delay_ms", c_uint64),
        ("retry_doubling", c_int),
        ("retry_vertices", uint64_p),
        ("retry_counts", POINTER(c_size_t)),
        ("retry_vertex_count", c_size_t),
        ("priority", c_int),
        ("weight_vertices", uint64_p),
        ("weights", uint64_p),
        ("weight_count", c_size_t),
    ]


# The graph and message arguments are raw addresses: the step reaches the
# graph through its Python object, and writes *message itself.
BUILD_STEP_FN = CFUNCTYPE(c_int, c_void_p, c_void_p, c_void_p)


class BuildStepInfo(Structure):
    """dag_build_step_info."""

    _fields_ = [
        ("size", c_size_t),
        ("name", c_char_p),
        ("index", c_size_t),
        ("duration_ns", c_uint64),
        ("vertices_before", c_size_t),
        ("edges_before", c_size_t),
        ("vertices_after", c_size_t),
        ("edges_after", c_size_t),
        ("graph", c_void_p),
    ]


BUILD_OBSERVER_FN = CFUNCTYPE(None, POINTER(BuildStepInfo), c_void_p)


class BuildOptions(Structure):
    """dag_build_options."""

    _fields_ = [
        ("size", c_size_t),
        ("validate", c_int),
        ("single_root", c_int),
        ("observer", BUILD_OBSERVER_FN),
        ("observer_data", c_void_p),
    ]


_E = POINTER(error_p)  # dag_error **err, the last parameter of fallible calls

# name: (restype, argtypes)
_PROTOTYPES = {
    "dag_version": (c_uint, []),
    "dag_version_string": (c_char_p, []),
    "dag_status_string": (c_char_p, [c_int]),
    "dag_error_status": (c_int, [error_p]),
    "dag_error_message": (c_char_p, [error_p]),
    "dag_error_free": (None, [error_p]),
    "dag_ids_count": (c_size_t, [ids_p]),
    "dag_ids_data": (uint64_p, [ids_p]),
    "dag_ids_free": (None, [ids_p]),
    # char * results are taken as addresses so that they can be freed.
    "dag_string_free": (None, [c_void_p]),
    "dag_new": (c_int, [POINTER(graph_p), _E]),
    "dag_free": (None, [graph_p]),
    "dag_clone": (c_int, [graph_p, POINTER(graph_p), _E]),
    "dag_add_vertex": (c_int, [graph_p, c_char_p, c_void_p, uint64_p, _E]),
    "dag_remove_vertex": (c_int, [graph_p, c_uint64, _E]),
    "dag_replace_vertex": (c_int, [graph_p, c_uint64, c_uint64, _E]),
    "dag_has_vertex": (c_int, [graph_p, c_uint64]),
    "dag_vertex_count": (c_size_t, [graph_p]),
    "dag_find_vertex": (c_int, [graph_p, c_char_p, uint64_p, _E]),
    "dag_vertex_name": (c_int, [graph_p, c_uint64, POINTER(c_char_p), _E]),
    "dag_set_vertex_name": (c_int, [graph_p, c_uint64, c_char_p, _E]),
    "dag_connect": (c_int, [graph_p, c_uint64, c_uint64, _E]),
    "dag_connect_many": (c_int, [graph_p, uint64_p, c_size_t, _E]),
    "dag_disconnect": (c_int, [graph_p, c_uint64, c_uint64, _E]),
    "dag_has_edge": (c_int, [graph_p, c_uint64, c_uint64]),
    "dag_edge_count": (c_size_t, [graph_p]),
    "dag_vertices": (c_int, [graph_p, POINTER(ids_p), _E]),
    "dag_edges": (c_int, [graph_p, POINTER(ids_p), _E]),
    "dag_dependencies": (c_int, [graph_p, c_uint64, POINTER(ids_p), _E]),
    "dag_dependents": (c_int, [graph_p, c_uint64, POINTER(ids_p), _E]),
    "dag_subsume": (c_int, [graph_p, graph_p, _E]),
    "dag_to_string": (c_int, [graph_p, POINTER(c_void_p), _E]),
    "dag_export_graph": (c_int, [graph_p, c_int, POINTER(c_void_p), _E]),
    "dag_import_graph": (c_int, [c_int, c_char_p, c_size_t, POINTER(graph_p), _E]),
    "dag_import_graph_file": (c_int, [c_int, c_char_p, POINTER(graph_p), _E]),
    "dag_format_name": (c_char_p, [c_int]),
    "dag_root": (c_int, [graph_p, uint64_p, _E]),
    "dag_validate_options_init": (c_int, [POINTER(ValidateOptions), c_size_t, _E]),
    "dag_validate": (c_int, [graph_p, POINTER(ValidateOptions), POINTER(validation_p), _E]),
    "dag_validation_status": (c_int, [validation_p]),
    "dag_validation_text": (c_char_p, [validation_p]),
    "dag_validation_message_count": (c_size_t, [validation_p]),
    "dag_validation_message": (c_char_p, [validation_p, c_size_t]),
    "dag_validation_cycle_count": (c_size_t, [validation_p]),
    "dag_validation_cycle": (uint64_p, [validation_p, c_size_t, size_p]),
    "dag_validation_self_references": (uint64_p, [validation_p, size_p]),
    "dag_validation_free": (None, [validation_p]),
    "dag_id_lists_count": (c_size_t, [id_lists_p]),
    "dag_id_lists_get": (uint64_p, [id_lists_p, c_size_t, size_p]),
    "dag_id_lists_free": (None, [id_lists_p]),
    "dag_strongly_connected": (c_int, [graph_p, POINTER(id_lists_p), _E]),
    "dag_cycles": (c_int, [graph_p, POINTER(id_lists_p), _E]),
    "dag_transitive_reduction": (c_int, [graph_p, size_p, _E]),
    "dag_topological_order": (c_int, [graph_p, POINTER(ids_p), _E]),
    "dag_reverse_topological_order": (c_int, [graph_p, POINTER(ids_p), _E]),
    "dag_traverse": (c_int, [graph_p, uint64_p, c_size_t, c_uint, VISIT_FN, c_void_p, _E]),
    "dag_ancestors": (c_int, [graph_p, uint64_p, c_size_t, POINTER(ids_p), _E]),
    "dag_descendants": (c_int, [graph_p, uint64_p, c_size_t, POINTER(ids_p), _E]),
    "dag_first_ancestors_with": (
        c_int, [graph_p, uint64_p, c_size_t, PREDICATE_FN, c_void_p, POINTER(ids_p), _E]),
    "dag_first_descendants_with": (
        c_int, [graph_p, uint64_p, c_size_t, PREDICATE_FN, c_void_p, POINTER(ids_p), _E]),
    "dag_match_ancestor": (
        c_int, [graph_p, uint64_p, c_size_t, PREDICATE_FN, c_void_p, POINTER(c_int), _E]),
    "dag_match_descendant": (
        c_int, [graph_p, uint64_p, c_size_t, PREDICATE_FN, c_void_p, POINTER(c_int), _E]),
    "dag_walk_options_init": (c_int, [POINTER(WalkOptions), c_size_t, _E]),
    "dag_walk": (c_int, [graph_p, WALK_FN, c_void_p, POINTER(WalkOptions), POINTER(walk_report_p), _E]),
    "dag_walk_start": (c_int, [graph_p, WALK_FN, c_void_p, POINTER(WalkOptions), POINTER(walker_p), _E]),
    "dag_walk_wait": (c_int, [walker_p, POINTER(walk_report_p), _E]),
    "dag_walk_wait_for": (c_int, [walker_p, c_int, POINTER(walk_report_p), _E]),
    "dag_walk_report_read": (c_int, [walk_report_p, c_size_t, POINTER(VertexOutcome), c_size_t, c_size_t,
                                     POINTER(c_size_t), _E]),
    "dag_walk_cancel": (c_int, [walker_p, _E]),
    "dag_walk_free": (None, [walker_p]),
    # The walker as an address: the walk's own, or a sub-walk's as handed out.
    "dag_walk_complete": (c_int, [c_void_p, c_uint64, c_int, c_char_p, _E]),
    "dag_walk_report_free": (None, [walk_report_p]),
    "dag_walk_report_size": (c_size_t, [walk_report_p]),
    "dag_walk_report_count": (c_size_t, [walk_report_p, c_int]),
    "dag_walk_report_vertices": (c_int, [walk_report_p, POINTER(ids_p), _E]),
    "dag_walk_report_vertex": (
        c_int,
        [walk_report_p, c_uint64, POINTER(c_int), POINTER(c_char_p), POINTER(c_int64), POINTER(c_int64), _E],
    ),
    "dag_walk_report_first_error": (c_uint64, [walk_report_p, POINTER(c_char_p)]),
    "dag_walk_report_cancelled": (c_int, [walk_report_p]),
    "dag_walk_report_ran": (c_int, [walk_report_p, c_uint64]),
    "dag_walk_report_attempts": (c_int, [walk_report_p, c_uint64, POINTER(c_size_t), _E]),
    "dag_walk_report_attempt_message": (c_int, [walk_report_p, c_uint64, c_size_t, POINTER(c_char_p), _E]),
    "dag_vertex_status_string": (c_char_p, [c_int]),
    # 1.2
    "dag_roots": (c_int, [graph_p, POINTER(ids_p), _E]),
    "dag_leaves": (c_int, [graph_p, POINTER(ids_p), _E]),
    "dag_dependency_count": (c_int, [graph_p, c_uint64, size_p, _E]),
    "dag_dependent_count": (c_int, [graph_p, c_uint64, size_p, _E]),
    "dag_search": (c_int, [graph_p, uint64_p, c_size_t, c_uint, SEARCH_FN, c_void_p, POINTER(ids_p), _E]),
    # The walker as the raw address a walk callback receives.
    "dag_walk_fail": (c_int, [c_void_p, c_uint64, c_char_p, _E]),
    "dag_walk_expand": (c_int, [c_void_p, c_uint64, graph_p, WALK_FN, c_void_p, _E]),
    "dag_walk_progress": (c_int, [walker_p, size_p, size_p, _E]),
    "dag_walk_graph": (graph_p, [c_void_p]),
    "dag_walk_begin": (c_int, [graph_p, POINTER(WalkOptions), POINTER(walker_p), _E]),
    "dag_walk_next_ready": (c_int, [walker_p, uint64_p, POINTER(c_void_p), c_size_t, c_int, size_p, _E]),
    "dag_walk_update_new": (c_int, [POINTER(walk_update_p), _E]),
    "dag_walk_update_free": (None, [walk_update_p]),
    "dag_walk_update_add_vertex": (c_int, [walk_update_p, c_char_p, c_void_p, c_int, uint64_p, _E]),
    "dag_walk_update_connect": (c_int, [walk_update_p, c_uint64, c_uint64, _E]),
    "dag_walk_update_disconnect": (c_int, [walk_update_p, c_uint64, c_uint64, _E]),
    "dag_walk_update_remove_vertex": (c_int, [walk_update_p, c_uint64, _E]),
    "dag_walk_apply": (c_int, [walker_p, walk_update_p, POINTER(ids_p), _E]),
    "dag_vertex_user_data": (c_int, [graph_p, c_uint64, POINTER(c_void_p), _E]),
    "dag_set_vertex_user_data": (c_int, [graph_p, c_uint64, c_void_p, _E]),
    # The function table (const dag_api_table *), declared for completeness: see tests/test_coverage.py.
    "dag_api": (c_void_p, [c_uint]),
    # 1.3
    "dag_add_vertices": (c_int, [graph_p, POINTER(c_char_p), c_void_p, c_size_t, uint64_p, _E]),
    "dag_find_vertices": (c_int, [graph_p, POINTER(c_char_p), c_size_t, uint64_p, _E]),
    "dag_select": (c_int, [graph_p, uint64_p, c_size_t, uint64_p, c_size_t, c_uint, POINTER(graph_p), _E]),
    "dag_builder_new": (c_int, [graph_p, POINTER(builder_p), _E]),
    "dag_builder_free": (None, [builder_p]),
    "dag_builder_provide": (c_int, [builder_p, c_uint64, c_char_p, _E]),
    "dag_builder_reference": (c_int, [builder_p, c_uint64, c_char_p, _E]),
    "dag_builder_need": (c_int, [builder_p, c_uint64, c_char_p, _E]),
    "dag_builder_set_action": (c_int, [builder_p, c_uint64, c_int, _E]),
    "dag_builder_add_step": (c_int, [builder_p, c_char_p, BUILD_STEP_FN, c_void_p, _E]),
    "dag_builder_add_references": (c_int, [builder_p, c_uint, _E]),
    "dag_builder_add_shared": (c_int, [builder_p, c_uint, _E]),
    "dag_builder_add_root": (c_int, [builder_p, c_char_p, _E]),
    "dag_builder_add_destroy_order": (c_int, [builder_p, _E]),
    "dag_builder_add_transitive_reduction": (c_int, [builder_p, _E]),
    "dag_builder_add_prune": (c_int, [builder_p, PREDICATE_FN, c_void_p, _E]),
    "dag_build_options_init": (c_int, [POINTER(BuildOptions), c_size_t, _E]),
    "dag_build": (c_int, [builder_p, POINTER(BuildOptions), _E]),
    "dag_builder_warnings": (c_int, [builder_p, POINTER(c_void_p), _E]),
}


def _candidates():
    explicit = os.environ.get("LIBDAG_PATH")
    if explicit:
        return [explicit]
    found = ctypes.util.find_library("dag")
    names = [found] if found else []
    if "libdag.so.1" not in names:
        names.append("libdag.so.1")
    return names + _pkg_config_candidates()


def _pkg_config_candidates():
    """libdag.so.1 in pkg-config's libdir for libdag: an install under a prefix the loader does not search."""
    try:
        result = subprocess.run(["pkg-config", "--variable=libdir", "libdag"], stdout=subprocess.PIPE,
                                stderr=subprocess.DEVNULL, text=True, timeout=10, check=False)
    except (OSError, subprocess.SubprocessError):
        return []
    libdir = result.stdout.strip()
    if result.returncode != 0 or not libdir:
        return []
    return [os.path.join(libdir, "libdag.so.1")]


def _load():
    tried = []
    for name in _candidates():
        try:
            handle = ctypes.CDLL(name)
        except OSError as exc:
            tried.append(f"{name}: {exc}")
            continue
        break
    else:
        hint = "" if os.environ.get("LIBDAG_PATH") else " (set LIBDAG_PATH to the full path of libdag.so.1)"
        raise ImportError("cannot load libdag" + hint + "; tried " + "; ".join(tried))
    # The version first: a library of another major version may lack
    # functions, and saying which version it is explains that best.
    for fn_name in ("dag_version", "dag_version_string"):
        if not hasattr(handle, fn_name):
            raise ImportError(f"{handle._name} has no {fn_name}: it is not libdag")
    for fn_name, (restype, argtypes) in _PROTOTYPES.items():
        try:
            fn = getattr(handle, fn_name)
        except AttributeError:
            raise ImportError(f"{handle._name} has no {fn_name}: the library is older than this binding") from None
        fn.restype = restype
        fn.argtypes = argtypes
        if fn_name == "dag_version_string" and handle.dag_version() // 10000 != ABI_MAJOR:
            raise ImportError(
                f"{handle._name} is libdag {handle.dag_version_string().decode()}; "
                f"this binding needs major version {ABI_MAJOR}"
            )
    return handle


lib = _load()
path = lib._name
