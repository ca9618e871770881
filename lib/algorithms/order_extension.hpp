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
// - new vertices that no old vertex depends on change the pass only at the
//   steps where one of them is the smallest free key: the old vertices'
//   part of the pass is the kept order, and before each old vertex every
//   free new vertex with a smaller key goes out, smallest first, and may
//   free other new ones. Going dependencies first a new vertex is free once
//   its old dependencies (those before that place in the kept order) and its
//   new ones are out; going dependents first once the new vertices
//   depending on it are, and it must be out before its first old
//   dependency's place (the pass would otherwise have taken that dependency
//   before it, and now cannot).
// Anything else (an old vertex depending on a new one, an edge against the
// order, a new vertex not out by its old dependency's place, a cycle among
// new vertices, more changes than an eighth of the order) is refused, and
// the caller computes the order afresh.
#pragma once

#include "algorithms/topo_order.hpp"
#include "graph/graph.hpp"
#include "graph/kept_orders.hpp"

namespace dag {

// Sets `out` (ids and, for a graph with names, keys) to the order of `g`
// in `direction`, from `since` (the kept order and the edges added since
// it was made) and returns true; false where the order must be computed
// afresh (out is then unspecified). One pass over the kept order plus
// O(k log k) for k new vertices and one binary search of the graph's sorted
// names per new named vertex.
bool extend_order(const Graph &g, TopoDirection direction, const KeptOrders::Since &since, KeptOrders::Order &out);

}  // namespace dag
