// Imported text arrives in whatever encoding the program that wrote it chose:
// `terraform graph > file` in PowerShell writes UTF-16 with a byte-order
// mark, Graphviz's own test graphs use Latin-1. The importers work on UTF-8
// only, so everything is converted here first.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>

namespace dag {

// Spare capacity every decoded text keeps past its end, so that a reader
// that reads in blocks past the last byte (simdjson) reads it in place.
inline constexpr std::size_t text_padding = 64;

// `bytes` in a string with text_padding bytes of spare capacity, for
// decode_text() to take over without another copy.
std::string padded_text(std::string_view bytes);

struct DecodedText {
    std::string utf8;
    // A byte-order mark said the text is Unicode, so a charset the text
    // declares for itself (DOT's charset=latin1) no longer applies.
    bool had_bom = false;
};

// The bytes as UTF-8 text: a UTF-8 byte-order mark is dropped, UTF-16 (LE or
// BE) with a byte-order mark is transcoded; UTF-8 without a mark is taken
// over as it is. The result keeps text_padding bytes of spare capacity,
// zeroed.
// Throws Errc::parse for an odd number of UTF-16 bytes, an unpaired
// surrogate, or a NUL character (which no importer can carry through to a
// name).
DecodedText decode_text(std::string bytes);

// Each byte as the Unicode code point of the same value (ISO-8859-1).
std::string latin1_to_utf8(std::string_view latin1);

}  // namespace dag
