//! The method of this crate behind each libdag function that reports
//! errors, so that an error's message starts with what the Rust caller
//! called (`"Graph::connect: unknown vertex id 7"`), not with the C function
//! that this crate called for it (`"dag_connect: ..."`).

/// The Rust method for a C function's name; `None` for a name this crate
/// does not call (the message then keeps libdag's wording).
pub(crate) fn method(function: &str) -> Option<&'static str> {
    Some(match function {
        "dag_new" => "Graph::new",
        "dag_clone" => "Graph::try_clone",
        "dag_add_vertex" => "Graph::add_vertex",
        "dag_remove_vertex" => "Graph::remove_vertex",
        "dag_replace_vertex" => "Graph::replace_vertex",
        "dag_find_vertex" => "Graph::find",
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
