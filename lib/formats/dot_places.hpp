#pragma once

#include <cstddef>
#include <functional>
#include <string_view>

// Where things are in a DOT text, for refusals: cgraph keeps no line for a
// node, and its lexer's line after the first graph is that graph's end.
// Both are asked only once a text has been refused, so they scan it again
// rather than slow down every read.
namespace dag::dot_places {

// The line of the first node ID in `text` for which `wanted` holds, given
// the ID as cgraph keeps it (quotes, escaped quotes, escaped line breaks and
// '+' joins resolved; an HTML ID without its outer brackets), or 0 when none
// does. Attribute names and values, ports and graph names are not node IDs.
std::size_t line_of_node(std::string_view text, const std::function<bool(std::string_view)> &wanted);

// The line of the first token after the first graph's closing brace, or 0
// when there is none.
std::size_t line_after_first_graph(std::string_view text);

}  // namespace dag::dot_places
