//! A walk's outcome. The report stays libdag's own object and is read on
//! demand: copying every vertex's outcome into Rust values as the walk ends
//! cost more than the walk itself for cheap callbacks.

use std::collections::HashMap;
use std::ffi::CStr;
use std::fmt;
use std::os::raw::c_char;
use std::ptr::{self, NonNull};
use std::sync::Arc;

use libdag_sys as sys;

use crate::error::{check, Error, Result, SharedError};
use crate::graph::VertexId;
use crate::raw::call_ids;

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
    pub(crate) fn from_raw(raw: sys::dag_vertex_status) -> VertexStatus {
        match raw {
            sys::DAG_VERTEX_NOT_RUN => VertexStatus::NotRun,
            sys::DAG_VERTEX_OK => VertexStatus::Ok,
            sys::DAG_VERTEX_FAILED => VertexStatus::Failed,
            sys::DAG_VERTEX_UPSTREAM_FAILED => VertexStatus::UpstreamFailed,
            sys::DAG_VERTEX_CANCELLED => VertexStatus::Cancelled,
            other => VertexStatus::Unknown(other),
        }
    }

    pub(crate) fn to_raw(self) -> sys::dag_vertex_status {
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
    /// The name, padded to the formatter's width (`{:<16}`).
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.pad(self.name())
    }
}

/// One vertex's outcome in a [`WalkReport`], borrowed from it.
#[derive(Debug, Clone, Copy)]
pub struct VertexReport<'r> {
    id: VertexId,
    status: VertexStatus,
    message: &'r str,
    start_ns: i64,
    end_ns: i64,
    ran: bool,
    source: Option<&'r (dyn std::error::Error + Send + Sync + 'static)>,
}

impl<'r> VertexReport<'r> {
    /// The vertex.
    pub fn id(&self) -> VertexId {
        self.id
    }

    /// How it finished.
    pub fn status(&self) -> VertexStatus {
        self.status
    }

    /// The failure's message (the callback's error as `Display` writes it,
    /// or `"callback panicked: ..."`), libdag's note for a vertex that did
    /// not finish by itself, or `""`.
    pub fn message(&self) -> &'r str {
        self.message
    }

    /// The error the callback (or [`Pending::complete`](crate::Pending::complete))
    /// failed the vertex with, to `downcast_ref` to its own type; `None` for
    /// a vertex that did not fail that way.
    pub fn source(&self) -> Option<&'r (dyn std::error::Error + Send + Sync + 'static)> {
        self.source
    }

    /// When its work started, in nanoseconds since the walk started (steady
    /// clock); 0 if it never ran or timestamps were off.
    pub fn start_ns(&self) -> i64 {
        self.start_ns
    }

    /// When it finished, in nanoseconds since the walk started; 0 if it
    /// never ran or timestamps were off. Never earlier than `start_ns`, and
    /// a vertex never starts before its dependencies' `end_ns`.
    pub fn end_ns(&self) -> i64 {
        self.end_ns
    }

    /// Whether its work started (ok and failed vertices did; not-run and
    /// upstream-failed ones did not; a cancelled one did if it was pending).
    pub fn ran(&self) -> bool {
        self.ran
    }
}

/// An owned `dag_walk_report`.
struct RawReport(NonNull<sys::dag_walk_report>);

// SAFETY: a report is immutable once made; libdag's report functions only
// read it, from any thread, and it may be freed on any thread.
unsafe impl Send for RawReport {}
// SAFETY: as above: concurrent reads of an immutable object.
unsafe impl Sync for RawReport {}

impl Drop for RawReport {
    fn drop(&mut self) {
        // SAFETY: a report libdag gave us; freed once.
        unsafe { sys::dag_walk_report_free(self.0.as_ptr()) }
    }
}

/// A C string owned by the report, as `&str`: libdag writes UTF-8, and the
/// callbacks' messages come from Rust strings, so nothing is cut in practice.
///
/// # Safety
/// `text` must be NULL or a NUL-terminated string that lives as long as `'r`.
unsafe fn report_str<'r>(text: *const c_char) -> &'r str {
    if text.is_null() {
        return "";
    }
    let bytes = CStr::from_ptr(text).to_bytes();
    match std::str::from_utf8(bytes) {
        Ok(text) => text,
        Err(e) => std::str::from_utf8(&bytes[..e.valid_up_to()]).unwrap_or(""),
    }
}

/// The outcome of a walk, vertex by vertex. Owned, independent of the graph,
/// cheap to clone (the clones share libdag's report), `Send` and `Sync`.
///
/// A failed or cancelled walk still returns `Ok(report)` from
/// [`Graph::walk`](crate::Graph::walk) and [`Walker::wait`](crate::Walker::wait):
/// the walk ran. [`into_result`](WalkReport::into_result) turns such a report
/// into an `Err` for `?`.
#[derive(Clone)]
pub struct WalkReport {
    raw: Arc<RawReport>,
    /// The callbacks' own errors by vertex.
    sources: Arc<HashMap<u64, SharedError>>,
    error: Option<Error>,
}

impl WalkReport {
    /// Takes ownership of a report; `outcome` is the walk's status as an
    /// error (`None` when every vertex finished ok).
    ///
    /// # Safety
    /// `raw` must be a live report that nothing else frees.
    pub(crate) unsafe fn new(
        raw: NonNull<sys::dag_walk_report>,
        sources: HashMap<u64, SharedError>,
        outcome: Option<Error>,
    ) -> WalkReport {
        let raw = Arc::new(RawReport(raw));
        let mut message: *const c_char = ptr::null();
        let failed = sys::dag_walk_report_first_error(raw.0.as_ptr(), &mut message);
        let error = outcome.map(|e| e.with_source(sources.get(&failed).cloned()));
        WalkReport {
            raw,
            sources: Arc::new(sources),
            error,
        }
    }

    fn ptr(&self) -> *const sys::dag_walk_report {
        self.raw.0.as_ptr()
    }

    /// Whether every vertex finished ok (also true for an empty graph).
    pub fn ok(&self) -> bool {
        self.error.is_none()
    }

    /// Number of vertices in the report: every vertex of the walk.
    pub fn len(&self) -> usize {
        // SAFETY: a live report.
        unsafe { sys::dag_walk_report_size(self.ptr()) }
    }

    /// Whether the walked graph had no vertices.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Every vertex's outcome, ascending by id, read from libdag's report in
    /// batches as the iterator goes.
    ///
    /// # Panics
    /// The iterator panics where libdag fails to read the report: with this
    /// crate's arguments `dag_walk_report_read` fails only on a bug (of
    /// libdag, or of this binding), and stopping short would make the
    /// iterator's exact length a lie.
    pub fn vertices(&self) -> Vertices<'_> {
        Vertices {
            report: self,
            next: 0,
            len: self.len(),
            batch: Vec::new(),
            taken: 0,
        }
    }

    /// Every vertex id of the walk, ascending.
    ///
    /// # Errors
    /// [`Status::NoMemory`](crate::Status::NoMemory).
    pub fn ids(&self) -> Result<Vec<VertexId>> {
        // SAFETY: a live report.
        call_ids(|out, err| unsafe { sys::dag_walk_report_vertices(self.ptr(), out, err) })
    }

    /// One vertex's outcome; `None` for an id that was not in the walk.
    pub fn vertex(&self, id: VertexId) -> Option<VertexReport<'_>> {
        let mut status = sys::DAG_VERTEX_NOT_RUN;
        let mut message: *const c_char = ptr::null();
        let (mut start_ns, mut end_ns) = (0i64, 0i64);
        // SAFETY: a live report; the message is owned by it and lives as
        // long as `self`.
        unsafe {
            let code = sys::dag_walk_report_vertex(
                self.ptr(),
                id.0,
                &mut status,
                &mut message,
                &mut start_ns,
                &mut end_ns,
                ptr::null_mut(),
            );
            if code != sys::DAG_OK {
                return None;
            }
            Some(VertexReport {
                id,
                status: VertexStatus::from_raw(status),
                message: report_str(message),
                start_ns,
                end_ns,
                ran: sys::dag_walk_report_ran(self.ptr(), id.0) != 0,
                source: self.source(id),
            })
        }
    }

    /// How many times a vertex's work was started (libdag 1.3): 0 if it
    /// never ran, more than 1 when failed attempts were tried again
    /// ([`WalkOptions::retries`](crate::WalkOptions::retries)); `None` for an
    /// id that was not in the walk.
    pub fn attempts(&self, id: VertexId) -> Option<usize> {
        let mut attempts = 0usize;
        // SAFETY: a live report.
        let code = unsafe {
            sys::dag_walk_report_attempts(self.ptr(), id.0, &mut attempts, ptr::null_mut())
        };
        (code == sys::DAG_OK).then_some(attempts)
    }

    /// Each attempt's message, oldest first, `""` for none (libdag 1.3): the
    /// last is the vertex's [`message`](VertexReport::message) when it ran;
    /// empty when it never ran. `None` for an id that was not in the walk.
    pub fn attempt_messages(&self, id: VertexId) -> Option<Vec<&str>> {
        let attempts = self.attempts(id)?;
        let mut messages = Vec::with_capacity(attempts);
        for attempt in 0..attempts {
            let mut message: *const c_char = ptr::null();
            // SAFETY: a live report, an attempt below its count; the message
            // is owned by the report and lives as long as `self`.
            unsafe {
                let code = sys::dag_walk_report_attempt_message(
                    self.ptr(),
                    id.0,
                    attempt,
                    &mut message,
                    ptr::null_mut(),
                );
                if code != sys::DAG_OK {
                    return None;
                }
                messages.push(report_str(message));
            }
        }
        Some(messages)
    }

    /// The status of one vertex; `None` for an id that was not in the walk.
    pub fn status(&self, id: VertexId) -> Option<VertexStatus> {
        self.vertex(id).map(|v| v.status())
    }

    /// Number of vertices that finished with `status`.
    pub fn count(&self, status: VertexStatus) -> usize {
        // SAFETY: a live report; any status value is accepted.
        unsafe { sys::dag_walk_report_count(self.ptr(), status.to_raw()) }
    }

    /// The first failure recorded: its vertex and
    /// `"vertex NAME failed: MESSAGE"`; `None` when nothing failed.
    pub fn first_error(&self) -> Option<(VertexId, &str)> {
        let mut message: *const c_char = ptr::null();
        // SAFETY: a live report; the message is owned by it.
        unsafe {
            let failed = sys::dag_walk_report_first_error(self.ptr(), &mut message);
            if failed == sys::DAG_NO_VERTEX {
                None
            } else {
                Some((VertexId(failed), report_str(message)))
            }
        }
    }

    /// The error a vertex's callback failed it with, as the callback
    /// returned it: `downcast_ref` gets the callback's own type back.
    /// `None` for a vertex that did not fail by returning an error (a
    /// panic, a skipped vertex, one that succeeded). With retries, the last
    /// attempt's: `None` when that one succeeded or panicked. `None` also
    /// for an expanded vertex that failed because a vertex of its sub-walk
    /// did: libdag's report does not say which one, so the sub-vertex's
    /// error is not reachable from here, nor from
    /// [`into_result`](WalkReport::into_result)'s `source()`.
    pub fn source(&self, id: VertexId) -> Option<&(dyn std::error::Error + Send + Sync + 'static)> {
        self.sources.get(&id.0).map(|e| &**e)
    }

    /// Whether the walk was cancelled.
    pub fn cancelled(&self) -> bool {
        // SAFETY: a live report.
        unsafe { sys::dag_walk_report_cancelled(self.ptr()) != 0 }
    }

    /// The walk's failure as an error: [`Status::WalkFailed`](crate::Status::WalkFailed),
    /// [`Status::Cancelled`](crate::Status::Cancelled) or
    /// [`Status::Callback`](crate::Status::Callback), its message naming the
    /// first failure and its `source()` the first failed callback's own
    /// error; `None` when [`ok`](WalkReport::ok).
    pub fn error(&self) -> Option<&Error> {
        self.error.as_ref()
    }

    /// `Ok(self)` when every vertex finished ok, else the walk's
    /// [`error`](WalkReport::error), for `?`:
    ///
    /// ```
    /// # use libdag::{Graph, WalkOptions};
    /// # use std::fmt;
    /// #[derive(Debug)]
    /// struct Unreachable;
    /// impl fmt::Display for Unreachable {
    ///     fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
    ///         f.write_str("database unreachable")
    ///     }
    /// }
    /// impl std::error::Error for Unreachable {}
    ///
    /// let mut graph = Graph::new()?;
    /// let db = graph.add_vertex(Some("db"))?;
    /// let err = graph
    ///     .walk(&WalkOptions::new(), |_| Err(Unreachable))?
    ///     .into_result()
    ///     .unwrap_err();
    /// assert_eq!(err.to_string(), "Graph::walk: vertex db failed: database unreachable");
    /// let source = std::error::Error::source(&err).unwrap();
    /// assert!(source.downcast_ref::<Unreachable>().is_some());
    /// # let _ = db;
    /// # Ok::<(), libdag::Error>(())
    /// ```
    pub fn into_result(self) -> Result<WalkReport> {
        match self.error {
            Some(error) => Err(error),
            None => Ok(self),
        }
    }
}

impl fmt::Debug for WalkReport {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("WalkReport")
            .field("len", &self.len())
            .field("ok", &self.count(VertexStatus::Ok))
            .field("failed", &self.count(VertexStatus::Failed))
            .field("upstream_failed", &self.count(VertexStatus::UpstreamFailed))
            .field("not_run", &self.count(VertexStatus::NotRun))
            .field("cancelled", &self.count(VertexStatus::Cancelled))
            .field("first_error", &self.first_error())
            .finish()
    }
}

/// Iterator over a report's vertices, ascending by id; see
/// [`WalkReport::vertices`].
pub struct Vertices<'r> {
    report: &'r WalkReport,
    next: usize,
    len: usize,
    batch: Vec<sys::dag_vertex_outcome>,
    taken: usize,
}

/// Outcomes read from libdag per call.
const BATCH: usize = 256;

impl<'r> Iterator for Vertices<'r> {
    type Item = VertexReport<'r>;

    fn next(&mut self) -> Option<VertexReport<'r>> {
        if self.taken == self.batch.len() {
            if self.next >= self.len {
                return None;
            }
            let want = BATCH.min(self.len - self.next);
            self.batch.clear();
            self.batch.reserve(want);
            let mut written = 0;
            let mut err = ptr::null_mut();
            // SAFETY: room for `want` outcomes of this crate's layout;
            // libdag writes `written` of them; err comes from the call.
            let read = unsafe {
                let status = sys::dag_walk_report_read(
                    self.report.ptr(),
                    self.next,
                    self.batch.as_mut_ptr(),
                    want,
                    std::mem::size_of::<sys::dag_vertex_outcome>(),
                    &mut written,
                    &mut err,
                );
                check(status, err)
            };
            // Its documented errors are a NULL argument and a bad outcome
            // size, and it writes min(count, size - first) entries: neither
            // can happen here but through a bug.
            if let Err(e) = read {
                panic!("WalkReport::vertices: reading entry {} of {}: {} (a bug in libdag or in this binding)", self.next, self.len, e);
            }
            if written != want {
                panic!(
                    "WalkReport::vertices: reading entry {} of {}: {} entries written for {} (a bug in libdag or in this binding)",
                    self.next, self.len, written, want
                );
            }
            // SAFETY: libdag initialised the first `written` entries.
            unsafe { self.batch.set_len(written) };
            self.next += written;
            self.taken = 0;
        }
        let outcome = self.batch[self.taken];
        self.taken += 1;
        Some(VertexReport {
            id: VertexId(outcome.vertex),
            status: VertexStatus::from_raw(outcome.status),
            // SAFETY: the message is owned by the report, which outlives 'r.
            message: unsafe { report_str(outcome.message) },
            start_ns: outcome.start_ns,
            end_ns: outcome.end_ns,
            ran: outcome.ran != 0,
            source: self.report.source(VertexId(outcome.vertex)),
        })
    }

    fn size_hint(&self) -> (usize, Option<usize>) {
        let left = self.len - self.next + (self.batch.len() - self.taken);
        (left, Some(left))
    }
}

impl ExactSizeIterator for Vertices<'_> {}
