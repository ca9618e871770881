//! Walks that run while the caller goes on (`Graph::start_walk`): vertices
//! deferred and completed from other Rust threads, cancel from another
//! thread, waits with a time limit, the observer, expansion, updates, and
//! what dropping things mid-walk does.

mod common;

use std::error::Error as _;
use std::fmt;
use std::sync::mpsc;
use std::sync::{Arc, Mutex};
use std::thread;
use std::time::Duration;

use libdag::{
    EventKind, Graph, Pending, Status, Traversal, VertexStatus, Visit, WalkOptions, WalkUpdate,
    Walker,
};

/// A callback error of the test's own type, to downcast back.
#[derive(Debug, PartialEq)]
struct DiskFull {
    free: u64,
}

impl fmt::Display for DiskFull {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "disk full ({} bytes free)", self.free)
    }
}

impl std::error::Error for DiskFull {}

/// Bounds a wait that hangs where the code is wrong: long enough never to fail by chance.
const WAIT_S: u64 = 30;

fn graph(names: &[&str], edges: &[(&str, &str)]) -> Graph {
    let mut g = Graph::new().unwrap();
    for name in names {
        g.add_vertex(Some(name)).unwrap();
    }
    for (from, to) in edges {
        let from = g.find(from).unwrap();
        let to = g.find(to).unwrap();
        g.connect(from, to).unwrap();
    }
    g
}

/// Starts a walk whose callback defers every vertex and sends it down the
/// returned channel.
fn deferring_walk<'g>(
    g: &'g Graph,
    options: &WalkOptions,
) -> (Walker<'g>, mpsc::Receiver<Pending>) {
    let (send, receive) = mpsc::channel();
    let send = Mutex::new(send);
    let walker = g
        .start_walk(options, move |vertex| {
            send.lock().unwrap().send(vertex.defer()).unwrap();
            Ok::<(), String>(())
        })
        .unwrap();
    (walker, receive)
}

#[test]
fn walkers_pending_vertices_and_reports_cross_threads() {
    fn send_sync<T: Send + Sync>() {}
    send_sync::<Walker<'_>>();
    send_sync::<Pending>();
    send_sync::<libdag::WalkReport>();
    send_sync::<libdag::Error>();
    fn send<T: Send>() {}
    send::<WalkUpdate>();
}

#[test]
fn deferred_vertices_complete_from_other_threads() {
    let g = graph(
        &["app", "db", "net", "lone"],
        &[("app", "db"), ("db", "net")],
    );
    let (walker, pending) = deferring_walk(&g, &WalkOptions::new().parallelism(4));
    let pending = Arc::new(Mutex::new(pending));
    let db = g.find("db").unwrap();
    // collect(): the workers must be running before walker.wait() below
    // (clippy 0.1.63's needless_collect would have them spawned after it).
    #[allow(clippy::needless_collect)]
    let workers: Vec<_> = (0..3)
        .map(|_| {
            let pending = pending.clone();
            thread::spawn(move || {
                let mut completed = 0;
                loop {
                    let next = pending
                        .lock()
                        .unwrap()
                        .recv_timeout(Duration::from_millis(200));
                    match next {
                        Ok(vertex) if vertex.id() == db => {
                            vertex.fail(DiskFull { free: 12 }).unwrap();
                            completed += 1;
                        }
                        Ok(vertex) => {
                            vertex.succeed().unwrap();
                            completed += 1;
                        }
                        Err(mpsc::RecvTimeoutError::Timeout) => {}
                        Err(mpsc::RecvTimeoutError::Disconnected) => return completed,
                    }
                }
            })
        })
        .collect();
    let report = walker.wait().unwrap();
    drop(walker);
    let completed: usize = workers.into_iter().map(|w| w.join().unwrap()).sum();

    // app never ran: its dependency failed.
    assert_eq!(completed, 3);
    assert_eq!(
        report.status(g.find("net").unwrap()),
        Some(VertexStatus::Ok)
    );
    assert_eq!(report.status(db), Some(VertexStatus::Failed));
    assert_eq!(
        report.status(g.find("app").unwrap()),
        Some(VertexStatus::UpstreamFailed)
    );
    assert_eq!(
        report.status(g.find("lone").unwrap()),
        Some(VertexStatus::Ok)
    );
    assert_eq!(
        report.vertex(db).unwrap().message(),
        "disk full (12 bytes free)"
    );
    assert_eq!(
        report.source(db).unwrap().downcast_ref::<DiskFull>(),
        Some(&DiskFull { free: 12 })
    );
    let err = report.into_result().unwrap_err();
    assert_eq!(err.status(), Status::WalkFailed);
    assert!(
        err.message()
            .ends_with("vertex db failed: disk full (12 bytes free)"),
        "{}",
        err
    );
    assert_eq!(
        err.source().unwrap().downcast_ref::<DiskFull>(),
        Some(&DiskFull { free: 12 })
    );
}

#[test]
fn cancel_from_another_thread() {
    let g = graph(&["a", "b", "c"], &[("b", "a"), ("c", "b")]);
    let (walker, pending) = deferring_walk(&g, &WalkOptions::new());
    let walker = &walker;
    let held = thread::scope(|s| {
        let canceller = s.spawn(move || {
            // a is deferred and never completed; cancel once it is out.
            let a = pending.recv().unwrap();
            walker.cancel().unwrap();
            a
        });
        let report = walker.wait().unwrap();
        assert!(report.cancelled());
        assert_eq!(report.error().unwrap().status(), Status::Cancelled);
        assert_eq!(report.count(VertexStatus::Cancelled), 3);
        let a = report.vertex(g.find("a").unwrap()).unwrap();
        assert!(a.ran(), "a was pending when the walk was cancelled");
        assert!(!report.vertex(g.find("b").unwrap()).unwrap().ran());
        canceller.join().unwrap()
    });
    let err = held.succeed().unwrap_err();
    assert_eq!(err.status(), Status::Cancelled);
    assert!(err.message().starts_with("Pending::complete: "), "{}", err);
    assert_eq!(walker.cancel().unwrap_err().status(), Status::State);
}

#[test]
fn wait_with_a_time_limit() {
    let g = graph(&["a"], &[]);
    let (walker, pending) = deferring_walk(&g, &WalkOptions::new());
    let a = pending.recv().unwrap();
    assert!(walker
        .wait_timeout(Duration::from_millis(20))
        .unwrap()
        .is_none());
    assert!(walker.wait_timeout(Duration::ZERO).unwrap().is_none());
    a.succeed().unwrap();
    let report = walker
        .wait_timeout(Duration::from_secs(60))
        .unwrap()
        .unwrap();
    assert!(report.ok());
    // Waiting again gives the same outcome at once.
    assert!(walker.wait().unwrap().ok());
    assert_eq!(walker.progress().unwrap(), (1, 1));
}

#[test]
fn the_observer_sees_every_vertex_start_and_finish() {
    let g = graph(&["a", "b", "c"], &[("a", "b"), ("b", "c")]);
    let events = Arc::new(Mutex::new(Vec::new()));
    let seen = events.clone();
    let options = WalkOptions::new().observer(move |event| seen.lock().unwrap().push(*event));
    let report = g
        .walk(&options, |v| {
            if g.name(v).unwrap() == Some("a") {
                Err("a fails")
            } else {
                Ok(())
            }
        })
        .unwrap();
    assert_eq!(report.count(VertexStatus::Failed), 1);
    let mut events = events.lock().unwrap().clone();
    events.sort_by_key(|e| e.sequence);
    let kinds: Vec<_> = events.iter().map(|e| (e.kind, e.status)).collect();
    assert_eq!(events.len(), 6);
    assert_eq!(
        kinds.iter().filter(|k| k.0 == EventKind::Started).count(),
        3
    );
    assert_eq!(kinds[5], (EventKind::Finished, VertexStatus::Failed));
    assert_eq!(events[5].vertex, g.find("a").unwrap());
    assert_eq!((events[5].done, events[5].total), (3, 3));
    // A second walk with the same options (and observer) sees its own.
    assert!(g.walk(&options, |_| Ok::<(), String>(())).unwrap().ok());
}

#[test]
fn a_vertex_expands_into_a_sub_walk() {
    let g = graph(&["deploy", "build"], &[("deploy", "build")]);
    let sub = graph(&["step1", "step2"], &[("step2", "step1")]);
    let ran = Arc::new(Mutex::new(Vec::new()));
    let log = ran.clone();
    let walker = g
        .start_walk(&WalkOptions::new(), move |vertex| {
            let graph = vertex.graph();
            let name = graph.name(vertex.id())?.unwrap_or("").to_owned();
            log.lock().unwrap().push(name.clone());
            if name == "build" {
                vertex.expand(&sub)?;
            }
            Ok::<(), libdag::Error>(())
        })
        .unwrap();
    let report = walker.wait().unwrap();
    assert!(report.ok(), "{:?}", report.error());
    assert_eq!(*ran.lock().unwrap(), ["build", "step1", "step2", "deploy"]);
}

#[test]
fn a_sub_walks_vertices_and_events_say_they_are_a_sub_walks() {
    let g = graph(&["deploy", "build"], &[("deploy", "build")]);
    let sub = Arc::new(graph(&["step1", "step2"], &[("step2", "step1")]));
    let (deploy, build) = (g.find("deploy").unwrap(), g.find("build").unwrap());
    let (step1, step2) = (sub.find("step1").unwrap(), sub.find("step2").unwrap());
    // Ids alike in both graphs are what the flag is for.
    assert_eq!((step1, step2), (deploy, build));
    let events = Arc::new(Mutex::new(Vec::new()));
    let plain = Arc::new(Mutex::new(0));
    let (seen, heard) = (events.clone(), plain.clone());
    let with_sub = WalkOptions::new().observer_with_sub(move |event, sub| {
        seen.lock()
            .unwrap()
            .push((sub, event.vertex, event.kind, event.total))
    });
    let ran = Arc::new(Mutex::new(Vec::new()));
    let log = ran.clone();
    let expanding = move |vertex: &libdag::Vertex<'_>| {
        let name = vertex.graph().name(vertex.id())?.unwrap_or("").to_owned();
        log.lock()
            .unwrap()
            .push((name.clone(), vertex.in_sub_walk()));
        if name == "build" {
            vertex.expand(&sub)?;
        }
        Ok::<(), libdag::Error>(())
    };
    let walker = g.start_walk(&with_sub, expanding.clone()).unwrap();
    assert!(walker.wait().unwrap().ok());
    drop(walker);
    assert_eq!(
        *ran.lock().unwrap(),
        [
            ("build".to_owned(), false),
            ("step1".to_owned(), true),
            ("step2".to_owned(), true),
            ("deploy".to_owned(), false)
        ]
    );
    let mut seen = events.lock().unwrap().clone();
    seen.sort_by_key(|e| (e.0, e.1, e.2 != EventKind::Started));
    let want = |sub, v| {
        [
            (sub, v, EventKind::Started, 2),
            (sub, v, EventKind::Finished, 2),
        ]
    };
    let want: Vec<_> = [
        want(false, deploy),
        want(false, build),
        want(true, step1),
        want(true, step2),
    ]
    .concat();
    assert_eq!(seen, want);

    // The plain observer hears the sub-walk's events as well.
    let options = WalkOptions::new().observer(move |_| *heard.lock().unwrap() += 1);
    let walker = g.start_walk(&options, expanding).unwrap();
    assert!(walker.wait().unwrap().ok());
    assert_eq!(*plain.lock().unwrap(), 8);
    drop(walker);

    // A walk that cannot expand has no sub-walk events.
    events.lock().unwrap().clear();
    assert!(g.walk(&with_sub, |_| Ok::<(), String>(())).unwrap().ok());
    assert!(events.lock().unwrap().iter().all(|e| !e.0));
    assert_eq!(events.lock().unwrap().len(), 4);
}

#[test]
fn updates_add_vertices_to_a_running_walk() {
    let g = graph(&["a"], &[]);
    let (walker, pending) = deferring_walk(&g, &WalkOptions::new());
    let a = pending.recv().unwrap();
    let mut update = WalkUpdate::new().unwrap();
    let late = update.add_vertex(Some("late"), false).unwrap();
    let a_id = g.find("a").unwrap();
    update.connect(late, a_id).unwrap();
    let added = walker.apply(&update).unwrap();
    assert_eq!(added.len(), 1);
    assert_eq!(walker.graph().name(added[0]).unwrap(), Some("late"));
    assert_eq!(walker.progress().unwrap().1, 2);

    // An edge that would make a started vertex wait is refused.
    let mut wrong = WalkUpdate::new().unwrap();
    let first = wrong.add_vertex(Some("first"), false).unwrap();
    wrong.connect(a_id, first).unwrap();
    let err = walker.apply(&wrong).unwrap_err();
    assert_eq!(err.status(), Status::State);
    assert!(err.message().starts_with("Walker::apply: "), "{}", err);
    assert!(walker.graph().find("first").is_none());

    a.succeed().unwrap();
    pending.recv().unwrap().succeed().unwrap();
    let report = walker.wait().unwrap();
    assert!(report.ok());
    assert_eq!(report.status(added[0]), Some(VertexStatus::Ok));
    drop(walker);
    // The graph itself got the vertex.
    assert_eq!(g.find("late").unwrap(), added[0]);
}

#[test]
fn a_pending_vertex_dropped_uncompleted_fails() {
    let g = graph(&["a", "b"], &[("b", "a")]);
    let (walker, pending) = deferring_walk(&g, &WalkOptions::new());
    drop(pending.recv().unwrap());
    let report = walker.wait().unwrap();
    let a = report.vertex(g.find("a").unwrap()).unwrap();
    assert_eq!(a.status(), VertexStatus::Failed);
    assert_eq!(a.message(), "dropped without being completed");
    assert_eq!(
        report.status(g.find("b").unwrap()),
        Some(VertexStatus::UpstreamFailed)
    );
}

#[test]
fn dropping_the_walker_cancels_and_frees_the_graph() {
    let mut g = graph(&["a", "b"], &[("b", "a")]);
    let held;
    {
        let (walker, pending) = deferring_walk(&g, &WalkOptions::new());
        held = pending.recv().unwrap();
        assert_eq!(
            g.walk(&WalkOptions::new(), |_| Ok::<(), String>(()))
                .unwrap_err()
                .status(),
            Status::Busy
        );
        drop(walker);
    }
    assert_eq!(held.succeed().unwrap_err().status(), Status::Cancelled);
    g.add_vertex(Some("c")).unwrap();
    assert!(g
        .walk(&WalkOptions::new(), |_| Ok::<(), String>(()))
        .unwrap()
        .ok());
}

#[test]
fn a_callback_error_after_defer_wins() {
    let g = graph(&["a"], &[]);
    let (send, receive) = mpsc::channel();
    let send = Mutex::new(send);
    let walker = g
        .start_walk(&WalkOptions::new(), move |vertex| {
            send.lock().unwrap().send(vertex.defer()).unwrap();
            Err(DiskFull { free: 0 })
        })
        .unwrap();
    let report = walker.wait().unwrap();
    let a = g.find("a").unwrap();
    assert_eq!(report.status(a), Some(VertexStatus::Failed));
    assert!(report.source(a).unwrap().is::<DiskFull>());
    assert_eq!(
        receive.recv().unwrap().succeed().unwrap_err().status(),
        Status::State
    );
}

#[test]
fn a_callback_panic_after_its_pending_failed_leaves_no_source() {
    // The panic wins over the Pending's failure (the message says so), and
    // `source()` kept the Pending's error beside it: the report said one
    // failure and downcast to another. Failed here and from another thread.
    common::hide_expected_panics();
    for other_thread in [false, true] {
        let g = graph(&["a"], &[]);
        let walker = g
            .start_walk(&WalkOptions::new(), move |vertex| {
                let pending = vertex.defer();
                if other_thread {
                    std::thread::spawn(move || pending.fail(DiskFull { free: 1 }))
                        .join()
                        .unwrap()
                        .unwrap();
                } else {
                    pending.fail(DiskFull { free: 1 }).unwrap();
                }
                panic!("{}boom", common::EXPECTED_PANIC);
                #[allow(unreachable_code)]
                Ok::<(), String>(())
            })
            .unwrap();
        let report = walker.wait().unwrap();
        let a = g.find("a").unwrap();
        assert_eq!(report.status(a), Some(VertexStatus::Failed));
        assert!(report
            .vertex(a)
            .unwrap()
            .message()
            .contains("callback panicked"));
        assert!(report.source(a).is_none(), "other thread: {other_thread}");
    }
}

#[test]
fn a_pending_of_an_attempt_that_has_ended_cannot_complete_the_retry() {
    // libdag knows the vertex only: a Pending of the first attempt, completed
    // late, completed the retry (ok, though its work then failed), and one
    // dropped failed it.
    #[derive(Clone, Copy, Debug)]
    enum FirstAttempt {
        CallbackFails,
        ASiblingFailsIt,
        ASiblingIsDroppedInTheCallback,
    }
    for case in [
        FirstAttempt::CallbackFails,
        FirstAttempt::ASiblingFailsIt,
        FirstAttempt::ASiblingIsDroppedInTheCallback,
    ] {
        let g = graph(&["a"], &[]);
        let (send, receive) = mpsc::channel();
        let send = Mutex::new(send);
        let attempts = Arc::new(Mutex::new(0));
        let counted = attempts.clone();
        let walker = g
            .start_walk(&WalkOptions::new().retries(1), move |vertex| {
                let attempt = {
                    let mut n = counted.lock().unwrap();
                    *n += 1;
                    *n
                };
                let send = send.lock().unwrap();
                if attempt == 2 {
                    send.send(vertex.defer()).unwrap();
                    return Ok(());
                }
                match case {
                    FirstAttempt::CallbackFails | FirstAttempt::ASiblingFailsIt => {
                        send.send(vertex.defer()).unwrap()
                    }
                    FirstAttempt::ASiblingIsDroppedInTheCallback => drop(vertex.defer()),
                }
                send.send(vertex.defer()).unwrap();
                match case {
                    FirstAttempt::CallbackFails => Err(DiskFull { free: 1 }),
                    _ => Ok(()),
                }
            })
            .unwrap();
        let (why, stale) = match case {
            FirstAttempt::CallbackFails => {
                let dropped = receive.recv().unwrap();
                let late = receive.recv().unwrap();
                drop(dropped);
                ("its attempt failed", late)
            }
            FirstAttempt::ASiblingFailsIt => {
                let first = receive.recv().unwrap();
                let stale = receive.recv().unwrap();
                first.fail(DiskFull { free: 1 }).unwrap();
                ("completed it already", stale)
            }
            FirstAttempt::ASiblingIsDroppedInTheCallback => {
                ("its attempt failed", receive.recv().unwrap())
            }
        };
        let retry = receive.recv().unwrap();
        let refused = stale.succeed().unwrap_err();
        assert_eq!(
            refused.status(),
            Status::State,
            "{:?}: {}",
            case,
            refused.message()
        );
        assert!(
            refused.message().contains(why),
            "{:?}: {}",
            case,
            refused.message()
        );
        // The retry is still its own attempt's to finish.
        retry.fail(DiskFull { free: 2 }).unwrap();
        let report = walker.wait().unwrap();
        let a = g.find("a").unwrap();
        assert_eq!(report.status(a), Some(VertexStatus::Failed), "{:?}", case);
        assert_eq!(report.attempts(a), Some(2), "{:?}", case);
        assert_eq!(
            report.source(a).unwrap().downcast_ref::<DiskFull>(),
            Some(&DiskFull { free: 2 })
        );
        assert_eq!(*attempts.lock().unwrap(), 2);
    }
}

#[test]
fn an_observer_may_drop_a_pending_of_the_vertex_whose_completion_it_sees() {
    // The completion held the attempt's lock through libdag, which ran this
    // observer on the same thread: the drop waited for it for ever.
    let g = graph(&["a"], &[]);
    let kept: Arc<Mutex<Vec<Pending>>> = Arc::default();
    let registry = kept.clone();
    let options = WalkOptions::new().observer(move |event| {
        if event.kind == EventKind::Finished {
            let taken = std::mem::take(&mut *registry.lock().unwrap());
            drop(taken);
        }
    });
    let (send, receive) = mpsc::channel();
    let send = Mutex::new(send);
    let walker = g
        .start_walk(&options, move |vertex| {
            send.lock().unwrap().send(vertex.defer()).unwrap();
            kept.lock().unwrap().push(vertex.defer());
            Ok::<(), DiskFull>(())
        })
        .unwrap();
    let pending = receive.recv().unwrap();
    let (done, completed) = mpsc::channel();
    thread::spawn(move || done.send(pending.succeed().is_ok()).unwrap());
    match completed.recv_timeout(Duration::from_secs(WAIT_S)) {
        Ok(ok) => assert!(ok),
        Err(_) => {
            std::mem::forget(walker); // a hung walk cannot be dropped
            panic!("Pending::succeed waited for ever for the observer it ran");
        }
    }
    assert!(walker.wait().unwrap().ok());
}

#[test]
fn a_report_read_while_a_completion_is_refused_never_shows_its_error() {
    // The error was kept before libdag refused the completion (the walk was
    // cancelled) and put back after: a report read in between had it as the
    // cancelled vertex's source (hundreds of rounds in 500 polling ones).
    let g = graph(&["a"], &[]);
    let a = g.find("a").unwrap();
    for _ in 0..500 {
        let (send, receive) = mpsc::channel();
        let send = Mutex::new(send);
        let walker = g
            .start_walk(&WalkOptions::new(), move |vertex| {
                send.lock().unwrap().send(vertex.defer()).unwrap();
                Ok::<(), DiskFull>(())
            })
            .unwrap();
        let pending = receive.recv().unwrap();
        walker.cancel().unwrap();
        let done = Arc::new(std::sync::atomic::AtomicBool::new(false));
        let finished = done.clone();
        let worker = thread::spawn(move || {
            let refused = pending.fail(DiskFull { free: 0 });
            finished.store(true, std::sync::atomic::Ordering::SeqCst);
            refused
        });
        // Where the callback had not returned yet, the failure is held and
        // then taken (libdag's rule): a, failed, has it as its source.
        let mut status = None;
        loop {
            let report = walker.wait().unwrap();
            status = status.or_else(|| report.status(a));
            assert_eq!(report.status(a), status);
            let failed = status == Some(VertexStatus::Failed);
            assert_eq!(
                report.source(a).is_some(),
                failed,
                "the report of a, {:?}",
                status
            );
            if done.load(std::sync::atomic::Ordering::SeqCst) {
                break;
            }
        }
        let refused = worker.join().unwrap().err().map(|e| e.status());
        match status {
            Some(VertexStatus::Cancelled) => assert_eq!(refused, Some(Status::Cancelled)),
            other => assert_eq!((other, refused), (Some(VertexStatus::Failed), None)),
        }
    }
}

/// A callback error whose Drop panics: user code libdag's thread runs.
#[derive(Debug)]
struct PanicsOnDrop;

impl fmt::Display for PanicsOnDrop {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("from the other thread")
    }
}

impl std::error::Error for PanicsOnDrop {}

impl Drop for PanicsOnDrop {
    fn drop(&mut self) {
        panic!("{}dropped", common::EXPECTED_PANIC);
    }
}

#[test]
fn a_callback_error_wins_over_its_pending_completed_on_another_thread_meanwhile() {
    common::hide_expected_panics();
    let g = graph(&["a"], &[]);
    let walker = g
        .start_walk(&WalkOptions::new(), |vertex| {
            let pending = vertex.defer();
            // Completed (and its error recorded) before the callback returns.
            let completed = thread::spawn(move || pending.fail(PanicsOnDrop))
                .join()
                .unwrap();
            assert!(completed.is_ok());
            Err(DiskFull { free: 2 })
        })
        .unwrap();
    let report = walker.wait().unwrap();
    let a = report.vertex(g.find("a").unwrap()).unwrap();
    assert_eq!(a.status(), VertexStatus::Failed);
    // The callback's own, and the other error's panicking Drop stayed on
    // libdag's thread (it aborted the process).
    assert_eq!(a.message(), "disk full (2 bytes free)");
    assert!(report
        .source(g.find("a").unwrap())
        .unwrap()
        .is::<DiskFull>());
}

#[test]
fn a_walk_of_a_graph_seen_through_a_walk_is_refused() {
    let g = graph(&["a"], &[]);
    let sub = graph(&["s"], &[]);
    let empty = Graph::new().unwrap();
    let walker = g.begin_walk(&WalkOptions::new()).unwrap();
    let mut a = walker.next_ready(None).unwrap().unwrap();
    a.expand(&sub).unwrap();
    let mut s = walker.next_ready(None).unwrap().unwrap();
    s.expand(&empty).unwrap();
    assert!(walker.next_ready(None).unwrap().is_none());
    // The sub-walk's copy of `sub`, which the walk frees with itself: a walk
    // of it would outlive it.
    let copy = s.graph(&walker).unwrap();
    assert_eq!(
        copy.begin_walk(&WalkOptions::new()).unwrap_err().status(),
        Status::Busy
    );
    assert_eq!(
        copy.walk(&WalkOptions::new(), |_| Ok::<(), String>(()))
            .unwrap_err()
            .status(),
        Status::Busy
    );
    assert_eq!(
        walker
            .graph()
            .start_walk(&WalkOptions::new(), |_| Ok::<(), String>(()))
            .unwrap_err()
            .status(),
        Status::Busy
    );
}

#[test]
fn a_pending_dropped_inside_its_callback_leaves_the_vertex_to_the_callback() {
    common::hide_expected_panics();
    let g = graph(&["err", "ok", "panics"], &[]);
    let walker = g
        .start_walk(&WalkOptions::new(), |vertex| {
            let pending = vertex.defer();
            let name = vertex
                .graph()
                .name(vertex.id())
                .unwrap()
                .unwrap()
                .to_owned();
            drop(pending);
            match name.as_str() {
                "err" => Err(DiskFull { free: 1 }),
                "panics" => panic!("{}boom", common::EXPECTED_PANIC),
                _ => Ok(()),
            }
        })
        .unwrap();
    let report = walker.wait().unwrap();
    let vertex = |name| report.vertex(g.find(name).unwrap()).unwrap();
    assert_eq!(vertex("err").status(), VertexStatus::Failed);
    assert_eq!(vertex("err").message(), "disk full (1 bytes free)");
    assert!(report
        .source(g.find("err").unwrap())
        .unwrap()
        .is::<DiskFull>());
    assert!(
        vertex("panics")
            .message()
            .starts_with("callback panicked: "),
        "{}",
        vertex("panics").message()
    );
    // Ok with nothing left to complete it: failed, not waited for.
    assert_eq!(vertex("ok").status(), VertexStatus::Failed);
    assert_eq!(vertex("ok").message(), "dropped without being completed");
}

#[test]
fn an_expanded_vertex_whose_callback_fails_has_no_source() {
    let g = graph(&["build"], &[]);
    let sub = graph(&["step"], &[]);
    let walker = g
        .start_walk(&WalkOptions::new(), move |vertex| {
            if vertex.graph().name(vertex.id()).unwrap() == Some("build") {
                vertex.expand(&sub).unwrap();
                return Err(DiskFull { free: 2 });
            }
            Ok(())
        })
        .unwrap();
    let report = walker.wait().unwrap();
    let build = g.find("build").unwrap();
    // The expansion decides: its sub-walk went well, the error was refused.
    assert_eq!(report.status(build), Some(VertexStatus::Ok));
    assert!(report.source(build).is_none());
}

#[test]
fn walks_that_cannot_start_are_errors() {
    let g = graph(&["a", "b"], &[("a", "b"), ("b", "a")]);
    let err = g
        .start_walk(&WalkOptions::new(), |_| Ok::<(), String>(()))
        .unwrap_err();
    assert_eq!(err.status(), Status::Cycle);
    assert!(err.message().starts_with("Graph::start_walk: "), "{}", err);
    let err = g.begin_walk(&WalkOptions::new()).unwrap_err();
    assert_eq!(err.status(), Status::Cycle);
    let g = graph(&["a"], &[]);
    let err = g
        .start_walk(&WalkOptions::new().parallelism(0), |_| Ok::<(), String>(()))
        .unwrap_err();
    assert_eq!(err.status(), Status::InvalidArgument);
    let walker = g
        .start_walk(&WalkOptions::new(), |_| Ok::<(), String>(()))
        .unwrap();
    let err = walker.next_ready(None).unwrap_err();
    assert_eq!(err.status(), Status::State);
    assert!(err.message().starts_with("Walker::next_ready: "), "{}", err);
    assert!(walker.wait().unwrap().ok());
}

#[test]
fn a_callback_error_wins_over_its_pending_completed_inside_it() {
    // libdag holds a completion made inside the callback until it returns,
    // and takes the failure the callback then returns, with its message:
    // the binding's dag_walk_fail was refused there, and the vertex ended
    // failed with no message and no source (or, completed as failed, with
    // the Pending's error).
    common::hide_expected_panics();
    let g = graph(&["succeeded", "failed", "panics", "kept"], &[]);
    let walker = g
        .start_walk(&WalkOptions::new(), |vertex| {
            let pending = vertex.defer();
            let name = vertex
                .graph()
                .name(vertex.id())
                .unwrap()
                .unwrap()
                .to_owned();
            match name.as_str() {
                "succeeded" => {
                    pending.succeed().unwrap();
                    Err(DiskFull { free: 1 })
                }
                "failed" => {
                    pending.fail(DiskFull { free: 2 }).unwrap();
                    Err(DiskFull { free: 3 })
                }
                "panics" => {
                    pending.succeed().unwrap();
                    panic!("{}boom", common::EXPECTED_PANIC)
                }
                // Ok: the completion made inside stands.
                _ => {
                    pending.fail(DiskFull { free: 4 }).unwrap();
                    Ok(())
                }
            }
        })
        .unwrap();
    let report = walker.wait().unwrap();
    for (name, free) in [("succeeded", 1), ("failed", 3), ("kept", 4)] {
        let id = g.find(name).unwrap();
        let vertex = report.vertex(id).unwrap();
        assert_eq!(vertex.status(), VertexStatus::Failed, "{}", name);
        assert_eq!(
            vertex.message(),
            format!("disk full ({} bytes free)", free),
            "{}",
            name
        );
        assert_eq!(
            report.source(id).unwrap().downcast_ref::<DiskFull>(),
            Some(&DiskFull { free }),
            "{}",
            name
        );
    }
    let panics = report.vertex(g.find("panics").unwrap()).unwrap();
    assert_eq!(panics.status(), VertexStatus::Failed);
    assert_eq!(
        panics.message(),
        format!("callback panicked: {}boom", common::EXPECTED_PANIC)
    );
    assert!(panics.source().is_none());
}

#[test]
fn dropping_a_pending_once_another_completed_the_vertex_does_nothing() {
    // Dropped inside the callback, the second Pending failed the vertex
    // the first had completed.
    let g = graph(&["inside", "after"], &[]);
    let (send, receive) = mpsc::channel();
    let send = Mutex::new(send);
    let walker = g
        .start_walk(&WalkOptions::new(), move |vertex| {
            let first = vertex.defer();
            let second = vertex.defer();
            if vertex.graph().name(vertex.id()).unwrap() == Some("inside") {
                first.succeed().map_err(|e| e.to_string())?;
                drop(second);
            } else {
                send.lock().unwrap().send((first, second)).unwrap();
            }
            Ok::<(), String>(())
        })
        .unwrap();
    let (first, second) = receive.recv().unwrap();
    first.succeed().unwrap();
    drop(second);
    let report = walker.wait().unwrap();
    assert_eq!(
        report.status(g.find("inside").unwrap()),
        Some(VertexStatus::Ok)
    );
    assert_eq!(
        report.status(g.find("after").unwrap()),
        Some(VertexStatus::Ok)
    );
}

#[test]
fn a_deferred_vertex_is_expanded_by_its_callback_not_by_its_pending() {
    // libdag takes an expansion while the callback runs, from any thread,
    // and the callback could not know its own error was then refused.
    let g = graph(&["a"], &[]);
    let sub = graph(&["s"], &[]);
    let (send, receive) = mpsc::channel();
    let send = Mutex::new(send);
    let walker = g
        .start_walk(&WalkOptions::new(), move |vertex| {
            let mut pending = vertex.defer();
            if !vertex.in_sub_walk() {
                send.lock()
                    .unwrap()
                    .send(pending.expand(&sub).map_err(|e| e.status()))
                    .unwrap();
            }
            pending.succeed().map_err(|e| e.to_string())
        })
        .unwrap();
    assert_eq!(receive.recv().unwrap(), Err(Status::State));
    let report = walker.wait().unwrap();
    assert!(report.ok());
    assert_eq!(report.len(), 1);
}

/// Says once dropped that it was: owned by a walk's callback, it tells
/// when the binding frees that callback.
struct SaysWhenFreed(Mutex<mpsc::Sender<()>>);

impl Drop for SaysWhenFreed {
    fn drop(&mut self) {
        let _ = self.0.lock().unwrap().send(());
    }
}

fn says_when_freed() -> (SaysWhenFreed, mpsc::Receiver<()>) {
    let (send, receive) = mpsc::channel();
    (SaysWhenFreed(Mutex::new(send)), receive)
}

#[test]
fn a_walker_dropped_in_a_visitor_of_its_graph_frees_its_callback_once_the_walk_ends() {
    // dag_walk_wait refuses inside a read of the walked graph, and the
    // walker took that for a drop inside its own callback: the callback and
    // the walk, with its threads, were leaked, and the graph refused walks
    // for ever.
    let g = graph(&["a"], &[]);
    let a = g.find("a").unwrap();
    let (freed, callback_freed) = says_when_freed();
    let (started, callback_started) = mpsc::channel();
    let started = Mutex::new(started);
    let (release, released) = mpsc::channel::<()>();
    let released = Mutex::new(released);
    let mut walker = Some(
        g.start_walk(&WalkOptions::new(), move |_| {
            let _owned = &freed;
            started.lock().unwrap().send(()).unwrap();
            released
                .lock()
                .unwrap()
                .recv_timeout(Duration::from_secs(WAIT_S))
                .map_err(|e| e.to_string())
        })
        .unwrap(),
    );
    callback_started.recv().unwrap();
    g.traverse(&[a], Traversal::depth_first(), |_, _| {
        drop(walker.take());
        Visit::Continue
    })
    .unwrap();
    assert!(walker.is_none());
    release.send(()).unwrap();
    assert!(
        callback_freed
            .recv_timeout(Duration::from_secs(WAIT_S))
            .is_ok(),
        "the walk's callback was never freed"
    );
    // The walk has ended: the graph is free again.
    assert!(g
        .walk(&WalkOptions::new(), |_| Ok::<(), String>(()))
        .unwrap()
        .ok());
}

#[test]
fn a_walker_dropped_in_its_own_callback_frees_its_callback_once_the_walk_ends() {
    // It was leaked, with its threads, and the graph refused walks for ever.
    let g: &'static Graph = Box::leak(Box::new(graph(&["a"], &[])));
    let (freed, callback_freed) = says_when_freed();
    let slot: Arc<Mutex<Option<Walker<'static>>>> = Arc::default();
    let (stored, walker_stored) = mpsc::channel::<()>();
    let walker_stored = Mutex::new(walker_stored);
    let in_callback = slot.clone();
    let walker = g
        .start_walk(&WalkOptions::new(), move |_| {
            let _owned = &freed;
            walker_stored
                .lock()
                .unwrap()
                .recv_timeout(Duration::from_secs(WAIT_S))
                .map_err(|e| e.to_string())?;
            let walker = in_callback.lock().unwrap().take();
            drop(walker);
            Ok::<(), String>(())
        })
        .unwrap();
    *slot.lock().unwrap() = Some(walker);
    stored.send(()).unwrap();
    assert!(
        callback_freed
            .recv_timeout(Duration::from_secs(WAIT_S))
            .is_ok(),
        "the walk's callback was never freed"
    );
    assert!(slot.lock().unwrap().is_none());
    assert!(g
        .walk(&WalkOptions::new(), |_| Ok::<(), String>(()))
        .unwrap()
        .ok());
}

/// A panic payload whose own Drop panics.
struct PanickingPayload;

impl Drop for PanickingPayload {
    fn drop(&mut self) {
        panic!("{}the payload's drop", common::EXPECTED_PANIC);
    }
}

/// A callback error whose Drop panics with a [`PanickingPayload`].
#[derive(Debug)]
struct PanicsWithAPanickingPayload;

impl fmt::Display for PanicsWithAPanickingPayload {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("refused")
    }
}

impl std::error::Error for PanicsWithAPanickingPayload {}

impl Drop for PanicsWithAPanickingPayload {
    fn drop(&mut self) {
        std::panic::panic_any(PanickingPayload);
    }
}

#[test]
fn a_refused_callback_error_whose_drop_panics_with_a_panicking_payload_stays_on_libdags_thread() {
    // The payload was dropped outside catch_unwind, in the extern "C"
    // trampoline: its panic aborted the process.
    common::hide_expected_panics();
    let g = graph(&["build"], &[]);
    let sub = graph(&["step"], &[]);
    let walker = g
        .start_walk(&WalkOptions::new(), move |vertex| {
            if vertex.in_sub_walk() {
                return Ok(());
            }
            vertex.expand(&sub).unwrap();
            // Refused (the sub-walk decides): dropped in the trampoline.
            Err(PanicsWithAPanickingPayload)
        })
        .unwrap();
    let report = walker.wait().unwrap();
    let build = g.find("build").unwrap();
    assert_eq!(report.status(build), Some(VertexStatus::Ok));
    assert!(report.source(build).is_none());
}

#[test]
fn a_walker_kept_after_its_walk_keeps_the_graph_busy_and_says_so() {
    let g = graph(&["a"], &[]);
    let walker = g.begin_walk(&WalkOptions::new()).unwrap();
    let a = walker.next_ready(None).unwrap().unwrap();
    a.complete(Ok::<(), String>(())).unwrap();
    assert!(walker.wait().unwrap().ok());
    // The walk is over, but the Walker still borrows the graph: the message
    // says which walk is in the way (it said only "already being walked").
    let err = g.begin_walk(&WalkOptions::new()).unwrap_err();
    assert_eq!(err.status(), Status::Busy);
    assert!(
        err.to_string().contains("a Walker of it not yet dropped"),
        "{}",
        err
    );
    drop(walker);
    assert!(g.begin_walk(&WalkOptions::new()).is_ok());
}
