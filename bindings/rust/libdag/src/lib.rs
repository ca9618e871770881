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
//!     let name = graph.name(v).map_err(|e| e.to_string())?.unwrap_or("?");
//!     order.lock().unwrap().push(name.to_owned());
//!     Ok(())
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
//! [`Status`] and libdag's message, which names the function and what was
//! wrong (`"dag_connect: unknown vertex id 7"`). Nothing panics on
//! bad input.
//!
//! # Threads
//!
//! [`Graph`] is `Send` and `Sync`: `&self` methods may run concurrently,
//! including during a walk of the same graph; `&mut self` methods change
//! it. See [`Graph`] for the reasoning.
//!
//! # Linking
//!
//! `libdag-sys` links `-ldag`, searching `$LIBDAG_LIB_DIR` when set, else
//! what `pkg-config --libs-only-L libdag` reports. At run time the loader
//! must find `libdag.so.1` (`LD_LIBRARY_PATH`, an rpath, or an installed
//! library).
#![warn(missing_docs)]

mod algorithms;
mod error;
mod graph;
mod raw;
mod walk;

use std::ffi::CStr;

pub use libdag_sys as sys;

pub use algorithms::{Search, SearchAction, Traversal, Validation, Visit};
pub use error::{Error, Result, Status};
pub use graph::{Format, Graph, VertexId};
pub use walk::{VertexReport, VertexStatus, WalkOptions, WalkReport};

/// The version of the libdag loaded at run time, as
/// `MAJOR * 10000 + MINOR * 100 + PATCH` (10200 for 1.2.0).
pub fn version() -> u32 {
    // SAFETY: no arguments, no failure.
    unsafe { sys::dag_version() }
}

/// The version of the libdag loaded at run time as a string (`"1.2.0"`).
pub fn version_string() -> &'static str {
    // SAFETY: a static NUL-terminated string, never freed.
    let text = unsafe { CStr::from_ptr(sys::dag_version_string()) };
    text.to_str().unwrap_or("")
}
