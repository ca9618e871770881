//! Builder: Terraform-like declarations through the built-in steps, steps
//! and prune predicates in Rust, errors and panics.

mod common;

use std::collections::BTreeSet;

use libdag::{Action, Builder, Graph, Status, StepGraph};

fn named_edges(g: &Graph) -> BTreeSet<(String, String)> {
    g.edges()
        .unwrap()
        .into_iter()
        .map(|(a, b)| {
            (
                g.name(a).unwrap().unwrap().to_owned(),
                g.name(b).unwrap().unwrap().to_owned(),
            )
        })
        .collect()
}

fn set(edges: &[(&str, &str)]) -> BTreeSet<(String, String)> {
    edges
        .iter()
        .map(|(a, b)| ((*a).to_owned(), (*b).to_owned()))
        .collect()
}

#[test]
fn standard_steps_build_the_terraform_like_graph() {
    let mut g = Graph::new().unwrap();
    let vpc = g.add_vertex(Some("aws_vpc.main")).unwrap();
    let subnet = g.add_vertex(Some("aws_subnet.public")).unwrap();
    let out = g.add_vertex(Some("output.subnet")).unwrap();
    {
        let mut b = Builder::new(&mut g).unwrap();
        b.provide(vpc, "aws_vpc.main").unwrap();
        b.provide(subnet, "aws_subnet.public").unwrap();
        b.reference(subnet, "aws_vpc.main.id").unwrap();
        b.reference(out, "aws_subnet.public[0].id").unwrap();
        b.need(vpc, "provider[\"aws\"]").unwrap();
        b.need(subnet, "provider[\"aws\"]").unwrap();
        b.set_action(subnet, Action::CreateBeforeDestroy).unwrap();
        b.add_references(false).unwrap();
        b.add_destroy_order().unwrap();
        b.add_shared(true).unwrap();
        b.add_root(None).unwrap();
        b.add_transitive_reduction().unwrap();
        assert!(b.build(true, true).unwrap().is_empty());
    }
    assert_eq!(
        named_edges(&g),
        set(&[
            ("aws_subnet.public", "aws_vpc.main"),
            ("aws_vpc.main", "provider[\"aws\"]"),
            ("output.subnet", "aws_subnet.public"),
            ("aws_subnet.public (destroy)", "output.subnet"),
            ("provider[\"aws\"] (close)", "aws_subnet.public (destroy)"),
        ])
    );
}

#[test]
fn rust_steps_and_prune_predicates_run_in_order() {
    let mut g = Graph::new().unwrap();
    let mut seen = Vec::new();
    {
        let mut b = Builder::new(&mut g).unwrap();
        b.add_step("config", |g: &mut StepGraph<'_>| {
            let a = g.add_vertex(Some("output.a")).map_err(|e| e.to_string())?;
            let c = g.add_vertex(Some("c")).map_err(|e| e.to_string())?;
            g.add_vertex(Some("keep")).map_err(|e| e.to_string())?;
            g.connect(a, c).map_err(|e| e.to_string())
        })
        .unwrap();
        b.add_prune(|g: &Graph, id| {
            let name = g.name(id).unwrap().unwrap().to_owned();
            seen.push(name.clone());
            name != "keep"
        })
        .unwrap();
        b.build(true, false).unwrap();
    }
    assert_eq!(seen, ["output.a", "keep", "c"]);
    assert_eq!(g.vertex_count(), 1);
}

#[test]
fn failures_name_the_step() {
    let mut g = Graph::new().unwrap();
    let web = g.add_vertex(Some("web")).unwrap();
    let mut b = Builder::new(&mut g).unwrap();
    b.reference(web, "var.region").unwrap();
    b.add_references(false).unwrap();
    let err = b.build(true, true).unwrap_err();
    assert_eq!(err.status(), Status::NotFound);
    assert!(
        err.to_string().contains(
            "step 'references': 1 unresolved reference:\n  web: nothing provides \"var.region\""
        ),
        "{}",
        err
    );
    drop(b);
    let mut lenient = Builder::new(&mut g).unwrap();
    lenient.reference(web, "var.region").unwrap();
    lenient.add_references(true).unwrap();
    lenient
        .add_step("lock", |_: &mut StepGraph<'_>| {
            Err("state is locked".to_owned())
        })
        .unwrap();
    let err = lenient.build(true, true).unwrap_err();
    assert_eq!(err.status(), Status::Cancelled);
    assert!(
        err.to_string().contains("step 'lock': state is locked"),
        "{}",
        err
    );
    assert_eq!(
        lenient.warnings().unwrap(),
        ["web: nothing provides \"var.region\""]
    );
    assert_eq!(
        lenient.provide(web, "a\0b").unwrap_err().status(),
        Status::InvalidArgument
    );
}

#[test]
fn a_panicking_step_panics_from_build() {
    common::hide_expected_panics();
    let mut g = Graph::new().unwrap();
    let mut b = Builder::new(&mut g).unwrap();
    b.add_step("explode", |_: &mut StepGraph<'_>| {
        panic!("{}boom", common::EXPECTED_PANIC)
    })
    .unwrap();
    let caught = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| b.build(false, false)));
    assert!(caught.is_err());
}

#[test]
fn a_panicking_prune_predicate_prunes_no_more_and_panics_from_build() {
    common::hide_expected_panics();
    let mut g = Graph::new().unwrap();
    g.add_vertex(Some("a")).unwrap();
    g.add_vertex(Some("b")).unwrap();
    let calls = std::cell::Cell::new(0);
    let mut b = Builder::new(&mut g).unwrap();
    b.add_prune(|_: &Graph, _| {
        calls.set(calls.get() + 1);
        panic!("{}boom", common::EXPECTED_PANIC)
    })
    .unwrap();
    b.add_root(Some("top")).unwrap();
    let caught = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| b.build(false, false)));
    assert!(caught.is_err());
    drop(b);
    assert_eq!(calls.get(), 1);
    // The root step after it ran: libdag cannot be stopped from the predicate.
    assert_eq!(g.vertex_count(), 3);
    assert!(g.find("top").is_some());
}

#[test]
fn the_first_of_two_panics_comes_out_and_the_next_build_runs_both_again() {
    // The prune step's predicate panics, then a later step: build resumed
    // the step's panic (steps were looked at first), and the predicate's
    // stayed behind, so the next build called it no more and resumed it.
    common::hide_expected_panics();
    let mut g = Graph::new().unwrap();
    let keep = g.add_vertex(Some("keep")).unwrap();
    let out = g.add_vertex(Some("out")).unwrap();
    g.connect(keep, out).unwrap();
    let fail = std::cell::Cell::new(true);
    let calls = std::cell::Cell::new(0);
    let mut b = Builder::new(&mut g).unwrap();
    b.add_prune(|_: &Graph, _| {
        calls.set(calls.get() + 1);
        if fail.get() {
            panic!("{}predicate", common::EXPECTED_PANIC);
        }
        false
    })
    .unwrap();
    b.add_step("later", |_: &mut StepGraph<'_>| {
        if fail.get() {
            panic!("{}step", common::EXPECTED_PANIC);
        }
        Ok(())
    })
    .unwrap();
    let first = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| b.build(false, false)))
        .unwrap_err();
    assert_eq!(
        first.downcast_ref::<String>().map(String::as_str),
        Some(&*format!("{}predicate", common::EXPECTED_PANIC))
    );
    fail.set(false);
    let before = calls.get();
    let second = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| b.build(false, false)));
    assert!(second.unwrap().is_ok());
    assert!(calls.get() > before, "the predicate was not called again");
}

#[test]
fn a_predicates_panic_before_the_observers_is_the_one_that_comes_out() {
    common::hide_expected_panics();
    let mut g = Graph::new().unwrap();
    g.add_vertex(Some("a")).unwrap();
    let mut b = Builder::new(&mut g).unwrap();
    b.add_prune(|_: &Graph, _| panic!("{}predicate", common::EXPECTED_PANIC))
        .unwrap();
    let caught = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
        b.build_observed(false, false, |_| {
            panic!("{}observer", common::EXPECTED_PANIC)
        })
    }))
    .unwrap_err();
    assert_eq!(
        caught.downcast_ref::<String>().map(String::as_str),
        Some(&*format!("{}predicate", common::EXPECTED_PANIC))
    );
}

#[test]
fn a_step_changes_its_graph_through_its_step_graph() {
    // A step got `&mut Graph` for a graph it did not own, which
    // `std::mem::swap` or `replace` could move out of the build and use
    // once the real one was gone; it gets a `StepGraph` now, which reads
    // through `Deref` and changes through `Graph`'s own methods.
    let mut g = Graph::new().unwrap();
    let a = g.add_vertex(Some("a")).unwrap();
    let mut extra = Graph::new().unwrap();
    extra.add_vertex(Some("extra")).unwrap();
    let mut seen = None;
    {
        let mut b = Builder::new(&mut g).unwrap();
        b.add_step("edit", |g: &mut StepGraph<'_>| {
            let mut run = |g: &mut StepGraph<'_>| -> libdag::Result<()> {
                let ids = g.add_vertices(&[Some("b"), Some("c"), Some("d")])?;
                let (b, c, d) = (ids[0], ids[1], ids[2]);
                let e = g.add_vertex(Some("e"))?;
                g.connect_many(&[(a, b), (b, c), (a, c)])?;
                g.connect(c, d)?;
                g.disconnect(c, d)?;
                g.remove_vertex(d)?;
                g.set_name(e, Some("e2"))?;
                g.set_user_data(e, 7)?;
                g.replace_vertex(e, c)?;
                g.subsume(&extra)?;
                assert_eq!(g.transitive_reduction()?, 1);
                assert!(!g.as_raw_mut().is_null());
                seen = Some((g.vertex_count(), g.edge_count()));
                Ok(())
            };
            run(g).map_err(|e| e.to_string())
        })
        .unwrap();
        b.build(false, false).unwrap();
    }
    assert_eq!(seen, Some((4, 2)));
    assert_eq!(named_edges(&g), set(&[("a", "b"), ("b", "c")]));
    assert!(g.find("extra").is_some());
    assert!(g.find("d").is_none());
}

#[test]
fn the_build_observer_hears_each_step_with_its_counts() {
    let mut g = Graph::new().unwrap();
    let vpc = g.add_vertex(Some("aws_vpc.main")).unwrap();
    let subnet = g.add_vertex(Some("aws_subnet.public")).unwrap();
    g.add_vertex(Some("dns")).unwrap();
    let mut heard = Vec::new();
    {
        let mut b = Builder::new(&mut g).unwrap();
        b.provide(vpc, "aws_vpc.main").unwrap();
        b.reference(subnet, "aws_vpc.main.id").unwrap();
        b.add_references(false).unwrap();
        b.add_root(None).unwrap();
        b.build_observed(true, true, |step| {
            let names = step.graph().vertex_count();
            heard.push((
                step.name.to_owned(),
                step.index,
                (step.vertices_before, step.edges_before),
                (step.vertices_after, step.edges_after),
                names,
            ));
        })
        .unwrap();
    }
    assert_eq!(
        heard,
        [
            ("references".to_owned(), 0, (3, 0), (3, 1), 3),
            // Two roots (the subnet and dns): the step adds one above them.
            ("root".to_owned(), 1, (3, 1), (4, 3), 4),
        ]
    );
}

#[test]
fn a_panicking_build_observer_is_not_called_again_and_panics_from_build() {
    common::hide_expected_panics();
    let mut g = Graph::new().unwrap();
    g.add_vertex(Some("a")).unwrap();
    g.add_vertex(Some("b")).unwrap();
    let mut calls = 0;
    let mut b = Builder::new(&mut g).unwrap();
    b.add_step("one", |_: &mut StepGraph<'_>| Ok(())).unwrap();
    b.add_root(Some("top")).unwrap();
    let caught = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
        b.build_observed(false, false, |_| {
            calls += 1;
            panic!("{}observer", common::EXPECTED_PANIC)
        })
    }));
    assert!(caught.is_err());
    drop(b);
    assert_eq!(calls, 1);
    assert!(g.find("top").is_some(), "the steps after it ran");
}

/// A panic payload whose `Drop` panics: dropped while another panic
/// unwinds, it would abort the process.
struct LoudPayload;

impl Drop for LoudPayload {
    fn drop(&mut self) {
        if !std::thread::panicking() {
            panic!("{}payload dropped", common::EXPECTED_PANIC)
        }
        std::process::abort();
    }
}

#[test]
fn the_observers_panic_comes_out_and_a_later_steps_payload_is_not_dropped_while_it_unwinds() {
    common::hide_expected_panics();
    let mut g = Graph::new().unwrap();
    let mut b = Builder::new(&mut g).unwrap();
    b.add_step("one", |_: &mut StepGraph<'_>| Ok(())).unwrap();
    b.add_step("two", |_: &mut StepGraph<'_>| -> Result<(), String> {
        std::panic::resume_unwind(Box::new(LoudPayload))
    })
    .unwrap();
    let caught = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
        b.build_observed(false, false, |_| {
            std::panic::panic_any(format!("{}observer", common::EXPECTED_PANIC))
        })
    }));
    let payload = caught.unwrap_err();
    assert_eq!(
        payload.downcast_ref::<String>().map(String::as_str),
        Some(format!("{}observer", common::EXPECTED_PANIC).as_str())
    );
}
