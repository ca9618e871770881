#include "build/references.hpp"

#include <algorithm>
#include <utility>

#include "build/address_index.hpp"
#include "graph/error.hpp"

namespace dag {

void resolve_references(Graph &g, const Declarations &declarations, UnresolvedPolicy policy,
                        std::vector<std::string> &warnings) {
    g.check_changeable();
    AddressIndex index(g, declarations);
    std::vector<VertexId> pairs;
    std::vector<std::string> unresolved;
    for (VertexId v : declarations.vertices()) {
        if (!g.has_vertex(v)) continue;
        for (const std::string &reference : declarations.find(v)->references) {
            const std::vector<VertexId> &providers = index.longest_prefix(reference);
            if (providers.empty()) {
                unresolved.push_back(g.display_name(v) + ": nothing provides \"" + reference + "\"");
                continue;
            }
            for (VertexId p : providers) {
                if (p == v) continue;
                pairs.push_back(v);
                pairs.push_back(p);
            }
        }
    }
    std::sort(unresolved.begin(), unresolved.end());
    unresolved.erase(std::unique(unresolved.begin(), unresolved.end()), unresolved.end());
    if (!unresolved.empty() && policy == UnresolvedPolicy::error) {
        std::string text = std::to_string(unresolved.size()) + " unresolved reference" +
                           (unresolved.size() == 1 ? "" : "s") + ":";
        for (const std::string &line : unresolved) text += "\n  " + line;
        throw Error(Errc::not_found, text);
    }
    g.connect_many(pairs.data(), pairs.size() / 2);
    warnings.insert(warnings.end(), std::make_move_iterator(unresolved.begin()),
                    std::make_move_iterator(unresolved.end()));
}

}  // namespace dag
