//! How much a call allocates at once, measured by this test program's own
//! global allocator (the system's, noting the largest block asked for on
//! the thread measuring). Being a program of its own, it changes nothing
//! for the other tests.

use std::alloc::{GlobalAlloc, Layout, System};
use std::cell::Cell;
use std::future::Future;
use std::pin::Pin;
use std::sync::Arc;
use std::task::{Context, Poll, Wake, Waker};
use std::time::Duration;

use libdag::{Graph, VertexId, WalkOptions};

struct Measuring;

// The allow: as in faults.rs, clippy 0.1.63 takes thread_local!'s `const`
// for one of this file's.
thread_local! {
    /// The largest block asked for on this thread while measuring.
    #[allow(clippy::declare_interior_mutable_const)]
    static LARGEST: Cell<Option<usize>> = const { Cell::new(None) };
}

fn note(size: usize) {
    // try_with: allocations go on while a thread's locals are torn down.
    let _ = LARGEST.try_with(|largest| {
        if let Some(seen) = largest.get() {
            largest.set(Some(seen.max(size)));
        }
    });
}

unsafe impl GlobalAlloc for Measuring {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        note(layout.size());
        System.alloc(layout)
    }

    unsafe fn alloc_zeroed(&self, layout: Layout) -> *mut u8 {
        note(layout.size());
        System.alloc_zeroed(layout)
    }

    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        note(new_size);
        System.realloc(ptr, layout, new_size)
    }

    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        System.dealloc(ptr, layout)
    }
}

#[global_allocator]
static ALLOCATOR: Measuring = Measuring;

/// What `f` returns, and the largest block it asked for on this thread.
fn largest_allocation<T>(f: impl FnOnce() -> T) -> (T, usize) {
    LARGEST.with(|largest| largest.set(Some(0)));
    let out = f();
    let largest = LARGEST.with(|largest| largest.take()).unwrap();
    (out, largest)
}

struct Nothing;

impl Wake for Nothing {
    fn wake(self: Arc<Self>) {}
}

/// Room for a few hundred vertex ids: more than one ready vertex needs,
/// far less than the 65,536 a call may take.
const SMALL: usize = 16 * 1024;

/// `n` vertices that depend on nothing, walked with room for all at once.
fn independent(n: usize) -> (Graph, Vec<VertexId>) {
    let mut g = Graph::new().unwrap();
    let ids = (0..n).map(|_| g.add_vertex(None).unwrap()).collect();
    (g, ids)
}

#[test]
fn taking_all_that_is_ready_allocates_for_what_is_ready() {
    // Room for 65,536 vertices (512 KiB of ids and as much of walk handles)
    // was allocated for each call, whatever was ready: on every poll of
    // next_ready_many_async(usize::MAX).
    let (g, ids) = independent(1);
    let walker = g.begin_walk(&WalkOptions::new()).unwrap();
    let waker = Waker::from(Arc::new(Nothing));
    let mut future = walker.next_ready_many_async(usize::MAX);
    let (polled, largest) =
        largest_allocation(|| Pin::new(&mut future).poll(&mut Context::from_waker(&waker)));
    assert!(largest <= SMALL, "{} bytes at once for one vertex", largest);
    let taken = match polled {
        Poll::Ready(taken) => taken.unwrap(),
        Poll::Pending => panic!("the ready vertex was not taken"),
    };
    assert_eq!(taken.iter().map(|p| p.id()).collect::<Vec<_>>(), ids);
    for pending in taken {
        pending.succeed().unwrap();
    }
    drop(future);

    let (g, _) = independent(1);
    let walker = g.begin_walk(&WalkOptions::new()).unwrap();
    let (taken, largest) =
        largest_allocation(|| walker.next_ready_many(usize::MAX, Some(Duration::ZERO)));
    assert!(largest <= SMALL, "{} bytes at once for one vertex", largest);
    assert_eq!(taken.unwrap().len(), 1);
}

#[test]
fn taking_all_that_is_ready_takes_more_than_the_first_room_holds() {
    // Several calls into libdag, the room growing as it fills: all that is
    // ready comes in one batch.
    const N: usize = 3000;
    let (g, ids) = independent(N);
    let walker = g.begin_walk(&WalkOptions::new().parallelism(N)).unwrap();
    let taken = walker
        .next_ready_many(usize::MAX, Some(Duration::ZERO))
        .unwrap();
    assert_eq!(taken.len(), N);
    let mut got: Vec<VertexId> = taken.iter().map(|p| p.id()).collect();
    got.sort();
    assert!(got == ids, "a vertex twice, or one not ready");
    for pending in taken {
        pending.succeed().unwrap();
    }
    assert!(walker.wait().unwrap().ok());
}
