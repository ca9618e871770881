// Strongly connected components (Tarjan), iterative so that a chain or ring
// of millions of vertices needs heap memory only, never deep recursion.
#pragma once

#include <vector>

#include "graph/graph.hpp"
#include "graph/huge_pages.hpp"
#include "graph/snapshot.hpp"

namespace dag {

// Components in compressed form: component c holds
// members[offsets[c] .. offsets[c + 1]) (snapshot indices). Components come out
// in Tarjan's completion order: every component appears after all the
// components it depends on. Within a component, members are in the order
// Tarjan pops them off its stack.
struct Components {
    std::vector<Snapshot::Index> offsets{0};
    LargeVector<Snapshot::Index> members;
    LargeVector<Snapshot::Index> component_of;  // index -> component

    std::size_t count() const noexcept { return offsets.size() - 1; }
    std::size_t size(std::size_t c) const noexcept { return offsets[c + 1] - offsets[c]; }
    const Snapshot::Index *begin(std::size_t c) const noexcept { return members.data() + offsets[c]; }
    const Snapshot::Index *end(std::size_t c) const noexcept { return members.data() + offsets[c + 1]; }
};

// Roots are tried in ascending id order and edges followed towards
// dependencies in the order they were added (the snapshot's), so the result
// is deterministic. O(V + E) time, O(V) extra memory.
Components strongly_connected(const Snapshot &s);

// True when the graph has a component of more than one vertex or a self edge.
bool has_cycle(const Snapshot &s);

// Components as vertex ids, compressed the same way (one array for all of
// them, rather than an allocation per component: a DAG of a million vertices
// has a million components).
struct ComponentIds {
    std::vector<Snapshot::Index> offsets{0};
    std::vector<VertexId> ids;

    std::size_t count() const noexcept { return offsets.size() - 1; }
    std::size_t size(std::size_t c) const noexcept { return offsets[c + 1] - offsets[c]; }
    const VertexId *begin(std::size_t c) const noexcept { return ids.data() + offsets[c]; }
    const VertexId *end(std::size_t c) const noexcept { return ids.data() + offsets[c + 1]; }
};

// Every component of `g`, in the order of strongly_connected(), through the
// graph's shared snapshot (shared_snapshot.hpp), which it caches when it
// finds no cycle.
ComponentIds strongly_connected_components(const Graph &g);

}  // namespace dag
