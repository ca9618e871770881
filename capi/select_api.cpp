// C entry point of the -target / -exclude selection (dag_select): argument
// checks and translation of the flags.
#include <memory>
#include <string>
#include <vector>

#include "guard.hpp"
#include "handles.hpp"
#include "algorithms/selection.hpp"

using dag::capi::ApiError;
using dag::capi::GraphRead;
using dag::capi::guard;
using dag::capi::require;

namespace {

std::vector<dag::VertexId> id_list(const uint64_t *ids, size_t count, const char *what, const char *count_what) {
    if (count > 0) require(ids, what);
    dag::capi::require_id_count(count, count_what);
    return std::vector<dag::VertexId>(ids, ids + count);
}

}  // namespace

extern "C" {

dag_status dag_select(const dag_graph *g, const uint64_t *targets, size_t target_count, const uint64_t *excludes,
                      size_t exclude_count, unsigned flags, dag_graph **out, dag_error **err) {
    return guard(__func__, err, [&] {
        const GraphRead reading(g, "g");
        require(out, "out");
        constexpr unsigned known = DAG_SELECT_DEPENDENTS | DAG_SELECT_ALL;
        if (flags & ~known)
            throw ApiError{DAG_E_INVALID_ARGUMENT, "unknown flag bits " + std::to_string(flags & ~known)};
        dag::Selection selection;
        selection.every_vertex = flags & DAG_SELECT_ALL;
        selection.dependents = flags & DAG_SELECT_DEPENDENTS;
        if (!selection.every_vertex) selection.targets = id_list(targets, target_count, "targets", "target_count");
        selection.excludes = id_list(excludes, exclude_count, "excludes", "exclude_count");
        auto selected = std::make_unique<dag_graph>();
        dag::select(g->graph, selection, selected->graph);
        *out = selected.release();
    });
}

}  // extern "C"
