#include "utf8.hpp"

namespace dag {

bool is_valid_utf8(std::string_view s) noexcept {
    const auto *p = reinterpret_cast<const unsigned char *>(s.data());
    const auto *end = p + s.size();
    while (p < end) {
        unsigned char c = *p;
        if (c < 0x80) {
            ++p;
            continue;
        }
        int len;
        unsigned char lo = 0x80, hi = 0xBF;
        if (c >= 0xC2 && c <= 0xDF) {
            len = 2;
        } else if (c >= 0xE0 && c <= 0xEF) {
            len = 3;
            if (c == 0xE0) lo = 0xA0;       // overlong
            if (c == 0xED) hi = 0x9F;       // surrogates
        } else if (c >= 0xF0 && c <= 0xF4) {
            len = 4;
            if (c == 0xF0) lo = 0x90;       // overlong
            if (c == 0xF4) hi = 0x8F;       // above U+10FFFF
        } else {
            return false;
        }
        if (end - p < len) return false;
        if (p[1] < lo || p[1] > hi) return false;
        for (int i = 2; i < len; ++i)
            if ((p[i] & 0xC0) != 0x80) return false;
        p += len;
    }
    return true;
}

}  // namespace dag
