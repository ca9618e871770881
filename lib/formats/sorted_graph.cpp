#include "formats/sorted_graph.hpp"

#include <algorithm>
#include <tuple>

#include "algorithms/tarjan.hpp"

namespace dag {

SortedGraph sorted_graph(const Graph &g) {
    SortedGraph out;
    out.vertices.reserve(g.vertex_count());
    for (VertexId id : g.vertices()) out.vertices.push_back({id, g.display_name(id)});
    std::sort(out.vertices.begin(), out.vertices.end(), [](const SortedVertex &a, const SortedVertex &b) {
        return std::tie(a.name, a.id) < std::tie(b.name, b.id);
    });

    // Indexed by id, so the edge loop below needs no hashing.
    const std::size_t bound = g.index_bound() + 1;
    std::vector<std::size_t> position(bound, 0);
    for (std::size_t i = 0; i < out.vertices.size(); ++i) position[out.vertices[i].id] = i;
    std::vector<std::size_t> component(bound, 0);
    std::vector<bool> cyclic_component;
    const ComponentIds components = strongly_connected_components(g);
    for (std::size_t c = 0; c < components.count(); ++c) {
        for (const VertexId *v = components.begin(c); v != components.end(c); ++v) component[*v] = c;
        cyclic_component.push_back(components.size(c) > 1);
    }

    for (auto [from, to] : g.edges()) {
        const bool on_cycle = from == to || (component[from] == component[to] && cyclic_component[component[from]]);
        out.edges.push_back({position[from], position[to], on_cycle});
    }
    std::sort(out.edges.begin(), out.edges.end(), [](const SortedEdge &a, const SortedEdge &b) {
        return std::tie(a.from, a.to) < std::tie(b.from, b.to);
    });
    return out;
}

}  // namespace dag
