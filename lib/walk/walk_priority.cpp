#include "walk/walk_priority.hpp"

#include <algorithm>
#include <limits>
#include <numeric>
#include <optional>
#include <string>
#include <string_view>

#include "graph/error.hpp"

namespace dag::walk_detail {

namespace {

using Index = Snapshot::Index;

// Longest weighted path from each vertex through what waits for it,
// saturating: processed once all its waiters are, from the vertices nothing
// waits for.
std::vector<std::uint64_t> critical_paths(const Snapshot &snap, bool reverse, const std::vector<std::uint64_t> &weight) {
    const std::size_t n = snap.size();
    std::vector<std::uint64_t> path(n, 0);
    std::vector<Index> waiters_left(n), stack;
    for (Index i = 0; i < n; ++i) {
        waiters_left[i] = reverse ? snap.out_degree(i) : snap.in_degree(i);
        if (waiters_left[i] == 0) stack.push_back(i);
    }
    while (!stack.empty()) {
        const Index v = stack.back();
        stack.pop_back();
        std::uint64_t longest = 0;
        const Index *wb = reverse ? snap.out_begin(v) : snap.in_begin(v);
        const Index *we = reverse ? snap.out_end(v) : snap.in_end(v);
        for (const Index *p = wb; p != we; ++p) longest = std::max(longest, path[*p]);
        const std::uint64_t max = std::numeric_limits<std::uint64_t>::max();
        path[v] = longest > max - weight[v] ? max : longest + weight[v];
        const Index *db = reverse ? snap.in_begin(v) : snap.out_begin(v);
        const Index *de = reverse ? snap.in_end(v) : snap.out_end(v);
        for (const Index *p = db; p != de; ++p)
            if (--waiters_left[*p] == 0) stack.push_back(*p);
    }
    return path;
}

}  // namespace

std::vector<std::uint32_t> rank_vertices(const Graph &g, const Snapshot &snap, bool reverse, Priority priority,
                                         const std::vector<std::pair<VertexId, std::uint64_t>> &weights) {
    const std::size_t n = snap.size();
    std::vector<std::uint64_t> weight(n, 1);
    for (auto [id, w] : weights) {
        const Index i = snap.index_of(id);
        if (i == Snapshot::npos)
            throw Error(Errc::unknown_vertex, "weight for vertex " + std::to_string(id) + ", which is not in the graph");
        weight[i] = w;
    }
    std::vector<std::uint64_t> path;
    if (priority == Priority::critical_path) path = critical_paths(snap, reverse, weight);
    std::vector<std::optional<std::string_view>> names(n);
    for (Index i = 0; i < n; ++i) names[i] = g.name(snap.ids[i]);
    std::vector<Index> order(n);
    std::iota(order.begin(), order.end(), Index{0});
    std::sort(order.begin(), order.end(), [&](Index a, Index b) {
        if (!path.empty() && path[a] != path[b]) return path[a] > path[b];
        if (names[a].has_value() != names[b].has_value()) return names[a].has_value();
        if (names[a] && *names[a] != *names[b]) return *names[a] < *names[b];
        return snap.ids[a] < snap.ids[b];
    });
    std::vector<std::uint32_t> rank(n);
    for (std::size_t r = 0; r < n; ++r) rank[order[r]] = static_cast<std::uint32_t>(r);
    return rank;
}

}  // namespace dag::walk_detail
