#include "graph/degrees.hpp"

namespace dag {

namespace {

template <class Degree>
std::vector<VertexId> without_edges(const Graph &g, Degree degree) {
    const AdjacencyList &adj = g.adjacency();
    std::vector<VertexId> out;
    for (Vertex v = 0, n = g.index_bound(); v < n; ++v)
        if (g.alive_index(v) && degree(v, adj) == 0) out.push_back(Graph::id_of(v));
    return out;
}

}  // namespace

std::vector<VertexId> roots(const Graph &g) {
    return without_edges(g, [](Vertex v, const AdjacencyList &adj) { return boost::in_degree(v, adj); });
}

std::vector<VertexId> leaves(const Graph &g) {
    return without_edges(g, [](Vertex v, const AdjacencyList &adj) { return boost::out_degree(v, adj); });
}

std::size_t dependency_count(const Graph &g, VertexId id) { return boost::out_degree(g.checked(id), g.adjacency()); }

std::size_t dependent_count(const Graph &g, VertexId id) { return boost::in_degree(g.checked(id), g.adjacency()); }

}  // namespace dag
