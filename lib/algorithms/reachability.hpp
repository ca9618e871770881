// Terraform's Ancestors / Descendants, FirstAncestorsWith /
// FirstDescendantsWith and MatchAncestor / MatchDescendant, generalised to a
// set of start vertices.
//
// Names as in Terraform, which mislead: the ancestors of v are what v depends
// on (transitively), its descendants are what depends on v. With a -> b -> c
// (a depends on b, b on c): ancestors(a) = {b, c}, descendants(c) = {a, b}.
//
// Every search starts from the neighbours of the start vertices, so a start
// vertex is part of the result only when it is reachable from a start vertex
// (through a cycle, or from another start vertex). Results are ascending ids.
#pragma once

#include <functional>
#include <vector>

#include "graph/graph.hpp"

namespace dag {

using VertexPredicate = std::function<bool(VertexId)>;

std::vector<VertexId> ancestors(const Graph &g, const std::vector<VertexId> &start);
std::vector<VertexId> descendants(const Graph &g, const std::vector<VertexId> &start);

// Every vertex matching `match` found walking from the start set, where a
// branch ends at its first match.
std::vector<VertexId> first_ancestors_with(const Graph &g, const std::vector<VertexId> &start,
                                           const VertexPredicate &match);
std::vector<VertexId> first_descendants_with(const Graph &g, const std::vector<VertexId> &start,
                                             const VertexPredicate &match);

// True when some ancestor (descendant) matches; stops at the first match.
bool match_ancestor(const Graph &g, const std::vector<VertexId> &start, const VertexPredicate &match);
bool match_descendant(const Graph &g, const std::vector<VertexId> &start, const VertexPredicate &match);

}  // namespace dag
