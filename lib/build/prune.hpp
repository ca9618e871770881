// Terraform's pruning of unused vertices (PruneUnusedNodesTransformer):
// vertices that may go and that nothing depends on are removed, again and
// again, since removing one can leave its dependencies unused.
#pragma once

#include <cstddef>
#include <functional>

#include "graph/graph.hpp"

namespace dag {

// Removes, until none is left, every vertex nothing depends on for which
// `prunable` is true, and returns how many were removed. `prunable` is asked
// at most once per vertex, only about vertices whose every dependent is to
// be removed, in ascending id order per round; the graph changes only after
// the last answer, so an exception from it leaves the graph as it was.
std::size_t prune(Graph &g, const std::function<bool(VertexId)> &prunable);

}  // namespace dag
