// DOT input through Graphviz's own parser (cgraph), so that whatever Graphviz
// reads, libdag reads: `terraform graph` output of every era, Bazel, CMake
// and dependency-cruiser graphs, Graphviz's test graphs.
#pragma once

#include <string_view>

#include "graph/graph.hpp"

namespace dag {

// Reads the one digraph in `utf8` (already decoded: text_encoding.hpp) into
// `out`, which must be empty: a vertex per node, named by its node ID, an
// edge tail -> head per edge. With `honour_charset`, a graph declaring
// charset=latin1 has its node IDs converted from Latin-1 (not for text that
// came with a byte-order mark: it was Unicode whatever it declares).
// Throws Errc::parse for a syntax error or warning (with its line), an
// undirected graph, no graph or a second graph, an empty node ID;
// Errc::bad_utf8 for a node ID that is not UTF-8. Thread-safe: cgraph's
// parser is global, so reads take turns.
void read_dot(std::string_view utf8, bool honour_charset, Graph &out);

}  // namespace dag
