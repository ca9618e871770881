// Options whose value is one of a few names standing for an enum (--priority,
// --output). CLI11's CheckedTransformer also takes the enum's numbers and
// shows its map in the help and in errors; this takes the names only.
#pragma once

#include <CLI/CLI.hpp>

#include <map>
#include <string>

namespace dagcli {

// A check that turns a name of `values` into its enum's number, for CLI11 to
// convert, and refuses anything else: "'bogus' is not one of a, b, c". Its
// description, "{a,b,c}", is what the help and the completions list.
template <class Enum>
CLI::Validator named_values(const std::map<std::string, Enum> &values) {
    std::string listed, braced;
    for (const auto &[name, value] : values) {
        listed += (listed.empty() ? "" : ", ") + name;
        braced += (braced.empty() ? "" : ",") + name;
    }
    return CLI::Validator(
        [values, listed](std::string &text) -> std::string {
            const auto found = values.find(text);
            if (found == values.end()) return "'" + text + "' is not one of " + listed;
            text = std::to_string(static_cast<long long>(found->second));
            return {};
        },
        "{" + braced + "}");
}

}  // namespace dagcli
