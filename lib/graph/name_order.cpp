#include "graph/name_order.hpp"

namespace dag {

namespace {

using Index = Snapshot::Index;

void rank(const std::vector<SortedNames::Entry> &sorted, const Snapshot &s, NameRanks &r) {
    const std::size_t n = s.size();
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
}

// One direction's rows of `s` in rank order, neighbours as ranks.
void renumber(const NameRanks &r, const HugeVector<Index> &offsets, const HugeVector<Index> &row,
              HugeVector<Index> &ranked_offsets, HugeVector<Index> &ranked_row) {
    const std::size_t n = r.by_rank.size();
    ranked_offsets.resize(n + 1);
    ranked_row.resize(row.size());
    Index *out = ranked_row.data();
    ranked_offsets[0] = 0;
    for (std::size_t k = 0; k < n; ++k) {
        const Index v = r.by_rank[k];
        // The next rows lie anywhere in the snapshot: ask for them early.
        if (k + 8 < n) __builtin_prefetch(row.data() + offsets[r.by_rank[k + 8]]);
        for (Index e = offsets[v]; e != offsets[v + 1]; ++e) *out++ = r.rank[row[e]];
        ranked_offsets[k + 1] = static_cast<Index>(out - ranked_row.data());
    }
}

}  // namespace

const RankedRows &NameRanks::rows(const Snapshot &s) const {
    std::call_once(rows_built_, [&] {
        RankedRows built;
        renumber(*this, s.out_offsets, s.out_targets, built.out_offsets, built.out_targets);
        renumber(*this, s.in_offsets, s.in_sources, built.in_offsets, built.in_sources);
        built.ids.resize(by_rank.size());
        for (std::size_t k = 0; k < by_rank.size(); ++k) built.ids[k] = s.id_of(by_rank[k]);
        rows_ = std::move(built);
    });
    return rows_;
}

std::shared_ptr<const NameRanks> name_ranks(const Graph &g, const Snapshot &s) {
    if (std::shared_ptr<const NameRanks> cached = g.cached_ranks(&s)) return cached;
    auto ranks = g.with_sorted_names([&](const std::vector<SortedNames::Entry> &sorted) {
        auto made = std::make_shared<NameRanks>();
        rank(sorted, s, *made);
        return std::shared_ptr<const NameRanks>(std::move(made));
    });
    g.keep_ranks(&s, ranks);
    return ranks;
}

}  // namespace dag
