// --from and --to: a format chosen by the name libdag gives it (dag_format_name).
#pragma once

#include <CLI/CLI.hpp>
#include <dag/dag.h>

#include <string>
#include <vector>

namespace dagcli {

CLI::Option *add_format_option(CLI::App &command, const std::string &name, dag_format &format,
                               const std::vector<dag_format> &choices,
                               const std::string &description);

}  // namespace dagcli
