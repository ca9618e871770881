// libdag's own JSON form of a graph: ids, names and edges, exactly, so that
// graph -> JSON -> graph gives the same graph (user pointers are not
// written: they mean nothing outside the process). include/dag/dag.h,
// dag_format, documents the layout.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include "graph/graph.hpp"

namespace dag {

std::string write_json(const Graph &g);

// The largest id a document may list: positive ids below 2^32 - 1.
inline constexpr std::uint64_t json_max_id = 0xFFFFFFFEull;

// The largest id (or next_id - 1) a document of `vertices` vertices may
// list. Each gap in the ids becomes a tombstone of about 72 bytes: the bound
// keeps a short file from asking for gigabytes (at most about 75 MB beyond
// what the vertices themselves justify), yet reads back what write_json
// writes of any graph that has issued up to 2^20 ids more than 16 per
// vertex it holds (a long-lived graph that removed a million vertices).
inline std::uint64_t json_id_bound(std::size_t vertices) {
    return 16 * static_cast<std::uint64_t>(vertices) + (std::uint64_t{1} << 20);
}

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
