// C entry points for roots, leaves and degrees: argument checks only.
#include "guard.hpp"
#include "graph/degrees.hpp"

using dag::capi::GraphRead;
using dag::capi::guard;
using dag::capi::require;

extern "C" {

dag_status dag_roots(const dag_graph *g, dag_ids **out, dag_error **err) {
    return guard(__func__, err, [&] {
        const GraphRead reading(g, "g");
        require(out, "out");
        *out = dag::capi::make_ids(dag::roots(g->graph));
    });
}

dag_status dag_leaves(const dag_graph *g, dag_ids **out, dag_error **err) {
    return guard(__func__, err, [&] {
        const GraphRead reading(g, "g");
        require(out, "out");
        *out = dag::capi::make_ids(dag::leaves(g->graph));
    });
}

dag_status dag_dependency_count(const dag_graph *g, uint64_t id, size_t *out_count, dag_error **err) {
    return guard(__func__, err, [&] {
        const GraphRead reading(g, "g");
        require(out_count, "out_count");
        *out_count = dag::dependency_count(g->graph, id);
    });
}

dag_status dag_dependent_count(const dag_graph *g, uint64_t id, size_t *out_count, dag_error **err) {
    return guard(__func__, err, [&] {
        const GraphRead reading(g, "g");
        require(out_count, "out_count");
        *out_count = dag::dependent_count(g->graph, id);
    });
}

}  // extern "C"
