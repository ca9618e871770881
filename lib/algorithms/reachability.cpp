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

std::vector<VertexId> collect(const Graph &g, const std::vector<VertexId> &start, bool reverse,
                              const VertexPredicate *match) {
    std::vector<VertexId> out;
    TraversalOptions opts;
    opts.reverse = reverse;
    traverse(g, first_step(g, start, reverse), opts, [&](VertexId id, std::size_t) {
        if (!match) {
            out.push_back(id);
            return Visit::proceed;
        }
        if (!(*match)(id)) return Visit::proceed;
        out.push_back(id);
        return Visit::skip;
    });
    std::sort(out.begin(), out.end());
    return out;
}

bool any(const Graph &g, const std::vector<VertexId> &start, bool reverse, const VertexPredicate &match) {
    TraversalOptions opts;
    opts.reverse = reverse;
    return !traverse(g, first_step(g, start, reverse), opts,
                     [&](VertexId id, std::size_t) { return match(id) ? Visit::stop : Visit::proceed; });
}

}  // namespace

std::vector<VertexId> ancestors(const Graph &g, const std::vector<VertexId> &start) {
    return collect(g, start, false, nullptr);
}

std::vector<VertexId> descendants(const Graph &g, const std::vector<VertexId> &start) {
    return collect(g, start, true, nullptr);
}

std::vector<VertexId> first_ancestors_with(const Graph &g, const std::vector<VertexId> &start,
                                           const VertexPredicate &match) {
    return collect(g, start, false, &match);
}

std::vector<VertexId> first_descendants_with(const Graph &g, const std::vector<VertexId> &start,
                                             const VertexPredicate &match) {
    return collect(g, start, true, &match);
}

bool match_ancestor(const Graph &g, const std::vector<VertexId> &start, const VertexPredicate &match) {
    return any(g, start, false, match);
}

bool match_descendant(const Graph &g, const std::vector<VertexId> &start, const VertexPredicate &match) {
    return any(g, start, true, match);
}

}  // namespace dag
