// An order kept from before vertices and edges were added, extended to the
// graph as it is now without running Kahn's pass again, where that gives
// exactly the order the pass would.
//
// libdag's orders are Kahn's pass taking the smallest free key (name, then
// id) each time, which makes each the lexicographically smallest
// topological order by key. Two consequences:
// - an added edge the kept order already agrees with leaves it the smallest
//   (the smallest of a set that is still in a subset is the subset's), so it
//   stays the order;
// - a new vertex that nothing depends on changes the pass only by the steps
//   where it is the smallest free key: going dependencies first it becomes
//   free after its last dependency, and is taken before the first vertex
//   after that whose key is larger; going dependents first it is free from
//   the start and goes before the first vertex with a larger key, which
//   must not be past its first dependency (the pass would then have taken
//   that dependency before it). Several new vertices at one place go in key
//   order; every old vertex keeps its place relative to the others.
// Anything else (an edge to a new vertex, an edge against the order, a new
// vertex placed past a dependency, too many changes to be cheaper than the
// pass) is refused, and the caller computes the order afresh.
#pragma once

#include "algorithms/topo_order.hpp"
#include "graph/graph.hpp"
#include "graph/kept_orders.hpp"

namespace dag {

// Sets `out` (ids and, for a graph with names, keys) to the order of `g`
// in `direction`, from `since` (the kept order and the edges added since
// it was made) and returns true; false where the order must be computed
// afresh (out is then unspecified). O(V + scanned positions) integer work,
// a binary search of the names per new named vertex.
bool extend_order(const Graph &g, TopoDirection direction, const KeptOrders::Since &since, KeptOrders::Order &out);

}  // namespace dag
