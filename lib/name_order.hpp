// The deterministic tie-break shared by every ordered algorithm: vertices
// compare by name, then by id. An unnamed vertex has the empty name, which
// sorts before every real name, so unnamed vertices come first, by id.
//
// Ranks are computed once per call, so the hot loops of the orders and
// sorted walks compare two integers instead of two strings.
#pragma once

#include <vector>

#include "graph.hpp"
#include "snapshot.hpp"

namespace dag {

// rank[i] for each dense index i of `s`: a permutation of 0..n-1 where a
// smaller rank means "smaller name, then smaller id". O(V) when no vertex is
// named, O(V + k log k) for k named vertices.
std::vector<Snapshot::Index> name_ranks(const Graph &g, const Snapshot &s);

}  // namespace dag
