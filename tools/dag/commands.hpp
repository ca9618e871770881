// The command groups. Each adds its subcommands to the app; a command's
// callback leaves its exit status in `exit_code` and throws Failure for
// anything that stops it.
#pragma once

#include <CLI/CLI.hpp>

namespace dagcli {

// validate, root, cycles, stats
void add_check_commands(CLI::App &app, int &exit_code);
// order, ancestors, descendants
void add_order_commands(CLI::App &app, int &exit_code);
// convert, reduce
void add_format_commands(CLI::App &app, int &exit_code);
// walk
void add_walk_command(CLI::App &app, int &exit_code);
// render
void add_render_command(CLI::App &app, int &exit_code);

}  // namespace dagcli
