#include "graph/name_order.hpp"

#include <algorithm>

namespace dag {

std::vector<Snapshot::Index> name_ranks(const Graph &g, const Snapshot &s) {
    using Index = Snapshot::Index;
    const std::size_t n = s.size();
    std::vector<Index> rank(n);
    std::vector<std::pair<const std::string *, Index>> named;
    Index next = 0;
    // Dense indices ascend with ids, so unnamed vertices are ranked in id
    // order by this single pass; only named ones need sorting.
    for (Index i = 0; i < n; ++i) {
        const std::string *name = g.name(s.ids[i]);
        if (name)
            named.emplace_back(name, i);
        else
            rank[i] = next++;
    }
    std::sort(named.begin(), named.end(), [](const auto &a, const auto &b) { return *a.first < *b.first; });
    for (const auto &entry : named) rank[entry.second] = next++;
    return rank;
}

}  // namespace dag
