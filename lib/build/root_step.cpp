#include "build/root_step.hpp"

#include <vector>

namespace dag {

VertexId add_root(Graph &g, const std::string &name) {
    g.check_changeable();
    std::vector<VertexId> roots;
    for (VertexId v : g.vertices())
        if (g.dependent_count(v) == 0) roots.push_back(v);
    if (roots.size() == 1) return roots.front();
    const VertexId root = g.add_vertex(name, nullptr);
    std::vector<VertexId> pairs;
    pairs.reserve(roots.size() * 2);
    for (VertexId v : roots) {
        pairs.push_back(root);
        pairs.push_back(v);
    }
    g.connect_many(pairs.data(), roots.size());
    return root;
}

}  // namespace dag
