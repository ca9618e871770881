// What a refusal by one of the dag program's own readers must be: a Failure
// (main() prints any other exception as a failed check, exit status 1) with
// exit status 2 and a message a terminal can show: not empty, UTF-8, as
// libdag's own messages are (dag_error_message).
#pragma once

#include <string>
#include <string_view>

#include "fuzz_check.hpp"
#include "libdag.hpp"

namespace fuzz {

// UTF-8 as Unicode defines it: no overlong form, no surrogate, nothing past
// U+10FFFF.
inline bool is_utf8(std::string_view s) {
    for (size_t i = 0; i < s.size();) {
        const auto c = static_cast<unsigned char>(s[i]);
        const size_t length = c < 0x80                  ? 1
                              : c >= 0xC2 && c <= 0xDF ? 2
                              : c >= 0xE0 && c <= 0xEF ? 3
                              : c >= 0xF0 && c <= 0xF4 ? 4
                                                       : 0;
        if (length == 0 || s.size() - i < length) return false;
        unsigned char low = 0x80, high = 0xBF;
        if (c == 0xE0) low = 0xA0;
        if (c == 0xED) high = 0x9F;
        if (c == 0xF0) low = 0x90;
        if (c == 0xF4) high = 0x8F;
        for (size_t k = 1; k < length; ++k) {
            const auto b = static_cast<unsigned char>(s[i + k]);
            if (b < (k == 1 ? low : 0x80) || b > (k == 1 ? high : 0xBF)) return false;
        }
        i += length;
    }
    return true;
}

inline void check_refusal(const dagcli::Failure &refusal, const std::string &reader) {
    const std::string what = refusal.what();
    require(refusal.exit_status() == dagcli::bad_input, "a refusal's exit status is not 2", reader + ": " + what);
    require(!what.empty(), "a refusal without a message", reader);
    require(is_utf8(what), "a refusal's message is not UTF-8", reader + ": " + what);
}

}  // namespace fuzz
