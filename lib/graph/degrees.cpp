#include "graph/degrees.hpp"

namespace dag {

namespace {

// The live vertices with no out-edge in `list`: no dependency in the
// graph's adjacency, no dependent in its reverse.
template <class List>
std::vector<VertexId> without_edges(const Graph &g, const List &list) {
    std::vector<VertexId> out;
    for (Vertex v = 0, n = g.index_bound(); v < n; ++v)
        if (g.alive_index(v) && boost::out_degree(v, list) == 0) out.push_back(Graph::id_of(v));
    return out;
}

}  // namespace

std::vector<VertexId> roots(const Graph &g) {
    return without_edges(g, g.reverse_adjacency());
}

std::vector<VertexId> leaves(const Graph &g) {
    return without_edges(g, g.adjacency());
}

std::size_t dependency_count(const Graph &g, VertexId id) { return boost::out_degree(g.checked(id), g.adjacency()); }

std::size_t dependent_count(const Graph &g, VertexId id) {
    return boost::out_degree(g.checked(id), g.reverse_adjacency());
}

}  // namespace dag
