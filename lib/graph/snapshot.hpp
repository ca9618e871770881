// A frozen, compact copy of a graph's topology for algorithms and walks:
// live vertices renumbered densely 0..n-1 in ascending id order, with
// compressed-sparse-row arrays in both directions. Reading neighbours is then
// a contiguous array scan instead of chasing adjacency_list nodes.
//
// Neighbour lists keep the adjacency list's order (the order the edges were
// added), so Tarjan on a snapshot finds the components in the same order as
// it always has on the graph itself.
#pragma once

#include <cstdint>
#include <vector>

#include "graph/graph.hpp"
#include "graph/huge_pages.hpp"

namespace dag {

struct Snapshot {
    using Index = std::uint32_t;

    HugeVector<VertexId> ids;            // dense index -> vertex id, ascending
    HugeVector<Index> dense;             // graph index (id - 1) -> dense index, or npos
    HugeVector<Index> out_offsets;       // n + 1 entries
    HugeVector<Index> out_targets;       // dependencies of each vertex
    HugeVector<Index> in_offsets;        // n + 1 entries
    HugeVector<Index> in_sources;        // dependents of each vertex

    static constexpr Index npos = ~Index{0};

    std::size_t size() const noexcept { return ids.size(); }
    std::size_t edge_count() const noexcept { return out_targets.size(); }

    // Dense index of a live vertex id; npos for an id the snapshot lacks.
    Index index_of(VertexId id) const noexcept {
        return id == no_vertex || id > dense.size() ? npos : dense[id - 1];
    }

    const Index *out_begin(Index v) const noexcept { return out_targets.data() + out_offsets[v]; }
    const Index *out_end(Index v) const noexcept { return out_targets.data() + out_offsets[v + 1]; }
    const Index *in_begin(Index v) const noexcept { return in_sources.data() + in_offsets[v]; }
    const Index *in_end(Index v) const noexcept { return in_sources.data() + in_offsets[v + 1]; }
    Index out_degree(Index v) const noexcept { return out_offsets[v + 1] - out_offsets[v]; }
    Index in_degree(Index v) const noexcept { return in_offsets[v + 1] - in_offsets[v]; }
};

// Builds the snapshot in O(V + E), in one pass over the vertex records.
// Throws Errc::invalid_argument for graphs beyond 2^32 - 2 vertices or edges.
Snapshot freeze(const Graph &g);

}  // namespace dag
