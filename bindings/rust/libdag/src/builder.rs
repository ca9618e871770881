//! Building a graph in named steps, as Terraform's graph builder runs its
//! transformers ([`Builder`]).

use std::any::Any;
use std::ffi::{CStr, CString};
use std::marker::PhantomData;
use std::mem::ManuallyDrop;
use std::ops::Deref;
use std::os::raw::{c_char, c_int, c_uint, c_void};
use std::panic::{catch_unwind, resume_unwind, AssertUnwindSafe};
use std::ptr::{self, NonNull};
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Duration;

use libdag_sys as sys;

use crate::error::{check, Result};
use crate::graph::{Graph, VertexId};
use crate::held_by_c::HeldByC;
use crate::raw::{c_string, call_string};

/// A vertex's planned change, read by [`Builder::add_destroy_order`].
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Action {
    /// Nothing to do (the default).
    None,
    /// Created.
    Create,
    /// Updated in place.
    Update,
    /// Destroyed: the vertex becomes `NAME (destroy)`.
    Delete,
    /// Destroyed, then created again.
    Replace,
    /// Created again, then the old one destroyed.
    CreateBeforeDestroy,
}

impl Action {
    fn code(self) -> sys::dag_action {
        match self {
            Action::None => sys::DAG_ACTION_NONE,
            Action::Create => sys::DAG_ACTION_CREATE,
            Action::Update => sys::DAG_ACTION_UPDATE,
            Action::Delete => sys::DAG_ACTION_DELETE,
            Action::Replace => sys::DAG_ACTION_REPLACE,
            Action::CreateBeforeDestroy => sys::DAG_ACTION_CREATE_BEFORE_DESTROY,
        }
    }
}

/// What the observer of [`Builder::build_observed`] hears after each step
/// that succeeded (`dag_build_step_info`).
#[derive(Debug)]
pub struct BuildStep<'a> {
    /// The step's name (`"references"`, `"root"`, a step of your own's).
    pub name: &'a str,
    /// Its position among the steps, from 0.
    pub index: usize,
    /// How long it took (steady clock).
    pub duration: Duration,
    /// The graph's vertex count before the step.
    pub vertices_before: usize,
    /// The graph's edge count before the step.
    pub edges_before: usize,
    /// The graph's vertex count after the step.
    pub vertices_after: usize,
    /// The graph's edge count after the step.
    pub edges_after: usize,
    graph: &'a Graph,
}

impl BuildStep<'_> {
    /// The graph as the step left it, to read or export.
    pub fn graph(&self) -> &Graph {
        self.graph
    }
}

/// The observer's closure and a panic to resume once libdag has returned.
struct Observer<'o> {
    f: &'o mut dyn FnMut(&BuildStep<'_>),
    panic: Option<Caught>,
}

unsafe extern "C" fn observer_trampoline(info: *const sys::dag_build_step_info, data: *mut c_void) {
    let state = &mut *data.cast::<Observer<'_>>();
    if state.panic.is_some() {
        return;
    }
    let info = &*info;
    let graph = Graph::lent(info.graph as *mut sys::dag_graph);
    let step = BuildStep {
        name: CStr::from_ptr(info.name).to_str().unwrap_or(""),
        index: info.index,
        duration: Duration::from_nanos(info.duration_ns),
        vertices_before: info.vertices_before,
        edges_before: info.edges_before,
        vertices_after: info.vertices_after,
        edges_after: info.edges_after,
        graph: &graph,
    };
    if let Err(payload) = catch_unwind(AssertUnwindSafe(|| (state.f)(&step))) {
        state.panic = Some(Caught::new(payload));
    }
}

type StepFn<'g> = dyn FnMut(&mut StepGraph<'_>) -> std::result::Result<(), String> + 'g;
type PruneFn<'g> = dyn FnMut(&Graph, VertexId) -> bool + 'g;

/// What the C trampolines reach through `user_data`: the closure, the last
/// failure message (kept alive for libdag to copy) and a panic to resume.
struct Callback<F: ?Sized> {
    f: Box<F>,
    graph: *mut sys::dag_graph,
    message: CString,
    panic: Option<Caught>,
}

/// A panic caught in a step, a prune predicate or the observer, with when:
/// a build may catch several (predicates and the observer do not stop it),
/// and the first one is resumed.
struct Caught {
    order: u64,
    payload: Box<dyn Any + Send>,
}

impl Caught {
    fn new(payload: Box<dyn Any + Send>) -> Self {
        static CAUGHT: AtomicU64 = AtomicU64::new(0);
        Self {
            order: CAUGHT.fetch_add(1, Ordering::Relaxed),
            payload,
        }
    }

    /// The first of `self` and `other`; the other's payload is leaked, not
    /// dropped: its Drop could panic while the first one unwinds.
    fn first(self, other: Option<Caught>) -> Caught {
        match other {
            Some(other) if other.order < self.order => {
                std::mem::forget(self.payload);
                other
            }
            Some(other) => {
                std::mem::forget(other.payload);
                self
            }
            None => self,
        }
    }
}

/// Builds its graph in place: declare what each vertex provides,
/// references, needs and plans to do, add steps, then [`build`](Builder::build).
/// The builder borrows the graph mutably while it lives.
///
/// ```
/// use libdag::{Builder, Graph};
/// let mut g = Graph::new()?;
/// let vpc = g.add_vertex(Some("aws_vpc.main"))?;
/// let subnet = g.add_vertex(Some("aws_subnet.public"))?;
/// let mut b = Builder::new(&mut g)?;
/// b.provide(vpc, "aws_vpc.main")?;
/// b.reference(subnet, "aws_vpc.main.id")?;
/// b.add_references(false)?;
/// b.build(true, true)?;
/// drop(b);
/// assert!(g.has_edge(subnet, vpc));
/// # Ok::<(), libdag::Error>(())
/// ```
pub struct Builder<'g> {
    raw: NonNull<sys::dag_builder>,
    graph: *mut sys::dag_graph,
    // On the heap, not stored inline: libdag keeps a pointer to each
    // Callback as the step's or predicate's user_data, so each needs an
    // address of its own that stays put when the Vec grows and reallocates.
    steps: Vec<HeldByC<Callback<StepFn<'g>>>>,
    prunes: Vec<HeldByC<Callback<PruneFn<'g>>>>,
    _graph: std::marker::PhantomData<&'g mut Graph>,
}

/// The graph a step of yours ([`Builder::add_step`]) builds: every `&self`
/// method of [`Graph`] through `Deref`, and its changes through the methods
/// below, which are `Graph`'s own.
///
/// It is not a `&mut Graph`, which could be swapped for another graph
/// (`std::mem::swap`, `replace`, an assignment): the `Graph` moved out would
/// outlive the build while it was yours. A `StepGraph` cannot be moved out
/// of the step, nor swapped with another one (a step of a build run inside
/// a step gets one of another lifetime):
///
/// ```compile_fail,E0521
/// # use libdag::{Builder, Graph};
/// let mut g = Graph::new()?;
/// let mut b = Builder::new(&mut g)?;
/// b.add_step("swap", |outer| {
///     let mut h = Graph::new().map_err(|e| e.to_string())?;
///     let mut inner = Builder::new(&mut h).map_err(|e| e.to_string())?;
///     inner.add_step("inner", |graph| {
///         std::mem::swap(outer, graph);
///         Ok(())
///     }).map_err(|e| e.to_string())?;
///     inner.build(false, false).map_err(|e| e.to_string())?;
///     Ok(())
/// })?;
/// # Ok::<(), libdag::Error>(())
/// ```
pub struct StepGraph<'s> {
    graph: ManuallyDrop<Graph>,
    // Invariant in 's: two steps' graphs are of two types, never swapped.
    _step: PhantomData<fn(&'s ()) -> &'s ()>,
}

impl Deref for StepGraph<'_> {
    type Target = Graph;

    fn deref(&self) -> &Graph {
        &self.graph
    }
}

impl StepGraph<'_> {
    /// [`Graph::add_vertex`].
    ///
    /// # Errors
    /// As [`Graph::add_vertex`].
    pub fn add_vertex(&mut self, name: Option<&str>) -> Result<VertexId> {
        self.graph.add_vertex(name)
    }

    /// [`Graph::add_vertices`].
    ///
    /// # Errors
    /// As [`Graph::add_vertices`].
    pub fn add_vertices(&mut self, names: &[Option<&str>]) -> Result<Vec<VertexId>> {
        self.graph.add_vertices(names)
    }

    /// [`Graph::remove_vertex`].
    ///
    /// # Errors
    /// As [`Graph::remove_vertex`].
    pub fn remove_vertex(&mut self, id: VertexId) -> Result<()> {
        self.graph.remove_vertex(id)
    }

    /// [`Graph::replace_vertex`].
    ///
    /// # Errors
    /// As [`Graph::replace_vertex`].
    pub fn replace_vertex(&mut self, original: VertexId, replacement: VertexId) -> Result<()> {
        self.graph.replace_vertex(original, replacement)
    }

    /// [`Graph::set_name`].
    ///
    /// # Errors
    /// As [`Graph::set_name`].
    pub fn set_name(&mut self, id: VertexId, name: Option<&str>) -> Result<()> {
        self.graph.set_name(id, name)
    }

    /// [`Graph::set_user_data`].
    ///
    /// # Errors
    /// As [`Graph::set_user_data`].
    pub fn set_user_data(&mut self, id: VertexId, data: usize) -> Result<()> {
        self.graph.set_user_data(id, data)
    }

    /// [`Graph::connect`].
    ///
    /// # Errors
    /// As [`Graph::connect`].
    pub fn connect(&mut self, from: VertexId, to: VertexId) -> Result<()> {
        self.graph.connect(from, to)
    }

    /// [`Graph::connect_many`].
    ///
    /// # Errors
    /// As [`Graph::connect_many`].
    pub fn connect_many(&mut self, edges: &[(VertexId, VertexId)]) -> Result<()> {
        self.graph.connect_many(edges)
    }

    /// [`Graph::disconnect`].
    ///
    /// # Errors
    /// As [`Graph::disconnect`].
    pub fn disconnect(&mut self, from: VertexId, to: VertexId) -> Result<()> {
        self.graph.disconnect(from, to)
    }

    /// [`Graph::subsume`].
    ///
    /// # Errors
    /// As [`Graph::subsume`].
    pub fn subsume(&mut self, other: &Graph) -> Result<()> {
        self.graph.subsume(other)
    }

    /// [`Graph::transitive_reduction`].
    ///
    /// # Errors
    /// As [`Graph::transitive_reduction`].
    pub fn transitive_reduction(&mut self) -> Result<usize> {
        self.graph.transitive_reduction()
    }

    /// [`Graph::as_raw_mut`]: the handle, for any `libdag-sys` call while
    /// this borrow lasts. A call that frees the graph breaks this type's
    /// invariants.
    pub fn as_raw_mut(&mut self) -> *mut sys::dag_graph {
        self.graph.as_raw_mut()
    }
}

impl std::fmt::Debug for StepGraph<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        std::fmt::Debug::fmt(&**self, f)
    }
}

unsafe extern "C" fn step_trampoline(
    g: *mut sys::dag_graph,
    message: *mut *const c_char,
    data: *mut c_void,
) -> c_int {
    let state = &mut *data.cast::<Callback<StepFn<'_>>>();
    if state.panic.is_some() {
        return 1;
    }
    // The builder holds the graph's only Rust borrow and does not use it
    // while dag_build runs: the step gets the same handle, lent.
    let mut graph = StepGraph {
        graph: Graph::lent(g),
        _step: PhantomData,
    };
    match catch_unwind(AssertUnwindSafe(|| (state.f)(&mut graph))) {
        Ok(Ok(())) => 0,
        Ok(Err(text)) => {
            state.message = CString::new(text.replace('\0', " ")).unwrap_or_default();
            *message = state.message.as_ptr();
            1
        }
        Err(payload) => {
            state.panic = Some(Caught::new(payload));
            1
        }
    }
}

unsafe extern "C" fn prune_trampoline(id: u64, data: *mut c_void) -> c_int {
    let state = &mut *data.cast::<Callback<PruneFn<'_>>>();
    if state.panic.is_some() {
        return 0;
    }
    let graph = Graph::lent(state.graph);
    match catch_unwind(AssertUnwindSafe(|| (state.f)(&graph, VertexId(id)))) {
        Ok(keep) => c_int::from(keep),
        Err(payload) => {
            state.panic = Some(Caught::new(payload));
            0
        }
    }
}

impl<'g> Builder<'g> {
    /// A builder working on `graph`.
    ///
    /// # Errors
    /// [`Status::NoMemory`](crate::Status::NoMemory).
    pub fn new(graph: &'g mut Graph) -> Result<Builder<'g>> {
        let mut out = ptr::null_mut();
        let mut err = ptr::null_mut();
        let raw_graph = graph.as_raw_mut();
        // SAFETY: a valid handle, borrowed mutably for the builder's life.
        unsafe {
            check(sys::dag_builder_new(raw_graph, &mut out, &mut err), err)?;
        }
        Ok(Builder {
            raw: NonNull::new(out).expect("dag_builder_new gave NULL"),
            graph: raw_graph,
            steps: Vec::new(),
            prunes: Vec::new(),
            _graph: std::marker::PhantomData,
        })
    }

    fn call<F>(&mut self, call: F) -> Result<()>
    where
        F: FnOnce(*mut sys::dag_builder, *mut *mut sys::dag_error) -> sys::dag_status,
    {
        let mut err = ptr::null_mut();
        let status = call(self.raw.as_ptr(), &mut err);
        // SAFETY: err comes straight from the call.
        unsafe { check(status, err) }
    }

    fn declare(
        &mut self,
        method: &str,
        vertex: VertexId,
        text: &str,
        f: unsafe extern "C" fn(
            *mut sys::dag_builder,
            u64,
            *const c_char,
            *mut *mut sys::dag_error,
        ) -> sys::dag_status,
    ) -> Result<()> {
        let text = c_string(method, "the address", text)?;
        // SAFETY: a valid builder and C string.
        self.call(|b, err| unsafe { f(b, vertex.get(), text.as_ptr(), err) })
    }

    /// Declares that `vertex` provides `address` (`aws_instance.web`):
    /// references to it, or under it, resolve to `vertex`.
    ///
    /// # Errors
    /// [`Status::UnknownVertex`](crate::Status::UnknownVertex), [`Status::InvalidArgument`](crate::Status::InvalidArgument) (empty or
    /// holding NUL), [`Status::BadUtf8`](crate::Status::BadUtf8).
    pub fn provide(&mut self, vertex: VertexId, address: &str) -> Result<()> {
        self.declare(
            "Builder::provide",
            vertex,
            address,
            sys::dag_builder_provide,
        )
    }

    /// Declares that `vertex` references `address`: the references step
    /// connects it to the vertices providing the longest provided prefix,
    /// cut before `.` and `[`; a prefix with a bracketed key is also tried
    /// without its keys, so `module.net[0].x` finds `module.net.x` before
    /// `module.net[0]`, as Terraform resolves it (`dag_builder_reference`).
    /// Errors as [`provide`](Builder::provide).
    pub fn reference(&mut self, vertex: VertexId, address: &str) -> Result<()> {
        self.declare(
            "Builder::reference",
            vertex,
            address,
            sys::dag_builder_reference,
        )
    }

    /// Declares that `vertex` needs the shared vertex `key` (a provider);
    /// see [`add_shared`](Builder::add_shared). Errors as
    /// [`provide`](Builder::provide).
    pub fn need(&mut self, vertex: VertexId, key: &str) -> Result<()> {
        self.declare("Builder::need", vertex, key, sys::dag_builder_need)
    }

    /// Sets the planned change of `vertex`.
    ///
    /// # Errors
    /// [`Status::UnknownVertex`](crate::Status::UnknownVertex).
    pub fn set_action(&mut self, vertex: VertexId, action: Action) -> Result<()> {
        // SAFETY: a valid builder.
        self.call(|b, err| unsafe {
            sys::dag_builder_set_action(b, vertex.get(), action.code(), err)
        })
    }

    /// Appends a step of your own, named `name`: it may read and change
    /// the graph through the [`StepGraph`] it gets; an `Err` stops the
    /// build with [`Status::Cancelled`](crate::Status::Cancelled) and its
    /// text, a panic stops it and is resumed from
    /// [`build`](Builder::build).
    ///
    /// # Errors
    /// [`Status::InvalidArgument`](crate::Status::InvalidArgument) (an empty name or one holding NUL).
    pub fn add_step<F>(&mut self, name: &str, step: F) -> Result<()>
    where
        F: FnMut(&mut StepGraph<'_>) -> std::result::Result<(), String> + 'g,
    {
        let name = c_string("Builder::add_step", "the name", name)?;
        let state: HeldByC<Callback<StepFn<'g>>> = HeldByC::new(Box::new(Callback {
            f: Box::new(step),
            graph: self.graph,
            message: CString::default(),
            panic: None,
        }));
        let data = state.as_ptr().cast::<c_void>();
        // SAFETY: the state lives in self.steps as long as the builder.
        self.call(|b, err| unsafe {
            sys::dag_builder_add_step(b, name.as_ptr(), Some(step_trampoline), data, err)
        })?;
        self.steps.push(state);
        Ok(())
    }

    /// Appends the step "references"; unresolved references fail the build
    /// ([`Status::NotFound`](crate::Status::NotFound), all listed) or, with `warn`, become warnings.
    ///
    /// # Errors
    /// [`Status::NoMemory`](crate::Status::NoMemory).
    pub fn add_references(&mut self, warn: bool) -> Result<()> {
        let flags: c_uint = if warn { sys::DAG_REFERENCES_WARN } else { 0 };
        // SAFETY: a valid builder.
        self.call(|b, err| unsafe { sys::dag_builder_add_references(b, flags, err) })
    }

    /// Appends the step "shared": each vertex needing KEY depends on the
    /// vertex providing KEY, else the one named KEY, else a new one; with
    /// `close`, `NAME (close)` depends on it and on every user.
    ///
    /// # Errors
    /// [`Status::NoMemory`](crate::Status::NoMemory).
    pub fn add_shared(&mut self, close: bool) -> Result<()> {
        let flags: c_uint = if close { sys::DAG_SHARED_CLOSE } else { 0 };
        // SAFETY: a valid builder.
        self.call(|b, err| unsafe { sys::dag_builder_add_shared(b, flags, err) })
    }

    /// Appends the step "root": a vertex named `name` (`None`: `root`)
    /// depending on every vertex nothing depends on.
    ///
    /// # Errors
    /// [`Status::InvalidArgument`](crate::Status::InvalidArgument) (an empty name or one holding NUL).
    pub fn add_root(&mut self, name: Option<&str>) -> Result<()> {
        let name = name
            .map(|n| c_string("Builder::add_root", "the name", n))
            .transpose()?;
        let p = name.as_ref().map_or(ptr::null(), |n| n.as_ptr());
        // SAFETY: a valid builder; NULL or a C string.
        self.call(|b, err| unsafe { sys::dag_builder_add_root(b, p, err) })
    }

    /// Appends the step "destroy order": the apply graph of the actions,
    /// with `NAME (destroy)` vertices (the rules are in `dag.h`).
    ///
    /// # Errors
    /// [`Status::NoMemory`](crate::Status::NoMemory).
    pub fn add_destroy_order(&mut self) -> Result<()> {
        // SAFETY: a valid builder.
        self.call(|b, err| unsafe { sys::dag_builder_add_destroy_order(b, err) })
    }

    /// Appends the step "transitive reduction".
    ///
    /// # Errors
    /// [`Status::NoMemory`](crate::Status::NoMemory).
    pub fn add_transitive_reduction(&mut self) -> Result<()> {
        // SAFETY: a valid builder.
        self.call(|b, err| unsafe { sys::dag_builder_add_transitive_reduction(b, err) })
    }

    /// Appends the step "prune": removes, again and again, the vertices
    /// nothing depends on for which `prunable(graph, id)` is true.
    ///
    /// The predicate returns no status to libdag: after a panic in it,
    /// nothing more is pruned (it is not called again), the steps after
    /// this one still run, and [`build`](Builder::build) resumes the panic
    /// once libdag has returned.
    ///
    /// # Errors
    /// [`Status::NoMemory`](crate::Status::NoMemory).
    pub fn add_prune<F>(&mut self, prunable: F) -> Result<()>
    where
        F: FnMut(&Graph, VertexId) -> bool + 'g,
    {
        let state: HeldByC<Callback<PruneFn<'g>>> = HeldByC::new(Box::new(Callback {
            f: Box::new(prunable),
            graph: self.graph,
            message: CString::default(),
            panic: None,
        }));
        let data = state.as_ptr().cast::<c_void>();
        // SAFETY: the state lives in self.prunes as long as the builder.
        self.call(|b, err| unsafe {
            sys::dag_builder_add_prune(b, Some(prune_trampoline), data, err)
        })?;
        self.prunes.push(state);
        Ok(())
    }

    /// Runs the steps in order, then validates (with the single-root rule
    /// when `single_root`) unless `validate` is false, and returns the
    /// warnings. A step's or predicate's panic is resumed here once libdag
    /// has returned.
    ///
    /// # Errors
    /// The failing step's error, its message naming the step
    /// ([`Status::NotFound`](crate::Status::NotFound) for unresolved references, [`Status::Cycle`](crate::Status::Cycle),
    /// [`Status::Cancelled`](crate::Status::Cancelled) for a step of yours that returned `Err`), or the
    /// validation's ([`Status::Cycle`](crate::Status::Cycle), [`Status::NoRoot`](crate::Status::NoRoot),
    /// [`Status::MultipleRoots`](crate::Status::MultipleRoots)).
    pub fn build(&mut self, validate: bool, single_root: bool) -> Result<Vec<String>> {
        self.run(validate, single_root, None)
            .unwrap_or_else(|caught| resume_unwind(caught.payload))
    }

    /// [`build`](Builder::build), calling `observer` after each step that
    /// succeeded, on this thread, with the step's name, position, duration
    /// and counts before and after, and the graph to read (Terraform's
    /// trace log of its graph builder). A panic in the observer is resumed
    /// from here once libdag has returned; libdag cannot be stopped from an
    /// observer, so the steps after it still run and it is not called again.
    ///
    /// # Errors
    /// As [`build`](Builder::build).
    pub fn build_observed<F>(
        &mut self,
        validate: bool,
        single_root: bool,
        mut observer: F,
    ) -> Result<Vec<String>>
    where
        F: FnMut(&BuildStep<'_>),
    {
        let mut state = Observer {
            f: &mut observer,
            panic: None,
        };
        let built = self.run(validate, single_root, Some(&mut state));
        match (state.panic.take(), built) {
            (Some(observer), Err(step)) => resume_unwind(step.first(Some(observer)).payload),
            (Some(caught), Ok(_)) | (None, Err(caught)) => resume_unwind(caught.payload),
            (None, Ok(built)) => built,
        }
    }

    /// Runs the build; `Err` is the payload of a step's or predicate's
    /// panic, for the caller to resume.
    fn run(
        &mut self,
        validate: bool,
        single_root: bool,
        observer: Option<&mut Observer<'_>>,
    ) -> std::result::Result<Result<Vec<String>>, Caught> {
        let mut opts = sys::dag_build_options {
            size: 0,
            validate: 0,
            single_root: 0,
            observer: None,
            observer_data: ptr::null_mut(),
        };
        let size = std::mem::size_of::<sys::dag_build_options>();
        // SAFETY: a struct of that size.
        if let Err(e) =
            self.call(|_, err| unsafe { sys::dag_build_options_init(&mut opts, size, err) })
        {
            return Ok(Err(e));
        }
        opts.validate = c_int::from(validate);
        opts.single_root = c_int::from(single_root);
        if let Some(state) = observer {
            opts.observer = Some(observer_trampoline);
            opts.observer_data = (state as *mut Observer<'_>).cast::<c_void>();
        }
        // SAFETY: a valid builder and options.
        let built = self.call(|b, err| unsafe { sys::dag_build(b, &opts, err) });
        // Every panic is taken, so that none is left to stop a later build:
        // a callback that has panicked is not called again while it holds one.
        // SAFETY: libdag has returned and keeps no reference to the states.
        let caught = unsafe {
            let steps = self.steps.iter().map(|s| (*s.as_ptr()).panic.take());
            let prunes = self.prunes.iter().map(|s| (*s.as_ptr()).panic.take());
            steps
                .chain(prunes)
                .flatten()
                .fold(None, |first: Option<Caught>, next| Some(next.first(first)))
        };
        if let Some(caught) = caught {
            return Err(caught);
        }
        Ok(built.and_then(|_| self.warnings()))
    }

    /// The last build's warnings.
    ///
    /// # Errors
    /// [`Status::NoMemory`](crate::Status::NoMemory).
    pub fn warnings(&self) -> Result<Vec<String>> {
        let b = self.raw.as_ptr();
        // SAFETY: a valid builder.
        let text = call_string(|out, err| unsafe { sys::dag_builder_warnings(b, out, err) })?;
        Ok(if text.is_empty() {
            Vec::new()
        } else {
            text.split('\n').map(str::to_owned).collect()
        })
    }
}

impl Drop for Builder<'_> {
    fn drop(&mut self) {
        // SAFETY: ours, freed once; the callbacks' states outlive it.
        unsafe { sys::dag_builder_free(self.raw.as_ptr()) }
    }
}

impl std::fmt::Debug for Builder<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Builder")
            .field("steps", &self.steps.len())
            .field("prunes", &self.prunes.len())
            .finish()
    }
}
