//! Reads a dependency graph (`terraform graph` DOT output, or libdag JSON),
//! checks it, prints the execution order and walks it in parallel.
//!
//! ```text
//! cargo run --example plan -- [GRAPH_FILE] [PARALLELISM]
//! ```
//!
//! Without arguments it reads the repository's examples/graphs/deploy.dot.

use std::error::Error;
use std::path::PathBuf;
use std::process::ExitCode;
use std::thread;
use std::time::Duration;

use libdag::{Format, Graph, VertexId, VertexStatus, WalkOptions};

fn label(graph: &Graph, id: VertexId) -> String {
    match graph.name(id) {
        Ok(Some(name)) => name.to_owned(),
        _ => id.to_string(),
    }
}

fn run() -> Result<bool, Box<dyn Error>> {
    let mut args = std::env::args_os().skip(1);
    let path = args.next().map(PathBuf::from).unwrap_or_else(|| {
        PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../../examples/graphs/deploy.dot")
    });
    let parallelism = match args.next() {
        Some(n) => n.to_string_lossy().parse()?,
        None => 4,
    };

    let graph = Graph::import_file(Format::Auto, &path)?;
    println!(
        "{}: {} vertices, {} edges",
        path.display(),
        graph.vertex_count(),
        graph.edge_count()
    );

    // `terraform graph` output has a single root; other graphs need not.
    let validation = graph.validate(false)?;
    if !validation.ok() {
        eprintln!("{}", validation.text());
        return Ok(false);
    }

    println!("\nexecution order:");
    for id in graph.reverse_topological_order()? {
        println!("  {}", label(&graph, id));
    }

    println!("\nwalk (parallelism {}):", parallelism);
    let report = graph.walk(&WalkOptions::new().parallelism(parallelism), |id| {
        println!("  start  {}", label(&graph, id));
        thread::sleep(Duration::from_millis(20));
        Ok::<(), String>(())
    })?;
    for v in report.vertices() {
        if v.status() != VertexStatus::Ok {
            println!(
                "  {}: {} {}",
                label(&graph, v.id()),
                v.status(),
                v.message()
            );
        }
    }
    let total = report.vertices().map(|v| v.end_ns()).max().unwrap_or(0);
    println!(
        "\n{} of {} ok in {:.1} ms",
        report.count(VertexStatus::Ok),
        report.len(),
        total as f64 / 1e6
    );
    Ok(report.ok())
}

fn main() -> ExitCode {
    match run() {
        Ok(true) => ExitCode::SUCCESS,
        Ok(false) => ExitCode::FAILURE,
        Err(e) => {
            eprintln!("plan: {}", e);
            ExitCode::FAILURE
        }
    }
}
