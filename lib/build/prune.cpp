#include "build/prune.hpp"

#include <set>
#include <vector>

namespace dag {
namespace {

// The predicate reads the graph as a traversal's visitor does: a change
// from it (documented as refused, DAG_E_BUSY) would pull vertices from
// under the step.
bool asked(const Graph &g, const std::function<bool(VertexId)> &prunable, VertexId v) {
    struct Visiting {
        const Graph &g;
        explicit Visiting(const Graph &graph) : g(graph) { g.begin_visit(); }
        ~Visiting() { g.end_visit(); }
    } visiting(g);
    return prunable(v);
}

}  // namespace

std::size_t prune(Graph &g, const std::function<bool(VertexId)> &prunable) {
    g.check_changeable();
    std::set<VertexId> seen;
    std::vector<VertexId> candidates;
    for (VertexId v : g.vertices())
        if (g.dependents(v).empty()) candidates.push_back(v);
    std::size_t removed = 0;
    while (!candidates.empty()) {
        std::set<VertexId> next;
        for (VertexId v : candidates) {
            if (!seen.insert(v).second || !asked(g, prunable, v)) continue;
            const std::vector<VertexId> dependencies = g.dependencies(v);
            g.remove_vertex(v);
            ++removed;
            for (VertexId d : dependencies)
                if (d != v && g.has_vertex(d) && g.dependents(d).empty()) next.insert(d);
        }
        candidates.assign(next.begin(), next.end());
    }
    return removed;
}

}  // namespace dag
