// Roots, leaves and degrees (dag_roots, dag_leaves, dag_dependency_count,
// dag_dependent_count), read straight off the adjacency list: its vecS
// out- and in-edge lists know their sizes, so a degree is O(1) and a scan of
// every vertex O(ids issued), with no copy of the graph.
#pragma once

#include <cstddef>
#include <vector>

#include "graph/graph.hpp"

namespace dag {

// Live vertices with no dependents (no in-edges), ascending ids: Terraform's
// Root() candidates. A self edge counts, so a vertex with one is not a root.
std::vector<VertexId> roots(const Graph &g);
// Live vertices with no dependencies (no out-edges), ascending ids.
std::vector<VertexId> leaves(const Graph &g);

// Out-degree and in-degree; Errc::unknown_vertex unless `id` is live.
std::size_t dependency_count(const Graph &g, VertexId id);
std::size_t dependent_count(const Graph &g, VertexId id);

}  // namespace dag
