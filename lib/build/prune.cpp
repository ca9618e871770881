#include "build/prune.hpp"

#include <set>
#include <vector>

namespace dag {

std::size_t prune(Graph &g, const std::function<bool(VertexId)> &prunable) {
    g.check_changeable();
    std::set<VertexId> asked;
    std::vector<VertexId> candidates;
    for (VertexId v : g.vertices())
        if (g.dependents(v).empty()) candidates.push_back(v);
    std::size_t removed = 0;
    while (!candidates.empty()) {
        std::set<VertexId> next;
        for (VertexId v : candidates) {
            if (!asked.insert(v).second || !prunable(v)) continue;
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
