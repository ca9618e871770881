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
        if (g.dependent_count(v) == 0) candidates.push_back(v);
    std::size_t removed = 0;
    while (!candidates.empty()) {
        // A wave's vertices have no dependents, so removing one changes no
        // other's edges: each is asked, then the wave goes at once (one pass
        // over a shared dependency's list, not one per leaf).
        std::vector<VertexId> wave;
        for (VertexId v : candidates)
            if (seen.insert(v).second && asked(g, prunable, v)) wave.push_back(v);
        std::set<VertexId> next;
        for (VertexId v : wave)
            for (VertexId d : g.dependencies(v)) next.insert(d);
        g.remove_vertices(wave);
        removed += wave.size();
        candidates.clear();
        for (VertexId d : next)
            if (g.has_vertex(d) && g.dependent_count(d) == 0) candidates.push_back(d);
    }
    return removed;
}

}  // namespace dag
