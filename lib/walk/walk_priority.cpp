#include "walk/walk_priority.hpp"

#include <algorithm>
#include <limits>
#include <memory>
#include <string>

#include "graph/error.hpp"
#include "graph/name_order.hpp"

namespace dag::walk_detail {

namespace {

using Index = Snapshot::Index;

// Longest weighted path from each vertex through what waits for it,
// saturating: processed once all its waiters are, from the vertices nothing
// waits for. `weight` empty: every vertex weighs 1.
HugeVector<std::uint64_t> critical_paths(const Snapshot &snap, bool reverse, const std::vector<std::uint64_t> &weight) {
    const std::size_t n = snap.size();
    HugeVector<std::uint64_t> path(n, 0);
    HugeVector<Index> waiters_left(n), stack;
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
        const std::uint64_t w = weight.empty() ? 1 : weight[v];
        path[v] = longest > max - w ? max : longest + w;
        const Index *db = reverse ? snap.in_begin(v) : snap.out_begin(v);
        const Index *de = reverse ? snap.in_end(v) : snap.out_end(v);
        for (const Index *p = db; p != de; ++p)
            if (--waiters_left[*p] == 0) stack.push_back(*p);
    }
    return path;
}

}  // namespace

HugeVector<std::uint32_t> rank_vertices(const Graph &g, const Snapshot &snap, bool reverse, Priority priority,
                                         const std::vector<std::pair<VertexId, std::uint64_t>> &weights) {
    const std::size_t n = snap.size();
    // Ties go by the graph's name ranks, kept with its snapshot (an unchanged
    // graph walked again sorts no name). They put the unnamed vertices first,
    // in id order; here they come after the named ones, so they move behind.
    const std::shared_ptr<const NameRanks> names = name_ranks(g, snap);
    std::size_t unnamed = 0, named_from = n;  // the ranks of named vertices are a suffix
    while (unnamed < named_from) {
        const std::size_t mid = unnamed + (named_from - unnamed) / 2;
        if (g.name(snap.id_of(names->by_rank[mid])))
            named_from = mid;
        else
            unnamed = mid + 1;
    }
    auto tie = [&](Index i) -> std::uint32_t {
        const std::size_t r = names->rank[i];
        return static_cast<std::uint32_t>(r >= unnamed ? r - unnamed : n - unnamed + r);
    };
    HugeVector<std::uint32_t> rank(n);
    if (priority != Priority::critical_path) {
        for (Index i = 0; i < n; ++i) rank[i] = tie(i);
        return rank;
    }
    // Only a walk with weights pays for a table of them.
    std::vector<std::uint64_t> weight(weights.empty() ? 0 : n, 1);
    for (auto [id, w] : weights) {
        const Index i = snap.index_of(id);
        if (i == Snapshot::npos)
            throw Error(Errc::unknown_vertex, "weight for vertex " + std::to_string(id) + ", which is not in the graph");
        weight[i] = w;
    }
    const HugeVector<std::uint64_t> path = critical_paths(snap, reverse, weight);
    if (n == 0) return rank;
    // Paths counted in vertices (or small weights) are at most a few times
    // n: one counting pass places every vertex, visited in tie order, after
    // the vertices of longer paths, where a sort of 16-byte keys cost most
    // of a first ranked walk.
    const std::uint64_t longest = *std::max_element(path.begin(), path.end());
    if (longest <= 4 * static_cast<std::uint64_t>(n)) {
        HugeVector<std::uint32_t> next(static_cast<std::size_t>(longest) + 2, 0);  // by longest - path
        for (std::uint64_t p : path) ++next[static_cast<std::size_t>(longest - p) + 1];
        for (std::size_t b = 1; b < next.size(); ++b) next[b] += next[b - 1];
        const auto place = [&](Index v) { rank[v] = next[static_cast<std::size_t>(longest - path[v])]++; };
        for (std::size_t r = unnamed; r < n; ++r) place(names->by_rank[r]);
        for (std::size_t r = 0; r < unnamed; ++r) place(names->by_rank[r]);
        return rank;
    }
    // Integers only: the longest path first, then the tie order.
    struct Key {
        std::uint64_t path;
        std::uint32_t tie;
        Index vertex;
    };
    HugeVector<Key> keys(n);
    for (Index i = 0; i < n; ++i) keys[i] = Key{path[i], tie(i), i};
    std::sort(keys.begin(), keys.end(), [](const Key &a, const Key &b) {
        return a.path != b.path ? a.path > b.path : a.tie < b.tie;
    });
    for (std::size_t r = 0; r < n; ++r) rank[keys[r].vertex] = static_cast<std::uint32_t>(r);
    return rank;
}

}  // namespace dag::walk_detail
