#include "algorithms/reachability.hpp"

#include <algorithm>

#include "algorithms/traversal.hpp"

namespace dag {

namespace {

// The neighbours of the start set, the frontier Terraform starts from.
std::vector<VertexId> first_step(const Graph &g, const std::vector<VertexId> &start, bool reverse) {
    check_vertices(g, start);
    std::vector<VertexId> out;
    for (VertexId id : start) {
        const std::vector<VertexId> next = reverse ? g.dependents(id) : g.dependencies(id);
        out.insert(out.end(), next.begin(), next.end());
    }
    std::sort(out.begin(), out.end());
    out.erase(std::unique(out.begin(), out.end()), out.end());
    return out;
}

SearchAction matching(const VertexPredicate &match, SearchAction on_match, VertexId id) {
    return match(id) ? on_match : SearchAction::no_match;
}

}  // namespace

std::vector<VertexId> search(const Graph &g, const std::vector<VertexId> &start, SearchOptions options,
                             const SearchCallback &callback) {
    std::vector<VertexId> out;
    TraversalOptions opts;
    opts.reverse = options.reverse;
    traverse(g, first_step(g, start, options.reverse), opts, [&](VertexId id, std::size_t) {
        switch (callback(id)) {
            case SearchAction::no_match: return Visit::proceed;
            case SearchAction::skip: return Visit::skip;
            case SearchAction::stop: return Visit::stop;
            case SearchAction::match_and_stop: out.push_back(id); return Visit::stop;
            case SearchAction::match: break;
        }
        out.push_back(id);
        return options.first_match ? Visit::skip : Visit::proceed;
    });
    std::sort(out.begin(), out.end());
    return out;
}

namespace {

std::vector<VertexId> every(const Graph &g, const std::vector<VertexId> &start, bool reverse) {
    return search(g, start, SearchOptions{reverse, false}, [](VertexId) { return SearchAction::match; });
}

std::vector<VertexId> first_with(const Graph &g, const std::vector<VertexId> &start, bool reverse,
                                 const VertexPredicate &match) {
    return search(g, start, SearchOptions{reverse, true},
                  [&](VertexId id) { return matching(match, SearchAction::match, id); });
}

bool any(const Graph &g, const std::vector<VertexId> &start, bool reverse, const VertexPredicate &match) {
    return !search(g, start, SearchOptions{reverse, false},
                   [&](VertexId id) { return matching(match, SearchAction::match_and_stop, id); })
                .empty();
}

}  // namespace

std::vector<VertexId> ancestors(const Graph &g, const std::vector<VertexId> &start) {
    return every(g, start, false);
}

std::vector<VertexId> descendants(const Graph &g, const std::vector<VertexId> &start) {
    return every(g, start, true);
}

std::vector<VertexId> first_ancestors_with(const Graph &g, const std::vector<VertexId> &start,
                                           const VertexPredicate &match) {
    return first_with(g, start, false, match);
}

std::vector<VertexId> first_descendants_with(const Graph &g, const std::vector<VertexId> &start,
                                             const VertexPredicate &match) {
    return first_with(g, start, true, match);
}

bool match_ancestor(const Graph &g, const std::vector<VertexId> &start, const VertexPredicate &match) {
    return any(g, start, false, match);
}

bool match_descendant(const Graph &g, const std::vector<VertexId> &start, const VertexPredicate &match) {
    return any(g, start, true, match);
}

}  // namespace dag
