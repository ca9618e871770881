#include "text_decoding.hpp"

namespace dagcli {

void append_utf8(std::string &out, uint32_t c) {
    if (c < 0x80) {
        out += static_cast<char>(c);
    } else if (c < 0x800) {
        out += static_cast<char>(0xC0 | (c >> 6));
        out += static_cast<char>(0x80 | (c & 0x3F));
    } else if (c < 0x10000) {
        out += static_cast<char>(0xE0 | (c >> 12));
        out += static_cast<char>(0x80 | ((c >> 6) & 0x3F));
        out += static_cast<char>(0x80 | (c & 0x3F));
    } else {
        out += static_cast<char>(0xF0 | (c >> 18));
        out += static_cast<char>(0x80 | ((c >> 12) & 0x3F));
        out += static_cast<char>(0x80 | ((c >> 6) & 0x3F));
        out += static_cast<char>(0x80 | (c & 0x3F));
    }
}

namespace {

// libdag accepted the text, so its UTF-16 is well formed: surrogates pair up.
std::string utf16_to_utf8(const std::string &bytes, bool little_endian) {
    std::string out;
    out.reserve(bytes.size() / 2);
    auto unit = [&](size_t i) {
        const auto lo = static_cast<unsigned char>(bytes[i + (little_endian ? 0 : 1)]);
        const auto hi = static_cast<unsigned char>(bytes[i + (little_endian ? 1 : 0)]);
        return static_cast<uint32_t>(hi << 8 | lo);
    };
    for (size_t i = 2; i + 1 < bytes.size(); i += 2) {
        uint32_t c = unit(i);
        if (c >= 0xD800 && c < 0xDC00 && i + 3 < bytes.size()) {
            i += 2;
            c = 0x10000 + ((c - 0xD800) << 10) + (unit(i) - 0xDC00);
        }
        append_utf8(out, c);
    }
    return out;
}

}  // namespace

DecodedText decode_text(const std::string &bytes) {
    if (bytes.rfind("\xEF\xBB\xBF", 0) == 0) return {bytes.substr(3), true};
    if (bytes.rfind("\xFF\xFE", 0) == 0) return {utf16_to_utf8(bytes, true), true};
    if (bytes.rfind("\xFE\xFF", 0) == 0) return {utf16_to_utf8(bytes, false), true};
    return {bytes, false};
}

}  // namespace dagcli
