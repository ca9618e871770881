#include "build/references.hpp"

#include <algorithm>
#include <utility>

#include "build/address_index.hpp"
#include "graph/error.hpp"

namespace dag {

void resolve_references(Graph &g, Declarations &declarations, UnresolvedPolicy policy,
                        std::vector<std::string> &warnings) {
    g.check_changeable();
    AddressIndex index(g, declarations);
    std::vector<VertexId> pairs;
    std::vector<std::string> unresolved;
    // What each vertex keeps for a later run: its unresolved references.
    std::vector<std::pair<VertexId, std::vector<std::string>>> kept;
    for (VertexId v : declarations.vertices()) {
        if (!g.has_vertex(v)) continue;
        const std::vector<std::string> &references = declarations.find(v)->references;
        if (references.empty()) continue;
        kept.emplace_back(v, std::vector<std::string>{});
        for (const std::string &reference : references) {
            const std::vector<VertexId> &providers = index.longest_prefix(reference);
            if (providers.empty()) {
                unresolved.push_back(g.display_name(v) + ": nothing provides \"" + reference + "\"");
                kept.back().second.push_back(reference);
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
    // The graph holds the resolved ones now, as the destroy order's actions
    // are spent: resolved again on a later run, a reference to a vertex the
    // destroy order made "NAME (destroy)" (still providing NAME's addresses)
    // would undo that order's edges and make a cycle.
    for (auto &[v, left] : kept) declarations.of(v).references = std::move(left);
    warnings.insert(warnings.end(), std::make_move_iterator(unresolved.begin()),
                    std::make_move_iterator(unresolved.end()));
}

}  // namespace dag
