// The exported function table for plugin hosts that dlopen() libdag.
#include "dag/dag.h"

namespace {

const dag_api_table table = {
    sizeof(dag_api_table),
    DAG_VERSION_NUMBER,
    dag_version,
    dag_version_string,
    dag_status_string,
    dag_error_status,
    dag_error_message,
    dag_error_free,
    dag_ids_count,
    dag_ids_data,
    dag_ids_free,
    dag_string_free,
    dag_new,
    dag_free,
    dag_clone,
    dag_add_vertex,
    dag_remove_vertex,
    dag_replace_vertex,
    dag_has_vertex,
    dag_vertex_count,
    dag_find_vertex,
    dag_vertex_name,
    dag_set_vertex_name,
    dag_vertex_user_data,
    dag_set_vertex_user_data,
    dag_connect,
    dag_disconnect,
    dag_has_edge,
    dag_edge_count,
    dag_vertices,
    dag_edges,
    dag_dependencies,
    dag_dependents,
    dag_subsume,
    dag_to_string,
};

}  // namespace

extern "C" const dag_api_table *dag_api(unsigned abi) { return abi == DAG_API_ABI ? &table : nullptr; }
