//! How a walk runs ([`WalkOptions`]) and what its observer sees
//! ([`WalkEvent`]).

use std::fmt;
use std::mem::MaybeUninit;
use std::os::raw::{c_int, c_void};
use std::panic::{self, AssertUnwindSafe};
use std::ptr;
use std::sync::Arc;
use std::time::Duration;

use libdag_sys as sys;

use crate::error::{check, Result};
use crate::graph::VertexId;
use crate::raw::{drop_payload, id_ptr};
use crate::report::VertexStatus;
use crate::schedule::{Priority, Schedule};

/// A walk's observer, shared by its options and the walk; the flag says
/// whether the event is a sub-walk's.
pub(crate) type Observer = Arc<dyn Fn(&WalkEvent, bool) + Send + Sync>;

/// An observer and the graph its walk walks, which tells a sub-walk's
/// events (their walk's graph is the sub-graph's private copy) from the
/// walk's own. Lives as long as the walk.
pub(crate) struct WalkObserver {
    observer: Observer,
    // An address only (never read through), so the struct stays Send and
    // Sync as the walk's shared state must be.
    walked: usize,
}

impl WalkObserver {
    pub(crate) fn new(observer: &Observer, walked: *const sys::dag_graph) -> WalkObserver {
        WalkObserver {
            observer: observer.clone(),
            walked: walked as usize,
        }
    }
}

/// How [`Graph::walk`](crate::Graph::walk) runs: a builder whose defaults are libdag's (10
/// callbacks at once, a thread for each, dependencies first, Terraform's failure
/// policy, timestamps on).
///
/// ```
/// # use libdag::WalkOptions;
/// let destroy = WalkOptions::new().parallelism(4).reverse(true).fail_fast(true);
/// # let _ = destroy;
/// ```
#[derive(Clone)]
pub struct WalkOptions {
    parallelism: Option<usize>,
    threads: Option<usize>,
    reverse: bool,
    fail_fast: bool,
    timestamps: bool,
    always_run: Vec<VertexId>,
    observer: Option<Observer>,
    schedule: Schedule,
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
            observer: None,
            schedule: Schedule::default(),
        }
    }

    /// The most callbacks running at once (Terraform's `-parallelism`),
    /// default 10. 0 is refused by [`Graph::walk`](crate::Graph::walk) with
    /// [`Status::InvalidArgument`](crate::Status::InvalidArgument).
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

    /// Calls `observer` for every event of the walk (a vertex started,
    /// finished, or was skipped), on the thread that caused it: a pool
    /// thread, or the one that completed or cancelled a vertex. Calls may
    /// come from several threads at once, so it should return quickly;
    /// [`WalkEvent::sequence`] orders them. Every call has returned by the
    /// time the walk's report is. A panic in it is caught (it must not
    /// unwind into libdag) and the walk goes on.
    ///
    /// The events of an expanded vertex's sub-walk come here too, each
    /// with its vertex and counts in that sub-walk; to tell them apart, use
    /// [`observer_with_sub`](WalkOptions::observer_with_sub) instead. Either
    /// replaces any earlier observer.
    #[must_use]
    pub fn observer<F>(mut self, observer: F) -> WalkOptions
    where
        F: Fn(&WalkEvent) + Send + Sync + 'static,
    {
        self.observer = Some(Arc::new(move |event: &WalkEvent, _sub: bool| {
            observer(event)
        }));
        self
    }

    /// As [`observer`](WalkOptions::observer), with a second argument that
    /// is true for an event of a sub-walk ([`Vertex::expand`](crate::Vertex::expand),
    /// [`Pending::expand`](crate::Pending::expand)): its
    /// [`vertex`](WalkEvent::vertex) is an id of that sub-graph and its
    /// counts are the sub-walk's, false for the walked graph's own
    /// vertices (libdag 1.2's `dag_walk_graph` of the event's walk is then
    /// the walked graph).
    ///
    /// ```
    /// # use libdag::{Graph, WalkOptions};
    /// # use std::sync::{Arc, Mutex};
    /// let mut g = Graph::new()?;
    /// g.add_vertex(Some("module"))?;
    /// let mut sub = Graph::new()?;
    /// sub.add_vertex(Some("resource"))?;
    /// let seen = Arc::new(Mutex::new(Vec::new()));
    /// let log = seen.clone();
    /// let options = WalkOptions::new()
    ///     .observer_with_sub(move |event, sub| log.lock().unwrap().push((event.vertex, sub)));
    /// let walker = g.start_walk(&options, move |vertex| {
    ///     if !vertex.in_sub_walk() {
    ///         vertex.expand(&sub)?;
    ///     }
    ///     Ok::<(), libdag::Error>(())
    /// })?;
    /// assert!(walker.wait()?.ok());
    /// let subs = seen.lock().unwrap().iter().filter(|(_, sub)| *sub).count();
    /// assert_eq!(subs, 2); // the resource's start and finish
    /// # Ok::<(), libdag::Error>(())
    /// ```
    #[must_use]
    pub fn observer_with_sub<F>(mut self, observer: F) -> WalkOptions
    where
        F: Fn(&WalkEvent, bool) + Send + Sync + 'static,
    {
        self.observer = Some(Arc::new(observer));
        self
    }

    /// Declares a named limit (libdag 1.3): at most `capacity` of the
    /// vertices that [`need`](WalkOptions::need) pool `name` run at once, a
    /// pending vertex counting as running. A vertex starts only with a slot
    /// in every pool it needs and in `parallelism`, all taken at once, so
    /// pools needed together cannot deadlock; vertices waiting for a full
    /// pool do not hold up ready vertices that need others. A name declared
    /// twice, an empty one or one holding a NUL byte is refused by the walk
    /// with [`Status::InvalidArgument`](crate::Status::InvalidArgument).
    ///
    /// ```
    /// # use libdag::{Graph, WalkOptions};
    /// let mut g = Graph::new()?;
    /// let db = g.add_vertex(Some("aws_db"))?;
    /// let web = g.add_vertex(Some("aws_web"))?;
    /// let options = WalkOptions::new().pool("aws", 1).need(db, "aws").need(web, "aws");
    /// assert!(g.walk(&options, |_| Ok::<(), std::io::Error>(()))?.ok());
    /// # Ok::<(), libdag::Error>(())
    /// ```
    #[must_use]
    pub fn pool(mut self, name: &str, capacity: usize) -> WalkOptions {
        self.schedule.add_pool(name, capacity);
        self
    }

    /// Makes `vertex` need one slot of pool `pool` (libdag 1.3); a vertex may
    /// need several pools. A pool no [`pool`](WalkOptions::pool) declares,
    /// or one of capacity 0, is refused by the walk with
    /// [`Status::InvalidArgument`](crate::Status::InvalidArgument), an id not
    /// in the graph with [`Status::UnknownVertex`](crate::Status::UnknownVertex).
    #[must_use]
    pub fn need(mut self, vertex: VertexId, pool: &str) -> WalkOptions {
        self.schedule.add_need(vertex, pool);
        self
    }

    /// How many more times a failed vertex is tried (libdag 1.3) before it
    /// counts as failed and its dependents are skipped; default 0. Cancel and
    /// fail-fast stop retries. [`WalkReport::attempts`](crate::WalkReport::attempts)
    /// and [`WalkReport::attempt_messages`](crate::WalkReport::attempt_messages)
    /// tell each attempt.
    #[must_use]
    pub fn retries(mut self, retries: usize) -> WalkOptions {
        self.schedule.retries = retries;
        self
    }

    /// A retry count of `vertex`'s own, instead of [`retries`](WalkOptions::retries) (libdag 1.3).
    #[must_use]
    pub fn vertex_retries(mut self, vertex: VertexId, retries: usize) -> WalkOptions {
        self.schedule.add_vertex_retries(vertex, retries);
        self
    }

    /// The wait before a vertex's first retry, in whole milliseconds
    /// (libdag 1.3); default none. The wait holds no slot and no thread.
    #[must_use]
    pub fn retry_delay(mut self, delay: Duration) -> WalkOptions {
        self.schedule.retry_delay = delay;
        self
    }

    /// The longest wait before a retry (libdag 1.3); default zero: no cap.
    #[must_use]
    pub fn retry_max_delay(mut self, delay: Duration) -> WalkOptions {
        self.schedule.retry_max_delay = delay;
        self
    }

    /// True: each retry waits twice as long as the one before (libdag 1.3);
    /// false (the default): every retry waits [`retry_delay`](WalkOptions::retry_delay).
    #[must_use]
    pub fn retry_doubling(mut self, doubling: bool) -> WalkOptions {
        self.schedule.retry_doubling = doubling;
        self
    }

    /// Which ready vertex starts first (libdag 1.3); default
    /// [`Priority::None`].
    #[must_use]
    pub fn priority(mut self, priority: Priority) -> WalkOptions {
        self.schedule.priority = priority;
        self
    }

    /// `vertex`'s weight for [`Priority::CriticalPath`] (libdag 1.3), such
    /// as its expected duration; other vertices weigh 1. With that priority
    /// an id not in the graph fails the walk with
    /// [`Status::UnknownVertex`](crate::Status::UnknownVertex); with another
    /// the weights are not read.
    #[must_use]
    pub fn weight(mut self, vertex: VertexId, weight: u64) -> WalkOptions {
        self.schedule.add_weight(vertex, weight);
        self
    }

    pub(crate) fn observer_fn(&self) -> Option<&Observer> {
        self.observer.as_ref()
    }

    /// The C options; borrows `self.always_run`, the schedule's arrays and
    /// `observer`, which must outlive the walk.
    pub(crate) fn to_raw(
        &self,
        method: &str,
        observer: Option<&WalkObserver>,
    ) -> Result<sys::dag_walk_options> {
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
        self.schedule.apply(method, &mut opts)?;
        if let Some(observer) = observer {
            opts.event_observer = Some(observer_trampoline);
            opts.event_observer_data =
                (observer as *const WalkObserver).cast::<c_void>() as *mut c_void;
        }
        Ok(opts)
    }
}

impl fmt::Debug for WalkOptions {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("WalkOptions")
            .field("parallelism", &self.parallelism)
            .field("threads", &self.threads)
            .field("reverse", &self.reverse)
            .field("fail_fast", &self.fail_fast)
            .field("timestamps", &self.timestamps)
            .field("always_run", &self.always_run)
            .field("observer", &self.observer.is_some())
            .field("retries", &self.schedule.retries)
            .finish()
    }
}

/// What happened to a vertex, in a [`WalkEvent`].
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum EventKind {
    /// Its work is about to start (its callback runs, or it is handed out).
    Started,
    /// It started and has finished; the event's status says how.
    Finished,
    /// It finished without running (upstream-failed, cancelled, not run).
    Skipped,
    /// An event this version of the binding does not know.
    Unknown(u32),
}

/// One event of a walk, as [`WalkOptions::observer`] and
/// [`WalkOptions::observer_with_sub`] see it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct WalkEvent {
    /// What happened.
    pub kind: EventKind,
    /// To which vertex (of the sub-graph, for a vertex of an expansion).
    pub vertex: VertexId,
    /// For `Finished` and `Skipped`, the vertex's final status;
    /// [`VertexStatus::NotRun`] for `Started`.
    pub status: VertexStatus,
    /// Vertices running or pending in that walk after the event.
    pub running: usize,
    /// Vertices of that walk finished after the event.
    pub done: usize,
    /// Vertices in that walk (grows when updates add some).
    pub total: usize,
    /// 1, 2, 3... in the order the counts were taken: ordered by sequence,
    /// `done` and `total` never decrease.
    pub sequence: u64,
}

unsafe extern "C" fn observer_trampoline(
    walk: *mut sys::dag_walker,
    info: *const sys::dag_walk_event_info,
    user_data: *mut c_void,
) {
    // SAFETY: user_data is the WalkObserver that `to_raw` was given, which
    // the walk keeps alive until every observer call has returned; `info`
    // is borrowed for this call, and `walk` is the live walk or sub-walk
    // of the event.
    let observer = &*user_data.cast::<WalkObserver>();
    let sub = sys::dag_walk_graph(walk) as usize != observer.walked;
    let info = &*info;
    let event = WalkEvent {
        kind: match info.event {
            sys::DAG_WALK_EVENT_STARTED => EventKind::Started,
            sys::DAG_WALK_EVENT_FINISHED => EventKind::Finished,
            sys::DAG_WALK_EVENT_SKIPPED => EventKind::Skipped,
            other => EventKind::Unknown(other),
        },
        vertex: VertexId(info.vertex),
        status: VertexStatus::from_raw(info.status),
        running: info.running,
        done: info.done,
        total: info.total,
        sequence: info.sequence,
    };
    if let Err(payload) = panic::catch_unwind(AssertUnwindSafe(|| (observer.observer)(&event, sub)))
    {
        drop_payload(payload);
    }
}
