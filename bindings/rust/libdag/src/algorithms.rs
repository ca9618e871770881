//! Terraform's algorithms: root, validation, cycles, reduction, orders,
//! traversals and ancestor / descendant queries.
//!
//! Terraform's names mislead, so here they are on `a -> b -> c` (a depends
//! on b, b depends on c):
//!
//! | query                       | result      | meaning                               |
//! |-----------------------------|-------------|---------------------------------------|
//! | `ancestors(&[a])`           | `[b, c]`    | everything a depends on, transitively |
//! | `descendants(&[c])`         | `[a, b]`    | everything that depends on c          |
//! | `root()`                    | `a`         | the vertex nothing depends on         |
//! | `topological_order()`       | `[a, b, c]` | dependents first                      |
//! | `reverse_topological_order()` | `[c, b, a]` | execution order                     |
//!
//! Where several answers would be valid, ties are broken by name, then id
//! (an unnamed vertex counts as having the empty name), so results never
//! depend on hash order.

use std::any::Any;
use std::mem::MaybeUninit;
use std::os::raw::{c_int, c_uint, c_void};
use std::panic::{self, AssertUnwindSafe};
use std::ptr;

use libdag_sys as sys;

use crate::error::{check, Error, Result, Status};
use crate::graph::{Graph, VertexId};
use crate::raw::{call_id_lists, call_ids, copy_ids, id_ptr, lossy_string, Ids};

/// The outcome of [`Graph::validate`]: every problem found, as Terraform's
/// messages and as data.
///
/// Owned and independent of the graph.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Validation {
    status: Status,
    text: String,
    messages: Vec<String>,
    cycles: Vec<Vec<VertexId>>,
    self_references: Vec<VertexId>,
    error: Option<Error>,
}

impl Validation {
    /// Whether the graph is valid (no problem at all).
    pub fn ok(&self) -> bool {
        self.status == Status::Ok
    }

    /// The verdict: [`Status::Ok`]; [`Status::Cycle`] whenever there is a
    /// cycle or a self reference, whatever else is wrong; [`Status::NoRoot`]
    /// or [`Status::MultipleRoots`] when the root rule is the only problem.
    pub fn status(&self) -> Status {
        self.status
    }

    /// Every message joined with `"\n"`; `""` for a valid graph.
    pub fn text(&self) -> &str {
        &self.text
    }

    /// One message per problem, in Terraform 1.16's wording and in this
    /// order: the root rule (`"no roots found"`, `"multiple roots: a, b"`),
    /// each cycle (`"Cycle:\n  a\n  b\n  c"`: starting at the shortest
    /// name, each line depending on the next), each self reference
    /// (`"Self reference: v"`).
    pub fn messages(&self) -> &[String] {
        &self.messages
    }

    /// The cycles as vertex ids, each in the order its message lists them.
    pub fn cycles(&self) -> &[Vec<VertexId>] {
        &self.cycles
    }

    /// The vertices with an edge to themselves, in message order.
    pub fn self_references(&self) -> &[VertexId] {
        &self.self_references
    }

    /// The problems as an error (its message is the text after
    /// `"Graph::validate: "`); `None` for a valid graph.
    pub fn error(&self) -> Option<&Error> {
        self.error.as_ref()
    }

    /// `Ok(())` for a valid graph, else the problems as an [`Error`], for
    /// use with `?`.
    ///
    /// # Errors
    /// The validation's [`status`](Validation::status) and text, when the
    /// graph is not valid.
    pub fn into_result(self) -> Result<()> {
        match self.error {
            Some(error) => Err(error),
            None => Ok(()),
        }
    }
}

/// An owned `dag_validation`.
struct RawValidation(*mut sys::dag_validation);

impl Drop for RawValidation {
    fn drop(&mut self) {
        // SAFETY: NULL or a result libdag gave us; freed once.
        unsafe { sys::dag_validation_free(self.0) }
    }
}

impl RawValidation {
    /// Copies everything out.
    ///
    /// # Safety
    /// `self.0` must be a live, non-NULL validation result.
    unsafe fn to_validation(&self, error: Option<Error>) -> Validation {
        let v = self.0;
        let messages = (0..sys::dag_validation_message_count(v))
            .map(|i| lossy_string(sys::dag_validation_message(v, i)))
            .collect();
        let cycles = (0..sys::dag_validation_cycle_count(v))
            .map(|i| {
                let mut len = 0;
                let data = sys::dag_validation_cycle(v, i, &mut len);
                copy_ids(data, len)
            })
            .collect();
        let mut len = 0;
        let data = sys::dag_validation_self_references(v, &mut len);
        Validation {
            status: Status::from_code(sys::dag_validation_status(v)),
            text: lossy_string(sys::dag_validation_text(v)),
            messages,
            cycles,
            self_references: copy_ids(data, len),
            error,
        }
    }
}

/// How [`Graph::traverse`] moves through the graph. The default is a
/// forward depth-first walk in id order.
///
/// ```
/// # use libdag::Traversal;
/// let how = Traversal::breadth_first().reverse().sorted();
/// # let _ = how;
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Traversal {
    flags: c_uint,
}

impl Traversal {
    /// Depth first (a stack): Terraform's `DepthFirstWalk`.
    pub fn depth_first() -> Traversal {
        Traversal { flags: 0 }
    }

    /// Breadth first (a queue): Terraform's `BreadthFirstWalk`.
    pub fn breadth_first() -> Traversal {
        Traversal {
            flags: sys::DAG_TRAVERSE_BREADTH_FIRST,
        }
    }

    /// Towards dependents instead of dependencies (Terraform's
    /// `Reverse...Walk`).
    #[must_use]
    pub fn reverse(self) -> Traversal {
        Traversal {
            flags: self.flags | sys::DAG_TRAVERSE_REVERSE,
        }
    }

    /// The start set and each batch of neighbours in name order instead of
    /// id order: Terraform's deterministic test walk (depth first then takes
    /// the last name of a batch first).
    #[must_use]
    pub fn sorted(self) -> Traversal {
        Traversal {
            flags: self.flags | sys::DAG_TRAVERSE_SORTED,
        }
    }
}

/// What a [`Graph::traverse`] visitor tells the traversal to do next.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Visit {
    /// Go on, beyond this vertex too.
    Continue,
    /// Do not go beyond this vertex (Terraform's `errStopWalkBranch`); go on
    /// elsewhere.
    Skip,
    /// End the traversal now (Terraform's `errStopWalk`); it returns `Ok`.
    Stop,
}

impl Visit {
    fn code(self) -> c_int {
        let code = match self {
            Visit::Continue => sys::DAG_VISIT_CONTINUE,
            Visit::Skip => sys::DAG_VISIT_SKIP,
            Visit::Stop => sys::DAG_VISIT_STOP,
        };
        code as c_int
    }
}

/// A closure that libdag calls back synchronously on the calling thread
/// (visitor, predicate), and the panic it raised, if any. A panic cannot
/// unwind through C, so the trampoline catches it, asks libdag to stop, and
/// the wrapper resumes it once libdag has returned.
struct Callback<F> {
    f: F,
    panic: Option<Box<dyn Any + Send>>,
}

impl<F> Callback<F> {
    fn new(f: F) -> Callback<F> {
        Callback { f, panic: None }
    }

    /// Resumes a panic the closure raised during the call.
    fn resume_panic(&mut self) {
        if let Some(payload) = self.panic.take() {
            panic::resume_unwind(payload);
        }
    }
}

unsafe extern "C" fn visit_trampoline<F>(id: u64, depth: usize, user_data: *mut c_void) -> c_int
where
    F: FnMut(VertexId, usize) -> Visit,
{
    // SAFETY: user_data is the Callback<F> that `traverse` passed, alive and
    // not otherwise accessed for the duration of the call.
    let state = &mut *user_data.cast::<Callback<F>>();
    if state.panic.is_some() {
        return Visit::Stop.code();
    }
    let f = &mut state.f;
    match panic::catch_unwind(AssertUnwindSafe(|| f(VertexId(id), depth))) {
        Ok(visit) => visit.code(),
        Err(payload) => {
            state.panic = Some(payload);
            Visit::Stop.code()
        }
    }
}

unsafe extern "C" fn search_trampoline<F>(id: u64, user_data: *mut c_void) -> c_int
where
    F: FnMut(VertexId) -> SearchAction,
{
    // SAFETY: as in visit_trampoline.
    let state = &mut *user_data.cast::<Callback<F>>();
    let f = &mut state.f;
    match panic::catch_unwind(AssertUnwindSafe(|| f(VertexId(id)))) {
        Ok(action) => action.code(),
        Err(payload) => {
            // Aborting ends the search at once; the result is thrown away
            // and the panic resumed.
            state.panic = Some(payload);
            SearchAction::Abort.code()
        }
    }
}

/// The direction of a [`Graph::search`] and whether a match ends its
/// branch. Build with [`Search::ancestors`] or [`Search::descendants`].
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Search {
    flags: c_uint,
}

impl Search {
    /// Towards dependencies: what the start vertices depend on.
    pub fn ancestors() -> Search {
        Search { flags: 0 }
    }

    /// Towards dependents: what depends on the start vertices.
    pub fn descendants() -> Search {
        Search {
            flags: sys::DAG_SEARCH_DEPENDENTS,
        }
    }

    /// A match ends its branch: nothing beyond it is searched (Terraform's
    /// `FirstAncestorsWith`).
    #[must_use]
    pub fn first_match(self) -> Search {
        Search {
            flags: self.flags | sys::DAG_SEARCH_FIRST_MATCH,
        }
    }
}

/// What a [`Graph::search`] callback says about a vertex.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum SearchAction {
    /// Not a match; search on beyond it.
    NoMatch,
    /// A match; search on beyond it unless [`Search::first_match`].
    Match,
    /// A match, and the last: the search returns every match so far.
    MatchAndStop,
    /// Not a match; the search returns every earlier match.
    Stop,
    /// The search returns [`Status::Cancelled`].
    Abort,
    /// Not a match, and nothing beyond it is searched.
    Skip,
}

impl SearchAction {
    fn code(self) -> c_int {
        let code = match self {
            SearchAction::NoMatch => sys::DAG_SEARCH_NO_MATCH,
            SearchAction::Match => sys::DAG_SEARCH_MATCH,
            SearchAction::MatchAndStop => sys::DAG_SEARCH_MATCH_AND_STOP,
            SearchAction::Stop => sys::DAG_SEARCH_STOP,
            SearchAction::Abort => sys::DAG_SEARCH_ABORT,
            SearchAction::Skip => sys::DAG_SEARCH_SKIP,
        };
        code as c_int
    }
}

unsafe extern "C" fn predicate_trampoline<F>(id: u64, user_data: *mut c_void) -> c_int
where
    F: FnMut(VertexId) -> bool,
{
    // SAFETY: as in visit_trampoline.
    let state = &mut *user_data.cast::<Callback<F>>();
    // A predicate cannot stop libdag's search: after a panic, every vertex
    // left is a non-match, without calling the closure again.
    if state.panic.is_some() {
        return 0;
    }
    let f = &mut state.f;
    match panic::catch_unwind(AssertUnwindSafe(|| f(VertexId(id)))) {
        Ok(matched) => c_int::from(matched),
        Err(payload) => {
            state.panic = Some(payload);
            0
        }
    }
}

/// `dag_first_ancestors_with` and `dag_first_descendants_with`.
type PredicateIds = unsafe extern "C" fn(
    *const sys::dag_graph,
    *const u64,
    usize,
    sys::dag_predicate_fn,
    *mut c_void,
    *mut *mut sys::dag_ids,
    *mut *mut sys::dag_error,
) -> sys::dag_status;

/// `dag_match_ancestor` and `dag_match_descendant`.
type PredicateFound = unsafe extern "C" fn(
    *const sys::dag_graph,
    *const u64,
    usize,
    sys::dag_predicate_fn,
    *mut c_void,
    *mut c_int,
    *mut *mut sys::dag_error,
) -> sys::dag_status;

impl Graph {
    /// The single vertex nothing depends on (Terraform's `Root()`).
    ///
    /// # Errors
    /// [`Status::NoRoot`] (also for an empty graph);
    /// [`Status::MultipleRoots`] (`"Graph::root: multiple roots: a, b"`);
    /// [`Status::NoMemory`].
    pub fn root(&self) -> Result<VertexId> {
        let mut root = 0;
        let mut err = ptr::null_mut();
        // SAFETY: a valid handle and out-parameters.
        unsafe { check(sys::dag_root(self.ptr(), &mut root, &mut err), err)? };
        Ok(VertexId(root))
    }

    /// Validates the graph and reports every problem at once: the root rule
    /// when `single_root` is true (Terraform's `Validate()`; newer Terraform
    /// dropped the rule: pass false), every cycle and every self reference.
    /// A graph with problems is an `Ok` [`Validation`] saying so.
    ///
    /// With edges a->b, b->c, c->a the text is `"Cycle:\n  a\n  b\n  c"`.
    ///
    /// # Errors
    /// Only when validation itself fails: [`Status::NoMemory`].
    pub fn validate(&self, single_root: bool) -> Result<Validation> {
        let mut opts = MaybeUninit::<sys::dag_validate_options>::uninit();
        let mut err = ptr::null_mut();
        // SAFETY: opts is writable for its size; init fills it on success.
        let opts = unsafe {
            let size = std::mem::size_of::<sys::dag_validate_options>();
            check(
                sys::dag_validate_options_init(opts.as_mut_ptr(), size, &mut err),
                err,
            )?;
            let mut opts = opts.assume_init();
            opts.single_root = c_int::from(single_root);
            opts
        };
        let mut out = RawValidation(ptr::null_mut());
        let mut err = ptr::null_mut();
        // SAFETY: a valid handle, options and out-parameters. `out` is
        // written for the "graph has problems" statuses too, and is then
        // read while alive.
        unsafe {
            let status = sys::dag_validate(self.ptr(), &opts, &mut out.0, &mut err);
            let error = check(status, err).err();
            if out.0.is_null() {
                // Validation did not run (out of memory...).
                return Err(error.unwrap_or_else(|| {
                    Error::new(
                        Status::Internal,
                        "Graph::validate: libdag returned no result",
                    )
                }));
            }
            Ok(out.to_validation(error))
        }
    }

    /// The strongly connected components (Tarjan): every vertex is in
    /// exactly one; a vertex on no cycle is a component of its own.
    /// Components come after every component they depend on. With a->b,
    /// b->a, b->c (ids in that order): `[[c], [b, a]]`.
    ///
    /// # Errors
    /// [`Status::NoMemory`].
    pub fn strongly_connected(&self) -> Result<Vec<Vec<VertexId>>> {
        // SAFETY: a valid handle and out-parameters.
        call_id_lists(|out, err| unsafe { sys::dag_strongly_connected(self.ptr(), out, err) })
    }

    /// Every cycle (component of more than one vertex), each ordered and
    /// the list sorted as [`validate`](Graph::validate) reports them. Self
    /// references are not cycles here. Empty for an acyclic graph.
    ///
    /// # Errors
    /// [`Status::NoMemory`].
    pub fn cycles(&self) -> Result<Vec<Vec<VertexId>>> {
        // SAFETY: a valid handle and out-parameters.
        call_id_lists(|out, err| unsafe { sys::dag_cycles(self.ptr(), out, err) })
    }

    /// Transitive reduction in place: removes every edge a->c for which
    /// another path from a to c exists, keeping reachability. Returns the
    /// number of edges removed.
    ///
    /// # Errors
    /// [`Status::Cycle`] when the graph has a cycle or a self reference
    /// (the message lists each; the graph is unchanged);
    /// [`Status::NoMemory`].
    pub fn transitive_reduction(&mut self) -> Result<usize> {
        let mut removed = 0;
        let mut err = ptr::null_mut();
        // SAFETY: exclusive access through &mut self; valid out-parameters.
        unsafe {
            check(
                sys::dag_transitive_reduction(self.as_raw_mut(), &mut removed, &mut err),
                err,
            )?
        };
        Ok(removed)
    }

    /// Terraform's `TopologicalOrder`: every vertex **before** its
    /// dependencies (dependents first). With a->b, b->c: `[a, b, c]`.
    /// Ties go to the smallest name, then id.
    ///
    /// # Errors
    /// [`Status::Cycle`] (a self reference alone too; message as
    /// [`validate`](Graph::validate) words it); [`Status::NoMemory`].
    pub fn topological_order(&self) -> Result<Vec<VertexId>> {
        // SAFETY: a valid handle and out-parameters.
        call_ids(|out, err| unsafe { sys::dag_topological_order(self.ptr(), out, err) })
    }

    /// Terraform's `ReverseTopologicalOrder`: every vertex **after** its
    /// dependencies, the order a sequential run executes them. With a->b,
    /// b->c: `[c, b, a]`. Not simply the reverse of
    /// [`topological_order`](Graph::topological_order): ties are broken
    /// among the vertices free first in this direction.
    ///
    /// # Errors
    /// As [`topological_order`](Graph::topological_order).
    pub fn reverse_topological_order(&self) -> Result<Vec<VertexId>> {
        // SAFETY: a valid handle and out-parameters.
        call_ids(|out, err| unsafe { sys::dag_reverse_topological_order(self.ptr(), out, err) })
    }

    /// Terraform's `DepthFirstWalk` / `BreadthFirstWalk` (and their reverse and
    /// sorted forms) from a start set: calls `visit` once per reachable
    /// vertex with its depth (0 for a start vertex reached as such), on the
    /// calling thread. `visit` may read the graph. With a->b, a->c and start
    /// `[a]`: depth first visits a (0), c (1), b (1); breadth first a, b, c.
    ///
    /// A panic in `visit` stops the traversal and is resumed once libdag
    /// has returned.
    ///
    /// # Errors
    /// [`Status::UnknownVertex`] (a start id is not live; nothing is
    /// visited); [`Status::NoMemory`].
    pub fn traverse<F>(&self, start: &[VertexId], how: Traversal, visit: F) -> Result<()>
    where
        F: FnMut(VertexId, usize) -> Visit,
    {
        let mut state = Callback::new(visit);
        let mut err = ptr::null_mut();
        // SAFETY: a valid handle; `start` as a uint64_t array; the
        // trampoline matches F and `state` outlives the synchronous call.
        let status = unsafe {
            sys::dag_traverse(
                self.ptr(),
                id_ptr(start),
                start.len(),
                how.flags,
                Some(visit_trampoline::<F>),
                (&mut state as *mut Callback<F>).cast::<c_void>(),
                &mut err,
            )
        };
        // SAFETY: err comes straight from the call. Checked first so that
        // the error object is freed before a panic resumes.
        let result = unsafe { check(status, err) };
        state.resume_panic();
        result
    }

    /// Terraform's Ancestors, for a set: everything the start vertices
    /// depend on, transitively, ascending by id. A start vertex is included
    /// only when reachable from a start vertex. With a->b, b->c:
    /// ancestors(`[a]`) = `[b, c]`.
    ///
    /// # Errors
    /// [`Status::UnknownVertex`]; [`Status::NoMemory`].
    pub fn ancestors(&self, start: &[VertexId]) -> Result<Vec<VertexId>> {
        // SAFETY: a valid handle; `start` as a uint64_t array.
        call_ids(|out, err| unsafe {
            sys::dag_ancestors(self.ptr(), id_ptr(start), start.len(), out, err)
        })
    }

    /// Terraform's Descendants, for a set: everything that depends on the
    /// start vertices, transitively, ascending by id. With a->b, b->c:
    /// descendants(`[c]`) = `[a, b]`.
    ///
    /// # Errors
    /// [`Status::UnknownVertex`]; [`Status::NoMemory`].
    pub fn descendants(&self, start: &[VertexId]) -> Result<Vec<VertexId>> {
        // SAFETY: a valid handle; `start` as a uint64_t array.
        call_ids(|out, err| unsafe {
            sys::dag_descendants(self.ptr(), id_ptr(start), start.len(), out, err)
        })
    }

    /// Terraform's `FirstAncestorsWith`, for a set: walks the ancestors and
    /// collects each vertex `matches` accepts, without going beyond it.
    /// With a->b, b->c, a->d and `matches` true for b and c: `[b]`.
    /// `matches` runs on the calling thread and may read the graph.
    ///
    /// After a panic in `matches` it is not called again, and the panic is
    /// resumed once libdag has returned.
    ///
    /// # Errors
    /// [`Status::UnknownVertex`]; [`Status::NoMemory`].
    pub fn first_ancestors_with<F>(&self, start: &[VertexId], matches: F) -> Result<Vec<VertexId>>
    where
        F: FnMut(VertexId) -> bool,
    {
        self.first_with(sys::dag_first_ancestors_with, start, matches)
    }

    /// Terraform's `FirstDescendantsWith`: as
    /// [`first_ancestors_with`](Graph::first_ancestors_with), towards
    /// dependents.
    ///
    /// # Errors
    /// [`Status::UnknownVertex`]; [`Status::NoMemory`].
    pub fn first_descendants_with<F>(&self, start: &[VertexId], matches: F) -> Result<Vec<VertexId>>
    where
        F: FnMut(VertexId) -> bool,
    {
        self.first_with(sys::dag_first_descendants_with, start, matches)
    }

    /// Terraform's `MatchAncestor`, for a set: whether `matches` accepts some
    /// ancestor of the start set; stops at the first match. A start vertex
    /// counts only when it is its own ancestor.
    ///
    /// After a panic in `matches` it is not called again, and the panic is
    /// resumed once libdag has returned.
    ///
    /// # Errors
    /// [`Status::UnknownVertex`]; [`Status::NoMemory`].
    pub fn match_ancestor<F>(&self, start: &[VertexId], matches: F) -> Result<bool>
    where
        F: FnMut(VertexId) -> bool,
    {
        self.match_with(sys::dag_match_ancestor, start, matches)
    }

    /// Terraform's `MatchDescendant`: as
    /// [`match_ancestor`](Graph::match_ancestor), towards dependents.
    ///
    /// # Errors
    /// [`Status::UnknownVertex`]; [`Status::NoMemory`].
    pub fn match_descendant<F>(&self, start: &[VertexId], matches: F) -> Result<bool>
    where
        F: FnMut(VertexId) -> bool,
    {
        self.match_with(sys::dag_match_descendant, start, matches)
    }

    /// Searches the ancestors (with [`Search::descendants`], the
    /// descendants) of the start set depth first, asks `decide` about every
    /// vertex reached, once each, and returns the matches, ascending.
    /// `decide` can also end a branch ([`SearchAction::Skip`]), end the
    /// search with what it has found ([`SearchAction::Stop`],
    /// [`SearchAction::MatchAndStop`]) or abort it ([`SearchAction::Abort`]).
    /// A start vertex is reached only from a start vertex. With a->b, b->c,
    /// a->d (ids in that order), `decide` sees d, b, c from `[a]`.
    ///
    /// `decide` runs on the calling thread and may read the graph; a panic
    /// in it aborts the search and is resumed once libdag has returned.
    ///
    /// # Errors
    /// [`Status::Cancelled`] (`decide` aborted); [`Status::UnknownVertex`];
    /// [`Status::NoMemory`].
    pub fn search<F>(&self, start: &[VertexId], search: Search, decide: F) -> Result<Vec<VertexId>>
    where
        F: FnMut(VertexId) -> SearchAction,
    {
        let mut state = Callback::new(decide);
        let mut found = Ids::null();
        let mut err = ptr::null_mut();
        // SAFETY: as in `traverse`.
        let status = unsafe {
            sys::dag_search(
                self.ptr(),
                id_ptr(start),
                start.len(),
                search.flags,
                Some(search_trampoline::<F>),
                (&mut state as *mut Callback<F>).cast::<c_void>(),
                &mut found.0,
                &mut err,
            )
        };
        // SAFETY: err comes straight from the call.
        let result = unsafe { check(status, err) };
        state.resume_panic();
        result?;
        Ok(crate::raw::to_vertex_ids(found.as_slice()))
    }

    /// Runs one of libdag's first-match queries with `matches` as its
    /// predicate; a panic in it is resumed once libdag has returned.
    fn first_with<F>(
        &self,
        query: PredicateIds,
        start: &[VertexId],
        matches: F,
    ) -> Result<Vec<VertexId>>
    where
        F: FnMut(VertexId) -> bool,
    {
        let mut state = Callback::new(matches);
        let mut found = Ids::null();
        let mut err = ptr::null_mut();
        // SAFETY: as in `traverse`; `query` is a libdag function of that
        // signature.
        let status = unsafe {
            query(
                self.ptr(),
                id_ptr(start),
                start.len(),
                Some(predicate_trampoline::<F>),
                (&mut state as *mut Callback<F>).cast::<c_void>(),
                &mut found.0,
                &mut err,
            )
        };
        // SAFETY: err comes straight from the call.
        let result = unsafe { check(status, err) };
        state.resume_panic();
        result?;
        Ok(crate::raw::to_vertex_ids(found.as_slice()))
    }

    /// Runs one of libdag's match queries with `matches` as its predicate;
    /// a panic in it is resumed once libdag has returned.
    fn match_with<F>(&self, query: PredicateFound, start: &[VertexId], matches: F) -> Result<bool>
    where
        F: FnMut(VertexId) -> bool,
    {
        let mut state = Callback::new(matches);
        let mut found: c_int = 0;
        let mut err = ptr::null_mut();
        // SAFETY: as in `first_with`.
        let status = unsafe {
            query(
                self.ptr(),
                id_ptr(start),
                start.len(),
                Some(predicate_trampoline::<F>),
                (&mut state as *mut Callback<F>).cast::<c_void>(),
                &mut found,
                &mut err,
            )
        };
        // SAFETY: err comes straight from the call.
        let result = unsafe { check(status, err) };
        state.resume_panic();
        result?;
        Ok(found != 0)
    }
}
