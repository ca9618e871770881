//! Walks that run while the caller goes on: [`Graph::start_walk`] (callbacks
//! on libdag's pool, vertices that finish later from any thread) and
//! [`Graph::begin_walk`] (vertices handed to the caller's own threads).

use std::any::Any;
use std::cell::Cell;
use std::fmt;
use std::marker::PhantomData;
use std::mem::ManuallyDrop;
use std::ops::Deref;
use std::os::raw::{c_char, c_int, c_void};
use std::ptr;
use std::sync::atomic::{AtomicPtr, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

use libdag_sys as sys;

use crate::async_walk::{Pump, SLICE};
use crate::attempt::{Attempt, Refused};

use crate::error::{check, BoxError, Error, Result, Status};
use crate::graph::{Graph, VertexId};
use crate::held_by_c::HeldByC;
use crate::options::{WalkObserver, WalkOptions};
use crate::raw::call_ids;
use crate::report::WalkReport;
use crate::update::WalkUpdate;
use crate::walk::{finish, run_vertex, shared_error, Failures, WalkingFlag};

/// The most vertices one [`Walker::next_ready_many`] call takes.
const NEXT_READY_MANY_MAX: usize = 1 << 16;

/// The room [`take_ready`] allocates, for vertices and their walk handles:
/// it calls libdag again while the calls fill it.
const ROOM: usize = 256;

/// What a walk and every handle on it share; frees the walk when the last
/// of them goes.
pub(crate) struct WalkState {
    /// The walk; NULL until `dag_walk_start` / `dag_walk_begin` returned it
    /// (callbacks may run before that, with the handle as their argument).
    raw: AtomicPtr<sys::dag_walker>,
    failures: Failures,
    /// Kept here so that it lives as long as the walk that calls it.
    observer: Option<WalkObserver>,
    /// The walked graph's address: a sub-walk's handle walks a copy.
    walked: usize,
}

impl WalkState {
    fn in_sub_walk(&self, walk: *mut sys::dag_walker) -> bool {
        // SAFETY: `walk` is this walk or one of its sub-walks, alive while
        // `self` is (a sub-walk handle lives as long as its walk).
        unsafe { sys::dag_walk_graph(walk) as usize != self.walked }
    }
}

impl Drop for WalkState {
    fn drop(&mut self) {
        // SAFETY: NULL or the walk libdag gave us; no handle on it remains.
        // A walk still running is cancelled and waited for, or, dropped
        // from inside one of its own callbacks, freed by libdag once they
        // have returned.
        unsafe { sys::dag_walk_free(self.raw.load(Ordering::Acquire)) }
    }
}

/// A walk that runs while its starter goes on: started by
/// [`Graph::start_walk`] (callbacks on libdag's pool) or
/// [`Graph::begin_walk`] (pull mode: vertices taken with
/// [`ready`](Walker::ready) and run by the caller).
///
/// Dropping it cancels the walk. A callback walk is waited for: running
/// callbacks return, deferred vertices are finished as cancelled. Where
/// that wait is impossible (a walker dropped inside its own callback or
/// observer, or inside a traversal's visitor or predicate of the walked
/// graph), a thread of the binding waits and then frees the callback;
/// libdag refuses another walk of the graph, or a change to it, until the
/// walk has ended. A pull walk is not waited for (the vertices handed out
/// finish when their [`Pending`] is completed or dropped, and the dropping
/// thread may be the one holding them); libdag keeps the graph busy until
/// they have.
///
/// # Threads
///
/// `Walker` is `Send` and `Sync`: every libdag function on a walk handle
/// (`dag_walk_wait`, `dag_walk_cancel`, `dag_walk_complete`,
/// `dag_walk_next_ready`, `dag_walk_apply`...) is documented thread-safe, so
/// one thread may [`wait`](Walker::wait) while others
/// [`cancel`](Walker::cancel), take vertices with
/// [`ready`](Walker::ready) or complete [`Pending`] vertices. The walk
/// borrows the graph (`'g`), which other threads may read meanwhile;
/// nothing can change it through `&mut` until the walker is gone. The
/// futures of [`next_ready_async`](Walker::next_ready_async) borrow it too,
/// and are `Send` and `Sync` for the same reason.
pub struct Walker<'g> {
    state: Arc<WalkState>,
    /// Ready vertices taken for futures, and the thread taking them.
    pump: Pump,
    /// The callback and its context, freed only once the walk has ended
    /// (leaked if it never does).
    callback: Option<HeldByC<dyn Any + Send + Sync>>,
    _walking: WalkingFlag<'g>,
}

/// The callback of a started walk, where its `user_data` points.
struct Callback<F> {
    f: F,
    state: Arc<WalkState>,
}

/// A vertex whose callback is running: what a [`Graph::start_walk`]
/// callback gets. It can leave the vertex [`defer`](Vertex::defer)red to
/// finish later from any thread, [`expand`](Vertex::expand) it into a
/// sub-graph, change the walk ([`apply`](Vertex::apply)) or read the graph
/// being walked ([`graph`](Vertex::graph)).
pub struct Vertex<'a> {
    walk: *mut sys::dag_walker,
    id: VertexId,
    state: &'a Arc<WalkState>,
    deferred: Cell<Option<Arc<Attempt>>>,
    expanded: Cell<bool>,
}

const DROPPED_TEXT: &[u8] = b"dropped without being completed\0";

impl<'a> Vertex<'a> {
    /// The vertex (of the sub-graph, in the sub-walk of an expansion).
    pub fn id(&self) -> VertexId {
        self.id
    }

    /// True for a vertex of an expanded vertex's sub-walk
    /// ([`expand`](Vertex::expand)), whose [`id`](Vertex::id) is one of the
    /// sub-graph's; false for the walked graph's own vertices.
    pub fn in_sub_walk(&self) -> bool {
        self.state.in_sub_walk(self.walk)
    }

    /// Leaves the vertex running after the callback returns `Ok(())`: it
    /// keeps its parallelism slot, its dependents wait, and it finishes when
    /// the returned [`Pending`] is completed, from any thread. A callback
    /// that returns `Err` (or panics) fails the vertex anyway, with its own
    /// error (its text, and the report's [`source`](crate::WalkReport::source)):
    /// a `Pending` completed after that reports
    /// [`Status::State`](crate::Status::State); one completed while the
    /// callback still ran, on another thread or inside the callback itself,
    /// returned `Ok`, and its result gives way to the callback's. Calling it
    /// again returns another `Pending` for the same vertex: any of them may
    /// complete it, once (later completions are refused with
    /// [`Status::State`](crate::Status::State), and dropping the others
    /// once one has completed it does nothing). Before that, one dropped
    /// uncompleted fails the vertex, as a single `Pending` would: at once
    /// after the callback has returned, and when the callback returns `Ok`
    /// if dropped while it runs. A `Pending` belongs to its attempt: with
    /// retries, one of an attempt that has ended is refused, never taken
    /// for the retry's.
    pub fn defer(&self) -> Pending {
        let callback = self.deferred.take().unwrap_or_default();
        self.deferred.set(Some(callback.clone()));
        Pending {
            walk: self.walk,
            id: self.id,
            state: self.state.clone(),
            callback: Some(callback),
            done: false,
        }
    }

    /// Dynamic expansion: walks a copy of `sub` as part of this vertex, with
    /// the same callback (called with the sub-walk's vertices, whose
    /// [`graph`](Vertex::graph) is the copy), pool, parallelism and policy.
    /// Once the callback returns, whatever it returns, the vertex gives its
    /// slot back and finishes when the sub-walk does: ok if every
    /// sub-vertex did, failed otherwise.
    ///
    /// # Errors
    /// [`Status::Cycle`](crate::Status::Cycle) (`sub` has a cycle; nothing changed);
    /// [`Status::State`](crate::Status::State) (already expanded or failed).
    pub fn expand(&self, sub: &Graph) -> Result<()> {
        expand(self.walk, self.id, sub)?;
        self.expanded.set(true);
        Ok(())
    }

    /// Applies a batch of changes to the walk this vertex belongs to and to
    /// its graph; returns the real ids of the added vertices. See
    /// [`Walker::apply`].
    ///
    /// # Errors
    /// As [`Walker::apply`].
    pub fn apply(&self, update: &WalkUpdate) -> Result<Vec<VertexId>> {
        apply(self.walk, update).map_err(|e| e.in_method("Walker::apply", "Vertex::apply"))
    }

    /// The graph being walked (a sub-graph's copy, in a sub-walk), to read.
    pub fn graph(&self) -> GraphRef<'_> {
        // SAFETY: the walk, and so its graph, lives while its callback runs.
        unsafe { GraphRef::new(self.walk) }
    }

    /// Cancels the whole walk; the vertex itself finishes with the
    /// callback's result.
    ///
    /// # Errors
    /// [`Status::State`](crate::Status::State) (the walk has finished).
    pub fn cancel(&self) -> Result<()> {
        cancel(self.walk).map_err(|e| e.in_method("Walker::cancel", "Vertex::cancel"))
    }
}

impl fmt::Debug for Vertex<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Vertex").field("id", &self.id).finish()
    }
}

/// A vertex handed out to finish later: by [`Vertex::defer`] in a callback
/// walk, or by [`Walker::ready`] / [`Walker::next_ready`] in a pull walk.
/// It holds one of the walk's parallelism slots until
/// [`complete`](Pending::complete)d.
///
/// `Send` and `Sync`, and `'static`: it may go to any thread, and keeps the
/// walk's handle alive, so completing it after the walker was dropped is
/// not a crash (a deferred vertex's completion is refused with
/// [`Status::Cancelled`](crate::Status::Cancelled); a pull walk's is taken). Dropped without being
/// completed, it fails the vertex with `"dropped without being completed"`,
/// so a forgotten vertex cannot leave the walk waiting for ever; dropped
/// while the callback that deferred it still runs, the vertex ends as that
/// callback says (its `Err` or panic), and so failed if it returns `Ok`;
/// dropped after that callback returned `Err` or panicked, or once another
/// `Pending` of the vertex completed it, it does nothing (the vertex failed
/// with the callback or was completed, and a retry is not this one's).
pub struct Pending {
    walk: *mut sys::dag_walker,
    id: VertexId,
    state: Arc<WalkState>,
    // The deferring callback's attempt; None in a pull walk.
    callback: Option<Arc<Attempt>>,
    done: bool,
}

// SAFETY: `walk` is a walk (or sub-walk) handle, which libdag's walk
// functions accept from any thread, concurrently (dag.h: "Functions taking a
// dag_walker are thread-safe"); `state` keeps it alive (a sub-walk handle
// lives as long as its walk).
unsafe impl Send for Pending {}
// SAFETY: as above; `&self` methods only call thread-safe walk functions.
unsafe impl Sync for Pending {}

impl Pending {
    /// The vertex (of the sub-graph, for a vertex of an expansion).
    pub fn id(&self) -> VertexId {
        self.id
    }

    /// True for a vertex of an expanded vertex's sub-walk
    /// ([`expand`](Pending::expand)), whose [`id`](Pending::id) is one of
    /// the sub-graph's; false for the walked graph's own vertices.
    pub fn in_sub_walk(&self) -> bool {
        self.state.in_sub_walk(self.walk)
    }

    /// Finishes the vertex: `Ok(())` lets its dependents run, `Err(e)`
    /// fails it with `e`'s text and skips them, the report keeping `e`
    /// ([`WalkReport::source`]).
    ///
    /// # Errors
    /// [`Status::Cancelled`](crate::Status::Cancelled) (a deferred vertex whose walk was cancelled,
    /// or its `Walker` dropped, while it was pending; it is reported
    /// cancelled. A pull walk's vertices handed out are still the host's to
    /// complete after a cancel or a drop: that returns `Ok`);
    /// [`Status::State`](crate::Status::State) (its callback returned `Err`, or the walk has
    /// finished). On any other error ([`Status::NoMemory`](crate::Status::NoMemory)) libdag
    /// changed nothing, and the vertex fails as when a `Pending` is dropped
    /// uncompleted.
    pub fn complete<E: Into<BoxError>>(mut self, result: std::result::Result<(), E>) -> Result<()> {
        if self.done {
            // By cancelled() or expand(): libdag would answer for the walk
            // (Cancelled), not for this vertex.
            return Err(Error::new(
                Status::State,
                "Pending::complete: the vertex was completed already",
            ));
        }
        // Before begin(): the error's conversion and Display are the user's
        // code, and a panic between begin() and end() would leave the
        // attempt marked as being completed for ever. Before `done` too: a
        // panic here drops this Pending, which must then fail the vertex
        // (marked done, nothing would have, and the walk waited for ever).
        let failure = result.err().map(shared_error);
        self.done = true;
        let attempt = self.begin("Pending::complete")?;
        // The errors this lets go are dropped after end(): their Drop is
        // the user's code too.
        let (outcome, released) = match failure {
            None => (complete(self.walk, self.id, None), None),
            Some((error, text)) => {
                let failures = &self.state.failures;
                let earlier = failures.propose(self.walk, self.id.0, Some(error.clone()));
                let outcome = complete(self.walk, self.id, Some(text.as_ptr()));
                let replaced =
                    failures.settle(self.walk, self.id.0, outcome.is_ok(), Some(&error), earlier);
                (outcome, Some((error, replaced)))
            }
        };
        end(attempt, outcome.is_ok());
        if let Err(e) = &outcome {
            // Refused with the vertex as it was (out of memory): it is still
            // this Pending's, and its Drop fails it rather than leave the
            // walk waiting for ever.
            if !matches!(e.status(), Status::State | Status::Cancelled) {
                self.done = false;
            }
        }
        drop(released);
        outcome
    }

    /// Finishes the vertex as ok: [`complete`](Pending::complete)`(Ok(()))`.
    ///
    /// # Errors
    /// As [`complete`](Pending::complete).
    pub fn succeed(self) -> Result<()> {
        self.complete(Ok::<(), BoxError>(()))
    }

    /// Finishes the vertex as cancelled (libdag 1.3): for work that the
    /// walk's cancel stopped, so that the report says cancelled rather
    /// than failed. Takes `&mut self`: when it is refused, the vertex is
    /// still yours to complete; once it succeeded, completing again is
    /// refused and dropping does nothing.
    ///
    /// # Errors
    /// [`Status::State`](crate::Status::State) (the walk has not been cancelled, or has finished;
    /// the vertex stays as it was); otherwise as
    /// [`complete`](Pending::complete).
    pub fn cancelled(&mut self) -> Result<()> {
        if self.done {
            return Err(Error::new(
                Status::State,
                "Pending::cancelled: the vertex was completed already",
            ));
        }
        let attempt = self.begin("Pending::cancelled")?;
        let mut err = ptr::null_mut();
        // SAFETY: a live walk handle (thread-safe).
        let outcome = unsafe {
            let status = sys::dag_walk_complete(
                self.walk,
                self.id.0,
                sys::DAG_WALK_CANCELLED,
                ptr::null(),
                &mut err,
            );
            check(status, err)
        };
        end(attempt, outcome.is_ok());
        outcome.map_err(|e| e.in_method("Pending::complete", "Pending::cancelled"))?;
        self.done = true;
        Ok(())
    }

    /// Fails the vertex with `error`:
    /// [`complete`](Pending::complete)`(Err(error))`.
    ///
    /// # Errors
    /// As [`complete`](Pending::complete).
    pub fn fail<E: Into<BoxError>>(self, error: E) -> Result<()> {
        self.complete(Err(error))
    }

    /// Expands a vertex handed out by a pull walk into a walk of a copy of
    /// `sub`, whose vertices [`Walker::ready`] then hands out; the vertex
    /// gives its slot back at once and finishes when the sub-walk does (so
    /// this `Pending` needs no completing once expanded: dropping it does
    /// nothing more).
    ///
    /// # Errors
    /// [`Status::Cycle`](crate::Status::Cycle) (nothing changed: the vertex
    /// is still to be completed); [`Status::State`](crate::Status::State)
    /// (not handed out by a pull walk, already expanded). A vertex of a
    /// callback walk is expanded by its callback, with
    /// [`Vertex::expand`].
    pub fn expand(&mut self, sub: &Graph) -> Result<()> {
        if self.callback.is_some() {
            // libdag would take it while the callback runs, and the
            // callback could not tell whether its own error is then the
            // vertex's.
            return Err(Error::new(
                Status::State,
                "Pending::expand: the vertex was deferred by a callback; expand it there with Vertex::expand",
            ));
        }
        expand(self.walk, self.id, sub)
            .map_err(|e| e.in_method("Vertex::expand", "Pending::expand"))?;
        self.done = true;
        Ok(())
    }

    /// Applies a batch of changes to the walk this vertex belongs to; see
    /// [`Walker::apply`].
    ///
    /// # Errors
    /// As [`Walker::apply`].
    pub fn apply(&self, update: &WalkUpdate) -> Result<Vec<VertexId>> {
        apply(self.walk, update).map_err(|e| e.in_method("Walker::apply", "Pending::apply"))
    }

    /// The graph this vertex belongs to (a sub-graph's copy, for a vertex of
    /// an expansion), to read, borrowed from `walker`, the walk's
    /// [`Walker`]: a `Pending` may outlive it, and once it is dropped your
    /// graph is yours to change again. The view cannot outlive the walker:
    ///
    /// ```compile_fail,E0505
    /// # use libdag::{Graph, WalkOptions};
    /// let mut graph = Graph::new()?;
    /// let a = graph.add_vertex(Some("a"))?;
    /// let walker = graph.begin_walk(&WalkOptions::new())?;
    /// let pending = walker.next_ready(None)?.unwrap();
    /// let view = pending.graph(&walker)?;
    /// drop(walker); // refused: `view` still reads the graph
    /// graph.remove_vertex(a)?;
    /// println!("{:?}", view.name(a));
    /// # Ok::<(), libdag::Error>(())
    /// ```
    ///
    /// # Errors
    /// [`Status::InvalidArgument`](crate::Status::InvalidArgument) (`walker`
    /// is another walk's).
    pub fn graph<'w>(&self, walker: &'w Walker<'_>) -> Result<GraphRef<'w>> {
        if !Arc::ptr_eq(&self.state, &walker.state) {
            return Err(Error::new(
                Status::InvalidArgument,
                "Pending::graph: the walker is not the walk of this Pending",
            ));
        }
        // SAFETY: the walker keeps the walk, and so the graph it borrows or
        // the sub-walk's copy, alive and unchanged (but for the walk's own
        // updates) for 'w.
        Ok(unsafe { GraphRef::new(self.walk) })
    }

    /// Marks this thread's completion of the deferring callback's attempt
    /// (none in a pull walk, whose vertices are handed out one `Pending`
    /// each); refused once that attempt is over, or being completed by
    /// another `Pending` on this thread.
    fn begin(&self, who: &str) -> Result<Option<&Attempt>> {
        let attempt = match &self.callback {
            Some(attempt) => attempt,
            None => return Ok(None),
        };
        attempt.begin().map_err(|refused| {
            let why = match refused {
                Refused::Failed => {
                    "its attempt failed (the callback that deferred it returned an error or panicked, or a Pending \
                     of it was dropped while the callback ran)"
                }
                Refused::Completed => "another Pending of the vertex completed it already",
                Refused::Completing => "another Pending of the vertex is completing it on this thread",
            };
            Error::new(Status::State, format!("{who}: {why}"))
        })?;
        Ok(Some(attempt))
    }
}

/// After a `Pending`'s libdag call that [`Pending::begin`] marked.
fn end(attempt: Option<&Attempt>, accepted: bool) {
    if let Some(attempt) = attempt {
        attempt.end(accepted);
    }
}

impl Drop for Pending {
    fn drop(&mut self) {
        if self.done {
            return;
        }
        let attempt = self.callback.as_deref();
        if let Some(attempt) = attempt {
            if !attempt.drop_pending() {
                return;
            }
        }
        // Refused (and ignored) when the walk has ended meanwhile.
        let outcome = complete(
            self.walk,
            self.id,
            Some(DROPPED_TEXT.as_ptr().cast::<c_char>()),
        );
        end(attempt, outcome.is_ok());
    }
}

impl fmt::Debug for Pending {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Pending").field("id", &self.id).finish()
    }
}

/// A read-only view of a graph that a walk owns (a sub-walk's copy) or
/// borrows: derefs to [`Graph`] for every `&self` method. Starting a walk
/// of it is refused ([`Status::Busy`](crate::Status::Busy)).
pub struct GraphRef<'a> {
    graph: ManuallyDrop<Graph>,
    _walk: PhantomData<&'a ()>,
}

impl<'a> GraphRef<'a> {
    /// # Safety
    /// `walk` must be a live walk handle for `'a`.
    unsafe fn new(walk: *mut sys::dag_walker) -> GraphRef<'a> {
        GraphRef {
            // Never freed (the walk owns or borrows it), and never walked.
            graph: Graph::viewed(sys::dag_walk_graph(walk) as *mut _),
            _walk: PhantomData,
        }
    }
}

impl Deref for GraphRef<'_> {
    type Target = Graph;

    fn deref(&self) -> &Graph {
        &self.graph
    }
}

impl fmt::Debug for GraphRef<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Debug::fmt(&**self, f)
    }
}

/// `dag_walk_complete`: ok for `message` `None`, failed with it otherwise.
/// Not `dag_walk_fail`, the same call everywhere but inside the vertex's
/// own callback: there it makes the failure final, where a completion is
/// held until the callback returns and gives way to the callback's own
/// result, as one made on another thread does.
fn complete(
    walk: *mut sys::dag_walker,
    id: VertexId,
    message: Option<*const c_char>,
) -> Result<()> {
    let (result, text) = match message {
        None => (sys::DAG_WALK_OK, ptr::null()),
        Some(text) => (sys::DAG_WALK_FAILED, text),
    };
    let mut err = ptr::null_mut();
    // SAFETY: a live walk handle (thread-safe); the message is NULL or a C
    // string that libdag copies.
    unsafe {
        check(
            sys::dag_walk_complete(walk, id.0, result, text, &mut err),
            err,
        )
    }
}

fn expand(walk: *mut sys::dag_walker, id: VertexId, sub: &Graph) -> Result<()> {
    let mut err = ptr::null_mut();
    // SAFETY: a live walk handle; `sub` is copied before this returns; no
    // callback of its own (the walk's is used).
    unsafe {
        let status = sys::dag_walk_expand(walk, id.0, sub.ptr(), None, ptr::null_mut(), &mut err);
        check(status, err)
    }
}

fn apply(walk: *mut sys::dag_walker, update: &WalkUpdate) -> Result<Vec<VertexId>> {
    // SAFETY: a live walk handle; the batch is only read.
    call_ids(|out, err| unsafe { sys::dag_walk_apply(walk, update.ptr(), out, err) })
}

fn cancel(walk: *mut sys::dag_walker) -> Result<()> {
    let mut err = ptr::null_mut();
    // SAFETY: a live walk handle.
    unsafe { check(sys::dag_walk_cancel(walk, &mut err), err) }
}

/// A duration as libdag's millisecond timeout, rounded up so that a short
/// wait still waits.
fn timeout_ms(timeout: Duration) -> c_int {
    let ms = timeout.as_nanos().saturating_add(999_999) / 1_000_000;
    c_int::try_from(ms).unwrap_or(c_int::MAX)
}

unsafe extern "C" fn start_trampoline<F, E>(
    walk: *mut sys::dag_walker,
    vertex: u64,
    message: *mut *const c_char,
    user_data: *mut c_void,
) -> sys::dag_walk_result
where
    F: Fn(&Vertex<'_>) -> std::result::Result<(), E> + Send + Sync + 'static,
    E: Into<BoxError>,
{
    // SAFETY: user_data is the Callback that `start_walk` boxed, which the
    // Walker frees only once the walk has ended; it is only read here.
    let ctx = &*user_data.cast::<Callback<F>>();
    let call = Vertex {
        walk,
        id: VertexId(vertex),
        state: &ctx.state,
        deferred: Cell::new(None),
        expanded: Cell::new(false),
    };
    let outcome = run_vertex(
        walk,
        vertex,
        &ctx.state.failures,
        message,
        || (ctx.f)(&call),
        || call.expanded.get(),
    );
    let deferred = call.deferred.take();
    let dropped = deferred
        .as_ref()
        .map_or(false, |attempt| attempt.returned(outcome.is_err()));
    match outcome {
        // Marked returned, the attempt refuses every Pending from now on:
        // the failure returned is the vertex's.
        Ok(()) if dropped => {
            *message = DROPPED_TEXT.as_ptr().cast::<c_char>();
            sys::DAG_WALK_FAILED
        }
        Ok(()) if deferred.is_some() => sys::DAG_WALK_PENDING,
        Ok(()) => sys::DAG_WALK_OK,
        Err(()) => sys::DAG_WALK_FAILED,
    }
}

impl Graph {
    /// Starts walking the graph and returns at once: as
    /// [`walk`](Graph::walk), but the callback gets a [`Vertex`], which can
    /// [`defer`](Vertex::defer) its vertex to finish later from any thread,
    /// and the returned [`Walker`] can wait (with or without a time limit)
    /// and cancel, from any thread.
    ///
    /// The callback is `'static` (as a thread's closure is) because the
    /// walk may outlive any borrow: it reads the graph through
    /// [`Vertex::graph`].
    ///
    /// ```
    /// use libdag::{Graph, VertexStatus, WalkOptions};
    /// use std::sync::mpsc;
    ///
    /// let mut graph = Graph::new()?;
    /// let app = graph.add_vertex(Some("app"))?;
    /// let db = graph.add_vertex(Some("db"))?;
    /// graph.connect(app, db)?;
    ///
    /// // The callback hands each vertex to a worker thread, which finishes it.
    /// let (send, receive) = mpsc::channel();
    /// let send = std::sync::Mutex::new(send);
    /// let walker = graph.start_walk(&WalkOptions::new(), move |vertex| {
    ///     send.lock().unwrap().send(vertex.defer()).unwrap();
    ///     Ok::<(), String>(())
    /// })?;
    /// let worker = std::thread::spawn(move || {
    ///     for pending in receive.iter().take(2) {
    ///         pending.succeed().unwrap();
    ///     }
    /// });
    /// let report = walker.wait()?;
    /// worker.join().unwrap();
    /// assert!(report.ok());
    /// assert_eq!(report.status(app), Some(VertexStatus::Ok));
    /// # Ok::<(), libdag::Error>(())
    /// ```
    ///
    /// # Errors
    /// As [`walk`](Graph::walk); nothing has run then.
    pub fn start_walk<F, E>(&self, options: &WalkOptions, f: F) -> Result<Walker<'_>>
    where
        F: Fn(&Vertex<'_>) -> std::result::Result<(), E> + Send + Sync + 'static,
        E: Into<BoxError>,
    {
        let state = new_state(options, self);
        let opts = options.to_raw("Graph::start_walk", state.observer.as_ref())?;
        let walking = WalkingFlag::take(self, "Graph::start_walk")?;
        let callback: HeldByC<dyn Any + Send + Sync> = HeldByC::new(Box::new(Callback {
            f,
            state: state.clone(),
        }));
        let mut raw = ptr::null_mut();
        let mut err = ptr::null_mut();
        // SAFETY: `walking` makes this the graph's only walk. The trampoline
        // matches F; the boxed callback and the observer (in `state`) live
        // until the walk has ended (see Walker's Drop); `opts.always_run`
        // is read before the call returns.
        unsafe {
            let status = sys::dag_walk_start(
                self.ptr() as *mut sys::dag_graph,
                Some(start_trampoline::<F, E>),
                callback.as_ptr().cast::<c_void>(),
                &opts,
                &mut raw,
                &mut err,
            );
            check(status, err)?;
        }
        state.raw.store(raw, Ordering::Release);
        Ok(Walker {
            pump: Pump::new(state.clone()),
            state,
            callback: Some(callback),
            _walking: walking,
        })
    }

    /// Pull mode: begins a walk with no callback and no thread of its own.
    /// [`Walker::ready`] hands out each vertex as a [`Pending`] once its
    /// dependencies have finished (at most `parallelism` at once); the
    /// caller runs its work where it likes (its own thread pool, an event
    /// loop) and completes it from any thread. Keep taking vertices until
    /// the iterator ends: that is the end of the walk.
    ///
    /// ```
    /// use libdag::{Graph, WalkOptions};
    ///
    /// let mut graph = Graph::new()?;
    /// let app = graph.add_vertex(Some("app"))?;
    /// let db = graph.add_vertex(Some("db"))?;
    /// graph.connect(app, db)?;
    ///
    /// let walker = graph.begin_walk(&WalkOptions::new())?;
    /// let mut order = Vec::new();
    /// for pending in walker.ready() {
    ///     let pending = pending?;
    ///     order.push(pending.id());
    ///     // Any thread may complete it: a pool's worker, say.
    ///     std::thread::spawn(move || pending.succeed());
    /// }
    /// assert_eq!(order, [db, app]);
    /// assert!(walker.wait()?.ok());
    /// # Ok::<(), libdag::Error>(())
    /// ```
    ///
    /// # Errors
    /// As [`walk`](Graph::walk) ([`Status::Cycle`](crate::Status::Cycle), [`Status::Busy`](crate::Status::Busy), bad
    /// options); nothing has begun then.
    pub fn begin_walk(&self, options: &WalkOptions) -> Result<Walker<'_>> {
        let state = new_state(options, self);
        let opts = options.to_raw("Graph::begin_walk", state.observer.as_ref())?;
        let walking = WalkingFlag::take(self, "Graph::begin_walk")?;
        let mut raw = ptr::null_mut();
        let mut err = ptr::null_mut();
        // SAFETY: as in `start_walk`, with no callback.
        unsafe {
            let status =
                sys::dag_walk_begin(self.ptr() as *mut sys::dag_graph, &opts, &mut raw, &mut err);
            check(status, err)?;
        }
        state.raw.store(raw, Ordering::Release);
        Ok(Walker {
            pump: Pump::new(state.clone()),
            state,
            callback: None,
            _walking: walking,
        })
    }
}

fn new_state(options: &WalkOptions, graph: &Graph) -> Arc<WalkState> {
    Arc::new(WalkState {
        raw: AtomicPtr::new(ptr::null_mut()),
        failures: Failures::default(),
        observer: options
            .observer_fn()
            .map(|observer| WalkObserver::new(observer, graph.ptr())),
        walked: graph.ptr() as usize,
    })
}

impl Walker<'_> {
    fn raw(&self) -> *mut sys::dag_walker {
        self.state.raw.load(Ordering::Acquire)
    }

    pub(crate) fn pump(&self) -> &Pump {
        &self.pump
    }

    /// Blocks until the walk has finished, and reports it: `Ok(report)`
    /// whenever the walk ran, failed vertices and cancellation included
    /// (see [`WalkReport::into_result`]). May be called again, from any
    /// thread, for another copy of the report.
    ///
    /// # Errors
    /// [`Status::State`](crate::Status::State) from inside one of the walk's own callbacks or its
    /// observer, which it would wait for.
    pub fn wait(&self) -> Result<WalkReport> {
        let mut report = ptr::null_mut();
        let mut err = ptr::null_mut();
        // SAFETY: a live walk; finish takes the report and the error.
        unsafe {
            let status = sys::dag_walk_wait(self.raw(), &mut report, &mut err);
            finish(status, err, report, &self.state.failures, Some(self.raw()))
        }
    }

    /// As [`wait`](Walker::wait), for at most `timeout` (rounded up to a
    /// millisecond): `Ok(None)` when the walk is still running then.
    ///
    /// # Errors
    /// As [`wait`](Walker::wait).
    pub fn wait_timeout(&self, timeout: Duration) -> Result<Option<WalkReport>> {
        let mut report = ptr::null_mut();
        let mut err = ptr::null_mut();
        // SAFETY: a live walk; finish takes the report and the error.
        unsafe {
            let status =
                sys::dag_walk_wait_for(self.raw(), timeout_ms(timeout), &mut report, &mut err);
            if status == sys::DAG_E_TIMEOUT {
                sys::dag_error_free(err);
                return Ok(None);
            }
            finish(status, err, report, &self.state.failures, Some(self.raw())).map(Some)
        }
    }

    /// Cancels the walk and returns without waiting: nothing new starts,
    /// running callbacks finish, deferred vertices and those never started
    /// are reported [`VertexStatus::Cancelled`](crate::VertexStatus::Cancelled).
    /// In a pull walk the vertices handed out still have to be completed;
    /// those taken for [`next_ready_async`](Walker::next_ready_async)
    /// futures that were dropped before they had them are completed as
    /// cancelled here, since nobody has started their work.
    ///
    /// # Errors
    /// [`Status::State`](crate::Status::State) (the walk has finished).
    pub fn cancel(&self) -> Result<()> {
        let outcome = cancel(self.raw());
        // Also after Status::NoMemory, which cancelled the walk all the same.
        self.pump.cancel_queued();
        outcome
    }

    /// Vertices finished so far, and vertices in the walk (more once
    /// updates add some). Without an observer, `done` may lag by up to 64
    /// per pool thread until the walk ends.
    pub fn progress(&self) -> Result<(usize, usize)> {
        let (mut done, mut total) = (0, 0);
        let mut err = ptr::null_mut();
        // SAFETY: a live walk.
        unsafe {
            check(
                sys::dag_walk_progress(self.raw(), &mut done, &mut total, &mut err),
                err,
            )?;
        }
        Ok((done, total))
    }

    /// Applies a batch of changes to the running walk and its graph, all or
    /// nothing, from any thread; returns the real ids of the vertices the
    /// batch added, in the order it added them.
    ///
    /// # Errors
    /// [`Status::UnknownVertex`](crate::Status::UnknownVertex), [`Status::DuplicateName`](crate::Status::DuplicateName),
    /// [`Status::Cycle`](crate::Status::Cycle) (nothing changed); [`Status::State`](crate::Status::State) (a vertex that
    /// has started, or ended without starting, would get a dependency or be
    /// removed, or the walk has finished).
    pub fn apply(&self, update: &WalkUpdate) -> Result<Vec<VertexId>> {
        apply(self.raw(), update)
    }

    /// The graph being walked, to read (as the walk sees it, updates
    /// included).
    pub fn graph(&self) -> GraphRef<'_> {
        // SAFETY: the walk lives as long as `self`.
        unsafe { GraphRef::new(self.raw()) }
    }

    /// Pull mode: takes the next ready vertex, waiting up to `timeout`
    /// (`None`: as long as it takes). `Ok(None)` when the walk has ended.
    /// A vertex taken for a [`next_ready_async`](Walker::next_ready_async)
    /// future dropped before it had it comes first.
    ///
    /// # Errors
    /// [`Status::Timeout`](crate::Status::Timeout) (none became ready in time); [`Status::State`](crate::Status::State)
    /// (a walk started with a callback).
    pub fn next_ready(&self, timeout: Option<Duration>) -> Result<Option<Pending>> {
        in_slices(timeout, |wait| match self.pump.take_queued(1).pop() {
            Some(queued) => Ok(Some(queued)),
            None => self.take_one(wait),
        })
    }

    fn take_one(&self, timeout: Option<Duration>) -> Result<Option<Pending>> {
        let mut vertex = 0u64;
        let mut walk = ptr::null_mut();
        let mut count = 0usize;
        let mut err = ptr::null_mut();
        // SAFETY: a live walk; room for one vertex and its walk handle.
        unsafe {
            let status = sys::dag_walk_next_ready(
                self.raw(),
                &mut vertex,
                &mut walk,
                1,
                timeout.map_or(-1, timeout_ms),
                &mut count,
                &mut err,
            );
            check(status, err)?;
        }
        Ok(if count == 0 {
            None
        } else {
            let pending = Pending {
                walk,
                id: VertexId(vertex),
                state: self.state.clone(),
                callback: None,
                done: false,
            };
            // After the Pending exists: should an earlier attempt's error
            // panic as it drops, the Pending's own Drop still fails the vertex.
            self.state.failures.forget(walk, vertex);
            Some(pending)
        })
    }

    /// Pull mode: takes up to `max` ready vertices at once (fewer calls into
    /// libdag per vertex than [`next_ready`](Walker::next_ready); at most
    /// 65,536 a call, whatever `max`), waiting up to `timeout` while none is
    /// ready. Empty when the walk has ended. Each vertex taken holds a
    /// parallelism slot until completed. Vertices taken for
    /// [`next_ready_async`](Walker::next_ready_async) futures dropped before
    /// they had them come first (alone, when there are any).
    ///
    /// # Errors
    /// As [`next_ready`](Walker::next_ready);
    /// [`Status::InvalidArgument`](crate::Status::InvalidArgument) for `max`
    /// 0.
    pub fn next_ready_many(&self, max: usize, timeout: Option<Duration>) -> Result<Vec<Pending>> {
        in_slices(timeout, |wait| {
            let queued = self.pump.take_queued(max);
            if !queued.is_empty() {
                return Ok(queued);
            }
            take_ready(&self.state, max, wait)
        })
        .map_err(|e| e.in_method("Walker::next_ready", "Walker::next_ready_many"))
    }

    /// Pull mode: the ready vertices, each as soon as its dependencies have
    /// finished, until the walk ends. Several threads may each iterate at
    /// once; each vertex goes to one of them.
    pub fn ready(&self) -> Ready<'_, '_> {
        Ready {
            walker: self,
            ended: false,
        }
    }
}

/// Calls `attempt` with the time left, one slice at a time while more than
/// a slice is left, until it gives something other than a timeout. A vertex
/// the async thread queues for a future dropped meanwhile is seen by the
/// next slice's look at the queue; one wait in libdag would never see it,
/// and the walk would wait for ever for the vertex.
fn in_slices<T>(
    timeout: Option<Duration>,
    mut attempt: impl FnMut(Option<Duration>) -> Result<T>,
) -> Result<T> {
    // None: no deadline (none given, or one past what Instant can hold).
    let deadline = timeout.and_then(|t| Instant::now().checked_add(t));
    let mut sliced = false;
    loop {
        let left = deadline.map(|d| d.saturating_duration_since(Instant::now()));
        match left {
            Some(left) if left <= SLICE => {
                return attempt(Some(left)).map_err(|e| match timeout {
                    // Its message names the whole wait, not the last slice.
                    Some(whole) if sliced && e.status() == Status::Timeout => {
                        e.waited(timeout_ms(whole))
                    }
                    _ => e,
                });
            }
            _ => match attempt(Some(SLICE)) {
                Err(e) if e.status() == Status::Timeout => sliced = true,
                done => return done,
            },
        }
    }
}

/// Up to `max` ready vertices of the walk of `state`, as [`Pending`]s,
/// taken with `dag_walk_next_ready` calls of at most [`ROOM`] each: the
/// first waits up to `timeout`, and the next ones, made while each call
/// fills its room, do not wait. A call that fails after others took
/// vertices ends the loop with those, not the error; errors name
/// `Walker::next_ready`.
pub(crate) fn take_ready(
    state: &Arc<WalkState>,
    max: usize,
    timeout: Option<Duration>,
) -> Result<Vec<Pending>> {
    let max = max.min(NEXT_READY_MANY_MAX);
    // Not room for `max`: `usize::MAX` means "all that are ready", often
    // one, and an async batch calls this on every poll.
    let room = max.min(ROOM);
    let mut vertices = vec![0u64; room];
    let mut walks = vec![ptr::null_mut(); room];
    let mut taken = Vec::new();
    let mut timeout = timeout.map_or(-1, timeout_ms);
    loop {
        let asked = room.min(max - taken.len());
        let mut count = 0usize;
        let mut err = ptr::null_mut();
        // SAFETY: a live walk (`state` keeps it); room for `asked` vertices
        // and walk handles.
        let status = unsafe {
            sys::dag_walk_next_ready(
                state.raw.load(Ordering::Acquire),
                vertices.as_mut_ptr(),
                walks.as_mut_ptr(),
                asked,
                timeout,
                &mut count,
                &mut err,
            )
        };
        // SAFETY: the status and error of that call.
        if let Err(e) = unsafe { check(status, err) } {
            // What was taken is handed out already, and the caller's: a
            // later call meets the failure again if it lasts (a timeout
            // only says that no more is ready).
            return if taken.is_empty() { Err(e) } else { Ok(taken) };
        }
        let start = taken.len();
        taken.extend(
            vertices[..count]
                .iter()
                .zip(&walks[..count])
                .map(|(&vertex, &walk)| Pending {
                    walk,
                    id: VertexId(vertex),
                    state: state.clone(),
                    callback: None,
                    done: false,
                }),
        );
        // Once every Pending exists, as in next_ready.
        for p in &taken[start..] {
            state.failures.forget(p.walk, p.id.0);
        }
        if count < asked || taken.len() == max {
            return Ok(taken);
        }
        // More may be ready: looked for without waiting again.
        timeout = 0;
    }
}

impl Drop for Walker<'_> {
    fn drop(&mut self) {
        let raw = self.raw();
        // SAFETY: a live walk; the cancel is refused once it has finished,
        // which is fine.
        unsafe { sys::dag_walk_cancel(raw, ptr::null_mut()) };
        // After the cancel: the vertices queued for futures can then be
        // completed as cancelled, which lets the walk end and the thread
        // taking them return.
        self.pump.stop();
        let callback = match self.callback.take() {
            Some(callback) => callback,
            // A pull walk ends once the vertices handed out are completed,
            // which the dropping thread may be the one to do: waiting could
            // hang. Nothing of this walker is used by libdag meanwhile, and
            // each `Pending` keeps the walk alive until it is done.
            None => return,
        };
        // SAFETY: a live walk.
        if unsafe { wait_for_end(raw) } {
            drop(callback);
        } else {
            // Dropped where the walk cannot be waited for: inside one of its
            // own callbacks or its observer, or inside a traversal of the
            // walked graph (a visitor or a predicate). The callback must
            // outlive the walk, so a thread of ours waits for its end. The
            // graph's walking mark can go now: until the walk has ended,
            // libdag itself refuses another walk of the graph
            // (`Status::Busy`) and any change to it.
            free_when_ended(self.state.clone(), callback);
        }
    }
}

/// Waits for the walk to end (every callback and observer call returned);
/// false where that cannot be waited for on this thread.
///
/// # Safety
/// `raw` must be a live walk.
unsafe fn wait_for_end(raw: *mut sys::dag_walker) -> bool {
    let mut err = ptr::null_mut();
    let status = sys::dag_walk_wait(raw, ptr::null_mut(), &mut err);
    sys::dag_error_free(err);
    status != sys::DAG_E_STATE
}

/// Frees a callback walk's callback once the walk has ended, waiting for
/// that on a thread of its own; `state` keeps the walk alive meanwhile.
fn free_when_ended(state: Arc<WalkState>, callback: HeldByC<dyn Any + Send + Sync>) {
    // Should no thread start, the closure is dropped unrun and the callback
    // leaked with the walk: freeing it while callbacks may run is worse.
    let callback = ManuallyDrop::new(callback);
    let waiter = std::thread::Builder::new()
        .name("libdag-walk-end".to_owned())
        .spawn(move || {
            // SAFETY: `state` keeps the walk alive; this thread is none of
            // its callbacks, nor inside a read of its graph. Where the wait
            // still cannot be had, leaking beats freeing early.
            if unsafe { wait_for_end(state.raw.load(Ordering::Acquire)) } {
                drop(ManuallyDrop::into_inner(callback));
            }
            drop(state);
        });
    drop(waiter); // detached: nothing waits for it
}

impl fmt::Debug for Walker<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Walker")
            .field("progress", &self.progress().ok())
            .finish()
    }
}

/// Iterator over a pull walk's ready vertices; see [`Walker::ready`]. Ends
/// with the walk, or after yielding an error.
pub struct Ready<'w, 'g> {
    walker: &'w Walker<'g>,
    ended: bool,
}

impl Iterator for Ready<'_, '_> {
    type Item = Result<Pending>;

    fn next(&mut self) -> Option<Result<Pending>> {
        if self.ended {
            return None;
        }
        match self.walker.next_ready(None) {
            Ok(Some(pending)) => Some(Ok(pending)),
            Ok(None) => {
                self.ended = true;
                None
            }
            Err(e) => {
                self.ended = true;
                Some(Err(e))
            }
        }
    }
}
