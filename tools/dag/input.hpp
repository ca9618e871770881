// The graph file every command reads: FILE ("-" for standard input) and --from.
#pragma once

#include <CLI/CLI.hpp>
#include <dag/dag.h>

#include <string>

#include "libdag.hpp"

namespace dagcli {

struct Input {
    std::string path;
    dag_format format = DAG_FORMAT_AUTO;
};

// Adds the FILE positional and the --from option to a command.
void add_input(CLI::App &command, Input &input);

Graph load(const Input &input);

}  // namespace dagcli
