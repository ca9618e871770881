#include "algorithms/selection.hpp"

#include "algorithms/traversal.hpp"

namespace dag {

namespace {

// Marks `start` and everything reachable from it in `marks`, indexed by
// vertex index; a vertex already marked is not entered again.
void mark_closure(const Graph &g, const std::vector<VertexId> &start, bool dependents, std::vector<char> &marks) {
    std::vector<VertexId> stack;
    for (VertexId id : start)
        if (!marks[Graph::index_of(id)]) {
            marks[Graph::index_of(id)] = 1;
            stack.push_back(id);
        }
    while (!stack.empty()) {
        const VertexId id = stack.back();
        stack.pop_back();
        for (VertexId next : dependents ? g.dependents(id) : g.dependencies(id))
            if (!marks[Graph::index_of(next)]) {
                marks[Graph::index_of(next)] = 1;
                stack.push_back(next);
            }
    }
}

}  // namespace

void select(const Graph &g, const Selection &selection, Graph &out) {
    if (!selection.every_vertex) check_vertices(g, selection.targets);
    check_vertices(g, selection.excludes);
    const std::size_t bound = g.index_bound();
    std::vector<char> kept(bound, 0);
    if (selection.every_vertex)
        for (std::size_t v = 0; v < bound; ++v) kept[v] = g.alive_index(v);
    else
        mark_closure(g, selection.targets, selection.dependents, kept);
    std::vector<char> dropped(bound, 0);
    mark_closure(g, selection.excludes, !selection.dependents, dropped);

    // Ids are indexes + 1, so every index up to `bound` gets a vertex; those
    // not selected are removed again, leaving their ids unused as in `g`.
    std::vector<VertexId> gaps;
    std::vector<VertexId> pairs;
    for (std::size_t v = 0; v < bound; ++v) {
        const VertexId id = Graph::id_of(v);
        if (kept[v] && !dropped[v]) {
            out.add_vertex(g.name(id), g.user(id));
            for (VertexId dep : g.dependencies(id)) {
                const std::size_t d = Graph::index_of(dep);
                if (kept[d] && !dropped[d]) {
                    pairs.push_back(id);
                    pairs.push_back(dep);
                }
            }
        } else {
            gaps.push_back(out.add_vertex(std::nullopt, nullptr));
        }
    }
    for (VertexId gap : gaps) out.remove_vertex(gap);
    out.connect_many(pairs.data(), pairs.size() / 2);
}

}  // namespace dag
