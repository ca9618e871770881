// The commands `dag --help` lists, and what their own --help prints: the
// help, completion and man page tests check each against the program as it
// is, so a command added later is checked too.
#pragma once

#include <string>
#include <vector>

#include "timed_dag.hpp"

namespace cli_test {

// The names under "Subcommands:" in `dag --help`.
inline std::vector<std::string> listed_commands(const ScratchDir &dir) {
    Outcome r = shell(dir, dag_command({"--help"}));
    EXPECT_EQ(r.status, 0) << r.err;
    std::vector<std::string> commands;
    bool listing = false;
    for (const std::string &line : lines_of(r.out)) {
        if (line == "Subcommands:") {
            listing = true;
        } else if (listing && line.rfind("  ", 0) == 0) {
            commands.push_back(line.substr(2, line.find(' ', 2) - 2));
        } else if (listing) {
            break;
        }
    }
    EXPECT_GE(commands.size(), 10u) << r.out;
    return commands;
}

}  // namespace cli_test
