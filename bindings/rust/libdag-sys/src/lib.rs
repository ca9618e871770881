//! Raw declarations of libdag's C API, mirroring `include/dag/dag.h` of
//! libdag 1.3 item by item.
//!
//! Everything here is `unsafe` to call and follows the C header's rules:
//! ownership, threads and errors are documented next to each declaration in
//! `dag.h`, which is the reference; the notes below only summarise. For a
//! safe API use the `libdag` crate.
//!
//! Conventions of the translation:
//! - C enums are integer type aliases plus one constant per enumerator
//!   (`dag_status` is `c_int`, since it has negative values; the others are
//!   `c_uint`, which is what C compilers give an enum without negative
//!   values). Values outside the listed constants can come back from a newer
//!   library, which a Rust `enum` could not represent safely.
//! - Opaque handles are zero-sized `#[repr(C)]` structs that are neither
//!   `Send`, `Sync` nor `Unpin`; only pointers to them are ever used.
//! - Function pointers are `Option<unsafe extern "C" fn ...>`, so that NULL
//!   is `None`.
//! - The options structs (`dag_validate_options`, `dag_walk_options`) and
//!   `dag_api_table` are `#[repr(C)]` with the header's field order; their
//!   first field is their own size. Always fill them through the matching
//!   `_init` function.
//!
//! Linking: the build script links `-ldag`, searching `$LIBDAG_LIB_DIR`
//! when set, else the directories `pkg-config --libs-only-L libdag` reports.
#![allow(non_camel_case_types)]

use std::marker::{PhantomData, PhantomPinned};
use std::os::raw::{c_char, c_int, c_uint, c_void};

// ---------------------------------------------------------------------------
// Versions
// ---------------------------------------------------------------------------

/// Major version of the header this crate mirrors.
pub const DAG_VERSION_MAJOR: c_uint = 1;
/// Minor version of the header this crate mirrors.
pub const DAG_VERSION_MINOR: c_uint = 3;
/// Patch version of the header this crate mirrors.
pub const DAG_VERSION_PATCH: c_uint = 0;
/// `MAJOR*10000 + MINOR*100 + PATCH`, comparable with [`dag_version`].
pub const DAG_VERSION_NUMBER: c_uint =
    DAG_VERSION_MAJOR * 10000 + DAG_VERSION_MINOR * 100 + DAG_VERSION_PATCH;
/// The header's version as a string.
pub const DAG_VERSION_STRING: &str = "1.3.0";

// ---------------------------------------------------------------------------
// Opaque handles
// ---------------------------------------------------------------------------

macro_rules! opaque {
    ($(#[$doc:meta] $name:ident),* $(,)?) => {
        $(
            #[$doc]
            #[repr(C)]
            pub struct $name {
                _private: [u8; 0],
                // Raw-pointer marker: not Send/Sync by default; pinned since
                // libdag owns the object's address.
                _marker: PhantomData<(*mut u8, PhantomPinned)>,
            }
        )*
    };
}

opaque! {
    /// An error returned through a `dag_error **err` out-parameter; freed by [`dag_error_free`].
    dag_error,
    /// An owned, immutable array of `uint64_t` values; freed by [`dag_ids_free`].
    dag_ids,
    /// An opaque directed graph; created by [`dag_new`], freed by [`dag_free`].
    dag_graph,
    /// An owned validation result; freed by [`dag_validation_free`].
    dag_validation,
    /// An owned list of id lists; freed by [`dag_id_lists_free`].
    dag_id_lists,
    /// A running or finished walk; freed by [`dag_walk_free`]. Its functions are thread-safe.
    dag_walker,
    /// The outcome of a walk; freed by [`dag_walk_report_free`].
    dag_walk_report,
    /// A graph's declarations and building steps (1.3); freed by [`dag_builder_free`].
    dag_builder,
    /// A batch of changes for a running walk; freed by [`dag_walk_update_free`]. Not thread-safe.
    dag_walk_update,
}

// ---------------------------------------------------------------------------
// Status codes
// ---------------------------------------------------------------------------

/// Result of every fallible function: 0 on success, a negative code on
/// failure. Values are pinned forever; new codes are only appended.
pub type dag_status = c_int;
/// Success.
pub const DAG_OK: dag_status = 0;
/// A required pointer argument was NULL.
pub const DAG_E_NULL_ARGUMENT: dag_status = -1;
/// An argument is out of range or malformed.
pub const DAG_E_INVALID_ARGUMENT: dag_status = -2;
/// Memory could not be allocated.
pub const DAG_E_NOMEM: dag_status = -3;
/// A vertex id is 0, was never issued by this graph, or was removed.
pub const DAG_E_UNKNOWN_VERTEX: dag_status = -4;
/// A lookup found nothing.
pub const DAG_E_NOT_FOUND: dag_status = -5;
/// A vertex name is already used by another vertex of the graph.
pub const DAG_E_DUPLICATE_NAME: dag_status = -6;
/// A string argument is not valid UTF-8.
pub const DAG_E_BAD_UTF8: dag_status = -7;
/// The graph (or the change) has a cycle.
pub const DAG_E_CYCLE: dag_status = -8;
/// The graph is being walked or traversed and cannot be changed now.
pub const DAG_E_BUSY: dag_status = -9;
/// The graph has no root (single-root validation).
pub const DAG_E_NO_ROOT: dag_status = -10;
/// The graph has more than one root (single-root validation).
pub const DAG_E_MULTIPLE_ROOTS: dag_status = -11;
/// Validation found several problems.
pub const DAG_E_INVALID_GRAPH: dag_status = -12;
/// The call is not allowed in the current state.
pub const DAG_E_STATE: dag_status = -13;
/// A walk was cancelled.
pub const DAG_E_CANCELLED: dag_status = -14;
/// Input text could not be parsed.
pub const DAG_E_PARSE: dag_status = -15;
/// A file could not be read or written.
pub const DAG_E_IO: dag_status = -16;
/// A bug inside libdag.
pub const DAG_E_INTERNAL: dag_status = -17;
/// A walk ran to its end but at least one vertex failed.
pub const DAG_E_WALK_FAILED: dag_status = -18;
/// A C++ exception escaped a callback, observer, hook, visitor or predicate
/// (since 1.2).
pub const DAG_E_CALLBACK: dag_status = -19;
/// A wait with a time limit ended first; nothing changed (1.2).
pub const DAG_E_TIMEOUT: dag_status = -20;

/// Never a valid vertex id.
pub const DAG_NO_VERTEX: u64 = 0;

// ---------------------------------------------------------------------------
// Text formats
// ---------------------------------------------------------------------------

/// The text forms of a graph (`dag_export_graph`, `dag_import_graph`).
pub type dag_format = c_uint;
/// Import only: JSON when the text starts with `{`, DOT otherwise.
pub const DAG_FORMAT_AUTO: dag_format = 0;
/// Terraform's `String()` layout. Export only.
pub const DAG_FORMAT_TEXT: dag_format = 1;
/// Graphviz DOT in `terraform graph`'s layout.
pub const DAG_FORMAT_DOT: dag_format = 2;
/// A Mermaid `flowchart TD`. Export only.
pub const DAG_FORMAT_MERMAID: dag_format = 3;
/// libdag's JSON form, which round-trips exactly.
pub const DAG_FORMAT_JSON: dag_format = 4;

// ---------------------------------------------------------------------------
// Algorithms
// ---------------------------------------------------------------------------

/// Options for [`dag_validate`]; fill with [`dag_validate_options_init`].
#[repr(C)]
#[derive(Debug, Clone, Copy)]
pub struct dag_validate_options {
    /// `sizeof(dag_validate_options)`, set by the init function.
    pub size: usize,
    /// Nonzero (default): exactly one vertex must have no dependents.
    pub single_root: c_int,
}

/// What a [`dag_visit_fn`] tells the traversal to do next.
pub type dag_visit = c_uint;
/// Go on, beyond this vertex too.
pub const DAG_VISIT_CONTINUE: dag_visit = 0;
/// Do not go beyond this vertex; go on elsewhere.
pub const DAG_VISIT_SKIP: dag_visit = 1;
/// End the traversal now; it returns `DAG_OK`.
pub const DAG_VISIT_STOP: dag_visit = 2;

/// Traversal visitor: called synchronously on the calling thread; returns a
/// `dag_visit` value (as `int`).
pub type dag_visit_fn =
    Option<unsafe extern "C" fn(id: u64, depth: usize, user_data: *mut c_void) -> c_int>;

/// Breadth first (a queue) instead of depth first (a stack).
pub const DAG_TRAVERSE_BREADTH_FIRST: c_uint = 1;
/// Towards dependents instead of dependencies.
pub const DAG_TRAVERSE_REVERSE: c_uint = 2;
/// The start set and each batch of neighbours in name order.
pub const DAG_TRAVERSE_SORTED: c_uint = 4;

/// A test on one vertex: nonzero for a match. Called synchronously on the
/// calling thread.
pub type dag_predicate_fn = Option<unsafe extern "C" fn(id: u64, user_data: *mut c_void) -> c_int>;

/// What a [`dag_search_fn`] says about a vertex (1.2).
pub type dag_search_action = c_uint;
/// Not a match; search on beyond it.
pub const DAG_SEARCH_NO_MATCH: dag_search_action = 0;
/// A match; search on beyond it unless `DAG_SEARCH_FIRST_MATCH`.
pub const DAG_SEARCH_MATCH: dag_search_action = 1;
/// A match, and the last: the search returns `DAG_OK` with every match so far.
pub const DAG_SEARCH_MATCH_AND_STOP: dag_search_action = 2;
/// Not a match; the search returns `DAG_OK` with every earlier match.
pub const DAG_SEARCH_STOP: dag_search_action = 3;
/// The search returns `DAG_E_CANCELLED`.
pub const DAG_SEARCH_ABORT: dag_search_action = 4;
/// Not a match, and nothing beyond it is searched.
pub const DAG_SEARCH_SKIP: dag_search_action = 5;

/// A search callback (1.2): called synchronously on the calling thread;
/// returns a `dag_search_action` value (as `int`).
pub type dag_search_fn = Option<unsafe extern "C" fn(id: u64, user_data: *mut c_void) -> c_int>;

/// Search towards dependents instead of dependencies (1.2).
pub const DAG_SEARCH_DEPENDENTS: c_uint = 1;
/// A match ends its branch (1.2).
pub const DAG_SEARCH_FIRST_MATCH: c_uint = 2;

/// [`dag_select`] keeps the targets' dependents and excludes the excluded
/// vertices' dependencies (1.3).
pub const DAG_SELECT_DEPENDENTS: c_uint = 1;
/// [`dag_select`] starts from every vertex (1.3).
pub const DAG_SELECT_ALL: c_uint = 2;

// ---------------------------------------------------------------------------
// Building a graph (1.3)
// ---------------------------------------------------------------------------

/// A vertex's planned change, for [`dag_builder_set_action`] (1.3).
pub type dag_action = c_int;
/// Nothing to do (the default).
pub const DAG_ACTION_NONE: dag_action = 0;
/// Created.
pub const DAG_ACTION_CREATE: dag_action = 1;
/// Updated in place.
pub const DAG_ACTION_UPDATE: dag_action = 2;
/// Destroyed: the vertex becomes `NAME (destroy)`.
pub const DAG_ACTION_DELETE: dag_action = 3;
/// Destroyed, then created again.
pub const DAG_ACTION_REPLACE: dag_action = 4;
/// Created again, then the old one destroyed.
pub const DAG_ACTION_CREATE_BEFORE_DESTROY: dag_action = 5;

/// [`dag_builder_add_references`]: unresolved references are warnings (1.3).
pub const DAG_REFERENCES_WARN: c_uint = 1;
/// [`dag_builder_add_shared`]: also add `NAME (close)` vertices (1.3).
pub const DAG_SHARED_CLOSE: c_uint = 1;

/// A step of your own: 0 goes on, anything else stops the build (1.3).
pub type dag_build_step_fn = Option<
    unsafe extern "C" fn(
        g: *mut dag_graph,
        message: *mut *const c_char,
        user_data: *mut c_void,
    ) -> c_int,
>;

/// What the build observer hears after each step (1.3); read `size` first.
#[repr(C)]
#[derive(Debug, Clone, Copy)]
pub struct dag_build_step_info {
    pub size: usize,
    pub name: *const c_char,
    pub index: usize,
    pub duration_ns: u64,
    pub vertices_before: usize,
    pub edges_before: usize,
    pub vertices_after: usize,
    pub edges_after: usize,
    pub graph: *const dag_graph,
}

/// The build observer (1.3).
pub type dag_build_observer_fn =
    Option<unsafe extern "C" fn(info: *const dag_build_step_info, user_data: *mut c_void)>;

/// Options for [`dag_build`] (1.3); fill through [`dag_build_options_init`].
#[repr(C)]
#[derive(Debug, Clone, Copy)]
pub struct dag_build_options {
    pub size: usize,
    pub validate: c_int,
    pub single_root: c_int,
    pub observer: dag_build_observer_fn,
    pub observer_data: *mut c_void,
}

// ---------------------------------------------------------------------------
// Walks
// ---------------------------------------------------------------------------

/// What a walk callback says about its vertex.
pub type dag_walk_result = c_uint;
/// The vertex's work succeeded.
pub const DAG_WALK_OK: dag_walk_result = 0;
/// The vertex failed; its transitive dependents are skipped.
pub const DAG_WALK_FAILED: dag_walk_result = 1;
/// Finish later with [`dag_walk_complete`].
pub const DAG_WALK_PENDING: dag_walk_result = 2;
/// For [`dag_walk_complete`] only, once the walk was cancelled: the host
/// stopped the work for the cancel; the vertex ends cancelled (1.3).
pub const DAG_WALK_CANCELLED: dag_walk_result = 3;

/// The final state of a vertex in a report.
pub type dag_vertex_status = c_uint;
/// Never started.
pub const DAG_VERTEX_NOT_RUN: dag_vertex_status = 0;
/// Finished ok.
pub const DAG_VERTEX_OK: dag_vertex_status = 1;
/// Its callback (or completion, or sub-walk) failed.
pub const DAG_VERTEX_FAILED: dag_vertex_status = 2;
/// Skipped because a dependency did not finish ok.
pub const DAG_VERTEX_UPSTREAM_FAILED: dag_vertex_status = 3;
/// Never started, or was pending, when the walk was cancelled.
pub const DAG_VERTEX_CANCELLED: dag_vertex_status = 4;

/// What the walk does after a vertex failed.
pub type dag_failure_policy = c_uint;
/// Terraform's behaviour: skip the failed vertex's dependents, go on.
pub const DAG_FAILURE_CONTINUE: dag_failure_policy = 0;
/// Start nothing new.
pub const DAG_FAILURE_FAIL_FAST: dag_failure_policy = 1;

/// Which ready vertex starts first (`dag_walk_options.priority`, since 1.3).
pub type dag_walk_priority = c_uint;
/// 1.2's order, the default and the fastest.
pub const DAG_PRIORITY_NONE: dag_walk_priority = 0;
/// The longest remaining path first (weighted), ties by name, then id.
pub const DAG_PRIORITY_CRITICAL_PATH: dag_walk_priority = 1;
/// By name, then id.
pub const DAG_PRIORITY_NAME: dag_walk_priority = 2;

/// Observer events.
pub type dag_walk_event = c_uint;
/// A vertex's callback is about to run.
pub const DAG_WALK_EVENT_STARTED: dag_walk_event = 0;
/// A vertex that started has finished.
pub const DAG_WALK_EVENT_FINISHED: dag_walk_event = 1;
/// A vertex finished without running.
pub const DAG_WALK_EVENT_SKIPPED: dag_walk_event = 2;

/// The per-vertex walk callback, called on a pool thread. `*message` is NULL
/// on entry; to explain a failure point it at a NUL-terminated string that
/// is still valid when the callback returns (libdag copies it then).
pub type dag_walk_fn = Option<
    unsafe extern "C" fn(
        walk: *mut dag_walker,
        vertex: u64,
        message: *mut *const c_char,
        user_data: *mut c_void,
    ) -> dag_walk_result,
>;

/// The walk observer: progress and tracing events, from any of the walk's
/// threads.
pub type dag_walk_observer_fn = Option<
    unsafe extern "C" fn(
        walk: *mut dag_walker,
        event: dag_walk_event,
        vertex: u64,
        status: dag_vertex_status,
        running: usize,
        done: usize,
        total: usize,
        user_data: *mut c_void,
    ),
>;

/// The most threads a walk's pool may have.
pub const DAG_WALK_MAX_THREADS: usize = 1024;

/// One vertex's outcome, as [`dag_walk_report_read`] writes it (1.2).
#[repr(C)]
#[derive(Debug, Clone, Copy)]
pub struct dag_vertex_outcome {
    pub vertex: u64,
    pub status: dag_vertex_status,
    pub ran: c_int,
    pub start_ns: i64,
    pub end_ns: i64,
    /// Owned by the report.
    pub message: *const c_char,
}

/// Walk options; fill with [`dag_walk_options_init`], then change fields.
#[repr(C)]
#[derive(Debug, Clone, Copy)]
pub struct dag_walk_options {
    /// `sizeof(dag_walk_options)`, set by the init function.
    pub size: usize,
    /// Most callbacks in flight at once. Default 10, at least 1.
    pub parallelism: usize,
    /// Threads in the walk's pool, at most `DAG_WALK_MAX_THREADS`. Default
    /// 0: one per slot of `parallelism`.
    pub threads: usize,
    /// Nonzero: dependents run before their dependencies. Default 0.
    pub reverse: c_int,
    /// Default `DAG_FAILURE_CONTINUE`.
    pub failure_policy: dag_failure_policy,
    /// Nonzero (default): record start and end times.
    pub timestamps: c_int,
    /// Vertices that run even when a dependency failed; borrowed for the
    /// call. NULL when `always_run_count` is 0.
    pub always_run: *const u64,
    /// Number of ids at `always_run`.
    pub always_run_count: usize,
    /// Optional observer, called with `observer_data` last.
    pub observer: dag_walk_observer_fn,
    /// Passed to `observer`.
    pub observer_data: *mut c_void,
    /// Since 1.2: called on each pool thread as it starts.
    pub thread_start: dag_thread_hook_fn,
    /// Since 1.2: called on each pool thread as it ends.
    pub thread_exit: dag_thread_hook_fn,
    /// Since 1.2: passed to `thread_start` and `thread_exit`.
    pub thread_hook_data: *mut c_void,
    /// Since 1.2: the event observer (events with a sequence number).
    pub event_observer: dag_walk_event_fn,
    /// Since 1.2: passed to `event_observer`.
    pub event_observer_data: *mut c_void,
    /// Since 1.3: the names of the walk's pools (named limits), borrowed
    /// for the call. NULL when `pool_count` is 0.
    pub pool_names: *const *const c_char,
    /// Since 1.3: the capacity of each pool in `pool_names`.
    pub pool_capacities: *const usize,
    /// Since 1.3: number of pools.
    pub pool_count: usize,
    /// Since 1.3: vertex `pool_need_vertices[i]` needs a slot in the pool
    /// named `pool_need_names[i]`. NULL when `pool_need_count` is 0.
    pub pool_need_vertices: *const u64,
    /// Since 1.3: the pool each entry of `pool_need_vertices` needs.
    pub pool_need_names: *const *const c_char,
    /// Since 1.3: number of entries in the two need arrays.
    pub pool_need_count: usize,
    /// Since 1.3: how many more times a failed vertex is tried.
    pub retries: usize,
    /// Since 1.3: the wait before the first retry, in milliseconds.
    pub retry_delay_ms: u64,
    /// Since 1.3: the longest wait, in milliseconds; 0 for no cap.
    pub retry_max_delay_ms: u64,
    /// Since 1.3: nonzero: each retry waits twice as long as the one before.
    pub retry_doubling: c_int,
    /// Since 1.3: vertices with a retry count of their own.
    pub retry_vertices: *const u64,
    /// Since 1.3: the retry count of each vertex in `retry_vertices`.
    pub retry_counts: *const usize,
    /// Since 1.3: number of entries in `retry_vertices` and `retry_counts`.
    pub retry_vertex_count: usize,
    /// Since 1.3: which ready vertex starts first.
    pub priority: dag_walk_priority,
    /// Since 1.3: vertices with a weight of their own for
    /// `DAG_PRIORITY_CRITICAL_PATH` (others weigh 1).
    pub weight_vertices: *const u64,
    /// Since 1.3: the weight of each vertex in `weight_vertices`.
    pub weights: *const u64,
    /// Since 1.3: number of entries in `weight_vertices` and `weights`.
    pub weight_count: usize,
}

/// A pool thread's start or exit hook (since 1.2).
/// One walk event with its sequence number (1.2); read `size` first.
#[repr(C)]
#[derive(Debug, Clone, Copy)]
pub struct dag_walk_event_info {
    pub size: usize,
    pub event: dag_walk_event,
    pub vertex: u64,
    pub status: dag_vertex_status,
    pub running: usize,
    pub done: usize,
    pub total: usize,
    pub sequence: u64,
}

/// The event observer (1.2).
pub type dag_walk_event_fn = Option<
    unsafe extern "C" fn(
        walk: *mut dag_walker,
        info: *const dag_walk_event_info,
        user_data: *mut c_void,
    ),
>;

pub type dag_thread_hook_fn = Option<unsafe extern "C" fn(thread_hook_data: *mut c_void)>;

// ---------------------------------------------------------------------------
// Function table for plugin hosts
// ---------------------------------------------------------------------------

/// Every public function, for hosts that `dlopen` libdag. Fields are only
/// ever appended: check `size` before using a field this header has and an
/// older library may lack.
#[repr(C)]
#[derive(Debug, Clone, Copy)]
pub struct dag_api_table {
    /// `sizeof(dag_api_table)` as the library was built.
    pub size: usize,
    /// [`dag_version`]`()` of the library.
    pub version: c_uint,
    /// [`dag_version`]
    pub version_number: Option<unsafe extern "C" fn() -> c_uint>,
    /// [`dag_version_string`]
    pub version_string: Option<unsafe extern "C" fn() -> *const c_char>,
    /// [`dag_status_string`]
    pub status_string: Option<unsafe extern "C" fn(status: dag_status) -> *const c_char>,
    /// [`dag_error_status`]
    pub error_status: Option<unsafe extern "C" fn(err: *const dag_error) -> dag_status>,
    /// [`dag_error_message`]
    pub error_message: Option<unsafe extern "C" fn(err: *const dag_error) -> *const c_char>,
    /// [`dag_error_free`]
    pub error_free: Option<unsafe extern "C" fn(err: *mut dag_error)>,
    /// [`dag_ids_count`]
    pub ids_count: Option<unsafe extern "C" fn(ids: *const dag_ids) -> usize>,
    /// [`dag_ids_data`]
    pub ids_data: Option<unsafe extern "C" fn(ids: *const dag_ids) -> *const u64>,
    /// [`dag_ids_free`]
    pub ids_free: Option<unsafe extern "C" fn(ids: *mut dag_ids)>,
    /// [`dag_string_free`]
    pub string_free: Option<unsafe extern "C" fn(str: *mut c_char)>,
    /// [`dag_new`]
    pub new_graph: Option<
        unsafe extern "C" fn(out: *mut *mut dag_graph, err: *mut *mut dag_error) -> dag_status,
    >,
    /// [`dag_free`]
    pub free_graph: Option<unsafe extern "C" fn(g: *mut dag_graph)>,
    /// [`dag_clone`]
    pub clone: Option<
        unsafe extern "C" fn(
            g: *const dag_graph,
            out: *mut *mut dag_graph,
            err: *mut *mut dag_error,
        ) -> dag_status,
    >,
    /// [`dag_add_vertex`]
    pub add_vertex: Option<
        unsafe extern "C" fn(
            g: *mut dag_graph,
            name: *const c_char,
            user_data: *mut c_void,
            out_id: *mut u64,
            err: *mut *mut dag_error,
        ) -> dag_status,
    >,
    /// [`dag_remove_vertex`]
    pub remove_vertex: Option<
        unsafe extern "C" fn(g: *mut dag_graph, id: u64, err: *mut *mut dag_error) -> dag_status,
    >,
    /// [`dag_replace_vertex`]
    pub replace_vertex: Option<
        unsafe extern "C" fn(
            g: *mut dag_graph,
            original: u64,
            replacement: u64,
            err: *mut *mut dag_error,
        ) -> dag_status,
    >,
    /// [`dag_has_vertex`]
    pub has_vertex: Option<unsafe extern "C" fn(g: *const dag_graph, id: u64) -> c_int>,
    /// [`dag_vertex_count`]
    pub vertex_count: Option<unsafe extern "C" fn(g: *const dag_graph) -> usize>,
    /// [`dag_find_vertex`]
    pub find_vertex: Option<
        unsafe extern "C" fn(
            g: *const dag_graph,
            name: *const c_char,
            out_id: *mut u64,
            err: *mut *mut dag_error,
        ) -> dag_status,
    >,
    /// [`dag_vertex_name`]
    pub vertex_name: Option<
        unsafe extern "C" fn(
            g: *const dag_graph,
            id: u64,
            out_name: *mut *const c_char,
            err: *mut *mut dag_error,
        ) -> dag_status,
    >,
    /// [`dag_set_vertex_name`]
    pub set_vertex_name: Option<
        unsafe extern "C" fn(
            g: *mut dag_graph,
            id: u64,
            name: *const c_char,
            err: *mut *mut dag_error,
        ) -> dag_status,
    >,
    /// [`dag_vertex_user_data`]
    pub vertex_user_data: Option<
        unsafe extern "C" fn(
            g: *const dag_graph,
            id: u64,
            out: *mut *mut c_void,
            err: *mut *mut dag_error,
        ) -> dag_status,
    >,
    /// [`dag_set_vertex_user_data`]
    pub set_vertex_user_data: Option<
        unsafe extern "C" fn(
            g: *mut dag_graph,
            id: u64,
            user_data: *mut c_void,
            err: *mut *mut dag_error,
        ) -> dag_status,
    >,
    /// [`dag_connect`]
    pub connect: Option<
        unsafe extern "C" fn(
            g: *mut dag_graph,
            from: u64,
            to: u64,
            err: *mut *mut dag_error,
        ) -> dag_status,
    >,
    /// [`dag_connect_many`]
    pub connect_many: Option<
        unsafe extern "C" fn(
            g: *mut dag_graph,
            pairs: *const u64,
            count: usize,
            err: *mut *mut dag_error,
        ) -> dag_status,
    >,
    /// [`dag_disconnect`]
    pub disconnect: Option<
        unsafe extern "C" fn(
            g: *mut dag_graph,
            from: u64,
            to: u64,
            err: *mut *mut dag_error,
        ) -> dag_status,
    >,
    /// [`dag_has_edge`]
    pub has_edge: Option<unsafe extern "C" fn(g: *const dag_graph, from: u64, to: u64) -> c_int>,
    /// [`dag_edge_count`]
    pub edge_count: Option<unsafe extern "C" fn(g: *const dag_graph) -> usize>,
    /// [`dag_vertices`]
    pub vertices: Option<
        unsafe extern "C" fn(
            g: *const dag_graph,
            out: *mut *mut dag_ids,
            err: *mut *mut dag_error,
        ) -> dag_status,
    >,
    /// [`dag_edges`]
    pub edges: Option<
        unsafe extern "C" fn(
            g: *const dag_graph,
            out_pairs: *mut *mut dag_ids,
            err: *mut *mut dag_error,
        ) -> dag_status,
    >,
    /// [`dag_dependencies`]
    pub dependencies: Option<
        unsafe extern "C" fn(
            g: *const dag_graph,
            id: u64,
            out: *mut *mut dag_ids,
            err: *mut *mut dag_error,
        ) -> dag_status,
    >,
    /// [`dag_dependents`]
    pub dependents: Option<
        unsafe extern "C" fn(
            g: *const dag_graph,
            id: u64,
            out: *mut *mut dag_ids,
            err: *mut *mut dag_error,
        ) -> dag_status,
    >,
    /// [`dag_subsume`]
    pub subsume: Option<
        unsafe extern "C" fn(
            g: *mut dag_graph,
            other: *const dag_graph,
            err: *mut *mut dag_error,
        ) -> dag_status,
    >,
    /// [`dag_to_string`]
    pub to_string: Option<
        unsafe extern "C" fn(
            g: *const dag_graph,
            out: *mut *mut c_char,
            err: *mut *mut dag_error,
        ) -> dag_status,
    >,
    /// [`dag_root`]
    pub root: Option<
        unsafe extern "C" fn(
            g: *const dag_graph,
            out_root: *mut u64,
            err: *mut *mut dag_error,
        ) -> dag_status,
    >,
    /// [`dag_validate_options_init`]
    pub validate_options_init: Option<
        unsafe extern "C" fn(
            opts: *mut dag_validate_options,
            size: usize,
            err: *mut *mut dag_error,
        ) -> dag_status,
    >,
    /// [`dag_validate`]
    pub validate: Option<
        unsafe extern "C" fn(
            g: *const dag_graph,
            opts: *const dag_validate_options,
            out: *mut *mut dag_validation,
            err: *mut *mut dag_error,
        ) -> dag_status,
    >,
    /// [`dag_validation_status`]
    pub validation_status: Option<unsafe extern "C" fn(v: *const dag_validation) -> dag_status>,
    /// [`dag_validation_text`]
    pub validation_text: Option<unsafe extern "C" fn(v: *const dag_validation) -> *const c_char>,
    /// [`dag_validation_message_count`]
    pub validation_message_count: Option<unsafe extern "C" fn(v: *const dag_validation) -> usize>,
    /// [`dag_validation_message`]
    pub validation_message:
        Option<unsafe extern "C" fn(v: *const dag_validation, index: usize) -> *const c_char>,
    /// [`dag_validation_cycle_count`]
    pub validation_cycle_count: Option<unsafe extern "C" fn(v: *const dag_validation) -> usize>,
    /// [`dag_validation_cycle`]
    pub validation_cycle: Option<
        unsafe extern "C" fn(
            v: *const dag_validation,
            index: usize,
            out_count: *mut usize,
        ) -> *const u64,
    >,
    /// [`dag_validation_self_references`]
    pub validation_self_references:
        Option<unsafe extern "C" fn(v: *const dag_validation, out_count: *mut usize) -> *const u64>,
    /// [`dag_validation_free`]
    pub validation_free: Option<unsafe extern "C" fn(v: *mut dag_validation)>,
    /// [`dag_id_lists_count`]
    pub id_lists_count: Option<unsafe extern "C" fn(lists: *const dag_id_lists) -> usize>,
    /// [`dag_id_lists_get`]
    pub id_lists_get: Option<
        unsafe extern "C" fn(
            lists: *const dag_id_lists,
            index: usize,
            out_count: *mut usize,
        ) -> *const u64,
    >,
    /// [`dag_id_lists_free`]
    pub id_lists_free: Option<unsafe extern "C" fn(lists: *mut dag_id_lists)>,
    /// [`dag_strongly_connected`]
    pub strongly_connected: Option<
        unsafe extern "C" fn(
            g: *const dag_graph,
            out: *mut *mut dag_id_lists,
            err: *mut *mut dag_error,
        ) -> dag_status,
    >,
    /// [`dag_cycles`]
    pub cycles: Option<
        unsafe extern "C" fn(
            g: *const dag_graph,
            out: *mut *mut dag_id_lists,
            err: *mut *mut dag_error,
        ) -> dag_status,
    >,
    /// [`dag_transitive_reduction`]
    pub transitive_reduction: Option<
        unsafe extern "C" fn(
            g: *mut dag_graph,
            out_removed: *mut usize,
            err: *mut *mut dag_error,
        ) -> dag_status,
    >,
    /// [`dag_topological_order`]
    pub topological_order: Option<
        unsafe extern "C" fn(
            g: *const dag_graph,
            out: *mut *mut dag_ids,
            err: *mut *mut dag_error,
        ) -> dag_status,
    >,
    /// [`dag_reverse_topological_order`]
    pub reverse_topological_order: Option<
        unsafe extern "C" fn(
            g: *const dag_graph,
            out: *mut *mut dag_ids,
            err: *mut *mut dag_error,
        ) -> dag_status,
    >,
    /// [`dag_traverse`]
    pub traverse: Option<
        unsafe extern "C" fn(
            g: *const dag_graph,
            start: *const u64,
            start_count: usize,
            flags: c_uint,
            visit: dag_visit_fn,
            user_data: *mut c_void,
            err: *mut *mut dag_error,
        ) -> dag_status,
    >,
    /// [`dag_ancestors`]
    pub ancestors: Option<
        unsafe extern "C" fn(
            g: *const dag_graph,
            ids: *const u64,
            count: usize,
            out: *mut *mut dag_ids,
            err: *mut *mut dag_error,
        ) -> dag_status,
    >,
    /// [`dag_descendants`]
    pub descendants: Option<
        unsafe extern "C" fn(
            g: *const dag_graph,
            ids: *const u64,
            count: usize,
            out: *mut *mut dag_ids,
            err: *mut *mut dag_error,
        ) -> dag_status,
    >,
    /// [`dag_first_ancestors_with`]
    pub first_ancestors_with: Option<
        unsafe extern "C" fn(
            g: *const dag_graph,
            ids: *const u64,
            count: usize,
            match_: dag_predicate_fn,
            user_data: *mut c_void,
            out: *mut *mut dag_ids,
            err: *mut *mut dag_error,
        ) -> dag_status,
    >,
    /// [`dag_first_descendants_with`]
    pub first_descendants_with: Option<
        unsafe extern "C" fn(
            g: *const dag_graph,
            ids: *const u64,
            count: usize,
            match_: dag_predicate_fn,
            user_data: *mut c_void,
            out: *mut *mut dag_ids,
            err: *mut *mut dag_error,
        ) -> dag_status,
    >,
    /// [`dag_match_ancestor`]
    pub match_ancestor: Option<
        unsafe extern "C" fn(
            g: *const dag_graph,
            ids: *const u64,
            count: usize,
            match_: dag_predicate_fn,
            user_data: *mut c_void,
            out_found: *mut c_int,
            err: *mut *mut dag_error,
        ) -> dag_status,
    >,
    /// [`dag_match_descendant`]
    pub match_descendant: Option<
        unsafe extern "C" fn(
            g: *const dag_graph,
            ids: *const u64,
            count: usize,
            match_: dag_predicate_fn,
            user_data: *mut c_void,
            out_found: *mut c_int,
            err: *mut *mut dag_error,
        ) -> dag_status,
    >,
    /// [`dag_walk_options_init`]
    pub walk_options_init: Option<
        unsafe extern "C" fn(
            opts: *mut dag_walk_options,
            size: usize,
            err: *mut *mut dag_error,
        ) -> dag_status,
    >,
    /// [`dag_walk`]
    pub walk: Option<
        unsafe extern "C" fn(
            g: *mut dag_graph,
            callback: dag_walk_fn,
            user_data: *mut c_void,
            opts: *const dag_walk_options,
            out_report: *mut *mut dag_walk_report,
            err: *mut *mut dag_error,
        ) -> dag_status,
    >,
    /// [`dag_walk_start`]
    pub walk_start: Option<
        unsafe extern "C" fn(
            g: *mut dag_graph,
            callback: dag_walk_fn,
            user_data: *mut c_void,
            opts: *const dag_walk_options,
            out: *mut *mut dag_walker,
            err: *mut *mut dag_error,
        ) -> dag_status,
    >,
    /// [`dag_walk_wait`]
    pub walk_wait: Option<
        unsafe extern "C" fn(
            walk: *mut dag_walker,
            out_report: *mut *mut dag_walk_report,
            err: *mut *mut dag_error,
        ) -> dag_status,
    >,
    /// [`dag_walk_cancel`]
    pub walk_cancel:
        Option<unsafe extern "C" fn(walk: *mut dag_walker, err: *mut *mut dag_error) -> dag_status>,
    /// [`dag_walk_free`]
    pub walk_free: Option<unsafe extern "C" fn(walk: *mut dag_walker)>,
    /// [`dag_walk_complete`]
    pub walk_complete: Option<
        unsafe extern "C" fn(
            walk: *mut dag_walker,
            vertex: u64,
            result: dag_walk_result,
            message: *const c_char,
            err: *mut *mut dag_error,
        ) -> dag_status,
    >,
    /// [`dag_walk_expand`]
    pub walk_expand: Option<
        unsafe extern "C" fn(
            walk: *mut dag_walker,
            vertex: u64,
            sub: *const dag_graph,
            callback: dag_walk_fn,
            user_data: *mut c_void,
            err: *mut *mut dag_error,
        ) -> dag_status,
    >,
    /// [`dag_walk_graph`]
    pub walk_graph: Option<unsafe extern "C" fn(walk: *const dag_walker) -> *const dag_graph>,
    /// [`dag_walk_update_new`]
    pub walk_update_new: Option<
        unsafe extern "C" fn(
            out: *mut *mut dag_walk_update,
            err: *mut *mut dag_error,
        ) -> dag_status,
    >,
    /// [`dag_walk_update_free`]
    pub walk_update_free: Option<unsafe extern "C" fn(update: *mut dag_walk_update)>,
    /// [`dag_walk_update_add_vertex`]
    pub walk_update_add_vertex: Option<
        unsafe extern "C" fn(
            update: *mut dag_walk_update,
            name: *const c_char,
            user_data: *mut c_void,
            always_run: c_int,
            out_provisional: *mut u64,
            err: *mut *mut dag_error,
        ) -> dag_status,
    >,
    /// [`dag_walk_update_connect`]
    pub walk_update_connect: Option<
        unsafe extern "C" fn(
            update: *mut dag_walk_update,
            from: u64,
            to: u64,
            err: *mut *mut dag_error,
        ) -> dag_status,
    >,
    /// [`dag_walk_update_disconnect`]
    pub walk_update_disconnect: Option<
        unsafe extern "C" fn(
            update: *mut dag_walk_update,
            from: u64,
            to: u64,
            err: *mut *mut dag_error,
        ) -> dag_status,
    >,
    /// [`dag_walk_update_remove_vertex`]
    pub walk_update_remove_vertex: Option<
        unsafe extern "C" fn(
            update: *mut dag_walk_update,
            id: u64,
            err: *mut *mut dag_error,
        ) -> dag_status,
    >,
    /// [`dag_walk_apply`]
    pub walk_apply: Option<
        unsafe extern "C" fn(
            walk: *mut dag_walker,
            update: *const dag_walk_update,
            out_new_ids: *mut *mut dag_ids,
            err: *mut *mut dag_error,
        ) -> dag_status,
    >,
    /// [`dag_walk_report_free`]
    pub walk_report_free: Option<unsafe extern "C" fn(report: *mut dag_walk_report)>,
    /// [`dag_walk_report_size`]
    pub walk_report_size: Option<unsafe extern "C" fn(report: *const dag_walk_report) -> usize>,
    /// [`dag_walk_report_count`]
    pub walk_report_count: Option<
        unsafe extern "C" fn(report: *const dag_walk_report, status: dag_vertex_status) -> usize,
    >,
    /// [`dag_walk_report_vertices`]
    pub walk_report_vertices: Option<
        unsafe extern "C" fn(
            report: *const dag_walk_report,
            out: *mut *mut dag_ids,
            err: *mut *mut dag_error,
        ) -> dag_status,
    >,
    /// [`dag_walk_report_vertex`]
    pub walk_report_vertex: Option<
        unsafe extern "C" fn(
            report: *const dag_walk_report,
            vertex: u64,
            out_status: *mut dag_vertex_status,
            out_message: *mut *const c_char,
            out_start_ns: *mut i64,
            out_end_ns: *mut i64,
            err: *mut *mut dag_error,
        ) -> dag_status,
    >,
    /// [`dag_walk_report_first_error`]
    pub walk_report_first_error: Option<
        unsafe extern "C" fn(
            report: *const dag_walk_report,
            out_message: *mut *const c_char,
        ) -> u64,
    >,
    /// [`dag_walk_report_cancelled`]
    pub walk_report_cancelled:
        Option<unsafe extern "C" fn(report: *const dag_walk_report) -> c_int>,
    /// [`dag_vertex_status_string`]
    pub vertex_status_string:
        Option<unsafe extern "C" fn(status: dag_vertex_status) -> *const c_char>,
    /// [`dag_walk_report_ran`]
    pub walk_report_ran:
        Option<unsafe extern "C" fn(report: *const dag_walk_report, vertex: u64) -> c_int>,
    /// [`dag_export_graph`]
    pub export_graph: Option<
        unsafe extern "C" fn(
            g: *const dag_graph,
            format: dag_format,
            out: *mut *mut c_char,
            err: *mut *mut dag_error,
        ) -> dag_status,
    >,
    /// [`dag_import_graph`]
    pub import_graph: Option<
        unsafe extern "C" fn(
            format: dag_format,
            data: *const c_char,
            size: usize,
            out: *mut *mut dag_graph,
            err: *mut *mut dag_error,
        ) -> dag_status,
    >,
    /// [`dag_import_graph_file`]
    pub import_graph_file: Option<
        unsafe extern "C" fn(
            format: dag_format,
            path: *const c_char,
            out: *mut *mut dag_graph,
            err: *mut *mut dag_error,
        ) -> dag_status,
    >,
    /// [`dag_format_name`]
    pub format_name: Option<unsafe extern "C" fn(format: dag_format) -> *const c_char>,
    // ---- 1.2: roots, leaves, degrees, search, dag_walk_fail ----
    /// [`dag_roots`]
    pub roots: Option<
        unsafe extern "C" fn(
            g: *const dag_graph,
            out: *mut *mut dag_ids,
            err: *mut *mut dag_error,
        ) -> dag_status,
    >,
    /// [`dag_leaves`]
    pub leaves: Option<
        unsafe extern "C" fn(
            g: *const dag_graph,
            out: *mut *mut dag_ids,
            err: *mut *mut dag_error,
        ) -> dag_status,
    >,
    /// [`dag_dependency_count`]
    pub dependency_count: Option<
        unsafe extern "C" fn(
            g: *const dag_graph,
            id: u64,
            out_count: *mut usize,
            err: *mut *mut dag_error,
        ) -> dag_status,
    >,
    /// [`dag_dependent_count`]
    pub dependent_count: Option<
        unsafe extern "C" fn(
            g: *const dag_graph,
            id: u64,
            out_count: *mut usize,
            err: *mut *mut dag_error,
        ) -> dag_status,
    >,
    /// [`dag_search`]
    pub search: Option<
        unsafe extern "C" fn(
            g: *const dag_graph,
            ids: *const u64,
            count: usize,
            flags: c_uint,
            fn_: dag_search_fn,
            user_data: *mut c_void,
            out: *mut *mut dag_ids,
            err: *mut *mut dag_error,
        ) -> dag_status,
    >,
    /// [`dag_walk_fail`]
    pub walk_fail: Option<
        unsafe extern "C" fn(
            walk: *mut dag_walker,
            vertex: u64,
            message: *const c_char,
            err: *mut *mut dag_error,
        ) -> dag_status,
    >,
    /// [`dag_walk_wait_for`]
    pub walk_wait_for: Option<
        unsafe extern "C" fn(
            walk: *mut dag_walker,
            timeout_ms: c_int,
            out_report: *mut *mut dag_walk_report,
            err: *mut *mut dag_error,
        ) -> dag_status,
    >,
    /// [`dag_walk_begin`]
    pub walk_begin: Option<
        unsafe extern "C" fn(
            g: *mut dag_graph,
            opts: *const dag_walk_options,
            out: *mut *mut dag_walker,
            err: *mut *mut dag_error,
        ) -> dag_status,
    >,
    /// [`dag_walk_next_ready`]
    pub walk_next_ready: Option<
        unsafe extern "C" fn(
            walk: *mut dag_walker,
            vertices: *mut u64,
            walks: *mut *mut dag_walker,
            capacity: usize,
            timeout_ms: c_int,
            out_count: *mut usize,
            err: *mut *mut dag_error,
        ) -> dag_status,
    >,
    /// [`dag_walk_report_read`]
    pub walk_report_read: Option<
        unsafe extern "C" fn(
            report: *const dag_walk_report,
            first: usize,
            out: *mut dag_vertex_outcome,
            count: usize,
            outcome_size: usize,
            out_written: *mut usize,
            err: *mut *mut dag_error,
        ) -> dag_status,
    >,
    /// [`dag_walk_progress`]
    pub walk_progress: Option<
        unsafe extern "C" fn(
            walk: *mut dag_walker,
            out_done: *mut usize,
            out_total: *mut usize,
            err: *mut *mut dag_error,
        ) -> dag_status,
    >,
    /// [`dag_select`]
    pub select: Option<
        unsafe extern "C" fn(
            g: *const dag_graph,
            targets: *const u64,
            target_count: usize,
            excludes: *const u64,
            exclude_count: usize,
            flags: c_uint,
            out: *mut *mut dag_graph,
            err: *mut *mut dag_error,
        ) -> dag_status,
    >,
    /// [`dag_builder_new`]
    pub builder_new: Option<
        unsafe extern "C" fn(
            g: *mut dag_graph,
            out: *mut *mut dag_builder,
            err: *mut *mut dag_error,
        ) -> dag_status,
    >,
    /// [`dag_builder_free`]
    pub builder_free: Option<unsafe extern "C" fn(b: *mut dag_builder)>,
    /// [`dag_builder_provide`]
    pub builder_provide: Option<
        unsafe extern "C" fn(
            b: *mut dag_builder,
            vertex: u64,
            address: *const c_char,
            err: *mut *mut dag_error,
        ) -> dag_status,
    >,
    /// [`dag_builder_reference`]
    pub builder_reference: Option<
        unsafe extern "C" fn(
            b: *mut dag_builder,
            vertex: u64,
            address: *const c_char,
            err: *mut *mut dag_error,
        ) -> dag_status,
    >,
    /// [`dag_builder_need`]
    pub builder_need: Option<
        unsafe extern "C" fn(
            b: *mut dag_builder,
            vertex: u64,
            key: *const c_char,
            err: *mut *mut dag_error,
        ) -> dag_status,
    >,
    /// [`dag_builder_set_action`]
    pub builder_set_action: Option<
        unsafe extern "C" fn(
            b: *mut dag_builder,
            vertex: u64,
            action: dag_action,
            err: *mut *mut dag_error,
        ) -> dag_status,
    >,
    /// [`dag_builder_add_step`]
    pub builder_add_step: Option<
        unsafe extern "C" fn(
            b: *mut dag_builder,
            name: *const c_char,
            f: dag_build_step_fn,
            user_data: *mut c_void,
            err: *mut *mut dag_error,
        ) -> dag_status,
    >,
    /// [`dag_builder_add_references`]
    pub builder_add_references: Option<
        unsafe extern "C" fn(
            b: *mut dag_builder,
            flags: c_uint,
            err: *mut *mut dag_error,
        ) -> dag_status,
    >,
    /// [`dag_builder_add_shared`]
    pub builder_add_shared: Option<
        unsafe extern "C" fn(
            b: *mut dag_builder,
            flags: c_uint,
            err: *mut *mut dag_error,
        ) -> dag_status,
    >,
    /// [`dag_builder_add_root`]
    pub builder_add_root: Option<
        unsafe extern "C" fn(
            b: *mut dag_builder,
            name: *const c_char,
            err: *mut *mut dag_error,
        ) -> dag_status,
    >,
    /// [`dag_builder_add_destroy_order`]
    pub builder_add_destroy_order:
        Option<unsafe extern "C" fn(b: *mut dag_builder, err: *mut *mut dag_error) -> dag_status>,
    /// [`dag_builder_add_transitive_reduction`]
    pub builder_add_transitive_reduction:
        Option<unsafe extern "C" fn(b: *mut dag_builder, err: *mut *mut dag_error) -> dag_status>,
    /// [`dag_builder_add_prune`]
    pub builder_add_prune: Option<
        unsafe extern "C" fn(
            b: *mut dag_builder,
            f: dag_predicate_fn,
            user_data: *mut c_void,
            err: *mut *mut dag_error,
        ) -> dag_status,
    >,
    /// [`dag_build_options_init`]
    pub build_options_init: Option<
        unsafe extern "C" fn(
            opts: *mut dag_build_options,
            size: usize,
            err: *mut *mut dag_error,
        ) -> dag_status,
    >,
    /// [`dag_build`]
    pub build: Option<
        unsafe extern "C" fn(
            b: *mut dag_builder,
            opts: *const dag_build_options,
            err: *mut *mut dag_error,
        ) -> dag_status,
    >,
    /// [`dag_builder_warnings`]
    pub builder_warnings: Option<
        unsafe extern "C" fn(
            b: *const dag_builder,
            out: *mut *mut c_char,
            err: *mut *mut dag_error,
        ) -> dag_status,
    >,
    /// [`dag_walk_report_attempts`]
    pub walk_report_attempts: Option<
        unsafe extern "C" fn(
            report: *const dag_walk_report,
            vertex: u64,
            out_attempts: *mut usize,
            err: *mut *mut dag_error,
        ) -> dag_status,
    >,
    /// [`dag_walk_report_attempt_message`]
    pub walk_report_attempt_message: Option<
        unsafe extern "C" fn(
            report: *const dag_walk_report,
            vertex: u64,
            attempt: usize,
            out_message: *mut *const c_char,
            err: *mut *mut dag_error,
        ) -> dag_status,
    >,
    /// [`dag_add_vertices`]
    pub add_vertices: Option<
        unsafe extern "C" fn(
            g: *mut dag_graph,
            names: *const *const c_char,
            user_data: *const *mut c_void,
            count: usize,
            out_ids: *mut u64,
            err: *mut *mut dag_error,
        ) -> dag_status,
    >,
    /// [`dag_find_vertices`]
    pub find_vertices: Option<
        unsafe extern "C" fn(
            g: *const dag_graph,
            names: *const *const c_char,
            count: usize,
            out_ids: *mut u64,
            err: *mut *mut dag_error,
        ) -> dag_status,
    >,
}

/// The ABI major version [`dag_api`] accepts today.
pub const DAG_API_ABI: c_uint = 1;

// ---------------------------------------------------------------------------
// Functions
// ---------------------------------------------------------------------------

extern "C" {
    // --- versions ---------------------------------------------------------

    /// The run-time library's version as `DAG_VERSION_NUMBER` computes it.
    pub fn dag_version() -> c_uint;
    /// The run-time version as a static string; never freed.
    pub fn dag_version_string() -> *const c_char;

    // --- status codes and errors -------------------------------------------

    /// A short static description of a status; never NULL, never freed.
    pub fn dag_status_string(status: dag_status) -> *const c_char;
    /// The status the error was returned with.
    pub fn dag_error_status(err: *const dag_error) -> dag_status;
    /// The error's message, owned by `err`; `""` for NULL.
    pub fn dag_error_message(err: *const dag_error) -> *const c_char;
    /// Frees an error; NULL allowed.
    pub fn dag_error_free(err: *mut dag_error);

    // --- owned results -----------------------------------------------------

    /// Number of values; 0 for NULL.
    pub fn dag_ids_count(ids: *const dag_ids) -> usize;
    /// The values, owned by `ids`; NULL when empty.
    pub fn dag_ids_data(ids: *const dag_ids) -> *const u64;
    /// Frees an id array; NULL allowed.
    pub fn dag_ids_free(ids: *mut dag_ids);
    /// Frees a string returned by libdag; NULL allowed.
    pub fn dag_string_free(str: *mut c_char);

    // --- graphs --------------------------------------------------------------

    /// Creates an empty graph, owned by the caller.
    pub fn dag_new(out: *mut *mut dag_graph, err: *mut *mut dag_error) -> dag_status;
    /// Frees a graph (or drops the caller's hold while a walk still uses it).
    pub fn dag_free(g: *mut dag_graph);
    /// Deep-copies a graph, ids included.
    pub fn dag_clone(
        g: *const dag_graph,
        out: *mut *mut dag_graph,
        err: *mut *mut dag_error,
    ) -> dag_status;
    /// Adds a vertex; `name` NULL or non-empty UTF-8, copied.
    pub fn dag_add_vertex(
        g: *mut dag_graph,
        name: *const c_char,
        user_data: *mut c_void,
        out_id: *mut u64,
        err: *mut *mut dag_error,
    ) -> dag_status;
    /// Adds `count` vertices, all or nothing, with consecutive ids (1.3);
    /// `names` and `user_data` may be NULL (all unnamed, all NULL), each
    /// name NULL or non-empty UTF-8, copied.
    pub fn dag_add_vertices(
        g: *mut dag_graph,
        names: *const *const c_char,
        user_data: *const *mut c_void,
        count: usize,
        out_ids: *mut u64,
        err: *mut *mut dag_error,
    ) -> dag_status;
    /// Removes a vertex and its edges.
    pub fn dag_remove_vertex(g: *mut dag_graph, id: u64, err: *mut *mut dag_error) -> dag_status;
    /// Terraform's Replace: `replacement` takes over `original`'s edges.
    pub fn dag_replace_vertex(
        g: *mut dag_graph,
        original: u64,
        replacement: u64,
        err: *mut *mut dag_error,
    ) -> dag_status;
    /// 1 if `id` is a live vertex of `g`, else 0.
    pub fn dag_has_vertex(g: *const dag_graph, id: u64) -> c_int;
    /// Number of live vertices.
    pub fn dag_vertex_count(g: *const dag_graph) -> usize;
    /// Looks a vertex up by name.
    pub fn dag_find_vertex(
        g: *const dag_graph,
        name: *const c_char,
        out_id: *mut u64,
        err: *mut *mut dag_error,
    ) -> dag_status;
    /// Looks `count` names up (1.3): `out_ids[i]` is the id named
    /// `names[i]`, or 0 when no vertex has that name.
    pub fn dag_find_vertices(
        g: *const dag_graph,
        names: *const *const c_char,
        count: usize,
        out_ids: *mut u64,
        err: *mut *mut dag_error,
    ) -> dag_status;
    /// The name of a vertex (borrowed), or NULL for an unnamed one.
    pub fn dag_vertex_name(
        g: *const dag_graph,
        id: u64,
        out_name: *mut *const c_char,
        err: *mut *mut dag_error,
    ) -> dag_status;
    /// Renames a vertex; NULL makes it unnamed.
    pub fn dag_set_vertex_name(
        g: *mut dag_graph,
        id: u64,
        name: *const c_char,
        err: *mut *mut dag_error,
    ) -> dag_status;
    /// The user data pointer stored with a vertex.
    pub fn dag_vertex_user_data(
        g: *const dag_graph,
        id: u64,
        out: *mut *mut c_void,
        err: *mut *mut dag_error,
    ) -> dag_status;
    /// Replaces the user data pointer stored with a vertex.
    pub fn dag_set_vertex_user_data(
        g: *mut dag_graph,
        id: u64,
        user_data: *mut c_void,
        err: *mut *mut dag_error,
    ) -> dag_status;
    /// Adds the edge from -> to: `from` depends on `to`.
    pub fn dag_connect(
        g: *mut dag_graph,
        from: u64,
        to: u64,
        err: *mut *mut dag_error,
    ) -> dag_status;
    /// Adds `count` edges given as pairs, all or nothing.
    pub fn dag_connect_many(
        g: *mut dag_graph,
        pairs: *const u64,
        count: usize,
        err: *mut *mut dag_error,
    ) -> dag_status;
    /// Removes the edge from -> to.
    pub fn dag_disconnect(
        g: *mut dag_graph,
        from: u64,
        to: u64,
        err: *mut *mut dag_error,
    ) -> dag_status;
    /// 1 if the edge from -> to exists, else 0.
    pub fn dag_has_edge(g: *const dag_graph, from: u64, to: u64) -> c_int;
    /// Number of edges.
    pub fn dag_edge_count(g: *const dag_graph) -> usize;
    /// All live vertex ids, ascending.
    pub fn dag_vertices(
        g: *const dag_graph,
        out: *mut *mut dag_ids,
        err: *mut *mut dag_error,
    ) -> dag_status;
    /// All edges as flat (from, to) pairs sorted by (from, to).
    pub fn dag_edges(
        g: *const dag_graph,
        out_pairs: *mut *mut dag_ids,
        err: *mut *mut dag_error,
    ) -> dag_status;
    /// Direct dependencies of a vertex, ascending.
    pub fn dag_dependencies(
        g: *const dag_graph,
        id: u64,
        out: *mut *mut dag_ids,
        err: *mut *mut dag_error,
    ) -> dag_status;
    /// Direct dependents of a vertex, ascending.
    pub fn dag_dependents(
        g: *const dag_graph,
        id: u64,
        out: *mut *mut dag_ids,
        err: *mut *mut dag_error,
    ) -> dag_status;
    /// Terraform's Subsume: copies `other` into `g`, merging named vertices.
    pub fn dag_subsume(
        g: *mut dag_graph,
        other: *const dag_graph,
        err: *mut *mut dag_error,
    ) -> dag_status;
    /// Terraform's `String()` layout; free the result with `dag_string_free`.
    pub fn dag_to_string(
        g: *const dag_graph,
        out: *mut *mut c_char,
        err: *mut *mut dag_error,
    ) -> dag_status;

    // --- text formats --------------------------------------------------------

    /// Writes the graph in `format`; free the result with `dag_string_free`.
    pub fn dag_export_graph(
        g: *const dag_graph,
        format: dag_format,
        out: *mut *mut c_char,
        err: *mut *mut dag_error,
    ) -> dag_status;
    /// Reads a graph from `size` bytes of text (not NUL-terminated).
    pub fn dag_import_graph(
        format: dag_format,
        data: *const c_char,
        size: usize,
        out: *mut *mut dag_graph,
        err: *mut *mut dag_error,
    ) -> dag_status;
    /// Reads a graph from the file at `path`.
    pub fn dag_import_graph_file(
        format: dag_format,
        path: *const c_char,
        out: *mut *mut dag_graph,
        err: *mut *mut dag_error,
    ) -> dag_status;
    /// A short static name of a format, or "unknown".
    pub fn dag_format_name(format: dag_format) -> *const c_char;

    // --- algorithms ----------------------------------------------------------

    /// The single vertex nothing depends on.
    pub fn dag_root(
        g: *const dag_graph,
        out_root: *mut u64,
        err: *mut *mut dag_error,
    ) -> dag_status;
    /// Fills validation options with the defaults; `size` must be
    /// `size_of::<dag_validate_options>()`.
    pub fn dag_validate_options_init(
        opts: *mut dag_validate_options,
        size: usize,
        err: *mut *mut dag_error,
    ) -> dag_status;
    /// Validates a graph; `*out` is written for the problem statuses too.
    pub fn dag_validate(
        g: *const dag_graph,
        opts: *const dag_validate_options,
        out: *mut *mut dag_validation,
        err: *mut *mut dag_error,
    ) -> dag_status;
    /// The status `dag_validate` returned with the result.
    pub fn dag_validation_status(v: *const dag_validation) -> dag_status;
    /// All messages joined with "\n", owned by `v`.
    pub fn dag_validation_text(v: *const dag_validation) -> *const c_char;
    /// Number of messages.
    pub fn dag_validation_message_count(v: *const dag_validation) -> usize;
    /// Message `index`, owned by `v`; NULL when out of range.
    pub fn dag_validation_message(v: *const dag_validation, index: usize) -> *const c_char;
    /// Number of cycles.
    pub fn dag_validation_cycle_count(v: *const dag_validation) -> usize;
    /// The ids of cycle `index`, owned by `v`.
    pub fn dag_validation_cycle(
        v: *const dag_validation,
        index: usize,
        out_count: *mut usize,
    ) -> *const u64;
    /// The self-referencing vertices, owned by `v`; NULL when none.
    pub fn dag_validation_self_references(
        v: *const dag_validation,
        out_count: *mut usize,
    ) -> *const u64;
    /// Frees a validation result; NULL allowed.
    pub fn dag_validation_free(v: *mut dag_validation);
    /// Number of lists.
    pub fn dag_id_lists_count(lists: *const dag_id_lists) -> usize;
    /// List `index`, owned by `lists`.
    pub fn dag_id_lists_get(
        lists: *const dag_id_lists,
        index: usize,
        out_count: *mut usize,
    ) -> *const u64;
    /// Frees a list of id lists; NULL allowed.
    pub fn dag_id_lists_free(lists: *mut dag_id_lists);
    /// Strongly connected components, dependencies first.
    pub fn dag_strongly_connected(
        g: *const dag_graph,
        out: *mut *mut dag_id_lists,
        err: *mut *mut dag_error,
    ) -> dag_status;
    /// Every cycle, ordered as `dag_validate` reports them.
    pub fn dag_cycles(
        g: *const dag_graph,
        out: *mut *mut dag_id_lists,
        err: *mut *mut dag_error,
    ) -> dag_status;
    /// Transitive reduction in place.
    pub fn dag_transitive_reduction(
        g: *mut dag_graph,
        out_removed: *mut usize,
        err: *mut *mut dag_error,
    ) -> dag_status;
    /// Dependents before dependencies.
    pub fn dag_topological_order(
        g: *const dag_graph,
        out: *mut *mut dag_ids,
        err: *mut *mut dag_error,
    ) -> dag_status;
    /// Dependencies before dependents (execution order).
    pub fn dag_reverse_topological_order(
        g: *const dag_graph,
        out: *mut *mut dag_ids,
        err: *mut *mut dag_error,
    ) -> dag_status;
    /// Depth- or breadth-first traversal from a start set.
    pub fn dag_traverse(
        g: *const dag_graph,
        start: *const u64,
        start_count: usize,
        flags: c_uint,
        visit: dag_visit_fn,
        user_data: *mut c_void,
        err: *mut *mut dag_error,
    ) -> dag_status;
    /// Everything the start set depends on, transitively.
    pub fn dag_ancestors(
        g: *const dag_graph,
        ids: *const u64,
        count: usize,
        out: *mut *mut dag_ids,
        err: *mut *mut dag_error,
    ) -> dag_status;
    /// Everything that depends on the start set, transitively.
    pub fn dag_descendants(
        g: *const dag_graph,
        ids: *const u64,
        count: usize,
        out: *mut *mut dag_ids,
        err: *mut *mut dag_error,
    ) -> dag_status;
    /// The first matching vertex on each branch of the ancestors.
    pub fn dag_first_ancestors_with(
        g: *const dag_graph,
        ids: *const u64,
        count: usize,
        match_: dag_predicate_fn,
        user_data: *mut c_void,
        out: *mut *mut dag_ids,
        err: *mut *mut dag_error,
    ) -> dag_status;
    /// The first matching vertex on each branch of the descendants.
    pub fn dag_first_descendants_with(
        g: *const dag_graph,
        ids: *const u64,
        count: usize,
        match_: dag_predicate_fn,
        user_data: *mut c_void,
        out: *mut *mut dag_ids,
        err: *mut *mut dag_error,
    ) -> dag_status;
    /// Whether some ancestor of the start set matches.
    pub fn dag_match_ancestor(
        g: *const dag_graph,
        ids: *const u64,
        count: usize,
        match_: dag_predicate_fn,
        user_data: *mut c_void,
        out_found: *mut c_int,
        err: *mut *mut dag_error,
    ) -> dag_status;
    /// Whether some descendant of the start set matches.
    pub fn dag_match_descendant(
        g: *const dag_graph,
        ids: *const u64,
        count: usize,
        match_: dag_predicate_fn,
        user_data: *mut c_void,
        out_found: *mut c_int,
        err: *mut *mut dag_error,
    ) -> dag_status;

    // --- walks ---------------------------------------------------------------

    /// Fills walk options with the defaults; `size` must be
    /// `size_of::<dag_walk_options>()`.
    pub fn dag_walk_options_init(
        opts: *mut dag_walk_options,
        size: usize,
        err: *mut *mut dag_error,
    ) -> dag_status;
    /// Walks `g`, blocking until every vertex has finished.
    pub fn dag_walk(
        g: *mut dag_graph,
        callback: dag_walk_fn,
        user_data: *mut c_void,
        opts: *const dag_walk_options,
        out_report: *mut *mut dag_walk_report,
        err: *mut *mut dag_error,
    ) -> dag_status;
    /// Starts walking `g` and returns at once.
    pub fn dag_walk_start(
        g: *mut dag_graph,
        callback: dag_walk_fn,
        user_data: *mut c_void,
        opts: *const dag_walk_options,
        out: *mut *mut dag_walker,
        err: *mut *mut dag_error,
    ) -> dag_status;
    /// Blocks until the walk has finished.
    pub fn dag_walk_wait(
        walk: *mut dag_walker,
        out_report: *mut *mut dag_walk_report,
        err: *mut *mut dag_error,
    ) -> dag_status;
    /// Cancels the walk, from any thread.
    pub fn dag_walk_cancel(walk: *mut dag_walker, err: *mut *mut dag_error) -> dag_status;
    /// Frees a walk, cancelling and waiting for it first.
    pub fn dag_walk_free(walk: *mut dag_walker);
    /// Finishes a vertex whose callback returned `DAG_WALK_PENDING`.
    pub fn dag_walk_complete(
        walk: *mut dag_walker,
        vertex: u64,
        result: dag_walk_result,
        message: *const c_char,
        err: *mut *mut dag_error,
    ) -> dag_status;
    /// Hands over a sub-graph walked as part of `vertex`.
    pub fn dag_walk_expand(
        walk: *mut dag_walker,
        vertex: u64,
        sub: *const dag_graph,
        callback: dag_walk_fn,
        user_data: *mut c_void,
        err: *mut *mut dag_error,
    ) -> dag_status;
    /// The graph a walk walks (borrowed; read-only functions only).
    pub fn dag_walk_graph(walk: *const dag_walker) -> *const dag_graph;
    /// Creates an empty update batch.
    pub fn dag_walk_update_new(
        out: *mut *mut dag_walk_update,
        err: *mut *mut dag_error,
    ) -> dag_status;
    /// Frees an update batch; NULL allowed.
    pub fn dag_walk_update_free(update: *mut dag_walk_update);
    /// Adds a new vertex to the batch.
    pub fn dag_walk_update_add_vertex(
        update: *mut dag_walk_update,
        name: *const c_char,
        user_data: *mut c_void,
        always_run: c_int,
        out_provisional: *mut u64,
        err: *mut *mut dag_error,
    ) -> dag_status;
    /// Adds the edge from -> to to the batch.
    pub fn dag_walk_update_connect(
        update: *mut dag_walk_update,
        from: u64,
        to: u64,
        err: *mut *mut dag_error,
    ) -> dag_status;
    /// Removes the edge from -> to in the batch.
    pub fn dag_walk_update_disconnect(
        update: *mut dag_walk_update,
        from: u64,
        to: u64,
        err: *mut *mut dag_error,
    ) -> dag_status;
    /// Removes a vertex in the batch.
    pub fn dag_walk_update_remove_vertex(
        update: *mut dag_walk_update,
        id: u64,
        err: *mut *mut dag_error,
    ) -> dag_status;
    /// Applies a batch to a running walk, all or nothing.
    pub fn dag_walk_apply(
        walk: *mut dag_walker,
        update: *const dag_walk_update,
        out_new_ids: *mut *mut dag_ids,
        err: *mut *mut dag_error,
    ) -> dag_status;
    /// Frees a report; NULL allowed.
    pub fn dag_walk_report_free(report: *mut dag_walk_report);
    /// Number of vertices in the report.
    pub fn dag_walk_report_size(report: *const dag_walk_report) -> usize;
    /// Number of vertices that finished with `status`.
    pub fn dag_walk_report_count(
        report: *const dag_walk_report,
        status: dag_vertex_status,
    ) -> usize;
    /// Every vertex id in the report, ascending.
    pub fn dag_walk_report_vertices(
        report: *const dag_walk_report,
        out: *mut *mut dag_ids,
        err: *mut *mut dag_error,
    ) -> dag_status;
    /// One vertex's outcome; each out-parameter may be NULL.
    pub fn dag_walk_report_vertex(
        report: *const dag_walk_report,
        vertex: u64,
        out_status: *mut dag_vertex_status,
        out_message: *mut *const c_char,
        out_start_ns: *mut i64,
        out_end_ns: *mut i64,
        err: *mut *mut dag_error,
    ) -> dag_status;
    /// The first failure's vertex, or `DAG_NO_VERTEX`; message owned by the report.
    pub fn dag_walk_report_first_error(
        report: *const dag_walk_report,
        out_message: *mut *const c_char,
    ) -> u64;
    /// 1 if the walk was cancelled.
    pub fn dag_walk_report_cancelled(report: *const dag_walk_report) -> c_int;
    /// 1 if the vertex's callback was called.
    pub fn dag_walk_report_ran(report: *const dag_walk_report, vertex: u64) -> c_int;
    /// How many times a vertex's callback was called (1.3).
    pub fn dag_walk_report_attempts(
        report: *const dag_walk_report,
        vertex: u64,
        out_attempts: *mut usize,
        err: *mut *mut dag_error,
    ) -> dag_status;
    /// The message of one attempt of a vertex, 0 the first (1.3).
    pub fn dag_walk_report_attempt_message(
        report: *const dag_walk_report,
        vertex: u64,
        attempt: usize,
        out_message: *mut *const c_char,
        err: *mut *mut dag_error,
    ) -> dag_status;
    /// A static name for a vertex status.
    pub fn dag_vertex_status_string(status: dag_vertex_status) -> *const c_char;

    // --- 1.2: roots, leaves, degrees, search, dag_walk_fail -----------------

    /// Every vertex nothing depends on, ascending.
    pub fn dag_roots(
        g: *const dag_graph,
        out: *mut *mut dag_ids,
        err: *mut *mut dag_error,
    ) -> dag_status;
    /// Every vertex that depends on nothing, ascending.
    pub fn dag_leaves(
        g: *const dag_graph,
        out: *mut *mut dag_ids,
        err: *mut *mut dag_error,
    ) -> dag_status;
    /// How many vertices `id` depends on directly (out-degree).
    pub fn dag_dependency_count(
        g: *const dag_graph,
        id: u64,
        out_count: *mut usize,
        err: *mut *mut dag_error,
    ) -> dag_status;
    /// How many vertices depend on `id` directly (in-degree).
    pub fn dag_dependent_count(
        g: *const dag_graph,
        id: u64,
        out_count: *mut usize,
        err: *mut *mut dag_error,
    ) -> dag_status;
    /// Searches ancestors (or descendants) with a callback that can stop or abort.
    pub fn dag_search(
        g: *const dag_graph,
        ids: *const u64,
        count: usize,
        flags: c_uint,
        fn_: dag_search_fn,
        user_data: *mut c_void,
        out: *mut *mut dag_ids,
        err: *mut *mut dag_error,
    ) -> dag_status;
    /// Fails a vertex with a message copied at once.
    pub fn dag_walk_fail(
        walk: *mut dag_walker,
        vertex: u64,
        message: *const c_char,
        err: *mut *mut dag_error,
    ) -> dag_status;

    // --- 1.2: pull-mode walk, timed wait, bulk report read -------------------

    /// Waits up to `timeout_ms` (negative: forever) for the walk; `DAG_E_TIMEOUT` if it still runs.
    pub fn dag_walk_wait_for(
        walk: *mut dag_walker,
        timeout_ms: c_int,
        out_report: *mut *mut dag_walk_report,
        err: *mut *mut dag_error,
    ) -> dag_status;
    /// Begins a pull-mode walk: no callback, no pool.
    pub fn dag_walk_begin(
        g: *mut dag_graph,
        opts: *const dag_walk_options,
        out: *mut *mut dag_walker,
        err: *mut *mut dag_error,
    ) -> dag_status;
    /// Hands out up to `capacity` ready vertices of a pull-mode walk; 0 at the end.
    pub fn dag_walk_next_ready(
        walk: *mut dag_walker,
        vertices: *mut u64,
        walks: *mut *mut dag_walker,
        capacity: usize,
        timeout_ms: c_int,
        out_count: *mut usize,
        err: *mut *mut dag_error,
    ) -> dag_status;
    /// Reads `count` outcomes from entry `first` on.
    pub fn dag_walk_report_read(
        report: *const dag_walk_report,
        first: usize,
        out: *mut dag_vertex_outcome,
        count: usize,
        outcome_size: usize,
        out_written: *mut usize,
        err: *mut *mut dag_error,
    ) -> dag_status;

    /// A walk's finished and total vertex counts, never decreasing.
    pub fn dag_walk_progress(
        walk: *mut dag_walker,
        out_done: *mut usize,
        out_total: *mut usize,
        err: *mut *mut dag_error,
    ) -> dag_status;

    /// A new graph holding the `-target` / `-exclude` selection (1.3).
    pub fn dag_select(
        g: *const dag_graph,
        targets: *const u64,
        target_count: usize,
        excludes: *const u64,
        exclude_count: usize,
        flags: c_uint,
        out: *mut *mut dag_graph,
        err: *mut *mut dag_error,
    ) -> dag_status;

    // --- building a graph (1.3) --------------------------------------------

    /// A new builder working on `g` in place, holding it until freed.
    pub fn dag_builder_new(
        g: *mut dag_graph,
        out: *mut *mut dag_builder,
        err: *mut *mut dag_error,
    ) -> dag_status;
    /// Frees a builder; NULL allowed.
    pub fn dag_builder_free(b: *mut dag_builder);
    /// Declares that `vertex` provides `address`.
    pub fn dag_builder_provide(
        b: *mut dag_builder,
        vertex: u64,
        address: *const c_char,
        err: *mut *mut dag_error,
    ) -> dag_status;
    /// Declares that `vertex` references `address`.
    pub fn dag_builder_reference(
        b: *mut dag_builder,
        vertex: u64,
        address: *const c_char,
        err: *mut *mut dag_error,
    ) -> dag_status;
    /// Declares that `vertex` needs the shared vertex `key`.
    pub fn dag_builder_need(
        b: *mut dag_builder,
        vertex: u64,
        key: *const c_char,
        err: *mut *mut dag_error,
    ) -> dag_status;
    /// Sets the planned change of `vertex`.
    pub fn dag_builder_set_action(
        b: *mut dag_builder,
        vertex: u64,
        action: dag_action,
        err: *mut *mut dag_error,
    ) -> dag_status;
    /// Appends a step of your own.
    pub fn dag_builder_add_step(
        b: *mut dag_builder,
        name: *const c_char,
        f: dag_build_step_fn,
        user_data: *mut c_void,
        err: *mut *mut dag_error,
    ) -> dag_status;
    /// Appends the step "references".
    pub fn dag_builder_add_references(
        b: *mut dag_builder,
        flags: c_uint,
        err: *mut *mut dag_error,
    ) -> dag_status;
    /// Appends the step "shared".
    pub fn dag_builder_add_shared(
        b: *mut dag_builder,
        flags: c_uint,
        err: *mut *mut dag_error,
    ) -> dag_status;
    /// Appends the step "root".
    pub fn dag_builder_add_root(
        b: *mut dag_builder,
        name: *const c_char,
        err: *mut *mut dag_error,
    ) -> dag_status;
    /// Appends the step "destroy order".
    pub fn dag_builder_add_destroy_order(
        b: *mut dag_builder,
        err: *mut *mut dag_error,
    ) -> dag_status;
    /// Appends the step "transitive reduction".
    pub fn dag_builder_add_transitive_reduction(
        b: *mut dag_builder,
        err: *mut *mut dag_error,
    ) -> dag_status;
    /// Appends the step "prune".
    pub fn dag_builder_add_prune(
        b: *mut dag_builder,
        f: dag_predicate_fn,
        user_data: *mut c_void,
        err: *mut *mut dag_error,
    ) -> dag_status;
    /// Fills `size` bytes of `opts` with the defaults.
    pub fn dag_build_options_init(
        opts: *mut dag_build_options,
        size: usize,
        err: *mut *mut dag_error,
    ) -> dag_status;
    /// Runs the steps in order, then validates.
    pub fn dag_build(
        b: *mut dag_builder,
        opts: *const dag_build_options,
        err: *mut *mut dag_error,
    ) -> dag_status;
    /// The last build's warnings, one a line.
    pub fn dag_builder_warnings(
        b: *const dag_builder,
        out: *mut *mut c_char,
        err: *mut *mut dag_error,
    ) -> dag_status;

    // --- function table -----------------------------------------------------

    /// The static function table for ABI major version `abi`, or NULL.
    pub fn dag_api(abi: c_uint) -> *const dag_api_table;
}
