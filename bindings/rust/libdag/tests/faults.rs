//! Failures libdag documents but a test cannot provoke: out of memory in
//! `dag_walk_complete` and `dag_walk_fail`, an error of
//! `dag_walk_report_read`. This test program defines those functions
//! itself, and the binding, linked into it, calls these definitions rather
//! than libdag's (an executable's own symbols come first). Each one fails
//! once where a test asked it to on the calling thread, and otherwise calls
//! libdag's, found with `dlsym(RTLD_NEXT)`. Being a program of its own, it
//! changes nothing for the other tests.

use std::cell::Cell;
use std::fmt;
use std::os::raw::{c_char, c_void};
use std::panic::{self, AssertUnwindSafe};
use std::thread::LocalKey;
use std::time::Duration;

use libdag::sys;
use libdag::{Graph, Status, VertexStatus, WalkOptions};

extern "C" {
    fn dlsym(handle: *mut c_void, symbol: *const c_char) -> *mut c_void;
}

/// glibc's `RTLD_NEXT`: the next object in the search order, libdag here.
const RTLD_NEXT: *mut c_void = -1isize as *mut c_void;

// The allows: clippy 0.1.63 (Debian 12's) takes the `const` that
// thread_local!'s `const { ... }` form expands to for an interior mutable
// const of this file's; newer clippy knows it is the macro's.
thread_local! {
    #[allow(clippy::declare_interior_mutable_const)]
    static FAIL_COMPLETE: Cell<bool> = const { Cell::new(false) };
    #[allow(clippy::declare_interior_mutable_const)]
    static FAIL_FAIL: Cell<bool> = const { Cell::new(false) };
    #[allow(clippy::declare_interior_mutable_const)]
    static FAIL_REPORT_READ: Cell<bool> = const { Cell::new(false) };
}

/// Makes the next call of that function on this thread fail.
fn fail_next(which: &'static LocalKey<Cell<bool>>) {
    which.with(|fail| fail.set(true));
}

fn failing_now(which: &'static LocalKey<Cell<bool>>) -> bool {
    which.with(|fail| fail.replace(false))
}

/// libdag's own definition of `name` (NUL-terminated).
unsafe fn libdags(name: &[u8]) -> *mut c_void {
    let found = dlsym(RTLD_NEXT, name.as_ptr().cast());
    assert!(
        !found.is_null(),
        "dlsym found no {:?}",
        String::from_utf8_lossy(name)
    );
    found
}

type CompleteFn = unsafe extern "C" fn(
    *mut sys::dag_walker,
    u64,
    sys::dag_walk_result,
    *const c_char,
    *mut *mut sys::dag_error,
) -> sys::dag_status;
type FailFn = unsafe extern "C" fn(
    *mut sys::dag_walker,
    u64,
    *const c_char,
    *mut *mut sys::dag_error,
) -> sys::dag_status;
type ReportReadFn = unsafe extern "C" fn(
    *const sys::dag_walk_report,
    usize,
    *mut sys::dag_vertex_outcome,
    usize,
    usize,
    *mut usize,
    *mut *mut sys::dag_error,
) -> sys::dag_status;

/// Sets `*err` as libdag does where it cannot allocate an error object:
/// NULL here, which the binding takes as an error without a message.
unsafe fn no_error_object(err: *mut *mut sys::dag_error) {
    if !err.is_null() {
        *err = std::ptr::null_mut();
    }
}

/// libdag's `dag_walk_complete`, failing once where [`fail_next`] asked.
///
/// # Safety
/// As libdag's.
#[no_mangle]
pub unsafe extern "C" fn dag_walk_complete(
    walk: *mut sys::dag_walker,
    vertex: u64,
    result: sys::dag_walk_result,
    message: *const c_char,
    err: *mut *mut sys::dag_error,
) -> sys::dag_status {
    if failing_now(&FAIL_COMPLETE) {
        no_error_object(err);
        return sys::DAG_E_NOMEM;
    }
    let real: CompleteFn = std::mem::transmute(libdags(b"dag_walk_complete\0"));
    real(walk, vertex, result, message, err)
}

/// libdag's `dag_walk_fail`, failing once where [`fail_next`] asked.
///
/// # Safety
/// As libdag's.
#[no_mangle]
pub unsafe extern "C" fn dag_walk_fail(
    walk: *mut sys::dag_walker,
    vertex: u64,
    message: *const c_char,
    err: *mut *mut sys::dag_error,
) -> sys::dag_status {
    if failing_now(&FAIL_FAIL) {
        no_error_object(err);
        return sys::DAG_E_NOMEM;
    }
    let real: FailFn = std::mem::transmute(libdags(b"dag_walk_fail\0"));
    real(walk, vertex, message, err)
}

/// libdag's `dag_walk_report_read`, failing once where [`fail_next`] asked.
///
/// # Safety
/// As libdag's.
#[no_mangle]
pub unsafe extern "C" fn dag_walk_report_read(
    report: *const sys::dag_walk_report,
    first: usize,
    out: *mut sys::dag_vertex_outcome,
    count: usize,
    outcome_size: usize,
    out_written: *mut usize,
    err: *mut *mut sys::dag_error,
) -> sys::dag_status {
    if failing_now(&FAIL_REPORT_READ) {
        no_error_object(err);
        *out_written = 0;
        return sys::DAG_E_INVALID_ARGUMENT;
    }
    let real: ReportReadFn = std::mem::transmute(libdags(b"dag_walk_report_read\0"));
    real(report, first, out, count, outcome_size, out_written, err)
}

/// Bounds a wait that hangs where the code is wrong: long enough never to fail by chance.
const WAIT: Duration = Duration::from_secs(30);

#[derive(Debug)]
struct DiskFull;

impl fmt::Display for DiskFull {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("disk full")
    }
}

impl std::error::Error for DiskFull {}

#[test]
fn a_completion_libdag_has_no_memory_for_fails_the_vertex_rather_than_hang() {
    // Marked done before libdag answered, the Pending did nothing as it
    // dropped: the vertex was never completed and the walk never ended.
    let mut g = Graph::new().unwrap();
    let a = g.add_vertex(Some("a")).unwrap();
    let walker = g.begin_walk(&WalkOptions::new()).unwrap();
    let pending = walker.next_ready(None).unwrap().unwrap();
    fail_next(&FAIL_COMPLETE);
    assert_eq!(pending.succeed().unwrap_err().status(), Status::NoMemory);
    let report = walker
        .wait_timeout(WAIT)
        .unwrap()
        .expect("the walk never ended");
    let a = report.vertex(a).unwrap();
    assert_eq!(a.status(), VertexStatus::Failed);
    assert_eq!(a.message(), "dropped without being completed");
}

#[test]
fn a_callback_failure_libdag_cannot_take_at_once_is_returned_with_its_message() {
    // Out of memory in dag_walk_fail changes nothing: the failure the
    // callback returns then stands, and must carry its message.
    let mut g = Graph::new().unwrap();
    let a = g.add_vertex(Some("a")).unwrap();
    let report = g
        .walk(&WalkOptions::new(), |_| {
            fail_next(&FAIL_FAIL);
            Err(DiskFull)
        })
        .unwrap();
    let vertex = report.vertex(a).unwrap();
    assert_eq!(vertex.status(), VertexStatus::Failed);
    assert_eq!(vertex.message(), "disk full");
    assert!(report.source(a).unwrap().is::<DiskFull>());
}

#[test]
fn a_report_libdag_fails_to_read_panics_rather_than_end_short() {
    // The iterator, an ExactSizeIterator, stopped at the error as if the
    // report had no more vertices.
    let mut g = Graph::new().unwrap();
    g.add_vertices(&[None, None, None]).unwrap();
    let report = g
        .walk(&WalkOptions::new(), |_| Ok::<(), DiskFull>(()))
        .unwrap();
    assert_eq!(report.vertices().len(), 3);
    fail_next(&FAIL_REPORT_READ);
    let read = panic::catch_unwind(AssertUnwindSafe(|| report.vertices().count()));
    let payload = read.expect_err("the iterator ended short of its length");
    let message = payload.downcast_ref::<String>().unwrap();
    assert!(
        message.starts_with("WalkReport::vertices: reading entry 0 of 3: "),
        "{}",
        message
    );
    assert_eq!(report.vertices().count(), 3);
}
