#include "build/shared_vertices.hpp"

#include <map>
#include <string>
#include <vector>

#include "build/address_index.hpp"
#include "graph/error.hpp"

namespace dag {

namespace {

VertexId find_or_create(Graph &g, Declarations &declarations, const std::string &key) {
    if (g.has_name(key)) return g.find(key);
    VertexId v = g.add_vertex(key, nullptr);
    declarations.of(v).provides.push_back(key);
    return v;
}

VertexId close_vertex(Graph &g, VertexId shared) {
    const std::string name = g.display_name(shared) + " (close)";
    if (g.has_name(name)) return g.find(name);
    return g.add_vertex(name, nullptr);
}

}  // namespace

void attach_shared(Graph &g, Declarations &declarations, const SharedOptions &options) {
    g.check_changeable();
    std::map<std::string, std::vector<VertexId>> users;
    for (VertexId v : declarations.vertices()) {
        if (!g.has_vertex(v)) continue;
        for (const std::string &key : declarations.find(v)->needs) users[key].push_back(v);
    }
    if (users.empty()) return;
    std::vector<std::pair<std::string, std::vector<VertexId>>> shared;
    {
        const AddressIndex index(g, declarations);
        for (const auto &entry : users) shared.emplace_back(entry.first, index.exact(entry.first));
    }
    for (auto &[key, providers] : shared) {
        if (providers.empty()) providers.push_back(find_or_create(g, declarations, key));
        for (VertexId p : providers) {
            const VertexId close = options.close ? close_vertex(g, p) : 0;
            // As Terraform's CloseProviderTransformer: the close comes after
            // the shared vertex itself, also when nothing else needs it.
            if (close) g.connect(close, p);
            for (VertexId user : users[key]) {
                if (user == p) continue;
                g.connect(user, p);
                if (close) g.connect(close, user);
            }
        }
    }
}

}  // namespace dag
