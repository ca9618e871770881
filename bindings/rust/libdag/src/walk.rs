//! Parallel walks: a closure runs once per vertex, each as soon as its
//! dependencies have finished, on libdag's thread pool.

use std::ffi::CString;
use std::fmt;
use std::mem::MaybeUninit;
use std::os::raw::{c_char, c_int, c_void};
use std::panic::{self, AssertUnwindSafe};
use std::ptr;
use std::sync::atomic::Ordering;

use libdag_sys as sys;

use crate::error::{check, Error, Result, Status};
use crate::graph::{Graph, VertexId};
use crate::raw::{drop_payload, id_ptr, lossy_string, panic_message, Ids};

/// How [`Graph::walk`] runs: a builder whose defaults are libdag's (10
/// callbacks at once, a thread for each, dependencies first, Terraform's failure
/// policy, timestamps on).
///
/// ```
/// # use libdag::WalkOptions;
/// let destroy = WalkOptions::new().parallelism(4).reverse(true).fail_fast(true);
/// # let _ = destroy;
/// ```
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct WalkOptions {
    parallelism: Option<usize>,
    threads: Option<usize>,
    reverse: bool,
    fail_fast: bool,
    timestamps: bool,
    always_run: Vec<VertexId>,
}

impl Default for WalkOptions {
    fn default() -> WalkOptions {
        WalkOptions::new()
    }
}

impl WalkOptions {
    /// libdag's defaults.
    pub fn new() -> WalkOptions {
        WalkOptions {
            parallelism: None,
            threads: None,
            reverse: false,
            fail_fast: false,
            timestamps: true,
            always_run: Vec::new(),
        }
    }

    /// The most callbacks running at once (Terraform's `-parallelism`),
    /// default 10. 0 is refused by [`Graph::walk`] with
    /// [`Status::InvalidArgument`].
    #[must_use]
    pub fn parallelism(mut self, parallelism: usize) -> WalkOptions {
        self.parallelism = Some(parallelism);
        self
    }

    /// Threads in the walk's pool, at most 1024; default 0, libdag's: one
    /// per slot of `parallelism`. The pool never starts more threads than
    /// `parallelism`, since no more could be busy.
    #[must_use]
    pub fn threads(mut self, threads: usize) -> WalkOptions {
        self.threads = Some(threads);
        self
    }

    /// True: dependents run before their dependencies (destroy order).
    #[must_use]
    pub fn reverse(mut self, reverse: bool) -> WalkOptions {
        self.reverse = reverse;
        self
    }

    /// True: once a vertex has failed, start nothing new; what never
    /// started is reported [`VertexStatus::NotRun`]. False (the default,
    /// Terraform's behaviour): only the failed vertex's dependents are
    /// skipped, as [`VertexStatus::UpstreamFailed`], and independent
    /// branches go on.
    #[must_use]
    pub fn fail_fast(mut self, fail_fast: bool) -> WalkOptions {
        self.fail_fast = fail_fast;
        self
    }

    /// True (the default): record each vertex's start and end time in the
    /// report. False leaves them 0, for walks of very cheap callbacks.
    #[must_use]
    pub fn timestamps(mut self, timestamps: bool) -> WalkOptions {
        self.timestamps = timestamps;
        self
    }

    /// Vertices that run even when a dependency failed; their own result
    /// then decides their dependents. Replaces any earlier list.
    #[must_use]
    pub fn always_run<I>(mut self, vertices: I) -> WalkOptions
    where
        I: IntoIterator<Item = VertexId>,
    {
        self.always_run = vertices.into_iter().collect();
        self
    }

    /// The C options; borrows `self.always_run`.
    fn to_raw(&self) -> Result<sys::dag_walk_options> {
        let mut opts = MaybeUninit::<sys::dag_walk_options>::uninit();
        let mut err = ptr::null_mut();
        // SAFETY: opts is writable for its size; init fills every field on
        // success (the size check guards against a mismatched library).
        let mut opts = unsafe {
            let size = std::mem::size_of::<sys::dag_walk_options>();
            check(
                sys::dag_walk_options_init(opts.as_mut_ptr(), size, &mut err),
                err,
            )?;
            opts.assume_init()
        };
        if let Some(parallelism) = self.parallelism {
            opts.parallelism = parallelism;
        }
        if let Some(threads) = self.threads {
            opts.threads = threads;
        }
        opts.reverse = c_int::from(self.reverse);
        opts.failure_policy = if self.fail_fast {
            sys::DAG_FAILURE_FAIL_FAST
        } else {
            sys::DAG_FAILURE_CONTINUE
        };
        opts.timestamps = c_int::from(self.timestamps);
        if !self.always_run.is_empty() {
            opts.always_run = id_ptr(&self.always_run);
            opts.always_run_count = self.always_run.len();
        }
        Ok(opts)
    }
}

/// The final state of a vertex in a [`WalkReport`].
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum VertexStatus {
    /// Never started: fail fast stopped the walk first.
    NotRun,
    /// Its callback returned `Ok`.
    Ok,
    /// Its callback returned `Err` or panicked.
    Failed,
    /// Skipped because a dependency did not finish ok; not an error of its
    /// own.
    UpstreamFailed,
    /// Never started, or was pending, when the walk was cancelled.
    Cancelled,
    /// A status this version of the binding does not know (from a newer
    /// libdag).
    Unknown(u32),
}

impl VertexStatus {
    fn from_raw(raw: sys::dag_vertex_status) -> VertexStatus {
        match raw {
            sys::DAG_VERTEX_NOT_RUN => VertexStatus::NotRun,
            sys::DAG_VERTEX_OK => VertexStatus::Ok,
            sys::DAG_VERTEX_FAILED => VertexStatus::Failed,
            sys::DAG_VERTEX_UPSTREAM_FAILED => VertexStatus::UpstreamFailed,
            sys::DAG_VERTEX_CANCELLED => VertexStatus::Cancelled,
            other => VertexStatus::Unknown(other),
        }
    }

    fn to_raw(self) -> sys::dag_vertex_status {
        match self {
            VertexStatus::NotRun => sys::DAG_VERTEX_NOT_RUN,
            VertexStatus::Ok => sys::DAG_VERTEX_OK,
            VertexStatus::Failed => sys::DAG_VERTEX_FAILED,
            VertexStatus::UpstreamFailed => sys::DAG_VERTEX_UPSTREAM_FAILED,
            VertexStatus::Cancelled => sys::DAG_VERTEX_CANCELLED,
            VertexStatus::Unknown(raw) => raw,
        }
    }

    /// libdag's name for the status (`"upstream-failed"`), or `"unknown"`.
    pub fn name(self) -> &'static str {
        // SAFETY: a static NUL-terminated string for any value.
        let name =
            unsafe { std::ffi::CStr::from_ptr(sys::dag_vertex_status_string(self.to_raw())) };
        name.to_str().unwrap_or("unknown")
    }
}

impl fmt::Display for VertexStatus {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// One vertex's outcome in a [`WalkReport`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct VertexReport {
    id: VertexId,
    status: VertexStatus,
    message: String,
    start_ns: i64,
    end_ns: i64,
    ran: bool,
}

impl VertexReport {
    /// The vertex.
    pub fn id(&self) -> VertexId {
        self.id
    }

    /// How it finished.
    pub fn status(&self) -> VertexStatus {
        self.status
    }

    /// The failure's message (the closure's `Err` text, or
    /// `"callback panicked: ..."`), libdag's note for a vertex that did not
    /// finish by itself, or `""`.
    pub fn message(&self) -> &str {
        &self.message
    }

    /// When its callback started, in nanoseconds since the walk started
    /// (steady clock); 0 if it never ran or timestamps were off.
    pub fn start_ns(&self) -> i64 {
        self.start_ns
    }

    /// When it finished, in nanoseconds since the walk started; 0 if it
    /// never ran or timestamps were off. Never earlier than `start_ns`, and
    /// a vertex never starts before its dependencies' `end_ns`.
    pub fn end_ns(&self) -> i64 {
        self.end_ns
    }

    /// Whether its callback was called (ok and failed vertices did;
    /// not-run and upstream-failed ones did not).
    pub fn ran(&self) -> bool {
        self.ran
    }
}

const ALL_STATUSES: [VertexStatus; 5] = [
    VertexStatus::NotRun,
    VertexStatus::Ok,
    VertexStatus::Failed,
    VertexStatus::UpstreamFailed,
    VertexStatus::Cancelled,
];

/// The outcome of a walk, vertex by vertex. Owned and independent of the
/// graph.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct WalkReport {
    /// Ascending by id.
    vertices: Vec<VertexReport>,
    counts: [usize; 5],
    first_error: Option<(VertexId, String)>,
    cancelled: bool,
    error: Option<Error>,
}

impl WalkReport {
    /// Whether every vertex finished ok (also true for an empty graph).
    pub fn ok(&self) -> bool {
        self.error.is_none()
    }

    /// Number of vertices in the report: every vertex of the walk.
    pub fn len(&self) -> usize {
        self.vertices.len()
    }

    /// Whether the walked graph had no vertices.
    pub fn is_empty(&self) -> bool {
        self.vertices.is_empty()
    }

    /// Every vertex's outcome, ascending by id.
    pub fn vertices(&self) -> &[VertexReport] {
        &self.vertices
    }

    /// One vertex's outcome; `None` for an id that was not in the walk.
    pub fn vertex(&self, id: VertexId) -> Option<&VertexReport> {
        self.vertices
            .binary_search_by_key(&id, |v| v.id)
            .ok()
            .map(|i| &self.vertices[i])
    }

    /// The status of one vertex; `None` for an id that was not in the walk.
    pub fn status(&self, id: VertexId) -> Option<VertexStatus> {
        self.vertex(id).map(VertexReport::status)
    }

    /// Number of vertices that finished with `status`.
    pub fn count(&self, status: VertexStatus) -> usize {
        match ALL_STATUSES.iter().position(|&s| s == status) {
            Some(i) => self.counts[i],
            None => self.vertices.iter().filter(|v| v.status == status).count(),
        }
    }

    /// The first failure recorded: its vertex and
    /// `"vertex NAME failed: MESSAGE"`; `None` when nothing failed.
    pub fn first_error(&self) -> Option<(VertexId, &str)> {
        self.first_error
            .as_ref()
            .map(|(id, message)| (*id, message.as_str()))
    }

    /// Whether the walk was cancelled.
    pub fn cancelled(&self) -> bool {
        self.cancelled
    }

    /// The walk's failure as an error ([`Status::WalkFailed`], message
    /// naming the first failure), for use with `?`; `None` when
    /// [`ok`](WalkReport::ok).
    pub fn error(&self) -> Option<&Error> {
        self.error.as_ref()
    }
}

/// An owned `dag_walk_report`.
struct RawReport(*mut sys::dag_walk_report);

impl Drop for RawReport {
    fn drop(&mut self) {
        // SAFETY: NULL or a report libdag gave us; freed once.
        unsafe { sys::dag_walk_report_free(self.0) }
    }
}

impl RawReport {
    /// Copies everything out.
    ///
    /// # Safety
    /// `self.0` must be a live, non-NULL report.
    unsafe fn to_report(&self, error: Option<Error>) -> Result<WalkReport> {
        let r = self.0;
        let mut ids = Ids::null();
        let mut err = ptr::null_mut();
        check(sys::dag_walk_report_vertices(r, &mut ids.0, &mut err), err)?;
        let mut vertices = Vec::with_capacity(ids.as_slice().len());
        for &id in ids.as_slice() {
            let mut status = sys::DAG_VERTEX_NOT_RUN;
            let mut message: *const c_char = ptr::null();
            let (mut start_ns, mut end_ns) = (0i64, 0i64);
            let mut err = ptr::null_mut();
            let code = sys::dag_walk_report_vertex(
                r,
                id,
                &mut status,
                &mut message,
                &mut start_ns,
                &mut end_ns,
                &mut err,
            );
            check(code, err)?;
            vertices.push(VertexReport {
                id: VertexId(id),
                status: VertexStatus::from_raw(status),
                message: lossy_string(message),
                start_ns,
                end_ns,
                ran: sys::dag_walk_report_ran(r, id) != 0,
            });
        }
        let mut counts = [0; 5];
        for (count, status) in counts.iter_mut().zip(ALL_STATUSES) {
            *count = sys::dag_walk_report_count(r, status.to_raw());
        }
        let mut message: *const c_char = ptr::null();
        let failed = sys::dag_walk_report_first_error(r, &mut message);
        let first_error = if failed == sys::DAG_NO_VERTEX {
            None
        } else {
            Some((VertexId(failed), lossy_string(message)))
        };
        Ok(WalkReport {
            vertices,
            counts,
            first_error,
            cancelled: sys::dag_walk_report_cancelled(r) != 0,
            error,
        })
    }
}

/// What the walk callback's `user_data` points at.
struct WalkContext<'f, F> {
    f: &'f F,
}

/// A failure message as a C string; a NUL byte inside (which C cannot
/// carry) is written as the two characters `\0`.
fn failure_message(text: String) -> CString {
    CString::new(text).unwrap_or_else(|e| {
        let escaped = String::from_utf8_lossy(&e.into_vec()).replace('\0', "\\0");
        // Cannot fail now; a default keeps this free of panics, since it
        // runs outside the trampoline's catch_unwind.
        CString::new(escaped).unwrap_or_default()
    })
}

unsafe extern "C" fn walk_trampoline<F>(
    walk: *mut sys::dag_walker,
    vertex: u64,
    _message: *mut *const c_char,
    user_data: *mut c_void,
) -> sys::dag_walk_result
where
    F: Fn(VertexId) -> std::result::Result<(), String> + Sync,
{
    // SAFETY: user_data is the WalkContext that `Graph::walk` passed; it
    // outlives the walk, and is only read here (F is Sync), so sharing it
    // across pool threads is fine.
    let ctx = &*user_data.cast::<WalkContext<F>>();
    let text = match panic::catch_unwind(AssertUnwindSafe(|| (ctx.f)(VertexId(vertex)))) {
        Ok(Ok(())) => return sys::DAG_WALK_OK,
        Ok(Err(text)) => text,
        Err(payload) => {
            let text = format!("callback panicked: {}", panic_message(&*payload));
            drop_payload(payload);
            text
        }
    };
    let text = failure_message(text);
    // dag_walk_fail copies the message before it returns, so `text` may go
    // at the end of this function. It is refused only where another thread
    // completed the vertex while `f` ran: returning FAILED still fails it
    // then, without the message.
    // SAFETY: `walk` is the handle libdag called us with, `text` a C string.
    sys::dag_walk_fail(walk, vertex, text.as_ptr(), ptr::null_mut());
    sys::DAG_WALK_FAILED
}

/// Clears `Graph::walking` when the walk is over, however it ends.
struct WalkingFlag<'g>(&'g Graph);

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
    /// nothing can change it meanwhile. `Err(message)` marks the vertex
    /// failed with that message; so does a panic, which is caught (it must
    /// not unwind into C) and reported as `"callback panicked: ..."`. A
    /// failed vertex's transitive dependents are skipped as
    /// [`VertexStatus::UpstreamFailed`].
    ///
    /// A walk in which vertices failed did its job: it returns `Ok` with a
    /// report whose [`ok`](WalkReport::ok) is false and whose
    /// [`first_error`](WalkReport::first_error) names the first failure.
    /// (libdag reports a cancelled walk the same way, with
    /// [`cancelled`](WalkReport::cancelled) true, but nothing can cancel a
    /// walk started here.)
    ///
    /// # Errors
    /// Nothing has run when any of these is returned:
    /// [`Status::Cycle`] (the graph has a cycle or a self reference; message
    /// in Terraform's `Cycle:` form); [`Status::Busy`] (the graph is already
    /// being walked, for example from one of its own callbacks);
    /// [`Status::InvalidArgument`] (parallelism or threads 0, threads above
    /// 1024); [`Status::UnknownVertex`] (an `always_run` id);
    /// [`Status::NoMemory`] (also when the pool's threads cannot start).
    pub fn walk<F>(&self, options: &WalkOptions, f: F) -> Result<WalkReport>
    where
        F: Fn(VertexId) -> std::result::Result<(), String> + Sync,
    {
        let opts = options.to_raw()?;
        if self
            .walking
            .compare_exchange(false, true, Ordering::AcqRel, Ordering::Acquire)
            .is_err()
        {
            return Err(Error::new(
                Status::Busy,
                "walk: the graph is already being walked",
            ));
        }
        let _walking = WalkingFlag(self);
        let ctx = WalkContext { f: &f };
        let mut report = RawReport(ptr::null_mut());
        let mut err = ptr::null_mut();
        // SAFETY: `self.walking` makes this the graph's only walk, and
        // readers may run alongside it. The trampoline matches F; `ctx`
        // (with `f`) and `opts.always_run` outlive
        // the call, which returns only when every callback has returned.
        let status = unsafe {
            sys::dag_walk(
                self.ptr() as *mut sys::dag_graph,
                Some(walk_trampoline::<F>),
                (&ctx as *const WalkContext<F>).cast::<c_void>() as *mut c_void,
                &opts,
                &mut report.0,
                &mut err,
            )
        };
        // SAFETY: err comes straight from the call.
        let outcome = unsafe { check(status, err) };
        if report.0.is_null() {
            // The walk did not run: cycle, busy, bad options...
            outcome?;
            return Err(Error::new(
                Status::Internal,
                "walk: libdag returned no report",
            ));
        }
        // Written on ok, walk-failed and cancelled: each is a walk that ran,
        // and its report says what happened.
        // SAFETY: a live report from the call.
        unsafe { report.to_report(outcome.err()) }
    }
}
