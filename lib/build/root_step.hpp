// Terraform's RootTransformer: one vertex that depends on every vertex
// nothing depends on, so that the single-root rule holds.
#pragma once

#include <string>

#include "graph/graph.hpp"

namespace dag {

// Adds a vertex named `name` depending on every vertex without dependents and
// returns it; returns the existing root, changing nothing, when exactly one
// vertex has no dependents. An empty graph gets the root alone. `made` is
// the root an earlier run made (no_vertex: none): while it keeps `name` and
// nothing depends on it, it is the root again, with edges to the vertices
// added beside it since. Throws Errc::duplicate_name when another vertex
// already has `name`.
VertexId add_root(Graph &g, const std::string &name, VertexId made = no_vertex);

}  // namespace dag
