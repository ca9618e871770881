//! The method of this crate behind each libdag function that reports
//! errors, so that an error's message starts with what the Rust caller
//! called (`"Graph::connect: unknown vertex id 7"`), not with the C function
//! that this crate called for it (`"dag_connect: ..."`).

/// The Rust method for a C function's name; `None` for a name this crate
/// does not call (the message then keeps libdag's wording).
pub(crate) fn method(function: &str) -> Option<&'static str> {
    Some(match function {
        "dag_new" => "Graph::new",
        "dag_builder_new" => "Builder::new",
        "dag_builder_provide" => "Builder::provide",
        "dag_builder_reference" => "Builder::reference",
        "dag_builder_need" => "Builder::need",
        "dag_builder_set_action" => "Builder::set_action",
        "dag_builder_add_step" => "Builder::add_step",
        "dag_builder_add_references" => "Builder::add_references",
        "dag_builder_add_shared" => "Builder::add_shared",
        "dag_builder_add_root" => "Builder::add_root",
        "dag_builder_add_destroy_order" => "Builder::add_destroy_order",
        "dag_builder_add_transitive_reduction" => "Builder::add_transitive_reduction",
        "dag_builder_add_prune" => "Builder::add_prune",
        "dag_build_options_init" | "dag_build" => "Builder::build",
        "dag_builder_warnings" => "Builder::warnings",
        "dag_clone" => "Graph::try_clone",
        "dag_add_vertex" => "Graph::add_vertex",
        "dag_add_vertices" => "Graph::add_vertices",
        "dag_remove_vertex" => "Graph::remove_vertex",
        "dag_replace_vertex" => "Graph::replace_vertex",
        "dag_find_vertex" => "Graph::find",
        "dag_find_vertices" => "Graph::find_vertices",
        "dag_vertex_name" => "Graph::name",
        "dag_set_vertex_name" => "Graph::set_name",
        "dag_vertex_user_data" => "Graph::user_data",
        "dag_set_vertex_user_data" => "Graph::set_user_data",
        "dag_connect" => "Graph::connect",
        "dag_connect_many" => "Graph::connect_many",
        "dag_disconnect" => "Graph::disconnect",
        "dag_vertices" => "Graph::vertices",
        "dag_edges" => "Graph::edges",
        "dag_dependencies" => "Graph::dependencies",
        "dag_dependents" => "Graph::dependents",
        "dag_roots" => "Graph::roots",
        "dag_leaves" => "Graph::leaves",
        "dag_dependency_count" => "Graph::dependency_count",
        "dag_dependent_count" => "Graph::dependent_count",
        "dag_subsume" => "Graph::subsume",
        "dag_to_string" => "Graph::text",
        "dag_export_graph" => "Graph::export",
        "dag_import_graph" => "Graph::import",
        "dag_import_graph_file" => "Graph::import_file",
        "dag_root" => "Graph::root",
        "dag_validate_options_init" | "dag_validate" => "Graph::validate",
        "dag_strongly_connected" => "Graph::strongly_connected",
        "dag_cycles" => "Graph::cycles",
        "dag_transitive_reduction" => "Graph::transitive_reduction",
        "dag_topological_order" => "Graph::topological_order",
        "dag_reverse_topological_order" => "Graph::reverse_topological_order",
        "dag_traverse" => "Graph::traverse",
        "dag_ancestors" => "Graph::ancestors",
        "dag_descendants" => "Graph::descendants",
        "dag_first_ancestors_with" => "Graph::first_ancestors_with",
        "dag_first_descendants_with" => "Graph::first_descendants_with",
        "dag_match_ancestor" => "Graph::match_ancestor",
        "dag_match_descendant" => "Graph::match_descendant",
        "dag_search" => "Graph::search",
        "dag_select" => "Graph::select",
        "dag_walk_options_init" => "WalkOptions",
        "dag_walk" => "Graph::walk",
        "dag_walk_start" => "Graph::start_walk",
        "dag_walk_begin" => "Graph::begin_walk",
        "dag_walk_wait" => "Walker::wait",
        "dag_walk_wait_for" => "Walker::wait_timeout",
        "dag_walk_cancel" => "Walker::cancel",
        "dag_walk_next_ready" => "Walker::next_ready",
        "dag_walk_progress" => "Walker::progress",
        "dag_walk_apply" => "Walker::apply",
        "dag_walk_complete" | "dag_walk_fail" => "Pending::complete",
        "dag_walk_expand" => "Vertex::expand",
        "dag_walk_update_new" => "WalkUpdate::new",
        "dag_walk_update_add_vertex" => "WalkUpdate::add_vertex",
        "dag_walk_update_connect" => "WalkUpdate::connect",
        "dag_walk_update_disconnect" => "WalkUpdate::disconnect",
        "dag_walk_update_remove_vertex" => "WalkUpdate::remove_vertex",
        "dag_walk_report_vertices" | "dag_walk_report_vertex" | "dag_walk_report_read" => {
            "WalkReport"
        }
        _ => return None,
    })
}

/// The C names for arguments and values that a message of `function` can
/// hold for something a caller of this crate set (the options' threads,
/// the format), as the caller wrote them. Only these functions' messages
/// are rewritten: any message may hold vertex names, which are the user's.
pub(crate) fn argument_terms(function: &str, rest: &str) -> String {
    const WALKS: [&str; 4] = [
        "dag_walk_options_init",
        "dag_walk",
        "dag_walk_start",
        "dag_walk_begin",
    ];
    const FORMATS: [&str; 3] = [
        "dag_export_graph",
        "dag_import_graph",
        "dag_import_graph_file",
    ];
    let terms: &[(&str, &str)] = if WALKS.contains(&function) {
        &[
            ("opts->parallelism", "WalkOptions::parallelism"),
            ("opts->threads", "WalkOptions::threads"),
            ("more than DAG_WALK_MAX_THREADS (1024)", "more than 1024"),
        ]
    } else if FORMATS.contains(&function) {
        &[
            ("DAG_FORMAT_AUTO", "Format::Auto"),
            ("a dag_format", "a Format"),
        ]
    } else {
        &[]
    };
    terms
        .iter()
        .fold(rest.to_owned(), |text, (c, rust)| text.replace(c, rust))
}
