//! Failures libdag documents but a test cannot provoke: out of memory in
//! `dag_walk_complete`, `dag_walk_fail` and `dag_walk_next_ready`, an error
//! of `dag_walk_report_read`. This test program defines those functions
//! itself, and the binding, linked into it, calls these definitions rather
//! than libdag's (an executable's own symbols come first). Each one fails
//! once where a test asked it to on the calling thread (`dag_walk_next_ready`:
//! on a walker's futures' thread, which no test runs code on), and otherwise
//! calls libdag's, found with `dlsym(RTLD_NEXT)`. Being a program of its own,
//! it changes nothing for the other tests.

use std::cell::Cell;
use std::fmt;
use std::future::Future;
use std::os::raw::{c_char, c_int, c_void};
use std::panic::{self, AssertUnwindSafe};
use std::pin::Pin;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{mpsc, Arc, Mutex, MutexGuard, PoisonError};
use std::task::{Context, Poll, Wake, Waker};
use std::thread::{self, LocalKey};
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

/// Makes the next `dag_walk_next_ready` call on a walker's futures' thread
/// (named so by the binding) fail: that thread is the binding's, not a
/// test's, so a thread-local flag cannot reach it.
static FAIL_FUTURES_THREAD: AtomicBool = AtomicBool::new(false);

/// Held by each test that sets [`FAIL_FUTURES_THREAD`]: the flag is the
/// whole program's, and another test's futures' thread could take the
/// failure meant for this one's.
static FUTURES_THREAD_FAULTS: Mutex<()> = Mutex::new(());

/// Holds [`FUTURES_THREAD_FAULTS`], whatever a test that failed left.
fn futures_thread_faults() -> MutexGuard<'static, ()> {
    FUTURES_THREAD_FAULTS
        .lock()
        .unwrap_or_else(PoisonError::into_inner)
}

const FUTURES_THREAD: &str = "libdag-walk-ready";

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

type NextReadyFn = unsafe extern "C" fn(
    *mut sys::dag_walker,
    *mut u64,
    *mut *mut sys::dag_walker,
    usize,
    c_int,
    *mut usize,
    *mut *mut sys::dag_error,
) -> sys::dag_status;

/// libdag's `dag_walk_next_ready`, failing once where
/// [`FAIL_FUTURES_THREAD`] asked.
///
/// # Safety
/// As libdag's.
#[no_mangle]
pub unsafe extern "C" fn dag_walk_next_ready(
    walk: *mut sys::dag_walker,
    vertices: *mut u64,
    walks: *mut *mut sys::dag_walker,
    capacity: usize,
    timeout_ms: c_int,
    out_count: *mut usize,
    err: *mut *mut sys::dag_error,
) -> sys::dag_status {
    if thread::current().name() == Some(FUTURES_THREAD)
        && FAIL_FUTURES_THREAD.swap(false, Ordering::SeqCst)
    {
        no_error_object(err);
        *out_count = 0;
        return sys::DAG_E_NOMEM;
    }
    let real: NextReadyFn = std::mem::transmute(libdags(b"dag_walk_next_ready\0"));
    real(walk, vertices, walks, capacity, timeout_ms, out_count, err)
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

/// A waker that sends on a channel each time it is woken.
struct Sends(Mutex<mpsc::Sender<()>>);

impl Wake for Sends {
    fn wake(self: Arc<Self>) {
        let _ = self.0.lock().unwrap().send(());
    }
}

/// A waker, and the channel that hears its wakes.
fn waker() -> (Waker, mpsc::Receiver<()>) {
    let (send, receive) = mpsc::channel();
    (Waker::from(Arc::new(Sends(Mutex::new(send)))), receive)
}

fn poll<F: Future + Unpin>(future: &mut F, waker: &Waker) -> Poll<F::Output> {
    Pin::new(future).poll(&mut Context::from_waker(waker))
}

#[test]
fn an_error_of_the_futures_thread_goes_only_to_a_future_that_waited_then() {
    // The thread kept its failure for whichever future was polled next: a
    // future begun after the one it failed for was dropped had it at once,
    // although its own call would have gone well, and a pull loop ended.
    let _faults = futures_thread_faults();
    let mut g = Graph::new().unwrap();
    let a = g.add_vertex(Some("a")).unwrap();
    let b = g.add_vertex(Some("b")).unwrap();
    g.connect(b, a).unwrap();
    let walker = g.begin_walk(&WalkOptions::new()).unwrap();
    let first = walker.next_ready(None).unwrap().unwrap();
    assert_eq!(first.id(), a);

    // The future the thread was waiting for has the error.
    FAIL_FUTURES_THREAD.store(true, Ordering::SeqCst);
    let (waker_of_waiting, woken) = waker();
    let mut waiting = walker.next_ready_async();
    assert!(poll(&mut waiting, &waker_of_waiting).is_pending());
    woken.recv_timeout(WAIT).expect("not woken for the failure");
    match poll(&mut waiting, &waker_of_waiting) {
        Poll::Ready(Err(e)) => assert_eq!(e.status(), Status::NoMemory),
        other => panic!("the waiting future did not have the failure: {:?}", other),
    }
    drop(waiting);

    // One dropped before it had it takes it away.
    FAIL_FUTURES_THREAD.store(true, Ordering::SeqCst);
    let (waker_of_dropped, woken) = waker();
    let mut dropped = walker.next_ready_async();
    assert!(poll(&mut dropped, &waker_of_dropped).is_pending());
    woken.recv_timeout(WAIT).expect("not woken for the failure");
    assert!(!FAIL_FUTURES_THREAD.load(Ordering::SeqCst));
    drop(dropped);
    let (waker_of_later, woken) = waker();
    let mut later = walker.next_ready_async();
    match poll(&mut later, &waker_of_later) {
        Poll::Pending => {}
        other => panic!("a later future had a dropped one's failure: {:?}", other),
    }
    first.succeed().unwrap();
    woken.recv_timeout(WAIT).expect("not woken for b");
    match poll(&mut later, &waker_of_later) {
        Poll::Ready(Ok(Some(pending))) => {
            assert_eq!(pending.id(), b);
            pending.succeed().unwrap();
        }
        other => panic!("woken, but b was not there: {:?}", other),
    }
    drop(later);
    assert!(walker.wait().unwrap().ok());
}

#[test]
fn an_error_of_the_futures_thread_is_not_had_once_a_later_call_of_it_went_well() {
    // The failure waited for the first polled of the futures it was for,
    // however long that poll came after: a future woken for it, polled once
    // another future had waited and the thread's next call had handed out a
    // vertex, had the error, and at the walk's end the error, not its end.
    let _faults = futures_thread_faults();
    let mut g = Graph::new().unwrap();
    let a = g.add_vertex(Some("a")).unwrap();
    let b = g.add_vertex(Some("b")).unwrap();
    g.connect(b, a).unwrap();
    let walker = g.begin_walk(&WalkOptions::new()).unwrap();
    let first = walker.next_ready(None).unwrap().unwrap();
    assert_eq!(first.id(), a);

    // Woken for the failure, and not polled yet (a busy executor).
    FAIL_FUTURES_THREAD.store(true, Ordering::SeqCst);
    let (waker_of_slow, woken_slow) = waker();
    let mut slow = walker.next_ready_async();
    assert!(poll(&mut slow, &waker_of_slow).is_pending());
    woken_slow
        .recv_timeout(WAIT)
        .expect("not woken for the failure");
    assert!(!FAIL_FUTURES_THREAD.load(Ordering::SeqCst));

    // Another future waits, and the thread's next call takes b for it.
    let (waker_of_other, woken_other) = waker();
    let mut other = walker.next_ready_async();
    assert!(poll(&mut other, &waker_of_other).is_pending());
    first.succeed().unwrap();
    woken_other.recv_timeout(WAIT).expect("not woken for b");
    let second = match poll(&mut other, &waker_of_other) {
        Poll::Ready(Ok(Some(pending))) => pending,
        other => panic!("woken, but b was not there: {:?}", other),
    };
    assert_eq!(second.id(), b);
    drop(other);

    // The thread has recovered: the slow future waits on, as any other.
    match poll(&mut slow, &waker_of_slow) {
        Poll::Pending => {}
        other => panic!("a failure the thread has recovered from: {:?}", other),
    }
    second.succeed().unwrap();
    woken_slow
        .recv_timeout(WAIT)
        .expect("not woken for the walk's end");
    match poll(&mut slow, &waker_of_slow) {
        Poll::Ready(Ok(None)) => {}
        other => panic!("the walk has ended, but: {:?}", other),
    }
    drop(slow);
    assert!(walker.wait().unwrap().ok());
}
