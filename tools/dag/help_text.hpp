// What each command's --help says after its options: more about what it
// does, an example, then the program's exit statuses. The man page and the
// tests read the same text.
#pragma once

#include <CLI/CLI.hpp>

#include <memory>
#include <string>
#include <vector>

namespace dagcli {

// The help formatter of `dag`: a command's help ends with the program's
// footer (the exit statuses) after its own. Set before commands are added,
// which take their parent's.
std::shared_ptr<CLI::Formatter> help_formatter();

// The command's footer: `details` (may be empty), then "Example:" and the
// `example` lines, each indented: "$ command" lines, each followed by what
// it prints. The tests run every "$" line and compare.
void set_help(CLI::App &command, const std::string &details, const std::vector<std::string> &example);

}  // namespace dagcli
