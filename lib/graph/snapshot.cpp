#include "graph/snapshot.hpp"

#include "graph/error.hpp"

namespace dag {

namespace {

// How many vertex records ahead freeze() asks for the edge vectors: each
// vector is a separate heap block, so without the hint every vertex waits
// for two cache misses in turn.
constexpr Vertex prefetch_distance = 8;

}  // namespace

Snapshot freeze(const Graph &g) {
    using Index = Snapshot::Index;
    const AdjacencyList &adj = g.adjacency();
    const ReverseList &rev = g.reverse_adjacency();
    const std::size_t bound = g.index_bound();
    const std::size_t n = g.vertex_count();
    const std::size_t m = g.edge_count();
    if (n >= Snapshot::npos || m >= Snapshot::npos)
        throw Error(Errc::invalid_argument, "graph too large for a snapshot (2^32 - 2 vertices or edges at most)");

    Snapshot s;
    s.count_ = n;
    s.bound_ = bound;
    const bool identity = n == bound;
    if (!identity) {
        s.ids_.resize(n);
        s.dense_.resize(bound);
    }
    s.out_offsets.resize(n + 1);
    s.in_offsets.resize(n + 1);
    s.out_targets.resize(m);
    s.in_sources.resize(m);
    Index *const out_first = s.out_targets.data();
    Index *const in_first = s.in_sources.data();
    Index *out = out_first;
    Index *in = in_first;
    // The vertex records are read once, in order: each live vertex's edges
    // are appended where the previous vertex's ended, as graph indices.
    Index i = 0;
    for (Vertex v = 0; v < bound; ++v) {
        if (v + prefetch_distance < bound) {
            __builtin_prefetch(adj.out_edge_list(v + prefetch_distance).data());
            __builtin_prefetch(rev.out_edge_list(v + prefetch_distance).data());
        }
        const VertexProps &p = adj[v];
        if (!p.alive) {
            s.dense_[v] = Snapshot::npos;
            continue;
        }
        if (!identity) {
            s.dense_[v] = i;
            s.ids_[i] = Graph::id_of(v);
        }
        for (const auto &e : adj.out_edge_list(v)) *out++ = static_cast<Index>(e.get_target());
        for (const auto &e : rev.out_edge_list(v)) *in++ = static_cast<Index>(e.get_target());
        ++i;
        s.out_offsets[i] = static_cast<Index>(out - out_first);
        s.in_offsets[i] = static_cast<Index>(in - in_first);
    }
    // Without removed vertices graph indices are dense indices already.
    if (!identity) {
        for (Index &t : s.out_targets) t = s.dense_[t];
        for (Index &t : s.in_sources) t = s.dense_[t];
    }
    return s;
}

Snapshot renumber(const Snapshot &s, const std::uint32_t *to) {
    using Index = Snapshot::Index;
    const std::size_t n = s.size();
    Snapshot r;
    r.count_ = n;
    r.bound_ = s.bound_;
    r.ids_.resize(n);
    r.dense_.resize(s.bound_);
    if (s.dense_.empty()) {
        for (Index i = 0; i < n; ++i) r.dense_[i] = to[i];
    } else {
        for (std::size_t v = 0; v < s.bound_; ++v) r.dense_[v] = s.dense_[v] == Snapshot::npos ? Snapshot::npos : to[s.dense_[v]];
    }
    for (Index i = 0; i < n; ++i) r.ids_[to[i]] = s.id_of(i);
    // Each direction: the row lengths moved to their new places, summed,
    // then each row copied with its entries renumbered.
    auto rows = [&](const HugeVector<Index> &offsets, const HugeVector<Index> &entries, HugeVector<Index> &new_offsets,
                    HugeVector<Index> &new_entries) {
        new_offsets.assign(n + 1, 0);
        for (Index i = 0; i < n; ++i) new_offsets[to[i] + 1] = offsets[i + 1] - offsets[i];
        for (std::size_t j = 0; j < n; ++j) new_offsets[j + 1] += new_offsets[j];
        new_entries.resize(entries.size());
        for (Index i = 0; i < n; ++i) {
            Index *out = new_entries.data() + new_offsets[to[i]];
            for (Index k = offsets[i]; k != offsets[i + 1]; ++k) *out++ = to[entries[k]];
        }
    };
    rows(s.out_offsets, s.out_targets, r.out_offsets, r.out_targets);
    rows(s.in_offsets, s.in_sources, r.in_offsets, r.in_sources);
    return r;
}

}  // namespace dag
