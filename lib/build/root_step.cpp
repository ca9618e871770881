#include "build/root_step.hpp"

#include <vector>

namespace dag {

VertexId add_root(Graph &g, const std::string &name, VertexId made) {
    g.check_changeable();
    std::vector<VertexId> roots;
    for (VertexId v : g.vertices())
        if (g.dependent_count(v) == 0) roots.push_back(v);
    if (roots.size() == 1) return roots.front();
    // Terraform's RootTransformer keeps the one root it made; a vertex of
    // the same name that it did not make is another's.
    const bool reuse = made != no_vertex && g.has_vertex(made) && g.name(made) == std::string_view(name) &&
                       g.dependent_count(made) == 0;
    const VertexId root = reuse ? made : g.add_vertex(name, nullptr);
    std::vector<VertexId> pairs;
    pairs.reserve(roots.size() * 2);
    for (VertexId v : roots) {
        if (v == root) continue;
        pairs.push_back(root);
        pairs.push_back(v);
    }
    g.connect_many(pairs.data(), pairs.size() / 2);
    return root;
}

}  // namespace dag
