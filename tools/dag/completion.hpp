// `dag completion bash|zsh|fish`: a completion script for the shell,
// written from the program's own commands and options (cli_model.hpp).
#pragma once

#include <CLI/CLI.hpp>

#include <string>

#include "cli_model.hpp"

namespace dagcli {

void add_completion_command(CLI::App &app, int &exit_code);

std::string bash_completion(const ProgramModel &program);
std::string zsh_completion(const ProgramModel &program);
std::string fish_completion(const ProgramModel &program);

}  // namespace dagcli
