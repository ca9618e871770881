// What each vertex declares before the graph is built: the addresses it
// provides and references, the shared vertices it needs, and its planned
// action. The building steps read these; the graph itself never holds them,
// so a graph built without declarations costs nothing extra.
#pragma once

#include <cstdint>
#include <string>
#include <unordered_map>
#include <vector>

#include "graph/graph.hpp"

namespace dag {

// A vertex's planned change, as in a Terraform plan. Values match the C API's
// dag_action.
enum class Action : std::uint8_t { none, create, update, remove, replace, create_before_destroy };

struct VertexDeclarations {
    std::vector<std::string> provides;
    std::vector<std::string> references;
    std::vector<std::string> needs;
    Action action = Action::none;
};

class Declarations {
public:
    VertexDeclarations &of(VertexId id) { return by_vertex_[id]; }
    // nullptr when the vertex declared nothing.
    const VertexDeclarations *find(VertexId id) const {
        auto it = by_vertex_.find(id);
        return it == by_vertex_.end() ? nullptr : &it->second;
    }
    // Every declaring vertex in ascending id order, so that steps act the
    // same way on every run.
    std::vector<VertexId> vertices() const;

private:
    std::unordered_map<VertexId, VertexDeclarations> by_vertex_;
};

}  // namespace dag
