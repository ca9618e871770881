// Terraform's -target and OpenTofu's -exclude as one graph operation: the part
// of a graph a partial apply (or, with `dependents`, a partial destroy) runs.
//
// With a -> b -> c (a depends on b, b on c):
//   targets {b}                  -> {b, c}   (b needs c first)
//   targets {b}, dependents      -> {a, b}   (a must go before b)
//   every vertex, excludes {b}   -> {c}      (a needs b)
//   every vertex, excludes {b}, dependents -> {a}
// The exclusion follows the opposite direction to the targets, so the result
// never holds a vertex without something it needs run before it.
#pragma once

#include <vector>

#include "graph/graph.hpp"

namespace dag {

struct Selection {
    std::vector<VertexId> targets;
    bool every_vertex = false;  // every vertex is a target; `targets` is ignored
    bool dependents = false;    // keep what depends on the targets instead of what they depend on
    std::vector<VertexId> excludes;
};

// Fills the empty `out` with the selected vertices of `g` under their ids,
// names and user data, and the edges among them; `out` issues its next ids
// from where `g` stands. Errc::unknown_vertex for a target or exclude id that
// is not live, before `out` is touched.
void select(const Graph &g, const Selection &selection, Graph &out);

}  // namespace dag
