#include "algorithms/topo_order.hpp"

#include "algorithms/order_extension.hpp"
#include "graph/huge_pages.hpp"
#include "graph/name_order.hpp"
#include "algorithms/rank_queue.hpp"
#include "graph/shared_snapshot.hpp"
#include "algorithms/validate.hpp"

namespace dag {

namespace {

using Index = Snapshot::Index;

// Queue keys when the slot order is the tie-break order already.
struct SlotKeys {
    Index key(Index v) const { return v; }
    Index slot(Index k) const { return k; }
    void prefetch(Index) const {}
};

// Queue keys from the name ranks.
struct RankKeys {
    Index key(Index v) const { return rank[v]; }
    Index slot(Index k) const { return by_rank[k]; }
    void prefetch(Index v) const { __builtin_prefetch(rank + v); }
    const Index *rank;
    const Index *by_rank;
};

// Where a vertex's successors start, next to how many predecessors it still
// waits for: the decrement that frees a vertex brings in the start of its
// row, and the row's end is the next node's start, usually on the same line.
struct Node {
    Index begin;
    Index waiting;
};

// What Kahn's algorithm hands out: dense indices, or vertex ids, asked for
// from the snapshot's id table as soon as the vertex is freed.
struct EmitIndices {
    std::vector<Index> &out;
    void prefetch(Index) const {}
    void operator()(Index v) const { out.push_back(v); }
};

// `ids` is null where an id is its index plus one (Snapshot::id_table).
// `keys`, where given, gets each emitted index too: for a named graph the
// passes below emit ranks, which extend_order() needs.
struct EmitIds {
    HugeVector<VertexId> &out;
    const VertexId *ids;
    HugeVector<std::uint32_t> *keys = nullptr;
    void prefetch(Index v) const {
        if (ids) __builtin_prefetch(ids + v);
    }
    void operator()(Index v) const {
        out.push_back(ids ? ids[v] : VertexId{v} + 1);
        if (keys) keys->push_back(v);
    }
};

// Kahn's algorithm: free vertices are taken by smallest key; `row` holds
// each vertex's successors (CSR), `wait_offsets` gives each vertex's
// predecessor count. On a large graph nearly every access misses the cache,
// so the misses are asked for early: a popped vertex's successors all at
// once before any is decremented, and a freed vertex's row as soon as it is
// freed. Returns how many vertices were emitted.
template <class Keys, class Emit>
Index kahn(Index n, const Index *row_offsets, const Index *row, const Index *wait_offsets, const Keys &keys,
           const Emit &emit) {
    // Fresh each call: on huge pages a 10^7-vertex order faults it in per
    // 2 MiB, not per 4 KiB (glibc maps arrays above 32 MiB anew every time).
    HugeVector<Node> node(std::size_t{n} + 1);
    RankQueue free(n);
    for (Index v = 0; v < n; ++v) {
        node[v] = {row_offsets[v], wait_offsets[v + 1] - wait_offsets[v]};
        if (node[v].waiting == 0) free.push(keys.key(v));
    }
    node[n].begin = row_offsets[n];

    Index done = 0;
    while (!free.empty()) {
        const Index v = keys.slot(free.pop_min());
        emit(v);
        ++done;
        const Index *first = row + node[v].begin;
        const Index *last = row + node[v + 1].begin;
        for (const Index *w = first; w != last; ++w) {
            __builtin_prefetch(&node[*w]);
            keys.prefetch(*w);
        }
        for (const Index *w = first; w != last; ++w) {
            if (--node[*w].waiting != 0) continue;
            __builtin_prefetch(row + node[*w].begin);
            emit.prefetch(*w);
            free.push(keys.key(*w));
        }
    }
    return done;
}

// Kahn's algorithm on `s` in `direction`, ties broken by `rank`.
template <class Emit>
Index kahn_ranked(const Snapshot &s, const NameRanks *ranks, TopoDirection direction, const Emit &emit) {
    const bool down = direction == TopoDirection::dependents_first;
    // A vertex is free once every vertex that must precede it is emitted:
    // its dependents when going down, its dependencies when going up.
    const Index n = static_cast<Index>(s.size());
    const Index *row_offsets = down ? s.out_offsets.data() : s.in_offsets.data();
    const Index *row = down ? s.out_targets.data() : s.in_sources.data();
    const Index *wait_offsets = down ? s.in_offsets.data() : s.out_offsets.data();
    if (!ranks) return kahn(n, row_offsets, row, wait_offsets, SlotKeys{}, emit);
    return kahn(n, row_offsets, row, wait_offsets, RankKeys{ranks->rank.data(), ranks->by_rank.data()}, emit);
}

// Kahn's algorithm on a named graph: on the rows renumbered by rank, where
// a rank is its own queue key, so the pass reads memory as it would for an
// unnamed graph (name_order.hpp, RankedRows).
template <class Emit>
Index kahn_by_rank(const RankedRows &r, TopoDirection direction, const Emit &emit) {
    const bool down = direction == TopoDirection::dependents_first;
    const Index n = static_cast<Index>(r.ids.size());
    const Index *row_offsets = down ? r.out_offsets.data() : r.in_offsets.data();
    const Index *row = down ? r.out_targets.data() : r.in_sources.data();
    const Index *wait_offsets = down ? r.in_offsets.data() : r.out_offsets.data();
    return kahn(n, row_offsets, row, wait_offsets, SlotKeys{}, emit);
}

// Kahn's pass over `s` in `direction`; throws Errc::cycle for a cyclic graph.
// For a named graph the keys are the ranks in order: a rank is what both
// passes below emit as the index (the identity ranks are the dense order).
KeptOrders::Order compute_order(const Graph &g, const Snapshot &s, const NameRanks *ranks, TopoDirection direction) {
    auto out = std::make_shared<HugeVector<VertexId>>();
    out->reserve(s.size());
    std::shared_ptr<HugeVector<std::uint32_t>> keys;
    if (ranks) {
        keys = std::make_shared<HugeVector<std::uint32_t>>();
        keys->reserve(s.size());
    }
    Index emitted = 0;
    if (ranks && !ranks->identity) {
        const bool down = direction == TopoDirection::dependents_first;
        const RankedRows rows = ranked_rows(*ranks, s, down ? Neighbours::dependencies : Neighbours::dependents);
        emitted = kahn_by_rank(rows, direction, EmitIds{*out, rows.ids.data(), keys.get()});
    } else {
        // Unnamed, or named in dense order: a vertex's dense index is its rank.
        emitted = kahn_ranked(s, nullptr, direction, EmitIds{*out, s.id_table(), keys.get()});
    }
    // Kahn's pass stops short of every vertex on or behind a cycle.
    if (emitted != s.size()) require_acyclic(g, s);
    KeptOrders::Order made;
    made.ids = std::move(out);
    made.keys = std::move(keys);
    return made;
}

}  // namespace

std::shared_ptr<const HugeVector<VertexId>> kept_order(const Graph &g, TopoDirection direction) {
    const bool dependencies_first = direction == TopoDirection::dependencies_first;
    return g.kept_orders().get(dependencies_first, g.index_bound(), [&](const KeptOrders::Since &since) {
        KeptOrders::Order made;
        if (extend_order(g, direction, since, made)) return made;
        const SharedSnapshot s = shared_snapshot(g);
        const std::shared_ptr<const NameRanks> ranks = g.has_names() ? name_ranks(g, *s) : nullptr;
        made = compute_order(g, *s, ranks.get(), direction);
        share_if_acyclic(g, s, true);
        // name_ranks() keeps ranks only with the graph's cached snapshot,
        // which a fresh one became just now: kept here, or a walk would rank
        // again.
        if (ranks && !s.cached) g.keep_ranks(s.snapshot.get(), ranks);
        return made;
    });
}

namespace {

std::vector<VertexId> order(const Graph &g, TopoDirection direction) {
    const std::shared_ptr<const HugeVector<VertexId>> ids = kept_order(g, direction);
    return std::vector<VertexId>(ids->begin(), ids->end());
}

}  // namespace

std::vector<Index> topological_indices(const Snapshot &s, const NameRanks *ranks, TopoDirection direction) {
    std::vector<Index> out;
    out.reserve(s.size());
    kahn_ranked(s, ranks, direction, EmitIndices{out});
    return out;
}

std::vector<VertexId> topological_order(const Graph &g) { return order(g, TopoDirection::dependents_first); }

std::vector<VertexId> reverse_topological_order(const Graph &g) {
    return order(g, TopoDirection::dependencies_first);
}

}  // namespace dag
