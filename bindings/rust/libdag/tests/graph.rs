//! Building and editing graphs, selections, user data, the errors for bad
//! input and how values print.

use libdag::{Graph, Select, Status, VertexId, VertexStatus};

fn named(graph: &mut Graph, names: &[&str]) -> Vec<VertexId> {
    names
        .iter()
        .map(|n| graph.add_vertex(Some(n)).unwrap())
        .collect()
}

#[test]
fn new_graph_is_empty() {
    let g = Graph::new().unwrap();
    assert_eq!(g.vertex_count(), 0);
    assert_eq!(g.edge_count(), 0);
    assert!(g.vertices().unwrap().is_empty());
    assert!(g.edges().unwrap().is_empty());
    assert_eq!(g.to_string(), "");
    assert_eq!(format!("{:?}", g), "Graph { vertices: 0, edges: 0 }");
}

#[test]
fn vertices_get_increasing_ids_that_are_never_reused() {
    let mut g = Graph::new().unwrap();
    let a = g.add_vertex(Some("a")).unwrap();
    let b = g.add_vertex(None).unwrap();
    assert_ne!(a.get(), 0);
    assert!(b > a);
    g.remove_vertex(b).unwrap();
    assert!(!g.has_vertex(b));
    let c = g.add_vertex(None).unwrap();
    assert!(c > b, "id {} reused after {} was removed", c, b);
    assert_eq!(g.vertices().unwrap(), vec![a, c]);
    assert_eq!(g.vertex_count(), 2);
}

#[test]
fn names_find_rename_and_unname() {
    let mut g = Graph::new().unwrap();
    let a = g.add_vertex(Some("a")).unwrap();
    let anon = g.add_vertex(None).unwrap();
    assert_eq!(g.find("a"), Some(a));
    assert_eq!(g.find("zzz"), None);
    assert_eq!(g.find(""), None);
    assert_eq!(g.find("a\0b"), None);
    assert_eq!(g.name(a).unwrap(), Some("a"));
    assert_eq!(g.name(anon).unwrap(), None);

    g.set_name(a, Some("renamed")).unwrap();
    assert_eq!(g.find("a"), None);
    assert_eq!(g.find("renamed"), Some(a));
    // The old name is free again.
    let a2 = g.add_vertex(Some("a")).unwrap();
    assert_ne!(a2, a);

    g.set_name(a, None).unwrap();
    assert_eq!(g.name(a).unwrap(), None);
    assert_eq!(g.find("renamed"), None);

    // Unicode names survive the round trip through C.
    let snow = g.add_vertex(Some("snö ☃")).unwrap();
    assert_eq!(g.name(snow).unwrap(), Some("snö ☃"));
    assert_eq!(g.find("snö ☃"), Some(snow));
}

#[test]
fn bad_names_are_refused_and_change_nothing() {
    let mut g = Graph::new().unwrap();
    let a = g.add_vertex(Some("a")).unwrap();

    let dup = g.add_vertex(Some("a")).unwrap_err();
    assert_eq!(dup.status(), Status::DuplicateName);
    assert!(dup.message().starts_with("Graph::add_vertex: "), "{}", dup);

    let empty = g.add_vertex(Some("")).unwrap_err();
    assert_eq!(empty.status(), Status::InvalidArgument);
    assert!(
        empty.message().starts_with("Graph::add_vertex: "),
        "{}",
        empty
    );

    let nul = g.add_vertex(Some("x\0y")).unwrap_err();
    assert_eq!(nul.status(), Status::InvalidArgument);
    assert!(nul.message().contains("NUL byte at 1"), "{}", nul);

    let b = g.add_vertex(Some("b")).unwrap();
    assert_eq!(
        g.set_name(b, Some("a")).unwrap_err().status(),
        Status::DuplicateName
    );
    assert_eq!(
        g.set_name(b, Some("")).unwrap_err().status(),
        Status::InvalidArgument
    );
    assert_eq!(g.name(b).unwrap(), Some("b"));
    assert_eq!(g.vertex_count(), 2);
    assert_eq!(g.find("a"), Some(a));
}

#[test]
fn add_vertices_gives_consecutive_ids_in_order() {
    let mut g = Graph::new().unwrap();
    let before = g.add_vertex(Some("before")).unwrap();
    let ids = g
        .add_vertices(&[Some("a"), None, Some("snö ☃"), None])
        .unwrap();
    assert_eq!(ids.len(), 4);
    for (k, id) in ids.iter().enumerate() {
        assert_eq!(id.get(), ids[0].get() + k as u64, "ids {:?}", ids);
    }
    assert!(ids[0] > before);
    assert_eq!(g.vertex_count(), 5);
    assert_eq!(g.name(ids[0]).unwrap(), Some("a"));
    assert_eq!(g.name(ids[1]).unwrap(), None);
    assert_eq!(g.name(ids[2]).unwrap(), Some("snö ☃"));
    assert_eq!(g.name(ids[3]).unwrap(), None);
    assert_eq!(g.find("a"), Some(ids[0]));
    assert_eq!(g.find("snö ☃"), Some(ids[2]));

    // All unnamed, and the empty batch.
    let anon = g.add_vertices(&[None, None, None]).unwrap();
    assert_eq!(anon.len(), 3);
    assert_eq!(anon[0].get(), ids[3].get() + 1);
    assert_eq!(anon[2].get(), anon[0].get() + 2);
    assert!(anon.iter().all(|&v| g.name(v).unwrap().is_none()));
    assert_eq!(g.add_vertices(&[]).unwrap(), vec![]);
    assert_eq!(g.vertex_count(), 8);
    // The next single vertex follows the batch.
    assert!(g.add_vertex(None).unwrap() > anon[2]);
}

#[test]
fn add_vertices_is_all_or_nothing() {
    let mut g = Graph::new().unwrap();
    let a = g.add_vertex(Some("a")).unwrap();
    let unchanged = |g: &Graph| {
        assert_eq!(g.vertices().unwrap(), vec![a]);
        assert_eq!(g.find("b"), None);
        assert_eq!(g.find("c"), None);
    };

    // A name given twice within the batch.
    let dup = g
        .add_vertices(&[Some("b"), None, Some("c"), Some("b")])
        .unwrap_err();
    assert_eq!(dup.status(), Status::DuplicateName);
    assert!(
        dup.message().starts_with("Graph::add_vertices: "),
        "{}",
        dup
    );
    assert!(
        dup.message().contains("vertex 3: "),
        "no index in {:?}",
        dup.message()
    );
    unchanged(&g);

    // A name already in the graph.
    let taken = g.add_vertices(&[Some("b"), Some("a")]).unwrap_err();
    assert_eq!(taken.status(), Status::DuplicateName);
    unchanged(&g);

    let empty = g.add_vertices(&[Some("b"), Some("")]).unwrap_err();
    assert_eq!(empty.status(), Status::InvalidArgument);
    assert!(
        empty.message().starts_with("Graph::add_vertices: "),
        "{}",
        empty
    );
    unchanged(&g);

    let nul = g
        .add_vertices(&[Some("b"), None, Some("x\0y")])
        .unwrap_err();
    assert_eq!(nul.status(), Status::InvalidArgument);
    assert!(
        nul.message()
            .starts_with("Graph::add_vertices: vertex 2: name "),
        "{}",
        nul
    );
    assert!(nul.message().contains("NUL byte at 1"), "{}", nul);
    unchanged(&g);

    let b = g.add_vertices(&[Some("b")]).unwrap();
    assert_eq!(g.find("b"), Some(b[0]));
    assert_eq!(g.vertex_count(), 2);
}

#[test]
fn find_vertices_matches_find() {
    let mut g = Graph::new().unwrap();
    let ids = g
        .add_vertices(&[Some("a"), Some("b"), None, Some("snö ☃")])
        .unwrap();
    g.remove_vertex(ids[1]).unwrap();
    let names = ["snö ☃", "a", "b", "zzz", "", "a\0b", "a"];
    let found = g.find_vertices(&names);
    assert_eq!(
        found,
        vec![
            Some(ids[3]),
            Some(ids[0]),
            None,
            None,
            None,
            None,
            Some(ids[0])
        ]
    );
    let one_by_one: Vec<_> = names.iter().map(|n| g.find(n)).collect();
    assert_eq!(found, one_by_one);
    assert_eq!(g.find_vertices(&[]), vec![]);

    // More names than libdag looks up in one group.
    let many: Vec<String> = (0..1000).map(|i| format!("v{}", i)).collect();
    let added = g
        .add_vertices(&many.iter().map(|n| Some(n.as_str())).collect::<Vec<_>>())
        .unwrap();
    let mut asked: Vec<&str> = many.iter().map(|n| n.as_str()).collect();
    asked.push("missing");
    let found = g.find_vertices(&asked);
    assert_eq!(found.len(), 1001);
    assert!(found[..1000]
        .iter()
        .zip(&added)
        .all(|(f, &id)| *f == Some(id)));
    assert_eq!(found[1000], None);
}

#[test]
fn unknown_ids_are_errors_with_the_function_named() {
    let mut g = Graph::new().unwrap();
    let a = g.add_vertex(Some("a")).unwrap();
    let ghost = VertexId(a.get() + 100);

    let err = g.connect(a, ghost).unwrap_err();
    assert_eq!(err.status(), Status::UnknownVertex);
    assert!(err.message().starts_with("Graph::connect: "), "{}", err);
    assert_eq!(err.to_string(), err.message());

    assert_eq!(
        g.connect(VertexId(0), a).unwrap_err().status(),
        Status::UnknownVertex
    );
    assert_eq!(
        g.disconnect(a, ghost).unwrap_err().status(),
        Status::UnknownVertex
    );
    assert_eq!(
        g.remove_vertex(ghost).unwrap_err().status(),
        Status::UnknownVertex
    );
    assert_eq!(
        g.replace_vertex(a, ghost).unwrap_err().status(),
        Status::UnknownVertex
    );
    assert_eq!(g.name(ghost).unwrap_err().status(), Status::UnknownVertex);
    assert_eq!(
        g.set_name(ghost, Some("x")).unwrap_err().status(),
        Status::UnknownVertex
    );
    assert_eq!(
        g.dependencies(ghost).unwrap_err().status(),
        Status::UnknownVertex
    );
    assert_eq!(
        g.dependents(ghost).unwrap_err().status(),
        Status::UnknownVertex
    );
    assert_eq!(
        g.ancestors(&[ghost]).unwrap_err().status(),
        Status::UnknownVertex
    );
    assert!(!g.has_vertex(ghost));
    assert!(!g.has_edge(a, ghost));
    assert_eq!(g.edge_count(), 0);

    // Errors are ordinary std errors.
    let boxed: Box<dyn std::error::Error + Send + Sync> = Box::new(err);
    assert!(boxed.to_string().contains("Graph::connect: "));
}

#[test]
fn edges_mean_depends_on() {
    let mut g = Graph::new().unwrap();
    let v = named(&mut g, &["a", "b", "c"]);
    let (a, b, c) = (v[0], v[1], v[2]);
    g.connect(a, b).unwrap();
    g.connect(a, c).unwrap();
    g.connect(a, b).unwrap(); // a repeat is a no-op
    assert_eq!(g.edge_count(), 2);
    assert!(g.has_edge(a, b));
    assert!(!g.has_edge(b, a));
    assert_eq!(g.dependencies(a).unwrap(), vec![b, c]);
    assert_eq!(g.dependencies(b).unwrap(), vec![]);
    assert_eq!(g.dependents(b).unwrap(), vec![a]);
    assert_eq!(g.edges().unwrap(), vec![(a, b), (a, c)]);

    g.disconnect(a, b).unwrap();
    g.disconnect(a, b).unwrap(); // removing an absent edge is fine
    assert_eq!(g.edges().unwrap(), vec![(a, c)]);

    // Removing a vertex removes its edges.
    g.remove_vertex(c).unwrap();
    assert_eq!(g.edge_count(), 0);
}

#[test]
fn connect_many_is_all_or_nothing() {
    let mut g = Graph::new().unwrap();
    let v = named(&mut g, &["a", "b", "c"]);
    g.connect_many(&[(v[0], v[1]), (v[1], v[2]), (v[0], v[1])])
        .unwrap();
    assert_eq!(g.edges().unwrap(), vec![(v[0], v[1]), (v[1], v[2])]);

    let ghost = VertexId(999);
    let err = g.connect_many(&[(v[0], v[2]), (v[2], ghost)]).unwrap_err();
    assert_eq!(err.status(), Status::UnknownVertex);
    assert!(!g.has_edge(v[0], v[2]), "a refused batch must add nothing");
    assert_eq!(g.edge_count(), 2);

    g.connect_many(&[]).unwrap();
    assert_eq!(g.edge_count(), 2);
}

#[test]
fn replace_vertex_moves_every_edge() {
    let mut g = Graph::new().unwrap();
    let v = named(&mut g, &["a", "old", "c", "new"]);
    let (a, old, c, new) = (v[0], v[1], v[2], v[3]);
    g.connect(a, old).unwrap();
    g.connect(old, c).unwrap();
    g.replace_vertex(old, new).unwrap();
    assert!(!g.has_vertex(old));
    assert_eq!(g.edges().unwrap(), vec![(a, new), (new, c)]);
}

#[test]
fn subsume_merges_named_vertices() {
    let mut g = Graph::new().unwrap();
    let v = named(&mut g, &["a", "b"]);
    g.connect(v[0], v[1]).unwrap();

    let mut other = Graph::new().unwrap();
    let w = named(&mut other, &["b", "c"]);
    other.connect(w[0], w[1]).unwrap();

    g.subsume(&other).unwrap();
    assert_eq!(g.vertex_count(), 3);
    let c = g.find("c").unwrap();
    assert!(g.has_edge(v[1], c), "b in both graphs is one vertex");
    assert_eq!(other.vertex_count(), 2, "the subsumed graph is not changed");
    assert_eq!(g.to_string(), "a\n  b\nb\n  c\nc\n");
}

#[test]
fn clones_are_independent_and_keep_ids() {
    let mut g = Graph::new().unwrap();
    let v = named(&mut g, &["a", "b"]);
    g.connect(v[0], v[1]).unwrap();

    let mut copy = g.try_clone().unwrap();
    assert_eq!(copy.vertices().unwrap(), v);
    assert_eq!(copy.edges().unwrap(), vec![(v[0], v[1])]);
    assert_eq!(copy.to_string(), g.to_string());

    let extra = copy.add_vertex(Some("extra")).unwrap();
    assert!(extra > v[1], "the copy issues ids after the original's");
    copy.disconnect(v[0], v[1]).unwrap();
    assert!(g.has_edge(v[0], v[1]));
    assert!(!g.has_vertex(extra));

    // The copy outlives its original.
    drop(g);
    assert_eq!(copy.name(v[0]).unwrap(), Some("a"));
}

#[test]
fn display_is_terraforms_string_layout() {
    let mut g = Graph::new().unwrap();
    let one = g.add_vertex(Some("1")).unwrap();
    g.add_vertex(Some("2")).unwrap();
    let three = g.add_vertex(Some("3")).unwrap();
    g.connect(one, three).unwrap();
    assert_eq!(g.to_string(), "1\n  3\n2\n3\n");
    // Unnamed vertices print as their id.
    let mut h = Graph::new().unwrap();
    let x = h.add_vertex(None).unwrap();
    assert_eq!(h.to_string(), format!("{}\n", x));
}

#[test]
fn graphs_move_between_threads_and_drop_anywhere() {
    let mut g = Graph::new().unwrap();
    let v = named(&mut g, &["a", "b"]);
    g.connect(v[0], v[1]).unwrap();
    let g = std::thread::spawn(move || {
        assert_eq!(g.edge_count(), 1);
        g
    })
    .join()
    .unwrap();
    std::thread::spawn(move || drop(g)).join().unwrap();

    // Many short-lived graphs, with and without edges, copies and names.
    for i in 0..200 {
        let mut g = Graph::new().unwrap();
        let a = g.add_vertex(Some(&format!("v{}", i))).unwrap();
        let b = g.add_vertex(None).unwrap();
        g.connect(a, b).unwrap();
        let copy = g.try_clone().unwrap();
        drop(g);
        assert_eq!(copy.edge_count(), 1);
    }
}

#[test]
fn raw_handles_round_trip() {
    let mut g = Graph::new().unwrap();
    let a = g.add_vertex(Some("a")).unwrap();
    let raw = g.into_raw();
    // SAFETY: the handle came from into_raw and is used once.
    let g = unsafe { Graph::from_raw(raw) };
    assert_eq!(g.find("a"), Some(a));
    // SAFETY: a read-only call on a live handle.
    assert_eq!(unsafe { libdag::sys::dag_vertex_count(g.as_raw()) }, 1);
}

#[test]
fn versions() {
    assert_eq!(libdag::version(), libdag::sys::DAG_VERSION_NUMBER);
    assert_eq!(libdag::version_string(), libdag::sys::DAG_VERSION_STRING);
    assert_eq!(Status::UnknownVertex.description(), "unknown vertex");
    assert_eq!(Status::from_code(-4), Status::UnknownVertex);
    assert_eq!(Status::from_code(-19), Status::Callback);
    assert_eq!(Status::from_code(-1000), Status::Unknown(-1000));
    assert_eq!(Status::Unknown(-1000).code(), -1000);
    for code in 0..=19 {
        assert_eq!(Status::from_code(-code).code(), -code);
        assert_ne!(Status::from_code(-code), Status::Unknown(-code));
    }
}

#[test]
fn select_keeps_what_a_partial_run_needs() {
    // a -> b -> c, d unconnected.
    let mut g = Graph::new().unwrap();
    let names = ["a", "b", "c", "d"];
    let ids: Vec<VertexId> = names
        .iter()
        .map(|n| g.add_vertex(Some(n)).unwrap())
        .collect();
    let (a, b, c, d) = (ids[0], ids[1], ids[2], ids[3]);
    g.connect(a, b).unwrap();
    g.connect(b, c).unwrap();

    let apply = g.select(&[b], &[], Select::dependencies()).unwrap();
    assert_eq!(apply.vertices().unwrap(), [b, c]);
    assert_eq!(apply.edges().unwrap(), [(b, c)]);
    assert_eq!(apply.name(c).unwrap(), Some("c"));
    let destroy = g.select(&[b], &[], Select::dependents()).unwrap();
    assert_eq!(destroy.vertices().unwrap(), [a, b]);
    let all_but = g.select(&[], &[b], Select::dependencies().all()).unwrap();
    assert_eq!(all_but.vertices().unwrap(), [c, d]);
    let all_but = g.select(&[], &[b], Select::dependents().all()).unwrap();
    assert_eq!(all_but.vertices().unwrap(), [a, d]);
    // The selection issues new ids after the original's.
    let mut copy = g.select(&[d], &[], Select::dependencies()).unwrap();
    assert!(copy.add_vertex(Some("e")).unwrap() > d);

    let err = g
        .select(&[VertexId(99)], &[], Select::dependencies())
        .unwrap_err();
    assert_eq!(err.status(), Status::UnknownVertex);
    assert!(err.message().starts_with("Graph::select: "), "{}", err);
}

#[test]
fn user_data_is_a_word_per_vertex() {
    let mut g = Graph::new().unwrap();
    let a = g.add_vertex(Some("a")).unwrap();
    assert_eq!(g.user_data(a).unwrap(), 0);
    g.set_user_data(a, 42).unwrap();
    assert_eq!(g.user_data(a).unwrap(), 42);
    assert_eq!(g.try_clone().unwrap().user_data(a).unwrap(), 42);
    let err = g.set_user_data(VertexId(7), 1).unwrap_err();
    assert_eq!(err.status(), Status::UnknownVertex);
    assert!(
        err.message().starts_with("Graph::set_user_data: "),
        "{}",
        err
    );
    assert_eq!(
        g.user_data(VertexId(7)).unwrap_err().status(),
        Status::UnknownVertex
    );
}

#[test]
fn display_honours_width_and_fill() {
    assert_eq!(format!("[{:>6}]", VertexId(42)), "[    42]");
    assert_eq!(
        format!("[{:<18}]", VertexStatus::UpstreamFailed),
        "[upstream-failed   ]"
    );
    assert_eq!(format!("[{:*^6}]", VertexStatus::Ok), "[**ok**]");
    assert_eq!(
        format!("[{:>16}]", Status::UnknownVertex),
        "[  unknown vertex]"
    );
    let mut g = Graph::new().unwrap();
    let err = g.connect(VertexId(1), VertexId(2)).unwrap_err();
    let text = err.to_string();
    assert_eq!(
        format!("{:>1$}", err, text.len() + 2),
        format!("  {}", text)
    );
    assert_eq!(format!("{:.12}", err), "Graph::conne");
}
