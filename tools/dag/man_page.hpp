// dag(1), written in roff from the program's own help text (cli_model.hpp):
// the build runs `dag --man` and installs what it prints.
#pragma once

#include <CLI/CLI.hpp>

#include <string>

#include "cli_model.hpp"

namespace dagcli {

std::string man_page(const ProgramModel &program, const std::string &version);

// `dag --man`, left out of the help: it is for the build.
void add_man_flag(CLI::App &app, const std::string &version);

}  // namespace dagcli
