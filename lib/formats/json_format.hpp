// libdag's own JSON form of a graph: ids, names and edges, exactly, so that
// graph -> JSON -> graph gives the same graph (user pointers are not
// written: they mean nothing outside the process). include/dag/dag.h,
// dag_format, documents the layout.
#pragma once

#include <string>
#include <string_view>

#include "graph/graph.hpp"

namespace dag {

std::string write_json(const Graph &g);

// A string as a JSON string literal, quotes included: also how messages show
// a name that may hold line breaks or backslashes.
std::string json_quoted(const std::string &s);

// Fills `out`, which must be empty. Throws Errc::parse for malformed JSON or
// the wrong shape, with where it is; the graph's own errors for a duplicate
// or empty name. Text with simdjson's padding of spare capacity
// (text_padding) is read in place, other text is copied first.
void read_json(const std::string &text, Graph &out);

// read_json without its fast path (json_fast_reader.hpp): every document
// the fast path declines comes here, and this reader's messages are the
// ones users see. Tests hold the two readers to the same graphs.
void read_json_checked(std::string_view text, Graph &out);

}  // namespace dag
