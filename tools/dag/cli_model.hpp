// The commands and options of the `dag` program as plain data, read from
// its CLI11 app: the completion scripts and the man page are written from
// it, so they cannot drift from what the program parses.
#pragma once

#include <CLI/CLI.hpp>

#include <string>
#include <vector>

namespace dagcli {

struct OptionModel {
    // "-h", "--help": every spelling.
    std::vector<std::string> names;
    std::string description;
    // What the value is called ("FILE", "N"); empty for a flag.
    std::string value;
    // A flag that may also take a value after "=" (--progress=WHEN).
    bool value_after_equals = false;
    // Takes every following word up to the next option (--target NAME...).
    bool many = false;
    // The only values it accepts, when it says.
    std::vector<std::string> choices;
    // The value names a file.
    bool file = false;
    // What --help shows after the value's name, other than choices
    // ("UINT in [1 - 1024]"), its default ("10") and whether it must be given.
    std::string accepts;
    std::string default_value;
    bool required = false;
};

struct PositionalModel {
    std::string name;  // "FILE", "NAME"
    std::string description;
    bool many = false;
    bool file = false;
    std::vector<std::string> choices;
};

// `description` up to its first ":", ";" or "(": short enough for a
// completion menu.
std::string short_description(const std::string &description);

struct CommandModel {
    std::string name;
    std::string description;
    // The help's footer: details, then "Example:" and indented lines.
    std::string footer;
    std::vector<OptionModel> options;
    std::vector<PositionalModel> positionals;
};

struct ProgramModel {
    std::string name;
    std::string description;
    std::string footer;
    // --help, --version
    std::vector<OptionModel> options;
    std::vector<CommandModel> commands;
};

// The visible commands and options of `app`, in the order they were added.
ProgramModel program_model(CLI::App &app);

}  // namespace dagcli
