//! Dependency graphs with Terraform's semantics: build them, validate them,
//! order them, and walk them in parallel. A safe binding of libdag's C API
//! (raw declarations in the `libdag-sys` crate).
//!
//! An edge means "depends on": after [`connect(a, b)`](Graph::connect), b's
//! work happens before a's.
//!
//! ```
//! use libdag::{Graph, VertexStatus, WalkOptions};
//! use std::sync::Mutex;
//!
//! let mut graph = Graph::new()?;
//! let app = graph.add_vertex(Some("app"))?;
//! let db = graph.add_vertex(Some("db"))?;
//! let net = graph.add_vertex(Some("net"))?;
//! graph.connect(app, db)?; // app depends on db
//! graph.connect(db, net)?; // db depends on net
//!
//! assert!(graph.validate(true)?.ok());
//! assert_eq!(graph.reverse_topological_order()?, vec![net, db, app]);
//! assert_eq!(graph.ancestors(&[app])?, vec![db, net]);
//!
//! // Each vertex runs once its dependencies are done; the closure may read
//! // the graph from libdag's pool threads.
//! let order = Mutex::new(Vec::new());
//! let report = graph.walk(&WalkOptions::new().parallelism(4), |v| {
//!     let name = graph.name(v)?.unwrap_or("?");
//!     order.lock().unwrap().push(name.to_owned());
//!     Ok::<(), libdag::Error>(())
//! })?;
//! assert!(report.ok());
//! assert_eq!(report.status(app), Some(VertexStatus::Ok));
//! assert_eq!(order.into_inner().unwrap(), ["net", "db", "app"]);
//! # Ok::<(), libdag::Error>(())
//! ```
//!
//! # Errors
//!
//! Every fallible method returns [`Result`], whose [`Error`] carries a
//! [`Status`] and a message, which names the method and what was
//! wrong (`"Graph::connect: unknown vertex id 7"`). Nothing panics on
//! bad input.
//!
//! # Threads
//!
//! [`Graph`] is `Send` and `Sync`: `&self` methods may run concurrently,
//! including during a walk of the same graph; `&mut self` methods change
//! it. See [`Graph`] for the reasoning.
//!
//! # Walks
//!
//! - [`Graph::walk`] runs a closure per vertex on libdag's pool and blocks
//!   until the walk is over.
//! - [`Graph::start_walk`] returns a [`Walker`] at once: wait (with a time
//!   limit or not), cancel, watch progress, or change the walk
//!   ([`WalkUpdate`]) from any thread; a callback can
//!   [`defer`](Vertex::defer) its vertex and finish it later from any
//!   thread, or [`expand`](Vertex::expand) it into a sub-graph.
//! - [`Graph::begin_walk`] is the pull mode, for hosts with a thread pool of
//!   their own: [`Walker::ready`] yields each ready vertex as a [`Pending`]
//!   that any thread completes. Async code awaits them instead with
//!   [`Walker::next_ready_async`], a `Future` for any executor (tokio,
//!   async-std, smol, your own), built on the standard library only.
//!
//! Callbacks fail a vertex with `Err(e)` for any error type; the report
//! keeps `e` ([`WalkReport::source`]), and [`WalkReport::into_result`]
//! turns a failed walk into an [`Error`] whose `source()` is it.
//!
//! # Linking
//!
//! `libdag-sys` links `-ldag`, searching `$LIBDAG_LIB_DIR` when set, else
//! what `pkg-config --libs-only-L libdag` reports. At run time the loader
//! must find `libdag.so.1` (`LD_LIBRARY_PATH`, an rpath, or an installed
//! library).
#![warn(missing_docs)]

mod algorithms;
mod async_walk;
mod attempt;
mod builder;
mod error;
mod graph;
mod held_by_c;
mod names;
mod options;
mod raw;
mod report;
mod schedule;
mod select;
mod update;
mod walk;
mod walker;

use std::ffi::CStr;

pub use libdag_sys as sys;

pub use algorithms::{Search, SearchAction, Traversal, Validation, Visit};
pub use async_walk::{NextReady, NextReadyMany};
pub use builder::{Action, BuildStep, Builder, StepGraph};
pub use error::{BoxError, Error, Result, Status};
pub use graph::{Format, Graph, VertexId};
pub use options::{EventKind, WalkEvent, WalkOptions};
pub use report::{VertexReport, VertexStatus, Vertices, WalkReport};
pub use schedule::Priority;
pub use select::Select;
pub use update::WalkUpdate;
pub use walker::{GraphRef, Pending, Ready, Vertex, Walker};

/// The version of the libdag loaded at run time, as
/// `MAJOR * 10000 + MINOR * 100 + PATCH` (10300 for 1.3.0).
pub fn version() -> u32 {
    // SAFETY: no arguments, no failure.
    unsafe { sys::dag_version() }
}

/// The version of the libdag loaded at run time as a string (`"1.3.0"`).
pub fn version_string() -> &'static str {
    // SAFETY: a static NUL-terminated string, never freed.
    let text = unsafe { CStr::from_ptr(sys::dag_version_string()) };
    text.to_str().unwrap_or("")
}
