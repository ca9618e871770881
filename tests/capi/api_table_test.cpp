#include "capi_test_support.hpp"

#include <cstddef>
#include <cstring>

TEST(CapiApiTable, OnlyTheKnownAbiIsServed) {
    ASSERT_NE(dag_api(DAG_API_ABI), nullptr);
    EXPECT_EQ(dag_api(0), nullptr);
    EXPECT_EQ(dag_api(DAG_API_ABI + 1), nullptr);
    EXPECT_EQ(dag_api(DAG_API_ABI), dag_api(DAG_API_ABI)) << "one static table";
}

TEST(CapiApiTable, HeaderFieldsDescribeTheTable) {
    const dag_api_table *api = dag_api(DAG_API_ABI);
    EXPECT_EQ(api->size, sizeof(dag_api_table));
    EXPECT_EQ(api->version, dag_version());
}

TEST(CapiApiTable, NoFunctionPointerIsMissing) {
    // Every field after the two header fields is a function pointer; an
    // initializer forgotten in capi/api_table.cpp would leave one NULL.
    const dag_api_table *api = dag_api(DAG_API_ABI);
    using Fn = void (*)();
    const size_t first = offsetof(dag_api_table, version_number);
    const auto *bytes = reinterpret_cast<const unsigned char *>(api);
    ASSERT_EQ((sizeof(dag_api_table) - first) % sizeof(Fn), 0u);
    for (size_t off = first; off < sizeof(dag_api_table); off += sizeof(Fn)) {
        Fn f;
        std::memcpy(&f, bytes + off, sizeof f);
        EXPECT_NE(f, nullptr) << "field at offset " << off;
    }
}

TEST(CapiApiTable, EachFieldIsItsFunction) {
    const dag_api_table *t = dag_api(DAG_API_ABI);
    EXPECT_EQ(t->version_number, &dag_version);
    EXPECT_EQ(t->version_string, &dag_version_string);
    EXPECT_EQ(t->status_string, &dag_status_string);
    EXPECT_EQ(t->error_status, &dag_error_status);
    EXPECT_EQ(t->error_message, &dag_error_message);
    EXPECT_EQ(t->error_free, &dag_error_free);
    EXPECT_EQ(t->ids_count, &dag_ids_count);
    EXPECT_EQ(t->ids_data, &dag_ids_data);
    EXPECT_EQ(t->ids_free, &dag_ids_free);
    EXPECT_EQ(t->string_free, &dag_string_free);
    EXPECT_EQ(t->new_graph, &dag_new);
    EXPECT_EQ(t->free_graph, &dag_free);
    EXPECT_EQ(t->clone, &dag_clone);
    EXPECT_EQ(t->add_vertex, &dag_add_vertex);
    EXPECT_EQ(t->remove_vertex, &dag_remove_vertex);
    EXPECT_EQ(t->replace_vertex, &dag_replace_vertex);
    EXPECT_EQ(t->has_vertex, &dag_has_vertex);
    EXPECT_EQ(t->vertex_count, &dag_vertex_count);
    EXPECT_EQ(t->find_vertex, &dag_find_vertex);
    EXPECT_EQ(t->vertex_name, &dag_vertex_name);
    EXPECT_EQ(t->set_vertex_name, &dag_set_vertex_name);
    EXPECT_EQ(t->vertex_user_data, &dag_vertex_user_data);
    EXPECT_EQ(t->set_vertex_user_data, &dag_set_vertex_user_data);
    EXPECT_EQ(t->connect, &dag_connect);
    EXPECT_EQ(t->connect_many, &dag_connect_many);
    EXPECT_EQ(t->disconnect, &dag_disconnect);
    EXPECT_EQ(t->has_edge, &dag_has_edge);
    EXPECT_EQ(t->edge_count, &dag_edge_count);
    EXPECT_EQ(t->vertices, &dag_vertices);
    EXPECT_EQ(t->edges, &dag_edges);
    EXPECT_EQ(t->dependencies, &dag_dependencies);
    EXPECT_EQ(t->dependents, &dag_dependents);
    EXPECT_EQ(t->subsume, &dag_subsume);
    EXPECT_EQ(t->to_string, &dag_to_string);
    EXPECT_EQ(t->root, &dag_root);
    EXPECT_EQ(t->validate_options_init, &dag_validate_options_init);
    EXPECT_EQ(t->validate, &dag_validate);
    EXPECT_EQ(t->validation_status, &dag_validation_status);
    EXPECT_EQ(t->validation_text, &dag_validation_text);
    EXPECT_EQ(t->validation_message_count, &dag_validation_message_count);
    EXPECT_EQ(t->validation_message, &dag_validation_message);
    EXPECT_EQ(t->validation_cycle_count, &dag_validation_cycle_count);
    EXPECT_EQ(t->validation_cycle, &dag_validation_cycle);
    EXPECT_EQ(t->validation_self_references, &dag_validation_self_references);
    EXPECT_EQ(t->validation_free, &dag_validation_free);
    EXPECT_EQ(t->id_lists_count, &dag_id_lists_count);
    EXPECT_EQ(t->id_lists_get, &dag_id_lists_get);
    EXPECT_EQ(t->id_lists_free, &dag_id_lists_free);
    EXPECT_EQ(t->strongly_connected, &dag_strongly_connected);
    EXPECT_EQ(t->cycles, &dag_cycles);
    EXPECT_EQ(t->transitive_reduction, &dag_transitive_reduction);
    EXPECT_EQ(t->topological_order, &dag_topological_order);
    EXPECT_EQ(t->reverse_topological_order, &dag_reverse_topological_order);
    EXPECT_EQ(t->traverse, &dag_traverse);
    EXPECT_EQ(t->ancestors, &dag_ancestors);
    EXPECT_EQ(t->descendants, &dag_descendants);
    EXPECT_EQ(t->first_ancestors_with, &dag_first_ancestors_with);
    EXPECT_EQ(t->first_descendants_with, &dag_first_descendants_with);
    EXPECT_EQ(t->match_ancestor, &dag_match_ancestor);
    EXPECT_EQ(t->match_descendant, &dag_match_descendant);
    EXPECT_EQ(t->walk_options_init, &dag_walk_options_init);
    EXPECT_EQ(t->walk, &dag_walk);
    EXPECT_EQ(t->walk_start, &dag_walk_start);
    EXPECT_EQ(t->walk_wait, &dag_walk_wait);
    EXPECT_EQ(t->walk_cancel, &dag_walk_cancel);
    EXPECT_EQ(t->walk_free, &dag_walk_free);
    EXPECT_EQ(t->walk_complete, &dag_walk_complete);
    EXPECT_EQ(t->walk_expand, &dag_walk_expand);
    EXPECT_EQ(t->walk_graph, &dag_walk_graph);
    EXPECT_EQ(t->walk_update_new, &dag_walk_update_new);
    EXPECT_EQ(t->walk_update_free, &dag_walk_update_free);
    EXPECT_EQ(t->walk_update_add_vertex, &dag_walk_update_add_vertex);
    EXPECT_EQ(t->walk_update_connect, &dag_walk_update_connect);
    EXPECT_EQ(t->walk_update_disconnect, &dag_walk_update_disconnect);
    EXPECT_EQ(t->walk_update_remove_vertex, &dag_walk_update_remove_vertex);
    EXPECT_EQ(t->walk_apply, &dag_walk_apply);
    EXPECT_EQ(t->walk_report_free, &dag_walk_report_free);
    EXPECT_EQ(t->walk_report_size, &dag_walk_report_size);
    EXPECT_EQ(t->walk_report_count, &dag_walk_report_count);
    EXPECT_EQ(t->walk_report_vertices, &dag_walk_report_vertices);
    EXPECT_EQ(t->walk_report_vertex, &dag_walk_report_vertex);
    EXPECT_EQ(t->walk_report_first_error, &dag_walk_report_first_error);
    EXPECT_EQ(t->walk_report_cancelled, &dag_walk_report_cancelled);
    EXPECT_EQ(t->walk_report_ran, &dag_walk_report_ran);
    EXPECT_EQ(t->vertex_status_string, &dag_vertex_status_string);
    EXPECT_EQ(t->export_graph, &dag_export_graph);
    EXPECT_EQ(t->import_graph, &dag_import_graph);
    EXPECT_EQ(t->import_graph_file, &dag_import_graph_file);
    EXPECT_EQ(t->format_name, &dag_format_name);
    EXPECT_EQ(t->walk_wait_for, &dag_walk_wait_for);
    EXPECT_EQ(t->walk_begin, &dag_walk_begin);
    EXPECT_EQ(t->walk_next_ready, &dag_walk_next_ready);
    EXPECT_EQ(t->walk_report_read, &dag_walk_report_read);
    EXPECT_EQ(t->walk_progress, &dag_walk_progress);
    EXPECT_EQ(t->roots, &dag_roots);
    EXPECT_EQ(t->leaves, &dag_leaves);
    EXPECT_EQ(t->dependency_count, &dag_dependency_count);
    EXPECT_EQ(t->dependent_count, &dag_dependent_count);
    EXPECT_EQ(t->search, &dag_search);
    EXPECT_EQ(t->walk_fail, &dag_walk_fail);
    EXPECT_EQ(t->select, &dag_select);
    EXPECT_EQ(t->builder_new, &dag_builder_new);
    EXPECT_EQ(t->builder_free, &dag_builder_free);
    EXPECT_EQ(t->builder_provide, &dag_builder_provide);
    EXPECT_EQ(t->builder_reference, &dag_builder_reference);
    EXPECT_EQ(t->builder_need, &dag_builder_need);
    EXPECT_EQ(t->builder_set_action, &dag_builder_set_action);
    EXPECT_EQ(t->builder_add_step, &dag_builder_add_step);
    EXPECT_EQ(t->builder_add_references, &dag_builder_add_references);
    EXPECT_EQ(t->builder_add_shared, &dag_builder_add_shared);
    EXPECT_EQ(t->builder_add_root, &dag_builder_add_root);
    EXPECT_EQ(t->builder_add_destroy_order, &dag_builder_add_destroy_order);
    EXPECT_EQ(t->builder_add_transitive_reduction, &dag_builder_add_transitive_reduction);
    EXPECT_EQ(t->builder_add_prune, &dag_builder_add_prune);
    EXPECT_EQ(t->build_options_init, &dag_build_options_init);
    EXPECT_EQ(t->build, &dag_build);
    EXPECT_EQ(t->builder_warnings, &dag_builder_warnings);
    EXPECT_EQ(t->walk_report_attempts, &dag_walk_report_attempts);
    EXPECT_EQ(t->walk_report_attempt_message, &dag_walk_report_attempt_message);
    EXPECT_EQ(t->add_vertices, &dag_add_vertices);
    EXPECT_EQ(t->find_vertices, &dag_find_vertices);
}
