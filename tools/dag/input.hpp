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

// The graph, or a Failure with exit status 2 that names the file.
Graph load(const Input &input);

// The graph in `text`, read from the file `input` names (see read_text), for
// a command that reads more of the file than libdag keeps.
Graph load(const Input &input, const std::string &text);

// The whole of file `path` ("-" for standard input), or a Failure with
// exit status 2 that names it.
std::string read_text(const std::string &path);

// The file as messages name it.
std::string shown_name(const Input &input);

}  // namespace dagcli
