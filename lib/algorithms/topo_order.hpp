// Terraform's TopologicalOrder (dependents before their dependencies) and
// ReverseTopologicalOrder (dependencies first: execution order), made
// deterministic: among the vertices free at the same moment, the one with the
// smallest name goes first, then the smallest id (see name_order.hpp).
#pragma once

#include <memory>
#include <vector>

#include "graph/graph.hpp"
#include "graph/snapshot.hpp"

namespace dag {

enum class TopoDirection {
    dependents_first,    // Terraform's TopologicalOrder
    dependencies_first,  // Terraform's ReverseTopologicalOrder
};

// Kahn's algorithm over `s` with ties broken by name rank (smaller first;
// nullptr means dense index order).
// Returns the dense indices in order; fewer than s.size() of them when the
// graph has a cycle (the vertices on or behind a cycle are left out).
// O(V + E) plus a few word operations per vertex for the tie-break.
std::vector<Snapshot::Index> topological_indices(const Snapshot &s, const NameRanks *ranks, TopoDirection direction);

// Through the graph's shared snapshot (shared_snapshot.hpp), and kept once
// computed (kept_orders.hpp): an order of an unchanged graph after the first
// is a copy, and one after vertices and edges were only added is often the
// kept one extended (order_extension.hpp). Throws
// Errc::cycle (with the validation text of every cycle) for a cyclic graph,
// including one with a self reference.
std::vector<VertexId> topological_order(const Graph &g);
std::vector<VertexId> reverse_topological_order(const Graph &g);
// The order as the graph keeps it (valid while the returned pointer lives,
// whatever happens to the graph): what the C API copies out.
std::shared_ptr<const HugeVector<VertexId>> kept_order(const Graph &g, TopoDirection direction);

}  // namespace dag
