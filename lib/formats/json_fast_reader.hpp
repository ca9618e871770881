// The fast path of JSON import: simdjson's On-Demand API reads the document
// in one pass (no DOM tape is built, hundreds of megabytes per second where
// nlohmann-json reads tens), and names go into the graph from one buffer,
// with no string per vertex.
//
// It accepts only what the checking reader (read_json in json_format.hpp)
// accepts, and builds the same graph from it. Anything else, a malformed
// document, a wrong shape, a value out of range, even a key given twice, it
// leaves to the checking reader, so every refusal keeps its message.
#pragma once

#include <string>

#include "graph/graph.hpp"

namespace dag {

// Fills `out`, which must be empty, and returns true; or returns false with
// `out` untouched when the text is anything but a well-formed graph of the
// documented shape. The graph's own errors (a duplicate or empty name) are
// thrown as the checking reader throws them. The text is read in place when
// its spare capacity holds simdjson's padding, copied first otherwise.
bool read_json_fast(const std::string &text, Graph &out);

}  // namespace dag
