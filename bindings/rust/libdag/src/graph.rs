//! The graph handle: building, editing, inspecting, copying and the text
//! formats.

use std::ffi::{CStr, CString};
use std::fmt;
use std::mem::ManuallyDrop;
use std::os::raw::c_char;
use std::path::Path;
use std::ptr::{self, NonNull};
use std::sync::atomic::AtomicBool;

use libdag_sys as sys;

use crate::error::{check, Error, Result, Status};
use crate::raw::{c_string, call_ids, call_string, CNames, Ids};

/// A vertex id: assigned by the graph, stable, never reused within one graph.
///
/// Ids are plain numbers: an id from one graph means nothing to another
/// (except to a [`Graph::try_clone`] copy or a JSON round trip, which keep
/// ids). Functions given an id that is not a live vertex of their graph fail
/// with [`Status::UnknownVertex`]. 0 is never a valid id.
///
/// `#[repr(transparent)]`, so a `&[VertexId]` is passed to libdag as the
/// `uint64_t` array it is, without copying.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
#[repr(transparent)]
pub struct VertexId(pub u64);

impl VertexId {
    /// The raw id, as libdag and its JSON form number vertices.
    pub fn get(self) -> u64 {
        self.0
    }
}

impl From<VertexId> for u64 {
    fn from(id: VertexId) -> u64 {
        id.0
    }
}

impl fmt::Display for VertexId {
    /// The decimal id, as libdag prints an unnamed vertex.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Display::fmt(&self.0, f)
    }
}

/// A text form of a graph, for [`Graph::export`] and [`Graph::import`].
///
/// See `dag_format` in `dag.h` for each layout in detail.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Format {
    /// Import only: JSON when the text's first character (after any byte
    /// order mark and white space) is `{`, DOT otherwise.
    Auto,
    /// Terraform's `String()` layout, as [`Graph`]'s `Display` writes it.
    /// Export only.
    Text,
    /// Graphviz DOT in the layout `terraform graph` prints, cycles in red.
    /// Import reads any digraph Graphviz reads (node IDs become names, edges
    /// tail-depends-on-head), UTF-8 or UTF-16 with a byte-order mark.
    Dot,
    /// A Mermaid `flowchart TD`. Export only.
    Mermaid,
    /// libdag's JSON form, which round-trips exactly: same ids, names and
    /// edges.
    Json,
}

impl Format {
    fn code(self) -> sys::dag_format {
        match self {
            Format::Auto => sys::DAG_FORMAT_AUTO,
            Format::Text => sys::DAG_FORMAT_TEXT,
            Format::Dot => sys::DAG_FORMAT_DOT,
            Format::Mermaid => sys::DAG_FORMAT_MERMAID,
            Format::Json => sys::DAG_FORMAT_JSON,
        }
    }

    /// libdag's short name for the format (`"dot"`, `"json"`...).
    pub fn name(self) -> &'static str {
        // SAFETY: dag_format_name returns a static NUL-terminated string.
        let name = unsafe { CStr::from_ptr(sys::dag_format_name(self.code())) };
        name.to_str().unwrap_or("unknown")
    }
}

/// A directed graph of dependencies, with Terraform's meaning of an edge:
/// [`connect(a, b)`](Graph::connect) means "a depends on b", so b's work
/// happens before a's.
///
/// Vertices have a stable [`VertexId`] and an optional name, unique within
/// the graph. Each vertex also holds a number of yours
/// ([`user_data`](Graph::user_data), [`set_user_data`](Graph::set_user_data));
/// richer data is best kept in a map keyed by `VertexId`.
///
/// # Threads
///
/// `Graph` is `Send` and `Sync`. Every `&self` method maps to a libdag
/// function taking `const dag_graph *`, which libdag allows to run
/// concurrently on one graph; every `&mut self` method maps to one that
/// needs exclusive access, which the borrow checker guarantees.
///
/// [`walk`](Graph::walk) is the exception that needs an argument: it takes
/// `&self` so that the walk's callbacks (and other threads) can read the
/// graph while it runs, which libdag explicitly allows. `dag_walk` itself
/// takes `dag_graph *` and needs exclusive access with respect to other
/// walks, so this type serialises walks of one graph: a second walk started
/// while one runs fails with [`Status::Busy`] without calling libdag. The
/// only changes during a walk are a walk's own updates
/// ([`Walker::apply`](crate::Walker::apply) and its kin, through `&self`),
/// and libdag keeps a name they remove or replace until the walk has
/// ended, so names borrowed meanwhile stay valid.
///
/// Dropping the graph frees it.
pub struct Graph {
    raw: NonNull<sys::dag_graph>,
    /// Set while `walk` runs; see the type's documentation.
    pub(crate) walking: AtomicBool,
}

// SAFETY: libdag handles have no thread affinity; a graph may be used and
// freed on any thread.
unsafe impl Send for Graph {}
// SAFETY: `&self` methods call only `const dag_graph *` functions, which may
// run concurrently, plus `dag_walk`, whose callers are serialised by
// `walking` and which libdag documents as safe alongside readers.
unsafe impl Sync for Graph {}

impl Graph {
    /// Creates an empty graph.
    ///
    /// # Errors
    /// [`Status::NoMemory`].
    pub fn new() -> Result<Graph> {
        let mut raw = ptr::null_mut();
        let mut err = ptr::null_mut();
        // SAFETY: both out-parameters are valid.
        unsafe {
            let status = sys::dag_new(&mut raw, &mut err);
            check(status, err)?;
            Ok(Graph::from_raw(raw))
        }
    }

    /// Takes ownership of a graph made through `libdag-sys`.
    ///
    /// # Safety
    /// `raw` must be a graph from `dag_new`, `dag_clone` or
    /// `dag_import_graph*`, owned by the caller, not used by the caller
    /// afterwards, and not being walked.
    ///
    /// # Panics
    /// When `raw` is NULL.
    pub unsafe fn from_raw(raw: *mut sys::dag_graph) -> Graph {
        Graph {
            raw: NonNull::new(raw).expect("Graph::from_raw: NULL graph"),
            walking: AtomicBool::new(false),
        }
    }

    /// The graph `raw`, lent: never freed through the result, which is
    /// handed out only by reference (or through a wrapper, `StepGraph`), so
    /// that no `Graph` of it can be moved out.
    ///
    /// # Safety
    /// `raw` must be a live graph that outlives every use of the result.
    pub(crate) unsafe fn lent(raw: *mut sys::dag_graph) -> ManuallyDrop<Graph> {
        ManuallyDrop::new(Graph {
            raw: NonNull::new(raw).expect("Graph::lent: NULL graph"),
            walking: AtomicBool::new(false),
        })
    }

    /// The graph `raw`, viewed: as [`lent`](Graph::lent), and marked walked,
    /// so that a walk of it is refused (the walk owning or borrowing it may
    /// free it while a walk started on it would still run).
    ///
    /// # Safety
    /// As for [`lent`](Graph::lent).
    pub(crate) unsafe fn viewed(raw: *mut sys::dag_graph) -> ManuallyDrop<Graph> {
        ManuallyDrop::new(Graph {
            raw: NonNull::new(raw).expect("Graph::viewed: NULL graph"),
            walking: AtomicBool::new(true),
        })
    }

    /// Gives up ownership: the caller must free the graph with `dag_free`.
    pub fn into_raw(self) -> *mut sys::dag_graph {
        let raw = self.raw.as_ptr();
        std::mem::forget(self);
        raw
    }

    /// The handle, for read-only (`const dag_graph *`) `libdag-sys` calls
    /// while this borrow lasts.
    pub fn as_raw(&self) -> *const sys::dag_graph {
        self.raw.as_ptr()
    }

    /// The handle, for any `libdag-sys` call while this borrow lasts. A call
    /// that frees the graph or leaves it walked after it returns
    /// (`dag_walk_start`) breaks this type's invariants.
    pub fn as_raw_mut(&mut self) -> *mut sys::dag_graph {
        self.raw.as_ptr()
    }

    pub(crate) fn ptr(&self) -> *const sys::dag_graph {
        self.raw.as_ptr()
    }

    /// Calls a mutating libdag function with the handle and an error slot.
    fn mutate<F>(&mut self, call: F) -> Result<()>
    where
        F: FnOnce(*mut sys::dag_graph, *mut *mut sys::dag_error) -> sys::dag_status,
    {
        let mut err = ptr::null_mut();
        let status = call(self.raw.as_ptr(), &mut err);
        // SAFETY: err comes straight from the call.
        unsafe { check(status, err) }
    }

    /// Adds a vertex, unnamed (`None`) or with a name unique in the graph.
    /// Unnamed vertices print as their decimal id.
    ///
    /// # Errors
    /// [`Status::InvalidArgument`] for an empty name or one holding a NUL
    /// byte; [`Status::DuplicateName`] when another vertex has the name;
    /// [`Status::NoMemory`]. On failure the graph is unchanged.
    pub fn add_vertex(&mut self, name: Option<&str>) -> Result<VertexId> {
        let name = name
            .map(|n| c_string("Graph::add_vertex", "name", n))
            .transpose()?;
        let name_ptr = name.as_ref().map_or(ptr::null(), |n| n.as_ptr());
        let mut id = 0;
        self.mutate(|g, err| unsafe {
            // SAFETY: name_ptr is NULL or a live C string; the user data
            // pointer is never dereferenced by libdag.
            sys::dag_add_vertex(g, name_ptr, ptr::null_mut(), &mut id, err)
        })?;
        Ok(VertexId(id))
    }

    /// Adds a vertex for each entry of `names`, as
    /// [`add_vertex`](Graph::add_vertex) would, in one call and all or
    /// nothing: every name is checked first, and a name that is taken or
    /// given twice in the batch adds none of them. Returns the new ids, in
    /// the order of `names`; they are consecutive. Faster than `add_vertex`
    /// in a loop on a graph of many names, so loaders should prefer it.
    ///
    /// # Errors
    /// [`Status::InvalidArgument`] for an empty name or one holding a NUL
    /// byte; [`Status::DuplicateName`] when a name is taken or given twice;
    /// [`Status::NoMemory`]. The message gives the entry's index. On
    /// failure the graph is unchanged.
    pub fn add_vertices(&mut self, names: &[Option<&str>]) -> Result<Vec<VertexId>> {
        let c_names = CNames::new("Graph::add_vertices", "vertex", names.iter().copied())?;
        let mut ids = vec![VertexId(0); c_names.len()];
        // VertexId is #[repr(transparent)] over u64: libdag writes the ids
        // in place.
        let out = ids.as_mut_ptr().cast::<u64>();
        self.mutate(|g, err| unsafe {
            // SAFETY: c_names holds ids.len() pointers, each NULL or a live
            // C string; NULL user data (all NULL); out has room for them.
            sys::dag_add_vertices(g, c_names.as_ptr(), ptr::null(), c_names.len(), out, err)
        })?;
        Ok(ids)
    }

    /// Removes a vertex and every edge touching it. Its id is never reused;
    /// its name becomes free.
    ///
    /// # Errors
    /// [`Status::UnknownVertex`].
    pub fn remove_vertex(&mut self, id: VertexId) -> Result<()> {
        // SAFETY: a valid handle and error slot.
        self.mutate(|g, err| unsafe { sys::dag_remove_vertex(g, id.0, err) })
    }

    /// Terraform's Replace: `replacement` takes over every edge of
    /// `original` (an edge `original -> original` becomes
    /// `replacement -> replacement`), then `original` is removed.
    /// `replacement` must already be in the graph. Replacing a vertex with
    /// itself does nothing.
    ///
    /// # Errors
    /// [`Status::UnknownVertex`] (either id); [`Status::NoMemory`]. On
    /// failure the graph is unchanged.
    pub fn replace_vertex(&mut self, original: VertexId, replacement: VertexId) -> Result<()> {
        // SAFETY: a valid handle and error slot.
        self.mutate(|g, err| unsafe { sys::dag_replace_vertex(g, original.0, replacement.0, err) })
    }

    /// Whether `id` is a live vertex of this graph.
    pub fn has_vertex(&self, id: VertexId) -> bool {
        // SAFETY: a valid handle; any id is accepted.
        unsafe { sys::dag_has_vertex(self.ptr(), id.0) != 0 }
    }

    /// Number of live vertices. O(1).
    pub fn vertex_count(&self) -> usize {
        // SAFETY: a valid handle.
        unsafe { sys::dag_vertex_count(self.ptr()) }
    }

    /// The vertex with this name, in O(1); `None` when no vertex has it
    /// (which includes the empty name and names holding a NUL byte, which
    /// no vertex can have).
    pub fn find(&self, name: &str) -> Option<VertexId> {
        let name = CString::new(name).ok()?;
        let mut id = 0;
        // SAFETY: a valid handle, C string and out-parameter; NULL err, as
        // every failure here means "no such vertex".
        let status =
            unsafe { sys::dag_find_vertex(self.ptr(), name.as_ptr(), &mut id, ptr::null_mut()) };
        if status == sys::DAG_OK {
            Some(VertexId(id))
        } else {
            None
        }
    }

    /// Looks many names up in one call: entry `i` is
    /// [`find(names[i])`](Graph::find), the vertex with that name or `None`
    /// (also for the empty name and names holding a NUL byte, which no
    /// vertex can have). Faster than `find` in a loop on a large graph.
    pub fn find_vertices(&self, names: &[&str]) -> Vec<Option<VertexId>> {
        // Names no vertex can have stay None here; libdag would refuse them.
        let mut found = vec![None; names.len()];
        let asked: Vec<usize> = (0..names.len())
            .filter(|&i| !names[i].is_empty() && !names[i].contains('\0'))
            .collect();
        let c_names = match CNames::new(
            "Graph::find_vertices",
            "name",
            asked.iter().map(|&i| Some(names[i])),
        ) {
            Ok(c_names) => c_names,
            // Unreachable: names holding a NUL byte were left out.
            Err(_) => return names.iter().map(|n| self.find(n)).collect(),
        };
        let mut ids = vec![0u64; asked.len()];
        // SAFETY: a valid handle; c_names holds ids.len() live C strings and
        // ids has room for as many ids. NULL err: the names are valid, so
        // libdag has no reason to fail.
        let status = unsafe {
            sys::dag_find_vertices(
                self.ptr(),
                c_names.as_ptr(),
                c_names.len(),
                ids.as_mut_ptr(),
                ptr::null_mut(),
            )
        };
        if status != sys::DAG_OK {
            // Not expected; find answers the same, one name at a time.
            return names.iter().map(|n| self.find(n)).collect();
        }
        for (&i, &id) in asked.iter().zip(&ids) {
            if id != 0 {
                found[i] = Some(VertexId(id));
            }
        }
        found
    }

    /// The name of a vertex, `None` for an unnamed one. Borrowed from the
    /// graph, which cannot be changed while the borrow lasts (but by a
    /// walk's own updates, whose removed names libdag keeps until the graph
    /// is freed).
    ///
    /// # Errors
    /// [`Status::UnknownVertex`].
    pub fn name(&self, id: VertexId) -> Result<Option<&str>> {
        let mut name: *const c_char = ptr::null();
        let mut err = ptr::null_mut();
        // SAFETY: valid handle and out-parameters. The name stays valid
        // until the vertex is removed or renamed or the graph freed, which
        // need `&mut self` or ownership, or are a walk's updates, whose
        // removed names libdag keeps until the graph is freed: it outlives
        // this borrow, which may outlive the walk.
        unsafe {
            check(
                sys::dag_vertex_name(self.ptr(), id.0, &mut name, &mut err),
                err,
            )?;
            if name.is_null() {
                return Ok(None);
            }
            let bytes = CStr::from_ptr(name).to_bytes();
            // libdag only stores valid UTF-8 names (it refuses others with
            // DAG_E_BAD_UTF8 and converts Latin-1 DOT input).
            std::str::from_utf8(bytes).map(Some).map_err(|_| {
                Error::new(
                    Status::Internal,
                    format!("Graph::name: the name of vertex {} is not UTF-8", id),
                )
            })
        }
    }

    /// Renames a vertex; `None` makes it unnamed. The old name becomes free.
    ///
    /// # Errors
    /// [`Status::UnknownVertex`]; [`Status::InvalidArgument`] for an empty
    /// name or one holding a NUL byte; [`Status::DuplicateName`] when
    /// another vertex has it; [`Status::NoMemory`].
    pub fn set_name(&mut self, id: VertexId, name: Option<&str>) -> Result<()> {
        let name = name
            .map(|n| c_string("Graph::set_name", "name", n))
            .transpose()?;
        let name_ptr = name.as_ref().map_or(ptr::null(), |n| n.as_ptr());
        // SAFETY: name_ptr is NULL or a live C string.
        self.mutate(|g, err| unsafe { sys::dag_set_vertex_name(g, id.0, name_ptr, err) })
    }

    /// The word stored with a vertex ([`set_user_data`](Graph::set_user_data));
    /// 0 until one is set. libdag keeps it as an opaque pointer-sized value
    /// (copied by [`try_clone`](Graph::try_clone) and
    /// [`select`](Graph::select)), so it suits an index into your own
    /// table; it is never dereferenced.
    ///
    /// # Errors
    /// [`Status::UnknownVertex`].
    pub fn user_data(&self, id: VertexId) -> Result<usize> {
        let mut data = ptr::null_mut();
        let mut err = ptr::null_mut();
        // SAFETY: a valid handle; the pointer is only read as a number.
        unsafe {
            check(
                sys::dag_vertex_user_data(self.ptr(), id.0, &mut data, &mut err),
                err,
            )?;
        }
        Ok(data as usize)
    }

    /// Stores a word with a vertex; see [`user_data`](Graph::user_data).
    ///
    /// # Errors
    /// [`Status::UnknownVertex`].
    pub fn set_user_data(&mut self, id: VertexId, data: usize) -> Result<()> {
        // SAFETY: a valid handle; libdag never dereferences the pointer.
        self.mutate(|g, err| unsafe {
            sys::dag_set_vertex_user_data(g, id.0, data as *mut std::os::raw::c_void, err)
        })
    }

    /// Adds the edge `from -> to`: **`from` depends on `to`**, so `to` runs
    /// first in a walk. Connecting an existing edge again does nothing. A
    /// self edge is stored; [`validate`](Graph::validate) reports it.
    ///
    /// # Errors
    /// [`Status::UnknownVertex`] (either id); [`Status::NoMemory`].
    pub fn connect(&mut self, from: VertexId, to: VertexId) -> Result<()> {
        // SAFETY: a valid handle and error slot.
        self.mutate(|g, err| unsafe { sys::dag_connect(g, from.0, to.0, err) })
    }

    /// Adds many edges `(from, to)`, each meaning "from depends on to", in
    /// one call: faster than [`connect`](Graph::connect) in a loop, and all
    /// or nothing.
    ///
    /// # Errors
    /// [`Status::UnknownVertex`] (the message gives the edge's index; no
    /// edge is added); [`Status::NoMemory`].
    pub fn connect_many(&mut self, edges: &[(VertexId, VertexId)]) -> Result<()> {
        // Tuples have no guaranteed layout, so flatten into the pairs array
        // libdag takes.
        let pairs: Vec<u64> = edges
            .iter()
            .flat_map(|&(from, to)| [from.0, to.0])
            .collect();
        // SAFETY: pairs holds 2 * edges.len() ids.
        self.mutate(|g, err| unsafe { sys::dag_connect_many(g, pairs.as_ptr(), edges.len(), err) })
    }

    /// Removes the edge `from -> to`; removing an absent edge does nothing.
    ///
    /// # Errors
    /// [`Status::UnknownVertex`] (both vertices must exist).
    pub fn disconnect(&mut self, from: VertexId, to: VertexId) -> Result<()> {
        // SAFETY: a valid handle and error slot.
        self.mutate(|g, err| unsafe { sys::dag_disconnect(g, from.0, to.0, err) })
    }

    /// Whether the edge `from -> to` exists (false for unknown ids).
    pub fn has_edge(&self, from: VertexId, to: VertexId) -> bool {
        // SAFETY: a valid handle; any ids are accepted.
        unsafe { sys::dag_has_edge(self.ptr(), from.0, to.0) != 0 }
    }

    /// Number of edges. O(1).
    pub fn edge_count(&self) -> usize {
        // SAFETY: a valid handle.
        unsafe { sys::dag_edge_count(self.ptr()) }
    }

    /// Every live vertex id, ascending.
    ///
    /// # Errors
    /// [`Status::NoMemory`].
    pub fn vertices(&self) -> Result<Vec<VertexId>> {
        // SAFETY: a valid handle and out-parameters.
        call_ids(|out, err| unsafe { sys::dag_vertices(self.ptr(), out, err) })
    }

    /// Every edge as `(from, to)` (from depends on to), sorted.
    ///
    /// # Errors
    /// [`Status::NoMemory`].
    pub fn edges(&self) -> Result<Vec<(VertexId, VertexId)>> {
        let mut pairs = Ids::null();
        let mut err = ptr::null_mut();
        // SAFETY: a valid handle and out-parameters.
        unsafe { check(sys::dag_edges(self.ptr(), &mut pairs.0, &mut err), err)? };
        Ok(pairs
            .as_slice()
            .chunks_exact(2)
            .map(|pair| (VertexId(pair[0]), VertexId(pair[1])))
            .collect())
    }

    /// The direct dependencies of a vertex (the targets of its edges,
    /// Terraform's `DownEdges`), ascending. With `a -> b` and `a -> c`:
    /// dependencies(a) = [b, c].
    ///
    /// # Errors
    /// [`Status::UnknownVertex`]; [`Status::NoMemory`].
    pub fn dependencies(&self, id: VertexId) -> Result<Vec<VertexId>> {
        // SAFETY: a valid handle and out-parameters.
        call_ids(|out, err| unsafe { sys::dag_dependencies(self.ptr(), id.0, out, err) })
    }

    /// The direct dependents of a vertex (the sources of edges to it,
    /// Terraform's `UpEdges`), ascending. With `a -> b` and `c -> b`:
    /// dependents(b) = [a, c].
    ///
    /// # Errors
    /// [`Status::UnknownVertex`]; [`Status::NoMemory`].
    pub fn dependents(&self, id: VertexId) -> Result<Vec<VertexId>> {
        // SAFETY: a valid handle and out-parameters.
        call_ids(|out, err| unsafe { sys::dag_dependents(self.ptr(), id.0, out, err) })
    }

    /// Every vertex nothing depends on (no dependents), ascending;
    /// [`root`](Graph::root) succeeds when there is exactly one. With a->b
    /// and a->c: `roots()` is `[a]`, `leaves()` is `[b, c]`. A vertex with
    /// an edge to itself is neither.
    ///
    /// # Errors
    /// [`Status::NoMemory`].
    pub fn roots(&self) -> Result<Vec<VertexId>> {
        // SAFETY: a valid handle and out-parameters.
        call_ids(|out, err| unsafe { sys::dag_roots(self.ptr(), out, err) })
    }

    /// Every vertex that depends on nothing (no dependencies), ascending.
    ///
    /// # Errors
    /// [`Status::NoMemory`].
    pub fn leaves(&self) -> Result<Vec<VertexId>> {
        // SAFETY: a valid handle and out-parameters.
        call_ids(|out, err| unsafe { sys::dag_leaves(self.ptr(), out, err) })
    }

    /// How many vertices `id` depends on directly (its out-degree, the
    /// length of [`dependencies`](Graph::dependencies)), in O(1). With a->b
    /// and a->c: 2 for a, 0 for b.
    ///
    /// # Errors
    /// [`Status::UnknownVertex`].
    pub fn dependency_count(&self, id: VertexId) -> Result<usize> {
        let mut n = 0usize;
        let mut err = ptr::null_mut();
        // SAFETY: a valid handle and out-parameters; err comes straight from the call.
        unsafe {
            check(
                sys::dag_dependency_count(self.ptr(), id.0, &mut n, &mut err),
                err,
            )?
        };
        Ok(n)
    }

    /// How many vertices depend on `id` directly (its in-degree, the length
    /// of [`dependents`](Graph::dependents)), in O(1). With a->b and a->c:
    /// 0 for a, 1 for b.
    ///
    /// # Errors
    /// [`Status::UnknownVertex`].
    pub fn dependent_count(&self, id: VertexId) -> Result<usize> {
        let mut n = 0usize;
        let mut err = ptr::null_mut();
        // SAFETY: a valid handle and out-parameters; err comes straight from the call.
        unsafe {
            check(
                sys::dag_dependent_count(self.ptr(), id.0, &mut n, &mut err),
                err,
            )?
        };
        Ok(n)
    }

    /// Terraform's Subsume: copies every vertex and edge of `other` into
    /// this graph. A named vertex of `other` whose name exists here is the
    /// same vertex (edges merged); every other vertex gets a new id here.
    /// `other` is not changed. All or nothing.
    ///
    /// # Errors
    /// [`Status::NoMemory`].
    pub fn subsume(&mut self, other: &Graph) -> Result<()> {
        // SAFETY: two distinct valid handles (the borrow rules forbid
        // `other` being `self`).
        self.mutate(|g, err| unsafe { sys::dag_subsume(g, other.ptr(), err) })
    }

    /// A deep copy with the same ids, names and edges. Ids issued later by
    /// the copy continue where this graph's stand, so they never collide.
    ///
    /// # Errors
    /// [`Status::NoMemory`].
    pub fn try_clone(&self) -> Result<Graph> {
        let mut raw = ptr::null_mut();
        let mut err = ptr::null_mut();
        // SAFETY: a valid handle and out-parameters; the copy is ours.
        unsafe {
            check(sys::dag_clone(self.ptr(), &mut raw, &mut err), err)?;
            Ok(Graph::from_raw(raw))
        }
    }

    /// Writes the graph as text in `format` ([`Format::Text`],
    /// [`Format::Dot`], [`Format::Mermaid`] or [`Format::Json`]).
    /// Deterministic: the same graph gives the same text.
    ///
    /// # Errors
    /// [`Status::InvalidArgument`] for [`Format::Auto`], or for DOT when a
    /// vertex name cannot be quoted (one ending in a backslash or holding a
    /// backslash before a line break; the message names it);
    /// [`Status::NoMemory`].
    pub fn export(&self, format: Format) -> Result<String> {
        // SAFETY: a valid handle and out-parameters.
        call_string(|out, err| unsafe {
            sys::dag_export_graph(self.ptr(), format.code(), out, err)
        })
    }

    /// Reads a graph from text in `format` ([`Format::Dot`], [`Format::Json`]
    /// or [`Format::Auto`]). JSON gives back exactly the ids, names and edges
    /// [`export`](Graph::export) wrote; DOT names each vertex by its node ID
    /// and numbers vertices in the order they appear.
    ///
    /// # Errors
    /// [`Status::Parse`] (malformed text or wrong shape; the message says
    /// where); [`Status::BadUtf8`] (DOT); [`Status::DuplicateName`] and
    /// [`Status::InvalidArgument`] (JSON: two vertices with one name, an
    /// empty name); [`Status::InvalidArgument`] for [`Format::Text`] and
    /// [`Format::Mermaid`], which cannot be read; [`Status::NoMemory`].
    pub fn import(format: Format, data: &[u8]) -> Result<Graph> {
        let mut raw = ptr::null_mut();
        let mut err = ptr::null_mut();
        // SAFETY: data holds data.len() bytes (need not be NUL-terminated);
        // the new graph is ours.
        unsafe {
            let status = sys::dag_import_graph(
                format.code(),
                data.as_ptr().cast::<c_char>(),
                data.len(),
                &mut raw,
                &mut err,
            );
            check(status, err)?;
            Ok(Graph::from_raw(raw))
        }
    }

    /// As [`import`](Graph::import), reading the file at `path`.
    /// [`Format::Auto`] looks at the content, not the file name.
    ///
    /// # Errors
    /// As [`import`](Graph::import), and [`Status::Io`] when the file cannot
    /// be read (the message has the path and the system's reason);
    /// [`Status::InvalidArgument`] for a path holding a NUL byte (or, off
    /// Unix, one that is not valid Unicode).
    pub fn import_file<P: AsRef<Path>>(format: Format, path: P) -> Result<Graph> {
        let path = path_to_c(path.as_ref())?;
        let mut raw = ptr::null_mut();
        let mut err = ptr::null_mut();
        // SAFETY: a live C string and valid out-parameters; the graph is ours.
        unsafe {
            check(
                sys::dag_import_graph_file(format.code(), path.as_ptr(), &mut raw, &mut err),
                err,
            )?;
            Ok(Graph::from_raw(raw))
        }
    }

    /// Terraform's `String()`, or why libdag could not produce it.
    fn text(&self) -> Result<String> {
        // SAFETY: a valid handle and out-parameters.
        call_string(|out, err| unsafe { sys::dag_to_string(self.ptr(), out, err) })
    }
}

#[cfg(unix)]
fn path_to_c(path: &Path) -> Result<CString> {
    use std::os::unix::ffi::OsStrExt;
    CString::new(path.as_os_str().as_bytes()).map_err(|e| {
        Error::new(
            Status::InvalidArgument,
            format!(
                "Graph::import_file: path {} holds a NUL byte at {}",
                path.display(),
                e.nul_position()
            ),
        )
    })
}

#[cfg(not(unix))]
fn path_to_c(path: &Path) -> Result<CString> {
    let text = path.to_str().ok_or_else(|| {
        Error::new(
            Status::InvalidArgument,
            format!("Graph::import_file: path {:?} is not valid Unicode", path),
        )
    })?;
    c_string("Graph::import_file", "path", text)
}

impl Drop for Graph {
    fn drop(&mut self) {
        // SAFETY: we own the handle (lent and viewed graphs are never
        // dropped). A walk may still run (one whose walker was dropped where
        // it could not wait): libdag keeps the graph until the walk is freed.
        unsafe { sys::dag_free(self.raw.as_ptr()) }
    }
}

impl fmt::Display for Graph {
    /// Terraform's `String()` layout: every vertex on its own line, sorted
    /// by name (then id), each followed by its dependencies indented by two
    /// spaces. For vertices `1`, `2`, `3` and edge `1 -> 3`:
    /// `"1\n  3\n2\n3\n"`. Returns `fmt::Error` only when libdag runs out of
    /// memory (which makes `to_string()` panic).
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let text = self.text().map_err(|_| fmt::Error)?;
        f.write_str(&text)
    }
}

impl fmt::Debug for Graph {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Graph")
            .field("vertices", &self.vertex_count())
            .field("edges", &self.edge_count())
            .finish()
    }
}
