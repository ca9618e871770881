#include "snapshot.hpp"

#include <algorithm>
#include <limits>

#include "error.hpp"

namespace dag {

Snapshot freeze(const Graph &g) {
    const AdjacencyList &adj = g.adjacency();
    const std::size_t bound = g.index_bound();
    const std::size_t m = g.edge_count();
    if (g.vertex_count() >= Snapshot::npos || m >= Snapshot::npos)
        throw Error(Errc::invalid_argument, "graph too large for a snapshot (2^32 - 2 vertices or edges at most)");

    Snapshot s;
    const std::size_t n = g.vertex_count();
    s.ids.reserve(n);
    s.dense.assign(bound, Snapshot::npos);
    for (Vertex v = 0; v < bound; ++v) {
        if (!g.alive_index(v)) continue;
        s.dense[v] = static_cast<Snapshot::Index>(s.ids.size());
        s.ids.push_back(Graph::id_of(v));
    }

    s.out_offsets.assign(n + 1, 0);
    s.in_offsets.assign(n + 1, 0);
    for (Snapshot::Index i = 0; i < n; ++i) {
        Vertex v = Graph::index_of(s.ids[i]);
        s.out_offsets[i + 1] = s.out_offsets[i] + static_cast<Snapshot::Index>(boost::out_degree(v, adj));
        s.in_offsets[i + 1] = s.in_offsets[i] + static_cast<Snapshot::Index>(boost::in_degree(v, adj));
    }
    s.out_targets.resize(m);
    s.in_sources.resize(m);
    for (Snapshot::Index i = 0; i < n; ++i) {
        Vertex v = Graph::index_of(s.ids[i]);
        Snapshot::Index *o = s.out_targets.data() + s.out_offsets[i];
        for (auto [it, end] = boost::adjacent_vertices(v, adj); it != end; ++it) *o++ = s.dense[*it];
        std::sort(s.out_targets.data() + s.out_offsets[i], o);
        Snapshot::Index *p = s.in_sources.data() + s.in_offsets[i];
        for (auto [it, end] = boost::inv_adjacent_vertices(v, adj); it != end; ++it) *p++ = s.dense[*it];
        std::sort(s.in_sources.data() + s.in_offsets[i], p);
    }
    return s;
}

}  // namespace dag
