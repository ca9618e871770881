//! Blocking callback walks ([`Graph::walk`]) and what every kind of walk
//! shares: running a callback safely on a pool thread, keeping the errors
//! vertices failed with, and turning the end of a walk into a report.

use std::cell::Cell;
use std::collections::HashMap;
use std::ffi::CString;
use std::os::raw::{c_char, c_void};
use std::panic::{self, AssertUnwindSafe};
use std::ptr::{self, NonNull};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Condvar, Mutex, MutexGuard};

use libdag_sys as sys;

use crate::error::{check, BoxError, Error, Result, SharedError, Status};
use crate::graph::{Graph, VertexId};
use crate::options::{WalkObserver, WalkOptions};
use crate::raw::{drop_payload, panic_message};
use crate::report::WalkReport;

/// The errors vertices failed with, by (walk handle, vertex): a sub-walk's
/// vertices have ids of their own, which may equal the walk's. With
/// retries only the last attempt's is kept (`forget`).
///
/// An error is kept before its failure goes to libdag (the walk may end,
/// and be reported, as soon as libdag has it), and put back if libdag
/// refuses it: a report read in between waits until it is settled, so it
/// never shows an error that was refused.
#[derive(Default)]
pub(crate) struct Failures {
    map: Mutex<Recorded>,
    settled: Condvar,
    // Set once an error is recorded: until then an attempt starting has
    // nothing to forget and takes no lock.
    any: AtomicBool,
}

#[derive(Default)]
struct Recorded {
    errors: HashMap<(usize, u64), SharedError>,
    // Errors proposed whose failure libdag has not answered yet.
    unsettled: usize,
}

impl Failures {
    fn lock(&self) -> MutexGuard<'_, Recorded> {
        self.map.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// Keeps `error` for the vertex whose failure is about to go to libdag
    /// (`None`, a panic's failure, has no error: none is kept); returns what
    /// it replaced, for [`settle`](Failures::settle), which must follow.
    pub(crate) fn propose(
        &self,
        walk: *mut sys::dag_walker,
        vertex: u64,
        error: Option<SharedError>,
    ) -> Option<SharedError> {
        let mut recorded = self.lock();
        recorded.unsettled += 1;
        let key = (walk as usize, vertex);
        match error {
            Some(error) => {
                self.any.store(true, Ordering::Relaxed);
                recorded.errors.insert(key, error)
            }
            None => recorded.errors.remove(&key),
        }
    }

    /// libdag answered the failure of `proposed`, which
    /// [`propose`](Failures::propose) kept: where it refused it, `earlier`
    /// is put back (unless something else was kept since). Returns the
    /// error no longer kept (its Drop is the user's code: the caller drops
    /// it).
    pub(crate) fn settle(
        &self,
        walk: *mut sys::dag_walker,
        vertex: u64,
        accepted: bool,
        proposed: Option<&SharedError>,
        earlier: Option<SharedError>,
    ) -> Option<SharedError> {
        let mut recorded = self.lock();
        let key = (walk as usize, vertex);
        // The same allocation: data pointers only, as Arc::ptr_eq compares
        // them from Rust 1.72 on. Before, it compared the vtable pointers
        // too, which one trait object may have several of (one a codegen
        // unit); older clippy denies it as vtable_address_comparisons.
        let still_proposed = match (recorded.errors.get(&key), proposed) {
            (Some(kept), Some(proposed)) => std::ptr::eq(
                Arc::as_ptr(kept).cast::<()>(),
                Arc::as_ptr(proposed).cast::<()>(),
            ),
            (None, None) => true,
            _ => false,
        };
        let dropped = if accepted || !still_proposed {
            earlier
        } else {
            match earlier {
                Some(earlier) => recorded.errors.insert(key, earlier),
                None => recorded.errors.remove(&key),
            }
        };
        recorded.unsettled -= 1;
        self.settled.notify_all();
        dropped
    }

    /// Drops what an earlier attempt of the vertex failed with, as a new
    /// attempt starts (a retry): a vertex that then succeeds, panics or
    /// fails with another error must not report the old one. libdag starts
    /// a retry only after the failure that asked for it was handed over,
    /// which the error's recording came before.
    pub(crate) fn forget(&self, walk: *mut sys::dag_walker, vertex: u64) {
        if self.any.load(Ordering::Relaxed) {
            let forgotten = self.lock().errors.remove(&(walk as usize, vertex));
            drop(forgotten); // its Drop is the user's code: not under the lock
        }
    }

    /// The errors of one walk's own vertices (every one recorded, for
    /// `None`), by vertex.
    fn of(&self, walk: Option<*mut sys::dag_walker>) -> HashMap<u64, SharedError> {
        let mut recorded = self.lock();
        while recorded.unsettled > 0 {
            recorded = self
                .settled
                .wait(recorded)
                .unwrap_or_else(|e| e.into_inner());
        }
        recorded
            .errors
            .iter()
            .filter(|((w, _), _)| walk.map_or(true, |walk| *w == walk as usize))
            .map(|((_, v), e)| (*v, e.clone()))
            .collect()
    }
}

/// A failure message as a C string; a NUL byte inside (which C cannot
/// carry) is written as the two characters `\0`.
pub(crate) fn failure_message(text: String) -> CString {
    CString::new(text).unwrap_or_else(|e| {
        let escaped = String::from_utf8_lossy(&e.into_vec()).replace('\0', "\\0");
        // Cannot fail now; a default keeps this free of panics, since it
        // runs outside the trampoline's catch_unwind.
        CString::new(escaped).unwrap_or_default()
    })
}

thread_local! {
    // The failure message a callback gives back through its `message`
    // argument, which must still be valid once the callback has returned:
    // libdag copies it then, before this thread runs another callback.
    static RETURNED_MESSAGE: Cell<CString> = Cell::new(CString::default());
}

/// `text` kept for a callback to return through its `message` argument;
/// NULL (no message) on a thread that is being torn down.
pub(crate) fn returned_message(text: CString) -> *const c_char {
    // The bytes live on the heap: moving the CString does not move them.
    let at = text.as_ptr();
    RETURNED_MESSAGE
        .try_with(|kept| kept.set(text))
        .map_or(ptr::null(), |()| at)
}

/// A callback's error as the report keeps it, and its message.
pub(crate) fn shared_error<E: Into<BoxError>>(error: E) -> (SharedError, CString) {
    let error: BoxError = error.into();
    let text = failure_message(error.to_string());
    (SharedError::from(error), text)
}

/// Runs one vertex's callback on a pool thread: catches a panic, which must
/// not unwind into C, and fails the vertex with the error's text, keeping
/// the error in `failures`. Returns what to tell libdag; `expanded` says,
/// after the call, whether the callback expanded the vertex.
///
/// # Safety
/// `walk` and `message` must be what libdag called the trampoline with.
pub(crate) unsafe fn run_vertex<E, C, X>(
    walk: *mut sys::dag_walker,
    vertex: u64,
    failures: &Failures,
    message: *mut *const c_char,
    call: C,
    expanded: X,
) -> std::result::Result<(), ()>
where
    C: FnOnce() -> std::result::Result<(), E>,
    E: Into<BoxError>,
    X: FnOnce() -> bool,
{
    // Turning the error into its text runs the user's code too (its
    // conversion and Display, and the Drop of an error it replaces, or of
    // an earlier attempt's it forgets): all of it inside catch_unwind.
    let failed = panic::catch_unwind(AssertUnwindSafe(|| {
        failures.forget(walk, vertex);
        match call() {
            Ok(()) => None,
            Err(error) => {
                let (error, text) = shared_error(error);
                let earlier = failures.propose(walk, vertex, Some(error.clone()));
                Some((text, Some(error), earlier))
            }
        }
    }));
    // `proposed`: the error proposed (none for a panic, which takes out an
    // error a Pending completed meanwhile: the vertex failed by the panic)
    // and what it replaced (a report waits for them).
    let (text, proposed, earlier) = match failed {
        Ok(None) => return Ok(()),
        Ok(Some(told)) => told,
        Err(payload) => {
            let text = format!("callback panicked: {}", panic_message(&*payload));
            drop_payload(payload);
            let earlier = failures.propose(walk, vertex, None);
            (failure_message(text), None, earlier)
        }
    };
    // dag_walk_fail copies the message before it returns; it replaces a
    // completion another thread made while the callback ran (the callback's
    // own result wins), and once it is taken no completion can replace it.
    // It is refused where a completion made on this thread, inside the
    // callback (a Pending completed there), holds the vertex: the failure
    // returned with its message then wins over that completion, as a
    // callback's result does over any, and libdag copies the message as
    // the callback returns. It is refused too where the vertex was
    // expanded (it ends with its sub-walk, whatever the callback returns):
    // the error is not the vertex's, and what was recorded before is put
    // back. Out of memory, nothing changed: the returned failure stands.
    let accepted = sys::dag_walk_fail(walk, vertex, text.as_ptr(), ptr::null_mut()) == sys::DAG_OK;
    let kept = accepted || !expanded();
    if !accepted {
        *message = returned_message(text);
    }
    let dropped = failures.settle(walk, vertex, kept, proposed.as_ref(), earlier);
    // Dropping an error taken out runs its Drop, the user's code; ours
    // may be the last reference now, so its Drop too. A payload is
    // dropped where it cannot unwind into C either.
    if let Err(payload) = panic::catch_unwind(AssertUnwindSafe(|| drop((dropped, proposed)))) {
        drop_payload(payload);
    }
    Err(())
}

/// The end of a walk (`dag_walk`, `dag_walk_wait`...): its report, with the
/// walk's own status as the report's error; `Err` when the walk did not
/// run.
///
/// # Safety
/// `report` must be NULL or a report libdag just returned, owned by nobody
/// else; `err` as for `check`.
pub(crate) unsafe fn finish(
    status: i32,
    err: *mut sys::dag_error,
    report: *mut sys::dag_walk_report,
    failures: &Failures,
    walk: Option<*mut sys::dag_walker>,
) -> Result<WalkReport> {
    let outcome = check(status, err);
    match NonNull::new(report) {
        // Written on ok, walk-failed, cancelled and callback errors: each is
        // a walk that ran, and its report says what happened.
        Some(report) => Ok(WalkReport::new(report, failures.of(walk), outcome.err())),
        None => {
            outcome?;
            Err(Error::new(
                Status::Internal,
                "walk: libdag returned no report",
            ))
        }
    }
}

/// What `Graph::walk`'s callback `user_data` points at.
struct WalkContext<'f, F> {
    f: &'f F,
    failures: Failures,
}

unsafe extern "C" fn walk_trampoline<F, E>(
    walk: *mut sys::dag_walker,
    vertex: u64,
    message: *mut *const c_char,
    user_data: *mut c_void,
) -> sys::dag_walk_result
where
    F: Fn(VertexId) -> std::result::Result<(), E> + Sync,
    E: Into<BoxError>,
{
    // SAFETY: user_data is the WalkContext that `Graph::walk` passed; it
    // outlives the walk, and is only read here (F is Sync, Failures locks),
    // so sharing it across pool threads is fine.
    let ctx = &*user_data.cast::<WalkContext<F>>();
    // Nothing can expand a vertex of this walk.
    match run_vertex(
        walk,
        vertex,
        &ctx.failures,
        message,
        || (ctx.f)(VertexId(vertex)),
        || false,
    ) {
        Ok(()) => sys::DAG_WALK_OK,
        Err(()) => sys::DAG_WALK_FAILED,
    }
}

/// Clears `Graph::walking` when a walk is over, however it ends.
pub(crate) struct WalkingFlag<'g>(pub(crate) &'g Graph);

impl<'g> WalkingFlag<'g> {
    /// Marks the graph walked; `Status::Busy` when it already is (or is a
    /// walk's, seen through a `GraphRef`).
    pub(crate) fn take(graph: &'g Graph, method: &str) -> Result<WalkingFlag<'g>> {
        if graph
            .walking
            .compare_exchange(false, true, Ordering::AcqRel, Ordering::Acquire)
            .is_err()
        {
            return Err(Error::new(
                Status::Busy,
                format!(
                    "{}: the graph is already being walked: a Walker of it not yet dropped, its walk over or not, \
                     or it is a walk's, seen through a GraphRef",
                    method
                ),
            ));
        }
        Ok(WalkingFlag(graph))
    }
}

impl Drop for WalkingFlag<'_> {
    fn drop(&mut self) {
        self.0.walking.store(false, Ordering::Release);
    }
}

impl Graph {
    /// Runs `f` once per vertex, each as soon as every dependency of the
    /// vertex has finished (with [`WalkOptions::reverse`]: every
    /// dependent), independent vertices in parallel on libdag's thread pool.
    /// With `a -> b` ("a depends on b"), `f(b)` returns before `f(a)`
    /// starts. Blocks until every vertex has finished.
    ///
    /// `f` runs on the pool's threads, up to
    /// [`parallelism`](WalkOptions::parallelism) calls at once, hence
    /// `Sync`. It may read the graph (names, dependencies, algorithms);
    /// nothing can change it meanwhile. `Err(e)`, for any error type (a
    /// `String` and `&str` too), marks the vertex failed with `e`'s
    /// `Display` text, and the report keeps `e` itself
    /// ([`WalkReport::source`]); a panic is caught (it must not unwind into
    /// C) and fails the vertex with `"callback panicked: ..."`. A
    /// failed vertex's transitive dependents are skipped as
    /// [`VertexStatus::UpstreamFailed`](crate::VertexStatus::UpstreamFailed).
    ///
    /// A walk in which vertices failed did its job: it returns `Ok` with a
    /// report whose [`ok`](WalkReport::ok) is false and whose
    /// [`first_error`](WalkReport::first_error) names the first failure;
    /// [`WalkReport::into_result`] makes it an `Err`. To cancel, complete
    /// vertices later, or watch from other threads, use
    /// [`start_walk`](Graph::start_walk); to run vertices on a pool of your
    /// own, [`begin_walk`](Graph::begin_walk).
    ///
    /// # Errors
    /// Nothing has run when any of these is returned:
    /// [`Status::Cycle`] (the graph has a cycle or a self reference; message
    /// in Terraform's `Cycle:` form); [`Status::Busy`] (the graph is already
    /// being walked, for example from one of its own callbacks);
    /// [`Status::InvalidArgument`] (parallelism 0, threads above
    /// 1024); [`Status::UnknownVertex`] (an `always_run` id);
    /// [`Status::NoMemory`] (also when the pool's threads cannot start).
    pub fn walk<F, E>(&self, options: &WalkOptions, f: F) -> Result<WalkReport>
    where
        F: Fn(VertexId) -> std::result::Result<(), E> + Sync,
        E: Into<BoxError>,
    {
        let observer = options
            .observer_fn()
            .map(|observer| WalkObserver::new(observer, self.ptr()));
        let opts = options.to_raw("Graph::walk", observer.as_ref())?;
        let _walking = WalkingFlag::take(self, "Graph::walk")?;
        let ctx = WalkContext {
            f: &f,
            failures: Failures::default(),
        };
        let mut report = ptr::null_mut();
        let mut err = ptr::null_mut();
        // SAFETY: `self.walking` makes this the graph's only walk, and
        // readers may run alongside it. The trampoline matches F; `ctx`
        // (with `f`), `opts.always_run` and the observer outlive the call,
        // which returns only when every callback and observer call has
        // returned. `finish` takes the report and the error.
        unsafe {
            let status = sys::dag_walk(
                self.ptr() as *mut sys::dag_graph,
                Some(walk_trampoline::<F, E>),
                (&ctx as *const WalkContext<F>).cast::<c_void>() as *mut c_void,
                &opts,
                &mut report,
                &mut err,
            );
            finish(status, err, report, &ctx.failures, None)
        }
    }
}
