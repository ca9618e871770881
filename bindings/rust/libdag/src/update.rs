//! Changes to a running walk: a batch built with [`WalkUpdate`] and applied
//! with [`Walker::apply`](crate::Walker::apply) (or from a callback,
//! [`Vertex::apply`](crate::Vertex::apply)).

use std::ptr::{self, NonNull};

use libdag_sys as sys;

use crate::error::{check, Result};
use crate::graph::VertexId;
use crate::raw::c_string;

/// A batch of changes to apply to a running walk, all or nothing: vertices
/// to add (with their names and always-run flag), edges to add and remove,
/// vertices to remove. Applying it checks it (ids, names, cycles) against
/// the walk's graph as it is then; the batch itself is not changed and may
/// be applied again elsewhere.
///
/// `Send` (a batch has no thread affinity) but not `Sync`: libdag's batch
/// is not thread-safe, and applying reads it.
pub struct WalkUpdate {
    raw: NonNull<sys::dag_walk_update>,
}

// SAFETY: a batch may be built, applied and freed on any thread, one at a
// time; `&mut self` for every change gives that.
unsafe impl Send for WalkUpdate {}

impl WalkUpdate {
    /// An empty batch.
    ///
    /// # Errors
    /// [`Status::NoMemory`](crate::Status::NoMemory).
    pub fn new() -> Result<WalkUpdate> {
        let mut raw = ptr::null_mut();
        let mut err = ptr::null_mut();
        // SAFETY: both out-parameters are valid.
        unsafe { check(sys::dag_walk_update_new(&mut raw, &mut err), err)? };
        Ok(WalkUpdate {
            raw: NonNull::new(raw).expect("dag_walk_update_new returned no batch"),
        })
    }

    pub(crate) fn ptr(&self) -> *const sys::dag_walk_update {
        self.raw.as_ptr()
    }

    /// Adds a vertex, named or not; `always_run` makes it run even when a
    /// dependency failed. Returns a provisional id, valid in this batch's
    /// [`connect`](WalkUpdate::connect) calls only; applying returns the
    /// real ids.
    ///
    /// # Errors
    /// [`Status::InvalidArgument`](crate::Status::InvalidArgument) (an
    /// empty name, or one holding a NUL byte).
    pub fn add_vertex(&mut self, name: Option<&str>, always_run: bool) -> Result<VertexId> {
        let name = name
            .map(|n| c_string("WalkUpdate::add_vertex", "name", n))
            .transpose()?;
        let mut id = 0u64;
        let mut err = ptr::null_mut();
        // SAFETY: a live batch; the name is copied.
        unsafe {
            let status = sys::dag_walk_update_add_vertex(
                self.raw.as_ptr(),
                name.as_ref().map_or(ptr::null(), |n| n.as_ptr()),
                ptr::null_mut(),
                i32::from(always_run),
                &mut id,
                &mut err,
            );
            check(status, err)?;
        }
        Ok(VertexId(id))
    }

    /// Adds the edge `from -> to` (from depends on to); either id may be
    /// provisional. Applying refuses an edge whose dependent has started
    /// (or ended without starting: skipped or cancelled),
    /// even on a dependency that has finished (the walk could not honour it).
    ///
    /// # Errors
    /// [`Status::NoMemory`](crate::Status::NoMemory).
    pub fn connect(&mut self, from: VertexId, to: VertexId) -> Result<()> {
        let mut err = ptr::null_mut();
        // SAFETY: a live batch.
        unsafe {
            check(
                sys::dag_walk_update_connect(self.raw.as_ptr(), from.0, to.0, &mut err),
                err,
            )
        }
    }

    /// Removes the edge `from -> to`.
    ///
    /// # Errors
    /// [`Status::NoMemory`](crate::Status::NoMemory).
    pub fn disconnect(&mut self, from: VertexId, to: VertexId) -> Result<()> {
        let mut err = ptr::null_mut();
        // SAFETY: a live batch.
        unsafe {
            check(
                sys::dag_walk_update_disconnect(self.raw.as_ptr(), from.0, to.0, &mut err),
                err,
            )
        }
    }

    /// Removes a vertex and its edges; applying refuses it once the vertex
    /// has started or ended without starting. A removed vertex never runs and is reported
    /// [`VertexStatus::NotRun`](crate::VertexStatus::NotRun).
    ///
    /// # Errors
    /// [`Status::NoMemory`](crate::Status::NoMemory).
    pub fn remove_vertex(&mut self, id: VertexId) -> Result<()> {
        let mut err = ptr::null_mut();
        // SAFETY: a live batch.
        unsafe {
            check(
                sys::dag_walk_update_remove_vertex(self.raw.as_ptr(), id.0, &mut err),
                err,
            )
        }
    }
}

impl Drop for WalkUpdate {
    fn drop(&mut self) {
        // SAFETY: a batch libdag gave us; freed once.
        unsafe { sys::dag_walk_update_free(self.raw.as_ptr()) }
    }
}

impl std::fmt::Debug for WalkUpdate {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("WalkUpdate")
    }
}
