// UTF-8 validation for names crossing the API: every name the graph stores is
// valid UTF-8, so every text format can emit it unchanged.
#pragma once

#include <string>
#include <string_view>

namespace dag {

// True when `s` is well-formed UTF-8 (no overlongs, no surrogates, <= U+10FFFF).
bool is_valid_utf8(std::string_view s) noexcept;

// `s` with every byte that is not part of a well-formed UTF-8 sequence
// written as \xNN, for messages that quote outside text: the header promises
// messages are UTF-8.
std::string printable_utf8(std::string_view s);

}  // namespace dag
