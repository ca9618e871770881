#include "graph/name_order.hpp"

namespace dag {

namespace {

using Index = Snapshot::Index;

void rank(const HugeVector<SortedNames::Entry> &sorted, const Snapshot &s, NameRanks &r) {
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
    bool identity = true;
    for (Index i = 0; i < n; ++i) {
        if (r.rank[i] == Snapshot::npos) r.rank[i] = next++;
        r.by_rank[r.rank[i]] = i;
        identity &= r.rank[i] == i;
    }
    r.identity = identity;
}

// One direction's offsets of `s` in rank order: each row's length written
// to its rank's place, then summed.
void renumber_offsets(const NameRanks &r, const HugeVector<Index> &offsets, HugeVector<Index> &ranked_offsets) {
    const std::size_t n = r.by_rank.size();
    const Index *rank = r.rank.data();
    ranked_offsets.resize(n + 1);
    ranked_offsets[0] = 0;
    for (std::size_t v = 0; v < n; ++v) ranked_offsets[rank[v] + 1] = offsets[v + 1] - offsets[v];
    for (std::size_t k = 0; k < n; ++k) ranked_offsets[k + 1] += ranked_offsets[k];
}

// One direction's rows of `s` in rank order, neighbours as ranks. The rows
// are read in sequence and each written to its rank's place; what waits is
// the rank of each neighbour, anywhere in 4n bytes, so those are asked for
// 64 entries ahead (a fifth off the first order of a named 10^6 graph).
void renumber_row(const NameRanks &r, const HugeVector<Index> &offsets, const HugeVector<Index> &row,
                  const HugeVector<Index> &ranked_offsets, HugeVector<Index> &ranked_row) {
    const std::size_t n = r.by_rank.size();
    const Index *rank = r.rank.data();
    ranked_row.resize(row.size());
    const std::size_t edges = row.size();
    for (std::size_t v = 0; v < n; ++v) {
        Index *out = ranked_row.data() + ranked_offsets[rank[v]];
        for (Index e = offsets[v]; e != offsets[v + 1]; ++e) {
            if (e + 64 < edges) __builtin_prefetch(rank + row[e + 64]);
            *out++ = rank[row[e]];
        }
    }
}

}  // namespace

RankedRows ranked_rows(const NameRanks &r, const Snapshot &s, Neighbours lists) {
    RankedRows rows;
    renumber_offsets(r, s.out_offsets, rows.out_offsets);
    renumber_offsets(r, s.in_offsets, rows.in_offsets);
    rows.ids.resize(r.by_rank.size());
    for (std::size_t k = 0; k < r.by_rank.size(); ++k) rows.ids[k] = s.id_of(r.by_rank[k]);
    if (lists == Neighbours::dependencies)
        renumber_row(r, s.out_offsets, s.out_targets, rows.out_offsets, rows.out_targets);
    else
        renumber_row(r, s.in_offsets, s.in_sources, rows.in_offsets, rows.in_sources);
    return rows;
}

std::shared_ptr<const NameRanks> name_ranks(const Graph &g, const Snapshot &s) {
    if (std::shared_ptr<const NameRanks> cached = g.cached_ranks(&s)) return cached;
    auto ranks = g.with_sorted_names([&](const HugeVector<SortedNames::Entry> &sorted) {
        auto made = std::make_shared<NameRanks>();
        rank(sorted, s, *made);
        return std::shared_ptr<const NameRanks>(std::move(made));
    });
    g.keep_ranks(&s, ranks);
    return ranks;
}

}  // namespace dag
