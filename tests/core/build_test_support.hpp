// Helpers for the graph-building suites: a graph of named vertices with
// their declarations, and its edges by name.
#pragma once

#include <set>
#include <string>
#include <utility>

#include "build/declarations.hpp"
#include "graph/graph.hpp"

namespace dag::test {

struct Plan {
    Graph g;
    Declarations d;

    VertexId add(const std::string &name) { return g.add_vertex(name, nullptr); }
    VertexId id(const std::string &name) const { return g.find(name); }
    VertexDeclarations &of(const std::string &name) { return d.of(id(name)); }

    // Every edge as (dependent name, dependency name).
    std::set<std::pair<std::string, std::string>> edges() const {
        std::set<std::pair<std::string, std::string>> out;
        for (auto [a, b] : g.edges()) out.insert({g.display_name(a), g.display_name(b)});
        return out;
    }
};

using EdgeSet = std::set<std::pair<std::string, std::string>>;

}  // namespace dag::test
