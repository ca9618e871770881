// --target and --exclude of `walk` and `order`: the part of the graph a
// partial run needs, chosen by dag_select().
#pragma once

#include <CLI/CLI.hpp>

#include <string>
#include <vector>

#include "input.hpp"
#include "libdag.hpp"

namespace dagcli {

struct Selection {
    std::vector<std::string> targets;
    std::vector<std::string> excludes;
};

// Adds --target and --exclude to a command that also has --reverse.
void add_selection_options(CLI::App &command, Selection &selection);

// The selected part of `g` (`g` itself when nothing is selected); `reverse`
// is the command's --reverse. An unknown name is a Failure with exit status 2
// that names the file and the name.
Graph apply_selection(Graph g, const Input &input, const Selection &selection, bool reverse);

}  // namespace dagcli
