// Every text form of a graph in one place, for the C API's export and import
// calls: which writer or reader a format means, and how an unnamed format is
// recognised.
#pragma once

#include <string>
#include <string_view>

#include "graph/graph.hpp"

namespace dag {

enum class Format { automatic, text, dot, mermaid, json };

// Throws Errc::invalid_argument for a format that cannot be written
// (automatic).
std::string write_graph(const Graph &g, Format format);

// Throws Errc::invalid_argument unless read_graph() can read `format`.
void require_readable(Format format);

// Decodes the bytes (text_encoding.hpp), taking them over, then reads them
// into `out`, which must be empty. `automatic` means JSON when the first
// character that is not white space is '{', DOT otherwise. Throws
// Errc::invalid_argument for a format that cannot be read (text, mermaid).
void read_graph(std::string bytes, Format format, Graph &out);

// The whole file, with text_padding bytes of spare capacity (so reading it
// copies it no more). Throws Errc::io with the path and the system's reason.
std::string read_file(const std::string &path);

}  // namespace dag
