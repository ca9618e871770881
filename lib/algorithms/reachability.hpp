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

// The general form of the searches above (dag_search): the callback says, per
// vertex reached, whether it matches, whether to go beyond it, and whether to
// end the search. Values match dag_search_action.
enum class SearchAction { no_match = 0, match = 1, match_and_stop = 2, stop = 3, skip = 5 };

struct SearchOptions {
    bool reverse = false;      // towards dependents (descendants)
    bool first_match = false;  // a match ends its branch
};

using SearchCallback = std::function<SearchAction(VertexId)>;

// Depth first from the neighbours of the start set (Errc::unknown_vertex for
// a start id that is not live, before any call), as traverse() without
// flags. Returns the matches, ascending ids, also when the callback stopped
// the search; an exception thrown by the callback ends it and propagates.
std::vector<VertexId> search(const Graph &g, const std::vector<VertexId> &start, SearchOptions options,
                             const SearchCallback &callback);

}  // namespace dag
