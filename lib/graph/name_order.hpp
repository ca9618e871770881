// The deterministic tie-break shared by every ordered algorithm: vertices
// compare by name, then by id. An unnamed vertex has the empty name, which
// sorts before every real name, so unnamed vertices come first, by id.
//
// Ranks are computed once per call, so the hot loops of the orders and
// sorted walks compare two integers instead of two strings.
#pragma once

#include <vector>

#include "graph/graph.hpp"
#include "graph/snapshot.hpp"

namespace dag {

// rank[i] for each dense index i of `s`: a permutation of 0..n-1 where a
// smaller rank means "smaller name, then smaller id". O(V) when no vertex is
// named, O(V + k log k) for k named vertices.
std::vector<Snapshot::Index> name_ranks(const Graph &g, const Snapshot &s);

}  // namespace dag

namespace dag {

// The same order as name_ranks() for a handful of vertices, comparing names
// directly, for walks that touch only part of a large graph.
struct NameLess {
    const Graph &g;
    bool operator()(VertexId a, VertexId b) const {
        const std::string *na = g.name(a);
        const std::string *nb = g.name(b);
        if (!na || !nb) return na == nb ? a < b : !na;
        return *na < *nb;
    }
};

}  // namespace dag
