// DOT output in the layout `terraform graph` prints, so Graphviz and every
// tool that reads Terraform's graphs read libdag's too.
#pragma once

#include <string>

#include "graph/graph.hpp"

namespace dag {

// Throws Errc::invalid_argument for a name Graphviz would read back changed
// (an odd run of backslashes before a quote, a line break or the name's end;
// a line break between quotes or backslashes), and for an unnamed vertex
// whose id is another vertex's name (both would be written alike).
std::string write_dot(const Graph &g);

}  // namespace dag
