//! What the binding adds to a walk: empty-callback walks of 10^5 vertices,
//! a chain and a fan-out, through the C API directly (an empty
//! `extern "C"` callback passed to `dag_walk`, as a C program does) and
//! through each kind of walk of the safe crate, in one run, alternating so
//! that machine noise hits every row alike.
//!
//!     cargo run --release --example walk_cost [ROUNDS [PARALLELISM,... [callbacks]]]
//!
//! PARALLELISM defaults to 1,2,10; `callbacks` leaves out the pull rows.
//!
//! Prints the median and the best of ROUNDS runs (default 11) per row, in
//! ns per vertex, each with its ratio to the `dag_walk` row's of the same
//! shape and parallelism. The pull rows run on the calling thread, taking
//! one vertex at a time through the C API and through `Walker::ready`, then
//! up to 64 at a time through `Walker::next_ready_many`.

use std::convert::Infallible;
use std::os::raw::{c_char, c_void};
use std::ptr;
use std::time::Instant;

use libdag::{sys, Graph, VertexId, WalkOptions};

const VERTICES: usize = 100_000;

/// `a -> b` when a depends on b: each vertex on the one before.
fn chain() -> Graph {
    let mut g = Graph::new().unwrap();
    let ids: Vec<VertexId> = (0..VERTICES).map(|_| g.add_vertex(None).unwrap()).collect();
    let pairs: Vec<(VertexId, VertexId)> = ids.windows(2).map(|w| (w[1], w[0])).collect();
    g.connect_many(&pairs).unwrap();
    g
}

/// One vertex everything else depends on: all of them ready at once.
fn fan_out() -> Graph {
    let mut g = Graph::new().unwrap();
    let root = g.add_vertex(None).unwrap();
    let pairs: Vec<(VertexId, VertexId)> = (1..VERTICES)
        .map(|_| (g.add_vertex(None).unwrap(), root))
        .collect();
    g.connect_many(&pairs).unwrap();
    g
}

unsafe extern "C" fn empty(
    _walk: *mut sys::dag_walker,
    _vertex: u64,
    _message: *mut *const c_char,
    _user_data: *mut c_void,
) -> sys::dag_walk_result {
    sys::DAG_WALK_OK
}

/// `dag_walk` with the empty C callback, report made and freed.
fn c_walk(g: &mut Graph, parallelism: usize) {
    let mut opts = std::mem::MaybeUninit::<sys::dag_walk_options>::uninit();
    // SAFETY: a valid handle the borrow makes exclusive; the options are
    // initialised by libdag before use; the report is freed.
    unsafe {
        let size = std::mem::size_of::<sys::dag_walk_options>();
        assert_eq!(
            sys::dag_walk_options_init(opts.as_mut_ptr(), size, ptr::null_mut()),
            0
        );
        let mut opts = opts.assume_init();
        opts.parallelism = parallelism;
        let mut report = ptr::null_mut();
        let status = sys::dag_walk(
            g.as_raw_mut(),
            Some(empty),
            ptr::null_mut(),
            &opts,
            &mut report,
            ptr::null_mut(),
        );
        assert_eq!(status, 0);
        sys::dag_walk_report_free(report);
    }
}

/// Pull mode through the C API: one vertex taken and completed at a time.
fn c_pull(g: &mut Graph, parallelism: usize) {
    let mut opts = std::mem::MaybeUninit::<sys::dag_walk_options>::uninit();
    // SAFETY: as in `c_walk`; the walk is freed.
    unsafe {
        let size = std::mem::size_of::<sys::dag_walk_options>();
        assert_eq!(
            sys::dag_walk_options_init(opts.as_mut_ptr(), size, ptr::null_mut()),
            0
        );
        let mut opts = opts.assume_init();
        opts.parallelism = parallelism;
        let mut walk = ptr::null_mut();
        assert_eq!(
            sys::dag_walk_begin(g.as_raw_mut(), &opts, &mut walk, ptr::null_mut()),
            0
        );
        loop {
            let (mut vertex, mut sub, mut count) = (0u64, ptr::null_mut(), 0usize);
            let status = sys::dag_walk_next_ready(
                walk,
                &mut vertex,
                &mut sub,
                1,
                -1,
                &mut count,
                ptr::null_mut(),
            );
            assert_eq!(status, 0);
            if count == 0 {
                break;
            }
            let status =
                sys::dag_walk_complete(sub, vertex, sys::DAG_WALK_OK, ptr::null(), ptr::null_mut());
            assert_eq!(status, 0);
        }
        let mut report = ptr::null_mut();
        assert_eq!(sys::dag_walk_wait(walk, &mut report, ptr::null_mut()), 0);
        sys::dag_walk_report_free(report);
        sys::dag_walk_free(walk);
    }
}

fn rust_walk(g: &Graph, parallelism: usize) {
    let options = WalkOptions::new().parallelism(parallelism);
    let report = g.walk(&options, |_| Ok::<(), Infallible>(())).unwrap();
    assert!(report.ok());
}

fn rust_start_walk(g: &Graph, parallelism: usize) {
    let options = WalkOptions::new().parallelism(parallelism);
    let walker = g
        .start_walk(&options, |_| Ok::<(), Infallible>(()))
        .unwrap();
    assert!(walker.wait().unwrap().ok());
}

/// Pull mode with the calling thread as the whole pool.
fn rust_pull(g: &Graph, parallelism: usize) {
    let walker = g
        .begin_walk(&WalkOptions::new().parallelism(parallelism))
        .unwrap();
    for pending in walker.ready() {
        pending.unwrap().succeed().unwrap();
    }
    assert!(walker.wait().unwrap().ok());
}

/// The median and the best of the samples.
/// Pull mode taking up to 64 vertices per call.
fn rust_pull_many(g: &Graph, parallelism: usize) {
    let walker = g
        .begin_walk(&WalkOptions::new().parallelism(parallelism))
        .unwrap();
    loop {
        let batch = walker.next_ready_many(64, None).unwrap();
        if batch.is_empty() {
            break;
        }
        for pending in batch {
            pending.succeed().unwrap();
        }
    }
    assert!(walker.wait().unwrap().ok());
}

fn median_and_best(mut samples: Vec<f64>) -> (f64, f64) {
    samples.sort_by(|a, b| a.partial_cmp(b).unwrap());
    (samples[samples.len() / 2], samples[0])
}

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let rounds: usize = args
        .first()
        .map(|r| r.parse().expect("ROUNDS: a number"))
        .unwrap_or(11);
    let parallelisms: Vec<usize> = match args.get(1) {
        Some(list) => list
            .split(',')
            .map(|p| p.parse().expect("PARALLELISM: numbers, comma-separated"))
            .collect(),
        None => vec![1, 2, 10],
    };
    let callbacks_only = match args.get(2).map(String::as_str) {
        None => false,
        Some("callbacks") => true,
        Some(other) => panic!("unknown argument {:?} (only \"callbacks\")", other),
    };
    let rows = [
        "C dag_walk",
        "Graph::walk",
        "start_walk + wait",
        "C pull (1 thread)",
        "pull (1 thread)",
        "pull, 64 at a time",
    ];
    let rows = if callbacks_only {
        &rows[..3]
    } else {
        &rows[..]
    };
    println!(
        "{} vertices, {} runs, ns per vertex: median (ratio to dag_walk's), best (ratio)",
        VERTICES, rounds
    );
    for (shape, mut g) in [("chain", chain()), ("fan-out", fan_out())] {
        for &parallelism in &parallelisms {
            let mut samples = vec![Vec::new(); rows.len()];
            for _ in 0..rounds {
                for (row, times) in samples.iter_mut().enumerate() {
                    let start = Instant::now();
                    match row {
                        0 => c_walk(&mut g, parallelism),
                        1 => rust_walk(&g, parallelism),
                        2 => rust_start_walk(&g, parallelism),
                        3 => c_pull(&mut g, parallelism),
                        4 => rust_pull(&g, parallelism),
                        _ => rust_pull_many(&g, parallelism),
                    }
                    times.push(start.elapsed().as_nanos() as f64 / VERTICES as f64);
                }
            }
            let (c, c_best) = median_and_best(samples[0].clone());
            for (row, times) in rows.iter().zip(samples) {
                let (ns, best) = median_and_best(times);
                println!(
                    "{:<8} parallelism {:>2}  {:<18} {:>8.1} ({:.2}x) {:>8.1} ({:.2}x)",
                    shape,
                    parallelism,
                    row,
                    ns,
                    ns / c,
                    best,
                    best / c_best
                );
            }
        }
    }
}
