#include "build/references.hpp"

#include <algorithm>
#include <tuple>
#include <utility>

#include "build/address_index.hpp"
#include "graph/error.hpp"

namespace dag {

void resolve_references(Graph &g, Declarations &declarations, UnresolvedPolicy policy,
                        std::vector<std::string> &warnings) {
    g.check_changeable();
    AddressIndex index(g, declarations);
    std::vector<VertexId> pairs;
    // One line per vertex and reference (a reference a vertex gave twice
    // counts once); two vertices may show alike (one named "2", the unnamed
    // vertex 2), so the vertex, not the text, tells them apart.
    struct Unresolved {
        std::string line;
        VertexId vertex;
        bool operator<(const Unresolved &o) const { return std::tie(line, vertex) < std::tie(o.line, o.vertex); }
        bool operator==(const Unresolved &o) const { return line == o.line && vertex == o.vertex; }
    };
    std::vector<Unresolved> unresolved;
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
                unresolved.push_back({g.display_name(v) + ": nothing provides \"" + reference + "\"", v});
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
        for (const Unresolved &u : unresolved) text += "\n  " + u.line;
        throw Error(Errc::not_found, text);
    }
    g.connect_many(pairs.data(), pairs.size() / 2);
    // The graph holds the resolved ones now, as the destroy order's actions
    // are spent: resolved again on a later run, a reference to a vertex the
    // destroy order made "NAME (destroy)" (still providing NAME's addresses)
    // would undo that order's edges and make a cycle.
    for (auto &[v, left] : kept) declarations.of(v).references = std::move(left);
    for (Unresolved &u : unresolved) warnings.push_back(std::move(u.line));
}

}  // namespace dag
