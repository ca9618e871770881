//! Named limits (pools) and retries, and each attempt in the report.

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Condvar, Mutex};
use std::time::Duration;

use libdag::{Graph, Priority, Status, VertexId, VertexStatus, WalkOptions};

#[derive(Debug)]
struct Failure(String);

impl std::fmt::Display for Failure {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for Failure {}

fn vertices(g: &mut Graph, names: &[&str]) -> Vec<VertexId> {
    names
        .iter()
        .map(|n| g.add_vertex(Some(n)).unwrap())
        .collect()
}

#[test]
fn a_pool_bounds_its_vertices_and_others_run_meanwhile() {
    let mut g = Graph::new().unwrap();
    let aws = vertices(&mut g, &["a0", "a1", "a2", "a3", "a4", "a5", "a6", "a7"]);
    let free = g.add_vertex(Some("free")).unwrap();
    let mut options = WalkOptions::new().parallelism(8).pool("aws", 2);
    for &v in &aws {
        options = options.need(v, "aws");
    }
    let running = AtomicUsize::new(0);
    let peak = AtomicUsize::new(0);
    let free_ran = (Mutex::new(false), Condvar::new());
    let report = g
        .walk(&options, |v| {
            let (ran, changed) = &free_ran;
            if v == free {
                *ran.lock().unwrap() = true;
                changed.notify_all();
                return Ok(());
            }
            let now = running.fetch_add(1, Ordering::SeqCst) + 1;
            peak.fetch_max(now, Ordering::SeqCst);
            // The aws vertices holding the pool wait for "free", which needs
            // no pool: it must not queue behind the full pool.
            let (ran, _) = changed
                .wait_timeout_while(ran.lock().unwrap(), Duration::from_secs(60), |ran| !*ran)
                .unwrap();
            let ok = *ran;
            drop(ran);
            running.fetch_sub(1, Ordering::SeqCst);
            if ok {
                Ok(())
            } else {
                Err(Failure("free never ran while the pool was full".into()))
            }
        })
        .unwrap();
    assert!(report.ok(), "{:?}", report.error());
    assert!(peak.load(Ordering::SeqCst) <= 2);
    assert_eq!(report.count(VertexStatus::Ok), 9);
}

#[test]
fn undeclared_pools_zero_capacities_and_bad_names_are_refused() {
    let mut g = Graph::new().unwrap();
    let a = g.add_vertex(Some("a")).unwrap();
    let walk = |options: WalkOptions| {
        g.walk(&options, |_| Ok::<(), Failure>(()))
            .unwrap_err()
            .status()
    };
    let undeclared = WalkOptions::new().pool("aws", 1).need(a, "gcp");
    assert_eq!(walk(undeclared), Status::InvalidArgument);
    let empty = WalkOptions::new().pool("aws", 0).need(a, "aws");
    assert_eq!(walk(empty), Status::InvalidArgument);
    let nul = WalkOptions::new().pool("a\0b", 1);
    assert_eq!(walk(nul), Status::InvalidArgument);
    // Told by the method called, as the walk's other errors are.
    let nul = WalkOptions::new().pool("a\0b", 1);
    let err = g.walk(&nul, |_| Ok::<(), Failure>(())).unwrap_err();
    assert!(
        err.message().starts_with("Graph::walk: pool name"),
        "{}",
        err
    );
    let unknown = WalkOptions::new().pool("aws", 1).need(VertexId(999), "aws");
    assert_eq!(walk(unknown), Status::UnknownVertex);
}

#[test]
fn a_pull_walk_hands_out_only_what_the_pool_allows() {
    let mut g = Graph::new().unwrap();
    let ids = vertices(&mut g, &["a", "b"]);
    let options = WalkOptions::new()
        .parallelism(2)
        .pool("one", 1)
        .need(ids[0], "one")
        .need(ids[1], "one");
    let walker = g.begin_walk(&options).unwrap();
    let now = Some(Duration::ZERO);
    let first = walker
        .next_ready(now)
        .unwrap()
        .expect("one vertex is ready");
    assert_eq!(
        walker.next_ready(now).unwrap_err().status(),
        Status::Timeout,
        "the other needs the pool's only slot"
    );
    first.complete(Ok::<(), Failure>(())).unwrap();
    let second = walker
        .next_ready(now)
        .unwrap()
        .expect("the pool's slot is free again");
    second.complete(Ok::<(), Failure>(())).unwrap();
    assert!(walker.wait().unwrap().ok());
}

#[test]
fn the_longest_weighted_chain_starts_first() {
    let mut g = Graph::new().unwrap();
    let ids = vertices(&mut g, &["z1", "z2", "z3", "a"]);
    g.connect(ids[1], ids[0]).unwrap();
    g.connect(ids[2], ids[1]).unwrap();
    let order = |options: WalkOptions| {
        let started = Mutex::new(Vec::new());
        g.walk(&options.parallelism(1), |v| {
            started.lock().unwrap().push(v);
            Ok::<(), Failure>(())
        })
        .unwrap();
        started.into_inner().unwrap()
    };
    let (z1, z2, z3, a) = (ids[0], ids[1], ids[2], ids[3]);
    assert_eq!(
        order(WalkOptions::new().priority(Priority::CriticalPath)),
        vec![z1, z2, a, z3]
    );
    assert_eq!(
        order(WalkOptions::new().priority(Priority::Name)),
        vec![a, z1, z2, z3]
    );
    assert_eq!(
        order(
            WalkOptions::new()
                .priority(Priority::CriticalPath)
                .weight(a, 10)
        ),
        vec![a, z1, z2, z3]
    );
}

#[test]
fn a_vertex_that_fails_twice_then_succeeds_runs_three_times() {
    let mut g = Graph::new().unwrap();
    let ids = vertices(&mut g, &["db", "app"]);
    g.connect(ids[1], ids[0]).unwrap();
    let tries = AtomicUsize::new(0);
    let options = WalkOptions::new()
        .parallelism(1)
        .retries(2)
        .retry_delay(Duration::from_millis(1))
        .retry_doubling(true);
    let report = g
        .walk(&options, |v| {
            if v == ids[0] {
                let n = tries.fetch_add(1, Ordering::SeqCst) + 1;
                if n < 3 {
                    return Err(Failure(format!("db try {}", n)));
                }
            }
            Ok(())
        })
        .unwrap();
    assert!(report.ok());
    assert_eq!(report.attempts(ids[0]), Some(3));
    assert_eq!(
        report.attempt_messages(ids[0]).unwrap(),
        vec!["db try 1", "db try 2", ""]
    );
    assert_eq!(report.attempts(ids[1]), Some(1));
    assert_eq!(report.attempts(VertexId(999)), None);
}

#[test]
fn a_cap_under_a_millisecond_still_caps_the_back_off() {
    // 400 µs was 0 ms, which libdag reads as no cap: back-offs of 300 and 600 ms.
    let mut g = Graph::new().unwrap();
    vertices(&mut g, &["db"]);
    let calls = std::sync::Mutex::new(Vec::new());
    let options = WalkOptions::new()
        .retries(2)
        .retry_delay(Duration::from_millis(300))
        .retry_doubling(true)
        .retry_max_delay(Duration::from_micros(400));
    g.walk(&options, |_| {
        calls.lock().unwrap().push(std::time::Instant::now());
        Err(Failure("down".to_owned()))
    })
    .unwrap();
    let calls = calls.into_inner().unwrap();
    assert_eq!(calls.len(), 3);
    assert!(
        calls[2] - calls[0] < Duration::from_millis(300),
        "{:?}",
        calls[2] - calls[0]
    );
}

#[test]
fn per_vertex_retries_then_dependents_are_skipped() {
    let mut g = Graph::new().unwrap();
    let ids = vertices(&mut g, &["db", "app", "cache"]);
    g.connect(ids[1], ids[0]).unwrap();
    let options = WalkOptions::new().vertex_retries(ids[0], 1);
    let report = g
        .walk(&options, |v| {
            if v == ids[1] {
                Ok(())
            } else {
                Err(Failure("down".into()))
            }
        })
        .unwrap();
    assert_eq!(report.status(ids[0]), Some(VertexStatus::Failed));
    assert_eq!(
        report.attempt_messages(ids[0]).unwrap(),
        vec!["down", "down"]
    );
    assert_eq!(report.attempts(ids[2]), Some(1));
    assert_eq!(report.status(ids[1]), Some(VertexStatus::UpstreamFailed));
    assert_eq!(report.attempts(ids[1]), Some(0));
    assert!(report.attempt_messages(ids[1]).unwrap().is_empty());
}

#[test]
fn the_report_keeps_the_last_attempts_error_only() {
    let mut g = Graph::new().unwrap();
    let ids = vertices(&mut g, &["ok_later", "panics_later"]);
    let tries = [AtomicUsize::new(0), AtomicUsize::new(0)];
    let options = WalkOptions::new().parallelism(1).retries(1);
    let report = g
        .walk(&options, |v| {
            let which = usize::from(v == ids[1]);
            if tries[which].fetch_add(1, Ordering::SeqCst) == 0 {
                return Err(Failure(format!("first try of {}", which)));
            }
            if which == 1 {
                panic!("second try");
            }
            Ok(())
        })
        .unwrap();
    assert_eq!(report.status(ids[0]), Some(VertexStatus::Ok));
    assert!(report.source(ids[0]).is_none());
    assert_eq!(report.status(ids[1]), Some(VertexStatus::Failed));
    assert!(report.source(ids[1]).is_none());
    let error = report.error().unwrap();
    assert!(error.to_string().contains("second try"), "{}", error);
    assert!(std::error::Error::source(error).is_none());
}

#[test]
fn a_pull_walks_report_keeps_the_last_attempts_error_only() {
    for many in [false, true] {
        let mut g = Graph::new().unwrap();
        let a = vertices(&mut g, &["a"])[0];
        let walker = g.begin_walk(&WalkOptions::new().retries(2)).unwrap();
        let mut tries = 0;
        loop {
            let ready = if many {
                walker.next_ready_many(4, None).unwrap()
            } else {
                walker.next_ready(None).unwrap().into_iter().collect()
            };
            if ready.is_empty() {
                break;
            }
            for pending in ready {
                tries += 1;
                match tries {
                    1 => pending.fail(Failure("first".into())).unwrap(),
                    _ => pending.succeed().unwrap(),
                }
            }
        }
        let report = walker.wait().unwrap();
        assert_eq!(report.attempts(a), Some(2));
        assert_eq!(report.status(a), Some(VertexStatus::Ok));
        assert!(report.source(a).is_none(), "many: {}", many);
    }
}
