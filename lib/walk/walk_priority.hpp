// Which ready vertex starts first (WalkOptions::priority): a rank for each
// vertex of the walked graph, computed once as the walk is created. The
// executor's ready queue (ready_order.hpp) starts the smallest rank first.
#pragma once

#include <cstdint>
#include <vector>

#include "graph/graph.hpp"
#include "graph/snapshot.hpp"
#include "walk/walk_types.hpp"

namespace dag::walk_detail {

// Below every rank: vertices of sub-walks and vertices added by updates,
// which have none, start after every ranked ready vertex.
inline constexpr std::uint32_t unranked = ~std::uint32_t{0};

// rank[i] for the snapshot's dense index i, 0 first:
// - critical_path: the longest path from the vertex to the end of the walk
//   (through what waits for it: its dependents, or with `reverse` its
//   dependencies), the vertex included, each vertex counting its weight
//   (1 unless `weights` gives one), longest first; ties by name (bytewise;
//   named vertices before unnamed ones), then by id.
// - name: by name, then id, as above.
// Throws unknown_vertex for a weight of a vertex not in the snapshot.
HugeVector<std::uint32_t> rank_vertices(const Graph &g, const Snapshot &snap, bool reverse, Priority priority,
                                         const std::vector<std::pair<VertexId, std::uint64_t>> &weights);

}  // namespace dag::walk_detail
