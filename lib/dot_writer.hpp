// DOT output in the layout `terraform graph` prints, so Graphviz and every
// tool that reads Terraform's graphs read libdag's too.
#pragma once

#include <string>

#include "graph.hpp"

namespace dag {

// Throws Errc::invalid_argument for a name DOT cannot quote (one ending in a
// backslash, or with a backslash before a line break: Graphviz reads both as
// escapes, so the name would come back changed).
std::string write_dot(const Graph &g);

}  // namespace dag
