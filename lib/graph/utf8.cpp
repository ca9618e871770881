#include "graph/utf8.hpp"

#include <cstdint>
#include <cstring>

namespace dag {
namespace {

// Length of the well-formed sequence starting at p, or 0 when there is none.
std::size_t sequence_length(const unsigned char *p, const unsigned char *end) noexcept {
    unsigned char c = *p;
    if (c < 0x80) return 1;
    std::size_t len;
    unsigned char lo = 0x80, hi = 0xBF;
    if (c >= 0xC2 && c <= 0xDF) {
        len = 2;
    } else if (c >= 0xE0 && c <= 0xEF) {
        len = 3;
        if (c == 0xE0) lo = 0xA0;  // overlong
        if (c == 0xED) hi = 0x9F;  // surrogates
    } else if (c >= 0xF0 && c <= 0xF4) {
        len = 4;
        if (c == 0xF0) lo = 0x90;  // overlong
        if (c == 0xF4) hi = 0x8F;  // above U+10FFFF
    } else {
        return 0;
    }
    if (static_cast<std::size_t>(end - p) < len) return 0;
    if (p[1] < lo || p[1] > hi) return 0;
    for (std::size_t i = 2; i < len; ++i)
        if ((p[i] & 0xC0) != 0x80) return 0;
    return len;
}

}  // namespace

bool is_valid_utf8(std::string_view s) noexcept {
    const auto *p = reinterpret_cast<const unsigned char *>(s.data());
    const auto *end = p + s.size();
    while (p < end) {
        // Names are mostly ASCII: eight bytes at a time while no byte has
        // its high bit set.
        if (end - p >= 8) {
            std::uint64_t word;
            std::memcpy(&word, p, sizeof word);
            if ((word & 0x8080808080808080ull) == 0) {
                p += 8;
                continue;
            }
        }
        const std::size_t len = sequence_length(p, end);
        if (len == 0) return false;
        p += len;
    }
    return true;
}

std::string printable_utf8(std::string_view s) {
    static const char hex[] = "0123456789abcdef";
    std::string out;
    out.reserve(s.size());
    const auto *p = reinterpret_cast<const unsigned char *>(s.data());
    const auto *end = p + s.size();
    while (p < end) {
        const std::size_t len = sequence_length(p, end);
        if (len == 0) {
            out += "\\x";
            out += hex[*p >> 4];
            out += hex[*p & 15];
            ++p;
        } else {
            out.append(reinterpret_cast<const char *>(p), len);
            p += len;
        }
    }
    return out;
}

}  // namespace dag
