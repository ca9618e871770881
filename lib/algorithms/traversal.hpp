// Terraform's depth-first and breadth-first walks (DepthFirstWalk,
// ReverseBreadthFirstWalk...): from a start set, towards dependencies
// (forward) or towards dependents (reverse), giving each vertex once with
// its depth, with a visitor that may skip a branch or stop the walk.
//
// The frontier works exactly like Terraform's: a stack (depth first) or a
// queue (breadth first) of (vertex, depth) entries; a vertex is visited the
// first time it is taken off the frontier, and after its visit all its
// neighbours are put on the frontier at depth + 1. The sorted variant is
// Terraform's deterministic test walk: the start set and each batch of
// neighbours are put on the frontier in name order, so a depth-first walk
// takes the last name of a batch first. The plain variant uses the given
// start order and ascending ids.
#pragma once

#include <cstddef>
#include <functional>
#include <vector>

#include "graph/graph.hpp"

namespace dag {

enum class Visit {
    proceed,  // put the neighbours on the frontier
    skip,     // do not go beyond this vertex (Terraform's errStopWalkBranch)
    stop,     // end the walk now (Terraform's errStopWalk)
};

struct TraversalOptions {
    bool breadth_first = false;
    bool reverse = false;  // towards dependents instead of dependencies
    bool sorted = false;
};

using Visitor = std::function<Visit(VertexId id, std::size_t depth)>;

// Checks every start id first (Errc::unknown_vertex names the first bad one,
// and nothing is visited); duplicates in `start` count once. Returns false
// when the visitor stopped the walk. Iterative: O(V + E) time and memory,
// whatever the depth. The graph must not change while the walk runs.
bool traverse(const Graph &g, const std::vector<VertexId> &start, TraversalOptions options,
              const Visitor &visit);

// Throws Errc::unknown_vertex for the first id in `ids` that is not live.
void check_vertices(const Graph &g, const std::vector<VertexId> &ids);

}  // namespace dag
