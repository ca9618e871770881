// DOT input through Graphviz's own parser (cgraph), so that whatever Graphviz
// reads, libdag reads: `terraform graph` output of every era, Bazel, CMake
// and dependency-cruiser graphs, Graphviz's test graphs.
#pragma once

#include <string_view>

#include "graph.hpp"

namespace dag {

// Reads the one digraph in `utf8` (already decoded: text_encoding.hpp) into
// `out`, which must be empty: a vertex per node, named by its node ID, an
// edge tail -> head per edge. Throws Errc::parse for a syntax error (with its
// line), an undirected graph, no graph or a second graph, an empty node ID;
// Errc::bad_utf8 for a node ID that is neither UTF-8 nor in a graph declared
// charset=latin1. Thread-safe: cgraph's parser is global, so reads take
// turns.
void read_dot(std::string_view utf8, Graph &out);

}  // namespace dag
