// Reference resolution, Terraform's ReferenceTransformer: each vertex that
// references an address depends on the vertices providing the longest
// provided prefix of it (see address_index.hpp for how references are cut).
#pragma once

#include <string>
#include <vector>

#include "build/declarations.hpp"
#include "graph/graph.hpp"

namespace dag {

enum class UnresolvedPolicy { error, warn };

// Connects every referencing vertex to its providers. A reference whose
// longest provided prefix is provided by the referencing vertex itself is
// ignored, as Terraform ignores self references. References nothing provides
// are collected, one line each, `NAME: nothing provides "ADDRESS"`, sorted
// bytewise; under `error` the step throws Errc::not_found with every line and
// leaves the graph unchanged, under `warn` the lines are appended to
// `warnings` and the edges are added. The references resolved are spent
// (removed from the declarations): a later run resolves only the rest and
// those declared since.
void resolve_references(Graph &g, Declarations &declarations, UnresolvedPolicy policy,
                        std::vector<std::string> &warnings);

}  // namespace dag
