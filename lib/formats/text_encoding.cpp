#include "formats/text_encoding.hpp"

#include <algorithm>
#include <cstdint>

#include "graph/error.hpp"

namespace dag {
namespace {

void append_utf8(std::string &out, std::uint32_t cp) {
    if (cp < 0x80) {
        out += static_cast<char>(cp);
    } else if (cp < 0x800) {
        out += static_cast<char>(0xC0 | (cp >> 6));
        out += static_cast<char>(0x80 | (cp & 0x3F));
    } else if (cp < 0x10000) {
        out += static_cast<char>(0xE0 | (cp >> 12));
        out += static_cast<char>(0x80 | ((cp >> 6) & 0x3F));
        out += static_cast<char>(0x80 | (cp & 0x3F));
    } else {
        out += static_cast<char>(0xF0 | (cp >> 18));
        out += static_cast<char>(0x80 | ((cp >> 12) & 0x3F));
        out += static_cast<char>(0x80 | ((cp >> 6) & 0x3F));
        out += static_cast<char>(0x80 | (cp & 0x3F));
    }
}

[[noreturn]] void bad_utf16(std::size_t offset, const char *why) {
    throw Error(Errc::parse, "UTF-16 text: " + std::string(why) + " at byte " + std::to_string(offset));
}

// Offsets in messages count the 2-byte byte-order mark, as a hex dump of the
// file would.
std::string utf16_to_utf8(std::string_view bytes, bool little_endian) {
    if (bytes.size() % 2 != 0) bad_utf16(bytes.size() + 1, "odd number of bytes");
    auto unit = [&](std::size_t i) -> std::uint32_t {
        auto lo = static_cast<unsigned char>(bytes[i + (little_endian ? 0 : 1)]);
        auto hi = static_cast<unsigned char>(bytes[i + (little_endian ? 1 : 0)]);
        return static_cast<std::uint32_t>(hi) << 8 | lo;
    };
    std::string out;
    out.reserve(bytes.size() / 2);
    for (std::size_t i = 0; i < bytes.size(); i += 2) {
        std::uint32_t u = unit(i);
        if (u >= 0xD800 && u <= 0xDBFF) {
            if (i + 2 >= bytes.size()) bad_utf16(i + 2, "unpaired high surrogate");
            std::uint32_t low = unit(i + 2);
            if (low < 0xDC00 || low > 0xDFFF) bad_utf16(i + 2, "unpaired high surrogate");
            u = 0x10000 + ((u - 0xD800) << 10) + (low - 0xDC00);
            i += 2;
        } else if (u >= 0xDC00 && u <= 0xDFFF) {
            bad_utf16(i + 2, "unpaired low surrogate");
        }
        append_utf8(out, u);
    }
    return out;
}

bool starts_with(std::string_view s, std::string_view prefix) {
    return s.substr(0, prefix.size()) == prefix;
}

// ASCII text in UTF-16 has a NUL in every other byte: the high byte of each
// unit, first or second by the byte order. Looked at in the first 64 units.
bool looks_like_utf16(std::string_view text) {
    const std::size_t units = std::min<std::size_t>(text.size() / 2, 64);
    if (units < 2) return false;
    std::size_t high_first = 0, high_second = 0;
    for (std::size_t i = 0; i < units; ++i) {
        const bool first = text[2 * i] == '\0', second = text[2 * i + 1] == '\0';
        high_first += first && !second;
        high_second += second && !first;
    }
    return std::max(high_first, high_second) * 10 >= units * 9;
}

}  // namespace

std::string padded_text(std::string_view bytes) {
    std::string text;
    text.reserve(bytes.size() + text_padding);
    text.assign(bytes);
    return text;
}

DecodedText decode_text(std::string bytes) {
    DecodedText out;
    out.had_bom = true;
    const std::string_view view(bytes);
    // Read as UTF-16, a UTF-32LE mark is a U+0000 and was told as a NUL at
    // offset 0, which sent the user looking for a NUL in their file.
    if (starts_with(view, std::string_view("\xFF\xFE\0\0", 4)) || starts_with(view, std::string_view("\0\0\xFE\xFF", 4)))
        throw Error(Errc::parse, "the text is UTF-32 (it begins with a byte-order mark); libdag reads UTF-8 and UTF-16");
    if (starts_with(view, "\xFF\xFE"))
        out.utf8 = utf16_to_utf8(view.substr(2), true);
    else if (starts_with(view, "\xFE\xFF"))
        out.utf8 = utf16_to_utf8(view.substr(2), false);
    else if (starts_with(view, "\xEF\xBB\xBF"))
        out.utf8 = padded_text(view.substr(3));
    else
        out = {std::move(bytes), false};
    const std::size_t size = out.utf8.size();
    if (out.utf8.capacity() < size + text_padding) out.utf8.reserve(size + text_padding);
    // The padding zeroed (within the capacity: no reallocation): simdjson's
    // block reads take it in, and left as the allocator had it, valgrind
    // flagged every JSON import with an escaped string.
    out.utf8.resize(size + text_padding);
    out.utf8.resize(size);
    if (auto nul = out.utf8.find('\0'); nul != std::string::npos) {
        std::string message = "NUL character at offset " + std::to_string(nul) + " of the text";
        if (!out.had_bom && looks_like_utf16(out.utf8))
            message += " (it looks like UTF-16 without a byte-order mark, which libdag does not guess: save it as "
                       "UTF-8, or as UTF-16 with the mark)";
        throw Error(Errc::parse, message);
    }
    return out;
}

std::string latin1_to_utf8(std::string_view latin1) {
    std::string out;
    out.reserve(latin1.size());
    for (char c : latin1) append_utf8(out, static_cast<unsigned char>(c));
    return out;
}

}  // namespace dag
