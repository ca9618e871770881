// Strongly connected components (Tarjan), iterative so that a chain or ring
// of millions of vertices needs heap memory only, never deep recursion.
#pragma once

#include <vector>

#include "graph.hpp"
#include "snapshot.hpp"

namespace dag {

// Components in compressed form: component c holds
// members[offsets[c] .. offsets[c + 1]) (snapshot or graph indices, as the
// function that made it says). Components come out
// in Tarjan's completion order: every component appears after all the
// components it depends on. Within a component, members are in the order
// Tarjan pops them off its stack.
struct Components {
    std::vector<Snapshot::Index> offsets{0};
    std::vector<Snapshot::Index> members;
    std::vector<Snapshot::Index> component_of;  // index -> component; npos for a removed vertex

    std::size_t count() const noexcept { return offsets.size() - 1; }
    std::size_t size(std::size_t c) const noexcept { return offsets[c + 1] - offsets[c]; }
    const Snapshot::Index *begin(std::size_t c) const noexcept { return members.data() + offsets[c]; }
    const Snapshot::Index *end(std::size_t c) const noexcept { return members.data() + offsets[c + 1]; }
};

// Roots are tried in ascending id order and edges followed towards
// dependencies in ascending id order, so the result is deterministic.
// O(V + E) time, O(V) extra memory. Indices are dense snapshot indices.
Components strongly_connected(const Snapshot &s);

// The same on the adjacency list itself, without building a snapshot:
// indices are graph indices (id - 1), removed vertices belong to no
// component, and edges are followed in insertion order.
Components strongly_connected(const Graph &g);

// True when the graph has a component of more than one vertex or a self edge.
bool has_cycle(const Snapshot &s);

// Every component as a list of vertex ids, from strongly_connected(g).
std::vector<std::vector<VertexId>> strongly_connected_components(const Graph &g);

}  // namespace dag
