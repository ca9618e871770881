#include "topo_order.hpp"

#include "name_order.hpp"
#include "rank_queue.hpp"
#include "validate.hpp"

namespace dag {

namespace {

using Index = Snapshot::Index;

// Queue keys when the slot order is the tie-break order already.
struct SlotKeys {
    Index key(Index v) const { return v; }
    Index slot(Index k) const { return k; }
};

// Queue keys from a rank table, with its inverse.
struct RankKeys {
    explicit RankKeys(const std::vector<Index> &r) : rank(r), by_rank(r.size()) {
        for (Index v = 0; v < r.size(); ++v) by_rank[r[v]] = v;
    }
    Index key(Index v) const { return rank[v]; }
    Index slot(Index k) const { return by_rank[k]; }
    const std::vector<Index> &rank;
    std::vector<Index> by_rank;
};

// Kahn's state: how many predecessors each slot still waits for, and the
// slots free from the start. Filled by one pass over the vertices.
struct KahnStart {
    std::vector<Index> waiting;
    std::vector<Index> ready;
};

// Kahn's algorithm proper: free vertices are taken by smallest key and
// handed to `emit`; `for_next(v, f)` calls f on each vertex v precedes.
template <class Keys, class ForNext, class Emit>
void kahn(KahnStart &st, const Keys &keys, ForNext for_next, Emit emit) {
    RankQueue free(st.waiting.size());
    for (Index v : st.ready) free.push(keys.key(v));
    while (!free.empty()) {
        const Index v = keys.slot(free.pop_min());
        emit(v);
        for_next(v, [&](Index w) {
            if (--st.waiting[w] == 0) free.push(keys.key(w));
        });
    }
}

template <class ForNext, class Emit>
void kahn_ranked(KahnStart &st, const std::vector<Index> &rank, ForNext for_next, Emit emit) {
    if (rank.empty())
        kahn(st, SlotKeys{}, for_next, emit);
    else
        kahn(st, RankKeys(rank), for_next, emit);
}

// Reads the adjacency list in place (a snapshot would cost as much to build
// as the whole order), in as few passes over the vertex records as possible:
// the first pass also finds out whether names decide any tie.
std::vector<VertexId> order(const Graph &g, TopoDirection direction) {
    const AdjacencyList &adj = g.adjacency();
    const Index n = static_cast<Index>(g.index_bound());
    const bool down = direction == TopoDirection::dependents_first;

    KahnStart st;
    st.waiting.resize(n);
    bool named = false;
    for (Index v = 0; v < n; ++v) {
        const VertexProps &p = adj[v];
        if (!p.alive) continue;
        named = named || p.name;
        st.waiting[v] = static_cast<Index>(down ? boost::in_degree(v, adj) : boost::out_degree(v, adj));
        if (st.waiting[v] == 0) st.ready.push_back(v);
    }
    const std::vector<Index> rank = named ? name_ranks(g) : std::vector<Index>{};

    std::vector<VertexId> out;
    out.reserve(g.vertex_count());
    auto emit = [&](Index v) { out.push_back(Graph::id_of(v)); };
    if (down) {
        kahn_ranked(
            st, rank,
            [&](Index v, auto &&f) {
                for (auto [it, end] = boost::adjacent_vertices(v, adj); it != end; ++it) f(static_cast<Index>(*it));
            },
            emit);
    } else {
        kahn_ranked(
            st, rank,
            [&](Index v, auto &&f) {
                for (auto [it, end] = boost::inv_adjacent_vertices(v, adj); it != end; ++it)
                    f(static_cast<Index>(*it));
            },
            emit);
    }
    if (out.size() != g.vertex_count()) throw Error(Errc::cycle, cycle_report(g));
    return out;
}

}  // namespace

std::vector<Index> topological_indices(const Snapshot &s, const std::vector<Index> &rank, TopoDirection direction) {
    const bool down = direction == TopoDirection::dependents_first;
    // A vertex is free once every vertex that must precede it is emitted:
    // its dependents when going down, its dependencies when going up.
    const std::vector<Index> &offsets = down ? s.in_offsets : s.out_offsets;
    const std::vector<Index> &next_offsets = down ? s.out_offsets : s.in_offsets;
    const std::vector<Index> &next = down ? s.out_targets : s.in_sources;
    const Index n = static_cast<Index>(s.size());

    KahnStart st;
    st.waiting.resize(n);
    for (Index v = 0; v < n; ++v) {
        st.waiting[v] = offsets[v + 1] - offsets[v];
        if (st.waiting[v] == 0) st.ready.push_back(v);
    }
    std::vector<Index> out;
    out.reserve(n);
    kahn_ranked(
        st, rank,
        [&](Index v, auto &&f) {
            for (Index e = next_offsets[v]; e < next_offsets[v + 1]; ++e) f(next[e]);
        },
        [&](Index v) { out.push_back(v); });
    return out;
}

std::vector<VertexId> topological_order(const Graph &g) { return order(g, TopoDirection::dependents_first); }

std::vector<VertexId> reverse_topological_order(const Graph &g) {
    return order(g, TopoDirection::dependencies_first);
}

}  // namespace dag
