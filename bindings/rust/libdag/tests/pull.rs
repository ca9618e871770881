//! Pull-mode walks (`Graph::begin_walk`): vertices handed to the host's own
//! threads through `Walker::ready`, completed from any thread.

use std::collections::HashSet;
use std::error::Error as _;
use std::sync::mpsc;
use std::sync::{Arc, Mutex};
use std::thread;
use std::time::Duration;

use libdag::{EventKind, Graph, Pending, Status, VertexId, VertexStatus, WalkOptions};

/// `layers` layers of `width` vertices, each depending on every vertex of
/// the layer below.
fn layered(layers: usize, width: usize) -> (Graph, Vec<Vec<VertexId>>) {
    let mut g = Graph::new().unwrap();
    let ids: Vec<Vec<VertexId>> = (0..layers)
        .map(|_| (0..width).map(|_| g.add_vertex(None).unwrap()).collect())
        .collect();
    for pair in ids.windows(2) {
        for &upper in &pair[1] {
            for &lower in &pair[0] {
                g.connect(upper, lower).unwrap();
            }
        }
    }
    (g, ids)
}

#[test]
fn a_host_thread_pool_runs_every_vertex_after_its_dependencies() {
    let (g, layers) = layered(4, 5);
    let walker = g.begin_walk(&WalkOptions::new().parallelism(3)).unwrap();
    let finished = Arc::new(Mutex::new(HashSet::new()));
    let (send, receive) = mpsc::channel::<Pending>();
    let receive = Arc::new(Mutex::new(receive));
    let pool: Vec<_> = (0..4)
        .map(|_| {
            let receive = receive.clone();
            let finished = finished.clone();
            thread::spawn(move || loop {
                let next = receive.lock().unwrap().recv();
                match next {
                    Ok(pending) => {
                        finished.lock().unwrap().insert(pending.id());
                        pending.succeed().unwrap();
                    }
                    Err(_) => return,
                }
            })
        })
        .collect();
    let mut handed_out = Vec::new();
    for pending in walker.ready() {
        let pending = pending.unwrap();
        let layer = layers
            .iter()
            .position(|l| l.contains(&pending.id()))
            .unwrap();
        if layer > 0 {
            let done = finished.lock().unwrap();
            assert!(
                layers[layer - 1].iter().all(|v| done.contains(v)),
                "{} handed out before its dependencies finished",
                pending.id()
            );
        }
        handed_out.push(pending.id());
        send.send(pending).unwrap();
    }
    drop(send);
    for worker in pool {
        worker.join().unwrap();
    }
    assert_eq!(handed_out.len(), 20);
    let report = walker.wait().unwrap();
    assert!(report.ok());
    assert_eq!(report.count(VertexStatus::Ok), 20);
}

#[test]
fn several_threads_take_ready_vertices_at_once() {
    let (g, _) = layered(3, 8);
    let walker = g.begin_walk(&WalkOptions::new().parallelism(4)).unwrap();
    let taken: Vec<VertexId> = thread::scope(|s| {
        // collect(): all three take vertices at once, each joined only once
        // all are spawned (clippy 0.1.63's needless_collect would join each
        // before spawning the next).
        #[allow(clippy::needless_collect)]
        let takers: Vec<_> = (0..3)
            .map(|_| {
                s.spawn(|| {
                    let mut mine = Vec::new();
                    for pending in walker.ready() {
                        let pending = pending.unwrap();
                        mine.push(pending.id());
                        pending.succeed().unwrap();
                    }
                    mine
                })
            })
            .collect();
        takers.into_iter().flat_map(|t| t.join().unwrap()).collect()
    });
    let unique: HashSet<_> = taken.iter().collect();
    assert_eq!((taken.len(), unique.len()), (24, 24));
    assert!(walker.wait().unwrap().ok());
}

#[test]
fn a_failure_in_pull_mode_keeps_its_source() {
    let mut g = Graph::new().unwrap();
    let app = g.add_vertex(Some("app")).unwrap();
    let db = g.add_vertex(Some("db")).unwrap();
    g.connect(app, db).unwrap();
    let walker = g.begin_walk(&WalkOptions::new()).unwrap();
    for pending in walker.ready() {
        let pending = pending.unwrap();
        assert_eq!(pending.id(), db);
        assert_eq!(
            pending.graph(&walker).unwrap().name(pending.id()).unwrap(),
            Some("db")
        );
        let io = std::io::Error::new(std::io::ErrorKind::ConnectionRefused, "refused");
        thread::spawn(move || pending.fail(io).unwrap())
            .join()
            .unwrap();
    }
    let report = walker.wait().unwrap();
    assert_eq!(report.status(app), Some(VertexStatus::UpstreamFailed));
    let err = report.into_result().unwrap_err();
    let io = err
        .source()
        .unwrap()
        .downcast_ref::<std::io::Error>()
        .unwrap();
    assert_eq!(io.kind(), std::io::ErrorKind::ConnectionRefused);
}

#[test]
fn a_handed_out_vertex_expands_into_its_sub_graph() {
    let mut g = Graph::new().unwrap();
    let module = g.add_vertex(Some("module")).unwrap();
    let mut sub = Graph::new().unwrap();
    let inner = sub.add_vertex(Some("inner")).unwrap();
    let outer = sub.add_vertex(Some("outer")).unwrap();
    sub.connect(outer, inner).unwrap();
    let mut cyclic = Graph::new().unwrap();
    let x = cyclic.add_vertex(Some("x")).unwrap();
    cyclic.connect(x, x).unwrap();
    let events = Arc::new(Mutex::new(Vec::new()));
    let seen = events.clone();
    let options = WalkOptions::new().observer_with_sub(move |event, sub| {
        seen.lock().unwrap().push((event.kind, event.vertex, sub))
    });
    let walker = g.begin_walk(&options).unwrap();
    let mut names = Vec::new();
    for pending in walker.ready() {
        let mut pending = pending.unwrap();
        let name = pending
            .graph(&walker)
            .unwrap()
            .name(pending.id())
            .unwrap()
            .unwrap()
            .to_owned();
        assert_eq!(pending.in_sub_walk(), name != "module", "{}", name);
        if name == "module" {
            let err = pending.expand(&cyclic).unwrap_err();
            assert_eq!(err.status(), Status::Cycle);
            assert!(err.message().starts_with("Pending::expand: "), "{}", err);
            pending.expand(&sub).unwrap();
        } else {
            pending.succeed().unwrap();
        }
        names.push(name);
    }
    assert_eq!(names, ["module", "inner", "outer"]);
    let report = walker.wait().unwrap();
    assert!(report.ok());
    assert_eq!(report.len(), 1);
    assert_eq!(report.status(module), Some(VertexStatus::Ok));
    // The sub-graph's ids are the walked graph's too (inner is 0, as module
    // is): only the flag tells whose event it is.
    assert_eq!(inner, module);
    let mut events = events.lock().unwrap().clone();
    events.sort_by_key(|e| (e.2, e.1, e.0 != EventKind::Started));
    assert_eq!(
        events,
        [
            (EventKind::Started, module, false),
            (EventKind::Finished, module, false),
            (EventKind::Started, inner, true),
            (EventKind::Finished, inner, true),
            (EventKind::Started, outer, true),
            (EventKind::Finished, outer, true),
        ]
    );
}

#[test]
fn cancelling_a_pull_walk_waits_for_what_was_handed_out() {
    let (g, layers) = layered(2, 2);
    let walker = g.begin_walk(&WalkOptions::new()).unwrap();
    let first = walker.next_ready(None).unwrap().unwrap();
    let second = walker.next_ready(None).unwrap().unwrap();
    let err = walker
        .next_ready(Some(Duration::from_millis(10)))
        .unwrap_err();
    assert_eq!(err.status(), Status::Timeout);
    walker.cancel().unwrap();
    assert!(walker.wait_timeout(Duration::ZERO).unwrap().is_none());
    first.succeed().unwrap();
    second.succeed().unwrap();
    assert!(walker.next_ready(None).unwrap().is_none());
    let report = walker.wait().unwrap();
    assert!(report.cancelled());
    for &v in &layers[1] {
        assert_eq!(report.status(v), Some(VertexStatus::Cancelled));
    }
    for &v in &layers[0] {
        assert_eq!(report.status(v), Some(VertexStatus::Ok));
    }
}

#[test]
fn a_vertex_the_cancel_stopped_is_completed_as_cancelled() {
    let (g, layers) = layered(2, 2);
    let walker = g.begin_walk(&WalkOptions::new()).unwrap();
    let mut first = walker.next_ready(None).unwrap().unwrap();
    let second = walker.next_ready(None).unwrap().unwrap();
    // Not before the walk was cancelled: refused, and the vertex is still ours.
    let err = first.cancelled().unwrap_err();
    assert_eq!(err.status(), Status::State);
    assert!(err.message().starts_with("Pending::cancelled: "), "{}", err);
    walker.cancel().unwrap();
    first.cancelled().unwrap();
    assert_eq!(first.cancelled().unwrap_err().status(), Status::State);
    let first_id = first.id();
    // Completing it afterwards is about the vertex (State), not the walk (Cancelled).
    let err = first.succeed().unwrap_err();
    assert_eq!(err.status(), Status::State, "{}", err);
    assert!(err.message().contains("completed already"), "{}", err);
    second.succeed().unwrap();
    let report = walker.wait().unwrap();
    assert_eq!(report.status(first_id), Some(VertexStatus::Cancelled));
    let other = layers[0].iter().copied().find(|&v| v != first_id).unwrap();
    assert_eq!(report.status(other), Some(VertexStatus::Ok));
}

#[test]
fn dropping_a_pull_walker_leaves_handed_out_vertices_to_finish() {
    let (mut g, layers) = layered(2, 1);
    let pending = {
        let walker = g.begin_walk(&WalkOptions::new()).unwrap();
        walker.next_ready(None).unwrap().unwrap()
    };
    assert_eq!(pending.id(), layers[0][0]);
    // The walk is cancelled but still running: libdag keeps the graph busy.
    assert_eq!(g.add_vertex(None).unwrap_err().status(), Status::Busy);
    pending.succeed().unwrap();
    g.add_vertex(None).unwrap();
    assert!(g
        .walk(&WalkOptions::new(), |_| Ok::<(), String>(()))
        .unwrap()
        .ok());
}

#[test]
fn ready_vertices_taken_many_at_a_time() {
    let (g, layers) = layered(2, 6);
    let walker = g.begin_walk(&WalkOptions::new().parallelism(4)).unwrap();
    // At most `parallelism` are out at once.
    let first = walker.next_ready_many(10, None).unwrap();
    assert_eq!(first.len(), 4);
    assert!(first.iter().all(|p| layers[0].contains(&p.id())));
    // "All that are ready" is no buffer of usize::MAX entries.
    assert_eq!(
        walker
            .next_ready_many(usize::MAX, Some(Duration::ZERO))
            .unwrap_err()
            .status(),
        Status::Timeout
    );
    let err = walker.next_ready_many(0, None).unwrap_err();
    assert_eq!(err.status(), Status::InvalidArgument);
    assert!(
        err.message().starts_with("Walker::next_ready_many: "),
        "{}",
        err
    );
    let mut taken = first.len();
    for pending in first {
        pending.succeed().unwrap();
    }
    loop {
        let batch = walker.next_ready_many(3, None).unwrap();
        if batch.is_empty() {
            break;
        }
        assert!(batch.len() <= 3);
        taken += batch.len();
        for pending in batch {
            pending.succeed().unwrap();
        }
    }
    assert_eq!(taken, 12);
    assert!(walker.wait().unwrap().ok());
}

#[test]
fn the_observer_sees_a_pull_walk_from_the_completing_threads() {
    let (g, layers) = layered(2, 3);
    let events = Arc::new(Mutex::new(Vec::new()));
    let seen = events.clone();
    let options = WalkOptions::new().observer(move |event| {
        seen.lock()
            .unwrap()
            .push((event.kind, event.vertex, thread::current().id()))
    });
    let walker = g.begin_walk(&options).unwrap();
    let mut completers = Vec::new();
    for pending in walker.ready() {
        let pending = pending.unwrap();
        completers.push(thread::spawn(move || {
            pending.succeed().unwrap();
            thread::current().id()
        }));
    }
    let completer_ids: HashSet<_> = completers.into_iter().map(|c| c.join().unwrap()).collect();
    assert!(walker.wait().unwrap().ok());
    let events = events.lock().unwrap();
    assert_eq!(events.len(), 12);
    for &v in layers.iter().flatten() {
        let finished: Vec<_> = events
            .iter()
            .filter(|e| e.1 == v && e.0 == EventKind::Finished)
            .collect();
        assert_eq!(finished.len(), 1);
        assert!(completer_ids.contains(&finished[0].2));
    }
}

/// An error whose `Display` panics: the user's code that `Pending::fail`
/// runs before it completes the vertex.
#[derive(Debug)]
struct PanickingDisplay;

impl std::fmt::Display for PanickingDisplay {
    fn fmt(&self, _: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        panic!("Display panicked")
    }
}

impl std::error::Error for PanickingDisplay {}

#[test]
fn a_panic_in_the_errors_display_still_fails_the_vertex() {
    // The Pending was marked done before the error's Display ran: dropped
    // by the panic, it completed nothing, and wait() never returned.
    let mut g = Graph::new().unwrap();
    let a = g.add_vertex(Some("a")).unwrap();
    let walker = g.begin_walk(&WalkOptions::new()).unwrap();
    let pending = walker.next_ready(None).unwrap().expect("a is ready");
    let panicked = std::panic::catch_unwind(std::panic::AssertUnwindSafe(move || {
        pending.fail(PanickingDisplay)
    }));
    assert!(panicked.is_err());
    let report = walker
        .wait_timeout(Duration::from_secs(10))
        .unwrap()
        .expect("the walk ended");
    assert_eq!(report.status(a).unwrap(), VertexStatus::Failed);
}

#[test]
fn a_pendings_graph_is_read_through_its_walker() {
    // Pending::graph() read the walked graph without borrowing it: once the
    // walker was dropped, `&mut Graph` could change (free) what it read.
    // The view borrows the walker now, which borrows the graph.
    let mut g = Graph::new().unwrap();
    let module = g.add_vertex(Some("module")).unwrap();
    let mut sub = Graph::new().unwrap();
    sub.add_vertex(Some("inner")).unwrap();
    let other = Graph::new().unwrap();
    let other_walker = other.begin_walk(&WalkOptions::new()).unwrap();
    let walker = g.begin_walk(&WalkOptions::new()).unwrap();
    let mut pending = walker.next_ready(None).unwrap().unwrap();
    assert_eq!(
        pending.graph(&walker).unwrap().name(module).unwrap(),
        Some("module")
    );
    let err = pending.graph(&other_walker).unwrap_err();
    assert_eq!(err.status(), Status::InvalidArgument);
    assert!(err.message().starts_with("Pending::graph: "), "{}", err);
    pending.expand(&sub).unwrap();
    let inner = walker.next_ready(None).unwrap().unwrap();
    let view = inner.graph(&walker).unwrap();
    assert_eq!(view.name(inner.id()).unwrap(), Some("inner"));
    assert_eq!(view.vertex_count(), 1);
    inner.succeed().unwrap();
    assert!(walker.next_ready(None).unwrap().is_none());
    assert!(walker.wait().unwrap().ok());
    drop(walker);
    g.remove_vertex(module).unwrap();
}
