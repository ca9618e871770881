// Graph files as libdag's import reads them, for the parts of the file the
// CLI reads itself (attributes libdag drops).
#pragma once

#include <cstdint>
#include <string>

namespace dagcli {

struct DecodedText {
    std::string utf8;
    // A byte-order mark said the text is Unicode, so DOT's charset=latin1 no
    // longer applies.
    bool had_bom = false;
};

// `bytes` as UTF-8: a UTF-8 byte-order mark dropped, UTF-16 (LE or BE) with a
// byte-order mark transcoded, anything else as it is. Only for text libdag
// has imported, whose UTF-16 it has already checked.
DecodedText decode_text(const std::string &bytes);

void append_utf8(std::string &out, uint32_t code_point);

}  // namespace dagcli
