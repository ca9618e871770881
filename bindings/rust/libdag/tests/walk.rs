//! Parallel walks: ordering, parallelism bounds, failure propagation, panics
//! and the report.

use std::collections::HashMap;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Condvar, Mutex};
use std::thread;
use std::time::Duration;

use libdag::{Graph, Status, VertexId, VertexStatus, WalkOptions};

mod common;
use common::{hide_expected_panics, EXPECTED_PANIC};

/// A layered graph: `width` vertices per layer, each depending on every
/// vertex of the layer below, plus a few unrelated vertices.
fn layered(layers: usize, width: usize) -> (Graph, Vec<Vec<VertexId>>) {
    let mut g = Graph::new().unwrap();
    let mut all: Vec<Vec<VertexId>> = Vec::new();
    for layer in 0..layers {
        let ids: Vec<VertexId> = (0..width)
            .map(|i| g.add_vertex(Some(&format!("L{}_{}", layer, i))).unwrap())
            .collect();
        if let Some(below) = all.last() {
            for &v in &ids {
                for &dep in below {
                    g.connect(v, dep).unwrap();
                }
            }
        }
        all.push(ids);
    }
    (g, all)
}

fn graph(names: &[&str], edges: &[(&str, &str)]) -> Graph {
    let mut g = Graph::new().unwrap();
    for n in names {
        g.add_vertex(Some(n)).unwrap();
    }
    for (from, to) in edges {
        let (from, to) = (g.find(from).unwrap(), g.find(to).unwrap());
        g.connect(from, to).unwrap();
    }
    g
}

fn id(g: &Graph, name: &str) -> VertexId {
    g.find(name).unwrap()
}

/// Checks, from a log of (vertex, event) in the order they happened, that no
/// vertex started before each of its dependencies had finished.
fn assert_dependencies_finished_first(g: &Graph, log: &[(VertexId, &str)], reverse: bool) {
    let position: HashMap<(VertexId, &str), usize> = log
        .iter()
        .enumerate()
        .map(|(i, &(v, e))| ((v, e), i))
        .collect();
    for (from, to) in g.edges().unwrap() {
        // from depends on to: to finishes before from starts (the other way
        // round when walking in reverse).
        let (first, second) = if reverse { (from, to) } else { (to, from) };
        let finished = position[&(first, "end")];
        let started = position[&(second, "start")];
        assert!(
            finished < started,
            "{} started before {} finished",
            second,
            first
        );
    }
}

#[test]
fn dependencies_finish_before_dependents_start_under_parallelism() {
    let (g, _) = layered(5, 6);
    let log = Mutex::new(Vec::new());
    let report = g
        .walk(&WalkOptions::new().parallelism(8).threads(8), |v| {
            log.lock().unwrap().push((v, "start"));
            thread::sleep(Duration::from_millis(1));
            log.lock().unwrap().push((v, "end"));
            Ok::<(), String>(())
        })
        .unwrap();
    assert!(report.ok());
    assert_eq!(report.len(), 30);
    assert_eq!(report.count(VertexStatus::Ok), 30);
    let log = log.into_inner().unwrap();
    assert_eq!(log.len(), 60, "each vertex runs exactly once");
    assert_dependencies_finished_first(&g, &log, false);

    // The report's clocks agree: a vertex starts after its dependencies end.
    for (from, to) in g.edges().unwrap() {
        let (dependent, dependency) = (report.vertex(from).unwrap(), report.vertex(to).unwrap());
        assert!(dependency.end_ns() <= dependent.start_ns());
        assert!(dependent.start_ns() <= dependent.end_ns());
    }
}

#[test]
fn reverse_walks_run_dependents_first() {
    let g = graph(&["a", "b", "c"], &[("a", "b"), ("b", "c")]);
    let order = Mutex::new(Vec::new());
    let report = g
        .walk(&WalkOptions::new().reverse(true), |v| {
            order.lock().unwrap().push(v);
            Ok::<(), String>(())
        })
        .unwrap();
    assert!(report.ok());
    assert_eq!(
        order.into_inner().unwrap(),
        vec![id(&g, "a"), id(&g, "b"), id(&g, "c")]
    );

    let (g, _) = layered(3, 4);
    let log = Mutex::new(Vec::new());
    g.walk(&WalkOptions::new().reverse(true).parallelism(4), |v| {
        log.lock().unwrap().push((v, "start"));
        log.lock().unwrap().push((v, "end"));
        Ok::<(), String>(())
    })
    .unwrap();
    assert_dependencies_finished_first(&g, &log.into_inner().unwrap(), true);
}

#[test]
fn parallelism_bounds_the_callbacks_in_flight() {
    for parallelism in [1, 3] {
        let (g, _) = layered(1, 12);
        let running = AtomicUsize::new(0);
        let most = AtomicUsize::new(0);
        let report = g
            .walk(
                &WalkOptions::new().parallelism(parallelism).threads(8),
                |_| {
                    let now = running.fetch_add(1, Ordering::SeqCst) + 1;
                    most.fetch_max(now, Ordering::SeqCst);
                    thread::sleep(Duration::from_millis(5));
                    running.fetch_sub(1, Ordering::SeqCst);
                    Ok::<(), String>(())
                },
            )
            .unwrap();
        assert!(report.ok());
        let most = most.load(Ordering::SeqCst);
        assert!(
            (1..=parallelism).contains(&most),
            "{} in flight with parallelism {}",
            most,
            parallelism
        );
    }
}

#[test]
fn a_failure_skips_its_dependents_and_nothing_else() {
    // app -> db -> net; web -> net; lone.
    let g = graph(
        &["app", "db", "net", "web", "lone"],
        &[("app", "db"), ("db", "net"), ("web", "net")],
    );
    let db = id(&g, "db");
    let ran = Mutex::new(Vec::new());
    let report = g
        .walk(&WalkOptions::new(), |v| {
            ran.lock().unwrap().push(v);
            if v == db {
                Err("disk full".to_owned())
            } else {
                Ok::<(), String>(())
            }
        })
        .unwrap();
    assert!(!report.ok());
    assert!(!report.cancelled());
    assert_eq!(report.status(id(&g, "net")), Some(VertexStatus::Ok));
    assert_eq!(report.status(db), Some(VertexStatus::Failed));
    assert_eq!(
        report.status(id(&g, "app")),
        Some(VertexStatus::UpstreamFailed)
    );
    assert_eq!(report.status(id(&g, "web")), Some(VertexStatus::Ok));
    assert_eq!(report.status(id(&g, "lone")), Some(VertexStatus::Ok));
    assert!(
        !ran.lock().unwrap().contains(&id(&g, "app")),
        "app must not run"
    );

    let db_report = report.vertex(db).unwrap();
    assert_eq!(db_report.message(), "disk full");
    assert!(db_report.ran());
    assert!(!report.vertex(id(&g, "app")).unwrap().ran());

    assert_eq!(report.count(VertexStatus::Failed), 1);
    assert_eq!(report.count(VertexStatus::UpstreamFailed), 1);
    assert_eq!(report.count(VertexStatus::Ok), 3);
    assert_eq!(
        report.first_error(),
        Some((db, "vertex db failed: disk full"))
    );
    let err = report.error().unwrap();
    assert_eq!(err.status(), Status::WalkFailed);
    assert!(
        err.message().contains("vertex db failed: disk full"),
        "{}",
        err
    );
}

#[test]
fn a_panic_in_the_callback_fails_that_vertex() {
    hide_expected_panics();
    let g = graph(&["a", "b", "c"], &[("a", "b")]);
    let b = id(&g, "b");
    let report = g
        .walk(&WalkOptions::new(), |v| {
            if v == b {
                panic!("{}callback blew up on {}", EXPECTED_PANIC, v);
            }
            Ok::<(), String>(())
        })
        .unwrap();
    assert!(!report.ok());
    let failed = report.vertex(b).unwrap();
    assert_eq!(failed.status(), VertexStatus::Failed);
    assert_eq!(
        failed.message(),
        format!(
            "callback panicked: {}callback blew up on {}",
            EXPECTED_PANIC, b
        )
    );
    assert_eq!(
        report.status(id(&g, "a")),
        Some(VertexStatus::UpstreamFailed)
    );
    assert_eq!(report.status(id(&g, "c")), Some(VertexStatus::Ok));

    // The graph and the process are fine afterwards.
    assert!(g
        .walk(&WalkOptions::new(), |_| Ok::<(), String>(()))
        .unwrap()
        .ok());
}

/// An error whose Display panics: the panic came after the callback had
/// returned, outside catch_unwind, and aborted the process.
#[derive(Debug)]
struct UnprintableError;

impl std::fmt::Display for UnprintableError {
    fn fmt(&self, _: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        panic!("{}Display of an error", EXPECTED_PANIC)
    }
}

impl std::error::Error for UnprintableError {}

#[test]
fn an_error_whose_display_panics_fails_that_vertex() {
    hide_expected_panics();
    let g = graph(&["a", "b"], &[("a", "b")]);
    let b = id(&g, "b");
    let report = g
        .walk(&WalkOptions::new(), |v| {
            if v == b {
                return Err(UnprintableError);
            }
            Ok(())
        })
        .unwrap();
    assert_eq!(report.status(b), Some(VertexStatus::Failed));
    assert_eq!(
        report.vertex(b).unwrap().message(),
        format!("callback panicked: {}Display of an error", EXPECTED_PANIC)
    );
    assert_eq!(
        report.status(id(&g, "a")),
        Some(VertexStatus::UpstreamFailed)
    );
}

#[test]
fn failure_messages_with_nul_bytes_survive() {
    let g = graph(&["a"], &[]);
    let report = g
        .walk(&WalkOptions::new(), |_| Err("bad\0byte".to_owned()))
        .unwrap();
    assert_eq!(report.vertex(id(&g, "a")).unwrap().message(), "bad\\0byte");
}

#[test]
fn fail_fast_starts_nothing_new() {
    // A chain: once the first vertex fails nothing else can start anyway,
    // so use independent vertices run one at a time.
    let (g, layers) = layered(1, 6);
    let first = Mutex::new(None);
    let report = g
        .walk(&WalkOptions::new().parallelism(1).fail_fast(true), |v| {
            let mut first = first.lock().unwrap();
            if first.is_none() {
                *first = Some(v);
                return Err("stop".to_owned());
            }
            Ok::<(), String>(())
        })
        .unwrap();
    assert!(!report.ok());
    assert_eq!(report.count(VertexStatus::Failed), 1);
    assert_eq!(report.count(VertexStatus::NotRun), layers[0].len() - 1);
    assert_eq!(report.count(VertexStatus::Ok), 0);
}

#[test]
fn always_run_vertices_run_after_a_failure() {
    // cleanup depends on work, which fails; report depends on cleanup.
    let g = graph(
        &["work", "cleanup", "report"],
        &[("cleanup", "work"), ("report", "cleanup")],
    );
    let cleanup = id(&g, "cleanup");
    let ran = Mutex::new(Vec::new());
    let result = g
        .walk(&WalkOptions::new().always_run([cleanup]), |v| {
            ran.lock().unwrap().push(v);
            if v == id(&g, "work") {
                Err("failed".to_owned())
            } else {
                Ok::<(), String>(())
            }
        })
        .unwrap();
    assert_eq!(result.status(cleanup), Some(VertexStatus::Ok));
    assert_eq!(result.status(id(&g, "report")), Some(VertexStatus::Ok));
    assert_eq!(ran.into_inner().unwrap().len(), 3);
}

#[test]
fn callbacks_read_the_graph_they_walk() {
    let g = graph(&["a", "b", "c"], &[("a", "b"), ("b", "c")]);
    let seen = Mutex::new(HashMap::new());
    let report = g
        .walk(&WalkOptions::new().parallelism(3), |v| {
            let name = g.name(v)?.unwrap_or("").to_owned();
            let deps = g.ancestors(&[v])?.len();
            seen.lock().unwrap().insert(name, deps);
            Ok::<(), libdag::Error>(())
        })
        .unwrap();
    assert!(report.ok());
    let seen = seen.into_inner().unwrap();
    assert_eq!(seen["a"], 2);
    assert_eq!(seen["c"], 0);
}

#[test]
fn a_walk_from_inside_a_walk_is_busy() {
    let g = graph(&["a"], &[]);
    let inner = Mutex::new(None);
    let report = g
        .walk(&WalkOptions::new(), |_| {
            let err = g
                .walk(&WalkOptions::new(), |_| Ok::<(), String>(()))
                .unwrap_err();
            *inner.lock().unwrap() = Some(err.status());
            Ok::<(), String>(())
        })
        .unwrap();
    assert!(report.ok());
    assert_eq!(inner.into_inner().unwrap(), Some(Status::Busy));
}

#[test]
fn concurrent_walks_of_one_graph_are_serialised() {
    let (g, _) = layered(2, 3);
    let outcomes = Mutex::new(Vec::new());
    thread::scope(|s| {
        for _ in 0..4 {
            s.spawn(|| {
                let result = g.walk(&WalkOptions::new(), |_| {
                    thread::sleep(Duration::from_millis(2));
                    Ok::<(), String>(())
                });
                outcomes
                    .lock()
                    .unwrap()
                    .push(result.map(|r| r.ok()).map_err(|e| e.status()));
            });
        }
    });
    let outcomes = outcomes.into_inner().unwrap();
    assert_eq!(outcomes.len(), 4);
    assert!(outcomes.contains(&Ok(true)), "{:?}", outcomes);
    assert!(
        outcomes
            .iter()
            .all(|o| *o == Ok(true) || *o == Err(Status::Busy)),
        "{:?}",
        outcomes
    );
    // The flag is cleared afterwards.
    assert!(g
        .walk(&WalkOptions::new(), |_| Ok::<(), String>(()))
        .unwrap()
        .ok());
}

#[test]
fn walks_that_cannot_start_are_errors() {
    let cyclic = graph(&["a", "b"], &[("a", "b"), ("b", "a")]);
    let called = AtomicUsize::new(0);
    let err = cyclic
        .walk(&WalkOptions::new(), |_| {
            called.fetch_add(1, Ordering::SeqCst);
            Ok::<(), String>(())
        })
        .unwrap_err();
    assert_eq!(err.status(), Status::Cycle);
    assert!(err.message().contains("Cycle:\n  a\n  b"), "{}", err);
    assert_eq!(called.load(Ordering::SeqCst), 0);

    let g = graph(&["a"], &[]);
    let err = g
        .walk(&WalkOptions::new().parallelism(0), |_| Ok::<(), String>(()))
        .unwrap_err();
    assert_eq!(err.status(), Status::InvalidArgument);
    // 0 is libdag's default: a thread per slot of parallelism.
    assert!(g
        .walk(&WalkOptions::new().threads(0), |_| Ok::<(), String>(()))
        .unwrap()
        .ok());
    let err = g
        .walk(&WalkOptions::new().threads(1025), |_| Ok::<(), String>(()))
        .unwrap_err();
    assert_eq!(err.status(), Status::InvalidArgument);
    assert_eq!(
        err.message(),
        "Graph::walk: WalkOptions::threads is 1025, more than 1024"
    );
    let err = g
        .walk(&WalkOptions::new().always_run([VertexId(42)]), |_| {
            Ok::<(), String>(())
        })
        .unwrap_err();
    assert_eq!(err.status(), Status::UnknownVertex);
    // A refused walk leaves the graph walkable.
    assert!(g
        .walk(&WalkOptions::new(), |_| Ok::<(), String>(()))
        .unwrap()
        .ok());
}

#[test]
fn empty_graph_and_timestamps_off() {
    let empty = Graph::new().unwrap();
    let report = empty
        .walk(&WalkOptions::new(), |_| Ok::<(), String>(()))
        .unwrap();
    assert!(report.ok());
    assert!(report.is_empty());
    assert_eq!(report.first_error(), None);

    let g = graph(&["a", "b"], &[("a", "b")]);
    let report = g
        .walk(&WalkOptions::new().timestamps(false), |_| {
            Ok::<(), String>(())
        })
        .unwrap();
    for v in report.vertices() {
        assert_eq!((v.start_ns(), v.end_ns()), (0, 0));
        assert!(v.ran());
    }
    assert!(report.vertex(VertexId(999)).is_none());
    assert_eq!(VertexStatus::UpstreamFailed.to_string(), "upstream-failed");
}

#[test]
fn failure_messages_from_eight_threads_at_once() {
    // Each message goes to libdag (dag_walk_fail) from a String dropped as
    // the callback returns; each vertex must still report its own. The
    // first eight callbacks wait for each other: eight threads fail at once.
    let mut g = Graph::new().unwrap();
    let ids: Vec<VertexId> = (0..64).map(|_| g.add_vertex(None).unwrap()).collect();
    let entered = Mutex::new(0usize);
    let all_in = Condvar::new();
    let report = g
        .walk(&WalkOptions::new().parallelism(8), |v| {
            {
                let mut n = entered.lock().unwrap();
                *n += 1;
                if *n <= 8 {
                    all_in.notify_all();
                    let (n, timeout) = all_in
                        .wait_timeout_while(n, Duration::from_secs(60), |n| *n < 8)
                        .unwrap();
                    if timeout.timed_out() {
                        return Err(format!("only {} callbacks ran at once", *n));
                    }
                }
            }
            if v.0 % 2 == 0 {
                Err(format!("vertex {} {}", v.0, "x".repeat(v.0 as usize)))
            } else {
                Ok::<(), String>(())
            }
        })
        .unwrap();
    for v in ids {
        let r = report.vertex(v).unwrap();
        if v.0 % 2 == 0 {
            assert_eq!(r.status(), VertexStatus::Failed);
            assert_eq!(
                r.message(),
                format!("vertex {} {}", v.0, "x".repeat(v.0 as usize))
            );
        } else {
            assert_eq!(r.status(), VertexStatus::Ok);
        }
    }
}

#[test]
fn reports_read_every_vertex_in_id_order() {
    // More vertices than the report iterator reads from libdag at once.
    let (g, _) = layered(3, 200);
    let report = g
        .walk(&WalkOptions::new().parallelism(4), |v| {
            if v.0 % 100 == 0 {
                Err(format!("{} is a round number", v))
            } else {
                Ok(())
            }
        })
        .unwrap();
    let ids = report.ids().unwrap();
    assert_eq!(ids, g.vertices().unwrap());
    let vertices = report.vertices();
    assert_eq!(vertices.len(), 600);
    let read: Vec<_> = vertices.collect();
    assert_eq!(read.iter().map(|v| v.id()).collect::<Vec<_>>(), ids);
    for v in &read {
        let one = report.vertex(v.id()).unwrap();
        assert_eq!(
            (one.status(), one.message(), one.ran()),
            (v.status(), v.message(), v.ran())
        );
        if v.status() == VertexStatus::Failed {
            assert_eq!(v.id().0 % 100, 0);
            assert_eq!(v.message(), format!("{} is a round number", v.id()));
            assert!(v.source().unwrap().to_string().ends_with("round number"));
        }
    }
    // 100 and 200 fail in the first layer; both upper layers depend on
    // them.
    assert_eq!(report.count(VertexStatus::Failed), 2);
    assert_eq!(report.count(VertexStatus::Ok), 198);
    assert_eq!(report.count(VertexStatus::UpstreamFailed), 400);
}
