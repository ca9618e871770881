//! Awaiting a pull walk's ready vertices ([`Walker::next_ready_async`]):
//! futures that any executor can poll, made of the standard library alone.
//!
//! libdag has no readiness callback to hang a `Waker` on (a retry becomes
//! ready when its back-off ends, with no call from anyone), so a thread of
//! the walker's own waits in `dag_walk_next_ready` while futures wait,
//! queues what it takes and wakes them. The queue is the walker's, not a
//! future's: a future dropped before it had its vertex loses nothing.

use std::collections::VecDeque;
use std::future::Future;
use std::mem;
use std::panic::{self, AssertUnwindSafe};
use std::pin::Pin;
use std::sync::{Arc, Condvar, Mutex, MutexGuard, PoisonError};
use std::task::{Context, Poll, Waker};
use std::thread::{self, JoinHandle};
use std::time::Duration;

use crate::error::{Error, Result, Status};
use crate::walker::{take_ready, Pending, WalkState, Walker};

/// How long the thread waits in libdag at a time before it looks whether
/// its walker is being dropped: the longest that drop waits for it. It has
/// to look: vertices held elsewhere can keep a cancelled walk, and so that
/// wait, going for ever.
pub(crate) const SLICE: Duration = Duration::from_millis(50);

/// A walker's side of its futures: the vertices taken for them and the
/// thread taking them, started by the first future that has to wait.
pub(crate) struct Pump {
    walk: Arc<WalkState>,
    shared: Arc<Shared>,
}

struct Shared {
    inner: Mutex<Inner>,
    /// Told when a future starts waiting, and when the walker goes.
    wanted: Condvar,
}

#[derive(Default)]
struct Inner {
    /// Taken from libdag and not yet had by a future (or `next_ready`).
    queued: VecDeque<Pending>,
    waiters: Vec<Waiter>,
    next_key: u64,
    thread: Option<JoinHandle<()>>,
    /// libdag said that the walk has ended.
    ended: bool,
    /// What the thread's last call failed with, and the last key given out
    /// then: for the first polled of the futures that waited for that call
    /// (keys up to it), not for one that came later, and only until a later
    /// call of the thread goes well (vertices, the walk's end, or none ready
    /// in its slice): the thread has recovered, and those futures wait on
    /// as the others do, or have the walk's end. Its calls fail only for
    /// want of memory (the walk's refusal, `Status::State`, meets a future's
    /// own call first): a failure of that call, not of the walk. A later
    /// future makes a call of its own, and would otherwise have the failure
    /// of futures since dropped, an error that ends a pull loop of a walk
    /// that goes well.
    failed: Option<(Error, u64)>,
    /// After a failure, until a future polls and goes on waiting: the
    /// thread's next call would most likely fail the same way. Not held
    /// until the failure is had: the futures it is for may all have been
    /// dropped, or forgotten, while others wait.
    held: bool,
    /// The walk was cancelled: vertices taken from now on were handed out
    /// before that, and nobody has started them.
    cancelled: bool,
    /// The walker is being dropped.
    stopping: bool,
}

/// A future waiting for vertices.
struct Waiter {
    key: u64,
    /// The most vertices it takes.
    want: usize,
    /// `None` once woken, until it is polled again. A future woken may never
    /// be polled again (`mem::forget`-ed, which no drop tells us of): so
    /// every waiter is woken when vertices are queued, not one a vertex, and
    /// the first polled has them. A forgotten future is not free: its
    /// `want` still counts in [`Inner::wanted`], so the thread goes on
    /// taking ready vertices for it (reporting them started, holding
    /// parallelism slots) and queues them with no live future waiting.
    /// Nobody loses a vertex or a wake: `next_ready` and new futures take
    /// the queued ones.
    waker: Option<Waker>,
}

impl Shared {
    fn lock(&self) -> MutexGuard<'_, Inner> {
        // Nothing of ours panics while holding it; the executor's wakers
        // are called and dropped outside it.
        self.inner.lock().unwrap_or_else(PoisonError::into_inner)
    }
}

impl Inner {
    /// How many vertices the waiting futures want beyond those queued.
    fn wanted(&self) -> usize {
        let want = self
            .waiters
            .iter()
            .fold(0usize, |sum, w| sum.saturating_add(w.want));
        want.saturating_sub(self.queued.len())
    }

    /// What a poll for up to `max` vertices of the future `key` names has
    /// without waiting: vertices queued, the thread's failure (when the
    /// future was waiting for the call that failed), or the walk's end.
    fn ready(&mut self, max: usize, key: Option<u64>) -> Option<Result<Vec<Pending>>> {
        if !self.queued.is_empty() {
            let n = max.min(self.queued.len());
            Some(Ok(self.queued.drain(..n).collect()))
        } else if matches!((&self.failed, key), (Some((_, last)), Some(key)) if key <= *last) {
            self.failed.take().map(|(e, _)| Err(e))
        } else if self.ended {
            Some(Ok(Vec::new()))
        } else {
            None
        }
    }

    /// Takes the wakers of the waiters not woken yet, to call once the
    /// lock is released: they are the executor's code.
    fn wake(&mut self) -> Vec<Waker> {
        self.waiters
            .iter_mut()
            .filter_map(|w| w.waker.take())
            .collect()
    }

    /// Counts the future `key` names (a new one when `None`) as waiting for
    /// up to `want` vertices, woken by `waker`, the latest it was polled
    /// with; returns the waker this replaces, to drop outside the lock.
    /// Called only where [`Inner::ready`] had nothing: as every waiter is
    /// woken when vertices are queued, none waits unwoken while one is.
    fn wait(&mut self, key: &mut Option<u64>, want: usize, waker: &Waker) -> Option<Waker> {
        self.held = false;
        let key = *key.get_or_insert_with(|| {
            self.next_key += 1;
            self.waiters.push(Waiter {
                key: self.next_key,
                want,
                waker: None,
            });
            self.next_key
        });
        let waiter = self.waiters.iter_mut().find(|w| w.key == key)?;
        match &waiter.waker {
            Some(old) if old.will_wake(waker) => None,
            _ => waiter.waker.replace(waker.clone()),
        }
    }

    /// The future `key` names waits no more (it had what it came for, or it
    /// was dropped); returns its waker, to drop outside the lock. Nobody
    /// else need be woken for what it leaves queued: all were when it came.
    fn leave(&mut self, key: &mut Option<u64>) -> Option<Waker> {
        let key = key.take()?;
        let i = self.waiters.iter().position(|w| w.key == key)?;
        self.waiters.remove(i).waker
    }
}

impl Pump {
    pub(crate) fn new(walk: Arc<WalkState>) -> Pump {
        Pump {
            walk,
            shared: Arc::new(Shared {
                inner: Mutex::default(),
                wanted: Condvar::new(),
            }),
        }
    }

    /// Up to `max` vertices taken for futures that were dropped before they
    /// had them.
    pub(crate) fn take_queued(&self, max: usize) -> Vec<Pending> {
        let mut inner = self.shared.lock();
        let n = max.min(inner.queued.len());
        inner.queued.drain(..n).collect()
    }

    /// After the walk's cancel: what is queued, and what the thread takes
    /// from now on, is completed as cancelled, since nobody started it.
    pub(crate) fn cancel_queued(&self) {
        let queued = {
            let mut inner = self.shared.lock();
            inner.cancelled = true;
            mem::take(&mut inner.queued)
        };
        cancel_all(queued);
    }

    /// The walker is being dropped, its walk cancelled: completes what is
    /// queued as cancelled and waits for the thread to return. No future
    /// is left to wait: each borrowed the walker.
    pub(crate) fn stop(&self) {
        let thread = {
            let mut inner = self.shared.lock();
            inner.stopping = true;
            inner.thread.take()
        };
        self.shared.wanted.notify_all();
        // Before the join: with nothing queued, a walk nobody else holds
        // vertices of ends, and the thread's wait with it.
        self.cancel_queued();
        if let Some(thread) = thread {
            // Dropped by the walk's observer as it runs on the thread (which
            // hands out vertices there): it returns once this drop has.
            if thread.thread().id() != thread::current().id() {
                // Err: a waker panicked on it; there is nothing left to undo.
                let _ = thread.join();
            }
        }
    }

    /// One poll of the future `key` names, for up to `max` vertices (empty:
    /// the walk has ended).
    fn poll_take(
        &self,
        key: &mut Option<u64>,
        max: usize,
        cx: &mut Context<'_>,
    ) -> Poll<Result<Vec<Pending>>> {
        if max == 0 {
            // libdag refuses it; the queue would answer an empty batch,
            // which says that the walk has ended.
            return Poll::Ready(take_ready(&self.walk, max, Some(Duration::ZERO)));
        }
        let mut inner = self.shared.lock();
        if let Some(ready) = inner.ready(max, *key) {
            return finish(inner, key, ready);
        }
        drop(inner);
        // Not holding the lock: handing out calls the walk's observer.
        match take_ready(&self.walk, max, Some(Duration::ZERO)) {
            Err(e) if e.status() == Status::Timeout => {}
            taken => {
                let mut inner = self.shared.lock();
                inner.ended |= matches!(&taken, Ok(vertices) if vertices.is_empty());
                return finish(inner, key, taken);
            }
        }
        let mut inner = self.shared.lock();
        // Again: since the first look the thread may have queued vertices,
        // or seen the walk's end, and woken the waiters it knew, not this.
        if let Some(ready) = inner.ready(max, *key) {
            return finish(inner, key, ready);
        }
        let replaced = inner.wait(key, max, cx.waker());
        if inner.thread.is_none() {
            let (shared, walk) = (self.shared.clone(), self.walk.clone());
            match thread::Builder::new()
                .name("libdag-walk-ready".to_owned())
                .spawn(move || pump(shared, walk))
            {
                Ok(thread) => inner.thread = Some(thread),
                Err(e) => {
                    let message = format!(
                        "Walker::next_ready: cannot start the thread that waits for vertices: {}",
                        e
                    );
                    return finish(inner, key, Err(Error::new(Status::NoMemory, message)));
                }
            }
        }
        drop(inner);
        self.shared.wanted.notify_one();
        drop(replaced);
        Poll::Pending
    }

    fn leave(&self, key: &mut Option<u64>) {
        if key.is_some() {
            release(self.shared.lock(), key);
        }
    }
}

/// A future's poll ends with `ready`: it leaves the waiters. (Those left
/// waiting at the walk's end are woken by the thread, which sees it too.)
fn finish(
    inner: MutexGuard<'_, Inner>,
    key: &mut Option<u64>,
    ready: Result<Vec<Pending>>,
) -> Poll<Result<Vec<Pending>>> {
    release(inner, key);
    Poll::Ready(ready)
}

/// [`Inner::leave`], then the waker's drop once `inner` is released.
fn release(mut inner: MutexGuard<'_, Inner>, key: &mut Option<u64>) {
    let own = inner.leave(key);
    drop(inner);
    drop(own);
}

/// Each waker called, even after one that panics: a panic would end the
/// futures' thread, or leave the wakers after it uncalled, and their futures
/// waiting for ever. The panic is printed (the hook runs), not raised.
fn wake(wakers: Vec<Waker>) {
    for waker in wakers {
        let _ = panic::catch_unwind(AssertUnwindSafe(|| waker.wake()));
    }
}

/// Vertices taken for futures that the walk's cancel stopped before any
/// future had them.
fn cancel_all(vertices: impl IntoIterator<Item = Pending>) {
    for mut pending in vertices {
        // Refused only for want of memory: the Pending's drop then fails
        // the vertex instead.
        let _ = pending.cancelled();
    }
}

/// The thread: while futures want vertices, waits for them in libdag,
/// queues them and wakes the futures. Returns once it has seen the walk
/// end or the walker is being dropped; sleeps while no future waits.
fn pump(shared: Arc<Shared>, walk: Arc<WalkState>) {
    let mut inner = shared.lock();
    while !inner.stopping {
        let want = inner.wanted();
        if want == 0 || inner.held {
            inner = shared
                .wanted
                .wait(inner)
                .unwrap_or_else(PoisonError::into_inner);
            continue;
        }
        drop(inner);
        let taken = take_ready(&walk, want, Some(SLICE));
        // Its own look, not `ended`, which a poll may have set without
        // waking the other waiters: they are this thread's to wake.
        let ended = matches!(&taken, Ok(vertices) if vertices.is_empty());
        inner = shared.lock();
        if !matches!(&taken, Err(e) if e.status() != Status::Timeout) {
            // It went well: an earlier failure is had by nobody now.
            inner.failed = None;
        }
        let mut stopped = Vec::new();
        let woken = match taken {
            Ok(vertices) if vertices.is_empty() => {
                inner.ended = true;
                inner.wake()
            }
            Ok(vertices) if inner.cancelled => {
                stopped = vertices;
                Vec::new()
            }
            Ok(vertices) => {
                inner.queued.extend(vertices);
                inner.wake()
            }
            Err(e) if e.status() == Status::Timeout => Vec::new(),
            Err(e) => {
                inner.failed = Some((e, inner.next_key));
                inner.held = true;
                inner.wake()
            }
        };
        drop(inner);
        cancel_all(stopped);
        wake(woken);
        if ended {
            return;
        }
        inner = shared.lock();
    }
}

/// The future of [`Walker::next_ready_async`]: the next ready vertex, or
/// `None` once the walk has ended.
#[must_use = "futures do nothing unless polled"]
pub struct NextReady<'w, 'g> {
    walker: &'w Walker<'g>,
    /// Its place among the waiters, while it waits.
    key: Option<u64>,
}

impl Future for NextReady<'_, '_> {
    type Output = Result<Option<Pending>>;

    fn poll(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Self::Output> {
        let this = &mut *self;
        this.walker
            .pump()
            .poll_take(&mut this.key, 1, cx)
            .map(|taken| match taken {
                Ok(mut one) => Ok(one.pop()),
                Err(e) => Err(e.in_method("Walker::next_ready", "Walker::next_ready_async")),
            })
    }
}

impl Drop for NextReady<'_, '_> {
    fn drop(&mut self) {
        self.walker.pump().leave(&mut self.key);
    }
}

/// The future of [`Walker::next_ready_many_async`]: up to `max` ready
/// vertices, at least one, or none once the walk has ended.
#[must_use = "futures do nothing unless polled"]
pub struct NextReadyMany<'w, 'g> {
    walker: &'w Walker<'g>,
    max: usize,
    key: Option<u64>,
}

impl Future for NextReadyMany<'_, '_> {
    type Output = Result<Vec<Pending>>;

    fn poll(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Self::Output> {
        let this = &mut *self;
        this.walker
            .pump()
            .poll_take(&mut this.key, this.max, cx)
            .map(|taken| {
                taken
                    .map_err(|e| e.in_method("Walker::next_ready", "Walker::next_ready_many_async"))
            })
    }
}

impl Drop for NextReadyMany<'_, '_> {
    fn drop(&mut self) {
        self.walker.pump().leave(&mut self.key);
    }
}

impl Walker<'_> {
    /// Pull mode, for async code: a future of the next ready vertex, as
    /// [`next_ready`](Walker::next_ready) without a time limit, which
    /// waits without holding the executor's thread: `Ok(None)` once the
    /// walk has ended. It needs no particular runtime (tokio, async-std,
    /// smol and an executor of your own all poll it) and nothing but the
    /// standard library.
    ///
    /// ```
    /// use libdag::{Graph, WalkOptions};
    /// use std::future::Future;
    /// use std::sync::Arc;
    /// use std::task::{Context, Poll, Wake, Waker};
    /// use std::thread::{self, Thread};
    ///
    /// // The smallest executor: any runtime's block_on or spawn does the same.
    /// struct Unpark(Thread);
    /// impl Wake for Unpark {
    ///     fn wake(self: Arc<Self>) {
    ///         self.0.unpark();
    ///     }
    /// }
    /// fn block_on<F: Future>(future: F) -> F::Output {
    ///     let waker = Waker::from(Arc::new(Unpark(thread::current())));
    ///     let mut cx = Context::from_waker(&waker);
    ///     let mut future = Box::pin(future);
    ///     loop {
    ///         match future.as_mut().poll(&mut cx) {
    ///             Poll::Ready(out) => return out,
    ///             Poll::Pending => thread::park(),
    ///         }
    ///     }
    /// }
    ///
    /// let mut graph = Graph::new()?;
    /// let app = graph.add_vertex(Some("app"))?;
    /// let db = graph.add_vertex(Some("db"))?;
    /// graph.connect(app, db)?;
    ///
    /// let walker = graph.begin_walk(&WalkOptions::new())?;
    /// let order = block_on(async {
    ///     let mut order = Vec::new();
    ///     while let Some(pending) = walker.next_ready_async().await? {
    ///         order.push(pending.id());
    ///         // Work of its own, awaited or on another thread, then:
    ///         thread::spawn(move || pending.succeed());
    ///     }
    ///     Ok::<_, libdag::Error>(order)
    /// })?;
    /// assert_eq!(order, [db, app]);
    /// assert!(walker.wait()?.ok());
    /// # Ok::<(), libdag::Error>(())
    /// ```
    ///
    /// A poll takes a ready vertex if there is one; otherwise the future
    /// waits, and a thread of the walker (one per walker, started by the
    /// first future that waits) waits in libdag for it, vertices that
    /// become ready after a retry's back-off included, and wakes the
    /// future's latest waker. That thread calls the walk's
    /// [observer](crate::WalkOptions::observer) for the vertices it hands
    /// out, and goes on despite a waker that panics. It returns once it
    /// has seen the walk end, and sleeps while no future waits; dropping
    /// the walker waits for it, at most about 50 ms.
    ///
    /// **Cancel-safe**: a future dropped before it completes (a `select!`
    /// that another branch won, a timeout, a task aborted) loses no
    /// vertex: what was taken for it stays queued for the next future, and
    /// for [`next_ready`](Walker::next_ready), [`ready`](Walker::ready) and
    /// [`next_ready_many`](Walker::next_ready_many), which hand it out
    /// first (one already waiting looks at the queue every 50 ms or so: it
    /// waits in libdag in slices). [`cancel`](Walker::cancel) and dropping
    /// the walker complete the vertices still queued as cancelled. Several
    /// futures may wait at once, on any tasks and threads: each vertex goes
    /// to one of them. Each batch queued wakes every waiting future, and
    /// the first polled has it (those that find nothing make a libdag call
    /// each, without waiting, and wait again). A future `mem::forget`-ed
    /// while it waits still counts among those waiting: the thread goes on
    /// taking ready vertices for it (reporting them started, holding
    /// parallelism slots) and queues them with no live future waiting.
    /// Nobody loses a vertex or a wake: `next_ready` and new futures take
    /// the queued ones. The future is `Send` and `Sync` (it borrows the
    /// walker, which is), so a multi-threaded executor may move it between
    /// threads; it is `Unpin`. Polled again once it has returned a vertex,
    /// it waits for another.
    ///
    /// # Errors
    /// As [`next_ready`](Walker::next_ready): [`Status::State`] (a walk
    /// started with a callback), [`Status::NoMemory`] (also when the
    /// waiting thread cannot be started, or its wait in libdag fails: the
    /// first polled of the futures that waited then has it, not one that
    /// came later, unless a later wait of the thread went well first; a
    /// later poll tries again).
    pub fn next_ready_async(&self) -> NextReady<'_, '_> {
        NextReady {
            walker: self,
            key: None,
        }
    }

    /// Pull mode, for async code: a future of up to `max` ready vertices
    /// (all that are ready, up to `max`, once one is), empty once the walk
    /// has ended; as [`next_ready_many`](Walker::next_ready_many) without a
    /// time limit, and as [`next_ready_async`](Walker::next_ready_async)
    /// in everything else.
    ///
    /// # Errors
    /// As [`next_ready_async`](Walker::next_ready_async);
    /// [`Status::InvalidArgument`] for `max` 0.
    pub fn next_ready_many_async(&self, max: usize) -> NextReadyMany<'_, '_> {
        NextReadyMany {
            walker: self,
            max,
            key: None,
        }
    }
}
