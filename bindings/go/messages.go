package dag

import "strings"

// goNames maps each libdag function the package calls to the Go call that
// reaches it, so that messages name what the Go caller wrote: libdag's
// "dag_root: no roots found" becomes "dag: Root: no roots found". The
// coverage test checks that every function returning a status has an
// entry.
var goNames = map[string]string{
	"dag_new":                              "New",
	"dag_clone":                            "Clone",
	"dag_add_vertex":                       "AddVertex",
	"dag_add_vertices":                     "AddVertices",
	"dag_remove_vertex":                    "RemoveVertex",
	"dag_replace_vertex":                   "ReplaceVertex",
	"dag_find_vertex":                      "Find",
	"dag_find_vertices":                    "FindVertices",
	"dag_vertex_name":                      "Name",
	"dag_set_vertex_name":                  "SetName",
	"dag_vertex_user_data":                 "UserData",
	"dag_set_vertex_user_data":             "SetUserData",
	"dag_connect":                          "Connect",
	"dag_connect_many":                     "ConnectMany",
	"dag_disconnect":                       "Disconnect",
	"dag_vertices":                         "Vertices",
	"dag_edges":                            "Edges",
	"dag_dependencies":                     "Dependencies",
	"dag_dependents":                       "Dependents",
	"dag_roots":                            "Roots",
	"dag_leaves":                           "Leaves",
	"dag_dependency_count":                 "DependencyCount",
	"dag_dependent_count":                  "DependentCount",
	"dag_subsume":                          "Subsume",
	"dag_to_string":                        "String",
	"dag_export_graph":                     "Export",
	"dag_import_graph":                     "Import",
	"dag_import_graph_file":                "ImportFile",
	"dag_root":                             "Root",
	"dag_validate_options_init":            "Validate",
	"dag_validate":                         "Validate",
	"dag_validation_status":                "Validate",
	"dag_strongly_connected":               "StronglyConnected",
	"dag_cycles":                           "Cycles",
	"dag_transitive_reduction":             "TransitiveReduction",
	"dag_topological_order":                "TopologicalOrder",
	"dag_reverse_topological_order":        "ReverseTopologicalOrder",
	"dag_traverse":                         "Traverse",
	"dag_ancestors":                        "Ancestors",
	"dag_descendants":                      "Descendants",
	"dag_search":                           "Search",
	"dag_select":                           "Select",
	"dag_builder_new":                      "NewBuilder",
	"dag_builder_provide":                  "Builder.Provide",
	"dag_builder_reference":                "Builder.Reference",
	"dag_builder_need":                     "Builder.Need",
	"dag_builder_set_action":               "Builder.SetAction",
	"dag_builder_add_references":           "Builder.AddReferences",
	"dag_builder_add_shared":               "Builder.AddShared",
	"dag_builder_add_root":                 "Builder.AddRoot",
	"dag_builder_add_destroy_order":        "Builder.AddDestroyOrder",
	"dag_builder_add_transitive_reduction": "Builder.AddTransitiveReduction",
	"dag_build_options_init":               "Builder.Build",
	"dag_build":                            "Builder.Build",
	"dag_builder_warnings":                 "Builder.Build",
	"dag_walk_options_init":                "Walk",
	"dag_walk":                             "Walk",
	"dag_walk_start":                       "Walk",
	"dag_walk_wait":                        "Walk",
	"dag_walk_cancel":                      "Walk",
	"dag_walk_complete":                    "Walk",
	"dag_walk_fail":                        "Walk",
	"dag_walk_expand":                      "Vertex.Expand",
	"dag_walk_progress":                    "Vertex.Progress",
	"dag_walk_wait_for":                    "Walk",
	"dag_walk_begin":                       "Walk",
	"dag_walk_next_ready":                  "Walk",
	"dag_walk_update_new":                  "NewWalkUpdate",
	"dag_walk_update_add_vertex":           "WalkUpdate.AddVertex",
	"dag_walk_update_connect":              "WalkUpdate.Connect",
	"dag_walk_update_disconnect":           "WalkUpdate.Disconnect",
	"dag_walk_update_remove_vertex":        "WalkUpdate.RemoveVertex",
	"dag_walk_apply":                       "Vertex.Apply",
	"dag_walk_report_read":                 "Walk",
	"dag_walk_report_attempts":             "Walk",
	"dag_walk_report_attempt_message":      "Walk",
}

// cTerms turns the C names libdag's messages use for arguments and values
// into the Go names the caller set.
var cTerms = strings.NewReplacer(
	"opts->parallelism", "WalkOptions.Parallelism",
	"opts->threads", "WalkOptions.Threads",
	"opts->always_run", "WalkOptions.AlwaysRun",
	"more than DAG_WALK_MAX_THREADS (1024)", "more than 1024",
	"DAG_WALK_MAX_THREADS", "1024",
	"parallelism must", "Parallelism must",
	"threads must", "Threads must",
	"a dag_search_action", "a SearchAction",
	"a dag_visit value", "a Visit",
	"a dag_format", "a Format",
	"DAG_FORMAT_AUTO", "FormatAuto",
	"a dag_action", "an Action",
)

// termsOf lists the functions whose messages name the C terms cTerms
// rewrites: only theirs are rewritten, since any message may hold vertex
// names, which are the user's ("threads must" is a name as good as any).
var termsOf = map[string]bool{
	"dag_walk_options_init": true, "dag_walk": true, "dag_walk_start": true, "dag_walk_begin": true,
	"dag_traverse": true, "dag_search": true,
	"dag_export_graph": true, "dag_import_graph": true, "dag_import_graph_file": true,
	"dag_builder_set_action": true,
}

// A change while the graph is walked: libdag points to its walk handle,
// which Go never hands out. Matched whole, since the message of any
// function that changes the graph may hold vertex names, which are the
// user's.
const (
	walkedC  = "the graph is being walked; change it through the walk handle or wait for the walk to end"
	walkedGo = "the graph is being walked; change it through Vertex.Apply or wait for the walk to end"
)

// goMessage rewrites a libdag message in Go's terms: "dag: " and the Go
// call instead of the C function, Go names for arguments. A message from
// a function goNames lacks keeps its C name after "dag: ".
func goMessage(message string) string {
	if !strings.HasPrefix(message, "dag_") {
		return message
	}
	fn, rest, found := strings.Cut(message, ": ")
	if !found {
		return message
	}
	if termsOf[fn] {
		rest = cTerms.Replace(rest)
	}
	if rest == walkedC {
		rest = walkedGo
	}
	if name, ok := goNames[fn]; ok {
		fn = name
	}
	return "dag: " + fn + ": " + rest
}
