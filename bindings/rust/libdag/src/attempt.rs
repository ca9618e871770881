//! One attempt of a deferred vertex: what its callback and the `Pending`s
//! it deferred share.
//!
//! libdag knows a vertex by its id only, so with retries a completion made
//! for an attempt that has ended would be taken for the retry's. Each
//! attempt therefore says whether it is over (its callback failed, or a
//! completion of it was accepted), and a `Pending` of an attempt that is
//! over is refused before libdag sees it. A completion under way is marked
//! with its thread rather than held under a lock through its libdag call:
//! libdag runs the observer on that thread, and an observer that completes
//! or drops another `Pending` of the same vertex must not wait for itself.

use std::sync::{Condvar, Mutex, MutexGuard};
use std::thread::{self, ThreadId};

#[derive(Default)]
pub(crate) struct Attempt {
    state: Mutex<State>,
    idle: Condvar,
}

#[derive(Default)]
struct State {
    // The callback has returned.
    returned: bool,
    // It returned an error or panicked, or a Pending was dropped while it
    // ran and none completed the attempt.
    failed: bool,
    // A completion of this attempt was accepted.
    completed: bool,
    // A Pending was dropped while the callback ran.
    dropped_in_callback: bool,
    // The thread whose completion is in libdag now.
    completing: Option<ThreadId>,
}

/// Why a `Pending` may not complete its attempt.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Refused {
    /// The deferring callback returned an error or panicked, or a
    /// `Pending` was dropped while it ran.
    Failed,
    /// Another `Pending` of the attempt completed it.
    Completed,
    /// Another `Pending` of the attempt is completing it on this thread
    /// (this call comes from an observer that completion runs).
    Completing,
}

impl Attempt {
    fn lock(&self) -> MutexGuard<'_, State> {
        self.state.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// Before a `Pending`'s libdag call: waits for a completion under way
    /// on another thread, then marks this thread's. [`end`](Attempt::end)
    /// must follow.
    pub(crate) fn begin(&self) -> Result<(), Refused> {
        let me = thread::current().id();
        let mut state = self.lock();
        loop {
            if state.failed {
                return Err(Refused::Failed);
            }
            if state.completed {
                return Err(Refused::Completed);
            }
            match state.completing {
                None => {
                    state.completing = Some(me);
                    return Ok(());
                }
                Some(thread) if thread == me => return Err(Refused::Completing),
                Some(_) => state = self.idle.wait(state).unwrap_or_else(|e| e.into_inner()),
            }
        }
    }

    /// After it: an `accepted` completion ends the attempt.
    pub(crate) fn end(&self, accepted: bool) {
        let mut state = self.lock();
        state.completing = None;
        state.completed |= accepted;
        self.idle.notify_all();
    }

    /// A `Pending` dropped uncompleted: whether it is to fail the vertex
    /// itself, [`begin`](Attempt::begin) done. Once another `Pending` has
    /// completed the attempt it does nothing; dropped while the callback
    /// runs, it leaves the vertex to the callback (which then fails it,
    /// unless a completion was accepted meanwhile).
    pub(crate) fn drop_pending(&self) -> bool {
        {
            let mut state = self.lock();
            if state.completed {
                return false;
            }
            if !state.returned {
                state.dropped_in_callback = true;
                return false;
            }
        }
        self.begin().is_ok()
    }

    /// The callback returned, `failed` or not; waits for a completion under
    /// way on another thread (libdag holds one made while the callback ran,
    /// and the callback's result wins). Says whether a `Pending` was dropped
    /// while it ran and none completed the attempt: the vertex then fails,
    /// and the attempt is over.
    pub(crate) fn returned(&self, failed: bool) -> bool {
        let me = thread::current().id();
        let mut state = self.lock();
        while matches!(state.completing, Some(thread) if thread != me) {
            state = self.idle.wait(state).unwrap_or_else(|e| e.into_inner());
        }
        state.returned = true;
        let dropped = state.dropped_in_callback && !state.completed;
        state.failed |= failed || dropped;
        dropped
    }
}
