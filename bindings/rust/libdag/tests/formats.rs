//! Text formats: export in every format, JSON round trips, DOT import, and
//! the errors for unreadable input.

use std::fs;
use std::path::PathBuf;

use libdag::{Format, Graph, Status, VertexId};

/// a <-> b (a cycle), c -> an unnamed vertex, and a gap in the ids where a
/// vertex was removed.
fn sample() -> (Graph, [VertexId; 4]) {
    let mut g = Graph::new().unwrap();
    let a = g.add_vertex(Some("a")).unwrap();
    let b = g.add_vertex(Some("b")).unwrap();
    let gone = g.add_vertex(None).unwrap();
    let c = g.add_vertex(Some("c ☃")).unwrap();
    g.remove_vertex(gone).unwrap();
    let unnamed = g.add_vertex(None).unwrap();
    g.connect(a, b).unwrap();
    g.connect(b, a).unwrap();
    g.connect(c, unnamed).unwrap();
    (g, [a, b, c, unnamed])
}

/// A file under cargo's scratch directory for integration tests (inside the
/// target directory, never the source tree).
fn scratch_file(name: &str) -> PathBuf {
    let dir = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("libdag-formats");
    fs::create_dir_all(&dir).unwrap();
    dir.join(name)
}

/// Every vertex with its name, and every edge.
type Snapshot = (Vec<(VertexId, Option<String>)>, Vec<(VertexId, VertexId)>);

fn snapshot(g: &Graph) -> Snapshot {
    let vertices = g
        .vertices()
        .unwrap()
        .into_iter()
        .map(|v| (v, g.name(v).unwrap().map(str::to_owned)))
        .collect();
    (vertices, g.edges().unwrap())
}

#[test]
fn json_round_trip_keeps_ids_names_and_edges() {
    let (g, ids) = sample();
    let json = g.export(Format::Json).unwrap();
    assert!(json.contains("\"format\": \"libdag\""), "{}", json);
    assert!(json.contains("c ☃"), "{}", json);

    let back = Graph::import(Format::Json, json.as_bytes()).unwrap();
    assert_eq!(snapshot(&back), snapshot(&g));
    assert_eq!(
        back.export(Format::Json).unwrap(),
        json,
        "export is deterministic"
    );

    // Auto detects JSON by its leading brace.
    let auto = Graph::import(Format::Auto, json.as_bytes()).unwrap();
    assert_eq!(snapshot(&auto), snapshot(&g));

    // New ids continue after the largest imported one.
    let mut back = back;
    let next = back.add_vertex(None).unwrap();
    assert!(next > ids[3]);
}

#[test]
fn export_formats() {
    let (g, _) = sample();
    assert_eq!(g.export(Format::Text).unwrap(), g.to_string());

    let dot = g.export(Format::Dot).unwrap();
    assert!(
        dot.starts_with("digraph {\n\tcompound = \"true\"\n\tnewrank = \"true\"\n"),
        "{}",
        dot
    );
    assert!(
        dot.contains("\t\t\"a\" -> \"b\" [color = \"red\", penwidth = \"2.0\"]\n"),
        "{}",
        dot
    );
    assert!(dot.contains("\t\t\"c ☃\" -> \"5\"\n"), "{}", dot);

    let mermaid = g.export(Format::Mermaid).unwrap();
    assert!(mermaid.starts_with("flowchart TD\n"), "{}", mermaid);
    assert!(mermaid.contains("v1 --> v2"), "{}", mermaid);

    let err = g.export(Format::Auto).unwrap_err();
    assert_eq!(err.status(), Status::InvalidArgument);
    assert!(err.message().starts_with("Graph::export: "), "{}", err);
    // In this crate's terms, not C's.
    assert!(err.message().contains("Format::Auto"), "{}", err);
    assert!(!err.message().contains("DAG_"), "{}", err);

    assert_eq!(Format::Dot.name(), "dot");
    assert_eq!(Format::Mermaid.name(), "mermaid");
}

#[test]
fn dot_names_that_cannot_be_quoted_are_refused() {
    let mut g = Graph::new().unwrap();
    g.add_vertex(Some("ends in a backslash\\")).unwrap();
    let err = g.export(Format::Dot).unwrap_err();
    assert_eq!(err.status(), Status::InvalidArgument);
    // JSON can carry any name.
    let back = Graph::import(Format::Json, g.export(Format::Json).unwrap().as_bytes()).unwrap();
    assert!(back.find("ends in a backslash\\").is_some());
}

#[test]
fn dot_import_reads_terraform_graph_output() {
    let text = r#"digraph {
        compound = "true"
        newrank = "true"
        subgraph "root" {
            "[root] aws_instance.web" [label = "aws_instance.web", shape = "box"]
            "[root] provider.aws" [label = "provider.aws", shape = "diamond"]
            "[root] aws_instance.web" -> "[root] provider.aws"
            "[root] root" -> "[root] aws_instance.web"
        }
    }"#;
    let g = Graph::import(Format::Dot, text.as_bytes()).unwrap();
    assert_eq!(g.vertex_count(), 3);
    let web = g.find("[root] aws_instance.web").unwrap();
    let aws = g.find("[root] provider.aws").unwrap();
    let root = g.find("[root] root").unwrap();
    assert!(g.has_edge(web, aws), "tail depends on head");
    assert_eq!(g.root().unwrap(), root);
    assert_eq!(g.reverse_topological_order().unwrap(), vec![aws, web, root]);

    // Chains give every edge they stand for; Auto picks DOT.
    let g = Graph::import(Format::Auto, b"digraph { a -> b -> c }").unwrap();
    assert_eq!(g.to_string(), "a\n  b\nb\n  c\nc\n");
}

#[test]
fn unreadable_input_is_a_parse_error() {
    let cases: [(Format, &[u8]); 5] = [
        (
            Format::Json,
            b"{\"vertices\": [{\"id\": 1}], \"edges\": [[1, 2]]}",
        ),
        (Format::Json, b"{\"vertices\": ["),
        (Format::Dot, b"graph { a -- b }"),
        (Format::Auto, b""),
        (Format::Dot, b"digraph { a -> \0 }"),
    ];
    for (format, text) in cases {
        let err = Graph::import(format, text).unwrap_err();
        assert_eq!(
            err.status(),
            Status::Parse,
            "{:?}: {}",
            String::from_utf8_lossy(text),
            err
        );
        assert!(err.message().starts_with("Graph::import"), "{}", err);
    }

    let err = Graph::import(
        Format::Json,
        b"{\"vertices\": [{\"id\": 1, \"name\": \"x\"}, {\"id\": 2, \"name\": \"x\"}]}",
    )
    .unwrap_err();
    assert_eq!(err.status(), Status::DuplicateName);

    for format in [Format::Text, Format::Mermaid] {
        let err = Graph::import(format, b"a\n").unwrap_err();
        assert_eq!(err.status(), Status::InvalidArgument);
    }
}

#[test]
fn import_file_reads_what_export_wrote() {
    let (g, _) = sample();
    let json_path = scratch_file("sample.json");
    fs::write(&json_path, g.export(Format::Json).unwrap()).unwrap();
    let back = Graph::import_file(Format::Auto, &json_path).unwrap();
    assert_eq!(snapshot(&back), snapshot(&g));

    let dot_path = scratch_file("chain.dot");
    fs::write(&dot_path, "digraph { \"x\" -> \"y\" }\n").unwrap();
    let dot = Graph::import_file(Format::Dot, &dot_path).unwrap();
    assert_eq!(dot.to_string(), "x\n  y\ny\n");

    let missing = scratch_file("does-not-exist.json");
    let err = Graph::import_file(Format::Json, &missing).unwrap_err();
    assert_eq!(err.status(), Status::Io);
    assert!(err.message().contains("does-not-exist.json"), "{}", err);

    let err = Graph::import_file(Format::Json, "bad\0path").unwrap_err();
    assert_eq!(err.status(), Status::InvalidArgument);
}
