//! Named limits (pools) and retries: the walk options' 1.3 fields, kept in
//! the form libdag borrows them.

use std::ffi::CString;
use std::os::raw::{c_char, c_int};
use std::ptr;
use std::time::Duration;

use libdag_sys as sys;

use crate::error::Result;
use crate::graph::VertexId;
use crate::raw::{c_string, id_ptr};

/// C strings and the array of their pointers that libdag takes.
#[derive(Default)]
struct CNames {
    strings: Vec<CString>,
    // Into `strings`' heap buffers, which do not move when the Vec grows.
    pointers: Vec<*const c_char>,
}

impl CNames {
    fn push(&mut self, name: CString) {
        self.pointers.push(name.as_ptr());
        self.strings.push(name);
    }

    fn as_ptr(&self) -> *const *const c_char {
        if self.pointers.is_empty() {
            ptr::null()
        } else {
            self.pointers.as_ptr()
        }
    }
}

impl Clone for CNames {
    // Derived, the pointers would go on pointing into the original's strings.
    fn clone(&self) -> CNames {
        let mut copy = CNames::default();
        for name in &self.strings {
            copy.push(name.clone());
        }
        copy
    }
}

// SAFETY: the pointers only point into `strings`, owned and never changed
// in place; sharing or sending them is sharing or sending the strings.
unsafe impl Send for CNames {}
// SAFETY: as above.
unsafe impl Sync for CNames {}

/// Which ready vertex starts first ([`WalkOptions::priority`](crate::WalkOptions::priority), libdag 1.3).
/// With a priority, ties go by name, then id, so a walk at parallelism 1
/// starts its vertices in the same order every time.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Priority {
    /// libdag 1.2's order, the default and the fastest.
    #[default]
    None,
    /// The longest remaining path to the end of the walk first, each vertex
    /// counting its [`weight`](crate::WalkOptions::weight) (1 unless given).
    CriticalPath,
    /// By name.
    Name,
}

/// What [`WalkOptions`](crate::WalkOptions) says about pools, retries and priorities.
#[derive(Clone, Default)]
pub(crate) struct Schedule {
    pool_names: CNames,
    pool_capacities: Vec<usize>,
    need_vertices: Vec<VertexId>,
    need_names: CNames,
    pub(crate) retries: usize,
    pub(crate) retry_delay: Duration,
    pub(crate) retry_max_delay: Duration,
    pub(crate) retry_doubling: bool,
    retry_vertices: Vec<VertexId>,
    retry_counts: Vec<usize>,
    pub(crate) priority: Priority,
    weight_vertices: Vec<VertexId>,
    weights: Vec<u64>,
    // A name holding a NUL byte, refused when the walk starts.
    bad_name: Option<String>,
}

impl Schedule {
    fn name(&mut self, name: &str) -> Option<CString> {
        let c = CString::new(name).ok();
        if c.is_none() && self.bad_name.is_none() {
            self.bad_name = Some(name.to_owned());
        }
        c
    }

    pub(crate) fn add_pool(&mut self, name: &str, capacity: usize) {
        if let Some(c) = self.name(name) {
            self.pool_names.push(c);
            self.pool_capacities.push(capacity);
        }
    }

    pub(crate) fn add_need(&mut self, vertex: VertexId, pool: &str) {
        if let Some(c) = self.name(pool) {
            self.need_vertices.push(vertex);
            self.need_names.push(c);
        }
    }

    pub(crate) fn add_weight(&mut self, vertex: VertexId, weight: u64) {
        self.weight_vertices.push(vertex);
        self.weights.push(weight);
    }

    pub(crate) fn add_vertex_retries(&mut self, vertex: VertexId, retries: usize) {
        self.retry_vertices.push(vertex);
        self.retry_counts.push(retries);
    }

    /// Points `opts` at these arrays, which must outlive its use.
    pub(crate) fn apply(&self, method: &str, opts: &mut sys::dag_walk_options) -> Result<()> {
        if let Some(name) = &self.bad_name {
            c_string(method, "pool name", name)?;
        }
        // Empty arrays stay NULL, as libdag's defaults have them.
        if !self.pool_capacities.is_empty() {
            opts.pool_names = self.pool_names.as_ptr();
            opts.pool_capacities = self.pool_capacities.as_ptr();
            opts.pool_count = self.pool_capacities.len();
        }
        if !self.need_vertices.is_empty() {
            opts.pool_need_vertices = id_ptr(&self.need_vertices);
            opts.pool_need_names = self.need_names.as_ptr();
            opts.pool_need_count = self.need_vertices.len();
        }
        opts.retries = self.retries;
        opts.retry_delay_ms = millis(self.retry_delay);
        opts.retry_max_delay_ms = millis(self.retry_max_delay);
        opts.retry_doubling = c_int::from(self.retry_doubling);
        if !self.retry_vertices.is_empty() {
            opts.retry_vertices = id_ptr(&self.retry_vertices);
            opts.retry_counts = self.retry_counts.as_ptr();
            opts.retry_vertex_count = self.retry_vertices.len();
        }
        opts.priority = match self.priority {
            Priority::None => sys::DAG_PRIORITY_NONE,
            Priority::CriticalPath => sys::DAG_PRIORITY_CRITICAL_PATH,
            Priority::Name => sys::DAG_PRIORITY_NAME,
        };
        if !self.weights.is_empty() {
            opts.weight_vertices = id_ptr(&self.weight_vertices);
            opts.weights = self.weights.as_ptr();
            opts.weight_count = self.weights.len();
        }
        Ok(())
    }
}

/// `duration` in whole milliseconds, a positive one under a millisecond
/// counting as one: libdag reads 0 as none (no wait, no cap), and a cap of
/// 400 µs meant no cap at all.
fn millis(duration: Duration) -> u64 {
    match u64::try_from(duration.as_millis()).unwrap_or(u64::MAX) {
        0 if !duration.is_zero() => 1,
        ms => ms,
    }
}
