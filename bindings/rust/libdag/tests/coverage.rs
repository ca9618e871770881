//! Every function of libdag's C API is declared by `libdag-sys` and reached
//! by this crate: the test reads `include/dag/dag.h` and fails on a gap, so
//! a function added to the header cannot be forgotten here.

use std::fs;
use std::path::{Path, PathBuf};

/// Functions deliberately reachable through `libdag-sys` only, and why.
const SYS_ONLY: &[(&str, &str)] = &[
    (
        "dag_api",
        "the function table for hosts that dlopen() libdag; this crate links it",
    ),
    (
        "dag_error_status",
        "every call returns the same status, and it is the right one when \
         libdag hands out its static out-of-memory error object",
    ),
];

/// libdag's source tree: the crate's own path, so that the test reads the
/// same header from any current directory.
fn repo() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../..")
}

/// The names of the `DAG_API` functions the header declares.
fn header_functions() -> Vec<String> {
    let path = repo().join("include/dag/dag.h");
    let header = fs::read_to_string(&path).unwrap_or_else(|e| {
        panic!(
            "{}: {} (this test reads the header of the libdag tree the crate sits in, at bindings/rust/libdag)",
            path.display(),
            e
        )
    });
    let mut names = Vec::new();
    for declaration in header.split("DAG_API ").skip(1) {
        let head = &declaration[..declaration.find('(').unwrap()];
        let name = head
            .rsplit(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))
            .next()
            .unwrap();
        if name.starts_with("dag_") {
            names.push(name.to_owned());
        }
    }
    names.sort();
    names.dedup();
    names
}

/// The text of every `.rs` file under `dir`.
fn sources(dir: &Path) -> String {
    let mut text = String::new();
    for entry in fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        if path.is_dir() {
            text.push_str(&sources(&path));
        } else if path.extension().map_or(false, |e| e == "rs") {
            text.push_str(&fs::read_to_string(&path).unwrap());
        }
    }
    text
}

/// Whether `text` holds `name` as a whole identifier after `prefix`.
fn mentions(text: &str, prefix: &str, name: &str) -> bool {
    let needle = format!("{}{}", prefix, name);
    text.match_indices(&needle).any(|(at, _)| {
        let next = text[at + needle.len()..].chars().next();
        !next.map_or(false, |c| c.is_ascii_alphanumeric() || c == '_')
    })
}

#[test]
fn the_header_lists_the_functions_this_test_knows() {
    let functions = header_functions();
    // A parse that found nothing would pass everything below.
    assert!(functions.len() > 100, "{} functions", functions.len());
    for known in ["dag_new", "dag_walk_begin", "dag_select", "dag_api"] {
        assert!(functions.iter().any(|f| f == known), "{} not found", known);
    }
}

#[test]
fn libdag_sys_declares_every_function() {
    let sys = sources(&repo().join("bindings/rust/libdag-sys/src"));
    let missing: Vec<_> = header_functions()
        .into_iter()
        .filter(|f| !mentions(&sys, "pub fn ", f))
        .collect();
    assert!(
        missing.is_empty(),
        "not declared by libdag-sys: {:?}",
        missing
    );
}

#[test]
fn the_safe_crate_reaches_every_function() {
    let safe = sources(&repo().join("bindings/rust/libdag/src"));
    let functions = header_functions();
    let missing: Vec<_> = functions
        .iter()
        .filter(|f| !SYS_ONLY.iter().any(|(name, _)| name == f))
        .filter(|f| !mentions(&safe, "sys::", f))
        .collect();
    assert!(missing.is_empty(), "not reached by libdag: {:?}", missing);
    for (name, why) in SYS_ONLY {
        assert!(
            functions.iter().any(|f| f == name),
            "{} left the header",
            name
        );
        assert!(
            !mentions(&safe, "sys::", name),
            "{} is reached now ({}): take it off SYS_ONLY",
            name,
            why
        );
    }
}
