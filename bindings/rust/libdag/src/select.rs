//! Partial runs: the part of a graph that Terraform's `-target` and
//! OpenTofu's `-exclude` leave ([`Graph::select`]).

use std::os::raw::c_uint;
use std::ptr;

use libdag_sys as sys;

use crate::error::{check, Result};
use crate::graph::{Graph, VertexId};
use crate::raw::id_ptr;

/// What [`Graph::select`] keeps: the targets and what they depend on
/// ([`Select::dependencies`], an apply), or what depends on them
/// ([`Select::dependents`], a destroy); optionally every vertex as a
/// target ([`all`](Select::all)), leaving the exclusion alone to narrow the
/// graph.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Select {
    flags: c_uint,
}

impl Select {
    /// Keep the targets' dependencies; exclude what depends on an excluded
    /// vertex.
    pub fn dependencies() -> Select {
        Select { flags: 0 }
    }

    /// Keep what depends on the targets; exclude what an excluded vertex
    /// depends on.
    pub fn dependents() -> Select {
        Select {
            flags: sys::DAG_SELECT_DEPENDENTS,
        }
    }

    /// Every vertex is a target (the targets given are ignored).
    #[must_use]
    pub fn all(self) -> Select {
        Select {
            flags: self.flags | sys::DAG_SELECT_ALL,
        }
    }
}

impl Graph {
    /// A new graph holding the selection: the targets and everything they
    /// depend on (with [`Select::dependents`], everything that depends on
    /// them), less the excluded vertices and everything that depends on
    /// them (with [`Select::dependents`], everything they depend on), so a
    /// selected vertex never lacks what must run before it. Ids, names and
    /// the edges between selected vertices are kept, and the new graph
    /// issues ids from where this one stands, so an id names the same
    /// vertex in both. With a -> b -> c (a depends on b, b on c):
    ///
    /// ```
    /// use libdag::{Graph, Select};
    /// let mut g = Graph::new()?;
    /// let (a, b, c) = (g.add_vertex(Some("a"))?, g.add_vertex(Some("b"))?, g.add_vertex(Some("c"))?);
    /// g.connect(a, b)?;
    /// g.connect(b, c)?;
    /// assert_eq!(g.select(&[b], &[], Select::dependencies())?.vertices()?, [b, c]);
    /// assert_eq!(g.select(&[b], &[], Select::dependents())?.vertices()?, [a, b]);
    /// assert_eq!(g.select(&[], &[b], Select::dependencies().all())?.vertices()?, [c]);
    /// # Ok::<(), libdag::Error>(())
    /// ```
    ///
    /// Only reads this graph: it may be walked meanwhile.
    ///
    /// # Errors
    /// [`Status::UnknownVertex`](crate::Status::UnknownVertex) (a target or
    /// excluded id); [`Status::NoMemory`](crate::Status::NoMemory).
    pub fn select(
        &self,
        targets: &[VertexId],
        excludes: &[VertexId],
        how: Select,
    ) -> Result<Graph> {
        let mut out = ptr::null_mut();
        let mut err = ptr::null_mut();
        // SAFETY: a valid handle; both id slices as uint64_t arrays; the new
        // graph is ours on success.
        unsafe {
            let status = sys::dag_select(
                self.ptr(),
                id_ptr(targets),
                targets.len(),
                id_ptr(excludes),
                excludes.len(),
                how.flags,
                &mut out,
                &mut err,
            );
            check(status, err)?;
            Ok(Graph::from_raw(out))
        }
    }
}
