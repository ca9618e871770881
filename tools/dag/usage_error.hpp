// What `dag` says about a command line it cannot parse: CLI11's message in
// dag's own voice ("dag: ..."), with the command whose help to read.
#pragma once

#include <CLI/CLI.hpp>

#include <string>

namespace dagcli {

// The lines to print on standard error, each ending in a newline.
std::string usage_error(const CLI::App &app, const CLI::ParseError &error, int argc, char **argv);

}  // namespace dagcli
