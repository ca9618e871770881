#include "build/prune.hpp"

#include <set>
#include <unordered_map>
#include <vector>

namespace dag {
namespace {

// The predicate reads the graph as a traversal's visitor does: a change
// from it (documented as refused, DAG_E_BUSY) would change the graph the
// step decided on.
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
    // Every question is asked before anything goes, so a predicate that
    // throws leaves the graph as it was (the build's promise for a failing
    // built-in step); the waves are those removing each wave would give.
    std::unordered_map<VertexId, std::size_t> staying_dependents;
    std::vector<VertexId> candidates, pruned;
    for (VertexId v : g.vertices())
        if (g.dependent_count(v) == 0) candidates.push_back(v);
    while (!candidates.empty()) {
        std::set<VertexId> next;
        for (VertexId v : candidates) {
            if (!asked(g, prunable, v)) continue;
            pruned.push_back(v);
            for (VertexId d : g.dependencies(v)) {
                auto [it, fresh] = staying_dependents.try_emplace(d, 0);
                if (fresh) it->second = g.dependent_count(d);
                if (--it->second == 0) next.insert(d);
            }
        }
        candidates.assign(next.begin(), next.end());
    }
    g.remove_vertices(pruned);
    return pruned.size();
}

}  // namespace dag
