#include "whole_number.hpp"

#include <algorithm>
#include <string>

namespace dagcli {

CLI::Validator whole_number(std::uint64_t min, std::uint64_t max) {
    const std::string range = std::to_string(min) + " and " + std::to_string(max);
    return CLI::Validator(
        [min, max, range](std::string &text) -> std::string {
            const bool digits =
                !text.empty() && std::all_of(text.begin(), text.end(), [](char c) { return c >= '0' && c <= '9'; });
            if (!digits) return "'" + text + "' is not a whole number";
            const std::string::size_type first = std::min(text.find_first_not_of('0'), text.size() - 1);
            const std::string plain = text.substr(first);
            // Twenty digits or more is past any limit here, and past what
            // std::stoull can hold.
            if (plain.size() >= 20 || std::stoull(plain) < min || std::stoull(plain) > max)
                return "'" + text + "' is not between " + range;
            text = plain;
            return {};
        },
        "UINT in [" + std::to_string(min) + " - " + std::to_string(max) + "]");
}

}  // namespace dagcli
