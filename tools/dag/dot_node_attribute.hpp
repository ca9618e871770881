// A node attribute of a DOT graph file, which libdag's import reads and
// drops: the CLI reads the text again with Graphviz's parser for it.
#pragma once

#include <map>
#include <string>

namespace dagcli {

// The value of `attribute` on every node of the DOT `text` that has it set
// (not empty), by the name libdag gives that node's vertex: the text, value
// and name alike, is decoded as libdag decodes it (a UTF-8 or UTF-16
// byte-order mark, or charset=latin1 without one). Only for a text libdag has already imported;
// anything cgraph still refuses throws Failure (exit status 2).
std::map<std::string, std::string> dot_node_attribute(const std::string &text, const char *attribute);

}  // namespace dagcli
