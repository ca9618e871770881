//! Terraform's semantics: roots, validation wording, cycles, reduction,
//! orders, traversals and ancestor / descendant queries.

use std::cell::Cell;
use std::panic::{self, AssertUnwindSafe};

use libdag::{Graph, Search, SearchAction, Status, Traversal, VertexId, Visit};

mod common;
use common::{hide_expected_panics, EXPECTED_PANIC};

/// A graph of named vertices and `(from, to)` edges by name.
fn graph(names: &[&str], edges: &[(&str, &str)]) -> (Graph, Vec<VertexId>) {
    let mut g = Graph::new().unwrap();
    let ids: Vec<VertexId> = names
        .iter()
        .map(|n| g.add_vertex(Some(n)).unwrap())
        .collect();
    for (from, to) in edges {
        let (from, to) = (g.find(from).unwrap(), g.find(to).unwrap());
        g.connect(from, to).unwrap();
    }
    (g, ids)
}

fn names(g: &Graph, ids: &[VertexId]) -> Vec<String> {
    ids.iter()
        .map(|&id| g.name(id).unwrap().unwrap().to_owned())
        .collect()
}

#[test]
fn execution_order_runs_dependencies_first() {
    // a depends on b, b depends on c.
    let (g, _) = graph(&["a", "b", "c"], &[("a", "b"), ("b", "c")]);
    assert_eq!(
        names(&g, &g.reverse_topological_order().unwrap()),
        ["c", "b", "a"]
    );
    assert_eq!(names(&g, &g.topological_order().unwrap()), ["a", "b", "c"]);
    // Ties go by name, whatever the ids.
    let (g, _) = graph(&["c", "a", "b"], &[]);
    assert_eq!(names(&g, &g.topological_order().unwrap()), ["a", "b", "c"]);
    assert_eq!(
        names(&g, &g.reverse_topological_order().unwrap()),
        ["a", "b", "c"]
    );
}

#[test]
fn orders_refuse_cycles_and_self_references() {
    let (g, _) = graph(&["a", "b"], &[("a", "b"), ("b", "a")]);
    let err = g.topological_order().unwrap_err();
    assert_eq!(err.status(), Status::Cycle);
    assert!(err.message().contains("Cycle:\n  a\n  b"), "{}", err);
    let (g, _) = graph(&["a"], &[("a", "a")]);
    let err = g.reverse_topological_order().unwrap_err();
    assert_eq!(err.status(), Status::Cycle);
    assert!(err.message().contains("Self reference: a"), "{}", err);
}

#[test]
fn root_is_the_vertex_nothing_depends_on() {
    let (g, ids) = graph(&["a", "b", "c"], &[("a", "b"), ("b", "c")]);
    assert_eq!(g.root().unwrap(), ids[0]);

    let (g, _) = graph(&["b", "a", "c"], &[("a", "c"), ("b", "c")]);
    let err = g.root().unwrap_err();
    assert_eq!(err.status(), Status::MultipleRoots);
    assert_eq!(err.message(), "Graph::root: multiple roots: a, b");

    let err = Graph::new().unwrap().root().unwrap_err();
    assert_eq!(err.status(), Status::NoRoot);
    assert_eq!(err.message(), "Graph::root: no roots found");
}

#[test]
fn valid_graph_validates() {
    let (g, _) = graph(&["a", "b"], &[("a", "b")]);
    let v = g.validate(true).unwrap();
    assert!(v.ok());
    assert_eq!(v.status(), Status::Ok);
    assert_eq!(v.text(), "");
    assert!(v.messages().is_empty());
    assert!(v.cycles().is_empty());
    assert!(v.self_references().is_empty());
    assert!(v.error().is_none());
    v.into_result().unwrap();
}

#[test]
fn cycle_text_is_terraforms() {
    // Each line depends on the next, starting at the shortest name.
    let (g, ids) = graph(&["a", "b", "c"], &[("a", "b"), ("b", "c"), ("c", "a")]);
    let v = g.validate(false).unwrap();
    assert!(!v.ok());
    assert_eq!(v.status(), Status::Cycle);
    assert_eq!(v.text(), "Cycle:\n  a\n  b\n  c");
    assert_eq!(v.messages(), ["Cycle:\n  a\n  b\n  c"]);
    assert_eq!(v.cycles(), std::slice::from_ref(&ids));
    assert_eq!(g.cycles().unwrap(), vec![ids]);

    let err = v.error().unwrap();
    assert_eq!(err.status(), Status::Cycle);
    assert_eq!(err.message(), "Graph::validate: Cycle:\n  a\n  b\n  c");
    assert_eq!(v.into_result().unwrap_err().status(), Status::Cycle);

    // The rotation starts at the shortest name, not the first added.
    let (g, _) = graph(
        &["long", "xy", "z"],
        &[("long", "xy"), ("xy", "z"), ("z", "long")],
    );
    assert_eq!(
        g.validate(false).unwrap().text(),
        "Cycle:\n  z\n  long\n  xy"
    );
}

#[test]
fn validation_reports_every_problem_at_once() {
    // Two roots (x and y), a cycle a <-> b under x, and a self reference.
    let (g, ids) = graph(
        &["x", "y", "a", "b", "s"],
        &[("x", "a"), ("a", "b"), ("b", "a"), ("y", "s"), ("s", "s")],
    );
    let v = g.validate(true).unwrap();
    // A cycle is reported as one, whatever else is wrong.
    assert_eq!(v.status(), Status::Cycle);
    assert_eq!(
        v.messages(),
        [
            "multiple roots: x, y",
            "Cycle:\n  a\n  b",
            "Self reference: s"
        ]
    );
    assert_eq!(v.text(), v.messages().join("\n"));
    assert_eq!(v.self_references(), [ids[4]]);
    assert_eq!(v.cycles(), [vec![ids[2], ids[3]]]);

    // Without the root rule only the cycles remain.
    let v = g.validate(false).unwrap();
    assert_eq!(v.status(), Status::Cycle);
    assert_eq!(v.messages().len(), 2);

    let (g, _) = graph(&["a", "b"], &[]);
    let v = g.validate(true).unwrap();
    assert_eq!(v.status(), Status::MultipleRoots);
    assert!(g.validate(false).unwrap().ok());
    assert_eq!(
        Graph::new().unwrap().validate(true).unwrap().status(),
        Status::NoRoot
    );
}

#[test]
fn strongly_connected_components_follow_dependencies() {
    // The header's example: a->b, b->a, b->c gives {c} then {b, a}.
    let (g, ids) = graph(&["a", "b", "c"], &[("a", "b"), ("b", "a"), ("b", "c")]);
    let (a, b, c) = (ids[0], ids[1], ids[2]);
    assert_eq!(g.strongly_connected().unwrap(), vec![vec![c], vec![b, a]]);
    assert_eq!(g.cycles().unwrap(), vec![vec![a, b]]);
}

#[test]
fn transitive_reduction_removes_implied_edges() {
    let (mut g, ids) = graph(&["a", "b", "c"], &[("a", "b"), ("b", "c"), ("a", "c")]);
    assert_eq!(g.transitive_reduction().unwrap(), 1);
    assert_eq!(g.edges().unwrap(), vec![(ids[0], ids[1]), (ids[1], ids[2])]);
    assert_eq!(g.transitive_reduction().unwrap(), 0);

    let (mut g, _) = graph(
        &["a", "b", "c"],
        &[("a", "b"), ("b", "a"), ("a", "c"), ("b", "c")],
    );
    let err = g.transitive_reduction().unwrap_err();
    assert_eq!(err.status(), Status::Cycle);
    assert!(err.message().contains("Cycle:"), "{}", err);
    assert_eq!(g.edge_count(), 4, "a refused reduction changes nothing");
}

#[test]
fn ancestors_and_descendants_use_terraforms_names() {
    let (g, ids) = graph(&["a", "b", "c"], &[("a", "b"), ("b", "c")]);
    let (a, b, c) = (ids[0], ids[1], ids[2]);
    assert_eq!(g.ancestors(&[a]).unwrap(), vec![b, c]);
    assert_eq!(g.ancestors(&[c]).unwrap(), vec![]);
    assert_eq!(g.ancestors(&[a, b]).unwrap(), vec![b, c]);
    assert_eq!(g.descendants(&[c]).unwrap(), vec![a, b]);
    assert_eq!(g.descendants(&[a]).unwrap(), vec![]);
    assert_eq!(g.ancestors(&[]).unwrap(), vec![]);
}

#[test]
fn first_ancestors_with_stops_each_branch_at_its_first_match() {
    let (g, ids) = graph(&["a", "b", "c", "d"], &[("a", "b"), ("b", "c"), ("a", "d")]);
    let (a, b, c, d) = (ids[0], ids[1], ids[2], ids[3]);
    let seen = Cell::new(0);
    let found = g
        .first_ancestors_with(&[a], |v| {
            seen.set(seen.get() + 1);
            v == b || v == c
        })
        .unwrap();
    assert_eq!(found, vec![b]);
    assert_eq!(
        seen.get(),
        2,
        "c is only reachable through b, so never tested"
    );

    assert_eq!(
        g.first_descendants_with(&[c], |v| v == b || v == a)
            .unwrap(),
        vec![b]
    );
    assert_eq!(g.first_descendants_with(&[d], |_| false).unwrap(), vec![]);
}

#[test]
fn match_ancestor_and_descendant() {
    let (g, ids) = graph(&["a", "b", "c"], &[("a", "b"), ("b", "c")]);
    let (a, b, c) = (ids[0], ids[1], ids[2]);
    assert!(g.match_ancestor(&[a], |v| v == c).unwrap());
    assert!(
        !g.match_ancestor(&[a], |v| v == a).unwrap(),
        "a is not its own ancestor"
    );
    assert!(g.match_descendant(&[c], |v| v == a).unwrap());
    assert!(!g.match_descendant(&[b], |v| v == c).unwrap());
    // The predicate may read the graph it searches.
    assert!(g
        .match_ancestor(&[a], |v| g.name(v).unwrap() == Some("c"))
        .unwrap());
    assert_eq!(
        g.match_ancestor(&[VertexId(77)], |_| true)
            .unwrap_err()
            .status(),
        Status::UnknownVertex
    );
}

#[test]
fn a_panicking_predicate_panics_the_caller_and_leaves_the_graph_usable() {
    hide_expected_panics();
    let (g, ids) = graph(&["a", "b", "c"], &[("a", "b"), ("b", "c")]);
    let calls = Cell::new(0);
    let caught = panic::catch_unwind(AssertUnwindSafe(|| {
        g.first_ancestors_with(&[ids[0]], |_| {
            calls.set(calls.get() + 1);
            panic!("expected test panic: predicate exploded")
        })
    }))
    .unwrap_err();
    assert_eq!(
        caught.downcast_ref::<&str>(),
        Some(&"expected test panic: predicate exploded")
    );
    assert_eq!(calls.get(), 1, "no call after the panic");

    let caught = panic::catch_unwind(AssertUnwindSafe(|| {
        g.match_descendant(&[ids[2]], |_| panic!("{}owned message", EXPECTED_PANIC))
    }))
    .unwrap_err();
    assert_eq!(
        caught.downcast_ref::<String>().map(String::as_str),
        Some("expected test panic: owned message")
    );

    assert_eq!(g.ancestors(&[ids[0]]).unwrap(), vec![ids[1], ids[2]]);
}

#[test]
fn traversals_visit_in_terraforms_orders() {
    // The header's example: a->b, a->c from {a}.
    let (g, ids) = graph(&["a", "b", "c"], &[("a", "b"), ("a", "c")]);
    let (a, b, c) = (ids[0], ids[1], ids[2]);
    let mut seen = Vec::new();
    g.traverse(&[a], Traversal::depth_first(), |v, depth| {
        seen.push((v, depth));
        Visit::Continue
    })
    .unwrap();
    assert_eq!(seen, vec![(a, 0), (c, 1), (b, 1)]);

    seen.clear();
    g.traverse(&[a], Traversal::breadth_first(), |v, depth| {
        seen.push((v, depth));
        Visit::Continue
    })
    .unwrap();
    assert_eq!(seen, vec![(a, 0), (b, 1), (c, 1)]);

    seen.clear();
    g.traverse(&[b], Traversal::breadth_first().reverse(), |v, depth| {
        seen.push((v, depth));
        Visit::Continue
    })
    .unwrap();
    assert_eq!(seen, vec![(b, 0), (a, 1)]);
}

#[test]
fn traversal_skip_and_stop() {
    let (g, ids) = graph(&["a", "b", "c", "d"], &[("a", "b"), ("b", "c"), ("a", "d")]);
    let (a, b, d) = (ids[0], ids[1], ids[3]);
    let mut seen = Vec::new();
    g.traverse(&[a], Traversal::breadth_first(), |v, _| {
        seen.push(v);
        if v == b {
            Visit::Skip
        } else {
            Visit::Continue
        }
    })
    .unwrap();
    assert_eq!(seen, vec![a, b, d], "c lies beyond the skipped b");

    let mut count = 0;
    g.traverse(&[a], Traversal::depth_first().sorted(), |_, _| {
        count += 1;
        Visit::Stop
    })
    .unwrap();
    assert_eq!(count, 1);

    let err = g
        .traverse(&[VertexId(0)], Traversal::default(), |_, _| Visit::Continue)
        .unwrap_err();
    assert_eq!(err.status(), Status::UnknownVertex);
}

#[test]
fn the_graph_cannot_change_while_a_visitor_reads_it() {
    // The borrow checker makes the C API's DAG_E_BUSY unreachable: a visitor
    // only ever gets `&Graph`. What it can do is read.
    let (g, ids) = graph(&["a", "b"], &[("a", "b")]);
    let mut names_seen = Vec::new();
    g.traverse(&[ids[0]], Traversal::default(), |v, _| {
        names_seen.push(g.name(v).unwrap().unwrap().to_owned());
        assert_eq!(g.topological_order().unwrap().len(), 2);
        Visit::Continue
    })
    .unwrap();
    assert_eq!(names_seen, ["a", "b"]);
}

#[test]
fn concurrent_readers_share_one_graph() {
    let mut g = Graph::new().unwrap();
    let ids: Vec<VertexId> = (0..200).map(|_| g.add_vertex(None).unwrap()).collect();
    let chain: Vec<(VertexId, VertexId)> = ids.windows(2).map(|w| (w[1], w[0])).collect();
    g.connect_many(&chain).unwrap();
    let g = &g;
    std::thread::scope(|s| {
        for _ in 0..4 {
            s.spawn(|| {
                for _ in 0..20 {
                    assert_eq!(g.reverse_topological_order().unwrap(), ids);
                    assert_eq!(g.ancestors(&[ids[199]]).unwrap().len(), 199);
                    assert!(g.validate(true).unwrap().ok());
                }
            });
        }
    });
}

#[test]
fn roots_leaves_and_degrees() {
    // a -> b, a -> c; lone has no edges; me depends on itself.
    let (mut g, ids) = graph(
        &["a", "b", "c", "lone", "me"],
        &[("a", "b"), ("a", "c"), ("me", "me")],
    );
    let [a, b, c, lone, me] = [ids[0], ids[1], ids[2], ids[3], ids[4]];
    assert_eq!(g.roots().unwrap(), vec![a, lone]);
    assert_eq!(g.leaves().unwrap(), vec![b, c, lone]);
    assert_eq!(
        (
            g.dependency_count(a).unwrap(),
            g.dependent_count(a).unwrap()
        ),
        (2, 0)
    );
    assert_eq!(
        (
            g.dependency_count(b).unwrap(),
            g.dependent_count(b).unwrap()
        ),
        (0, 1)
    );
    assert_eq!(
        (
            g.dependency_count(me).unwrap(),
            g.dependent_count(me).unwrap()
        ),
        (1, 1)
    );
    g.remove_vertex(a).unwrap();
    assert_eq!(g.roots().unwrap(), vec![b, c, lone]);
    assert_eq!(
        g.dependency_count(a).unwrap_err().status(),
        Status::UnknownVertex
    );
    assert_eq!(
        g.dependent_count(VertexId(0)).unwrap_err().status(),
        Status::UnknownVertex
    );
    let empty = Graph::new().unwrap();
    assert!(empty.roots().unwrap().is_empty());
    assert!(empty.leaves().unwrap().is_empty());
}

#[test]
fn search_actions_and_directions() {
    // The header's example: a->b, b->c, a->d (ids in that order).
    let (g, ids) = graph(&["a", "b", "c", "d"], &[("a", "b"), ("b", "c"), ("a", "d")]);
    let [a, b, c, d] = [ids[0], ids[1], ids[2], ids[3]];
    let run = |start: VertexId, search: Search, answers: &[(VertexId, SearchAction)]| {
        let mut seen = Vec::new();
        let found = g.search(&[start], search, |v| {
            seen.push(v);
            answers
                .iter()
                .find(|(id, _)| *id == v)
                .map_or(SearchAction::NoMatch, |(_, a)| *a)
        });
        (found, seen)
    };
    use SearchAction::*;
    let (found, seen) = run(a, Search::ancestors(), &[(b, Match), (c, Match)]);
    assert_eq!((found.unwrap(), seen), (vec![b, c], vec![d, b, c]));
    let (found, seen) = run(
        a,
        Search::ancestors().first_match(),
        &[(b, Match), (c, Match)],
    );
    assert_eq!((found.unwrap(), seen), (vec![b], vec![d, b]));
    let (found, seen) = run(a, Search::ancestors(), &[(b, Skip), (c, Match), (d, Match)]);
    assert_eq!((found.unwrap(), seen), (vec![d], vec![d, b]));
    let (found, seen) = run(a, Search::ancestors(), &[(b, Stop), (d, Match)]);
    assert_eq!((found.unwrap(), seen), (vec![d], vec![d, b]));
    let (found, seen) = run(a, Search::ancestors(), &[(b, MatchAndStop)]);
    assert_eq!((found.unwrap(), seen), (vec![b], vec![d, b]));
    let (found, seen) = run(c, Search::descendants(), &[(a, Match), (b, Match)]);
    assert_eq!((found.unwrap(), seen), (vec![a, b], vec![b, a]));
    let (found, _) = run(
        c,
        Search::descendants().first_match(),
        &[(a, Match), (b, Match)],
    );
    assert_eq!(found.unwrap(), vec![b]);

    let (found, seen) = run(a, Search::ancestors(), &[(d, Match), (b, Abort)]);
    let err = found.unwrap_err();
    assert_eq!(err.status(), Status::Cancelled);
    assert!(err.message().contains("aborted"), "{}", err.message());
    assert_eq!(seen, vec![d, b]);
    // The graph is usable after the abort.
    assert_eq!(g.ancestors(&[a]).unwrap(), vec![b, c, d]);
}

#[test]
fn a_panicking_search_callback_aborts_at_once() {
    hide_expected_panics();
    // a depends on b, c and d: the panic must end the whole search, not
    // only its branch.
    let (g, ids) = graph(&["a", "b", "c", "d"], &[("a", "b"), ("a", "c"), ("a", "d")]);
    let calls = Cell::new(0);
    let caught = panic::catch_unwind(AssertUnwindSafe(|| {
        g.search(&[ids[0]], Search::ancestors(), |_| {
            calls.set(calls.get() + 1);
            panic!("expected test panic: search exploded")
        })
    }))
    .unwrap_err();
    assert_eq!(
        caught.downcast_ref::<&str>(),
        Some(&"expected test panic: search exploded")
    );
    assert_eq!(calls.get(), 1);
    assert_eq!(g.ancestors(&[ids[0]]).unwrap().len(), 3);
}
