// A frozen, compact copy of a graph's topology for algorithms and walks:
// live vertices renumbered densely 0..n-1 in ascending id order (or, in a
// renumbered copy, in the order its caller gave: renumber()), with
// compressed-sparse-row arrays in both directions. Reading neighbours is then
// a contiguous array scan instead of chasing adjacency_list nodes.
//
// Neighbour lists keep the adjacency list's order (the order the edges were
// added), so Tarjan on a snapshot finds the components in the same order as
// it always has on the graph itself.
#pragma once

#include <cstdint>
#include <memory>
#include <vector>

#include "graph/graph.hpp"
#include "graph/huge_pages.hpp"

namespace dag {

struct Snapshot {
    using Index = std::uint32_t;

    HugeVector<Index> out_offsets;       // n + 1 entries
    HugeVector<Index> out_targets;       // dependencies of each vertex
    HugeVector<Index> in_offsets;        // n + 1 entries
    HugeVector<Index> in_sources;        // dependents of each vertex

    static constexpr Index npos = ~Index{0};

    std::size_t size() const noexcept { return count_; }
    std::size_t edge_count() const noexcept { return out_targets.size(); }

    // What index_of reads, copied: a loop that also stores 64-bit words
    // (a walk's slots) would otherwise read the snapshot's fields again
    // after each store, not knowing the store left them alone.
    struct IndexLookup {
        std::size_t bound;
        const Index *dense;  // null where the dense index is the id minus one
        Index operator()(VertexId id) const noexcept {
            if (id == no_vertex || id > bound) return npos;
            return dense ? dense[id - 1] : static_cast<Index>(id - 1);
        }
    };
    IndexLookup index_lookup() const noexcept { return {bound_, dense_.empty() ? nullptr : dense_.data()}; }
    // Dense index of a live vertex id; npos for an id the snapshot lacks.
    Index index_of(VertexId id) const noexcept { return index_lookup()(id); }
    VertexId id_of(Index i) const noexcept { return ids_.empty() ? VertexId{i} + 1 : ids_[i]; }
    // The id of each dense index in order, or nullptr where the id is the
    // index plus one (id_of).
    const VertexId *id_table() const noexcept { return ids_.empty() ? nullptr : ids_.data(); }

    const Index *out_begin(Index v) const noexcept { return out_targets.data() + out_offsets[v]; }
    const Index *out_end(Index v) const noexcept { return out_targets.data() + out_offsets[v + 1]; }
    const Index *in_begin(Index v) const noexcept { return in_sources.data() + in_offsets[v]; }
    const Index *in_end(Index v) const noexcept { return in_sources.data() + in_offsets[v + 1]; }
    Index out_degree(Index v) const noexcept { return out_offsets[v + 1] - out_offsets[v]; }
    Index in_degree(Index v) const noexcept { return in_offsets[v + 1] - in_offsets[v]; }

private:
    friend Snapshot freeze(const Graph &g);
    friend Snapshot renumber(const Snapshot &s, const std::uint32_t *to);
    // A graph that never lost a vertex numbers its vertices densely
    // already: both tables would be the identity (12 bytes a vertex), so
    // they stay empty and the accessors compute it.
    HugeVector<VertexId> ids_;  // dense index -> vertex id, ascending but in a renumbered copy
    HugeVector<Index> dense_;   // graph index (id - 1) -> dense index, or npos
    std::size_t count_ = 0;
    std::size_t bound_ = 0;
};

// Builds the snapshot in O(V + E), in one pass over the vertex records.
// Throws Errc::invalid_argument for graphs beyond 2^32 - 2 vertices or edges.
Snapshot freeze(const Graph &g);

// The same topology with dense index i moved to to[i], a permutation of
// 0..n-1; each neighbour list keeps its order. A walk whose vertices start
// about in the order of `to` (its ranks) then reads every array in
// sequence instead of jumping between rows.
Snapshot renumber(const Snapshot &s, const std::uint32_t *to);

}  // namespace dag
