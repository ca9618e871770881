#include "graph/name_order.hpp"

namespace dag {

namespace {

using Index = Snapshot::Index;

NameRanks rank(const std::vector<SortedNames::Entry> &sorted, const Snapshot &s) {
    const std::size_t n = s.size();
    NameRanks r;
    r.rank.assign(n, Snapshot::npos);
    r.by_rank.resize(n);
    std::size_t named = 0;
    for (const SortedNames::Entry &e : sorted)
        if (s.index_of(Graph::id_of(e.vertex)) != Snapshot::npos) ++named;
    // Unnamed vertices rank first, in id order, which is dense order.
    Index next = static_cast<Index>(n - named);
    for (const SortedNames::Entry &e : sorted) {
        const Index i = s.index_of(Graph::id_of(e.vertex));
        if (i != Snapshot::npos) r.rank[i] = next++;
    }
    next = 0;
    for (Index i = 0; i < n; ++i) {
        if (r.rank[i] == Snapshot::npos) r.rank[i] = next++;
        r.by_rank[r.rank[i]] = i;
    }
    return r;
}

}  // namespace

std::shared_ptr<const NameRanks> name_ranks(const Graph &g, const Snapshot &s) {
    if (std::shared_ptr<const NameRanks> cached = g.cached_ranks(&s)) return cached;
    auto ranks = g.with_sorted_names(
        [&](const std::vector<SortedNames::Entry> &sorted) { return std::make_shared<const NameRanks>(rank(sorted, s)); });
    g.keep_ranks(&s, ranks);
    return ranks;
}

}  // namespace dag
